"""The ``coding_session`` notes Basic Memory's Claude Code and Codex plugins write.

One note per checkpoint (``capture: extractive`` before a compaction, else
``deliberate``), naming its agent session (``agent`` + ``session_id``, or a legacy
``claude_session_id`` / ``codex_session_id``) and linking the one before with
``- continues [[Previous checkpoint title]]``.  The vocabulary is data in
``BASIC_MEMORY.note_types["coding_session"]``.

* :func:`coding_view`: a note's session with the plugin's categories in fields;
* :func:`chains`: the checkpoints of one agent session, in order;
* :func:`chain_page` / :func:`split_chain_page`: a chain as one aiwiki page
  (each note's exact text in a fenced block) and back, to the very same bytes;
* :func:`page_notes` / :func:`carry_edits`: an edited chain page's edits carried
  to the notes they belong to as minimal edits (or refused, named).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from ..errors import FormatError, SessionKitError
from ..model import Checkpoint, Citation, Observation, Session, Status
from ..text.grammar import DATE
from .profiles import BASIC_MEMORY

__all__ = [
    "CARRIER",
    "CHAIN_KEY",
    "CHAIN_TYPES",
    "CODING_SESSION",
    "CODING_SESSION_CATEGORIES",
    "CONTINUES",
    "NOTE_TYPE",
    "agent_session_id",
    "carry_edits",
    "chain_page",
    "chains",
    "coding_view",
    "edited_blocks",
    "is_chain_page",
    "may_chain",
    "notes_log",
    "page_notes",
    "split_chain_page",
]

NOTE_TYPE = BASIC_MEMORY.note_types["coding_session"]
#: the plugins' note type
CODING_SESSION = NOTE_TYPE.name
#: the relation a checkpoint links its predecessor with
CONTINUES = str(NOTE_TYPE.continues)
#: the plugins' observation categories -> the model field each fills (``None``: none)
CODING_SESSION_CATEGORIES: Mapping[str, str | None] = NOTE_TYPE.categories
#: frontmatter keys naming the agent session (in order of preference)
SESSION_ID_KEYS = NOTE_TYPE.session_keys
#: an embedded note's fence: ``basic-memory-note <json of key, eol, sha>``
_FENCE_INFO = "basic-memory-note"
_FENCE_OPEN = re.compile(r"^(`{4,}) basic-memory-note (\{.*\})$")
#: the frontmatter key of a chain page listing its notes' keys
CHAIN_KEY = "bm_chain"


def _meta(text: str, key: str) -> dict[str, Any]:
    from ..document import read_document

    return dict(read_document(text, key).meta)


def _read(text: str, key: str | None, fmt: str = "basic-memory") -> Session:
    from ..document import read_document
    from . import get_adapter

    return get_adapter(fmt).read(read_document(text, key))


def coding_view(session: Session) -> Session:
    """The session with the plugin's categories in the model's fields.

    ``[changed_file]`` observations become :attr:`~Session.files_touched` (a
    citation when the text is one), ``[blocker]`` :attr:`~Session.gotchas`; other
    categories stay observations and ``continues`` links relations.  A view for
    reading: write the note itself back to Basic Memory, not the view.
    """
    files = list(session.files_touched)
    lists: dict[str, list[str]] = {
        "gotchas": list(session.gotchas),
        "decisions": list(session.decisions),
        "next_steps": list(session.next_steps),
        "context": list(session.context),
    }
    kept = []
    for obs in session.observations:
        field = NOTE_TYPE.field_of(obs.category or "")
        if field == "files_touched":
            files.append(_view_value(field, obs))
        elif field in lists:
            lists[field].append(obs.content)
        else:
            kept.append(obs)
    return attrs.evolve(
        session,
        files_touched=tuple(files),
        gotchas=tuple(lists["gotchas"]),
        decisions=tuple(lists["decisions"]),
        next_steps=tuple(lists["next_steps"]),
        context=tuple(lists["context"]),
        observations=tuple(kept),
        origin=None,
    )


def agent_session_id(meta: Mapping[str, Any]) -> str | None:
    """The agent session a checkpoint note belongs to, if its frontmatter says."""
    for key in SESSION_ID_KEYS:
        value = meta.get(key)
        if value not in (None, ""):
            return str(value)
    return None


#: the note types whose notes are checkpoints of an agent session
CHAIN_TYPES = (CODING_SESSION, "session")


def may_chain(text: str) -> bool:
    """Whether a note's text may be a checkpoint :func:`chains` groups (a test
    before reading it: it names an agent session somewhere)."""
    return "session_id" in text


def chains(notes: Mapping[str, str], minimum: int = 2) -> list[list[str]]:
    """The checkpoints of each agent session, in order: one list of keys per agent
    session with ``minimum`` or more checkpoints (``convert`` and ``sync`` pass 1),
    ordered by their first checkpoint.

    ``notes`` maps keys to texts (other notes are ignored).  Checkpoints are
    ``coding_session`` notes and ``session`` notes that share an agent session: the
    pair of ``agent`` and ``session_id`` (Basic Memory 0.24), a legacy
    ``claude_session_id`` / ``codex_session_id`` pairing with the agent it implies.
    A note that ``continues [[T]]`` comes after the note titled ``T``, otherwise
    notes go by ``started`` (then key).  A lone ``session`` note is a chain of one
    only when it names its ``agent``.
    """
    groups: dict[tuple[str, str], list[tuple[str, str, str, str | None]]] = {}
    alone: set[tuple[str, str]] = set()  # agent sessions a lone checkpoint makes a chain of
    for key, text in notes.items():
        try:
            meta = _meta(text, key)
        except SessionKitError:
            continue
        note_type = str(meta.get("type", "")).strip()
        if note_type not in CHAIN_TYPES:
            continue
        sid = NOTE_TYPE.agent_session(meta)  # (agent, id): ids are not shared across agents
        if sid is None:
            continue
        if note_type == CODING_SESSION or "agent" in meta:
            alone.add(sid)
        previous = None
        for link in _read(text, key).relations:
            if link.relation == CONTINUES:
                previous = link.target
        title = str(meta.get("title", "") or "")
        groups.setdefault(sid, []).append((str(meta.get("started", "")), key, title, previous))
    out = [
        (min(m[0] for m in members), _ordered(members))
        for sid, members in groups.items()
        if len(members) >= max(1 if sid in alone else 2, minimum)
    ]
    out.sort(key=lambda first: first[0])
    return [keys for _, keys in out]


def _ordered(members: list[tuple[str, str, str, str | None]]) -> list[str]:
    """Keys in ``continues`` order: each note after the one it continues, else by start."""
    by_start = sorted(members)
    titles = {title: key for _, key, title, _ in by_start if title}
    after: dict[str, list[str]] = {}
    roots: list[str] = []
    for _, key, _, previous in by_start:
        parent = titles.get(previous or "")
        if parent is not None and parent != key:
            after.setdefault(parent, []).append(key)
        else:
            roots.append(key)
    order: list[str] = []
    seen: set[str] = set()

    def walk(key: str) -> None:
        if key in seen:
            return
        seen.add(key)
        order.append(key)
        for child in after.get(key, []):
            walk(child)

    for key in roots:
        walk(key)
    for _, key, _, _ in by_start:  # a cycle of continues links: by start
        walk(key)
    return order


def _fence_for(text: str) -> str:
    longest = max((len(m) for m in re.findall(r"`{4,}", text)), default=3)
    return "`" * max(4, longest + 1)


def _info(data: Mapping[str, Any]) -> str:
    """``data`` as one line of JSON with no backtick (a backtick fence's info string holds
    none) and no NEL, U+2028 or U+2029."""
    return json.dumps(data, ensure_ascii=False).translate(_INFO_ESCAPES)


_INFO_ESCAPES = {ord(c): f"\\u{ord(c):04x}" for c in "`\x85\u2028\u2029"}


def _date(value: Any) -> str | None:
    m = DATE.match(str(value or ""))
    return m.group(0) if m else None


#: the heading a checkpoint note carries the page's own checkpoint entries under
#: (entries a person or aiwiki's hooks add to a chain page after the note's entry)
CARRIER = "aiwiki: Checkpoints"
_CARRIER_MARK = f"\n\n## {CARRIER}\n\n"
#: a page just good enough for the aiwiki reader to read a checkpoint log from
_ENTRY_PAGE = (
    "---\nschema_id: session\nschema_version: 2\nstatus: active\n"
    "date_start: 2026-01-01\nsession_id: x\nfocus: x\n---\n\n## Checkpoints\n\n"
)


def _fingerprint(head: str) -> str:
    """A short digest of a note's block, to tell an edit of the block on the page."""
    import hashlib

    return hashlib.sha256(head.encode("utf-8")).hexdigest()[:16]


def _entries_text(entries: Sequence[Checkpoint]) -> str:
    from ._aiwiki_write import checkpoints_lines

    return "\n".join(checkpoints_lines(Session(checkpoints=tuple(entries))))


def _carried(text: str, key: str) -> tuple[str, bool, tuple[Checkpoint, ...]]:
    """A note as ``(head, eol, entries)``: the text less a closing ``## aiwiki:
    Checkpoints`` section that is exactly its entries rendered, and those entries."""
    eol = text.endswith("\n")
    body = text[:-1] if eol else text
    at = body.rfind(_CARRIER_MARK)
    if at < 0:
        return body, eol, ()
    tail = body[at + len(_CARRIER_MARK) :]
    try:
        page = _read(_ENTRY_PAGE + tail + "\n", key, "aiwiki-v2")
    except SessionKitError:
        return body, eol, ()
    entries = page.checkpoints
    if not entries or page.blocks.get("checkpoints") or _entries_text(entries) != tail:
        return body, eol, ()
    return body[:at], eol, entries


def _with_entries(head: str, eol: bool, entries: Sequence[Checkpoint]) -> str:
    """The inverse of :func:`_carried`."""
    text = head + (_CARRIER_MARK + _entries_text(entries) if entries else "")
    return text + "\n" if eol else text


def chain_page(notes: Sequence[tuple[str, str]]) -> str:
    """One aiwiki page for a chain of checkpoint notes ``(key, text)``, in order.

    Frontmatter from the chain (``session_id``; ``status`` from the last note;
    ``date_start``/``date_end``; ``focus`` from the last title; ``last_commit``
    from the last ``git_sha``; ``bm_chain`` lists the keys).  ``## Checkpoints``
    has one entry per note (``PreCompact`` for an extractive capture, else
    ``Checkpoint``) holding the note's exact text in a fenced block, then the page
    entries the note carries (its closing ``## aiwiki: Checkpoints`` section); the
    other sections gather the notes' files, decisions and blockers and the last
    note's next steps.  :func:`split_chain_page` gives the notes back byte for byte.

    Raises:
        FormatError: no notes, or a note without usable frontmatter.
    """
    from . import get_adapter

    if not notes:
        raise FormatError("a chain needs at least one checkpoint note")
    views: list[Session] = []
    metas: list[dict[str, Any]] = []
    checkpoints: list[Checkpoint] = []
    for key, text in notes:
        meta = _meta(text, key)
        metas.append(meta)
        views.append(coding_view(_read(text, key)))
        head, eol, entries = _carried(text, key)
        fence = _fence_for(head)
        info = _info({"key": key, "eol": eol, "sha": _fingerprint(head)})
        event = "PreCompact" if str(meta.get("capture", "")) == "extractive" else "Checkpoint"
        checkpoints.append(
            Checkpoint(
                event=event,
                at=str(meta.get("started") or meta.get("ended") or ""),
                body=f"{fence} {_FENCE_INFO} {info}\n{head}\n{fence}",
            )
        )
        checkpoints.extend(entries)
    first, last = metas[0], metas[-1]
    word = str(last.get("status", "open")).strip().lower()
    status = Status.DONE if word == "closed" else Status.ACTIVE

    def gathered(field: str) -> tuple[Any, ...]:
        return tuple(dict.fromkeys(item for view in views for item in getattr(view, field)))

    sha = last.get("git_sha")
    session = Session(
        id=agent_session_id(last),
        status=status,
        focus=str(last.get("title") or first.get("title") or "coding session"),
        started=_date(first.get("started")) or _date(first.get("ended")),
        ended=_date(last.get("ended")) if status is Status.DONE else None,
        last_commit=str(sha) if sha else None,
        checkpoints=tuple(checkpoints),
        files_touched=gathered("files_touched"),
        decisions=gathered("decisions"),
        gotchas=gathered("gotchas"),
        next_steps=views[-1].next_steps,
        extra={CHAIN_KEY: [key for key, _ in notes]},
    )
    return get_adapter("aiwiki-v2").write(session).text


def _page(text: str, path: str | None) -> Session:
    return _read(text, path, "aiwiki-v2")


def is_chain_page(session: Session) -> bool:
    """Whether an aiwiki page's session is a chain page (:func:`chain_page`)."""
    return CHAIN_KEY in session.extra


def split_chain_page(text: str, path: str | None = None) -> list[tuple[str, str]]:
    """The checkpoint notes a chain page holds, ``(key, text)`` in order, exactly.

    Each note is its entry's block, with the entries after it (up to the next
    note's) in its closing ``## aiwiki: Checkpoints`` section.

    Raises:
        FormatError: not a chain page, a damaged note block, an entry before the
            first note's, or a directive in a note's own entry.
    """
    session = _page(text, path)
    if not is_chain_page(session):
        raise FormatError(f"not a chain page (no {CHAIN_KEY} key)", path=path)
    held: list[tuple[str, str, bool, list[Checkpoint]]] = []
    for cp in session.checkpoints:
        if not _is_block(cp):
            if not held:
                raise FormatError(
                    f"checkpoint {cp.event} at {cp.at} comes before the first note's entry: "
                    "no checkpoint note can carry it (move it after one)",
                    path=path,
                )
            held[-1][3].append(cp)
            continue
        if cp.directives:
            raise FormatError(
                f"checkpoint at {cp.at} holds its note and a directive: a directive in a "
                "note's own entry cannot be carried (add it as an entry of its own)",
                path=path,
            )
        key, head, eol, _ = _note_of(cp, path)
        held.append((key, head, eol, []))
    out = [(key, _with_entries(head, eol, entries)) for key, head, eol, entries in held]
    keys = [key for key, _ in out]
    listed = session.extra[CHAIN_KEY]  # (edited by hand it may be anything)
    if not isinstance(listed, list | tuple) or list(listed) != keys:
        raise FormatError(f"{CHAIN_KEY} does not list the checkpoints' notes in order", path=path)
    return out


def _is_block(cp: Checkpoint) -> bool:
    return _FENCE_OPEN.match(cp.body.split("\n", 1)[0]) is not None


def _note_of(cp: Checkpoint, path: str | None) -> tuple[str, str, bool, str | None]:
    """A note block's key, text (its head: no closing line break, no carried
    entries), whether the note ends in a line break, and its fingerprint."""
    lines = cp.body.split("\n")
    m = _FENCE_OPEN.match(lines[0]) if lines else None
    if m is None or len(lines) < 2 or lines[-1] != m.group(1):
        raise FormatError(
            f"checkpoint at {cp.at}: its note block is damaged (text after the block's "
            "closing fence, or no closing fence)",
            path=path,
        )
    try:
        info = json.loads(m.group(2))
        key, eol = str(info["key"]), bool(info["eol"])
        sha = info.get("sha")
    except (ValueError, KeyError, TypeError):
        raise FormatError(
            f"checkpoint at {cp.at}: unreadable note block header", path=path
        ) from None
    return key, "\n".join(lines[1:-1]), eol, sha if isinstance(sha, str) else None


# -- carrying a chain page's edits back to its notes -----------------------------------

#: the page's list fields gathered from every note, and the one from the last note
_GATHERED = ("files_touched", "decisions", "gotchas")
#: the category a new item of a field is written as when no neighbour says otherwise
#: (``None``: the Basic Memory reader's own field, ``[decision]``, ``[next_step]``)
_NEW_CATEGORY: dict[str, str | None] = {
    "files_touched": "changed_file",
    "gotchas": "blocker",
    "decisions": None,
    "next_steps": None,
}
#: what each field of a chain page is derived from, for the report of an edit not placed
_DERIVED = {
    "id": "the notes' agent session id",
    "focus": "the last note's title",
    "started": "the first note's start",
    "checkpoints": "the notes' entries",
    "questions": "nothing (a chain page has no open questions)",
    "sections": "nothing (a chain page has no other sections)",
    "blocks": "the notes' items",
}


@attrs.frozen
class _Slot:
    """An item of a note's list field: its value, the observation it comes from (``None``:
    the reader's own field) and its ``anchor`` among the observations."""

    value: Any
    obs: Observation | None = None
    anchor: tuple[str, int] = ("end", 0)


def _view_value(field: str, obs: Observation) -> Any:
    """An observation as :func:`coding_view` holds it in ``field``."""
    from ._aiwiki_parse import citation_from_text

    if field != "files_touched":
        return obs.content
    return citation_from_text(
        obs.content if obs.context is None else f"{obs.content} ({obs.context})"
    )


def _slots(raw: Session, field: str) -> list[_Slot]:
    """The items ``coding_view(raw)`` shows in ``field``, in its order."""
    out = [_Slot(value) for value in getattr(raw, field)]
    for j, obs in enumerate(raw.observations):
        if NOTE_TYPE.field_of(obs.category or "") == field:
            out.append(_Slot(_view_value(field, obs), obs, ("at", j)))
    return out


def _obs_text(value: Any) -> str:
    return value.render() if isinstance(value, Citation) else str(value)


def _replaced(slot: _Slot, value: Any) -> _Slot:
    if slot.obs is None:
        return _Slot(value)
    context = None if isinstance(value, Citation) else slot.obs.context
    obs = attrs.evolve(slot.obs, content=_obs_text(value), tags=(), context=context)
    return _Slot(value, obs, slot.anchor)


def _inserted(field: str, slots: Sequence[_Slot], at: int, values: Sequence[Any]) -> list[_Slot]:
    """Slots for new ``values`` at position ``at`` of a note's ``slots``: of the kind of
    the item before them (else after them, else the field's new category)."""
    before = slots[at - 1] if at > 0 else None
    after = slots[at] if at < len(slots) else None
    near = before or after
    if near is None:
        category = _NEW_CATEGORY[field]
    else:
        category = near.obs.category if near.obs is not None else None
    if category is None:
        return [_Slot(v) for v in values]
    obs_before = [s for s in slots[:at] if s.obs is not None]
    obs_after = [s for s in slots[at:] if s.obs is not None]
    if obs_before:
        anchor = ("after", obs_before[-1].anchor[1])
    elif obs_after:
        anchor = ("before", obs_after[0].anchor[1])
    else:
        anchor = ("end", 0)
    return [_Slot(v, Observation(category=category, content=_obs_text(v)), anchor) for v in values]


def _with_slots(raw: Session, field: str, slots: Sequence[_Slot]) -> Session:
    """``raw`` with ``field``'s items (its own and its observations) as ``slots`` say."""
    own = tuple(s.value for s in slots if s.obs is None)
    placed: dict[tuple[str, int], list[Observation]] = {}
    for s in slots:
        if s.obs is not None:
            placed.setdefault(s.anchor, []).append(s.obs)
    observations: list[Observation] = []
    for j, obs in enumerate(raw.observations):
        observations.extend(placed.get(("before", j), ()))
        if NOTE_TYPE.field_of(obs.category or "") == field:
            observations.extend(placed.get(("at", j), ()))
        else:
            observations.append(obs)
        observations.extend(placed.get(("after", j), ()))
    observations.extend(placed.get(("end", 0), ()))
    changes: dict[str, Any] = {field: own, "observations": tuple(observations)}
    return attrs.evolve(raw, **changes)


def _edit_list(raws: list[Session], field: str, want: Sequence[Any]) -> None:
    """Edit ``raws`` so the items they gather in ``field`` become ``want`` (changed or
    removed in every note; a new one after the item before it, else in the last note)."""
    import difflib

    slots = [_slots(raw, field) for raw in raws]
    gathered: list[Any] = []
    for note in slots:
        gathered.extend(s.value for s in note if s.value not in gathered)
    if gathered == list(want):
        return

    def replace(old: Any, new: Any) -> None:
        for i, note in enumerate(slots):
            slots[i] = [_replaced(s, new) if s.value == old else s for s in note]

    def delete(old: Any) -> None:
        for i, note in enumerate(slots):
            slots[i] = [s for s in note if s.value != old]

    def insert(prev: Any, nxt: Any, values: Sequence[Any]) -> None:
        if nxt is None or prev is not None:
            i = len(slots) - 1
            at = len(slots[i])
            if nxt is not None:
                i = next(n for n, note in enumerate(slots) if any(s.value == prev for s in note))
                at = next(k for k, s in enumerate(slots[i]) if s.value == prev) + 1
        else:
            i = next(n for n, note in enumerate(slots) if any(s.value == nxt for s in note))
            at = next(k for k, s in enumerate(slots[i]) if s.value == nxt)
        slots[i][at:at] = _inserted(field, slots[i], at, values)

    want = list(want)
    matcher = difflib.SequenceMatcher(a=gathered, b=want, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        # within a changed run, an old item and a new one alike enough are one item
        # edited (changed in place); the others are removed or inserted around them
        pairs: list[tuple[int, int]] = []
        k = j1
        for x in range(i1, i2):
            best = max(range(k, j2), key=lambda y: _alike(gathered[x], want[y]), default=None)
            if best is not None and _alike(gathered[x], want[best]) >= 0.5:
                pairs.append((x, best))
                k = best + 1
        prev = gathered[i1 - 1] if i1 > 0 else None
        x0, y0 = i1, j1
        for x, y in [*pairs, (i2, j2)]:
            for old in gathered[x0:x]:
                delete(old)
            if y > y0:
                nxt = gathered[x] if x < len(gathered) else None
                insert(prev, nxt, want[y0:y])
                prev = want[y - 1]
            if x < i2:
                replace(gathered[x], want[y])
                prev = want[y]
            x0, y0 = x + 1, y + 1
    for i, raw in enumerate(raws):
        raws[i] = _with_slots(raw, field, slots[i])


def _extra_problems(was: Mapping[str, Any], now: Mapping[str, Any]) -> list[str]:
    out = []
    for key in [*was, *(k for k in now if k not in was)]:
        old, new = was.get(key), now.get(key)
        if old != new or (key in was) != (key in now):
            out.append(
                f"frontmatter {key}: {_show(old) if key in was else '(none)'} -> "
                f"{_show(new) if key in now else '(removed)'} (a chain page's frontmatter "
                "is made from its notes: edit the notes' keys in their blocks)"
            )
    return out


def _alike(old: Any, new: Any) -> float:
    """How alike two items' texts are (1: one holds the other, as a path its citation)."""
    import difflib

    a, b = _obs_text(old), _obs_text(new)
    if a in b or b in a:
        return 1.0
    return difflib.SequenceMatcher(a=a, b=b, autojunk=False).ratio()


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def edited_blocks(text: str, path: str | None = None) -> list[str]:
    """The keys of a chain page's notes whose block was edited on the page (or
    whose block does not say: a page written before blocks were fingerprinted)."""
    out: list[str] = []
    for cp in _page(text, path).checkpoints:
        if _is_block(cp):
            key, head, _, sha = _note_of(cp, path)
            if sha != _fingerprint(head):
                out.append(key)
    return out


def notes_log(page: Session, made: Session, path: str | None = None) -> Session:
    """``page`` (an edited chain page's session) with the checkpoint log of ``made``
    (the page its notes make); only the entry headings, made from the notes'
    frontmatter, are compared.

    Raises:
        FormatError: a note's entry heading edited (its event or time).
    """
    mine = [(cp.event, cp.at) for cp in page.checkpoints]
    theirs = [(cp.event, cp.at) for cp in made.checkpoints]
    if mine != theirs:
        pairs = zip(theirs, mine, strict=False)
        changed = [f"{a[0]} at {a[1]} -> {b[0]} at {b[1]}" for a, b in pairs if a != b]
        raise FormatError(
            "a note's checkpoint heading was edited on the chain page (it is made from the "
            "note's capture and started keys; edit those in the note's block): "
            + "; ".join(changed or ["entries added or removed"]),
            path=path,
        )
    return attrs.evolve(page, checkpoints=made.checkpoints, origin=None)


def page_notes(text: str, path: str | None = None) -> list[tuple[str, str]]:
    """The checkpoint notes a chain page stands for, with the page's edits carried in.

    An unedited page gives its notes back exactly (:func:`split_chain_page`); an
    edited page's edits go to the notes they belong to (:func:`carry_edits`).  A page
    whose note blocks and lists were both edited is refused (``sync`` merges those).

    Raises:
        FormatError: an edit no note can carry (each is named), or both a block
            and the lists edited; nothing is returned, so nothing is written.
    """
    notes = split_chain_page(text, path)
    derived = chain_page(notes)
    if derived == text:
        return notes
    made = _page(derived, path)
    now = notes_log(_page(text, path), made, path)
    if made == now:
        return notes  # the same page in other words: the notes say it already
    edited = edited_blocks(text, path)
    if edited:
        raise FormatError(
            f"the block of {', '.join(edited)} (edited, or from a page made before blocks "
            "carried a fingerprint) and the page's own lines were both edited; "
            "convert cannot tell which is newer (nothing written): edit one of them, or "
            "run sessionkit sync, which keeps the page as last synced and merges both",
            path=path,
        )
    return carry_edits(notes, now, path)


def carry_edits(
    notes: Sequence[tuple[str, str]], page: Session, path: str | None = None
) -> list[tuple[str, str]]:
    """The checkpoint notes ``(key, text)`` edited so their chain page reads as ``page``.

    Each edit is a minimal edit of the note it belongs to: an item changed or
    removed in ``## Files touched``, ``## Decisions made`` or ``## Gotchas
    surfaced`` is changed or removed in each note that has it; a new one goes into
    the note of the item before it (at the end: the last note); ``## Next steps``,
    ``status``, ``date_end`` and ``last_commit`` are the last note's.  The edited
    notes are checked to make a page that reads as ``page``.

    Raises:
        FormatError: an edit no note can carry (the focus, a section of its
            own, an item twice, …): each is named; nothing is returned.
    """
    from ..document import read_document
    from . import get_adapter

    now = attrs.evolve(page, origin=None)
    was = _page(chain_page(notes), path)
    problems: list[str] = []
    skip = ("origin", *_GATHERED, "next_steps", "status", "status_word", "last_commit", "ended")
    for attr in attrs.fields(Session):
        name = attr.name
        if name in skip:
            continue
        if name == "extra":
            problems.extend(_extra_problems(was.extra, now.extra))
        elif getattr(was, name) != getattr(now, name):
            problems.append(
                f"{name}: {_show(getattr(was, name))} -> {_show(getattr(now, name))} "
                f"(a chain page's {name} is {_DERIVED.get(name, 'derived from its notes')})"
            )
    if now.status is Status.ABANDONED or now.status_word is not None:
        problems.append(f"status: {now.status_word or now.status} has no checkpoint-note word")
    if problems:
        raise FormatError(
            "these edits of the chain page cannot be carried to its checkpoint notes "
            "(nothing written): " + "; ".join(problems),
            path=path,
        )
    bm = get_adapter("basic-memory")
    docs = [read_document(note, key) for key, note in notes]
    raws = [bm.read(doc) for doc in docs]
    originals = list(raws)
    for field in _GATHERED:
        _edit_list(raws, field, getattr(now, field))
    last = raws[-1:]
    _edit_list(last, "next_steps", now.next_steps)
    raw = last[0]
    if now.status != was.status:
        raw = attrs.evolve(raw, status=now.status, status_word=None)
    if now.ended != was.ended and now.ended is not None:
        raw = attrs.evolve(raw, ended=now.ended)
    if now.last_commit != was.last_commit:
        extra = dict(raw.extra)
        if now.last_commit is None:
            extra.pop("git_sha", None)
        else:
            extra["git_sha"] = now.last_commit
        raw = attrs.evolve(raw, extra=extra)
    raws[-1] = raw
    out: list[tuple[str, str]] = []
    for (key, note), doc, old, edited in zip(notes, docs, originals, raws, strict=True):
        out.append((key, note if edited == old else bm.write(edited, doc).text))
    # the notes' blocks hold the edited notes now; the rest must read as the edited page
    again = _page(chain_page(out), path)
    differ = [
        f.name
        for f in attrs.fields(Session)
        if f.name not in ("origin", "checkpoints")
        and getattr(again, f.name) != getattr(now, f.name)
    ]
    if differ:
        raise FormatError(
            "these edits of the chain page cannot be carried to its checkpoint notes as "
            f"written (nothing written): {', '.join(differ)} (an item twice, or out of "
            "the notes' order)",
            path=path,
        )
    return out
