"""The byte layer under every built-in store, opened for a path or fsspec URL.

=================  ==========================  ===================================
filesystem         create-only write           read-modify-write (``update``)
=================  ==========================  ===================================
local disk         hard link of a synced temp  the folder's lock file + atomic
                   file (atomic, ``O_EXCL``)   replace (temp file, fsync, rename)
``s3://``          ``If-None-Match: *`` PUT    compare-and-swap on the ETag
``memory://``      under a process lock        under a process lock
anything else      only with ``single_writer``  only with ``single_writer=True``
=================  ==========================  ===================================

Local storage lives in ``_local.py``, fsspec storage in ``_remote.py``; this
module opens the right one and is what the rest of sessionkit imports.
"""

from __future__ import annotations

import os
from typing import Any

from ..errors import MissingDependencyError, StoreError
from ._base import FileEntry, Storage
from ._local import LOCK_NAME, LocalStorage, is_local, local_path, split_url
from ._remote import (
    FsspecStorage,
    S3Storage,
    _protocols,
    bound_retries,
    install_hint,
    remote_options,
)

__all__ = [
    "LOCK_NAME",
    "FileEntry",
    "FsspecStorage",
    "LocalStorage",
    "S3Storage",
    "Storage",
    "bound_retries",
    "install_hint",
    "is_local",
    "local_path",
    "open_storage",
    "remote_options",
    "split_url",
]


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
    fsspec's usual sources); ``connect_timeout`` and ``read_timeout`` (seconds)
    bound every request to a remote store (see :func:`remote_options`).

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
