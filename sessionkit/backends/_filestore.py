"""A :class:`Store` whose notes are files in one folder of a :class:`Storage`.

The layouts (aiwiki, Basic Memory) subclass :class:`FileStore` and add how
notes are named, which files count as notes, and how they are listed.
"""

from __future__ import annotations

import builtins
import contextlib
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from .._yaml import load_mapping
from ..errors import ParseError, SessionKitError, StoreError
from ..text.grammar import frontmatter_end, is_fence, split_lines
from ._base import FileEntry, Storage, Store, check_key
from ._local import LocalStorage

__all__ = ["FileStore", "read_frontmatter"]

#: how much of a note a filtered listing reads first (frontmatter lives here)
HEAD_BYTES = 4096


def _decode(data: bytes, key: str) -> str:
    from .._api import decode

    return decode(data, path=key)


def read_frontmatter(head: str) -> dict[str, Any] | None:
    """The frontmatter mapping at the start of ``head``: ``None`` when its block is not
    complete there (read the whole note), ``{}`` when there is none or it is no mapping."""
    lines = split_lines(head.removeprefix("\ufeff"))
    if not lines or not is_fence(lines[0]):
        return {}
    end = frontmatter_end(lines if lines[-1].endswith("\n") else lines[:-1])  # (a cut line)
    if end is None:
        return None
    try:
        return dict(load_mapping("".join(lines[1:end]) or "\n", line_offset=1))
    except (SessionKitError, TypeError, ValueError):
        return {}


class FileStore(Store):
    """Notes as ``.md`` files below ``folder`` in a :class:`Storage`.

    Args:
        storage: the byte layer, rooted at the store's root.
        folder: the notes folder relative to the root (``aiwiki/sessions``).
        url: how the store was opened.
    """

    format = "aiwiki-v2"
    layout = "files"
    #: file names (any folder depth) that are never notes
    excluded_names: frozenset[str] = frozenset()

    #: what a write does with secrets (:class:`sessionkit.redaction.Policy`; ``None``: redact)
    redaction: Any = None

    def __init__(self, storage: Storage, folder: str, *, url: str | None = None) -> None:
        #: every secret this store redacted or warned about (:class:`sessionkit.redaction.Finding`)
        self.redactions: builtins.list[Any] = []
        self.storage = storage
        self.folder = folder.strip("/")
        if self.folder:
            check_key(self.folder)
        self.url = url or storage.url

    def __getstate__(self) -> dict[str, Any]:
        """A copy sent to a worker starts with no findings (the caller relays them)."""
        state = self.__dict__.copy()
        state["redactions"] = []
        return state

    # -- paths ----------------------------------------------------------------
    def path_of(self, key: str) -> str:
        """The storage path (relative to the root) of a note key."""
        check_key(key)
        return f"{self.folder}/{key}" if self.folder else key

    def is_note(self, key: str) -> bool:
        """Whether a file below the folder (by key) counts as a note."""
        name = key.rsplit("/", 1)[-1]
        return name.endswith(".md") and name not in self.excluded_names

    def entries(self) -> builtins.list[tuple[str, FileEntry]]:
        """(key, entry) for every note, sorted by key, from one listing call."""
        prefix = f"{self.folder}/" if self.folder else ""
        out = []
        for entry in self.storage.list(self.folder):
            if not entry.path.startswith(prefix):
                continue
            key = entry.path[len(prefix) :]
            if self.is_note(key):
                out.append((key, entry))
        return out

    def versions(self) -> dict[str, str]:
        """Key -> version (see :meth:`Store.versions`): on a local disk the note's
        ``mtime_ns:size:inode`` (one ``stat``), elsewhere the listing's mtime and size."""
        if not isinstance(self.storage, LocalStorage):
            return {k: "" if e.mtime is None else f"{e.mtime}:{e.size}" for k, e in self.entries()}
        folder = self.storage.resolve(self.folder) if self.folder else self.storage.root
        out: dict[str, str] = {}
        for key in self.keys():  # (keys the store's own listing gave: safe to join)
            try:
                st = os.stat(f"{folder}/{key}")
            except OSError:
                out[key] = "?"
                continue
            out[key] = f"{st.st_mtime_ns}:{st.st_size}:{st.st_ino}"
        return out

    # -- primitives -----------------------------------------------------------
    def keys(self) -> builtins.list[str]:
        """Every note key, sorted, from one listing call (no per-file stat)."""
        is_note = self.is_note
        listed = self.storage.list_paths(self.folder, relative=True)
        if all(is_note(key) for key in listed):  # (usually: no second list of them)
            return listed
        return [key for key in listed if is_note(key)]

    def read_text(self, key: str) -> str:
        """The exact text of a note. Raises :class:`NotFoundError`."""
        return _decode(self.storage.read(self.path_of(key)), key)

    def read_bytes(self, key: str) -> bytes:
        """The exact bytes of a note. Raises :class:`NotFoundError`."""
        return self.storage.read(self.path_of(key))

    def read_many(self, keys: Iterable[str]) -> Iterator[tuple[str, str | SessionKitError]]:
        """(key, text) for each key, in order, read in one batch (see
        :meth:`Storage.read_each`: concurrent remote reads, lazy local ones)."""
        keys = builtins.list(keys)
        paths = {}
        for key in keys:
            with contextlib.suppress(SessionKitError):
                paths[key] = self.path_of(key)
        reads = self.storage.read_each([paths[key] for key in keys if key in paths])
        for key in keys:
            if key not in paths:
                try:
                    check_key(key)
                except SessionKitError as exc:
                    yield key, exc.with_path(key)
                continue
            value = next(reads)[1]
            if isinstance(value, StoreError):
                yield key, value
                continue
            try:
                yield key, _decode(value, key)
            except ParseError as exc:
                yield key, exc

    def write_text(self, key: str, text: str, *, create: bool = False) -> None:
        """Write a note atomically; with ``create``, fail with ConflictError if it exists."""
        path = self.path_of(key)
        self.storage.write(path, self._outgoing(path, text), create=create)

    def batch(self) -> contextlib.AbstractContextManager[None]:
        """Group many writes (see :meth:`Storage.batch`)."""
        return self.storage.batch()

    def write_texts(
        self, items: Sequence[tuple[str, str | tuple[str, ...]]], *, create: bool = False
    ) -> builtins.list[SessionKitError | None]:
        """Write several notes (see :meth:`Store.write_texts`); a text may come in
        pieces (a tuple of strings, whole lines each but the last)."""
        out: builtins.list[SessionKitError | None] = [None] * len(items)
        places: builtins.list[int] = []
        pairs: builtins.list[tuple[str, bytes]] = []
        for i, (key, text) in enumerate(items):
            try:
                path = self.path_of(key)
                pairs.append((path, self._outgoing(path, text)))
                places.append(i)
            except SessionKitError as exc:
                out[i] = exc
        for i, result in zip(places, self.storage.write_many(pairs, create=create), strict=True):
            out[i] = result
        return out

    def update_texts(
        self,
        keys: Sequence[str],
        fn: Callable[[str, str | None], str | tuple[str, ...] | None],
    ) -> builtins.list[str | SessionKitError | None]:
        """Read-modify-write several notes (see :meth:`Store.update_texts`); ``fn`` may
        give the new text in pieces (as :meth:`write_texts` takes them)."""

        def edit(key: str, data: bytes | None) -> str | tuple[str, ...] | None:
            return fn(key, None if data is None else _decode(data, key))

        out: builtins.list[str | SessionKitError | None] = []
        for key, result in zip(keys, self._update_bytes(keys, edit), strict=True):
            if isinstance(result, bytes):
                try:
                    out.append(_decode(result, key))
                except SessionKitError as exc:
                    out.append(exc)
            else:
                out.append(result)
        return out

    def update_encoded(
        self,
        keys: Sequence[str],
        fn: Callable[[str, bytes | None], str | tuple[str, ...] | None],
    ) -> builtins.list[SessionKitError | None]:
        """:meth:`update_texts` with ``fn(key, bytes)``, nothing read back as text
        (a big note is never held as a string); per note ``None`` or its error."""
        got = self._update_bytes(keys, fn)
        return [result if isinstance(result, SessionKitError) else None for result in got]

    def _update_bytes(
        self,
        keys: Sequence[str],
        fn: Callable[[str, bytes | None], str | tuple[str, ...] | None],
    ) -> builtins.list[bytes | SessionKitError | None]:
        """:meth:`Storage.update_many` of ``keys``; per note its bytes afterwards or error."""
        out: builtins.list[bytes | SessionKitError | None] = [None] * len(keys)
        places: builtins.list[int] = []
        paths: builtins.list[str] = []
        for i, key in enumerate(keys):
            try:
                paths.append(self.path_of(key))
                places.append(i)
            except SessionKitError as exc:
                out[i] = exc
        key_of = {path: keys[i] for i, path in zip(places, paths, strict=True)}

        def edit(path: str, data: bytes | None) -> bytes | None:
            new = fn(key_of[path], data)
            return None if new is None else self._outgoing(path, new)

        got = self.storage.update_many(paths, edit)
        for i, result in zip(places, got, strict=True):
            out[i] = result
        return out

    def update_text(self, key: str, fn: Callable[[str | None], str | None]) -> str | None:
        """Read-modify-write without lost updates (see :meth:`Store.update_text`);
        returns the note's text afterwards (``None`` if it does not exist)."""
        path = self.path_of(key)

        def edit(data: bytes | None) -> bytes | None:
            new = fn(None if data is None else _decode(data, key))
            return None if new is None else self._outgoing(path, new)

        out = self.storage.update(path, edit)
        return None if out is None else _decode(out, key)

    def _outgoing(self, path: str, text: str | tuple[str, ...]) -> bytes:
        """The bytes a write sends: the one place secrets are redacted (docs/secrets.md)."""
        from ..document import encode, encode_pieces
        from ..redaction import guard, guard_pieces

        remote = not isinstance(self.storage, LocalStorage)
        if isinstance(text, str):
            return encode(guard(self, path, text, remote=remote))
        return encode_pieces(guard_pieces(self, path, text, remote=remote))

    def delete(self, key: str) -> None:
        """Remove a note. Raises :class:`NotFoundError`."""
        self.storage.delete(self.path_of(key))

    # -- heads ----------------------------------------------------------------
    def frontmatters(self, keys: Iterable[str]) -> dict[str, dict[str, Any]]:
        """The frontmatter of each note from its first few KB when that suffices
        (unreadable notes: ``{}``)."""
        keys = builtins.list(keys)
        paths = {}
        for key in keys:
            with contextlib.suppress(SessionKitError):  # (a name refused: unreadable)
                paths[key] = self.path_of(key)
        heads = self.storage.read_heads(builtins.list(paths.values()), HEAD_BYTES)
        out: dict[str, dict[str, Any]] = {}
        again: builtins.list[str] = []
        for key in keys:
            if key not in paths:
                out[key] = {}
                continue
            raw = heads[paths[key]]
            if isinstance(raw, StoreError):
                out[key] = {}
                continue
            text = raw.decode("utf-8", errors="replace")
            meta = read_frontmatter(text)
            if meta is None and len(raw) >= HEAD_BYTES:
                again.append(key)
            else:
                out[key] = meta or {}
        for key, full in self.read_many(again):
            out[key] = {} if isinstance(full, SessionKitError) else read_frontmatter(full) or {}
        return out

    def describe(self) -> dict[str, Any]:
        """A JSON-able description (url, layout, format, folder, write guarantee)."""
        return {
            **super().describe(),
            "folder": self.folder,
            "guarantee": self.storage.guarantee,
        }
