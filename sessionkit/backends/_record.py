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
* **write-ahead**: callers record what they are about to write *before*
  writing it, with what was there (see :func:`entry_accepts`), and confirm
  afterwards; then whatever a kill leaves on disk is recognised on the next run.

The file is ``{"version": 1, "<section>": {key: entry, ...}}``; other
top-level keys are kept as they are.  A record that is not valid JSON (edited
by hand) reads as empty, and the next merge starts it again.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from ..errors import NotFoundError
from ._storage import Storage

__all__ = ["Change", "Record", "entry_accepts"]

#: one change to a record: the entry to set, ``None`` to drop it, or a function of the
#: current entry returning either
Change = Mapping[str, Any] | None | Callable[[dict[str, Any] | None], Mapping[str, Any] | None]

#: entry field listing the digests a note may still have while a write is in flight
WAS = "was"


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

    def read(self) -> dict[str, dict[str, Any]]:
        """The entries as they are now (``{}`` when there is no record yet)."""
        try:
            data: bytes | None = self.storage.read(self.path)
        except NotFoundError:
            data = None
        return self._entries(self._load(data))

    def _dump(self, whole: dict[str, Any], entries: Mapping[str, Mapping[str, Any]]) -> bytes:
        out = {k: v for k, v in whole.items() if k not in ("version", self.section)}
        out["version"] = self.version
        out[self.section] = {k: dict(entries[k]) for k in sorted(entries)}
        return (json.dumps(out, indent=1, ensure_ascii=False, sort_keys=True) + "\n").encode()

    def merge(self, changes: Mapping[str, Change]) -> dict[str, dict[str, Any]]:
        """Apply ``changes`` to the current record: key -> the entry to set, ``None``
        to drop it, or a function of the current entry (or ``None``) returning either
        (to change an entry only if it is still what the caller left).

        Returns the entries after the merge (everyone's, not only these).
        Nothing is written when the changes change nothing.

        Raises:
            StoreError: the record cannot be written (the message says why:
                ``No space left on device``, permission denied…); the record
                on disk is then as it was.
        """
        result: dict[str, dict[str, Any]] = {}

        def apply(data: bytes | None) -> bytes | None:
            whole = self._load(data)
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
