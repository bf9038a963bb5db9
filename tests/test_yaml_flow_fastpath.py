"""Frontmatter with one-line flow lists loads as the full strict loader loads it.

:func:`sessionkit._yaml.load_mapping` writes one-line flow lists of plain
items (``bm_tags: [session, auto-capture]``, as aiwiki's writer spells lists)
as block lists and hands them to the flat fast reader.  These tests generate
frontmatter from lines and list items full of characters that matter to YAML
and compare the result (values and their types, or the error) with the full
loader's.
"""

from __future__ import annotations

from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from sessionkit import _yaml
from sessionkit.errors import SessionKitError
from sessionkit.fastpaths import general_paths

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


def _outcome(load: Any, text: str) -> str:
    try:
        return repr(load(text))  # repr tells 1, 1.0 and True apart
    except SessionKitError:
        return "error"


def _full(text: str) -> dict[str, Any]:
    value = _yaml.load_value(text)
    if value is None:
        return {}
    if not isinstance(value, dict) or not all(isinstance(k, str) for k in value):
        raise _yaml.ParseError("not a mapping")
    return value


@settings(max_examples=600, deadline=None)
@given(st.lists(_lines(), min_size=1, max_size=6))
@example(["tags: [a, b]", "- c"])
@example(["tags: [a, b]", "  - c"])
@example(["tags: [a b, c]", "x: [1, ~]"])
def test_flow_lists_load_as_the_full_loader_loads_them(lines: list[str]) -> None:
    text = "\n".join(lines) + "\n"
    assert _outcome(_yaml.load_mapping, text) == _outcome(_full, text)


def test_aiwiki_writer_lists_take_the_fast_path() -> None:
    text = "status: done\nbm_tags: [session, auto-capture]\nfocus: x\n"
    block = _yaml._flow_as_block(text)
    assert block == "status: done\nbm_tags:\n- session\n- auto-capture\nfocus: x\n"
    assert _yaml.load_mapping(text) == {
        "status": "done",
        "bm_tags": ["session", "auto-capture"],
        "focus": "x",
    }


def test_a_list_item_after_a_flow_list_is_not_joined_to_it() -> None:
    assert _yaml._flow_as_block("tags: [a]\n- b\n") is None


@settings(max_examples=300, deadline=None)
@given(st.lists(_lines(), min_size=1, max_size=6))
@example(["tags: [a, b]", "x: y"])
@example(["x: a: [b]"])
@example(["x: fix [b]"])
def test_flow_lists_read_the_same_with_the_fast_lanes_off(lines: list[str]) -> None:
    text = "\n".join(lines) + "\n"
    fast = _outcome(_yaml.load_mapping, text)
    with general_paths():
        assert _outcome(_yaml.load_mapping, text) == fast
