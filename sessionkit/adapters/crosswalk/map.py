"""How the fields of an aiwiki session page and a Basic Memory session note map onto each other.

The full table is in ``docs/converting.md``.  What both formats hold maps onto its counterpart
(``session_id`` ↔ ``claude_session_id``, decisions ↔ ``[decision]`` observations, …); what only
one holds travels in a **namespaced carrier** in the other and comes back when converting back
(frontmatter keys ``bm_*`` and sections ``## bm: Observations`` / ``## bm: Relations`` in aiwiki
pages; keys ``aiwiki_*`` and sections ``## aiwiki: Checkpoints`` / ``## aiwiki: Files touched``
in Basic Memory notes).  A value invented for the target to be valid (Basic Memory's
``project``, aiwiki's ``focus``…) is recorded in the ``aiwiki_sessionkit`` / ``bm_sessionkit``
JSON carrier and dropped on the way back; that carrier also holds the whole session, or the
source's exact text, when the mapping alone would lose something (:mod:`.check` decides).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from ...document import Document, parse
from ...errors import FormatError, SessionKitError, UnsupportedFormatError, ValidationError
from ...model import (
    Block,
    ExtraSection,
    Link,
    Observation,
    Session,
    Status,
)
from ...text.grammar import DATE, split_lines
from ..profiles import AIWIKI as AW_PROFILE
from ..profiles import BASIC_MEMORY as BM_PROFILE
from ..profiles import aiwiki_filename
from .layout import (
    _LIST_CATEGORIES,
    BM_META,
    _item_plans,
    _lists_as_observations,
    _placed,
    _Reuse,
    observation_text,
)

__all__ = [
    "AIWIKI",
    "BASIC_MEMORY",
    "Converted",
    "derived_title",
    "detect_family",
    "note_family",
    "observation_text",
    "pivot_from_aiwiki",
    "pivot_from_bm",
    "today_utc",
]

#: the aiwiki format conversions write
AIWIKI = "aiwiki-v2"
#: the Basic Memory format
BASIC_MEMORY = "basic-memory"

#: carrier prefixes: aiwiki-only things in Basic Memory notes, and the reverse
BM_SIDE = AW_PROFILE.key_prefix
AW_SIDE = BM_PROFILE.key_prefix
#: the JSON carrier of restore information
AW_META = AW_SIDE + "sessionkit"
#: section-title prefixes for carried and escaped sections
BM_SECTION = AW_PROFILE.section_prefix
AW_SECTION = BM_PROFILE.section_prefix
#: Basic Memory sections that carry aiwiki checkpoints and citations
BM_CHECKPOINTS = BM_SECTION + "Checkpoints"
BM_FILES = BM_SECTION + "Files touched"
#: aiwiki sections that carry Basic Memory observations and relations
AW_OBSERVATIONS = AW_SECTION + "Observations"
AW_RELATIONS = AW_SECTION + "Relations"

#: Basic Memory sections that hold facts
_BM_KNOWN = ("Observations", "Relations")
#: canonical Basic Memory status word for a model status (abandoned travels as
#: ``aiwiki_status``: the Session schema's words are open, resumed and closed)
_BM_WORD: dict[Status, str] = {
    s: w for s, w in BM_PROFILE.status_write.items() if s is not Status.ABANDONED
}
#: Basic Memory sections carrying an aiwiki list Basic Memory cannot hold as observations
_BM_LIST_CARRIERS = {BM_SECTION + title: name for name, (_, title) in _LIST_CATEGORIES.items()}
_ABSENT: Any = object()
_TITLE_FOCUS_MAX = 80


# ----------------------------------------------------------------------------- pivot


@attrs.frozen(kw_only=True)
class _Pivot:
    """A session in format-neutral form: the model plus what the model cannot say."""

    session: Session
    aw_extra: Mapping[str, Any] = attrs.field(factory=dict)
    bm_extra: Mapping[str, Any] = attrs.field(factory=dict)
    bm_status: Any = _ABSENT
    #: an aiwiki page done without a ``date_end`` (a finished Basic Memory note without
    #: ``ended`` gets one, its start date, so that the page lints clean)
    open_end: bool = False
    #: the note's file name in aiwiki / Basic Memory when it is not the derived one
    aw_key: str | None = None
    bm_key: str | None = None
    #: the source note's exact text, key and family, when the model cannot
    #: reproduce it (it then comes back verbatim)
    original: str | None = None
    original_key: str | None = None
    home: str | None = None
    #: how the source Basic Memory note's bytes differ from the note written anew from the
    #: model, when only in layout (:func:`_bm_patch`): its own lines, no copy of the note
    #: (not a fact: :meth:`key` leaves it out, and a stale one is not applied)
    bm_patch: Any = attrs.field(default=None, eq=False)
    #: read from a whole-session carrier (authoritative; no self-check needed)
    from_carrier: bool = attrs.field(default=False, eq=False)
    #: the source adapter's own reading of the note (for the self-check)
    read: Session | None = attrs.field(default=None, eq=False)
    #: where the parts of a source aiwiki page are (for the self-check)
    layout: Any = attrs.field(default=None, eq=False)
    #: a source Basic Memory note written anew (:func:`_natural`, with its own project), as
    #: :func:`pivot_from_bm` made it (for the self-check)
    rendered: Pieces | None = attrs.field(default=None, eq=False)

    def key(self) -> bytes:
        """A digest of a canonical JSON text of every fact, for equality checks (the
        session made JSON a batch of items at a time, never held whole)."""
        rest = json.dumps(
            {
                "aw_extra": list(self.aw_extra.items()),
                "bm_extra": list(self.bm_extra.items()),
                "bm_status": "<absent>" if self.bm_status is _ABSENT else self.bm_status,
                "original": [self.original, self.original_key, self.home],
                "keys": [self.aw_key, self.bm_key],
                "open_end": self.open_end,
            },
            ensure_ascii=False,
            default=str,
        )
        return _json_digest(self.session, rest)

    def dump(self) -> str:
        """The whole pivot as one JSON text (the fallback carrier)."""
        from ...serialize import to_dict

        data: dict[str, Any] = {
            "session": to_dict(self.session),
            "aw_extra": dict(self.aw_extra),
            "bm_extra": dict(self.bm_extra),
        }
        if self.bm_status is not _ABSENT:
            data["bm_status"] = self.bm_status
        more = (("aw_key", self.aw_key), ("bm_key", self.bm_key), ("bm_patch", self.bm_patch))
        data.update((k, v) for k, v in more if v is not None)
        if self.open_end:
            data["open_end"] = 1
        if self.original is not None:
            data = {"text": self.original, "key": self.original_key, "home": self.home}
        return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def _load_pivot(data: Mapping[str, Any], path: str | None, folder: str = "sessions") -> _Pivot:
    from ...serialize import from_dict

    if "text" in data:
        text, key, home = data.get("text"), data.get("key"), data.get("home")
        if not isinstance(text, str) or home not in ("aiwiki", BASIC_MEMORY):
            raise FormatError("unusable conversion carrier: bad original text", path=path, line=1)
        inner = _read_pivot(parse(text, key if isinstance(key, str) else None), home, folder)
        return attrs.evolve(
            inner,
            original=text,
            original_key=key if isinstance(key, str) else None,
            home=home,
            from_carrier=True,
        )
    try:
        session = from_dict(data["session"])
        return _Pivot(
            session=session,
            aw_extra=dict(data.get("aw_extra") or {}),
            bm_extra=dict(data.get("bm_extra") or {}),
            bm_status=data.get("bm_status", _ABSENT),
            aw_key=data.get("aw_key"),
            bm_key=data.get("bm_key"),
            bm_patch=data.get("bm_patch"),
            open_end=bool(data.get("open_end")),
            from_carrier=True,
        )
    except (KeyError, TypeError, AttributeError, ValidationError) as exc:
        raise FormatError(f"unusable conversion carrier: {exc}", path=path, line=1) from None


def _meta_json(value: Any, key: str, path: str | None) -> dict[str, Any]:
    if value is None:
        return {}
    try:
        data = json.loads(value) if isinstance(value, str) else value
    except ValueError:
        data = None
    if not isinstance(data, dict):
        raise FormatError(f"{key} is not a JSON object", path=path, line=1)
    return data


def derived_title(session: Session) -> str:
    """The title a note gets in Basic Memory when the session has none."""
    parts = ["Session"]
    if session.started:
        parts.append(session.started.replace("T", " ").rstrip("Z")[:19])
    if session.short_id:
        parts.append(session.short_id)
    title = " ".join(parts)
    focus = " ".join((session.focus or "").split())
    if focus and focus != "unset":
        title += " — " + focus[:_TITLE_FOCUS_MAX].rstrip()
    return title


def _swap_title(title: str, home: str, away: str) -> str:
    """A section title moved between the formats: its ``home`` prefix taken off (the section came
    from there), else the ``away`` prefix put on (it is the other format's own). The pivot holds
    the aiwiki titles, so each format's own prose sections travel namespaced in the other, lint
    clean, and come back under their own names (``## Summary`` <-> ``## bm: Summary``)."""
    if not title:
        return title
    return title[len(home) :] if title.startswith(home) else away + title


# ----------------------------------------------------------------------------- aiwiki side


def _aiwiki_adapter(doc: Document) -> Any:
    from .. import get_adapter

    try:
        version = doc.meta.get("schema_version")
    except SessionKitError:
        version = None
    return get_adapter("aiwiki-v1" if version == 1 and version is not True else AIWIKI)


def _parse_bm_lines(body: str) -> tuple[list[Any], list[Any]]:
    from ..basic_memory.grammar import parse_facts

    facts = parse_facts(body.split("\n")) if body else None
    if facts is None:
        return [], []
    return list(facts.observations), list(facts.relations)


def pivot_from_aiwiki(doc: Document, folder: str = "sessions") -> _Pivot:
    """Read an aiwiki page and undo the carriers a conversion put there."""
    from .._aiwiki_parse import read_page

    # both aiwiki adapters read with read_page (they differ only in the origin they add)
    session, layout = read_page(doc)
    read = session
    extra = dict(session.extra)
    meta = _meta_json(extra.pop(AW_META, None), AW_META, doc.path)
    aw_key = _aw_strip(doc.path)
    if aw_key == aiwiki_filename(session.started, session.id):
        aw_key = None
    bm_key = meta.get("key")
    if "pivot" in meta:
        return _load_pivot(meta["pivot"], doc.path, folder)
    fields: dict[str, Any] = {}
    aw_extra: dict[str, Any] = {}
    bm_extra: dict[str, Any] = {}
    carried = {f"bm_{k}" for k in ("title", "status", "started", "ended", "project", "cwd")}
    carried |= {"bm_tags", "bm_focus"}
    for key, value in extra.items():
        if key in carried:
            continue
        if key.startswith(AW_SIDE):
            bm_extra[key[len(AW_SIDE) :]] = value
        else:
            aw_extra[key] = value
    bm_status = extra.get("bm_status", _ABSENT)
    for name in ("started", "ended", "project", "cwd"):
        if "bm_" + name in extra:
            raw = extra["bm_" + name]
            fields[name] = None if raw is None else str(raw)
    if "bm_tags" in extra:
        from ..basic_memory import parse_bm_tags

        fields["tags"] = parse_bm_tags(extra["bm_tags"])
    title: str | None = None
    if "bm_focus" in extra:
        if extra["bm_focus"] == "title":
            title = session.focus
        fields["focus"] = None
    if "bm_title" in extra:
        raw = extra["bm_title"]
        title = None if raw is None else str(raw)
    fields["title"] = title
    sections: list[ExtraSection] = []
    observations: list[Observation] = []
    relations: list[Link] = []
    summary: str | None = None
    context: list[str] = []
    from ..basic_memory.read import _link_of, _observation_of

    for sec in session.sections:
        if sec.title == AW_OBSERVATIONS:
            for obs in _parse_bm_lines(sec.body)[0]:
                if obs.category == "summary" and summary is None:
                    summary = obs.text
                elif obs.category == "context":
                    context.append(obs.text)
                else:
                    observations.append(_observation_of(obs))
        elif sec.title == AW_RELATIONS:
            relations.extend(_link_of(rel) for rel in _parse_bm_lines(sec.body)[1])
        else:
            sections.append(sec)
    session = attrs.evolve(
        session,
        extra={},
        sections=tuple(sections),
        observations=tuple(observations),
        relations=tuple(relations),
        summary=summary,
        context=tuple(context),
        origin=None,
        **fields,
    )
    return _Pivot(
        session=session,
        aw_extra=aw_extra,
        bm_extra=bm_extra,
        bm_status=bm_status,
        open_end=session.status is Status.DONE and session.ended is None and "ended" not in fields,
        aw_key=aw_key if isinstance(aw_key, str) else None,
        bm_key=bm_key if isinstance(bm_key, str) else None,
        bm_patch=meta.get("bm"),
        read=read,
        layout=layout,
    )


def _aw_strip(path: str | None) -> str | None:
    """A page's key in its store: the part after ``aiwiki/sessions/``."""
    if not path:
        return None
    path = path.replace("\\", "/")
    at = path.rfind("aiwiki/sessions/")
    return path[at + len("aiwiki/sessions/") :] if at >= 0 else path


def _bm_strip(path: str | None, folder: str) -> str | None:
    """A note's key in its store: the path below the notes folder."""
    if not path:
        return None
    path = path.replace("\\", "/")
    prefix = folder.strip("/") + "/"
    return path[len(prefix) :] if prefix != "/" and path.startswith(prefix) else path


def _aiwiki_date(value: str | None) -> str | None:
    m = None if value is None else DATE.match(value)
    return None if m is None else m.group(0)


def _bm_fact_lines(session: Session) -> tuple[list[str], list[str]]:
    from ..basic_memory.write import (
        _render_category,
        _render_observation,
        _render_relation,
    )

    obs: list[str] = []
    if session.summary is not None:
        obs.append(_render_category("summary", session.summary))
    obs.extend(_render_category("context", t) for t in session.context)
    obs.extend(_render_observation(o) for o in session.observations)
    rels = [_render_relation(link) for link in session.relations]
    return obs, rels


def _to_aiwiki_session(pivot: _Pivot, today: str) -> Session:
    s = pivot.session
    extra: dict[str, Any] = dict(pivot.aw_extra)
    for key, value in pivot.bm_extra.items():
        extra[AW_SIDE + key] = value
    if pivot.bm_status is not _ABSENT:
        extra["bm_status"] = pivot.bm_status
    started = _aiwiki_date(s.started)
    if s.started is None or started != s.started:
        extra["bm_started"] = s.started
    if started is None:
        started = _aiwiki_date(s.ended) or _aiwiki_date(_date_in(s.title)) or today
    ended = _aiwiki_date(s.ended)
    if s.ended is not None and (ended != s.ended or s.status is Status.ACTIVE):
        # (an open note's `ended` is when it was checkpointed, not an end: an
        # active page with a date_end contradicts itself, AW019)
        extra["bm_ended"] = s.ended
        if s.status is Status.ACTIVE:
            ended = None
    elif s.ended is None and s.status is Status.DONE and not pivot.open_end:
        extra["bm_ended"] = None  # (a done page without date_end contradicts itself, AW019)
        ended = started
    focus = s.focus
    title_done = s.title is None
    if focus is None:
        if s.title is not None and s.title.strip() and "\n" not in s.title:
            focus, title_done = s.title, True
            extra["bm_focus"] = "title"
        else:
            focus = "unset"
            extra["bm_focus"] = None
    if not title_done:
        extra["bm_title"] = s.title
    extra.update(
        (f"bm_{k}", v) for k, v in (("project", s.project), ("cwd", s.cwd)) if v is not None
    )
    if s.tags:
        extra["bm_tags"] = list(s.tags)
    meta = {k: v for k, v in (("key", pivot.bm_key), ("bm", pivot.bm_patch)) if v is not None}
    if meta:
        extra[AW_META] = json.dumps(meta, ensure_ascii=False)
    sections = list(s.sections)
    obs, rels = _bm_fact_lines(s)
    if obs:
        sections.append(ExtraSection(title=AW_OBSERVATIONS, body="\n" + "\n".join(obs)))
    if rels:
        sections.append(ExtraSection(title=AW_RELATIONS, body="\n" + "\n".join(rels)))
    return attrs.evolve(
        s,
        started=started,
        ended=ended,
        focus=focus,
        title=None,
        summary=None,
        project=None,
        cwd=None,
        context=(),
        tags=(),
        observations=(),
        relations=(),
        extra=extra,
        sections=tuple(sections),
        origin=None,
    )


def _date_in(text: str | None) -> str | None:
    m = DATE.search(text) if text else None
    return m.group(0) if m else None


def _render_aiwiki(session: Session, key: str | None = None) -> tuple[str, Pieces]:
    """(key, the page's text in pieces: its frontmatter and body held apart when big)."""
    from .. import get_adapter

    pieces = get_adapter(AIWIKI).write(session).pieces
    return key or aiwiki_filename(session.started, session.id), pieces


def _fallback_aiwiki(pivot: _Pivot, today: str) -> Session:
    s = pivot.session
    minimal = _Pivot(
        session=Session(id=s.id, status=s.status, focus=s.focus, started=s.started, ended=s.ended),
    )
    base = _to_aiwiki_session(minimal, today)
    whole = json.dumps(
        {"pivot": json.loads(pivot.dump())}, ensure_ascii=False, separators=(",", ":")
    )
    return attrs.evolve(base, extra={**base.extra, AW_META: whole})


# ----------------------------------------------------------------------------- Basic Memory side


def pivot_from_bm(
    doc: Document, folder: str = "sessions", like: Session | None = None, *, patch: bool = True
) -> _Pivot:
    """Read a Basic Memory note and undo the carriers a conversion put there; with ``patch``,
    how its bytes differ from the note written anew from what was read goes in
    :attr:`_Pivot.bm_patch` (when that note reads as the same session)."""
    from ...model import list_blocks
    from ..basic_memory.permalink import generate_permalink
    from ..basic_memory.read import _session_fields, split_lead
    from ..basic_memory.write import note_path

    source = doc.text
    lead, note = split_lead(doc)
    try:
        # facts from the fact sections only (read as the session's are, in the same pass)
        read_fields, _, picked = _session_fields(
            note,
            [range(sec.start, sec.end) for sec in note.sections if sec.title in _BM_KNOWN],
            None if like is None else {name: getattr(like, name) for name in _LIST_CATEGORIES},
        )
    except SessionKitError as exc:
        raise exc.with_path(doc.path) from None
    assert picked is not None
    session = read = Session(**read_fields)
    del read_fields
    doc = note
    del lead
    meta = doc.meta
    extra = dict(session.extra)
    carrier = _meta_json(extra.pop(BM_META, None), BM_META, doc.path)
    aw_key = carrier.get("key")
    bm_key = _bm_strip(doc.path, folder)
    if bm_key == _bm_strip(note_path(session.title or "", folder), folder):
        bm_key = None
    if "pivot" in carrier:
        return _load_pivot(carrier["pivot"], doc.path, folder)
    raw_status = meta.get("status", _ABSENT)
    status = session.status
    bm_status: Any = _ABSENT
    aw_status = extra.pop(BM_SIDE + "status", _ABSENT)
    if aw_status is not _ABSENT:
        try:
            status = Status(str(aw_status))
        except ValueError:
            raise FormatError(
                f"{BM_SIDE}status is {aw_status!r}, not an aiwiki status",
                path=doc.path,
                line=doc.key_line(BM_SIDE + "status"),
            ) from None
    elif raw_status is _ABSENT or raw_status is None:
        bm_status = None
    elif raw_status != _BM_WORD.get(status):
        bm_status = raw_status
    fields: dict[str, Any] = {"status": status}
    for name in carrier.get("added", []):
        if name in ("project", "cwd", "started", "ended", "focus", "last_commit", "id"):
            fields[name] = None
    aw_extra: dict[str, Any] = {}
    bm_extra: dict[str, Any] = {}
    for key, value in extra.items():
        if key.startswith(BM_SIDE):
            aw_extra[key[len(BM_SIDE) :]] = value
        else:
            bm_extra[key] = value
    summary = picked.summary
    lists: dict[str, Sequence[str]] = dict(picked.lists)
    observations, relations = picked.observations, picked.relations
    del picked
    checkpoints: tuple[Any, ...] = ()
    files: tuple[Any, ...] = ()
    blocks: dict[str, Any] = {}
    layouts = carrier.get("layout") or {}
    if not isinstance(layouts, dict) or not set(layouts) <= set(_LIST_CATEGORIES):
        raise FormatError(f"{BM_META}: unusable list layout", path=doc.path, line=1)
    carried: dict[str, Sequence[Block]] = {}  # (a read section's own tuple, lined up)
    sections: list[ExtraSection] = []
    reuse = None if like is None else _Reuse.carried(like, layouts)
    for sec in session.sections:
        name = _BM_LIST_CARRIERS.get(sec.title, "")
        if not name and sec.title not in (BM_CHECKPOINTS, BM_FILES):
            title = sec.title  # (prose after a fact section's facts keeps its title)
            if title not in _BM_KNOWN:
                title = _swap_title(title, BM_SECTION, AW_SECTION)
            body = "\n" + sec.body if sec.body else sec.body
            sections.append(ExtraSection(title=title, body=body))
            continue
        # a carrier section, read as aiwiki
        part = _aiwiki_part(sec.title[len(BM_SECTION) :], sec.body, doc.path, reuse)
        if sec.title == BM_CHECKPOINTS:
            checkpoints = part.checkpoints
            if "checkpoints" in part.blocks:
                blocks["checkpoints"] = part.blocks["checkpoints"]
        elif sec.title == BM_FILES:
            files = part.files_touched
            if "files_touched" in part.blocks:
                blocks["files_touched"] = part.blocks["files_touched"]
        elif name in layouts:  # (its blocks are placed below)
            carried[name] = part.blocks.get(name) or list_blocks(part, name)
        else:
            lists[name] = list(getattr(part, name))
            if name in part.blocks:
                blocks[name] = part.blocks[name]
    for name, layout in layouts.items():
        placed = _placed(
            layout,
            lists[name],
            carried.pop(name, ()),
            doc.path,
            () if like is None else like.blocks.get(name, ()),
        )
        lists[name] = [b.text for b in placed if b.is_item]
        blocks[name] = tuple(placed)
    session = attrs.evolve(
        session,
        summary=summary,
        context=tuple(lists["context"]),
        next_steps=tuple(lists["next_steps"]),
        decisions=tuple(lists["decisions"]),
        gotchas=tuple(lists["gotchas"]),
        questions=tuple(lists["questions"]),
        observations=tuple(observations),
        relations=tuple(relations),
        checkpoints=checkpoints,
        files_touched=files,
        sections=tuple(sections),
        blocks=blocks,
        status_word=None,
        extra={},
        origin=None,
        **fields,
    )
    # drop what a fresh write derives again: the title, the type, the permalink
    if session.title is not None and session.title == derived_title(session):
        session = attrs.evolve(session, title=None)
    if bm_extra.get("type") == "session":
        bm_extra.pop("type")
    title = session.title if session.title is not None else derived_title(session)
    project = meta.get("project")
    if bm_extra.get("permalink") == generate_permalink(
        note_path(title, folder), project=None if project is None else str(project)
    ):
        bm_extra.pop("permalink")
    pivot = _Pivot(
        session=session,
        aw_extra=aw_extra,
        bm_extra=bm_extra,
        bm_status=bm_status,
        open_end=bool(carrier.get("open_end")),
        aw_key=aw_key if isinstance(aw_key, str) else None,
        bm_key=bm_key if isinstance(bm_key, str) else None,
        read=read,
    )
    if not patch or like is not None:  # (a read-back, ``like`` given: the patch is no fact)
        return pivot
    word = None if project is None else str(project)
    pieces = _natural(pivot, BASIC_MEMORY, project=word, folder=folder, today="")[1]
    base = "".join(pieces)
    pivot = attrs.evolve(pivot, rendered=pieces)
    if base == source:
        return pivot
    again = pivot_from_bm(parse(base, doc.path), folder, like, patch=False)
    if _unordered(again) != _unordered(pivot):  # (the model does not write the facts back)
        return pivot
    diff = _bm_patch(base, source)
    text = None if diff is None else _apply_bm_patch(base, diff)  # (as _natural applies it)
    return attrs.evolve(pivot, bm_patch=diff, rendered=pieces if text is None else (text,))


def _aiwiki_part(title: str, body: str, path: str | None, block: Any = None) -> Session:
    from .._aiwiki_parse import read_page

    text = (
        "---\nschema_id: session\nschema_version: 2\nstatus: active\n"
        f"date_start: 2000-01-01\nfocus: x\n---\n\n## {title}\n\n{body}\n"
    )
    try:
        return read_page(parse(text, path), block)[0]
    except SessionKitError as exc:
        raise FormatError(f"unusable '{title}' carrier section: {exc.message}", path=path) from None


def _aiwiki_section_body(session: Session, title: str) -> str:
    """The body aiwiki's writer gives section ``title`` of ``session``, trimmed of blank lines."""
    from .._aiwiki_write import checkpoints_lines, list_section_lines

    if title == "Checkpoints":
        body = checkpoints_lines(session)
    else:
        body = list_section_lines(session, title)
    while body and not body[0].strip():
        body.pop(0)
    while body and not body[-1].strip():
        body.pop()
    return "\n".join(body)


def _to_bm_session(pivot: _Pivot, project: str | None) -> tuple[Session, Any]:
    """The session to hand Basic Memory's writer, and the status word to splice in."""
    s = pivot.session
    extra: dict[str, Any] = dict(pivot.bm_extra)
    for key, value in pivot.aw_extra.items():
        extra[BM_SIDE + key] = value
    status = s.status
    word = pivot.bm_status
    if status is Status.ABANDONED and word is _ABSENT:
        extra[BM_SIDE + "status"] = "abandoned"
        status = Status.DONE
    added: list[str] = []
    fill: dict[str, Any] = {}
    if s.project is None and project:
        fill["project"] = project
        added.append("project")
    meta: dict[str, Any] = {}
    if added:
        meta["added"] = added
    if pivot.aw_key is not None:
        meta["key"] = pivot.aw_key
    if pivot.open_end:
        meta["open_end"] = 1
    sections: list[ExtraSection] = []
    rest = [
        attrs.evolve(sec, body=sec.body[1:]) if sec.body.startswith("\n") else sec
        for sec in s.sections
    ]
    if rest and rest[0].title == "":
        sections.append(rest.pop(0))
    if s.checkpoints or "checkpoints" in s.blocks:
        body = _aiwiki_section_body(s, "Checkpoints")
        sections.append(ExtraSection(title=BM_CHECKPOINTS, body=body))
    if s.files_touched:
        sections.append(ExtraSection(title=BM_FILES, body=_aiwiki_section_body(s, "Files touched")))
    lists: dict[str, Any] = {}
    observed = _lists_as_observations(s)
    pending = [name for name in _LIST_CATEGORIES if name not in observed]
    layouts: dict[str, list[Any]] = {}
    for name, (texts, carried, layout) in (_item_plans(s, pending) if pending else {}).items():
        title = _LIST_CATEGORIES[name][1]
        if carried:
            fields: dict[str, Any] = {
                name: tuple(b.text for b in carried if b.is_item),
                "blocks": {name: tuple(carried)},
            }
            holder = attrs.evolve(Session(focus="x", started="2000-01-01"), **fields)
            body = _aiwiki_section_body(holder, title)
            sections.append(ExtraSection(title=BM_SECTION + title, body=body))
        lists[name] = tuple(texts)
        layouts[name] = layout
    if layouts:
        meta["layout"] = layouts
    if meta:
        extra[BM_META] = json.dumps(meta, ensure_ascii=False, separators=(",", ":"))
    sections.extend(
        attrs.evolve(sec, title=_swap_title(sec.title, AW_SECTION, BM_SECTION)) for sec in rest
    )
    session = attrs.evolve(
        s,
        status=status,
        title=s.title if s.title is not None else derived_title(s),
        checkpoints=(),
        files_touched=(),
        sections=tuple(sections),
        blocks={},
        extra=extra,
        origin=None,
        **fill,
        **lists,
    )
    return session, word


def _render_bm(
    session: Session, word: Any, folder: str, key: str | None = None
) -> tuple[str, Pieces]:
    """(key, the note's frontmatter and body): see :func:`_render_note`."""
    from ..basic_memory.write import _render_note

    # the source's own status word, when it had one (None: it had no status key)
    own: dict[str, Any] = {} if word is _ABSENT else {"status": word}
    path, text = _render_note(session, folder=folder, implied=False, **own)
    if key is not None:
        path = key
    prefix = folder.strip("/") + "/" if folder.strip("/") else ""
    key = path[len(prefix) :] if prefix and path.startswith(prefix) else path
    return key, text


def _fallback_bm(pivot: _Pivot, project: str | None) -> tuple[Session, Any]:
    s = pivot.session
    minimal = _Pivot(
        session=Session(
            id=s.id,
            status=s.status,
            title=s.title if s.title is not None else derived_title(s),
            focus=s.focus,
            started=s.started,
            ended=s.ended,
            project=s.project,
            cwd=s.cwd,
            tags=s.tags,
        ),
        bm_status=pivot.bm_status,
    )
    session, word = _to_bm_session(minimal, project)
    whole = json.dumps(
        {"pivot": json.loads(pivot.dump())}, ensure_ascii=False, separators=(",", ":")
    )
    return attrs.evolve(session, extra={**session.extra, BM_META: whole}), word


# ----------------------------------------------------------------------------- one note


#: a note's text in pieces, in order (see :attr:`Converted.pieces`)
Pieces = tuple[str, ...]


@attrs.frozen(kw_only=True)
class Converted:
    """One converted note: its key and its text in pieces (:attr:`text` joins them)."""

    key: str
    #: the text in pieces, in order: a Basic Memory note's frontmatter and body held
    #: apart (each as wide as its own characters: see
    #: :func:`~sessionkit.document.parse_pieces`), an aiwiki page one piece
    pieces: Pieces
    carried: bool
    #: the aiwiki page keeps its Basic Memory note's layout (observation order, line
    #: ends, comments, blank lines) as a line patch in ``bm_sessionkit``
    layout: bool = False
    #: SHA-256 of the text (computed in the worker), when known
    sha: str | None = None
    #: SHA-256 of the text the source says the target note had when the source was
    #: made from it (a chain page's unedited note block): a target note still
    #: holding it was not edited since, so the edit may replace it
    was: str | None = None

    @property
    def text(self) -> str:
        """The whole text (the pieces joined)."""
        return self.pieces[0] if len(self.pieces) == 1 else "".join(self.pieces)


def note_family(name: str) -> str:
    if name.startswith("aiwiki"):
        return "aiwiki"
    if name in (BASIC_MEMORY, "bm", "basic_memory"):
        return BASIC_MEMORY
    raise UnsupportedFormatError(
        f"cannot convert {name!r}: conversion is between aiwiki-v1/aiwiki-v2 and basic-memory"
    )


def today_utc() -> str:
    from datetime import UTC, datetime

    return datetime.now(UTC).date().isoformat()


def _read_pivot(doc: Document, family: str, folder: str, *, like: Session | None = None) -> _Pivot:
    """The pivot of ``doc`` (``like`` helps read a Basic Memory note)."""
    if family == "aiwiki":
        return pivot_from_aiwiki(doc, folder)
    return pivot_from_bm(doc, folder, like)


def _natural(
    pivot: _Pivot, family: str, *, project: str | None, folder: str, today: str
) -> tuple[str, Pieces]:
    """The target text without the whole-session fallback: (key, its pieces)."""
    if family == "aiwiki":
        return _render_aiwiki(_to_aiwiki_session(pivot, today), pivot.aw_key)
    key, pieces = _render_bm(*_to_bm_session(pivot, project), folder, pivot.bm_key)
    if pivot.bm_patch is not None:
        text = _apply_bm_patch("".join(pieces), pivot.bm_patch)
        if text is not None:
            return key, (text,)
    return key, pieces


def _unordered(pivot: _Pivot) -> bytes:
    """:meth:`_Pivot.key` of ``pivot`` whatever the order of its frontmatter keys."""
    return attrs.evolve(
        pivot,
        aw_extra=dict(sorted(pivot.aw_extra.items())),
        bm_extra=dict(sorted(pivot.bm_extra.items())),
    ).key()


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def _bm_patch(base: str, text: str) -> dict[str, Any] | None:
    """How ``text`` differs from ``base`` (the note written anew), line by line: ``{"sha": base's
    digest, "crlf": 1 when every line of ``text`` ends in CRLF (then compared with ``base``'s
    lines so ended), "eof": 1 when ``text`` has no final line end, "ops": [[from, to,
    lines]]}``, each op replacing ``base``'s lines ``[from, to)`` by ``lines``, a line written
    as the index of an equal ``base`` line where there is one (a moved line is not copied).
    ``None`` when the lines it copies would be the whole note."""
    import difflib

    crlf = text.count("\n") > 0 and text.count("\n") == text.count("\r\n")
    eol = "\r\n" if crlf else "\n"
    eof = bool(text) and not text.endswith("\n")
    old = split_lines(base.replace("\n", eol))
    new = split_lines(text + eol if eof else text)
    index: dict[str, int] = {}
    for at, line in enumerate(old):
        index.setdefault(line, at)
    ops: list[list[Any]] = []
    size = 0
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            lines = [index.get(line, line) for line in new[j1:j2]]
            size += sum(len(line) for line in lines if isinstance(line, str))
            ops.append([i1, i2, lines])
    if size >= len(text):
        return None
    flags = {"crlf": 1} if crlf else {}
    return {"sha": _digest(base), **flags, **({"eof": 1} if eof else {}), "ops": ops}


def _apply_bm_patch(base: str, patch: Any) -> str | None:
    """``base`` patched (:func:`_bm_patch`); ``None`` when the patch was made from another note
    (the note was edited since: it is written anew) or is not one :func:`_bm_patch` writes."""
    try:
        if patch["sha"] != _digest(base):
            return None
        eol = "\r\n" if patch.get("crlf") else "\n"
        old = split_lines(base.replace("\n", eol))
        out: list[str] = []
        at = 0
        for i1, i2, lines in patch["ops"]:
            if not at <= i1 <= i2 <= len(old):
                return None
            out.extend(old[at:i1])
            out.extend(
                old[line] if type(line) is int and line >= 0 else str(line) for line in lines
            )
            at = i2
    except (TypeError, KeyError, IndexError, ValueError):
        return None
    out.extend(old[at:])
    text = "".join(out)
    return text[: -len(eol)] if patch.get("eof") and text.endswith(eol) else text


def _json_digest(session: Session, tail: str = "") -> bytes:
    """The SHA-256 of ``to_json`` without indentation (and ``tail``): the same facts,
    made JSON a batch of items at a time (a big session is never one dict or text)."""
    from ...serialize import iter_json

    digest = hashlib.sha256()
    for piece in iter_json(session, indent=None):
        digest.update(piece.encode("utf-8", "surrogatepass"))
    digest.update(tail.encode("utf-8", "surrogatepass"))
    return digest.digest()


def _strip_folder(key: str, folder: str) -> str:
    prefix = folder.strip("/") + "/"
    key = key.replace("\\", "/")
    if key.startswith("aiwiki/sessions/"):
        return key[len("aiwiki/sessions/") :]
    return key[len(prefix) :] if key.startswith(prefix) else key


def detect_family(doc: Document) -> str:
    from .. import detect_format

    return note_family(detect_format(doc))
