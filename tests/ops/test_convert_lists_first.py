"""Conversions write the same with the fast lanes on and off, and the first try counts.

A Basic Memory target is first rendered with every aiwiki list as
observations and taken without the precise list check when it reads back
(the ``bm-lists-first`` lane).  These tests convert notes both ways with the
lanes on and off (:mod:`sessionkit.fastpaths`) and compare the key, text and
carried flag, and check that ``fastpaths.taken()`` counts the lane's answers
when it is on and none when it is off.  (A read-back of an aiwiki target once
skipped its carrier hints, the ``readback-hints`` lane: measured through the
CLI it saved nothing, ``benchmarks/lanes.py``, and it is gone.)
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import given

from sessionkit.adapters import crosswalk as C
from sessionkit.document import parse
from sessionkit.errors import SessionKitError
from sessionkit.fastpaths import general_paths, taken
from tests.ops.test_convert_faithful import SLOW, _pages

ROOT = Path(__file__).resolve().parent.parent.parent
NOTES = sorted(
    p
    for pattern in ("tests/golden/**/*.md", "tests/corpus/**/*.md", "examples/**/*.md")
    for p in ROOT.glob(pattern)
)


def _conversions(text: str, name: str) -> list[str]:
    out = []
    for src, dst, path in (
        ("aiwiki", "basic-memory", f"aiwiki/sessions/{name}"),
        ("basic-memory", "aiwiki", f"sessions/{name}"),
    ):
        try:
            doc = parse(text, path)
            res = C.convert_doc(doc, src, dst, project="p", folder="sessions", today="2026-01-01")
            out.append(f"{res.key}\n{res.text}\n{res.carried}")
        except SessionKitError as exc:
            out.append(f"error: {exc}")
    return out


def _both_ways(text: str, name: str) -> None:
    fast = _conversions(text, name)
    with general_paths():
        assert _conversions(text, name) == fast


def test_conversions_write_the_same_with_the_lanes_off() -> None:
    for note in NOTES:
        _both_ways(note.read_text(encoding="utf-8"), note.name)


@SLOW
@given(_pages())
def test_generated_conversions_write_the_same_with_the_lanes_off(text: str) -> None:
    _both_ways(text, "2024-01-01-abcdef0.md")


_LANES = ("bm-lists-first",)


def _counted(text: str, name: str) -> tuple[list[str], dict[str, int]]:
    """The conversions of ``text`` both ways, and how many answers each lane gave."""
    before = taken()
    out = _conversions(text, name)
    after = taken()
    return out, {lane: after[lane] - before[lane] for lane in _LANES}


def test_the_conversion_lanes_answer_and_change_nothing() -> None:
    """Through ``convert_doc``: the same key, text and carried flag with the lanes on
    and off; the lanes report their answers when on, and none when off."""
    totals = dict.fromkeys(_LANES, 0)
    for note in NOTES:
        text = note.read_text(encoding="utf-8")
        fast, answers = _counted(text, note.name)
        with general_paths():
            general, none = _counted(text, note.name)
        assert general == fast, note
        assert none == dict.fromkeys(_LANES, 0), note
        for lane in _LANES:
            totals[lane] += answers[lane]
    assert all(totals.values()), totals  # each lane does answer for the usual note
