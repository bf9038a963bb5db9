"""Reading Basic Memory notes: Basic Memory's own view, and the session sessionkit reads.

Reading keeps everything: frontmatter keys the model has no field for go to
``Session.extra``, observations and relations without a dedicated field to
``Session.observations`` / ``Session.relations`` in order, prose sections
(``## Summary``, ``## Recent thread``…) to :class:`~sessionkit.model.ExtraSection`.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import PurePosixPath
from typing import Any, NamedTuple

import attrs

from ...document import Document, Section, parse
from ...errors import SessionKitError
from ...model import ExtraSection, Link, LinkStyle, Observation, Session, Status
from ...text.grammar import is_fence, strip_eol
from ..profiles import AIWIKI as AIWIKI_PROFILE
from ..profiles import BASIC_MEMORY as PROFILE
from .grammar import BMObservation, BMRelation, Facts, iter_facts, parse_facts

__all__ = [
    "DEFAULT_FOLDER",
    "PROFILE",
    "SESSION_TYPES",
    "BMView",
    "bm_view",
    "parse_bm_tags",
    "session_id_of",
    "split_lead",
    "status_of",
    "status_word_of",
]

#: note types that are session notes
SESSION_TYPES = ("session", "coding_session")
#: where the Basic Memory plugin files session notes
DEFAULT_FOLDER = "sessions"
#: the sections that hold facts rather than prose
_FACT_SECTIONS = ("Observations", "Relations")

#: frontmatter key -> Session attribute (``title``, ``status`` and ``tags`` are read apart)
_KEY_FIELDS: dict[str, str] = {
    k: v for k, v in PROFILE.keys.items() if k not in ("title", "status", "tags")
}
#: observation category -> Session attribute (tuple fields; summary is a str)
_CATEGORY_FIELDS: dict[str, str] = dict(PROFILE.sections)
_STATUS_WRITE = PROFILE.status_write


def status_of(word: Any) -> Status:
    """The model status a Basic Memory ``status`` word maps to (unknown words: active)."""
    return PROFILE.status_of(word)


def status_word_of(session: Session) -> str:
    """The ``status`` word to write for ``session``: its own :attr:`~Session.status_word`
    while that still maps to its status, else the canonical word."""
    return PROFILE.word_for(session.status, session.status_word)


_RESERVED = {"title", "tags", "status", *_KEY_FIELDS}
#: the key :attr:`Session.id` is written under by default (Basic Memory's older plugin)
_LEGACY_ID = "claude_session_id"
#: the key Basic Memory 0.24's hooks and skills name the agent session with, beside ``agent``
_SHARED_ID = "session_id"


#: the carrier of an aiwiki session's own status in a converted note: an abandoned
#: session is ``status: closed`` (the plugins' Session schema has no word for it) and
#: ``aiwiki_status: abandoned`` (docs/converting.md), and reads back as abandoned
_ABANDONED_KEY = AIWIKI_PROFILE.key_prefix + "status"


def _id_key(keys: Iterable[str]) -> str:
    """The key a note with frontmatter ``keys`` holds :attr:`Session.id` in: the
    legacy ``claude_session_id`` when it has one, else 0.24's ``session_id``."""
    names = set(keys)
    return _SHARED_ID if _SHARED_ID in names and _LEGACY_ID not in names else _LEGACY_ID


def _new_id_key(extra: Mapping[str, Any]) -> str:
    """The key a new note writes :attr:`Session.id` under: ``session_id`` when the
    session names its ``agent`` (the shape 0.24 writes), else ``claude_session_id``."""
    return _SHARED_ID if "agent" in extra and _SHARED_ID not in extra else _LEGACY_ID


def session_id_of(meta: Mapping[str, Any]) -> str | None:
    """The agent session id a note's frontmatter names (:attr:`Session.id`), if any.

    ``claude_session_id`` (the plugin's older notes), else ``session_id`` (what
    Basic Memory 0.24's hooks and skills write, paired with ``agent``).
    """
    value = meta.get(_id_key(meta))
    return _opt_text(value)


def parse_bm_tags(value: Any) -> tuple[str, ...]:
    """Tags as Basic Memory reads them: a list, a comma string or a JSON-array string.

    Whitespace and leading ``#`` are stripped; list items are split on commas
    too; ``None`` items are skipped.
    """
    if value is None:
        return ()
    if isinstance(value, (list, tuple)):
        return tuple(
            tag.strip().lstrip("#")
            for raw in value
            if raw is not None
            for tag in str(raw).split(",")
            if tag and tag.strip()
        )
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("[") and text.endswith("]"):
            import json

            try:
                loaded = json.loads(value)
            except ValueError:
                loaded = None
            if isinstance(loaded, list):
                return parse_bm_tags(loaded)
        return tuple(t.strip().lstrip("#") for t in value.split(",") if t and t.strip())
    return parse_bm_tags(str(value))


def _as_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return ", ".join(str(v) for v in value)
    return str(value)


def _opt_text(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    return _as_text(value)


# --------------------------------------------------------------------------
# Basic Memory's view of a note


@attrs.frozen(kw_only=True)
class BMView:
    """A note as Basic Memory's indexer sees it.

    Attributes:
        metadata: the frontmatter (``{}`` when there is none or it is invalid).
        frontmatter_ok: false when the frontmatter is invalid (Basic Memory
            then indexes the whole text as body).
        title: ``title``, else the file stem.
        type: ``type``, else ``note``.
        tags: parsed tags.
        facts: observations and relations.
    """

    metadata: Mapping[str, Any]
    frontmatter_ok: bool
    title: str | None
    type: str
    tags: tuple[str, ...]
    facts: Facts


def _stem(path: str | None) -> str | None:
    if not path:
        return None
    return PurePosixPath(path.replace("\\", "/")).stem or None


def _title_of(meta: Mapping[str, Any], path: str | None) -> str | None:
    value = meta.get("title")
    title = None if value is None else _as_text(value)
    if not title or title == "None":
        return _stem(path)
    return title


def _semantics_on(meta: Mapping[str, Any]) -> bool:
    setting = meta.get("bm_parse_semantics")
    return not (setting is False or (isinstance(setting, str) and setting.lower() == "false"))


def split_lead(doc: Document) -> tuple[str, Document]:
    """The note as Basic Memory reads it: ``(lead, note)``.

    Basic Memory (0.24.1, ``file_utils._split_frontmatter``) skips blank lines
    before the opening ``---``: a note that starts with blank lines and then
    a closed frontmatter block has that frontmatter.  Then ``lead`` is those
    blank lines (and a BOM) as written and ``note`` the text after them;
    otherwise ``lead`` is ``""`` and ``note`` is ``doc``.  Reading, linting
    and editing go through ``note`` (an edit never adds a second frontmatter
    block), and the lead is kept in front of every edit.
    """
    lines = doc.lines
    if doc.fm_close is not None or not lines or lines[0].strip():
        return "", doc
    k = 1
    while k < len(lines) and not lines[k].strip():
        k += 1
    if k == len(lines) or not is_fence(lines[k]):
        return "", doc
    inner = parse("".join(lines[k:]), doc.path)
    if inner.fm_close is None:
        return "", doc
    return doc.bom + "".join(lines[:k]), inner


def bm_view(doc: Document) -> BMView:
    """How Basic Memory reads ``doc``: invalid frontmatter means *no* frontmatter.

    Never raises.  (Sessionkit's own :meth:`BasicMemoryAdapter.read` is
    stricter: it raises :class:`~sessionkit.errors.ParseError` with the line.)
    """
    doc = split_lead(doc)[1]
    try:
        meta: Mapping[str, Any] = doc.meta
        ok = True
        start = doc.body_start
    except SessionKitError:
        meta, ok, start = {}, False, 0
    facts = parse_facts(_body_lines(doc), start) if _semantics_on(meta) else Facts()
    type_value = meta.get("type")
    return BMView(
        metadata=meta,
        frontmatter_ok=ok,
        title=_title_of(meta, doc.path),
        type="note" if type_value is None else _as_text(type_value),
        tags=parse_bm_tags(meta.get("tags")),
        facts=facts,
    )


# --------------------------------------------------------------------------
# reading


class _Pos(NamedTuple):
    """Where one list item sits: lines ``start:end``, and whether it is a line of its own."""

    start: int
    end: int
    editable: bool


class _Layout:
    """Where each model list item sits (for minimal edits): ``lists`` maps a list
    attribute to its items' positions, worked out on first use (only edits ask)."""

    def __init__(self, lines: Sequence[str], filing: _Filing) -> None:
        self._lines = lines
        self._where = filing.where
        self._explicit = filing.explicit
        self._lists: dict[str, list[_Pos]] | None = None

    @property
    def lists(self) -> dict[str, list[_Pos]]:
        """Attribute -> positions of its items (computed once)."""
        if self._lists is None:
            lines = self._lines
            out: dict[str, list[_Pos]] = {
                attr: [_Pos(line, line + 1, _is_item(lines[line])) for line in at]
                for attr, at in self._where.items()
                if attr != "relations"
            }
            at = self._where.get("relations")
            if at is not None:  # (last, as the relations of a Facts come after its observations)
                explicit = self._explicit
                out["relations"] = [
                    _Pos(line, line + 1, bool(explicit[k]) and _is_item(lines[line]))
                    for k, line in enumerate(at)
                ]
            self._lists = out
        return self._lists


def _is_item(line: str) -> bool:
    """Whether ``line`` (its end kept or not) is a ``- ``, ``* `` or ``+ `` list item line."""
    return line.lstrip(" ")[:2] in _ITEM_MARKS


_ITEM_MARKS = frozenset(("- ", "* ", "+ "))


def _link_of(rel: BMRelation) -> Link:
    target = rel.target
    label = None
    if not rel.markdown and "|" in target:
        base, _, alias = target.partition("|")
        target, label = base.strip(), alias.strip() or None
    elif rel.markdown:
        label = rel.label
    return Link(
        target=target,
        label=label,
        relation=rel.type,
        context=rel.context,
        style=_MARKDOWN if rel.markdown else _WIKI,
    )


_MARKDOWN, _WIKI = LinkStyle.MARKDOWN, LinkStyle.WIKI


def _observation_of(obs: BMObservation) -> Observation:
    return Observation(
        category=obs.category, content=obs.content, tags=obs.tags, context=obs.context
    )


def _file(obs: BMObservation, have_summary: bool) -> tuple[str, Any]:
    """Where an observation is filed, ``(attribute, value)``: the first ``[summary]`` to
    ``summary``, ``[context]``… to their list field as text, any other to ``observations``."""
    target = _CATEGORY_FIELDS.get(obs.category or "")
    if target is None or (have_summary and target == "summary"):
        return "observations", _observation_of(obs)
    return target, obs.text


def _filed(observations: Iterable[BMObservation]) -> Iterator[tuple[str, Any]]:
    """:func:`_file` of each observation, in order, one at a time."""
    have_summary = False
    for obs in observations:
        filed = _file(obs, have_summary)
        if filed[0] == "summary":
            have_summary = True
        yield filed


def _sections_of(
    doc: Document, placed: bytearray | None = None
) -> list[tuple[ExtraSection, int, int]]:
    """Prose sections ``(section, first line, end)`` (the preamble titled ``""``), and
    the lines of a fact section that are no fact's (``placed``: a byte a line, set on a
    fact's line), so the model holds every word of the note."""
    out: list[tuple[ExtraSection, int, int]] = []
    lines = doc.lines
    sections = doc.sections
    first = sections[0].start if sections else len(lines)
    a, b = doc.body_start, first
    while a < b and not lines[a].strip():
        a += 1
    while b > a and not lines[b - 1].strip():
        b -= 1
    if a < b:
        out.append((ExtraSection(title="", body=_joined(lines, a, b)), doc.body_start, first))
    for sec in sections:
        if sec.title in _FACT_SECTIONS:
            if placed is None:
                placed = _fact_lines(doc)
            loose = _loose_lines(doc, sec, placed)
            if loose:
                out.append(
                    (
                        ExtraSection(title=sec.title, body=_loose_body(lines, loose)),
                        sec.start,
                        sec.end,
                    )
                )
            continue
        a, b = sec.start + 1, doc.content_end(sec)
        while a < b and not lines[a].strip():
            a += 1
        out.append((ExtraSection(title=sec.title, body=_joined(lines, a, b)), sec.start, sec.end))
    return out


def _fact_lines(doc: Document) -> bytearray:
    """A byte a line of ``doc``: 1 on the line of a fact of its body (as
    :func:`_session_fields` reads them), else 0."""
    placed = bytearray(len(doc.lines))
    if _semantics_on(doc.meta):
        for fact in iter_facts(_body_lines(doc), doc.body_start):
            placed[fact.line] = 1
    return placed


def _loose_lines(doc: Document, sec: Section, placed: bytearray) -> list[int]:
    """The non-blank lines of fact section ``sec`` that are no fact's (zero in ``placed``)."""
    lines = doc.lines
    return [i for i in range(sec.start + 1, sec.end) if not placed[i] and lines[i].strip()]


def _loose_body(lines: Sequence[str], loose: Sequence[int]) -> str:
    """The loose lines of a fact section as one text: lines next to each other
    joined by ``\\n``, runs apart (a blank line or a fact between) by ``\\n\\n``."""
    parts: list[str] = []
    prev: int | None = None
    for i in loose:
        if prev is not None:
            parts.append("\n" if i == prev + 1 else "\n\n")
        parts.append(strip_eol(lines[i]))
        prev = i
    return "".join(parts)


def _joined(lines: Sequence[str], a: int, b: int) -> str:
    """``"\\n".join`` of ``lines[a:b]`` without their line ends."""
    return "\n".join([strip_eol(line) for line in lines[a:b]])


def _classify(doc: Document) -> tuple[Session, _Layout]:
    """The session of ``doc`` and where its list items sit."""
    fields, layout, _ = _session_fields(doc)
    return Session(**fields), layout


class _Filing:
    """The facts of a body filed one at a time (no fact object outlives its line), with
    where they came from: ``where`` (attribute -> its items' lines), ``explicit`` (a byte
    a relation), ``placed`` (a byte a line: 1 observation, 2 relation) and ``picked``
    (the first ``[summary]`` on a line of ``only``, see :func:`_picked`)."""

    __slots__ = (
        "explicit",
        "lists",
        "observations",
        "picked",
        "placed",
        "relations",
        "summary",
        "where",
    )

    def __init__(self, size: int, like: Mapping[str, tuple[str, ...]] | None = None) -> None:
        self.summary: str | None = None
        self.lists: dict[str, list[str] | _Following] = {
            name: _Following(like[name]) if like and name in like else []
            for name in _CATEGORY_FIELDS.values()
        }
        self.observations: list[Observation] = []
        self.relations: list[Link] = []
        self.where: dict[str, array[int]] = {}
        self.explicit = bytearray()
        self.placed = bytearray(size)
        self.picked: tuple[str, int] | None = None

    def read(self, lines: Sequence[str], start: int, only: bytearray | None) -> None:
        """File the facts of the body ``lines[start:]``."""
        lists, observations, relations = self.lists, self.observations, self.relations
        where, placed, explicit = self.where, self.placed, self.explicit
        for fact in iter_facts(lines, start):
            line = fact.line
            if isinstance(fact, BMObservation):
                placed[line] |= 1
                attr, value = _file(fact, self.summary is not None)
                if attr == "observations":
                    observations.append(value)
                elif attr == "summary":
                    self.summary = value
                else:
                    lists[attr].append(value)
                if (
                    only is not None
                    and self.picked is None
                    and only[line]
                    and _CATEGORY_FIELDS.get(fact.category or "") == "summary"
                ):
                    self.picked = fact.text, line
            else:
                placed[line] |= 2
                attr = "relations"
                relations.append(_link_of(fact))
                explicit.append(fact.explicit)
            at = where.get(attr)
            if at is None:
                at = where[attr] = array("i")
            at.append(line)


class _Following:
    """A list that, while its values are those of ``like`` (what the reader expects),
    holds only how many: a read-back makes no second tuple of a big list."""

    __slots__ = ("count", "items", "like")

    def __init__(self, like: tuple[str, ...]) -> None:
        self.like = like
        self.count = 0
        self.items: list[str] | None = None

    def append(self, value: str) -> None:
        """Add ``value`` (a list of its own from the first value ``like`` has not)."""
        items = self.items
        if items is None:
            like, n = self.like, self.count
            if n < len(like) and like[n] == value and type(like[n]) is str:
                self.count = n + 1
                return
            items = self.items = list(like[:n])
        items.append(value)

    def values(self) -> tuple[str, ...]:
        """The values appended, as a tuple."""
        if self.items is not None:
            return tuple(self.items)
        return self.like if self.count == len(self.like) else self.like[: self.count]


def _values(items: list[str] | _Following) -> tuple[str, ...]:
    return items.values() if isinstance(items, _Following) else tuple(items)


class _Picked(NamedTuple):
    """The facts of a note on the lines of ``only`` (see :func:`_session_fields`),
    filed as :meth:`BasicMemoryAdapter.read` files a note's facts; a value
    equal to the session's is the session's own tuple."""

    summary: str | None
    lists: dict[str, tuple[str, ...]]
    observations: tuple[Observation, ...]
    relations: tuple[Link, ...]


def _keep(
    items: tuple[Any, ...], at: Sequence[int], keep: Callable[[int], object]
) -> tuple[Any, ...]:
    """The items of ``items`` whose line (``at``, in step) ``keep`` takes: ``items``
    itself when that is all of them."""
    if len(at) == len(items) and all(map(keep, at)):
        return items  # (asked first: no list of a million items to find it out)
    return tuple(item for item, line in zip(items, at, strict=True) if keep(line))


def _picked(filing: _Filing, fields: Mapping[str, Any], only: bytearray) -> _Picked:
    """The observations of ``filing`` on the lines of ``only`` filed anew, and its
    relations on those lines but not on an observation's line; ``fields``: the
    session's values (their tuples are shared where nothing is left out)."""
    where = filing.where
    no_lines: Sequence[int] = ()
    summary = filing.picked[0] if filing.picked is not None else None
    # the first summary of ``only``, when it is not the session's, is among its observations
    first = where["summary"][0] if "summary" in where else -1
    moved = filing.picked[1] if filing.picked is not None and filing.picked[1] != first else -1
    lists = {
        name: _keep(fields[name], where.get(name, no_lines), only.__getitem__)
        for name in _CATEGORY_FIELDS.values()
        if name != "summary"
    }
    observations = _keep(
        fields["observations"],
        where.get("observations", no_lines),
        lambda line: only[line] and line != moved,
    )
    placed = filing.placed
    relations = _keep(
        fields["relations"],
        where.get("relations", no_lines),
        lambda line: only[line] and not placed[line] & 1,
    )
    return _Picked(summary, lists, observations, relations)


def _session_fields(
    doc: Document,
    only: Iterable[range] | None = None,
    like: Mapping[str, tuple[str, ...]] | None = None,
) -> tuple[dict[str, Any], _Layout, _Picked | None]:
    """The session's fields (keyword arguments), its list layout and with ``only`` (line
    ranges) the facts on those lines; ``like``: lists the note is expected to hold."""
    meta = doc.meta  # raises ParseError with a line for unusable frontmatter
    semantics = _semantics_on(meta)
    mask: bytearray | None = None
    if only is not None:
        mask = bytearray(len(doc.lines))
        for span in only:
            mask[span.start : span.stop] = b"\x01" * len(span)
    filing = _Filing(len(doc.lines), like)
    if semantics:
        filing.read(_body_lines(doc), doc.body_start, mask)
    layout = _Layout(doc.lines, filing)
    fields: dict[str, Any] = {}
    lists = filing.lists
    extra: dict[str, Any] = {}
    id_key = _id_key(meta)
    for key, value in meta.items():
        if key in _KEY_FIELDS:
            fields[_KEY_FIELDS[key]] = _opt_text(value)
        elif key == id_key:
            fields["id"] = _opt_text(value)
        elif key not in _RESERVED:
            extra[key] = value
    word = meta.get("status")
    status = Status.ACTIVE if word is None else status_of(word)
    if status is Status.DONE and meta.get(_ABANDONED_KEY) == "abandoned":
        status = Status.ABANDONED  # an abandoned aiwiki session, converted (_ABANDONED_KEY)
    status_word = None if word is None else _as_text(word)
    fields.update(
        status=status,
        status_word=None if status_word == _STATUS_WRITE[status] else status_word,
        title=_title_of(meta, doc.path),
        summary=filing.summary,
        tags=parse_bm_tags(meta.get("tags")),
        context=_values(lists["context"]),
        next_steps=_values(lists["next_steps"]),
        decisions=_values(lists["decisions"]),
        gotchas=_values(lists["gotchas"]),
        questions=_values(lists["questions"]),
        observations=tuple(filing.observations),
        relations=tuple(filing.relations),
        extra=extra,
    )
    for name in lists:
        lists[name] = []  # the tuples hold them now
    filing.observations = []
    filing.relations = []
    fields["sections"] = tuple(s for s, _, _ in _sections_of(doc, filing.placed))
    picked: _Picked | None = None
    if mask is not None:
        if semantics:
            picked = _picked(filing, fields, mask)
        else:  # the session has no facts: read them for ``only`` alone
            alone = _Filing(len(doc.lines))
            alone.read([line.replace("\x00", "") for line in doc.lines], doc.body_start, mask)
            own: dict[str, Any] = {name: _values(alone.lists[name]) for name in alone.lists}
            own["observations"] = tuple(alone.observations)
            own["relations"] = tuple(alone.relations)
            picked = _picked(alone, own, mask)
    return fields, layout, picked


def _body_lines(doc: Document) -> Sequence[str]:
    """``doc``'s lines as Basic Memory reads them for facts (NUL bytes dropped)."""
    return [line.replace("\x00", "") for line in doc.lines] if _has_nul(doc) else doc.lines


def _has_nul(doc: Document) -> bool:
    """Whether ``doc`` holds a NUL byte (its text looked at a piece at a time)."""
    return any("\x00" in piece for piece in doc.pieces)
