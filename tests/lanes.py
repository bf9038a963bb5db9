"""The fast lanes' switch, for the tests that hold a lane equal to the general path.

``general_paths()`` turns every lane off the way a user does
(``SESSIONKIT_FAST_PATHS=0``); ``taken()`` and ``LANES`` are the private
counters a lane's test reads to make sure the lane did answer (not part of the
public API: sessionkit._fastpaths).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

from sessionkit._fastpaths import ENV, LANES, enabled, lanes_off, taken

__all__ = ["ENV", "LANES", "enabled", "general_paths", "lanes_off", "taken"]


@contextlib.contextmanager
def general_paths() -> Iterator[None]:
    """Every fast lane off inside the block (``SESSIONKIT_FAST_PATHS=0``)."""
    before = os.environ.get(ENV)
    os.environ[ENV] = "0"
    try:
        yield
    finally:
        if before is None:
            del os.environ[ENV]
        else:
            os.environ[ENV] = before
