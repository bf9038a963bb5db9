"""The basic-memory adapter: reading, writing in Basic Memory's style, minimal edits, lint."""

from __future__ import annotations

from pathlib import Path

import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import sessionkit
from sessionkit.adapters import get_adapter
from sessionkit.adapters.basic_memory import (
    BASIC_MEMORY,
    bm_view,
    dump_yaml,
    note_path,
    parse_bm_tags,
    render_note,
)
from sessionkit.adapters.profiles import filename_for_title, generate_permalink
from sessionkit.diagnostics import Severity
from sessionkit.document import parse
from sessionkit.errors import FormatError, ParseError
from sessionkit.model import ExtraSection, Link, LinkStyle, Observation, Session, Status
from tests.budget import examples

GOLDEN = Path(__file__).resolve().parent.parent / "golden" / "basic-memory"

# what the Basic Memory plugin's pre-compact hook writes (through write_note)
PLUGIN_NOTE = """\
---
title: 'Session 2026-05-18 14:23:00 — fix the parser'
type: session
permalink: demo/sessions/session-2026-05-18-14-23-00-fix-the-parser
status: open
started: '2026-05-18T14:01:10Z'
ended: '2026-05-18T14:23:00Z'
project: demo
cwd: /home/me/src/app
claude_session_id: 0b7c6f1e-2a4d-4c1b-9f0e-5d6a7b8c9d0e
trigger: auto
capture: extractive
tags:
- session
- auto-capture
---

## Summary

Worked on the parser; see [[Grammar Notes]].

## Recent thread

- user: fix the parser
- assistant: done

## Observations

- [context] Parser rewrite is half done #wip
- [next_step] Add golden tests (one per rule)
- [decision] Keep markdown-it out of the hook path
- [problem] Setext headings were misread (tried regex first)
- [idea] Cache the scan #perf
- produced [[Parser Fix]]
- relates_to [[Roadmap]] (phase 2)
"""


def read(text: str, path: str | None = "sessions/note.md") -> Session:
    return BASIC_MEMORY.read(parse(text, path))


def test_registered_and_detected() -> None:
    assert get_adapter("basic-memory") is BASIC_MEMORY
    assert BASIC_MEMORY.detect(parse(PLUGIN_NOTE)) == 90
    assert BASIC_MEMORY.detect(parse("---\nschema_id: x\ntype: session\n---\n")) == 0
    assert BASIC_MEMORY.detect(parse("no frontmatter")) == 0
    assert sessionkit.loads(PLUGIN_NOTE).origin.format == "basic-memory"


def test_plugin_note_maps_to_the_model() -> None:
    s = read(PLUGIN_NOTE)
    assert s.title == "Session 2026-05-18 14:23:00 — fix the parser"
    assert s.status is Status.ACTIVE
    assert (s.started, s.ended, s.project, s.cwd) == (
        "2026-05-18T14:01:10Z",
        "2026-05-18T14:23:00Z",
        "demo",
        "/home/me/src/app",
    )
    assert s.id == "0b7c6f1e-2a4d-4c1b-9f0e-5d6a7b8c9d0e"
    assert s.tags == ("session", "auto-capture")
    assert s.context == ("Parser rewrite is half done #wip",)
    assert s.next_steps == ("Add golden tests (one per rule)",)
    assert s.decisions == ("Keep markdown-it out of the hook path",)
    assert s.gotchas == ("Setext headings were misread (tried regex first)",)
    assert s.observations == (
        Observation(category="idea", content="Cache the scan #perf", tags=("perf",)),
    )
    assert s.relations == (
        Link(target="Grammar Notes"),
        Link(target="Parser Fix", relation="produced"),
        Link(target="Roadmap", relation="relates_to", context="phase 2"),
    )
    assert dict(s.extra) == {
        "type": "session",
        "permalink": "demo/sessions/session-2026-05-18-14-23-00-fix-the-parser",
        "trigger": "auto",
        "capture": "extractive",
    }
    assert [x.title for x in s.sections] == ["Summary", "Recent thread"]
    assert s.sections[0].body == "Worked on the parser; see [[Grammar Notes]]."


@pytest.mark.parametrize(
    ("word", "status"),
    [("open", Status.ACTIVE), ("resumed", Status.ACTIVE), ("closed", Status.DONE)],
)
def test_status_words(word: str, status: Status) -> None:
    text = PLUGIN_NOTE.replace("status: open", f"status: {word}")
    s = read(text)
    assert s.status is status
    # the word survives a round trip while the model status maps to the same value
    assert BASIC_MEMORY.write(attrs.evolve(s, status=status), base=s.origin.document).text == text


def test_status_change_writes_basic_memory_words() -> None:
    s = read(PLUGIN_NOTE.replace("status: open", "status: resumed"))
    out = BASIC_MEMORY.write(attrs.evolve(s, status=Status.DONE), base=s.origin.document).text
    assert "status: closed\n" in out
    assert out.replace("status: closed", "status: resumed") == PLUGIN_NOTE.replace(
        "status: open", "status: resumed"
    )


def test_frontmatter_as_basic_memory_reads_it() -> None:
    view = bm_view(parse("\ufeff---\ntags: '#a, b'\n---\n- [c] x\x00y\n", "notes/My Note.md"))
    assert (view.title, view.type, view.tags) == ("My Note", "note", ("a", "b"))
    assert view.facts.observations[0].content == "xy"
    assert parse_bm_tags(["a", "#b,c", None]) == ("a", "b", "c")
    assert parse_bm_tags('["x", "#y"]') == ("x", "y")
    assert parse_bm_tags("[not json") == ("[not json",)
    # invalid YAML: Basic Memory indexes the note as plain Markdown
    view = bm_view(parse("---\ntitle: [unclosed\n---\n- [c] x #t\n", "n/Stem.md"))
    assert not view.frontmatter_ok and view.title == "Stem"
    assert [o.category for o in view.facts.observations] == ["c"]


def test_invalid_frontmatter_is_a_parse_error_with_line() -> None:
    with pytest.raises(ParseError) as info:
        read("---\ntitle: ok\nbad: [unclosed\n---\nbody\n")
    assert info.value.line is not None and info.value.line >= 3
    diags = BASIC_MEMORY.lint(parse("---\ntitle: ok\nbad: [unclosed\n---\n"))
    assert [d.code for d in diags] == ["BM001"]
    assert "plain Markdown" in diags[0].message


def test_title_falls_back_to_the_file_stem() -> None:
    s = read("---\ntype: session\n---\n", "sessions/Session 7.md")
    assert s.title == "Session 7"
    assert BASIC_MEMORY.write(s, base=s.origin.document).text == "---\ntype: session\n---\n"


@pytest.mark.parametrize("path", sorted(GOLDEN.glob("*.md")), ids=lambda p: p.stem)
def test_golden_bodies_round_trip_byte_for_byte(path: Path) -> None:
    body = path.read_text(encoding="utf-8")
    for text in (body, "---\ntitle: T\ntype: session\n---\n\n" + body):
        doc = parse(text, path.name)
        assert BASIC_MEMORY.write(BASIC_MEMORY.read(doc), base=doc).text == text


@pytest.mark.parametrize(
    "text",
    [
        PLUGIN_NOTE,
        PLUGIN_NOTE.replace("\n", "\r\n"),
        "\ufeff" + PLUGIN_NOTE,
        PLUGIN_NOTE.rstrip("\n"),
        "---\n---\n",
        "",
        "just text #tag",
        "---\ntitle: x # comment\ntags: a, b\nweird:   'spacing'\n---\n- [x] task\n",
    ],
)
def test_unchanged_write_is_identical(text: str) -> None:
    doc = parse(text, "sessions/n.md")
    assert BASIC_MEMORY.write(BASIC_MEMORY.read(doc), base=doc).text == text
    assert sessionkit.dumps(sessionkit.loads(text, format="basic-memory")) == text


def test_new_note_matches_write_note_conventions() -> None:
    s = Session(
        title="Alias test: a/b",
        project="demo",
        started="2026-05-18T14:01:10Z",
        id="0123456",
        tags=("session", "auto-capture"),
        summary="Did things",
        next_steps=("Write tests",),
        relations=(Link(target="Parser Fix", relation="produced"),),
        extra={"type": "session", "capture": "extractive"},
    )
    path, text = render_note(s)
    assert path == "sessions/Alias test- a-b.md"
    assert text == (
        "---\n"
        "title: 'Alias test: a/b'\n"
        "type: session\n"
        "permalink: demo/sessions/alias-test-a-b\n"
        "status: open\n"
        "started: '2026-05-18T14:01:10Z'\n"
        "project: demo\n"
        "claude_session_id: '0123456'\n"
        "capture: extractive\n"
        "tags:\n"
        "- session\n"
        "- auto-capture\n"
        "---\n"
        "\n"
        "## Observations\n"
        "\n"
        "- [summary] Did things\n"
        "- [next_step] Write tests\n"
        "\n"
        "## Relations\n"
        "\n"
        "- produced [[Parser Fix]]\n"
    )
    again = BASIC_MEMORY.read(parse(text, path))
    assert again == attrs.evolve(s, extra={**s.extra, "permalink": "demo/sessions/alias-test-a-b"})


def test_dump_yaml_is_pyyaml_safe_dump_style() -> None:
    long = "word " * 30
    out = dump_yaml({"title": "é: x", "n": "123", "when": "2026-05-18", "t": long.strip()})
    assert out.startswith("title: 'é: x'\nn: '123'\nwhen: '2026-05-18'\nt: word word")
    assert "\n  word" in out  # folded at PyYAML's default width


def test_minimal_edits_touch_only_their_lines() -> None:
    s = read(PLUGIN_NOTE)
    edited = attrs.evolve(
        s,
        next_steps=(*s.next_steps, "Ship it"),
        decisions=(),
        tags=(*s.tags, "parser"),
        ended="2026-05-18T15:00:00Z",
        relations=(*s.relations, Link(target="Release", relation="produced")),
    )
    out = BASIC_MEMORY.write(edited, base=s.origin.document).text
    expected = (
        PLUGIN_NOTE.replace("ended: '2026-05-18T14:23:00Z'", "ended: '2026-05-18T15:00:00Z'")
        .replace("- auto-capture\n", "- auto-capture\n- parser\n")
        .replace(
            "- [next_step] Add golden tests (one per rule)\n",
            "- [next_step] Add golden tests (one per rule)\n- [next_step] Ship it\n",
        )
        .replace("- [decision] Keep markdown-it out of the hook path\n", "")
        .replace("(phase 2)\n", "(phase 2)\n- produced [[Release]]\n")
    )
    assert out == expected
    assert BASIC_MEMORY.read(parse(out)) == attrs.evolve(edited, origin=None)


def test_new_fields_and_sections_on_a_bare_note() -> None:
    text = "---\ntitle: Bare\ntype: session\n---\n\nSome prose.\n"
    s = read(text)
    edited = attrs.evolve(
        s,
        context=("We are here",),
        relations=(Link(target="X", relation="produced"),),
        sections=(*s.sections, ExtraSection(title="Notes", body="more")),
        extra={**s.extra, "capture": "summarized"},
    )
    out = BASIC_MEMORY.write(edited, base=s.origin.document).text
    assert out.startswith(
        "---\ntitle: Bare\ntype: session\ncapture: summarized\n---\n\nSome prose.\n"
    )
    again = BASIC_MEMORY.read(parse(out))
    assert again == attrs.evolve(edited, origin=None)


def test_editing_a_link_inside_prose_is_refused() -> None:
    s = read(PLUGIN_NOTE)
    edited = attrs.evolve(s, relations=s.relations[1:])
    with pytest.raises(FormatError, match="part of prose"):
        BASIC_MEMORY.write(edited, base=s.origin.document)


def test_multiline_observation_cannot_be_written() -> None:
    with pytest.raises(FormatError):
        render_note(Session(title="T", context=("two\nlines",)))


def test_written_prose_does_not_duplicate_its_facts() -> None:
    s = read(PLUGIN_NOTE)
    _, text = render_note(s)
    again = BASIC_MEMORY.read(parse(text))
    assert sorted(again.relations, key=repr) == sorted(s.relations, key=repr)
    assert again.observations == s.observations
    assert again.sections == s.sections


def test_lint_session_schema_warn_mode() -> None:
    assert BASIC_MEMORY.lint(parse(PLUGIN_NOTE)) == []
    text = PLUGIN_NOTE.replace("project: demo\n", "").replace("status: open", "status: paused")
    diags = BASIC_MEMORY.lint(parse(text, "s.md"))
    assert {(d.code, d.severity) for d in diags} == {("BM005", Severity.WARNING)}
    messages = sorted(d.message for d in diags)
    assert messages == [
        "Session schema: Frontmatter key 'status' has invalid value: paused "
        "(allowed: open, resumed, closed)",
        "Session schema: Missing required frontmatter key: project",
    ]
    status_diag = next(d for d in diags if "status" in d.message)
    assert status_diag.line == 5


def test_lint_strict_inline_schema_and_missing_keys() -> None:
    text = (
        "---\ntitle: P\ntype: person\npermalink: p\nschema:\n  name: string\n"
        "  works_at?: Organization\n  role?(enum): [a, b]\nsettings:\n  validation: error\n---\n\n"
        "- [role] c\n"
    )
    diags = BASIC_MEMORY.lint(parse(text))
    assert [(d.code, d.severity) for d in diags] == [("BM005", Severity.ERROR)] * 2
    assert [d.message for d in diags] == [
        "person schema: Missing required field: name (expected [name] observation)",
        "person schema: Field 'role' has invalid value(s): c (allowed: a, b)",
    ]
    diags = BASIC_MEMORY.lint(parse("---\ntype: note\n---\n"))
    assert [d.code for d in diags] == ["BM002", "BM004"]
    bad = (
        "---\ntitle: S\ntype: schema\npermalink: s\nentity: X\nschema:\n  a: string\n"
        "settings:\n  validation: loud\n---\n"
    )
    assert [d.code for d in BASIC_MEMORY.lint(parse(bad))] == ["BM006"]


@pytest.mark.parametrize(
    ("path", "permalink"),
    [
        ("docs/My Feature.md", "docs/my-feature"),
        ("specs/API (v2).md", "specs/api-v2"),
        ("notes/Don't Panic!.md", "notes/dont-panic"),
        ("CamelCaseTitle", "camel-case-title"),
        ("café/Crème brûlée.md", "cafe/creme-brulee"),
        ("design/unified_model_refactor.md", "design/unified-model-refactor"),
        ("中文/测试文档.md", "中文/测试文档"),
        ("Version 2.0.0", "version-2.0.0"),
    ],
)
def test_permalinks(path: str, permalink: str) -> None:
    assert generate_permalink(path) == permalink


def test_permalink_project_prefix_and_filenames() -> None:
    assert generate_permalink("sessions/Alias test- a-b.md", project="demo") == (
        "demo/sessions/alias-test-a-b"
    )
    assert generate_permalink("demo/x.md", project="Demo") == "demo/x"
    assert filename_for_title("Alias test: a/b") == "Alias test- a-b"
    assert filename_for_title('..a<b>c:"d|e?f*g..') == "a-b-c-d-e-f-g"
    assert note_path("What? Now", folder="/sessions/") == "sessions/What- Now.md"


# -- round trip: read(write(s)) == s for sessions the format can represent ----

_word = st.text(
    alphabet=st.sampled_from("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"),
    min_size=1,
    max_size=8,
)
_phrase = st.lists(_word, min_size=1, max_size=5).map(" ".join)
_fact_text = st.lists(
    st.one_of(_word, _word.map(lambda w: "#" + w), st.sampled_from(["x.y", "a:b", "1-2", "é"])),
    min_size=1,
    max_size=6,
).map(" ".join)


@st.composite
def _observations(draw: st.DrawFn) -> Observation:
    category = draw(st.one_of(st.none(), _word.filter(lambda w: len(w) > 1)))
    content = draw(_fact_text)
    if category is None and "#" not in content:
        content += " #" + draw(_word)
    from sessionkit.adapters.basic_memory.grammar import parse_tags

    context = draw(st.one_of(st.none(), _phrase))
    return Observation(
        category=category, content=content, tags=parse_tags(content), context=context
    )


_links = st.builds(
    Link,
    target=_phrase,
    label=st.one_of(st.none(), _phrase),
    relation=st.one_of(_word, st.just("produced"), _phrase),
    context=st.one_of(st.none(), _phrase),
    style=st.just(LinkStyle.WIKI),
)


@st.composite
def representable_sessions(draw: st.DrawFn) -> Session:
    title = draw(_phrase)
    project = draw(st.one_of(st.none(), _word))
    extra = {"type": "session"}
    extra.update(draw(st.dictionaries(_word.map(lambda w: "x_" + w), _phrase, max_size=2)))
    s = Session(
        title=title,
        project=project,
        status=draw(st.sampled_from(list(Status))),
        id=draw(st.one_of(st.none(), _word)),
        started=draw(st.one_of(st.none(), st.just("2026-05-18T14:01:10Z"), st.just("0123"))),
        cwd=draw(st.one_of(st.none(), st.just("/tmp/x y"))),
        summary=draw(st.one_of(st.none(), _fact_text)),
        context=tuple(draw(st.lists(_fact_text, max_size=3))),
        next_steps=tuple(draw(st.lists(_fact_text, max_size=3))),
        decisions=tuple(draw(st.lists(_fact_text, max_size=2))),
        gotchas=tuple(draw(st.lists(_fact_text, max_size=2))),
        tags=tuple(draw(st.lists(_word, max_size=3))),
        observations=tuple(draw(st.lists(_observations(), max_size=3))),
        relations=tuple(draw(st.lists(_links, max_size=3))),
        extra=extra,
    )
    permalink = generate_permalink(note_path(title), project=project)
    return attrs.evolve(s, extra={**s.extra, "permalink": permalink})


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(representable_sessions())
def test_round_trip_property(s: Session) -> None:
    doc = BASIC_MEMORY.write(s)
    again = BASIC_MEMORY.read(doc)
    assert again == s
    assert BASIC_MEMORY.write(again, base=doc).text == doc.text


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(representable_sessions(), representable_sessions())
def test_minimal_edit_property(a: Session, b: Session) -> None:
    """Editing note A into session B's facts gives a note that reads back as B."""
    base = BASIC_MEMORY.write(a)
    target = attrs.evolve(b, title=a.title, extra={**b.extra, "permalink": a.extra["permalink"]})
    out = BASIC_MEMORY.write(target, base=base)
    assert BASIC_MEMORY.read(out) == target


def test_lint_names_each_line_of_a_fact_section_that_is_no_fact() -> None:
    """BM008: prose in ``## Observations`` is kept by the note but is no fact; BM007 is secrets."""
    text = (
        "---\ntitle: S\ntype: session\npermalink: s\n---\n\n## Observations\n\n"
        "- [decision] use Postgres\nWe chose it because of JSONB.\n\n## Relations\n\n"
        "- relates_to [[Other]]\n<!-- a comment -->\n"
    )
    found = [
        (d.code, d.line)
        for d in sessionkit.lint(text, path="s.md", format="basic-memory")
        if d.code != "BM005"  # (the session schema wants project, started…)
    ]
    assert found == [("BM008", 10), ("BM008", 15)]
    assert sessionkit.dumps(sessionkit.loads(text, path="s.md", format="basic-memory")) == text


# -- every word of a fact section is held: lines that are no fact ---------------------

_WORD = __import__("re").compile(r"\w+")
_LOOSE = [
    "We chose it because of JSONB.",
    "> a quoted remark",
    "```\n- [decision] not a fact inside a fence\n```",
    "| a | table |\n|---|---|\n| one | two |",
    "<!-- a comment about the list -->",
    "### A sub-heading",
    "  - a nested child without a category",
    "1. a numbered line",
]
_FACTS = ["- [decision] use Postgres #db", "- [next_step] ship it", "- [idea] cache it (later)"]


@st.composite
def _fact_section_notes(draw: st.DrawFn) -> str:
    blocks = draw(st.lists(st.sampled_from(_FACTS + _LOOSE), min_size=1, max_size=7))
    sep = draw(st.sampled_from(["\n", "\n\n"]))
    rels = draw(
        st.lists(st.sampled_from(["- relates_to [[Other]]", "stray relation prose"]), max_size=3)
    )
    text = (
        "---\ntitle: S\ntype: session\npermalink: s\n---\n\n## Observations\n\n"
        + sep.join(blocks)
        + "\n"
    )
    if rels:
        text += "\n## Relations\n\n" + "\n\n".join(rels) + "\n"
    return text


def _model_words(session: Session) -> __import__("collections").Counter[str]:
    import collections
    import json

    from sessionkit.serialize import to_dict

    out: collections.Counter[str] = collections.Counter()
    todo: list[object] = [to_dict(session)]
    while todo:  # every string of the model's JSON form
        value = todo.pop()
        if isinstance(value, str):
            out.update(_WORD.findall(value))
        elif isinstance(value, dict):
            todo.extend(value.values())
        elif isinstance(value, list | tuple):
            todo.extend(value)
    assert json.loads(json.dumps(to_dict(session)))  # what show --json prints
    return out


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_fact_section_notes())
def test_every_word_of_a_fact_section_is_in_the_model(text: str) -> None:
    """Prose, fences, quotes, tables, comments, sub-headings and nested lines in
    ``## Observations`` / ``## Relations`` are held by the model (as text of the
    section in :attr:`Session.sections`): every word is in the model's JSON and in
    its canonical rendering, which reads back as the same sections; the note
    itself writes back byte for byte, and an edit of the facts keeps every word."""
    import collections

    session = sessionkit.loads(text, path="s.md", format="basic-memory")
    # the words a person wrote, less the headings and the categories of the facts
    # (which the model holds as its fields: decisions, next_steps…)
    bare = __import__("re").sub(r"(?m)^- \[\w+\] |^## \w+$", "", text.split("---\n", 2)[2])
    body = collections.Counter(_WORD.findall(bare))
    assert body - _model_words(session) == collections.Counter()
    assert sessionkit.dumps(session) == text
    canonical = sessionkit.dumps(attrs.evolve(session, origin=None), format="basic-memory")
    assert body - collections.Counter(_WORD.findall(canonical)) == collections.Counter()
    again = sessionkit.loads(canonical, path="s.md", format="basic-memory")
    assert again.sections == session.sections
    edited = sessionkit.dumps(attrs.evolve(session, next_steps=(*session.next_steps, "more")))
    assert body - collections.Counter(_WORD.findall(edited)) == collections.Counter()


def test_an_edit_of_the_loose_lines_changes_only_them() -> None:
    """Dropping the prose of ``## Observations`` from the model removes those lines
    and leaves the facts around them as they were."""
    text = (
        "---\ntitle: S\ntype: session\npermalink: s\n---\n\n## Observations\n\n"
        "- [decision] use Postgres\n\nWe chose it because of JSONB.\n\n- [next_step] ship it\n"
    )
    session = sessionkit.loads(text, path="s.md", format="basic-memory")
    assert (
        ExtraSection(title="Observations", body="We chose it because of JSONB.") in session.sections
    )
    kept = tuple(s for s in session.sections if s.title != "Observations")
    out = sessionkit.dumps(attrs.evolve(session, sections=kept))
    assert "JSONB" not in out
    assert "- [decision] use Postgres\n" in out and out.endswith("- [next_step] ship it\n")
    assert sessionkit.loads(out, path="s.md", format="basic-memory").decisions == ("use Postgres",)
