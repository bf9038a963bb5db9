"""The one Markdown block tokenizer: every block of a note, with its lines.

sessionkit reads Markdown the way markdown-it (and so Basic Memory) reads it.
This module is the only place that knows the CommonMark block grammar; every
reader (document sections, the aiwiki reader and linter, the Basic Memory
grammar, conversion) works on the :class:`Block` tokens it yields.

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

``top_headings(lines, start=0, end=None) -> list[tuple[int, str, int]]``
    ``(level, title, line)`` of the top-level ATX headings (``## Title``):
    what :attr:`Document.headings` and the sections are built from.  It has a
    fast lane for pages where no line can open a code, fence or HTML block.

``may_open_block(text) -> bool``
    Whether a line of ``text`` may open indented code, a fence or an HTML
    block (it starts with whitespace, a backtick, a tilde or ``<``): when
    not, every line is a heading or not by itself.

``is_thematic_break(line)``, ``is_bullet_item_start(line, *, after_paragraph=False)``
    What one line (``str`` or ``bytes``, no line end) is outside any
    container, by the block state's own rules: for readers that look at a
    page's bytes line by line (the quick lint).

``plain_outline(probe: bytes, indented: bool | None = None) -> list[tuple[int, int]] | None``
    Whether a body's top-level headings are just its lines that start with
    ``#`` and read as headings, outside fenced code; if so, where that code
    is (byte ranges).  The quick lint's pre-check (``indented``: whether a
    line starts with a space, when the caller knows).

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
per-line arrays, and the block rules run over them as markdown-it's block
state does (the same rule order, the same interrupting rules, lazy
continuation lines, tab stops, the nesting cap).  Containers shift the
arrays' line starts instead of copying lines, so nested containers cost
constant work per line per level, and levels stop at :data:`MAX_NESTING`:
the work is linear in the input (``tests/test_markdown.py`` counts it).
"""

from __future__ import annotations

import gc
import re
from collections.abc import Callable, Iterator, Sequence

from . import _fastpaths
from ._lazyre import lazy
from ._lines import spans as _spans

__all__ = [
    "KINDS",
    "MAX_NESTING",
    "Block",
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

# --------------------------------------------------------------------------
# tokens


class Block:
    """One block of a note; see the module docstring for the fields.

    The rarer fields a kind does not use keep their defaults (read from the
    class, so that making a block costs only what it sets); a leaf's
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
        #: inner blocks (containers only)
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


# --------------------------------------------------------------------------
# the block state

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


class _Work:
    """A counter of the steps the tokenizer takes (for the linearity test)."""

    steps = 0


def _escaped_split(text: str) -> list[str]:
    """Cells of a table row: split on ``|`` not escaped by a backslash."""
    if "\\" not in text:
        return text.split("|")
    out: list[str] = []
    current = ""
    last = 0
    escaped = False
    for pos, ch in enumerate(text):
        if ch == "|":
            if not escaped:
                out.append(current + text[last:pos])
                current = ""
                last = pos + 1
            else:
                current += text[last : pos - 1]
                last = pos
        escaped = ch == "\\"
    out.append(current + text[last:])
    return out


#: what markdown-it's mdTrim strips (JavaScript's trim, less U+FEFF)
_TRIM = "".join(
    chr(c)
    for c in sorted(
        {0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x20, 0xA0, 0x1680, 0x202F, 0x205F, 0x3000, 0x2028, 0x2029}
        | set(range(0x2000, 0x200B))
    )
)


def _breaks(rest: str) -> bool:
    """Whether ``rest`` (a line from its first non-blank character, no line end) is a
    thematic break: three or more of one of ``*``, ``-``, ``_`` and only spaces and
    tabs besides (markdown-it's hr rule; the block state, the flat lane and
    :func:`is_thematic_break` all ask here)."""
    mark = rest[:1]
    return (
        (mark == "-" or mark == "*" or mark == "_")
        and rest.count(mark) >= 3
        and not rest.strip(" \t" + mark)
    )


class _State:
    """markdown-it's block state over one range of lines."""

    def __init__(self, lines: Sequence[str], start: int, end: int, tables: bool) -> None:
        self.offset = start
        src = [line[:-1] if line.endswith("\n") else line for line in lines[start:end]]
        for k, line in enumerate(src):
            if line.endswith("\r"):
                src[k] = line[:-1]
        n = len(src)
        tshift = [0] * n
        scount = [0] * n
        for k, line in enumerate(src):
            if line[:1] == " " or line[:1] == "\t":
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
        bmarks = [0] * n
        n = len(src)
        src.append("")
        bmarks.append(0)
        tshift.append(0)
        scount.append(0)
        self.src = src
        self.b = bmarks
        self.t = tshift
        self.s = scount
        self.bs = [0] * (n + 1)
        self.n = n
        self.line_max = n
        self.blk = 0
        self.line = 0
        self.tight = False
        self.list_indent = -1
        self.parent = "root"
        self.level = 0
        self.tables = tables
        #: runs of lazy lines already judged: first line -> (its line start, run end)
        self.lazy_runs: dict[int, tuple[int, int]] = {}

    # -- helpers -------------------------------------------------------------
    def empty(self, line: int) -> bool:
        return self.b[line] + self.t[line] >= len(self.src[line])

    def code_at(self, line: int) -> bool:
        return self.s[line] - self.blk >= 4

    def first(self, line: int) -> str:
        """The first non-blank character of a line ('' when blank)."""
        pos = self.b[line] + self.t[line]
        s = self.src[line]
        return s[pos] if pos < len(s) else ""

    def terminated(self, names: int, line: int, end: int) -> bool:
        """Whether a rule of the set ``names`` (:data:`_T_PARAGRAPH`, ...) starts at ``line``.

        Silent rules have no effects, so only those that can start with the
        line's first character are tried, in any order.
        """
        s = self.src[line]
        pos = self.b[line] + self.t[line]
        if pos >= len(s) or self.s[line] - self.blk >= 4:
            return False  # every terminating rule refuses blank and code lines
        ch = s[pos]
        if names == _T_PARAGRAPH and self.tables and line + 1 < end:
            nl = line + 1
            t = self.src[nl]
            p2 = self.b[nl] + self.t[nl]
            if p2 < len(t) and t[p2] in "|-:" and self.table(line, end, True):
                return True
        if ch == ">":
            return True
        if ch == "`" or ch == "~":
            return self.fence(line, end, True)
        if (ch == "*" or ch == "-" or ch == "_") and self.hr(line, end, True):
            return True
        if names == _T_LIST:
            return False
        if (ch == "*" or ch == "-" or ch == "+" or "0" <= ch <= "9") and self.list(line, end, True):
            return True
        if ch == "<":
            return self.html(line, end, True)
        if ch == "#":
            return self.heading(line, end, True)
        return False

    def get_lines(self, begin: int, end: int, indent: int) -> str:
        """The text of lines ``begin:end`` less ``indent`` columns (markdown-it's getLines)."""
        _Work.steps += end - begin
        if indent <= 0:  # nothing to take off past each line's start
            src, b = self.src, self.b
            if end - begin == 1:
                text = src[begin][b[begin] :]
            else:
                text = "\n".join([src[line][b[line] :] for line in range(begin, end)])
            return text.replace("\x00", "\ufffd") if "\x00" in text else text
        out: list[str] = []
        for line in range(begin, end):
            s = self.src[line]
            first = start = self.b[line]
            col = 0
            last = len(s)
            while first < last and col < indent:
                ch = s[first]
                if ch == "\t":
                    col += 4 - (col + self.bs[line]) % 4
                elif ch == " " or first - start < self.t[line]:
                    col += 1
                else:
                    break
                first += 1
            if col > indent:
                out.append(" " * (col - indent) + s[first:])
            else:
                out.append(s[first:])
        text = "\n".join(out)
        return text.replace("\x00", "\ufffd") if "\x00" in text else text

    # -- the driver ------------------------------------------------------------
    def tokenize(self, start: int, end: int, out: list[Block]) -> None:
        # src, b, t and s are changed in place only, so they are read as locals
        src, b, t, sc = self.src, self.b, self.t, self.s
        line = start
        has_empty = False
        while line < end:
            if b[line] + t[line] >= len(src[line]):
                skip = line + 1
                line_max = self.line_max
                while skip < line_max and b[skip] + t[skip] >= len(src[skip]):
                    skip += 1
                _Work.steps += skip - line
                if out and out[-1].kind == "blank" and out[-1].end == line:
                    out[-1].end = skip
                else:
                    out.append(Block("blank", line, skip))
                line = skip
            self.line = line
            if line >= end:
                break
            if sc[line] < self.blk:
                break  # the end of a nested container
            if self.level >= MAX_NESTING:
                out.append(Block("nested", line, end))
                self.line = end
                break
            _Work.steps += 1
            self.block(line, end, out)
            self.tight = not has_empty
            line = self.line
            if line - 1 < end and b[line - 1] + t[line - 1] >= len(src[line - 1]):
                has_empty = True
            if line < end and b[line] + t[line] >= len(src[line]):
                has_empty = True
                out.append(Block("blank", line, line + 1))
                line += 1
                self.line = line

    def block(self, line: int, end: int, out: list[Block]) -> None:
        """Run the first rule that takes ``line`` (markdown-it's rule order)."""
        if self.tables and self.table(line, end, False, out):
            return
        if self.s[line] - self.blk >= 4:
            self.code(line, end, out)
            return
        s = self.src[line]
        pos = self.b[line] + self.t[line]
        ch = s[pos] if pos < len(s) else ""
        if ch == "" or (ch.isalnum() and not ("0" <= ch <= "9")):
            self.paragraph(line, end, out)  # no other rule starts with a letter
            return
        if ch in "`~" and self.fence(line, end, False, out):
            return
        if ch == ">" and self.blockquote(line, end, False, out):
            return
        if ch in "*-_" and self.hr(line, end, False, out):
            return
        if (ch in "*-+" or "0" <= ch <= "9") and self.list(line, end, False, out):
            return
        if ch == "[" and self.reference(line, end, out):
            return
        if ch == "<" and self.html(line, end, False, out):
            return
        if ch == "#" and self.heading(line, end, False, out):
            return
        self.paragraph(line, end, out)

    # -- leaf rules ----------------------------------------------------------------
    def code(self, start: int, end: int, out: list[Block]) -> None:
        last = nxt = start + 1
        while nxt < end:
            if self.empty(nxt):
                nxt += 1
                continue
            if self.code_at(nxt):
                nxt += 1
                last = nxt
                continue
            break
        self.line = last
        _Work.steps += nxt - start
        out.append(Block("code", start, last))

    def fence(self, start: int, end: int, silent: bool, out: list[Block] | None = None) -> bool:
        if self.code_at(start):
            return False
        s = self.src[start]
        pos = self.b[start] + self.t[start]
        if pos + 3 > len(s):
            return False
        marker = s[pos]
        if marker not in "`~":
            return False
        mem = pos
        while pos < len(s) and s[pos] == marker:
            pos += 1
        length = pos - mem
        if length < 3:
            return False
        params = s[pos:]
        if marker == "`" and "`" in params:
            return False
        if silent:
            return True
        nxt = start
        closed = False
        while True:
            nxt += 1
            if nxt >= end:
                break
            t = self.src[nxt]
            pos = mem2 = self.b[nxt] + self.t[nxt]
            if pos < len(t) and self.s[nxt] < self.blk:
                break
            if pos >= len(t):
                continue
            if t[pos] != marker or self.code_at(nxt):
                continue
            while pos < len(t) and t[pos] == marker:
                pos += 1
            if pos - mem2 < length:
                continue
            if t[pos:].strip(" \t"):
                continue
            closed = True
            break
        self.line = nxt + (1 if closed else 0)
        _Work.steps += nxt - start
        if out is not None:
            block = Block("fence", start, self.line)
            block.marker = s[mem : mem + length]
            block.info = params
            block.closed = closed
            out.append(block)
        return True

    def hr(self, start: int, end: int, silent: bool, out: list[Block] | None = None) -> bool:
        if self.code_at(start):
            return False
        s = self.src[start]
        pos = self.b[start] + self.t[start]
        if pos >= len(s):
            return False
        if not _breaks(s[pos:]):
            return False
        if silent:
            return True
        marker = s[pos]
        self.line = start + 1
        if out is not None:
            block = Block("hr", start, start + 1)
            block.marker = marker
            out.append(block)
        return True

    def heading(self, start: int, end: int, silent: bool, out: list[Block] | None = None) -> bool:
        if self.code_at(start):
            return False
        s = self.src[start]
        pos = self.b[start] + self.t[start]
        if pos >= len(s) or s[pos] != "#":
            return False
        mx = len(s)
        level = 1
        pos += 1
        while pos < mx and s[pos] == "#" and level <= 6:
            level += 1
            pos += 1
        if level > 6 or (pos < mx and s[pos] not in " \t"):
            return False
        if silent:
            return True
        # the closing run of '#': only when a blank precedes it
        mx = len(s[:mx].rstrip(" \t"))
        if mx < pos:
            mx = pos
        tmp = mx
        while tmp > pos and s[tmp - 1] == "#":
            tmp -= 1
        if tmp > pos and s[tmp - 1] in " \t":
            mx = tmp
        self.line = start + 1
        if out is not None:
            block = Block("heading", start, start + 1)
            block.level = level
            block.marker = "#"
            block.content = s[pos:mx].strip(_TRIM)
            out.append(block)
        return True

    def html(self, start: int, end: int, silent: bool, out: list[Block] | None = None) -> bool:
        if self.code_at(start):
            return False
        s = self.src[start]
        pos = self.b[start] + self.t[start]
        if pos >= len(s) or s[pos] != "<":
            return False
        text = s[pos:]
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
                if self.s[nxt] < self.blk and (closer is None or not self.empty(nxt)):
                    break
                t = self.src[nxt]
                text = t[self.b[nxt] + self.t[nxt] :]
                if closer is None:
                    if not text:
                        break
                elif closer.search(text):
                    nxt += 1
                    break
                nxt += 1
        self.line = nxt
        _Work.steps += nxt - start
        if out is not None:
            block = Block("html", start, nxt)
            block.html_kind = kind
            out.append(block)
        return True

    def table(self, start: int, end: int, silent: bool, out: list[Block] | None = None) -> bool:
        if start + 2 > end:
            return False
        nxt = start + 1
        if self.s[nxt] < self.blk or self.code_at(nxt):
            return False
        t = self.src[nxt]
        pos = self.b[nxt] + self.t[nxt]
        if pos + 1 >= len(t):
            return False
        c1, c2 = t[pos], t[pos + 1]
        if c1 not in "|-:" or (c2 not in "|-: \t") or (c1 == "-" and c2 in " \t"):
            return False
        delim = t[pos:]
        if delim.strip("|-: \t"):
            return False
        columns = delim.split("|")
        ncols = 0
        for i, col in enumerate(columns):
            c = col.strip(_TRIM)
            if not c:
                if i == 0 or i == len(columns) - 1:
                    continue
                return False
            if not _DELIM_CELL.match(c):
                return False
            ncols += 1
        s = self.src[start]
        head = s[self.b[start] + self.t[start] :].strip(_TRIM)
        if "|" not in head or self.code_at(start):
            return False
        cells = _escaped_split(head)
        if cells and cells[0] == "":
            cells.pop(0)
        if cells and cells[-1] == "":
            cells.pop()
        if not cells or len(cells) != ncols:
            return False
        if silent:
            return True
        old_parent = self.parent
        self.parent = "table"
        autocompleted = 0
        nxt = start + 2
        while nxt < end:
            if self.s[nxt] < self.blk:
                break
            if self.terminated(_T_BLOCKQUOTE, nxt, end):
                break
            row = self.src[nxt][self.b[nxt] + self.t[nxt] :].strip(_TRIM)
            if not row or self.code_at(nxt):
                break
            cells = _escaped_split(row)
            if cells and cells[0] == "":
                cells.pop(0)
            if cells and cells[-1] == "":
                cells.pop()
            autocompleted += ncols - len(cells)
            if autocompleted > 0x10000:
                break
            nxt += 1
        self.parent = old_parent
        self.line = nxt
        _Work.steps += nxt - start
        if out is not None:
            out.append(Block("table", start, nxt))
        return True

    def paragraph(self, start: int, end: int, out: list[Block]) -> None:
        """The setext heading rule, then the paragraph rule, in one pass over the lines."""
        old_parent = self.parent
        self.parent = "paragraph"
        blk = self.blk
        nxt = start + 1
        level = 0
        marker = ""
        limit = end
        src, b, ts, scount = self.src, self.b, self.t, self.s
        if scount[start] - blk < 4:  # (a setext heading never starts in code)
            while nxt < limit:
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
                        level = 1 if c == "=" else 2
                        marker = c
                        break
                if sc < 0:
                    nxt += 1
                    continue
                if self.terminated(_T_PARAGRAPH, nxt, end):
                    break
                nxt += 1
            if level:
                content = self.get_lines(start, nxt, blk).strip(_TRIM)
                self.line = nxt + 1
                block = Block("heading", start, nxt + 1)
                block.level = level
                block.marker = marker
                block.content = content
                out.append(block)
                self.parent = old_parent
                return
            at_end = nxt >= limit
        else:
            at_end = True
        if at_end:
            # the paragraph rule looks up to the end of the state, not of the range
            limit = self.line_max
            while nxt < limit:
                if b[nxt] + ts[nxt] >= len(src[nxt]):
                    break
                sc = scount[nxt]
                if sc - blk > 3 or sc < 0:
                    nxt += 1
                    continue
                if self.terminated(_T_PARAGRAPH, nxt, limit):
                    break
                nxt += 1
        self.line = nxt
        _Work.steps += nxt - start
        block = Block("paragraph", start, nxt)
        block.content = self.get_lines(start, nxt, blk).strip(_TRIM)
        out.append(block)
        self.parent = old_parent

    def reference(self, start: int, end: int, out: list[Block]) -> bool:
        """A link reference definition ``[label]: destination 'title'``."""
        if self.code_at(start):
            return False
        s = self.src[start]
        pos0 = self.b[start] + self.t[start]
        if pos0 >= len(s) or s[pos0] != "[":
            return False
        text = s[pos0:] + "\n"
        nxt = start + 1
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
                more = self._next_ref_line(nxt)
                if more is not None:
                    text += more
                    nxt += 1
            elif ch == "\\":
                pos += 1
                if pos < len(text) and text[pos] == "\n":
                    more = self._next_ref_line(nxt)
                    if more is not None:
                        text += more
                        nxt += 1
            pos += 1
        if label_end < 0 or text[label_end + 1 : label_end + 2] != ":":
            return False
        pos = label_end + 2
        while pos < len(text):
            ch = text[pos]
            if ch == "\n":
                more = self._next_ref_line(nxt)
                if more is not None:
                    text += more
                    nxt += 1
            elif ch not in " \t":
                break
            pos += 1
        dest_end = _link_destination(text, pos)
        if dest_end < 0:
            return False
        href = text[pos:dest_end]
        if href.startswith("<"):
            href = href[1:-1]
        if _BAD_PROTOCOL.match(href.strip()) and not _GOOD_DATA.match(href.strip()):
            return False
        pos = dest_end
        dest_line = nxt
        start_ws = pos
        while pos < len(text):
            ch = text[pos]
            if ch == "\n":
                more = self._next_ref_line(nxt)
                if more is not None:
                    text += more
                    nxt += 1
            elif ch not in " \t":
                break
            pos += 1
        title_ok = False
        title_end = pos
        if pos < len(text) and start_ws != pos:
            marker = text[pos]
            if marker in "\"'(":
                close = ")" if marker == "(" else marker
                k = pos + 1
                while True:
                    if k >= len(text):
                        more = self._next_ref_line(nxt)
                        if more is None:
                            break
                        text += more
                        nxt += 1
                        continue
                    ch = text[k]
                    if ch == close:
                        title_ok = True
                        title_end = k + 1
                        break
                    if ch == "(" and close == ")":
                        break
                    if ch == "\\" and k + 1 < len(text):
                        k += 1
                    k += 1
        if title_ok:
            pos = title_end
            while pos < len(text) and text[pos] in " \t":
                pos += 1
            if pos < len(text) and text[pos] != "\n":
                title_ok = False
        if not title_ok:
            pos = dest_end
            nxt = dest_line
            while pos < len(text) and text[pos] in " \t":
                pos += 1
        if pos < len(text) and text[pos] != "\n":
            return False
        if not _WS_RUN.sub(" ", text[1:label_end].strip(_TRIM)):
            return False
        self.line = nxt
        out.append(Block("reference", start, nxt))
        return True

    def _next_ref_line(self, line: int) -> str | None:
        if line >= self.line_max or self.empty(line):
            return None
        if not (self.code_at(line) or self.s[line] < 0):
            old_parent = self.parent
            self.parent = "reference"
            stop = self.terminated(_T_PARAGRAPH, line, self.line_max)
            self.parent = old_parent
            if stop:
                return None
        return self.src[line][self.b[line] + self.t[line] :] + "\n"

    # -- containers ------------------------------------------------------------
    def _quote_line(self, line: int, pos: int, saved: list[tuple[int, int, int, int, int]]) -> bool:
        """Take one line into a block quote (``pos`` is after its ``>``); True if
        nothing follows the marker."""
        s = self.src[line]
        mx = len(s)
        initial = offset = self.s[line] + 1
        nc = s[pos] if pos < mx else ""
        adjust = 0
        if nc == " ":
            pos += 1
            initial += 1
            offset += 1
            space_after = True
        elif nc == "\t":
            space_after = True
            if (self.bs[line] + offset) % 4 == 3:
                pos += 1
                initial += 1
                offset += 1
            else:
                adjust = 1
        else:
            space_after = False
        saved.append((line, self.b[line], self.bs[line], self.t[line], self.s[line]))
        self.b[line] = pos
        bs = self.bs[line]
        while pos < mx:
            ch = s[pos]
            if ch == " ":
                offset += 1
            elif ch == "\t":
                offset += 4 - (offset + bs + adjust) % 4
            else:
                break
            pos += 1
        self.bs[line] = self.s[line] + 1 + (1 if space_after else 0)
        self.s[line] = offset - initial
        self.t[line] = pos - self.b[line]
        return pos >= mx

    def blockquote(
        self, start: int, end: int, silent: bool, out: list[Block] | None = None
    ) -> bool:
        if self.code_at(start):
            return False
        s = self.src[start]
        pos = self.b[start] + self.t[start]
        if pos >= len(s) or s[pos] != ">":
            return False
        if silent:
            return True
        assert out is not None
        old_max = self.line_max
        saved: list[tuple[int, int, int, int, int]] = []
        last_empty = self._quote_line(start, pos + 1, saved)
        old_parent = self.parent
        self.parent = "blockquote"
        nxt = start + 1
        while nxt < end:
            _Work.steps += 1
            outdented = self.s[nxt] < self.blk
            t = self.src[nxt]
            pos = self.b[nxt] + self.t[nxt]
            if pos >= len(t):
                break
            if t[pos] == ">" and not outdented:
                last_empty = self._quote_line(nxt, pos + 1, saved)
                nxt += 1
                continue
            if last_empty:
                break
            if self.s[nxt] == -1 and self.blk == 0:
                # A lazy line of an outer quote: its verdict depends only on its
                # text from its line start, so a run of them judged at one level
                # is skipped whole at the deeper ones (their state stays as it is).
                run = self.lazy_runs.get(nxt)
                if run is None or run[0] != self.b[nxt]:
                    stop = nxt
                    while (
                        stop < end
                        and self.s[stop] == -1
                        and not self.empty(stop)
                        and not self.terminated(_T_BLOCKQUOTE, stop, end)
                    ):
                        stop += 1
                    _Work.steps += stop - nxt
                    run = (self.b[nxt], stop)
                    if stop > nxt:
                        self.lazy_runs[nxt] = run
                if run[1] > nxt:
                    nxt = min(run[1], end)
                    continue
            if self.terminated(_T_BLOCKQUOTE, nxt, end):
                self.line_max = nxt
                if self.blk != 0:
                    saved.append((nxt, self.b[nxt], self.bs[nxt], self.t[nxt], self.s[nxt]))
                    self.s[nxt] -= self.blk
                break
            saved.append((nxt, self.b[nxt], self.bs[nxt], self.t[nxt], self.s[nxt]))
            self.s[nxt] = -1  # a lazy continuation line
            nxt += 1
        old_indent = self.blk
        self.blk = 0
        kids: list[Block] = []
        block = Block("blockquote", start, 0, kids)
        block.marker = ">"
        out.append(block)
        self.level += 1
        self.tokenize(start, nxt, kids)
        self.level -= 1
        self.line_max = old_max
        self.parent = old_parent
        block.end = self.line
        for line, b0, bs0, t0, s0 in saved:
            self.b[line] = b0
            self.bs[line] = bs0
            self.t[line] = t0
            self.s[line] = s0
        self.blk = old_indent
        return True

    def _bullet(self, line: int) -> int:
        s = self.src[line]
        pos = self.b[line] + self.t[line]
        if pos >= len(s) or s[pos] not in "*-+":
            return -1
        pos += 1
        if pos < len(s) and s[pos] not in " \t":
            return -1
        return pos

    def _ordered(self, line: int) -> int:
        s = self.src[line]
        start = pos = self.b[line] + self.t[line]
        mx = len(s)
        if pos + 1 >= mx or not ("0" <= s[pos] <= "9"):
            return -1
        pos += 1
        while True:
            if pos >= mx:
                return -1
            ch = s[pos]
            pos += 1
            if "0" <= ch <= "9":
                if pos - start >= 10:
                    return -1
                continue
            if ch in ").":
                break
            return -1
        if pos < mx and s[pos] not in " \t":
            return -1
        return pos

    def list(self, start: int, end: int, silent: bool, out: list[Block] | None = None) -> bool:
        if self.code_at(start):
            return False
        if (
            self.list_indent >= 0
            and self.s[start] - self.list_indent >= 4
            and self.s[start] < self.blk
        ):
            return False
        terminating = silent and self.parent == "paragraph" and self.s[start] >= self.blk
        src = self.src
        after = self._ordered(start)
        value = 0
        first = self.b[start] + self.t[start]
        if after >= 0:
            ordered = True
            value = int(src[start][first : after - 1])
            if terminating and value != 1:
                return False
        else:
            after = self._bullet(start)
            if after < 0:
                return False
            ordered = False
        if terminating and not src[start][after:].strip(" \t"):
            return False
        marker = src[start][after - 1]
        if silent:
            return True
        assert out is not None
        items: list[Block] = []
        lst = Block("list", start, 0, items)
        lst.ordered = ordered
        lst.marker = marker
        if ordered:
            lst.number = value
        out.append(lst)
        self.level += 1
        nxt = start
        prev_empty_end = False
        tight = True
        old_parent = self.parent
        self.parent = "list"
        while nxt < end:
            _Work.steps += 1
            s = src[nxt]
            pos = after
            mx = len(s)
            initial = offset = self.s[nxt] + after - (self.b[start] + self.t[start])
            bs = self.bs[nxt]
            while pos < mx:
                ch = s[pos]
                if ch == "\t":
                    offset += 4 - (offset + bs) % 4
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
            item = Block("item", start, 0, kids)
            item.marker = marker
            item.ordered = ordered
            if ordered:
                item.number = int(s[self.b[start] + self.t[start] : after - 1])
            item.indent = indent
            items.append(item)
            self.level += 1
            old_tight = self.tight
            old_tshift = self.t[start]
            old_scount = self.s[start]
            old_list_indent = self.list_indent
            self.list_indent = self.blk
            self.blk = indent
            self.tight = True
            self.t[start] = content_start - self.b[start]
            self.s[start] = offset
            if (
                content_start + 4 <= mx
                and s[content_start] == "["
                and s[content_start + 2] == "]"
                and s[content_start + 1] in " xX"
                and s[content_start + 3] in " \t"
                and not self.code_at(start)
            ):
                item.task = s[content_start + 1] != " "
            if content_start >= mx and self.empty(start + 1):
                self.line = min(self.line + 2, end)
                if self.line > start + 1:
                    kids.append(Block("blank", start + 1, self.line))
            else:
                self.tokenize(start, end, kids)
            if not self.tight or prev_empty_end:
                tight = False
            prev_empty_end = (self.line - start) > 1 and self.empty(self.line - 1)
            self.blk = self.list_indent
            self.list_indent = old_list_indent
            self.t[start] = old_tshift
            self.s[start] = old_scount
            self.tight = old_tight
            self.level -= 1
            nxt = start = self.line
            item.end = nxt
            if nxt >= end:
                break
            if self.s[nxt] < self.blk or self.code_at(nxt):
                break
            if self.terminated(_T_LIST, nxt, end):
                break
            after = self._ordered(nxt) if ordered else self._bullet(nxt)
            if after < 0:
                break
            if marker != src[nxt][after - 1]:
                break
        self.level -= 1
        lst.end = nxt
        lst.tight = tight
        self.line = nxt
        self.parent = old_parent
        return True


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
            if ch == "\\" and pos + 1 < n:
                pos += 2
                continue
            pos += 1
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


def _shift(blocks: list[Block], offset: int) -> None:
    for block, _ in walk(blocks):
        block.start += offset
        block.end += offset


def tokenize(
    lines: Sequence[str], start: int = 0, end: int | None = None, *, tables: bool = True
) -> list[Block]:
    """The blocks of ``lines[start:end]`` as markdown-it finds them (see the module doc).

    Never raises; every line of the range is in exactly one top-level block.
    """
    stop = len(lines) if end is None else min(end, len(lines))
    if stop <= start:
        return []
    if _fastpaths.enabled("flat-blocks"):
        flat = _flat(lines, start, stop, tables)
        if flat is not None:
            _fastpaths.answered("flat-blocks")
            return flat
    tail = stop
    last = lines[stop - 1]
    if not last.endswith("\n") and last and not last.strip(" \t"):
        tail -= 1  # markdown-it drops a last line of blanks without a line end
    out: list[Block] = []
    # The blocks make no reference cycles, so the cycle collector has nothing
    # to free here; left on, it walks the growing heap again and again while a
    # page of many small blocks is built (a third of the time of such a page).
    paused = gc.isenabled()
    if paused:
        gc.disable()
    try:
        state = _State(lines, start, tail, tables)
        state.tokenize(0, state.n, out)
    finally:
        if paused:
            gc.enable()
    if tail < stop:
        if out and out[-1].kind == "blank":
            out[-1].end = tail - start + 1
        else:
            out.append(Block("blank", tail - start, tail - start + 1))
    if start:
        _shift(out, start)
    return out


# -- the fast lane for flat pages ---------------------------------------------

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
            elif c != "+" and _breaks(text) and prev != _PLAIN:
                kind = _RULE  # "- - -", "* * *"
            else:
                return None
        elif (c == "-" or c == "*" or c == "_") and _breaks(text):
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


def _flat(lines: Sequence[str], start: int, stop: int, tables: bool) -> list[Block] | None:
    """:func:`tokenize` of a flat page, or ``None`` for any other.

    A flat page is top-level ATX headings, paragraphs of plain lines (see
    :func:`_plain`), one-line bullet items (``- text`` with one blank, text
    that is a plain line, no lazy line after it), thematic breaks not under a
    paragraph line, and blank lines.  Its blocks
    follow from each line's kind, so they are built in one pass without the
    block state.  ``tests/test_markdown.py`` compares both ways through the
    public switch.
    """
    kinds = _flat_kinds(lines, start, stop, tables)
    if kinds is None:
        return None
    out: list[Block] = []
    n = len(kinds)
    i = 0
    while i < n:
        kind = kinds[i]
        if kind == _BLANK:
            j = i + 1
            while j < n and kinds[j] == _BLANK:
                j += 1
            out.append(Block("blank", start + i, start + j))
            i = j
        elif kind == _RULE:
            out.append(Block("hr", start + i, start + i + 1, (), "", lines[start + i][0]))
            i += 1
        elif kind == _HEAD:
            head = atx_heading(_text(lines[start + i]))
            assert head is not None
            out.append(Block("heading", start + i, start + i + 1, (), head[1], "#", head[0]))
            i += 1
        elif kind == _PLAIN:
            j, content = _paragraph(lines, start, kinds, i)
            out.append(Block("paragraph", start + i, start + j, (), content))
            i = j
        else:
            marker = lines[start + i][0]
            items: list[Block] = []
            lst = Block("list", start + i, 0, items)
            lst.marker = marker
            tight = True
            k = i
            while True:
                text = _text(lines[start + k])
                para = Block("paragraph", start + k, start + k + 1, (), text[2:].strip(_TRIM))
                j = k + 1
                b = j
                while b < n and kinds[b] == _BLANK:
                    b += 1
                item = Block(
                    "item",
                    start + k,
                    start + b,
                    (para, Block("blank", start + j, start + b)) if b > j else (para,),
                    "",
                    marker,
                    0,
                    2,
                )
                if (
                    len(text) >= 6
                    and text[2] == "["
                    and text[4] == "]"
                    and text[3] in " xX"
                    and text[5] in " \t"
                ):
                    item.task = text[3] != " "
                items.append(item)
                if b < n and kinds[b] == _ITEM and lines[start + b][0] == marker:
                    if b > j:
                        tight = False
                    k = b
                    continue
                break
            lst.end = start + b
            if not tight:
                lst.tight = False
            out.append(lst)
            i = b
    return out


def _paragraph(lines: Sequence[str], start: int, kinds: bytearray, i: int) -> tuple[int, str]:
    """The flat paragraph whose first line is ``i`` (of ``kinds``): the index after
    its last line, and its content (its lines joined, trimmed)."""
    j = i + 1
    n = len(kinds)
    while j < n and kinds[j] == _PLAIN:
        j += 1
    return j, "\n".join(_text(lines[start + x]) for x in range(i, j)).strip(_TRIM)


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
    if stop <= start or not _fastpaths.enabled("flat-leaves"):
        return iter(()) if stop <= start else None
    kinds = _flat_kinds(lines, start, stop, tables)
    if kinds is None:
        return None
    _fastpaths.answered("flat-leaves")
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
            j, content = _paragraph(lines, start, kinds, i)
            yield "paragraph", start + i, start + j, content, False
            i = j
        elif kind == _ITEM:
            text = _text(lines[start + i])
            yield "paragraph", start + i, start + i + 1, text[2:].strip(_TRIM), True
            i += 1
        elif kind == _RULE:
            yield "hr", start + i, start + i + 1, "", False
            i += 1
        else:
            i += 1


def steps() -> int:
    """How many line visits the tokenizer has made in this process.

    A work counter for tests and benchmarks (the linearity test compares
    its growth with the input's); never reset.
    """
    return _Work.steps


# --------------------------------------------------------------------------
# top-level ATX headings, with the fast lane

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


def is_thematic_break(line: str | bytes) -> bool:
    """Whether ``line`` (no line end) is a thematic break outside any container.

    At most three spaces, then three or more of one of ``*``, ``-``, ``_``
    with only spaces and tabs besides: ``---``, ``***``, ``- - -``, ``-- -``,
    ``*\t*\t*``.  A break wins over a list item (``- - -`` and ``* * *`` open
    no item).  Under a paragraph line ``---`` (any run of ``-`` alone) is that
    paragraph's setext underline instead, which this does not judge.  Bytes
    are read as their ASCII characters (any other byte is no blank and no
    mark, as any other character is).  The block state's rule itself.
    """
    text = line.decode("latin-1") if isinstance(line, bytes) else line
    rest = text.lstrip(" ")
    return len(text) - len(rest) < 4 and _breaks(rest)


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
    if isinstance(line, bytes):
        line = line.decode("latin-1")
    mark = line[:1]
    rest = line
    if mark == " ":
        rest = line.lstrip(" ")
        if len(line) - len(rest) > 3:
            return False
        mark = rest[:1]
    if mark != "-" and mark != "*" and mark != "+":
        return False
    after = rest[1:2]
    if after != " " and after and after != "\t":
        return False
    if after_paragraph and not rest[1:].strip(" \t"):
        return False
    return rest.count(mark) < 3 or not _breaks(rest)  # (a break needs three marks)


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


def _strip_eol(line: str) -> str:
    if line.endswith("\n"):
        line = line[:-1]
        if line.endswith("\r"):
            line = line[:-1]
    return line


def atx_heading(line: str) -> tuple[int, str] | None:
    """(level, title) of a line (no line end) that is an ATX heading at column 0, else None.

    The title is stripped, and a closing run of ``#`` goes (``## Title ##`` is ``Title``).
    """
    rest = line.lstrip("#")
    level = len(line) - len(rest)
    if level == 0 or level > 6 or (rest and rest[0] not in " \t"):
        return None
    if "#" not in rest:  # no closing sequence: the title is the rest
        return level, rest.strip(_TRIM)
    # as markdown-it cuts the tail: one closing run of "#" after a blank goes (the
    # blanks around it are spaces and tabs only), then the rest is trimmed
    end = rest.rstrip(" \t")
    body = end.rstrip("#")
    if body and body[-1] in " \t":
        end = body
    return level, end.strip(_TRIM)


def _plain_headings(
    lines: Sequence[str], start: int, stop: int
) -> list[tuple[int, str, int]] | None:
    """The fast lane of :func:`top_headings`: lines none of which may open a
    block (:func:`may_open_block`); ``None`` for other lines.

    No indented code, fence or HTML block can start on such lines, and a line
    starting with ``#`` cannot continue a container (a heading ends a
    paragraph, a quote and a list item that does not indent it), so the
    headings are exactly the lines starting with ``#`` that are headings by
    themselves; string searches find them without a walk over every line.
    """
    found: list[tuple[int, str, int]] = []
    first = start  # the first line of the span
    # (a big note's own text, a piece at a time: nothing copied, nothing joined)
    for text, a, b in _spans(lines, start, stop):
        if may_open_block(text, a, b):
            return None
        i = first
        last = a
        # the first line that starts with "#" (-1: none does)
        at = a if text.startswith("#", a, b) else text.find("\n#", a, b) + 1 or -1
        while at >= 0:
            i += text.count("\n", last, at)
            last = at
            head = atx_heading(_strip_eol(lines[i]))
            if head is not None:
                found.append((head[0], head[1], i))
            at = text.find("\n#", at, b) + 1 or -1
        first += text.count("\n", a, b)  # (every span but the last ends a line)
    return found


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
    stop = len(lines) if end is None else end
    if _fastpaths.enabled("headings"):
        plain = _plain_headings(lines, start, stop)
        if plain is not None:
            _fastpaths.answered("headings")
            return plain
    found = blocks() if blocks is not None else tokenize(lines, start, stop, tables=False)
    return [(b.level, b.content, b.start) for b in found if b.kind == "heading" and b.marker == "#"]
