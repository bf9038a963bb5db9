"""Read-backs of aiwiki pages skip the carrier hints, and nothing changes.

Hints of an aiwiki page help read back a Basic Memory note made from it; the
pivot of a read-back is only compared, never a source, so conversions leave
them out of read-backs (a fast lane).  These tests show the pivot without
hints is otherwise the same (equal, same key) and that conversions write the
same text with the fast lanes on and off (:mod:`sessionkit.fastpaths`: then
read-backs build their hints), and that the conversion shortcuts that skip
work (``readback-hints`` here, ``bm-lists-first``: a Basic Memory target tried
with every list as observations before the precise check) are counted by
``fastpaths.taken()`` when they answer, and never with the lanes off.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given

from sessionkit.adapters import crosswalk as C
from sessionkit.document import parse
from sessionkit.errors import SessionKitError
from sessionkit.fastpaths import general_paths, taken
from tests.ops.test_convert_faithful import SLOW, _pages

_PATH = "aiwiki/sessions/2024-01-01-abcdef0.md"
ROOT = Path(__file__).resolve().parent.parent.parent
NOTES = sorted(
    p
    for pattern in ("tests/golden/**/*.md", "tests/corpus/**/*.md", "examples/**/*.md")
    for p in ROOT.glob(pattern)
)


def _both(text: str, path: str) -> tuple[Any, Any] | None:
    try:
        full = C.pivot_from_aiwiki(parse(text, path))
    except SessionKitError:
        return None
    return full, C.pivot_from_aiwiki(parse(text, path), hints=False)


def _same_but_hints(full: Any, bare: Any) -> None:
    assert bare.hints is None
    assert bare == full  # hints are eq=False: every other field
    assert bare.key() == full.key()


@SLOW
@given(_pages())
def test_pivot_without_hints_is_the_same(text: str) -> None:
    got = _both(text, _PATH)
    if got is not None:
        _same_but_hints(*got)


@pytest.mark.parametrize("note", NOTES, ids=lambda p: str(p.relative_to(ROOT)))
def test_corpus_pivot_without_hints_is_the_same(note: Path) -> None:
    got = _both(note.read_text(encoding="utf-8"), f"aiwiki/sessions/{note.name}")
    if got is not None:
        _same_but_hints(*got)


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
    with general_paths():  # (read-backs build their hints)
        assert _conversions(text, name) == fast


def test_conversions_write_the_same_with_read_back_hints() -> None:
    for note in NOTES:
        _both_ways(note.read_text(encoding="utf-8"), note.name)


@SLOW
@given(_pages())
def test_generated_conversions_write_the_same_with_read_back_hints(text: str) -> None:
    _both_ways(text, "2024-01-01-abcdef0.md")


_LANES = ("readback-hints", "bm-lists-first")


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
