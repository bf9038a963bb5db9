"""The lossless text layer: a :class:`Document` keeps every byte of a note.

``parse(text).text == text`` for every string.  A document knows its BOM,
newline style, the raw frontmatter between its ``---`` fences, the body, and
the top-level ATX headings of the body (as the block tokenizer,
:mod:`sessionkit.markdown`, finds them), grouped into level-2 :class:`Section` spans.
Edits are *splices*: they return a new document in which only the lines they
concern differ.

Line numbers in this module are 0-based indices into :attr:`Document.lines`;
anything shown to a person (errors, diagnostics) adds 1.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from functools import cached_property

from . import _yaml
from ._lazyre import lazy
from ._lines import HeadLines, Lines, chunked, joined
from .errors import ParseError
from .text.grammar import atx_heading, fence_closes, fence_open, is_fence, split_lines, strip_eol

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from .markdown import Block

__all__ = [
    "MANY_LINES",
    "MAX_NOTE_BYTES",
    "Document",
    "HeadLines",
    "Heading",
    "Lines",
    "Section",
    "atx_heading",
    "check_utf8",
    "chunked",
    "decode",
    "encode",
    "encode_blocks",
    "encode_pieces",
    "item_field",
    "parse",
    "parse_pieces",
    "read_document",
    "same_text",
    "split_lines",
]


_strip_eol = strip_eol  # (the grammar's rule, as the Basic Memory reader imports it)

#: a note of at least this many lines holds them as :class:`Lines` (offsets into
#: its text), not as a list of strings: memory bounded by the note (issue #23)
MANY_LINES = 4096


_KEY_LINE = lazy(
    r"""^(?:"((?:[^"\\]|\\.)*)"|'((?:[^']|'')*)'"""  # quoted keys
    r"""|([^\s#'"\-?:,\[\]{}&*!|>%@`][^:#]*?|-[^\s:][^:#]*?))"""  # plain keys
    r"""[ \t]*:(?:[ \t]|\r?\n?$)"""
)


class Heading:
    """An ATX heading of the body: level, title text and its line index."""

    __slots__ = ("level", "line", "title")

    def __init__(self, level: int, title: str, line: int) -> None:
        self.level = level
        self.title = title
        self.line = line

    def __repr__(self) -> str:
        return f"Heading({self.level}, {self.title!r}, line={self.line})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Heading) and (self.level, self.title, self.line) == (
            other.level,
            other.title,
            other.line,
        )

    def __hash__(self) -> int:
        return hash((self.level, self.title, self.line))


class Section:
    """A level-2 section: its heading line and the lines up to the next one.

    ``start`` is the heading's line index; ``end`` is exclusive (the next
    level-2 heading, or the end of the document).
    """

    __slots__ = ("end", "start", "title")

    def __init__(self, title: str, start: int, end: int) -> None:
        self.title = title
        self.start = start
        self.end = end

    @property
    def heading(self) -> str:
        """The heading as the schema names it, e.g. ``"## Next steps"``."""
        return f"## {self.title}"

    def __repr__(self) -> str:
        return f"Section({self.title!r}, {self.start}, {self.end})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Section) and (self.title, self.start, self.end) == (
            other.title,
            other.start,
            other.end,
        )

    def __hash__(self) -> int:
        return hash((self.title, self.start, self.end))


def _frontmatter(text: str, at: int = 0) -> tuple[int, int, int] | None:
    """(closing fence's line, offset where its line starts, offset after it) of the
    frontmatter ``text[at:]`` opens with, else ``None`` (no frontmatter: ``(0, 0, 0)``
    when the first line is no fence)."""
    end = text.find("\n", at)
    if not text.startswith("---", at) or not is_fence(text[at:] if end < 0 else text[at : end + 1]):
        return (0, 0, 0)
    i, last = 0, at
    found = text.find("\n---", at)
    while found >= 0:
        i += text.count("\n", last, found + 1)  # the line starting at found + 1
        last = found + 1
        stop = text.find("\n", last)
        if is_fence(text[last:] if stop < 0 else text[last : stop + 1]):
            return i, last, len(text) if stop < 0 else stop + 1
        found = text.find("\n---", last)
    return None


#: a line (with the line break before it) that may be a heading, a fence or open an HTML
#: block, indented up to three spaces: group 1 is the line without its end (a line
#: indented more, or starting otherwise, neither opens nor closes any of these; a text
#: with a CR that ends no line is left to the tokenizer)
_BLOCK_LINE = lazy(r"\n( {0,3}[#`~<][^\r\n]*)")
_LONE_CR = lazy(r"\r(?!\n)")
#: heading line -> (level, title) or None (headings repeat from page to page)
_ATX: dict[str, tuple[int, str] | None] = {}
_UNSEEN = (0, "")

#: a top-level heading as :attr:`Document.outline` gives it: (level, title, line index,
#: offset of its line in the text, or ``None`` when the block tokenizer placed it)
Head = tuple[int, str, int, "int | None"]


def _line_headings(text: str, at: int, line: int) -> list[Head] | None:
    """The top-level ATX headings of ``text`` from offset ``at`` (the start of line
    ``line``), or ``None`` when the tokenizer must decide."""
    if "\r" in text and _LONE_CR.search(text, at) is not None:
        return None
    shift = 0
    if not line:  # (no line break before the first line: one is put there)
        text = "\n" + text[at:]
        shift, at = at - 1, 0
    else:
        at -= 1  # (the line break before the first line, counted below)
    line -= 1
    found: list[Head] = []
    run = ""  # the open fence's mark run
    last = at
    count = text.count
    for m in _BLOCK_LINE.finditer(text, at):
        raw = m[1]
        lead = raw[0]
        if run:
            if fence_closes(raw, run):
                run = ""
        elif lead == "#":
            start = m.start(1)
            line += count("\n", last, start)
            last = start
            title = _ATX.get(raw, _UNSEEN)
            if title is _UNSEEN:
                title = atx_heading(raw)
                if len(_ATX) > 4096:
                    _ATX.clear()
                _ATX[raw] = title
            if title is not None:
                found.append((title[0], title[1], line, start + shift))
        elif lead == "<":
            return None  # an HTML block
        elif lead == " ":
            head = raw.lstrip(" ")[0]
            if head == "#" or head == "<" or fence_open(raw) is not None:
                return None  # an indented heading or fence, or an HTML block
        else:
            opened = fence_open(raw)
            if opened is not None:
                run = opened[1]
    return found


class Document:
    """The exact text of a note, with its structure found but nothing lost.

    Build one with :func:`parse`; never raises for any string.  A frontmatter
    problem (unclosed fence) is kept in :attr:`problem` and raised by
    :attr:`meta`.
    """

    __slots__ = (
        "__dict__",
        "_body_at",
        "_fm_at",
        "body_start",
        "bom",
        "fm_close",
        "newline",
        "path",
        "problem",
        "text",
    )

    def __init__(self, text: str, path: str | None = None) -> None:
        self.text = text
        self.path = path
        self.bom = "\ufeff" if text.startswith("\ufeff") else ""
        first_nl = text.find("\n")
        self.newline = "\r\n" if first_nl > 0 and text[first_nl - 1] == "\r" else "\n"
        self.fm_close: int | None = None
        self.problem: ParseError | None = None
        self.body_start = 0
        at = len(self.bom)
        self._fm_at = (at, at)  # where the frontmatter's text is in ``text``
        self._body_at = at
        close = _frontmatter(text, at)
        if close is None:
            self.problem = ParseError(
                "frontmatter opened by '---' on line 1 is never closed", path=path, line=1
            )
        elif close[0]:
            self.fm_close = close[0]
            self.body_start = close[0] + 1
            self._fm_at = (first_nl + 1, close[1])
            self._body_at = close[2]

    @cached_property
    def lines(self) -> Sequence[str]:
        """The lines (line ends kept; the BOM is no part of the first)."""
        rest = self.text[1:] if self.bom else self.text
        return Lines(rest) if rest.count("\n") >= MANY_LINES else split_lines(rest)

    @cached_property
    def line_count(self) -> int:
        """``len(self.lines)``, counted in the text."""
        if "lines" in self.__dict__:
            return len(self.lines)
        text = self.text
        return text.count("\n") + (1 if len(text) > len(self.bom) and text[-1] != "\n" else 0)

    def span_text(self, start: int, end: int) -> str:
        """The text of ``lines[start:end]``, from the text itself when both are
        headings (or ``end`` is the last line) that :attr:`headings` placed."""
        at = self.__dict__.get("_heading_at")
        if at is None and "outline" in self.__dict__:
            at = self.__dict__["_heading_at"] = {head[2]: head[3] for head in self.outline}
        if at is not None:
            a = at.get(start)
            b = len(self.text) if end >= self.line_count else at.get(end)
            if a is not None and b is not None:
                return self.text[a:b]
        return joined(self.lines, start, end)

    @property
    def pieces(self) -> tuple[str, ...]:
        """The text in pieces, in order: ``"".join(pieces) == text`` (one piece,
        unless the document was made by :func:`parse_pieces` from several)."""
        return (self.text,)

    # -- frontmatter ---------------------------------------------------------
    @property
    def has_frontmatter(self) -> bool:
        """True when the text starts with a closed ``---`` fence pair."""
        return self.fm_close is not None

    @property
    def frontmatter_text(self) -> str:
        """The raw text between the fences ('' when there is none)."""
        if self.fm_close is None:
            return ""
        if type(self) is Document:
            return self.text[self._fm_at[0] : self._fm_at[1]]
        return joined(self.lines, 1, self.fm_close)

    @cached_property
    def meta(self) -> dict[str, Any]:
        """The frontmatter as data, read by the strict loader.

        Raises:
            ParseError: unclosed fence, bad YAML, or not a mapping (with line).
        """
        if self.problem is not None:
            raise self.problem
        if self.fm_close is None:
            return {}
        text = self.frontmatter_text
        if "\x00" in text:
            idx = text[: text.index("\x00")].count("\n")
            raise ParseError("NUL byte in frontmatter", path=self.path, line=idx + 2)
        try:
            return _yaml.load_mapping(text.replace("\r\n", "\n"), line_offset=1)
        except ParseError as exc:
            raise exc.with_path(self.path) from None

    @cached_property
    def key_spans(self) -> dict[str, tuple[int, int]]:
        """Top-level frontmatter keys → (first line, end line exclusive).

        A key's span runs over its continuation lines (indented, blank or
        comment lines that follow), but trailing blank and comment lines
        stay outside it so that replacing a key never eats a comment.
        """
        spans: dict[str, tuple[int, int]] = {}
        if self.fm_close is None:
            return spans
        current: str | None = None
        cur_start = 0
        last_content = 0
        for i in range(1, self.fm_close):
            line = self.lines[i]
            m = _KEY_LINE.match(line)
            if m:
                if current is not None:
                    spans.setdefault(current, (cur_start, last_content + 1))
                current = (
                    m.group(1)
                    if m.group(1) is not None
                    else m.group(2).replace("''", "'")
                    if m.group(2) is not None
                    else m.group(3)
                )
                cur_start = last_content = i
                continue
            bare = _strip_eol(line)
            if (
                current is not None
                and bare.strip()
                and not bare.lstrip().startswith("#")
                and (bare[:1] in (" ", "\t", "-") or not _KEY_LINE.match(line))
            ):
                last_content = i
        if current is not None:
            spans.setdefault(current, (cur_start, last_content + 1))
        return spans

    def key_line(self, key: str) -> int | None:
        """1-based line of a top-level frontmatter key, for messages."""
        span = self.key_spans.get(key)
        return None if span is None else span[0] + 1

    # -- body ----------------------------------------------------------------
    @cached_property
    def outline(self) -> list[Head]:
        """Every top-level ATX heading of the body, in order, as ``(level, title, line,
        offset)`` (see :data:`Head`): what :attr:`headings` and :attr:`sections` are made of."""
        if type(self) is Document:
            found = _line_headings(self.text, self._body_at, self.body_start)
            if found is not None:
                return found
        from .markdown import top_headings

        tops = top_headings(self.lines, self.body_start, blocks=lambda: self.top_blocks)
        return [(level, title, line, None) for level, title, line in tops]

    @cached_property
    def headings(self) -> list[Heading]:
        """Every top-level ATX heading of the body, in order."""
        return [Heading(head[0], head[1], head[2]) for head in self.outline]

    @cached_property
    def top_blocks(self) -> list[Block]:
        """The body's top-level Markdown blocks (:func:`sessionkit.markdown.tokenize`,
        without tables, as CommonMark reads it); made once, when first asked for."""
        from .markdown import tokenize

        return tokenize(self.lines, self.body_start, tables=False)

    @cached_property
    def sections(self) -> list[Section]:
        """The level-2 sections of the body, in order."""
        h2 = [head for head in self.outline if head[0] == 2]
        ends = [head[2] for head in h2[1:]]
        ends.append(self.line_count)
        return [Section(head[1], head[2], end) for head, end in zip(h2, ends, strict=False)]

    def section(self, title: str) -> Section | None:
        """The first level-2 section with this title (``"Next steps"``), if any."""
        for s in self.sections:
            if s.title == title:
                return s
        return None

    @property
    def body(self) -> str:
        """The text after the frontmatter (the whole text without a BOM if none)."""
        return joined(self.lines, self.body_start)

    def line_text(self, index: int) -> str:
        """Line ``index`` without its line end."""
        return _strip_eol(self.lines[index])

    def section_lines(self, section: Section) -> list[str]:
        """The lines under a section's heading, without line ends."""
        return [_strip_eol(x) for x in self.lines[section.start + 1 : section.end]]

    def content_end(self, section: Section) -> int:
        """Index after the last non-blank line of a section (at least after its heading)."""
        end = section.end
        while end > section.start + 1 and not self.lines[end - 1].strip():
            end -= 1
        return end

    # -- splices -------------------------------------------------------------
    def _splice(self, start: int, end: int, new_lines: list[str]) -> Document:
        """The document with ``lines[start:end]`` (list slice semantics) replaced by
        ``new_lines`` (with their line ends); the other lines are cut from the text
        as they are, never copied one by one."""
        lines = self.lines
        start, end, _ = slice(start, end).indices(len(lines))
        end = max(end, start)
        text = joined(lines, 0, start) + "".join(new_lines) + joined(lines, end)
        return Document(self.bom + text, self.path)

    def _eol(self, line: str) -> str:
        return line + self.newline

    def edit_lines(self, edits: Iterable[tuple[int, int, Sequence[str]]]) -> Document:
        """Several edits of this document's lines at once, as one new document.

        Each ``(start, end, new)`` replaces ``lines[start:end]`` with ``new``
        (texts without line ends; ``start == end`` inserts before ``start``),
        exactly as :meth:`insert_lines`, :meth:`replace_line` (one line for one:
        its line end kept) and :meth:`replace_lines` would make them one after
        another from the last edit to the first: indices are this document's,
        edits at one place keep the order given.  The text is built once, so a
        page with thousands of edits costs what one edit does (a splice each
        would copy the page each time).

        Edits that overlap are made one by one, as those methods would.
        """
        lines = self.lines
        n = len(lines)
        ordered = sorted(
            ((*slice(e[0], e[1]).indices(n)[:2], i, e[2]) for i, e in enumerate(edits)),
            key=lambda e: (e[0], max(e[0], e[1]), e[2]),
        )
        if not ordered:
            return self
        open_end = bool(lines) and not lines[-1].endswith("\n")  # an unterminated last line
        parts: list[str] = []
        pos = 0
        tail_open = False  # whether the text so far ends in the unterminated last line
        strip = False  # whether the text ends with an edit's lines that end unterminated
        for start, end, _, new in ordered:
            end = max(end, start)
            if start < pos:  # (overlapping edits: one by one, each on the last one's result)
                return self._edit_each(ordered)
            if start > pos:
                parts.append(joined(lines, pos, start))
                tail_open = open_end and start >= n
                strip = False
            if end - start == 1 and len(new) == 1:  # replace_line: the line end kept
                old = lines[start]
                ending = old[len(_strip_eol(old)) :]
                parts.append(new[0] + ending)
                tail_open, strip = not ending, False
            elif new:
                if tail_open:  # appending after the unterminated last line: end it
                    parts.append(self.newline)
                parts.extend(self._eol(x) for x in new)
                tail_open, strip = False, open_end and end >= n
            elif end >= n and end > start:  # (deleted up to the end: what precedes stays)
                strip = False
            pos = end
        if pos < n:
            parts.append(joined(lines, pos))
            strip = False
        if strip:  # the text ends unterminated, as it did
            parts[-1] = _strip_eol(parts[-1])
        return Document(self.bom + "".join(parts), self.path)

    def _edit_each(self, ordered: Sequence[tuple[int, int, int, Sequence[str]]]) -> Document:
        """:meth:`edit_lines` one edit at a time, from the last to the first."""
        doc = self
        for start, end, _, new in reversed(ordered):
            if start == end:
                doc = doc.insert_lines(start, new)
            elif end - start == 1 and len(new) == 1:
                doc = doc.replace_line(start, new[0])
            else:
                doc = doc.replace_lines(start, end, new)
        return doc

    def replace_lines(self, start: int, end: int, new: Iterable[str]) -> Document:
        """Replace ``lines[start:end]`` with ``new`` (texts without line ends)."""
        new_lines = [self._eol(x) for x in new]
        lines = self.lines
        if end >= len(lines) and lines and not lines[-1].endswith("\n") and new_lines:
            # the replaced span held the unterminated last line: keep it unterminated
            new_lines[-1] = _strip_eol(new_lines[-1])
        return self._splice(start, end, new_lines)

    def replace_line(self, index: int, new: str) -> Document:
        """Replace one line's text, keeping its original line end."""
        old = self.lines[index]
        ending = old[len(_strip_eol(old)) :]
        if index < 0:
            index += len(self.lines)
        return self._splice(index, index + 1, [new + ending])

    def insert_lines(self, index: int, new: Iterable[str]) -> Document:
        """Insert lines (texts without line ends) before line ``index``."""
        new_lines = [self._eol(x) for x in new]
        if not new_lines:
            return self
        lines = self.lines
        if index >= len(lines) and lines and not lines[-1].endswith("\n"):
            # appending after an unterminated last line: terminate it, leave ours open
            new_lines[-1] = _strip_eol(new_lines[-1])
            return Document(self.text + self.newline + "".join(new_lines), self.path)
        return self._splice(index, index, new_lines)

    def set_key(self, key: str, value_text: str, *, after: str | None = None) -> Document:
        """Set a top-level frontmatter key to the YAML text ``value_text``.

        An existing key's lines are replaced by the one line ``key: value``;
        a new key goes after ``after`` (when present) or before the closing
        fence.  A document without frontmatter gets one.
        """
        line = f"{key}: {value_text}" if value_text else f"{key}:"
        if self.problem is not None:
            raise self.problem
        if self.fm_close is None:
            head = "---" + self.newline + self._eol(line) + "---" + self.newline
            return Document(self.bom + head + joined(self.lines), self.path)
        span = self.key_spans.get(key)
        if span is not None:
            if span[1] - span[0] == 1 and self.line_text(span[0]) == line:
                return self
            return self.replace_lines(span[0], span[1], [line])
        at = self.fm_close
        if after is not None and after in self.key_spans:
            at = self.key_spans[after][1]
        return self.insert_lines(at, [line])

    def remove_key(self, key: str) -> Document:
        """Remove a top-level frontmatter key and its continuation lines."""
        span = self.key_spans.get(key)
        if span is None:
            return self
        return self._splice(span[0], span[1], [])

    def append_to_section(self, title: str, new: Iterable[str]) -> Document:
        """Insert lines after the last non-blank line of a section."""
        section = self.section(title)
        if section is None:
            raise KeyError(title)
        return self.insert_lines(self.content_end(section), new)

    def __repr__(self) -> str:
        return f"Document(path={self.path!r}, lines={len(self.lines)})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Document) and other.text == self.text

    def __hash__(self) -> int:
        return hash(self.text)


def parse(text: str, path: str | None = None) -> Document:
    """Parse ``text`` into a :class:`Document`; never raises, never loses a byte."""
    return Document(text, path)


def parse_pieces(pieces: Sequence[str], path: str | None = None) -> Document:
    """:func:`parse` of ``"".join(pieces)``, holding a big note's frontmatter and
    body pieces apart.

    A string is as wide as its widest character, so one emoji in a title (or
    in one line of a big body) makes a note joined into one string four bytes
    a character.  For ``(head, *body)``, where ``head`` is the frontmatter up
    to and with its closing fence's line, every body piece but the last ends
    with a line end and the body has many lines, the document keeps the
    strings (its :attr:`~Document.text` joins them when asked for, each time;
    :func:`sessionkit._lines.chunked` cuts a body into such pieces); any
    other pieces are joined and parsed.
    """
    if len(pieces) == 1:
        return Document(pieces[0], path)
    body = pieces[1:]
    if (
        body
        and all(piece.endswith("\n") for piece in body[:-1])
        and sum(piece.count("\n") for piece in body) >= MANY_LINES
    ):
        doc = _Pieces(tuple(pieces), path)
        if doc.fm_close is not None and doc.body_start == len(doc.lines) - doc.nbody:
            return doc
    return Document("".join(pieces), path)


def same_text(text: str, pieces: Sequence[str]) -> bool:
    """``text == "".join(pieces)``, without joining them."""
    if len(pieces) == 1:
        return text == pieces[0]
    if len(text) != sum(map(len, pieces)):
        return False
    at = 0
    for piece in pieces:
        if not text.startswith(piece, at):
            return False
        at += len(piece)
    return True


class _Pieces(Document):
    """A :class:`Document` of a frontmatter and body pieces held apart (:func:`parse_pieces`)."""

    __slots__ = ("_pieces", "nbody")

    def __init__(self, pieces: tuple[str, ...], path: str | None) -> None:
        self._pieces = pieces
        self.path = path
        self.bom = ""
        self.problem = None
        self.fm_close = None
        self.body_start = 0
        head = pieces[0]
        head_lines = split_lines(head)
        lines = HeadLines(head_lines, pieces[1:])
        self.lines = lines
        self.nbody = len(lines) - len(head_lines)
        first_nl = head.find("\n")
        self.newline = "\r\n" if first_nl > 0 and head[first_nl - 1] == "\r" else "\n"
        close = _frontmatter(head) if head.endswith("\n") else None
        if close is not None and close[0]:
            self.fm_close = close[0]
            self.body_start = close[0] + 1

    @property
    def text(self) -> str:  # (joined each time it is asked for: not held)
        """The whole text (the pieces joined)."""
        return "".join(self._pieces)

    @text.setter
    def text(self, value: str) -> None:
        raise AttributeError("a document's text is not set")

    @property
    def pieces(self) -> tuple[str, ...]:
        """The frontmatter (with its fences) and the body's pieces."""
        return self._pieces

    def __reduce__(self) -> tuple[Any, ...]:
        return parse_pieces, (self._pieces, self.path)


#: default cap on the size of one note, in bytes (see docs/reliability.md)
MAX_NOTE_BYTES = 8 * 1024 * 1024


def decode(data: bytes, path: str | None = None) -> str:
    """Decode a note's bytes as UTF-8 (a BOM is kept in the text).

    Raises:
        ParseError: not UTF-8, with the line of the first bad byte.
    """
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise ParseError(
            f"not valid UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start})",
            path=path,
            line=line,
        ) from None


def check_utf8(data: bytes, path: str | None = None) -> None:
    """Check that a note's bytes are UTF-8, a block at a time (not decoded whole).

    Raises:
        ParseError: not UTF-8, as :func:`decode` reports it.
    """
    import codecs

    check = codecs.getincrementaldecoder("utf-8")()
    try:
        for at in range(0, len(data), 1 << 16):
            check.decode(data[at : at + (1 << 16)])
        check.decode(b"", final=True)
    except UnicodeDecodeError:
        decode(data, path)  # (raises the error with its line)
        raise


def encode(text: str) -> bytes:
    """A note's text as UTF-8 bytes.

    A big text that is not all ASCII is encoded 64 Ki characters at a time
    (:func:`encode_blocks`) into one growing buffer that becomes the result:
    ``str.encode`` first takes room for the longest bytes every character
    might need (3 bytes for each of a 2-byte text's characters), three times
    the bytes of a text of ASCII and a few dashes, and joining a list of the
    pieces holds them twice.
    """
    if len(text) <= _ENCODE_BLOCK or text.isascii():
        return text.encode("utf-8")
    from io import BytesIO

    out = BytesIO()  # (its getvalue is the buffer itself, cut to size: not a copy)
    for block in encode_blocks(text):
        out.write(block)
    return out.getvalue()


def encode_pieces(pieces: Sequence[str]) -> bytes:
    """``encode("".join(pieces))``, without joining them (into one growing buffer, a
    block at a time: see :func:`encode`)."""
    if len(pieces) == 1:
        return encode(pieces[0])
    from io import BytesIO

    out = BytesIO()
    for piece in pieces:
        for block in encode_blocks(piece):
            out.write(block)
    return out.getvalue()


def encode_blocks(text: str) -> Iterator[bytes]:
    """``text`` as UTF-8, 64 Ki characters at a time: ``b"".join`` of them is
    :func:`encode` ``(text)`` (for a hash or a stream that need not hold it whole)."""
    for start in range(0, len(text), _ENCODE_BLOCK):
        yield text[start : start + _ENCODE_BLOCK].encode("utf-8")


#: characters encoded at once by :func:`encode`
_ENCODE_BLOCK = 1 << 16


def _too_big(text: str, limit: int) -> int | None:
    """The UTF-8 size of ``text`` when it is over ``limit`` bytes, else ``None``."""
    if len(text) * 4 <= limit:  # a character is at most 4 bytes: no need to encode
        return None
    size = len(text) if len(text) > limit else len(text.encode("utf-8", "surrogatepass"))
    return size if size > limit else None


def read_document(text: str, path: str | None = None, *, max_bytes: int | None = None) -> Document:
    """Parse text into a Document after the size check.

    Args:
        text: the whole note.
        path: its path, for messages.
        max_bytes: the size limit in UTF-8 bytes (default :data:`MAX_NOTE_BYTES`;
            ``limits.max_note_bytes`` in the configuration).

    Raises:
        LimitExceededError: the note is over the limit (line 1).
        ParseError: its line ends are CR alone (line 1; see docs/reliability.md).
    """
    limit = MAX_NOTE_BYTES if max_bytes is None else max_bytes
    size = _too_big(text, limit)
    if size is not None:
        from .errors import LimitExceededError

        raise LimitExceededError(
            f"note is {size} bytes or more, over the limit of {limit} (limits.max_note_bytes)",
            path=path,
            line=1,
        )
    if "\r" in text and "\n" not in text:
        raise ParseError(
            "the line ends are CR alone (classic Mac OS); sessionkit reads notes with LF "
            "or CRLF line ends: convert them first (tr '\\r' '\\n')",
            path=path,
            line=1,
        )
    return parse(text, path)


def item_field(items: Sequence[str], name: str) -> str | None:
    """The value of a list item ``Name: value`` (case-insensitive name), if any."""
    prefix = name.lower() + ":"
    for item in items:
        if item.lower().startswith(prefix):
            return item[len(prefix) :].strip()
    return None
