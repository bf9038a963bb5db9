"""The aiwiki writer quotes a frontmatter string by YAML's rule, and every value reads back.

A string is double-quoted when it holds a character YAML cannot hold plain or
single-quoted (one outside YAML's printable set, a tab or line break, the BOM)
or a character of Unicode category Zl or Zp.  The tests state the rule here
and hold the public writer (``AIWIKI_V2.write``) to it through a page's
``focus:`` line and an extra key: every code point, and generated values that
the strict reader (``sessionkit.document``) and PyYAML read back.
"""

from __future__ import annotations

import sys
import unicodedata

import yaml
from hypothesis import example, given, settings
from hypothesis import strategies as st

from sessionkit.adapters.aiwiki import AIWIKI_V2
from sessionkit.document import parse
from sessionkit.model import Session


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


def _key_line(value: object, key: str = "k") -> str:
    """The frontmatter line the writer gives ``key`` (an extra key) holding ``value``."""
    text = AIWIKI_V2.write(Session(started="2026-01-01", extra={key: value})).text
    (line,) = [ln for ln in text.split("\n") if ln.startswith(f"{key}:")]
    return line[len(key) + 1 :].strip()


def _double_quoted(text: str) -> bool:
    return _key_line(text).startswith('"')


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
def test_strings_are_quoted_by_the_rule_and_read_back(text: str) -> None:
    doc = AIWIKI_V2.write(Session(started="2026-01-01", extra={"k": text}))
    line = _key_line(text)
    assert line.startswith('"') == any(map(_needs_double_quotes, text))
    assert parse(doc.text).meta["k"] == text
    if not any("\ud800" <= ch <= "\udfff" for ch in text):  # PyYAML agrees
        assert yaml.load(f"k: {line}\n", Loader=yaml.CSafeLoader)["k"] == text


@settings(max_examples=300, deadline=None)
@given(
    st.text(st.characters(exclude_categories=("Cs",)))
    | st.integers()
    | st.booleans()
    | st.none()
    | st.lists(st.text(st.characters(exclude_categories=("Cs",)), max_size=5), max_size=3)
)
def test_frontmatter_values_read_back(value: object) -> None:
    line = _key_line(value)
    assert "\n" not in line and "\r" not in line
    doc = AIWIKI_V2.write(Session(started="2026-01-01", extra={"k": value}))
    assert parse(doc.text).meta["k"] == value
