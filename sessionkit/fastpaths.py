"""The one public switch between sessionkit's fast lanes and its general readers.

Some readers have a fast lane for the usual page (top-level headings found by
string search, the quick lint of plain aiwiki pages, flat frontmatter read
without the YAML parser).  Each lane must give exactly what the general
reader gives; the differential tests run both through this switch, and you
can turn the lanes off to rule them out when you suspect one:

* the environment variable ``SESSIONKIT_FAST_PATHS=0`` (or ``false``, ``no``,
  ``off``) turns them off for the whole process;
* ``with general_paths():`` turns them off for the code inside.

>>> from sessionkit.fastpaths import enabled, general_paths
>>> with general_paths():
...     enabled()
False
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["ENV", "enabled", "general_paths"]

#: the environment variable read by :func:`enabled`
ENV = "SESSIONKIT_FAST_PATHS"

_forced_general = 0


def enabled() -> bool:
    """Whether the fast lanes are on (the default)."""
    if _forced_general:
        return False
    value = os.environ.get(ENV)
    return value is None or value.strip().lower() not in ("0", "false", "no", "off")


@contextmanager
def general_paths() -> Iterator[None]:
    """Run the block inside with every fast lane off (the general readers only)."""
    global _forced_general
    _forced_general += 1
    try:
        yield
    finally:
        _forced_general -= 1
