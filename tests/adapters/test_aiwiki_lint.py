"""Lint of aiwiki pages: one golden bad page per code, the corpus, and totality."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sessionkit as api
from sessionkit.adapters.aiwiki import AIWIKI_V1, AIWIKI_V2
from sessionkit.diagnostics import Severity
from sessionkit.document import parse

from ._aiwiki_helpers import CORPUS_V1, CORPUS_V2, page_path, read_text

GOLDEN = Path(__file__).resolve().parent.parent / "golden" / "lint"
CODES = [f"AW{n:03d}" for n in range(1, 20)]


def _golden(code: str) -> tuple[Path, Path]:
    (page,) = sorted((GOLDEN / code).glob("*.md"))
    return page, page.with_suffix(".json")


def test_every_code_has_a_golden_page() -> None:
    assert sorted(p.name for p in GOLDEN.iterdir() if p.is_dir()) == CODES


@pytest.mark.parametrize("code", CODES)
def test_golden_page(code: str) -> None:
    page, expected_file = _golden(code)
    path = page_path(page)
    found = api.lint(read_text(page), path)
    got = [{**d.to_dict(), "fixable": d.fixable} for d in found]
    expected = json.loads(expected_file.read_text("utf-8"))
    assert got == expected
    assert code in {d["code"] for d in expected}


SEVERITY = {
    "AW006": Severity.WARNING,
    "AW010": Severity.INFO,
    "AW012": Severity.WARNING,
    "AW016": Severity.WARNING,
    "AW017": Severity.WARNING,
    "AW018": Severity.INFO,
    "AW019": Severity.WARNING,
}


@pytest.mark.parametrize("code", CODES)
def test_severities_follow_the_issue(code: str) -> None:
    page, _ = _golden(code)
    found = [d for d in api.lint(read_text(page), page_path(page)) if d.code == code]
    assert found and {d.severity for d in found} == {SEVERITY.get(code, Severity.ERROR)}
    assert all(d.path == page_path(page) for d in found)
    assert all(d.fixable == (code == "AW012") for d in found)


@pytest.mark.parametrize("path", CORPUS_V2, ids=lambda p: p.name)
def test_corpus_v2_lints_without_crashing(path: Path) -> None:
    found = AIWIKI_V2.lint(parse(read_text(path), page_path(path)))
    assert all(d.code.startswith("AW") and d.path == page_path(path) for d in found)
    assert "AW001" not in {d.code for d in found}


@pytest.mark.parametrize("path", CORPUS_V1, ids=lambda p: p.name)
def test_v1_pages_use_v1_rules(path: Path) -> None:
    doc = parse(read_text(path), page_path(path))
    for adapter in (AIWIKI_V1, AIWIKI_V2):
        found = adapter.lint(doc)
        codes = [d.code for d in found]
        assert codes.count("AW018") == 1
        # v1 has no session_id, so its absence is never reported
        assert not any("session_id" in d.message for d in found)
        assert [d for d in found if d.severity is Severity.ERROR] == []


def test_v1_cap_is_200_lines() -> None:
    head = (
        "---\nschema_id: session\nschema_version: 1\nstatus: active\n"
        "date_start: 2026-01-01\nfocus: long\n---\n\n## Next steps\n\n"
    )
    text = head + "".join(f"- s{i}\n" for i in range(195))
    codes = [d.code for d in AIWIKI_V1.lint(parse(text))]
    assert "AW009" in codes
    v2 = text.replace("schema_version: 1", "schema_version: 2")
    assert "AW009" not in [d.code for d in AIWIKI_V2.lint(parse(v2))]


def test_checkpoints_in_a_v1_page_are_not_a_v1_section() -> None:
    text = (
        "---\nschema_id: session\nschema_version: 1\nstatus: active\n"
        "date_start: 2026-01-01\nfocus: x\n---\n\n## Checkpoints\n\n"
        "### PreCompact at 2026-01-01T00:00:00Z\n\n---\n"
    )
    codes = [d.code for d in AIWIKI_V1.lint(parse(text))]
    assert codes == ["AW018", "AW006"]


def test_page_without_schema_version_is_reported_not_guessed() -> None:
    text = (
        "---\nschema_id: session\nstatus: active\ndate_start: 2026-01-01\nfocus: x\n---\n"
        "\n## Next steps\n\n- a\n"
    )
    found = api.lint(text)
    assert [(d.code, d.message) for d in found] == [
        ("AW002", "required key 'schema_version' is missing")
    ]


def test_filename_without_session_id_checks_only_the_date() -> None:
    text = (
        "---\nschema_id: session\nschema_version: 2\nstatus: active\n"
        "date_start: 2026-01-01\nfocus: x\nsession_id: ~\n---\n\n## Next steps\n\n- a\n"
    )
    assert AIWIKI_V2.lint(parse(text, "aiwiki/sessions/2026-01-01-0000000.md")) == []
    found = AIWIKI_V2.lint(parse(text, "aiwiki/sessions/2026-01-02-0000000.md"))
    assert [d.code for d in found] == ["AW013"]
    assert AIWIKI_V2.lint(parse(text)) == []  # no path, no filename check


@pytest.mark.parametrize(
    "folder", ["aiwiki/sessions/", "aiwiki\\sessions\\", "C:\\wiki\\aiwiki/sessions\\", ""]
)
def test_filename_is_the_name_after_either_separator(folder: str) -> None:
    """The file-name rule reads the name after the last ``/`` or ``\\`` (a Windows
    path)."""
    text = (
        "---\nschema_id: session\nschema_version: 2\nstatus: active\n"
        "date_start: 2026-01-01\nfocus: x\nsession_id: abcdef0123\n---\n\n## Next steps\n\n- a\n"
    )
    assert api.lint(text, folder + "2026-01-01-abcdef0.md") == []
    found = api.lint(text, folder + "2026-01-01-abcdef1.md")
    assert [d.code for d in found] == ["AW013"]
    assert "2026-01-01-abcdef1.md" in found[0].message
    assert "sessions" not in found[0].message


def test_done_without_date_end() -> None:
    text = (
        "---\nschema_id: session\nschema_version: 2\nstatus: done\n"
        "date_start: 2026-01-01\nfocus: x\n---\n\n## Next steps\n\n- a\n"
    )
    assert [(d.code, d.line) for d in AIWIKI_V2.lint(parse(text))] == [("AW019", 4)]


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_lint_never_raises(text: str) -> None:
    for adapter in (AIWIKI_V2, AIWIKI_V1):
        found = adapter.lint(parse(text, "aiwiki/sessions/x.md"))
        assert all(d.line is None or d.line >= 1 for d in found)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                "---",
                "schema_id: session",
                "schema_version: 2",
                "schema_version: 1",
                "status: done",
                "date_start: 2026-01-01",
                "date_end: 2025-01-01",
                "## Checkpoints",
                "### PreCompact at 2026-01-01T00:00:00Z",
                "### bad",
                "**Dream directive (unconsumed):**",
                "- Status: consumed",
                "## Files touched",
                "- `a.py`",
                "- prose",
                "```",
                "## Next steps",
                "",
                "\r",
            ]
        ),
        max_size=30,
    ).map("\n".join)
)
def test_lint_never_raises_on_near_pages(text: str) -> None:
    found = AIWIKI_V2.lint(parse(text, "aiwiki/sessions/x.md"))
    assert all(d.code.startswith("AW") for d in found)
