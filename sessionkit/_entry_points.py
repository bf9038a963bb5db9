"""Entry points of one group, without importing :mod:`importlib.metadata` (tens of ms,
on every lint) when no ``entry_points.txt`` on the import path names the group; a zip
or a finder of its own on the path, or a file naming it, and importlib answers."""

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
