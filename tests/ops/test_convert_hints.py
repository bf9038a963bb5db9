"""Carrier sections known from the source page read as the page read them.

Converting an aiwiki page to Basic Memory puts its checkpoints, citations and
(some) lists in ``## aiwiki: <Section>`` carrier sections; the check reads
them back as aiwiki.  When a carrier's lines are exactly the lines
:func:`_section_hints` took from the source page's section, the read-back
takes the page's own reading of that section instead of reading the carrier.
These tests read every hint's lines the long way (:func:`_aiwiki_part`, a
page with just that section) and compare, on generated pages full of lines
that matter to the readers, and on pages the writer wrote with blank lines
added (after directive headers, where the source pages of the benchmark have
them, and anywhere else).
"""

from __future__ import annotations

import attrs
from hypothesis import given
from hypothesis import strategies as st

from sessionkit.adapters import crosswalk as C
from sessionkit.document import parse
from tests.ops.test_convert_faithful import SLOW, _pages, _schema_shape, _written_and_spaced

_PATH = "aiwiki/sessions/2024-01-01-abcdef0.md"


def _hints_read_the_long_way(text: str) -> int:
    """Assert every hint of the page equals the long reading; return how many there were."""
    doc = parse(text, _PATH)
    try:
        pivot = C.pivot_from_aiwiki(doc)
    except Exception:  # a page the converter refuses: no hints
        return 0
    hints = pivot.hints or {}
    for title, (lines, value) in hints.items():
        field = C._HINT_FIELDS[title]
        slow = getattr(C._aiwiki_part(title, "\n".join(lines), None), field)
        # the same facts, compared as the conversion check compares them (JSON of to_dict)
        assert C._json(attrs.evolve(C._EMPTY, **{field: value})) == C._json(
            attrs.evolve(C._EMPTY, **{field: slow})
        ), title
        got = C._aiwiki_parts([(title, "\n".join(lines))], None, hints)
        assert getattr(got[title], field) == value
    return len(hints)


@SLOW
@given(_pages())
def test_hints_read_as_the_section_alone(text: str) -> None:
    _hints_read_the_long_way(text)


@SLOW
@given(_pages(), st.data())
def test_hints_of_written_pages_with_blank_lines_added(text: str, data: st.DataObject) -> None:
    spaced = _written_and_spaced(text, data)
    if spaced is not None:
        _hints_read_the_long_way(spaced)


def test_the_schema_entry_shape_has_hints_and_the_conversion_uses_them() -> None:
    text = _schema_shape()
    assert _hints_read_the_long_way(text) >= 2
    doc = parse(text, _PATH)
    pivot = C.pivot_from_aiwiki(doc)
    assert "Checkpoints" in pivot.hints
    key, bm = C._natural(pivot, "basic-memory", project="demo", folder="sessions", today="x")
    with_hints = C.pivot_from_bm(parse(bm, key), "sessions", pivot.hints)
    without = C.pivot_from_bm(parse(bm, key), "sessions")
    assert with_hints.key() == without.key() == pivot.key()


def test_a_hint_is_not_taken_for_other_lines() -> None:
    doc = parse(_schema_shape(), _PATH)
    pivot = C.pivot_from_aiwiki(doc)
    lines, _ = pivot.hints["Checkpoints"]
    other = "\n".join([*lines[:-1], "extra line", lines[-1]])
    got = C._aiwiki_parts([("Checkpoints", other)], None, pivot.hints)
    assert got["Checkpoints"].checkpoints == C._aiwiki_part("Checkpoints", other, None).checkpoints
    assert got["Checkpoints"].checkpoints != pivot.read.checkpoints
