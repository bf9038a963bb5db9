"""The ``basic-memory`` format: Basic Memory notes (observations, relations, Picoschema).

A Basic Memory note is Markdown with YAML frontmatter.  Its facts are
*observations* (``- [category] content #tag (context)``) and *relations*
(``- relation_type [[Target]] (context)`` and any ``[[Target]]`` in text); see
:mod:`sessionkit.adapters._bm_grammar` for the exact grammar and
``docs/basic-memory.md`` for the mapping to :class:`~sessionkit.model.Session`.

Reading keeps everything: frontmatter keys the model has no field for go to
``Session.extra``, observations and relations without a dedicated field go to
``Session.observations`` / ``Session.relations`` in order, and the prose
sections (``## Summary``, ``## Recent thread``…) become
:class:`~sessionkit.model.ExtraSection` values.  Writing a new note follows
Basic Memory's own ``write_note`` byte for byte (key order, PyYAML safe-dump
style, ``---\\n{yaml}---\\n\\n{body}``, canonical permalink); writing with a
base document splices only what changed.
"""

from __future__ import annotations

import itertools
import re
from array import array
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import PurePosixPath
from typing import Any, NamedTuple, overload

import attrs
import yaml

from .. import _fastpaths
from .._diff import opcodes
from .._lines import Lines, batched, chunked, handed, spanned
from ..diagnostics import Diagnostic, Severity
from ..document import MANY_LINES, Document, Section, _strip_eol, parse
from ..errors import FormatError, ParseError, SessionKitError
from ..markdown import tokenize
from ..model import ExtraSection, Link, LinkStyle, Observation, Origin, Session, Status
from . import picoschema
from ._bm_grammar import BMObservation, BMRelation, Facts, iter_facts, parse_facts
from ._bm_permalink import filename_for_title, generate_permalink
from .profiles import AIWIKI as AIWIKI_PROFILE
from .profiles import BASIC_MEMORY as PROFILE

__all__ = [
    "BASIC_MEMORY",
    "DEFAULT_FOLDER",
    "PROFILE",
    "SESSION_TYPES",
    "BMView",
    "BasicMemoryAdapter",
    "bm_view",
    "dump_yaml",
    "note_path",
    "parse_bm_tags",
    "session_id_of",
    "split_lead",
    "status_of",
    "status_word_of",
]

NAME = "basic-memory"
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
_STATUS_READ = PROFILE.status_words
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


# --------------------------------------------------------------------------
# YAML in Basic Memory's style


def dump_yaml(data: Mapping[str, Any]) -> str:
    """Frontmatter YAML exactly as Basic Memory's ``write_note`` dumps it.

    PyYAML ``SafeDumper``, insertion order, unicode kept, block style (so
    lists are ``- item`` lines), PyYAML's default width and quoting.  Data in
    the domain where libyaml's emitter writes the very same bytes (see
    :func:`_c_emits_alike`; proven by a differential test) goes through
    ``CSafeDumper``, which is many times faster, fed the node tree that
    ``SafeRepresenter`` would build (:func:`_c_dump`).  That is a fast lane
    (``c-yaml``): :mod:`sessionkit._fastpaths` turns it off, and then PyYAML
    writes everything.
    """
    data = dict(data)
    if _C_DUMPER is not None and _fastpaths.enabled("c-yaml") and _c_emits_alike(data):
        _fastpaths.answered("c-yaml")
        return _c_dump(data)
    return _dump(data, _NelSafeDumper if _has_nel(data) else yaml.SafeDumper)


class _NelSafeDumper(yaml.SafeDumper):
    """``SafeDumper`` that double-quotes a string holding U+0085 (NEL).

    PyYAML writes NEL raw inside a plain or single-quoted scalar, where YAML
    reads it as a line break (a space): the value would not read back.  In
    double quotes it is escaped (``\\N``) and does.  Basic Memory's own
    ``write_note`` loses such a character; sessionkit keeps it.
    """


def _represent_str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = '"' if "\x85" in value else None
    return dumper.represent_scalar(_TAG_STR, value, style=style)


_NelSafeDumper.add_representer(str, _represent_str)


def _has_nel(value: Any) -> bool:
    if isinstance(value, str):
        return "\x85" in value
    if isinstance(value, Mapping):
        return any(_has_nel(k) or _has_nel(v) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return any(_has_nel(v) for v in value)
    return False


def _dump(data: dict[str, Any], dumper: Any) -> str:
    return yaml.dump(
        data, Dumper=dumper, sort_keys=False, allow_unicode=True, default_flow_style=False
    )


_C_DUMPER: Any = getattr(yaml, "CSafeDumper", None)
_TAG_STR = "tag:yaml.org,2002:str"
_TAG_INT = "tag:yaml.org,2002:int"
_TAG_BOOL = "tag:yaml.org,2002:bool"
_TAG_NULL = "tag:yaml.org,2002:null"
_TAG_SEQ = "tag:yaml.org,2002:seq"
_TAG_MAP = "tag:yaml.org,2002:map"


def _c_dump(data: dict[str, Any]) -> str:
    """``_dump(data, CSafeDumper)`` for data where :func:`_c_emits_alike` holds.

    Builds the nodes ``SafeRepresenter`` builds with these options (no default
    style; block style for the mapping and for lists; a list object met a
    second time is the same node, which the serializer writes as an alias)
    and hands them to the C serializer, skipping the representer's dispatch.
    """
    seen: dict[int, yaml.SequenceNode] = {}
    pairs: list[tuple[yaml.Node, yaml.Node]] = []
    for key, value in data.items():
        if type(value) is list:
            node: yaml.Node | None = seen.get(id(value))
            if node is None:
                node = yaml.SequenceNode(_TAG_SEQ, [_c_scalar(i) for i in value], flow_style=False)
                seen[id(value)] = node
        else:
            node = _c_scalar(value)
        pairs.append((yaml.ScalarNode(_TAG_STR, key), node))
    root = yaml.MappingNode(_TAG_MAP, pairs, flow_style=False)
    return str(yaml.serialize(root, Dumper=_C_DUMPER, allow_unicode=True))


def _c_scalar(value: Any) -> yaml.ScalarNode:
    """The scalar node ``SafeRepresenter`` makes for ``None``, a bool, an int or a str."""
    if value is None:
        return yaml.ScalarNode(_TAG_NULL, "null")
    cls = type(value)
    if cls is bool:
        return yaml.ScalarNode(_TAG_BOOL, "true" if value else "false")
    if cls is int:
        return yaml.ScalarNode(_TAG_INT, str(value))
    return yaml.ScalarNode(_TAG_STR, value)


#: keys libyaml and PyYAML write alike (long or non-ASCII simple keys differ)
_C_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}\Z")
#: characters outside the ones both emitters treat alike: line breaks, controls,
#: astral-plane characters, surrogates, the BOM, U+2028/U+2029
_C_UNSAFE = re.compile("[^\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd]")


def _c_scalar_alike(value: Any) -> bool:
    if value is None or type(value) in (bool, int):
        return True
    if type(value) is str:
        return (value.isascii() and value.isprintable()) or not _C_UNSAFE.search(value)
    return False


def _c_emits_alike(data: Mapping[str, Any]) -> bool:
    """Whether libyaml's emitter writes ``data`` byte for byte as PyYAML's does.

    Short ASCII identifier keys; values ``None``, bools, ints, one-line strings
    of printable BMP characters, and lists of those.
    """
    for key, value in data.items():
        if type(key) is not str or not _C_KEY.match(key):
            return False
        if type(value) is list:
            if not all(_c_scalar_alike(item) for item in value):
                return False
        elif not _c_scalar_alike(value):
            return False
    return True


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
    if k == len(lines) or not _LEAD_FENCE.match(lines[k]):
        return "", doc
    inner = parse("".join(lines[k:]), doc.path)
    if inner.fm_close is None:
        return "", doc
    return doc.bom + "".join(lines[:k]), inner


_LEAD_FENCE = re.compile(r"---[ \t]*(?:\r?\n|\r)?\Z")


def _lead_lines(lead: str) -> int:
    return lead.count("\n") if "\n" in lead else lead.count("\r")


def _shift(exc: SessionKitError, lead: str) -> SessionKitError:
    if lead and exc.line is not None:
        exc.line += _lead_lines(lead)
    return exc


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
    lines = [line.replace("\x00", "") for line in doc.lines] if _has_nul(doc) else doc.lines
    facts = parse_facts(lines, start) if _semantics_on(meta) else Facts()
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
    """Where each model list item sits in a document (for minimal edits).

    ``lists`` maps a list attribute (``decisions``, ``observations``,
    ``relations``…) to the positions of its items in order.  The reader
    records only each item's line (:class:`_Filing`, four bytes an item);
    the positions are worked out on first use: only edits with a base
    document ask for them, and a plain read (every conversion reads each
    note) does not.
    """

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
    """Whether ``line`` is a ``- ``, ``* `` or ``+ `` list item line.

    The line end need not be cut off first: it can only change the first two
    characters of a line too short to be an item either way.
    """
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
    """Where :meth:`BasicMemoryAdapter.read` files an observation: ``(attribute, value)``.

    The first ``[summary]`` (``have_summary`` false) is ``summary``;
    ``[context]``, ``[decision]``… go to their list field as text; every
    other observation (a second summary too) is an
    :class:`~sessionkit.model.Observation`.
    """
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
    """Prose sections: (section, first line, end) — the preamble has title ``""``.

    A section's body is its lines from the first non-blank one to the last,
    without line ends, joined with ``\\n`` (:func:`_joined`).  A fact section
    (``## Observations``, ``## Relations``) is here too when it holds lines that
    are the line of no fact (``placed``, a byte a line, non-zero on a fact's
    line; read from ``doc`` when not given: prose, a fence, a lazy or nested
    line under an item): its body is those lines (:func:`_loose_lines`), so
    the model holds every word of the note.
    """
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
        parts.append(_strip_eol(lines[i]))
        prev = i
    return "".join(parts)


def _joined(lines: Sequence[str], a: int, b: int) -> str:
    """``"\\n".join`` of ``lines[a:b]`` without their line ends.

    Every line but a document's last ends with ``\\n`` (lines are split on
    ``\\n`` only), so where the text has no ``\\r`` it is the lines as they
    are, less the last line's ``\\n``.
    """
    whole, start, end = spanned(lines, a, b)  # (the note's own text when lines are offsets)
    if whole.find("\r", start, end) >= 0:
        return "\n".join([_strip_eol(line) for line in lines[a:b]])
    if end > start and whole[end - 1] == "\n":
        end -= 1  # (one cut of the text, not a cut and then a copy less its last character)
    return whole[start:end]


def _classify(doc: Document) -> tuple[Session, _Layout]:
    """The session of ``doc`` and where its list items sit."""
    fields, layout, _ = _session_fields(doc)
    return Session(**fields), layout


class _Filing:
    """The facts of a body filed as :meth:`BasicMemoryAdapter.read` files them,
    one at a time as :func:`~sessionkit.adapters._bm_grammar.iter_facts` makes
    them (no fact object outlives its line).

    Besides the session's values it keeps, compactly, where they came from:
    ``where`` maps each attribute (``summary``, ``decisions``…,
    ``observations``, ``relations``) to the lines of its items in order (an
    ``array`` of ints), ``explicit`` a byte a relation (a ``type [[T]]`` list
    item), ``placed`` a byte a line of the document (bit 1: an observation's
    line, bit 2: a relation's).  ``picked``: the text and line of the first
    ``[summary]`` on a line of ``only`` (see :func:`_picked`).
    """

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
    """A list of a note's values that, while they are those of ``like`` (a tuple the
    reader expects: the session a note was rendered from), holds only how many.

    :meth:`values` is the tuple of the values appended, ``like`` itself when they
    are all of ``like``: a read-back of a note of a million observations makes
    no list and no second tuple of them.  Equal strings are interchangeable.
    """

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
    """The session's fields as keyword arguments, where its list items sit, and
    with ``only`` (ranges of line numbers) the facts on those lines
    (:class:`_Picked`; read even when ``bm_parse_semantics`` is off and the
    session has none).  ``like``: lists the note is expected to hold
    (attribute -> tuple); a list equal to its expected one is that tuple."""
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


# --------------------------------------------------------------------------
# writing


def _check_line(text: str, what: str) -> str:
    if "\n" in text or "\r" in text:
        raise FormatError(f"{what} spans several lines; a Basic Memory observation is one line")
    if not text.strip():
        raise FormatError(f"{what} is empty; Basic Memory drops empty observations")
    return text.strip()


def _render_observation(obs: Observation) -> str:
    content = _check_line(obs.content, "an observation")
    head = f"- {content}" if obs.category is None else f"- [{obs.category}] {content}"
    if obs.context is not None:
        head += f" ({obs.context})"
    return head


def _render_category(category: str, text: str) -> str:
    return f"- [{category}] {_check_line(text, f'a [{category}] observation')}"


def _render_relation(link: Link) -> str:
    if link.style is LinkStyle.MARKDOWN:
        line = f"- [{link.label or ''}]({link.target})"
    else:
        rel = link.relation
        if not rel or any(c.isspace() for c in rel):
            rel = '"' + rel.replace('"', "'") + '"'
        target = link.target + (f"|{link.label}" if link.label else "")
        line = f"- {rel} [[{target}]]"
    if link.context is not None and link.style is not LinkStyle.MARKDOWN:
        line += f" ({link.context})"
    return line


def _normalize(session: Session) -> Session:
    """Fold model parts Basic Memory has no place for into ones it has."""
    if not session.files_touched and not session.checkpoints and not session.blocks:
        return session
    observations = list(session.observations)
    for cite in session.files_touched:
        observations.append(Observation(category="file", content=cite.render()))
    sections = list(session.sections)
    from .profiles import AIWIKI

    for title, field in AIWIKI.sections.items():  # prose among list items: a section of its own
        prose = [b.text for b in session.blocks.get(field, ()) if not b.is_item]
        if prose:
            sections.append(ExtraSection(title=title, body="\n\n".join(prose)))
    pre = session.blocks.get("checkpoints")
    if session.checkpoints or pre:
        parts: list[str] = [b.text + "\n" for b in pre or ()]
        for cp in session.checkpoints:
            parts.append(f"### {cp.event} at {cp.at}")
            if cp.body:
                parts.extend(["", cp.body])
            parts.append("")
        sections.append(ExtraSection(title="Checkpoints", body="\n".join(parts).rstrip("\n")))
    return attrs.evolve(
        session,
        files_touched=(),
        checkpoints=(),
        observations=tuple(observations),
        sections=tuple(sections),
        blocks={},
    )


def note_path(title: str, folder: str = DEFAULT_FOLDER) -> str:
    """The project-relative path ``write_note`` gives a note: ``{folder}/{title}.md`` sanitised."""
    name = filename_for_title(title) + ".md"
    folder = folder.strip("/")
    return f"{folder}/{name}" if folder else name


def _default_title(session: Session) -> str:
    if session.title:
        return session.title
    if session.started:
        return "Session " + session.started.replace("T", " ").rstrip("Z")[:19]
    if session.short_id:
        return f"Session {session.short_id}"
    return "Session"


def _frontmatter(session: Session, folder: str, project: str | None) -> dict[str, Any]:
    title = _default_title(session)
    meta: dict[str, Any] = {"title": title, "type": session.extra.get("type", "session")}
    permalink = session.extra.get("permalink")
    if permalink is None:
        permalink = generate_permalink(note_path(title, folder), project=project)
    meta["permalink"] = permalink
    meta["status"] = status_word_of(session)
    id_key = _new_id_key(session.extra)
    for key, attr in _KEY_FIELDS.items():
        value = getattr(session, attr)
        if value is not None and not (key == _LEGACY_ID and id_key == _SHARED_ID):
            meta[key] = value
    for key, value in session.extra.items():
        if key not in ("type", "permalink", "title", "tags") and key not in meta:
            meta[key] = value
            if key == "agent" and id_key == _SHARED_ID and session.id is not None:
                meta[_SHARED_ID] = session.id  # after its agent, as the hooks write it
    if session.tags:
        meta["tags"] = list(session.tags)
    return meta


def _multiset_remove(items: Sequence[Any], implied: Iterable[Any]) -> list[Any]:
    remaining = list(items)
    for value in implied:
        if value in remaining:
            remaining.remove(value)
    return remaining


def _render_body(session: Session, *, implied: bool = True) -> list[str | Iterator[str]]:
    """The note's body: prose sections, then ``## Observations``, then ``## Relations``,
    as parts to join (:func:`_pieces`): a fact section's lines are an iterator of
    batches of lines joined (:func:`~sessionkit._lines.batched`), made as the
    note is joined, so a million observations are never a million strings, nor
    a second copy of their text, at once.

    With ``implied`` (the default) the session's facts are all the facts of
    the note, as :meth:`BasicMemoryAdapter.read` returns them: facts the
    prose already holds (``- [decision] …`` lines, ``[[links]]``) and links
    inside observation lines are not written a second time.  Without it the
    session's observations and relations are exactly the lines to add below
    the prose.
    """
    blocks: list[list[str | Iterator[str]]] = []  # a prose section's parts (not copied)
    loose: dict[str, list[str]] = {}  # the no-fact lines of the fact sections
    for sec in session.sections:
        if sec.title in _FACT_SECTIONS:
            if sec.body:
                loose.setdefault(sec.title, []).append(sec.body)
            continue
        body = sec.body
        if not sec.title:
            blocks.append([body])
            continue
        end = len(body)
        while end and body[end - 1] == "\n":  # (a heading and its body, newlines cut)
            end -= 1
        blocks.append([f"## {sec.title}\n\n", body[:end]] if end else [f"## {sec.title}"])
    summary = session.summary
    lists: dict[str, Sequence[Any]] = {
        attr: getattr(session, attr)
        for attr in (*_CATEGORY_FIELDS.values(), "observations")
        if attr != "summary"
    }
    relations: list[Link] = list(session.relations)
    prose = "\n\n".join("".join(_pieces(block)) for block in blocks) if implied else ""
    if prose:
        found: list[BMRelation] = []
        for attr, value in _filed(_observations_apart(prose, found)):
            if attr == "summary":
                if value == summary:
                    summary = None
            elif value in lists[attr]:
                left = lists[attr]
                if not isinstance(left, list):  # (copied once, when first needed)
                    left = lists[attr] = list(left)
                left.remove(value)
        relations = _multiset_remove(relations, (_link_of(r) for r in found))
    obs_pieces: Iterator[str] = batched(_observation_lines(summary, lists))
    if implied and relations:
        obs_text = "".join(obs_pieces)
        if "[" in obs_text:
            inline = [f for f in iter_facts(_lines_of(obs_text)) if isinstance(f, BMRelation)]
            relations = _multiset_remove(relations, (_link_of(r) for r in inline))
        obs_pieces = iter((obs_text,))
    rel_pieces = batched(_render_relation(link) for link in relations)
    sections = blocks
    for title, pieces in (("Observations", obs_pieces), ("Relations", rel_pieces)):
        first = next(pieces, "")  # (the lines are made as the note is joined)
        parts: list[str | Iterator[str]] = [first, pieces] if first else []
        for text in loose.get(title, ()):
            parts.extend(("\n\n", text) if parts else (text,))
        if parts:
            sections.append([f"## {title}\n\n", *parts])
    out: list[str | Iterator[str]] = []
    for n, section in enumerate(sections):
        if n:
            out.append("\n\n")
        out.extend(section)
    if out:
        out.append("\n")
    return out


def _pieces(parts: Iterable[str | Iterator[str]]) -> Iterator[str]:
    """The strings of :func:`_render_body`'s parts, in order."""
    for part in parts:
        if isinstance(part, str):
            yield part
        else:
            yield from part


def _lines_of(text: str) -> Sequence[str]:
    """The lines of ``text`` split at ``\\n``: for many lines, as offsets into it
    (:class:`~sessionkit._lines.Lines`, line ends kept, which the grammar reads alike)."""
    return Lines(text) if text.count("\n") >= MANY_LINES else text.split("\n")


def _observations_apart(text: str, relations: list[BMRelation]) -> Iterator[BMObservation]:
    """The observations of ``text`` (lines split at ``\\n``), one at a time; its
    relations are appended to ``relations`` as they come (no other fact outlives
    its line)."""
    for fact in iter_facts(_lines_of(text)):
        if isinstance(fact, BMObservation):
            yield fact
        else:
            relations.append(fact)


def _observation_lines(summary: str | None, lists: dict[str, Sequence[Any]]) -> Iterator[str]:
    """The observation lines of ``## Observations``, in order."""
    if summary is not None:
        yield _render_category("summary", summary)
    for category, attr in _CATEGORY_FIELDS.items():
        if attr != "summary":
            for text in lists[attr]:
                yield _render_category(category, text)
    for obs in lists["observations"]:
        yield _render_observation(obs)


def render_note(
    session: Session,
    *,
    folder: str = DEFAULT_FOLDER,
    project: str | None = None,
    implied: bool = True,
) -> tuple[str, str]:
    """A new note for ``session``: ``(project-relative path, text)``.

    ``project`` (default: ``session.project``) prefixes the permalink, as
    Basic Memory does for new notes.  ``implied=False``: the session's
    observations and relations are exactly the fact lines to write (none of
    them is left out because the prose or an observation line already holds
    it); see :func:`_render_body`.
    """
    path, pieces = _render_note(session, folder=folder, project=project, implied=implied)
    return path, "".join(pieces)


#: :func:`_render_note`'s ``status`` default: the session's own status word
_OWN_STATUS: Any = object()


def _render_note(
    session: Session,
    *,
    folder: str = DEFAULT_FOLDER,
    project: str | None = None,
    implied: bool = True,
    status: Any = _OWN_STATUS,
) -> tuple[str, tuple[str, ...]]:
    """:func:`render_note`, with ``status`` the ``status`` key's value as written in
    place of the session's own word (``None``: no ``status`` key), for a value the
    session's status does not give (a converted note's original word); the text in
    pieces, the frontmatter (fences included) and the body's (cut where its width
    changes), each as wide as its own characters (see
    :func:`~sessionkit.document.parse_pieces`)."""
    session = _normalize(session)
    meta = _frontmatter(session, folder, project if project is not None else session.project)
    if status is None:
        del meta["status"]
    elif status is not _OWN_STATUS:
        meta["status"] = status
    body = _render_body(session, implied=implied)
    # the body grown in place as its pieces come; a big one cut where its width changes
    # (one emoji in it widens its own piece only), one piece when it is small
    text = "\n" if body else ""
    rest = _pieces(body)
    for piece in rest:
        text += piece
        if len(text) > 1 << 16:  # (the text so far handed over, not held: it grows in place)
            box = [text]
            del text
            chunks = list(chunked(itertools.chain(handed(box), rest)))
            if sum(chunk.count("\n") for chunk in chunks) < MANY_LINES:
                chunks = ["".join(chunks)]
            break
    else:
        chunks = [text]
    head = f"---\n{dump_yaml(meta)}---\n"
    return note_path(str(meta["title"]), folder), (head, *chunks)


# -- minimal edits -----------------------------------------------------------


def _key_lines(key: str, value: Any) -> list[str]:
    return dump_yaml({key: value}).rstrip("\n").split("\n")


def _set_key(doc: Document, key: str, value: Any) -> Document:
    new = _key_lines(key, value)
    if not doc.has_frontmatter:
        return doc.insert_lines(0, ["---", *new, "---"])
    span = doc.key_spans.get(key)
    if span is not None:
        old = [doc.line_text(i) for i in range(span[0], span[1])]
        if old == new:
            return doc
        return doc.replace_lines(span[0], span[1], new)
    at = doc.fm_close if doc.fm_close is not None else 1
    if key != "tags" and "tags" in doc.key_spans:
        at = doc.key_spans["tags"][0]
    return doc.insert_lines(at, new)


def _edit_frontmatter(doc: Document, cur: Session, new: Session) -> Document:
    if new.title != cur.title:
        doc = doc.remove_key("title") if new.title is None else _set_key(doc, "title", new.title)
    id_key = (
        _id_key(doc.key_spans)
        if _LEGACY_ID in doc.key_spans or _SHARED_ID in doc.key_spans
        else _new_id_key(new.extra)
    )
    for key, attr in _KEY_FIELDS.items():
        value = getattr(new, attr)
        if value != getattr(cur, attr):
            key = id_key if key == _LEGACY_ID else key
            doc = doc.remove_key(key) if value is None else _set_key(doc, key, value)
    if (new.status, new.status_word) != (cur.status, cur.status_word):
        word = status_word_of(new)
        if word != status_word_of(cur) or "status" not in doc.key_spans:
            doc = _set_key(doc, "status", word)
    if new.tags != cur.tags:
        doc = doc.remove_key("tags") if not new.tags else _set_key(doc, "tags", list(new.tags))
    for key in cur.extra:
        if key not in new.extra:
            doc = doc.remove_key(key)
    for key, value in new.extra.items():
        if key in _RESERVED:
            raise FormatError(f"extra key {key!r} is a Session field; set the field instead")
        if key not in cur.extra or cur.extra[key] != value:
            doc = _set_key(doc, key, value)
    return doc


def _body_lines(doc: Document) -> Sequence[str]:
    """``doc``'s lines as Basic Memory reads them for facts (NUL bytes dropped)."""
    return [line.replace("\x00", "") for line in doc.lines] if _has_nul(doc) else doc.lines


def _has_nul(doc: Document) -> bool:
    """Whether ``doc`` holds a NUL byte (its text looked at a piece at a time)."""
    return any("\x00" in piece for piece in doc.pieces)


def _edit_sections(doc: Document, new: Session) -> Document:
    placed = _fact_lines(doc)  # line numbers above an edit stay valid bottom-up
    current = _sections_of(doc, placed)
    cur_titles = [s.title for s, _, _ in current]
    wanted = {s.title: s for s in new.sections}
    # edit or delete in place, bottom-up so indices stay valid
    for sec, start, end in reversed(current):
        target = wanted.get(sec.title)
        if sec.title in _FACT_SECTIONS:
            if target is not None and target.body == sec.body:
                continue
            loose = _loose_lines(doc, Section(sec.title, start, end), placed)
            for i in reversed(loose):  # the section's facts stay where they are
                doc = doc.replace_lines(i, i + 1, [])
            if target is not None and target.body:
                stop = doc.content_end(Section(sec.title, start, end - len(loose)))
                doc = doc.insert_lines(stop, ["", *target.body.split("\n")])
            continue
        if target is None:
            doc = doc.replace_lines(start, end, []) if sec.title else doc
            continue
        if target.body == sec.body:
            continue
        body_lines = target.body.split("\n") if target.body else []
        if not sec.title:
            doc = doc.replace_lines(start, end, ["", *body_lines, ""])
            continue
        stop = doc.content_end(Section(sec.title, start, end))
        doc = doc.replace_lines(start + 1, stop, ["", *body_lines])
    added = [s for s in new.sections if s.title not in cur_titles]
    for sec in [s for s in added if s.title in _FACT_SECTIONS and s.body]:
        # loose lines of a fact section: at the end of that section, or in a new one
        home = next((x for x in doc.sections if x.title == sec.title), None)
        body = sec.body.split("\n")
        if home is not None:
            doc = doc.insert_lines(doc.content_end(home), ["", *body])
        else:
            gap = [""] if doc.lines and doc.lines[-1].strip() else []
            doc = doc.insert_lines(len(doc.lines), [*gap, f"## {sec.title}", "", *body])
    added = [s for s in added if s.title not in _FACT_SECTIONS]
    if added:
        at = len(doc.lines)
        facts_sec = next((s for s in doc.sections if s.title in _FACT_SECTIONS), None)
        if facts_sec is not None:
            at = facts_sec.start
        lines: list[str] = []
        for sec in added:
            lines.extend([f"## {sec.title}" if sec.title else "", "", *sec.body.split("\n"), ""])
        if at == len(doc.lines) and doc.lines and doc.lines[-1].strip():
            lines.insert(0, "")
        doc = doc.insert_lines(at, lines)
    return doc


def _anchor(doc: Document, attr: str) -> tuple[Document, int]:
    """Where to put the first item of a list that is empty now (adding a section if needed)."""
    names = ("Relations", "Observations") if attr == "relations" else ("Observations",)
    for name in names:
        sec = doc.section(name)
        if sec is not None:
            end = doc.content_end(sec)
            if end == sec.start + 1:
                doc = doc.insert_lines(end, [""])
                return doc, end + 1
            return doc, end
    lines = ["## Relations" if attr == "relations" else "## Observations", ""]
    if doc.lines and doc.lines[-1].strip():
        lines.insert(0, "")
    doc = doc.insert_lines(len(doc.lines), lines)
    return doc, len(doc.lines)


def _edit_list(
    doc: Document,
    attr: str,
    old: Sequence[Any],
    new: Sequence[Any],
    positions: Sequence[_Pos],
    render: Callable[[Any], str],
) -> Document:
    if list(old) == list(new):
        return doc
    ops = [op for op in opcodes(old, new) if op[0] != "equal"]
    for tag, i1, i2, j1, j2 in reversed(ops):
        for k in range(i1, i2):
            if not positions[k].editable:
                raise FormatError(
                    f"cannot change {attr} item {old[k]!r}: it is part of prose "
                    f"(line {positions[k].start + 1}), not a list item of its own",
                    path=doc.path,
                    line=positions[k].start + 1,
                )
        rendered = [render(item) for item in new[j1:j2]]
        if tag in ("replace", "delete"):
            at = positions[i1].start
            for k in reversed(range(i1, i2)):
                doc = doc.replace_lines(positions[k].start, positions[k].end, [])
            if rendered:
                doc = doc.insert_lines(at, rendered)
            continue
        # insert: after (before) the whole Markdown item the neighbour is a line
        # of, so no item loses its continuation or sub-items to the new one
        if i1 > 0:
            at = _item_span(doc, positions[i1 - 1])[1]
        elif positions:
            at = _item_span(doc, positions[0])[0]
        else:
            doc, at = _anchor(doc, attr)
        doc = doc.insert_lines(at, rendered)
    return doc


def _item_span(doc: Document, pos: _Pos) -> tuple[int, int]:
    """Lines ``start:end`` of the outermost list item ``pos`` is a line of (its
    continuation and lazy lines and its sub-items; trailing blank lines left
    out), as :func:`sessionkit.markdown.tokenize` reads the section; ``pos``'s
    own lines when it is in no top-level list of the section."""
    section = next((s for s in doc.sections if s.start <= pos.start < s.end), None)
    start, stop = (section.start, section.end) if section else (doc.body_start, len(doc.lines))
    for block in tokenize(doc.lines, start, stop, tables=False):
        if block.start > pos.start:
            break
        if block.kind != "list" or block.end <= pos.start:
            continue
        for item in block.children:
            if item.start <= pos.start < item.end:
                end = item.end
                while end > pos.end and not doc.lines[end - 1].strip():
                    end -= 1
                return item.start, max(end, pos.end)
    return pos.start, pos.end


def _write_with_base(session: Session, base: Document) -> Document:
    current, _ = _classify(base)
    if current == session:
        return base
    session = _normalize(session)
    doc = _edit_frontmatter(base, current, session)
    current, _ = _classify(doc)
    if current.sections != session.sections:
        doc = _edit_sections(doc, session)
    steps: list[tuple[str, Callable[[Any], str]]] = [
        ("summary", lambda t: _render_category("summary", t)),
        *(
            (attr, (lambda c: lambda t: _render_category(c, t))(cat))
            for cat, attr in _CATEGORY_FIELDS.items()
            if attr != "summary"
        ),
        ("observations", _render_observation),
        ("relations", _render_relation),
    ]
    for attr, render in steps:
        current, layout = _classify(doc)
        if attr == "summary":
            old: Sequence[Any] = () if current.summary is None else (current.summary,)
            new: Sequence[Any] = () if session.summary is None else (session.summary,)
        else:
            old, new = getattr(current, attr), getattr(session, attr)
        doc = _edit_list(doc, attr, old, new, layout.lists.get(attr, []), render)
    return doc


# --------------------------------------------------------------------------
# lint


class _Pairs(Sequence[tuple[str, str]]):
    """``(a[i], b[i])`` pairs held as the two lists (no tuple a pair until one is asked for)."""

    __slots__ = ("_a", "_b")

    def __init__(self) -> None:
        self._a: list[str] = []
        self._b: list[str] = []

    def add(self, a: str, b: str) -> None:
        """Append the pair ``(a, b)``."""
        self._a.append(a)
        self._b.append(b)

    def __len__(self) -> int:
        return len(self._a)

    @overload
    def __getitem__(self, index: int) -> tuple[str, str]: ...
    @overload
    def __getitem__(self, index: slice) -> list[tuple[str, str]]: ...
    def __getitem__(self, index: int | slice) -> tuple[str, str] | list[tuple[str, str]]:
        if isinstance(index, slice):
            return list(zip(self._a[index], self._b[index], strict=True))
        return self._a[index], self._b[index]

    def __iter__(self) -> Iterator[tuple[str, str]]:
        return zip(self._a, self._b, strict=True)


class _LintFacts:
    """What the lint needs of a note's facts (Basic Memory's view of its body: none
    when ``bm_parse_semantics`` is off), read in one pass holding no fact object:
    ``placed``, a byte a line, 1 on a fact's line; ``observations``,
    ``(category, content)`` pairs (``note`` for no category); ``relations``,
    ``(type, target)`` pairs."""

    __slots__ = ("observations", "placed", "relations")

    def __init__(self, doc: Document, meta: Mapping[str, Any]) -> None:
        self.placed = placed = bytearray(len(doc.lines))
        self.observations = observations = _Pairs()
        self.relations = relations = _Pairs()
        if not _semantics_on(meta):
            return
        for fact in iter_facts(_body_lines(doc), doc.body_start):
            placed[fact.line] = 1
            if isinstance(fact, BMObservation):
                observations.add(fact.category or "note", fact.content)
            else:
                relations.add(fact.type, fact.target)


def _lint(doc: Document, schemas: Sequence[picoschema.Schema]) -> list[Diagnostic]:
    path = doc.path
    out: list[Diagnostic] = []

    def add(code: str, sev: Severity, line: int | None, msg: str, fixable: bool = False) -> None:
        out.append(
            Diagnostic(code=code, severity=sev, line=line, message=msg, path=path, fixable=fixable)
        )

    try:
        meta = doc.meta
    except ParseError as exc:
        add(
            "BM001",
            Severity.ERROR,
            exc.line,
            f"{exc.message}; Basic Memory would index this note as plain Markdown "
            "without frontmatter",
        )
        return out
    if not doc.has_frontmatter:
        add("BM002", Severity.WARNING, 1, "no frontmatter: Basic Memory will add one on indexing")
    else:
        for code, key in (("BM002", "title"), ("BM003", "type"), ("BM004", "permalink")):
            if meta.get(key) in (None, ""):
                add(
                    code,
                    Severity.WARNING,
                    1,
                    f"frontmatter has no {key!r}: Basic Memory will add it and rewrite the file",
                    fixable=True,
                )
    fact_secs = [s for s in doc.sections if s.title in _FACT_SECTIONS]
    facts: _LintFacts | None = None
    if fact_secs:
        facts = _LintFacts(doc, meta)
        placed = facts.placed
        for sec in fact_secs:
            for i in range(sec.start + 1, sec.end):
                if not placed[i] and doc.lines[i].strip():
                    add(
                        "BM008",
                        Severity.WARNING,
                        i + 1,
                        f"this line of ## {sec.title} is neither an observation nor a "
                        "relation: Basic Memory does not index it (the model keeps it as "
                        "text of the section)",
                    )
    if meta.get("type") == "schema":
        try:
            picoschema.parse_schema(meta, path)
        except FormatError as exc:
            add("BM006", Severity.ERROR, 1, exc.message)
        return out
    try:
        schema = picoschema.resolve_schema(meta, [*schemas, *picoschema.builtin_schemas()])
    except FormatError as exc:
        add("BM006", Severity.ERROR, doc.key_line("schema") or 1, exc.message)
        return out
    if schema is None:
        return out
    if facts is None:
        facts = _LintFacts(doc, meta)
    title = _title_of(meta, doc.path)
    type_value = meta.get("type")
    result = picoschema.validate(
        title or "",
        schema,
        facts.observations,
        facts.relations,
        {**meta, "type": "note" if type_value is None else _as_text(type_value), "title": title},
    )
    sev = Severity.ERROR if schema.validation == "strict" else Severity.WARNING
    keyed = {r.message: r for r in result.field_results if r.message}
    for msg in (*result.errors, *result.warnings):
        fr = keyed.get(msg)
        line = None
        if fr is not None and fr.frontmatter:
            line = doc.key_line(fr.field.name) or 1
        elif msg.startswith("Missing required frontmatter key"):
            line = 1
        elif msg.startswith("Frontmatter key '"):
            line = doc.key_line(msg.split("'")[1]) or 1
        add("BM005", sev, line, f"{schema.entity} schema: {msg}")
    return out


# --------------------------------------------------------------------------
# the adapter


@attrs.define
class BasicMemoryAdapter:
    """The ``basic-memory`` format.

    Attributes:
        name: ``"basic-memory"``.
        folder: folder of new notes (the plugin's ``sessions``).
        schemas: project schema notes, consulted before the built-in ones.
    """

    name: str = NAME
    folder: str = DEFAULT_FOLDER
    schemas: tuple[picoschema.Schema, ...] = ()

    def detect(self, doc: Document) -> int:
        """90 for a session note, 60 for a note with a permalink, 30 for one with a
        type and a title, 20 for one with a title, else 0."""
        doc = split_lead(doc)[1]
        try:
            meta = doc.meta
        except SessionKitError:
            return 0
        if "schema_id" in meta or "schema_version" in meta:
            return 0
        if meta.get("type") in SESSION_TYPES:
            return 90
        if "permalink" in meta:
            return 60
        if "type" in meta and "title" in meta:
            return 30
        if "title" in meta:  # an ordinary note: Basic Memory indexes it as it is
            return 20
        return 0

    def read(self, doc: Document) -> Session:
        """Read a Basic Memory note into a :class:`Session` (see the module docs).

        Raises:
            ParseError: unclosed or invalid frontmatter (with its line);
                Basic Memory itself would index such a note as plain Markdown.
        """
        lead, note = split_lead(doc)
        try:
            fields, _, _ = _session_fields(note)
        except SessionKitError as exc:
            raise _shift(exc, lead).with_path(doc.path) from None
        # built twice rather than attrs.evolve'd: the same fields, half the work
        session = Session(**fields)
        return Session(**fields, origin=Origin(format=self.name, document=doc, session=session))

    def write(self, session: Session, base: Document | None = None) -> Document:
        """Render ``session``; with ``base``, splice only what changed.

        Without a base the note is what Basic Memory's ``write_note`` would
        write (permalink prefixed with ``session.project``'s slug).

        Raises:
            FormatError: a value Basic Memory cannot hold (a multi-line
                observation, or an edit to a link that is part of prose).
        """
        if base is not None:
            lead, note = split_lead(base)
            if not lead:
                return _write_with_base(session, base)
            edited = _write_with_base(session, note)
            return base if edited is note else parse(lead + edited.text, base.path)
        path, text = render_note(session, folder=self.folder)
        return parse(text, path)

    def lint(self, doc: Document) -> list[Diagnostic]:
        """Findings: BM001 unusable frontmatter, BM002–BM004 missing title/type/permalink,
        BM005 schema problems (warning in warn mode, error in strict), BM006 bad schema,
        BM007 a secret (see :mod:`sessionkit.redaction`), BM008 a line of a fact section
        that is no fact (Basic Memory does not index it; the model keeps it in
        :attr:`~sessionkit.model.Session.sections`).
        """
        lead, note = split_lead(doc)
        found = _lint(note, self.schemas)
        if lead:
            shift = _lead_lines(lead)
            found = [d if d.line is None else d.replace(line=d.line + shift) for d in found]
        return found


#: the registered ``basic-memory`` adapter
BASIC_MEMORY = BasicMemoryAdapter()
