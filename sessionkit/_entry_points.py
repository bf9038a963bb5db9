"""Entry points of one group, without importing :mod:`importlib.metadata` when none exist.

Importing :mod:`importlib.metadata` and reading every installed
distribution's metadata costs a command tens of milliseconds (it imports
``email``, ``zipfile``, ``csv`` …), and lint asks for the
``sessionkit.formats`` group on every run.  Almost always no installed
distribution declares that group, and that can be seen far more cheaply:
:func:`entry_points` looks into the ``*.dist-info`` and ``*.egg-info``
folders of the import path for an ``entry_points.txt`` that names the group
at all, and only when one does (or when the import path holds something
other than plain folders, such as a zip file, or a finder of its own that
could list distributions) asks :mod:`importlib.metadata`, whose answer is
then the answer.
"""

from __future__ import annotations

import os
import sys

__all__ = ["entry_points"]

_METADATA_DIRS = (".dist-info", ".egg-info")


def _may_declare(group: str) -> bool:
    """False when no distribution on the import path can declare ``group``."""
    needle = f"[{group}]".encode()
    for finder in sys.meta_path:
        own = str(getattr(finder, "__module__", "")).startswith("_frozen_importlib")
        if not own and getattr(finder, "find_distributions", None) is not None:
            return True  # a finder of its own may list distributions: ask importlib
    for entry in sys.path:
        folder = entry or "."
        try:
            scan = os.scandir(folder)
        except NotADirectoryError:
            return True  # a zip file or similar on the path: ask importlib
        except OSError:
            continue  # missing folders list nothing
        with scan:
            names = [e.name for e in scan if e.name.endswith(_METADATA_DIRS)]
        for name in names:
            try:
                with open(os.path.join(folder, name, "entry_points.txt"), "rb") as fh:
                    data = fh.read()
            except OSError:
                continue
            if needle in data:
                return True
    return False


def entry_points(group: str) -> list[tuple[str, str]]:
    """``(name, value)`` of every entry point in ``group``, as :mod:`importlib.metadata` says."""
    if not _may_declare(group):
        return []
    from importlib.metadata import entry_points as read

    return [(ep.name, ep.value) for ep in read(group=group)]
