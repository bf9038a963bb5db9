"""The text grammar's line rules, held to markdown-it through the public API.

The ATX heading, a code fence's opening and closing lines, the thematic break
and markdown-it's trim are written once (the private grammar module); the
tokenizer and :func:`sessionkit.markdown.atx_heading` ask them, so they are
checked here through those, on generated lines.
"""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from sessionkit import markdown
from sessionkit.document import split_lines
from tests.budget import examples

_MD = MarkdownIt("commonmark")

_HEADING = st.lists(
    st.sampled_from(["#", "##", "#######", " ", "\t", "a", "é", "\u00a0", "\u2003", "\\#", "##a"]),
    max_size=7,
).map("".join)


@settings(max_examples=examples(400), deadline=None)
@given(_HEADING)
@example("## Title ##")
@example("# a #b")
@example("#\u00a0#")
def test_atx_heading_reads_a_line_as_markdown_it(line: str) -> None:
    line = line.lstrip(" \t")  # (a line at column 0, by the function's contract)
    tokens = _MD.parse(line + "\n")
    want = None
    if tokens and tokens[0].type == "heading_open" and tokens[0].markup.startswith("#"):
        want = (int(tokens[0].tag[1]), tokens[1].content)
    assert markdown.atx_heading(line) == want, line


_INDENT = st.sampled_from(["", " ", "   ", "    ", "\t"])
_RUN = st.sampled_from(["``", "```", "````", "~~", "~~~", "~~~~", "`~`"])
_INFO = st.sampled_from(["", "yaml", " py x", "a`b", " ~", "  \t"])


@settings(max_examples=examples(400), deadline=None)
@given(_INDENT, _RUN, _INFO, _INDENT, _RUN, st.sampled_from(["", " ", " x", "`"]))
@example("", "```", "yaml", "", "```", "")
@example("  ", "~~~~", "", "", "~~~", "")
def test_fence_lines_open_and_close_as_markdown_it(
    indent: str, run: str, info: str, close_indent: str, close: str, tail: str
) -> None:
    text = f"{indent}{run}{info}\nbody\n{close_indent}{close}{tail}\nafter\n"
    tokens = [t for t in _MD.parse(text) if t.level == 0 and t.map]
    first = markdown.tokenize(split_lines(text))[0]
    if tokens[0].type != "fence":
        assert first.kind != "fence", text
        return
    assert first.kind == "fence", text
    assert (first.info, first.marker) == (tokens[0].info, tokens[0].markup), text
    assert (first.start, first.end) == tuple(tokens[0].map), text
    assert first.closed == (tokens[0].map[1] == 3), text


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(st.sampled_from(["-", "*", "_", " ", "\t", "x", "+"]), max_size=7).map("".join))
def test_thematic_breaks_as_markdown_it(line: str) -> None:
    tokens = _MD.parse(line + "\n")
    want = bool(tokens) and tokens[0].type == "hr"
    assert markdown.is_thematic_break(line) == want, line
    first = markdown.tokenize([line + "\n"])[0]
    assert (first.kind == "hr") == want, line


_SPACES = ["\u00a0", "\u2003", "\u3000", "\u202f", "\ufeff", "\x0b", "\x0c", " ", "\t"]


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(st.sampled_from([*_SPACES, "a"]), min_size=1, max_size=6).map("".join))
def test_text_is_trimmed_as_markdown_it_trims_it(words: str) -> None:
    """Heading and paragraph text lose what markdown-it's trim strips (not U+FEFF)."""
    for text in (f"## {words}\n", f"a{words}\n", f"{words}a\n"):
        tokens = _MD.parse(text)
        want = [t.content for t in tokens if t.type == "inline"]
        got = [b.content for b in markdown.tokenize([text]) if b.kind in ("heading", "paragraph")]
        assert got == want, repr(text)
