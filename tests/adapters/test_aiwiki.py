"""The aiwiki adapter: reading, writing (canonical and minimal edits), detection, schemas."""

from __future__ import annotations

import difflib
from pathlib import Path

import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sessionkit.adapters import Adapter, detect_format, get_adapter
from sessionkit.adapters.aiwiki import (
    AIWIKI_V1,
    AIWIKI_V2,
    AiwikiAdapter,
    builtin_schema,
    load_schema,
    schema_for_root,
)
from sessionkit.document import parse
from sessionkit.errors import FormatError, ParseError
from sessionkit.model import Citation, DirectiveState, ExtraSection, Session, Status, list_blocks

from ._aiwiki_helpers import CORPUS_V1, CORPUS_V2, page_path, read_text, sessions

ALL = [*CORPUS_V2, *CORPUS_V1]


def _adapter(path: Path) -> AiwikiAdapter:
    return AIWIKI_V1 if path.parent.name == "aiwiki-v1" else AIWIKI_V2


def _diff(a: str, b: str) -> tuple[list[str], list[str]]:
    removed, added = [], []
    for line in difflib.ndiff(a.splitlines(keepends=True), b.splitlines(keepends=True)):
        if line.startswith("- "):
            removed.append(line[2:])
        elif line.startswith("+ "):
            added.append(line[2:])
    return removed, added


def test_corpus_sizes() -> None:
    assert len(CORPUS_V2) >= 30
    assert len(CORPUS_V1) >= 20


def test_adapters_implement_the_protocol() -> None:
    assert isinstance(AIWIKI_V2, Adapter)
    assert isinstance(AIWIKI_V1, Adapter)
    assert get_adapter("aiwiki-v2") is AIWIKI_V2
    assert get_adapter("aiwiki-v1") is AIWIKI_V1


@pytest.mark.parametrize("path", ALL, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_unchanged_session_writes_back_the_exact_text(path: Path) -> None:
    text = read_text(path)
    doc = parse(text, page_path(path))
    adapter = _adapter(path)
    session = adapter.read(doc)
    assert adapter.write(session, base=doc).text == text
    # without the origin too: the diff is made against a re-read of the base
    assert adapter.write(attrs.evolve(session, origin=None), base=doc).text == text


@pytest.mark.parametrize("path", ALL, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_canonical_render_reads_back_equal(path: Path) -> None:
    doc = parse(read_text(path), page_path(path))
    adapter = _adapter(path)
    session = adapter.read(doc)
    fresh = adapter.write(session)
    assert adapter.read(fresh) == session
    # a canonical page is its own fixed point
    assert adapter.write(adapter.read(fresh)).text == fresh.text


@pytest.mark.parametrize("path", ALL, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_appending_a_next_step_adds_one_line(path: Path) -> None:
    text = read_text(path)
    doc = parse(text, page_path(path))
    adapter = _adapter(path)
    session = adapter.read(doc)
    edited = attrs.evolve(session, next_steps=(*session.next_steps, "ship it"))
    out = adapter.write(edited, base=doc)
    assert adapter.read(out) == edited
    removed, added = _diff(text, out.text)
    # the new item takes the marker of the list's last item ("- " in a plain list)
    line = f"{list_blocks(edited, 'next_steps')[-1].marker} ship it"
    if session.next_steps:
        assert [a.rstrip("\r\n") for a in added if a.rstrip("\r\n") == line] == [line]
        non_eol = [r for r in removed if r.rstrip("\r\n") not in {a.rstrip("\r\n") for a in added}]
        assert non_eol == []
        assert len([a for a in added if a.rstrip("\r\n") == line]) == 1
        # everything else is byte-identical apart from a terminated last line
        assert len(out.text) - len(text) in {len(line) + len(doc.newline) * k for k in (1, 2)}
    # the new line uses the file's newline style
    if doc.newline == "\r\n":
        assert line + "\r\n" in out.text or out.text.endswith(line)


def test_appended_bullet_is_a_single_line_in_a_list_page() -> None:
    path = next(p for p in CORPUS_V2 if p.name == "2026-05-19-a1b2c3d.md")
    text = read_text(path)
    doc = parse(text)
    s = AIWIKI_V2.read(doc)
    out = AIWIKI_V2.write(attrs.evolve(s, next_steps=(*s.next_steps, "x")), base=doc)
    removed, added = _diff(text, out.text)
    assert removed == [] and added == ["- x\r\n"]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sessions(version=2))
def test_v2_render_round_trip(session: Session) -> None:
    doc = AIWIKI_V2.write(session)
    assert AIWIKI_V2.read(doc) == session
    assert AIWIKI_V2.lint(doc) is not None


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sessions(version=1))
def test_v1_render_round_trip(session: Session) -> None:
    doc = AIWIKI_V1.write(session)
    assert AIWIKI_V1.read(doc) == session
    assert "session_id" not in doc.meta and doc.meta["schema_version"] == 1


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sessions(version=2), sessions(version=2))
def test_edit_turns_one_page_into_another(first: Session, second: Session) -> None:
    base = AIWIKI_V2.write(first)
    out = AIWIKI_V2.write(second, base=base)
    assert AIWIKI_V2.read(out) == second


# -- reading ------------------------------------------------------------------

SKELETON = read_text(next(p for p in CORPUS_V2 if p.name == "2026-05-18-7e8a3f2.md"))


def test_read_maps_the_skeleton() -> None:
    doc = parse(SKELETON, "aiwiki/sessions/2026-05-18-7e8a3f2.md")
    s = AIWIKI_V2.read(doc)
    assert s.id == "7e8a3f2-9a4b-4c8d-b1e2-f5a6c7d8e9f0"
    assert s.status is Status.ACTIVE
    assert s.started == "2026-05-18" and s.ended is None and s.last_commit is None
    assert s.extra == {}
    (cp,) = s.checkpoints
    assert (cp.event, cp.at) == ("PreCompact", "2026-05-18T14:23:00Z")
    assert cp.body.startswith("Active work: feature/wire-dream\n")
    assert cp.body.endswith("artifacts.codify.locked_at: ~\n```")
    (d,) = cp.directives
    assert d.kind == "Dream" and d.state is DirectiveState.UNCONSUMED
    assert d.status == "unconsumed"
    assert d.items[0] == "Scope: `aiwiki/raw/`, recently-touched typed pages"
    assert d.action == "invoke `support-dream` skill before resuming other work"
    # the placeholder is not a bullet
    assert s.files_touched == () and s.next_steps == ()
    assert s.origin is not None and s.origin.format == "aiwiki-v2"
    assert s.origin.document is doc
    assert s.origin.session == s and s.origin.session.origin is None


def test_read_every_citation_form() -> None:
    path = next(p for p in CORPUS_V2 if p.name == "2026-06-06-c4d5e6f.md")
    s = AIWIKI_V2.read(parse(read_text(path)))
    by_path = {c.path: c for c in s.files_touched}
    assert by_path["src/full.py"] == Citation(path="src/full.py", start=12, sha="3333333")
    assert by_path["src/range.py"] == Citation(path="src/range.py", start=3, end=9, sha="3333333")
    assert by_path["src/file.py"] == Citation(path="src/file.py", sha="3333333")
    assert by_path["src/plain.py"] == Citation(path="src/plain.py")
    assert by_path["src/bare.py"] == Citation(
        path="src/bare.py", start=4, sha="3333333", code=False
    )
    assert by_path["src/bare_plain.py"].code is False
    assert by_path["src/line_only.py"].start == 77 and by_path["src/line_only.py"].sha is None
    assert by_path["src/noted.py"].note == "— with a note"
    assert by_path["Makefile"].sha == "3333333"
    assert len(by_path["src/long_sha.py"].sha or "") == 40


def test_non_citation_bullet_is_kept_verbatim() -> None:
    path = next(p for p in CORPUS_V2 if p.name == "2026-06-07-d5e6f70.md")
    s = AIWIKI_V2.read(parse(read_text(path)))
    first = s.files_touched[0]
    assert first == Citation(path="the whole `docs/` folder, roughly", code=False)
    assert first.render() == "the whole `docs/` folder, roughly"


def test_multi_line_bullets_keep_their_continuation_lines() -> None:
    path = next(p for p in CORPUS_V2 if p.name == "2026-05-29-4d5e6f7.md")
    s = AIWIKI_V2.read(parse(read_text(path)))
    assert s.decisions == (
        "First decision spans\n  two lines",
        "Second decision has a nested list:\n  - sub point one\n  - sub point two",
    )
    assert s.next_steps[0] == "Step with a code block:\n\n  ```\n  make test\n  ```"
    # Citation.render() cannot spell a line break after the reference: kept verbatim
    assert s.files_touched[0] == Citation(
        path="`src/a.py:1@1111111`\n  continuation that explains the change", code=False
    )
    assert s.files_touched[1].sha == "1111111"


def test_preamble_and_unknown_sections() -> None:
    path = next(p for p in CORPUS_V2 if p.name == "2026-05-31-6f70819.md")
    s = AIWIKI_V2.read(parse(read_text(path)))
    assert [x.title for x in s.sections] == ["Context", "Scratch"]
    assert s.sections[1].body == "\n- random thought\n- another one"
    assert s.extra == {"extra_flag": True, "priority": 3}
    pre = AIWIKI_V2.read(
        parse(read_text(next(p for p in CORPUS_V2 if p.name == "2026-05-28-3c4d5e6.md")))
    )
    assert pre.sections[0] == ExtraSection(
        title="",
        body="\n# Session 2026-05-28\n\n"
        "A short intro paragraph some people write before the sections.",
    )
    assert [d.kind for d in pre.checkpoints[0].directives] == ["Dream", "Review"]


def test_headings_in_fences_are_not_checkpoints() -> None:
    path = next(p for p in CORPUS_V2 if p.name == "2026-05-23-d00d123.md")
    s = AIWIKI_V2.read(parse(read_text(path)))
    assert [cp.event for cp in s.checkpoints] == ["PreCompact", "Wrap"]
    assert "### Not a checkpoint at 2026-01-01T00:00:00Z" in s.checkpoints[0].body
    assert s.checkpoints[0].directives[0].consumed_at == "2026-05-24T00:20:00Z"


def test_ids_and_shas_stay_strings() -> None:
    path = next(p for p in CORPUS_V2 if p.name == "2026-05-19-a1b2c3d.md")
    s = AIWIKI_V2.read(parse(read_text(path)))
    assert s.last_commit == "0123456"
    assert s.focus == "parser: handle CRLF frontmatter"


@pytest.mark.parametrize(
    ("text", "error", "line"),
    [
        ("---\nschema_id: session\n", ParseError, 1),
        ("---\nschema_id: session\nfocus: [unclosed\n---\n", ParseError, None),
        ("---\nschema_id: session\nstatus: a\nstatus: b\n---\n", ParseError, 4),
        ("---\n- a list\n---\n", ParseError, 2),
        ("---\nschema_id: adr\n---\n", FormatError, 2),
        ("---\nschema_id: session\nstatus: paused\n---\n", FormatError, 3),
        ("---\nschema_id: session\nfocus: {a: 1}\n---\n", FormatError, 3),
    ],
)
def test_read_errors_carry_path_and_line(
    text: str, error: type[Exception], line: int | None
) -> None:
    with pytest.raises(error) as info:
        AIWIKI_V2.read(parse(text, "aiwiki/sessions/x.md"))
    found = info.value.line  # type: ignore[attr-defined]
    if line is None:  # YAML syntax error: somewhere inside the frontmatter
        assert found is not None and 2 <= found <= text.count("\n")
    else:
        assert found == line
    assert info.value.path == "aiwiki/sessions/x.md"  # type: ignore[attr-defined]


# -- writing ------------------------------------------------------------------


def test_directive_flip_replaces_only_the_header_and_status_line() -> None:
    doc = parse(SKELETON)
    s = AIWIKI_V2.read(doc)
    cp = s.checkpoints[0]
    d = attrs.evolve(
        cp.directives[0],
        state=DirectiveState.CONSUMED,
        consumed_at="2026-05-18T15:00:00Z",
        status="consumed",
    )
    out = AIWIKI_V2.write(
        attrs.evolve(s, checkpoints=(attrs.evolve(cp, directives=(d,)),)), base=doc
    )
    removed, added = _diff(SKELETON, out.text)
    assert removed == ["**Dream directive (unconsumed):**\n", "- Status: unconsumed\n"]
    assert added == [
        "**Dream directive (consumed at 2026-05-18T15:00:00Z):**\n",
        "- Status: consumed\n",
    ]
    assert AIWIKI_V2.read(out).unconsumed() == []


def test_status_line_is_never_appended_when_present() -> None:
    doc = parse(SKELETON)
    s = AIWIKI_V2.read(doc)
    cp = s.checkpoints[0]
    d = attrs.evolve(cp.directives[0], status="consumed")
    out = AIWIKI_V2.write(
        attrs.evolve(s, checkpoints=(attrs.evolve(cp, directives=(d,)),)), base=doc
    )
    assert out.text.count("- Status:") == 1
    assert len(out.lines) == len(doc.lines)


def test_appending_a_checkpoint() -> None:
    doc = parse(SKELETON)
    s = AIWIKI_V2.read(doc)
    new_cp = attrs.evolve(s.checkpoints[0], at="2026-05-18T16:00:00Z", body="Later.", directives=())
    out = AIWIKI_V2.write(attrs.evolve(s, checkpoints=(*s.checkpoints, new_cp)), base=doc)
    removed, added = _diff(SKELETON, out.text)
    assert removed == []
    assert "### PreCompact at 2026-05-18T16:00:00Z\n" in added
    assert AIWIKI_V2.read(out).checkpoints[1] == new_cp
    assert AIWIKI_V2.lint(out) == []


def test_new_section_goes_in_schema_order() -> None:
    path = next(p for p in CORPUS_V2 if p.name == "2026-05-24-e1e2e3e.md")
    doc = parse(read_text(path))
    s = AIWIKI_V2.read(doc)
    out = AIWIKI_V2.write(attrs.evolve(s, gotchas=("[[gotcha-new]]",)), base=doc)
    assert [x.title for x in out.sections] == ["Checkpoints", "Gotchas surfaced", "Next steps"]
    assert AIWIKI_V2.lint(out) == []
    removed, added = _diff(doc.text, out.text)
    assert removed == []
    assert [a for a in added if a.strip()] == ["## Gotchas surfaced\n", "- [[gotcha-new]]\n"]


def test_frontmatter_edits_keep_comments_and_quoting() -> None:
    path = next(p for p in CORPUS_V2 if p.name == "2026-05-21-b7c9d01.md")
    text = read_text(path)
    doc = parse(text)
    s = AIWIKI_V2.read(doc)
    out = AIWIKI_V2.write(attrs.evolve(s, status=Status.ABANDONED, last_commit="0000001"), base=doc)
    removed, added = _diff(text, out.text)
    assert removed == ["status: done  # wrapped\n", "last_commit: 'abc1234'\n"]
    assert added == ["status: abandoned  # wrapped\n", "last_commit: '0000001'\n"]


def test_multi_line_value_and_extra_keys() -> None:
    path = next(p for p in CORPUS_V2 if p.name == "2026-05-21-b7c9d01.md")
    doc = parse(read_text(path))
    s = AIWIKI_V2.read(doc)
    extra = {"owner": "ana", "ticket": "0042"}
    out = AIWIKI_V2.write(attrs.evolve(s, focus="one line now", extra=extra), base=doc)
    again = AIWIKI_V2.read(out)
    assert again.focus == "one line now" and again.extra == extra
    assert "schema_id: session   # do not change" in out.text


def test_removing_an_extra_key_removes_only_its_lines() -> None:
    path = next(p for p in CORPUS_V2 if p.name == "2026-06-11-1920304.md")
    text = read_text(path)
    doc = parse(text)
    s = AIWIKI_V2.read(doc)
    out = AIWIKI_V2.write(attrs.evolve(s, extra={"links": s.extra["links"]}), base=doc)
    removed, added = _diff(text, out.text)
    assert removed == ["reviewers:\n", "  - ana\n", "  - bo\n"] and added == []


def test_replacing_a_bullet_changes_only_its_lines() -> None:
    path = next(p for p in CORPUS_V2 if p.name == "2026-05-29-4d5e6f7.md")
    text = read_text(path)
    doc = parse(text)
    s = AIWIKI_V2.read(doc)
    out = AIWIKI_V2.write(attrs.evolve(s, decisions=(s.decisions[0], "Replaced")), base=doc)
    removed, added = _diff(text, out.text)
    assert removed == [
        "- Second decision has a nested list:\n",
        "  - sub point one\n",
        "  - sub point two\n",
    ]
    assert added == ["- Replaced\n"]


def test_v1_writer_refuses_what_v1_cannot_hold() -> None:
    with pytest.raises(FormatError):
        AIWIKI_V1.write(Session(id="abc"))
    s = AIWIKI_V2.read(parse(SKELETON))
    with pytest.raises(FormatError):
        AIWIKI_V1.write(attrs.evolve(s, id=None))


def test_canonical_layout_matches_the_skeleton_shape() -> None:
    s = AIWIKI_V2.read(parse(SKELETON))
    out = AIWIKI_V2.write(s).text
    keys = [line.split(":")[0] for line in out.split("---\n")[1].splitlines()]
    assert keys == [
        "schema_id",
        "schema_version",
        "status",
        "date_start",
        "session_id",
        "focus",
        "last_commit",
    ]
    assert "\ndate_start: 2026-05-18\n" in out  # plain, as the skeleton writes it
    assert "session_id: '7e8a3f2-9a4b-4c8d-b1e2-f5a6c7d8e9f0'" in out
    assert out.count("(filled by /wrap)") == 5
    assert "**Dream directive (unconsumed):**\n- Scope:" in out


def test_date_keys_are_written_plain_and_read_back_as_strings() -> None:
    page = (
        "---\nschema_id: session\nschema_version: 2\nstatus: active\n"
        'date_start: 2026-05-18\nsession_id: "7e8a3f21"\nlast_commit: "0123456"\n---\n\n'
        "## Checkpoints\n"
    )
    s = AIWIKI_V2.read(parse(page))
    done = attrs.evolve(s, status=Status.DONE, ended="2026-05-20", last_commit="0099999")
    out = AIWIKI_V2.write(done, base=parse(page)).text
    assert "\ndate_end: 2026-05-20\n" in out and "'2026-05-20'" not in out
    assert "\nlast_commit: '0099999'\n" in out  # a SHA stays quoted
    moved = AIWIKI_V2.write(attrs.evolve(s, started="2026-05-17"), base=parse(page)).text
    assert "\ndate_start: 2026-05-17\n" in moved
    again = AIWIKI_V2.read(parse(out))
    assert (again.started, again.ended, again.last_commit) == (
        "2026-05-18",
        "2026-05-20",
        "0099999",
    )
    # a new page: dates plain, ids quoted; a value that is not a real date stays quoted
    fresh = AIWIKI_V2.write(attrs.evolve(done, origin=None, id="0000001")).text
    assert "\ndate_start: 2026-05-18\ndate_end: 2026-05-20\nsession_id: '0000001'\n" in fresh
    # an agent's UUID is plain, as the plugin writes it (no YAML reader takes it for another type)
    uuid = "2d6b0a35-efb2-c80f-a8c9-ea4668bad905"
    plain = AIWIKI_V2.write(attrs.evolve(done, origin=None, id=uuid)).text
    assert f"\nsession_id: {uuid}\n" in plain and AIWIKI_V2.read(parse(plain)).id == uuid
    odd = AIWIKI_V2.write(attrs.evolve(done, origin=None, ended="2026-13-40")).text
    assert "\ndate_end: '2026-13-40'\n" in odd
    assert AIWIKI_V2.read(parse(odd)).ended == "2026-13-40"


# -- detection and schemas -----------------------------------------------------


@pytest.mark.parametrize("path", ALL, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_detect_picks_the_declared_version(path: Path) -> None:
    doc = parse(read_text(path), page_path(path))
    expected = "aiwiki-v1" if path.parent.name == "aiwiki-v1" else "aiwiki-v2"
    assert detect_format(doc) == expected


def test_detect_scores() -> None:
    no_version = parse("---\nschema_id: session\nstatus: active\n---\n## Next steps\n")
    assert AIWIKI_V2.detect(no_version) == 50 and AIWIKI_V1.detect(no_version) == 0
    bm = parse("---\ntitle: A note\ntype: session\n---\n# A note\n")
    assert AIWIKI_V2.detect(bm) == 0 and AIWIKI_V1.detect(bm) == 0
    broken = parse("---\nschema_id: [\n---\n", "wiki/aiwiki/sessions/x.md")
    assert AIWIKI_V2.detect(broken) == 5 and AIWIKI_V1.detect(broken) == 0
    assert AIWIKI_V2.detect(parse("---\n---\n", "aiwiki/sessions/x.md")) == 5
    odd = parse("---\nschema_id: session\nschema_version: true\n---\n")
    assert AIWIKI_V2.detect(odd) == 50 and AIWIKI_V1.detect(odd) == 0
    other = parse("---\nschema_id: adr\nschema_version: 2\n---\n")
    assert AIWIKI_V2.detect(other) == 0


def test_builtin_schemas_are_data() -> None:
    v2, v1 = builtin_schema(2), builtin_schema(1)
    assert v2.hard_cap == 400 and v1.hard_cap == 200
    assert v2.sections[0] == "Checkpoints" and "Checkpoints" not in v1.sections
    assert v2.key("session_id") is not None and v1.key("session_id") is None
    assert v2.key("status").values == ("active", "done", "abandoned")  # type: ignore[union-attr]
    assert v2.filename_pattern == "{date}-{session_id_short}.md"


def test_wiki_schema_overrides_builtin(tmp_path: Path) -> None:
    own = tmp_path / "aiwiki" / "schemas" / "session.md"
    own.parent.mkdir(parents=True)
    text = (
        Path(__file__).resolve().parents[2] / "sessionkit/adapters/schemas/aiwiki-session-v2.md"
    ).read_text("utf-8")
    own.write_text(text.replace("hard_cap_lines: 400", "hard_cap_lines: 10"), "utf-8")
    schema = schema_for_root(tmp_path, 2)
    assert schema.hard_cap == 10 and schema.source == str(own)
    assert schema_for_root(tmp_path, 1) == builtin_schema(1)
    assert schema_for_root(tmp_path / "nowhere", 2) == builtin_schema(2)
    doc = parse(SKELETON)
    codes = [d.code for d in AiwikiAdapter(2, schema).lint(doc)]
    assert codes == ["AW009"]
    assert [d.code for d in AIWIKI_V2.lint(doc, schema=schema)] == ["AW009"]
    assert load_schema(own) == schema


def test_load_schema_errors() -> None:
    with pytest.raises(FormatError):
        load_schema("---\nschema_id: session\n---\nbody\n")
    with pytest.raises(ParseError) as info:
        load_schema("---\nschema_id: [\n---\n")
    assert info.value.line in (2, 3)
    with pytest.raises(FormatError):
        load_schema(
            "---\nschema_id: session\nschema_version: 3\nrequired_frontmatter:\n"
            "  a: {type: blob}\n---\n"
        )


def _consume_all(session: Session, at: str) -> Session:
    cps = tuple(
        attrs.evolve(
            cp,
            directives=tuple(
                attrs.evolve(
                    d,
                    state=DirectiveState.CONSUMED,
                    consumed_at=at,
                    status="consumed" if d.status is not None else None,
                )
                if d.state is DirectiveState.UNCONSUMED
                else d
                for d in cp.directives
            ),
        )
        for cp in session.checkpoints
    )
    return attrs.evolve(session, checkpoints=cps)


@pytest.mark.parametrize("path", CORPUS_V2, ids=lambda p: p.name)
def test_consuming_directives_flips_headers_in_place(path: Path) -> None:
    text = read_text(path)
    doc = parse(text, page_path(path))
    s = AIWIKI_V2.read(doc)
    pending = s.unconsumed()
    edited = _consume_all(s, "2026-07-01T00:00:00Z")
    out = AIWIKI_V2.write(edited, base=doc)
    assert AIWIKI_V2.read(out) == edited and AIWIKI_V2.read(out).unconsumed() == []
    assert len(out.lines) == len(doc.lines)
    changed = [i for i, (a, b) in enumerate(zip(doc.lines, out.lines, strict=True)) if a != b]
    headers = [i for i in changed if "directive (" in doc.lines[i]]
    status_lines = [i for i in changed if i not in headers]
    assert len(headers) == len(pending)
    assert all("(unconsumed):**" in doc.lines[i] for i in headers)
    assert all("(consumed at 2026-07-01T00:00:00Z):**" in out.lines[i] for i in headers)
    assert all(out.lines[i].lstrip("-* ").startswith("Status: consumed") for i in status_lines)
    assert "(unconsumed):**" not in out.text


@pytest.mark.parametrize("path", CORPUS_V2[:10], ids=lambda p: p.name)
def test_public_api_round_trip(path: Path) -> None:
    import sessionkit

    text = read_text(path)
    s = sessionkit.loads(text, path=page_path(path))
    assert s.origin is not None and s.origin.format == "aiwiki-v2"
    assert sessionkit.dumps(s) == text
    more = sessionkit.dumps(attrs.evolve(s, next_steps=(*s.next_steps, "x")))
    assert sessionkit.loads(more).next_steps == (*s.next_steps, "x")


@settings(max_examples=100, deadline=None)
@given(st.text(st.characters(exclude_categories=("Cs",)), min_size=1))
def test_any_focus_round_trips_through_a_page(focus: str) -> None:
    s = Session(focus=focus, started="2026-01-01")
    assert AIWIKI_V2.read(AIWIKI_V2.write(s)).focus == focus
    doc = AIWIKI_V2.write(Session(focus="x", started="2026-01-01"))
    edited = AIWIKI_V2.write(attrs.evolve(AIWIKI_V2.read(doc), focus=focus), base=doc)
    assert AIWIKI_V2.read(edited).focus == focus
