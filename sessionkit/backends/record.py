"""A small JSON record kept beside a store's notes, safe against races and kills.

``convert``'s ``.sessionkit-convert.json`` and ``sync``'s state: :meth:`Record.merge`
replaces the file whole under the storage's lock or compare-and-swap; on a local disk
:meth:`Record.append` adds one fsynced journal line (``<record>.journal``), so a kill
loses nothing and applies nothing twice.  Callers write ahead (:func:`entry_accepts`);
a record that is not JSON reads as empty.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import attrs

from .._safe_read import read_open
from ..errors import NotFoundError, StoreError
from ._base import Storage
from ._local import LocalStorage, _os_error

__all__ = ["JOURNAL_SUFFIX", "WAS", "Change", "IfStill", "Record", "entry_accepts"]

#: the entry to set, ``None`` to drop it, or a function of the current entry giving either
Change = Mapping[str, Any] | None | Callable[[dict[str, Any] | None], Mapping[str, Any] | None]

#: entry field listing the digests a note may still have while a write is in flight
WAS = "was"

#: suffix of a record's journal (``.sessionkit-convert.json.journal``)
JOURNAL_SUFFIX = ".journal"

#: where :meth:`Record._dump` puts the entries
_MARK = "\x00sessionkit: the entries\x00"
_MARK_JSON = json.dumps(_MARK)
_NL, _NL_NESTED = "\n", "\n  "


def entry_accepts(entry: Mapping[str, Any] | None, digest: str, field: str = "sha256") -> bool:
    """Whether a note whose content has ``digest`` is one the record's owner wrote:
    the entry's ``field``, or one of its ``was`` digests (a write a kill interrupted)."""
    if not entry:
        return False
    if entry.get(field) == digest:
        return True
    was = entry.get(WAS)
    return isinstance(was, list) and digest in was


@attrs.frozen
class IfStill:
    """A change made only while an entry is still ``expected``: it becomes ``then``
    (``None`` drops it).  A :data:`Change` that can be journaled."""

    expected: Mapping[str, Any] | None
    then: Mapping[str, Any] | None

    def __call__(self, current: Mapping[str, Any] | None) -> Mapping[str, Any] | None:
        return self.then if current == self.expected else current


def _ident(st: os.stat_result | None) -> str:
    """Which record file a journal continues: ``none`` when there is none."""
    if st is None:
        return "none"
    return f"{st.st_dev}:{st.st_ino}:{st.st_size}:{st.st_mtime_ns}"


class Record:
    """A JSON record of entries by key at ``path`` in ``storage``.

    Args:
        storage: the byte layer holding it (the target store's).
        path: its path relative to the storage root (a dotfile: never a note).
        section: the top-level key holding the entries (``notes``).
    """

    version = 1

    def __init__(self, storage: Storage, path: str, *, section: str = "notes") -> None:
        self.storage = storage
        self.path = path
        self.section = section
        self.journal = path + JOURNAL_SUFFIX

    def _load(self, data: bytes | None) -> dict[str, Any]:
        if data is None:
            return {}
        try:
            loaded = json.loads(data.decode("utf-8"))
        except (ValueError, UnicodeDecodeError):
            return {}
        return loaded if isinstance(loaded, dict) else {}

    def _entries(self, whole: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
        found = whole.get(self.section)
        if not isinstance(found, dict):
            return {}
        return {k: dict(v) for k, v in found.items() if isinstance(k, str) and isinstance(v, dict)}

    def _local(self) -> LocalStorage | None:
        return self.storage if isinstance(self.storage, LocalStorage) else None

    def read(self, *, fold: bool = False) -> dict[str, dict[str, Any]]:
        """The entries as they are now (``{}``: no record); ``fold``: fold a local
        journal left behind into the record."""
        local = self._local()
        if local is None:
            try:
                data: bytes | None = self.storage.read(self.path)
            except NotFoundError:
                data = None
            return self._entries(self._load(data))
        snap = self._snapshot(local)
        if fold and snap.journal_bytes and self._can_write(local):
            return self.merge({})
        return snap.entries

    def _can_write(self, local: LocalStorage) -> bool:
        folder = os.path.dirname(local.resolve(self.path))
        return os.access(folder, os.W_OK)

    def _snapshot(self, local: LocalStorage) -> _Snapshot:
        """The record and its journal as they are now, read without the lock (again if
        the record was replaced meanwhile)."""
        full = local.resolve(self.path)
        journal = local.resolve(self.journal)
        for _ in range(100):
            try:
                fd = os.open(full, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
            except FileNotFoundError:
                st, data = None, None
            except OSError as exc:
                raise _os_error(exc, f"cannot read {self.path!r}", self.path) from None
            else:
                try:
                    st = os.fstat(fd)
                    data = read_open(fd)
                except OSError as exc:
                    raise _os_error(exc, f"cannot read {self.path!r}", self.path) from None
                finally:
                    os.close(fd)
            whole = self._load(data)
            entries = self._entries(whole)
            size = 0
            try:
                for line in _journal_lines(journal, _ident(st)):
                    size += len(line)
                    _apply_line(entries, line, self.section)
            except OSError as exc:
                raise _os_error(exc, f"cannot read {self.journal!r}", self.journal) from None
            try:
                now: os.stat_result | None = os.stat(full)
            except FileNotFoundError:
                now = None
            if _ident(now) == _ident(st):
                return _Snapshot(whole, entries, st, data, size)
        raise StoreError("the record kept changing while it was read", path=self.path)

    def _dump(self, whole: dict[str, Any], entries: Mapping[str, Mapping[str, Any]]) -> bytes:
        """``json.dumps(whole, indent=1, sort_keys=True)``, made entry by entry (the
        entries' text is never one string: memory)."""
        out = {k: v for k, v in whole.items() if k not in ("version", self.section)}
        out["version"] = self.version
        out[self.section] = _MARK
        head = json.dumps(out, indent=1, ensure_ascii=False, sort_keys=True)
        before, found, after = head.partition(_MARK_JSON)
        if not found or _MARK_JSON in after:  # (a value holding the mark: the plain way)
            out[self.section] = {k: dict(entries[k]) for k in sorted(entries)}
            return (json.dumps(out, indent=1, ensure_ascii=False, sort_keys=True) + "\n").encode()
        parts = [before.encode()]
        if not entries:
            parts.append(b"{}")
        else:
            keys = sorted(entries)
            parts.append(b"{\n")
            last = len(keys) - 1
            for n, key in enumerate(keys):
                body = json.dumps(dict(entries[key]), indent=1, ensure_ascii=False, sort_keys=True)
                name = json.dumps(key, ensure_ascii=False)
                end = ",\n" if n < last else "\n"
                parts.append(f"  {name}: {body.replace(_NL, _NL_NESTED)}{end}".encode())
            parts.append(b" }")
        parts.append((after + "\n").encode())
        return b"".join(parts)

    def merge(self, changes: Mapping[str, Change]) -> dict[str, dict[str, Any]]:
        """Apply ``changes`` (key -> :data:`Change`) to the record as it is now and
        return everyone's entries afterwards; nothing written when nothing changes.

        Raises:
            StoreError: the record cannot be written (it is then as it was).
        """
        result: dict[str, dict[str, Any]] = {}

        def apply(
            data: bytes | None, entries: dict[str, dict[str, Any]] | None = None
        ) -> bytes | None:
            whole = self._load(data)
            if entries is None:
                entries = self._entries(whole)
            before = dict(entries)
            _apply(entries, changes)
            result.clear()
            result.update(entries)
            if entries == before and data is not None:
                return None
            if not entries and data is None:
                return None
            return self._dump(whole, entries)

        local = self._local()
        if local is not None:
            with local._lock(self.path):
                snap = self._snapshot(local)
                new = apply(snap.data, snap.entries)
                if new is None and snap.journal_bytes:  # the journal alone: fold it in
                    new = self._dump(snap.whole, result)
                if new is not None:
                    full = local.resolve(self.path)
                    local._replace(self.path, full, new, create=False)
                    if local._batch() is not None:  # the new record is durable first
                        local._sync_dir(os.path.dirname(full))
                if snap.journal_bytes or new is not None:
                    with contextlib.suppress(FileNotFoundError):
                        os.unlink(local.resolve(self.journal))  # (stale now: ignored if kept)
            return result
        if not changes:
            return self.read()
        if self.storage.guarantee == "none":  # no lock, no conditional write: best effort
            try:
                current: bytes | None = self.storage.read(self.path)
            except NotFoundError:
                current = None
            new = apply(current)
            if new is not None:
                self.storage.write(self.path, new)
            return result
        self.storage.update(self.path, apply)
        return result

    def append(self, changes: Mapping[str, Mapping[str, Any] | IfStill | None]) -> None:
        """Record ``changes`` without rewriting the record: on a local disk one fsynced
        journal line under the folder's lock; elsewhere a :meth:`merge`.

        Raises:
            StoreError: the journal cannot be written (the record is then as it was).
        """
        if not changes:
            return
        local = self._local()
        if local is None:
            self.merge(changes)
            return
        plain: dict[str, Any] = {}
        cond: dict[str, Any] = {}
        for key, change in changes.items():
            if isinstance(change, IfStill):
                cond[key] = [change.expected, change.then]
            else:
                plain[key] = None if change is None else dict(change)
        body: dict[str, Any] = {self.section: plain}
        if cond:
            body["if"] = cond
        line = (json.dumps(body, ensure_ascii=False, sort_keys=True) + "\n").encode()
        with local._lock(self.path):
            full = local.resolve(self.path)
            st = local._existing(full, self.path)  # (a read-only record is refused)
            journal = local.resolve(self.journal)
            try:
                made = _append_line(journal, _ident(st), line)
            except OSError as exc:
                raise _os_error(exc, f"cannot write {self.journal!r}", self.journal) from None
            if made:  # a new journal: its name is durable before anything relies on it
                local._sync_dir(os.path.dirname(journal))

    def fold(self, *, limit: int | None = None) -> None:
        """Fold the journal into the record, if there is one (``limit``: only when the
        journal holds at most ``max(limit, the record's size)`` bytes)."""
        local = self._local()
        if local is None:
            return
        try:
            size = os.stat(local.resolve(self.journal)).st_size
        except FileNotFoundError:
            return
        if limit is not None:
            try:
                base = os.stat(local.resolve(self.path)).st_size
            except FileNotFoundError:
                base = 0
            if size > max(limit, base):
                return
        self.merge({})


@attrs.frozen
class _Snapshot:
    whole: dict[str, Any]
    entries: dict[str, dict[str, Any]]
    stat: os.stat_result | None
    data: bytes | None
    journal_bytes: int


def _journal_lines(journal: str, ident: str) -> Iterator[bytes]:
    """The complete change lines of ``journal`` when it continues the record ``ident``."""
    try:
        fh = open(journal, "rb")  # noqa: SIM115 - closed below
    except FileNotFoundError:
        return
    with fh:
        head = fh.readline()
        if not head.endswith(b"\n") or _header_ident(head) != ident:
            return
        for line in fh:
            if line.endswith(b"\n"):
                yield line


def _header_ident(line: bytes) -> str | None:
    try:
        head = json.loads(line)
    except ValueError:
        return None
    if not isinstance(head, dict) or head.get("journal") != 1:
        return None
    ident = head.get("record")
    return ident if isinstance(ident, str) else None


def _apply(entries: dict[str, dict[str, Any]], changes: Mapping[str, Change]) -> None:
    for key, change in changes.items():
        entry = change(entries.get(key)) if callable(change) else change
        if entry is None:
            entries.pop(key, None)
        else:
            entries[key] = dict(entry)


def _apply_line(entries: dict[str, dict[str, Any]], line: bytes, section: str) -> None:
    try:
        body = json.loads(line)
    except ValueError:
        return
    if not isinstance(body, dict):
        return
    plain, cond = body.get(section), body.get("if")
    changes: dict[str, Change] = {}
    if isinstance(plain, dict):
        changes.update((k, v) for k, v in plain.items() if v is None or isinstance(v, dict))
    if isinstance(cond, dict):
        for key, pair in cond.items():
            if isinstance(pair, list) and len(pair) == 2:
                then = pair[1] if isinstance(pair[1], dict) else None
                changes[key] = IfStill(pair[0], then)
    _apply(entries, changes)


def _append_line(journal: str, ident: str, line: bytes) -> bool:
    """Append ``line`` to ``journal`` (restarted unless it continues ``ident``; a torn
    last line cut off), fsynced; whether the file is new."""
    flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(journal, flags, 0o666)
    try:
        size = os.fstat(fd).st_size
        made = size == 0
        keep = 0
        if size:
            head = os.pread(fd, 4096, 0)
            first = head.find(b"\n") + 1
            if first and _header_ident(head[:first]) == ident:
                keep = _complete(fd, size)  # (a line a kill cut short goes)
        if keep == 0:
            os.ftruncate(fd, 0)
            out = (json.dumps({"journal": 1, "record": ident}) + "\n").encode() + line
        else:
            if keep != size:
                os.ftruncate(fd, keep)
            out = line
        os.lseek(fd, keep, os.SEEK_SET)
        view = memoryview(out)
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)
    finally:
        os.close(fd)
    return made


def _complete(fd: int, size: int) -> int:
    """The length of the file's complete lines (up to its last newline)."""
    if os.pread(fd, 1, size - 1) == b"\n":
        return size
    end = size
    while end > 0:
        start = max(0, end - 65536)
        block = os.pread(fd, end - start, start)
        at = block.rfind(b"\n")
        if at >= 0:
            return start + at + 1
        end = start
    return 0
