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
