"""Basic Memory's grammar: one golden case per rule (recorded from basic-memory 0.24.1).

The ``.json`` beside each ``tests/golden/basic-memory/*.md`` body is what the
real basic-memory parser extracted from it (``tests/interop/_bm_oracle.py``
regenerates them; ``tests/interop`` re-checks them against the live package).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sessionkit.adapters.basic_memory.grammar import (
    is_observation,
    parse_facts,
    parse_observation,
    parse_relation,
    parse_tags,
    scan_inline_runs,
)
from tests.budget import examples

GOLDEN = Path(__file__).resolve().parent.parent / "golden" / "basic-memory"
CASES = sorted(p.stem for p in GOLDEN.glob("*.md"))


def facts_as_json(body: str) -> dict[str, list[dict[str, object]]]:
    facts = parse_facts(body.split("\n"))
    return {
        "observations": [
            {
                "category": o.category,
                "content": o.content,
                "tags": list(o.tags),
                "context": o.context,
            }
            for o in facts.observations
        ],
        "relations": [
            {"type": r.type, "target": r.target, "context": r.context} for r in facts.relations
        ],
    }


def test_every_rule_has_a_golden_case() -> None:
    assert len(CASES) >= 25
    for name in CASES:
        assert (GOLDEN / f"{name}.json").is_file(), name


@pytest.mark.parametrize("name", CASES)
def test_golden(name: str) -> None:
    body = (GOLDEN / f"{name}.md").read_text(encoding="utf-8")
    expected = json.loads((GOLDEN / f"{name}.json").read_text(encoding="utf-8"))
    assert facts_as_json(body) == expected


def test_task_markers_and_clock_times_are_not_categories() -> None:
    for text in ("[x] a #t", "[X] a #t", "[/] a #t", "[?] a #t", "[!] a #t", "[>] a #t"):
        assert parse_observation(text).category is None
    assert not is_observation("[ ] todo #t")
    assert not is_observation("[x] done")
    assert parse_observation("[00:01:02] talk #t").category is None
    assert parse_observation("[1:02 - 2:03] talk #t").category is None
    assert parse_observation("[a] single letter").category == "a"


def test_context_comes_from_the_last_paren() -> None:
    obs = parse_observation("[cat] b (c) (d)")
    assert (obs.content, obs.context) == ("b (c)", "d")
    obs = parse_observation("[cat] content (ctx (nested))")
    assert (obs.content, obs.context) == ("content (ctx", "nested)")
    assert parse_observation("[cat] content (ctx) trailing").context is None
    assert parse_observation("[cat] raw text (c)").text == "raw text (c)"


def test_tags_are_hash_words() -> None:
    assert parse_tags("a #one #two#three x#no") == ("one", "two", "three")
    assert parse_tags("see https://x.y/a#frag") == ()


def test_explicit_relation_grammar() -> None:
    rel = parse_relation('"quoted type" [[Z]] (why)')
    assert rel is not None and (rel.type, rel.target, rel.context) == ("quoted type", "Z", "why")
    rel = parse_relation("type: [[X]]")
    assert rel is not None and rel.type == "type:"
    assert parse_relation("two words [[W]]") is None
    assert parse_relation("rel [[A]] and more") is None
    rel = parse_relation("rel [[proj::Note]]")
    assert rel is not None and rel.target == "proj/Note"
    rel = parse_relation("rel [[T|Alias]]")
    assert rel is not None and (rel.target, rel.label) == ("T|Alias", "Alias")


def test_soft_wrapped_item_keeps_first_line_as_content() -> None:
    facts = parse_facts(["- [cat] first line", "  second line #t (ctx)"])
    (obs,) = facts.observations
    assert (obs.content, obs.tags, obs.context) == ("first line", (), None)


def test_lines_in_fences_and_quotes_are_skipped_but_quote_links_count() -> None:
    facts = parse_facts(["> - [cat] quoted #q [[Q]]", "", "```", "- [cat] x [[F]]", "```"])
    assert facts.observations == ()
    assert [r.target for r in facts.relations] == ["Q"]


def test_fact_lines_are_indices_into_the_given_lines() -> None:
    lines = ["---", "title: x", "---", "", "- [cat] one", "- rel [[A]]"]
    facts = parse_facts(lines, 3)
    assert facts.observations[0].line == 4
    assert facts.relations[0].line == 5


def test_inline_runs_track_list_items_like_basic_memory() -> None:
    runs = scan_inline_runs(["- outer", "  - inner", "", "  after nested list"])
    assert [(r.content, r.in_list_item) for r in runs] == [
        ("outer", True),
        ("inner", True),
        # Basic Memory's flag is reset by the nested item's close
        ("after nested list", False),
    ]


# --------------------------------------------------------------------------
# the inline runs are markdown-it's inline tokens, with Basic Memory's flags

_RUN_PIECES = [
    *("- [cat] content #tag (ctx)", "- [x] done", "1. [num] ordered [[N]]", "   - [nested] n #n"),
    *("  continuation #c", "> quote [[Q]] #q", "> > deep", ">", "# Heading #tag", "Title", "==="),
    *("---", "```", "~~~", "    indented [[Code]]", "<div>", "<!-- c -->", "-->", "\t- [tab] t"),
    *("-", "- \tafter tab", "-      five spaces", "* [] empty #e", "+ plus", "2) two", ""),
    *("text with [[Inline]] link", "[ref]: /url", "| a | b |", "|---|---|", "漢字 #タグ"),
]
_RUN_BODIES = st.lists(
    st.one_of(
        st.sampled_from(_RUN_PIECES),
        st.lists(st.sampled_from(["  ", "- ", "> ", "1. ", "\t", "x", "#t"]), max_size=4).map(
            "".join
        ),
    ),
    max_size=14,
)


def _markdown_it_runs(text: str) -> list[tuple[object, ...]]:
    from markdown_it import MarkdownIt

    runs: list[tuple[object, ...]] = []
    in_item = False
    quotes = 0
    tokens = MarkdownIt("commonmark").parse(text)
    for i, tok in enumerate(tokens):
        if tok.type == "list_item_open":
            in_item = True
        elif tok.type == "list_item_close":
            in_item = False
        elif tok.type == "blockquote_open":
            quotes += 1
        elif tok.type == "blockquote_close":
            quotes -= 1
        elif tok.type == "inline" and tok.map is not None and tok.content.strip():
            kind = "heading" if tokens[i - 1].type == "heading_open" else "paragraph"
            runs.append((tok.content.strip(), tok.map[0], tok.map[1], kind, in_item, quotes > 0))
    return runs


@given(_RUN_BODIES, st.sampled_from(["\n", "\r\n"]))
@settings(max_examples=examples(300), deadline=None)
def test_inline_runs_are_markdown_its(body: list[str], eol: str) -> None:
    text = "".join(line + eol for line in body)
    lines = [line + eol for line in body]
    ours = [
        (r.content, r.start, r.end, r.kind, r.in_list_item, r.in_blockquote)
        for r in scan_inline_runs(lines)
    ]
    assert ours == _markdown_it_runs(text)
