"""Conversion between aiwiki and Basic Memory: lossless both ways, idempotent, conflict-safe."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import attrs
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import sessionkit
from sessionkit import get_adapter, lint, loads
from sessionkit.adapters.basic_memory import dump_yaml, note_path, render_note
from sessionkit.adapters.profiles import generate_permalink
from sessionkit.diagnostics import Severity
from sessionkit.errors import FormatError, UnsupportedFormatError, ValidationError
from sessionkit.model import (
    Checkpoint,
    Citation,
    Directive,
    DirectiveState,
    ExtraSection,
    Link,
    Observation,
    Session,
    Status,
)
from sessionkit.ops.convert import MANIFEST_NAME, convert, convert_text
from sessionkit.serialize import from_dict, to_json
from tests import strategies as S

ROOT = Path(__file__).resolve().parents[2]
V2 = ROOT / "tests" / "corpus" / "aiwiki-v2"
OWN = ROOT / "tests" / "corpus" / "convert"
BM_EXAMPLES = ROOT / "examples" / "bm-project" / "sessions"
GOLDEN = ROOT / "tests" / "golden" / "basic-memory"
AIWIKI = get_adapter("aiwiki-v2")


def _read(path: Path) -> str:
    with path.open(encoding="utf-8", newline="") as fh:
        return fh.read()


def _errors(text: str, path: str, fmt: str | None = None) -> list[str]:
    return [str(d) for d in lint(text, path=path, format=fmt) if d.severity is Severity.ERROR]


def _lint_clean(path: Path) -> bool:
    return not _errors(_read(path), f"aiwiki/sessions/{path.name}")


def _fresh_aiwiki(text: str, path: str) -> str:
    return str(AIWIKI.write(attrs.evolve(loads(text, path=path), origin=None)).text)


AIWIKI_PAGES = sorted(
    [p for p in V2.glob("*.md") if _lint_clean(p)] + sorted(OWN.glob("*.md")),
    key=lambda p: p.name,
)


def test_corpus_is_big_and_varied() -> None:
    assert len(AIWIKI_PAGES) >= 20
    sessions = [loads(_read(p), path=p.name) for p in AIWIKI_PAGES]
    directives = [d for s in sessions for cp in s.checkpoints for d in cp.directives]
    assert {d.state for d in directives} == set(DirectiveState)
    cites = [c for s in sessions for c in s.files_touched]
    assert any(c.start is None and c.sha is None for c in cites)
    assert any(c.start is not None and c.end is None and c.sha for c in cites)
    assert any(c.end is not None and c.sha for c in cites)
    assert any(c.sha and c.start is None for c in cites)
    assert any(c.note for c in cites) and any(not c.code for c in cites)
    assert any(s.extra for s in sessions) and any(s.sections for s in sessions)
    assert any(any(ord(ch) > 0x3000 for ch in _read(p)) for p in AIWIKI_PAGES)
    assert {s.status for s in sessions} == set(Status)


@pytest.mark.parametrize("page", AIWIKI_PAGES, ids=lambda p: p.name)
def test_aiwiki_to_bm_and_back(page: Path) -> None:
    text = _read(page)
    original = loads(text, path=page.name)
    bm = convert_text(text, to="basic-memory", path=page.name, project="demo")
    # a new note as Basic Memory's writer makes it: canonical frontmatter, permalink, file name
    key = _assert_canonical_bm(bm, "demo")
    assert not _errors(bm, key, "basic-memory")
    warnings = [d for d in lint(bm, path=key, format="basic-memory")]
    assert not warnings, warnings  # the Session schema validates with no warnings
    back = convert_text(bm, to="aiwiki-v2", path=key)
    assert to_json(loads(back, path=page.name)) == to_json(original)
    name = f"aiwiki/sessions/{(original.started or '')[:10]}-{(original.id or '0000000')[:7]}.md"
    assert not _errors(back, name)
    if _fresh_aiwiki(text, page.name) == text:
        assert back == text


def test_own_pages_are_canonical_and_come_back_byte_identical() -> None:
    pages = sorted(OWN.glob("*.md"))
    assert len(pages) >= 6
    for page in pages:
        text = _read(page)
        assert _fresh_aiwiki(text, page.name) == text
        bm = convert_text(text, to="basic-memory", path=page.name, project="demo")
        assert convert_text(bm, to="aiwiki-v2") == text


def _assert_canonical_bm(text: str, project: str) -> str:
    doc = sessionkit.parse(text)
    meta = doc.meta
    assert text.startswith("---\n" + dump_yaml(meta) + "---\n")
    assert list(meta)[:4] == ["title", "type", "permalink", "status"]
    key = note_path(meta["title"])
    assert meta["permalink"] == generate_permalink(key, project=project)
    assert meta["permalink"].startswith(project + "/sessions/")
    assert meta["type"] == "session"
    return key


def _bm_notes() -> list[Path]:
    return sorted(BM_EXAMPLES.glob("*.md"))


@pytest.mark.parametrize("note", _bm_notes(), ids=lambda p: p.name[:30])
def test_bm_examples_to_aiwiki_and_back(note: Path) -> None:
    text = _read(note)
    key = f"sessions/{note.name}"
    original = loads(text, path=key, format="basic-memory")
    page = convert_text(text, to="aiwiki-v2", path=key)
    session = loads(page)
    name = f"aiwiki/sessions/{session.started}-{(original.id or '')[:7]}.md"
    assert not _errors(page, name)
    back = convert_text(page, to="basic-memory")
    assert to_json(loads(back, path=key, format="basic-memory")) == to_json(original)
    canonical = render_note(attrs.evolve(original, origin=None))[1]
    if canonical == text:
        assert back == text


@pytest.mark.parametrize("note", sorted(GOLDEN.glob("*.md")), ids=lambda p: p.stem)
def test_bm_grammar_notes_keep_their_facts(note: Path) -> None:
    text = _read(note)
    key = f"sessions/{note.name}"
    original = loads(text, path=key, format="basic-memory")
    page = convert_text(text, to="aiwiki-v2", path=key, from_="basic-memory")
    back = convert_text(page, to="basic-memory")
    again = loads(back, path=key, format="basic-memory")
    # notes without frontmatter gain what Basic Memory itself adds on indexing
    assert {k: v for k, v in again.extra.items() if k not in ("type", "permalink")} == dict(
        original.extra
    )
    strip = {"extra": {}, "origin": None}
    assert to_json(attrs.evolve(again, **strip)) == to_json(attrs.evolve(original, **strip))


def _bm_sessions() -> list[Session]:
    """Notes in Basic Memory's own style, as its plugin and write_note make them."""
    out = []
    for i, status in enumerate(["open", "resumed", "closed", "open"]):
        out.append(
            Session(
                id=f"{i}{i}7e8a3f-9a4b-4c8d-b1e2-f5a6c7d8e9f0",
                title=f"Session 2026-05-1{i} 14:23:0{i} — plugin checkpoint {i}",
                started=f"2026-05-1{i}T11:05:41Z",
                ended=f"2026-05-1{i}T14:23:00Z" if i else None,
                project="demo",
                cwd="/home/me/src/app",
                status=Status.DONE if status == "closed" else Status.ACTIVE,
                summary="Moved readings to Postgres; `COPY` for bulk loads" if i % 2 else None,
                context=("Branch feature/pg #postgres", "psycopg 3 wants tuples (psycopg 3.2)"),
                next_steps=("Finish readings_between()",),
                decisions=("Bulk loads use COPY #postgres",) if i else (),
                gotchas=("Counter named _total got _total_total",),
                questions=("Keep SQLite for tests?",) if i == 2 else (),
                tags=("session", "auto-capture"),
                observations=(
                    Observation(category="idea", content="cache station metadata", tags=()),
                    Observation(category=None, content="plain #hashtag note", tags=("hashtag",)),
                ),
                relations=(
                    Link(target="Postgres Store", relation="produced"),
                    Link(target="ADR 0008", relation="relates_to", context="budget"),
                ),
                extra={"trigger": "auto", "capture": "extractive"},
                sections=(
                    ExtraSection(title="Summary", body="A paragraph of what happened."),
                    ExtraSection(title="Recent thread", body="- user: go\n- assistant: done"),
                ),
            )
        )
    return out


@pytest.mark.parametrize("index", range(4))
def test_bm_style_notes_round_trip_byte_identical(index: int) -> None:
    session = _bm_sessions()[index]
    key, text = render_note(session)
    word = ["open", "resumed", "closed", "open"][index]
    text = text.replace("status: open", f"status: {word}") if word == "resumed" else text
    original = loads(text, path=key, format="basic-memory")
    page = convert_text(text, to="aiwiki-v2", path=key)
    assert not _errors(page, f"aiwiki/sessions/2026-05-1{index}-{session.id[:7]}.md")  # type: ignore[index]
    back = convert_text(page, to="basic-memory")
    assert back == text
    assert to_json(loads(back, path=key, format="basic-memory")) == to_json(original)


def test_status_words_come_back_exactly() -> None:
    session = _bm_sessions()[0]
    _, text = render_note(session)
    for word in ("resumed", "wip", "abandoned", "closed"):
        note = text.replace("status: open", f"status: {word}")
        page = convert_text(note, to="aiwiki-v2", path="sessions/x.md")
        meta = sessionkit.parse(page).meta
        assert meta["status"] in ("active", "done", "abandoned")
        if word not in ("closed",):
            assert meta["bm_status"] == word
        assert convert_text(page, to="basic-memory") == note
    # aiwiki's abandoned has no Basic Memory word: closed + aiwiki_status
    page = _read(OWN / "2026-07-03-c0ffee4.md")
    bm = convert_text(page, to="basic-memory", project="demo")
    meta = sessionkit.parse(bm).meta
    assert (meta["status"], meta["aiwiki_status"]) == ("closed", "abandoned")
    assert convert_text(bm, to="aiwiki-v2") == page


def test_mapping_of_fields() -> None:
    page = _read(OWN / "2026-07-01-a7c3e21.md")
    bm = convert_text(page, to="basic-memory", project="demo")
    meta = sessionkit.parse(bm).meta
    assert meta["claude_session_id"] == "a7c3e21f-0b1d-4e2a-9c3b-5d6e7f8a9b0c"
    assert meta["started"] == "2026-07-01" and meta["project"] == "demo"
    assert meta["title"] == (
        "Session 2026-07-01 a7c3e21 — checkpoint with unconsumed and consumed directives"
    )
    assert json.loads(meta["aiwiki_sessionkit"]) == {"added": ["project"]}
    assert "## aiwiki: Checkpoints" in bm
    assert "**Dream directive (consumed at 2026-07-01T10:00:00Z):**" in bm
    assert "**Dream directive (unconsumed):**" in bm
    assert "- [next_step] Finish the Basic Memory carrier for checkpoints" in bm
    # and a plugin note: timestamps and BM-only facts travel in bm_* carriers
    note = _read(BM_EXAMPLES / "Session 2026-05-14 10-02-37 — retry budget metrics.md")
    out = convert_text(note, to="aiwiki-v2", path="sessions/x.md")
    meta = sessionkit.parse(out).meta
    assert meta["date_start"] == "2026-05-14" and meta["bm_started"] == "2026-05-14T08:47:10Z"
    assert meta["bm_project"] == "tidewater" and meta["bm_tags"] == ["session", "auto-capture"]
    assert meta["bm_trigger"] == "manual" and meta["bm_focus"] == "title"
    assert meta["session_id"] == "8b07d4e2-c19f-4a3b-8e6d-0f1a2b3c4d5e"
    # its prose sections travel namespaced, as lint accepts them, and come back by name
    assert "## bm: Observations" in out and "## bm: Recent thread" in out


def test_escaped_names_never_collide() -> None:
    page = _read(OWN / "2026-07-03-c0ffee4.md")
    bm = convert_text(page, to="basic-memory", project="demo")
    doc = sessionkit.parse(bm)
    assert doc.meta["type"] == "session" and doc.meta["aiwiki_type"] == "spike"
    assert "tags" not in doc.meta and doc.meta["aiwiki_tags"] == "not-bm-tags"
    # every aiwiki-only section is namespaced (so it cannot pass for Basic Memory's own)
    assert [s.title for s in doc.sections][:3] == [
        "aiwiki: Open questions",
        "aiwiki: Notes",
        "aiwiki: Observations",
    ]


def test_same_family_is_refused() -> None:
    page = _read(OWN / "2026-07-01-a7c3e21.md")
    with pytest.raises(UnsupportedFormatError):
        convert_text(page, to="aiwiki-v2")
    with pytest.raises(UnsupportedFormatError):
        convert_text(page, to="markdown")


def test_damaged_carrier_is_an_error() -> None:
    page = _read(OWN / "2026-07-01-a7c3e21.md")
    bm = convert_text(page, to="basic-memory", project="demo")
    bad = bm.replace('aiwiki_sessionkit: \'{"added":["project"]}\'', "aiwiki_sessionkit: '[1'")
    with pytest.raises(FormatError):
        convert_text(bad, to="aiwiki-v2")


# -- properties ----------------------------------------------------------------------------

_RESERVED = {
    "schema_id",
    "schema_version",
    "status",
    "date_start",
    "date_end",
    "focus",
    "session_id",
    "last_commit",
}

aiwiki_sessions = S.sessions(
    title=st.none(),
    summary=st.none(),
    project=st.none(),
    cwd=st.none(),
    context=st.just(()),
    tags=st.just(()),
    observations=st.just(()),
    relations=st.just(()),
    started=S.dates(),
    ended=st.none() | S.dates(),
    focus=S.words(),
    extra=S.extras().map(lambda d: {k: v for k, v in d.items() if k not in _RESERVED}),
    sections=st.lists(
        S.extra_sections(body=S.blocks().map(lambda b: "\n" + b if b else b)), max_size=2
    ).map(tuple),
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(aiwiki_sessions)
def test_property_aiwiki_bm_aiwiki(session: Session) -> None:
    text = str(AIWIKI.write(session).text)
    original = loads(text, path="p.md", format="aiwiki-v2")
    bm = convert_text(text, to="basic-memory", project="demo")
    back = convert_text(bm, to="aiwiki-v2")
    assert to_json(loads(back, format="aiwiki-v2")) == to_json(original)
    if _fresh_aiwiki(text, "p.md") == text:
        assert back == text


bm_sessions = S.sessions(
    checkpoints=st.just(()),
    files_touched=st.just(()),
    title=S.words(),
    focus=st.none(),
    started=S.timestamps(),
    ended=st.none() | S.timestamps(),
    project=st.just("demo"),
    sections=st.lists(S.extra_sections(), max_size=2).map(tuple),
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(bm_sessions)
def test_property_bm_aiwiki_bm(session: Session) -> None:
    try:
        key, text = render_note(session)
    except FormatError:
        assume(False)
        return
    original = loads(text, path=key, format="basic-memory")
    page = convert_text(text, to="aiwiki-v2", path=key)
    back = convert_text(page, to="basic-memory")
    assert to_json(loads(back, path=key, format="basic-memory")) == to_json(original)
    if render_note(attrs.evolve(original, origin=None))[1] == text:
        assert back == text


# -- stores -------------------------------------------------------------------------------


def _wiki(tmp_path: Path) -> Path:
    root = tmp_path / "wiki"
    folder = root / "aiwiki" / "sessions"
    folder.mkdir(parents=True)
    for page in AIWIKI_PAGES:
        (folder / page.name).write_bytes(page.read_bytes())
    return root


def _snapshot(root: Path) -> dict[str, tuple[bytes, int]]:
    return {
        str(p.relative_to(root)): (p.read_bytes(), p.stat().st_mtime_ns)
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.name.endswith(".lock")
    }


def test_store_conversion_both_ways_and_idempotent(tmp_path: Path) -> None:
    wiki = _wiki(tmp_path)
    bm = tmp_path / "bm"
    seen: list[tuple[int, int, str]] = []
    report = convert(
        wiki, bm, to="basic-memory", project="demo", progress=lambda *a: seen.append(a)
    )
    assert report.ok and not report.failures
    assert len(report.created) == len(AIWIKI_PAGES)
    assert seen[-1][:2] == (len(AIWIKI_PAGES), len(AIWIKI_PAGES))
    assert (bm / "sessions" / MANIFEST_NAME).is_file()
    before = _snapshot(bm)
    again = convert(wiki, bm, to="basic-memory", project="demo")
    assert again.written == [] and len(again.unchanged) == len(AIWIKI_PAGES)
    assert _snapshot(bm) == before  # no writes at all, manifest included
    # and back into a new wiki: the same sessions under the same file names
    wiki2 = tmp_path / "wiki2"
    report = convert(bm, wiki2, to="aiwiki-v2")
    assert report.ok and len(report.created) == len(AIWIKI_PAGES)
    for page in AIWIKI_PAGES:
        out = (wiki2 / "aiwiki" / "sessions" / page.name).read_text(encoding="utf-8")
        assert to_json(loads(out, path=page.name)) == to_json(loads(_read(page), path=page.name))
        if _fresh_aiwiki(_read(page), page.name) == _read(page):
            assert out == _read(page)
    before = _snapshot(wiki2)
    assert convert(bm, wiki2, to="aiwiki-v2").written == []
    assert _snapshot(wiki2) == before


def test_conflicts_and_force(tmp_path: Path) -> None:
    wiki = _wiki(tmp_path)
    bm = tmp_path / "bm"
    first = convert(wiki, bm, to="basic-memory", project="demo")
    key = first.created[0]
    note = bm / "sessions" / key
    edited = note.read_text(encoding="utf-8") + "\n- [idea] added by hand\n"
    note.write_text(edited, encoding="utf-8")
    report = convert(wiki, bm, to="basic-memory", project="demo")
    assert [c.target for c in report.conflicts] == [key]
    assert "edited by hand" in report.conflicts[0].message
    assert note.read_text(encoding="utf-8") == edited
    assert not report.ok
    dry = convert(wiki, bm, to="basic-memory", project="demo", force=True, dry_run=True)
    assert dry.updated == [key] and note.read_text(encoding="utf-8") == edited
    forced = convert(wiki, bm, to="basic-memory", project="demo", force=True)
    assert forced.updated == [key] and forced.ok
    assert note.read_text(encoding="utf-8") != edited
    assert convert(wiki, bm, to="basic-memory", project="demo").written == []


def test_a_note_not_written_by_convert_is_a_conflict(tmp_path: Path) -> None:
    wiki = _wiki(tmp_path)
    bm = tmp_path / "bm"
    dry = convert(wiki, bm, to="basic-memory", project="demo", dry_run=True)
    assert dry.created and not bm.exists()
    key = dry.created[0]
    (bm / "sessions").mkdir(parents=True)
    (bm / "sessions" / key).write_text("---\ntitle: mine\n---\n", encoding="utf-8")
    report = convert(wiki, bm, to="basic-memory", project="demo")
    assert [c.target for c in report.conflicts] == [key]
    assert "not written by sessionkit" in report.conflicts[0].message


def test_jobs_give_the_same_notes(tmp_path: Path) -> None:
    wiki = _wiki(tmp_path)
    one = convert(wiki, tmp_path / "a", to="basic-memory", project="demo")
    two = convert(wiki, tmp_path / "b", to="basic-memory", project="demo", jobs=2)
    assert one.created == two.created
    for key in one.created:
        assert (tmp_path / "a" / "sessions" / key).read_bytes() == (
            tmp_path / "b" / "sessions" / key
        ).read_bytes()


def test_report_dict_is_json() -> None:
    from sessionkit.ops.convert import ConversionIssue, ConversionReport

    report = ConversionReport(source="a", target="b", to="basic-memory")
    report.conflicts.append(ConversionIssue(source="x.md", target="y.md", message="m"))
    data = json.loads(json.dumps(report.to_dict()))
    assert data["ok"] is False and data["conflicts"][0]["target"] == "y.md"


# -- CLI ---------------------------------------------------------------------------------


def _cli(*args: str) -> Any:
    from sessionkit.cli import cli

    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def test_cli_convert(tmp_path: Path) -> None:
    wiki = _wiki(tmp_path)
    bm = tmp_path / "bm"
    res = _cli("convert", str(wiki), str(bm), "--to", "basic-memory", "--project", "demo")
    assert res.exit_code == 0, res.output
    assert f"wrote {len(AIWIKI_PAGES)} new" in res.output
    res = _cli("convert", str(wiki), str(bm), "--to", "basic-memory", "--project", "demo", "--json")
    data = json.loads(res.output)
    assert (
        res.exit_code == 0 and data["created"] == [] and len(data["unchanged"]) == len(AIWIKI_PAGES)
    )
    # a hand edit: exit 1 and a conflict, then --force
    note = bm / "sessions" / data["unchanged"][0]
    note.write_text(note.read_text(encoding="utf-8") + "\nhand edit\n", encoding="utf-8")
    res = _cli("convert", str(wiki), str(bm), "--project", "demo", "--to", "basic-memory")
    # the source did not change, the target was edited: a conflict
    assert res.exit_code == 1
    assert "conflict" in res.output
    res = _cli(
        "convert", str(wiki), str(bm), "--to", "basic-memory", "--project", "demo", "--force"
    )
    assert res.exit_code == 0 and "1 updated" in res.output
    # back to aiwiki with --from / --dry-run
    res = _cli("convert", str(bm), str(tmp_path / "w2"), "--from", "basic-memory", "--dry-run")
    assert res.exit_code == 0 and "would write" in res.output
    assert not (tmp_path / "w2").exists()


def test_cli_unusable_input(tmp_path: Path) -> None:
    res = _cli("convert", str(tmp_path / "missing"), str(tmp_path / "x"))
    assert res.exit_code == 2
    wiki = _wiki(tmp_path)
    res = _cli("convert", str(wiki), str(tmp_path / "x"), "--to", "aiwiki-v2")
    assert res.exit_code == 2


def test_cli_reports_failures(tmp_path: Path) -> None:
    wiki = _wiki(tmp_path)
    (wiki / "aiwiki" / "sessions" / "2026-01-01-broken.md").write_text(
        "---\nschema_id: session\nstatus: [\n---\n", encoding="utf-8"
    )
    res = _cli("convert", str(wiki), str(tmp_path / "bm"), "--to", "basic-memory")
    assert res.exit_code == 1
    assert "2026-01-01-broken.md" in res.output
    assert os.path.isdir(tmp_path / "bm" / "sessions")


def test_checkpoint_and_citation_model_survive_exactly() -> None:
    session = Session(
        id="0a1b2c3d-0000-4000-8000-000000000000",
        focus="x",
        started="2026-08-01",
        checkpoints=(
            Checkpoint(
                event="PreCompact",
                at="2026-08-01T10:00:00Z",
                directives=(
                    Directive(state=DirectiveState.CONSUMED, consumed_at="2026-08-01T11:00:00Z"),
                    Directive(items=("Scope: all",), status="consumed"),
                ),
            ),
        ),
        files_touched=(Citation(path="a_b/c.py", start=1, end=2, sha="abcdef0", note="— x (y)"),),
    )
    text = str(AIWIKI.write(session).text)
    back = convert_text(convert_text(text, to="basic-memory", project="p"), to="aiwiki-v2")
    assert back == text
    got = loads(back)
    assert got.checkpoints == session.checkpoints and got.files_touched == session.files_touched


AIWIKI_LISTS = (
    "Files touched",
    "Decisions made",
    "Gotchas surfaced",
    "Open questions",
    "Next steps",
)
#: a page as the aiwiki plugin writes it: a blank line between a directive's header and
#: its first bullet (two before the second one's)
PLUGIN_PAGE = """---
schema_id: session
schema_version: 2
status: active
date_start: 2026-08-02
session_id: 1b2c3d4e-0000-4000-8000-000000000000
focus: x
last_commit: ~
---

## Checkpoints

### PreCompact at 2026-08-02T10:00:00Z

Active work: none

**Dream directive (consumed at 2026-08-02T11:00:00Z):**

- Scope: `aiwiki/raw/`
- Action: invoke `support-dream`

---

### PreCompact at 2026-08-02T12:00:00Z

**Dream directive (unconsumed):**


- Action: invoke `support-dream`
- Status: unconsumed

---
""" + "".join(f"\n## {t}\n\n(filled by /wrap)\n" for t in AIWIKI_LISTS)


def test_a_directive_s_blank_lines_are_layout_that_comes_back() -> None:
    session = loads(PLUGIN_PAGE, path="2026-08-02-1b2c3d4.md")
    first, second = (cp.directives[0] for cp in session.checkpoints)
    assert (first.gap, second.gap) == (1, 2)
    # layout, not a fact: the same directive without it is equal, and the JSON is the same
    assert first == attrs.evolve(first, gap=0) and hash(first) == hash(attrs.evolve(first, gap=0))
    data = json.loads(to_json(session))
    assert "gap" not in data["checkpoints"][0]["directives"][0]
    data["checkpoints"][0]["directives"][0]["gap"] = 1  # (nor a key JSON may hold)
    with pytest.raises(ValidationError, match="unknown key"):
        from_dict(data)
    # written anew, the page is its bytes; through Basic Memory and back too, with no copy of it
    assert _fresh_aiwiki(PLUGIN_PAGE, "2026-08-02-1b2c3d4.md") == PLUGIN_PAGE
    bm = convert_text(PLUGIN_PAGE, to="basic-memory", project="p")
    assert "Active work: none" in bm and bm.count("Active work") == 1  # (no copy)
    assert convert_text(bm, to="aiwiki-v2") == PLUGIN_PAGE
    # a directive made anew is written as before: its bullets right below its header
    fresh = attrs.evolve(
        session,
        checkpoints=(
            attrs.evolve(session.checkpoints[0], directives=(attrs.evolve(first, gap=0),)),
        ),
        origin=None,
    )
    assert "(consumed at 2026-08-02T11:00:00Z):**\n- Scope" in str(AIWIKI.write(fresh).text)
