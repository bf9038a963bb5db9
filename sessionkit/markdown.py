"""The one Markdown block tokenizer: every block of a note, with its lines.

sessionkit reads Markdown the way markdown-it (and so Basic Memory) reads it.
This module is the only place that knows the CommonMark block grammar; every
reader (document sections, the aiwiki reader and linter, the Basic Memory
grammar, conversion) works on the :class:`Block` tokens it yields.  The line
rules it shares with the readers of raw text (the ATX heading, the thematic
break, a code fence's lines, markdown-it's trim) are :mod:`sessionkit.text.grammar`'s.

API summary
-----------

``tokenize(lines, start=0, end=None, *, tables=True) -> list[Block]``
    The blocks of ``lines[start:end]`` (``lines`` as in :attr:`Document.lines`:
    each line keeps its ``\\n`` / ``\\r\\n``; the BOM is already gone).  The
    result is the top-level blocks in order; containers (``blockquote``,
    ``list``, ``item``) hold their inner blocks in :attr:`Block.children`.
    Together the blocks cover every line of the range, blank lines included.
    ``tables=False`` reads as markdown-it's ``commonmark`` preset does (what
    Basic Memory parses with); the default adds GFM tables.

``walk(blocks) -> Iterator[tuple[Block, int]]``
    Every block in document order (a container before its children) with its
    container depth (0 at the top).

``top_headings(lines, start=0, end=None, *, blocks=None) -> list[tuple[int, str, int]]``
    ``(level, title, line)`` of the top-level ATX headings (``## Title``):
    what :attr:`Document.headings` and the sections are built from.

``atx_heading(line)``, ``is_thematic_break(line)``,
``is_bullet_item_start(line, *, after_paragraph=False)``
    What one line (``str``, or ``bytes`` for the last two; no line end) is
    outside any container, by the tokenizer's own rules.

:class:`Block` fields (line indices are 0-based into ``lines``; ``end`` is
exclusive, like markdown-it's ``token.map``):

=============  =================================================================
``kind``       one of :data:`KINDS`: ``heading``, ``paragraph``, ``fence``,
               ``code`` (indented), ``blockquote``, ``list``, ``item``,
               ``table``, ``html``, ``hr``, ``reference`` (a link reference
               definition), ``blank`` (a run of blank lines), ``nested`` (lines
               nested deeper than :data:`MAX_NESTING`, which markdown-it skips)
``start/end``  the line range (``token.map`` of the markdown-it token)
``children``   inner blocks of ``blockquote``, ``list`` (its items) and ``item``
``level``      heading level 1-6
``content``    heading and paragraph text as markdown-it's inline token holds it
               (container markers and indents removed, stripped, lines joined
               by ``\\n``)
``marker``     heading: ``#``, ``=`` or ``-`` (setext); list and item: the
               marker character (``-``, ``*``, ``+``, ``.``, ``)``); fence: the
               opening run (```````` ``` ```````` or ``~~~``)
``ordered``    list and item: ordered (``1.`` / ``1)``)
``number``     ordered item: its number; ordered list: its first number
``indent``     item: the column where its content starts (the indent a line
               needs to continue it)
``task``       item: ``None`` without a task box, ``False`` for ``[ ]``,
               ``True`` for ``[x]`` / ``[X]`` (a box followed by a blank)
``tight``      list: ``True`` when tight (markdown-it hides its paragraphs)
``info``       fence: the info string after the opening run, as written
``closed``     fence: a closing fence was found (else it runs to its container's end)
``html_kind``  html: the CommonMark HTML block kind, 1-7
=============  =================================================================

How it works: the lines are classified once (indent, first character) into
per-line arrays, and the block rules (one function each) run over them as
markdown-it's block state does: the same rule order, the same interrupting
rules, lazy continuation lines, tab stops, the nesting cap.  Containers shift
the arrays' line starts instead of copying lines, and levels stop at
:data:`MAX_NESTING`, so the work is linear in the input
(``tests/test_markdown_linear.py`` counts it with :func:`steps`).
"""

from __future__ import annotations

import gc
import re
from collections.abc import Callable, Iterator, Sequence

from ._lazyre import lazy
from .text.grammar import TRIM, atx_heading, thematic_break

__all__ = [
    "KINDS",
    "MAX_NESTING",
    "Block",
    "atx_heading",
    "flat_leaves",
    "is_bullet_item_start",
    "is_thematic_break",
    "may_open_block",
    "plain_outline",
    "steps",
    "tokenize",
    "top_headings",
    "walk",
]

#: the kinds of :class:`Block`
KINDS = (
    "heading",
    "paragraph",
    "fence",
    "code",
    "blockquote",
    "list",
    "item",
    "table",
    "html",
    "hr",
    "reference",
    "blank",
    "nested",
)

#: markdown-it's ``maxNesting`` in its commonmark preset: a container opened
#: at this depth (a quote counts 1, a list item 2) holds no blocks
MAX_NESTING = 20

# ---------------------------------------------------------------- tokens


class Block:
    """One block of a note; see the module docstring for the fields.

    The rarer fields keep their class defaults until set; a leaf's
    ``children`` is an empty tuple.
    """

    __slots__ = (
        "__dict__",
        "children",
        "content",
        "end",
        "indent",
        "kind",
        "level",
        "marker",
        "start",
    )

    ordered = False
    number: int | None = None
    task: bool | None = None
    tight = True
    info = ""
    closed = False
    html_kind = 0

    def __init__(
        self,
        kind: str,
        start: int,
        end: int = 0,
        children: Sequence[Block] = (),
        content: str = "",
        marker: str = "",
        level: int = 0,
        indent: int = 0,
    ) -> None:
        self.kind = kind
        self.start = start
        self.end = end
        self.children = children
        self.content = content
        self.marker = marker
        self.level = level
        self.indent = indent

    def __repr__(self) -> str:
        extra = f", {len(self.children)} children" if self.children else ""
        return f"Block({self.kind!r}, {self.start}, {self.end}{extra})"


def walk(blocks: Sequence[Block], depth: int = 0) -> Iterator[tuple[Block, int]]:
    """Every block in document order with its container depth (a stack, not a recursion)."""
    stack: list[tuple[Sequence[Block], int, int]] = [(blocks, 0, depth)]
    while stack:
        seq, i, d = stack.pop()
        if i >= len(seq):
            continue
        block = seq[i]
        stack.append((seq, i + 1, d))
        yield block, d
        if block.children:
            stack.append((block.children, 0, d + 1))


# ---------------------------------------------------------------- the block state

_HTML_OPEN = [
    (
        lazy(r"^<(?a:script|pre|style|textarea)(?=[\s>]|$)", re.IGNORECASE),
        lazy(r"</(?a:script|pre|style|textarea)>", re.IGNORECASE),
    ),
    (lazy(r"^<!--"), lazy(r"-->")),
    (lazy(r"^<\?"), lazy(r"\?>")),
    (lazy(r"^<![A-Za-z]"), lazy(r">")),
    (lazy(r"^<!\[CDATA\["), lazy(r"\]\]>")),
    (
        lazy(
            r"^</?(?a:address|article|aside|base|basefont|blockquote|body|caption|center|col|"
            r"colgroup|dd|details|dialog|dir|div|dl|dt|fieldset|figcaption|figure|footer|form|"
            r"frame|frameset|h[1-6]|head|header|hr|html|iframe|legend|li|link|main|menu|"
            r"menuitem|nav|noframes|ol|optgroup|option|p|param|search|section|summary|table|"
            r"tbody|td|tfoot|th|thead|title|tr|track|ul)(?=\s|/?>|$)",
            re.IGNORECASE,
        ),
        None,
    ),
    (
        lazy(
            r"^(?:<[A-Za-z][A-Za-z0-9\-]*(?:\s+[a-zA-Z_:][a-zA-Z0-9:._-]*"
            r"(?:\s*=\s*(?:[^\"'=<>`\x00-\x20]+|'[^']*'|\"[^\"]*\"))?)*\s*/?>"
            r"|</[A-Za-z][A-Za-z0-9\-]*\s*>)\s*$"
        ),
        None,
    ),
]
_DELIM_CELL = lazy(r"^:?-+:?$")
_BAD_PROTOCOL = lazy(r"^(?:vbscript|javascript|file|data):", re.IGNORECASE)
_GOOD_DATA = lazy(r"^data:image/(?:gif|png|jpeg|webp);", re.IGNORECASE)
_WS_RUN = lazy(r"\s+")

# markdown-it's terminator lists (which rules may end a block of each kind):
#: table, fence, blockquote, hr, list, html, heading (paragraphs and references)
_T_PARAGRAPH = 0
#: the same without table (block quotes and table rows)
_T_BLOCKQUOTE = 1
#: fence, blockquote, hr (list items)
_T_LIST = 2

#: the line visits of every tokenize so far (see :func:`steps`)
_steps = [0]


class _State:
    """markdown-it's block state over one range of lines: per-line arrays of the
    text (``src``), line start (``b``), blanks after it (``t``), indent columns
    (``s``) and the column of the line start (``bs``)."""

    __slots__ = (
        *("b", "blk", "bs", "lazy_runs", "level", "line", "line_max", "list_indent"),
        *("off", "para", "s", "src", "steps", "t", "tables", "tight"),
    )

    def __init__(self, lines: Sequence[str], start: int, end: int, tables: bool) -> None:
        src = [line[:-1] if line[-1:] == "\n" else line for line in lines[start:end]]
        n = len(src)
        tshift = [0] * (n + 1)
        scount = [0] * (n + 1)
        for k, line in enumerate(src):
            last = line[-1:]
            if last == "\r":
                src[k] = line = line[:-1]
            first = line[:1]
            if first == " " or first == "\t":
                rest = line.lstrip(" \t")
                shift = len(line) - len(rest)
                tshift[k] = shift
                if "\t" in line[:shift]:
                    col = 0
                    for ch in line[:shift]:
                        col += 4 - col % 4 if ch == "\t" else 1
                    scount[k] = col
                else:
                    scount[k] = shift
        src.append("")
        self.src = src
        self.b = [0] * (n + 1)
        self.t = tshift
        self.s = scount
        self.bs = [0] * (n + 1)
        self.line_max = n
        self.off = start
        self.blk = self.line = self.level = self.steps = 0
        self.tight = self.para = False
        self.list_indent = -1
        self.tables = tables
        #: runs of lazy lines already judged: first line -> (its line start, run end)
        self.lazy_runs: dict[int, tuple[int, int]] = {}


def _rest(st: _State, line: int) -> str:
    """A line from its first non-blank character ('' when blank)."""
    return st.src[line][st.b[line] + st.t[line] :]


def _empty(st: _State, line: int) -> bool:
    return st.b[line] + st.t[line] >= len(st.src[line])


def _terminated(st: _State, names: int, line: int, end: int) -> bool:
    """Whether a rule of the set ``names`` (:data:`_T_PARAGRAPH`, ...) starts at ``line``;
    silent rules have no effects, so only those that may start with its first character
    are tried."""
    s = st.src[line]
    pos = st.b[line] + st.t[line]
    if pos >= len(s) or st.s[line] - st.blk >= 4:
        return False  # every terminating rule refuses blank and code lines
    ch = s[pos]
    if names == _T_PARAGRAPH and st.tables and line + 1 < end:
        nl = line + 1
        t = st.src[nl]
        p2 = st.b[nl] + st.t[nl]
        if p2 < len(t) and t[p2] in "|-:" and _table(st, line, end, True):
            return True
    if ch == ">":
        return True
    if ch == "`" or ch == "~":
        return _fence(st, line, end, True)
    if (ch == "*" or ch == "-" or ch == "_") and thematic_break(s[pos:]):
        return True
    if names == _T_LIST:
        return False
    if (ch == "*" or ch == "-" or ch == "+" or "0" <= ch <= "9") and _list(st, line, end, True):
        return True
    if ch == "<":
        return _html(st, line, end, True)
    if ch == "#":
        return atx_heading(s[pos:]) is not None
    return False


def _get_lines(st: _State, begin: int, end: int, indent: int) -> str:
    """The text of lines ``begin:end`` less ``indent`` columns, trimmed (markdown-it's
    getLines, as paragraphs and setext headings take it)."""
    st.steps += end - begin
    src, b = st.src, st.b
    if indent <= 0:  # nothing to take off past each line's start
        if end - begin == 1:
            text = src[begin][b[begin] :]
        else:
            text = "\n".join([src[line][b[line] :] for line in range(begin, end)])
    else:
        out: list[str] = []
        for line in range(begin, end):
            s = src[line]
            first = start = b[line]
            col = 0
            last = len(s)
            while first < last and col < indent:
                ch = s[first]
                if ch == "\t":
                    col += 4 - (col + st.bs[line]) % 4
                elif ch == " " or first - start < st.t[line]:
                    col += 1
                else:
                    break
                first += 1
            out.append(" " * (col - indent) + s[first:] if col > indent else s[first:])
        text = "\n".join(out)
    if "\x00" in text:
        text = text.replace("\x00", "\ufffd")
    return text.strip(TRIM)


# ---------------------------------------------------------------- the driver


def _tokenize(st: _State, start: int, end: int, out: list[Block]) -> None:
    """markdown-it's block tokenize over ``start:end`` at the state's indent."""
    src, b, t, sc = st.src, st.b, st.t, st.s
    off = st.off
    line = start
    has_empty = False
    while line < end:
        if b[line] + t[line] >= len(src[line]):
            skip = line + 1
            line_max = st.line_max
            while skip < line_max and b[skip] + t[skip] >= len(src[skip]):
                skip += 1
            st.steps += skip - line
            if out and out[-1].kind == "blank" and out[-1].end == line + off:
                out[-1].end = skip + off
            else:
                out.append(Block("blank", line + off, skip + off))
            line = skip
        st.line = line
        if line >= end:
            break
        if sc[line] < st.blk:
            break  # the end of a nested container
        if st.level >= MAX_NESTING:
            out.append(Block("nested", line + off, end + off))
            st.line = end
            break
        st.steps += 1
        _block(st, line, end, out)
        st.tight = not has_empty
        line = st.line
        if line - 1 < end and b[line - 1] + t[line - 1] >= len(src[line - 1]):
            has_empty = True
        if line < end and b[line] + t[line] >= len(src[line]):
            has_empty = True
            out.append(Block("blank", line + off, line + 1 + off))
            line += 1
            st.line = line


def _block(st: _State, line: int, end: int, out: list[Block]) -> None:
    """Run the first rule that takes ``line`` (markdown-it's rule order)."""
    if st.tables and line + 1 < end:
        t = st.src[line + 1]
        p2 = st.b[line + 1] + st.t[line + 1]
        if p2 < len(t) and t[p2] in "|-:" and _table(st, line, end, False, out):
            return
    if st.s[line] - st.blk >= 4:
        _code(st, line, end, out)
        return
    s = st.src[line]
    pos = st.b[line] + st.t[line]
    ch = s[pos] if pos < len(s) else ""
    off = st.off
    if ch == "" or (ch.isalnum() and not ("0" <= ch <= "9")):
        pass  # no rule but the paragraph starts with a letter
    elif ch == "`" or ch == "~":
        if _fence(st, line, end, False, out):
            return
    elif ch == ">":
        _blockquote(st, line, end, out)
        return
    elif (ch == "*" or ch == "-" or ch == "_") and thematic_break(s[pos:]):
        out.append(Block("hr", line + off, line + 1 + off, (), "", ch))
        st.line = line + 1
        return
    elif ch in "*-+" or "0" <= ch <= "9":
        if _list(st, line, end, False, out):
            return
    elif ch == "[":
        if _reference(st, line, out):
            return
    elif ch == "<":
        if _html(st, line, end, False, out):
            return
    elif ch == "#" and (head := atx_heading(s[pos:])) is not None:
        out.append(Block("heading", line + off, line + 1 + off, (), head[1], "#", head[0]))
        st.line = line + 1
        return
    _paragraph(st, line, end, out)


# ---------------------------------------------------------------- leaf rules


def _code(st: _State, start: int, end: int, out: list[Block]) -> None:
    last = nxt = start + 1
    while nxt < end:
        if _empty(st, nxt):
            nxt += 1
        elif st.s[nxt] - st.blk >= 4:
            nxt += 1
            last = nxt
        else:
            break
    st.line = last
    st.steps += nxt - start
    out.append(Block("code", start + st.off, last + st.off))


def _fence(st: _State, start: int, end: int, silent: bool, out: list[Block] | None = None) -> bool:
    s = st.src[start]
    pos = st.b[start] + st.t[start]
    if st.s[start] - st.blk >= 4 or pos + 3 > len(s):
        return False
    marker = s[pos]
    mem = pos
    while pos < len(s) and s[pos] == marker:
        pos += 1
    length = pos - mem
    params = s[pos:]
    if length < 3 or (marker == "`" and "`" in params):
        return False
    if silent:
        return True
    src, b, t, sc, blk = st.src, st.b, st.t, st.s, st.blk
    nxt = start
    closed = False
    while True:
        nxt += 1
        if nxt >= end:
            break
        text = src[nxt]
        pos = mem2 = b[nxt] + t[nxt]
        if pos >= len(text):
            continue
        if sc[nxt] < blk:
            break
        if text[pos] != marker or sc[nxt] - blk >= 4:
            continue
        while pos < len(text) and text[pos] == marker:
            pos += 1
        if pos - mem2 >= length and not text[pos:].strip(" \t"):
            closed = True
            break
    st.line = nxt + 1 if closed else nxt
    st.steps += nxt - start
    if out is not None:
        block = Block("fence", start + st.off, st.line + st.off, (), "", s[mem : mem + length])
        block.info = params
        block.closed = closed
        out.append(block)
    return True


def _html(st: _State, start: int, end: int, silent: bool, out: list[Block] | None = None) -> bool:
    if st.s[start] - st.blk >= 4:
        return False
    text = _rest(st, start)
    kind = 0
    closer: re.Pattern[str] | None = None
    for k, (opener, close) in enumerate(_HTML_OPEN):
        if opener.search(text):
            kind = k + 1
            closer = close
            break
    if not kind:
        return False
    if silent:
        return kind != 7
    nxt = start + 1
    if closer is None or not closer.search(text):
        while nxt < end:
            if st.s[nxt] < st.blk and (closer is None or not _empty(st, nxt)):
                break
            text = _rest(st, nxt)
            if closer is None:
                if not text:
                    break
            elif closer.search(text):
                nxt += 1
                break
            nxt += 1
    st.line = nxt
    st.steps += nxt - start
    if out is not None:
        block = Block("html", start + st.off, nxt + st.off)
        block.html_kind = kind
        out.append(block)
    return True


def _cells(row: str) -> list[str]:
    """A table row's cells: split on ``|`` not escaped by a backslash, less the empty
    first and last."""
    if "\\" not in row:
        cells = row.split("|")
    else:
        cells = []
        current = ""
        last = 0
        escaped = False
        for pos, ch in enumerate(row):
            if ch == "|":
                if not escaped:
                    cells.append(current + row[last:pos])
                    current = ""
                    last = pos + 1
                else:
                    current += row[last : pos - 1]
                    last = pos
            escaped = ch == "\\"
        cells.append(current + row[last:])
    if cells and cells[0] == "":
        cells.pop(0)
    if cells and cells[-1] == "":
        cells.pop()
    return cells


def _table(st: _State, start: int, end: int, silent: bool, out: list[Block] | None = None) -> bool:
    if start + 2 > end:
        return False
    nxt = start + 1
    if st.s[nxt] < st.blk or st.s[nxt] - st.blk >= 4:
        return False
    delim = _rest(st, nxt)
    if len(delim) < 2:
        return False
    c1, c2 = delim[0], delim[1]
    if c1 not in "|-:" or (c2 not in "|-: \t") or (c1 == "-" and c2 in " \t"):
        return False
    if delim.strip("|-: \t"):
        return False
    columns = delim.split("|")
    ncols = 0
    for i, col in enumerate(columns):
        c = col.strip(TRIM)
        if not c:
            if i == 0 or i == len(columns) - 1:
                continue
            return False
        if not _DELIM_CELL.match(c):
            return False
        ncols += 1
    head = _rest(st, start).strip(TRIM)
    if "|" not in head or st.s[start] - st.blk >= 4:
        return False
    cells = _cells(head)
    if not cells or len(cells) != ncols:
        return False
    if silent:
        return True
    old_para, st.para = st.para, False
    autocompleted = 0
    nxt = start + 2
    while nxt < end:
        if st.s[nxt] < st.blk or _terminated(st, _T_BLOCKQUOTE, nxt, end):
            break
        row = _rest(st, nxt).strip(TRIM)
        if not row or st.s[nxt] - st.blk >= 4:
            break
        autocompleted += ncols - len(_cells(row))
        if autocompleted > 0x10000:
            break
        nxt += 1
    st.para = old_para
    st.line = nxt
    st.steps += nxt - start
    if out is not None:
        out.append(Block("table", start + st.off, nxt + st.off))
    return True


def _paragraph(st: _State, start: int, end: int, out: list[Block]) -> None:
    """The setext heading rule, then the paragraph rule, in one pass over the lines."""
    old_para, st.para = st.para, True
    blk = st.blk
    nxt = start + 1
    src, b, ts, scount = st.src, st.b, st.t, st.s
    at_end = True
    if scount[start] - blk < 4:  # (a setext heading never starts in code)
        while nxt < end:
            t = src[nxt]
            pos = b[nxt] + ts[nxt]
            if pos >= len(t):
                break  # a blank line
            sc = scount[nxt]
            if sc - blk > 3:
                nxt += 1
                continue
            if sc >= blk:
                c = t[pos]
                if (c == "-" or c == "=") and not t[pos:].rstrip(" \t").strip(c):
                    content = _get_lines(st, start, nxt, blk)
                    st.line = nxt + 1
                    st.steps += nxt - start
                    level = 1 if c == "=" else 2
                    out.append(
                        Block("heading", start + st.off, nxt + 1 + st.off, (), content, c, level)
                    )
                    st.para = old_para
                    return
            if sc >= 0 and _terminated(st, _T_PARAGRAPH, nxt, end):
                break
            nxt += 1
        at_end = nxt >= end
    if at_end:
        # the paragraph rule looks up to the end of the state, not of the range
        limit = st.line_max
        while nxt < limit:
            if b[nxt] + ts[nxt] >= len(src[nxt]):
                break
            sc = scount[nxt]
            if sc - blk > 3 or sc < 0:
                nxt += 1
                continue
            if _terminated(st, _T_PARAGRAPH, nxt, limit):
                break
            nxt += 1
    st.line = nxt
    st.steps += nxt - start
    content = _get_lines(st, start, nxt, blk)
    out.append(Block("paragraph", start + st.off, nxt + st.off, (), content))
    st.para = old_para


def _reference(st: _State, start: int, out: list[Block]) -> bool:
    """A link reference definition ``[label]: destination 'title'``."""
    if st.s[start] - st.blk >= 4:
        return False
    text = _rest(st, start) + "\n"
    nxt = start + 1

    def more() -> None:
        nonlocal text, nxt
        line = _next_ref_line(st, nxt)
        if line is not None:
            text += line
            nxt += 1

    label_end = -1
    pos = 1
    while pos < len(text):
        ch = text[pos]
        if ch == "[":
            return False
        if ch == "]":
            label_end = pos
            break
        if ch == "\n":
            more()
        elif ch == "\\":
            pos += 1
            if pos < len(text) and text[pos] == "\n":
                more()
        pos += 1
    if label_end < 0 or text[label_end + 1 : label_end + 2] != ":":
        return False
    pos = label_end + 2
    while pos < len(text) and text[pos] in " \t\n":
        if text[pos] == "\n":
            more()
        pos += 1
    dest_end = _link_destination(text, pos)
    if dest_end < 0:
        return False
    href = text[pos:dest_end]
    if href.startswith("<"):
        href = href[1:-1]
    if _BAD_PROTOCOL.match(href.strip()) and not _GOOD_DATA.match(href.strip()):
        return False
    pos = start_ws = dest_end
    dest_line = nxt
    while pos < len(text) and text[pos] in " \t\n":
        if text[pos] == "\n":
            more()
        pos += 1
    title_ok = False
    if pos < len(text) and start_ws != pos and text[pos] in "\"'(":
        close = ")" if text[pos] == "(" else text[pos]
        k = pos + 1
        while True:
            if k >= len(text):
                before = nxt
                more()
                if nxt == before:
                    break
                continue
            ch = text[k]
            if ch == close:
                title_ok = True
                pos = k + 1
                break
            if ch == "(" and close == ")":
                break
            if ch == "\\" and k + 1 < len(text):
                k += 1
            k += 1
    if title_ok:
        while pos < len(text) and text[pos] in " \t":
            pos += 1
        title_ok = pos >= len(text) or text[pos] == "\n"
    if not title_ok:
        pos = dest_end
        nxt = dest_line
        while pos < len(text) and text[pos] in " \t":
            pos += 1
    if pos < len(text) and text[pos] != "\n":
        return False
    if not _WS_RUN.sub(" ", text[1:label_end].strip(TRIM)):
        return False
    st.line = nxt
    out.append(Block("reference", start + st.off, nxt + st.off))
    return True


def _next_ref_line(st: _State, line: int) -> str | None:
    if line >= st.line_max or _empty(st, line):
        return None
    if not (st.s[line] - st.blk >= 4 or st.s[line] < 0):
        old_para, st.para = st.para, False
        stop = _terminated(st, _T_PARAGRAPH, line, st.line_max)
        st.para = old_para
        if stop:
            return None
    return _rest(st, line) + "\n"


def _link_destination(text: str, pos: int) -> int:
    """End of a link destination starting at ``pos`` (markdown-it's rule), or -1."""
    n = len(text)
    if pos < n and text[pos] == "<":
        pos += 1
        while pos < n:
            ch = text[pos]
            if ch == "\n" or ch == "<":
                return -1
            if ch == ">":
                return pos + 1
            pos += 2 if ch == "\\" and pos + 1 < n else 1
        return -1
    start = pos
    depth = 0
    while pos < n:
        ch = text[pos]
        if ch == " " or ord(ch) < 0x20 or ch == "\x7f":
            break
        if ch == "\\" and pos + 1 < n:
            if text[pos + 1] == " ":
                break
            pos += 2
            continue
        if ch == "(":
            depth += 1
            if depth > 32:
                return -1
        if ch == ")":
            if depth == 0:
                break
            depth -= 1
        pos += 1
    if start == pos or depth != 0:
        return -1
    return pos


# ---------------------------------------------------------------- containers

_Saved = list[tuple[int, int, int, int, int]]


def _quote_line(st: _State, line: int, pos: int, saved: _Saved) -> bool:
    """Take one line into a block quote (``pos`` is after its ``>``); True if
    nothing follows the marker."""
    s = st.src[line]
    mx = len(s)
    initial = offset = st.s[line] + 1
    nc = s[pos] if pos < mx else ""
    adjust = 0
    space_after = nc == " " or nc == "\t"
    if nc == " " or (nc == "\t" and (st.bs[line] + offset) % 4 == 3):
        pos += 1
        initial += 1
        offset += 1
    elif nc == "\t":
        adjust = 1
    saved.append((line, st.b[line], st.bs[line], st.t[line], st.s[line]))
    st.b[line] = pos
    bs = st.bs[line]
    while pos < mx:
        ch = s[pos]
        if ch == " ":
            offset += 1
        elif ch == "\t":
            offset += 4 - (offset + bs + adjust) % 4
        else:
            break
        pos += 1
    st.bs[line] = st.s[line] + 1 + (1 if space_after else 0)
    st.s[line] = offset - initial
    st.t[line] = pos - st.b[line]
    return pos >= mx


def _blockquote(st: _State, start: int, end: int, out: list[Block]) -> None:
    old_max = st.line_max
    saved: _Saved = []
    last_empty = _quote_line(st, start, st.b[start] + st.t[start] + 1, saved)
    old_para, st.para = st.para, False
    nxt = start + 1
    while nxt < end:
        st.steps += 1
        outdented = st.s[nxt] < st.blk
        t = st.src[nxt]
        pos = st.b[nxt] + st.t[nxt]
        if pos >= len(t):
            break
        if t[pos] == ">" and not outdented:
            last_empty = _quote_line(st, nxt, pos + 1, saved)
            nxt += 1
            continue
        if last_empty:
            break
        if st.s[nxt] == -1 and st.blk == 0:
            # A lazy line of an outer quote: its verdict depends only on its
            # text from its line start, so a run of them judged at one level
            # is skipped whole at the deeper ones (their state stays as it is).
            run = st.lazy_runs.get(nxt)
            if run is None or run[0] != st.b[nxt]:
                stop = nxt
                while (
                    stop < end
                    and st.s[stop] == -1
                    and not _empty(st, stop)
                    and not _terminated(st, _T_BLOCKQUOTE, stop, end)
                ):
                    stop += 1
                st.steps += stop - nxt
                run = (st.b[nxt], stop)
                if stop > nxt:
                    st.lazy_runs[nxt] = run
            if run[1] > nxt:
                nxt = min(run[1], end)
                continue
        if _terminated(st, _T_BLOCKQUOTE, nxt, end):
            st.line_max = nxt
            if st.blk != 0:
                saved.append((nxt, st.b[nxt], st.bs[nxt], st.t[nxt], st.s[nxt]))
                st.s[nxt] -= st.blk
            break
        saved.append((nxt, st.b[nxt], st.bs[nxt], st.t[nxt], st.s[nxt]))
        st.s[nxt] = -1  # a lazy continuation line
        nxt += 1
    old_indent = st.blk
    st.blk = 0
    kids: list[Block] = []
    block = Block("blockquote", start + st.off, 0, kids, "", ">")
    out.append(block)
    st.level += 1
    _tokenize(st, start, nxt, kids)
    st.level -= 1
    st.line_max = old_max
    st.para = old_para
    block.end = st.line + st.off
    for line, b0, bs0, t0, s0 in saved:
        st.b[line] = b0
        st.bs[line] = bs0
        st.t[line] = t0
        st.s[line] = s0
    st.blk = old_indent


def _marker_end(st: _State, line: int, ordered: bool) -> int:
    """The position after a list marker opening ``line`` (a bullet, or one to nine
    digits and ``.`` or ``)``), followed by a blank or the end; else -1."""
    s = st.src[line]
    start = pos = st.b[line] + st.t[line]
    mx = len(s)
    if pos >= mx:
        return -1
    if not ordered:
        if s[pos] not in "*-+":
            return -1
        pos += 1
    else:
        while pos < mx and "0" <= s[pos] <= "9":
            pos += 1
        if pos == start or pos - start > 9 or pos >= mx or s[pos] not in ").":
            return -1
        pos += 1
    if pos < mx and s[pos] != " " and s[pos] != "\t":
        return -1
    return pos


def _one_line_item(
    st: _State, start: int, end: int, text: str, kids: list[Block], indent: int
) -> int:
    """The blocks of an item whose content (from column ``indent``) is one line of
    paragraph text ended by a blank line or the next item's marker: what
    :func:`_tokenize` would find, without the state's changes.  The position after
    that marker (0 after a blank line), or -1 for any other item."""
    c = text[0]
    if c in _NOT_PLAIN and not (
        (c == "`" and text[:3] != "```")
        or (c == "[" and "]:" not in text)
        or (c == "*" and text[1:2] not in ("", " ", "\t") and not thematic_break(text))
        or (c == "#" and atx_heading(text) is None)
    ):
        return -1
    nxt = start + 1
    b, t, sc = st.b, st.t, st.s
    src = st.src
    if st.level + 1 >= MAX_NESTING or "\x00" in text or nxt > end or (nxt == end < st.line_max):
        return -1
    skip = nxt
    after = 0
    if nxt < end:
        pos = b[nxt] + t[nxt]
        if pos < len(src[nxt]):  # the next item's marker, outdented (no lazy line)
            if not (0 <= sc[nxt] < indent and sc[nxt] - st.blk < 4):
                return -1
            ch = src[nxt][pos]
            if not (ch in "-*+" or "0" <= ch <= "9"):
                return -1
            after = _marker_end(st, nxt, ch >= "0")
            if after < 0:
                return -1
        else:  # a blank line, then the end or an outdented line
            skip += 1
            while end > nxt + 1 and skip < st.line_max and b[skip] + t[skip] >= len(src[skip]):
                skip += 1
            if skip < end and sc[skip] >= indent:
                return -1
    off = st.off
    kids.append(Block("paragraph", start + off, nxt + off, (), text.strip(TRIM)))
    if skip > nxt:
        kids.append(Block("blank", nxt + off, skip + off))
    st.line = skip
    st.steps += skip - start
    return after


#: the first characters of a line that some rule other than the paragraph may take
_NOT_PLAIN = frozenset(" \t>#`~<*-+_[0123456789")


def _list(st: _State, start: int, end: int, silent: bool, out: list[Block] | None = None) -> bool:
    if st.s[start] - st.blk >= 4:
        return False
    if st.list_indent >= 0 and st.s[start] - st.list_indent >= 4 and st.s[start] < st.blk:
        return False
    terminating = silent and st.para and st.s[start] >= st.blk
    src = st.src
    first = st.b[start] + st.t[start]
    ordered = "0" <= src[start][first : first + 1] <= "9"
    after = _marker_end(st, start, ordered)
    if after < 0:
        return False
    value = int(src[start][first : after - 1]) if ordered else 0
    if terminating and ((ordered and value != 1) or not src[start][after:].strip(" \t")):
        return False
    marker = src[start][after - 1]
    if silent:
        return True
    assert out is not None
    off = st.off
    items: list[Block] = []
    lst = Block("list", start + off, 0, items, "", marker)
    if ordered:
        lst.ordered = True
        lst.number = value
    out.append(lst)
    st.level += 1
    nxt = start
    prev_empty_end = False
    tight = True
    old_para, st.para = st.para, False
    b, t, sc, bs = st.b, st.t, st.s, st.bs
    while nxt < end:
        st.steps += 1
        s = src[nxt]
        pos = after
        mx = len(s)
        initial = offset = sc[nxt] + after - (b[start] + t[start])
        while pos < mx:
            ch = s[pos]
            if ch == "\t":
                offset += 4 - (offset + bs[nxt]) % 4
            elif ch == " ":
                offset += 1
            else:
                break
            pos += 1
        content_start = pos
        gap = 1 if content_start >= mx else offset - initial
        if gap > 4:
            gap = 1
        indent = initial + gap
        kids: list[Block] = []
        item = Block("item", start + off, 0, kids, "", marker, 0, indent)
        if ordered:
            item.ordered = True
            item.number = int(s[b[start] + t[start] : after - 1])
        items.append(item)
        if (
            content_start + 4 <= mx
            and s[content_start] == "["
            and s[content_start + 2] == "]"
            and s[content_start + 1] in " xX"
            and s[content_start + 3] in " \t"
            and offset - indent < 4
        ):
            item.task = s[content_start + 1] != " "
        fast = -1
        if content_start < mx:
            fast = _one_line_item(st, start, end, s[content_start:], kids, indent)
        if fast >= 0:
            if prev_empty_end:
                tight = False
        else:
            st.level += 1
            old_tight, old_list_indent = st.tight, st.list_indent
            old_tshift, old_scount = t[start], sc[start]
            st.list_indent = st.blk
            st.blk = indent
            st.tight = True
            t[start] = content_start - b[start]
            sc[start] = offset
            if content_start >= mx and _empty(st, start + 1):
                st.line = min(st.line + 2, end)
                if st.line > start + 1:
                    kids.append(Block("blank", start + 1 + off, st.line + off))
            else:
                _tokenize(st, start, end, kids)
            if not st.tight or prev_empty_end:
                tight = False
            st.blk = st.list_indent
            st.list_indent = old_list_indent
            t[start] = old_tshift
            sc[start] = old_scount
            st.tight = old_tight
            st.level -= 1
        line = st.line
        prev_empty_end = line - start > 1 and b[line - 1] + t[line - 1] >= len(src[line - 1])
        nxt = start = st.line
        item.end = nxt + off
        if nxt >= end or sc[nxt] < st.blk or sc[nxt] - st.blk >= 4:
            break
        if fast > 0:  # (the next line's marker is known: only a break may take it first)
            after = fast
            if src[nxt][after - 1] in "-*" and thematic_break(_rest(st, nxt)):
                break
        elif _terminated(st, _T_LIST, nxt, end):
            break
        else:
            after = _marker_end(st, nxt, ordered)
        if after < 0 or marker != src[nxt][after - 1]:
            break
    st.level -= 1
    lst.end = nxt + off
    if not tight:
        lst.tight = False
    st.line = nxt
    st.para = old_para
    return True


# ---------------------------------------------------------------- the API


def tokenize(
    lines: Sequence[str], start: int = 0, end: int | None = None, *, tables: bool = True
) -> list[Block]:
    """The blocks of ``lines[start:end]`` as markdown-it finds them (see the module doc).

    Never raises; every line of the range is in exactly one top-level block.
    """
    stop = len(lines) if end is None else min(end, len(lines))
    if stop <= start:
        return []
    tail = stop
    last = lines[stop - 1]
    if not last.endswith("\n") and last and not last.strip(" \t"):
        tail -= 1  # markdown-it drops a last line of blanks without a line end
    out: list[Block] = []
    # The blocks make no reference cycles: the cycle collector, left on, would
    # walk the growing heap again and again while a page of many blocks is built.
    paused = gc.isenabled()
    if paused:
        gc.disable()
    try:
        st = _State(lines, start, tail, tables)
        _tokenize(st, 0, st.line_max, out)
        _steps[0] += st.steps
    finally:
        if paused:
            gc.enable()
    if tail < stop:
        if out and out[-1].kind == "blank":
            out[-1].end = stop
        else:
            out.append(Block("blank", tail, stop))
    return out


def steps() -> int:
    """How many line visits the tokenizer has made in this process (never reset).

    A work counter for tests and benchmarks: the linearity test compares its
    growth with the input's.
    """
    return _steps[0]


def top_headings(
    lines: Sequence[str],
    start: int = 0,
    end: int | None = None,
    *,
    blocks: Callable[[], Sequence[Block]] | None = None,
) -> list[tuple[int, str, int]]:
    """``(level, title, line)`` of the top-level ATX headings of ``lines[start:end]``.

    Headings inside code, HTML blocks, quotes and list items are not top-level.
    ``blocks``, when given, returns ``tokenize(lines, start, end, tables=False)``
    (a caller that keeps those blocks for other uses, so they are made once).
    """
    found = blocks() if blocks is not None else tokenize(lines, start, end, tables=False)
    return [(b.level, b.content, b.start) for b in found if b.kind == "heading" and b.marker == "#"]


def is_thematic_break(line: str | bytes) -> bool:
    """Whether ``line`` (no line end) is a thematic break outside any container.

    At most three spaces, then three or more of one of ``*``, ``-``, ``_``
    with only spaces and tabs besides: ``---``, ``***``, ``- - -``, ``-- -``,
    ``*\t*\t*``.  A break wins over a list item (``- - -`` and ``* * *`` open
    no item).  Under a paragraph line ``---`` (any run of ``-`` alone) is that
    paragraph's setext underline instead, which this does not judge.  Bytes
    are read as their ASCII characters.
    """
    text = line.decode("latin-1") if isinstance(line, bytes) else line
    rest = text.lstrip(" ")
    return len(text) - len(rest) < 4 and thematic_break(rest)


def is_bullet_item_start(line: str | bytes, *, after_paragraph: bool = False) -> bool:
    """Whether ``line`` (no line end) opens a bullet list item outside any container.

    At most three spaces, ``-``, ``*`` or ``+``, then a space, a tab or the
    line's end, and not a thematic break (:func:`is_thematic_break`).
    ``after_paragraph``: the line follows a line of a paragraph, which an
    item with nothing after its marker does not interrupt (``-`` alone then
    underlines the paragraph, ``* `` continues it).  A line at the start of
    a list's item column continues that item instead: callers that keep every
    line at column 0 need not ask.  Bytes are read as their ASCII characters.
    """
    text = line.decode("latin-1") if isinstance(line, bytes) else line
    rest = text.lstrip(" ")
    mark = rest[:1]
    if len(text) - len(rest) > 3 or (mark != "-" and mark != "*" and mark != "+"):
        return False
    if rest[1:2] not in ("", " ", "\t"):
        return False
    if after_paragraph and not rest[1:].strip(" \t"):
        return False
    return not thematic_break(rest)


# ---------------------------------------------------------------- legacy helpers
# flat_leaves, may_open_block and plain_outline: kept only for callers that have not
# moved onto tokenize yet; nothing above uses them.

_BLANK, _HEAD, _PLAIN, _ITEM, _RULE = 0, 1, 2, 3, 4
#: first characters after which a line needs a closer look to be plain text
_SPECIAL = frozenset(" \t>#`~<*-+_=|[0123456789")


def _plain(text: str, tables: bool) -> bool:
    """Whether ``text`` (not blank, no line end) is a line of paragraph text that no
    block rule takes: it starts a paragraph, continues one, and ends none."""
    c = text[0]
    if c not in _SPECIAL:
        return True
    if c in "*-+_=":
        # not a list marker, and more than the character and blanks (no rule, no underline)
        if text[1:2] in ("", " ", "\t"):
            return False
        return bool(text.replace(" ", "").replace("\t", "").strip(c))
    if c == "#":
        return atx_heading(text) is None
    if c == "`" or c == "~":
        return not text.startswith(c * 3)
    if c == "[":
        close = text.find("]")
        return close > 0 and text[close + 1 : close + 2] != ":"  # no reference definition
    if c == "|":
        return not tables
    if "0" <= c <= "9":
        digits = text.lstrip("0123456789")
        return digits[:1] not in (".", ")")
    return False  # a blank first, a quote, HTML


def _text(line: str) -> str:
    """``line`` without its line end (LF, CRLF or a lone trailing CR)."""
    if line[-1:] == "\n":
        line = line[:-1]
    return line[:-1] if line[-1:] == "\r" else line


def _flat_kinds(lines: Sequence[str], start: int, stop: int, tables: bool) -> bytearray | None:
    """The kind of each line of ``lines[start:stop]`` if they make a flat page, else ``None``.

    One byte a line, and no copy of the lines: a big note's lines are read
    where they are (:func:`_text` on each, again when the blocks are built).
    """
    last = lines[stop - 1]
    if last[-1:] != "\n" and (last[-1:] == "\r" or (last and not last.strip(" \t"))):
        return None  # a lone CR, or a last line of blanks without a line end
    kinds = bytearray()
    append = kinds.append
    prev = -1
    special = _SPECIAL
    for index in range(start, stop):
        text = lines[index]
        if text[-1:] == "\n":  # _text, inline: the line without its line end
            text = text[:-1]
        if text[-1:] == "\r":
            text = text[:-1]
        if "\x00" in text or "\r" in text or (tables and "|" in text):
            return None  # NUL is read as U+FFFD; a lone CR ends a line; a "|" may make a table
        c = text[:1]
        if c not in special:
            kind = _PLAIN if c else _BLANK
        elif c in "-*+" and text[1:2] == " " and text[2:3] not in ("", " ", "\t"):
            if text[2] not in special or _plain(text[2:], tables):
                kind = _ITEM
            elif c != "+" and thematic_break(text) and prev != _PLAIN:
                kind = _RULE  # "- - -", "* * *"
            else:
                return None
        elif (c == "-" or c == "*" or c == "_") and thematic_break(text):
            if prev == _PLAIN:
                return None  # under a paragraph line: a setext underline or an interruption
            kind = _RULE
        elif c == "#" and atx_heading(text) is not None:
            kind = _HEAD
        elif (c == " " or c == "\t") and not text.strip(" \t"):
            kind = _BLANK
        elif _plain(text, tables):
            kind = _PLAIN
        else:
            return None
        if kind == _PLAIN and prev == _ITEM:
            return None  # a lazy continuation line of an item
        append(kind)
        prev = kind
    return kinds


def _flat_paragraph(lines: Sequence[str], start: int, kinds: bytearray, i: int) -> tuple[int, str]:
    """The flat paragraph whose first line is ``i`` (of ``kinds``): the index after
    its last line, and its content (its lines joined, trimmed)."""
    j = i + 1
    n = len(kinds)
    while j < n and kinds[j] == _PLAIN:
        j += 1
    return j, "\n".join(_text(lines[start + x]) for x in range(i, j)).strip(TRIM)


def flat_leaves(
    lines: Sequence[str], start: int = 0, end: int | None = None, *, tables: bool = True
) -> Iterator[tuple[str, int, int, str, bool]] | None:
    """The leaf blocks of a flat ``lines[start:end]`` one at a time, or ``None``.

    For a range that :func:`tokenize` reads in its fast lane (top-level
    headings, paragraphs, one-line bullet items, breaks, blanks), an iterator
    of ``(kind, start, end, content, in_item)`` for each ``"heading"``,
    ``"paragraph"`` and ``"hr"`` block of :func:`tokenize`'s tree, in document
    order, with their ``start``, ``end`` and ``content`` (``""`` for a break)
    and whether the block is an item's paragraph (an item's paragraph is its
    one line); the tree itself is never built, so a note of a million
    bullets costs one byte a line here.  ``None`` for any other range (and
    when the fast paths are off): then walk :func:`tokenize`'s blocks.
    """
    stop = len(lines) if end is None else min(end, len(lines))
    if stop <= start:
        return iter(())
    kinds = _flat_kinds(lines, start, stop, tables)
    if kinds is None:
        return None
    return _leaves(lines, start, kinds)


def _leaves(
    lines: Sequence[str], start: int, kinds: bytearray
) -> Iterator[tuple[str, int, int, str, bool]]:
    n = len(kinds)
    i = 0
    while i < n:
        kind = kinds[i]
        if kind == _HEAD:
            head = atx_heading(_text(lines[start + i]))
            assert head is not None
            yield "heading", start + i, start + i + 1, head[1], False
            i += 1
        elif kind == _PLAIN:
            j, content = _flat_paragraph(lines, start, kinds, i)
            yield "paragraph", start + i, start + j, content, False
            i = j
        elif kind == _ITEM:
            text = _text(lines[start + i])
            yield "paragraph", start + i, start + i + 1, text[2:].strip(TRIM), True
            i += 1
        elif kind == _RULE:
            yield "hr", start + i, start + i + 1, "", False
            i += 1
        else:
            i += 1


#: the first characters of a line that may open indented code, a fence or an HTML
#: block: a backtick, a tilde, ``<`` or a blank (whitespace, see may_open_block)
_OPENERS = "`~<"
#: a line start followed by one of them; a CR that ends the line is no blank
_LINE_MAY_OPEN = lazy(r"\n(?:[`~<]|[^\S\n\r]|\r(?!\n))")


def may_open_block(text: str, start: int = 0, end: int | None = None) -> bool:
    """Whether a line of ``text`` may open indented code, a code fence or an HTML block.

    True when some line (``text`` split at ``\\n`` only, as
    :attr:`Document.lines <sessionkit.document.Document.lines>` are) starts
    with a backtick, a tilde, ``<`` or whitespace.  An empty line does not
    count, nor does the CR of a CRLF line end; a CR at a line start otherwise
    does (a lone CR inside a line splits nothing here: callers for which it
    matters check for it).  Any Unicode whitespace counts, not only
    markdown-it's blanks (space and tab): a caller that trims lines with
    :meth:`str.strip` may rely on no line starting with what it trims.

    When this is False, none of those blocks opens at the top level of
    ``text`` (inside a container one still may: ``- `````), so whether a line
    starting with ``#`` is a top-level ATX heading (:func:`atx_heading`)
    depends on that line alone: the fast lane of :func:`top_headings` and
    conversion's shortcuts for plain sections rest on that.  This is the one
    table of what may open such a block outside the tokenizer's own rules;
    ``tests/test_markdown.py`` holds it to markdown-it.

    ``start`` and ``end``: look at ``text[start:end]`` only, without cutting it.
    """
    if end is None:
        end = len(text)
    first = text[start : start + 1] if start < end else ""  # (no line break before it)
    if (
        first
        and (first in _OPENERS or first.isspace())
        and not text.startswith(("\n", "\r\n"), start, end)
    ):
        return True
    return _LINE_MAY_OPEN.search(text, start, end) is not None


# --------------------------------------------------------------------------
# single lines and plain outlines, for readers that work on a page's bytes

#: plain_outline's searches, compiled on its first use (not at import: the hooks import
#: this module; and not through ``lazy``, whose attribute hook costs each use a little):
#: a code fence's mark (``re``: ``bytes.find`` of a repeated character is slow), an
#: indented line (``re`` finds a two-byte literal by its first byte: ``bytes.find`` of
#: "\n " tries every blank), and what a plain outline has nowhere outside fenced code
#: (a heading indented by one to three spaces, a line that may open an HTML block)
_outline_searches: list[Callable[[bytes], re.Match[bytes] | None]] = []
_off_outline: list[re.Pattern[bytes]] = []


def _compile_outline() -> list[Callable[[bytes], re.Match[bytes] | None]]:
    _outline_searches.extend([re.compile(rb"```").search, re.compile(rb"\n ").search])
    _off_outline.append(re.compile(rb"\n(?: {1,3}#| {0,3}<)"))
    return _outline_searches


def _line_start_fences(probe: bytes) -> list[tuple[int, int]] | None:
    """The top-level fenced code blocks of ``probe`` (see :func:`plain_outline`), or
    ``None`` when a fence mark is not at the start of its line, a backtick fence's info
    string holds a backtick (no fence: inline code) or a line is not UTF-8.

    Every mark at the start of its line, no line outside fenced code can hold one
    in a container or another block: a fence interrupts a paragraph, and ends a
    list item or a block quote it is not indented into.  So the blocks are the
    marks read in order, an open block closed by a run of its character at least
    as long with nothing but blanks after it, as markdown-it reads them (held to
    it by ``tests/test_markdown.py``), without tokenizing the body.
    """
    found: list[int] = []
    for mark in (b"```", b"~~~"):
        count = probe.count(mark)
        if count and probe.count(b"\n" + mark) != count:
            return None
        at = probe.find(b"\n" + mark)
        while at >= 0:
            found.append(at)
            at = probe.find(b"\n" + mark, at + 4)
    try:
        probe.decode()
    except UnicodeDecodeError:
        return None
    found.sort()
    blocks: list[tuple[int, int]] = []
    opened = -1
    char = b""
    size = 0
    for at in found:
        end = probe.find(b"\n", at + 1)
        if end < 0:
            end = len(probe)
        line = probe[at + 1 : end]
        mark = line[:1]
        run = len(line) - len(line.lstrip(mark))
        if opened < 0:
            if mark == b"`" and b"`" in line[run:]:
                return None
            opened, char, size = at, mark, run
        elif mark == char and run >= size and not line[run:].strip(b" \t"):
            blocks.append((opened, end))
            opened = -1
    if opened >= 0:
        blocks.append((opened, len(probe)))
    return blocks


def plain_outline(probe: bytes, indented: bool | None = None) -> list[tuple[int, int]] | None:
    """The fenced code blocks of a body whose outline is plain, or ``None``.

    ``probe`` is a body's bytes (UTF-8, lines split at LF) with the line break
    before its first line, so that ``b"\n#"`` finds every line that starts
    with ``#``; it holds no CR (markdown-it ends a line at a lone CR): the
    caller rules that out, as the quick lint does for the whole page before
    anything else.  Its outline is plain when every fence mark
    (````` ``` ````` or ``~~~``) is at the start of its line, and no line
    outside fenced code starts with one to three spaces and ``#`` (an
    indented heading) or up to three spaces and ``<`` (a possible HTML
    block).  Then:

    * the result is its top-level fenced code blocks, each as (position of the
      line break before its opening line, end of its closing line or of
      ``probe``), in order; and
    * its top-level ATX headings are exactly the lines that start with ``#``,
      lie outside those blocks and read as headings by themselves
      (:func:`atx_heading`): no other block can hold such a line.

    ``None`` for any other body (and one whose fence lines are not UTF-8).
    The byte searches come first, so a body without fence marks, ``<`` or
    indented lines costs a few scans of its bytes.  ``indented`` is whether a
    line of ``probe`` starts with a space, when the caller has found that out
    (``None``: it is searched for here).  ``tests/test_markdown.py`` holds
    both claims to markdown-it.
    """
    backticks, spaced = _outline_searches or _compile_outline()
    fenced = backticks(probe) is not None
    if not fenced:  # "~~~"? (a one-byte search first: "~" alone is rare)
        at = probe.find(b"~")
        while at >= 0:
            if probe[at : at + 3] == b"~~~":
                fenced = True
                break
            at = probe.find(b"~", at + 3)
    blocks: list[tuple[int, int]] = []
    if fenced:
        found = _line_start_fences(probe)
        if found is None:
            return None
        blocks = found
    if 60 not in probe and not (spaced(probe) is not None if indented is None else indented):
        return blocks  # (60: "<")
    for off in _off_outline[0].finditer(probe):
        at = off.start()
        if not blocks or not any(start < at < end for start, end in blocks):
            return None
    return blocks
