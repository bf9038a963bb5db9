"""Reading a big aiwiki page for a conversion keeps a few bytes an item (issue #23).

:func:`~sessionkit.adapters.crosswalk.pivot_from_aiwiki` reads the page
(its items' places as :class:`~sessionkit.adapters.aiwiki_page.ItemSpans`)
and keeps each known section's text as a hint for the read-back.  What it
keeps beyond the session's own values (the tuple of bullet texts, the
citations) is measured here with tracemalloc, as is its peak.
"""

from __future__ import annotations

import gc
import tracemalloc

import pytest

from sessionkit.adapters.aiwiki_page import ItemSpan, ItemSpans, read_page, scan
from sessionkit.adapters.crosswalk import pivot_from_aiwiki
from sessionkit.document import parse

HEAD = """---
schema_id: session
schema_version: 2
status: done
date_start: 2026-05-18
session_id: 7e8a3f2-9a4b-4c8d-b1e2-f5a6c7d8e9f0
focus: a big note
last_commit: '1234abc'
---

"""
ITEMS = 30_000


def _page(section: str, bullets: list[str]) -> str:
    return HEAD + f"## {section}\n\n" + "".join(f"- {b}\n" for b in bullets)


def _costs(text: str, field: str) -> tuple[float, float]:
    """Bytes an item that the pivot of ``text`` keeps beyond the values of ``field``,
    and its peak beyond them (tracemalloc)."""
    doc = parse(text, "aiwiki/sessions/2026-05-18-7e8a3f2.md")
    pivot_from_aiwiki(parse(_page("Next steps", ["a"]), "a.md"))  # imports, caches
    assert len(doc.lines) > ITEMS and doc.sections
    gc.collect()
    tracemalloc.start()
    try:
        pivot = pivot_from_aiwiki(doc)
        gc.collect()
        kept, peak = tracemalloc.get_traced_memory()
        values = getattr(pivot.session, field)
        assert len(values) == ITEMS
        del pivot
        gc.collect()
        own = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    return (kept - own) / ITEMS, (peak - own) / ITEMS


def test_the_pivot_of_a_page_of_bullets_keeps_a_few_bytes_an_item() -> None:
    # 8 bytes an item measured, 12 at the peak (a line number in an array, the section's
    # text as the hint); 196 and 216 when each item was an object with two ints and the
    # hint a list of line strings
    kept, peak = _costs(_page("Next steps", [str(i % 10) for i in range(ITEMS)]), "next_steps")
    assert kept < 24
    assert peak < 48


def test_the_pivot_of_a_page_of_citations_keeps_a_few_bytes_an_item() -> None:
    # 24 bytes an item measured, 24 at the peak (of which 20 the citation's line in the
    # hint); 278 and 314 when each item also held its text, its two ints, and its line
    cites = [f"`m{i % 10}.py:{i % 9 + 1}@{i * 2654435761 % 0xFFFFFFF:07x}`" for i in range(ITEMS)]
    kept, peak = _costs(_page("Files touched", cites), "files_touched")
    assert kept < 48
    assert peak < 72


def test_item_spans_read_as_the_items_they_hold() -> None:
    text = _page("Files touched", ["`a.py:3@abc1234`", "plain words", "`b.py`\n  more"])
    text += "\n## Next steps\n\n1. one\n2. two\n- three\n"
    session, layout = read_page(parse(text, "p.md"))
    files = layout.items["Files touched"]
    assert isinstance(files, ItemSpans)
    assert [x.text for x in files] == ["`a.py:3@abc1234`", "plain words", "`b.py`\n  more"]
    assert [(x.start, x.end, x.marker) for x in files] == [
        (12, 13, "-"),
        (13, 14, "-"),
        (14, 16, "-"),
    ]
    assert files.values == session.files_touched
    assert files[-1] == files[2] == ItemSpan("`b.py`\n  more", 14, 16)
    assert files[1:] == (files[1], files[2])
    steps = layout.items["Next steps"]
    assert [(x.text, x.marker) for x in steps] == [("one", "1."), ("two", "2."), ("three", "-")]
    assert steps.values == session.next_steps == ("one", "two", "three")
    assert not steps.dashes and files.dashes
    with pytest.raises(IndexError):
        steps[3]
    # the same layout read again
    _, general = scan(parse(text, "p.md"))
    assert general.items == layout.items
    assert general.items["Next steps"] == tuple(steps)
