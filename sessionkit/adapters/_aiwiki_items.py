"""The items of an aiwiki list section as the Markdown tokenizer finds them.

:func:`scan_items` reads a section's bullets (and the lines that belong to no
bullet, and the ``(filled by /wrap)`` placeholder); :class:`ItemSpans` holds
them compactly, each :class:`ItemSpan` made when asked for.  A directive's
bullets are read by the same rules (:func:`leading_items`).  Light to import:
no model, no YAML (the hooks read pages with it).
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator, Sequence

from .._lazyre import lazy
from .._plain import Plain
from ..text.grammar import strip_eol as _strip
from ..text.grammar import thematic_break

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, overload

    from ..markdown import Block as MdBlock

__all__ = ["PLACEHOLDER", "ItemSpan", "ItemSpans", "content_end", "leading_items", "scan_items"]

PLACEHOLDER = "(filled by /wrap)"


class ItemSpan(Plain):
    """A list item: its text (without the marker), lines [start, end) and its marker."""

    __slots__ = ("end", "marker", "start", "text")

    def __init__(self, text: str, start: int, end: int, marker: str = "-") -> None:
        self.text = text
        self.start = start
        self.end = end
        self.marker = marker


class ItemSpans(Sequence[ItemSpan]):
    """The items of one list section: a sequence of :class:`ItemSpan`, held compactly.

    An item's first line is an unsigned int of an array (its end another, kept
    only when some item runs over more than one line), its marker a byte (kept
    only when some marker is not ``-``; a tuple of markers once one is an
    ordered one such as ``1.``), and its text is the section's value for it
    (:attr:`values`): the bullet text itself, shared with the session's tuple
    of texts, or a value the text is rendered back from exactly (a
    :class:`~sessionkit.model.Citation`, whose ``render()`` is its bullet
    text).  Each :class:`ItemSpan` is made when asked for: a section of a
    million one-line ``-`` bullets costs about four bytes an item here beyond
    its values.  Equal to another :class:`ItemSpans` (or a tuple of
    :class:`ItemSpan`) with the same items.
    """

    __slots__ = ("_ends", "_marks", "_render", "_starts", "_values")

    def __init__(
        self,
        values: tuple[Any, ...],
        starts: array[int],
        ends: array[int] | None,
        marks: bytearray | list[str] | None,
        render: Callable[[Any], str] | None = None,
    ) -> None:
        self._values = values
        self._starts = starts
        self._ends = ends  # None: every item is one line
        self._marks = marks  # None: every marker is "-"
        self._render = render  # None: a value is its text

    @property
    def values(self) -> tuple[Any, ...]:
        """The section's value of each item: its text, or what ``render`` gives it back from."""
        return self._values

    @property
    def dashes(self) -> bool:
        """Whether every item's marker is ``-``."""
        return self._marks is None

    def __len__(self) -> int:
        return len(self._starts)

    def _item(self, i: int) -> ItemSpan:
        value = self._values[i]
        start = self._starts[i]
        ends, marks = self._ends, self._marks
        return ItemSpan(
            value if self._render is None else self._render(value),
            start,
            start + 1 if ends is None else ends[i],
            "-" if marks is None else marks[i] if isinstance(marks, list) else chr(marks[i]),
        )

    if TYPE_CHECKING:

        @overload
        def __getitem__(self, i: int) -> ItemSpan: ...

        @overload
        def __getitem__(self, i: slice) -> tuple[ItemSpan, ...]: ...

    def __getitem__(self, i: int | slice) -> ItemSpan | tuple[ItemSpan, ...]:
        if isinstance(i, slice):
            return tuple(self._item(k) for k in range(*i.indices(len(self))))
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError("item index out of range")
        return self._item(i)

    def __iter__(self) -> Iterator[ItemSpan]:
        for i in range(len(self)):
            yield self._item(i)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, ItemSpans):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))
        if isinstance(other, tuple):
            return tuple(self) == other
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return f"ItemSpans({tuple(self)!r})"


class _SpansBuilder:
    """Collects the items of a section into an :class:`ItemSpans` (see there), each
    item's text turned into its value (``value``) as it is found."""

    __slots__ = ("ends", "marks", "render", "starts", "value", "values")

    def __init__(
        self, value: Callable[[str], Any] | None, render: Callable[[Any], str] | None
    ) -> None:
        self.values: list[Any] = []
        self.starts: array[int] = array("I")
        self.ends: array[int] | None = None
        self.marks: bytearray | list[str] | None = None
        self.value = value
        self.render = render

    def add(self, text: str, start: int, end: int, marker: str) -> None:
        self.values.append(text if self.value is None else self.value(text))
        if end != start + 1 and self.ends is None:
            self.ends = array("I", [s + 1 for s in self.starts])
        if self.ends is not None:
            self.ends.append(end)
        self.starts.append(start)
        if marker != "-" and self.marks is None:
            self.marks = bytearray(b"-" * (len(self.starts) - 1))
        marks = self.marks
        if marks is not None:
            if isinstance(marks, list):
                marks.append(marker)
            elif len(marker) == 1 and marker.isascii():
                marks.append(ord(marker))
            else:
                self.marks = [chr(b) for b in marks]
                self.marks.append(marker)

    def build(self) -> ItemSpans:
        values = tuple(self.values)
        self.values = []
        return ItemSpans(values, self.starts, self.ends, self.marks, self.render)


def scan_items(
    lines: Sequence[str],
    start: int,
    end: int,
    *,
    ordered: bool = False,
    value: Callable[[str], Any] | None = None,
    render: Callable[[Any], str] | None = None,
) -> tuple[ItemSpans, int | None, array[int]]:
    """The items of ``lines[start:end]`` as the Markdown tokenizer finds them; also
    the placeholder line and the loose lines (in order, an array of line indices:
    four bytes a line, as a section of a hundred thousand paragraphs has).

    ``value`` turns each item's text into the value held for it as it is found
    (:attr:`ItemSpans.values`); ``render`` gives the text back from that value,
    exactly (both ``None``: the text is the value).

    Every item of a top-level list is an item (with ``ordered``, numbered items
    ``1.``, ``2)`` too; without it their lines are loose); an item runs over its
    lines as :func:`sessionkit.markdown.tokenize` finds them (continuation and
    lazy lines, nested lists, fences, quotes), trailing blank lines left out;
    its text is its first line after the marker and the other lines as
    written.  The lines of every other block are loose, but for the
    placeholder paragraph before the first item.
    """
    items = _SpansBuilder(value, render)
    add = items.add
    placeholder: int | None = None
    loose: array[int] = array("I")
    if _one_line_bullets(lines, start, end, add):
        return items.build(), _placeholder_at(lines, start, end), loose
    items = _SpansBuilder(value, render)
    add = items.add
    from ..markdown import tokenize

    for blk in tokenize(lines, start, end):
        kind = blk.kind
        if kind == "blank":
            continue
        if kind == "list" and (ordered or not blk.ordered):
            for it in blk.children:
                parts = _item_parts(lines, it)
                if parts is None:  # not an item line after all: keep its lines
                    loose.extend(range(it.start, content_end(lines, it.start, it.end)))
                else:
                    add(*parts)
            continue
        s, e = blk.start, content_end(lines, blk.start, blk.end)
        if (
            kind == "paragraph"
            and not items.starts
            and placeholder is None
            and e - s == 1
            and _strip(lines[s]).strip() == PLACEHOLDER
        ):
            placeholder = s
            continue
        loose.extend(range(s, e))
    return items.build(), placeholder, loose


_MARKER = lazy(r"^ {0,3}([-*+]|[0-9]{1,9}[.)])(?:[ \t]+|$)")


def _one_line_bullets(
    lines: Sequence[str], start: int, end: int, add: Callable[[str, int, int, str], None]
) -> bool:
    """Add the items of ``lines[start:end]`` when every line is blank or a bullet at
    column 0 with its text on its line (the placeholder may come first), and say so;
    False (some added) for any other lines, which the tokenizer reads.

    A column-0 bullet ends a paragraph and every item before it, so each is a
    one-line item (``tests/adapters/test_aiwiki_items.py`` holds it to markdown-it).
    """
    seen = False  # a bullet or the placeholder
    for k in range(start, end):
        line = _strip(lines[k])
        if not line.strip(" \t"):
            continue
        mark = line[0]
        if "\r" in line:
            return False
        if (
            (mark == "-" or mark == "*" or mark == "+")
            and line[1:2] in (" ", "\t")
            and line[1:].strip(" \t")[:1] not in ("", ">")
            and not thematic_break(line)
        ):
            seen = True
            m = _MARKER.match(line)
            assert m is not None
            add(line[m.end() :], k, k + 1, mark)
        elif not seen and mark not in " \t" and line.strip() == PLACEHOLDER:
            seen = True
        else:
            return False
    return True


def _placeholder_at(lines: Sequence[str], start: int, end: int) -> int | None:
    """The line of the placeholder paragraph before the first item, if any."""
    for k in range(start, end):
        if lines[k].strip(" \t\r\n"):
            return k if _strip(lines[k]).strip() == PLACEHOLDER else None
    return None


def content_end(lines: Sequence[str], start: int, end: int) -> int:
    """``end`` less the blank lines that close ``lines[start:end]`` (never below one line)."""
    while end > start + 1 and not lines[end - 1].strip():
        end -= 1
    return end


def _item_parts(lines: Sequence[str], item: MdBlock) -> tuple[str, int, int, str] | None:
    """The :class:`ItemSpan` parts (text, start, end, marker) of a list item block: its
    text is its first line after the marker, then its other lines as written (trailing
    blank lines left out)."""
    s = item.start
    e = content_end(lines, s, item.end)
    first = _strip(lines[s])
    c = first[:1]
    if c in "-*+" and c and first[1:2] == " " and first[2:3] not in (" ", "\t"):
        head, marker = first[2:], c  # "- text": the marker and one blank (what _MARKER reads)
    else:
        m = _MARKER.match(first)
        if m is None:
            return None
        head, marker = first[m.end() :], m.group(1)
    if e == s + 1:
        return head, s, e, marker
    text = [head, *(_strip(lines[k]) for k in range(s + 1, e))]
    return "\n".join(text), s, e, marker


def leading_items(lines: Sequence[str], j: int, end: int) -> list[ItemSpan]:
    """The bullets of ``lines[j:end]`` (line ``j`` is one) up to the first block that
    is not a bulleted list (blank lines between lists are no such block)."""
    items: list[ItemSpan] = []
    from ..markdown import tokenize

    for blk in tokenize(lines, j, end):
        if blk.kind == "blank":
            continue
        if blk.kind != "list" or blk.ordered:
            break
        for it in blk.children:
            parts = _item_parts(lines, it)
            if parts is None:
                return items
            items.append(ItemSpan(*parts))
    return items
