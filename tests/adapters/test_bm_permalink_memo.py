"""The memoised permalink and file name functions give what the plain ones give.

:func:`generate_permalink` and :func:`filename_for_title` are pure functions of
their strings; conversion asks for the same note's permalink when it writes
the note and again when it reads it back, so both are memoised.  These tests
call them repeatedly (cold and warm) and compare with the functions the memo
wraps, including the empty project, which means "no project".
"""

from __future__ import annotations

import re
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sessionkit.adapters import _bm_permalink as P

_TEXT = st.text(st.sampled_from(list("aZ09 -_./\\:<>|?*\"'()é漢　Ａ")), max_size=24)


@settings(max_examples=200, deadline=None)
@given(_TEXT, st.one_of(st.none(), _TEXT))
def test_memoised_permalink_equals_the_plain_one(path: str, project: str | None) -> None:
    plain = P._permalink.__wrapped__(path, project or None)
    for _ in range(2):  # a miss, then a hit
        assert P.generate_permalink(path, project) == plain
        assert P.generate_permalink(path + ".md", project) == P._permalink.__wrapped__(
            path + ".md", project or None
        )


def test_empty_project_is_no_project() -> None:
    assert P.generate_permalink("sessions/A B.md", "") == P.generate_permalink("sessions/A B.md")
    assert P.generate_permalink("sessions/A B.md", "demo") == "demo/sessions/a-b"


@settings(max_examples=200, deadline=None)
@given(_TEXT)
def test_memoised_file_name_equals_the_plain_one(title: str) -> None:
    for _ in range(2):
        assert P.filename_for_title(title) == P._filename_for_title.__wrapped__(title)


# -- the slug's shortcuts ------------------------------------------------------
#
# ``_slug`` asks a regular expression whether a text has CJK characters, uses
# precompiled patterns, and ``_fallback_ascii`` transliterates only the
# non-ASCII characters (each on its own, memoised).  The references below are
# the character-by-character forms they replace.


def _reference_ascii(text: str) -> str:
    out: list[str] = []
    for ch in text:
        if ch.isascii():
            out.append(ch)
        elif ch in P._EXTRA_ASCII:
            out.append(P._EXTRA_ASCII[ch])
        else:
            out.append("".join(c for c in unicodedata.normalize("NFKD", ch) if c.isascii()))
    return "".join(out)


def _reference_slug(base: str) -> str:
    to_ascii = _reference_ascii if P._to_ascii is P._fallback_ascii else P._to_ascii
    if any(P._is_cjk(ch) for ch in base):
        kept = [
            ch if P._is_cjk(ch) else to_ascii(ch) for ch in base if not "\uff00" <= ch <= "\uffef"
        ]
        text = "".join(kept)
        text = re.sub(rf"([{P._CJK}])([a-zA-Z0-9])", r"\1-\2", text)
        text = re.sub(rf"([a-zA-Z0-9])([{P._CJK}])", r"\1-\2", text)
        text = re.sub(r"([a-z0-9])([A-Z])", r"\1-\2", text)
        text = "".join(c.lower() if c.isascii() and c.isalpha() else c for c in text)
        text = text.replace("_", "-").replace("'", "")
        text = re.sub(rf"[^a-z0-9{P._CJK}/\-.]", "-", text)
    else:
        text = to_ascii(base)
        text = re.sub(r"([a-z0-9])([A-Z])", r"\1-\2", text)
        text = text.lower().replace("_", "-").replace("'", "")
        text = re.sub(r"[^a-z0-9/\-.]", "-", text)
    text = re.sub(r"-+", "-", text)
    return "/".join(segment.strip("-") for segment in text.split("/"))


_SLUG_EDGES = [
    "",
    "sessions/Session 2024-01-01 02-57-50 \u2014 fsync citation",
    "docs/My Feature",
    "CamelCase_and_snake's",
    "\u00c6sir \u00df \u0142\u00f3d\u017a \u2026 \u201cquoted\u201d \u2013 dash",
    "\u6f22\u5b57abc\u3000\uff21\uff22 x",  # CJK, an ideographic space, full-width letters
    "\u3400\u4dbf\u4e00\u9fff\u3000\u303f\uff00\uffef",  # the ends of every CJK range
    "\u4dc0\u3040\u2fff\uffff\U0001f600 emoji",  # just outside them
    "a\u0301 e\u0308 \ufb01 \u2460",  # combining marks, a ligature, a circled digit
    "--a//b--/-c-",
]


@pytest.mark.parametrize("base", _SLUG_EDGES)
def test_slug_edge_cases(base: str) -> None:
    assert P._fallback_ascii(base) == _reference_ascii(base)
    assert P._slug(base) == _reference_slug(base)


_WIDE = st.text(
    st.one_of(
        st.sampled_from(list("aZ09 -_./\\:'()")),
        st.characters(min_codepoint=0x80, max_codepoint=0x2FFF),
        st.characters(min_codepoint=0x3000, max_codepoint=0x4E10),
        st.characters(min_codepoint=0x9FF0, max_codepoint=0xFFFD),
        st.characters(codec="utf-8"),
    ),
    max_size=30,
)


@settings(max_examples=400, deadline=None)
@given(_WIDE)
def test_slug_equals_the_reference(base: str) -> None:
    assert P._fallback_ascii(base) == _reference_ascii(base)
    assert P._slug(base) == _reference_slug(base)


@settings(max_examples=100, deadline=None)
@given(_WIDE)
def test_project_prefix_memo(project: str) -> None:
    for _ in range(2):
        assert P._project_slug(project) == P.normalize_project_name(project)
