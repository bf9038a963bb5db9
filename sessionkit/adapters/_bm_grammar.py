"""Basic Memory's note grammar as pure, token-level functions.

Basic Memory runs a CommonMark parser over a note's body and looks at every
*inline* run of text (a paragraph, a heading, the text of a list item) for:

* an **observation** — ``[category] content #tag (context)``, or any text with a
  ``#word`` in it (no category; the index files it as ``note``);
* **relations** — in a list item, ``type [[Target]]`` optionally followed by one
  ``(context)`` is an explicit relation; every other ``[[Target]]`` and every
  Markdown link to a relative path is a ``links_to`` relation.

This module reproduces those rules without a Markdown library: a small block
scanner (fenced and indented code, HTML blocks, block quotes, lists with lazy
continuation lines, ATX and setext headings, paragraphs) yields the inline runs,
and the functions below apply Basic Memory's rules to them.  Every rule has a
golden test in ``tests/golden/basic-memory/`` and the whole is checked against
basic-memory 0.24.1 in ``tests/interop``.

Known differences (documented in ``docs/basic-memory.md``): temporal qualifiers
(``- [decision] @2026-07-27 text``) are not peeled off the content, and
reference-style Markdown links are not relations.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from urllib.parse import unquote, urlsplit

import attrs

from ..document import _HTML_END, _HTML_START

__all__ = [
    "BMObservation",
    "BMRelation",
    "Facts",
    "InlineRun",
    "inline_relations",
    "is_observation",
    "parse_facts",
    "parse_observation",
    "parse_relation",
    "parse_tags",
    "scan_inline_runs",
]


@attrs.frozen
class InlineRun:
    """One inline run of text: what Basic Memory's parser calls an inline token.

    Attributes:
        content: the text, lines joined with ``\\n``, stripped.
        start: index of its first line in the scanned lines.
        end: index after its last line.
        kind: ``paragraph`` or ``heading``.
        in_list_item: inside a list item (as Basic Memory tracks it: reset by
            the first closing item, even of a nested list).
        in_blockquote: inside a block quote.
    """

    content: str
    start: int
    end: int
    kind: str = "paragraph"
    in_list_item: bool = False
    in_blockquote: bool = False


@attrs.frozen
class BMObservation:
    """An observation as Basic Memory indexes it (``category`` ``None`` = ``note``).

    ``text`` is the line's text after the category as written (first line
    only), which is what sessionkit keeps for the dedicated session fields.
    """

    category: str | None
    content: str
    tags: tuple[str, ...]
    context: str | None
    line: int
    text: str


@attrs.frozen
class BMRelation:
    """A relation as Basic Memory indexes it.

    ``target`` is what the index stores (``proj::Note`` becomes ``proj/Note``;
    ``T|Alias`` stays whole).  ``explicit`` is true for a ``type [[T]]`` list
    item; ``markdown`` for a Markdown link.
    """

    type: str
    target: str
    context: str | None
    line: int
    explicit: bool = False
    markdown: bool = False
    label: str | None = None


@attrs.frozen
class Facts:
    """Everything Basic Memory extracts from a body, in document order."""

    observations: tuple[BMObservation, ...] = ()
    relations: tuple[BMRelation, ...] = ()


# --------------------------------------------------------------------------
# block scanner

_FENCE = re.compile(r"^(`{3,}|~{3,})(.*)$")
_ATX = re.compile(r"^(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_HR = re.compile(r"^(?:(?:\*[ \t]*){3,}|(?:-[ \t]*){3,}|(?:_[ \t]*){3,})$")
_BULLET = re.compile(r"^([-*+])(?=[ \t]|$)")
_ORDERED = re.compile(r"^(\d{1,9})([.)])(?=[ \t]|$)")
_SETEXT = re.compile(r"^(?:=+|-+)[ \t]*$")
_BULLETS = ("-", "*", "+")
_AFTER_BULLET = ("", " ", "\t")


def _expand(line: str) -> str:
    """Expand tabs in the leading whitespace (tab stops of 4)."""
    if "\t" not in line:
        return line
    body = line.lstrip(" \t")
    lead = line[: len(line) - len(body)]
    return lead.expandtabs(4) + body


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _blank(line: str) -> bool:
    return not line.strip()


def _list_marker(stripped: str) -> tuple[int, bool, str] | None:
    """(marker length, ordered starting at 1 or bullet, rest) of a list item line."""
    if stripped[:1] in _BULLETS:
        # what _BULLET matches: the marker, then a blank, the end, or a last "\n"
        rest = stripped[1:]
        if rest[:1] in _AFTER_BULLET or rest == "\n":
            return 1, True, rest
        return None  # not a digit either
    m = _ORDERED.match(stripped)
    if m:
        return len(m.group(0)), int(m.group(1)) == 1, stripped[len(m.group(0)) :]
    return None


def _html_kind(stripped: str) -> str | None:
    if not stripped.startswith("<"):
        return None
    m = _HTML_START.match(stripped)
    if not m:
        return None
    return m.lastgroup or "t6"


#: container blocks (block quotes, list items) nested deeper than this yield no
#: facts (markdown-it, which Basic Memory parses with, also stops at a nesting cap)
MAX_NESTING = 32

#: first characters of a block that is not a paragraph (quote, heading, rule, fence, HTML, list)
_BLOCK_START = frozenset(">#*-_`~<+0123456789")
#: first characters of a list item marker
_MARKER_START = frozenset("*-+0123456789")
#: first characters of a line that may not be a paragraph's (or is indented)
_NOT_PLAIN = _BLOCK_START | {" "}


def _interrupts(line: str) -> bool:
    """Whether ``line`` starts a block that can interrupt a paragraph."""
    s = line.lstrip(" ")
    if not s.strip() or len(line) - len(s) >= 4:  # blank, or indented 4+
        return False
    c = s[0]
    if c not in _BLOCK_START:
        return False
    # only the blocks that can start with ``c`` (see ``_Scanner._blocks``)
    if c == ">":
        return True
    if c == "#":
        return _ATX.match(s) is not None
    if c in "`~":
        fm = _FENCE.match(s)
        return bool(fm and not (fm.group(1)[0] == "`" and "`" in fm.group(2)))
    if c == "<":
        return _html_kind(s) is not None
    if c in "*-_" and _HR.match(s):
        return True
    marker = _list_marker(s)
    return bool(marker and marker[1] and marker[2].strip())


def _opens_paragraph(line: str, was_open: bool) -> bool:
    """Whether a paragraph is open after ``line`` (for lazy continuation lines).

    A loop, not a recursion, over the ``>`` and list markers a line starts
    with: a line of thousands of ``> `` must not exhaust the stack.
    """
    while True:
        if _blank(line):
            return False
        if _indent(line) >= 4:
            return was_open  # a continuation of an open paragraph, else indented code
        s = line.lstrip(" ")
        if s[0] not in _BLOCK_START and s[0] != "=":
            return True  # plain text: a paragraph line (no setext underline either)
        if s.startswith(">"):
            line, was_open = (s[1:].lstrip(" ") if len(s) > 1 else ""), False
            continue
        marker = _list_marker(s)
        if marker is not None:
            if not marker[2].strip():
                return False
            line, was_open = marker[2].lstrip(" "), False
            continue
        if _ATX.match(s) or _HR.match(s) or _FENCE.match(s) or _html_kind(s) is not None:
            return False
        return not (was_open and _SETEXT.match(s))


#: an inline run while scanning: the fields of :class:`InlineRun`, in order
_Run = tuple[str, int, int, str, bool, bool]


class _Scanner:
    #: take the shortcuts for one-line plain-text list items (off only in the
    #: tests that check the shortcuts find exactly what the full scan finds)
    shortcuts = True

    def __init__(self) -> None:
        self.runs: list[_Run] = []
        self.in_list_item = False
        self.quote_depth = 0
        self.depth = 0
        self.lazy: set[int] = set()
        self.original: dict[int, str] = {}

    def emit(self, content: str, start: int, end: int, kind: str) -> None:
        text = content.strip()
        if text:
            self.runs.append((text, start, end, kind, self.in_list_item, self.quote_depth > 0))

    def blocks(self, lines: Sequence[tuple[int, str]]) -> None:
        # Blocks nested deeper than MAX_NESTING (quotes, list items) yield no
        # facts: the scan would otherwise recurse once per level (a stack
        # overflow) and copy the lines once per level (quadratic time).
        if self.depth >= MAX_NESTING:
            return
        self.depth += 1
        try:
            self._blocks(lines)
        finally:
            self.depth -= 1

    def _blocks(self, lines: Sequence[tuple[int, str]]) -> None:
        i, n = 0, len(lines)
        while i < n:
            num, line = lines[i]
            s = line.lstrip(" ")
            if not s.strip():  # blank
                i += 1
                continue
            ind = len(line) - len(s)
            if ind >= 4:
                # indented code: runs to the next non-blank line indented less
                i += 1
                while i < n and (_blank(lines[i][1]) or _indent(lines[i][1]) >= 4):
                    i += 1
                continue
            c = s[0]
            if c not in _BLOCK_START:  # plain text: a paragraph starts here
                i = self.paragraph(lines, i)
                continue
            # Each block's pattern can only match a line starting with its own
            # characters, so only the candidates for ``c`` are tried (in the
            # CommonMark order: fence, heading, rule, quote, HTML, list item).
            if c in "`~":
                fm = _FENCE.match(s)
                if fm and not (fm.group(1)[0] == "`" and "`" in fm.group(2)):
                    i = self._skip_fence(lines, i, fm.group(1))
                    continue
            elif c == "#":
                am = _ATX.match(s)
                if am:
                    self.emit(am.group(2) or "", num, num + 1, "heading")
                    i += 1
                    continue
            elif c == ">":
                i = self.blockquote(lines, i)
                continue
            elif c == "<":
                kind = _html_kind(s)
                if kind is not None:
                    i = self._skip_html(lines, i, kind)
                    continue
            elif c in "*-_" and _HR.match(s):
                i += 1
                continue
            if c in _MARKER_START:
                marker = _list_marker(s)
                if marker is not None:
                    i = self.list_item(lines, i, ind, marker)
                    continue
            i = self.paragraph(lines, i)

    def _skip_fence(self, lines: Sequence[tuple[int, str]], i: int, fence: str) -> int:
        """Index after the fenced code block opened by ``fence`` on line ``i``."""
        n = len(lines)
        i += 1
        while i < n:
            t = lines[i][1]
            i += 1
            if _indent(t) < 4:
                cm = _FENCE.match(t.lstrip(" "))
                if (
                    cm
                    and cm.group(1)[0] == fence[0]
                    and len(cm.group(1)) >= len(fence)
                    and not cm.group(2).strip()
                ):
                    break
        return i

    def _skip_html(self, lines: Sequence[tuple[int, str]], i: int, kind: str) -> int:
        n = len(lines)
        if kind == "t6":
            while i < n and not _blank(lines[i][1]):
                i += 1
            return i
        end = _HTML_END[kind]
        while i < n:
            t = lines[i][1]
            i += 1
            if end.search(t):
                break
        return i

    def paragraph(self, lines: Sequence[tuple[int, str]], i: int) -> int:
        start = i
        parts = [lines[i][1]]
        i += 1
        kind = "paragraph"
        while i < len(lines):
            t = lines[i][1]
            if lines[i][0] in self.lazy:
                parts.append(t)
                i += 1
                continue
            if _blank(t):
                break
            if _indent(t) < 4 and _SETEXT.match(t.lstrip(" ")) and lines[i][0] not in self.lazy:
                kind = "heading"
                i += 1
                break
            if _interrupts(t):
                break
            orig = self.original.get(lines[i][0], t)
            parts.append(orig if orig != t and _expand(orig) == t else t)
            i += 1
        last = i if kind == "paragraph" else i - 1
        self.emit("\n".join(parts), lines[start][0], lines[last - 1][0] + 1, kind)
        return i

    def blockquote(self, lines: Sequence[tuple[int, str]], i: int) -> int:
        inner: list[tuple[int, str]] = []
        lazy_ok = False
        while i < len(lines):
            num, t = lines[i]
            ind = _indent(t)
            if ind < 4 and t[ind:].startswith(">"):
                rest = t[ind + 1 :]
                if rest.startswith(" "):
                    rest = rest[1:]
                inner.append((num, rest))
                lazy_ok = _opens_paragraph(rest, lazy_ok)
                i += 1
                continue
            if (
                _blank(t)
                or not lazy_ok
                or _interrupts(t)
                or (_indent(t) < 4 and _list_marker(t.lstrip(" ")) is not None)
            ):
                break
            inner.append((num, t.strip()))
            self.lazy.add(num)
            i += 1
        self.quote_depth += 1
        self.blocks(inner)
        self.quote_depth -= 1
        return i

    def list_item(
        self,
        lines: Sequence[tuple[int, str]],
        i: int,
        ind: int,
        marker: tuple[int, bool, str],
    ) -> int:
        mlen, _, rest = marker
        num, _line = lines[i]
        after = rest.lstrip(" ")
        spaces = len(rest) - len(after)
        if not after:
            width = ind + mlen + 1
            first = ""
        elif spaces >= 5:
            width = ind + mlen + 1
            first = rest[1:]
        else:
            width = ind + mlen + spaces
            first = after
        item: list[tuple[int, str]] = [(num, first)]
        i += 1
        in_fence: str | None = None
        plain = self.shortcuts and first[:1] not in _NOT_PLAIN and bool(first.strip())
        if plain:
            lazy_ok = True  # plain text opens a paragraph (what _opens_paragraph says)
        else:
            fm0 = _FENCE.match(first)
            if fm0:
                in_fence = fm0.group(1)
            lazy_ok = in_fence is None and _opens_paragraph(first, False)
        pending_blank: list[tuple[int, str]] = []
        while i < len(lines):
            n2, t = lines[i]
            ts = t.lstrip(" ")
            if not ts.strip():  # blank
                if not first.strip() and len(item) == 1:
                    break  # an empty item followed by a blank line ends there
                pending_blank.append((n2, ""))
                i += 1
                lazy_ok = False
                continue
            if len(t) - len(ts) >= width:
                item.extend(pending_blank)
                pending_blank = []
                body = t[width:]
                item.append((n2, body))
                fm = _FENCE.match(body.lstrip(" ")) if _indent(body) < 4 else None
                if in_fence is not None:
                    if (
                        fm
                        and fm.group(1)[0] == in_fence[0]
                        and len(fm.group(1)) >= len(in_fence)
                        and not fm.group(2).strip()
                    ):
                        in_fence = None
                    lazy_ok = False
                elif fm:
                    in_fence = fm.group(1)
                    lazy_ok = False
                else:
                    lazy_ok = _opens_paragraph(body, lazy_ok)
                i += 1
                continue
            if (
                pending_blank
                or not lazy_ok
                or in_fence is not None
                or _list_marker(ts) is not None
                or _interrupts(t)
            ):
                break
            item.append((n2, t.strip()))
            self.lazy.add(n2)
            i += 1
        # trailing blank lines belong after the item
        i -= len(pending_blank)
        self.in_list_item = True
        if plain and len(item) == 1 and self.depth < MAX_NESTING:
            # one line of plain text (the usual ``- [category] text`` item):
            # exactly what ``self.blocks(item)`` finds, a one-line paragraph
            self.emit(first, num, num + 1, "paragraph")
        else:
            self.blocks(item)
        self.in_list_item = False
        return i


def scan_inline_runs(lines: Sequence[str], start: int = 0) -> list[InlineRun]:
    """The inline runs of ``lines[start:]`` (line texts; ends are stripped)."""
    return [InlineRun(*run) for run in _scan(lines, start)]


def _scan(lines: Sequence[str], start: int, quick: bool = True) -> list[_Run]:
    """:func:`scan_inline_runs` as plain tuples (``quick``: try :func:`_quick_scan` first)."""
    if quick:
        runs = _quick_scan(lines, start)
        if runs is not None:
            return runs
    scanner = _Scanner()
    prepared: list[tuple[int, str]] = []
    original = scanner.original  # only lines with a tab: _expand leaves the others alone
    for k in range(start, len(lines)):
        line = lines[k].rstrip("\r\n")
        if "\t" in line:
            original[k] = line
            line = _expand(line)
        prepared.append((k, line))
    scanner.blocks(prepared)
    return scanner.runs


def _quick_scan(lines: Sequence[str], start: int) -> list[_Run] | None:
    """:func:`_scan` of a body made of flat blocks only, or ``None`` for any other body.

    The usual note is top-level ATX headings, paragraphs of plain lines, one-line
    ``- text`` list items and thematic breaks, with blank lines between.  For
    such a body the block scanner's outcome follows from each line's kind and
    the kind of the line before it, so it is found here in one pass without
    the scanner's per-block bookkeeping:

    * a heading is a run of its own; a rule yields nothing;
    * a plain line (:func:`_plain_line`) starts a paragraph or continues the
      open one; a blank line, a heading, a rule or a list item ends it (each
      can interrupt a paragraph);
    * a bullet list item whose text is a plain line is a one-line paragraph in
      a list item, provided the next line is not a plain line (that would be a
      lazy continuation of the item's paragraph).

    Any other line gives ``None``, and the caller scans the body in full: a
    line that starts with a blank (indented code, continuation lines, nested
    lists), a quote, HTML, a fence, an ordered list item, a list item with no
    text or with a blank or a block at the start of its text, a possible
    setext underline (a ``=`` line, a ``-`` line that is no list item, a rule
    of ``-`` under a paragraph line), and a plain line right after a list
    item.  Lines keep only their ends cut: tab expansion changes leading
    blanks, and no line taken here has any.  ``tests/adapters/test_bm_speed_scan.py``
    compares both scans.
    """
    runs: list[_Run] = []
    para: list[str] = []  # the lines of the open paragraph
    para_start = 0
    after_item = False  # the line before was a list item
    for k in range(start, len(lines)):
        line = lines[k].rstrip("\r\n")
        c = line[:1]
        heading = None
        item = False
        if c in _BULLETS and line[1:2] == " " and line[2:3] != c:
            # a bullet and a space, then not the bullet again (that might make a
            # rule: "* **"): a list item, to be taken if its text is a plain line
            if not (line[2:3] in _PLAIN_START or _plain_line(line[2:])):
                return None
            item = True
        elif c in _PLAIN_START or _plain_line(line):
            if after_item:
                return None  # a lazy continuation of the item's paragraph
            if not para:
                para_start = k
            para.append(line)
            continue
        elif not line.strip():
            pass  # blank
        elif c == "#":
            am = _ATX.match(line)
            if am is None:
                return None  # (a plain line: taken above)
            heading = am.group(2) or ""
        elif c in "*-_" and _HR.match(line):
            if para and c == "-":
                return None  # "---" under a paragraph line is a setext underline
        else:
            return None
        if para:
            text = "\n".join(para).strip()
            if text:
                runs.append((text, para_start, para_start + len(para), "paragraph", False, False))
            para = []
        after_item = item
        if heading:
            heading = heading.strip()
            if heading:
                runs.append((heading, k, k + 1, "heading", False, False))
        elif item:
            runs.append((line[2:].strip(), k, k + 1, "paragraph", True, False))
    if para:
        text = "\n".join(para).strip()
        if text:
            runs.append((text, para_start, para_start + len(para), "paragraph", False, False))
    return runs


#: first characters of a plain line that need no further look (no block, no blank)
_PLAIN_START = frozenset(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!\"$%&'(),./:;?@[\\]^{|}"
)
#: first characters :func:`_plain_line` looks further at (and the empty line)
_QUICK_OTHER = frozenset(_BLOCK_START | {"", " ", "\t", "="})


def _plain_line(line: str) -> bool:
    """Whether the (top-level, end-cut) ``line`` is a plain paragraph line for
    :func:`_quick_scan`: not blank, no blank first, and no block starts on it
    (``#`` without a heading, ``*``, ``_`` or ``+`` without a rule or a list
    marker, a digit without a list marker, a backtick or tilde without a fence;
    not ``=`` or ``-``, either of which may underline a setext heading).

    Such a line starts a paragraph, continues an open one, and as the text
    of a list item is a one-line paragraph."""
    c = line[:1]
    if c in _PLAIN_START:
        return True
    if c not in _QUICK_OTHER:
        return bool(line.strip())
    if not c or c in " \t=-<>":
        return False
    if c == "#":
        return _ATX.match(line) is None
    if c in "`~":
        return _FENCE.match(line) is None
    if c in "*_" and _HR.match(line):
        return False
    return _list_marker(line) is None  # "*", "+", "_" or a digit


# --------------------------------------------------------------------------
# observations

_TIME = r"\d{1,3}:\d{2}(?::\d{2})?(?:[.,]\d{1,3})?"
_TIME_CATEGORY = re.compile(rf"^{_TIME}(?:\s+-\s+{_TIME})?$")
_LINKS_TO_DIRECTIVE = re.compile(r"\s+#bm:links_to\s*$")
_CATEGORY = re.compile(r"^\[([^\[\]()]+)\]\s+(.+)")
_EMPTY_CATEGORY = re.compile(r"^\[\]\s+(.+)")


def _strip_directive(content: str) -> tuple[str, bool]:
    if "#bm:links_to" not in content:  # the pattern's literal part: no match without it
        return content, False
    m = _LINKS_TO_DIRECTIVE.search(content)
    if not m:
        return content, False
    return content[: m.start()].rstrip(), True


def _category_match(content: str) -> re.Match[str] | None:
    m = _CATEGORY.match(content)
    if not m:
        return None
    category = m.group(1).strip()
    if ":" in category and _TIME_CATEGORY.match(category):  # a clock time has a colon
        return None
    if len(category) == 1 and (category in "xX" or not category.isalnum()):
        return None  # a task marker: [x] [/] [?] [!] [>] ...
    return m


_LINK_ONLY = re.compile(r"^\[.*?\]\(.*?\)$")
_WIKI_ONLY = re.compile(r"^\[\[.*?\]\]$")


def _has_tag(text: str) -> bool:
    """Whether a word of ``text`` starts with ``#``."""
    return "#" in text and any(part.startswith("#") for part in text.split())


def is_observation(content: str) -> bool:
    """Whether an inline run's text is an observation for Basic Memory."""
    text, _ = _strip_directive(content.strip())
    if not text:
        return False
    if text.startswith(("[ ]", "[x]", "[-]")):
        return False
    if text[0] == "[":
        if _LINK_ONLY.match(text) or _WIKI_ONLY.match(text):
            return False
        if _category_match(text):
            return True
    return _has_tag(text)


def parse_tags(content: str) -> tuple[str, ...]:
    """The ``#word`` tags of a text, Basic Memory's way (``#a#b`` gives ``a``, ``b``)."""
    if "#" not in content:
        return ()
    tags: list[str] = []
    for part in [p for p in content.split() if p[0] == "#"]:  # split() gives no empty part
        if "#" in part[1:]:
            tags.extend(t for t in part.split("#") if t)
        else:
            tags.append(part[1:])
    return tuple(tags)


def parse_observation(content: str, line: int = 0) -> BMObservation:
    """Split an observation's text into category, content, tags and context."""
    text, _ = _strip_directive(content.strip())
    return _split_observation(text, _category_match(text), line)


def _split_observation(text: str, m: re.Match[str] | None, line: int) -> BMObservation:
    """:func:`parse_observation` of ``text`` (stripped, directive removed) whose
    category match is ``m``."""
    category: str | None = None
    if m:
        category = m.group(1).strip()
        text = m.group(2).strip()
    else:
        em = _EMPTY_CATEGORY.match(text)
        if em:
            text = em.group(1).strip()
    raw = text
    context: str | None = None
    if text.endswith(")"):
        at = text.rfind("(")
        if at != -1:
            context = text[at + 1 : -1].strip()
            text = text[:at].strip()
    # positional arguments (category, content, tags, context, line, text): an
    # attrs __init__ takes them markedly faster than keywords, once per fact
    return BMObservation(category, text, parse_tags(text), context, line, raw)


def _observation(content: str, line: int) -> BMObservation | None:
    """``parse_observation(content, line)`` if ``is_observation(content)``, else ``None``.

    One pass: the stripping, the directive and the category match are done
    once for both (``tests/adapters/test_bm_fastpath.py`` checks the two ways
    agree).
    """
    text, _ = _strip_directive(content.strip())
    if not text:
        return None
    m = None
    if text[0] == "[":
        if (
            text.startswith(("[ ]", "[x]", "[-]"))
            or ("](" in text and _LINK_ONLY.match(text))  # the patterns' literal parts
            or (text.startswith("[[") and _WIKI_ONLY.match(text))
        ):
            return None
        m = _category_match(text)
    if m is None and not _has_tag(text):
        return None
    return _split_observation(text, m, line)


# --------------------------------------------------------------------------
# relations


def _code_spans(content: str) -> list[tuple[int, int]]:
    """Source ranges of inline code spans (backtick runs of equal length)."""
    if "`" not in content:
        return []
    spans: list[tuple[int, int]] = []
    pos, n = 0, len(content)
    while pos < n:
        ch = content[pos]
        if ch == "\\" and pos + 1 < n:
            pos += 2
            continue
        if ch != "`":
            pos += 1
            continue
        run_end = pos
        while run_end < n and content[run_end] == "`":
            run_end += 1
        size = run_end - pos
        search = run_end
        found = -1
        while search < n:
            k = content.find("`", search)
            if k == -1:
                break
            e = k
            while e < n and content[e] == "`":
                e += 1
            if e - k == size:
                found = e
                break
            search = e
        if found == -1:
            pos = run_end
            continue
        spans.append((pos, found))
        pos = found
    return spans


def _mask(content: str, spans: Iterable[tuple[int, int]], chars: str | None) -> str:
    out = list(content)
    for a, b in spans:
        for k in range(a, b):
            if chars is None or out[k] in chars:
                out[k] = " "
    return "".join(out)


def _normalize_target(target: str) -> str:
    if "::" not in target:
        return target
    project, rest = target.split("::", 1)
    return f"{project}/{rest.lstrip('/')}"


def _relation_type(content: str) -> str | None:
    before = content.partition("[[")[0].strip()
    if not before:
        return None
    q = before[0]
    if q in "'\"" and before.endswith(q):
        return before[1:-1].strip() or None
    if len(before.split(None, 1)) > 1:  # a blank inside (``before`` is stripped)
        return None
    return before


def _single_parenthesized(text: str) -> bool:
    if not text.startswith("("):
        return False
    depth = 0
    for k, c in enumerate(text):
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return k == len(text) - 1
    return False


def _split_label(target: str) -> tuple[str, str | None]:
    base, bar, label = target.partition("|")
    return (base.strip(), label.strip() or None) if bar else (target, None)


def parse_relation(content: str, line: int = 0, source: str | None = None) -> BMRelation | None:
    """An explicit relation ``type [[Target]] (context)``, or ``None``.

    ``content`` has code spans masked; ``source`` is the text as written.
    """
    src = content if source is None else source
    rel_type = _relation_type(content)
    if rel_type is None:
        return None
    a = content.find("[[")
    b = content.find("]]", a + 2)
    if a == -1 or b == -1:
        return None
    target = _normalize_target(src[a + 2 : b].strip())
    if not target:
        return None
    after = content[b + 2 :].strip()
    context: str | None = None
    if after:
        if not _single_parenthesized(after):
            return None
        context = src[b + 2 :].strip()[1:-1].strip() or None
    # type, target, context, line, explicit, markdown, label (positional: see
    # _split_observation)
    return BMRelation(rel_type, target, context, line, True, False, _split_label(target)[1])


def _escaped(content: str, pos: int) -> bool:
    count = 0
    pos -= 1
    while pos >= 0 and content[pos] == "\\":
        count += 1
        pos -= 1
    return count % 2 == 1


def inline_relations(content: str, line: int = 0, source: str | None = None) -> list[BMRelation]:
    """Every outermost ``[[Target]]`` in a text, as ``links_to`` relations."""
    src = content if source is None else source
    found: list[BMRelation] = []
    start = 0
    while True:
        start = content.find("[[", start)
        if start == -1:
            break
        if _escaped(content, start):
            start += 2
            continue
        end = _closing_brackets(content, start + 2)
        if end == -1:
            break
        target = _normalize_target(src[start + 2 : end].strip())
        if target:
            # type, target, context, line, explicit, markdown, label
            found.append(
                BMRelation("links_to", target, None, line, False, False, _split_label(target)[1])
            )
        start = end + 2
    return found


def _closing_brackets(content: str, pos: int) -> int:
    """Index of the ``]]`` that closes a ``[[`` opened just before ``pos``, or -1.

    Unescaped ``[[`` and ``]]`` nest; a pair taken moves past both of its
    characters, an escaped one past its first only.  Only where a ``[[`` or
    a ``]]`` starts can anything happen, so the search jumps from one to the
    next (``str.find``) rather than stepping a character at a time.
    """
    depth = 1
    while True:
        close = content.find("]]", pos)
        if close == -1:
            return -1  # nothing can close it
        opening = content.find("[[", pos, close)
        if opening != -1:
            pos = opening + 1
            if not _escaped(content, opening):
                depth += 1
                pos += 1
            continue
        pos = close + 1
        if not _escaped(content, close):
            depth -= 1
            if depth == 0:
                return close
            pos += 1


_MD_LINK = re.compile(
    r"(?<![!\\\]])\[((?:[^\[\]\\]|\\.)*)\]\(\s*(<[^<>\n]*>|[^\s()<>]*)"
    r"(?:\s+(?:\"[^\"]*\"|'[^']*'|\([^()]*\)))?\s*\)"
)


def markdown_link_target(href: str) -> str | None:
    """The project path a Markdown link records, or ``None`` (URLs, anchors, folders)."""
    try:
        parts = urlsplit(href)
    except ValueError:
        return None
    if parts.scheme or parts.netloc or not parts.path:
        return None
    path = unquote(parts.path)
    if "\\" in path or "\x00" in path or path.endswith("/"):
        return None
    return path if path.startswith(("/", "./", "../")) else f"./{path}"


def _markdown_links(content: str, line: int) -> list[BMRelation]:
    if "](" not in content:
        return []
    masked = _mask(content, _code_spans(content), None)
    found: list[BMRelation] = []
    for m in _MD_LINK.finditer(masked):
        if m.group(1).startswith("[") or m.group(0).startswith("[["):
            continue
        href = m.group(2)
        if href.startswith("<"):
            href = href[1:-1]
        target = markdown_link_target(href) if href else None
        if target is not None:
            found.append(
                BMRelation(
                    type="links_to",
                    target=target,
                    context=None,
                    line=line,
                    markdown=True,
                    label=m.group(1) or None,
                )
            )
    return found


def _relations_of(source: str, line: int, in_list_item: bool) -> list[BMRelation]:
    """The relations of an inline run with text ``source`` (that holds ``[[``)."""
    spans = _code_spans(source)
    if spans:
        content = _mask(source, spans, "[]")
        masked_all = _mask(content, spans, None)
    else:  # nothing to mask
        content = masked_all = source
    m = _LINKS_TO_DIRECTIVE.search(masked_all) if "#bm:links_to" in masked_all else None
    directive = m is not None
    without = content[: m.start()].rstrip() if m else content
    if in_list_item and not directive:
        rel = parse_relation(content, line, source)
        if rel is not None:
            return [rel]
    return inline_relations(without, line, source)


def parse_facts(lines: Sequence[str], start: int = 0) -> Facts:
    """Observations and relations of the body ``lines[start:]``, as Basic Memory finds them.

    Line numbers in the result are indices into ``lines`` (the first line of
    the inline run the fact came from).
    """
    observations: list[BMObservation] = []
    relations: list[BMRelation] = []
    for content, line, _, _, in_list_item, in_blockquote in _scan(lines, start):
        if "](" in content:
            relations.extend(_markdown_links(content, line))
        if not in_blockquote:
            obs = _observation(content, line)
            if obs is not None and obs.content:
                observations.append(obs)
        if "[[" in content:
            relations.extend(_relations_of(content, line, in_list_item))
    return Facts(observations=tuple(observations), relations=tuple(relations))
