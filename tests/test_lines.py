"""A big note's lines held as offsets (:class:`sessionkit.document.Lines`, issue #23).

``Lines`` must be the list :func:`split_lines` gives, to every reader: checked
item by item on generated text, and end to end by reading, linting,
rendering back, migrating and converting every corpus note (hand edits
spliced in) with every note's lines held as ``Lines`` (``MANY_LINES`` at 0)
and as lists, which must give the same results.
"""

from __future__ import annotations

import pickle

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

import sessionkit
import sessionkit.document as document
from sessionkit.adapters import get_adapter
from sessionkit.adapters.aiwiki import migrate_document
from sessionkit.document import Lines, parse, split_lines
from sessionkit.errors import SessionKitError
from sessionkit.ops.convert import convert_text
from tests.test_properties import FORMATS, SETTINGS, edited_notes

_texts = st.text(st.sampled_from("ab \r\n\t-#\u2028\x85"), max_size=40)


@given(_texts, st.integers(-50, 50), st.integers(-50, 50) | st.none())
def test_lines_are_split_lines(text: str, start: int, stop: int | None) -> None:
    want = split_lines(text)
    lines = Lines(text)
    assert len(lines) == len(want)
    assert list(lines) == want
    assert lines == want and lines == Lines(text)
    for i in range(-len(want), len(want)):
        assert lines[i] == want[i]
    for bad in (len(want), -len(want) - 1):
        with pytest.raises(IndexError):
            lines[bad]
    assert lines[start:stop] == want[start:stop]
    assert lines[start:stop:2] == want[start:stop:2]
    assert lines.text(start, stop) == "".join(want[start:stop])
    assert pickle.loads(pickle.dumps(lines)) == want
    assert "".join(lines) == text


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
