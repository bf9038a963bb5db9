"""The one Markdown block tokenizer: every block of a note, with its lines.

It reads blocks as markdown-it (and so Basic Memory) does, and is the only place
that knows the CommonMark block grammar: every reader works on its :class:`Block`
tokens.  The line rules it shares with raw-text readers (ATX heading, thematic
break, fence lines, markdown-it's trim) are :mod:`sessionkit.text.grammar`'s.

API: :func:`tokenize` (the blocks of ``lines[start:end]``, containers holding
their inner blocks; ``tables=False`` reads as markdown-it's ``commonmark`` preset,
Basic Memory's), :func:`walk`, :func:`top_headings`, and what one line is
outside any container: :func:`atx_heading`, :func:`is_thematic_break`,
:func:`is_bullet_item_start`.

:class:`Block` fields (line indices are 0-based into ``lines``; ``end`` is
exclusive, like markdown-it's ``token.map``):

=============  =================================================================
``kind``       one of :data:`KINDS`; ``code`` is indented code, ``reference`` a link
               reference definition, ``blank`` a run of blank lines, ``nested``
               lines nested deeper than :data:`MAX_NESTING` (markdown-it skips them)
``start/end``  the line range (``token.map`` of the markdown-it token)
``children``   inner blocks of ``blockquote``, ``list`` (its items) and ``item``
``level``      heading level 1-6
``content``    heading and paragraph text as markdown-it's inline token holds it
``marker``     heading: ``#``, ``=`` or ``-`` (setext); list and item: the
               marker character (``-``, ``*``, ``+``, ``.``, ``)``); fence: the
               opening run (```````` ``` ```````` or ``~~~``)
``ordered``    list and item: ordered (``1.`` / ``1)``)
``number``     ordered item: its number; ordered list: its first number
``indent``     item: the column its content starts at (a continuing line's indent)
``task``       item: ``None``, or ``False`` / ``True`` for ``[ ]`` / ``[x]`` then a blank
``tight``      list: ``True`` when tight (markdown-it hides its paragraphs)
``info``       fence: the info string after the opening run, as written
``closed``     fence: a closing fence was found (else it runs to its container's end)
``html_kind``  html: the CommonMark HTML block kind, 1-7
=============  =================================================================

How it works: the lines are classified once into per-line arrays (line start,
indent), and the block rules, one function each, run over them as markdown-it's
block state does (rule order, interruptions, lazy lines, tab stops, nesting cap).
Containers shift the line starts instead of copying lines: the work is linear
(``tests/test_markdown_linear.py`` counts it with :func:`steps`).
"""

from __future__ import annotations

import gc
import re
from collections.abc import Callable, Iterator, Sequence

from ._lazyre import lazy
from ._lines import spans as _spans
from .text.grammar import TRIM, fence_closes, fence_open, strip_eol, thematic_break
from .text.grammar import atx_heading as atx_heading
from .text.grammar import is_bullet_item_start as is_bullet_item_start
from .text.grammar import is_thematic_break as is_thematic_break
from .text.grammar import may_open_block as may_open_block

__all__ = [
    *("KINDS", "MAX_NESTING", "Block", "atx_heading", "is_bullet_item_start"),
    *("is_thematic_break", "may_open_block", "steps", "tokenize"),
    *("top_headings", "walk"),
]

#: the kinds of :class:`Block`
KINDS = (
    *("heading", "paragraph", "fence", "code", "blockquote", "list", "item", "table", "html"),
    *("hr", "reference", "blank", "nested"),
)

#: markdown-it's ``maxNesting`` in its commonmark preset: a container opened
#: at this depth (a quote counts 1, a list item 2) holds no blocks
MAX_NESTING = 20

# ---------------------------------------------------------------- tokens


class Block:
    """One block of a note (fields: see the module docstring; a leaf's ``children`` is ``()``)."""

    __slots__ = (
        *("__dict__", "children", "content", "end", "indent", "kind", "level", "marker"),
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
_CELL_SPLIT = lazy(r"(?<!\\)\|")
_ANGLED = lazy(r"<(?:[^<>\n\\]|\\[\s\S])*>")
#: a bullet, or one to nine digits and ``.`` or ``)``, then a blank or the line's end
_BULLET = lazy(r"[*+-](?=[ \t]|\Z)")
_ORDERED = lazy(r"[0-9]{1,9}[.)](?=[ \t]|\Z)")
_TASK = lazy(r"\[[ xX]\][ \t]")
_BAD_PROTOCOL = lazy(r"^(?:vbscript|javascript|file|data):", re.IGNORECASE)
_GOOD_DATA = lazy(r"^data:image/(?:gif|png|jpeg|webp);", re.IGNORECASE)
_WS_RUN = lazy(r"\s+")

# markdown-it's terminator lists: what ends a paragraph or reference (table, fence,
# blockquote, hr, list, html, heading), a quote or table row (the same less table), an item
_T_PARAGRAPH, _T_BLOCKQUOTE, _T_LIST = 0, 1, 2

_steps = [0]  # (see steps)


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
            if line[-1:] == "\r":
                src[k] = line = line[:-1]
            first = line[:1]
            if first == " " or first == "\t":
                shift = tshift[k] = len(line) - len(line.lstrip(" \t"))
                scount[k] = len(line[:shift].expandtabs(4))
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
        self.lazy_runs: dict[int, tuple[int, int]] = {}  # lazy line -> (its start, run end)


def _rest(st: _State, line: int) -> str:  # (from its first non-blank character)
    return st.src[line][st.b[line] + st.t[line] :]


def _empty(st: _State, line: int) -> bool:
    return st.b[line] + st.t[line] >= len(st.src[line])


def _terminated(st: _State, names: int, line: int, end: int) -> bool:
    """Whether a rule of the set ``names`` (:data:`_T_PARAGRAPH`, ...) starts at ``line``;
    rules asked without ``out`` (silent) have no effects, so only those that may start
    with its first character are tried."""
    s = st.src[line]
    pos = st.b[line] + st.t[line]
    if pos >= len(s) or st.s[line] - st.blk >= 4:
        return False  # every terminating rule refuses blank and code lines
    ch = s[pos]
    if names == _T_PARAGRAPH and st.tables and _table(st, line, end):
        return True
    if ch == ">":
        return True
    if ch == "`" or ch == "~":
        return _fence(st, line, end)
    if (ch == "*" or ch == "-" or ch == "_") and thematic_break(s[pos:]):
        return True
    if names == _T_LIST:
        return False
    if (ch == "*" or ch == "-" or ch == "+" or "0" <= ch <= "9") and _list(st, line, end):
        return True
    if ch == "<":
        return _html(st, line, end)
    return ch == "#" and atx_heading(s[pos:]) is not None


def _get_lines(st: _State, begin: int, end: int, indent: int) -> str:
    """The text of lines ``begin:end`` less ``indent`` columns, trimmed (markdown-it's
    getLines, as paragraphs and setext headings take it)."""
    st.steps += end - begin
    src, b = st.src, st.b
    if indent <= 0:  # nothing to take off past each line's start
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
    if st.tables and _table(st, line, end, out):
        return
    if st.s[line] - st.blk >= 4:
        _code(st, line, end, out)
        return
    s = st.src[line]
    pos = st.b[line] + st.t[line]
    ch = s[pos] if pos < len(s) else ""
    off = st.off
    if ch == ">":
        _blockquote(st, line, end, out)
    elif (ch == "*" or ch == "-" or ch == "_") and thematic_break(s[pos:]):
        out.append(Block("hr", line + off, line + 1 + off, (), "", ch))
        st.line = line + 1
    elif ch == "#" and (head := atx_heading(s[pos:])) is not None:
        out.append(Block("heading", line + off, line + 1 + off, (), head[1], "#", head[0]))
        st.line = line + 1
    elif (ch.isalnum() and not "0" <= ch <= "9") or not (  # (a letter: a paragraph)
        (ch in "`~" and _fence(st, line, end, out))
        or ((ch in "*-+" or "0" <= ch <= "9") and _list(st, line, end, out))
        or (ch == "[" and _reference(st, line, out))
        or (ch == "<" and _html(st, line, end, out))
    ):
        _paragraph(st, line, end, out)


# ---------------------------------------------------------------- leaf rules


def _code(st: _State, start: int, end: int, out: list[Block]) -> None:
    last = nxt = start + 1
    while nxt < end and (_empty(st, nxt) or st.s[nxt] - st.blk >= 4):
        nxt += 1
        if not _empty(st, nxt - 1):
            last = nxt
    st.line = last
    st.steps += nxt - start
    out.append(Block("code", start + st.off, last + st.off))


def _fence(st: _State, start: int, end: int, out: list[Block] | None = None) -> bool:
    opened = fence_open(_rest(st, start)) if st.s[start] - st.blk < 4 else None
    if opened is None or out is None:
        return opened is not None
    run = opened[1]
    src, b, t, sc, blk = st.src, st.b, st.t, st.s, st.blk
    nxt = start + 1
    closed = False
    while nxt < end:
        text = src[nxt]
        pos = b[nxt] + t[nxt]
        if pos < len(text):
            if sc[nxt] < blk:
                break
            if text[pos] == run[0] and sc[nxt] - blk < 4 and fence_closes(text[pos:], run):
                closed = True
                break
        nxt += 1
    st.line = nxt + 1 if closed else nxt
    st.steps += nxt - start
    block = Block("fence", start + st.off, st.line + st.off, (), "", run)
    block.info = opened[2]
    block.closed = closed
    out.append(block)
    return True


def _html(st: _State, start: int, end: int, out: list[Block] | None = None) -> bool:
    if st.s[start] - st.blk >= 4:
        return False
    text = _rest(st, start)
    found = next((k for k, (opener, _) in enumerate(_HTML_OPEN) if opener.search(text)), -1)
    if found < 0 or out is None:
        return found >= 0 and found != 6
    kind, closer = found + 1, _HTML_OPEN[found][1]
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
    block = Block("html", start + st.off, nxt + st.off)
    block.html_kind = kind
    out.append(block)
    return True


def _cells(cells: list[str]) -> list[str]:
    """A table row's cells less an empty first and last (the outer pipes): only their
    number and emptiness are used."""
    del cells[: not cells[0]]
    del cells[len(cells) - (bool(cells) and not cells[-1]) :]
    return cells


def _table(st: _State, start: int, end: int, out: list[Block] | None = None) -> bool:
    nxt = start + 1
    if nxt >= end or st.s[nxt] < st.blk or st.s[nxt] - st.blk >= 4:
        return False
    text, pos = st.src[nxt], st.b[nxt] + st.t[nxt]
    if text[pos : pos + 1] not in ("|", "-", ":"):  # (the delimiter row's first character)
        return False
    delim = text[pos:]
    if len(delim) < 2:
        return False
    c1, c2 = delim[0], delim[1]
    if c1 not in "|-:" or (c2 not in "|-: \t") or (c1 == "-" and c2 in " \t"):
        return False
    if delim.strip("|-: \t"):
        return False
    columns = _cells([col.strip(TRIM) for col in delim.split("|")])
    if not all(_DELIM_CELL.match(col) for col in columns):
        return False
    ncols = len(columns)
    head = _rest(st, start).strip(TRIM)
    if "|" not in head or st.s[start] - st.blk >= 4:
        return False
    cells = _cells(_CELL_SPLIT.split(head))
    if not cells or len(cells) != ncols:
        return False
    if out is None:
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
        autocompleted += ncols - len(_cells(_CELL_SPLIT.split(row)))
        if autocompleted > 0x10000:
            break
        nxt += 1
    st.para = old_para
    st.line = nxt
    st.steps += nxt - start
    out.append(Block("table", start + st.off, nxt + st.off))
    return True


def _paragraph(st: _State, start: int, end: int, out: list[Block]) -> None:
    """The setext heading rule, then the paragraph rule, in one pass over the lines: a
    setext underline is looked for up to ``end``, the paragraph's end up to the state's."""
    old_para, st.para = st.para, True
    blk = st.blk
    src, b, ts, scount = st.src, st.b, st.t, st.s
    setext = scount[start] - blk < 4  # (never in code)
    limit = end if setext else st.line_max
    nxt = start + 1
    while True:
        if nxt >= limit:
            if limit == st.line_max:
                break
            limit = st.line_max
            setext = False
            continue
        t = src[nxt]
        pos = b[nxt] + ts[nxt]
        if pos >= len(t):
            break  # a blank line
        sc = scount[nxt]
        if sc - blk > 3:
            nxt += 1
            continue
        c = t[pos]
        if setext and sc >= blk and (c == "-" or c == "=") and not t[pos:].rstrip(" \t").strip(c):
            content = _get_lines(st, start, nxt, blk)
            st.line = nxt + 1
            out.append(Block("heading", start + st.off, nxt + 1 + st.off, (), content, c))
            out[-1].level = 1 if c == "=" else 2
            st.para = old_para
            return
        if sc >= 0 and _terminated(st, _T_PARAGRAPH, nxt, limit):
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
        pos = len(text) - len(text[pos:].lstrip(" \t"))
        title_ok = pos >= len(text) or text[pos] == "\n"
    if not title_ok:
        nxt = dest_line
        pos = len(text) - len(text[dest_end:].lstrip(" \t"))
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
        angled = _ANGLED.match(text, pos)
        return angled.end() if angled else -1
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
            # A lazy line of an outer quote: its verdict depends on its text only, so
            # a run of them judged at one level is skipped whole at the deeper ones.
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
        st.b[line], st.bs[line], st.t[line], st.s[line] = b0, bs0, t0, s0
    st.blk = old_indent


def _marker_end(st: _State, line: int, ordered: bool) -> int:
    """The position after a list marker opening ``line``, else -1."""
    found = (_ORDERED if ordered else _BULLET).match(st.src[line], st.b[line] + st.t[line])
    return found.end() if found else -1


def _one_line_item(
    st: _State, start: int, end: int, text: str, kids: list[Block], indent: int
) -> int:
    """An item's blocks when its content (from column ``indent``) is one line of text
    ended by a blank line or the next item's marker, as :func:`_tokenize` finds them:
    the position after that marker (0 after a blank line); else -1."""
    c = text[0]
    if c in _NOT_PLAIN and not (
        (c == "`" and text[:3] != "```")
        or (c == "[" and "]:" not in text)
        or (c == "*" and text[1:2] not in ("", " ", "\t") and not thematic_break(text))
        or (c == "#" and atx_heading(text) is None)
    ):
        return -1
    nxt = start + 1
    b, t, sc, src = st.b, st.t, st.s, st.src
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


def _list(st: _State, start: int, end: int, out: list[Block] | None = None) -> bool:
    if st.s[start] - st.blk >= 4:
        return False
    if st.list_indent >= 0 and st.s[start] - st.list_indent >= 4 and st.s[start] < st.blk:
        return False
    terminating = out is None and st.para and st.s[start] >= st.blk
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
    if out is None:
        return True
    off = st.off
    items: list[Block] = []
    lst = Block("list", start + off, 0, items, "", marker)
    if ordered:
        lst.ordered = True
        lst.number = value
    out.append(lst)
    st.level += 1
    nxt, prev_empty_end, tight = start, False, True
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
        box = s[content_start : content_start + 4]
        if box[:1] == "[" and offset - indent < 4 and _TASK.match(box):
            item.task = s[content_start + 1] != " "
        fast = -1
        if content_start < mx and offset - indent < 4:  # (else indented code)
            fast = _one_line_item(st, start, end, s[content_start:], kids, indent)
        if fast >= 0:
            if prev_empty_end:
                tight = False
        else:
            st.level += 1
            saved = st.tight, st.list_indent, t[start], sc[start]
            st.tight, st.list_indent, st.blk = True, st.blk, indent
            t[start], sc[start] = content_start - b[start], offset
            if content_start >= mx and _empty(st, start + 1):
                st.line = min(st.line + 2, end)
                if st.line > start + 1:
                    kids.append(Block("blank", start + 1 + off, st.line + off))
            else:
                _tokenize(st, start, end, kids)
            if not st.tight or prev_empty_end:
                tight = False
            st.blk = st.list_indent
            st.tight, st.list_indent, t[start], sc[start] = saved
            st.level -= 1
        line = st.line
        prev_empty_end = line - start > 1 and b[line - 1] + t[line - 1] >= len(src[line - 1])
        nxt = start = st.line
        item.end = nxt + off
        if nxt >= end or sc[nxt] < st.blk or sc[nxt] - st.blk >= 4:
            break
        if fast > 0:  # (the next line's marker is known: only a break may take it first)
            after = fast
            mark = src[nxt][after - 1]
            if mark in "-*" and src[nxt].count(mark) > 2 and thematic_break(_rest(st, nxt)):
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
    """The blocks of ``lines[start:end]`` as markdown-it finds them (see the module doc);
    every line of the range is in exactly one top-level block.  Never raises."""
    stop = len(lines) if end is None else min(end, len(lines))
    if stop <= start:
        return []
    tail = stop
    last = lines[stop - 1]
    if not last.endswith("\n") and last and not last.strip(" \t"):
        tail -= 1  # markdown-it drops a last line of blanks without a line end
    out: list[Block] = []
    # (blocks make no cycles: the collector would only walk the growing heap again)
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
    """How many line visits the tokenizer has made in this process (a work counter)."""
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
    (a caller that keeps them for other uses).
    """
    plain = _plain_headings(lines, start, len(lines) if end is None else end)
    if plain is not None:
        return plain
    found = blocks() if blocks is not None else tokenize(lines, start, end, tables=False)
    return [(b.level, b.content, b.start) for b in found if b.kind == "heading" and b.marker == "#"]


def _plain_headings(
    lines: Sequence[str], start: int, stop: int
) -> list[tuple[int, str, int]] | None:
    """The headings of lines none of which may open a block (``None`` for other lines),
    found without a block tree: a big note's memory stays its text."""
    found: list[tuple[int, str, int]] = []
    first = start
    for text, a, b in _spans(lines, start, stop):
        if may_open_block(text, a, b):
            return None
        i = first
        last = a
        at = a if text.startswith("#", a, b) else text.find("\n#", a, b) + 1 or -1
        while at >= 0:
            i += text.count("\n", last, at)
            last = at
            head = atx_heading(strip_eol(lines[i]))
            if head is not None:
                found.append((head[0], head[1], i))
            at = text.find("\n#", at, b) + 1 or -1
        first += text.count("\n", a, b)
    return found
