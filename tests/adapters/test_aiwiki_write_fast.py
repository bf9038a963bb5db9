"""The aiwiki writer's ``yaml_text`` follows its quoting rule.

``yaml_text`` double-quotes a string holding a character YAML cannot hold
plain or single-quoted (one outside YAML's printable set, a tab or line
break, the BOM) or a character of Unicode category Zl or Zp (found with a
two-character class).  The tests state the rule here and hold ``yaml_text``
to it: every code point, and generated texts the strict loader reads back.
"""

from __future__ import annotations

import sys
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
