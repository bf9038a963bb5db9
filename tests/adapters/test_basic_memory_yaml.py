"""dump_yaml takes libyaml's emitter only where it writes PyYAML's exact bytes.

Differential: ``dump_yaml`` (C emitter inside :func:`_c_emits_alike`'s domain)
against PyYAML's pure ``SafeDumper`` with the same options, over every
frontmatter of the test corpora and the examples, the frontmatter fresh
writes produce for them, and Hypothesis data inside and outside that domain.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sessionkit.adapters.basic_memory import (
    BASIC_MEMORY,
    _c_emits_alike,
    _dump,
    _frontmatter,
    dump_yaml,
)
from sessionkit.document import parse
from sessionkit.errors import SessionKitError

ROOT = Path(__file__).resolve().parent.parent.parent
NOTES = sorted(
    p
    for pattern in ("tests/golden/**/*.md", "tests/corpus/**/*.md", "examples/**/*.md")
    for p in ROOT.glob(pattern)
)


def pure(data: dict[str, Any]) -> str:
    return _dump(data, yaml.SafeDumper)


def test_c_emitter_is_in_use() -> None:
    assert getattr(yaml, "CSafeDumper", None) is not None
    assert _c_emits_alike({"title": "Session 2026-05-18 — x", "tags": ["a", "b"], "n": None})


@pytest.mark.parametrize("note", NOTES, ids=lambda p: str(p.relative_to(ROOT)))
def test_corpus_frontmatter_dumps_alike(note: Path) -> None:
    doc = parse(note.read_text(encoding="utf-8"), f"sessions/{note.name}")
    try:
        meta = dict(doc.meta)
    except SessionKitError:
        meta = {}
    if meta:
        assert dump_yaml(meta) == pure(meta)
    try:
        session = BASIC_MEMORY.read(doc)
    except SessionKitError:
        return
    fresh = _frontmatter(session, "sessions", session.project)
    assert dump_yaml(fresh) == pure(fresh)


_key = st.one_of(
    st.from_regex(r"\A[A-Za-z_][A-Za-z0-9_]{0,63}\Z"),
    st.sampled_from(["yes", "No", "null", "on", "y", "title", "x" * 64]),
)
_bmp = st.characters(min_codepoint=0x20, max_codepoint=0xFFFD, exclude_categories=["Cs"]).filter(
    lambda c: not (0x7F <= ord(c) < 0xA0) and c not in "\ufeff\u2028\u2029"
)
_special = st.sampled_from(list(" :#-'\"?[]{},&*!|>%@`~.0123456789eE+_/\\—é中"))
_text = st.text(st.one_of(_bmp, _special, _special), max_size=120)
_tricky = st.lists(
    st.sampled_from(
        [
            *("yes", "No", "null", "~", "1.5", "0x1f", "2024-01-01", "12:30", "true", "a: b"),
            *("- x", "#c", ".inf", "", " ", "0o7", "1_000", "2024-01-01T10:00:00Z", "=", "<<"),
        ]
    )
    | _text,
    max_size=6,
).map(" ".join)
_scalar = st.one_of(_text, _tricky, st.none(), st.integers(), st.booleans())
_alike = st.dictionaries(_key, st.one_of(_scalar, st.lists(_scalar, max_size=3)), max_size=6)
_any = st.dictionaries(
    st.text(max_size=140),
    st.one_of(
        st.text(),
        st.floats(),
        st.lists(st.text(), max_size=3),
        st.dictionaries(st.text(max_size=5), st.text(), max_size=2),
        _scalar,
    ),
    max_size=4,
)


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_alike)
def test_c_domain_dumps_alike(data: dict[str, Any]) -> None:
    assert _c_emits_alike(data)
    assert yaml.dump(
        data, Dumper=yaml.CSafeDumper, sort_keys=False, allow_unicode=True, default_flow_style=False
    ) == pure(data)


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_any)
def test_any_data_dumps_alike(data: dict[str, Any]) -> None:
    assert dump_yaml(data) == pure(data)


def test_outside_the_domain_goes_pure() -> None:
    for data in (
        {"\U00075c92": ""},
        {"k": "line\nbreak"},
        {"k": "\U0001f600"},
        {"x" * 65: 1},
        {"k": 1.5},
        {"k": {"a": 1}},
        {"k": "\ufeffbom"},
    ):
        assert not _c_emits_alike(data)
        assert dump_yaml(data) == pure(data)
