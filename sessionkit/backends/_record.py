"""A small JSON record kept beside a store's notes, safe against races and kills.

Operations that must remember what they wrote (``convert``'s
``.sessionkit-convert.json``; ``sync``'s state) keep it in a :class:`Record`:

* **locked and merged**: :meth:`Record.merge` applies *changes* (entries to
  set, or ``None`` to remove) to the record as it is at that moment, inside
  :meth:`Storage.update` (the folder's lock file on a local disk, a
  compare-and-swap on S3, the process lock on ``memory://``).  Two processes
  updating different entries both keep theirs; nobody overwrites a record
  with a stale copy;
* **atomic**: each merge replaces the file whole (temp file, fsync, rename),
  so a ``kill -9`` at any moment leaves the record before or after one merge;
* **journaled** (local disk): :meth:`Record.append` adds changes to a journal
  beside the record (``<record>.journal``) under the same lock, one fsynced
  line a call, so a long run's changes cost what they hold, not what the
  record holds; the journal is folded into the record (replaced whole) by
  :meth:`Record.fold`, by a :meth:`Record.merge`, and when a run reads the
  record (:meth:`Record.read` with ``fold``);
* **write-ahead**: callers record what they are about to write *before*
  writing it, with what was there (see :func:`entry_accepts`), and confirm
  afterwards; then whatever a kill leaves on disk is recognised on the next run.

The file is ``{"version": 1, "<section>": {key: entry, ...}}``; other
top-level keys are kept as they are.  A record that is not valid JSON (edited
by hand) reads as empty, and the next merge starts it again.  The journal's
first line names the record file it continues (device, inode, size and
modification time); once the record is replaced, the journal no longer
matches it and is ignored (its lines are in the new record), so a kill between
the two steps of a fold loses nothing and applies nothing twice.  A line a kill
cut short is ignored (it was not yet durable, and nothing relied on it).
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import attrs

from ..errors import NotFoundError, StoreError
from ._base import Storage
from ._local import LocalStorage, _os_error

__all__ = ["Change", "IfStill", "Record", "entry_accepts"]

#: one change to a record: the entry to set, ``None`` to drop it, or a function of the
#: current entry returning either
Change = Mapping[str, Any] | None | Callable[[dict[str, Any] | None], Mapping[str, Any] | None]

#: entry field listing the digests a note may still have while a write is in flight
WAS = "was"

#: suffix of a record's journal (``.sessionkit-convert.json.journal``)
JOURNAL_SUFFIX = ".journal"

#: where :meth:`Record._dump` puts the entries (a value no record holds)
_MARK = "\x00sessionkit: the entries\x00"
_MARK_JSON = json.dumps(_MARK)
_NL, _NL_NESTED = "\n", "\n  "


def entry_accepts(entry: Mapping[str, Any] | None, digest: str, field: str = "sha256") -> bool:
    """Whether a note whose content has ``digest`` is one the record's owner wrote.

    True when ``digest`` is the entry's ``field`` or one of its ``was`` digests
    (the content before a write that a kill may have interrupted).
    """
    if not entry:
        return False
    if entry.get(field) == digest:
        return True
    was = entry.get(WAS)
    return isinstance(was, list) and digest in was


@attrs.frozen
class IfStill:
    """A change made only while an entry is still ``expected``: it becomes ``then``
    (``None`` drops it); an entry someone else has changed meanwhile is kept.

    Callable as a :data:`Change`; unlike any function it can be journaled
    (:meth:`Record.append`).
    """

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
        #: the journal beside the record (local disks)
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
        """The entries as they are now (``{}`` when there is no record yet).

        ``fold``: on a local disk, fold a journal left behind into the record
        (the whole record is in memory then anyway).
        """
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
        """The record and its journal as they are now: read without the lock, again
        if the record was replaced meanwhile (each file is replaced or appended
        atomically, so what was read is one moment's state)."""
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
                    data = _read_fd(fd)
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
        """The record's bytes: ``json.dumps(..., indent=1, sort_keys=True)`` of the
        whole, made entry by entry (no copy of the entries, no text of them all
        as one string before the bytes)."""
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
        """Apply ``changes`` to the current record: key -> the entry to set, ``None``
        to drop it, or a function of the current entry (or ``None``) returning either
        (to change an entry only if it is still what the caller left).

        Returns the entries after the merge (everyone's, not only these).
        Nothing is written when the changes change nothing (and no journal is
        waiting to be folded in).

        Raises:
            StoreError: the record cannot be written (the message says why:
                ``No space left on device``, permission denied…); the record
                on disk is then as it was.
        """
        result: dict[str, dict[str, Any]] = {}

        def apply(
            data: bytes | None, entries: dict[str, dict[str, Any]] | None = None
        ) -> bytes | None:
            whole = self._load(data)
            if entries is None:
                entries = self._entries(whole)
            before = dict(entries)
            for key, change in changes.items():
                entry = change(entries.get(key)) if callable(change) else change
                if entry is None:
                    entries.pop(key, None)
                else:
                    entries[key] = dict(entry)
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
        """Record ``changes`` (entries to set, ``None`` to drop, :class:`IfStill`)
        without rewriting the record: on a local disk one line appended to the
        journal under the folder's lock, fsynced before this returns; elsewhere
        a :meth:`merge`.  What it costs does not grow with the record.

        Raises:
            StoreError: the journal cannot be written (the record is then as it
                was; a line cut short is ignored).
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
        """Fold the journal into the record (replaced whole), if there is one.

        ``limit``: only when the journal holds at most ``max(limit, the record's
        size)`` bytes, so that a run that never read a large record does not
        load it all to fold it (the next run that reads it folds it).
        """
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


def _read_fd(fd: int) -> bytes:
    chunks = []
    while chunk := os.read(fd, 1 << 20):
        chunks.append(chunk)
    return b"".join(chunks)


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


def _header(ident: str) -> bytes:
    return (json.dumps({"journal": 1, "record": ident}) + "\n").encode()


def _header_ident(line: bytes) -> str | None:
    try:
        head = json.loads(line)
    except ValueError:
        return None
    if not isinstance(head, dict) or head.get("journal") != 1:
        return None
    ident = head.get("record")
    return ident if isinstance(ident, str) else None


def _apply_line(entries: dict[str, dict[str, Any]], line: bytes, section: str) -> None:
    try:
        body = json.loads(line)
    except ValueError:
        return
    if not isinstance(body, dict):
        return
    plain = body.get(section)
    if isinstance(plain, dict):
        for key, entry in plain.items():
            if entry is None:
                entries.pop(key, None)
            elif isinstance(entry, dict):
                entries[key] = entry
    cond = body.get("if")
    if isinstance(cond, dict):
        for key, pair in cond.items():
            if not (isinstance(pair, list) and len(pair) == 2):
                continue
            expected, then = pair
            if entries.get(key) == expected:
                if isinstance(then, dict):
                    entries[key] = then
                else:
                    entries.pop(key, None)


def _append_line(journal: str, ident: str, line: bytes) -> bool:
    """Append ``line`` to ``journal`` (started again when it does not continue the
    record ``ident``; a torn last line cut off), fsynced; whether the file is new."""
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
            out = _header(ident) + line
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
