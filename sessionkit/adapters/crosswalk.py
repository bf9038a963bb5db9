"""The note-level crosswalk between aiwiki session pages and Basic Memory session notes.

:mod:`sessionkit.ops.convert` plans a conversion over stores (jobs, the
manifest, the report); this module converts *one* note, through the two
formats' public profiles (:mod:`sessionkit.adapters.profiles`).  Its entry
point is :func:`convert_doc`.

How a field maps (the full table is in ``docs/converting.md``):

* what both formats hold maps onto its counterpart (``session_id`` ↔
  ``claude_session_id``, decisions ↔ ``[decision]`` observations, …);
* what only one format holds travels in a **namespaced carrier** in the other
  and comes back when converting back: frontmatter keys ``bm_*`` in aiwiki
  pages (``bm_title``, ``bm_status``, ``bm_started``, ``bm_project``, …, and
  ``bm_<key>`` for every other Basic Memory key), sections ``## bm:
  Observations`` / ``## bm: Relations``; in Basic Memory notes frontmatter
  keys ``aiwiki_*`` (``aiwiki_status``, ``aiwiki_<key>`` for unknown aiwiki
  keys) and sections ``## aiwiki: Checkpoints`` / ``## aiwiki: Files
  touched``;
* a value the converter had to invent for the target to be valid (Basic
  Memory's required ``project``, aiwiki's required ``focus``…) is recorded
  in ``aiwiki_sessionkit`` / ``bm_sessionkit`` (JSON) and dropped on the way
  back.

Every conversion is checked before it is written.  First the source's model
must write back into its own format as the same session; when it does not (an
aiwiki page with a section twice, a Basic Memory note without frontmatter) the
source's exact text rides along in the ``*_sessionkit`` carrier.  Then the
target is read back and mapped home again; when that does not give the same
facts (a heading Basic Memory reads as a tag…) the whole session rides along
as JSON in that carrier.  Either way nothing is lost; the report lists such
notes under ``carried``.
"""

from __future__ import annotations

import collections
import contextlib
import hashlib
import json
import re
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from typing import Any, TypeGuard

import attrs

from .. import _fastpaths
from .._lines import Joined, same_spans, spans
from ..document import Document, parse, parse_pieces, same_text
from ..errors import FormatError, SessionKitError, UnsupportedFormatError, ValidationError
from ..model import (
    Block,
    ExtraSection,
    Link,
    Observation,
    Session,
    Status,
)
from .profiles import AIWIKI as AW_PROFILE
from .profiles import BASIC_MEMORY as BM_PROFILE
from .profiles import aiwiki_filename

__all__ = [
    "AIWIKI",
    "BASIC_MEMORY",
    "Converted",
    "WordCheck",
    "chain_notes",
    "convert_chain",
    "convert_doc",
    "derived_title",
    "detect_family",
    "note_family",
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
BM_META = BM_SIDE + "sessionkit"
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

#: aiwiki sections with a model field (a Basic Memory section of that name is escaped)
_AW_KNOWN = ("Checkpoints", *AW_PROFILE.sections)
#: Basic Memory sections that hold facts (an aiwiki section of that name is escaped)
_BM_KNOWN = ("Observations", "Relations")
#: canonical Basic Memory status word for a model status (abandoned travels as
#: ``aiwiki_status``: the Session schema's words are open, resumed and closed)
_BM_WORD: dict[Status, str] = {
    s: w for s, w in BM_PROFILE.status_write.items() if s is not Status.ABANDONED
}
#: aiwiki list fields and the observation category and aiwiki section of each:
#: the two profiles' tables, joined on the Session field
_LIST_CATEGORIES: dict[str, tuple[str, str]] = {
    field: (category, title)
    for title, field in AW_PROFILE.sections.items()
    for category, other in BM_PROFILE.sections.items()
    if other == field
}
#: Basic Memory sections carrying an aiwiki list Basic Memory cannot hold as observations
_BM_LIST_CARRIERS = {BM_SECTION + title: name for name, (_, title) in _LIST_CATEGORIES.items()}
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_DATE_PREFIX = re.compile(r"^(\d{4}-\d{2}-\d{2})")
_ABSENT: Any = object()
_TITLE_FOCUS_MAX = 80


# ----------------------------------------------------------------------------- pivot


@attrs.frozen(kw_only=True)
class _Pivot:
    """A session in format-neutral form: the model plus what the model cannot say.

    ``session.extra`` is empty; unknown frontmatter keys are split by home
    format (``aw_extra`` read from aiwiki, ``bm_extra`` read from Basic
    Memory) so each goes back to its own format under its own name.
    ``bm_status`` is Basic Memory's status word when it is not the one
    :data:`_BM_WORD` gives (``resumed``), or ``None`` when the note had none.
    """

    session: Session
    aw_extra: Mapping[str, Any] = attrs.field(factory=dict)
    bm_extra: Mapping[str, Any] = attrs.field(factory=dict)
    bm_status: Any = _ABSENT
    #: the note's file name in aiwiki / Basic Memory when it is not the derived one
    aw_key: str | None = None
    bm_key: str | None = None
    #: the source note's exact text, key and family, when the model cannot
    #: reproduce it (it then comes back verbatim)
    original: str | None = None
    original_key: str | None = None
    home: str | None = None
    #: read from a whole-session carrier (authoritative; no self-check needed)
    from_carrier: bool = attrs.field(default=False, eq=False)
    #: the source adapter's own reading of the note (for the self-check)
    read: Session | None = attrs.field(default=None, eq=False)
    #: where the parts of a source aiwiki page are (for the self-check)
    layout: Any = attrs.field(default=None, eq=False)

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
            },
            ensure_ascii=False,
            default=str,
        )
        return _json_digest(self.session, rest)

    def dump(self) -> str:
        """The whole pivot as one JSON text (the fallback carrier)."""
        from ..serialize import to_dict

        data: dict[str, Any] = {
            "session": to_dict(self.session),
            "aw_extra": dict(self.aw_extra),
            "bm_extra": dict(self.bm_extra),
        }
        if self.bm_status is not _ABSENT:
            data["bm_status"] = self.bm_status
        if self.aw_key is not None:
            data["aw_key"] = self.aw_key
        if self.bm_key is not None:
            data["bm_key"] = self.bm_key
        if self.original is not None:
            data = {"text": self.original, "key": self.original_key, "home": self.home}
        return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def _load_pivot(data: Mapping[str, Any], path: str | None, folder: str = "sessions") -> _Pivot:
    from ..serialize import from_dict

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
    """The title a note gets in Basic Memory when the session has none.

    ``Session {start} {id7} — {focus}``: start date or time, the short id,
    then the focus (whitespace folded, clipped to 80 characters; left out
    when it is ``unset`` or empty).
    """
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


def _escape_title(title: str, known: Sequence[str], prefix: str) -> str:
    return prefix + title if title in known or title.startswith(prefix) else title


def _unescape_title(title: str, prefix: str) -> str:
    return title[len(prefix) :] if title.startswith(prefix) else title


# ----------------------------------------------------------------------------- aiwiki side


def _aiwiki_adapter(doc: Document) -> Any:
    from ..adapters import get_adapter

    try:
        version = doc.meta.get("schema_version")
    except SessionKitError:
        version = None
    return get_adapter("aiwiki-v1" if version == 1 and version is not True else AIWIKI)


def _parse_bm_lines(body: str) -> tuple[list[Any], list[Any]]:
    from ..adapters.basic_memory.grammar import parse_facts

    facts = parse_facts(body.split("\n")) if body else None
    if facts is None:
        return [], []
    return list(facts.observations), list(facts.relations)


def pivot_from_aiwiki(doc: Document, folder: str = "sessions") -> _Pivot:
    """Read an aiwiki page and undo the carriers a conversion put there."""
    from ..adapters._aiwiki_parse import read_page

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
    bm_status: Any = _ABSENT
    carried = {
        "bm_title",
        "bm_status",
        "bm_started",
        "bm_ended",
        "bm_project",
        "bm_cwd",
        "bm_tags",
        "bm_focus",
    }
    for key, value in extra.items():
        if key in carried:
            continue
        if key.startswith(AW_SIDE):
            bm_extra[key[len(AW_SIDE) :]] = value
        else:
            aw_extra[key] = value
    if "bm_status" in extra:
        bm_status = extra["bm_status"]
    for name in ("started", "ended"):
        if "bm_" + name in extra:
            raw = extra["bm_" + name]
            fields[name] = None if raw is None else str(raw)
    for name in ("project", "cwd"):
        if "bm_" + name in extra:
            raw = extra["bm_" + name]
            fields[name] = None if raw is None else str(raw)
    if "bm_tags" in extra:
        from ..adapters.basic_memory import parse_bm_tags

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
    from ..adapters.basic_memory.read import _link_of, _observation_of

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
            sections.append(
                attrs.evolve(sec, title=_unescape_title(sec.title, AW_SECTION))
                if sec.title
                else sec
            )
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
        aw_key=aw_key if isinstance(aw_key, str) else None,
        bm_key=bm_key if isinstance(bm_key, str) else None,
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
    if value is None:
        return None
    if _DATE.match(value):
        return value
    m = _DATE_PREFIX.match(value)
    return m.group(1) if m else None


def _bm_fact_lines(session: Session) -> tuple[list[str], list[str]]:
    from ..adapters.basic_memory.write import (
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
    if s.project is not None:
        extra["bm_project"] = s.project
    if s.cwd is not None:
        extra["bm_cwd"] = s.cwd
    if s.tags:
        extra["bm_tags"] = list(s.tags)
    if pivot.bm_key is not None:
        extra[AW_META] = json.dumps({"key": pivot.bm_key}, ensure_ascii=False)
    sections = [
        attrs.evolve(sec, title=_escape_title(sec.title, _AW_KNOWN, AW_SECTION))
        if sec.title
        else sec
        for sec in s.sections
    ]
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
    if not text:
        return None
    m = re.search(r"\d{4}-\d{2}-\d{2}", text)
    return m.group(0) if m else None


def _render_aiwiki(session: Session, key: str | None = None) -> tuple[str, Pieces]:
    """(key, the page's text in pieces: its frontmatter and body held apart when big)."""
    from ..adapters import get_adapter

    pieces = get_adapter(AIWIKI).write(session).pieces
    return key or aiwiki_filename(session.started, session.id), pieces


def _fallback_aiwiki(pivot: _Pivot, today: str) -> Session:
    s = pivot.session
    minimal = _Pivot(
        session=Session(id=s.id, status=s.status, focus=s.focus, started=s.started, ended=s.ended),
    )
    base = _to_aiwiki_session(minimal, today)
    extra = {k: v for k, v in base.extra.items()}
    extra[AW_META] = json.dumps(
        {"pivot": json.loads(pivot.dump())}, ensure_ascii=False, separators=(",", ":")
    )
    return attrs.evolve(base, extra=extra)


# ----------------------------------------------------------------------------- Basic Memory side


def pivot_from_bm(doc: Document, folder: str = "sessions", like: Session | None = None) -> _Pivot:
    """Read a Basic Memory note and undo the carriers a conversion put there.

    Facts are taken from the ``## Observations`` and ``## Relations``
    sections only; facts Basic Memory finds in prose stay in their section.
    ``like``: the session the note is expected
    to hold (a read-back's source): a list of its equal to that session's is
    that session's tuple, held once.
    """
    from ..adapters.basic_memory.permalink import generate_permalink
    from ..adapters.basic_memory.read import _session_fields, split_lead
    from ..adapters.basic_memory.write import note_path
    from ..model import list_blocks

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
    carriers = _aiwiki_parts(
        [
            (sec.title[len(BM_SECTION) :], sec.body)
            for sec in session.sections
            if sec.title in (BM_CHECKPOINTS, BM_FILES) or sec.title in _BM_LIST_CARRIERS
        ],
        doc.path,
        None if like is None else _Reuse.carried(like, layouts),
    )
    for sec in session.sections:
        if sec.title == BM_CHECKPOINTS:
            part = carriers[sec.title[len(BM_SECTION) :]]
            checkpoints = part.checkpoints
            if "checkpoints" in part.blocks:
                blocks["checkpoints"] = part.blocks["checkpoints"]
        elif sec.title == BM_FILES:
            part = carriers[sec.title[len(BM_SECTION) :]]
            files = part.files_touched
            if "files_touched" in part.blocks:
                blocks["files_touched"] = part.blocks["files_touched"]
        elif sec.title in _BM_LIST_CARRIERS:
            name = _BM_LIST_CARRIERS[sec.title]
            part = carriers[sec.title[len(BM_SECTION) :]]
            if name in layouts:
                carried[name] = part.blocks.get(name) or list_blocks(part, name)
                continue
            lists[name] = list(getattr(part, name))
            if name in part.blocks:
                blocks[name] = part.blocks[name]
        else:
            title = _unescape_title(sec.title, BM_SECTION) if sec.title else ""
            body = "\n" + sec.body if sec.body else sec.body
            sections.append(ExtraSection(title=title, body=body))
    carriers.clear()  # (their carried blocks are in ``carried``, to be placed)
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
    return _Pivot(
        session=session,
        aw_extra=aw_extra,
        bm_extra=bm_extra,
        bm_status=bm_status,
        aw_key=aw_key if isinstance(aw_key, str) else None,
        bm_key=bm_key if isinstance(bm_key, str) else None,
        read=read,
    )


def _aiwiki_part(title: str, body: str, path: str | None, block: Any = None) -> Session:
    from ..adapters._aiwiki_parse import read_page

    text = (
        "---\nschema_id: session\nschema_version: 2\nstatus: active\n"
        f"date_start: 2000-01-01\nfocus: x\n---\n\n## {title}\n\n{body}\n"
    )
    try:
        return read_page(parse(text, path), block)[0]
    except SessionKitError as exc:
        raise FormatError(f"unusable '{title}' carrier section: {exc.message}", path=path) from None


def _aiwiki_parts(
    parts: Sequence[tuple[str, str]], path: str | None, block: Any = None
) -> dict[str, Session]:
    """Each carrier section ``(aiwiki title, body)`` read as aiwiki, by title.

    The sections are read together as one page (one read instead of one per
    section) when that page's level-1/2 headings are exactly the carriers'
    titles, so every section holds exactly its body and reads as it would
    alone; otherwise, or on any error (for its own message), each section is
    read alone by :func:`_aiwiki_part`.  ``block``: what makes each block (see
    :func:`~sessionkit.adapters._aiwiki_parse.read_page`).
    """
    from ..adapters._aiwiki_parse import read_page

    if len(parts) < 2 or len({title for title, _ in parts}) != len(parts):
        return {title: _aiwiki_part(title, body, path, block) for title, body in parts}
    text = (
        "---\nschema_id: session\nschema_version: 2\nstatus: active\n"
        "date_start: 2000-01-01\nfocus: x\n---\n"
        + "".join(f"\n## {title}\n\n{body}\n" for title, body in parts)
    )
    doc = parse(text, path)
    tops = [h.title for h in doc.headings if h.level <= 2]
    if tops != [title for title, _ in parts]:  # a body holds a heading or opens a fence
        return {title: _aiwiki_part(title, body, path, block) for title, body in parts}
    try:
        whole = read_page(doc, block)[0]
    except SessionKitError:
        return {title: _aiwiki_part(title, body, path, block) for title, body in parts}
    return {title: whole for title, _ in parts}


def _aiwiki_section_body(session: Session, title: str) -> str:
    """The body aiwiki's writer gives section ``title`` of ``session``, trimmed of blank
    lines: the whole page is rendered and the section cut out of it as a reader sees it.
    """
    from ..adapters import get_adapter

    text = str(get_adapter(AIWIKI).write(session).text)
    doc = parse(text)
    sec = doc.section(title)
    if sec is None:
        return ""
    body = doc.section_lines(sec)[: doc.content_end(sec) - sec.start - 1]
    while body and not body[0].strip():
        body.pop(0)
    while body and not body[-1].strip():
        body.pop()
    return "\n".join(body)


def _to_bm_session(
    pivot: _Pivot, project: str | None, as_observations: Collection[str] | None = None
) -> tuple[Session, Any]:
    """The session to hand Basic Memory's writer, and the status word to splice in.

    ``as_observations`` names the aiwiki lists written as observations (by
    default those :func:`_lists_as_observations` finds safe); the others
    travel as ``## aiwiki: <Section>`` sections.

    Its observations and relations are the lines of the fact sections (facts in
    prose stay in their section), so it is rendered with ``implied=False``.
    """
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
    sections: list[ExtraSection] = []
    rest = [
        attrs.evolve(sec, body=sec.body[1:]) if sec.body.startswith("\n") else sec
        for sec in s.sections
    ]
    if rest and rest[0].title == "":
        sections.append(rest.pop(0))
    if s.checkpoints or "checkpoints" in s.blocks:
        body = _aiwiki_section_body(
            Session(
                focus="x",
                started="2000-01-01",
                checkpoints=s.checkpoints,
                blocks={k: v for k, v in s.blocks.items() if k == "checkpoints"},
            ),
            "Checkpoints",
        )
        sections.append(ExtraSection(title=BM_CHECKPOINTS, body=body))
    if s.files_touched:
        body = _aiwiki_section_body(
            Session(
                focus="x",
                started="2000-01-01",
                files_touched=s.files_touched,
                blocks={k: v for k, v in s.blocks.items() if k == "files_touched"},
            ),
            "Files touched",
        )
        sections.append(ExtraSection(title=BM_FILES, body=body))
    lists: dict[str, Any] = {}
    if as_observations is None:
        as_observations = _lists_as_observations(s)
    pending = [name for name in _LIST_CATEGORIES if name not in as_observations]
    plans = _item_plans(s, pending) if pending else {}
    layouts: dict[str, list[Any]] = {}
    for name in pending:
        title = _LIST_CATEGORIES[name][1]
        texts, carried, layout = plans[name]
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
        attrs.evolve(sec, title=_escape_title(sec.title, _BM_KNOWN, BM_SECTION)) for sec in rest
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


def observation_text(text: str) -> str:
    """An item's text as one observation line holds it: its lines stripped and
    joined by single spaces (soft wraps, hard breaks, trailing spaces and
    nested lines fold into the line; the exact text rides in the layout)."""
    return " ".join(part for part in (line.strip() for line in text.split("\n")) if part)


def _item_plans(
    session: Session, names: Sequence[str]
) -> dict[str, tuple[list[str], list[Block], list[Any]]]:
    """How each list of ``names`` goes to Basic Memory, item by item:
    ``{name: (observation texts, carried blocks, layout)}``.

    An item whose text folded to one line (:func:`observation_text`) reads
    back from ``- [category] <text>`` as that very observation becomes one;
    every other block (an item Basic Memory refuses, such as one ending in a
    Markdown link, and prose, fences, quotes, tables, sub-headings and
    comments) is carried, by itself, in the ``## aiwiki: <Section>`` section.
    The layout (one entry per block, in order) puts each back in its place:
    ``["o", gap, marker]`` or ``["o", gap, marker, exact text]`` for an
    observation, ``["c", gap]`` for the next carried block, ``["c", gap, n]`` for
    the next ``n`` carried blocks with that gap (a run: a section of a hundred
    thousand paragraphs has one entry, not a list each to decode).  One scan of the
    candidate lines for all the lists, as in :func:`_lists_as_observations`.
    """
    from ..adapters.basic_memory.grammar import parse_facts
    from ..model import list_blocks

    lines: list[str] = []
    wanted: list[tuple[str, int, str]] = []  # (category, line, text) of each candidate
    # a row each block: (block, line, text) of a candidate, the block alone otherwise
    laid: dict[str, list[Block | tuple[Block, int, str]]] = {}
    for name in names:
        category = _LIST_CATEGORIES[name][0]
        rows: list[Block | tuple[Block, int, str]] = []
        for b in list_blocks(session, name):
            if b.is_item:
                text = observation_text(b.text)
                if text and not any(c in text for c in "\r\x00"):
                    rows.append((b, len(lines), text))
                    wanted.append((category, len(lines), text))
                    lines.append(f"- [{category}] {text}")
                    continue
            rows.append(b)
        laid[name] = rows
    found: dict[int, tuple[str | None, str]] = {}
    if lines:
        for obs in parse_facts(lines).observations:
            found.setdefault(obs.line, (obs.category, obs.text))
    ok = {line for category, line, text in wanted if found.get(line) == (category, text)}
    out: dict[str, tuple[list[str], list[Block], list[Any]]] = {}
    for name, rows in laid.items():
        texts: list[str] = []
        carried: list[Block] = []
        layout: list[Any] = []
        for row in rows:
            b, line, text = (row, None, "") if isinstance(row, Block) else row
            if line is not None and line in ok:
                texts.append(text)
                entry: list[Any] = ["o", b.gap, b.marker]
                if text != b.text:
                    entry.append(b.text)
                layout.append(entry)
            else:
                gap = 1 if carried else 0  # (the block itself when its gap is that already)
                carried.append(b if b.gap == gap else attrs.evolve(b, gap=gap))
                _add_carried(layout, b.gap)
        out[name] = (texts, carried, layout)
    return out


def _run(entry: Any) -> int:
    """How many carried blocks a layout entry ``["c", gap]`` or ``["c", gap, n]``
    places (see :func:`_item_plans`); ``ValueError`` for a count below 1."""
    run = int(entry[2]) if len(entry) > 2 else 1
    if run < 1:
        raise ValueError(run)
    return run


def _is_run(entry: Any) -> TypeGuard[list[Any]]:
    """Whether ``entry`` is a carried-blocks entry exactly as :func:`_add_carried`
    writes it (JSON ints, a count of 1 or more)."""
    return (
        isinstance(entry, list)
        and len(entry) in (2, 3)
        and entry[0] == "c"
        and type(entry[1]) is int
        and (len(entry) == 2 or (type(entry[2]) is int and entry[2] >= 1))
    )


def _add_carried(layout: list[Any], gap: int, count: int = 1) -> None:
    """Put ``count`` carried blocks after ``gap`` blank lines at the end of ``layout``:
    into its last entry when that is carried blocks with that gap (``["c", gap, n]``,
    ``n`` left out when 1), else as a new entry (see :func:`_item_plans`)."""
    last = layout[-1] if layout else None
    if _is_run(last) and last[1] == gap:
        if len(last) == 2:
            last.append(1)
        last[2] += count
    else:
        layout.append(["c", gap] if count == 1 else ["c", gap, count])


def _canonical_carrier(value: Any) -> Any:
    """The conversion carrier ``value`` (JSON text) as :func:`_item_plans` writes it
    now: a note written before its layouts had runs (``["c", 1]`` a carried block)
    reads as the same note.  Anything else is left as it is."""
    if not isinstance(value, str) or '"layout"' not in value:
        return value
    try:
        data = json.loads(value)
        layouts = data["layout"]
        for name, layout in layouts.items():
            out: list[Any] = []
            for entry in layout:
                if _is_run(entry):
                    _add_carried(out, entry[1], _run(entry))
                else:
                    out.append(entry)
            layouts[name] = out
    except (ValueError, TypeError, KeyError, AttributeError):
        return value
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


class _Reuse:
    """Makes the blocks of a second read: a block equal to the next block expected of
    some list is that block, so the read does not hold a second copy of every
    block (a section of a hundred thousand paragraphs).  Any other block is made
    new; only equal blocks are shared, so a note edited since reads as it says.

    ``expected``: each list's blocks in the order the read meets them
    (:meth:`carried`, :meth:`every`).
    """

    __slots__ = ("heads",)

    def __init__(self, expected: Iterable[Iterator[Block]]) -> None:
        self.heads: list[tuple[Block | None, Iterator[Block]]] = [
            (next(blocks, None), blocks) for blocks in expected
        ]

    @classmethod
    def carried(cls, like: Session, layouts: Mapping[str, Any]) -> _Reuse:
        """For a read-back's carrier sections: the carried blocks of each list of the
        source session ``like``, as each list's layout places them."""
        return cls(
            _carried_of(like.blocks.get(name, ()), layout) for name, layout in layouts.items()
        )

    @classmethod
    def every(cls, like: Session) -> _Reuse:
        """For a page rendered again from ``like``: every block of each of its lists."""
        return cls(iter(blocks) for blocks in like.blocks.values())

    def __call__(self, *, text: str, marker: str | None = None, gap: int = 0) -> Block:
        heads = self.heads
        for n, (want, rest) in enumerate(heads):
            if want is not None and want.text == text and want.marker == marker and want.gap == gap:
                heads[n] = (next(rest, None), rest)
                return want
        return Block(text=text, marker=marker, gap=gap)


def _carried_of(blocks: Sequence[Block], layout: Any) -> Iterator[Block]:
    """The blocks of a list its carrier section holds, in order, as :func:`_item_plans`
    wrote them (each a carried block of ``blocks``, whose layout is ``layout``,
    the first after no blank line, the others after one); nothing more once the
    layout is not one it wrote (:func:`_placed` says so)."""
    at = 0
    first = True
    try:
        for entry in layout:
            if entry[0] == "o":
                at += 1
                continue
            for _ in range(_run(entry)):
                if at >= len(blocks):
                    return
                b, at = blocks[at], at + 1
                gap, first = 0 if first else 1, False
                yield b if b.gap == gap else attrs.evolve(b, gap=gap)
    except (TypeError, ValueError, IndexError, KeyError):
        return


def _placed(
    layout: Any,
    texts: Sequence[str],
    carried: Sequence[Block],
    path: str | None,
    like: Sequence[Block] = (),
) -> list[Block]:
    """The blocks of a list put back from a note's observations (``texts``, in
    order), its carried blocks and the layout :func:`_item_plans` wrote.

    Observations beyond the layout's (added in Basic Memory since) come last,
    as ``-`` items.  ``like``: the blocks expected (a read-back's source); a
    block equal to the one at its place there is that block, held once.
    """

    def shared(block: Block) -> Block:
        at = len(out)
        return like[at] if at < len(like) and like[at] == block else block

    if not isinstance(layout, list):
        raise FormatError(f"{BM_META}: a list layout is not a list", path=path, line=1)
    out: list[Block] = []
    oi = ci = 0
    try:
        for entry in layout:
            kind, gap = entry[0], int(entry[1])
            if kind == "o":
                if oi >= len(texts):
                    continue  # removed in Basic Memory since
                text = texts[oi]
                if len(entry) > 3 and observation_text(str(entry[3])) == text:
                    text = entry[3]  # the exact text, while the observation still says it
                oi += 1
                out.append(shared(Block(text=str(text), marker=str(entry[2]), gap=gap)))
            else:  # "c"
                run = _run(entry)
                for block in carried[ci : ci + run]:
                    out.append(shared(block if block.gap == gap else attrs.evolve(block, gap=gap)))
                ci = min(ci + run, len(carried))
    except (TypeError, ValueError, IndexError, SessionKitError):
        raise FormatError(f"{BM_META}: unusable list layout", path=path, line=1) from None
    out.extend(Block(text=t, marker="-") for t in texts[oi:])
    out.extend(carried[ci:])
    return out


def _lists_as_observations(session: Session) -> set[str]:
    """The list fields whose every item reads back from a ``- [category] text`` line.

    One scan for all four lists: each line is a one-line list item of its own
    (it starts ``- [``, so it neither continues nor opens another block), so
    it reads the same beside the other lists' lines as alone.
    """
    from ..adapters.basic_memory.grammar import parse_facts

    ok: set[str] = set()
    lines: list[str] = []
    spans: list[tuple[str, str, int, tuple[str, ...]]] = []
    for name, (category, _) in _LIST_CATEGORIES.items():
        texts: tuple[str, ...] = getattr(session, name)
        if name in session.blocks:  # laid out with more than its items: travels whole
            continue
        if not texts:
            ok.add(name)
            continue
        if any(
            not text or text != text.strip() or any(c in text for c in "\n\r\x00") for text in texts
        ):
            continue
        spans.append((name, category, len(lines), texts))
        lines.extend(f"- [{category}] {text}" for text in texts)
    if not spans:
        return ok
    found = parse_facts(lines).observations
    for name, category, start, texts in spans:
        mine = [obs for obs in found if start <= obs.line < start + len(texts)]
        if len(mine) == len(texts) and all(
            obs.line == start + i and obs.category == category and obs.text == text
            for i, (obs, text) in enumerate(zip(mine, texts, strict=True))
        ):
            ok.add(name)
    return ok


def _render_bm(
    session: Session, word: Any, folder: str, key: str | None = None
) -> tuple[str, Pieces]:
    """(key, the note's frontmatter and body): see :func:`_render_note`."""
    from ..adapters.basic_memory.write import _render_note

    if word is _ABSENT:
        path, text = _render_note(session, folder=folder, implied=False)
    else:  # the source's own status word (None: it had no status key)
        path, text = _render_note(session, folder=folder, implied=False, status=word)
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
    extra = {k: v for k, v in session.extra.items() if k != BM_META}
    extra[BM_META] = json.dumps(
        {"pivot": json.loads(pivot.dump())}, ensure_ascii=False, separators=(",", ":")
    )
    return attrs.evolve(session, extra=extra), word


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


def _read_pivot(
    doc: Document,
    family: str,
    folder: str,
    *,
    like: Session | None = None,
) -> _Pivot:
    """The pivot of ``doc`` (``like`` helps read a Basic Memory note)."""
    if family == "aiwiki":
        return pivot_from_aiwiki(doc, folder)
    return pivot_from_bm(doc, folder, like)


def _natural(
    pivot: _Pivot, family: str, *, project: str | None, folder: str, today: str
) -> tuple[str, Pieces]:
    """The target text without the whole-session fallback: (key, its pieces)."""
    return next(_naturals(pivot, family, project=project, folder=folder, today=today))


#: every aiwiki list field
_ALL_LISTS = frozenset(_LIST_CATEGORIES)


def _naturals(
    pivot: _Pivot, family: str, *, project: str | None, folder: str, today: str
) -> Iterator[tuple[str, Pieces]]:
    """The target texts to try, without the whole-session fallback, best first:
    (key, the text's pieces).

    aiwiki has one.  Basic Memory's first puts every aiwiki list in the
    observations, as nearly every note has them; only when
    :func:`_lists_as_observations` keeps a list out of them is that rendering
    offered next.  A list item that does not read back as its own observation
    line fails the caller's read-back check of the first (its list comes back
    different), so callers end with the text the precise check alone gives,
    without parsing every note's list lines for it first (a big note's lists
    are not held twice).  That first try is the ``bm-lists-first`` fast lane.
    """
    if family == "aiwiki":
        yield _render_aiwiki(_to_aiwiki_session(pivot, today), pivot.aw_key)
        return
    if not _fastpaths.enabled("bm-lists-first"):
        precise = _lists_as_observations(pivot.session)
        yield _render_bm(*_to_bm_session(pivot, project, precise), folder, pivot.bm_key)
        return
    failed: SessionKitError | None = None
    try:
        first = _render_bm(*_to_bm_session(pivot, project, _ALL_LISTS), folder, pivot.bm_key)
    except SessionKitError as exc:
        failed = exc
    else:
        _fastpaths.answered("bm-lists-first")
        yield first
    precise = _lists_as_observations(pivot.session)
    if precise != _ALL_LISTS:
        yield _render_bm(*_to_bm_session(pivot, project, precise), folder, pivot.bm_key)
    elif failed is not None:
        raise failed


def _plain(
    doc: Document, family: str, session: Session | None = None, like: Session | None = None
) -> bytes:
    """The source adapter's own reading of a note (``session`` when already read),
    as a comparable digest.  ``like``: an aiwiki session the page was rendered
    from, whose equal blocks the read takes instead of making its own (see
    :class:`_Reuse`; the adapter's read is :func:`read_page`'s, origin aside)."""
    from ..adapters import get_adapter

    if family == "aiwiki":
        if session is None and like is not None and like.blocks:
            from ..adapters._aiwiki_parse import read_page

            session = read_page(doc, _Reuse.every(like))[0]
        return _json_digest(session if session is not None else _aiwiki_adapter(doc).read(doc))
    status = doc.meta.get("status", _ABSENT)
    if session is None:
        session = get_adapter(BASIC_MEMORY).read(doc)
    carrier = session.extra.get(BM_META)
    canonical = _canonical_carrier(carrier)
    if canonical != carrier:  # (a layout written a carried block an entry)
        extra = {**session.extra, BM_META: canonical}
        session = attrs.evolve(session, extra=extra, origin=None)
    return _json_digest(session, repr("<absent>" if status is _ABSENT else status))


def _json_digest(session: Session, tail: str = "") -> bytes:
    """The SHA-256 of ``to_json`` without indentation (and ``tail``): the same facts,
    made JSON a batch of items at a time (a big session is never one dict or text)."""
    from ..serialize import iter_json

    digest = hashlib.sha256()
    for piece in iter_json(session, indent=None):
        digest.update(piece.encode("utf-8", "surrogatepass"))
    digest.update(tail.encode("utf-8", "surrogatepass"))
    return digest.digest()


#: what :func:`_faithful` found: not faithful, the same session, or the same words too
_NOT_FAITHFUL, _SAME_SESSION, _SAME_TEXT = 0, 1, 2


def _faithful(pivot: _Pivot, doc: Document, family: str, folder: str, today: str) -> int:
    """Whether the pivot writes back into its own format as the same session.

    :data:`_SAME_TEXT` when the rendering reads as the same session and holds
    every word of the note's body (:class:`WordCheck`): then the model holds
    every word of the note; :data:`_SAME_SESSION` when it only reads as the
    same session; :data:`_NOT_FAITHFUL` (``0``) otherwise.  The rendering
    that is the note's own text is :data:`_SAME_TEXT` without a second read.
    """
    project = None
    if family == BASIC_MEMORY:
        value = doc.meta.get("project")
        project = None if value is None else str(value)
    want: bytes | None = None
    try:
        for _, pieces in _naturals(pivot, family, project=project, folder=folder, today=today):
            if same_text(doc.text, pieces):  # the same text reads the same: no second parse
                return _SAME_TEXT
            again = parse_pieces(pieces, doc.path)
            if want is None:
                want = _plain(doc, family, pivot.read)
            if _plain(again, family, like=pivot.read) == want:
                if WordCheck(doc, family).kept(pieces, family):
                    return _SAME_TEXT
                return _SAME_SESSION
        return _NOT_FAITHFUL
    except SessionKitError:
        return _NOT_FAITHFUL


def _strip_folder(key: str, folder: str) -> str:
    prefix = folder.strip("/") + "/"
    key = key.replace("\\", "/")
    if key.startswith("aiwiki/sessions/"):
        return key[len("aiwiki/sessions/") :]
    return key[len(prefix) :] if key.startswith(prefix) else key


def convert_doc(
    doc: Document, src: str, dst: str, *, project: str | None, folder: str, today: str
) -> Converted:
    """Convert one note (``src`` and ``dst``: ``aiwiki`` or ``basic-memory``).

    The target is read back and mapped home before it is returned: it must
    give the same facts (the model and what the carriers hold) and hold every
    word of the source's body (:class:`WordCheck`).  The first rendering
    that does wins: the natural one, then the whole session as JSON in the
    ``*_sessionkit`` carrier (``carried``), then the source's exact text there.

    Raises:
        FormatError: unusable input (a bad carrier), with path and line.
    """
    pivot = _read_pivot(doc, src, folder)
    if pivot.original is not None and pivot.home == dst:
        key = pivot.original_key
        if key is None:
            key = _natural(pivot, dst, project=None, folder=folder, today=today)[0]
        return Converted(key=_strip_folder(key, folder), pieces=(pivot.original,), carried=False)
    faithful = _SAME_SESSION if pivot.from_carrier else _faithful(pivot, doc, src, folder, today)
    if pivot.layout is not None:  # (only _faithful reads it: a big page's spans go now)
        pivot = attrs.evolve(pivot, layout=None)
    if not faithful:
        pivot = attrs.evolve(pivot, original=doc.text, original_key=doc.path, home=src)
    # The model renders the note's own words again (_SAME_TEXT), and a target that reads
    # back as that model holds them; otherwise the target's words are counted.
    words = WordCheck(doc, src, trusted=faithful == _SAME_TEXT)
    want: list[bytes] = []  # pivot.key(), once needed
    if pivot.original is None:
        with contextlib.suppress(FormatError):
            for key, pieces in _naturals(pivot, dst, project=project, folder=folder, today=today):
                try:
                    again = parse_pieces(pieces, key)
                    back = _read_pivot(again, dst, folder, like=pivot.session)
                except FormatError:
                    continue
                if _same_facts(back, pivot, want) and words.kept(pieces, dst):
                    return Converted(key=key, pieces=pieces, carried=False)
    for last in (False, True):
        if last:
            if pivot.original is not None:
                break
            # the model does not hold every word: the source's exact text travels
            pivot = attrs.evolve(pivot, original=doc.text, original_key=doc.path, home=src)
            want = []
        if dst == "aiwiki":
            key, pieces = _render_aiwiki(_fallback_aiwiki(pivot, today), pivot.aw_key)
        else:
            key, pieces = _render_bm(*_fallback_bm(pivot, project), folder, pivot.bm_key)
        back = _read_pivot(parse_pieces(pieces, key), dst, folder)
        if _same_facts(back, pivot, want) and (
            pivot.original is not None or words.kept(pieces, dst)
        ):
            return Converted(key=key, pieces=pieces, carried=True)
    raise FormatError(
        f"cannot convert to {dst} without losing data (please report this note)", path=doc.path
    )


def convert_chain(notes: Sequence[tuple[str, str]]) -> Converted:
    """A chain of Basic Memory ``coding_session`` checkpoints as one aiwiki page.

    ``notes``: ``(key, text)`` in chain order
    (:func:`sessionkit.adapters.coding_session.chains`).  The page is
    :func:`~sessionkit.adapters.coding_session.chain_page`'s, named
    ``{date_start}-{id7}.md`` after the agent session; it is checked to give
    the notes back byte for byte (:func:`chain_notes`).

    Raises:
        FormatError: a note without usable frontmatter, or a page that would
            not give the notes back.
    """
    from .coding_session import chain_page, split_chain_page

    page = chain_page(notes)
    if split_chain_page(page) != [(k, t) for k, t in notes]:
        raise FormatError(
            "the chain's page does not give its checkpoint notes back (please report this)",
            path=notes[0][0] if notes else None,
        )
    session = _aiwiki_adapter(parse(page)).read(parse(page))
    return Converted(
        key=aiwiki_filename(session.started, session.id), pieces=(page,), carried=False
    )


def chain_notes(doc: Document) -> list[Converted] | None:
    """The Basic Memory notes an aiwiki chain page holds; ``None`` for any other
    page (then :func:`convert_doc` converts it).

    A page that is what its notes make gives them back byte for byte; an
    edited one gives them with its edits carried in, each as a minimal edit of
    the note it belongs to
    (:func:`sessionkit.adapters.coding_session.page_notes`).

    Raises:
        FormatError: an edit no checkpoint note can carry (each is named), or
            damaged note blocks (with the page's path); nothing is converted.
    """
    import hashlib

    from .coding_session import CHAIN_KEY, edited_blocks, page_notes, split_chain_page

    if CHAIN_KEY not in doc.text:
        return None
    try:
        if CHAIN_KEY not in doc.meta:
            return None
    except SessionKitError:
        return None
    notes = page_notes(doc.text, doc.path)
    if not notes:
        raise FormatError("a chain page without checkpoint notes", path=doc.path)
    edited = set(edited_blocks(doc.text, doc.path))
    held = {  # the notes the page was made from, where their blocks say so
        key: hashlib.sha256(text.encode("utf-8")).hexdigest()
        for key, text in split_chain_page(doc.text, doc.path)
        if key not in edited
    }
    return [
        Converted(key=key, pieces=(text,), carried=False, was=held.get(key)) for key, text in notes
    ]


_WORD = re.compile(r"\w+")
_HEADINGS = (
    r"(?:Checkpoints|Files touched|Decisions made|Gotchas surfaced|Open questions|"
    r"Next steps|Observations|Relations)"
)
#: lines of a body that are the format's own structure, not a person's words (and,
#: in Basic Memory, the ``[category]`` of an observation line: the format's word)
_STRUCTURE = {
    "aiwiki": re.compile(
        rf"^[ \t]*(?:#{{1,2}}[ \t]+(?:bm: )?{_HEADINGS}[ \t#]*|\(filled by /wrap\))[ \t]*\r?$",
        re.MULTILINE,
    ),
    BASIC_MEMORY: re.compile(
        rf"^[ \t]*#{{1,2}}[ \t]+(?:aiwiki: )?{_HEADINGS}[ \t#]*\r?$"
        r"|^[ \t]*[-*+][ \t]+\[[^\]\n]*\]",
        re.MULTILINE,
    ),
}


class WordCheck:
    """Whether a conversion kept every word of a note's body.

    The source's words are its body's words (``\\w+`` runs, counted), less
    the format's own structure: the known section headings (and the
    ``aiwiki: `` / ``bm: `` carrier prefixes), aiwiki's placeholder and the
    ``[category]`` of Basic Memory observation lines.  A target keeps them
    when its text, with the JSON strings of its ``*_sessionkit`` carrier
    decoded, has each at least as often.  ``trusted``: the source's model was
    found to render the source's own text again (see :func:`convert_doc`).
    """

    def __init__(self, doc: Document, family: str, *, trusted: bool = False) -> None:
        self._doc = doc
        self._family = family
        self._trusted = trusted
        self._source: Any = None

    def _source_words(self) -> Any:
        if self._source is None:
            from .basic_memory import split_lead

            doc = split_lead(self._doc)[1] if self._family == BASIC_MEMORY else self._doc
            body = _STRUCTURE[self._family].sub("", doc.body)
            self._source = _word_counts(body)
        return self._source

    def kept(self, pieces: Pieces, family: str) -> bool:
        """Whether the target text in ``pieces`` (of format ``family``, each piece
        whole lines but the last) holds every source word.

        ``trusted`` (the source's model renders its very words again, and the
        caller checks that the target reads back as that model): true at once.
        """
        doc = self._doc
        if self._trusted or _holds_body(pieces, spans(doc.lines, doc.body_start)):
            return True
        need = self._source_words()
        if not need:
            return True
        # the source's counts less the target's words (a copy shares the words: the
        # target's are not held beside them, only looked up)
        left = need.copy()
        missing = left.total()
        for piece in pieces:  # (a word never spans a line end, nor two pieces)
            missing = _take_words(left, piece, missing)
        if not missing:
            return True
        # a JSON carrier spells line breaks as \n: count its strings decoded
        meta_key = BM_META if family == BASIC_MEMORY else AW_META
        try:
            value = parse_pieces(pieces).meta.get(meta_key)
            data = json.loads(value) if isinstance(value, str) else None
        except (SessionKitError, ValueError):
            return False
        for s in _strings(data):
            missing = _take_words(left, s, missing)
        return not missing


def _holds_body(pieces: Pieces, body: Sequence[tuple[str, int, int]]) -> bool:
    """Whether the text in ``pieces`` holds the body given as spans (its CRLF line
    ends made LF) whole, as words: then it holds every word of it, and counting
    them would hold a big note's words for nothing (a page whose frontmatter
    alone is spelled anew, a CRLF page, a page rendered again with placeholder
    sections around the body or without its trailing blank lines).  The body is
    looked for where its first characters are (a few places, each within one
    piece), then as the text's end, blank space aside; neither text is joined."""
    source = Joined(body)
    if any(text.find("\r\n", a, b) >= 0 for text, a, b in body):
        lf = source.cut(0, len(source)).replace("\r\n", "\n")
        source = Joined([(lf, 0, len(lf))])
    size = len(source)
    if not size:
        return False
    target = Joined((piece, 0, len(piece)) for piece in pieces)
    if size <= len(target):
        for at in target.find(source.cut(0, min(size, 256)), 4):
            end = at + size
            if (
                end <= len(target)
                and same_spans(target.spans(at, end), source.spans(0, size))
                and _apart(target, at, end, source)
            ):
                return True
    # the text's end (blank space after the last word aside)
    size = source.words_end()
    end = target.words_end()
    before = end - size
    return (
        size > 0
        and before >= 0
        and same_spans(target.spans(before, end), source.spans(0, size))
        and _apart(target, before, -1, source)
    )


def _apart(target: Joined, at: int, end: int, source: Joined) -> bool:
    """Whether the source's words at ``target[at:end]`` are words there: no word
    character just before or (``end`` not -1) just after them joins one of them."""
    if at and _WORD.fullmatch(target.char(at - 1) + source.char(0)) is not None:
        return False
    return (
        end < 0
        or end == len(target)
        or _WORD.fullmatch(source.char(len(source) - 1) + target.char(end)) is None
    )


def _take_words(left: collections.Counter[str], text: str, missing: int | None = None) -> int:
    """Count each word of ``text`` off ``left`` (never below zero) and return how
    many source words are still missing (``missing``: that count before, when known)."""
    if missing is None:
        missing = left.total()
    if not missing:
        return 0
    for words in _word_blocks(text):
        for word in words:
            n = left.get(word)
            if n:
                left[word] = n - 1
                missing -= 1
                if not missing:
                    return 0
    return missing


def _word_counts(text: str) -> collections.Counter[str]:
    """How often each word (``\\w+`` run) occurs in ``text``, found a block of lines
    at a time: a word never spans a line break, and a big note's words are never
    all strings in one list at once (0.6 M of them, ~30 MB, in 4 MB of prose)."""
    counts: collections.Counter[str] = collections.Counter()
    for words in _word_blocks(text):
        counts.update(words)
    return counts


def _word_blocks(text: str) -> Iterator[list[str]]:
    """The words of ``text``, a list for each block of lines (see :func:`_word_counts`)."""
    start, size = 0, len(text)
    while start < size:
        end = text.find("\n", start + _WORD_BLOCK)
        end = size if end < 0 else end
        yield _WORD.findall(text, start, end)
        start = end


#: characters of text (then up to the end of the line) whose words are found at once
_WORD_BLOCK = 1 << 16


def _strings(value: Any) -> Iterator[str]:
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            yield v
        elif isinstance(v, dict):
            stack.extend(v.keys())
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)


def _same_facts(back: _Pivot, pivot: _Pivot, want: list[bytes]) -> bool:
    """``back.key() == pivot.key()``; ``want`` caches ``pivot.key()``."""
    if not want:
        want.append(pivot.key())
    return back.key() == want[0]


def detect_family(doc: Document) -> str:
    from ..adapters import detect_format

    return note_family(detect_format(doc))
