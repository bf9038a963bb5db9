"""The aiwiki writer's ``yaml_text`` follows its rule through its shortcuts.

``yaml_text`` double-quotes a string holding a character YAML cannot hold
plain or single-quoted (one outside YAML's printable set, a tab or line
break, the BOM) or a character of Unicode category Zl or Zp; it finds the
latter with a two-character class instead of asking for the category of
every character, and it remembers the text of plain strings (a bounded
memo).  The tests state the rule here and hold ``yaml_text`` to it: every
code point, generated texts (which the strict loader reads back), texts
asked for again, and the memory the memo keeps.
"""

from __future__ import annotations

import gc
import sys
import tracemalloc
import unicodedata

from hypothesis import example, given
from hypothesis import strategies as st

from sessionkit._yaml import load_mapping, scalar
from sessionkit.adapters._aiwiki_write import yaml_text


def _needs_double_quotes(ch: str) -> bool:
    """Whether YAML can hold ``ch`` only double-quoted (escaped): outside the printable
    characters a plain or single-quoted scalar may hold on one line, the BOM, or a
    line or paragraph separator (the categories Zl and Zp)."""
    code = ord(ch)
    printable = (
        0x20 <= code <= 0x7E
        or 0xA0 <= code <= 0xD7FF
        or 0xE000 <= code <= 0xFFFD
        or 0x10000 <= code <= 0x10FFFF
    )
    return not printable or ch == "\ufeff" or unicodedata.category(ch) in ("Zl", "Zp")


def _double_quoted(text: str) -> bool:
    return yaml_text(text).startswith('"')


def test_every_code_point_is_quoted_by_the_rule() -> None:
    # a string is double-quoted when one of its characters needs it: a run of code
    # points none of which needs it is asked for at once, the others one by one
    step = 512
    for start in range(0, sys.maxunicode + 1, step):
        chars = [chr(c) for c in range(start, min(start + step, sys.maxunicode + 1))]
        needs = [_needs_double_quotes(ch) for ch in chars]
        if any(needs):
            for ch, need in zip(chars, needs, strict=True):
                assert _double_quoted("a" + ch) == need, hex(ord(ch))
        else:
            assert not _double_quoted("".join(chars)), hex(start)


@given(st.text())
@example("a\u2028b")
@example("\u2029")
@example("\ufeffx")
def test_yaml_text_quotes_by_the_rule_and_reads_back(text: str) -> None:
    line = yaml_text(text)
    assert line.startswith('"') == any(map(_needs_double_quotes, text))
    if not line.startswith('"'):
        assert line == scalar(text)  # plain or single-quoted, as the strict writer does
    assert load_mapping(f"k: {line}\n")["k"] == text


class _Text(str):
    """A str subclass: ``yaml_text`` writes it the plain way, never from its memo."""


@given(
    st.lists(st.text(max_size=12) | st.sampled_from(["auto", "yes", "0123", "a: b"]), max_size=8)
)
def test_remembered_yaml_texts_are_the_computed_ones(texts: list[str]) -> None:
    alike = [v for t in texts for v in (t, t.upper(), t.lower(), t.strip(), t + " ")]
    for text in alike + alike:  # texts alike but for case or blanks; the second time remembered
        assert yaml_text(text) == yaml_text(_Text(text)), text
    assert yaml_text(texts) == "[" + ", ".join(yaml_text(_Text(t)) for t in texts) + "]"


def test_the_yaml_text_memo_stays_bounded() -> None:
    """40,000 texts asked for once are not all remembered (kept, they would hold
    over 10 MB)."""
    gc.collect()
    tracemalloc.start()
    try:
        start = tracemalloc.get_traced_memory()[0]
        for n in range(40_000):
            yaml_text(f"key {n} " + "x" * 100)
        gc.collect()
        kept = tracemalloc.get_traced_memory()[0] - start
    finally:
        tracemalloc.stop()
    assert kept < 4_000_000, kept
    assert yaml_text("yes") == "'yes'"
