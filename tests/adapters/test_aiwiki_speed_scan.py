"""The aiwiki reader's shortcuts give what its line-by-line readers give.

:func:`scan_items`, :func:`_scan_entry`, the leading bullets of a directive
and :func:`parse_citation` each try a shortcut for the shape the writer
spells (one-line bullets, entries without fences, backticked citations whose
path has no ``:`` or ``@``) and fall back to the general reader for anything
else.  These tests build sections, entries and bullet texts from lines full
of what matters to the reader (bullets of every kind, fences, indented and
lazy lines, rules, headings, directive headers, the placeholder, ``\\r``) and
compare each shortcut with the general reader.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from sessionkit.adapters import _aiwiki_parse as P
from sessionkit.document import parse

from ..strategies import citations, lines

_LINES = [
    "",
    " ",
    "- a",
    "- `b.py` note",
    "-  two spaces",
    "-\tx",
    "-",
    "- ",
    "* star",
    "+ plus",
    " - one space",
    "   - three",
    "  indented",
    "\tcontinued",
    "lazy text",
    "(filled by /wrap)",
    "  (filled by /wrap)  ",
    "---",
    "## Heading",
    "### PreCompact at 2024-01-01T10:54:00Z",
    "**Dream directive (consumed at 2024-01-01T12:00:00Z):**",
    "**Dream directive (unconsumed):**",
    "**bold text**",
    "- Status: done",
    "- Status: open\r",
    "- ```",
    "- ~~~ x",
    "```",
    "```py",
    "~~~",
    "  ```",
    "- `` ` ``",
    "a\r",
    "\r",
    "- x\r",
]

_line = st.one_of(st.sampled_from(_LINES), lines(12))


@st.composite
def _blocks(draw: st.DrawFn) -> list[str]:
    """Lines as :attr:`Document.lines` holds them: each ends with ``\\n`` but maybe the last."""
    texts = draw(st.lists(_line, max_size=12))
    out = [t + "\n" for t in texts]
    if out and draw(st.booleans()):
        out[-1] = out[-1][:-1]
        if not out[-1]:
            out.pop()
    return out


def _plain_blocks() -> st.SearchStrategy[list[str]]:
    """Lines in the writer's shape (the shortcut's own), with a few odd ones mixed in."""
    plain = st.sampled_from(["", "- a", "- `b.py:3@abc1234` note", "- x y z", "(filled by /wrap)"])
    return st.lists(st.one_of(plain, plain, plain, _line), max_size=12).map(
        lambda texts: [t + "\n" for t in texts]
    )


@given(st.one_of(_blocks(), _plain_blocks()), st.data())
@example(["- a\n", "\n", "- b\n"], None)
@example(["(filled by /wrap)\n", "- a\n"], None)
@example(["- a\n", "(filled by /wrap)\n"], None)
@example(["- ```\n", "- a\n"], None)
@example(["- a"], None)
def test_plain_items_are_the_scanned_items(block: list[str], data: st.DataObject | None) -> None:
    start = 0 if data is None else data.draw(st.integers(0, len(block)))
    end = len(block) if data is None else data.draw(st.integers(start, len(block)))
    general = P._scan_items(block, start, end)
    plain = P._plain_items(block, start, end)
    assert plain is None or plain == general
    assert P.scan_items(block, start, end) == general


def test_plain_items_take_the_writers_sections() -> None:
    block = ["\n", "- `a.py:1-2@abcdef0` note\n", "- b\n", "\n"]
    assert P._plain_items(block, 0, 4) == (
        [P.ItemSpan("`a.py:1-2@abcdef0` note", 1, 2), P.ItemSpan("b", 2, 3)],
        None,
        [],
    )
    assert P._plain_items(["\n", "(filled by /wrap)\n", "\n"], 0, 3) == ([], 1, [])


@given(st.one_of(_blocks(), _plain_blocks()), st.integers(0, 12))
@example(["- a\n", "- b\n", "\n", "---\n"], 0)
@example(["- a\n", "---\n"], 0)
@example(["- a\n", "lazy\n"], 0)
@example(["- a\n", "\n", "  indented\n"], 0)
@example(["- a\n", "\n", "* b\n"], 0)
@example(["- a\n", "**Dream directive (unconsumed):**\n"], 0)
@example(["- a\n", "  ## not a block here\n"], 0)
def test_leading_plain_items_are_the_scanned_ones(block: list[str], j: int) -> None:
    if j >= len(block) or not P._BULLET.match(P._strip(block[j])):
        return
    general = P._leading_scanned_items(block, j, len(block))
    plain = P._leading_plain_items(block, j, len(block))
    assert plain is None or plain == general
    assert P._leading_items(block, j, len(block)) == general


@st.composite
def _entries(draw: st.DrawFn) -> list[str]:
    """A checkpoint heading, then lines: directive blocks in the writer's shape or any."""
    out = ["### PreCompact at 2024-01-01T10:54:00Z\n"]
    for _ in range(draw(st.integers(0, 4))):
        if draw(st.booleans()):
            header = draw(st.sampled_from([_LINES[20], _LINES[21]]))
            bullets = draw(
                st.lists(st.sampled_from(["- a", "- Status: done", "- b c"]), max_size=3)
            )
            gap = draw(st.sampled_from([[], [""], ["", ""]]))
            out.extend(x + "\n" for x in [header, *gap, *bullets, ""])
        else:
            out.extend(draw(_blocks()))
            if out[-1] and not out[-1].endswith("\n"):
                out[-1] += "\n"
    if draw(st.booleans()):
        out.extend(["---\n", "\n"])
    return out


@given(_entries())
@example(["### x at 2024-01-01T10:00Z\n", "**Dream directive (unconsumed):**\n", "- a\n"])
@example(["### x at 2024-01-01T10:00Z\n", "text\n", "**bold**\n", "more\n", "---\n"])
@example(
    [
        "### x at 2024-01-01T10:00Z\n",
        "**Dream directive (unconsumed):**\n",
        "- a\n",
        "**Dream directive (unconsumed):**\n",
    ]
)
@example(["### x at 2024-01-01T10:00Z\n", "\n", "body"])
@example(["### x at 2024-01-01T10:00Z\n", "- a\n", "**Dream directive (unconsumed):**"])
def test_plain_entries_are_the_walked_ones(entry: list[str]) -> None:
    general = P._scan_entry_lines(entry, 0, len(entry))
    plain = P._plain_entry(entry, 0, len(entry))
    assert plain is None or plain == general
    assert P._scan_entry(entry, 0, len(entry)) == general


def test_the_writers_entry_takes_the_shortcut() -> None:
    entry = [
        "### PreCompact at 2024-01-01T10:54:00Z\n",
        "\n",
        "Active work: feature/commit\n",
        "\n",
        "**Dream directive (consumed at 2024-01-01T12:00:00Z):**\n",
        "\n",
        "- Scope: `aiwiki/raw/`\n",
        "- Status: done\n",
        "\n",
        "---\n",
        "\n",
    ]
    plain = P._plain_entry(entry, 0, len(entry))
    assert plain is not None
    assert plain == P._scan_entry_lines(entry, 0, len(entry))
    assert plain[0] == "Active work: feature/commit"
    assert plain[2][0].items == ("Scope: `aiwiki/raw/`",)
    assert plain[2][0].status == "done"


_CITATION_PIECES = [*"`ab./:-@ 0123456789fF\n\t", "abc1234", "x.py", "@", ":12-3", "``"]


@given(
    st.one_of(
        citations().map(lambda c: c.render()),
        st.lists(st.sampled_from(_CITATION_PIECES), max_size=10).map("".join),
        st.lists(st.sampled_from(_CITATION_PIECES), max_size=8).map(lambda p: "`" + "".join(p)),
    )
)
@example("`a.py` ")
@example("`a.py`\n")
@example("`a.py`  two")
@example("`a.py:0-0@abcd` n")
@example("`a.py:01` n")
@example("`a.py@abc` n")
@example("`a b.py` n")
@example("`a.py` line\nnext")
@example("`a.py:3@abcdef0`")
def test_quick_citations_are_the_general_ones(text: str) -> None:
    quick = P.parse_citation(text)
    saved = P._QUICK_CITATION
    P._QUICK_CITATION = re.compile(r"(?!)")  # never matches: the general way only
    try:
        general = P.parse_citation(text)
    finally:
        P._QUICK_CITATION = saved
    assert quick == general


@pytest.mark.parametrize(
    "text",
    [
        "---\nschema_id: session\n---\n\n## Files touched\n\n- `a.py:1@abcdef0` x\n",
        "---\nschema_id: session\n---\n\n## Checkpoints\n\n### x at 2024-01-01T10:00Z\n\n"
        "**Dream directive (unconsumed):**\n\n- a\n- Status: done\n\n---\n",
    ],
)
def test_read_page_reads_the_writers_pages(text: str) -> None:
    session, _ = P.read_page(parse(text))
    assert session.files_touched or session.checkpoints
