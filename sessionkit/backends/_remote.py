"""Files below a path on any fsspec filesystem (conditional writes in ``_storage``'s
table): S3 with conditional requests; every S3 or GCS request has a connect and a
read deadline (:func:`remote_options`); network failures are named plainly."""

from __future__ import annotations

import contextlib
import os
import random
import threading
import time
from collections.abc import Sequence
from datetime import datetime
from typing import Any, ClassVar

from ..errors import ConflictError, NotFoundError, StoreError
from ._base import FileEntry, Storage, Updater, check_key
from ._netfail import error_code, http_error, name_network_failures

__all__ = ["FsspecStorage", "S3Storage", "bound_retries", "install_hint", "remote_options"]

#: fsspec protocol -> the sessionkit extra that installs it
_EXTRAS = {"s3": "s3", "s3a": "s3", "gcs": "gcs", "gs": "gcs"}


def _protocols(fs: Any) -> tuple[str, ...]:
    proto = getattr(fs, "protocol", ())
    return (proto,) if isinstance(proto, str) else tuple(proto)


def _hidden(path: str) -> bool:
    return any(part.startswith(".") for part in path.split("/"))


def _read_error(path: str, exc: BaseException) -> StoreError:
    """``cannot read 'key': <cause>``, a server's HTTP error said as such."""
    return StoreError(f"cannot read {path!r}: {http_error(exc) or exc}", path=path)


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

    Conditional writes (``write(create=True)``, :meth:`update`) hold a process
    lock where the filesystem lives in this process (``memory://``), and are
    refused elsewhere unless ``single_writer=True`` promises no other writer.

    Args: ``fs`` the filesystem, ``root`` the root on it, ``url`` as the caller
    wrote it, ``single_writer`` opt in to unguarded read-modify-write.
    """

    _process_locks: ClassVar[dict[int, threading.RLock]] = {}
    _makes_dirs = True  # folders must exist before a file is written in them

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

    def _uncache(self, full: str) -> None:
        with contextlib.suppress(Exception):
            self.fs.invalidate_cache(full)

    def _rel(self, full: str) -> str:
        """``full`` (as the filesystem names it) relative to the root."""
        full, root = full.strip("/"), self.root.strip("/")
        if root and full.startswith(root + "/"):
            return full[len(root) + 1 :]
        return full if not root else ""

    # -- reading --------------------------------------------------------------
    def list(self, folder: str = "") -> list[FileEntry]:
        base = self.full(folder) if folder else self.root
        self._uncache(base)
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

    def names(self) -> set[str]:
        self._uncache(self.root)
        try:
            listed = self.fs.ls(self.root, detail=False)
        except (FileNotFoundError, NotADirectoryError):
            return set()
        except OSError as exc:
            raise StoreError(f"cannot list {self.url!r}: {exc}") from None
        return {str(p).rstrip("/").rsplit("/", 1)[-1] for p in listed}

    def exists(self, folder: str = "") -> bool:
        """Whether ``folder`` (the root when empty) is there."""
        full = self.full(folder) if folder else self.root
        self._uncache(full)
        try:
            return bool(self.fs.exists(full))
        except OSError as exc:
            raise StoreError(f"cannot reach {self.url}: {exc}") from None

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
            if isinstance(value, bytes | bytearray | FileNotFoundError):
                out[path] = self._wrap(path, value)
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


_CAS_LOST = {"PreconditionFailed", "412", "ConditionalRequestConflict", "409"}


@name_network_failures
class S3Storage(FsspecStorage):
    """Files below ``s3://bucket/prefix`` through s3fs, with conditional requests.

    Create-only writes PUT with ``If-None-Match: *``; :meth:`update` PUTs with
    ``If-Match: <etag>`` of what it read, and on HTTP 412/409 reads again and
    retries with jittered backoff, then raises :class:`ConflictError`.
    ``max_attempts``: compare-and-swap attempts before giving up.
    """

    _makes_dirs = False  # object stores have no folders (and makedirs may create buckets)

    def __init__(self, fs: Any, root: str, *, url: str, max_attempts: int = 64) -> None:
        super().__init__(fs, root, url=url)
        self.guarantee = "cas"
        self.max_attempts = max_attempts

    def _cat_kwargs(self) -> dict[str, Any]:
        return {"max_concurrency": 1}  # one GET per object (else s3fs HEADs it first)

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
            if error_code(exc) in _CAS_LOST:
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


def install_hint(protocol: str) -> str:
    """What to install for an fsspec protocol (``pip install 'sessionkit[s3]'``)."""
    extra = _EXTRAS.get(protocol)
    if extra:
        return f"pip install 'sessionkit[{extra}]'"
    return f"install the fsspec implementation for {protocol!r} (see fsspec's registry)"


#: seconds a remote store has to accept a connection, and to answer a request
CONNECT_TIMEOUT = 10.0
READ_TIMEOUT = 30.0
#: tries of one unanswered request: a silent store fails after about this * read_timeout
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

    The deadlines are the arguments, else ``SESSIONKIT_CONNECT_TIMEOUT`` /
    ``SESSIONKIT_READ_TIMEOUT``, else :data:`CONNECT_TIMEOUT` / :data:`READ_TIMEOUT`;
    values the options already give win.  ``s3://``: botocore's ``config_kwargs``
    (its retries left to s3fs's, :func:`bound_retries`); ``gcs://``: gcsfs's
    ``requests_timeout``.  Other protocols: the options as they are.

    Raises:
        StoreError: a timeout that is not a positive number of seconds.
    """
    connect = _seconds("connect_timeout", connect_timeout)
    read = _seconds("read_timeout", read_timeout)
    if protocol in ("gcs", "gs") and "requests_timeout" not in options:
        try:
            from aiohttp import ClientTimeout
        except ImportError:  # (no gcsfs either: opening says what to install)
            return options
        return {**options, "requests_timeout": ClientTimeout(connect=connect, sock_read=read)}
    if protocol not in ("s3", "s3a"):
        return options
    config = dict(options.get("config_kwargs") or {})
    config.setdefault("connect_timeout", connect)
    config.setdefault("read_timeout", read)
    config.setdefault("retries", {"max_attempts": 1, "mode": "standard"})
    return {**options, "config_kwargs": config}


def bound_retries(fs: Any) -> None:
    """At most :data:`REMOTE_TRIES` tries of one request on s3fs (5 by default)."""
    if isinstance(getattr(fs, "retries", None), int) and fs.retries > REMOTE_TRIES:
        fs.retries = REMOTE_TRIES
