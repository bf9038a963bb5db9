"""The conversion's word check: a target holds every word of the source's body."""

from __future__ import annotations

import collections
import re

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import sessionkit.document as document
from sessionkit.document import parse, parse_pieces


def test_word_check_knows_a_target_ending_with_the_source_body() -> None:
    from sessionkit.adapters.crosswalk import WordCheck

    source = parse("---\r\nfocus: x\r\n---\r\n\r\n## Summary\r\n\r\nkept words\r\n", "n.md")
    check = WordCheck(source, "aiwiki")
    # the body with LF line ends, under frontmatter spelled anew: every word is there
    assert check.kept("---\nfocus: 'x'\n---\n\n## Summary\n\nkept words\n", "aiwiki")
    # a word char before the body joins its first word ("\n" here is the body's own)
    glued = parse("---\nfocus: x\n---\nword and more\n", "g.md")
    assert glued.body == "word and more\n"
    assert not WordCheck(glued, "aiwiki").kept("---\nfocus: x\n---\nxword and more\n", "aiwiki")
    assert WordCheck(glued, "aiwiki").kept("---\nfocus: x\n---\n word and more\n", "aiwiki")
    # a target that does not end with the body is counted: a lost word is found
    assert not check.kept("---\nfocus: x\n---\n\n## Summary\n\nkept\n", "aiwiki")


_words = st.text(st.sampled_from("ab \r\n-\u00e9\U0001f680"), max_size=80)


def _cut_lines(text: str, cuts: list[int]) -> list[str]:
    """``text`` cut after some of its lines (no piece empty)."""
    ends = [i + 1 for i, c in enumerate(text) if c == "\n"]
    at = sorted({ends[c % len(ends)] for c in cuts} - {len(text)}) if ends else []
    return [text[a:b] for a, b in zip([0, *at], [*at, len(text)], strict=True)]


@settings(deadline=None)
@given(
    _words,
    _words,
    _words,
    st.sampled_from(["keep", "lf", "drop", "glue", "last"]),
    st.lists(st.integers(0, 1000), max_size=4),
    st.booleans(),
    st.integers(1, 8),
)
@example("ab ba\nzz a", "", "", "last", [3], True, 30)  # (past the first characters)
def test_word_check_counts_a_text_in_pieces_as_its_words(
    body: str, before: str, after: str, change: str, cuts: list[int], pieced: bool, times: int
) -> None:
    # a target holding the source's body (or nearly): kept exactly when every word of
    # the body is in it as often, however the target and the source are cut in pieces
    from sessionkit.adapters.crosswalk import WordCheck

    body *= times  # (longer than the first characters looked for)
    text = "---\nfocus: x\n---\n" + body
    if pieced:  # the source held in pieces too (as parse_pieces holds a big note)
        with pytest.MonkeyPatch.context() as m:
            m.setattr(document, "MANY_LINES", 0)
            source = parse_pieces(("---\nfocus: x\n---\n", *_cut_lines(body, cuts)), "n.md")
    else:
        source = parse(text, "n.md")
    kept = source.body
    if change == "lf":
        kept = kept.replace("\r\n", "\n")
    elif change == "drop" and kept:
        kept = kept[: len(kept) // 2] + kept[len(kept) // 2 + 1 :]
    elif change == "glue":
        kept = "a" + kept
    elif change == "last" and kept:
        kept = kept[:-1] + ("b" if kept[-1] == "a" else "a")
    head = "---\nfocus: y\n---\n"
    rest = before + "\n" + kept + after
    want = not collections.Counter(re.findall(r"\w+", source.body)) - collections.Counter(
        re.findall(r"\w+", head + rest)
    )
    check = WordCheck(source, "aiwiki")
    assert check.kept((head + rest,), "aiwiki") is want
    assert check.kept((head, *_cut_lines(rest, cuts)), "aiwiki") is want
