"""Reading side files a hook merely consults (a transcript, a work manifest) without blocking.

:func:`read_regular` opens with ``O_NONBLOCK`` (opening a FIFO for reading
would otherwise wait for a writer forever), checks with ``fstat`` that what it
opened is a regular file (never a FIFO, socket or device), and reads at most
``limit`` bytes.  Anything else gives ``None``: these files are best-effort
extras, so the caller goes on without them.
"""

from __future__ import annotations

import os
import stat

__all__ = ["read_regular"]


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
