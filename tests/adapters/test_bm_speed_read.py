"""The Basic Memory reader's shortcuts give what the long way gives.

* prose sections are cut from the document's lines by index and joined
  without stripping each line end where the text has no ``\\r``;
* the positions of list items (needed only by edits with a base document) are
  worked out on first use;
* a relation type's "has a blank inside" check splits once instead of
  testing each character;
* the ``]]`` closing a ``[[`` is found by jumping from one bracket pair to the
  next instead of stepping a character at a time.

Each test compares what the public reader (:func:`sessionkit.loads`, and the
grammar's ``parse_relation`` / ``inline_relations``, which ``tests/interop``
holds to Basic Memory itself) gives with the plain form of the same step,
written here with the public :class:`~sessionkit.Document` API.
"""

from __future__ import annotations

import sys

import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import sessionkit
from sessionkit.adapters.basic_memory import grammar as g
from sessionkit.document import Document, parse
from sessionkit.model import ExtraSection
from tests.budget import examples


def _cut(line: str) -> str:
    """``line`` without its end: one ``\\n``, then one ``\\r`` before it."""
    return line[:-2] if line.endswith("\r\n") else line.removesuffix("\n")


def _sections_plain(doc: Document) -> list[ExtraSection]:
    """The prose sections as first written: each line's end cut, then blank lines dropped."""
    out: list[ExtraSection] = []
    first = doc.sections[0].start if doc.sections else len(doc.lines)
    pre = [_cut(doc.lines[i]) for i in range(doc.body_start, first)]
    while pre and not pre[0].strip():
        pre.pop(0)
    while pre and not pre[-1].strip():
        pre.pop()
    if pre:
        out.append(ExtraSection(title="", body="\n".join(pre)))
    for sec in doc.sections:
        if sec.title in ("Observations", "Relations"):
            continue
        body = [_cut(line) for line in doc.lines[sec.start + 1 : doc.content_end(sec)]]
        while body and not body[0].strip():
            body.pop(0)
        out.append(ExtraSection(title=sec.title, body="\n".join(body)))
    return out


def _read(text: str) -> sessionkit.Session:
    """The note read by the Basic Memory adapter (any text, CR-only line ends too)."""
    return sessionkit.get_adapter("basic-memory").read(parse(text, "sessions/x.md"))


def _prose(text: str) -> list[ExtraSection]:
    session = _read(text)
    return [x for x in session.sections if x.title not in ("Observations", "Relations")]


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
@settings(max_examples=examples(600), deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_sections_equal_the_line_by_line_cut(text: str) -> None:
    assert _prose(text) == _sections_plain(parse(text, "sessions/x.md"))


_LIST_FIELDS = ("decisions", "context", "next_steps", "gotchas", "questions")


_ITEMS = [line for line in _LINES if line.startswith("- [")] + ["", "- [decision] d2 #t"]


@st.composite
def _notes(draw: st.DrawFn) -> str:
    """A note whose facts sit in its Observations section, prose around it."""
    prose = st.lists(st.sampled_from(["## Summary", "## Recent thread", "Plain prose", ""]))
    front = "---\ntitle: T\ntype: session\n---\n"
    lines = [*draw(prose), "## Observations"]
    # (items differ: an edit among equal items may take another one's line end; reported)
    lines += draw(st.lists(st.sampled_from(_ITEMS), max_size=10, unique=True))
    lines += draw(st.sampled_from([[], ["## Relations", "- rel [[Target]]"], ["## Notes", "x"]]))
    eols = [draw(_EOLS) if draw(st.integers(0, 5)) else "\n" for _ in lines]
    return front + "".join(line + eol for line, eol in zip(lines, eols, strict=True))


@given(_notes(), st.integers(0, 20))
@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_an_edit_changes_only_its_line(text: str, pick: int) -> None:
    """An edit with the note as its base finds the item it changes (the list layout is
    worked out on first use): one line changes, and the note reads back edited."""
    session = _read(text)
    assert sessionkit.dumps(session) == text
    fields = [f for f in _LIST_FIELDS if getattr(session, f)]
    if not fields:
        return
    field = fields[pick % len(fields)]
    items = list(getattr(session, field))
    at = pick % len(items)
    items[at] = "edited item"
    edited = sessionkit.dumps(attrs.evolve(session, **{field: tuple(items)}))
    before, after = text.split("\n"), edited.split("\n")
    assert len(before) == len(after)
    changed = [n for n, (a, b) in enumerate(zip(before, after, strict=True)) if a != b]
    assert len(changed) <= 1, (text, edited)
    again = _read(edited)
    assert list(getattr(again, field)) == items


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
    assert _prose(text) == _sections_plain(parse(text, "sessions/x.md"))


_BLANKS = [chr(c) for c in range(sys.maxunicode + 1) if chr(c).isspace()]


def _relation_type(content: str) -> str | None:
    """The type ``parse_relation`` reads from the text before the first ``[[`` of
    ``content`` followed by ``[[T]]`` (``None``: no relation)."""
    rel = g.parse_relation(_probe(content))
    return None if rel is None else rel.type


def _probe(content: str) -> str:
    return content.partition("[[")[0].rstrip("[") + "[[T]]"


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
        assert _relation_type(text) == _relation_type_plain(_probe(text))


def test_relation_types_are_read() -> None:
    assert _relation_type("implements [[T]]") == "implements"
    assert _relation_type("'depends on' [[T]]") == "depends on"
    assert _relation_type("depends on [[T]]") is None


@given(
    st.text(
        st.sampled_from(["a", "'", '"', "[", "]", *_BLANKS[:12], "\u3000", "\x85"]), max_size=12
    )
)
@settings(max_examples=examples(500))
def test_relation_type_equals_the_per_character_check(text: str) -> None:
    for content in (text, text + "[[T]]", text + " [[T]] (c)"):
        assert _relation_type(content) == _relation_type_plain(_probe(content))


def _escaped(content: str, pos: int) -> bool:
    count = 0
    pos -= 1
    while pos >= 0 and content[pos] == "\\":
        count += 1
        pos -= 1
    return count % 2 == 1


def _closing_plain(content: str, pos: int) -> int:
    """The closing ``]]`` found a character at a time (as ``inline_relations`` did)."""
    depth = 1
    while pos < len(content):
        if content[pos : pos + 2] == "[[" and not _escaped(content, pos):
            depth += 1
            pos += 2
        elif content[pos : pos + 2] == "]]" and not _escaped(content, pos):
            depth -= 1
            if depth == 0:
                return pos
            pos += 2
        else:
            pos += 1
    return -1


def _targets_plain(content: str) -> list[str]:
    """The targets of every outermost ``[[…]]``, found by stepping."""
    found: list[str] = []
    start = 0
    while (start := content.find("[[", start)) != -1:
        if _escaped(content, start):
            start += 2
            continue
        end = _closing_plain(content, start + 2)
        if end == -1:
            break
        target = content[start + 2 : end].strip()
        if "::" in target:
            project, rest = target.split("::", 1)
            target = f"{project}/{rest.lstrip('/')}"
        if target:
            found.append(target)
        start = end + 2
    return found


def _targets(content: str) -> list[str]:
    return [r.target for r in g.inline_relations(content)]


_BRACKETS = st.lists(
    st.sampled_from(["[", "]", "\\", "a", " ", "|", ":", "[[", "]]"]), max_size=16
).map("".join)


@given(_BRACKETS)
@settings(max_examples=examples(1500))
def test_closing_brackets_jump_equals_the_stepping(text: str) -> None:
    assert _targets(text) == _targets_plain(text)


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
        assert _targets(text[pos:]) == _targets_plain(text[pos:])


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
