"""The pure migration transform ``migrate_document`` (v1 -> v2 and back)."""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest

from sessionkit.adapters.aiwiki import AIWIKI_V1, AIWIKI_V2, migrate_document
from sessionkit.diagnostics import Severity
from sessionkit.document import parse
from sessionkit.errors import FormatError, ParseError, UnsupportedFormatError

from ._aiwiki_helpers import CORPUS_V1, CORPUS_V2, page_path, read_text


def _changes(a: str, b: str) -> tuple[list[str], list[str]]:
    removed, added = [], []
    for line in difflib.ndiff(a.splitlines(keepends=True), b.splitlines(keepends=True)):
        if line.startswith("- "):
            removed.append(line[2:])
        elif line.startswith("+ "):
            added.append(line[2:])
    return removed, added


@pytest.mark.parametrize("path", CORPUS_V1, ids=lambda p: p.name)
def test_v1_to_v2_changes_only_two_frontmatter_lines(path: Path) -> None:
    text = read_text(path)
    doc = parse(text, page_path(path))
    new = migrate_document(doc)
    removed, added = _changes(text, new.text)
    assert len(removed) == 1 and removed[0].lstrip().startswith("schema_version")
    assert len(added) == 2
    assert added[0] == removed[0].replace("1", "2", 1)
    assert added[1] == "session_id: ~" + doc.newline
    # every other byte is the same: BOM, newline style, body
    assert new.bom == doc.bom and new.body == doc.body
    assert new.meta["schema_version"] == 2 and new.meta["session_id"] is None
    assert [d for d in AIWIKI_V2.lint(new) if d.severity is Severity.ERROR] == []
    assert "AW018" not in {d.code for d in AIWIKI_V2.lint(new)}
    # idempotent, and the same session (plus the version) reads back
    assert migrate_document(new) is new
    assert AIWIKI_V2.read(new) == AIWIKI_V1.read(doc)


@pytest.mark.parametrize("path", CORPUS_V1, ids=lambda p: p.name)
def test_v1_v2_v1_is_the_original(path: Path) -> None:
    text = read_text(path)
    back = migrate_document(migrate_document(parse(text)), to="aiwiki-v1")
    assert back.text == text


def test_inline_comment_on_the_version_line_is_kept() -> None:
    path = next(p for p in CORPUS_V1 if p.name == "2026-01-19-comments.md")
    new = migrate_document(parse(read_text(path)))
    assert "schema_version: 2   # v1 format\nsession_id: ~\n" in new.text


def test_already_v2_is_returned_unchanged() -> None:
    for path in CORPUS_V2[:5]:
        doc = parse(read_text(path))
        assert migrate_document(doc) is doc


def test_v2_to_v1_refuses_to_lose_data() -> None:
    with_id = parse(read_text(next(p for p in CORPUS_V2 if p.name == "2026-05-21-b7c9d01.md")))
    with pytest.raises(FormatError) as info:
        migrate_document(with_id, to="aiwiki-v1")
    assert "session_id" in info.value.message and info.value.line == 8
    checkpoints = parse(
        "---\nschema_id: session\nschema_version: 2\nsession_id: ~\n---\n\n"
        "## Checkpoints\n\n### PreCompact at 2026-01-01T00:00:00Z\n\n---\n"
    )
    with pytest.raises(FormatError) as info:
        migrate_document(checkpoints, to="aiwiki-v1")
    assert "checkpoints" in info.value.message and info.value.line == 7


def test_v2_to_v1_when_nothing_is_lost() -> None:
    text = (
        "---\nschema_id: session\nschema_version: 2\nstatus: done\nsession_id: ~\n"
        "date_start: 2026-01-01\ndate_end: 2026-01-01\nfocus: x\n---\n\n"
        "## Checkpoints\n\n## Next steps\n\n- a\n"
    )
    out = migrate_document(parse(text), to="aiwiki-v1")
    assert out.text == (
        "---\nschema_id: session\nschema_version: 1\nstatus: done\n"
        "date_start: 2026-01-01\ndate_end: 2026-01-01\nfocus: x\n---\n\n"
        "## Next steps\n\n- a\n"
    )
    assert AIWIKI_V1.lint(out)[0].code == "AW018"


@pytest.mark.parametrize(
    ("text", "error", "line"),
    [
        ("---\nschema_id: session\nschema_version: 1\n", ParseError, 1),
        ("---\nschema_id: session\nschema_version: 1\nfocus: 'x\n---\n", ParseError, None),
        ("---\nschema_id: adr\nschema_version: 1\n---\n", FormatError, 2),
        ("---\nschema_id: session\n---\n", FormatError, 1),
        ("---\nschema_id: session\nschema_version: 9\n---\n", FormatError, 3),
        ("no frontmatter\n", FormatError, 1),
    ],
)
def test_unmigratable_pages(text: str, error: type[Exception], line: int | None) -> None:
    with pytest.raises(error) as info:
        migrate_document(parse(text, "aiwiki/sessions/x.md"))
    assert info.value.path == "aiwiki/sessions/x.md"  # type: ignore[attr-defined]
    if line is not None:
        assert info.value.line == line  # type: ignore[attr-defined]
    else:
        assert info.value.line is not None  # type: ignore[attr-defined]


def test_flow_mapping_frontmatter_is_refused_cleanly() -> None:
    text = "---\n{schema_id: session, schema_version: 1, status: done}\n---\n\n## Next steps\n"
    with pytest.raises(FormatError) as info:
        migrate_document(parse(text))
    assert info.value.line == 2


def test_unknown_target() -> None:
    with pytest.raises(UnsupportedFormatError):
        migrate_document(parse("---\n---\n"), to="basic-memory")
