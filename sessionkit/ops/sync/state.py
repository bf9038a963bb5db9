"""The sync state file beside the wiki's notes, and the lock that keeps two syncs apart."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import socket
import time
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from filelock import FileLock, Timeout

from ..._gitignore import exclude_in_git
from ...backends import Store
from ...backends.record import Record
from ...errors import (
    ConflictError,
    FormatError,
    NotFoundError,
    SessionKitError,
    UnsupportedFormatError,
)
from ...redaction import redact
from ...text.grammar import split_lines

__all__ = ["LOCK_NAME", "STATE_NAME", "peer_id", "read_state"]

#: the state file, in the aiwiki store's notes folder
STATE_NAME = ".sessionkit-sync.json"
#: the lock (local) or lease (object stores) that keeps two syncs apart
LOCK_NAME = ".sessionkit-sync.lock"
#: a lease older than this (seconds) was left by a sync that died; it is taken over
LEASE_TTL = 600.0
#: version of the state file's layout
STATE_VERSION = 1


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _beside(store: Store, name: str) -> str:
    """The path of ``name`` in the store's notes folder."""
    folder = str(getattr(store, "folder", "") or "")
    return f"{folder}/{name}" if folder else name


def _storage(store: Store) -> Any:
    storage = getattr(store, "storage", None)
    if storage is None:
        raise UnsupportedFormatError(
            f"{store.url}: sync needs a file-based store (it keeps its state file beside the notes)"
        )
    return storage


def read_state(store: Store) -> dict[str, Any]:
    """The sync state kept in an aiwiki store (an empty state when there is none).

    ``{"version": 1, "peers": {<Basic Memory store>: {"notes": {<aiwiki key>:
    {"basic_memory": <key>, "aiwiki_sha256": …, "basic_memory_sha256": …,
    "base": <aiwiki text>}}}}}``: one entry per Basic Memory store the wiki
    is synced with (see :func:`peer_id`).

    Raises:
        FormatError: the state file exists but is not a sync state.
    """
    path = _beside(store, STATE_NAME)
    try:
        data = json.loads(_storage(store).read(path).decode("utf-8"))
    except NotFoundError:
        return {"version": STATE_VERSION, "peers": {}}
    except (ValueError, UnicodeDecodeError) as exc:
        raise FormatError(f"unreadable sync state: {exc}", path=path) from None
    if not isinstance(data, dict) or not isinstance(data.get("peers"), dict):
        raise FormatError("not a sessionkit sync state (no 'peers' mapping)", path=path)
    if data.get("version") != STATE_VERSION:
        raise FormatError(
            f"sync state version {data.get('version')!r} is not {STATE_VERSION}", path=path
        )
    return data


def peer_id(store: Store, wiki: Store | None = None) -> str:
    """How the state file names a Basic Memory store: its URL, or for a local
    folder its path relative to the local wiki's root (so it depends neither
    on the cwd nor on where the two folders were copied or cloned together);
    its absolute real path when the wiki is remote."""
    url = str(store.url)
    if "://" in url and not url.startswith("file://"):
        return url
    root = getattr(getattr(store, "storage", None), "root", None)
    real = os.path.realpath(str(root) if root is not None else url)
    wiki_root = getattr(getattr(wiki, "storage", None), "root", None)
    if wiki_root is None:
        return real
    return os.path.relpath(real, os.path.realpath(str(wiki_root))).replace(os.sep, "/")


def _notes_of(data: Mapping[str, Any], peer: str) -> dict[str, dict[str, Any]]:
    entry = data["peers"].get(peer)
    notes = entry.get("notes") if isinstance(entry, dict) else None
    return {k: v for k, v in (notes or {}).items() if isinstance(v, dict)}


def _write_state(
    store: Store, peer: str, before: Mapping[str, Any], after: Mapping[str, Any]
) -> None:
    """Merge this run's pairs into the state file as it is now (other peers and
    untouched pairs kept), under the store's lock or compare-and-swap."""
    changed = {k: v for k, v in after.items() if before.get(k) != v}
    removed = [k for k in before if k not in after]

    def change(current: dict[str, Any] | None) -> dict[str, Any]:
        entry = dict(current or {})
        notes = entry.get("notes")
        merged = dict(notes) if isinstance(notes, dict) else {}
        merged.update({k: _kept_base(v) for k, v in changed.items()})
        for key in removed:
            merged.pop(key, None)
        entry["notes"] = merged
        return entry

    Record(_storage(store), _beside(store, STATE_NAME), section="peers").merge({peer: change})


def _kept_base(entry: Mapping[str, Any]) -> dict[str, Any]:
    """A pair's entry with its base redacted (a file beside the notes holds no secret)."""
    kept = dict(entry)
    if isinstance(kept.get("base"), str):
        kept["base"] = redact(kept["base"]).text
    return kept


def _restored_bases(
    notes: dict[str, dict[str, Any]], pages: Mapping[str, str | None]
) -> dict[str, dict[str, Any]]:
    """The pairs with each redacted base line the page still holds put back as the
    page holds it (an unchanged secret is no change to merge)."""
    out = {}
    for key, entry in notes.items():
        base, page = entry.get("base"), pages.get(key)
        if isinstance(base, str) and isinstance(page, str) and "REDACTED:" in base:
            shown = redact(page).text
            if shown == base:
                base = page
            else:
                lines, shown_lines = split_lines(page), split_lines(shown)
                if len(lines) == len(shown_lines):  # (a key block made one line: left as is)
                    back = {s: a for s, a in zip(shown_lines, lines, strict=True) if s != a}
                    base = "".join(back.get(line, line) for line in split_lines(base))
            entry = {**entry, "base": base}
        out[key] = entry
    return out


@contextlib.contextmanager
def _locked(store: Store, timeout: float) -> Iterator[None]:
    """Hold the sync lock of an aiwiki store, waiting up to ``timeout`` seconds: a file
    lock on local disks, else a create-only lease taken over after :data:`LEASE_TTL`."""
    storage = _storage(store)
    path = _beside(store, LOCK_NAME)
    busy = f"another sync has held {LOCK_NAME} for {timeout:g} s; try again later"
    resolve = getattr(storage, "resolve", None)
    if resolve is not None:
        full = resolve(path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        exclude_in_git(os.path.dirname(full))
        try:
            with FileLock(full, timeout=timeout):
                yield
        except Timeout:
            raise ConflictError(busy, path=path) from None
        return
    deadline = time.monotonic() + timeout
    token = json.dumps({"host": socket.gethostname(), "pid": os.getpid(), "at": time.time()})
    while True:
        try:
            storage.write(path, token.encode(), create=True)
            break
        except ConflictError:
            if _take_stale_lease(storage, path, token):
                break
            if time.monotonic() >= deadline:
                raise ConflictError(busy, path=path) from None
            time.sleep(min(1.0, max(0.05, timeout / 20)))
    try:
        yield
    finally:
        with contextlib.suppress(SessionKitError):
            storage.delete(path)


def _take_stale_lease(storage: Any, path: str, token: str) -> bool:
    """Replace a lease older than :data:`LEASE_TTL` with ours (compare-and-swap)."""
    taken = False

    def fn(data: bytes | None) -> bytes | None:
        nonlocal taken
        taken = False
        try:
            held = json.loads((data or b"{}").decode())
            stale = time.time() - float(held.get("at", 0)) > LEASE_TTL
        except (ValueError, TypeError, AttributeError):
            stale = True
        if data is not None and not stale:
            return None
        taken = True
        return token.encode()

    try:
        storage.update(path, fn)
    except SessionKitError:
        return False
    return taken


def _chain_sha(notes: Sequence[tuple[str, str]]) -> str:
    """One hash for a chain's notes: their keys and texts, in order."""
    return _sha(json.dumps([[k, _sha(t)] for k, t in notes]))
