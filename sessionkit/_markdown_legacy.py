"""Byte- and line-level shortcuts kept for callers not yet moved onto the tokenizer (private).

``flat_leaves``, ``may_open_block``, ``plain_outline``, ``is_thematic_break`` and
``is_bullet_item_start`` answer questions the block tokenizer
(:mod:`sessionkit.markdown`, which re-exports them) answers in general, for the
aiwiki reader and quick lint; ``tests/test_markdown.py`` holds them to markdown-it.
This module goes when those callers stop using them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence

from ._lazyre import lazy
from ._lines import spans as _spans
from .text.grammar import TRIM, atx_heading, strip_eol, thematic_break

__all__ = [
    *("flat_leaves", "is_bullet_item_start", "is_thematic_break", "may_open_block"),
    *("plain_headings", "plain_outline"),
]


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

    For a flat range (top-level
    headings, paragraphs, one-line bullet items, breaks, blanks), an iterator
    of ``(kind, start, end, content, in_item)`` for each ``"heading"``,
    ``"paragraph"`` and ``"hr"`` block of :func:`tokenize`'s tree, in document
    order, with their ``start``, ``end`` and ``content`` (``""`` for a break)
    and whether the block is an item's paragraph (an item's paragraph is its
    one line); the tree itself is never built, so a note of a million
    bullets costs one byte a line here.  ``None`` for any other range: then
    walk :func:`tokenize`'s blocks.
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
    depends on that line alone: :func:`plain_headings` and
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


def plain_headings(
    lines: Sequence[str], start: int, stop: int
) -> list[tuple[int, str, int]] | None:
    """:func:`sessionkit.markdown.top_headings` of lines none of which may open a
    block (:func:`may_open_block`), without the tokenizer (a big note costs no
    block tree); ``None`` for other lines.

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
            head = atx_heading(strip_eol(lines[i]))
            if head is not None:
                found.append((head[0], head[1], i))
            at = text.find("\n#", at, b) + 1 or -1
        first += text.count("\n", a, b)  # (every span but the last ends a line)
    return found
