"""Reading a big Basic Memory note holds no object per fact (issue #23).

The bounds are what the block tokenizer's tree of a big list costs (about 650 B a
line of list items): the facts themselves are never all held as objects.
"""

from __future__ import annotations

import tracemalloc
from pathlib import Path
from typing import Any

import sessionkit

HEAD = """---
title: Session big
type: session
permalink: bench/sessions/session-big
status: open
project: bench
---

## Summary

A big note.

## Observations

"""


def _peak(body: str, lines: int, what: str) -> tuple[Any, float]:
    """What the Basic Memory adapter's ``what`` (``read`` or ``lint``) gives for a
    note of ``HEAD + body``, and its tracemalloc peak (the Document made
    beforehand), in bytes a line of ``body``."""
    doc = sessionkit.parse(HEAD + body, "sessions/Session big.md")
    run = getattr(sessionkit.get_adapter("basic-memory"), what)
    tracemalloc.start()
    try:
        out = run(doc)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return out, peak / lines


def _read_peak(body: str, lines: int) -> tuple[sessionkit.Session, float]:
    """The session of a note of ``HEAD + body`` and the peak of reading it."""
    return _peak(body, lines, "read")


def test_a_big_note_of_observations_reads_in_a_few_bytes_a_fact() -> None:
    n = 30_000
    session, per_line = _read_peak("".join(f"- [next_step] {i % 10}\n" for i in range(n)), n)
    assert len(session.next_steps) == n and session.next_steps[-1] == "9"
    # about 650 B a line: the tokenizer's block tree of the list (the facts are never
    # all objects at once; 48 B when a flat body was read without a block tree)
    assert per_line < 1000


def test_a_big_note_of_general_observations_shares_their_category() -> None:
    n = 30_000
    session, per_line = _read_peak("".join(f"- [file] m{i % 10}.py\n" for i in range(n)), n)
    assert len(session.observations) == n
    assert {o.category for o in session.observations} == {"file"}
    # each Observation and its content are the session's own values (one category
    # string for all of them); the tokenizer's block tree is the rest
    assert per_line < 1000


def test_a_big_note_lints_in_a_few_bytes_a_fact() -> None:
    n = 30_000
    found, per_line = _peak("".join(f"- [next_step] {i % 10}\n" for i in range(n)), n, "lint")
    # the built-in Session schema checks the facts: a finding on the missing 'started'
    assert [d.code for d in found] == ["BM005"] and "started" in found[0].message
    # a byte a line for the fact lines, the facts' categories and contents as lists,
    # and the tokenizer's block tree of the list (about 650 B a line)
    assert per_line < 1000


def test_a_big_session_is_written_without_repeating_the_facts_of_its_prose() -> None:
    # 5,000 fact lines in the prose: the writer reads them as lines cut from the
    # text (many lines), the same facts as the lines of a small text
    n = 5_000
    prose = "\n".join(f"- [decision] d{i} #t" for i in range(n)) + "\n\nsee [[Elsewhere]]"
    session = sessionkit.Session(
        title="Big",
        decisions=tuple(f"d{i} #t" for i in range(n)),
        next_steps=("go on",),
        relations=(sessionkit.Link(target="Elsewhere", relation="links_to"),),
        sections=(sessionkit.ExtraSection(title="Notes", body=prose),),
    )
    adapter = sessionkit.get_adapter("basic-memory")
    doc = adapter.write(session)
    assert doc.text.count("[decision]") == n and doc.text.count("[[Elsewhere]]") == 1
    back = adapter.read(doc)
    assert (back.decisions, back.next_steps, back.relations) == (
        session.decisions,
        session.next_steps,
        session.relations,
    )


def test_a_session_of_many_facts_is_written_whole() -> None:
    # the fact lines are made and joined 4,096 at a time as the note is joined:
    # every line is there once, in order, the batches joined by one line break
    n = 10_000
    session = sessionkit.Session(
        title="Big",
        decisions=tuple(f"d{i}" for i in range(n)),
        relations=tuple(sessionkit.Link(target=f"T{i}", relation="uses") for i in range(n)),
        sections=(
            sessionkit.ExtraSection(title="", body="A lead.\n"),
            sessionkit.ExtraSection(title="Notes", body="Some notes.\n\n\n"),
            sessionkit.ExtraSection(title="Observations", body="a loose line"),
        ),
    )
    adapter = sessionkit.get_adapter("basic-memory")
    text = adapter.write(session).text
    body = text[text.index("\n---\n") + 5 :]
    decisions = "\n".join(f"- [decision] d{i}" for i in range(n))
    relations = "\n".join(f"- uses [[T{i}]]" for i in range(n))
    assert body == (
        f"\nA lead.\n\n\n## Notes\n\nSome notes.\n\n## Observations\n\n{decisions}"
        f"\n\na loose line\n\n## Relations\n\n{relations}\n"
    )
    back = adapter.read(adapter.write(session))
    assert (back.decisions, back.relations) == (session.decisions, session.relations)


def _bm_to_aiwiki(root: Path, lines: int) -> tuple[sessionkit.ConversionReport, int]:
    note = root / "bm" / "sessions" / "Session big.md"
    note.parent.mkdir(parents=True)
    note.write_text(
        HEAD + "".join(f"- [next_step] {i % 10}\n" for i in range(lines)), encoding="utf-8"
    )
    return (
        sessionkit.convert(root / "bm", root / "wiki", to="aiwiki", project="bench", jobs=1),
        note.stat().st_size,
    )


def test_a_big_note_converts_to_aiwiki_within_a_multiple_of_its_size(tmp_path: Path) -> None:
    _bm_to_aiwiki(tmp_path / "small", 10)  # (what a first conversion imports is not the note's)
    tracemalloc.start()
    try:
        report, size = _bm_to_aiwiki(tmp_path / "big", 30_000)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert not report.failures and len(report.created) == 1
    # 42x the note's size with the tokenizer's block tree of the list (5.6x when a flat
    # body was read without one)
    assert peak / size < 60
