"""Minimal edits on the quirky corpus pages: any field change reads back as written."""

from __future__ import annotations

from pathlib import Path

import attrs
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sessionkit.adapters.aiwiki import AIWIKI_V1, AIWIKI_V2
from sessionkit.document import parse
from sessionkit.model import Session

from ._aiwiki_helpers import CORPUS_V1, CORPUS_V2, page_path, read_text, sessions

FIELDS = [
    "status",
    "focus",
    "started",
    "ended",
    "last_commit",
    "files_touched",
    "decisions",
    "gotchas",
    "questions",
    "next_steps",
    "extra",
    "sections",
]


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(CORPUS_V2),
    sessions(version=2),
    st.sets(st.sampled_from([*FIELDS, "id", "checkpoints"]), min_size=1),
)
def test_v2_page_edits_read_back(path: Path, donor: Session, fields: set[str]) -> None:
    _check(path, donor, fields, AIWIKI_V2)


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(CORPUS_V1), sessions(version=1), st.sets(st.sampled_from(FIELDS), min_size=1)
)
def test_v1_page_edits_read_back(path: Path, donor: Session, fields: set[str]) -> None:
    _check(path, donor, fields, AIWIKI_V1)


def _check(path: Path, donor: Session, fields: set[str], adapter: object) -> None:
    text = read_text(path)
    doc = parse(text, page_path(path))
    read = adapter.read  # type: ignore[attr-defined]
    write = adapter.write  # type: ignore[attr-defined]
    session = read(doc)
    changes = {f: getattr(donor, f) for f in fields}
    if "extra" in changes:
        # keep keys the page already has in their place, change their values
        changes["extra"] = {**dict.fromkeys(session.extra, "changed"), **donor.extra}
    edited = attrs.evolve(session, **changes)
    out = write(edited, base=doc)
    again = read(out)
    assert again == edited
    assert out.bom == doc.bom
    # the frontmatter's format keys are never touched
    for key in ("schema_id", "schema_version"):
        if key in doc.key_spans:
            start, end = doc.key_spans[key]
            assert "".join(doc.lines[start:end]) in out.text


def test_emptying_the_items_before_a_block_reads_back_as_written() -> None:
    """Removing the only item before a fence leaves the fence first in its section:
    the model says so (its gap is 0), as reading the written page says (found by
    the property above on 2026-01-23-fences.md)."""
    path = next(p for p in CORPUS_V1 if p.name == "2026-01-23-fences.md")
    doc = parse(read_text(path), page_path(path))
    edited = attrs.evolve(AIWIKI_V1.read(doc), decisions=())
    again = AIWIKI_V1.read(AIWIKI_V1.write(edited, base=doc))
    assert again == edited
    assert [b.gap for b in edited.blocks["decisions"]] == [0]
