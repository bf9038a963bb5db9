"""Files below a folder on a local disk: atomic, locked, never outside the root.

Writes go to a synced temp dotfile moved into place (:func:`os.replace`), so a
reader sees the old or the new file; create-only writes are a hard link (atomic,
``O_EXCL``); read-modify-writes hold the folder's lock file (``flock``).  Paths
pass :func:`~sessionkit.backends._base.check_key` and must resolve inside the
root (symlinks leading outside are refused).
"""

from __future__ import annotations

import builtins
import contextlib
import errno
import functools
import itertools
import os
import secrets
import stat
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from .._atomic import (
    LOCK_NAME,
    check_writable,
    fsync_dir,
    inside,
    lock_timeout_text,
    make_temp,
    sweep_temps,
)
from .._atomic import lock_file as _lock_file
from .._safe_read import NotRegular, open_note, read_open
from ..errors import ConflictError, NotFoundError, PathSafetyError, SessionKitError, StoreError
from ._base import FileEntry, Storage, Updater, check_key

__all__ = ["LOCK_NAME", "LocalStorage", "is_local", "local_path", "split_url"]

#: whether folders can be opened and files opened in them without following links
_DIR_FDS = (
    os.open in os.supports_dir_fd and hasattr(os, "O_NOFOLLOW") and hasattr(os, "O_DIRECTORY")
)
_FOLDER_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0)
_FOLDER_FLAGS |= getattr(os, "O_CLOEXEC", 0)
#: folders :meth:`LocalStorage.read_each` keeps open at most (then it starts again)
_OPEN_FOLDERS = 64


class LocalStorage(Storage):
    """Files below a folder on a local disk (see the module docs).

    Args:
        root: the folder (need not exist yet; it is created on first write).
        lock_timeout: seconds to wait for the lock before :class:`ConflictError`.
    """

    remote = False
    guarantee = "lock"

    def __init__(self, root: str | os.PathLike[str], *, lock_timeout: float = 30.0) -> None:
        self.url = os.fspath(root)
        self.root = os.path.realpath(os.path.abspath(self.url))
        self.lock_timeout = lock_timeout
        self._batches: dict[int, _Batch] = {}  # by thread id (a dict: storages are pickled)
        self._token = secrets.token_hex(8)  # folders swept of stale temps, per process
        self._root_id: tuple[int, int] | None = None  # (device, inode) of the resolved root

    def __getstate__(self) -> dict[str, Any]:
        """A copy in a worker process starts outside any batch."""
        state = self.__dict__.copy()
        state["_batches"] = {}
        return state

    # -- paths ----------------------------------------------------------------
    def _inside(self, real: str) -> bool:
        return inside(real, self.root)

    def _outside(self, path: str, full: str) -> str | None:
        """Where ``full`` really leads when that is outside the root, else ``None``
        (one ``lstat`` a part while the root holds; a link found is resolved)."""
        if self._root_holds():
            parts = itertools.accumulate(path.split("/"), os.path.join, initial=self.root)
            if not any(os.path.islink(part) for part in itertools.islice(parts, 1, None)):
                return None
        real = os.path.realpath(full)
        return None if self._inside(real) else real

    def _root_holds(self) -> bool:
        """Whether the root's path still leads to the folder it resolved to."""
        try:
            st = os.stat(self.root)
        except OSError:
            return False
        ident = (st.st_dev, st.st_ino)
        if self._root_id is None:
            if os.path.realpath(self.root) != self.root:
                return False
            self._root_id = ident
        return ident == self._root_id

    def resolve(self, path: str) -> str:
        """The absolute local path of ``path``; :class:`PathSafetyError` if it
        resolves (symlinks followed) outside the root."""
        check_key(path)
        full = os.path.join(self.root, *path.split("/"))
        real = self._outside(path, full)
        if real is not None:
            raise PathSafetyError(
                f"refused {path!r}: it resolves to {real!r}, outside the store root {self.root!r}",
                path=path,
            )
        return full

    def _folder(self, path: str) -> str:
        folder = os.path.dirname(path)
        return self.resolve(folder) if folder else self.root

    # -- reading --------------------------------------------------------------
    def list(self, folder: str = "") -> builtins.list[FileEntry]:
        """Every file below ``folder`` from one walk (no per-file stat); links
        leading outside the root are skipped."""
        return [FileEntry(path=path) for path in self.list_paths(folder)]

    def list_paths(self, folder: str = "", *, relative: bool = False) -> builtins.list[str]:
        """The paths of :meth:`list`, as plain strings."""
        start = self.resolve(folder) if folder else self.root
        found: builtins.list[str] = []
        prefix = f"{folder}/" if folder else ""

        def walk(abs_dir: str, rel: str) -> None:
            try:  # (iterated, not listed first: a big folder's entries are not all held)
                entries = os.scandir(abs_dir)
            except (FileNotFoundError, NotADirectoryError):
                return
            except OSError as exc:
                raise StoreError(f"cannot list {abs_dir}: {exc.strerror}", path=rel) from None
            with entries:
                for entry in entries:
                    if entry.name.startswith("."):
                        continue
                    rel_path = f"{rel}{entry.name}" if rel else entry.name
                    if entry.is_symlink() and not self._inside(os.path.realpath(entry.path)):
                        continue
                    try:
                        folder = entry.is_dir()
                        if not folder and not entry.is_file() and entry.is_symlink():
                            os.stat(entry.path)  # (a link leading nowhere is no note)
                    except FileNotFoundError:
                        continue
                    except OSError:  # (a looping link: ELOOP)
                        folder = False
                    if folder:
                        walk(entry.path, rel_path + "/")
                    else:  # (a FIFO, a device, a looping link: listed, read as unreadable)
                        found.append(rel_path)

        walk(start, "" if relative else prefix)
        found.sort()
        return found

    def names(self) -> set[str]:
        try:
            return set(os.listdir(self.root))
        except OSError:
            return set()

    @staticmethod
    def _read_full(full: str, path: str, nbytes: int | None = None) -> bytes:
        """The bytes of the regular file ``full`` (at most ``nbytes``); a FIFO or a
        device is an unreadable note, never waited on."""
        try:
            fd = open_note(full)
        except (FileNotFoundError, NotADirectoryError):
            raise NotFoundError(f"no file {path!r}", path=path) from None
        except IsADirectoryError:
            raise StoreError(f"{path!r} is a folder", path=path) from None
        except NotRegular as exc:
            raise _not_regular(exc, path) from None
        except OSError as exc:
            raise StoreError(f"cannot read {path!r}: {exc.strerror}", path=path) from None
        try:
            return read_open(fd, None if nbytes is None else nbytes - 1)
        except OSError as exc:
            raise StoreError(f"cannot read {path!r}: {exc.strerror}", path=path) from None
        finally:
            os.close(fd)

    def read(self, path: str) -> bytes:
        return self._read_full(self.resolve(path), path)

    def read_each(self, paths: Sequence[str]) -> Iterator[tuple[str, bytes | StoreError]]:
        """``(path, bytes or error)`` of each path, in order, read lazily: what
        :meth:`read` gives, each folder opened once without following links
        (a path with a link on it, or no folder descriptors: :meth:`read`)."""
        folders: dict[str, int | None] = {}  # folder -> its descriptor (None: read's way)
        try:
            if not self._pinned(folders):
                for path in paths:
                    yield path, self._read_or_error(path)
                return
            for path in paths:
                try:
                    check_key(path)
                except StoreError as exc:
                    yield path, exc
                    continue
                folder, _, name = path.rpartition("/")
                fd = folders.get(folder, -1)
                if fd == -1:
                    if len(folders) > _OPEN_FOLDERS:  # (a batch over many folders)
                        self._close_folders(folders, keep_root=True)
                    fd = folders[folder] = self._open_folder(folders, folder)
                data = None if fd is None else self._read_in(fd, name, path)
                yield path, self._read_or_error(path) if data is None else data
        finally:
            self._close_folders(folders, keep_root=False)

    @staticmethod
    def _close_folders(folders: dict[str, int | None], *, keep_root: bool) -> None:
        root = folders.pop("") if keep_root else None
        for fd in folders.values():
            if fd is not None:
                os.close(fd)
        folders.clear()
        if root is not None:
            folders[""] = root

    def _read_or_error(self, path: str) -> bytes | StoreError:
        try:
            return self.read(path)
        except StoreError as exc:
            return exc

    def _pinned(self, folders: dict[str, int | None]) -> bool:
        """Open the root as ``folders[""]`` when notes can be read by descriptors."""
        if not _DIR_FDS or not self._root_holds():
            return False
        try:
            fd = os.open(self.root, _FOLDER_FLAGS)
        except OSError:
            return False
        st = os.fstat(fd)
        if (st.st_dev, st.st_ino) != self._root_id:  # (replaced in between)
            os.close(fd)
            return False
        folders[""] = fd
        return True

    def _open_folder(self, folders: dict[str, int | None], folder: str) -> int | None:
        """``folder`` opened part by part without following links (``None``: read's way)."""
        parent, _, name = folder.rpartition("/")
        up = folders.get(parent, -1)
        if up == -1:
            up = folders[parent] = self._open_folder(folders, parent)
        if up is None:
            return None
        try:
            return os.open(name, _FOLDER_FLAGS, dir_fd=up)
        except OSError:
            return None

    @staticmethod
    def _read_in(folder: int, name: str, path: str) -> bytes | StoreError | None:
        """The note ``name`` in the open ``folder``; ``None``: left to :meth:`read`."""
        try:
            fd = open_note(name, dir_fd=folder, follow=False)
        except FileNotFoundError:
            return NotFoundError(f"no file {path!r}", path=path)
        except NotRegular as exc:
            return _not_regular(exc, path)
        except OSError:  # (a link, ELOOP; anything else: read says what)
            return None
        try:
            return read_open(fd)
        except OSError:
            return None
        finally:
            os.close(fd)

    def read_many(self, paths: Sequence[str]) -> dict[str, bytes | StoreError]:
        return dict(self.read_each(paths))

    def read_heads(self, paths: Sequence[str], nbytes: int) -> dict[str, bytes | StoreError]:
        out: dict[str, bytes | StoreError] = {}
        for path in paths:
            try:
                out[path] = self._read_full(self.resolve(path), path, nbytes)
            except StoreError as exc:
                out[path] = exc
        return out

    def mtime(self, path: str) -> float | None:
        try:
            return os.stat(self.resolve(path)).st_mtime
        except OSError:
            return None

    def readable(self, path: str) -> bool:
        try:
            return stat.S_ISREG(os.stat(self.resolve(path)).st_mode)
        except (OSError, StoreError):
            return False

    # -- writing --------------------------------------------------------------
    @contextlib.contextmanager
    def _lock(self, path: str) -> Iterator[None]:
        """Hold the lock file of ``path``'s folder (created and checked first)."""
        folder = self._folder(path)
        self._makedirs(folder)
        lock_path = os.path.join(folder, LOCK_NAME)
        try:
            release = _lock_file(lock_path, self.lock_timeout)
        except TimeoutError:
            raise ConflictError(lock_timeout_text(self.lock_timeout, path), path=path) from None
        except OSError as exc:
            raise _os_error(exc, f"cannot lock the folder of {path!r}", path) from None
        try:
            yield
        finally:
            release()

    def _makedirs(self, folder: str) -> None:
        state = self._batch()
        if state is not None and folder in state.made:
            return
        if not os.path.isdir(folder) and self.root == os.path.abspath(os.sep):
            raise PathSafetyError(
                f"refused to create {folder!r}: the store's root is the filesystem root "
                "(open the repository's own folder instead)"
            )
        try:
            os.makedirs(folder, exist_ok=True)
        except OSError as exc:
            raise _os_error(exc, f"cannot create folder {folder}", None) from None
        if not self._inside(os.path.realpath(folder)):
            raise PathSafetyError(f"refused folder {folder!r}: it resolves outside the root")
        done = (self._token, folder)
        if done not in _PREPARED:  # once per folder and process: what a killed writer left
            _PREPARED.add(done)
            sweep_temps(folder)
            from .._gitignore import exclude_in_git

            exclude_in_git(folder)  # the lock file is no untracked noise in git status
        if state is not None:
            state.made.add(folder)

    @staticmethod
    def _existing(full: str, path: str) -> os.stat_result | None:
        """The stat of the file being replaced (``None``: new); refuses a read-only one."""
        try:
            st = os.stat(full)
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise _os_error(exc, f"cannot write {path!r}", path) from None
        try:
            check_writable(st, "the note")
        except PermissionError as exc:
            raise StoreError(str(exc.strerror), path=path) from None
        return st

    #: fsync a folder
    _sync_dir = staticmethod(fsync_dir)

    def _replace(
        self,
        path: str,
        full: str,
        data: bytes,
        *,
        create: bool,
        link_only: bool = False,
        like: os.stat_result | bool | None = True,
        seen: bytes | None = None,
    ) -> bool:
        """Put ``data`` at ``full`` through a synced temp file moved into place (crash-safe).

        ``create`` refuses an existing name; ``link_only`` writes nothing without hard links;
        ``like`` gives the mode and owner to keep; ``seen`` must still be there (:class:`_Changed`).
        """
        folder = os.path.dirname(full)
        self._makedirs(folder)
        if create:
            like = None
        elif like is True:
            like = self._existing(full, path)
        for attempt in (1, 2):
            try:
                tmp, fd = make_temp(full, data, like=like or None)
            except OSError as exc:
                raise _os_error(exc, f"cannot write {path!r}", path) from None
            placed = False
            try:
                if create:
                    try:
                        os.link(tmp, full)  # atomic create-only, even against foreign writers
                    except FileExistsError:
                        raise ConflictError(f"{path!r} already exists", path=path) from None
                    except FileNotFoundError:
                        if os.path.lexists(tmp) or attempt == 2:
                            raise
                        continue  # our temp was swept in the instant before its lock
                    except OSError:  # no hard links here
                        if link_only:
                            return False
                        if os.path.lexists(full):
                            raise ConflictError(f"{path!r} already exists", path=path) from None
                        os.replace(tmp, full)
                        placed = True
                else:
                    if seen is not None and isinstance(like, os.stat_result):
                        _still(full, path, seen, like)
                    try:
                        os.replace(tmp, full)
                        placed = True
                    except FileNotFoundError:
                        if os.path.lexists(tmp) or attempt == 2:
                            raise
                        continue
            except OSError as exc:
                raise _os_error(exc, f"cannot write {path!r}", path) from None
            finally:
                if not placed:
                    with contextlib.suppress(FileNotFoundError):
                        os.unlink(tmp)
                os.close(fd)
            break
        self._renamed_in(folder)
        return True

    def _renamed_in(self, folder: str) -> None:
        """A name in ``folder`` changed: fsync it now, or when the batch ends."""
        state = self._batch()
        if state is None:
            self._sync_dir(folder)
        else:
            state.unsynced.add(folder)

    # -- batches --------------------------------------------------------------
    def _batch(self) -> _Batch | None:
        return self._batches.get(threading.get_ident())

    @contextlib.contextmanager
    def batch(self) -> Iterator[None]:
        """Group this thread's writes: each stays atomic, but folders are fsynced once
        when the outermost batch ends, create-only writes go in by hard link
        without the lock, and many files' temps are synced concurrently."""
        ident = threading.get_ident()
        if ident in self._batches:
            yield
            return
        state = _Batch()
        self._batches[ident] = state
        try:
            yield
        finally:
            del self._batches[ident]
            for folder in sorted(state.unsynced):
                self._sync_dir(folder)

    def write(self, path: str, data: bytes, *, create: bool = False) -> None:
        full = self.resolve(path)
        if os.path.isdir(full):
            raise StoreError(f"{path!r} is a folder", path=path)
        state = self._batch()
        if create and state is not None and state.links:
            if self._replace(path, full, data, create=True, link_only=True):
                return
            state.links = False  # no hard links on this filesystem: use the lock
        with self._lock(path):
            self.resolve(path)  # the folder may have changed while we waited
            self._replace(path, full, data, create=create)

    def write_many(
        self, items: Sequence[tuple[str, bytes]], *, create: bool = False
    ) -> builtins.list[SessionKitError | None]:
        """In a batch, new files' temps synced concurrently, then each hard-linked."""
        state = self._batch()
        if not create or state is None or not state.links or len(items) < 2:
            return super().write_many(items, create=create)
        out: builtins.list[SessionKitError | None] = [None] * len(items)
        specs: builtins.list[tuple[int, str, str]] = []
        for i, (path, _) in enumerate(items):
            try:
                full = self.resolve(path)
                self._makedirs(os.path.dirname(full))
            except SessionKitError as exc:
                out[i] = exc
                continue
            specs.append((i, path, full))
        made = _make_temps([(full, items[i][1], None) for i, _, full in specs])
        folders: set[str] = set()
        try:
            for (i, path, full), temp in zip(specs, made, strict=True):
                if isinstance(temp, OSError):
                    out[i] = _os_error(temp, f"cannot write {path!r}", path)
                    continue
                try:
                    os.link(temp[0], full)
                    folders.add(os.path.dirname(full))
                except FileExistsError:
                    out[i] = (
                        StoreError(f"{path!r} is a folder", path=path)
                        if os.path.isdir(full)
                        else ConflictError(f"{path!r} already exists", path=path)
                    )
                except OSError:  # no hard links here, or our temp was swept before its lock
                    if os.path.lexists(temp[0]):
                        state.links = False
                    try:
                        self.write(path, items[i][1], create=True)
                    except SessionKitError as exc:
                        out[i] = exc
        finally:
            _drop_temps(made)
        for folder in sorted(folders):
            self._renamed_in(folder)
        return out

    def update(self, path: str, fn: Updater) -> bytes | None:
        full = self.resolve(path)
        with self._lock(path):
            full = self.resolve(path)  # the folder may have changed while we waited
            return self._update_locked(path, full, fn)

    def _update_locked(self, path: str, full: str, fn: Updater) -> bytes | None:
        """:meth:`update`'s read, ``fn`` and write, with the folder's lock held."""
        try:
            current: bytes | None = self._read_full(full, path)
        except NotFoundError:
            current = None
        for _attempt in range(_RECHECKS):
            like = self._existing(full, path) if current is not None else None
            # (a read-only note is refused before any work)
            new = fn(current)
            if new is None or new == current:
                return current
            try:
                self._replace(path, full, new, create=current is None, like=like, seen=current)
            except _Changed as exc:  # edited meanwhile by a writer without the lock:
                current = exc.now  # ``fn`` decides again on what is there now
                continue
            return new
        raise ConflictError(
            f"{path!r} kept changing while it was written ({_RECHECKS} times); nothing written",
            path=path,
        )

    def update_many(
        self, paths: Sequence[str], fn: Callable[[str, bytes | None], bytes | None]
    ) -> builtins.list[bytes | SessionKitError | None]:
        """Optimistic: ``fn`` run and temps synced without the lock, then each moved
        in under the folder's lock (taken once) if still what ``fn`` saw; a file
        changed meanwhile is done again under that lock."""
        if len(paths) < 2:
            return super().update_many(paths, fn)
        out: builtins.list[bytes | SessionKitError | None] = [None] * len(paths)
        staged: builtins.list[tuple[int, str, str, bytes, os.stat_result, bytes]] = []
        for i, path in enumerate(paths):
            try:
                full = self.resolve(path)
                try:
                    current: bytes | None = self._read_full(full, path)
                except NotFoundError:
                    current = None
                st = self._existing(full, path) if current is not None else None
                new = fn(path, current)
            except SessionKitError as exc:
                out[i] = exc
                continue
            if new is None or new == current:
                out[i] = current
            elif current is None or st is None:  # a new file: the plain way
                try:
                    out[i] = self.update(path, functools.partial(fn, path))
                except SessionKitError as exc:
                    out[i] = exc
            else:
                staged.append((i, path, full, current, st, new))
        if not staged:
            return out
        made = _make_temps([(full, new, st) for _, _, full, _, st, new in staged])
        placed: set[int] = set()
        try:
            by_folder: dict[str, builtins.list[int]] = {}
            for n, item in enumerate(staged):
                by_folder.setdefault(os.path.dirname(item[2]), []).append(n)
            for folder, members in by_folder.items():
                try:
                    with self._lock(staged[members[0]][1]):
                        self._place(staged, members, made, placed, fn, out)
                except SessionKitError as exc:  # the lock, or the folder
                    for n in members:
                        if n not in placed:
                            out[staged[n][0]] = exc
                self._renamed_in(folder)
        finally:
            _drop_temps(made, placed)
        return out

    def _place(
        self,
        staged: Sequence[tuple[int, str, str, bytes, os.stat_result, bytes]],
        members: Sequence[int],
        made: Sequence[tuple[str, int] | OSError],
        placed: set[int],
        fn: Callable[[str, bytes | None], bytes | None],
        out: builtins.list[bytes | SessionKitError | None],
    ) -> None:
        """:meth:`update_many`'s moves into place, with the folder's lock held."""
        for n in members:
            i, path, _, seen, st, new = staged[n]
            temp = made[n]
            try:
                full = self.resolve(path)  # the folder may have changed while we waited
                try:
                    now: bytes | None = self._read_full(full, path)
                    st_now: os.stat_result | None = os.stat(full)
                except (NotFoundError, FileNotFoundError):
                    now, st_now = None, None
                unchanged = now == seen and st_now is not None and _same_file(st, st_now)
                if unchanged and not isinstance(temp, OSError):
                    try:
                        os.replace(temp[0], full)
                    except FileNotFoundError:  # our temp was swept before its lock
                        if os.path.lexists(temp[0]):
                            raise
                    else:
                        placed.add(n)
                        out[i] = new
                        continue
                elif unchanged and isinstance(temp, OSError):
                    raise temp
                # changed since fn saw it: the plain way, under the lock held
                out[i] = self._update_locked(path, full, functools.partial(fn, path))
            except SessionKitError as exc:
                out[i] = exc
            except OSError as exc:
                out[i] = _os_error(exc, f"cannot write {path!r}", path)

    def delete_if(self, path: str, seen: bytes) -> None:
        """Delete ``path`` only if it still holds ``seen`` (under the folder's lock):
        :class:`ConflictError` when it changed, :class:`NotFoundError` when gone."""
        full = self.resolve(path)
        with self._lock(path):
            now = self._read_full(full, path)
            if now != seen:
                raise ConflictError(f"{path!r} changed since it was read", path=path)
            _unlink(full, path)
        self._renamed_in(os.path.dirname(full))

    def delete(self, path: str) -> None:
        full = self.resolve(path)
        with self._lock(path):
            _unlink(full, path)


def _not_regular(exc: NotRegular, path: str) -> StoreError:
    return StoreError(f"cannot read {path!r}: it is {exc.kind}, not a regular file", path=path)


def _unlink(full: str, path: str) -> None:
    try:
        os.unlink(full)
    except FileNotFoundError:
        raise NotFoundError(f"no file {path!r}", path=path) from None
    except OSError as exc:
        raise _os_error(exc, f"cannot delete {path!r}", path) from None


def _os_error(exc: OSError, what: str, path: str | None) -> StoreError:
    """A :class:`StoreError` naming the cause (ENOSPC…), never a temp file's name."""
    cause = exc.strerror or str(exc)
    if exc.errno == errno.ENOSPC:
        cause = "No space left on device (ENOSPC)"
    elif exc.errno in (errno.EACCES, errno.EPERM):
        cause = f"{cause} (check the folder's permissions)"
    elif exc.errno == errno.EROFS:
        cause = "Read-only file system (EROFS)"
    elif exc.errno == errno.EDQUOT:
        cause = "Disk quota exceeded (EDQUOT)"
    return StoreError(f"{what}: {cause}", path=path)


class _Batch:
    """What a :meth:`LocalStorage.batch` defers and remembers."""

    __slots__ = ("links", "made", "unsynced")

    def __init__(self) -> None:
        self.made: set[str] = set()  # folders created and checked
        self.unsynced: set[str] = set()  # folders with renames not yet fsynced
        self.links = True  # hard links work here (create-only writes need no lock)


#: (storage token, folder) pairs this process has swept of stale temp files
_PREPARED: set[tuple[str, str]] = set()

#: threads syncing one group's temp files at once (several fsyncs share a journal commit)
WRITE_THREADS = 8


def _make_temps(
    specs: Sequence[tuple[str, bytes, os.stat_result | None]],
) -> builtins.list[tuple[str, int] | OSError]:
    """``(temp path, fd holding its flock)`` or the error of each ``(full, data, like)``,
    fsynced on :data:`WRITE_THREADS` threads at once."""
    made: builtins.list[tuple[str, int] | OSError] = []
    for full, data, like in specs:
        try:
            made.append(make_temp(full, data, like=like, sync=len(specs) < 2))
        except OSError as exc:
            made.append(exc)
    if len(specs) < 2:
        return made

    def flush(temp: tuple[str, int] | OSError) -> OSError | None:
        if isinstance(temp, OSError):
            return temp
        try:
            os.fsync(temp[1])
        except OSError as exc:
            return exc
        return None

    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=min(WRITE_THREADS, len(specs))) as pool:
        failed = builtins.list(pool.map(flush, made))
    for n, problem in enumerate(failed):
        temp = made[n]
        if problem is not None and not isinstance(temp, OSError):  # not synced: not used
            with contextlib.suppress(OSError):
                os.unlink(temp[0])
            os.close(temp[1])
            made[n] = problem
    return made


def _drop_temps(
    made: Sequence[tuple[str, int] | OSError], placed: set[int] | frozenset[int] = frozenset()
) -> None:
    """Close every temp's descriptor; remove those not ``placed`` (by index)."""
    for n, temp in enumerate(made):
        if isinstance(temp, OSError):
            continue
        if n not in placed:
            with contextlib.suppress(OSError):
                os.unlink(temp[0])
        os.close(temp[1])


#: how often an update is redone when the file changes under it (see :func:`_still`)
_RECHECKS = 8


class _Changed(ConflictError):
    """The file changed between a read-modify-write's read and its rename."""

    def __init__(self, path: str, now: bytes | None) -> None:
        super().__init__(f"{path!r} changed while it was being written", path=path)
        self.now = now


def _still(full: str, path: str, seen: bytes, like: os.stat_result) -> None:
    """Raise :class:`_Changed` unless ``full`` still holds ``seen`` with stat ``like``."""
    try:
        st = os.stat(full)
        with open(full, "rb") as f:
            now: bytes | None = f.read()
    except FileNotFoundError:
        raise _Changed(path, None) from None
    fields = ("st_ino", "st_dev", "st_size", "st_mtime_ns", "st_ctime_ns")
    if any(getattr(st, f) != getattr(like, f) for f in fields) or now != seen:
        raise _Changed(path, now)


def _same_file(a: os.stat_result, b: os.stat_result) -> bool:
    """Whether two stats are of the same file, with the same mode and owner."""
    fields = ("st_ino", "st_dev", "st_mode", "st_uid", "st_gid")
    return all(getattr(a, f) == getattr(b, f) for f in fields)


def split_url(url: str) -> tuple[str | None, str]:
    """``(protocol, rest)``; protocol is ``None`` for a plain path."""
    if "://" in url:
        protocol, rest = url.split("://", 1)
        return protocol.lower(), rest
    return None, url


def is_local(url: str) -> bool:
    """Whether ``url`` names a local path (a plain path, ``file://`` or ``local://``)."""
    protocol, _ = split_url(url)
    return protocol in (None, "file", "local")


def local_path(url: str, base: str | os.PathLike[str] | None = None) -> str:
    """The absolute, normalised local path a plain path or ``file://`` URL names.

    Absolute paths mean exactly themselves (``//`` and ``file:///`` are ``/``);
    relative ones are resolved against ``base`` (default: the working directory)
    and must stay inside it, symlinks followed.

    Raises:
        StoreError: empty path, or a NUL byte in it.
        PathSafetyError: a relative path leads outside ``base``.
    """
    protocol, rest = split_url(url)
    path = rest if protocol in ("file", "local") else url
    if protocol in ("file", "local") and path.startswith("localhost/"):
        path = path[len("localhost") :]
    if not path:
        raise StoreError(f"not a store path: {url!r} names no folder")
    if "\x00" in path:
        raise StoreError("store path contains a NUL byte")
    path = os.path.expanduser(path) if path.startswith("~") else path
    if os.path.isabs(path):
        # "//x" is "/x": POSIX leaves a leading "//" to the system, we do not
        return "/" + os.path.normpath(path).lstrip("/") if os.sep == "/" else os.path.normpath(path)
    start = os.path.abspath(os.fspath(base) if base is not None else os.getcwd())
    joined = os.path.normpath(os.path.join(start, path))
    real, real_start = os.path.realpath(joined), os.path.realpath(start)
    rel = os.path.normpath(path).replace(os.sep, "/")
    climbs = rel == ".." or rel.startswith("../")  # above base, even where base is "/"
    if climbs or not inside(real, real_start):
        raise PathSafetyError(
            f"refused store {url!r}: relative to {start} it leads to {real}, outside that "
            "folder (give an absolute path to mean a folder elsewhere)"
        )
    return joined
