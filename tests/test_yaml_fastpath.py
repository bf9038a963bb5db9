"""The strict loader's flat-mapping branch gives exactly what its full YAML loader gives.

Differential: for generated frontmatter texts (mostly of the simple shape, with
tricky values mixed in), :attr:`Document.meta <sessionkit.Document.meta>` must
give what it gives for the same text under a comment line (which the flat
branch never reads: the full loader does), values, types and errors.
"""

from __future__ import annotations

import gc
import math
import tracemalloc
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

import sessionkit
from sessionkit.errors import SessionKitError


def same(a: Any, b: Any) -> bool:
    """Equal with the same types (True is not 1, -0.0 is not 0.0, nan equals nan)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float):
        return (math.isnan(a) and math.isnan(b)) or (a == b and repr(a) == repr(b))
    return bool(a == b)


def meta(text: str) -> Any:
    """The frontmatter ``text`` (a note's, so its lines end with a line break) read
    through ``Document.meta``, or the error."""
    if text and not text.endswith("\n"):
        text += "\n"
    try:
        return sessionkit.parse("---\n" + text + "---\n\nbody\n").meta
    except SessionKitError as exc:
        return ("error", type(exc).__name__, exc.message, exc.line)


def lanes(text: str) -> tuple[Any, Any]:
    """The frontmatter as read, and as the full loader reads it (under a comment line)."""
    general = meta("# the full loader\n" + text)
    if isinstance(general, tuple) and general[3] is not None and general[3] > 2:
        general = (*general[:3], general[3] - 1)  # (the comment's line)
    return meta(text), general


TRICKY = [
    "~",
    "null",
    "Null",
    "NULL",
    "",
    "true",
    "False",
    "TRUE",
    "yes",
    "no",
    "on",
    "NO",
    "y",
    "0",
    "-0",
    "+1",
    "007",
    "0123456",
    "12",
    "1.5",
    "-.5",
    "+.5",
    "1.",
    ".",
    "1e5",
    "1.0e+3",
    "1_000",
    "0x1F",
    "0o7",
    ".inf",
    "-.inf",
    ".nan",
    "2026-05-18",
    "2026-05-18T10:00:00Z",
    "12:30",
    "abc1234",
    "a: b",
    "a:b",
    "a #b",
    "a#b",
    "#c",
    "- x",
    "-x",
    "-1",
    "-",
    "? x",
    ":x",
    "a:",
    "[a]",
    "{a: 1}",
    "a, b",
    "a [b]",
    "&x",
    "*x",
    "!t",
    "!!str x",
    "|",
    ">",
    "%x",
    "@x",
    "`x`",
    "'q'",
    "'it''s'",
    "'a'b'",
    "''",
    "'",
    '"d"',
    '"a\\nb"',
    '""',
    '"',
    "x'",
    'x"',
    "a  b",
    "a ",
    " a",
    "a\tb",
    "\u00e9t\u00e9",
    "\u2028",
    "\x85",
    "\ufeff",
    "\x7f",
    "\x00",
    "\U0001f600",
    "...",
    "---",
    "a ...",
    "==",
    "<<",
    "=",
    "9" * 700,
    "9" * 5000,
]

keys = st.one_of(
    st.sampled_from(["title", "status", "schema_id", "tags", "a", "_k", "k-1", "K9"]),
    st.sampled_from(["true", "null", "NULL", "~", "1", "a b", "-a", "'q'", '"q"', "?"]),
    st.from_regex(r"[A-Za-z_][A-Za-z0-9_-]{0,6}", fullmatch=True),
)
values = st.one_of(
    st.sampled_from(TRICKY),
    st.text(st.characters(codec="utf-8", exclude_characters="\n\r"), max_size=8),
    st.from_regex(r"[a-z0-9 .:#'\"-]{1,10}", fullmatch=True),
    st.integers(-1000, 10**20).map(str),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
)


@st.composite
def frontmatter(draw: st.DrawFn) -> str:
    lines: list[str] = []
    for _ in range(draw(st.integers(0, 6))):
        key = draw(keys)
        shape = draw(st.sampled_from(["value", "value", "value", "list", "empty", "blank", "raw"]))
        sep = draw(st.sampled_from([": ", ": ", ": ", ":", ":  ", " : ", ":\t"]))
        if shape == "value":
            lines.append(f"{key}{sep}{draw(values)}")
        elif shape == "list":
            lines.append(f"{key}:")
            indent = draw(st.sampled_from(["", "", "  ", " ", "    "]))
            for _ in range(draw(st.integers(0, 4))):
                bullet = draw(st.sampled_from(["- ", "- ", "-", "-  "]))
                lines.append(f"{indent}{bullet}{draw(values)}")
        elif shape == "empty":
            lines.append(f"{key}:")
        elif shape == "blank":
            lines.append(draw(st.sampled_from(["", "", " ", "# c", "  x: 1"])))
        else:
            lines.append(draw(st.text(max_size=12).map(lambda t: t.replace("\n", " "))))
    end = draw(st.sampled_from(["\n", "", "\n\n"]))
    return "\n".join(lines) + end


@settings(max_examples=400, deadline=None)
@given(frontmatter())
def test_fast_path_agrees_with_the_strict_loader(text: str) -> None:
    got, general = lanes(text)
    assert same(got, general), (text, got, general)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(TRICKY), st.sampled_from(TRICKY)), max_size=6))
def test_tricky_values_in_every_position(pairs: list[tuple[str, str]]) -> None:
    text = "".join(f"k{i}: {a}\nl{i}:\n- {b}\n" for i, (a, b) in enumerate(pairs))
    fast, general = lanes(text)
    assert same(fast, general), text


def test_the_common_shapes_read_the_same_both_ways() -> None:
    text = (
        "schema_id: session\nschema_version: 2\nstatus: done\ndate_start: 2026-05-18\n"
        "date_end: ~\nsession_id: 7e8a3f2c-1111\nfocus: config system, lint\n"
        "last_commit: 'abc1234'\ntitle: \"A title\"\ntags:\n- session\n- auto-capture\n"
        "other:\n  - x\n  - 12\nratio: 1.5\nflag: true\nempty:\n"
    )
    fast, general = lanes(text)
    assert same(fast, general)
    assert fast["date_start"] == "2026-05-18" and fast["schema_version"] == 2
    assert fast["tags"] == ["session", "auto-capture"] and fast["empty"] is None


def test_unusual_text_reads_the_same_both_ways() -> None:
    for text in [
        "a: 1 # comment\n",
        "a: [1, 2]\n",
        "a: &x 1\nb: *x\n",
        "a: !!str 1\n",
        "a: |\n  text\n",
        "a: b\n  c\n",
        "a: 1\na: 2\n",
        "true: 1\n",
        "a:\n  b: 1\n",
        "a: x\r\n",
        "a: \u2028\n",
        "- a\n",
    ]:
        fast, general = lanes(text)
        assert same(fast, general), text


def test_the_line_memo_stays_bounded() -> None:
    """Frontmatter with more distinct lines than the lane remembers is read right, and
    what stays allocated after reading 60,000 distinct lines is bounded (lines seen
    once are not all kept: kept, they would hold over 10 MB)."""
    for count in (100, 20_000):
        text = "".join(f"key_{n}: value {n}\n" for n in range(count))
        assert meta(text) == {f"key_{n}": f"value {n}" for n in range(count)}
    gc.collect()
    tracemalloc.start()
    try:
        start = tracemalloc.get_traced_memory()[0]
        for batch in range(120):
            text = "".join(f"k{batch}_{n}: v {batch} {n}\n" for n in range(500))
            assert len(meta(text)) == 500
        gc.collect()
        kept = tracemalloc.get_traced_memory()[0] - start
    finally:
        tracemalloc.stop()
    assert kept < 5_000_000, kept
