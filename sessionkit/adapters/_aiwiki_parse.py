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
  ``Citation(path=<bullet text>, code=False)`` (no line, no SHA, no note);
  :func:`is_citation_text` tells the two apart;
* lines of a list section that belong to no bullet (prose, the
  ``(filled by /wrap)`` placeholder) and text between ``## Checkpoints``
  and its first entry stay in the document but have no model field.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import attrs

from ..document import Document, Section
from ..errors import FormatError, ParseError, SessionKitError
from ..model import (
    Block,
    Checkpoint,
    Citation,
    Directive,
    DirectiveState,
    ExtraSection,
    Session,
    Status,
)
from .profiles import AIWIKI

__all__ = [
    "LIST_FIELDS",
    "PLACEHOLDER",
    "CheckpointSpan",
    "DirectiveSpan",
    "ItemSpan",
    "Layout",
    "parse_citation",
    "parse_citation_lenient",
    "scan",
]

PLACEHOLDER = "(filled by /wrap)"

#: section title -> Session field of bullet texts (``files_touched`` holds citations)
LIST_FIELDS: dict[str, str] = dict(AIWIKI.sections)
CHECKPOINTS = "Checkpoints"

_BULLET = re.compile(r"^ {0,3}[-*+](?:[ \t]+|$)")
#: a bullet or an ordered item (``1.``, ``2)``): the items of the four list sections
_ITEM = re.compile(r"^ {0,3}(?:[-*+]|[0-9]{1,9}[.)])(?:[ \t]+|$)")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
_RULE = re.compile(r"^---[ \t]*$")
_ATX_START = re.compile(r"^ {0,3}#{1,6}(?:[ \t]|$)")
_TIMESTAMP = r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?"
CHECKPOINT_HEADING = re.compile(rf"^(?P<event>\S.*?) at (?P<at>{_TIMESTAMP})$")
DIRECTIVE_HEADER = re.compile(
    r"^\*\*(?P<kind>[^*\s](?:[^*]*[^*\s])?) directive "
    r"\((?:(?P<un>unconsumed)|consumed at (?P<at>[^()\s]+))\):\*\*[ \t]*$"
)
_STATUS_ITEM = re.compile(r"^Status:[ \t]*(?P<value>.*)$")

_REF = (
    r"(?P<path>[^\s`]+?)"
    r"(?::(?P<start>0|[1-9][0-9]*)(?:-(?P<end>0|[1-9][0-9]*))?)?"
    r"(?:@(?P<sha>[0-9a-fA-F]{4,40}))?"
)
_CODE_CITATION = re.compile(rf"^`{_REF}`(?: (?P<note>.*))?$", re.DOTALL)
_BARE_CITATION = re.compile(rf"^{_REF}(?: (?P<note>.*))?$", re.DOTALL)
# a backticked citation whose path has no ':', '@' or '`': the lazy path of _CODE_CITATION
# cannot stop earlier there, so this reads the same parts (one line only; group 1 is the SHA)
_QUICK_CODE_CITATION = re.compile(
    r"`[^\s`:@]+(?::(?:0|[1-9][0-9]*)(?:-(?:0|[1-9][0-9]*))?)?(?:@([0-9a-fA-F]{4,40}))?`(?: |\Z)"
)


def _strip(line: str) -> str:
    return line.rstrip("\r\n") if line.endswith("\n") else line.rstrip("\r")


def _citation_from(m: re.Match[str], code: bool) -> Citation:
    start = m.group("start")
    end = m.group("end")
    return Citation(
        path=m.group("path"),
        start=None if start is None else int(start),
        end=None if end is None else int(end),
        sha=m.group("sha"),
        note=m.group("note") or "",
        code=code,
    )


def _path_like(c: Citation) -> bool:
    return c.start is not None or c.sha is not None or "/" in c.path or "." in c.path.strip(".")


#: :data:`_CODE_CITATION` for a path without ``:``, ``@`` or a backtick (the common one):
#: the lazy path there cannot stop earlier either (the rest of the pattern needs one of
#: them, or a blank, next), so this finds the same groups, without backtracking; it ends
#: at the very end where ``$`` also takes a last ``\n`` (that text goes the general way)
_QUICK_CITATION = re.compile(
    r"`(?P<path>[^\s`:@]+)(?::(?P<start>0|[1-9][0-9]*)(?:-(?P<end>0|[1-9][0-9]*))?)?"
    r"(?:@(?P<sha>[0-9a-fA-F]{4,40}))?`(?: (?P<note>.*))?\Z",
    re.DOTALL,
)


def parse_citation(text: str) -> Citation | None:
    """The citation a bullet text spells exactly, or ``None``.

    Exact means that :meth:`Citation.render` gives ``text`` back.  A bare
    (not backticked) reference must look like a path (a ``/``, a ``.``, a
    line or a SHA) to count.
    """
    quick = _QUICK_CITATION.match(text)
    if quick is not None:
        # every part renders as written (numbers without leading zeros, a SHA only
        # when present), except an empty note: "`a.py` " renders as "`a.py`"
        return None if quick.group("note") == "" else _citation_from(quick, True)
    m = _CODE_CITATION.match(text)
    if m:
        c = _citation_from(m, True)
    else:
        m = _BARE_CITATION.match(text)
        if not m:
            return None
        c = _citation_from(m, False)
        if not _path_like(c):
            return None
    if "@" in c.path or c.render() != text:
        return None
    return c


def parse_citation_lenient(text: str) -> Citation | None:
    """Like :func:`parse_citation` but forgiving about spacing (for lint and fixes)."""
    first = text.strip().split("\n", 1)[0].strip()
    m = _CODE_CITATION.match(first)
    code = m is not None
    if m is None:
        m = _BARE_CITATION.match(first)
    if m is None:
        return None
    c = _citation_from(m, code)
    if "@" in c.path or (not code and not _path_like(c)):
        return None
    return c


def citation_state(text: str) -> int:
    """What :func:`parse_citation_lenient` would say, without building the citation.

    0: not a citation; 1: a citation without a SHA; 2: a citation with one.
    """
    first = text.strip().split("\n", 1)[0].strip()
    quick = _QUICK_CODE_CITATION.match(first)
    if quick is not None:  # the common shape: the same match, found without backtracking
        return 2 if quick.group(1) else 1
    m = _CODE_CITATION.match(first)
    code = m is not None
    if m is None:
        m = _BARE_CITATION.match(first)
        if m is None:
            return 0
    path = m.group("path")
    sha = m.group("sha")
    if "@" in path:
        return 0
    if not code and not (
        sha is not None or m.group("start") is not None or "/" in path or "." in path.strip(".")
    ):
        return 0
    return 2 if sha else 1


def citation_from_text(text: str) -> Citation:
    """A bullet's citation, or the verbatim fallback for a non-citation bullet."""
    return parse_citation(text) or Citation(path=text, code=False)


def is_verbatim(c: Citation) -> bool:
    """True for the fallback of a bullet that is not a citation."""
    return parse_citation(c.render()) != c


@attrs.frozen
class ItemSpan:
    """A list item: its text (without the marker), lines [start, end) and its marker."""

    text: str
    start: int
    end: int
    marker: str = "-"


@attrs.frozen
class DirectiveSpan:
    """Where a directive is: header line, item spans, the ``Status:`` item and the block end."""

    header: int
    items: tuple[ItemSpan, ...]
    status: ItemSpan | None
    end: int


@attrs.frozen
class CheckpointSpan:
    """A checkpoint entry: heading line, content end (exclusive, after the rule) and directives."""

    heading: int
    end: int
    content_end: int
    directives: tuple[DirectiveSpan, ...]


@attrs.frozen
class Layout:
    """Where each part of a page is (0-based line indices into ``doc.lines``)."""

    known: dict[str, Section]
    extra: tuple[Section, ...]
    items: dict[str, tuple[ItemSpan, ...]]
    placeholders: dict[str, int]
    loose: dict[str, tuple[int, ...]]
    checkpoints: tuple[CheckpointSpan, ...]
    bad_checkpoint_headings: tuple[int, ...]
    preamble: tuple[int, int]


_FENCE_STARTS = ("```", "~~~")


def _fence_open(bare: str) -> str | None:
    if not bare.lstrip(" ").startswith(_FENCE_STARTS):  # cheap test before the regex
        return None
    m = _FENCE.match(bare)
    if m and not (m.group(1)[0] == "`" and "`" in m.group(2)):
        return m.group(1)
    return None


def _fence_closes(bare: str, fence: str) -> bool:
    if not bare.lstrip(" ").startswith(_FENCE_STARTS):
        return False
    m = _FENCE.match(bare)
    return bool(
        m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) and not m.group(2).strip()
    )


def _starts_block(bare: str) -> bool:
    """A line that ends a bullet even without a blank line before it."""
    return bool(
        _RULE.match(bare)
        or _ATX_START.match(bare)
        or _fence_open(bare)
        or DIRECTIVE_HEADER.match(bare)
    )


#: a list section as the writer spells it: empty lines, at most the placeholder line
#: before any bullet, and one-line bullets ``- text`` whose text starts with neither a
#: blank nor a fence (three backticks or tildes); every line ends with ``\n`` and none
#: holds a ``\r``
_PLAIN_LIST = re.compile(r"\n*(?:\(filled by /wrap\)\n)?(?:\n|- (?!```|~~~)\S[^\n\r]*\n)*")


def _plain_items(
    lines: Sequence[str], start: int, end: int
) -> tuple[list[ItemSpan], int | None, list[int]] | None:
    """:func:`scan_items` of a list section spelled as :data:`_PLAIN_LIST` says, else ``None``.

    There every bullet is one line: the next non-empty line is another
    bullet, so no lazy continuation, no indented continuation and no fence
    (no bullet's text starts one) joins it; the
    placeholder line comes before any bullet; no line is loose.
    """
    block = lines[start:end]
    if _PLAIN_LIST.fullmatch("".join(block)) is None:
        return None
    items: list[ItemSpan] = []
    placeholder: int | None = None
    for i, line in enumerate(block, start):
        first = line[0]
        if first == "-":
            items.append(ItemSpan(line[2:-1], i, i + 1))
        elif first == "(":
            placeholder = i
    return items, placeholder, []


def scan_items(
    lines: Sequence[str], start: int, end: int, *, ordered: bool = False
) -> tuple[list[ItemSpan], int | None, list[int]]:
    """Bullets of ``lines[start:end]``; also the placeholder line and loose lines.

    A bullet runs over its continuation lines: indented lines (also after
    blank lines), lines directly after it (lazy continuation) and fenced code.
    ``ordered``: numbered items (``1.``, ``2)``) are items too.
    """
    plain = _plain_items(lines, start, end)  # the common shape, read without the line walk
    if plain is not None:
        return plain
    return _token_items(lines, start, end) if ordered else _scan_items(lines, start, end)


_MARKER = re.compile(r"^ {0,3}([-*+]|[0-9]{1,9}[.)])(?:[ \t]+|$)")


def _token_items(
    lines: Sequence[str], start: int, end: int
) -> tuple[list[ItemSpan], int | None, list[int]]:
    """:func:`scan_items` (with ``ordered``) from the Markdown block tokens.

    Every item of a top-level list is an item, bulleted or numbered; an
    item runs over its lines as the tokenizer finds them (continuation and
    lazy lines, nested lists, fences, quotes), trailing blank lines left
    out; its text is its first line after the marker and the other lines
    as written.  The lines of every other block are loose, but for the
    placeholder paragraph before the first item.
    """
    from ..markdown import tokenize

    items: list[ItemSpan] = []
    placeholder: int | None = None
    loose: list[int] = []
    for blk in tokenize(lines, start, end):
        kind = blk.kind
        if kind == "blank":
            continue
        if kind == "list":
            for it in blk.children:
                s, e = it.start, it.end
                while e > s + 1 and not lines[e - 1].strip():
                    e -= 1
                first = _strip(lines[s])
                m = _MARKER.match(first)
                if m is None:  # not an item line after all: keep its lines
                    loose.extend(range(s, e))
                    continue
                text = [first[m.end() :], *(_strip(lines[k]) for k in range(s + 1, e))]
                items.append(ItemSpan("\n".join(text), s, e, m.group(1)))
            continue
        s, e = blk.start, blk.end
        while e > s + 1 and not lines[e - 1].strip():
            e -= 1
        if (
            kind == "paragraph"
            and not items
            and placeholder is None
            and e - s == 1
            and _strip(lines[s]).strip() == PLACEHOLDER
        ):
            placeholder = s
            continue
        loose.extend(range(s, e))
    return items, placeholder, loose


def _scan_items(
    lines: Sequence[str], start: int, end: int, ordered: bool = False
) -> tuple[list[ItemSpan], int | None, list[int]]:
    """:func:`scan_items` line by line: the general reader."""
    item_re = _ITEM if ordered else _BULLET
    items: list[ItemSpan] = []
    placeholder: int | None = None
    loose: list[int] = []
    cur: list[str] | None = None
    cur_start = 0
    cur_end = 0
    cur_marker = "-"
    blank_since = False
    fence: str | None = None

    def close() -> None:
        nonlocal cur
        if cur is not None:
            items.append(ItemSpan("\n".join(cur), cur_start, cur_end, cur_marker))
        cur = None

    for i in range(start, end):
        bare = _strip(lines[i])
        if fence is not None:
            if cur is not None:
                cur.extend([""] * (i - cur_end))
                cur.append(bare)
                cur_end = i + 1
            else:
                loose.append(i)
            if _fence_closes(bare, fence):
                fence = None
            continue
        if not bare.strip():
            blank_since = True
            continue
        indented = bare.startswith(("  ", "\t"))
        m = item_re.match(bare)
        if m and not indented:
            close()
            cur = [bare[m.end() :]]
            cur_marker = m.group(0).strip()
            cur_start, cur_end = i, i + 1
            blank_since = False
            fence = _fence_open(bare[m.end() :])
            continue
        if cur is not None and (indented or not (blank_since or _starts_block(bare))):
            cur.extend([""] * (i - cur_end))
            cur.append(bare)
            cur_end = i + 1
            blank_since = False
            fence = _fence_open(bare)
            continue
        close()
        if bare.strip() == PLACEHOLDER and placeholder is None and not items:
            placeholder = i
        else:
            loose.append(i)
            fence = _fence_open(bare)
        blank_since = False
    close()
    return items, placeholder, loose


#: a one-line bullet ``- text`` as the writer spells it (see :data:`_PLAIN_LIST`)
_PLAIN_BULLET = re.compile(r"- (?!```|~~~)\S[^\n\r]*\n")


def _leading_items(lines: Sequence[str], j: int, end: int) -> list[ItemSpan]:
    """The bullets of ``lines[j:end]`` (line ``j`` is one) up to the first loose text."""
    plain = _leading_plain_items(lines, j, end)  # the common run, without the line walk
    return plain if plain is not None else _leading_scanned_items(lines, j, end)


def _leading_scanned_items(lines: Sequence[str], j: int, end: int) -> list[ItemSpan]:
    """:func:`_leading_items` through :func:`scan_items`: the general reader."""
    found, _, _ = scan_items(lines, j, end)
    leading: list[ItemSpan] = []
    prev_end = j
    for item in found:
        gap = [_strip(x) for x in lines[prev_end : item.start]]
        if any(g.strip() for g in gap):
            break
        leading.append(item)
        prev_end = item.end
    return leading


def _leading_plain_items(lines: Sequence[str], j: int, end: int) -> list[ItemSpan] | None:
    """:func:`_leading_items` of a run of one-line bullets (:data:`_PLAIN_BULLET`) from
    line ``j`` that nothing after it joins; ``None`` otherwise.

    After the run comes the end, or a line that neither is a bullet nor is
    indented and either follows a blank line or starts a block (a rule, a
    heading, a fence or a directive): :func:`scan_items` closes the last
    bullet there and reads the line as loose text, which ends the leading run.
    """
    items: list[ItemSpan] = []
    k = j
    while k < end and _PLAIN_BULLET.fullmatch(lines[k]):
        items.append(ItemSpan(lines[k][2:-1], k, k + 1))
        k += 1
    if not items:
        return None
    n = k
    while n < end and not lines[n].strip():
        n += 1
    if n == end:
        return items
    after = lines[n]
    bare = _strip(after)
    if after.startswith(("  ", "\t")) or _BULLET.match(bare):
        return None
    if n == k and not _starts_block(bare):
        return None  # a lazy continuation of the last bullet
    return items


def _directive_block(
    lines: Sequence[str], i: int, end: int, m: re.Match[str]
) -> tuple[Directive, DirectiveSpan]:
    """The directive whose header (matched by ``m``) is line ``i``, and its span."""
    # its bullets follow (blank lines allowed before the first)
    j = i + 1
    while j < end and not _strip(lines[j]).strip():
        j += 1
    block_end = j
    item_spans: list[ItemSpan] = []
    if j < end and _BULLET.match(_strip(lines[j])):
        item_spans = _leading_items(lines, j, end)
        if item_spans:
            block_end = item_spans[-1].end
    if not item_spans:
        block_end = i + 1
    status: ItemSpan | None = None
    status_value: str | None = None
    texts: list[str] = []
    for item in item_spans:
        sm = _STATUS_ITEM.match(item.text)
        if sm and status is None and "\n" not in item.text:
            status, status_value = item, sm.group("value")
        else:
            texts.append(item.text)
    state = DirectiveState.UNCONSUMED if m.group("un") else DirectiveState.CONSUMED
    directive = Directive(
        kind=m.group("kind"),
        state=state,
        consumed_at=m.group("at"),
        items=tuple(texts),
        status=status_value,
    )
    # blank lines between the header and the first bullet belong to the block
    return directive, DirectiveSpan(i, tuple(item_spans), status, block_end)


def _entry_end(lines: Sequence[str], heading: int, end: int, body: list[str]) -> tuple[str, int]:
    """An entry's text from its body lines (blank lines and the closing rule trimmed),
    and its content end."""
    while body and not body[-1].strip():
        body.pop()
    if body and _RULE.match(body[-1]):
        body.pop()
        while body and not body[-1].strip():
            body.pop()
    while body and not body[0].strip():
        body.pop(0)
    content_end = end
    while content_end > heading + 1 and not lines[content_end - 1].strip():
        content_end -= 1
    return "\n".join(body), content_end


def _scan_entry(
    lines: Sequence[str], heading: int, end: int
) -> tuple[str, tuple[DirectiveSpan, ...], list[Directive], int]:
    """Body text, directive spans and directives of one checkpoint entry."""
    plain = _plain_entry(lines, heading, end)  # the common entry, without the line walk
    return plain if plain is not None else _scan_entry_lines(lines, heading, end)


def _bare_lines(lines: Sequence[str], start: int, end: int) -> list[str]:
    """``lines[start:end]`` without their ``\n`` ends (for lines without a ``\r``)."""
    if start >= end:
        return []
    parts = "".join(lines[start:end]).split("\n")
    if lines[end - 1].endswith("\n"):
        parts.pop()  # the empty text after the last line end
    return parts


def _plain_entry(
    lines: Sequence[str], heading: int, end: int
) -> tuple[str, tuple[DirectiveSpan, ...], list[Directive], int] | None:
    """:func:`_scan_entry` of an entry without ``\r``, `````` ``` `````` or ``~~~``; else ``None``.

    Without those no line opens or closes a fence and stripping a line end is
    dropping its ``\n``, so the entry's lines are its text except for the
    directive blocks, whose headers start with ``**``: only the lines starting
    so are tried as headers (the line walk tries every line it reaches).
    """
    text = "".join(lines[heading + 1 : end])
    if "```" in text or "~~~" in text or "\r" in text:
        return None
    body: list[str] = []
    spans: list[DirectiveSpan] = []
    directives: list[Directive] = []
    joined = "\n" + text  # a line of text starting at offset k is "\n" at offset k here
    pos = heading + 1  # the first line not yet read
    i = heading + 1
    last = 0
    at = joined.find("\n**")
    while at >= 0:
        i += text.count("\n", last, at)
        last = at
        at = joined.find("\n**", at + 1)
        if i < pos:
            continue  # inside the block of the directive before
        m = DIRECTIVE_HEADER.match(_strip(lines[i]))
        if m is None:
            continue
        body.extend(_bare_lines(lines, pos, i))
        directive, span = _directive_block(lines, i, end, m)
        directives.append(directive)
        spans.append(span)
        pos = span.end
    body.extend(_bare_lines(lines, pos, end))
    entry, content_end = _entry_end(lines, heading, end, body)
    return entry, tuple(spans), directives, content_end


def _scan_entry_lines(
    lines: Sequence[str], heading: int, end: int
) -> tuple[str, tuple[DirectiveSpan, ...], list[Directive], int]:
    """:func:`_scan_entry` line by line: the general reader."""
    body: list[str] = []
    spans: list[DirectiveSpan] = []
    directives: list[Directive] = []
    fence: str | None = None
    i = heading + 1
    while i < end:
        bare = _strip(lines[i])
        if fence is not None:
            body.append(bare)
            if _fence_closes(bare, fence):
                fence = None
            i += 1
            continue
        m = DIRECTIVE_HEADER.match(bare)
        if not m:
            body.append(bare)
            fence = _fence_open(bare)
            i += 1
            continue
        directive, span = _directive_block(lines, i, end, m)
        directives.append(directive)
        spans.append(span)
        i = span.end
    entry, content_end = _entry_end(lines, heading, end, body)
    return entry, tuple(spans), directives, content_end


def list_blocks_of(
    lines: Sequence[str], found: Sequence[ItemSpan], loose: Sequence[int]
) -> tuple[Block, ...] | None:
    """The blocks of a list section (see :class:`~sessionkit.model.Block`) from its
    items and loose lines; ``None`` when it holds only ``-`` items.

    Loose lines next to each other make one block; a block's ``gap`` is the
    number of blank lines between it and the block before.
    """
    if not loose and all(x.marker == "-" for x in found):
        return None
    spans: list[tuple[int, int, str | None, str]] = [
        (x.start, x.end, x.marker, x.text) for x in found
    ]
    run: list[int] = []
    for i in [*loose, -2]:
        if run and i != run[-1] + 1:
            text = "\n".join(_strip(lines[k]) for k in run)
            spans.append((run[0], run[-1] + 1, None, text))
            run = []
        run.append(i)
    spans.sort()
    out: list[Block] = []
    prev_end: int | None = None
    for start, end, marker, text in spans:
        gap = 0
        if prev_end is not None:
            gap = sum(1 for k in range(prev_end, start) if not lines[k].strip())
        out.append(Block(text=text, marker=marker, gap=gap))
        prev_end = end
    return tuple(out)


def _section_body(doc: Document, start: int, end: int) -> str:
    lines = [_strip(x) for x in doc.lines[start:end]]
    while lines and not lines[-1].strip():
        lines.pop()
    return "\n".join(lines)


def scan(doc: Document) -> tuple[dict[str, Any], Layout]:
    """Find the body's parts: returns field values (by Session field name) and their layout."""
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
    extras: list[ExtraSection] = []
    pre_text = _section_body(doc, doc.body_start, first)
    if pre_text.strip() or (
        extra_secs and extra_secs[0] is doc.sections[0] and not extra_secs[0].title
    ):
        extras.append(ExtraSection(title="", body=pre_text if pre_text.strip() else ""))
    for sec in extra_secs:
        extras.append(
            ExtraSection(title=sec.title, body=_section_body(doc, sec.start + 1, sec.end))
        )
    values["sections"] = tuple(extras)

    items: dict[str, tuple[ItemSpan, ...]] = {}
    blocks: dict[str, tuple[Block, ...]] = {}
    placeholders: dict[str, int] = {}
    loose: dict[str, tuple[int, ...]] = {}
    for title, field in LIST_FIELDS.items():
        lsec = known.get(title)
        if lsec is None:
            values[field] = ()
            continue
        found, ph, lo = scan_items(
            doc.lines, lsec.start + 1, lsec.end, ordered=field != "files_touched"
        )
        laid = list_blocks_of(doc.lines, found, lo)
        if laid is not None:
            blocks[field] = laid
        items[title] = tuple(found)
        if ph is not None:
            placeholders[title] = ph
        loose[title] = tuple(lo)
        if field == "files_touched":
            values[field] = tuple(citation_from_text(x.text) for x in found)
        else:
            values[field] = tuple(x.text for x in found)

    cps: list[Checkpoint] = []
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
        pre = [_strip(x) for x in doc.lines[csec.start + 1 : first]]
        while pre and not pre[-1].strip():
            pre.pop()
        while pre and not pre[0].strip():
            pre.pop(0)
        if pre:  # text before the first entry: held as a block of the log
            blocks["checkpoints"] = (Block(text="\n".join(pre)),)
        for n, h in enumerate(heads):
            end = heads[n + 1].line if n + 1 < len(heads) else csec.end
            m = CHECKPOINT_HEADING.match(h.title)
            assert m is not None
            body, dspans, directives, content_end = _scan_entry(doc.lines, h.line, end)
            cps.append(
                Checkpoint(
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
KEY_FIELDS: dict[str, str] = dict(AIWIKI.keys)
FORMAT_KEYS = AIWIKI.format_keys
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


def read_page(doc: Document) -> tuple[Session, Layout]:
    """Read a page into a Session (without origin) and its layout.

    Raises:
        ParseError: unclosed frontmatter, bad YAML, not a mapping (with line).
        FormatError: ``schema_id`` is not ``session``; ``status`` is not a known value.
    """
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
        fields["status"] = Status.ACTIVE
    else:
        try:
            fields["status"] = Status(raw_status)
        except ValueError:
            raise FormatError(
                f"status {raw_status!r} is not one of active, done, abandoned",
                path=doc.path,
                line=doc.key_line("status"),
            ) from None
    for key, field in KEY_FIELDS.items():
        if key != "status":
            fields[field] = _text_value(doc, key, meta.get(key))
    fields["extra"] = {k: v for k, v in meta.items() if k not in RESERVED_KEYS}
    values, layout = scan(doc)
    fields.update(values)
    return Session(**fields), layout
