"""The document layer's shortcuts give what its line walks give.

:func:`scan_headings` finds the headings of a body in which no line starts
with a blank, a backtick, a tilde or ``<`` by searching for lines starting
with ``#``; :class:`Document` finds the closing frontmatter fence by
searching for ``"\\n---"``.  These tests compare both with the walk over
every line, on lines full of what matters to them.
"""

from __future__ import annotations

from hypothesis import example, given
from hypothesis import strategies as st

from sessionkit import document as D

from .strategies import lines

_LINES = [
    "",
    "# a",
    "## Files touched",
    "##",
    "### x ###",
    "#######",
    "#no",
    "####### seven",
    "## a #",
    "## \\#",
    " ## indented",
    "    ## code",
    "\t## tab",
    "```",
    "~~~",
    "<div>",
    "<!-- x",
    "-->",
    "text",
    "---",
    "--- ",
    "---x",
    "----",
    "\x0c## feed",
    "## crlf\r",
    "\r",
    "- item",
]
_line = st.one_of(st.sampled_from(_LINES), lines(10))


@st.composite
def _texts(draw: st.DrawFn) -> str:
    parts = draw(st.lists(_line, max_size=14))
    return "\n".join(parts) + draw(st.sampled_from(["", "\n"]))


@given(_texts(), st.data())
@example("## a\n\n# b\n#c\n", None)
@example("#", None)
@example("text\n## a\r\n", None)
@example("```\n## in code\n", None)
@example("## a\n <b>\n## c\n", None)
def test_plain_headings_are_the_walked_ones(text: str, data: st.DataObject | None) -> None:
    all_lines = D.split_lines(text)
    start = 0 if data is None else data.draw(st.integers(0, len(all_lines)))
    stop = len(all_lines) if data is None else data.draw(st.integers(start, len(all_lines)))
    general = D._scan_headings(all_lines, start, stop)
    plain = D._plain_headings(all_lines, start, stop)
    assert plain is None or plain == general
    assert D.scan_headings(all_lines, start, stop) == general


def test_plain_headings_take_the_writers_pages() -> None:
    text = "---\na: 1\n---\n\n## Checkpoints\n\n### x at 2024\n\ntext\n- `a.py`\n## Next steps\n"
    all_lines = D.split_lines(text)
    assert D._plain_headings(all_lines, 3, len(all_lines)) == [
        D.Heading(2, "Checkpoints", 4),
        D.Heading(3, "x at 2024", 6),
        D.Heading(2, "Next steps", 10),
    ]


def _walked_fence(all_lines: list[str]) -> int | None:
    for i in range(1, len(all_lines)):
        if D._FENCE_LINE.match(all_lines[i]):
            return i
    return None


@given(_texts())
@example("---\na\n---\n")
@example("---\n---x\n--- \t\r\nb")
@example("---\n----\n")
@example("---")
@example("\n---")
def test_closing_fence_is_the_walked_one(text: str) -> None:
    all_lines = D.split_lines(text)
    assert D._closing_fence(all_lines, text) == _walked_fence(all_lines)


@given(_texts().map(lambda t: "---\n" + t))
@example("\ufeff---\na: 1\n---\nbody")
def test_documents_find_the_walked_fence(text: str) -> None:
    doc = D.parse(text)
    close = _walked_fence(doc.lines) if doc.lines and D._FENCE_LINE.match(doc.lines[0]) else None
    assert doc.fm_close == close
    assert (doc.problem is not None) == (bool(doc.lines) and close is None)
