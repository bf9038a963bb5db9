"""CRLF pages, and pages mixing CRLF and LF lines, are linted like their LF twins: the
same findings on the same lines."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from sessionkit import lint

ROOT = Path(__file__).resolve().parent
PAGES = sorted(
    [
        *ROOT.glob("corpus/**/*.md"),
        *ROOT.glob("golden/**/*.md"),
        *(ROOT.parent / "examples").glob("**/*.md"),
    ]
)
PATH = "aiwiki/sessions/2026-05-01-abcdef0.md"


def _read(path: Path) -> str:
    with open(path, encoding="utf-8", newline="") as f:
        return f.read()


def test_there_are_pages() -> None:
    assert len(PAGES) > 20


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT.parent)))
def test_a_crlf_page_lints_as_its_lf_twin(page: Path) -> None:
    lf = _read(page).replace("\r\n", "\n")
    crlf = lf.replace("\n", "\r\n")
    path = f"aiwiki/sessions/{page.name}" if "/aiwiki/sessions/" in str(page) else PATH
    found = lint(crlf, path)
    assert [(d.code, d.line) for d in found] == [(d.code, d.line) for d in lint(lf, path)]


@settings(max_examples=60, deadline=None)
@given(
    page=st.sampled_from(PAGES),
    ends=st.lists(st.sampled_from(["\n", "\r\n"]), min_size=1),
)
@example(page=ROOT / "corpus" / "convert" / "2026-07-07-f1e2d3c.md", ends=["\n"] * 14 + ["\r\n"])
def test_mixed_line_ends_lint_as_the_lf_twin(page: Path, ends: list[str]) -> None:
    """Some lines CRLF, some LF: the same findings on the same lines as the LF page."""
    lines = _read(page).replace("\r\n", "\n").split("\n")
    text = "".join(line + ends[i % len(ends)] for i, line in enumerate(lines))
    lf = "".join(line + "\n" for line in lines)
    found = [(d.code, d.line) for d in lint(text, PATH)]
    assert found == [(d.code, d.line) for d in lint(lf, PATH)]
