"""New frontmatter lines read as the full loader reads them.

Lines aimed at the edges of the flat-mapping branch (bool and null words in any
case, ``: `` and ``#`` inside, trailing blanks and colons, quotes, digits first,
non-ASCII and non-printable characters), first seen and then remembered.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from .test_yaml_fastpath import lanes, same

WORDS = [
    "true", "True", "TRUE", "tRUE", "tRue", "false", "False", "FALSE", "fALSE",
    "null", "Null", "NULL", "nULL", "nuLL", "yes", "Yes", "YES", "no", "No", "NO",
    "on", "On", "ON", "off", "Off", "OFF", "y", "n", "Y", "N", "~", "nan", "inf",
]  # fmt: skip
PIECES = [
    *WORDS, "a", "Z", "x1", "0", "7", "12", "2024-02-07", "c8f29d9", "f75a0ca3-7a8f",
    " ", "  ", ": ", ":", " #", "#", "-", "_", ".", ",", "/", "(", ")", "+", "'", "''",
    '"', "\t", "[", "]", "{", "}", "&", "*", "!", "|", ">", "%", "@", "`", "?", "=", "<<",
    "\u00e9", "\u2028", "\x85", "\ufeff", "\x7f", "\x00", "\x1b", "\U0001f600", "\r",
    "e5", "1.5", ".5", "-1", "+1", "0x1F", "1_000", "...", "---",
]  # fmt: skip

keys = st.one_of(
    st.sampled_from(WORDS),
    st.sampled_from(["session_id", "focus", "last_commit", "a", "_k", "k-1", "K9", "1", "-a"]),
    st.from_regex(r"[A-Za-z_][A-Za-z0-9_-]{0,6}", fullmatch=True),
)
# text the one-pass reader takes, with an edge before, inside or after it
plain = st.from_regex(r"[A-Za-z0-9][A-Za-z0-9 ._/,()+-]{0,8}", fullmatch=True)
edged = st.tuples(
    st.sampled_from(["", "", "", *PIECES]), plain, st.sampled_from(["", "", *PIECES])
).map("".join)
values = st.one_of(
    st.sampled_from(WORDS),
    plain,
    edged,
    st.from_regex(r"[-+]?[0-9]{0,3}[.eE_a-z-]?[0-9]{0,3}[a-z]?", fullmatch=True),
    st.floats().map(repr),
    st.integers().map(str),
    st.lists(st.sampled_from(PIECES), min_size=1, max_size=5).map("".join),
    st.from_regex(r"[A-Za-z0-9 ._/,()+:#'-]{1,12}", fullmatch=True),
    st.text(st.characters(codec="utf-8", exclude_characters="\n"), max_size=8),
)


@st.composite
def new_line(draw: st.DrawFn) -> str:
    quotes = draw(
        st.sampled_from([("", ""), ("", ""), ("'", "'"), ("'", "'"), ("'", ""), ("", "'")])
    )
    value = quotes[0] + draw(values) + quotes[1]
    sep = draw(st.sampled_from([": ", ": ", ": ", ":", ":  ", " : "]))
    return f"{draw(keys)}{sep}{value}"


@settings(max_examples=400, deadline=None)
@given(st.lists(new_line(), max_size=6), st.sampled_from(["\n", ""]))
def test_new_lines_read_as_the_strict_loader_reads_them(lines: list[str], end: str) -> None:
    text = "\n".join(lines) + end
    fast, general = lanes(text)
    assert same(fast, general), (text, fast, general)
    again, _ = lanes(text)  # the same text again, now from the memo
    assert same(again, fast), text


@settings(max_examples=500, deadline=None)
@given(st.lists(new_line(), min_size=1, max_size=6))
def test_new_lines_among_remembered_ones(lines: list[str]) -> None:
    known = "schema_id: session\nschema_version: 2\nstatus: done\n"
    lanes(known)
    text = known + "\n".join(lines) + "\n"
    fast, general = lanes(text)
    assert same(fast, general), (text, fast, general)
