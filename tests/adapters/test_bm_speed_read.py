"""The Basic Memory reader's shortcuts give what the long way gives.

* prose sections are cut from the document's lines by index and joined
  without stripping each line end where the text has no ``\\r``
  (:func:`_sections_of`);
* the positions of list items (needed only by edits with a base document) are
  worked out on first use (:class:`_Layout`);
* a relation type's "has a blank inside" check splits once instead of
  testing each character;
* the ``]]`` closing a ``[[`` is found by jumping from one bracket pair to the
  next instead of stepping a character at a time.

Each test compares with the plain form of the same step.
"""

from __future__ import annotations

import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sessionkit.adapters import _bm_grammar as g
from sessionkit.adapters.basic_memory import (
    _classify,
    _filed,
    _is_item,
    _Pos,
    _sections_of,
)
from sessionkit.document import Document, parse
from sessionkit.model import ExtraSection


def _sections_plain(doc: Document) -> list[tuple[ExtraSection, int, int]]:
    """``_sections_of`` as it was: each line's end cut, then blank lines dropped."""
    out: list[tuple[ExtraSection, int, int]] = []
    first = doc.sections[0].start if doc.sections else len(doc.lines)
    pre = [doc.line_text(i) for i in range(doc.body_start, first)]
    while pre and not pre[0].strip():
        pre.pop(0)
    while pre and not pre[-1].strip():
        pre.pop()
    if pre:
        out.append((ExtraSection(title="", body="\n".join(pre)), doc.body_start, first))
    for sec in doc.sections:
        if sec.title in ("Observations", "Relations"):
            continue
        body = doc.section_lines(sec)[: doc.content_end(sec) - sec.start - 1]
        while body and not body[0].strip():
            body.pop(0)
        out.append((ExtraSection(title=sec.title, body="\n".join(body)), sec.start, sec.end))
    return out


def _positions_plain(doc: Document) -> dict[str, list[_Pos]]:
    """The layout as it was built eagerly while reading."""
    facts = g.parse_facts(doc.lines, doc.body_start)
    where: dict[str, list[_Pos]] = {}
    for obs, (attr, _) in zip(facts.observations, _filed(facts.observations), strict=True):
        pos = _Pos(obs.line, obs.line + 1, _is_item(doc.lines[obs.line]))
        where.setdefault(attr, []).append(pos)
    if facts.relations:
        rel_pos = where.setdefault("relations", [])
        for rel in facts.relations:
            editable = rel.explicit and _is_item(doc.lines[rel.line])
            rel_pos.append(_Pos(rel.line, rel.line + 1, editable))
    return where


_LINES = [
    "## Summary",
    "## Observations",
    "## Relations",
    "## Recent thread",
    "### Sub",
    "",
    "   ",
    "\t",
    "Plain prose line",
    "- [decision] chose X #arch",
    "- [summary] a summary",
    "- [context] some context",
    "- [cat] c (ctx)",
    "- rel [[Target]]",
    "text with [[Inline]] and [md](a.md)",
    "  indented",
    "\u00a0",
    "x\ry",
    "trailing\r",
]

_EOLS = st.sampled_from(["\n", "\r\n", "\r\r\n"])


@st.composite
def _documents(draw: st.DrawFn) -> str:
    fm = draw(st.sampled_from(["", "---\ntitle: T\ntype: session\n---\n"]))
    lines = draw(st.lists(st.sampled_from(_LINES), max_size=16))
    eols = [draw(_EOLS) if draw(st.integers(0, 5)) else "\n" for _ in lines]
    text = fm + "".join(line + eol for line, eol in zip(lines, eols, strict=True))
    if draw(st.booleans()):
        text = text.rstrip("\n")  # no line end on the last line
    return text


@given(_documents())
@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_sections_equal_the_line_by_line_cut(text: str) -> None:
    doc = parse(text, "sessions/x.md")
    prose = [x for x in _sections_of(doc) if x[0].title not in ("Observations", "Relations")]
    assert prose == _sections_plain(doc)


@given(_documents())
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_layout_on_first_use_equals_the_eager_one(text: str) -> None:
    doc = parse(text, "sessions/x.md")
    _, layout = _classify(doc)
    assert layout.lists == _positions_plain(doc)
    assert layout.lists is layout.lists  # computed once


@pytest.mark.parametrize(
    "text",
    [
        "",
        "\n",
        "---\ntitle: T\n---\n",
        "pre\r\n\r\n## A\r\n\r\nbody\r\n\r\n",
        "pre\n\n## A\n\nbody\n\nmore\n\n\n## Observations\n\n- [c] x\n",
        "## A\n\n  \n\t\nx\ry\n",
        "## A\nlast line without an end",
        "## A\n\n\n",
        "\n\n  pre  \n\n## B\n",
    ],
)
def test_sections_edge_cases(text: str) -> None:
    doc = parse(text, "sessions/x.md")
    assert _sections_of(doc) == _sections_plain(doc)


_BLANKS = [chr(c) for c in range(sys.maxunicode + 1) if chr(c).isspace()]


def _relation_type_plain(content: str) -> str | None:
    before = content.partition("[[")[0].strip()
    if not before:
        return None
    q = before[0]
    if q in "'\"" and before.endswith(q):
        return before[1:-1].strip() or None
    if any(c.isspace() for c in before):
        return None
    return before


@pytest.mark.parametrize("blank", _BLANKS)
def test_relation_type_blank_inside(blank: str) -> None:
    for text in (
        f"a{blank}b [[T]]",
        f"{blank}ab{blank} [[T]]",
        f"ab{blank}[[T]]",
        f"'a{blank}b' [[T]]",
    ):
        assert g._relation_type(text) == _relation_type_plain(text)


@given(
    st.text(
        st.sampled_from(["a", "'", '"', "[", "]", *_BLANKS[:12], "\u3000", "\x85"]), max_size=12
    )
)
@settings(max_examples=500)
def test_relation_type_equals_the_per_character_check(text: str) -> None:
    for content in (text, text + "[[T]]", text + " [[T]] (c)"):
        assert g._relation_type(content) == _relation_type_plain(content)


def _closing_plain(content: str, pos: int) -> int:
    """The closing ``]]`` found a character at a time (as ``inline_relations`` did)."""
    depth = 1
    while pos < len(content):
        if content[pos : pos + 2] == "[[" and not g._escaped(content, pos):
            depth += 1
            pos += 2
        elif content[pos : pos + 2] == "]]" and not g._escaped(content, pos):
            depth -= 1
            if depth == 0:
                return pos
            pos += 2
        else:
            pos += 1
    return -1


_BRACKETS = st.lists(
    st.sampled_from(["[", "]", "\\", "a", " ", "|", ":", "[[", "]]"]), max_size=16
).map("".join)


@given(_BRACKETS, st.integers(0, 6))
@settings(max_examples=1500)
def test_closing_brackets_jump_equals_the_stepping(text: str, pos: int) -> None:
    assert g._closing_brackets(text, pos) == _closing_plain(text, pos)


@pytest.mark.parametrize(
    "text",
    [
        "[[a]]",
        "[[a]]]",
        "[[a\\]]b]]",
        "[[[a]]]]",
        "[[a [[b]] c]]",
        "\\[[a]]",
        "[[a\\\\]]",
        "]][[",
        "[[",
    ],
)
def test_inline_relations_brackets_edge_cases(text: str) -> None:
    for pos in range(len(text) + 1):
        assert g._closing_brackets(text, pos) == _closing_plain(text, pos)


def test_facts_built_positionally_have_their_fields_in_place() -> None:
    """Observations and relations are built with positional arguments: each value
    lands in the field the keyword form names."""
    obs = g.parse_observation("[cat] some text #t (ctx)", 4)
    assert obs == g.BMObservation(
        category="cat",
        content="some text #t",
        tags=("t",),
        context="ctx",
        line=4,
        text="some text #t (ctx)",
    )
    rel = g.parse_relation("rel [[T|Alias]] (why)", 5)
    assert rel == g.BMRelation(
        type="rel", target="T|Alias", context="why", line=5, explicit=True, label="Alias"
    )
    assert rel is not None and not rel.markdown
    (link,) = g.inline_relations("see [[proj::Note|N]]", 6)
    assert link == g.BMRelation(
        type="links_to", target="proj/Note|N", context=None, line=6, label="N"
    )
    assert not link.explicit and not link.markdown
