"""The ``coding_session`` notes Basic Memory's Claude Code and Codex plugins write.

The plugins write one Basic Memory note per checkpoint, of type
``coding_session``: an automatic pre-compaction checkpoint (``capture:
extractive``: a Summary, the recent thread, the repository, a ``[context]``
and a ``[next_step]``) or a deliberate one (``capture: deliberate``: Summary,
Story, Changed Files, Verification, Observations, Relations).  Frontmatter
names the work: ``repository``, ``repo_root``, ``branch``, ``git_sha``, the
agent's ``claude_session_id`` / ``codex_session_id``, ``status``
(``open|resumed|closed``), optional pull-request fields.  Each checkpoint can
link to the one before it with ``- continues [[Previous checkpoint title]]``.

The plugin's vocabulary (observation category → model field, the session id
keys, the ``continues`` relation) is data in the Basic Memory format profile,
``BASIC_MEMORY.note_types["coding_session"]`` (:mod:`sessionkit.adapters.profiles`;
:data:`CODING_SESSION_CATEGORIES` is its table).  This module has:

* :func:`coding_view`: a note's session with the plugin's categories in the
  model's fields (``[changed_file]`` → files touched, ``[blocker]`` →
  gotchas); ``[verification]`` and ``[result]`` stay typed observations;
* :func:`chains`: the checkpoints of one agent session, in order (by their
  ``continues`` links, then by ``started``);
* :func:`chain_page` / :func:`split_chain_page`: a chain as one aiwiki page
  (one ``## Checkpoints`` entry per note, holding the note's exact text in a
  fenced block, and the page's sections gathered from the notes) and back, to
  the very same bytes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from ..errors import FormatError, SessionKitError
from ..model import Checkpoint, Citation, Session, Status
from .profiles import BASIC_MEMORY

__all__ = [
    "CHAIN_KEY",
    "CODING_SESSION",
    "CODING_SESSION_CATEGORIES",
    "CONTINUES",
    "NOTE_TYPE",
    "agent_session_id",
    "chain_page",
    "chains",
    "coding_view",
    "is_chain_page",
    "outside_notes",
    "split_chain_page",
]

#: the plugins' vocabulary, in the Basic Memory format profile (one place)
NOTE_TYPE = BASIC_MEMORY.note_types["coding_session"]
#: the plugins' note type
CODING_SESSION = NOTE_TYPE.name
#: the relation a checkpoint links its predecessor with
CONTINUES = str(NOTE_TYPE.continues)
#: the plugins' observation categories and the model field each fills
#: (``None``: kept as a typed :class:`~sessionkit.model.Observation`);
#: :attr:`sessionkit.adapters.profiles.NoteType.categories` of :data:`NOTE_TYPE`
CODING_SESSION_CATEGORIES: Mapping[str, str | None] = NOTE_TYPE.categories
#: frontmatter keys naming the agent session (in order of preference)
SESSION_ID_KEYS = NOTE_TYPE.session_keys
#: the fence info string of an embedded note: ``basic-memory <json of key, eol>``
_FENCE_INFO = "basic-memory-note"
_FENCE_OPEN = re.compile(r"^(`{4,}) basic-memory-note (\{.*\})$")
#: the frontmatter key of a chain page listing its notes' keys
CHAIN_KEY = "bm_chain"


def _meta(text: str, key: str) -> dict[str, Any]:
    from .._api import read_document

    return dict(read_document(text, key).meta)


def _read(text: str, key: str) -> Session:
    from .._api import read_document
    from . import get_adapter

    return get_adapter("basic-memory").read(read_document(text, key))


def coding_view(session: Session) -> Session:
    """The session with the plugin's categories in the model's fields.

    ``[changed_file]`` observations become :attr:`~Session.files_touched`
    (a citation when the text is one, else the text verbatim), ``[blocker]``
    observations :attr:`~Session.gotchas` (after any the note already has);
    ``[verification]``, ``[result]`` and every other category stay
    observations, and ``continues`` links stay relations.  A view for reading:
    write the note itself, not the view, back to Basic Memory.
    """
    from ._aiwiki_parse import parse_citation

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
            text = obs.content if obs.context is None else f"{obs.content} ({obs.context})"
            files.append(parse_citation(text) or Citation(path=text, code=False))
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


def chains(notes: Mapping[str, str]) -> list[list[str]]:
    """The ``coding_session`` checkpoints of each agent session, in order.

    ``notes`` maps keys to texts (other notes are ignored).  Checkpoints share
    an agent session id; within one, a note that ``continues [[T]]`` comes
    after the note titled ``T``, and otherwise notes go by ``started`` (then
    key).  Returns one list of keys per agent session with two or more
    checkpoints, ordered by their first checkpoint.
    """
    groups: dict[str, list[tuple[str, str, str, str | None]]] = {}
    for key, text in notes.items():
        try:
            meta = _meta(text, key)
        except SessionKitError:
            continue
        if str(meta.get("type", "")).strip() != CODING_SESSION:
            continue
        sid = agent_session_id(meta)
        if sid is None:
            continue
        previous = None
        for link in _read(text, key).relations:
            if link.relation == CONTINUES:
                previous = link.target
        title = str(meta.get("title", "") or "")
        groups.setdefault(sid, []).append((str(meta.get("started", "")), key, title, previous))
    out: list[list[str]] = []
    for members in groups.values():
        if len(members) < 2:
            continue
        out.append(_ordered(members))
    out.sort(key=lambda keys: keys and min(m[0] for m in _members(groups, keys)))
    return out


def _members(
    groups: Mapping[str, list[tuple[str, str, str, str | None]]], keys: Sequence[str]
) -> list[tuple[str, str, str, str | None]]:
    for members in groups.values():
        if members and members[0][1] in keys:
            return members
    return []


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


def _date(value: Any) -> str | None:
    m = re.match(r"\d{4}-\d{2}-\d{2}", str(value or ""))
    return m.group(0) if m else None


def chain_page(notes: Sequence[tuple[str, str]]) -> str:
    """One aiwiki page for a chain of checkpoint notes ``(key, text)``, in order.

    The page's frontmatter comes from the chain (``session_id`` from the agent
    session id, ``status`` from the last note, ``date_start``/``date_end``
    from the first note's start and the last note's end, ``focus`` from the
    last note's title, ``last_commit`` from the last ``git_sha``;
    ``bm_chain`` lists the notes' keys).  ``## Checkpoints`` has one entry per
    note (``PreCompact`` for an extractive capture, ``Checkpoint`` otherwise,
    at its ``started``), holding the note's exact text in a fenced block; the
    other sections gather the notes' changed files, decisions and blockers,
    and the last note's next steps.  :func:`split_chain_page` gives the notes
    back byte for byte.

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
        fence = _fence_for(text)
        info = json.dumps({"key": key, "eol": text.endswith("\n")}, ensure_ascii=False)
        body = text[:-1] if text.endswith("\n") else text
        event = "PreCompact" if str(meta.get("capture", "")) == "extractive" else "Checkpoint"
        checkpoints.append(
            Checkpoint(
                event=event,
                at=str(meta.get("started") or meta.get("ended") or ""),
                body=f"{fence} {_FENCE_INFO} {info}\n{body}\n{fence}",
            )
        )
    first, last = metas[0], metas[-1]
    word = str(last.get("status", "open")).strip().lower()
    status = Status.DONE if word == "closed" else Status.ACTIVE
    files: list[Citation] = []
    decisions: list[str] = []
    gotchas: list[str] = []
    for view in views:
        files.extend(c for c in view.files_touched if c not in files)
        decisions.extend(d for d in view.decisions if d not in decisions)
        gotchas.extend(g for g in view.gotchas if g not in gotchas)
    sha = last.get("git_sha")
    session = Session(
        id=agent_session_id(last),
        status=status,
        focus=str(last.get("title") or first.get("title") or "coding session"),
        started=_date(first.get("started")) or _date(first.get("ended")),
        ended=_date(last.get("ended")) if status is Status.DONE else None,
        last_commit=str(sha) if sha else None,
        checkpoints=tuple(checkpoints),
        files_touched=tuple(files),
        decisions=tuple(decisions),
        gotchas=tuple(gotchas),
        next_steps=views[-1].next_steps,
        extra={CHAIN_KEY: [key for key, _ in notes]},
    )
    return get_adapter("aiwiki-v2").write(session).text


def is_chain_page(session: Session) -> bool:
    """Whether an aiwiki page's session is a chain page (:func:`chain_page`)."""
    return CHAIN_KEY in session.extra


def split_chain_page(text: str, path: str | None = None) -> list[tuple[str, str]]:
    """The checkpoint notes a chain page holds, ``(key, text)`` in order, exactly.

    Raises:
        FormatError: the page is not a chain page, or an entry's note block is
            missing or damaged.
    """
    from .._api import read_document
    from . import get_adapter

    session = get_adapter("aiwiki-v2").read(read_document(text, path))
    if not is_chain_page(session):
        raise FormatError(f"not a chain page (no {CHAIN_KEY} key)", path=path)
    out: list[tuple[str, str]] = []
    for cp in session.checkpoints:
        out.append(_note_of(cp, path))
    keys = [key for key, _ in out]
    if list(session.extra[CHAIN_KEY]) != keys:
        raise FormatError(f"{CHAIN_KEY} does not list the checkpoints' notes in order", path=path)
    return out


def outside_notes(text: str) -> str:
    """A chain page without its notes' texts (the fenced blocks emptied): what
    is left is derived from the notes, so two pages with the same notes and
    different ``outside_notes`` differ by an edit outside the blocks."""
    out: list[str] = []
    fence: str | None = None
    for line in text.split("\n"):
        if fence is None:
            out.append(line)
            m = _FENCE_OPEN.match(line)
            if m is not None:
                fence = m.group(1)
        elif line == fence:
            out.append(line)
            fence = None
    return "\n".join(out)


def _note_of(cp: Checkpoint, path: str | None) -> tuple[str, str]:
    lines = cp.body.split("\n")
    m = _FENCE_OPEN.match(lines[0]) if lines else None
    if m is None or len(lines) < 2 or lines[-1] != m.group(1):
        raise FormatError(f"checkpoint at {cp.at} holds no Basic Memory note block", path=path)
    try:
        info = json.loads(m.group(2))
        key, eol = str(info["key"]), bool(info["eol"])
    except (ValueError, KeyError, TypeError):
        raise FormatError(
            f"checkpoint at {cp.at}: unreadable note block header", path=path
        ) from None
    body = "\n".join(lines[1:-1])
    return key, body + "\n" if eol else body
