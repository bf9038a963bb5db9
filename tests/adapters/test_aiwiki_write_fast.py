"""The aiwiki writer's shortcuts give what the plain way gives.

``yaml_text`` double-quotes a string holding a character of Unicode category
Zl or Zp; it finds them with a two-character class instead of asking for the
category of every character.  The test asks for every code point.
"""

from __future__ import annotations

import sys
import unicodedata

from hypothesis import example, given
from hypothesis import strategies as st

from sessionkit import _yaml
from sessionkit.adapters import _aiwiki_write as W


def test_line_separators_are_exactly_categories_zl_and_zp() -> None:
    for code in range(sys.maxunicode + 1):
        ch = chr(code)
        assert (unicodedata.category(ch) in ("Zl", "Zp")) == bool(W._LINE_SEPARATORS.match(ch))


@given(st.text())
@example("a\u2028b")
@example("\u2029")
def test_yaml_text_quotes_as_the_category_check_does(text: str) -> None:
    plain_way = W._YAML_PRINTABLE.search(text) or any(
        unicodedata.category(c) in ("Zl", "Zp") for c in text
    )
    expected = W._double_quoted(text) if plain_way else _yaml.scalar(text)
    assert W.yaml_text(text) == expected


@given(
    st.lists(st.text(max_size=12) | st.sampled_from(["auto", "yes", "0123", "a: b"]), max_size=8)
)
def test_remembered_yaml_texts_are_the_computed_ones(texts: list[str]) -> None:
    for text in texts + texts:  # the second time from the memo
        assert W.yaml_text(text) == W._str_text(text)
    assert W.yaml_text(texts) == "[" + ", ".join(W._str_text(t) for t in texts) + "]"


def test_the_yaml_text_memo_stays_bounded() -> None:
    for n in range(W._STR_TEXTS_LIMIT + 10):
        W.yaml_text(f"key-{n}")
    assert len(W._STR_TEXTS) <= W._STR_TEXTS_LIMIT
    assert W.yaml_text("yes") == "'yes'"
