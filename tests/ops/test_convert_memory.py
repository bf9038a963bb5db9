"""Converting a big note costs memory in proportion to the note (issue #23)."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import sessionkit
from sessionkit.markdown import flat_leaves, tokenize, walk

HEAD = """---
schema_id: session
schema_version: 2
status: done
date_start: 2026-05-18
session_id: 7e8a3f2-9a4b-4c8d-b1e2-f5a6c7d8e9f0
focus: a big note
last_commit: '1234abc'
---

## Next steps

"""


def _peak_ratio(tmp_path: Path, lines: int) -> float:
    src = tmp_path / "wiki"
    (src / "aiwiki" / "sessions").mkdir(parents=True)
    note = src / "aiwiki" / "sessions" / "2026-05-18-7e8a3f2.md"
    note.write_text(HEAD + "".join(f"- step {i}\n" for i in range(lines)), encoding="utf-8")
    tracemalloc.start()
    try:
        report = sessionkit.convert(src, tmp_path / "bm", to="basic-memory", project="p", jobs=1)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert not report.failures and len(report.created) == 1
    return peak / note.stat().st_size


def test_big_note_converts_within_a_multiple_of_its_size(tmp_path: Path) -> None:
    # ~400 KB of 30,000 bullets: 88x its size; the tree of blocks per bullet before
    # fb1c070 took 110x here (tracemalloc peak, measured on both; 196x on "- N" bullets)
    assert _peak_ratio(tmp_path, 30_000) < 100


def test_flat_leaves_are_the_text_blocks_of_tokenize() -> None:
    text = "# T\n\npara one\nline two\n\n- a\n- b\n\n* c\n---\n\ntail\n"
    lines = text.splitlines(keepends=True)
    leaves = flat_leaves(lines, tables=False)
    assert leaves is not None
    want = []
    for block, _ in walk(tokenize(lines, tables=False)):
        if block.kind in ("heading", "paragraph", "hr"):
            want.append((block.kind, block.start, block.end, block.content))
    assert [leaf[:4] for leaf in leaves] == want
    assert flat_leaves(["> quote\n"]) is None
