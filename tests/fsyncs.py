"""Folder fsyncs seen from outside the store: through :func:`os.fsync`.

A rename is durable once its folder is fsynced.  Tests that check when and
how often a store makes its renames durable count the ``os.fsync`` calls made
on a folder's descriptor (file fsyncs are left out), named by the folder under
``root`` with the same device and inode.  With ``log``, each folder is
appended to that file as a line, so that the calls of worker processes forked
after the spy was set count too.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest


def _folder_named(st: os.stat_result, root: Path) -> str:
    for folder, _, _ in os.walk(root):
        here = os.stat(folder)
        if (here.st_dev, here.st_ino) == (st.st_dev, st.st_ino):
            return folder
    return "<outside root>"


def folder_fsyncs(
    monkeypatch: pytest.MonkeyPatch,
    root: Path,
    log: Path | None = None,
    seen: Callable[[str], None] | None = None,
) -> list[str]:
    """Record every folder fsynced from now on, in order, as a path under ``root``.

    Returns the list the folders are appended to (empty with ``log``: read the
    file).  ``seen`` is also called with each folder.
    """
    folders: list[str] = []
    real = os.fsync

    def spy(fd: Any) -> None:
        st = os.fstat(fd if isinstance(fd, int) else fd.fileno())
        if stat.S_ISDIR(st.st_mode):
            folder = _folder_named(st, root)
            if log is None:
                folders.append(folder)
            else:
                with open(log, "a", encoding="utf-8") as fh:
                    fh.write(folder + "\n")
            if seen is not None:
                seen(folder)
        real(fd)

    monkeypatch.setattr(os, "fsync", spy)
    return folders
