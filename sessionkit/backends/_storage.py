"""The byte layer under every built-in store: files below a root, on any fsspec filesystem.

A :class:`Storage` knows nothing about notes or formats.  It lists files below
its root with one listing call, reads them one at a time or in batches, and
writes them with the strongest guarantee the filesystem allows:

=================  ==========================  ===================================
filesystem         create-only write           read-modify-write (``update``)
=================  ==========================  ===================================
local disk         hard link of a synced temp  a lock file (``filelock``) + atomic
                   file (atomic, ``O_EXCL``)   replace (temp file, fsync, rename)
``s3://``          ``If-None-Match: *`` PUT    compare-and-swap on the ETag
                                               (``If-Match``) with bounded retry
``memory://``      under a process lock        under a process lock (the
                                               filesystem lives in one process)
anything else      only with ``single_writer``  only with ``single_writer=True``
=================  ==========================  ===================================

Paths given to a storage are relative to its root, ``/``-separated, and pass
:func:`~sessionkit.backends._base.check_key`; on local disk the resolved path
must also stay inside the root (symlinks pointing outside are refused).
"""

from __future__ import annotations

import abc
import builtins
import contextlib
import errno
import functools
import os
import random
import secrets
import stat
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime
from typing import Any, ClassVar

import attrs

from .._atomic import (
    LOCK_NAME,
    check_writable,
    fsync_dir,
    lock_timeout_text,
    make_temp,
    sweep_temps,
)
from .._atomic import lock_file as _lock_file
from .._safe_read import NotRegular, open_note, read_open
from ..errors import (
    ConflictError,
    MissingDependencyError,
    NotFoundError,
    PathSafetyError,
    SessionKitError,
    StoreError,
)
from ._base import check_key
from ._netfail import name_network_failures

#: whether folders can be opened and files opened in them (``dir_fd``) without
#: following links: :meth:`LocalStorage.read_each` reads so where they can
_DIR_FDS = (
    os.open in os.supports_dir_fd and hasattr(os, "O_NOFOLLOW") and hasattr(os, "O_DIRECTORY")
)
_FOLDER_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0)
_FOLDER_FLAGS |= getattr(os, "O_CLOEXEC", 0)
#: folders :meth:`LocalStorage.read_each` keeps open at most (then it starts again)
_OPEN_FOLDERS = 64

__all__ = [
    "FileEntry",
    "FsspecStorage",
    "LocalStorage",
    "S3Storage",
    "Storage",
    "open_storage",
]

#: suffix of temporary files (dotfiles ending ``.tmp``: ignored by both tools)
TMP_SUFFIX = ".tmp"

#: fsspec protocol -> the sessionkit extra that installs it
_EXTRAS = {"s3": "s3", "s3a": "s3", "gcs": "gcs", "gs": "gcs"}

Updater = Callable[[bytes | None], bytes | None]


@attrs.frozen(kw_only=True)
class FileEntry:
    """One file found by a listing.

    Attributes:
        path: path relative to the storage root, ``/``-separated.
        mtime: modification time (POSIX seconds) when the listing reported it
            for free, else ``None`` (local listings never stat).
        size: size in bytes when the listing reported it.
    """

    path: str
    mtime: float | None = None
    size: int | None = None


def _hidden(path: str) -> bool:
    return any(part.startswith(".") for part in path.split("/"))


class Storage(abc.ABC):
    """Files below one root (abstract).

    Attributes:
        url: the root, as a path or URL.
        guarantee: how conditional writes are made safe: ``"lock"``, ``"cas"``,
            ``"process-lock"`` or ``"single-writer"`` (see the module docs).
        remote: whether the files leave this machine (redaction refuses clear
            secrets there whatever ``secrets.redact`` says).
    """

    url: str
    guarantee: str
    remote: bool = True

    @abc.abstractmethod
    def list(self, folder: str = "") -> list[FileEntry]:
        """Every file below ``folder`` (recursively), sorted, from one listing call.

        Dotfiles and files inside dot-folders are left out (they are lock and
        temp files, or not notes).  A missing folder lists as empty.
        """

    def list_paths(self, folder: str = "", *, relative: bool = False) -> builtins.list[str]:
        """The paths :meth:`list` gives, sorted, without their entries.

        A local listing builds only the path strings (a listing of 100,000
        files then holds 100,000 strings, not 100,000 entries as well).
        ``relative``: relative to ``folder`` instead of the root.
        """
        cut = len(folder) + 1 if folder and relative else 0
        return [entry.path[cut:] for entry in self.list(folder)]

    @abc.abstractmethod
    def read(self, path: str) -> bytes:
        """The bytes of one file. Raises :class:`NotFoundError`."""

    @abc.abstractmethod
    def read_many(self, paths: Sequence[str]) -> dict[str, bytes | StoreError]:
        """Read several files in as few round trips as the filesystem allows.

        Missing or unreadable files map to a :class:`StoreError`.
        """

    @abc.abstractmethod
    def read_heads(self, paths: Sequence[str], nbytes: int) -> dict[str, bytes | StoreError]:
        """The first ``nbytes`` of each file (ranged reads where possible), batched."""

    @abc.abstractmethod
    def write(self, path: str, data: bytes, *, create: bool = False) -> None:
        """Replace (or create) a file atomically.

        With ``create`` the write fails with :class:`ConflictError` when the
        file exists, without touching it.
        """

    @abc.abstractmethod
    def update(self, path: str, fn: Updater) -> bytes | None:
        """Read-modify-write one file without lost updates.

        ``fn`` receives the current bytes (``None`` when the file is missing)
        and returns new bytes, or ``None`` to leave the file as it is; it may
        be called more than once (compare-and-swap retries).  Returns the
        file's bytes afterwards (``None`` if it still does not exist).
        """

    @abc.abstractmethod
    def delete(self, path: str) -> None:
        """Remove a file. Raises :class:`NotFoundError`."""

    @abc.abstractmethod
    def mtime(self, path: str) -> float | None:
        """Modification time of one file (one stat), ``None`` if unknown."""

    def readable(self, path: str) -> bool:
        """Whether ``path`` may be read as a note: on a local disk one ``stat`` tells a
        regular file inside the root from a FIFO, a device, a looping or outside link;
        elsewhere every listed file is taken to be one."""
        return True

    def write_many(
        self, items: Sequence[tuple[str, bytes]], *, create: bool = False
    ) -> builtins.list[SessionKitError | None]:
        """:meth:`write` of several files, each with its guarantees; per file, in
        order, ``None`` when it was written or the :class:`SessionKitError` that
        stopped it (``ConflictError`` for an existing name with ``create``).

        Storages that can overlap the writes do (local disk, inside a
        :meth:`batch`: the temp files are written and synced concurrently).
        """
        out: builtins.list[SessionKitError | None] = []
        for path, data in items:
            try:
                self.write(path, data, create=create)
            except SessionKitError as exc:
                out.append(exc)
            else:
                out.append(None)
        return out

    def update_many(
        self, paths: Sequence[str], fn: Callable[[str, bytes | None], bytes | None]
    ) -> builtins.list[bytes | SessionKitError | None]:
        """:meth:`update` of several files: ``fn(path, current)`` for each.

        Per file, in order: its bytes afterwards (``None`` if it still does not
        exist), or the :class:`SessionKitError` that stopped it (raised by the
        storage or by ``fn``); each file keeps :meth:`update`'s guarantees and
        ``fn`` may be called more than once for a file.  A local disk prepares
        the new files concurrently and takes the folder's lock once.
        """
        out: builtins.list[bytes | SessionKitError | None] = []
        for path in paths:
            try:
                out.append(self.update(path, functools.partial(fn, path)))
            except SessionKitError as exc:
                out.append(exc)
        return out

    def batch(self) -> contextlib.AbstractContextManager[None]:
        """Group many writes made by this thread; each keeps its own guarantees.

        Storages that can do per-batch work once instead of per file (local
        disk: one folder ``fsync`` when the batch ends) do it here; elsewhere
        this does nothing.  Every write is durable when the block exits.
        """
        return contextlib.nullcontext()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.url!r})"


# --------------------------------------------------------------------------- local


class LocalStorage(Storage):
    """Files below a folder on a local disk.

    Writes go to a temporary dotfile in the same folder, are flushed with
    ``fsync`` and moved into place with :func:`os.replace`, so a reader sees
    the old or the new file, never a mix.  Read-modify-writes hold a lock file
    (``.sessionkit.lock`` in the note's folder, an ``flock``) for the duration.

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
        #: paths the last :meth:`list` skipped because they lead outside the root
        self.refused: list[str] = []
        #: open batches by thread id (a plain dict: storages are pickled to workers)
        self._batches: dict[int, _Batch] = {}
        #: this storage (and its copies in worker processes): folders it has
        #: swept of stale temp files are remembered per process under this token
        self._token = secrets.token_hex(8)
        #: (device, inode) of the resolved root, once it exists
        self._root_id: tuple[int, int] | None = None

    def __getstate__(self) -> dict[str, Any]:
        """Pickle without open batches: a copy in a worker process starts outside any."""
        state = self.__dict__.copy()
        state["_batches"] = {}
        return state

    # -- paths ----------------------------------------------------------------
    def _inside(self, real: str) -> bool:
        return real == self.root or real.startswith(self.root.rstrip(os.sep) + os.sep)

    def _outside(self, path: str, full: str) -> str | None:
        """Where ``full`` (``path`` below the root) really leads when that is outside
        the root, else ``None``.

        The root was resolved when the storage was opened; while the root's path
        still leads to that very folder (:meth:`_root_holds`), only the parts
        below it are looked at (one ``lstat`` each), and a symlink among them is
        followed all the way (:func:`os.path.realpath`).  A missing part ends the
        walk: nothing below it exists to lead anywhere.  Otherwise the whole path
        is resolved.
        """
        if not self._root_holds():
            real = os.path.realpath(full)
            return None if self._inside(real) else real
        cur = self.root
        for part in path.split("/"):
            cur = os.path.join(cur, part)
            try:
                mode = os.lstat(cur).st_mode
            except OSError:
                return None
            if stat.S_ISLNK(mode):
                real = os.path.realpath(full)
                return None if self._inside(real) else real
        return None

    def _root_holds(self) -> bool:
        """Whether the root's path still leads to the folder it resolved to (the same
        device and inode: no symlink put in its place, or above it, since)."""
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
        """The absolute local path of ``path``, refused if it leaves the root.

        Symlinks (to folders or files) are followed; if the result is outside
        the root, :class:`PathSafetyError` is raised.
        """
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
    def list(self, folder: str = "") -> list[FileEntry]:
        """Every file below ``folder`` from one directory walk (no per-file stat).

        Symlinks whose target is outside the root are skipped and recorded in
        :attr:`refused`.
        """
        return [FileEntry(path=path) for path in self.list_paths(folder)]

    def list_paths(self, folder: str = "", *, relative: bool = False) -> builtins.list[str]:
        """The paths of :meth:`list`, from the same walk, as plain strings
        (``relative``: relative to ``folder``; the names of a flat folder are then
        the very strings the walk read)."""
        self.refused = []
        start = self.resolve(folder) if folder else self.root
        found: builtins.list[str] = []
        prefix = f"{folder}/" if folder else ""
        outside = prefix if relative else ""  # what a refused path lacks

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
                    if entry.is_symlink():
                        real = os.path.realpath(entry.path)
                        if not self._inside(real):
                            self.refused.append(outside + rel_path)
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

    @staticmethod
    def _read_full(full: str, path: str, nbytes: int | None = None) -> bytes:
        """The bytes of the regular file ``full`` (``nbytes``: at most that many);
        a FIFO, device or socket is an unreadable note, never waited on or read."""
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
        """``(path, bytes or the error)`` of each path, in order, read as it is asked for:
        what :meth:`read` gives each, with the checks made once a folder.

        Each folder on the way is opened once (``O_DIRECTORY | O_NOFOLLOW``, from
        the root's own descriptor down) and each note opened in it without
        following a link (``O_NOFOLLOW``): a note is read from the very folders
        that were checked, whatever is put in their places meanwhile, and one
        open a note is all it costs.  A path with a symbolic link on it (to a
        folder or a note) is read by :meth:`read`, which resolves it and refuses
        it if it leads outside the root; so is every path where descriptors of
        folders cannot be opened (Windows) or the root is no longer the folder
        it was.
        """
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
        """Open the root (``folders[""]``) when notes can be read by descriptors here:
        descriptors of folders can be opened, and the root is the folder it was."""
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
        """The descriptor of ``folder`` (below the root), opened part by part without
        following a link; ``None`` when a part is a link or cannot be opened (then the
        notes in it are read by :meth:`read`, which says why)."""
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
        """The bytes of the note ``name`` of the open ``folder``; ``None`` when it is
        not a plain file to read here (a link, say: :meth:`read` reads it)."""
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
        out: dict[str, bytes | StoreError] = {}
        for path in paths:
            try:
                out[path] = self.read(path)
            except StoreError as exc:
                out[path] = exc
        return out

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
        """Put ``data`` at ``full`` through a synced temp file moved into place.

        ``create``: refuse an existing name (a hard link is atomic and needs no
        lock; without hard links, the caller's lock makes exists+replace safe).
        ``link_only``: a create-only write made without the lock; returns
        ``False``, writing nothing, when this filesystem has no hard links.
        A replaced file keeps its mode (and owner where allowed); a read-only
        one is refused.  ``like``: the replaced file's stat when the caller has
        just taken it (``True``: take it here).  ``seen`` (with ``like``): the
        bytes the caller read; just before the rename the file must still be
        them, with the same stat (a writer that takes no lock may have edited
        it while the temp file was written), else :class:`_Changed`, nothing written.
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
        """Group the writes this thread makes (see :meth:`Storage.batch`).

        Inside a batch every file is still written to a synced temp file and
        moved into place atomically (a crash leaves the old or the new bytes),
        and read-modify-writes still hold the folder's lock file, but:

        * each folder is fsynced once, when the batch ends, instead of after
          every rename (the renames are durable when the block exits);
        * create-only writes go in by hard link without taking the lock file:
          the link is atomic and refuses an existing name by itself, so it
          cannot overwrite a note another writer made or is updating (without
          hard links they take the locked path as usual);
        * a folder is created and checked once;
        * :meth:`write_many` and :meth:`update_many` write and sync their temp
          files concurrently (the disk's flushes overlap).

        Batches nest; the outermost one does the fsyncs, also when the block raises.
        """
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
        """:meth:`write` of several files; inside a :meth:`batch`, new files
        (``create``) are written and synced concurrently, then linked into place
        one by one (each link atomic and create-only, as :meth:`write` does)."""
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
        """:meth:`update` of several files, optimistically: each file is read and
        ``fn`` run without the lock, the new files are written and synced
        concurrently, then under the folder's lock (taken once) each is moved
        into place only if the file is still exactly what ``fn`` saw (same bytes,
        same inode, mode and owner); a file changed meanwhile is done again the
        plain way, under that lock.  No edit is lost, and a crash leaves each
        file old or new, as with :meth:`update`."""
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
        """Delete ``path`` only if it still holds ``seen`` (checked under the folder's
        lock, just before the unlink).  Raises :class:`ConflictError` when it changed,
        :class:`NotFoundError` when it is gone."""
        full = self.resolve(path)
        with self._lock(path):
            now = self._read_full(full, path)
            if now != seen:
                raise ConflictError(f"{path!r} changed since it was read", path=path)
            try:
                os.unlink(full)
            except FileNotFoundError:
                raise NotFoundError(f"no file {path!r}", path=path) from None
            except OSError as exc:
                raise _os_error(exc, f"cannot delete {path!r}", path) from None
        self._renamed_in(os.path.dirname(full))

    def delete(self, path: str) -> None:
        full = self.resolve(path)
        with self._lock(path):
            try:
                os.unlink(full)
            except FileNotFoundError:
                raise NotFoundError(f"no file {path!r}", path=path) from None
            except OSError as exc:
                raise _os_error(exc, f"cannot delete {path!r}", path) from None


def _not_regular(exc: NotRegular, path: str) -> StoreError:
    return StoreError(f"cannot read {path!r}: it is {exc.kind}, not a regular file", path=path)


def _read_error(path: str, exc: BaseException) -> StoreError:
    """``cannot read 'key': <cause>``, a server's HTTP error said as such."""
    from ._netfail import http_error

    return StoreError(f"cannot read {path!r}: {http_error(exc) or exc}", path=path)


def _os_error(exc: OSError, what: str, path: str | None) -> StoreError:
    """A :class:`StoreError` naming the cause precisely (``No space left on device``,
    ``Permission denied``…), never a temp file's name."""

    from ._netfail import http_error

    cause = http_error(exc) or exc.strerror or str(exc)
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
        #: folders created and checked in this batch
        self.made: set[str] = set()
        #: folders with renames not yet fsynced
        self.unsynced: set[str] = set()
        #: hard links work here (create-only writes need no lock)
        self.links = True


#: (storage token, folder) pairs this process has swept of stale temp files
_PREPARED: set[tuple[str, str]] = set()

#: threads writing and syncing one group's temp files at once (the disk's
#: flushes overlap: on ext4 several fsyncs share a journal commit)
WRITE_THREADS = 8


def _make_temps(
    specs: Sequence[tuple[str, bytes, os.stat_result | None]],
) -> builtins.list[tuple[str, int] | OSError]:
    """:func:`make_temp` of each ``(full, data, like)``: per spec, in order,
    ``(temp path, fd holding its flock)`` or the error.  The files are written
    here and fsynced on :data:`WRITE_THREADS` threads at once."""
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
    """Close every temp file's descriptor (its flock goes with it) and remove the
    temp files not moved into place (``placed``: their indices)."""
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
    """Raise :class:`_Changed` unless ``full`` still holds ``seen`` with stat ``like``
    (same file, size and modification and change times)."""
    try:
        st = os.stat(full)
        with open(full, "rb") as f:
            now: bytes | None = f.read()
    except FileNotFoundError:
        raise _Changed(path, None) from None
    same = (st.st_ino, st.st_dev, st.st_size, st.st_mtime_ns, st.st_ctime_ns) == (
        like.st_ino,
        like.st_dev,
        like.st_size,
        like.st_mtime_ns,
        like.st_ctime_ns,
    )
    if not same or now != seen:
        raise _Changed(path, now)


def _same_file(a: os.stat_result, b: os.stat_result) -> bool:
    """Whether two stats are of the same file, with the same mode and owner."""
    return (a.st_ino, a.st_dev, a.st_mode, a.st_uid, a.st_gid) == (
        b.st_ino,
        b.st_dev,
        b.st_mode,
        b.st_uid,
        b.st_gid,
    )


# --------------------------------------------------------------------------- fsspec


def _entry_mtime(info: dict[str, Any]) -> float | None:
    for name in ("mtime", "LastModified", "last_modified", "updated", "created", "modified"):
        value = info.get(name)
        if value is None:
            continue
        if isinstance(value, int | float):
            return float(value)
        if isinstance(value, datetime):
            return value.timestamp()
        if isinstance(value, str):
            try:
                return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
            except ValueError:
                continue
    return None


def _has_magic(path: str) -> bool:
    return any(c in path for c in "*?[")


@name_network_failures  # a refused or silent endpoint is named plainly, not 'internal error'
class FsspecStorage(Storage):
    """Files below a path on any fsspec filesystem.

    Create-only writes use ``pipe_file(mode="create")``.  Conditional writes
    (``write(create=True)`` and :meth:`update`) are only race-free where the
    filesystem makes them so: this class guards them with a process-wide lock
    when the filesystem lives in this process (``memory://``), and otherwise
    refuses them unless ``single_writer=True`` promises that no one else writes
    to the store at the same time.

    Args:
        fs: the filesystem.
        root: the root path on it (protocol stripped).
        url: the root as the caller wrote it.
        single_writer: opt in to unguarded read-modify-write.
    """

    _process_locks: ClassVar[dict[int, threading.RLock]] = {}
    #: whether folders must exist before a file is written in them
    _makes_dirs = True

    def __init__(self, fs: Any, root: str, *, url: str, single_writer: bool = False) -> None:
        self.fs = fs
        self.root = root.rstrip("/")
        self.url = url
        self.single_writer = single_writer
        self._process_local = "memory" in _protocols(fs)
        if self._process_local:
            self.guarantee = "process-lock"
            self._plock = self._process_locks.setdefault(id(fs), threading.RLock())
        else:
            self.guarantee = "single-writer" if single_writer else "none"
            self._plock = threading.RLock()

    def full(self, path: str) -> str:
        """The filesystem path of ``path`` (after the key check)."""
        check_key(path)
        return f"{self.root}/{path}" if self.root else path

    def _rel(self, full: str) -> str:
        """``full`` (as the filesystem names it) relative to the root."""
        full, root = full.strip("/"), self.root.strip("/")
        if root and full.startswith(root + "/"):
            return full[len(root) + 1 :]
        return full if not root else ""

    # -- reading --------------------------------------------------------------
    def list(self, folder: str = "") -> list[FileEntry]:
        base = self.full(folder) if folder else self.root
        with contextlib.suppress(Exception):
            self.fs.invalidate_cache(base)
        try:
            found = self.fs.find(base, detail=True)
        except FileNotFoundError:
            return []
        except OSError as exc:
            raise StoreError(f"cannot list {base}: {exc}") from None
        out: list[FileEntry] = []
        for name, info in found.items():
            if info.get("type") == "directory":
                continue
            rel = self._rel(self.fs._strip_protocol(name))
            if _hidden(rel) or not rel:
                continue
            size = info.get("size")
            out.append(FileEntry(path=rel, mtime=_entry_mtime(info), size=size))
        out.sort(key=lambda e: e.path)
        return out

    def _cat_kwargs(self) -> dict[str, Any]:
        return {}

    def read(self, path: str) -> bytes:
        full = self.full(path)
        try:
            data = self.fs.cat_file(full, **self._cat_kwargs())
        except FileNotFoundError:
            raise NotFoundError(f"no file {path!r}", path=path) from None
        except (IsADirectoryError, OSError) as exc:
            raise _read_error(path, exc) from None
        return bytes(data)

    def _wrap(self, path: str, value: Any) -> bytes | StoreError:
        if isinstance(value, bytes | bytearray):
            return bytes(value)
        if isinstance(value, FileNotFoundError):
            return NotFoundError(f"no file {path!r}", path=path)
        return _read_error(path, value)

    def read_many(self, paths: Sequence[str]) -> dict[str, bytes | StoreError]:
        out: dict[str, bytes | StoreError] = {}
        plain: dict[str, str] = {}
        for path in paths:
            full = self.full(path)
            if _has_magic(full):  # fs.cat would glob it: read it on its own
                try:
                    out[path] = self.read(path)
                except StoreError as exc:
                    out[path] = exc
            else:
                plain[self.fs._strip_protocol(full)] = path
        if plain:
            try:
                got = self.fs.cat(list(plain), on_error="return", **self._cat_kwargs())
            except FileNotFoundError:
                got = {}
            for full, path in plain.items():
                out[path] = self._wrap(path, got.get(full, FileNotFoundError(full)))
        return {p: out[p] for p in paths}

    def read_heads(self, paths: Sequence[str], nbytes: int) -> dict[str, bytes | StoreError]:
        fulls = [self.full(p) for p in paths]
        if not fulls:
            return {}
        try:
            got = self.fs.cat_ranges(
                fulls, [0] * len(fulls), [nbytes] * len(fulls), on_error="return"
            )
        except FileNotFoundError as exc:
            got = [exc] * len(fulls)
        out: dict[str, bytes | StoreError] = {}
        retry: list[str] = []
        for path, value in zip(paths, got, strict=True):
            if isinstance(value, bytes | bytearray):
                out[path] = bytes(value)
            elif isinstance(value, FileNotFoundError):
                out[path] = NotFoundError(f"no file {path!r}", path=path)
            else:  # e.g. an empty object refuses a range: read it whole
                retry.append(path)
        out.update(self.read_many(retry))
        return {p: out[p] for p in paths}

    def mtime(self, path: str) -> float | None:
        try:
            return _entry_mtime(self.fs.info(self.full(path)))
        except (OSError, ValueError):
            return None

    # -- writing --------------------------------------------------------------
    def _require_guard(self, what: str, path: str) -> None:
        if not self._process_local and not self.single_writer:
            raise StoreError(
                f"{what} on {self.url!r} could race: this filesystem offers neither a lock "
                "nor conditional writes to sessionkit. Open the store with single_writer=True "
                "if only one process ever writes to it (see docs/remote.md).",
                path=path,
            )

    def _put(self, path: str, data: bytes, *, create: bool) -> None:
        full = self.full(path)
        parent = full.rsplit("/", 1)[0]
        try:
            if self._makes_dirs:
                with contextlib.suppress(Exception):
                    self.fs.makedirs(parent, exist_ok=True)
            if create:
                self.fs.pipe_file(full, data, mode="create")
            else:
                self.fs.pipe_file(full, data)
        except FileExistsError:
            raise ConflictError(f"{path!r} already exists", path=path) from None
        except OSError as exc:
            raise StoreError(f"cannot write {path!r}: {exc}", path=path) from None

    def write(self, path: str, data: bytes, *, create: bool = False) -> None:
        if create:
            self._require_guard("a create-only write", path)
        with self._plock:
            self._put(path, data, create=create)

    def update(self, path: str, fn: Updater) -> bytes | None:
        self._require_guard("a read-modify-write", path)
        with self._plock:
            try:
                current: bytes | None = self.read(path)
            except NotFoundError:
                current = None
            new = fn(current)
            if new is None or new == current:
                return current
            self._put(path, new, create=False)
            return new

    def delete(self, path: str) -> None:
        full = self.full(path)
        with self._plock:
            try:
                if not self.fs.isfile(full):
                    raise NotFoundError(f"no file {path!r}", path=path)
                self.fs.rm_file(full)
            except FileNotFoundError:
                raise NotFoundError(f"no file {path!r}", path=path) from None
            except OSError as exc:
                raise StoreError(f"cannot delete {path!r}: {exc}", path=path) from None


# --------------------------------------------------------------------------- S3


def _s3_code(exc: BaseException) -> str | None:
    """The S3 error code behind an exception s3fs translated, if any."""
    seen: set[int] = set()
    cur: BaseException | None = exc
    while cur is not None and id(cur) not in seen:
        seen.add(id(cur))
        response = getattr(cur, "response", None)
        if isinstance(response, dict):
            code = response.get("Error", {}).get("Code")
            if code:
                return str(code)
        cur = cur.__cause__ or cur.__context__
    return None


_CAS_LOST = {"PreconditionFailed", "412", "ConditionalRequestConflict", "409"}


@name_network_failures
class S3Storage(FsspecStorage):
    """Files below ``s3://bucket/prefix`` through s3fs, with conditional requests.

    * create-only writes are a PUT with ``If-None-Match: *``;
    * :meth:`update` reads the object and its ETag, then PUTs with
      ``If-Match: <etag>`` (``If-None-Match: *`` when it did not exist); when
      another writer got there first (HTTP 412/409) it reads again and retries,
      up to ``max_attempts`` times with jittered exponential backoff, then
      raises :class:`ConflictError`.

    Args:
        max_attempts: compare-and-swap attempts before giving up.
    """

    _makes_dirs = False  # object stores have no folders (and makedirs may create buckets)

    def __init__(self, fs: Any, root: str, *, url: str, max_attempts: int = 64) -> None:
        super().__init__(fs, root, url=url)
        self.guarantee = "cas"
        self.max_attempts = max_attempts

    def _cat_kwargs(self) -> dict[str, Any]:
        # one GET per object: without this s3fs sends a HEAD first to size it
        return {"max_concurrency": 1}

    def _split(self, path: str) -> tuple[str, str]:
        bucket, key, _ = self.fs.split_path(self.full(path))
        return str(bucket), str(key)

    def read_versioned(self, path: str) -> tuple[bytes | None, str | None]:
        """The object's bytes and ETag in one GET (``(None, None)`` when missing)."""
        from fsspec.asyn import sync

        bucket, key = self._split(path)

        async def get() -> tuple[bytes, str]:
            resp = await self.fs._call_s3("get_object", Bucket=bucket, Key=key)
            try:
                body = await resp["Body"].read()
            finally:
                resp["Body"].close()
            return bytes(body), str(resp["ETag"])

        try:
            data, etag = sync(self.fs.loop, get)
        except FileNotFoundError:
            return None, None
        except OSError as exc:
            raise _read_error(path, exc) from None
        return data, etag

    def _conditional_put(self, path: str, data: bytes, etag: str | None) -> bool:
        """PUT with If-Match/If-None-Match; ``False`` when the condition failed."""
        bucket, key = self._split(path)
        cond = {"IfMatch": etag} if etag is not None else {"IfNoneMatch": "*"}
        try:
            self.fs.call_s3("put_object", Bucket=bucket, Key=key, Body=data, **cond)
        except FileExistsError:
            return False
        except OSError as exc:
            if _s3_code(exc) in _CAS_LOST:
                return False
            if etag is not None and isinstance(exc, FileNotFoundError):
                return False  # deleted under us: retry as a create
            raise StoreError(f"cannot write {path!r}: {exc}", path=path) from None
        finally:
            self.fs.invalidate_cache(self.full(path))
        return True

    def write(self, path: str, data: bytes, *, create: bool = False) -> None:
        if create:
            if not self._conditional_put(path, data, None):
                raise ConflictError(f"{path!r} already exists", path=path)
            return
        self._put(path, data, create=False)

    def update(self, path: str, fn: Updater) -> bytes | None:
        for attempt in range(self.max_attempts):
            current, etag = self.read_versioned(path)
            new = fn(current)
            if new is None or new == current:
                return current
            if self._conditional_put(path, new, etag):
                return new
            time.sleep(random.uniform(0, min(1.0, 0.02 * 2 ** min(attempt, 6))))
        raise ConflictError(
            f"gave up on {path!r} after {self.max_attempts} conflicting writes", path=path
        )

    def delete(self, path: str) -> None:
        full = self.full(path)
        try:
            self.fs.info(full, refresh=True)
        except FileNotFoundError:
            raise NotFoundError(f"no file {path!r}", path=path) from None
        try:
            self.fs.rm_file(full)
        except OSError as exc:
            raise StoreError(f"cannot delete {path!r}: {exc}", path=path) from None
        finally:
            self.fs.invalidate_cache(full)


# --------------------------------------------------------------------------- opening


def _protocols(fs: Any) -> tuple[str, ...]:
    proto = getattr(fs, "protocol", ())
    return (proto,) if isinstance(proto, str) else tuple(proto)


def install_hint(protocol: str) -> str:
    """What to install for an fsspec protocol (``pip install 'sessionkit[s3]'``)."""
    extra = _EXTRAS.get(protocol)
    if extra:
        return f"pip install 'sessionkit[{extra}]'"
    return f"install the fsspec implementation for {protocol!r} (see fsspec's registry)"


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


def _inside_folder(real: str, folder: str) -> bool:
    return real == folder or real.startswith(folder.rstrip(os.sep) + os.sep)


def local_path(url: str, base: str | os.PathLike[str] | None = None) -> str:
    """The absolute, normalised local path a plain path or ``file://`` URL names.

    * absolute paths mean exactly themselves: ``/`` and ``//`` are the
      filesystem root, ``file:///x`` is ``/x`` (``file://localhost/x`` too),
      ``file:///`` is ``/``;
    * relative paths (``aiwiki``, ``../x``, ``file://../x``) are resolved
      against ``base`` (default: the working directory) and must stay inside
      it, symlinks followed: one that leads out of ``base`` raises
      :class:`PathSafetyError` (give an absolute path to mean a folder elsewhere).

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
    if climbs or not _inside_folder(real, real_start):
        raise PathSafetyError(
            f"refused store {url!r}: relative to {start} it leads to {real}, outside that "
            "folder (give an absolute path to mean a folder elsewhere)"
        )
    return joined


#: seconds a remote store has to accept a connection, and to answer a request
CONNECT_TIMEOUT = 10.0
READ_TIMEOUT = 30.0
#: tries of one request that gets no answer (each up to the read timeout): a silent
#: store fails after about ``REMOTE_TRIES * read_timeout`` seconds
REMOTE_TRIES = 2
#: the environment variables that set the two timeouts for every remote store
TIMEOUT_ENV = {
    "connect_timeout": "SESSIONKIT_CONNECT_TIMEOUT",
    "read_timeout": "SESSIONKIT_READ_TIMEOUT",
}


def _seconds(name: str, value: Any) -> float:
    """A timeout's value as positive seconds (from an option or its variable)."""
    where = f"{name} (storage option)"
    if value is None:
        value, where = os.environ.get(TIMEOUT_ENV[name]), TIMEOUT_ENV[name]
        if value is None or not str(value).strip():
            return CONNECT_TIMEOUT if name == "connect_timeout" else READ_TIMEOUT
    try:
        seconds = float(value)
    except (TypeError, ValueError):
        seconds = float("nan")
    if not 0 < seconds < float("inf") or isinstance(value, bool):
        raise StoreError(f"{where} must be a positive number of seconds, not {value!r}")
    return seconds


def remote_options(
    protocol: str | None,
    options: dict[str, Any],
    connect_timeout: Any = None,
    read_timeout: Any = None,
) -> dict[str, Any]:
    """The fsspec options of a remote store with sessionkit's deadlines added.

    For ``s3://``: ``config_kwargs`` gets ``connect_timeout`` and ``read_timeout``
    (the arguments, else ``SESSIONKIT_CONNECT_TIMEOUT`` / ``SESSIONKIT_READ_TIMEOUT``,
    else :data:`CONNECT_TIMEOUT` / :data:`READ_TIMEOUT`) and botocore's retries are
    left to s3fs's (:func:`bound_retries`); values the options already give win.
    Other protocols: the options as they are.

    Raises:
        StoreError: a timeout that is not a positive number of seconds.
    """
    connect = _seconds("connect_timeout", connect_timeout)
    read = _seconds("read_timeout", read_timeout)
    if protocol not in ("s3", "s3a"):
        return options
    config = dict(options.get("config_kwargs") or {})
    config.setdefault("connect_timeout", connect)
    config.setdefault("read_timeout", read)
    config.setdefault("retries", {"max_attempts": 1, "mode": "standard"})
    return {**options, "config_kwargs": config}


def bound_retries(fs: Any) -> None:
    """At most :data:`REMOTE_TRIES` tries of one request on an s3fs filesystem (its own
    retry loop; it makes 5 by default, each up to the read timeout)."""
    if isinstance(getattr(fs, "retries", None), int) and fs.retries > REMOTE_TRIES:
        fs.retries = REMOTE_TRIES


def open_storage(
    url: str,
    *,
    single_writer: bool = False,
    lock_timeout: float = 30.0,
    max_attempts: int = 64,
    connect_timeout: float | None = None,
    read_timeout: float | None = None,
    **storage_options: Any,
) -> Storage:
    """Open the byte layer for a path or fsspec URL.

    Plain paths and ``file://`` give a :class:`LocalStorage`; ``s3://`` an
    :class:`S3Storage`; anything else an :class:`FsspecStorage`.
    ``storage_options`` go to the fsspec filesystem (credentials come from
    fsspec's usual sources: environment, config files, instance metadata).
    ``connect_timeout`` and ``read_timeout`` (seconds) bound every request to a
    remote store (see :func:`remote_options`).

    Raises:
        MissingDependencyError: the filesystem's package is not installed.
        StoreError: unknown protocol.
    """
    protocol, _ = split_url(url)
    if protocol in (None, "file", "local"):
        if storage_options:
            raise StoreError(f"local stores take no storage options: {sorted(storage_options)}")
        path = local_path(url)  # refuses a relative path leading outside the working directory
        plain = protocol is None and not os.path.isabs(url)  # keeps its spelling in reports
        return LocalStorage(url if plain else path, lock_timeout=lock_timeout)
    options = remote_options(protocol, storage_options, connect_timeout, read_timeout)
    try:
        import fsspec

        fs, root = fsspec.url_to_fs(url, **options)
    except ImportError as exc:
        raise MissingDependencyError(
            f"{protocol}:// needs {exc.name or 'an optional package'}: {install_hint(protocol)}"
        ) from exc
    except ValueError as exc:
        raise StoreError(f"cannot open {url!r}: {exc}") from None
    root = str(root).rstrip("/")
    protocols = _protocols(fs)
    if "s3" in protocols or "s3a" in protocols:
        bound_retries(fs)
        return S3Storage(fs, root, url=url, max_attempts=max_attempts)
    return FsspecStorage(fs, root, url=url, single_writer=single_writer)
