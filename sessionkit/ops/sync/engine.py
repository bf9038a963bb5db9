"""A sync run: read both sides, decide each pair's action, write, record the state."""

from __future__ import annotations

import contextlib
import functools
import importlib
import json
import os
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import attrs

from ..._api import read_document
from ...adapters import Adapter, detect_format, get_adapter
from ...adapters.basic_memory import SESSION_TYPES
from ...adapters.coding_session import (
    CHAIN_KEY,
    chain_page,
    chains,
    may_chain,
    page_notes,
    split_chain_page,
)
from ...adapters.crosswalk.map import AW_META
from ...backends import Store, open_store
from ...backends.basic_memory import project_name
from ...errors import (
    ConflictError,
    FormatError,
    MissingDependencyError,
    NotFoundError,
    SessionKitError,
    UnsupportedFormatError,
)
from ...model import Session
from ...redaction import DEFAULT_POLICY, collect, redact, relay
from ...text.grammar import is_fence
from ..convert import convert_text, refuse_overlap, target_key
from .merge import (
    _MISSING,
    MergeConflict,
    _differing,
    _fields_differ,
    _merge_note,
    _page_edits,
    merge_sessions,
)
from .report import SyncAction, SyncConflict, SyncReport
from .state import (
    _chain_sha,
    _locked,
    _notes_of,
    _restored_bases,
    _sha,
    _write_state,
    peer_id,
    read_state,
)

__all__ = ["fingerprint", "sync", "watch"]

AIWIKI = "aiwiki-v2"
BASIC_MEMORY = "basic-memory"


@attrs.frozen(kw_only=True)
class _Sides:
    """The two stores and how notes are converted between them."""

    aw: Store
    bm: Store
    project: str | None
    folder: str

    def aw_session(self, text: str, key: str) -> Session:
        """An aiwiki page's model (v1 pages read as v1)."""
        doc = read_document(text, key)
        return _aiwiki_adapter(doc).read(doc)

    def bm_as_aw(self, text: str, key: str, like: Session | None = None) -> tuple[str, Session]:
        """A Basic Memory note as an aiwiki page: (text, model); with ``like``, the model
        names the note as ``like`` does (:func:`_placed`)."""
        page = convert_text(text, AIWIKI, key, BASIC_MEMORY, folder=self.folder)
        session = self.aw_session(page, key)
        return page, session if like is None else _placed(session, like)

    def not_session(self, text: str, key: str) -> str | None:
        """Why a Basic Memory note is not a session note (``None``: it is one)."""
        why = _blank(text, key)
        if why is not None:
            return why
        try:
            meta = read_document(text, key).meta
        except SessionKitError:
            return None  # unreadable: reported as a failure when converted
        if str(meta.get("type", "")).strip() in SESSION_TYPES or "aiwiki_sessionkit" in meta:
            return None
        return "its frontmatter has no session type"

    def write_aw(self, session: Session, current: str, key: str) -> str:
        """The aiwiki page ``current`` edited minimally to read as ``session``.

        Raises:
            FormatError: no edit of the page reads back as ``session``.
        """
        doc = read_document(current, key)
        adapter = _aiwiki_adapter(doc)
        for base in (doc, None):  # a minimal edit, else the page written anew
            text = adapter.write(session, base=base).text
            got = self.aw_session(text, key)
            if got == session:
                return text
        differ = _differing(session, got)
        raise FormatError(
            "the merged session does not read back the same as an aiwiki page"
            + (f" ({_fields_differ(differ)})" if differ else ""),
            path=key,
        )

    def write_bm(self, page: str, aw_key: str, current: str | None, key: str) -> str:
        """:meth:`_write_bm` of ``page`` redacted first (its title and permalink are
        made from it); the redactions reported when the note changes."""
        held, found = _as_held(self.bm, page, key)
        text = self._write_bm(held, aw_key, current, key)
        if found and text != current:  # (reported as the store's write reports its own)
            relay(found)
            log = getattr(self.bm, "redactions", None)
            if isinstance(log, list):
                log.extend(found)
        return text

    def _write_bm(self, page: str, aw_key: str, current: str | None, key: str) -> str:
        """The Basic Memory note ``current`` (or a new one) holding the aiwiki ``page``: a
        minimal splice when it reads back as the page, else the full conversion."""
        full = convert_text(
            page, BASIC_MEMORY, aw_key, AIWIKI, project=self.project, folder=self.folder
        )
        if current is None:
            return full  # a whole conversion: convert checks it reads back as the page
        want = self.aw_session(page, aw_key)
        like: Session | None = None  # a note keeps its name while its session's id and date do
        with contextlib.suppress(SessionKitError):
            old = self.bm_as_aw(current, key)[1]
            like = want if (old.id, old.started) == (want.id, want.started) else None
        candidates = [full]
        adapter = get_adapter(BASIC_MEMORY)
        with contextlib.suppress(SessionKitError):
            fresh = adapter.read(read_document(full, key))
            candidates.insert(0, adapter.write(fresh, base=read_document(current, key)).text)
        differ: list[str] = []
        for text in candidates:
            try:
                got = self.bm_as_aw(text, key, like)[1]
            except SessionKitError:
                continue
            if got == want:
                return text
            differ = differ or _differing(want, got)
        raise FormatError(
            "the session does not read back the same from Basic Memory"
            + (f" ({_fields_differ(differ)})" if differ else ""),
            path=key,
        )


def _placed(session: Session, like: Session) -> Session:
    """``session`` naming its Basic Memory note (the ``key`` of its ``bm_sessionkit``
    carrier) as ``like`` does: the sync state pairs the notes, so a note's file name is no
    fact to compare or carry (a focus edited in aiwiki retitles the paired note, which
    keeps its name, and the page gets no line for it)."""

    def rest(s: Session) -> Any:  # the carrier but for the note's name
        try:
            return {**json.loads(s.extra.get(AW_META) or "{}"), "key": None}
        except (TypeError, ValueError):
            return s.extra.get(AW_META)

    theirs = like.extra.get(AW_META)
    if session.extra.get(AW_META) == theirs or rest(session) != rest(like):
        return session
    extra = {k: v for k, v in session.extra.items() if k != AW_META}
    return attrs.evolve(session, extra=extra if theirs is None else {**extra, AW_META: theirs})


def _blank(text: str, key: str) -> str | None:
    """Why a note holds no session (empty, no frontmatter), else ``None``: such a note
    is never a deletion nor an empty session to carry over."""
    if not text.strip():
        return "it is empty"
    head = text.lstrip("\ufeff").split("\n", 2)
    fenced = is_fence(head[0] + "\n")  # (with its end: a CRLF fence too)
    if fenced and len(head) > 1 and head[1].strip() not in ("", "---"):
        return None  # a frontmatter with something in it (no parse: sync parses it later)
    try:
        meta = read_document(text, key).meta
    except SessionKitError:
        return None  # unreadable: reported as a failure where it is read
    return None if meta else "it has no frontmatter"


def _as_held(store: Store, text: str, key: str | None = None) -> tuple[str, tuple[Any, ...]]:
    """``text`` redacted as ``store`` would write it (names are made from that), and
    the findings (named by ``key``'s path)."""
    policy = getattr(store, "redaction", None) or DEFAULT_POLICY
    if policy.mode != "on":
        return text, ()
    path_of = getattr(store, "path_of", None)
    path = None if key is None else str(path_of(key)) if callable(path_of) else key
    done = redact(text, allow=policy.allow, path=path)
    return done.text, done.findings


def _aiwiki_adapter(doc: Any) -> Adapter:
    """The adapter of an aiwiki page's own schema version (v2 when it says none)."""
    try:
        name = detect_format(doc)
    except SessionKitError:
        name = AIWIKI
    return get_adapter(name if name.startswith("aiwiki") else AIWIKI)


def _open(target: Any, storage_options: Mapping[str, Any]) -> Store:
    if isinstance(target, Store):
        return target
    return open_store(os.fspath(target), **dict(storage_options))


def _family(store: Store) -> str:
    return BASIC_MEMORY if store.layout == "basic-memory" else AIWIKI


def _pick_sides(
    a: Any,
    b: Any,
    options: Mapping[str, Any],
    a_options: Mapping[str, Any] | None = None,
    b_options: Mapping[str, Any] | None = None,
) -> tuple[Store, Store]:
    """Open both stores; when both look like aiwiki (an empty folder does), the path
    with no notes (``b`` when that does not tell) is opened as a Basic Memory project."""
    a_opts = {**options, **(a_options or {})}
    b_opts = {**options, **(b_options or {})}
    first, second = _open(a, a_opts), _open(b, b_opts)
    if _family(first) != AIWIKI or _family(second) != AIWIKI:
        return first, second
    for target, store, other, side in ((b, second, first, b_opts), (a, first, second, a_opts)):
        if not isinstance(target, Store) and not store.keys() and other.keys():
            bm = open_store(os.fspath(target), layout="basic-memory", **side)
            return (first, bm) if store is second else (bm, second)
    if not isinstance(b, Store) and not second.keys():
        return first, open_store(os.fspath(b), layout="basic-memory", **b_opts)
    return first, second


def _texts(
    store: Store, keys: Sequence[str], report: SyncReport, side: str
) -> dict[str, str | None]:
    """Every note's text; an unreadable one maps to ``None`` and is reported."""
    out: dict[str, str | None] = {}
    for key, text in store.read_many(keys):
        if isinstance(text, SessionKitError):
            report.actions.append(_failure(side, key, str(text.with_path(key))))
            out[key] = None
        else:
            out[key] = text
    return out


class _Moved(ConflictError):
    """A note changed between the sync's read and its write."""

    def __init__(self, key: str, what: str = "edited") -> None:
        super().__init__(f"{key}: {what} while the sync ran; run sync again", path=key)


def _put(store: Store, key: str, old: str | None, new: str) -> None:
    """Write ``new`` over ``old`` unless the note changed since (then :class:`_Moved`)."""
    if old is None:
        try:
            store.write_text(key, new, create=True)
        except ConflictError:
            raise _Moved(key, "created") from None
        return

    def fn(current: str | None) -> str | None:
        if current != old:
            raise _Moved(key)
        return new

    store.update_text(key, fn)


def _remove(store: Store, key: str, old: str) -> None:
    """Delete the note unless it changed since the sync read it (then :class:`_Moved`)."""
    delete_if = getattr(getattr(store, "storage", None), "delete_if", None)
    path_of = getattr(store, "path_of", None)
    if delete_if is not None and path_of is not None:  # checked under the folder's lock
        try:
            delete_if(path_of(key), old.encode("utf-8"))
        except NotFoundError:
            return
        except ConflictError:
            raise _Moved(key) from None
        return
    try:
        current = store.read_text(key)
    except NotFoundError:
        return
    if current != old:
        raise _Moved(key)
    store.delete(key)


@attrs.define
class _Run:
    """One sync's working state."""

    sides: _Sides
    report: SyncReport
    new_notes: dict[str, dict[str, Any]]
    aw_texts: dict[str, str | None]
    bm_texts: dict[str, str | None]
    dry_run: bool
    propagate_deletes: bool
    handled: set[str] = attrs.field(factory=set)  # aiwiki keys an earlier step dealt with

    def act(self, action: str, ak: str | None, bk: str | None, **kw: Any) -> None:
        self.report.actions.append(SyncAction(action=action, aiwiki=ak, basic_memory=bk, **kw))

    def record(self, ak: str, bk: str, page: str, note: str) -> None:
        self.new_notes[ak] = {
            "basic_memory": bk,
            "aiwiki_sha256": _sha(page),
            "basic_memory_sha256": _sha(note),
            "base": page,
        }

    def pair(self, ak: str, entry: Mapping[str, str]) -> None:
        bk = entry["basic_memory"]
        at, bt = self.aw_texts.get(ak, _MISSING), self.bm_texts.get(bk, _MISSING)
        if at is None or bt is None:
            return  # unreadable: already reported
        if at is _MISSING or bt is _MISSING:
            self.deletion(ak, bk, entry, at, bt)
            return
        ca = _sha(at) != entry.get("aiwiki_sha256")
        cb = _sha(bt) != entry.get("basic_memory_sha256")
        if not ca and not cb:
            self.report.unchanged.append(ak)
            return
        sides = self.sides
        a = sides.aw_session(at, ak)
        _, b = sides.bm_as_aw(bt, bk, a)
        if a == b:  # converged (a rerun after a crash, or an edit the model does not see)
            self.record(ak, bk, at, bt)
            self.act("pair", ak, bk, message="both sides hold the same session")
            return
        if ca and not cb:
            merged = a
        elif cb and not ca:
            merged = b
        else:
            base = sides.aw_session(entry["base"], ak)
            try:
                merged = merge_sessions(base, a, b)
            except MergeConflict as exc:
                self.act(
                    "conflict",
                    ak,
                    bk,
                    message="both sides changed the same items since the last sync; "
                    "both notes are kept as they are",
                    conflicts=exc.conflicts,
                    texts={"aiwiki": at, "basic_memory": bt},
                )
                return
        new_at = at if merged == a else sides.write_aw(merged, at, ak)
        new_bt = bt if merged == b else sides.write_bm(new_at, ak, bt, bk)
        action = _ACTIONS[new_at != at, new_bt != bt]
        if not self.dry_run:
            if new_bt != bt:
                _put(sides.bm, bk, bt, new_bt)
            if new_at != at:
                _put(sides.aw, ak, at, new_at)
        self.record(ak, bk, new_at, new_bt)
        self.act(action, ak, bk)

    def deletion(self, ak: str, bk: str, entry: Mapping[str, str], at: Any, bt: Any) -> None:
        if at is _MISSING and bt is _MISSING:
            self.new_notes.pop(ak, None)
            self.act("forget", ak, bk, message="deleted on both sides")
            return
        gone, kept = ("aiwiki", "basic-memory") if at is _MISSING else ("basic-memory", "aiwiki")
        text = bt if at is _MISSING else at
        key = bk if at is _MISSING else ak
        gone_store = self.sides.aw if at is _MISSING else self.sides.bm
        gone_key = ak if at is _MISSING else bk
        try:  # only a file that is really gone is a deletion (not one the listing missed)
            gone_store.read_text(gone_key)
            still_there = True
        except NotFoundError:
            still_there = False
        except SessionKitError:
            still_there = True
        if still_there:
            self.act(
                "failure",
                ak,
                bk,
                message=f"{gone_key} is not listed as a {gone} note but its file is still "
                "there; nothing was deleted",
            )
            return
        recorded = entry.get("basic_memory_sha256" if at is _MISSING else "aiwiki_sha256")
        if _sha(text) != recorded:
            self.act(
                "conflict",
                ak,
                bk,
                message=f"deleted in {gone}, edited in {kept} since the last sync; "
                f"the {kept} note is kept",
                texts={kept.replace("-", "_"): text},
            )
            return
        if not self.propagate_deletes:
            self.act(
                "deleted",
                ak,
                bk,
                message=f"deleted in {gone}; {kept} note {key} kept "
                "(pass --propagate-deletes to delete it)",
            )
            return
        if not self.dry_run:
            _remove(self.sides.bm if at is _MISSING else self.sides.aw, key, text)
        self.new_notes.pop(ak, None)
        self.act(f"delete-{kept}", ak, bk, message=f"deleted in {gone}")

    def record_chain(self, ak: str, notes: Sequence[tuple[str, str]], page: str) -> None:
        self.new_notes[ak] = {
            "basic_memory": notes[0][0],
            "chain": [k for k, _ in notes],
            "aiwiki_sha256": _sha(page),
            "basic_memory_sha256": _chain_sha(notes),
            "base": page,
        }

    def new_chain(self, chain: Sequence[str]) -> None:
        """Checkpoints of one agent session in no pair: one new aiwiki page."""
        notes = [(k, str(self.bm_texts[k])) for k in chain]
        page = chain_page(notes)
        ak = self.sides.aw.key_for(self.sides.aw_session(page, chain[0]))
        if ak in self.new_notes:
            self.act("failure", ak, chain[0], message=f"the chain's page {ak} is paired already")
            return
        if ak in self.aw_texts:  # a page with no sync state (the state file was lost)
            self.handled.add(ak)
            if self.aw_texts[ak] == page:
                self.record_chain(ak, notes, page)
                self.act("pair", ak, chain[0], message="both sides hold the same chain")
            else:
                self.act(
                    "conflict",
                    ak,
                    chain[0],
                    message="the chain's page exists with other contents and no sync base; "
                    "both kept",
                    texts={"aiwiki": str(self.aw_texts[ak])},
                )
            return
        if not self.dry_run:
            _put(self.sides.aw, ak, None, page)
        self.record_chain(ak, notes, page)
        self.act("create-aiwiki", ak, chain[0], message=_chain_of(len(notes)))

    def pair_chain(self, ak: str, entry: Mapping[str, Any], chain: Sequence[str]) -> None:
        """A chain page and its checkpoint notes, merged note by note against the base
        (the page is derived from the notes; a note edited on both sides differently
        is a conflict; a single pair whose session grew a chain becomes its page)."""
        at = self.aw_texts.get(ak, _MISSING)
        if at is None or any(self.bm_texts.get(k) is None for k in chain):
            return  # unreadable: reported
        if at is _MISSING:
            self.act(
                "deleted",
                ak,
                chain[0] if chain else None,
                message="the chain's page was deleted in aiwiki; its checkpoint notes are "
                "kept (delete them in Basic Memory)",
            )
            return
        bm = {k: str(self.bm_texts[k]) for k in chain}
        ca = _sha(at) != entry.get("aiwiki_sha256")
        cb = _chain_sha([(k, bm[k]) for k in chain]) != entry.get("basic_memory_sha256")
        if not ca and not cb:
            self.report.unchanged.append(ak)
            return
        if "chain" not in entry:  # a single pair whose session grew into a chain
            if ca:
                self.act(
                    "conflict",
                    ak,
                    chain[0],
                    message="the page was edited and its session's checkpoints now form a "
                    "chain; both kept",
                    texts={"aiwiki": at},
                )
                return
            base: dict[str, str] = {}
            page_notes: dict[str, str] = {}
        else:
            base_page = str(entry["base"])
            base = dict(split_chain_page(base_page, ak))
            listed = list(base.items())
            if ca:  # the page's edits, merged against the page as last synced and
                # carried into the notes they belong to
                try:
                    listed = _page_edits(at, base_page, ak)
                except MergeConflict as exc:
                    self.act(
                        "conflict",
                        ak,
                        chain[0],
                        message="the chain page's lines and a note's block were edited "
                        "differently; both kept",
                        conflicts=tuple(exc.conflicts),
                        texts={"aiwiki": at},
                    )
                    return
                except SessionKitError as exc:
                    self.act("failure", ak, chain[0], message=str(exc))
                    return
            page_notes = dict(listed)
        merged: dict[str, str] = {}
        clashes: list[SyncConflict] = []
        order = list(chain) + [k for k in page_notes if k not in bm]
        for key in order:
            b0, p, m = base.get(key), page_notes.get(key), bm.get(key)
            if m is None:
                merged[key] = str(p)  # a note added on the page
            elif p is None or p in (m, b0):
                merged[key] = m
            elif m == b0:
                merged[key] = p
            else:
                both = None if b0 is None or p is None else _merge_note(key, b0, p, m)
                if both is None:
                    clashes.append(SyncConflict(where=key, base=b0, aiwiki=p, basic_memory=m))
                else:
                    merged[key] = both
        if clashes:
            self.act(
                "conflict",
                ak,
                chain[0],
                message="checkpoint notes edited on both sides; both kept",
                conflicts=tuple(clashes),
                texts={"aiwiki": at},
            )
            return
        notes = [(k, merged[k]) for k in order]
        page = chain_page(notes)
        if not self.dry_run:
            for key, text in notes:
                if bm.get(key) != text:
                    _put(self.sides.bm, key, bm.get(key), text)
        wrote_bm = any(bm.get(k) != t for k, t in notes)
        if page != at and not self.dry_run:
            _put(self.sides.aw, ak, at, page)
        self.record_chain(ak, notes, page)
        # named after where the change came from (a carried block edit also
        # refreshes the page's derived sections)
        converged = not wrote_bm and all(page_notes.get(k) == bm.get(k) for k in chain)
        # (converged: the page may be refreshed, its blocks' fingerprints; no note changed)
        action = "pair" if converged else _ACTIONS[cb, ca]
        self.act(action, ak, chain[0], message=_chain_of(len(notes)))

    def new_chain_page(self, ak: str, at: str, claimed: dict[str, str]) -> None:
        """A chain page in no pair: its checkpoint notes created in Basic Memory."""
        notes = page_notes(at, ak)
        keys = [k for k, _ in notes]
        taken = [k for k in keys if k in claimed]
        if taken:
            self.act("failure", ak, keys[0], message=f"{taken[0]} is paired already")
            return
        have = {k: self.bm_texts.get(k, _MISSING) for k in keys}
        if any(t is None for t in have.values()):
            return  # unreadable: reported
        claimed.update((k, ak) for k in keys)
        other = [k for k, t in notes if have[k] is not _MISSING and have[k] != t]
        if other:
            self.act(
                "conflict",
                ak,
                keys[0],
                message=f"checkpoint notes {', '.join(other)} exist with other contents and "
                "no sync base; both kept",
                texts={"aiwiki": at},
            )
            return
        page = chain_page(notes)
        if not self.dry_run:
            for key, text in notes:
                if have[key] is _MISSING:
                    _put(self.sides.bm, key, None, text)
            if page != at:
                _put(self.sides.aw, ak, at, page)
        self.record_chain(ak, notes, page)
        new = [k for k in keys if have[k] is _MISSING]
        action = "create-basic-memory" if new else "pair"
        self.act(action, ak, keys[0], message=_chain_of(len(notes)))

    def new_aiwiki(self, ak: str, claimed: dict[str, str]) -> None:
        at = self.aw_texts[ak]
        if at is None or ak in self.handled:
            return
        if _is_chain_page(at, ak):
            self.new_chain_page(ak, at, claimed)
            return
        sides = self.sides
        # (named from the text as the note will hold it: a secret never names a file)
        bk = target_key(_as_held(sides.bm, at)[0], BASIC_MEMORY, ak, project=sides.project)
        if bk in claimed:
            self.act("failure", ak, bk, message=f"maps to {bk}, already paired with {claimed[bk]}")
            return
        claimed[bk] = ak
        bt = self.bm_texts.get(bk, _MISSING)
        if bt is None:
            return
        if bt is not _MISSING:
            a = sides.aw_session(at, ak)
            if a == sides.bm_as_aw(bt, bk, a)[1]:
                self.record(ak, bk, at, bt)
                self.act("pair", ak, bk, message="both sides hold the same session")
            else:
                self.act(
                    "conflict",
                    ak,
                    bk,
                    message="both sides hold this note with different contents and no "
                    "sync base; both notes are kept as they are",
                    texts={"aiwiki": at, "basic_memory": bt},
                )
            return
        note = sides.write_bm(at, ak, None, bk)
        if not self.dry_run:
            _put(sides.bm, bk, None, note)
        self.record(ak, bk, at, note)
        self.act("create-basic-memory", ak, bk)

    def new_bm(self, bk: str) -> None:
        bt = self.bm_texts[bk]
        if bt is None:
            return
        sides = self.sides
        ak = target_key(_as_held(sides.aw, bt)[0], AIWIKI, bk)
        if ak in self.aw_texts or ak in self.new_notes:
            other = self.new_notes.get(ak, {}).get("basic_memory")
            self.act(
                "failure",
                ak,
                bk,
                message=f"maps to aiwiki page {ak}, which exists"
                + (f" (paired with {other})" if other else ""),
            )
            return
        page, _ = sides.bm_as_aw(bt, bk)
        if not self.dry_run:
            _put(sides.aw, ak, None, page)
        self.record(ak, bk, page, bt)
        self.act("create-aiwiki", ak, bk)


def sync(
    a: Store | str | os.PathLike[str],
    b: Store | str | os.PathLike[str],
    *,
    dry_run: bool = False,
    propagate_deletes: bool = False,
    progress: Callable[[int, int, str], None] | None = None,
    project: str | None = None,
    lock_timeout: float = 30.0,
    storage_options: Mapping[str, Any] | None = None,
    a_options: Mapping[str, Any] | None = None,
    b_options: Mapping[str, Any] | None = None,
) -> SyncReport:
    """Sync the session notes of an aiwiki store and a Basic Memory store, both ways.

    Args:
        a: one store (a :class:`~sessionkit.Store`, or a path/URL
            :func:`~sessionkit.open_store` opens); either order works.
        b: the other store; one must hold aiwiki pages, the other Basic Memory notes.
        dry_run: work out the plan (the report's actions), write nothing at
            all (not even the lock file: a dry run only reads).
        propagate_deletes: delete a note whose counterpart was deleted (its
            file is gone; only when it was not edited since the last sync);
            otherwise deletions are only reported.  An empty or
            frontmatter-less note is never a deletion: it is a failure.
        progress: called as ``progress(done, total, key)`` after each note.
        project: Basic Memory project name for new notes (the ``project`` key
            and the permalink prefix); by default the store's (``bm://NAME``)
            or its folder name, as :func:`~sessionkit.convert` picks it.
        lock_timeout: seconds to wait for another sync of the same wiki.
        storage_options: fsspec options for stores given as URLs.
        a_options: options for ``a`` only (over ``storage_options``), as
            ``convert``'s ``--src-option``.
        b_options: options for ``b`` only (over ``storage_options``).

    Returns:
        A :class:`SyncReport`.  Run again with nothing edited, it writes nothing.

    Raises:
        UnsupportedFormatError: the stores are not one aiwiki and one Basic Memory store.
        StoreError: one store's notes folder lies inside the other's.
        ConflictError: another sync of the same wiki held the lock for ``lock_timeout``.
        FormatError: the state file is unreadable.
    """
    options = dict(storage_options or {})
    first, second = _pick_sides(a, b, options, a_options, b_options)
    if _family(first) == _family(second):
        raise UnsupportedFormatError(
            f"both stores hold {_family(first)} notes; sync needs an aiwiki store and "
            "a Basic Memory store"
        )
    aw, bm = (first, second) if _family(first) == AIWIKI else (second, first)
    refuse_overlap(aw, bm, verb="sync")  # a peer inside the wiki's notes (or the reverse)
    sides = _Sides(
        aw=aw,
        bm=bm,
        project=project if project is not None else project_name(bm),
        folder=str(getattr(bm, "folder", "sessions")),
    )
    report = SyncReport(aiwiki=str(aw.url), basic_memory=str(bm.url), dry_run=dry_run)
    # a dry run only reads: no lock file (nor its folder), no state, no note
    lock = contextlib.nullcontext() if dry_run else _locked(aw, lock_timeout)
    with lock, collect() as secrets:
        state = read_state(aw)
        peer = peer_id(bm, aw)
        notes = _notes_of(state, peer)
        aw_texts = _texts(aw, aw.keys(), report, "aiwiki")
        notes = _restored_bases(notes, aw_texts)  # (the state keeps them redacted)
        bm_texts = _texts(bm, bm.keys(), report, "basic_memory")
        for ak, text in list(aw_texts.items()):
            why = None if text is None else _blank(text, ak)
            if why is not None:  # never carried over as an empty session
                report.actions.append(_failure("aiwiki", ak, f"not a session page ({why})"))
                aw_texts[ak] = None
        claimed = {e["basic_memory"]: k for k, e in notes.items()}
        for k, e in notes.items():
            claimed.update((member, k) for member in e.get("chain", ()))
        for bk, text in list(bm_texts.items()):
            why = None if text is None else sides.not_session(text, bk)
            if why is None:
                continue
            if bk in claimed:
                # a paired note that lost what made it a session: never read as a
                # deletion (that would delete its page), reported and left alone
                report.actions.append(
                    _failure(
                        "basic_memory",
                        bk,
                        "paired with a session page but no longer a session note "
                        f"({why}); nothing was changed on either side (restore the note, "
                        "or delete the file to delete the session)",
                    )
                )
                bm_texts[bk] = None
            else:
                report.skipped.append(bk)
                del bm_texts[bk]
        run = _Run(
            sides=sides,
            report=report,
            new_notes=dict(notes),
            aw_texts=aw_texts,
            bm_texts=bm_texts,
            dry_run=dry_run,
            propagate_deletes=propagate_deletes,
        )
        readable = {k: t for k, t in bm_texts.items() if t is not None and may_chain(t)}
        found = chains(readable, minimum=1) if readable else []  # chains of checkpoints
        chain_of = {member: chain for chain in found for member in chain}
        steps: list[tuple[str, Callable[[], None]]] = []
        for k, e in sorted(notes.items()):
            chain = chain_of.get(e["basic_memory"]) or next(
                (chain_of[m] for m in e.get("chain", ()) if m in chain_of), None
            )
            if chain is not None and len(chain) == 1 and "chain" not in e:
                chain = None  # a lone checkpoint paired as an ordinary note stays one
            if chain is not None or "chain" in e:
                keys = chain if chain is not None else [m for m in e["chain"] if m in bm_texts]
                steps.append((k, functools.partial(run.pair_chain, k, e, keys)))
                claimed.update((member, k) for member in keys)
            else:
                steps.append((k, functools.partial(run.pair, k, e)))
        for chain in found:
            if not any(member in claimed for member in chain):
                steps.append((chain[0], functools.partial(run.new_chain, chain)))
                claimed.update((member, chain[0]) for member in chain)
        unpaired_aw = [k for k in aw_texts if k not in notes]
        steps += [(k, functools.partial(run.new_aiwiki, k, claimed)) for k in unpaired_aw]
        total = len(steps) + sum(1 for k in bm_texts if k not in claimed)

        def every_step() -> Iterator[tuple[str, Callable[[], None]]]:
            yield from steps
            # (claimed now also holds the notes the aiwiki pages were paired with above)
            yield from [(k, functools.partial(run.new_bm, k)) for k in bm_texts if k not in claimed]

        batches = contextlib.ExitStack()
        for store in () if dry_run else (aw, bm):
            batch = getattr(store, "batch", None)
            if batch is not None:
                batches.enter_context(batch())
        with batches:
            for done, (key, step) in enumerate(every_step(), 1):
                _guarded(run, key, step)
                if progress is not None:
                    progress(done, total, key)
        # every note write is durable (the batches are over) before the state records it
        if not dry_run and run.new_notes != notes:
            _write_state(aw, peer, notes, run.new_notes)
            report.state_written = True
    report.redacted.extend(secrets)
    return report


#: the action by (the aiwiki page written, the Basic Memory note written)
_ACTIONS = {
    (True, True): "merge",
    (True, False): "update-aiwiki",
    (False, True): "update-basic-memory",
    (False, False): "pair",
}


def _chain_of(n: int) -> str:
    return f"a chain of {n} checkpoint" + ("" if n == 1 else "s")


def _is_chain_page(text: str, key: str) -> bool:
    if CHAIN_KEY not in text:
        return False
    try:
        return CHAIN_KEY in read_document(text, key).meta
    except SessionKitError:
        return False


def _guarded(run: _Run, key: str, step: Callable[[], None]) -> None:
    """Run one note's step; a failure is reported against that note only."""
    side = "basic_memory" if key in run.bm_texts and key not in run.aw_texts else "aiwiki"
    try:
        step()
    except _Moved as exc:  # edited by someone else while the sync ran: theirs is kept
        moved = exc.path or key
        run.report.actions.append(
            SyncAction(
                action="conflict",
                aiwiki=key if side == "aiwiki" else None,
                basic_memory=moved if side == "basic_memory" or moved != key else None,
                message=f"{moved} was edited while the sync ran; that edit is kept and "
                "nothing was written over it (run sync again)",
            )
        )
    except SessionKitError as exc:
        run.report.actions.append(_failure(side, key, str(exc.with_path(exc.path or key))))


def _failure(side: str, key: str, message: str) -> SyncAction:
    aiwiki, bm = (key, None) if side == "aiwiki" else (None, key)
    return SyncAction(action="failure", aiwiki=aiwiki, basic_memory=bm, message=message)


def _local_folder(store: Store) -> str | None:
    """The notes folder on local disk, or ``None`` for a remote store."""
    storage = getattr(store, "storage", None)
    if getattr(storage, "resolve", None) is None:
        return None
    folder = str(getattr(store, "folder", "") or "")
    return str(storage.resolve(folder)) if folder else str(storage.root)  # type: ignore[union-attr]


def fingerprint(store: Store) -> tuple[tuple[str, str], ...]:
    """What a poll compares: every note's key and version (:meth:`Store.versions`)."""
    return tuple(sorted(store.versions().items()))


def watch(
    a: Store | str | os.PathLike[str],
    b: Store | str | os.PathLike[str],
    *,
    interval: float = 5.0,
    on_report: Callable[[SyncReport], None] | None = None,
    stop: Callable[[], bool] | None = None,
    max_runs: int | None = None,
    events: bool | None = None,
    **options: Any,
) -> None:
    """Sync now, then again whenever either side changes, until ``stop()`` is true.

    Local folders are watched with ``watchfiles`` when installed (the ``watch``
    extra); otherwise both sides' listings are polled every ``interval`` seconds.

    Args:
        a: one store (as for :func:`sync`).
        b: the other store.
        interval: seconds between polls (and the watcher's wake-up period).
        on_report: called with each sync's report.
        stop: asked after each sync and wake-up; ``True`` ends the loop.
        max_runs: end after this many syncs.
        events: use ``watchfiles`` (``True``), poll (``False``); by default
            ``watchfiles`` when both stores are local folders and it is installed.
        options: passed on to :func:`sync` (``propagate_deletes``, ``project``…).
    """
    opts = dict(options.get("storage_options") or {})
    first, second = _pick_sides(a, b, opts, options.get("a_options"), options.get("b_options"))
    folders = [_local_folder(first), _local_folder(second)]
    if options.get("dry_run") and not all(f and os.path.isdir(f) for f in folders):
        events = False if events is None else events  # (watching would make the folder)
    watcher: Iterator[Any] | None = None
    if events or (events is None and all(folders)):
        watcher = _watcher([str(f) for f in folders if f], interval, required=bool(events))
        if events and not all(folders):
            raise UnsupportedFormatError(
                "events=True needs two local folders; remote stores are polled"
            )
    runs = 0
    while True:
        report = sync(first, second, **options)
        seen = (fingerprint(first), fingerprint(second))  # after our own writes
        runs += 1
        if on_report is not None:
            on_report(report)
        if (max_runs is not None and runs >= max_runs) or (stop is not None and stop()):
            return
        while True:
            if watcher is not None:
                next(watcher)  # a change below either folder, or the interval passed
            else:
                time.sleep(interval)
            if stop is not None and stop():
                return
            if (fingerprint(first), fingerprint(second)) != seen:
                break


def _watcher(folders: Sequence[str], interval: float, *, required: bool) -> Iterator[Any] | None:
    """``watchfiles`` events below ``folders`` (dotfiles ignored), waking every ``interval``."""
    try:
        watchfiles: Any = importlib.import_module("watchfiles")
    except ImportError:
        if required:
            raise MissingDependencyError(
                "watching folders needs watchfiles: pip install 'sessionkit[watch]'"
            ) from None
        return None
    for folder in folders:
        os.makedirs(folder, exist_ok=True)
    changes: Iterator[Any] = iter(
        watchfiles.watch(
            *folders,
            watch_filter=lambda _change, path: not os.path.basename(path).startswith("."),
            rust_timeout=max(1, int(interval * 1000)),
            yield_on_timeout=True,
        )
    )
    return changes
