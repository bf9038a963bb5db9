"""The session lifecycle over a store: checkpoints, directives, wrap-up items, pruning.

The operations behind the agent hooks and ``directive consume``, ``add``, ``status``,
``prune``: functions over a :class:`~sessionkit.backends.Store` that return a report and
never print; every edit is a minimal one under the store's lock (:meth:`Store.update`).

Checkpoints and directives are written in each format as docs/hooks.md shows.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, date, datetime, timedelta
from typing import TYPE_CHECKING, Any, Literal

import attrs

from ..errors import NotFoundError, SessionKitError, ValidationError
from ..model import Checkpoint, Citation, Directive, DirectiveState, Observation, Session, Status
from ..text.grammar import DATE
from ..text.grammar import DATED_KEY as _DATED_KEY
from .checkpoint import (
    NO_ID,
    WorkItem,
    checkpoint_body,
    directive_items,
    head_commit,
    iso_now,
    key_for_id7,
    payload_ids,
    safe_short_id,
)
from .checkpoint import UNSAFE_ID as _UNSAFE_ID
from .checkpoint import find_work as find_work_item
from .checkpoint import one_line as _one_line
from .checkpoint import text_field as _text_field
from .install import HOOK_COMMANDS, HooksReport, hook_program, install_hooks, register_mcp_server

if TYPE_CHECKING:  # pragma: no cover
    from ..backends import Store

__all__ = [
    "ADD_KINDS",
    "HOOK_COMMANDS",
    "NO_ID",
    "CheckpointReport",
    "ConsumeReport",
    "DirectiveInfo",
    "DirectiveSpec",
    "HooksReport",
    "ItemReport",
    "PruneReport",
    "StatusReport",
    "WorkItem",
    "add_item",
    "checkpoint_marker",
    "consume",
    "consume_directives",
    "directives_of",
    "find_session",
    "find_work_item",
    "hook_program",
    "install_hooks",
    "iso_now",
    "prune",
    "record_checkpoint",
    "register_mcp_server",
    "safe_short_id",
    "set_status",
]

#: ``sessionkit add`` kinds -> Session attribute
ADD_KINDS: dict[str, str] = {
    "next-step": "next_steps",
    "decision": "decisions",
    "gotcha": "gotchas",
    "question": "questions",
    "file": "files_touched",
}

_BM_DIRECTIVE = "directive"
_BM_STATE_TAG = re.compile(r"\s#(unconsumed|consumed)\b")


def _is_bm(store: Store) -> bool:
    return str(getattr(store, "format", "")).startswith("basic-memory") or (
        getattr(store, "layout", "") == "basic-memory"
    )


def _bm_key_for_id(store: Store, session_id: str) -> str | None:
    lister: Callable[..., Sequence[Any]] = store.list
    notes = lister()
    matches = [n for n in notes if n.id == session_id]
    if not matches and len(_UNSAFE_ID.sub("", session_id)) >= 4:  # a short id, as on aiwiki
        matches = [n for n in notes if isinstance(n.id, str) and n.id.startswith(session_id)]
    if not matches:
        return None
    return max(matches, key=lambda n: (n.date or "", n.key)).key  # type: ignore[no-any-return]


def find_session(store: Store, session: str | None = None) -> str:
    """The key of the session ``session`` names, or of the latest session.

    ``session`` may be a key of the store, a full session id, or a short id
    of at least 4 characters: on aiwiki the filename's id part, on Basic
    Memory the start of a note's session id (the latest note wins).

    Raises:
        NotFoundError: no such session, or an empty store.
    """
    if session is None:
        key = store.latest()
        if key is None:
            raise NotFoundError(f"{store.url}: no session notes")
        return key
    keys = store.keys()
    if session in keys:
        return session
    if _is_bm(store):
        found = _bm_key_for_id(store, session)
        if found is not None:
            return found
        raise NotFoundError(f"{store.url}: no session {session!r}")
    id7 = safe_short_id(session)
    if len(_UNSAFE_ID.sub("", session)) >= 4:
        matches = (_DATED_KEY.match(key) for key in keys)
        candidates = [(m.group(1), m.string) for m in matches if m and m.group(2).startswith(id7)]
        if candidates:
            return max(candidates)[1]
    raise NotFoundError(f"{store.url}: no session {session!r}")


def _load_aiwiki_v2(text: str, key: str) -> Session:
    """An aiwiki page read for a checkpoint, a v1 page migrated to v2 first (only the two
    aiwiki adapters are asked: this runs on every compaction)."""
    from .._api import read_document
    from ..adapters.aiwiki import AIWIKI_V1, AIWIKI_V2, migrate_document

    doc = read_document(text, key)
    try:
        if AIWIKI_V1.detect(doc) > AIWIKI_V2.detect(doc):
            doc = migrate_document(doc, to="aiwiki-v2")
        return AIWIKI_V2.read(doc)
    except SessionKitError as exc:
        raise exc.with_path(key) from None


@attrs.frozen(kw_only=True)
class DirectiveSpec:
    """The directive a pre-compact checkpoint carries: its ``kind`` (``Dream``), ``scope``
    (the ``Scope:`` item, aiwiki only; empty leaves it out) and ``action``."""

    kind: str = "Dream"
    scope: str = "`aiwiki/raw/`, recently-touched typed pages"
    action: str = "invoke `support-dream` skill before resuming other work"

    @classmethod
    def from_config(cls, hooks: Any) -> DirectiveSpec:
        """From a :class:`~sessionkit.config.HookConfig` (or anything with the same attributes)."""
        return cls(
            kind=str(hooks.directive_kind),
            scope=str(hooks.directive_scope),
            action=str(hooks.directive_action),
        )


@attrs.frozen(kw_only=True)
class CheckpointReport:
    """What :func:`record_checkpoint` did: the note written (``key``), whether it was
    ``created``, the checkpoint's UTC timestamp ``at``, the ``short_id`` of the filename
    (``0000000`` for a bad payload), the ``work_item`` recorded, and whether the payload
    was a usable JSON object with a session id (``payload_ok``)."""

    key: str
    created: bool
    at: str
    short_id: str
    work_item: WorkItem | None = None
    payload_ok: bool = True


_ISO_STAMP = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z")


def checkpoint_marker(checkpoint_id: str) -> str:
    """The text a checkpoint with a stable id carries (an HTML comment in an aiwiki
    entry, a bracketed tail on a Basic Memory context line): ``checkpoint <id>``."""
    return f"checkpoint {_one_line(checkpoint_id)}"


def _aiwiki_checkpoint(
    at: str,
    work: WorkItem | None,
    trigger: str | None,
    spec: DirectiveSpec,
    marker: str | None = None,
) -> Checkpoint:
    items = directive_items(spec.scope, trigger, spec.action)
    directive = Directive(kind=_one_line(spec.kind) or "Dream", items=items)
    body = checkpoint_body(work)
    if marker is not None:  # unseen when rendered, kept byte for byte by the parser
        body += f"\n\n<!-- {marker} -->"
    return Checkpoint(event="PreCompact", at=at, body=body, directives=(directive,))


def _new_aiwiki_session(session_id: str | None, day: str) -> Session:
    return Session(id=session_id, status=Status.ACTIVE, started=day, focus="unset")


def _transcript_start(
    transcript_path: str | None, limit: int = 512 * 1024
) -> tuple[str | None, str | None]:
    """(first user request clipped, its UTC timestamp) from a Claude Code transcript; best
    effort, reading only a regular file's first ``limit`` bytes (never waiting on a FIFO)."""
    if not transcript_path or not transcript_path.endswith(".jsonl"):
        return None, None
    from .._safe_read import read_regular

    data = read_regular(transcript_path, limit)  # never a FIFO or a device
    if data is None:
        return None, None
    for raw in data.split(b"\n"):
        try:
            obj = json.loads(raw)
        except (ValueError, RecursionError):  # not JSON, or nested too deep to decode
            continue
        if not isinstance(obj, dict) or obj.get("type") != "user":
            continue
        message = obj.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        text = None
        if isinstance(content, str):
            text = content
        elif isinstance(content, list):
            for part in content:
                if isinstance(part, dict) and part.get("type") == "text":
                    text = str(part.get("text", ""))
                    break
        if text and text.strip() and not text.lstrip().startswith("<"):
            from ..redaction import redact

            # before it is clipped (a clipped secret is no longer found) into a title and name
            clipped = _one_line(redact(text).text)
            if len(clipped) > 60:
                clipped = clipped[:59].rstrip() + "…"
            when = None
            stamp = obj.get("timestamp")
            if isinstance(stamp, str):
                with contextlib.suppress(ValueError):
                    when = iso_now(datetime.fromisoformat(stamp))
            return clipped, when
    return None, None


def _bm_directive(spec: DirectiveSpec) -> Observation:
    kind = _one_line(spec.kind) or "Dream"
    action = _one_line(spec.action).replace("#", "")
    return Observation(
        category=_BM_DIRECTIVE, content=f"{kind}: {action} #unconsumed", tags=("unconsumed",)
    )


def _bm_context(
    at: str, work: WorkItem | None, trigger: str | None, marker: str | None = None
) -> str:
    what = f"active work {work.name} ({work.status}, {work.manifest})" if work else "no active work"
    line = (
        _one_line(f"PreCompact at {at}, trigger {trigger or 'unknown'}: {what}")
        .replace("(", "[")
        .replace(")", "]")
    )
    return line if marker is None else f"{line} [{marker}]"


def _new_bm_session(
    session_id: str | None, now: str, payload: Mapping[str, Any], project: str | None
) -> Session:
    """A new note in the Basic Memory plugin's shape (started: the transcript's first request)."""
    request, started = _transcript_start(_text_field(payload, "transcript_path"))
    start = started or now
    title = f"Session {start.replace('T', ' ').rstrip('Z')[:19]}"
    extra: dict[str, Any] = {"type": "session"}
    trigger = _text_field(payload, "trigger", 64)
    if trigger:
        extra["trigger"] = _one_line(trigger)
    extra["capture"] = "extractive"
    return Session(
        id=session_id,
        status=Status.ACTIVE,
        title=f"{title} — {request}" if request else title,
        started=start,
        ended=now,
        project=project,
        cwd=_text_field(payload, "cwd"),
        tags=("session", "auto-capture"),
        extra=extra,
    )


def record_checkpoint(
    store: Store,
    payload: Any,
    now: datetime | None = None,
    *,
    repo_root: str | os.PathLike[str] | None = None,
    directive: DirectiveSpec | None = None,
    project: str | None = None,
    work: WorkItem | Literal["find"] | None = "find",
    checkpoint_id: str | None = None,
) -> CheckpointReport:
    """Record a PreCompact checkpoint for the session a hook payload names.

    Args:
        store: where session notes live (aiwiki or Basic Memory layout).
        payload: the decoded PreCompact JSON (anything: a non-object, a
            missing ``session_id`` or one with characters outside
            ``[0-9A-Za-z_-]`` records under the short id ``0000000``).
        now: the checkpoint time (default: the time the store's lock is held,
            so concurrent checkpoints are written in time order).
        repo_root: where to look for the active ``.forge`` work item
            (default: the payload's ``cwd``).
        directive: the directive to attach (default: :class:`DirectiveSpec`).
        project: the Basic Memory project name for a new note's ``project``.
        work: the active work item as it was (an outbox entry's); ``"find"``
            (default) looks it up under ``repo_root``.
        checkpoint_id: a stable id written into the entry (see
            :func:`checkpoint_marker`); when the note already holds it, nothing
            is written, so delivering the same checkpoint twice records it once.
            Such an entry (one recorded late, from the outbox) is never stamped
            before the note's last checkpoint: the log stays chronological.

    The note is created lazily (aiwiki: the v2 skeleton, status ``active``,
    ``session_id`` set, focus ``unset``; Basic Memory: the plugin's session
    note) or found by its short id (aiwiki, whatever its date) or
    ``claude_session_id`` (Basic Memory).  The edit is a read-modify-write
    under the store's lock: nothing is lost, nothing is half-written.
    """
    data: Mapping[str, Any] = payload if isinstance(payload, Mapping) else {}
    session_id, id7, payload_ok, trigger = payload_ids(payload)
    spec = directive or DirectiveSpec()
    root = repo_root if repo_root is not None else _text_field(data, "cwd")
    if work == "find":
        work = find_work_item(root) if root else None
    marker = checkpoint_marker(checkpoint_id) if checkpoint_id else None
    created: list[bool] = [False]
    stamp: list[str] = [""]

    def at() -> str:
        stamp[0] = iso_now(now)
        return stamp[0]

    if _is_bm(store):
        key = _bm_key_for_id(store, session_id) if session_id else None
        fresh = _new_bm_session(session_id, iso_now(now), data, project)
        if session_id is None:  # one note a day, never taken as the latest session
            from ..backends.basic_memory import unknown_title

            fresh = attrs.evolve(fresh, title=unknown_title(iso_now(now)[:10]))
        if key is None:
            # named after the transcript's first request when there is one, so
            # racing first checkpoints of one session pick the same note
            key = store.key_for(fresh)

        def write(text: str | None) -> str:
            from .._api import dumps, loads

            when = at()
            if text is None:
                session = attrs.evolve(
                    fresh,
                    ended=when,
                    context=(_bm_context(when, work, trigger, marker),),
                    observations=(_bm_directive(spec),),
                )
                return dumps(session, format="basic-memory")
            old = loads(text, path=key)
            extra = dict(old.extra)
            if trigger:
                extra["trigger"] = trigger
            new = attrs.evolve(
                old,
                ended=when,
                extra=extra,
                context=(*old.context, _bm_context(when, work, trigger, marker)),
                observations=(*old.observations, _bm_directive(spec)),
            )
            return dumps(new)

    else:
        day = iso_now(now)[:10]
        head = head_commit(os.fspath(root)) if root else None  # last_commit, from .git
        key = key_for_id7(store.keys(), id7, day if id7 == NO_ID else None)
        if key is None:
            key = store.key_for(_new_aiwiki_session(session_id, day))

        def write(text: str | None) -> str:
            from .._api import dumps

            cp = _aiwiki_checkpoint(at(), work, trigger, spec, marker)
            if text is None:
                session = _new_aiwiki_session(session_id, day)
                if head is not None:
                    session = attrs.evolve(session, last_commit=head)
                # checkpoints need schema v2, whatever the store's default format
                return dumps(attrs.evolve(session, checkpoints=(cp,)), format="aiwiki-v2")
            old = _load_aiwiki_v2(text, key)
            last = old.checkpoints[-1].at if old.checkpoints else ""
            if marker is not None and _ISO_STAMP.fullmatch(last) and last > cp.at:
                # a checkpoint recorded late (the outbox's): never before the one above it,
                # the log stays chronological (AW016)
                stamp[0] = last
                cp = attrs.evolve(cp, at=last)
            new = attrs.evolve(old, checkpoints=(*old.checkpoints, cp))
            if old.id is None and session_id is not None and old.short_id is None:
                new = attrs.evolve(new, id=session_id)
            if head is not None and old.last_commit != head:
                new = attrs.evolve(new, last_commit=head)
            return dumps(new)

    def edit(text: str | None) -> str | None:
        if marker is not None and text is not None and marker in text:
            return None  # delivered before (an outbox entry retried)
        created[0] = text is None
        return write(text)

    store.update_text(key, edit)
    return CheckpointReport(
        key=key,
        created=created[0],
        at=stamp[0],
        short_id=id7,
        work_item=work,
        payload_ok=payload_ok,
    )


@attrs.frozen(kw_only=True)
class DirectiveInfo:
    """One directive of a session: ``index`` (1-based among every directive of the note,
    as ``directive consume --index`` takes it), ``kind``, ``action``, ``state``,
    ``consumed_at`` and (aiwiki) the timestamp of its checkpoint, ``checkpoint_at``."""

    index: int
    kind: str
    action: str | None
    state: DirectiveState
    consumed_at: str | None = None
    checkpoint_at: str | None = None


def _bm_parse_directive(obs: Observation) -> tuple[str, str, DirectiveState, str | None] | None:
    if obs.category != _BM_DIRECTIVE:
        return None
    m = _BM_STATE_TAG.search(" " + obs.content)
    state = (
        DirectiveState.CONSUMED
        if (m and m.group(1) == "consumed")
        or ("consumed" in obs.tags and "unconsumed" not in obs.tags)
        else DirectiveState.UNCONSUMED
    )
    content = _BM_STATE_TAG.sub("", " " + obs.content).strip()
    kind, sep, action = content.partition(":")
    if not sep:
        kind, action = "Dream", content
    at = None
    if obs.context and obs.context.startswith("consumed at "):
        at = obs.context[len("consumed at ") :].strip()
    return kind.strip(), action.strip(), state, at


def directives_of(session: Session) -> list[DirectiveInfo]:
    """Every directive of a session, numbered from 1, in note order."""
    found: list[tuple[str, str | None, DirectiveState, str | None, str | None]] = [
        (d.kind, d.action, d.state, d.consumed_at, cp.at)
        for cp in session.checkpoints
        for d in cp.directives
    ]
    for parsed in filter(None, map(_bm_parse_directive, session.observations)):
        kind, action, state, consumed_at = parsed
        found.append((kind, action or None, state, consumed_at, None))
    return [
        DirectiveInfo(index=i, kind=k, action=a, state=s, consumed_at=c, checkpoint_at=at)
        for i, (k, a, s, c, at) in enumerate(found, 1)
    ]


@attrs.frozen(kw_only=True)
class ConsumeReport:
    """What :func:`consume_directives` did: the note edited (``key``), the timestamp
    written (``at``), the directives flipped as they are after it (``consumed``) and how
    many stay unconsumed (``remaining``)."""

    key: str
    at: str
    consumed: tuple[DirectiveInfo, ...] = ()
    remaining: int = 0


def _select(infos: Sequence[DirectiveInfo], index: int | None, all_: bool) -> set[int]:
    open_ = [d.index for d in infos if d.state is DirectiveState.UNCONSUMED]
    if index is not None:
        if not any(d.index == index for d in infos):
            raise ValidationError(f"no directive number {index} (the note has {len(infos)})")
        return {index} if index in open_ else set()
    if all_:
        return set(open_)
    return {open_[-1]} if open_ else set()


def _consume_session(session: Session, chosen: set[int], at: str) -> Session:
    n = 0
    checkpoints = []
    for cp in session.checkpoints:
        new_ds = []
        for d in cp.directives:
            n += 1
            if n in chosen:
                status = "consumed" if d.status is not None else None
                d = attrs.evolve(d, state=DirectiveState.CONSUMED, consumed_at=at, status=status)
            new_ds.append(d)
        checkpoints.append(attrs.evolve(cp, directives=tuple(new_ds)))
    observations = []
    for obs in session.observations:
        if _bm_parse_directive(obs) is not None:
            n += 1
            if n in chosen:
                content = _BM_STATE_TAG.sub(" #consumed", " " + obs.content).strip()
                if "#consumed" not in content:
                    content += " #consumed"
                tags = (*(t for t in obs.tags if t != "unconsumed"), "consumed")
                obs = attrs.evolve(
                    obs,
                    content=content,
                    tags=tuple(dict.fromkeys(tags)),
                    context=f"consumed at {at}",
                )
        observations.append(obs)
    return attrs.evolve(session, checkpoints=tuple(checkpoints), observations=tuple(observations))


def consume(
    session: Session,
    index: int | None = None,
    *,
    all: bool = False,
    at: str | datetime | None = None,
) -> Session:
    """The session with directives marked consumed (pure: no store, no I/O).

    ``sessionkit.dumps`` of the result is the same one-line header flip per
    directive that :func:`consume_directives` writes (aiwiki and Basic Memory).

    Args:
        session: a session (read with ``sessionkit.loads`` or ``store.get``).
        index: the directive number, 1-based over every directive of the
            note, as :func:`directives_of`, ``session.unconsumed()``,
            ``sessionkit directive consume --index`` and the session-start
            hook number them.
        all: every unconsumed directive.
        at: the consumption time (a datetime, an ISO string; default now).

    Without ``index`` or ``all`` the newest unconsumed directive is consumed;
    a directive already consumed stays as it was.

    Raises:
        ValidationError: no directive of that number, or both ``index`` and ``all``.
    """
    if index is not None and all:
        raise ValidationError("give a directive number or all=True, not both")
    stamp = at if isinstance(at, str) else iso_now(at)
    chosen = _select(directives_of(session), index, all)
    return _consume_session(session, chosen, stamp) if chosen else session


def consume_directives(
    store: Store,
    key: str | None = None,
    index: int | None = None,
    all: bool = False,
    now: datetime | None = None,
) -> ConsumeReport:
    """Mark directives consumed: a one-line header flip each.

    Args:
        store: the store.
        key: the note (a key, a session id or short id); default the latest.
        index: the directive number (1-based, over every directive of the
            note, as ``session-start`` shows it).
        all: every unconsumed directive.
        now: the consumption time (default: now).

    Without ``index`` or ``all`` the newest unconsumed directive is consumed.
    aiwiki: ``**Dream directive (unconsumed):**`` becomes ``**Dream directive
    (consumed at <UTC ISO>):**`` and a ``- Status:`` line inside it is updated
    in place (never appended).

    Raises:
        NotFoundError: no such note.
        ValidationError: no directive of that number.
    """
    if index is not None and all:
        raise ValidationError("give a directive number or all, not both")
    target = find_session(store, key)
    at = iso_now(now)
    picked: list[DirectiveInfo] = []
    left: list[int] = [0]

    def edit(session: Session) -> Session:
        infos = directives_of(session)
        chosen = _select(infos, index, all)
        picked[:] = [
            attrs.evolve(d, state=DirectiveState.CONSUMED, consumed_at=at)
            for d in infos
            if d.index in chosen
        ]
        left[0] = sum(
            1 for d in infos if d.state is DirectiveState.UNCONSUMED and d.index not in chosen
        )
        return _consume_session(session, chosen, at) if chosen else session

    try:
        store.update(target, edit)
    except ValidationError as exc:  # (no such directive: say which note was meant)
        raise exc.with_path(target) from None
    return ConsumeReport(key=target, at=at, consumed=tuple(picked), remaining=left[0])


@attrs.frozen(kw_only=True)
class ItemReport:
    """What :func:`add_item` did: the note, the section field and the text added."""

    key: str
    kind: str
    text: str
    added: bool


def _citation(text: str) -> Citation:
    from ..adapters.aiwiki_page import parse_citation, parse_citation_lenient

    found = parse_citation(text) or parse_citation_lenient(text)
    if found is not None and found.note and not found.code and found.ref == found.path:
        # a bare path followed by more words: the whole text is one path with a blank
        # in it (`src/with space.py:12`), written between backticks so it reads back
        whole = parse_citation(f"`{text}`")
        if whole is not None and not whole.note and ("/" in whole.path or "." in whole.path):
            found = whole
    if found is None:
        raise ValidationError(
            f"{text!r} is not a citation: write path:line@sha7, path:start-end@sha7 or a path"
        )
    if not found.code:
        found = attrs.evolve(found, code=True)  # written as `path:line@sha7`, as the schema shows
    return found


def add_item(store: Store, kind: str, text: str, session: str | None = None) -> ItemReport:
    """Add a bullet to a session's section as a minimal edit.

    Args:
        store: the store.
        kind: ``next-step``, ``decision``, ``gotcha``, ``question`` or ``file``
            (a citation ``path:line@sha7``, ``path:start-end@sha7`` or ``path``).
        text: the bullet text (one line).
        session: a key, session id or short id; default the latest note.

    The section is created in schema order when absent; its placeholder
    ``(filled by /wrap)`` is replaced.  Adding a bullet already present does
    nothing.

    Raises:
        ValidationError: unknown kind, empty or multi-line text, or a bad citation.
        NotFoundError: no such note.
    """
    field = ADD_KINDS.get(kind)
    if field is None:
        raise ValidationError(f"unknown item kind {kind!r} (known: {', '.join(ADD_KINDS)})")
    clean = text.strip()
    if not clean or "\n" in clean or "\r" in clean:
        raise ValidationError("the item text must be one non-empty line")
    value: Any = _citation(clean) if field == "files_touched" else clean
    target = find_session(store, session)
    added = [False]

    def edit(s: Session) -> Session:
        items = getattr(s, field)
        if value in items:
            return s
        added[0] = True
        changes: dict[str, Any] = {field: (*items, value)}
        return attrs.evolve(s, **changes)

    store.update(target, edit)
    shown = value.render() if isinstance(value, Citation) else value
    return ItemReport(key=target, kind=kind, text=shown, added=added[0])


@attrs.frozen(kw_only=True)
class StatusReport:
    """What :func:`set_status` did: the note, the status before and after, ``ended``."""

    key: str
    old: Status
    new: Status
    ended: str | None


def set_status(
    store: Store,
    status: Status | str,
    session: str | None = None,
    today: date | None = None,
) -> StatusReport:
    """Set a session's status so that the note stays consistent (lints clean).

    ``done`` sets the end date when the session was not done or had none:
    aiwiki pages get ``date_end: <today>``; Basic Memory notes get ``ended``
    as a UTC timestamp and the status word ``closed``.  ``active`` removes
    the end date (``date_end`` / ``ended``; an active session with one is
    AW019).  ``abandoned`` keeps the end date as it is.
    """
    try:
        new_status = Status(str(status))
    except ValueError:
        raise ValidationError(
            f"unknown status {status!r} (known: active, done, abandoned)"
        ) from None
    target = find_session(store, session)
    bm = _is_bm(store)
    day = (today or datetime.now(UTC).date()).isoformat()
    before: list[Status] = []
    ended: list[str | None] = [None]

    def edit(s: Session) -> Session:
        before[:] = [s.status]
        new = attrs.evolve(s, status=new_status)
        if new_status is Status.DONE and (s.status is not Status.DONE or not s.ended):
            stamp = iso_now() if bm and today is None else day
            new = attrs.evolve(new, ended=stamp)
        elif new_status is Status.ACTIVE:
            new = attrs.evolve(new, ended=None)  # an active session has not ended (AW019)
        ended[0] = new.ended
        return new

    store.update(target, edit)
    return StatusReport(key=target, old=before[0], new=new_status, ended=ended[0])


@attrs.frozen(kw_only=True)
class PruneReport:
    """What :func:`prune` did (or would do): the keys marked ``abandoned`` (or to be, in a
    dry run), ``deleted``, ``would_delete`` (deletion was a dry run), whether nothing was
    written (``dry_run``), and the ``unreadable`` keys (left alone)."""

    abandoned: tuple[str, ...] = ()
    deleted: tuple[str, ...] = ()
    would_delete: tuple[str, ...] = ()
    dry_run: bool = True
    unreadable: tuple[str, ...] = ()


def _last_activity(key: str, s: Session) -> str | None:
    days = [v[:10] for v in (s.started, s.ended) if v and DATE.match(v)]
    days += [cp.at[:10] for cp in s.checkpoints if DATE.match(cp.at)]
    m = _DATED_KEY.match(key)
    if m:
        days.append(m.group(1))
    return max(days) if days else None


def prune(
    store: Store,
    abandon_after_days: int,
    delete_abandoned: bool = False,
    dry_run: bool = True,
    today: date | None = None,
    *,
    delete_dry_run: bool | None = None,
    max_bytes: int | None = None,
) -> PruneReport:
    """Mark stale ``active`` sessions ``abandoned`` and optionally delete abandoned ones.

    Args:
        store: the store.
        abandon_after_days: an active session whose last activity (start,
            end, newest checkpoint, filename date) is more than this many
            days before ``today`` becomes ``abandoned``.
        delete_abandoned: also delete sessions that are (or just became) abandoned.
        dry_run: report only, write nothing.
        today: the reference day (default: today, UTC).
        delete_dry_run: report deletions only (default: ``dry_run``); lets a
            caller mark for real while only listing what would be deleted.
        max_bytes: a note larger than this is unreadable (left alone), as
            :func:`sessionkit.loads` refuses it (the CLI passes ``limits.max_note_bytes``).

    Deletions that were only listed are in :attr:`PruneReport.would_delete`,
    never in :attr:`PruneReport.deleted`.
    """
    from .._api import loads

    if abandon_after_days < 0:
        raise ValidationError("abandon_after_days must not be negative")
    ref = today or datetime.now(UTC).date()
    cutoff = (ref - timedelta(days=abandon_after_days)).isoformat()
    no_delete = dry_run if delete_dry_run is None else delete_dry_run
    abandoned: list[str] = []
    deleted: list[str] = []
    would_delete: list[str] = []
    bad: list[str] = []
    for key, text in store.read_many(store.keys()):
        if isinstance(text, SessionKitError):
            bad.append(key)
            continue
        try:
            s = loads(text, path=key, max_bytes=max_bytes)
        except SessionKitError:
            bad.append(key)
            continue
        status = s.status
        if status is Status.ACTIVE:
            last = _last_activity(key, s)
            if last is not None and last < cutoff:
                abandoned.append(key)
                status = Status.ABANDONED
                if not dry_run:

                    def mark(cur: Session) -> Session:
                        if cur.status is not Status.ACTIVE:
                            return cur
                        return attrs.evolve(cur, status=Status.ABANDONED)

                    store.update(key, mark)
        if delete_abandoned and status is Status.ABANDONED:
            if no_delete:
                would_delete.append(key)
            else:
                store.delete(key)
                deleted.append(key)
    return PruneReport(
        abandoned=tuple(abandoned),
        deleted=tuple(deleted),
        would_delete=tuple(would_delete),
        dry_run=dry_run,
        unreadable=tuple(bad),
    )
