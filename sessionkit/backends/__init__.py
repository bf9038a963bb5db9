"""Storage backends: where notes live and how they are named.

A *backend* is a factory ``factory(url, format=None, **options) -> Store`` registered by
name: the layouts ``aiwiki`` and ``basic-memory`` (also the URL scheme ``bm://``), on any
fsspec filesystem, and third parties' from the ``sessionkit.backends`` entry-point group
(``"module:attr"``).  A backend whose name is a URL scheme handles URLs of that scheme::

    store = sessionkit.open_store("s3://team-notes/wiki")        # layout detected
    store = sessionkit.open_store("memory://demo", layout="aiwiki")
    store = sessionkit.open_store("bm://main")                    # Basic Memory project
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from .._entry_points import Registry
from ..errors import NotFoundError, SessionKitError, StoreError
from ._base import NoteInfo, Store, check_key

__all__ = [
    "NoteInfo",
    "Store",
    "available_backends",
    "check_key",
    "check_store",
    "detect_layout",
    "get_backend",
    "open_store",
    "register_backend",
]

BackendFactory = Callable[..., Store]


def _as_factory(target: Any) -> BackendFactory:
    if isinstance(target, type) and issubclass(target, Store) and hasattr(target, "open"):
        opener: BackendFactory = target.open
        return opener
    if callable(target):
        return target  # type: ignore[no-any-return]
    raise StoreError(f"backend {target!r} is not callable")


_plugins = Registry(
    "sessionkit.backends",
    "backend",
    {
        "aiwiki": "sessionkit.backends.aiwiki:AiwikiStore",
        "basic-memory": "sessionkit.backends.basic_memory:BasicMemoryStore",
        "bm": "sessionkit.backends.basic_memory:BasicMemoryStore",
    },
    _as_factory,
    StoreError,
    long_kind="store backend",
    or_package=True,
)

#: options sessionkit itself understands (the rest go to fsspec)
_OWN_OPTIONS = ("single_writer", "lock_timeout", "max_attempts", "connect_timeout", "read_timeout")


def register_backend(name: str, factory: str | BackendFactory, *, replace: bool = False) -> None:
    """Register a backend under ``name``.

    Args:
        name: layout name, or URL scheme it handles (``mydb`` for ``mydb://…``).
        factory: a callable ``(url, format=None, **options) -> Store``, a
            :class:`Store` subclass with an ``open`` classmethod, or a
            ``"module:attr"`` string naming one (imported on first use).
        replace: allow replacing an existing registration.

    Raises:
        ValueError: ``name`` is taken and ``replace`` is false.
    """
    _plugins.register(name, factory, replace)


def available_backends() -> list[str]:
    """Names of every registered backend (built-in and from entry points)."""
    return _plugins.names()


def get_backend(name: str) -> BackendFactory:
    """The factory registered as ``name``, imported on first use.

    Raises:
        StoreError: no such backend.
        MissingDependencyError: its module needs an optional dependency
            (the message says what to install).
    """
    factory: BackendFactory = _plugins.get(name)
    return factory


def _configured(
    layout: str | None, format: str | None, storage_options: dict[str, Any]
) -> tuple[str, str | None, str | None, dict[str, Any]]:
    """The store URL (and layout, format, options) from the effective configuration."""
    from ..config import effective_store_url, load_config, storage_options_for

    config = load_config()
    url = effective_store_url(config)
    options = {**storage_options_for(config, url), **storage_options}
    return url, layout or config.layout, format or config.format, options


def detect_layout(url: str, **storage_options: Any) -> str:
    """Guess the layout of the store at ``url`` (``aiwiki`` or ``basic-memory``).

    ``aiwiki`` when the URL ends in ``aiwiki`` or ``aiwiki/sessions`` or the root
    holds ``aiwiki/``; ``basic-memory`` for ``bm://`` and a folder holding
    ``sessions/`` or ``.basic-memory`` but no ``aiwiki/``; else ``aiwiki``.
    Costs at most one listing of the root.
    """
    from ._storage import open_storage, split_url

    protocol, rest = split_url(url)
    if protocol == "bm":
        return "basic-memory"
    if ("/" + url.rstrip("/")).endswith(("/aiwiki", "/aiwiki/sessions")):
        return "aiwiki"
    own = {k: storage_options.pop(k) for k in _OWN_OPTIONS if k in storage_options}
    names = open_storage(url, **own, **storage_options).names()
    if "aiwiki" in names:
        return "aiwiki"
    if "sessions" in names or ".basic-memory" in names:
        return "basic-memory"
    if protocol in (None, "file", "local"):
        from .basic_memory import is_bm_project

        if is_bm_project(rest):
            return "basic-memory"
    return "aiwiki"


def open_store(
    url: str | os.PathLike[str] | None = None,
    layout: str | None = None,
    format: str | None = None,
    *,
    base: str | os.PathLike[str] | None = None,
    must_exist: bool = False,
    **storage_options: Any,
) -> Store:
    """Open a store at a path or URL.

    Args:
        url: a plain path, ``file://…``, any fsspec URL (``s3://bucket/prefix``,
            ``memory://…``), ``bm://PROJECT`` or ``bm:///path``; a scheme registered
            as a backend is handled by it.  ``None``: the configured store, else
            the repository root.
        layout: ``aiwiki``, ``basic-memory`` or a registered backend name;
            detected when ``None`` (see :func:`detect_layout`).
        format: format of new notes (the layout's default when ``None``).
        base: the folder a relative local path is resolved against (default: the
            working directory); one leading outside it (``..``, a symlink) is
            refused; ``/``, ``//`` and ``file:///x`` mean those absolute paths.
        must_exist: raise :class:`~sessionkit.errors.NotFoundError` unless the
            store (its root and notes folder) is there: a mistyped path is an
            error rather than an empty store, and reading creates nothing.
        **storage_options: passed to the fsspec filesystem (``endpoint_url``,
            ``anon``, ``key``…) except sessionkit's own: ``single_writer``
            (opt in to unguarded writes where no lock or conditional write
            exists), ``lock_timeout`` (local lock wait, seconds),
            ``max_attempts`` (compare-and-swap attempts on S3),
            ``connect_timeout`` and ``read_timeout`` (seconds a remote store
            has to connect and to answer a request; 10 and 30).  Credentials
            come from fsspec's usual sources, never from sessionkit files.

    Raises:
        MissingDependencyError: the filesystem's package is missing (with the
            ``pip install 'sessionkit[s3]'`` style hint).
        NotFoundError: ``must_exist`` and the store is not there.
        PathSafetyError: a relative path leads outside ``base``.
        StoreError: unknown backend or unusable URL (a file where the store's
            folder should be, for one).
    """
    if url is None:
        url, layout, format, storage_options = _configured(layout, format, storage_options)
    url = os.fspath(url)
    if not isinstance(url, str) or not url:
        raise StoreError(f"not a store path or URL: {url!r}")
    if "\x00" in url:
        raise StoreError("store URL contains a NUL byte")
    from ._storage import is_local, local_path, split_url

    shown = url
    if is_local(url):
        resolved = local_path(url, base)  # refuses a relative path leading outside base
        # a plain relative path against the working directory keeps its spelling
        # (reports show what the user typed); anything else is opened absolute
        if base is not None or "://" in url or os.path.isabs(url):
            url = resolved
    protocol, _ = split_url(url)
    name = layout
    if name is None and protocol is not None and protocol in _plugins:
        name = protocol
    if name is None:
        name = detect_layout(url, **dict(storage_options))
    factory = get_backend(name)
    try:
        store = factory(url, format=format, **storage_options)
    except SessionKitError:
        raise
    except TypeError as exc:
        raise StoreError(f"cannot open {shown!r} with backend {name!r}: {exc}") from None
    check_store(store, shown, must_exist=must_exist)
    return store


def check_store(store: Store, shown: str | None = None, *, must_exist: bool = False) -> None:
    """Refuse a store whose root is a file; with ``must_exist``, one that is not there
    (local: its root and notes folders exist; remote: its notes folder does).

    Raises:
        StoreError: the root is a file.
        NotFoundError: ``must_exist`` and the root or notes folder is missing.
    """
    from ._storage import FsspecStorage, LocalStorage

    shown = shown or str(store.url)
    storage = getattr(store, "storage", None)
    folder = str(getattr(store, "folder", "") or "")
    if isinstance(storage, LocalStorage):
        root = storage.root
        if os.path.exists(root) and not os.path.isdir(root):
            raise StoreError("is a file, not a store folder", path=shown)
        if not must_exist:
            return
        if not os.path.isdir(root):
            raise NotFoundError(f"{shown}: no such folder", path=None)
        if folder and not os.path.isdir(os.path.join(root, *folder.split("/"))):
            raise NotFoundError(
                f"{shown}: not {_a(store.layout)} store (it has no {folder}/ folder)", path=None
            )
    elif isinstance(storage, FsspecStorage) and must_exist and not storage.exists(folder):
        what = f"nothing under {folder}/" if folder else "nothing there"
        raise NotFoundError(f"{shown}: not {_a(store.layout)} store ({what})", path=None)


def _a(word: str) -> str:
    """``word`` with its article: an aiwiki, a basic-memory."""
    return f"an {word}" if word[:1].lower() in "aeiou" else f"a {word}"
