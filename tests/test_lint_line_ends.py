"""CRLF pages are linted like their LF twins: the same findings, on the same lines,
with the fast paths on and through the general path (``sessionkit._fastpaths``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from sessionkit import lint
from tests.lanes import general_paths

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


def _general(text: str, path: str) -> list[object]:
    with general_paths():
        return list(lint(text, path))


def test_there_are_pages() -> None:
    assert len(PAGES) > 20


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT.parent)))
def test_a_crlf_page_lints_as_the_general_path_and_as_its_lf_twin(page: Path) -> None:
    lf = _read(page).replace("\r\n", "\n")
    crlf = lf.replace("\n", "\r\n")
    path = f"aiwiki/sessions/{page.name}" if "/aiwiki/sessions/" in str(page) else PATH
    found = lint(crlf, path)
    assert found == _general(crlf, path)
    assert [(d.code, d.line) for d in found] == [(d.code, d.line) for d in lint(lf, path)]


@settings(max_examples=60, deadline=None)
@given(
    page=st.sampled_from(PAGES),
    ends=st.lists(st.sampled_from(["\n", "\r\n", "\r", " \r\n", "\r\r\n"]), min_size=1),
)
# a lone CR before a CRLF under the placeholder: the flat lane read the CR as text and the
# placeholder as a paragraph of two lines (AW011), markdown-it reads a blank line
@example(page=ROOT / "corpus" / "convert" / "2026-07-07-f1e2d3c.md", ends=["\n"] * 14 + ["\r\r\n"])
def test_mixed_line_ends_lint_as_the_general_path(page: Path, ends: list[str]) -> None:
    """Some lines CRLF, some LF, a lone CR here and there: fast and general agree."""
    lines = _read(page).replace("\r\n", "\n").split("\n")
    text = "".join(line + ends[i % len(ends)] for i, line in enumerate(lines))
    assert lint(text, PATH) == _general(text, PATH)
