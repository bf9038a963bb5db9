"""Reading an aiwiki session page: the structure scan shared by read, write and lint.

:func:`scan` never raises for body problems: it finds what it can and
records where everything is (:class:`Layout`), so the writer can splice and
the linter can point at lines.  Frontmatter problems are the caller's to
report (``doc.meta`` raises :class:`~sessionkit.errors.ParseError`).

Mapping decisions (also in the docs):

* text before the first ``##`` section (the *preamble*, e.g. a ``# Title``)
  becomes ``ExtraSection(title="")`` first in ``Session.sections`` when it
  has any non-blank line;
* a ``Files touched`` bullet that is not a citation is kept verbatim as
  ``Citation(path=<bullet text>, code=False)`` (no line, no SHA, no note):
  :func:`citation_from_text`, where :func:`parse_citation` says ``None``;
* lines of a list section that belong to no bullet (prose, the
  ``(filled by /wrap)`` placeholder) and text between ``## Checkpoints``
  and its first entry stay in the document but have no model field.

**One reader, two builds.**  The reader is light to import (no attrs, no
model, no YAML: the agent hooks use it on every run).  What it builds from
the parts it finds is a :class:`Kinds`: :func:`model_kinds` makes the
:class:`~sessionkit.model.Session` parts (what :func:`read_page` and
:func:`scan` return, the model imported on first use), :data:`LIGHT` makes
plain :class:`Parts` (:func:`read_parts`: what the hooks and the context
rendering read).  Both go through the same functions, line for line.

A list section's bullets (and a directive's) are found by :mod:`._aiwiki_items`.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator, Sequence

from .._lazyre import lazy
from .._lines import joined
from .._plain import Plain
from ..document import item_field
from ..errors import FormatError, ParseError, SessionKitError
from ..text.grammar import (
    CITATION_BARE,
    CITATION_CODE,
    is_fence,
    may_open_block,
)
from ..text.grammar import strip_eol as _strip
from ._aiwiki_items import PLACEHOLDER, ItemSpan, ItemSpans, content_end, leading_items, scan_items
from ._aiwiki_words import FORMAT_KEYS as _FORMAT_KEYS
from ._aiwiki_words import KEYS, SECTIONS, STATUS_WORDS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from ..document import Document, Section
    from ..model import Block, Citation, Session

__all__ = [
    "LIGHT",
    "LIST_FIELDS",
    "PLACEHOLDER",
    "BlockParts",
    "CheckpointParts",
    "CheckpointSpan",
    "DirectiveParts",
    "DirectiveSpan",
    "ItemSpan",
    "ItemSpans",
    "Kinds",
    "Layout",
    "Parts",
    "SectionParts",
    "checkpoint_lines",
    "citation_from_text",
    "directive_header",
    "directive_lines",
    "item_lines",
    "model_kinds",
    "parse_citation",
    "parse_citation_lenient",
    "read_header",
    "read_parts",
    "scan",
    "scan_items",
]

#: section title -> Session field of bullet texts (``files_touched`` holds citations)
LIST_FIELDS: dict[str, str] = dict(SECTIONS)
CHECKPOINTS = "Checkpoints"

#: the rule that closes a checkpoint entry
_TIMESTAMP = r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?"
CHECKPOINT_HEADING = lazy(rf"^(?P<event>\S.*?) at (?P<at>{_TIMESTAMP})$")
DIRECTIVE_HEADER = lazy(
    r"^\*\*(?P<kind>[^*\s](?:[^*]*[^*\s])?) directive "
    r"\((?:(?P<un>unconsumed)|consumed at (?P<at>[^()\s]+))\):\*\*[ \t]*$"
)

# a backticked citation whose path has no ':', '@' or '`': the lazy path of CITATION_CODE
# cannot stop earlier there, so this reads the same parts (one line only; group 1 is the SHA)
_QUICK_CODE_CITATION = lazy(
    r"`[^\s`:@]+(?::(?:0|[1-9][0-9]*)(?:-(?:0|[1-9][0-9]*))?)?(?:@([0-9a-fA-F]{4,40}))?`(?: |\Z)"
)


_MODEL: Any = None


def _model() -> Any:
    """:mod:`sessionkit.model`, imported on first use (the light reads never need it)."""
    global _MODEL
    if _MODEL is None:
        from .. import model

        _MODEL = model
    return _MODEL


def _citation_from(m: re.Match[str], code: bool) -> Citation:
    start = m.group("start")
    end = m.group("end")
    return _model().Citation(  # type: ignore[no-any-return]
        # a path is cited again and again: one string for each (freed with its last use)
        path=sys.intern(m.group("path")),
        start=None if start is None else int(start),
        end=None if end is None else int(end),
        sha=m.group("sha"),
        note=m.group("note") or "",
        code=code,
    )


def _path_like(m: re.Match[str]) -> bool:
    path = m.group("path")
    return (
        m.group("start") is not None
        or m.group("sha") is not None
        or "/" in path
        or "." in path.strip(".")
    )


def parse_citation(text: str) -> Citation | None:
    """The citation a bullet text spells exactly, or ``None``.

    Exact means that :meth:`Citation.render` gives ``text`` back.  A bare
    (not backticked) reference must look like a path (a ``/``, a ``.``, a
    line or a SHA) to count.
    """
    m = CITATION_CODE.match(text)
    code = m is not None
    if m is None:
        m = CITATION_BARE.match(text)
        if m is None or not _path_like(m):
            return None
    c = _citation_from(m, code)
    if "@" in c.path or c.render() != text:
        return None
    return c


def _lenient(text: str) -> tuple[re.Match[str], bool] | None:
    """The citation match of ``text``'s first line, spacing forgiven, and whether it is
    backticked (:func:`parse_citation_lenient` without building the citation)."""
    first = text.strip().split("\n", 1)[0].strip()
    m = CITATION_CODE.match(first)
    code = m is not None
    if m is None:
        m = CITATION_BARE.match(first)
    if m is None or "@" in m.group("path") or (not code and not _path_like(m)):
        return None
    return m, code


def parse_citation_lenient(text: str) -> Citation | None:
    """Like :func:`parse_citation` but forgiving about spacing (for lint and fixes)."""
    found = _lenient(text)
    return None if found is None else _citation_from(*found)


def citation_state(text: str) -> int:
    """What :func:`parse_citation_lenient` would say, without building the citation.

    0: not a citation; 1: a citation without a SHA; 2: a citation with one.
    """
    found = _lenient(text)
    return 0 if found is None else 2 if found[0].group("sha") else 1


def citation_from_text(text: str) -> Citation:
    """A Files touched bullet's citation, or the verbatim fallback for a bullet that is
    not one."""
    found = parse_citation(text)
    return found or _model().Citation(path=text, code=False)


class DirectiveSpan(Plain):
    """Where a directive is: header line, item spans, the ``Status:`` item and the block end."""

    __slots__ = ("end", "header", "items", "status")

    def __init__(
        self, header: int, items: tuple[ItemSpan, ...], status: ItemSpan | None, end: int
    ) -> None:
        self.header = header
        self.items = items
        self.status = status
        self.end = end


class CheckpointSpan(Plain):
    """A checkpoint entry: heading line, content end (exclusive, after the rule) and directives."""

    __slots__ = ("content_end", "directives", "end", "heading")

    def __init__(
        self, heading: int, end: int, content_end: int, directives: tuple[DirectiveSpan, ...]
    ) -> None:
        self.heading = heading
        self.end = end
        self.content_end = content_end
        self.directives = directives


class Layout(Plain):
    """Where each part of a page is (0-based line indices into ``doc.lines``)."""

    __slots__ = (
        "bad_checkpoint_headings",
        "checkpoints",
        "extra",
        "items",
        "known",
        "loose",
        "placeholders",
        "preamble",
    )

    def __init__(
        self,
        *,
        known: dict[str, Section],
        extra: tuple[Section, ...],
        items: dict[str, ItemSpans],
        placeholders: dict[str, int],
        loose: dict[str, Sequence[int]],
        checkpoints: tuple[CheckpointSpan, ...],
        bad_checkpoint_headings: tuple[int, ...],
        preamble: tuple[int, int],
    ) -> None:
        self.known = known
        self.extra = extra
        self.items = items
        self.placeholders = placeholders
        self.loose = loose
        self.checkpoints = checkpoints
        self.bad_checkpoint_headings = bad_checkpoint_headings
        self.preamble = preamble


# -- what the reader builds: the model's parts, or light ones -------------------------


class DirectiveParts(Plain):
    """A directive as :func:`read_parts` reads it (the fields of
    :class:`~sessionkit.model.Directive`; ``state`` is ``"unconsumed"`` or ``"consumed"``)."""

    __slots__ = ("consumed_at", "gap", "items", "kind", "state", "status")

    def __init__(
        self,
        *,
        kind: str,
        state: str,
        consumed_at: str | None = None,
        items: tuple[str, ...] = (),
        status: str | None = None,
        gap: int = 0,
    ) -> None:
        self.kind = kind
        self.state = state
        self.consumed_at = consumed_at
        self.items = items
        self.status = status
        self.gap = gap

    @property
    def action(self) -> str | None:
        """The ``Action:`` item's value, if any."""
        return item_field(self.items, "Action")


class CheckpointParts(Plain):
    """A checkpoint entry as :func:`read_parts` reads it (the fields of
    :class:`~sessionkit.model.Checkpoint`)."""

    __slots__ = ("at", "body", "directives", "event")

    def __init__(
        self, *, event: str, at: str, body: str = "", directives: tuple[DirectiveParts, ...] = ()
    ) -> None:
        self.event = event
        self.at = at
        self.body = body
        self.directives = directives


class SectionParts(Plain):
    """A section the page has no field for (:class:`~sessionkit.model.ExtraSection`)."""

    __slots__ = ("body", "title")

    def __init__(self, *, title: str, body: str = "") -> None:
        self.title = title
        self.body = body


class BlockParts(Plain):
    """One block of a list section (:class:`~sessionkit.model.Block`)."""

    __slots__ = ("gap", "marker", "text")

    def __init__(self, *, text: str, marker: str | None = None, gap: int = 0) -> None:
        self.text = text
        self.marker = marker
        self.gap = gap


class Parts(Plain):
    """A page as :func:`read_parts` reads it: the fields of
    :class:`~sessionkit.model.Session` an aiwiki page holds, plainly.

    ``status`` is the status word; ``files_touched`` holds the bullet texts;
    ``checkpoints``, ``sections`` and ``blocks`` hold :class:`CheckpointParts`,
    :class:`SectionParts` and :class:`BlockParts`.
    """

    __slots__ = (
        "blocks",
        "checkpoints",
        "decisions",
        "ended",
        "extra",
        "files_touched",
        "focus",
        "gotchas",
        "id",
        "last_commit",
        "next_steps",
        "questions",
        "sections",
        "started",
        "status",
    )
    title = None  # (an aiwiki page has no title: read as the model reads it)

    def __init__(
        self,
        *,
        status: str = "active",
        id: str | None = None,
        focus: str | None = None,
        started: str | None = None,
        ended: str | None = None,
        last_commit: str | None = None,
        extra: dict[str, Any] | None = None,
        checkpoints: tuple[CheckpointParts, ...] = (),
        files_touched: tuple[str, ...] = (),
        decisions: tuple[str, ...] = (),
        gotchas: tuple[str, ...] = (),
        questions: tuple[str, ...] = (),
        next_steps: tuple[str, ...] = (),
        sections: tuple[SectionParts, ...] = (),
        blocks: dict[str, tuple[BlockParts, ...]] | None = None,
    ) -> None:
        self.status = status
        self.id = id
        self.focus = focus
        self.started = started
        self.ended = ended
        self.last_commit = last_commit
        self.extra = extra or {}
        self.checkpoints = checkpoints
        self.files_touched = files_touched
        self.decisions = decisions
        self.gotchas = gotchas
        self.questions = questions
        self.next_steps = next_steps
        self.sections = sections
        self.blocks = blocks or {}

    def __hash__(self) -> int:
        raise TypeError("unhashable type: 'Parts'")


class Kinds:
    """What the reader makes of the parts it finds: each field a class (or a
    function) called as the model's classes are, by keyword."""

    __slots__ = (
        "block",
        "checkpoint",
        "citation",
        "citation_text",
        "consumed",
        "directive",
        "section",
        "session",
        "status",
        "unconsumed",
    )

    def __init__(
        self,
        *,
        checkpoint: Callable[..., Any],
        directive: Callable[..., Any],
        section: Callable[..., Any],
        block: Callable[..., Any],
        session: Callable[..., Any],
        citation: Callable[[str], Any],
        status: Callable[[str], Any],
        unconsumed: Any,
        consumed: Any,
        citation_text: Callable[[Any], str] | None = None,
    ) -> None:
        self.checkpoint = checkpoint
        self.directive = directive
        self.section = section
        self.block = block
        self.session = session
        self.citation = citation
        self.status = status
        self.unconsumed = unconsumed
        self.consumed = consumed
        #: the bullet text back from what ``citation`` made of it, exactly (``None``:
        #: ``citation`` gives the text itself)
        self.citation_text = citation_text


#: light parts (:class:`Parts` and its kin): what :func:`read_parts` builds
LIGHT = Kinds(
    checkpoint=CheckpointParts,
    directive=DirectiveParts,
    section=SectionParts,
    block=BlockParts,
    session=Parts,
    citation=lambda text: text,  # (the bullet's text)
    status=str,
    unconsumed="unconsumed",
    consumed="consumed",
)
_MODEL_KINDS: Kinds | None = None


def model_kinds() -> Kinds:
    """The model's classes (:class:`~sessionkit.model.Session` and its parts), as
    :func:`read_page` and :func:`scan` build them (the model imported on first use)."""
    global _MODEL_KINDS
    if _MODEL_KINDS is None:
        m = _model()
        _MODEL_KINDS = Kinds(
            checkpoint=m.Checkpoint,
            directive=m.Directive,
            section=m.ExtraSection,
            block=m.Block,
            session=m.Session,
            citation=citation_from_text,
            status=m.Status,
            unconsumed=m.DirectiveState.UNCONSUMED,
            consumed=m.DirectiveState.CONSUMED,
            # a bullet's citation renders as the bullet (parse_citation reads exact ones,
            # citation_from_text keeps any other text as a verbatim path)
            citation_text=m.Citation.render,
        )
    return _MODEL_KINDS


# -- rendering an entry (the writer's spelling; light, for the hooks' splice too) ------


def item_lines(text: str) -> list[str]:
    """The lines of a bullet whose text is ``text``."""
    return ("- " + text).split("\n")


def directive_header(d: Any) -> str:
    """The bold header line of a directive (a model or a light one)."""
    if d.state == "unconsumed":
        return f"**{d.kind} directive (unconsumed):**"
    return f"**{d.kind} directive (consumed at {d.consumed_at or 'unknown'}):**"


def directive_lines(d: Any) -> list[str]:
    """A directive: header, its blank lines (``gap``), its items, then ``- Status:`` when
    it has one."""
    out = [directive_header(d), *[""] * d.gap]
    for item in d.items:
        out.extend(item_lines(item))
    if d.status is not None:
        out.append(f"- Status: {d.status}")
    return out


def checkpoint_lines(cp: Any) -> list[str]:
    """A checkpoint entry in the skeleton's shape, ending with its ``---`` rule."""
    out = [f"### {cp.event} at {cp.at}", ""]
    if cp.body:
        out.extend(cp.body.split("\n"))
        out.append("")
    for d in cp.directives:
        out.extend(directive_lines(d))
        out.append("")
    out.append("---")
    return out


def _directive_block(
    lines: Sequence[str], i: int, end: int, m: re.Match[str], kinds: Kinds
) -> tuple[Any, DirectiveSpan]:
    """The directive whose header (matched by ``m``) is line ``i``, and its span."""
    # its bullets follow (blank lines allowed before the first)
    j = i + 1
    while j < end and not _strip(lines[j]).strip():
        j += 1
    block_end = j
    item_spans: list[ItemSpan] = []
    if j < end:
        item_spans = leading_items(lines, j, end)
        if item_spans:
            block_end = item_spans[-1].end
    if not item_spans:
        block_end = i + 1
    status: ItemSpan | None = None
    status_value: str | None = None
    texts: list[str] = []
    for item in item_spans:
        text = item.text  # a one-line "Status: value" item (the first one)
        if status is None and text.startswith("Status:") and "\n" not in text:
            status, status_value = item, text[7:].lstrip(" \t")
        else:
            texts.append(item.text)
    state = kinds.unconsumed if m.group("un") else kinds.consumed
    directive = kinds.directive(
        kind=m.group("kind"),
        state=state,
        consumed_at=m.group("at"),
        items=tuple(texts),
        status=status_value,
        gap=j - i - 1 if item_spans else 0,
    )
    # blank lines between the header and the first bullet belong to the block
    return directive, DirectiveSpan(i, tuple(item_spans), status, block_end)


def _trim(lines: list[str], lead: bool = True) -> list[str]:
    """``lines`` less their blank lines at the end (and, with ``lead``, at the start)."""
    while lines and not lines[-1].strip():
        lines.pop()
    while lead and lines and not lines[0].strip():
        lines.pop(0)
    return lines


def _scan_entry(
    doc: Document, heading: int, end: int, kinds: Kinds | None = None
) -> tuple[str, tuple[DirectiveSpan, ...], list[Any], int]:
    """Body text, directive spans and directives of one checkpoint entry.

    A directive header is aiwiki's line rule: a :data:`DIRECTIVE_HEADER` line not
    inside a top-level fence or HTML block (looked for only when a line may open
    one), whatever the line before it; its bullets run to the next header.
    """
    lines = doc.lines
    first = heading + 1
    text = joined(lines, first, end)
    headers: list[tuple[int, re.Match[str]]] = []
    marked = "\n" + text  # a line of text starting at offset k is "\n" at offset k here
    i = first
    last = 0
    at = marked.find("\n**")
    while at >= 0:
        i += text.count("\n", last, at)
        last = at
        m = DIRECTIVE_HEADER.match(_strip(lines[i]))
        if m is not None:
            headers.append((i, m))
        at = marked.find("\n**", at + 1)
    if headers and may_open_block(text):
        # the entry's heading is a top-level block, so its lines read alone as in the page
        from ..markdown import tokenize

        inside: set[int] = set()
        for blk in tokenize(lines, first, end, tables=False):
            if blk.kind in ("fence", "html"):
                inside.update(range(blk.start, blk.end))
        headers = [(i, m) for i, m in headers if i not in inside]
    kinds = kinds or model_kinds()
    body: list[str] = []
    spans: list[DirectiveSpan] = []
    directives: list[Any] = []
    pos = first  # the first line not yet read
    for n, (i, m) in enumerate(headers):
        body.extend(_strip(x) for x in lines[pos:i])
        limit = headers[n + 1][0] if n + 1 < len(headers) else end
        directive, span = _directive_block(lines, i, limit, m, kinds)
        directives.append(directive)
        spans.append(span)
        pos = span.end
    body.extend(_strip(x) for x in lines[pos:end])
    if _trim(body) and is_fence(body[-1]):  # the closing rule
        body.pop()
        _trim(body)
    return "\n".join(body), tuple(spans), directives, content_end(lines, heading, end)


def list_blocks_of(
    lines: Sequence[str],
    found: Sequence[ItemSpan],
    loose: Sequence[int],
    kinds: Kinds | None = None,
) -> tuple[Block, ...] | None:
    """The blocks of a list section (see :class:`~sessionkit.model.Block`) from its
    items and loose lines; ``None`` when it holds only ``-`` items.

    Loose lines next to each other make one block; a block's ``gap`` is the
    number of blank lines between it and the block before.
    """
    if not loose and (
        found.dashes if isinstance(found, ItemSpans) else all(x.marker == "-" for x in found)
    ):
        return None
    block = (kinds or model_kinds()).block

    def each() -> Iterator[Block]:
        prev_end: int | None = None
        for start, end, marker, text in _merged(lines, found, loose):
            gap = 0
            if prev_end is not None:
                gap = sum(1 for k in range(prev_end, start) if not lines[k].strip())
            yield block(text=text, marker=marker, gap=gap)
            prev_end = end

    return tuple(each())  # (grown in place: no list of every block beside it)


def _merged(
    lines: Sequence[str], found: Sequence[ItemSpan], loose: Sequence[int]
) -> Iterator[tuple[int, int, str | None, str]]:
    """``(start, end, marker, text)`` of each block of a list section, in line order:
    its items (``found``, in order) and its runs of loose lines next to each other
    (``loose``, in order), merged as they go (no list of them all)."""
    items = iter(found)
    item = next(items, None)
    n, count = 0, len(loose)
    while n < count or item is not None:
        if n < count and (item is None or loose[n] < item.start):
            first = k = loose[n]
            n += 1
            while n < count and loose[n] == k + 1:
                k += 1
                n += 1
            yield first, k + 1, None, "\n".join(_strip(lines[i]) for i in range(first, k + 1))
        else:
            assert item is not None
            yield item.start, item.end, item.marker, item.text
            item = next(items, None)


def _citation_reader(citation: Callable[[str], Any]) -> Callable[[str], Any]:
    """``citation`` of a bullet text; bullets of the same text share one (bounded memo)."""
    seen: dict[str, Any] = {}

    def read(text: str) -> Any:
        found = seen.get(text)
        if found is None:
            if len(seen) >= _SHARED_CITATIONS:
                seen.clear()
            found = seen[text] = citation(text)
        return found

    return read


#: distinct bullet texts a citation reader remembers at once (see _citation_reader)
_SHARED_CITATIONS = 1024


def _section_body(doc: Document, start: int, end: int) -> str:
    return "\n".join(_trim([_strip(x) for x in doc.lines[start:end]], lead=False))


def scan(doc: Document, kinds: Kinds | None = None) -> tuple[dict[str, Any], Layout]:
    """Find the body's parts: returns field values (by Session field name) and their layout.

    The values are the model's (:class:`~sessionkit.model.Checkpoint`,
    :class:`~sessionkit.model.Citation`…) unless ``kinds`` says otherwise
    (:data:`LIGHT`: :class:`CheckpointParts`, bullet texts…).
    """
    kinds = kinds or model_kinds()
    values: dict[str, Any] = {}
    known: dict[str, Section] = {}
    extra_secs: list[Section] = []
    for sec in doc.sections:
        if (sec.title in LIST_FIELDS or sec.title == CHECKPOINTS) and sec.title not in known:
            known[sec.title] = sec
        else:
            extra_secs.append(sec)
    first = doc.sections[0].start if doc.sections else len(doc.lines)
    preamble = (doc.body_start, first)
    extras: list[Any] = []
    pre_text = _section_body(doc, doc.body_start, first)
    if pre_text.strip() or (
        extra_secs and extra_secs[0] is doc.sections[0] and not extra_secs[0].title
    ):
        extras.append(kinds.section(title="", body=pre_text if pre_text.strip() else ""))
    for sec in extra_secs:
        extras.append(
            kinds.section(title=sec.title, body=_section_body(doc, sec.start + 1, sec.end))
        )
    values["sections"] = tuple(extras)

    items: dict[str, ItemSpans] = {}
    blocks: dict[str, tuple[Any, ...]] = {}
    placeholders: dict[str, int] = {}
    loose: dict[str, Sequence[int]] = {}
    for title, field in LIST_FIELDS.items():
        lsec = known.get(title)
        if lsec is None:
            values[field] = ()
            continue
        value: Callable[[str], Any] | None = None
        render: Callable[[Any], str] | None = None
        if field == "files_touched":  # each bullet read as a citation as it is found
            value = _citation_reader(kinds.citation)
            render = kinds.citation_text
        found, ph, lo = scan_items(
            doc.lines,
            lsec.start + 1,
            lsec.end,
            ordered=field != "files_touched",
            value=value,
            render=render,
        )
        laid = list_blocks_of(doc.lines, found, lo, kinds)
        if laid is not None:
            blocks[field] = laid
        items[title] = found
        if ph is not None:
            placeholders[title] = ph
        loose[title] = lo
        values[field] = found.values

    cps: list[Any] = []
    cp_spans: list[CheckpointSpan] = []
    bad: list[int] = []
    csec = known.get(CHECKPOINTS)
    if csec is not None:
        heads = []
        for h in doc.headings:
            if h.level == 3 and csec.start < h.line < csec.end:
                if CHECKPOINT_HEADING.match(h.title):
                    heads.append(h)
                else:
                    bad.append(h.line)
        first = heads[0].line if heads else csec.end
        pre = _trim([_strip(x) for x in doc.lines[csec.start + 1 : first]])
        if pre:  # text before the first entry: held as a block of the log
            blocks["checkpoints"] = (kinds.block(text="\n".join(pre)),)
        for n, h in enumerate(heads):
            end = heads[n + 1].line if n + 1 < len(heads) else csec.end
            m = CHECKPOINT_HEADING.match(h.title)
            assert m is not None
            body, dspans, directives, content_end = _scan_entry(doc, h.line, end, kinds)
            cps.append(
                kinds.checkpoint(
                    event=m.group("event"),
                    at=m.group("at"),
                    body=body,
                    directives=tuple(directives),
                )
            )
            cp_spans.append(CheckpointSpan(h.line, end, content_end, dspans))
    values["checkpoints"] = tuple(cps)
    if blocks:
        values["blocks"] = blocks
    layout = Layout(
        known=known,
        extra=tuple(extra_secs),
        items=items,
        placeholders=placeholders,
        loose=loose,
        checkpoints=tuple(cp_spans),
        bad_checkpoint_headings=tuple(bad),
        preamble=preamble,
    )
    return values, layout


#: frontmatter key -> Session field (``schema_id``/``schema_version`` are format-level)
KEY_FIELDS: dict[str, str] = dict(KEYS)
FORMAT_KEYS = _FORMAT_KEYS
RESERVED_KEYS = frozenset(KEY_FIELDS) | frozenset(FORMAT_KEYS)


def _text_value(doc: Document, key: str, value: Any) -> str | None:
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, (bool, int, float)):
        return str(value).lower() if isinstance(value, bool) else str(value)
    raise FormatError(
        f"frontmatter key {key!r} must be a single value, not {type(value).__name__}",
        path=doc.path,
        line=doc.key_line(key),
    )


def read_page(doc: Document, block: Callable[..., Any] | None = None) -> tuple[Session, Layout]:
    """Read a page into a Session (without origin) and its layout.

    ``block``: what makes each :class:`~sessionkit.model.Block` (called as the
    class is, by keyword; it must give a ``Block`` equal to one made so, as a
    block already held: a read-back takes its source's blocks this way).

    Raises:
        ParseError: unclosed frontmatter, bad YAML, not a mapping (with line).
        FormatError: ``schema_id`` is not ``session``; ``status`` is not a known value.
    """
    kinds = model_kinds()
    if block is not None:
        kinds = Kinds(**{name: getattr(kinds, name) for name in Kinds.__slots__})
        kinds.block = block
    session, layout = _read(doc, kinds)
    return session, layout


def read_parts(doc: Document) -> tuple[Parts, Layout]:
    """:func:`read_page` without the model: the page's :class:`Parts` and its layout.

    The same reader, the same errors; what it builds is plain (:data:`LIGHT`).
    """
    parts, layout = _read(doc, LIGHT)
    return parts, layout


def read_header(doc: Document) -> dict[str, Any]:
    """The fields of :func:`read_page`'s session that the page's frontmatter holds
    (by Session field name: ``status`` as its word, ``started``, ``ended``, ``id``,
    ``focus``, ``last_commit``, ``extra``), without reading the body.

    :func:`read_page` reads these first, by this very code, and its body scan
    never raises: the same errors as :func:`read_page`, for the same pages.
    """
    return _header(doc, LIGHT)


def _read(doc: Document, kinds: Kinds) -> tuple[Any, Layout]:
    """:func:`read_page` building with ``kinds``."""
    fields = _header(doc, kinds)
    values, layout = scan(doc, kinds)
    fields.update(values)
    return kinds.session(**fields), layout


def _header(doc: Document, kinds: Kinds) -> dict[str, Any]:
    """The session fields of the page's frontmatter (see :func:`read_header`)."""
    try:
        meta = doc.meta
    except SessionKitError as exc:
        raise exc.with_path(doc.path) from None
    if not doc.has_frontmatter:  # INDEX.md, a stray page: not a session (lint: AW001)
        raise ParseError(
            "no frontmatter: the page must start with a '---' fenced block",
            path=doc.path,
            line=1,
        )
    schema_id = meta.get("schema_id")
    if schema_id is not None and schema_id != "session":
        raise FormatError(
            f"schema_id is {schema_id!r}, not 'session': not an aiwiki session page",
            path=doc.path,
            line=doc.key_line("schema_id"),
        )
    fields: dict[str, Any] = {}
    raw_status = meta.get("status")
    if raw_status is None:
        fields["status"] = kinds.status(STATUS_WORDS[0])
    elif raw_status in STATUS_WORDS and isinstance(raw_status, str):
        fields["status"] = kinds.status(raw_status)
    else:
        raise FormatError(
            f"status {raw_status!r} is not one of {', '.join(STATUS_WORDS)}",
            path=doc.path,
            line=doc.key_line("status"),
        )
    for key, field in KEY_FIELDS.items():
        if key != "status":
            fields[field] = _text_value(doc, key, meta.get(key))
    fields["extra"] = {k: v for k, v in meta.items() if k not in RESERVED_KEYS}
    return fields
