"""A note's lines held as offsets into its text (for big notes).

:class:`Lines` is the sequence :attr:`Document.lines
<sessionkit.document.Document.lines>` is for a note of many lines: the same
strings as :func:`sessionkit.document.split_lines` gives (split at ``\\n``
only, line ends kept), made when asked for, so a note of a million short
lines costs four bytes a line here instead of one string object (50-70
bytes) a line.  :func:`joined` is ``"".join(lines[start:stop])`` without
making the lines first.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence

TYPE_CHECKING = False
if TYPE_CHECKING:  # (typing is not imported on the hooks' path)
    from typing import Any

__all__ = ["HeadLines", "Lines", "appended", "batched", "join_batched", "joined", "spanned"]

_NEWLINE = re.compile("\n")


class Lines(Sequence[str]):
    """The lines of ``text``, split at ``\\n`` only, line ends kept.

    Equal, item for item, to :func:`~sessionkit.document.split_lines` of the
    same text; a slice is a ``list`` of those strings.  Held as the text and
    one offset a line.
    """

    __slots__ = ("_starts", "_text")

    def __init__(self, text: str) -> None:
        from array import array

        self._text = text
        starts = array("I" if len(text) < 1 << 32 else "Q", [0])
        starts.extend(m.end() for m in _NEWLINE.finditer(text))
        if starts[-1] != len(text):  # an unterminated last line
            starts.append(len(text))
        self._starts = starts  # line i is text[starts[i]:starts[i + 1]]

    def __len__(self) -> int:
        return len(self._starts) - 1

    def __getitem__(self, index: Any) -> Any:
        """Line ``index`` (a ``str``), or a ``list`` of the lines of a slice."""
        if isinstance(index, slice):
            start, stop, step = index.indices(len(self))
            if step != 1:
                return [self[i] for i in range(start, stop, step)]
            return list(self._each(start, stop))
        n = len(self._starts) - 1
        if index < 0:
            index += n
        if not 0 <= index < n:
            raise IndexError("line index out of range")
        starts = self._starts
        return self._text[starts[index] : starts[index + 1]]

    def _each(self, start: int, stop: int) -> Iterator[str]:
        text = self._text
        starts = self._starts
        for i in range(start, stop):
            yield text[starts[i] : starts[i + 1]]

    def __iter__(self) -> Iterator[str]:
        return self._each(0, len(self))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Lines):
            return self._text == other._text
        if isinstance(other, list):
            return len(other) == len(self) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def text(self, start: int = 0, stop: int | None = None) -> str:
        """``"".join(self[start:stop])``, cut from the text at once."""
        n = len(self._starts) - 1
        start, stop, _ = slice(start, stop).indices(n)
        if stop <= start:
            return ""
        return self._text[self._starts[start] : self._starts[stop]]

    def span(self, start: int = 0, stop: int | None = None) -> tuple[str, int, int]:
        """``(text, a, b)``: ``text[a:b]`` is :meth:`text` ``(start, stop)``, not cut."""
        n = len(self._starts) - 1
        start, stop, _ = slice(start, stop).indices(n)
        if stop <= start:
            return self._text, 0, 0
        return self._text, self._starts[start], self._starts[stop]

    def __reduce__(self) -> tuple[type[Lines], tuple[str]]:
        return Lines, (self._text,)

    def __repr__(self) -> str:
        return f"Lines({len(self)} lines)"


class HeadLines(Lines):
    """The lines of ``head + body`` with the text held as those two strings, never
    joined: ``head``'s lines as a list, ``body``'s as offsets (see :class:`Lines`).

    A string is as wide as its widest character (one, two or four bytes a
    character), so a note whose frontmatter holds a character the body does
    not (an em dash, an emoji) is held at the body's own width.  ``head`` ends
    with a line end (a line never spans the two).  A span within the body is
    the body's own text (nothing copied); one reaching into the head is joined.
    """

    __slots__ = ("_head",)

    def __init__(self, head: list[str], body: str) -> None:
        super().__init__(body)
        self._head = head

    def __len__(self) -> int:
        return len(self._head) + len(self._starts) - 1

    def __getitem__(self, index: Any) -> Any:
        """Line ``index`` (a ``str``), or a ``list`` of the lines of a slice."""
        if isinstance(index, slice):
            start, stop, step = index.indices(len(self))
            return [self[i] for i in range(start, stop, step)]
        h = len(self._head)
        if index < 0:
            index += len(self)
            if index < 0:
                raise IndexError("line index out of range")
        if index < h:
            return self._head[index]
        return super().__getitem__(index - h)

    def _each(self, start: int, stop: int) -> Iterator[str]:
        h = len(self._head)
        yield from self._head[start:stop]
        yield from super()._each(max(start - h, 0), max(stop - h, 0))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (Lines, list)):
            return len(other) == len(self) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None

    def text(self, start: int = 0, stop: int | None = None) -> str:
        """``"".join(self[start:stop])``: the body's own cut when the lines are the body's."""
        text, a, b = self.span(start, stop)
        return text if (a, b) == (0, len(text)) else text[a:b]

    def span(self, start: int = 0, stop: int | None = None) -> tuple[str, int, int]:
        """``(text, a, b)``: ``text[a:b]`` is :meth:`text` ``(start, stop)``; within the
        body, the body itself (not cut)."""
        h = len(self._head)
        start, stop, _ = slice(start, stop).indices(len(self))
        if stop <= start:
            return self._text, 0, 0
        if start >= h:
            return super().span(start - h, stop - h)
        text = "".join(self._head[start:stop])
        if stop > h:  # (the body's part one cut, not its lines joined)
            text += super().text(0, stop - h)
        return text, 0, len(text)

    def __reduce__(self) -> tuple[Any, ...]:
        return HeadLines, (self._head, self._text)

    def __repr__(self) -> str:
        return f"HeadLines({len(self)} lines)"


def spanned(lines: Sequence[str], start: int = 0, stop: int | None = None) -> tuple[str, int, int]:
    """``(text, a, b)`` with ``text[a:b] == "".join(lines[start:stop])``: for
    :class:`Lines`, the note's own text (nothing copied)."""
    if isinstance(lines, Lines):
        return lines.span(start, stop)
    text = "".join(lines[start:stop])
    return text, 0, len(text)


def joined(lines: Sequence[str], start: int = 0, stop: int | None = None) -> str:
    """``"".join(lines[start:stop])``; for :class:`Lines`, without making the lines."""
    if isinstance(lines, Lines):
        return lines.text(start, stop)
    return "".join(lines[start:stop])


def batched(lines: Iterable[str], sep: str = "\n") -> Iterator[str]:
    """The pieces of ``sep.join(lines)``, in order: the lines joined 4,096 at a
    time, and ``sep`` between two batches (so a million lines are never all
    strings at once, nor all joined at once)."""
    from itertools import islice

    it = iter(lines)
    batch = list(islice(it, 4096))
    while batch:
        yield sep.join(batch)
        batch = list(islice(it, 4096))
        if batch:
            yield sep


def join_batched(lines: Iterable[str], sep: str = "\n") -> str:
    """``sep.join(lines)``, a batch of lines at a time (:func:`batched`)."""
    return "".join(batched(lines, sep))


def appended(text: str, pieces: Iterable[str]) -> str:
    """``text + "".join(pieces)``, each piece added as it comes.

    CPython grows a string held by one local variable in place on ``+=``
    (``realloc``, which moves a big block without copying it), so a note made of
    many pieces peaks at its own size plus one piece, where ``"".join`` of a
    list holds every piece besides the result: twice the note's characters
    when one character (a dash in the title) widens the result to two bytes
    each.  Elsewhere ``+=`` copies: the same result, more time.
    """
    for piece in pieces:
        text += piece
    return text
