"""Durable, atomic replacement of one local file, its temp files and the folder lock.

The new content goes to a temp dotfile beside the target (``.NAME.<12 hex>.tmp``,
held under an ``flock`` while written), is fsynced, moved over the target and the
folder fsynced: a crash leaves the old file or the new one.  A replaced file keeps
its mode (and owner where allowed); one without a write bit is refused.  Stale temp
files (no writer holds their lock: a ``kill -9``) are swept by the next write.
Stores use their own, locked variant (``backends/_storage.py``) on the same temps.
"""

from __future__ import annotations

import os
import re
import stat
import time

from ._lazyre import lazy

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = [
    "LOCK_NAME",
    "TEMP_PATTERN",
    "check_writable",
    "fsync_dir",
    "inside",
    "lock_file",
    "lock_timeout_text",
    "make_temp",
    "sweep_temps",
    "write_atomic",
]


def inside(real: str, root: str) -> bool:
    """Whether the resolved path ``real`` is ``root`` or below it."""
    return real == root or real.startswith(root.rstrip(os.sep) + os.sep)


#: names of sessionkit's temp files: ``.NAME.<12 lowercase hex>.tmp``
TEMP_PATTERN = lazy(r"^\..+\.[0-9a-f]{12}\.tmp$")

try:  # POSIX: writers hold an flock on their temp file
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]


def fsync_dir(folder: str | os.PathLike[str]) -> None:
    """fsync a folder so a rename in it survives a power cut (no-op off POSIX)."""
    if os.name != "posix":  # pragma: no cover - no directory fsync on Windows
        return
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:  # pragma: no cover
        return
    try:
        try:  # noqa: SIM105 (contextlib is not imported on the hook path)
            os.fsync(fd)
        except OSError:  # some filesystems refuse it
            pass
    finally:
        os.close(fd)


def check_writable(st: os.stat_result, shown: str) -> None:
    """Raise :class:`PermissionError` when a file's mode has no write bit (a note made
    read-only on purpose is not rewritten, not even by root)."""
    if stat.S_ISREG(st.st_mode) and not st.st_mode & 0o222:
        raise PermissionError(
            13,
            f"{shown} is read-only (mode {stat.S_IMODE(st.st_mode):04o}); "
            "it is left as it is (make it writable, chmod u+w, to let sessionkit edit it)",
        )


def make_temp(
    full: str, data: bytes, *, like: os.stat_result | None = None, sync: bool = True
) -> tuple[str, int]:
    """Write ``data`` to a new temp file next to ``full``; returns ``(path, fd)``.

    The caller keeps ``fd`` (it holds the ``flock``) open until the temp file is
    renamed or removed.  ``like``: the replaced file's stat, whose mode (and owner
    where allowed) it takes.  ``sync=False``: the caller fsyncs ``fd`` itself.
    """
    folder, name = os.path.split(full)
    tmp = os.path.join(folder, f".{name}.{os.urandom(6).hex()}.tmp")  # (secrets.token_hex)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o666)
    try:
        if fcntl is not None:
            fcntl.flock(fd, fcntl.LOCK_EX)
        if like is not None:
            if (like.st_uid, like.st_gid) != (os.getuid(), os.getgid()) and hasattr(os, "fchown"):
                try:  # noqa: SIM105 (contextlib is not imported on the hook path)
                    os.fchown(fd, like.st_uid, like.st_gid)
                except OSError:  # only where the process may
                    pass
            if hasattr(os, "fchmod"):  # (not on Windows before Python 3.13)
                os.fchmod(fd, stat.S_IMODE(like.st_mode))
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        if sync:
            os.fsync(fd)
    except BaseException:
        os.close(fd)
        try:  # noqa: SIM105 (contextlib is not imported on the hook path)
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return tmp, fd


def sweep_temps(folder: str | os.PathLike[str], name: str | None = None) -> int:
    """Remove the temp files (``.NAME.<hex>.tmp``) in ``folder`` whose ``flock`` no
    process holds (``name``: only that target's); returns how many.  Errors are ignored."""
    if fcntl is None:  # pragma: no cover
        return 0
    removed = 0
    prefix = f".{name}." if name is not None else "."
    try:  # (only the temp files are held: a folder of 100,000 notes is not listed whole)
        with os.scandir(folder) as entries:
            found = [
                entry.path
                for entry in entries
                if entry.name.startswith(prefix) and TEMP_PATTERN.match(entry.name)
            ]
    except OSError:
        return 0
    for path in found:
        if name is not None and not re.fullmatch(
            r"[0-9a-f]{12}\.tmp", os.path.basename(path)[len(prefix) :]
        ):
            continue
        try:
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        except OSError:
            continue
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                continue  # a live writer holds it
            if os.fstat(fd).st_ino == os.lstat(path).st_ino:
                os.unlink(path)
                removed += 1
        except OSError:
            continue
        finally:
            os.close(fd)
    return removed


def write_atomic(path: str | os.PathLike[str], data: str | bytes) -> None:
    """Replace ``path`` with ``data`` (text as UTF-8, line ends untouched); the folder is
    made when missing, the file's mode kept, stale temp files of the target swept.

    Raises:
        PermissionError: the existing file has no write bit (see :func:`check_writable`).
        OSError: the write failed (the old file is untouched).
    """
    from pathlib import Path

    target = Path(path)
    raw = data.encode("utf-8") if isinstance(data, str) else data
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        like: os.stat_result | None = os.stat(target)
    except FileNotFoundError:
        like = None
    if like is not None:
        check_writable(like, str(target))
    sweep_temps(target.parent, target.name)
    tmp, fd = make_temp(str(target), raw, like=like)
    try:
        os.replace(tmp, target)
    except BaseException:
        try:  # noqa: SIM105 (contextlib is not imported on the hook path)
            os.unlink(tmp)
        except OSError:
            pass
        raise
    finally:
        os.close(fd)
    fsync_dir(target.parent)


#: the per-folder lock file of a local store (a dotfile: ignored by the aiwiki glob and by
#: Basic Memory's indexer); the pre-compact hook's lane holds the same one
LOCK_NAME = ".sessionkit.lock"


def lock_timeout_text(timeout: float, shown: str) -> str:
    """The message of a lock not taken in time: seconds to a tenth (``4.4 s``, ``30 s``)."""
    return f"timed out after {round(timeout, 1):g} s waiting for the lock on {shown!r}"


def lock_file(path: str, timeout: float) -> Callable[[], None]:
    """Take the exclusive lock on the lock file ``path`` (made if missing) within
    ``timeout`` seconds; returns its release.  An ``flock``, as :mod:`filelock` takes
    it on POSIX; where ``flock`` is missing, :mod:`filelock` itself.

    Raises:
        TimeoutError: the lock was not free within ``timeout``.
        OSError: the lock file cannot be opened.
    """
    if fcntl is not None:
        flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
        try:
            fd = os.open(path, flags, 0o644)
        except PermissionError:  # a lock file made by another user: flock needs no write
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        deadline: float | None = None
        delay = 0.001
        try:
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    now = time.monotonic()
                    if deadline is None:
                        deadline = now + timeout
                    if now >= deadline:
                        raise TimeoutError(path) from None
                    time.sleep(min(delay, deadline - now))
                    delay = min(2 * delay, 0.05)
                    continue
                except OSError as exc:
                    import errno

                    if exc.errno not in (errno.ENOLCK, errno.ENOSYS, errno.EOPNOTSUPP):
                        raise
                    break  # no flock on this filesystem: filelock's own fallback
                else:

                    def release() -> None:
                        try:  # noqa: SIM105 (contextlib is not imported on the hook path)
                            fcntl.flock(fd, fcntl.LOCK_UN)
                        except OSError:
                            pass
                        os.close(fd)

                    return release
        except BaseException:
            os.close(fd)
            raise
        os.close(fd)
    from filelock import FileLock, Timeout

    lock = FileLock(path, timeout=timeout)
    try:
        lock.acquire()
    except Timeout:
        raise TimeoutError(path) from None
    return lambda: lock.release()
