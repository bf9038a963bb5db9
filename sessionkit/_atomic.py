"""Durable, atomic replacement of one local file.

The new content goes to a temp dotfile in the same folder (``.NAME.XXXX.tmp``:
hidden from the wiki's glob and ignored by Basic Memory), is fsynced, moved
over the target with :func:`os.replace`, and the folder is fsynced.  A crash
at any moment leaves the old file or the new one, never a mix.  Stores use
their own, locked variant (``backends/_storage.py``); this one serves config
files, Claude Code settings, migration backups and ``lint --fix``.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

__all__ = ["fsync_dir", "write_atomic"]


def fsync_dir(folder: str | os.PathLike[str]) -> None:
    """fsync a folder so a rename in it survives a power cut (no-op off POSIX)."""
    if os.name != "posix":  # pragma: no cover - no directory fsync on Windows
        return
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:  # pragma: no cover
        return
    try:
        with contextlib.suppress(OSError):  # some filesystems refuse it
            os.fsync(fd)
    finally:
        os.close(fd)


def write_atomic(path: str | os.PathLike[str], data: str | bytes) -> None:
    """Replace ``path`` with ``data`` (text is written as UTF-8, line ends untouched).

    The folder is created when missing; an existing file's permission bits are
    kept.  On failure the temp file is removed and the error propagates.
    """
    target = Path(path)
    raw = data.encode("utf-8") if isinstance(data, str) else data
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(raw)
            fh.flush()
            os.fsync(fh.fileno())
        if target.exists():
            os.chmod(tmp, target.stat().st_mode & 0o777)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    fsync_dir(target.parent)
