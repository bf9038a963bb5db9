"""Reading side files a hook merely consults (a transcript, a work manifest) without blocking.

:func:`read_regular` opens with ``O_NONBLOCK`` (opening a FIFO for reading
would otherwise wait for a writer forever), checks with ``fstat`` that what it
opened is a regular file (never a FIFO, socket or device), and reads at most
``limit`` bytes.  Anything else gives ``None``: these files are best-effort
extras, so the caller goes on without them.

:func:`open_note` and :func:`read_open` are the same checks for the notes
themselves (every local read of a note goes through them): a FIFO, a device,
a socket or a folder is an unreadable note, named (:class:`NotRegular`),
never a read that waits or never ends; a read takes at most ``limit + 1``
bytes, so a note over the size limit is known to be without reading it all.
"""

from __future__ import annotations

import os
import stat

__all__ = ["NotRegular", "file_kind", "open_note", "read_open", "read_regular"]

_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
_OPEN_FLAGS |= getattr(os, "O_CLOEXEC", 0)


class NotRegular(OSError):
    """What was opened is not a regular file; ``kind`` says what it is (``a FIFO``)."""

    def __init__(self, kind: str) -> None:
        super().__init__(f"not a regular file ({kind})")
        self.kind = kind


def file_kind(mode: int) -> str:
    """What a file of this ``st_mode`` is, in words (``a FIFO``, ``a character device``)."""
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a regular file" if stat.S_ISREG(mode) else "not a regular file"


def open_note(
    path: str | os.PathLike[str], *, dir_fd: int | None = None, follow: bool = True
) -> int:
    """A descriptor of the regular file at ``path`` (``dir_fd``: relative to that
    folder; ``follow=False``: a symbolic link is refused with ``ELOOP``).

    Opened with ``O_NONBLOCK`` (a FIFO without a writer never holds the open),
    then checked with ``fstat``.

    Raises:
        NotRegular: a FIFO, device, socket or folder (closed again).
        OSError: the open failed.
    """
    flags = _OPEN_FLAGS if follow else _OPEN_FLAGS | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(path, flags, dir_fd=dir_fd) if dir_fd is not None else os.open(path, flags)
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        os.close(fd)
        raise
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise NotRegular(file_kind(mode))
    return fd


def read_open(fd: int, limit: int | None = None) -> bytes:
    """The bytes of the open file ``fd`` (not closed here): all of them, or at most
    ``limit + 1`` (one more than the limit tells a caller the file is over it)."""
    parts: list[bytes] = []
    left = -1 if limit is None else max(0, limit) + 1
    while left:
        chunk = os.read(fd, 1 << 16 if left < 0 else min(left, 1 << 16))
        if not chunk:
            break
        parts.append(chunk)
        if left > 0:
            left -= len(chunk)
    return parts[0] if len(parts) == 1 else b"".join(parts)


def read_regular(path: str | os.PathLike[str], limit: int) -> bytes | None:
    """The first ``limit`` bytes of the regular file at ``path``, else ``None``.

    ``None`` when the path is missing, unreadable, or not a regular file (a
    FIFO, socket, character or block device, folder).  Never blocks on the
    open, never raises ``OSError``.
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    flags |= getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except (OSError, ValueError):
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return None
        chunks: list[bytes] = []
        left = max(0, limit)
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(fd)
