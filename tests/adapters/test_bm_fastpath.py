"""The grammar's shortcuts find exactly what the plain path finds.

:mod:`sessionkit.adapters.basic_memory.grammar` takes shortcuts on its hot path (one
pass for "is it an observation" and "split it", literal pre-checks before
regexes).  Each test here compares the facts with what its documented
functions give on the same generated text, or with the plain rule written
out here, so an optimisation that changes behaviour fails here before it
reaches the interop differential.  (The block scanning is the tokenizer's,
proven against markdown-it in ``tests/test_markdown.py``.)
"""

from __future__ import annotations

import re

import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sessionkit import dumps, loads
from sessionkit.adapters.basic_memory import grammar as g
from sessionkit.errors import FormatError
from tests.budget import examples

# Characters that mean something to the grammar, plus plain letters and
# blanks that are not spaces (tabs, NBSP, a Unicode space).
_ALPHABET = " \t\u00a0\u2003\x1c\x85-*+#[]()`~<>!|:\\=_.0123456789abxX/?'\"@"
_FRAGMENTS = [
    "- [cat] content #tag (ctx)",
    "- [x] done",
    "- [ ] todo",
    "- [00:01:02] t #t",
    "- rel [[Target]] (why)",
    "- [[Only]]",
    "text with [[Inline]] link",
    "# Heading #tag",
    "```",
    "~~~",
    "    indented [[Code]] #x",
    "> quote [[Q]] #q",
    "",
    "  continuation line #c",
    "- [cat] `code [[No]]` [[Yes]] #bm:links_to",
    "1. [num] ordered [[N]]",
    "   - [nested] nested #n",
    "[md](docs/a.md) and [ext](https://x.y)",
    "---",
    "===",
    "<div>",
    "<!-- c -->",
    "***",
    "\t- [tab] tabbed",
    "-",
    "- \tafter tab",
    "-      five spaces #f",
    "- =",
    "- [cat] x\\",
    "* [] empty #e",
]

texts = st.text(alphabet=_ALPHABET, max_size=40)
lines = st.one_of(st.sampled_from(_FRAGMENTS), texts)
bodies = st.lists(lines, max_size=12)


#: Basic Memory's ``#bm:links_to`` directive at the end of an observation
_LINKS_TO = re.compile(r"\s+#bm:links_to\s*$")


def _strip_directive_plain(content: str) -> str:
    m = _LINKS_TO.search(content)
    return content if not m else content[: m.start()].rstrip()


def _tags_plain(content: str) -> tuple[str, ...]:
    tags: list[str] = []
    for part in content.split():
        if part.startswith("#"):
            if "#" in part[1:]:
                tags.extend(t for t in part.split("#") if t)
            else:
                tags.append(part[1:])
    return tuple(tags)


@given(bodies, st.sampled_from(["", "\n", "\r\n"]))
@settings(max_examples=examples(300), suppress_health_check=[HealthCheck.too_slow])
def test_facts_are_the_observations_of_the_runs(body: list[str], eol: str) -> None:
    # parse_facts judges and splits each run in one pass: it must find what the
    # public pair is_observation / parse_observation find, run by run
    lines = [line + eol for line in body]
    expected = [
        obs
        for run in g.scan_inline_runs(lines)
        if not run.in_blockquote and g.is_observation(run.content)
        for obs in [g.parse_observation(run.content, run.start)]
        if obs.content
    ]
    assert list(g.parse_facts(lines).observations) == expected


@pytest.mark.parametrize(
    "text",
    [
        "[cat] a #t",
        "[x] a #t",
        "[ ] a",
        "[a](b) #t",
        "[[W]] #t",
        "[] x #e",
        "plain",
        "a #b",
        "[cat] a #bm:links_to",
        "x #bm:links_to",
        "#bm:links_to",
    ],
)
def test_observations_on_edge_cases(text: str) -> None:
    expected = [g.parse_observation(text, 0)] if g.is_observation(text) else []
    assert list(g.parse_facts([text]).observations) == [o for o in expected if o.content]


@given(
    st.one_of(
        texts,
        st.just("a #bm:links_to"),
        st.just("a\t#bm:links_to \u00a0"),
        st.tuples(st.sampled_from(["[c] ", "", "#t "]), texts, texts).map(
            lambda p: f"{p[0]}{p[1]} #bm:links_to{p[2]}"
        ),
    )
)
@settings(max_examples=examples(300))
def test_literal_prechecks_equal_the_regexes(text: str) -> None:
    # the directive is cut as its pattern alone cuts it (the literal is looked for first)
    plain = _strip_directive_plain(text.strip())
    if not _LINKS_TO.search(plain):  # (a second directive would be cut again)
        assert g.parse_observation(text, 3) == g.parse_observation(plain, 3)
        assert g.is_observation(text) == g.is_observation(plain)
        # without a category, an observation is a text with a tag: a word starting with #
        if plain and plain[0] != "[":
            assert g.is_observation(text) == any(w.startswith("#") for w in plain.split())
    assert g.parse_tags(text) == _tags_plain(text)


def test_tabs_are_expanded_only_in_the_leading_blanks() -> None:
    # _scan keeps the text as written only for lines with a tab (the others
    # are the same either way): a continuation line keeps its tabs, a tab
    # after a list marker stays in the item's text, tab-indented code is code
    runs = g.scan_inline_runs(["para", "\tcontinued\tline", "", "\t- x", "", "-\tx\ty"])
    assert [r.content for r in runs] == ["para\n\tcontinued\tline", "x\ty"]


_NOTE = "---\ntitle: T\ntype: session\n---\n\n## Observations\n\n"


@pytest.mark.parametrize("eol", ["", "\n", "\r\n", "\r", "\r\r\n"])
@pytest.mark.parametrize("marker", ["- ", "* ", "+ ", "   - ", " *  "])
def test_an_item_is_edited_in_place_whatever_its_line_end(marker: str, eol: str) -> None:
    # whether a fact is a list item line of its own is judged on the line as it is,
    # its line end included: every line end lets the item be edited
    text = f"{_NOTE}- [idea] first #t\n{marker}[idea] old #t{eol}"
    session = loads(text)
    first, old = session.observations
    edited = dumps(attrs.evolve(session, observations=(first, attrs.evolve(old, content="new"))))
    assert edited.startswith(f"{_NOTE}- [idea] first #t\n- [idea] new")
    assert loads(edited).observations[1].content == "new"


@pytest.mark.parametrize("eol", ["", "\n", "\r\n", "\r"])
def test_a_fact_in_prose_is_not_edited(eol: str) -> None:
    session = loads(f"{_NOTE}Some prose [idea] old #t{eol}")
    (old,) = session.observations
    with pytest.raises(FormatError, match="part of prose"):
        dumps(attrs.evolve(session, observations=(attrs.evolve(old, content="new"),)))


def test_read_builds_the_origin_session_equal_to_the_result() -> None:
    from sessionkit import loads

    text = (
        "---\ntitle: T\ntype: session\nk: v\n---\n\n## Observations\n\n- [decision] d\n"
        "- [cat] c #t\n\n## Relations\n\n- rel [[X]]\n"
    )
    session = loads(text)
    assert session.origin is not None and session.origin.session.origin is None
    assert session.origin.session == session
    assert session.extra == {"type": "session", "k": "v"}
    assert session.extra is not session.origin.session.extra
    assert session.decisions == ("d",) and session.relations[0].target == "X"
