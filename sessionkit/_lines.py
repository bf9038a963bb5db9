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

from bisect import bisect_right as _bisect
from collections.abc import Iterable, Iterator, Sequence

from ._lazyre import lazy

TYPE_CHECKING = False
if TYPE_CHECKING:  # (typing is not imported on the hooks' path)
    from typing import Any

__all__ = [
    "HeadLines",
    "Lines",
    "batched",
    "chunked",
    "handed",
    "joined",
    "narrower_from",
    "spanned",
    "spans",
]

_NEWLINE = lazy("\n")


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
        if type(other) is Lines and type(self) is Lines:
            return self._text == other._text
        if isinstance(other, (Lines, list)):
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
    """The lines of ``head + "".join(body)`` with the text held as those strings,
    never joined: ``head``'s lines as a list, each body piece's as offsets into
    it (see :class:`Lines`).

    A string is as wide as its widest character (one, two or four bytes a
    character), so a note whose frontmatter holds a character the body does
    not (an em dash, an emoji) is held at the body's own width, and a big body
    held in pieces (:func:`chunked`) is as wide as each piece's own characters.
    ``head`` and every body piece but the last end with a line end (a line
    never spans two pieces).  A span within one piece is that piece itself
    (nothing copied); one reaching across pieces is joined (:meth:`spans`
    gives it piece by piece instead).
    """

    __slots__ = ("_firsts", "_head", "_k", "_parts")

    def __init__(self, head: list[str], body: str | Sequence[str]) -> None:
        parts = [Lines(piece) for piece in ((body,) if isinstance(body, str) else body)]
        first = parts[0] if parts else Lines("")
        self._text = first._text  # (Lines' own fields: the first piece's)
        self._starts = first._starts
        self._head = head
        self._parts = parts or [first]
        firsts = [len(head)]  # the line at which each piece starts, then the end
        for part in self._parts:
            firsts.append(firsts[-1] + len(part))
        self._firsts = firsts
        self._k = 0  # the piece of the last line looked up (lines are mostly read in order)

    def __len__(self) -> int:
        return self._firsts[-1]

    def __getitem__(self, index: Any) -> Any:
        """Line ``index`` (a ``str``), or a ``list`` of the lines of a slice."""
        if isinstance(index, slice):
            start, stop, step = index.indices(len(self))
            if step != 1:
                return [self[i] for i in range(start, stop, step)]
            return list(self._each(start, stop))
        firsts = self._firsts
        if index < 0:
            index += firsts[-1]
            if index < 0:
                raise IndexError("line index out of range")
        if index < firsts[0]:
            return self._head[index]
        k = self._k
        if not firsts[k] <= index < firsts[k + 1]:
            if index >= firsts[-1]:
                raise IndexError("line index out of range")
            k = self._k = _bisect(firsts, index) - 1
        part = self._parts[k]
        index -= firsts[k]
        starts = part._starts
        return part._text[starts[index] : starts[index + 1]]

    def _each(self, start: int, stop: int) -> Iterator[str]:
        yield from self._head[start:stop]
        firsts = self._firsts
        for k, part in enumerate(self._parts):
            lo, hi = max(start, firsts[k]), min(stop, firsts[k + 1])
            if lo < hi:
                yield from part._each(lo - firsts[k], hi - firsts[k])

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (Lines, list)):
            return len(other) == len(self) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None

    def spans(self, start: int = 0, stop: int | None = None) -> list[tuple[str, int, int]]:
        """The text of lines ``start:stop`` as ``(text, a, b)`` spans, in order:
        the head's lines joined, then each body piece's own text (not cut)."""
        start, stop, _ = slice(start, stop).indices(len(self))
        out: list[tuple[str, int, int]] = []
        h = len(self._head)
        if start < min(stop, h):
            text = "".join(self._head[start:stop])
            out.append((text, 0, len(text)))
        firsts = self._firsts
        for k, part in enumerate(self._parts):
            lo, hi = max(start, firsts[k]), min(stop, firsts[k + 1])
            if lo < hi:
                out.append(part.span(lo - firsts[k], hi - firsts[k]))
        return out

    def text(self, start: int = 0, stop: int | None = None) -> str:
        """``"".join(self[start:stop])``: a piece's own text when the lines are all of it."""
        text, a, b = self.span(start, stop)
        return text if (a, b) == (0, len(text)) else text[a:b]

    def span(self, start: int = 0, stop: int | None = None) -> tuple[str, int, int]:
        """``(text, a, b)``: ``text[a:b]`` is :meth:`text` ``(start, stop)``; within one
        body piece, the piece itself (not cut)."""
        found = self.spans(start, stop)
        if not found:
            return self._text, 0, 0
        if len(found) == 1:
            return found[0]
        text = "".join([t[a:b] for t, a, b in found])
        return text, 0, len(text)

    def __reduce__(self) -> tuple[Any, ...]:
        return HeadLines, (self._head, tuple(part._text for part in self._parts))

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


def spans(
    lines: Sequence[str], start: int = 0, stop: int | None = None
) -> list[tuple[str, int, int]]:
    """The text of ``lines[start:stop]`` as ``(text, a, b)`` spans, in order: one
    (:func:`spanned`), or for :class:`HeadLines` one a piece (nothing joined
    across pieces)."""
    if isinstance(lines, HeadLines):
        return lines.spans(start, stop)
    return [spanned(lines, start, stop)]


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


#: characters in a run of narrower lines worth a piece of its own (:func:`chunked`)
_NARROW_RUN = 1 << 16
#: characters of narrower text after a wider piece that still join it (:func:`chunked`)
_SMALL = 1 << 10
#: a character wider than one byte (``[^\x00-\xff]``), than two (``[^\x00-\uffff]``);
#: the second spelled as the range above U+FFFF: the same characters, but compiled in
#: half a millisecond, where the negated class takes 15 ms (a bitmap of the whole BMP),
#: which every command importing this module paid at its start
_WIDER = {1: lazy("[^\x00-\xff]"), 2: lazy("[\U00010000-\U0010ffff]")}


def _width(text: str) -> int:
    """Bytes a character ``text`` is held at (1, 2 or 4: its widest character's)."""
    if text.isascii() or _WIDER[1].search(text) is None:
        return 1
    return 2 if _WIDER[2].search(text) is None else 4


def narrower_from(text: str, at: int) -> bool:
    """Whether ``text[at:]`` would be held at fewer bytes a character than ``text``
    (its widest characters are all before ``at``); nothing is copied."""
    for width in (2, 1):  # (a character beyond U+FFFF, then beyond U+00FF)
        if _WIDER[width].search(text, at) is not None:
            return False
        if _WIDER[width].search(text, 0, at) is not None:
            return True
    return False


def _runs(piece: str) -> Iterator[tuple[int, str]]:
    """``(width, text)`` runs of ``piece``, in order, cut at line ends: the lines
    holding its widest characters apart from the narrower lines around them
    (lines less than :data:`_SMALL` apart are one run)."""
    width = _width(piece)
    if width == 1 or len(piece) <= _SMALL:
        yield width, piece
        return
    wider = _WIDER[2 if width == 4 else 1]
    done = 0  # the end of what was yielded
    m = wider.search(piece)
    while m is not None:
        start = piece.rfind("\n", done, m.start()) + 1 or done
        end = piece.find("\n", m.end())
        end = len(piece) if end < 0 else end + 1
        m = wider.search(piece, end)
        while m is not None and m.start() - end < _SMALL:  # (a line or two apart: one run)
            end = piece.find("\n", m.end())
            end = len(piece) if end < 0 else end + 1
            m = wider.search(piece, end)
        if start > done:
            narrow = piece[done:start]
            yield _width(narrow), narrow
        run = piece[start:end]
        yield _width(run), run
        done = end
    if done < len(piece):
        rest = piece[done:]
        yield _width(rest), rest


def handed(box: list[str]) -> Iterator[str]:
    """The one string in ``box``, taken out of it as it is asked for: whoever takes it
    then holds it alone, and can grow it in place (see :func:`chunked`)."""
    yield box.pop()


def chunked(pieces: Iterable[str]) -> Iterator[str]:
    """``"".join(pieces)`` again in pieces each as wide as its own characters: cut at
    line ends (every piece but the last ends with ``\\n``) where the width changes.

    A string is as wide as its widest character (one, two or four bytes a
    character), so a big body joined whole is four bytes a character for one
    emoji in one line; in these pieces that line's piece is, the others are not
    (narrower lines between wider ones are joined to them unless they are many:
    a text of wide characters everywhere is a few wide pieces).  Each piece is
    grown in place as it comes: CPython grows a string held by one local
    variable in place on ``+=`` (``realloc``, which moves a big block without
    copying it), where ``"".join`` of a list holds every piece besides the
    result; elsewhere ``+=`` copies (the same result, more time).
    """
    text = ""
    width = 1
    for piece in pieces:
        if width == 1 and piece.isascii():  # (the common case: nothing to cut)
            text += piece
            continue
        for w, run in _runs(piece):
            if text and (
                (w > width and len(text) >= _NARROW_RUN) or (w < width and len(run) >= _SMALL)
            ):
                cut = text.rfind("\n") + 1
                if cut == len(text):
                    yield text
                    text = ""
                    width = 1
                elif cut:  # (the start of a line goes on with the run)
                    yield text[:cut]
                    text = text[cut:]
                    width = _width(text)
            text += run
            if w > width:
                width = w
    if text:
        yield text
