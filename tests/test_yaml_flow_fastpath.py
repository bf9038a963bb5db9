"""Frontmatter with one-line flow lists loads as the full strict loader loads it.

The frontmatter reader writes one-line flow lists of plain items
(``bm_tags: [session, auto-capture]``, as aiwiki's writer spells lists) as
block lists and hands them to its flat-mapping branch.  These tests generate
frontmatter from lines and list items full of characters that matter to YAML
and compare what :attr:`Document.meta <sessionkit.Document.meta>` gives
(values and their types, or the error) with what it gives under a comment line
(which only the full loader reads).
"""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

import sessionkit
from sessionkit.errors import SessionKitError

_ITEM_CHARS = [*"ab1 0.-_?!&*|>%@`,[]{}'\"#:~\t", "yes", "true", "~", "null", "1.5", "-2"]
_items = st.one_of(
    st.sampled_from(["a", "b c", "x-1", "true", "2"]),
    st.lists(st.sampled_from(_ITEM_CHARS), min_size=0, max_size=4).map("".join),
)
_keys = st.sampled_from(["tags", "bm_tags", "a", "true", "x-y", "1k", "tags"])


@st.composite
def _lines(draw: st.DrawFn) -> str:
    kind = draw(st.integers(0, 5))
    key = draw(_keys)
    if kind == 0:
        sep = draw(st.sampled_from([", ", ", ", ",", " , ", ",  "]))
        items = draw(st.lists(_items, max_size=4))
        return f"{key}: [{sep.join(items)}]"
    if kind == 1:
        return f"{key}: {draw(_items)}"
    if kind == 2:
        return f"{draw(st.sampled_from(['', '  ', ' ']))}- {draw(_items)}"
    if kind == 3:
        return f"{key}:"
    if kind == 4:
        return ""
    return f"{key}: [{draw(_items)}]{draw(st.sampled_from(['', ' ', ' # c', ']']))}"


def _line(outcome: str) -> int:
    """The line an error outcome names (0: none, or a value)."""
    head, _, line = outcome.rpartition(" line ")
    return int(line) if head.startswith("error") and line.isdigit() and int(line) > 2 else 0


def _outcome(text: str) -> str:
    try:
        value = sessionkit.parse("---\n" + text + "---\n").meta
    except SessionKitError as exc:
        return f"error {exc.message} line {exc.line}"
    return repr(value)  # repr tells 1, 1.0 and True apart


@settings(max_examples=600, deadline=None)
@given(st.lists(_lines(), min_size=1, max_size=6))
@example(["tags: [a, b]", "- c"])
@example(["tags: [a, b]", "  - c"])
@example(["tags: [a b, c]", "x: [1, ~]"])
@example(["tags: [a, b]", "x: y"])
@example(["x: a: [b]"])
@example(["x: fix [b]"])
@example(["tags: [a]", "- b"])  # a list item after a flow list is not joined to it
def test_flow_lists_load_as_the_full_loader_loads_them(lines: list[str]) -> None:
    text = "\n".join(lines) + "\n"
    general = _outcome("# the full loader\n" + text)
    assert _outcome(text) == general.replace(f"line {_line(general)}", f"line {_line(general) - 1}")


def test_aiwiki_writer_lists_take_the_fast_path() -> None:
    text = "status: done\nbm_tags: [session, auto-capture]\nfocus: x\n"
    assert sessionkit.parse("---\n" + text + "---\n").meta == {
        "status": "done",
        "bm_tags": ["session", "auto-capture"],
        "focus": "x",
    }
