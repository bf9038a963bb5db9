"""Permalinks, project slugs and file names: the remembered, shortcut way gives the plain one.

:func:`generate_permalink` and :func:`normalize_project_name` remember their
answers and take shortcuts in the slug (one pattern finds CJK text, only the
non-ASCII characters are transliterated, each once).  That is the
``permalink`` fast lane: these tests compare it, cold and warm, with the
general path (every character on its own, nothing remembered) through the
public switch :mod:`sessionkit._fastpaths`, and check with ``taken()`` that the
lane answered.  :func:`filename_for_title` is remembered too; it is held to
the rule its documentation states.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sessionkit.adapters.profiles import (
    filename_for_title,
    generate_permalink,
    normalize_project_name,
)
from tests.lanes import general_paths, taken

_TEXT = st.text(st.sampled_from(list("aZ09 -_./\\:<>|?*\"'()é漢　Ａ")), max_size=24)


def _both(path: str, project: str | None) -> str:
    """The permalink with the lanes on (twice: a miss, then a hit) and off: the same."""
    before = taken()["permalink"]
    fast = generate_permalink(path, project)
    assert generate_permalink(path, project) == fast
    assert taken()["permalink"] >= before + 2  # (a project slug met first counts too)
    with general_paths():
        assert generate_permalink(path, project) == fast, (path, project)
    return fast


@settings(max_examples=200, deadline=None)
@given(_TEXT, st.one_of(st.none(), _TEXT))
def test_remembered_permalink_equals_the_general_one(path: str, project: str | None) -> None:
    _both(path, project)
    _both(path + ".md", project)


def test_empty_project_is_no_project() -> None:
    assert generate_permalink("sessions/A B.md", "") == generate_permalink("sessions/A B.md")
    assert generate_permalink("sessions/A B.md", "demo") == "demo/sessions/a-b"


def _file_name_rule(title: str) -> str:
    """The rule :func:`filename_for_title` documents: separators and ``< > : " | ? *``
    become ``-``, runs of ``-`` collapse, leading/trailing dots and dashes go."""
    text = "".join("-" if ch in '/\\<>:"|?*' else ch for ch in title)
    while "--" in text:
        text = text.replace("--", "-")
    return text.strip(".").strip("-")


@settings(max_examples=200, deadline=None)
@given(_TEXT)
def test_remembered_file_name_follows_the_rule(title: str) -> None:
    for _ in range(2):  # a miss, then a hit
        assert filename_for_title(title) == _file_name_rule(title)


# -- the slug's shortcuts ------------------------------------------------------

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


def _slugs_agree(base: str) -> None:
    """The slug of ``base`` as a permalink, as a project prefix and as a project name."""
    _both(base, None)
    _both("sessions/x.md", base)
    fast = normalize_project_name(base)
    with general_paths():
        assert normalize_project_name(base) == fast, base


@pytest.mark.parametrize("base", _SLUG_EDGES)
def test_slug_edge_cases(base: str) -> None:
    _slugs_agree(base)


def test_slug_examples() -> None:
    assert generate_permalink("\u6f22\u5b57abc\u3000\uff21\uff22 x.md") == "漢字-abc-\u3000-x"
    assert generate_permalink("\u00c6sir \u00df \u0142\u00f3d\u017a.md") == "aesir-ss-lodz"
    assert normalize_project_name("My Project") == "my-project"
    assert re.fullmatch(r"[a-z0-9/.-]*", generate_permalink("a\u0301 e\u0308 \ufb01 \u2460"))


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
def test_slug_equals_the_general_one(base: str) -> None:
    _slugs_agree(base)
