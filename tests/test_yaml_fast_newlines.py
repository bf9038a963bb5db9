"""The one-pass reader of new frontmatter lines agrees with the line-by-line one and
with the strict loader.

:func:`fast_mapping` reads lines it has not seen before with one regex
(``_NEW_LINES``) when they are plainly ``key: string``; these tests aim lines
at the edges of that regex (bool and null words in any case, ``: `` and ``#``
inside, trailing blanks and colons, quotes, digits first, non-ASCII and
non-printable characters) and compare it with :func:`_new_pair` and with
:func:`load_value`.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from sessionkit import _yaml_fast
from sessionkit._yaml_fast import _NEW_LINES, _new_pair, fast_mapping

from .test_yaml_fastpath import full, same

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


def forget() -> None:
    """Empty the line memos, so that every line is new to fast_mapping."""
    _yaml_fast._pairs.clear()
    _yaml_fast._odd_pairs.clear()


@settings(max_examples=3000, deadline=None)
@given(new_line())
def test_the_one_pass_reader_agrees_with_the_line_reader(line: str) -> None:
    match = _NEW_LINES.fullmatch(line)
    if match is not None:
        assert "\n" not in line
        pair = _new_pair(line)
        assert pair is not None and pair[1] is not _yaml_fast._LIST, line
        assert same(match.groups(), pair), (line, match.groups(), pair)
        assert same({pair[0]: pair[1]}, full(line + "\n")), line


@settings(max_examples=1500, deadline=None)
@given(st.lists(new_line(), max_size=6), st.sampled_from(["\n", ""]))
def test_new_lines_read_as_the_strict_loader_reads_them(lines: list[str], end: str) -> None:
    text = "\n".join(lines) + end
    forget()
    fast = fast_mapping(text)
    if fast is not None:
        assert same(fast, full(text)), (text, fast)
    # the same text again, now from the memo
    again = fast_mapping(text)
    assert same(again, fast), text
    forget()


@settings(max_examples=500, deadline=None)
@given(st.lists(new_line(), min_size=1, max_size=6))
def test_new_lines_among_remembered_ones(lines: list[str]) -> None:
    known = "schema_id: session\nschema_version: 2\nstatus: done\n"
    fast_mapping(known)
    text = known + "\n".join(lines) + "\n"
    fast = fast_mapping(text)
    if fast is not None:
        assert same(fast, full(text)), (text, fast)


def test_the_common_new_lines_take_the_one_pass_reader() -> None:
    lines = [
        "session_id: f75a0ca3-7a8f-a363-06f7-3e24516d8c66",
        "session_id: 134d3f84-5b1a-1fd7-f55f-f097057420d0",
        "focus: Section backend checkpoint reader fsync commit",
        "last_commit: 'c8f29d9'",
        "last_commit: '1234567'",
        "date_start: 2024-02-07",
        "title: A page (draft), v2.1 / notes",
        "quoted: ''",
    ]
    for line in lines:
        match = _NEW_LINES.fullmatch(line)
        assert match is not None, line
        assert match.groups() == _new_pair(line), line
    for line in [
        "a: true", "a: Null", "a: 12", "a: 1.5", "a: b ", "a: b:", "a: b: c", "a: b #c",
        "a: 'b", "a: b'", "true: x", "NULL: x", "a: -b", "a: 'it''s'", "a:  b", "a: b\t",
        "a: caf\u00e9", "a: b\x7f",
    ]:  # fmt: skip
        assert _NEW_LINES.fullmatch(line) is None, line
