"""Permalinks, project slugs and file names as Basic Memory makes them (the whole rule
is held to basic-memory itself in ``tests/interop``)."""

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
from tests.budget import examples

_TEXT = st.text(st.sampled_from(list("aZ09 -_./\\:<>|?*\"'()é漢　Ａ")), max_size=24)


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


@settings(max_examples=examples(100), deadline=None)
@given(_TEXT)
def test_file_name_follows_the_rule(title: str) -> None:
    assert filename_for_title(title) == _file_name_rule(title)


@pytest.mark.parametrize(
    ("path", "project", "permalink"),
    [
        ("\u6f22\u5b57abc\u3000\uff21\uff22 x.md", None, "漢字-abc-\u3000-x"),
        ("\u00c6sir \u00df \u0142\u00f3d\u017a.md", None, "aesir-ss-lodz"),
        ("docs/My Feature.md", "demo", "demo/docs/my-feature"),
        ("CamelCase_and_snake's.md", None, "camel-case-and-snakes"),
        ("--a//b--/-c-", None, "a//b/c"),
        ("demo/x.md", "Demo", "demo/x"),
    ],
)
def test_slug_examples(path: str, project: str | None, permalink: str) -> None:
    assert generate_permalink(path, project) == permalink


def test_project_names() -> None:
    assert normalize_project_name("My Project") == "my-project"
    assert re.fullmatch(r"[a-z0-9/.-]*", generate_permalink("a\u0301 e\u0308 \ufb01 \u2460"))
