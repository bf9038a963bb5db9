"""Carrier sections known from the source page read as the page read them.

Converting an aiwiki page to Basic Memory puts its checkpoints, citations and
(some) lists in ``## aiwiki: <Section>`` carrier sections; the check reads
them back as aiwiki.  When a carrier's lines are exactly the lines the source
page's section had (the page's ``hints``), the read-back takes the page's own
reading of that section instead of reading the carrier: the
``section-hints`` fast lane.  These tests read the converted notes back with
the hints, with the lanes on and off (:mod:`sessionkit.fastpaths`: then every
carrier is read), and compare, on generated pages full of lines that matter
to the readers, and on pages the writer wrote with blank lines added (after
directive headers, where the source pages of the benchmark have them, and
anywhere else).
"""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from sessionkit.adapters.crosswalk import Converted, convert_doc, pivot_from_aiwiki, pivot_from_bm
from sessionkit.document import parse
from sessionkit.errors import SessionKitError
from sessionkit.fastpaths import general_paths, taken
from tests.ops.test_convert_faithful import SLOW, _pages, _schema_shape, _written_and_spaced

_PATH = "aiwiki/sessions/2024-01-01-abcdef0.md"


def _converted(text: str) -> Converted:
    return convert_doc(
        parse(text, _PATH), "aiwiki", "basic-memory", project="demo", folder="sessions", today="x"
    )


def _carrier_note(hints: dict[str, Any]) -> str:
    """A Basic Memory note whose ``## aiwiki: <title>`` carrier sections hold exactly
    the lines of each hint (as a conversion writes them when it can)."""
    # (a hint's text keeps its lines' ends)
    body = "".join(
        f"## aiwiki: {t}\n\n{hint.text().removesuffix(chr(10))}\n\n" for t, hint in hints.items()
    )
    return "---\ntitle: T\ntype: session\npermalink: sessions/t\n---\n\n" + body


def _hints_read_the_long_way(text: str) -> int:
    """Assert that every hint of the page reads as its lines read: a note carrying them,
    read back with the hints and with the lanes off (every carrier read), holds the
    same facts.  How many hints there were."""
    try:
        pivot = pivot_from_aiwiki(parse(text, _PATH))
    except SessionKitError:  # a page the converter refuses: no hints
        return 0
    if not pivot.hints:
        return 0
    note = parse(_carrier_note(pivot.hints), "sessions/T.md")
    before = taken()["section-hints"]
    fast = pivot_from_bm(note, "sessions", pivot.hints)
    # (an empty section is no carrier: no hint is taken for it)
    assert taken()["section-hints"] == before + any(h.text() for h in pivot.hints.values())
    with general_paths():
        assert pivot_from_bm(note, "sessions", pivot.hints).key() == fast.key(), text
    return len(pivot.hints)


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
    pivot = pivot_from_aiwiki(parse(text, _PATH))
    assert "Checkpoints" in pivot.hints
    converted = _converted(text)
    with_hints = pivot_from_bm(parse(converted.text, converted.key), "sessions", pivot.hints)
    without = pivot_from_bm(parse(converted.text, converted.key), "sessions")
    assert with_hints.key() == without.key() == pivot.key()


def test_a_hint_is_not_taken_for_other_lines() -> None:
    text = _schema_shape()
    pivot = pivot_from_aiwiki(parse(text, _PATH))
    hinted = pivot.hints["Checkpoints"].text().removesuffix("\n")
    lines = hinted.split("\n")
    converted = _converted(text)
    other = "\n".join([*lines[:-1], "extra line", lines[-1]])
    edited = converted.text.replace(hinted, other)
    assert edited != converted.text
    note = parse(edited, converted.key)
    got = pivot_from_bm(note, "sessions", pivot.hints).session.checkpoints
    with general_paths():
        assert pivot_from_bm(note, "sessions", pivot.hints).session.checkpoints == got
    assert got != pivot.session.checkpoints
