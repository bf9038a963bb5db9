"""The quick scan of flat bodies finds exactly what the full block scan finds.

:func:`sessionkit.adapters._bm_grammar._quick_scan` takes bodies of top-level
headings, plain paragraphs, one-line bullet items and rules in one pass, and
gives ``None`` for anything else.  Each test runs it and the full scanner on
the same lines: where the quick scan answers, its runs are the full scan's;
and ``parse_facts`` (which takes the quick scan when it can) gives what it
gives over the full scan.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sessionkit.adapters import _bm_grammar as g

from .test_bm_fastpath import _ALPHABET, _FRAGMENTS


def _full(lines: list[str], start: int = 0) -> list[g._Run]:
    return g._scan(lines, start, quick=False)


def _facts_full(lines: list[str], start: int = 0) -> g.Facts:
    saved = g._quick_scan
    g._quick_scan = lambda lines, start: None  # type: ignore[assignment]
    try:
        return g.parse_facts(lines, start)
    finally:
        g._quick_scan = saved


def _agree(lines: list[str], start: int = 0) -> bool:
    """Assert both scans agree; whether the quick scan answered."""
    quick = g._quick_scan(lines, start)
    if quick is not None:
        assert quick == _full(lines, start), lines
    assert g._scan(lines, start) == _full(lines, start)
    assert g.parse_facts(lines, start) == _facts_full(lines, start)
    return quick is not None


# Lines the quick scan takes, lines next to which it must be careful, and
# lines it leaves to the full scan.
_FLAT = [
    "## Observations",
    "# Title #tag",
    "###### six",
    "#######  seven is text",
    "#",
    "## ",
    "#tag at the start",
    "- [decision] chose X #arch (why)",
    "- [next_step] Do it (from session)",
    "* [cat] star item",
    "+ plus item [[T]]",
    "- produced [[Batch index lock]]",
    "- relates_to [[A]] (ctx)",
    "- `sessionkit/a.py:1-2@abc1234` \u2014 code first",
    "- #tag first",
    "- 3 files changed",
    "- *emphasis* first",
    "- _under_ first",
    "- +plus first",
    "- ~tilde first",
    "- ``two backticks` first",
    "- [md](docs/a.md) link",
    "- \u00a0nbsp first",
    "plain paragraph line",
    "another line with [[Inline]] #t",
    "**Dream directive (consumed):**",
    "__init__ is a name",
    "*emphasis* line",
    "+plus line",
    "2024 was a year",
    "`code` line",
    "~approx line",
    "[x] task-ish",
    "[cat] observation #t",
    "\u00a0nbsp start",
    "\u3000ideographic space start",
    "\x0cform feed start",
    "caf\u00e9 unicode \u6f22\u5b57",
    "tab\tinside the line",
    "trailing blanks \t ",
    "***",
    "___",
    "* * *",
    "---",
    "- - -",
    "",
    "   ",
    "\t",
    "\u00a0",
]
_OTHER = [
    "===",
    "=x",
    "--",
    "-x",
    "-",
    "- ",
    "-\tx",
    "-  two spaces",
    "- \tx",
    "- - x",
    "- # heading in item",
    "- ```",
    "- 1. nested ordered",
    "- > quote",
    "1. ordered",
    "2) ordered",
    "```",
    "~~~ info",
    "    indented code",
    "  two-space start",
    "\tx",
    "> quote",
    "<div>",
    "<!-- c -->",
]

_lines = st.one_of(
    st.sampled_from(_FLAT),
    st.sampled_from(_FLAT),
    st.sampled_from(_FLAT),
    st.sampled_from(_OTHER),
    st.sampled_from(_FRAGMENTS),
    st.text(alphabet=_ALPHABET, max_size=20),
)


@given(
    st.lists(_lines, max_size=14),
    st.sampled_from(["", "\n", "\r\n", "\r"]),
    st.integers(0, 3),
)
@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_quick_scan_equals_the_full_scan(body: list[str], eol: str, start: int) -> None:
    _agree([line + eol for line in body], start)


@given(st.lists(st.sampled_from(_FLAT), max_size=20), st.sampled_from(["", "\n", "\r\n"]))
@settings(max_examples=800, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_quick_scan_on_flat_bodies(body: list[str], eol: str) -> None:
    _agree([line + eol for line in body])


@pytest.mark.parametrize(
    ("body", "quick"),
    [
        (["para", "- item"], True),  # an item interrupts a paragraph
        (["- item", "lazy"], False),  # a lazy continuation line
        (["- item", "", "para"], True),
        (["para", "---"], False),  # a setext heading
        (["para", "***"], True),  # a rule interrupts
        (["para", "", "---"], True),
        (["- item", "---"], True),
        (["para", "==="], False),
        (["para", "# h", "more"], True),
        (["para", "#tag continues"], True),
        (["para", "2024 continues", "*also*"], True),
        (["para", "2. ordered continues"], False),
        (["- a", "- b", "* c", "+ d"], True),
        (["- item", "  continued"], False),
        (["- item", "    code"], False),
        (["para", "\tcontinued\tline"], False),
        (["```", "- [x] y", "```"], False),
        (["- `code` then", "next"], False),
        (["## H", "", "- [c] a #t", "- [d] b", "", "text [[L]]"], True),
        (["#"], True),
        ([""], True),
        ([], True),
    ],
)
def test_quick_scan_edge_cases(body: list[str], quick: bool) -> None:
    for eol in ("", "\n", "\r\n"):
        assert _agree([line + eol for line in body]) == quick, body


def test_quick_scan_takes_the_usual_note() -> None:
    note = [
        "---",
        "title: T",
        "---",
        "",
        "## Summary",
        "",
        "Session index store batch fsync.",
        "",
        "## Recent thread",
        "",
        "- Fsync checkpoint lint directive",
        "- Writer handoff layout parser",
        "",
        "## Observations",
        "",
        "- [context] Listing reader lock #retry",
        "- [next_step] Layout budget heading (from session)",
        "",
        "## Relations",
        "",
        "- produced [[Batch index lock]]",
        "- relates_to [[Session adapter]]",
    ]
    assert g._quick_scan(note, 4) is not None
    assert _agree(note, 4)


def test_plain_starts_need_no_further_look() -> None:
    assert g._PLAIN_START.isdisjoint(g._QUICK_OTHER)
    assert not g._PLAIN_START & {"=", "+", "-", "*", "_", "#", "<", ">", "`", "~"}
