"""A big note's lines held as offsets (:class:`sessionkit.document.Lines`, issue #23).

``Lines`` must be the list :func:`split_lines` gives, to every reader: checked
item by item on generated text, and end to end by reading, linting,
rendering back, migrating and converting every corpus note (hand edits
spliced in) with every note's lines held as ``Lines`` (``MANY_LINES`` at 0)
and as lists, which must give the same results.
"""

from __future__ import annotations

import pickle
import re

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sessionkit
import sessionkit.document as document
from sessionkit.adapters import get_adapter
from sessionkit.adapters.aiwiki import migrate_document
from sessionkit.document import HeadLines, Lines, chunked, parse, parse_pieces, split_lines
from sessionkit.errors import ParseError, SessionKitError
from sessionkit.ops.convert import convert_text
from tests.test_properties import FORMATS, SETTINGS, edited_notes

_texts = st.text(st.sampled_from("ab \r\n\t-#\u2028\x85"), max_size=40)


def _reads_as(lines: Lines, want: list[str], start: int, stop: int | None) -> None:
    """``lines`` is the list ``want`` to every reader: items, slices, text, spans."""
    assert len(lines) == len(want)
    assert list(lines) == want
    assert lines == want and want == lines
    for i in range(-len(want), len(want)):
        assert lines[i] == want[i]
    for bad in (len(want), -len(want) - 1):
        with pytest.raises(IndexError):
            lines[bad]
    assert lines[start:stop] == want[start:stop]
    assert lines[start:stop:2] == want[start:stop:2]
    assert lines.text(start, stop) == "".join(want[start:stop])
    text, a, b = lines.span(start, stop)
    assert text[a:b] == "".join(want[start:stop])
    assert pickle.loads(pickle.dumps(lines)) == want


@given(_texts, st.integers(-50, 50), st.integers(-50, 50) | st.none())
def test_lines_are_split_lines(text: str, start: int, stop: int | None) -> None:
    lines = Lines(text)
    _reads_as(lines, split_lines(text), start, stop)
    assert lines == Lines(text)
    assert "".join(lines) == text


@given(_texts, _texts, st.integers(-50, 50), st.integers(-50, 50) | st.none())
def test_head_lines_are_split_lines(head: str, body: str, start: int, stop: int | None) -> None:
    head += "\n"  # (the head is whole lines)
    lines = HeadLines(split_lines(head), body)
    _reads_as(lines, split_lines(head + body), start, stop)
    assert lines == Lines(head + body)


def _cut(text: str, cuts: list[int]) -> list[str]:
    """``text`` in pieces cut after some of its lines (every piece but the last ends a
    line; none is empty)."""
    ends = [m.end() for m in re.finditer("\n", text)]
    at = sorted({ends[c % len(ends)] for c in cuts} - {len(text)}) if ends else []
    return [text[a:b] for a, b in zip([0, *at], [*at, len(text)], strict=True)]


_cuts = st.lists(st.integers(0, 1 << 20), max_size=5)


@given(_texts, _texts, _cuts, st.integers(-50, 50), st.integers(-50, 50) | st.none())
def test_head_lines_of_a_body_in_pieces_are_split_lines(
    head: str, body: str, cuts: list[int], start: int, stop: int | None
) -> None:
    head += "\n"
    pieces = _cut(body, cuts)
    lines = HeadLines(split_lines(head), pieces)
    want = split_lines(head + body)
    _reads_as(lines, want, start, stop)
    assert lines == Lines(head + body) and Lines(head + body) == lines
    # the text of any lines, a piece at a time, is their text
    spans = lines.spans(start, stop)
    assert "".join(text[a:b] for text, a, b in spans) == "".join(want[start:stop])
    assert len(spans) <= len(pieces) + 1


_heads = st.builds(
    "".join,
    st.lists(
        st.sampled_from(
            ["---\n", "---\r\n", "a: 1\n", "t: x \U0001f680\n", "\n", "- b\n", "\ufeff"]
        ),
        max_size=6,
    ),
)


@settings(deadline=None)  # (a body of 4,096 lines an example)
@given(_heads, _texts, _cuts)
def test_a_document_in_pieces_reads_as_its_text(head: str, tail: str, cuts: list[int]) -> None:
    # a big body (parse_pieces holds pieces apart only then), whole or cut at line
    # ends, after any head: the document is the one parse makes of the joined text,
    # to every reader
    body = tail + "- x\n" * document.MANY_LINES
    doc = parse_pieces((head, *_cut(body, cuts)), "n.md")
    want = parse(head + body, "n.md")
    assert doc.text == want.text == "".join(doc.pieces)
    assert list(doc.lines) == list(want.lines)
    assert (doc.fm_close, doc.body_start, doc.newline, doc.bom) == (
        want.fm_close,
        want.body_start,
        want.newline,
        want.bom,
    )
    assert doc.body == want.body and doc.frontmatter_text == want.frontmatter_text
    assert doc.headings == want.headings and doc.sections == want.sections
    assert doc == want and hash(doc) == hash(want)
    try:
        meta: object = want.meta
    except ParseError as exc:
        meta = str(exc)
    try:
        got: object = doc.meta
    except ParseError as exc:
        got = str(exc)
    assert got == meta
    assert pickle.loads(pickle.dumps(doc)).text == want.text


def test_a_big_frontmatter_and_body_are_held_apart() -> None:
    head, body = "---\ntitle: a \U0001f680\n---\n", "\n" + "- x\n" * document.MANY_LINES
    doc = parse_pieces((head, body))
    assert doc.pieces == (head, body) and doc.body is body  # (not joined, not cut)
    assert doc.meta == {"title": "a \U0001f680"}
    assert parse_pieces((head, "\n- x\n")).pieces == (head + "\n- x\n",)  # small: one


_wide = st.text(st.sampled_from("ab \n\u00e9\u2014\U0001f680"), max_size=3000)


@settings(deadline=None)
@given(st.lists(_wide, max_size=8), st.integers(0, 3))
def test_chunked_is_the_text_cut_at_line_ends(pieces: list[str], times: int) -> None:
    pieces = [p * (1 + 20 * times) for p in pieces]  # (runs past the cut's thresholds)
    out = list(chunked(pieces))
    assert "".join(out) == "".join(pieces)
    assert all(out) and all(piece.endswith("\n") for piece in out[:-1])


def test_chunked_keeps_one_wide_line_apart() -> None:
    # a big body of one byte a character but for one line: only that line's piece is
    # wide, and parse_pieces holds the pieces as they are
    lines = [f"- step {i}" for i in range(200_000)]
    lines[100_000] += " \U0001f680"
    body = "\n".join(lines) + "\n"
    batches = ["\n".join(lines[i : i + 4096]) + "\n" for i in range(0, len(lines), 4096)]
    out = list(chunked(batches))
    assert "".join(out) == body
    wide = [piece for piece in out if not piece.isascii()]
    assert len(wide) == 1 and "\U0001f680" in wide[0] and len(wide[0]) < 1 << 12
    assert len(out) <= 3
    head = "---\ntitle: t\n---\n"
    doc = parse_pieces((head, *out))
    assert doc.pieces == (head, *out) and doc.body == body
    # a body of wide characters everywhere is a few pieces, not one a line
    cjk = "".join(f"\u4e00{i}\n" for i in range(200_000))
    assert len(list(chunked([cjk[i : i + 5000] for i in range(0, len(cjk), 5000)]))) <= 2


def test_a_note_of_many_lines_holds_them_as_offsets() -> None:
    text = "---\na: 1\n---\n" + "- x\n" * document.MANY_LINES
    doc = parse(text)
    assert isinstance(doc.lines, Lines)
    assert doc.body == "- x\n" * document.MANY_LINES
    assert doc.frontmatter_text == "a: 1\n"
    assert not isinstance(parse("---\na: 1\n---\n- x\n").lines, Lines)


def _results(text: str, fmt: str) -> list[object]:
    """What every reader makes of ``text`` as ``fmt`` (errors by their text)."""
    out: list[object] = []
    out.append([d.to_dict() for d in sessionkit.lint(text, path="n.md", format=fmt)])
    try:
        session = sessionkit.loads(text, path="n.md", format=fmt)
    except SessionKitError as exc:
        out.append(str(exc))
        return out
    out.append(sessionkit.dumps(session))
    # an edit: a splice of the note's own lines
    adapter = get_adapter(fmt)
    edited = attrs.evolve(session, next_steps=(*session.next_steps, "one more"))
    try:
        out.append(adapter.write(edited, base=parse(text, "n.md")).text)
    except SessionKitError as exc:
        out.append(str(exc))
    to = "aiwiki-v2" if fmt == "basic-memory" else "basic-memory"
    try:
        if fmt == "aiwiki-v1":
            out.append(migrate_document(parse(text, "n.md")).text)
        out.append(convert_text(text, to, "n.md", from_=fmt, project="p"))
    except SessionKitError as exc:
        out.append(str(exc))
    return out


@SETTINGS
@given(edited_notes(), st.sampled_from(FORMATS))
def test_lines_read_as_lists_do(text: str, fmt: str) -> None:
    want = _results(text, fmt)
    with pytest.MonkeyPatch.context() as m:
        m.setattr(document, "MANY_LINES", 0)
        assert isinstance(parse(text).lines, Lines)
        assert _results(text, fmt) == want


@given(st.text(max_size=30), st.integers(0, 70_000))
def test_encode_is_utf8_however_big(piece: str, length: int) -> None:
    # a text over 64 Ki characters that is not ASCII is encoded a block at a time
    # (a block may end inside a character's surrogate-free run: any cut is fine)
    text = (piece * (length // max(1, len(piece)) + 1))[:length] if piece else ""
    want = text.encode("utf-8")
    assert document.encode(text) == want
    assert b"".join(document.encode_blocks(text)) == want


def test_encoding_a_big_note_holds_its_bytes_once() -> None:
    import tracemalloc

    text = "title — x\n" + "- [next_step] 7\n" * 200_000  # 3.2 M characters, 2 bytes each
    tracemalloc.start()
    try:
        data = document.encode(text)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert data == text.encode("utf-8")
    # str.encode takes 3 bytes a character first (9.6 MB), a joined list of pieces
    # holds the bytes twice (6.4 MB); one growing buffer about once (3.2 MB)
    assert peak < 1.3 * len(data)
