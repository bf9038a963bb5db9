"""dump_yaml's fast lane writes PyYAML's exact bytes.

``dump_yaml`` hands data in the domain where libyaml's emitter writes the
same bytes to it (the ``c-yaml`` lane); with the lanes off
(:mod:`sessionkit._fastpaths`) PyYAML's pure ``SafeDumper`` writes everything.
Differential, through the public switch: every frontmatter of the test
corpora and the examples, the frontmatter fresh writes produce for them, and
Hypothesis data inside and outside the lane's domain give the same text both
ways; ``fastpaths.taken()`` shows the lane answers.  (Flat data of short
scalars was once written as text by a lane of its own, ``direct-yaml``:
measured through the CLI it saved nothing beside this one,
``benchmarks/lanes.py``, and it is gone; its tests hold this lane now.)
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sessionkit._yaml import load_mapping
from sessionkit.adapters.basic_memory import BASIC_MEMORY, dump_yaml
from sessionkit.document import parse
from sessionkit.errors import SessionKitError
from tests.lanes import general_paths, taken

ROOT = Path(__file__).resolve().parent.parent.parent
NOTES = sorted(
    p
    for pattern in ("tests/golden/**/*.md", "tests/corpus/**/*.md", "examples/**/*.md")
    for p in ROOT.glob(pattern)
)


def pure(data: dict[str, Any]) -> str:
    """``dump_yaml`` with the fast lanes off: PyYAML's own text."""
    with general_paths():
        return dump_yaml(data)


def alike(data: dict[str, Any]) -> str:
    """``dump_yaml(data)`` with the lanes on, twice (what a lane remembers, too), checked
    against the lanes off; the text."""
    fast = dump_yaml(data)
    assert dump_yaml(data) == fast
    assert fast == pure(data), data
    return fast


def test_nel_reads_back() -> None:
    data = {"focus": "a\x85b", "tags": ["x\x85"], "k\x85": 1}
    text = dump_yaml(data)
    assert '"a\\Nb"' in text
    assert load_mapping(text) == data


def test_the_general_path_is_pyyaml() -> None:
    data = {"title": "Session 2026-05-18 \u2014 x", "tags": ["a", "yes"], "n": None, "k": 1.5}
    assert pure(data) == yaml.dump(
        data, Dumper=yaml.SafeDumper, sort_keys=False, allow_unicode=True, default_flow_style=False
    )


def test_the_lanes_answer() -> None:
    assert getattr(yaml, "CSafeDumper", None) is not None
    for data, lane in (
        ({"title": "Session 2026-05-18 \u2014 x", "tags": ["a", "b"], "n": None}, "c-yaml"),
        ({"title": "R\u00e9union 2026-05-18 \u2014 x", "tags": ["a", "b"], "n": None}, "c-yaml"),
    ):
        before = taken()[lane]
        alike(data)
        assert taken()[lane] == before + 2, lane


@pytest.mark.parametrize("note", NOTES, ids=lambda p: str(p.relative_to(ROOT)))
def test_corpus_frontmatter_dumps_alike(note: Path) -> None:
    doc = parse(note.read_text(encoding="utf-8"), f"sessions/{note.name}")
    try:
        meta = dict(doc.meta)
    except SessionKitError:
        meta = {}
    if meta:
        alike(meta)
    try:
        session = BASIC_MEMORY.read(doc)
    except SessionKitError:
        return
    fresh = BASIC_MEMORY.write(session).text  # a new note: its frontmatter by dump_yaml
    with general_paths():
        assert BASIC_MEMORY.write(session).text == fresh


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


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_alike, st.data())
def test_alike_data_dumps_alike(data: dict[str, Any], draw: Any) -> None:
    """Data in libyaml's domain, a list object under a second key too (PyYAML writes an
    anchor and an alias)."""
    alike(data)
    lists = [v for v in data.values() if type(v) is list]
    if lists:
        shared = dict(data)
        shared[draw.draw(_key)] = draw.draw(st.sampled_from(lists))
        alike(shared)


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_any)
def test_any_data_dumps_alike(data: dict[str, Any]) -> None:
    alike(data)


def test_corner_cases_dump_alike() -> None:
    shared = ["a", "yes"]
    for data in (
        {"\U00075c92": ""},
        {"k": "line\nbreak"},
        {"k": "\U0001f600"},
        {"x" * 65: 1},
        {"k": 1.5},
        {"k": {"a": 1}},
        {"k": "\ufeffbom"},
        {},
        {"k": []},
        {"a": shared, "b": shared, "c": ["a", "yes"]},
        {"n": None, "t": True, "f": False, "i": -12, "z": 0, "s": "", "q": "null", "o": "0o7"},
        {"long": "word " * 40, "colon": "a: b", "dash": "- x", "hash": "#c", "tilde": "~"},
        {"e": "\u00e9", "a": shared, "b": shared},
    ):
        alike(data)


_plain_chars = st.sampled_from(list("aZ09_/ ./+@()\u2014-:'#,\t\"é?!&*[]{}|>%`~=<"))
_plain_str = st.one_of(
    st.text(_plain_chars, max_size=12),
    st.text(st.sampled_from(list("ab1 ./-:\u2014")), min_size=60, max_size=100),
    st.lists(
        st.sampled_from(
            [
                *("yes", "No", "null", "~", "1.5", "0x1f", "2024-01-01", "12:30", "true", "a: b"),
                *("Session", "2024-01-03T11:46:26Z", "bench/sessions/x-y", "-1", "0o7", "1_000"),
                *("=", "<<", ".inf", "1e3", "a.b.", "x:y", "a  b", "—", "(x)", "a/b", ":x", "x:"),
            ]
        ),
        max_size=8,
    ).map(" ".join),
    st.from_regex(r"\A[A-Za-z0-9_/][A-Za-z0-9 _./+@()\u2014:-]{0,90}\Z"),
    st.from_regex(r"\A[\[{][\x20-\x7f'\"]{0,90}\Z"),
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(max_size=8),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner),
        max_leaves=6,
    ).map(lambda v: json.dumps(v, separators=(",", ":"), ensure_ascii=False)),
)
_plain_value = st.one_of(_plain_str, st.none(), st.integers(), st.booleans())
_plain_data = st.dictionaries(
    _key, st.one_of(_plain_value, st.lists(_plain_value, max_size=4)), max_size=8
)


def _direct(data: dict[str, Any]) -> bool:
    """Whether the ``c-yaml`` lane wrote ``data`` (checked against the lanes off)."""
    before = taken()["c-yaml"]
    alike(data)
    return taken()["c-yaml"] > before


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_plain_data)
def test_direct_text_is_pyyaml_text(data: dict[str, Any]) -> None:
    alike(data)


def test_direct_text_corner_cases() -> None:
    shared = ["a"]
    for data, direct in (
        ({"title": "Session 2024-01-03 11:46:26 \u2014 batch lock", "n": None}, True),
        ({"started": "2024-01-03T11:46:26Z", "yes": 1, "t": True, "i": -3}, True),
        ({"tags": ["session", "auto-capture", "yes", None, 2], "e": []}, True),
        ({"p": "x" * 95, "q": "a " * 30 + "b"}, True),
        ({"aiwiki_sessionkit": '{"added":["project"]}', "j": '[1,"it\'s"]'}, True),
        ({"q": "a " * 40 + "b"}, False),  # could fold at a space
        ({"a": shared, "b": shared}, False),  # an alias
        ({"d": "-12"}, False),
        ({"c": "a: b"}, False),
        ({"c": "x:"}, False),
        ({"j": '{"a": 1}'}, False),
        ({"h": "a #b"}, False),
        ({"s": "it's"}, False),
        ({}, False),
        ({"x" * 65: 1}, False),
    ):
        # the usual shapes take the lane (the others are only held to PyYAML's text)
        assert _direct(data) or not direct, data


@settings(max_examples=500, deadline=None)
@given(_key, st.one_of(_plain_value, st.lists(_plain_value, max_size=2)))
def test_direct_text_one_entry(key: str, value: Any) -> None:
    alike({key: value})


def test_direct_text_around_the_fold_width() -> None:
    """Lines either side of the emitter's width: the direct text never keeps on one
    line what PyYAML folds (the generated tests seldom land on the boundary)."""
    for key in ("t", "title", "a_much_longer_key_name"):
        for length in range(60, 100):
            for space_at in (1, length // 2, length - 2):
                value = "x" * length
                value = value[:space_at] + " " + value[space_at + 1 :]
                alike({key: value})


def test_direct_text_spaces_either_side_of_the_fold_column() -> None:
    """A long value stays on one line unless a lone space sits past the width: every
    position of a single and a double space, under short and long keys and as a
    list item, and a timestamp (single-quoted) whose spaces land past it."""
    for key in ("t", "title", "a_much_longer_key_name"):
        for at in range(40, 96):
            for gap in (" ", "  "):
                value = ("x" * at + gap + "y" * 96)[:96]
                for data in ({key: value}, {key: [value]}, {key: value.replace("x", "a b", 1)}):
                    alike(data)
    for width in range(1, 64):
        data = {"k" * width: "2001-12-14 21:59:43.10 -5"}
        assert _direct(data) or width + 2 + 23 > 80


def test_direct_text_takes_long_titles() -> None:
    """A title past the width with no space past it (the common long session title)
    is written directly, and as PyYAML writes it."""
    title = "Session 2024-01-02 307f89f \u2014 Adapter fence atomic directive backend handoff"
    assert len("title: " + title) > 80
    assert _direct({"title": title, "type": "session"})


@settings(max_examples=300, deadline=None)
@given(_plain_str, st.sampled_from(["k", "title", "a_much_longer_key_name_of_forty_characters"]))
def test_a_value_remembered_under_one_key_is_written_right_under_another(
    text: str, key: str
) -> None:
    """The direct text of a scalar is remembered by its text and its room on the line:
    the same value under keys of other lengths (and as a list item) folds where PyYAML
    folds it."""
    for name in ("k", key, "k"):
        alike({name: text})
        alike({name: [text]})
