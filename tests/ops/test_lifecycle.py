"""sessionkit.ops.lifecycle: checkpoints, directives, add, status, prune, install_hooks."""

from __future__ import annotations

import datetime as dt
import difflib
import json
import os
import shutil
from pathlib import Path

import pytest

import sessionkit
from sessionkit.backends import open_store
from sessionkit.diagnostics import Severity
from sessionkit.errors import NotFoundError, ParseError, ValidationError
from sessionkit.model import DirectiveState, Status
from sessionkit.ops import lifecycle as lc

ROOT = Path(__file__).resolve().parents[2]
SESSIONS = ROOT / "examples" / "wiki" / "aiwiki" / "sessions"
EXAMPLE = SESSIONS / "2026-05-18-7e8a3f2.md"
SID = "7e8a3f21-9a4b-4c8d-b1e2-f5a6c7d8e9f0"
NOW = dt.datetime(2026, 5, 20, 9, 30, 5, tzinfo=dt.UTC)


def _store(root: Path) -> sessionkit.Store:
    return open_store(str(root), layout="aiwiki")


def _page(root: Path, name: str) -> Path:
    return root / "aiwiki" / "sessions" / name


def _clean(path: Path) -> None:
    diags = sessionkit.lint(path.read_text(encoding="utf-8"), path=str(path))
    assert [str(d) for d in diags if d.severity is not Severity.INFO] == []


def _ops(before: str, after: str) -> set[str]:
    matcher = difflib.SequenceMatcher(a=before.splitlines(), b=after.splitlines(), autojunk=False)
    return {tag for tag, *_ in matcher.get_opcodes()} - {"equal"}


@pytest.fixture()
def wiki(tmp_path: Path) -> Path:
    folder = tmp_path / "aiwiki" / "sessions"
    folder.mkdir(parents=True)
    shutil.copyfile(EXAMPLE, folder / EXAMPLE.name)
    return tmp_path


# -- helpers ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "short"),
    [
        (SID, "7e8a3f2"),
        ("abc", "abc"),
        ("../../etc/x", "etcx"),
        ("", lc.NO_ID),
        ("./././", lc.NO_ID),
        (None, lc.NO_ID),
        (42, lc.NO_ID),
    ],
)
def test_safe_short_id(raw: object, short: str) -> None:
    assert lc.safe_short_id(raw) == short


def test_iso_now_is_utc_seconds() -> None:
    local = dt.datetime(2026, 5, 20, 11, 30, 5, 999, tzinfo=dt.timezone(dt.timedelta(hours=2)))
    assert lc.iso_now(local) == "2026-05-20T09:30:05Z"


def _manifest(root: Path, kind: str, name: str, text: str) -> None:
    path = root / ".forge" / "work" / kind / name / "manifest.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_work_item_only_when_exactly_one_is_in_progress(tmp_path: Path) -> None:
    assert lc.find_work_item(tmp_path) is None
    _manifest(tmp_path, "bug", "done-one", "status: done\n")
    assert lc.find_work_item(tmp_path) is None
    _manifest(
        tmp_path,
        "feature",
        "wire-dream",
        "status: in-progress  # now\nartifacts:\n  prototype:\n    locked_at: 2026-05-17\n",
    )
    item = lc.find_work_item(tmp_path)
    assert item == lc.WorkItem(
        name="feature/wire-dream",
        manifest=".forge/work/feature/wire-dream/manifest.yaml",
        status="in-progress",
        phases=(("artifacts.prototype.locked_at", "2026-05-17"),),
    )
    _manifest(tmp_path, "feature", "second", "status: 'in-progress'\n")
    assert lc.find_work_item(tmp_path) is None


# -- record_checkpoint ----------------------------------------------------------------------


def test_record_checkpoint_creates_the_v2_skeleton(tmp_path: Path) -> None:
    _manifest(tmp_path, "feature", "x", "status: in-progress\n")
    report = lc.record_checkpoint(
        _store(tmp_path),
        {"session_id": SID, "cwd": str(tmp_path), "trigger": "auto"},
        now=NOW,
    )
    assert report.key == "2026-05-20-7e8a3f2.md" and report.created
    assert report.at == "2026-05-20T09:30:05Z" and report.payload_ok
    text = _page(tmp_path, report.key).read_text(encoding="utf-8")
    assert text.startswith(
        "---\nschema_id: session\nschema_version: 2\nstatus: active\n"
        "date_start: 2026-05-20\n"
        f"session_id: {SID}\nfocus: unset\nlast_commit: ~\n---\n\n"
        "## Checkpoints\n\n### PreCompact at 2026-05-20T09:30:05Z\n\n"
        "Active work: feature/x\nManifest: .forge/work/feature/x/manifest.yaml\n\n"
        "Phase status (from manifest):\n```yaml\nstatus: in-progress\n```\n\n"
        "**Dream directive (unconsumed):**\n"
        "- Scope: `aiwiki/raw/`, recently-touched typed pages\n"
        "- Trigger: pre-compact (auto)\n"
        "- Action: invoke `support-dream` skill before resuming other work\n\n---\n\n"
        "## Files touched\n"
    )
    _clean(_page(tmp_path, report.key))


def test_record_checkpoint_appends_to_an_existing_page(wiki: Path) -> None:
    page = _page(wiki, EXAMPLE.name)
    before = page.read_text(encoding="utf-8")
    spec = lc.DirectiveSpec(kind="Refine", scope="", action="run refine")
    report = lc.record_checkpoint(
        _store(wiki), {"session_id": SID, "trigger": "manual"}, now=NOW, directive=spec
    )
    assert report.key == EXAMPLE.name and not report.created
    after = page.read_text(encoding="utf-8")
    assert _ops(before, after) == {"insert"}
    s = sessionkit.loads(after)
    assert len(s.checkpoints) == 3
    last = s.checkpoints[-1]
    assert last.at == "2026-05-20T09:30:05Z" and "Active work: none found" in last.body
    assert last.directives[0].kind == "Refine"
    assert last.directives[0].items == ("Trigger: pre-compact (manual)", "Action: run refine")
    _clean(page)


@pytest.mark.parametrize("payload", [None, [], "x", {}, {"session_id": 7}, {"session_id": "a/b"}])
def test_bad_payload_records_under_0000000(tmp_path: Path, payload: object) -> None:
    report = lc.record_checkpoint(_store(tmp_path), payload, now=NOW)
    assert report.key == "2026-05-20-0000000.md" and report.short_id == lc.NO_ID
    assert not report.payload_ok
    s = sessionkit.loads(_page(tmp_path, report.key).read_text(encoding="utf-8"))
    assert s.id is None and len(s.checkpoints) == 1


def test_0000000_pages_are_per_day(tmp_path: Path) -> None:
    store = _store(tmp_path)
    lc.record_checkpoint(store, {}, now=NOW)
    lc.record_checkpoint(store, {}, now=NOW + dt.timedelta(days=1))
    assert store.keys() == ["2026-05-20-0000000.md", "2026-05-21-0000000.md"]


# -- directives ------------------------------------------------------------------------------


def test_consume_flips_header_and_updates_status_line(wiki: Path) -> None:
    page = _page(wiki, EXAMPLE.name)
    before = page.read_text(encoding="utf-8")
    report = lc.consume_directives(_store(wiki), now=NOW)
    assert report.key == EXAMPLE.name and report.remaining == 0
    assert [d.index for d in report.consumed] == [2]
    # the report describes each directive after the flip
    assert [(d.state, d.consumed_at) for d in report.consumed] == [
        (DirectiveState.CONSUMED, "2026-05-20T09:30:05Z")
    ]
    after = page.read_text(encoding="utf-8")
    diff = [(a, b) for a, b in zip(before.splitlines(), after.splitlines(), strict=True) if a != b]
    assert diff == [
        (
            "**Dream directive (unconsumed):**",
            "**Dream directive (consumed at 2026-05-20T09:30:05Z):**",
        ),
        ("- Status: unconsumed", "- Status: consumed"),
    ]
    assert "Status: consumed\n- Status" not in after
    _clean(page)
    # nothing left: a second call changes nothing
    again = lc.consume_directives(_store(wiki), now=NOW)
    assert again.consumed == () and page.read_text(encoding="utf-8") == after


def test_consume_default_index_and_all(tmp_path: Path) -> None:
    store = _store(tmp_path)
    for minute in range(3):
        lc.record_checkpoint(store, {"session_id": SID}, now=NOW + dt.timedelta(minutes=minute))
    assert lc.consume_directives(store, now=NOW).consumed[0].index == 3
    assert [d.index for d in lc.consume_directives(store, index=1, now=NOW).consumed] == [1]
    with pytest.raises(ValidationError):
        lc.consume_directives(store, index=9)
    with pytest.raises(ValidationError):
        lc.consume_directives(store, index=1, all=True)
    # an already consumed number is a no-op
    assert lc.consume_directives(store, index=1).consumed == ()
    report = lc.consume_directives(store, all=True, now=NOW)
    assert [d.index for d in report.consumed] == [2] and report.remaining == 0
    s = store.get(store.latest() or "")
    assert all(d.state is DirectiveState.CONSUMED for cp in s.checkpoints for d in cp.directives)
    _clean(_page(tmp_path, "2026-05-20-7e8a3f2.md"))


def test_consume_by_session_id_and_missing_session(wiki: Path) -> None:
    store = _store(wiki)
    assert lc.consume_directives(store, "7e8a3f2", now=NOW).key == EXAMPLE.name
    with pytest.raises(NotFoundError):
        lc.consume_directives(store, "ffffffff")
    with pytest.raises(NotFoundError):
        lc.consume_directives(_store(wiki / "empty"))


# -- add / status ---------------------------------------------------------------------------


def test_add_items_fill_placeholders_and_create_sections_in_order(tmp_path: Path) -> None:
    store = _store(tmp_path)
    folder = tmp_path / "aiwiki" / "sessions"
    folder.mkdir(parents=True)
    page = folder / "2026-05-20-abcdef0.md"
    page.write_text(
        "---\nschema_id: session\nschema_version: 2\nstatus: active\n"
        "date_start: 2026-05-20\nsession_id: abcdef0\nfocus: unset\n---\n\n"
        "## Checkpoints\n\n## Open questions\n\n(filled by /wrap)\n",
        encoding="utf-8",
    )
    lc.add_item(store, "question", "Keep SQLite? [[adr-3]]")
    lc.add_item(store, "next-step", "Run the backfill")
    lc.add_item(store, "decision", "Use COPY [[adr-9]]", session="abcdef0")
    lc.add_item(store, "gotcha", "copy() wants tuples [[gotcha-copy]]")
    report = lc.add_item(store, "file", "src/store.py:1-40@9c03b7f")
    assert report.text == "`src/store.py:1-40@9c03b7f`" and report.added
    assert not lc.add_item(store, "next-step", "Run the backfill").added
    text = page.read_text(encoding="utf-8")
    titles = [line for line in text.splitlines() if line.startswith("## ")]
    assert titles == [
        "## Checkpoints",
        "## Files touched",
        "## Decisions made",
        "## Gotchas surfaced",
        "## Open questions",
        "## Next steps",
    ]
    assert "(filled by /wrap)" not in text
    assert "- Keep SQLite? [[adr-3]]" in text and "- `src/store.py:1-40@9c03b7f`" in text
    _clean(page)


@pytest.mark.parametrize(
    ("kind", "text"),
    [("file", "not a citation at all"), ("nope", "x"), ("decision", ""), ("gotcha", "a\nb")],
)
def test_add_item_refuses_bad_input(wiki: Path, kind: str, text: str) -> None:
    with pytest.raises(ValidationError):
        lc.add_item(_store(wiki), kind, text)


def test_add_to_existing_section_is_an_insert(wiki: Path) -> None:
    page = _page(wiki, EXAMPLE.name)
    before = page.read_text(encoding="utf-8")
    lc.add_item(_store(wiki), "next-step", "Drop the SQLite code path")
    after = page.read_text(encoding="utf-8")
    assert _ops(before, after) == {"insert"}
    assert after.endswith(
        "- Run the 90-day backfill against Postgres\n- Drop the SQLite code path\n"
    )


def test_set_status_done_sets_date_end(wiki: Path) -> None:
    page = _page(wiki, EXAMPLE.name)
    report = lc.set_status(_store(wiki), "done", today=dt.date(2026, 5, 21))
    assert (report.old, report.new, report.ended) == (Status.ACTIVE, Status.DONE, "2026-05-21")
    text = page.read_text(encoding="utf-8")
    assert "status: done\n" in text and "\ndate_end: 2026-05-21\n" in text  # plain, unquoted
    _clean(page)
    with pytest.raises(ValidationError):
        lc.set_status(_store(wiki), "finished")


def test_every_status_transition_lints_clean(wiki: Path) -> None:
    page = _page(wiki, EXAMPLE.name)
    store = _store(wiki)
    lc.set_status(store, "done", today=dt.date(2026, 5, 21))
    before = page.read_text(encoding="utf-8")
    report = lc.set_status(store, "active")
    after = page.read_text(encoding="utf-8")
    # reopening removes date_end (only that line) and the status changes
    assert report.ended is None and "date_end" not in after
    assert [ln for ln in before.splitlines() if ln not in after.splitlines()] == [
        "status: done",
        next(ln for ln in before.splitlines() if ln.startswith("date_end:")),
    ]
    _clean(page)
    for status in ("abandoned", "done", "abandoned", "active", "active", "done", "done"):
        lc.set_status(store, status, today=dt.date(2026, 5, 21))
        assert str(store.get(EXAMPLE.name).status) == status
        _clean(page)


# -- prune --------------------------------------------------------------------------------------


def _prune_wiki(tmp_path: Path) -> Path:
    folder = tmp_path / "aiwiki" / "sessions"
    folder.mkdir(parents=True)
    for name in ("2026-05-18-7e8a3f2.md", "2026-05-02-5d6a0f3.md", "2026-04-28-e19b2c4.md"):
        shutil.copyfile(SESSIONS / name, folder / name)
    return tmp_path


def test_prune_dry_run_writes_nothing(tmp_path: Path) -> None:
    root = _prune_wiki(tmp_path)
    snapshot = {p.name: p.read_bytes() for p in (root / "aiwiki" / "sessions").iterdir()}
    report = lc.prune(_store(root), 7, delete_abandoned=True, today=dt.date(2026, 6, 30))
    assert report.dry_run and report.abandoned
    # nothing was deleted: the candidates are listed as would_delete, never as deleted
    assert report.deleted == () and set(report.abandoned) <= set(report.would_delete)
    assert snapshot == {p.name: p.read_bytes() for p in (root / "aiwiki" / "sessions").iterdir()}


def test_prune_marks_stale_active_sessions_and_deletes_when_asked(tmp_path: Path) -> None:
    root = _prune_wiki(tmp_path)
    store = _store(root)
    keys = store.keys()
    statuses = {k: store.get(k).status for k in keys}
    today = dt.date(2026, 5, 25)
    report = lc.prune(store, 5, dry_run=False, today=today)
    stale = [k for k, st in statuses.items() if st is Status.ACTIVE and k < "2026-05-19"]
    assert stale and list(report.abandoned) == stale and report.deleted == ()
    for key in keys:
        expected = Status.ABANDONED if key in stale else statuses[key]
        assert store.get(key).status is expected
    listing = lc.prune(store, 5, delete_abandoned=True, dry_run=False, delete_dry_run=True)
    assert listing.deleted == () and not listing.dry_run
    assert listing.would_delete and set(listing.would_delete) <= set(store.keys())
    gone = lc.prune(store, 5, delete_abandoned=True, dry_run=False, today=today)
    assert gone.deleted == listing.would_delete and gone.would_delete == ()
    assert set(gone.deleted).isdisjoint(store.keys())
    left = store.keys()
    assert all(store.get(k).status is not Status.ABANDONED for k in left)


# -- install_hooks ----------------------------------------------------------------------------


def test_install_hooks_is_idempotent_and_keeps_other_settings(tmp_path: Path) -> None:
    settings = tmp_path / ".claude" / "settings.json"
    settings.parent.mkdir()
    original = {
        "model": "opus",
        "hooks": {
            "PreCompact": [
                {"matcher": "auto", "hooks": [{"type": "command", "command": "./backup.sh"}]}
            ],
            "Stop": [{"hooks": [{"type": "command", "command": "say done"}]}],
        },
        "permissions": {"allow": ["Bash(ls)"]},
    }
    settings.write_text(json.dumps(original, indent=4), encoding="utf-8")
    first = lc.install_hooks(settings, program="sessionkit")
    assert first.changed and first.added == ("PreCompact", "SessionStart", "SessionEnd")
    data = json.loads(settings.read_text(encoding="utf-8"))
    assert list(data) == ["model", "hooks", "permissions"]
    assert data["hooks"]["Stop"] == original["hooks"]["Stop"]  # type: ignore[index]
    assert data["hooks"]["PreCompact"][0] == original["hooks"]["PreCompact"][0]  # type: ignore[index]
    assert data["hooks"]["PreCompact"][1] == {
        "matcher": "",
        "hooks": [{"type": "command", "command": "sessionkit hook pre-compact"}],
    }
    assert data["hooks"]["SessionStart"] == [
        {"matcher": "", "hooks": [{"type": "command", "command": "sessionkit hook session-start"}]}
    ]
    written = settings.read_bytes()
    second = lc.install_hooks(settings, program="sessionkit")
    assert not second.changed and settings.read_bytes() == written
    assert data["hooks"]["SessionEnd"] == [
        {"matcher": "", "hooks": [{"type": "command", "command": "sessionkit hook session-end"}]}
    ]
    removed = lc.install_hooks(settings, remove=True)
    assert removed.removed == ("PreCompact", "SessionStart", "SessionEnd")
    # every other byte as it was: the file's indentation and final newline are kept
    assert settings.read_text(encoding="utf-8") == json.dumps(original, indent=4)
    assert not lc.install_hooks(settings, remove=True).changed


def test_install_hooks_writes_a_command_that_runs_from_any_shell(tmp_path: Path) -> None:
    # #19: a bare `sessionkit` is not found by Claude Code after a venv install (exit 127)
    import shlex
    import subprocess
    import sys

    settings = tmp_path / "settings.json"
    report = lc.install_hooks(settings)
    assert report.warning is None
    data = json.loads(settings.read_text(encoding="utf-8"))
    command = data["hooks"]["PreCompact"][0]["hooks"][0]["command"]
    words = shlex.split(command)
    assert os.path.isabs(words[0]) and words[-2:] == ["hook", "pre-compact"]
    assert command.startswith(report.command)
    # it runs with an empty PATH (no venv activated), and `hook --help` exits 0
    res = subprocess.run(
        [*words[:-1], "--help"], env={"PATH": "", "HOME": str(tmp_path)}, capture_output=True
    )
    assert res.returncode == 0, res.stderr
    # an entry of ours spelled otherwise is updated in place, not duplicated
    for old in (
        "sessionkit hook pre-compact",
        "/old/venv/bin/sessionkit hook pre-compact",
        "/usr/bin/python3 -m sessionkit hook pre-compact",
    ):
        data["hooks"]["PreCompact"][0]["hooks"][0]["command"] = old
        settings.write_text(json.dumps(data), encoding="utf-8")
        again = lc.install_hooks(settings)
        assert again.changed and again.added == ("PreCompact",)
        fresh = json.loads(settings.read_text(encoding="utf-8"))
        assert len(fresh["hooks"]["PreCompact"]) == 1
        assert fresh["hooks"]["PreCompact"][0]["hooks"][0]["command"] == command
    assert lc.install_hooks(settings, program=f"{shlex.quote(sys.executable)} -m sessionkit")
    assert lc.install_hooks(settings, remove=True).removed == (
        "PreCompact",
        "SessionStart",
        "SessionEnd",
    )


def test_install_hooks_warns_when_it_cannot_find_sessionkit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sys

    monkeypatch.setattr(sys, "executable", "")
    report = lc.install_hooks(tmp_path / "settings.json")
    assert report.command == "sessionkit" and "PATH" in (report.warning or "")


def test_install_hooks_on_a_new_file_and_removal_to_empty(tmp_path: Path) -> None:
    settings = tmp_path / "sub" / "settings.json"
    lc.install_hooks(settings)
    assert set(json.loads(settings.read_text(encoding="utf-8"))["hooks"]) == {
        "PreCompact",
        "SessionStart",
        "SessionEnd",
    }
    lc.install_hooks(settings, remove=True)
    assert json.loads(settings.read_text(encoding="utf-8")) == {}


def test_install_hooks_refuses_malformed_settings(tmp_path: Path) -> None:
    settings = tmp_path / "settings.json"
    settings.write_text("{not json", encoding="utf-8")
    with pytest.raises(ParseError):
        lc.install_hooks(settings)
    settings.write_text("[]", encoding="utf-8")
    with pytest.raises(ValidationError):
        lc.install_hooks(settings)
    assert settings.read_text(encoding="utf-8") == "[]"


# -- Basic Memory ---------------------------------------------------------------------------------


def test_basic_memory_flows(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(
        json.dumps({"type": "summary", "summary": "x"})
        + "\n"
        + json.dumps({"type": "user", "message": {"role": "user", "content": "Move readings"}})
        + "\n",
        encoding="utf-8",
    )
    store = open_store(str(project), layout="basic-memory")
    payload = {
        "session_id": "abcdef12-3456",
        "transcript_path": str(transcript),
        "cwd": str(tmp_path),
        "trigger": "auto",
    }
    first = lc.record_checkpoint(store, payload, now=NOW, project="proj")
    assert first.created
    assert first.key == "Session 2026-05-20 09-30-05 — Move readings.md"
    note = project / "sessions" / first.key
    text = note.read_text(encoding="utf-8")
    meta_lines = text.split("---\n")[1].splitlines()
    assert meta_lines[:3] == [
        "title: Session 2026-05-20 09:30:05 — Move readings",
        "type: session",
        "permalink: proj/sessions/session-2026-05-20-09-30-05-move-readings",
    ]
    for line in (
        "status: open",
        "started: '2026-05-20T09:30:05Z'",
        "project: proj",
        "claude_session_id: abcdef12-3456",
        "trigger: auto",
        "capture: extractive",
    ):
        assert line in meta_lines
    assert meta_lines[-3:] == ["tags:", "- session", "- auto-capture"]
    assert "- [context] PreCompact at 2026-05-20T09:30:05Z, trigger auto: no active work" in text
    assert "- [directive] Dream: invoke `support-dream` skill" in text

    later = NOW + dt.timedelta(minutes=5)
    second = lc.record_checkpoint(store, {**payload, "trigger": "manual"}, now=later)
    assert second.key == first.key and not second.created
    s = store.get(first.key)
    assert s.ended == "2026-05-20T09:35:05Z" and len(s.context) == 2

    from sessionkit.hooks import session_start_text

    shown = session_start_text(store) or ""
    assert "[1] Dream directive" in shown and "[2] Dream directive" in shown
    report = lc.consume_directives(store, all=True, now=later)
    assert [d.index for d in report.consumed] == [1, 2]
    assert "directive" not in (session_start_text(store) or "").lower()
    assert "#consumed (consumed at 2026-05-20T09:35:05Z)" in note.read_text(encoding="utf-8")

    lc.add_item(store, "next-step", "Backfill 90 days")
    lc.set_status(store, "done")
    s = store.get(first.key)
    assert s.next_steps == ("Backfill 90 days",) and s.status is Status.DONE
    assert "status: closed" in note.read_text(encoding="utf-8")
    diags = sessionkit.lint(note.read_text(encoding="utf-8"), path=str(note))
    assert [str(d) for d in diags if d.severity is Severity.ERROR] == []


def test_checkpoint_on_a_v1_page_migrates_it_first(tmp_path: Path) -> None:
    folder = tmp_path / "aiwiki" / "sessions"
    folder.mkdir(parents=True)
    v1 = SESSIONS / "2026-05-02-5d6a0f3.md"
    page = folder / v1.name
    shutil.copyfile(v1, page)
    before = page.read_text(encoding="utf-8")
    assert "schema_version: 1" in before
    report = lc.record_checkpoint(_store(tmp_path), {"session_id": "5d6a0f3"}, now=NOW)
    assert report.key == v1.name
    after = page.read_text(encoding="utf-8")
    s = sessionkit.loads(after)
    assert s.origin is not None and s.origin.format == "aiwiki-v2"
    assert len(s.checkpoints) == 1 and s.id == "5d6a0f3"
    assert _ops(before, after) <= {"insert", "replace"}
    _clean(page)


def test_basic_memory_note_is_named_after_the_transcript_start(tmp_path: Path) -> None:
    transcript = tmp_path / "t.jsonl"
    first = {
        "type": "user",
        "timestamp": "2026-05-20T08:00:00.123Z",
        "message": {"role": "user", "content": [{"type": "text", "text": "Fix the  flaky\ntest"}]},
    }
    transcript.write_text("not json\n" + json.dumps(first) + "\n", encoding="utf-8")
    store = open_store(str(tmp_path / "proj"), layout="basic-memory")
    payload = {"session_id": "s-1", "transcript_path": str(transcript), "trigger": "auto"}
    one = lc.record_checkpoint(store, payload, now=NOW)
    two = lc.record_checkpoint(store, payload, now=NOW + dt.timedelta(seconds=7))
    assert one.key == two.key == "Session 2026-05-20 08-00-00 — Fix the flaky test.md"
    s = store.get(one.key)
    assert s.title == "Session 2026-05-20 08:00:00 — Fix the flaky test"
    assert (s.started, s.ended) == ("2026-05-20T08:00:00Z", "2026-05-20T09:30:12Z")
    assert len(s.context) == 2
