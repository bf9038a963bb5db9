"""The hook commands through the installed ``sessionkit`` console script.

Real PreCompact / SessionStart payload shapes (and broken ones) go in on
stdin; the tests check the page written, its name, that it lints clean, what
session-start prints, and that 20 concurrent pre-compact runs lose nothing.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

import sessionkit
from sessionkit.diagnostics import Severity

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "wiki" / "aiwiki" / "sessions" / "2026-05-18-7e8a3f2.md"
SCRIPT = shutil.which("sessionkit")
SID = "7e8a3f21-9a4b-4c8d-b1e2-f5a6c7d8e9f0"

pytestmark = pytest.mark.skipif(
    SCRIPT is None, reason="the sessionkit console script is not installed"
)

CHECKPOINT = re.compile(r"^### PreCompact at (\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z)$", re.M)


def _env(home: Path, **extra: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("SESSIONKIT_") and k != "CLAUDE_PROJECT_DIR"
    }
    env["HOME"] = str(home)
    env["XDG_CONFIG_HOME"] = str(home / ".config")
    env["BASIC_MEMORY_CONFIG_DIR"] = str(home / ".basic-memory")
    env["XDG_STATE_HOME"] = str(home / ".local" / "state")  # (the outbox's folder)
    # these tests are about what the hooks do, on a machine that may be loaded: a budget
    # far from the 5 s default (the deadline itself is tested in tests/test_hostile.py)
    env["SESSIONKIT_HOOK_DEADLINE_MS"] = "120000"
    env.update(extra)
    return env


@pytest.fixture()
def home(tmp_path: Path) -> Path:
    h = tmp_path / "home"
    h.mkdir()
    return h


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    """A repository with one in-progress forge work item."""
    r = tmp_path / "repo"
    (r / ".git").mkdir(parents=True)
    manifest = r / ".forge" / "work" / "feature" / "wire-dream" / "manifest.yaml"
    manifest.parent.mkdir(parents=True)
    manifest.write_text(
        "status: in-progress\n"
        "artifacts:\n"
        "  prototype:\n"
        "    locked_at: 2026-05-17T11:00:00Z\n"
        "  codify:\n"
        "    locked_at: ~\n",
        encoding="utf-8",
    )
    done = r / ".forge" / "work" / "bug" / "old-one" / "manifest.yaml"
    done.parent.mkdir(parents=True)
    done.write_text("status: done\n", encoding="utf-8")
    return r


def payload(repo: Path, **changes: Any) -> bytes:
    data: dict[str, Any] = {
        "session_id": SID,
        "transcript_path": str(repo / "transcript.jsonl"),
        "cwd": str(repo),
        "permission_mode": "default",
        "hook_event_name": "PreCompact",
        "trigger": "auto",
        "custom_instructions": "",
    }
    data.update(changes)
    return json.dumps({k: v for k, v in data.items() if v is not None}).encode()


def run(
    args: list[str], home: Path, stdin: bytes = b"", cwd: Path | None = None, **env: str
) -> subprocess.CompletedProcess[bytes]:
    assert SCRIPT is not None
    return subprocess.run(
        [SCRIPT, *args],
        input=stdin,
        capture_output=True,
        cwd=cwd or home,
        env=_env(home, **env),
        timeout=120,
    )


def today() -> str:
    return dt.datetime.now(dt.UTC).date().isoformat()


def pages(repo: Path) -> list[Path]:
    folder = repo / "aiwiki" / "sessions"
    return sorted(folder.glob("*.md")) if folder.is_dir() else []


def assert_lints_clean(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    diags = sessionkit.lint(text, path=str(page))
    # clean: no error and no warning (an info such as "over the soft target" may remain)
    assert [str(d) for d in diags if d.severity is not Severity.INFO] == []


# -- pre-compact ---------------------------------------------------------------------


def test_pre_compact_creates_the_page_lazily(repo: Path, home: Path) -> None:
    res = run(["hook", "pre-compact"], home, payload(repo))
    assert res.returncode == 0, res.stderr
    assert res.stdout == b"" and res.stderr == b""
    (page,) = pages(repo)
    assert page.name == f"{today()}-7e8a3f2.md"
    s = sessionkit.loads(page.read_text(encoding="utf-8"))
    assert (s.id, str(s.status), s.focus, s.started) == (SID, "active", "unset", today())
    (cp,) = s.checkpoints
    assert cp.event == "PreCompact"
    assert "Active work: feature/wire-dream" in cp.body
    assert "Manifest: .forge/work/feature/wire-dream/manifest.yaml" in cp.body
    assert "status: in-progress" in cp.body
    (d,) = cp.directives
    assert d.kind == "Dream" and str(d.state) == "unconsumed"
    assert d.action == "invoke `support-dream` skill before resuming other work"
    assert "Trigger: pre-compact (auto)" in d.items
    assert_lints_clean(page)


def test_second_pre_compact_appends_as_a_minimal_edit(repo: Path, home: Path) -> None:
    run(["hook", "pre-compact"], home, payload(repo))
    (page,) = pages(repo)
    before = page.read_text(encoding="utf-8")
    res = run(["hook", "pre-compact"], home, payload(repo, trigger="manual"))
    assert res.returncode == 0, res.stderr
    after = page.read_text(encoding="utf-8")
    # the new entry is inserted after the first one; every old line stays
    head, _, tail = before.partition("## Files touched")
    assert after.startswith(head.rstrip("\n"))
    assert after.endswith("## Files touched" + tail)
    assert len(CHECKPOINT.findall(after)) == 2
    assert "Trigger: pre-compact (manual)" in after
    assert_lints_clean(page)


def test_existing_page_is_found_by_short_id_whatever_its_date(repo: Path, home: Path) -> None:
    folder = repo / "aiwiki" / "sessions"
    folder.mkdir(parents=True)
    target = folder / EXAMPLE.name
    shutil.copyfile(EXAMPLE, target)
    before = EXAMPLE.read_text(encoding="utf-8")
    res = run(["hook", "pre-compact"], home, payload(repo))
    assert res.returncode == 0, res.stderr
    assert pages(repo) == [target]
    after = target.read_text(encoding="utf-8")
    assert len(CHECKPOINT.findall(after)) == 3
    old_lines, new_lines = before.splitlines(), after.splitlines()
    assert len(new_lines) > len(old_lines)
    # only insertions
    import difflib

    ops = difflib.SequenceMatcher(a=old_lines, b=new_lines, autojunk=False).get_opcodes()
    assert {tag for tag, *_ in ops} <= {"equal", "insert"}


@pytest.mark.parametrize(
    "stdin",
    [
        b"",
        b"   \n",
        b"not json at all",
        b"{not json",
        b'{"session_id":"abc","cwd":"CWD","x":"a',
        b'{"a":"\\q"}',
        b'{"a" 1}',
        b"[1, 2, 3]",
        b'"a string"',
        b"\xff\xfe\x00garbage",
        b'{"hook_event_name": "PreCompact", "trigger": "auto"}',
        b'{"session_id": 42, "trigger": "auto"}',
        b'{"session_id": "", "trigger": "auto"}',
        b'{"session_id": "../..//", "trigger": "auto"}',
    ],
    ids=[
        "empty",
        "blank",
        "invalid-json",
        "brace-not-json",
        "truncated",
        "bad-escape",
        "missing-colon",
        "list",
        "string",
        "binary",
        "no-session-id",
        "int-id",
        "empty-id",
        "only-unsafe-chars",
    ],
)
def test_broken_payload_still_records_under_0000000(repo: Path, home: Path, stdin: bytes) -> None:
    stdin = stdin.replace(b"CWD", os.fsencode(repo))
    res = run(["hook", "pre-compact"], home, stdin, cwd=repo)
    assert res.returncode == 0
    (page,) = pages(repo)
    assert page.name == f"{today()}-0000000.md"
    text = page.read_text(encoding="utf-8")
    assert len(CHECKPOINT.findall(text)) == 1
    assert sessionkit.loads(text).id is None
    assert_lints_clean(page)
    assert b"Traceback" not in res.stderr
    assert len(res.stderr.decode().strip().splitlines()) <= 1


def test_hostile_session_id_cannot_leave_the_store(tmp_path: Path, repo: Path, home: Path) -> None:
    before = {p for p in tmp_path.rglob("*") if p.is_file()}
    for sid in ("../../etc/x", "/etc/passwd", "..\\..\\x", "a/../../b\x00c", "ab cd/ef.gh"):
        res = run(["hook", "pre-compact"], home, payload(repo, session_id=sid))
        assert res.returncode == 0, res.stderr
        assert b"no usable session_id" in res.stderr
    new = {p for p in tmp_path.rglob("*") if p.is_file()} - before
    # the store's lock file, and git's per-clone ignore file naming it (#19)
    new = {p for p in new if p.name != ".sessionkit.lock" and p != repo / ".git/info/exclude"}
    folder = repo / "aiwiki" / "sessions"
    assert new and all(p.parent == folder for p in new)
    names = sorted(p.name for p in new)
    for name in names:
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2}-[0-9A-Za-z_-]{1,7}\.md", name), name
    assert names == [f"{today()}-0000000.md"]  # an id with unsafe characters is not an id
    assert len(CHECKPOINT.findall(next(iter(new)).read_text(encoding="utf-8"))) == 5
    for page in new:
        assert_lints_clean(page)


def test_huge_payload_is_refused_but_recorded(repo: Path, home: Path) -> None:
    big = payload(repo, custom_instructions="x" * (3 * 1024 * 1024))
    res = run(["hook", "pre-compact"], home, big, cwd=repo)
    assert res.returncode == 0
    assert b"larger than" in res.stderr
    (page,) = pages(repo)
    assert page.name.endswith("-0000000.md")


def test_missing_cwd_falls_back_to_claude_project_dir(repo: Path, home: Path) -> None:
    res = run(
        ["hook", "pre-compact"],
        home,
        payload(repo, cwd=None),
        cwd=home,
        CLAUDE_PROJECT_DIR=str(repo),
    )
    assert res.returncode == 0, res.stderr
    assert [p.name for p in pages(repo)] == [f"{today()}-7e8a3f2.md"]
    assert not (home / "aiwiki").exists()


def test_missing_cwd_falls_back_to_working_directory(repo: Path, home: Path) -> None:
    res = run(["hook", "pre-compact"], home, payload(repo, cwd=None), cwd=repo)
    assert res.returncode == 0, res.stderr
    assert len(pages(repo)) == 1


def test_payload_cwd_in_a_subfolder_uses_the_repository_root(repo: Path, home: Path) -> None:
    sub = repo / "src" / "pkg"
    sub.mkdir(parents=True)
    res = run(["hook", "pre-compact"], home, payload(repo, cwd=str(sub)))
    assert res.returncode == 0, res.stderr
    assert len(pages(repo)) == 1
    assert not (sub / "aiwiki").exists()


def test_store_flag_and_project_config(repo: Path, home: Path, tmp_path: Path) -> None:
    other = tmp_path / "elsewhere"
    res = run(["hook", "pre-compact", "--store", str(other)], home, payload(repo))
    assert res.returncode == 0, res.stderr
    assert len(pages(other)) == 1 and pages(repo) == []
    (repo / ".sessionkit.toml").write_text(
        '[hooks]\nstore = "notes"\ndirective_kind = "Refine"\n'
        'directive_action = "run the refine skill"\n',
        encoding="utf-8",
    )
    res = run(["hook", "pre-compact"], home, payload(repo))
    assert res.returncode == 0, res.stderr
    (page,) = pages(repo / "notes")
    text = page.read_text(encoding="utf-8")
    assert "**Refine directive (unconsumed):**" in text
    assert "- Action: run the refine skill" in text


def test_internal_failure_exits_0_with_one_line(repo: Path, home: Path) -> None:
    folder = repo / "aiwiki" / "sessions"
    folder.mkdir(parents=True)
    broken = folder / f"{today()}-7e8a3f2.md"
    broken.write_text("---\nschema_id: session\nstatus: [unclosed\n---\n", encoding="utf-8")
    before = broken.read_bytes()
    res = run(["hook", "pre-compact"], home, payload(repo))
    assert res.returncode == 0
    lines = res.stderr.decode().strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("sessionkit hook: pre-compact failed:")
    assert broken.read_bytes() == before
    assert [p.name for p in folder.iterdir() if not p.name.startswith(".")] == [broken.name]
    assert not [p for p in folder.iterdir() if p.name.endswith(".tmp")]  # no temp file left


def test_unusable_store_exits_0(repo: Path, home: Path) -> None:
    (repo / "aiwiki").mkdir()
    (repo / "aiwiki" / "sessions").write_text("a file where a folder should be")
    res = run(["hook", "pre-compact"], home, payload(repo))
    assert res.returncode == 0
    assert len(res.stderr.decode().strip().splitlines()) == 1
    res = run(["hook", "session-start"], home, payload(repo, hook_event_name="SessionStart"))
    assert res.returncode == 0
    assert res.stdout == b""


def test_usage_error_is_exit_1_never_2(home: Path) -> None:
    # exit 2 makes Claude Code block the agent (#19): a usage error is exit 1,
    # a non-blocking error whose stderr Claude Code shows
    for args in (["hook", "no-such-event"], ["hook"], ["hook", "pre-compact", "--bogus"]):
        res = run(args, home)
        assert res.returncode == 1, args
        assert b"usage:" in res.stderr and res.stdout == b""
    assert run(["hook", "--help"], home).returncode == 0


# -- session-start ------------------------------------------------------------------------


def start_payload(repo: Path) -> bytes:
    return payload(repo, hook_event_name="SessionStart", source="startup", trigger=None)


def test_session_start_on_an_empty_store_prints_nothing(repo: Path, home: Path) -> None:
    res = run(["hook", "session-start"], home, start_payload(repo))
    assert (res.returncode, res.stdout, res.stderr) == (0, b"", b"")


def test_session_start_names_the_directive_until_consumed(repo: Path, home: Path) -> None:
    run(["hook", "pre-compact"], home, payload(repo))
    res = run(["hook", "session-start"], home, start_payload(repo))
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert set(out) == {"hookSpecificOutput"}
    hso = out["hookSpecificOutput"]
    assert hso["hookEventName"] == "SessionStart"
    context = hso["additionalContext"]
    first = context.splitlines()[0]
    assert today() in first and "status active" in first and "focus: unset" in first
    assert "Dream directive" in context
    assert "invoke `support-dream` skill before resuming other work" in context

    res = run(["directive", "consume"], home, cwd=repo)
    assert res.returncode == 0, res.stderr
    res = run(["hook", "session-start"], home, start_payload(repo))
    context = json.loads(res.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "directive" not in context.lower()
    assert "status active" in context
    (page,) = pages(repo)
    assert_lints_clean(page)


def test_consume_flips_header_and_status_line_in_place(repo: Path, home: Path) -> None:
    folder = repo / "aiwiki" / "sessions"
    folder.mkdir(parents=True)
    page = folder / EXAMPLE.name
    shutil.copyfile(EXAMPLE, page)
    res = run(["hook", "session-start", "--plain"], home, start_payload(repo))
    text = res.stdout.decode()
    assert text.startswith(f"Latest session note {EXAMPLE.name}: 2026-05-18, status active")
    assert "[2] Dream directive" in text and "[1]" not in text

    before = page.read_text(encoding="utf-8").splitlines()
    res = run(["directive", "consume", str(page)], home, cwd=home)
    assert res.returncode == 0, res.stderr
    after = page.read_text(encoding="utf-8").splitlines()
    changed = [(a, b) for a, b in zip(before, after, strict=True) if a != b]
    assert len(changed) == 2
    assert changed[0][0] == "**Dream directive (unconsumed):**"
    assert re.fullmatch(r"\*\*Dream directive \(consumed at \S+Z\):\*\*", changed[0][1])
    assert changed[1] == ("- Status: unconsumed", "- Status: consumed")
    res = run(["hook", "session-start", "--plain"], home, start_payload(repo))
    assert "directive" not in res.stdout.decode().lower()


def test_consume_json_describes_directives_after_the_flip(repo: Path, home: Path) -> None:
    folder = repo / "aiwiki" / "sessions"
    folder.mkdir(parents=True)
    page = folder / EXAMPLE.name
    shutil.copyfile(EXAMPLE, page)
    res = run(["directive", "consume", "--json", str(page)], home, cwd=home)
    assert res.returncode == 0, res.stderr
    report = json.loads(res.stdout)
    (entry,) = report["consumed"]
    assert entry["state"] == "consumed" and entry["consumed_at"] == report["at"]
    assert f"(consumed at {report['at']}):" in page.read_text(encoding="utf-8")


def test_session_start_plain_from_configuration(repo: Path, home: Path) -> None:
    run(["hook", "pre-compact"], home, payload(repo))
    res = run(["hook", "session-start"], home, start_payload(repo), SESSIONKIT_HOOK_OUTPUT="plain")
    assert res.stdout.decode().startswith("Latest session note ")
    res = run(
        ["hook", "session-start", "--json"],
        home,
        start_payload(repo),
        SESSIONKIT_HOOK_OUTPUT="plain",
    )
    assert "hookSpecificOutput" in json.loads(res.stdout)


def test_session_start_picks_the_newest_page(repo: Path, home: Path) -> None:
    folder = repo / "aiwiki" / "sessions"
    folder.mkdir(parents=True)
    for name in ("2026-05-16-c41d9e0.md", "2026-05-18-7e8a3f2.md", "2026-05-12-3f9c2a1.md"):
        shutil.copyfile(EXAMPLE.parent / name, folder / name)
    shutil.copyfile(EXAMPLE.parent / "INDEX.md", folder / "INDEX.md")
    res = run(["hook", "session-start", "--plain"], home, b"", cwd=repo)
    assert res.stdout.decode().startswith("Latest session note 2026-05-18-7e8a3f2.md")


# -- concurrency -----------------------------------------------------------------------------


def test_twenty_concurrent_pre_compacts_leave_twenty_checkpoints(repo: Path, home: Path) -> None:
    assert SCRIPT is not None
    # a manifest without phase lines keeps 20 entries under the 400-line hard cap
    manifest = repo / ".forge" / "work" / "feature" / "wire-dream" / "manifest.yaml"
    manifest.write_text("status: in-progress\n", encoding="utf-8")
    # twenty interpreters starting at once on a shared machine can outlast the 5 s
    # hook deadline; this test is about the lock, so it gives them time
    procs = [
        subprocess.Popen(
            [SCRIPT, "hook", "pre-compact"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=_env(home, SESSIONKIT_HOOK_DEADLINE_MS="240000"),
            cwd=home,
        )
        for _ in range(20)
    ]
    for p in procs:
        assert p.stdin is not None
        p.stdin.write(payload(repo))
        p.stdin.close()
    for p in procs:
        assert p.wait(timeout=300) == 0
        assert p.stderr is not None and p.stderr.read() == b""
    (page,) = pages(repo)
    text = page.read_text(encoding="utf-8")
    stamps = CHECKPOINT.findall(text)
    assert len(stamps) == 20
    assert stamps == sorted(stamps)
    s = sessionkit.loads(text)
    assert len(s.checkpoints) == 20 and len(s.unconsumed()) == 20
    assert_lints_clean(page)
    assert [p.name for p in page.parent.iterdir() if not p.name.startswith(".")] == [page.name]
    assert not [p for p in page.parent.iterdir() if p.name.endswith(".tmp")]


# -- the reply ---------------------------------------------------------------------------


def test_a_light_run_ends_with_its_reply_whole(tmp_path: Path, home: Path) -> None:
    """A run's reply, its notice and its exit code are all there."""
    repo = tmp_path / "plain"
    (repo / ".git").mkdir(parents=True)
    no_id = payload(repo, session_id=None)
    run(["hook", "pre-compact"], home, no_id)  # the note (the store's way)
    res = run(["hook", "pre-compact"], home, no_id)  # the light lane, with a notice
    assert res.returncode == 0
    assert "no usable session_id" in json.loads(res.stdout)["systemMessage"]
    assert b"no usable session_id" in res.stderr
    assert pages(repo)[0].read_text(encoding="utf-8").count("### PreCompact at") == 2
    run(["hook", "pre-compact"], home, payload(repo))  # a real session (0000000 is none)
    run(["hook", "pre-compact"], home, payload(repo))
    start = payload(repo, hook_event_name="SessionStart", source="startup")
    res = run(["hook", "session-start", "--json"], home, start)
    assert res.returncode == 0
    reply = json.loads(res.stdout)
    context = reply["hookSpecificOutput"]["additionalContext"]
    assert context.startswith("Latest session note ") and "[2] Dream directive" in context
    assert "0000000.md" in reply["systemMessage"]


def test_a_configured_hook_applies_its_configuration(tmp_path: Path, home: Path) -> None:
    """A project configuration file (how hooks are told what to write) applies."""
    repo = tmp_path / "configured"
    (repo / ".git").mkdir(parents=True)
    (repo / ".sessionkit.toml").write_text('[hooks]\ndirective_kind = "Plan"\n')
    res = run(["hook", "pre-compact"], home, payload(repo))
    assert res.returncode == 0
    assert "**Plan directive (unconsumed" in pages(repo)[0].read_text(encoding="utf-8")


# -- which note session-start reads ---------------------------------------------------------


def _session_start(
    start: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> str:
    """``sessionkit hook session-start --plain`` run from ``start``: its output."""
    import io

    from sessionkit.hooks import main

    monkeypatch.chdir(start)
    payload = json.dumps({"cwd": str(start)}).encode()
    assert main(["session-start", "--plain"], io.BytesIO(payload)) == 0
    return capsys.readouterr().out


def test_light_session_start_matches_the_store_path(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from sessionkit.backends import open_store
    from sessionkit.ops.lifecycle import record_checkpoint

    for name in [n for n in os.environ if n.startswith("SESSIONKIT_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("SESSIONKIT_CONFIG", str(tmp_path / "no-user-config.toml"))
    root = tmp_path / "wiki"
    folder = root / "aiwiki" / "sessions"
    folder.mkdir(parents=True)
    assert _session_start(root, capsys, monkeypatch) == ""
    store = open_store(str(root), layout="aiwiki")
    names = sorted(p.name for p in EXAMPLE.parent.glob("2026-*.md"))
    for name in names:
        shutil.copyfile(EXAMPLE.parent / name, folder / name)
        out = _session_start(root, capsys, monkeypatch)
        assert out.startswith(f"Latest session note {name}")
    record_checkpoint(store, {"session_id": "7e8a3f2"})  # a third checkpoint on the newest
    assert "[3] Dream directive" in _session_start(root, capsys, monkeypatch)
    # same-date pages: the newest modification time wins, in both paths
    (folder / "2026-05-18-aaaaaaa.md").write_text(
        (folder / "2026-05-16-c41d9e0.md").read_text(encoding="utf-8"), encoding="utf-8"
    )
    os.utime(folder / "2026-05-18-aaaaaaa.md", (2_000_000_000, 2_000_000_000))
    out = _session_start(root, capsys, monkeypatch)
    assert out.startswith("Latest session note 2026-05-18-aaaaaaa.md")


def test_light_repository_root_matches_config(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The hook finds the repository root by the configuration's rule (``aiwiki/`` or
    ``.git``, nearest first) on its light path too: the same note either way."""
    for name in [n for n in os.environ if n.startswith("SESSIONKIT_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("SESSIONKIT_CONFIG", str(tmp_path / "no-user-config.toml"))
    (tmp_path / "a" / ".git").mkdir(parents=True)
    (tmp_path / "a" / "b" / "aiwiki" / "sessions").mkdir(parents=True)
    (tmp_path / "a" / "b" / "c").mkdir()
    (tmp_path / "a" / "aiwiki" / "sessions").mkdir(parents=True)
    shutil.copyfile(EXAMPLE, tmp_path / "a" / "aiwiki" / "sessions" / EXAMPLE.name)
    older = sorted(EXAMPLE.parent.glob("2026-05-1[0-7]*.md"))[0]
    shutil.copyfile(older, tmp_path / "a" / "b" / "aiwiki" / "sessions" / older.name)
    seen = {
        start: _session_start(tmp_path / start, capsys, monkeypatch).split(":")[0]
        for start in ("a", "a/b/c", "a/b")
    }
    assert seen == {
        "a": f"Latest session note {EXAMPLE.name}",
        "a/b/c": f"Latest session note {older.name}",
        "a/b": f"Latest session note {older.name}",
    }


# -- the lifecycle commands through the script ---------------------------------------------------


def test_install_hooks_command(repo: Path, home: Path) -> None:
    res = run(["install-hooks"], home, cwd=repo)
    assert res.returncode == 0, res.stderr
    settings = repo / ".claude" / "settings.json"
    data = json.loads(settings.read_text(encoding="utf-8"))
    commands = {
        event: [h["command"] for g in groups for h in g["hooks"]]
        for event, groups in data["hooks"].items()
    }
    # the installed script's absolute path (#19: a bare name is not on Claude Code's PATH)
    assert SCRIPT is not None
    assert commands == {
        "PreCompact": [f"{SCRIPT} hook pre-compact"],
        "SessionStart": [f"{SCRIPT} hook session-start"],
        "SessionEnd": [f"{SCRIPT} hook session-end"],
    }
    written = settings.read_bytes()
    res = run(["install-hooks"], home, cwd=repo)
    assert b"unchanged" in res.stdout and settings.read_bytes() == written
    res = run(["install-hooks", "--remove"], home, cwd=repo)
    assert res.returncode == 0 and json.loads(settings.read_text(encoding="utf-8")) == {}
    res = run(["install-hooks", "--user", "--json"], home, cwd=repo)
    assert json.loads(res.stdout)["added"] == ["PreCompact", "SessionStart", "SessionEnd"]
    assert (home / ".claude" / "settings.json").is_file()


def test_add_status_and_errors_through_the_script(repo: Path, home: Path) -> None:
    run(["hook", "pre-compact"], home, payload(repo))
    (page,) = pages(repo)
    res = run(["add", "next-step", "Run", "the", "backfill"], home, cwd=repo)
    assert res.returncode == 0, res.stderr
    res = run(["add", "file", "src/app.py:10-20@9c03b7f", "--session", "7e8a3f2"], home, cwd=repo)
    assert res.returncode == 0, res.stderr
    res = run(["add", "file", "no citation here"], home, cwd=repo)
    assert res.returncode == 2
    assert res.stderr.decode().startswith("sessionkit: ") and b"Traceback" not in res.stderr
    res = run(["directive", "consume", "--index", "9"], home, cwd=repo)
    assert res.returncode == 2
    res = run(["status", "done", "--json"], home, cwd=repo)
    assert json.loads(res.stdout)["new"] == "done"
    s = sessionkit.loads(page.read_text(encoding="utf-8"))
    assert s.next_steps == ("Run the backfill",)
    assert [c.render() for c in s.files_touched] == ["`src/app.py:10-20@9c03b7f`"]
    assert str(s.status) == "done" and s.ended == today()
    assert_lints_clean(page)


def test_prune_command_is_a_dry_run_for_deletion_without_yes(repo: Path, home: Path) -> None:
    folder = repo / "aiwiki" / "sessions"
    folder.mkdir(parents=True)
    for name in ("2026-05-18-7e8a3f2.md", "2026-05-02-5d6a0f3.md"):
        shutil.copyfile(EXAMPLE.parent / name, folder / name)
    res = run(["prune", "--abandon-after", "3d", "--dry-run"], home, cwd=repo)
    assert b"would mark abandoned" in res.stdout
    assert str(sessionkit.loads((folder / EXAMPLE.name).read_text()).status) == "active"
    before = (folder / EXAMPLE.name).read_bytes()
    res = run(["prune", "--abandon-after", "3d", "--delete-abandoned"], home, cwd=repo)
    assert res.returncode == 0, res.stderr
    # without --yes: a dry run, the session is not even marked (#45)
    assert f"{EXAMPLE.name}: would mark abandoned".encode() in res.stdout
    assert f"{EXAMPLE.name}: would delete".encode() in res.stdout
    assert b"add --yes" in res.stderr
    assert (folder / EXAMPLE.name).read_bytes() == before
    res = run(["prune", "--abandon-after", "2w", "--delete-abandoned", "--yes"], home, cwd=repo)
    assert f"{EXAMPLE.name}: deleted".encode() in res.stdout
    assert not (folder / EXAMPLE.name).exists()
    res = run(["prune", "--abandon-after", "soon"], home, cwd=repo)
    assert res.returncode == 2


def test_prune_json_without_yes_lists_would_delete(repo: Path, home: Path) -> None:
    folder = repo / "aiwiki" / "sessions"
    folder.mkdir(parents=True)
    shutil.copyfile(EXAMPLE, folder / EXAMPLE.name)
    cmd = ["prune", "--abandon-after", "3d", "--delete-abandoned", "--json"]
    res = run(cmd, home, cwd=repo)
    assert res.returncode == 0, res.stderr
    report = json.loads(res.stdout)
    assert report["deleted"] == [] and report["would_delete"] == [EXAMPLE.name]
    assert report["abandoned"] == [EXAMPLE.name] and report["dry_run"] is True
    assert str(sessionkit.loads((folder / EXAMPLE.name).read_text()).status) == "active"
    # an unreadable note: named, left alone, exit 1 (like ls)
    (folder / "2026-05-19-badbad0.md").write_bytes(b"---\nstatus: [\n---\n\xff\n")
    res = run([*cmd, "--yes"], home, cwd=repo)
    assert res.returncode == 1, res.stderr
    report = json.loads(res.stdout)
    assert report["unreadable"] == ["2026-05-19-badbad0.md"]
    assert report["deleted"] == [EXAMPLE.name] and report["would_delete"] == []
    res = run(["prune", "--abandon-after", "3d"], home, cwd=repo)
    assert res.returncode == 1 and b"2026-05-19-badbad0.md: unreadable" in res.stderr


def test_basic_memory_project_through_the_script(tmp_path: Path, repo: Path, home: Path) -> None:
    project = tmp_path / "bm-main"
    project.mkdir()
    config = home / ".basic-memory" / "config.json"
    config.parent.mkdir()
    config.write_text(
        json.dumps({"default_project": "main", "projects": {"main": {"path": str(project)}}}),
        encoding="utf-8",
    )
    (repo / "transcript.jsonl").write_text(
        json.dumps({"type": "user", "message": {"role": "user", "content": "Wire the dream"}})
        + "\n",
        encoding="utf-8",
    )
    for trigger in ("auto", "manual"):
        res = run(
            ["hook", "pre-compact", "--store", "bm://main"], home, payload(repo, trigger=trigger)
        )
        assert res.returncode == 0, res.stderr
        assert res.stderr == b""
    (note,) = sorted((project / "sessions").glob("*.md"))
    assert re.fullmatch(
        r"Session \d{4}-\d{2}-\d{2} \d{2}-\d{2}-\d{2} — Wire the dream\.md", note.name
    )
    text = note.read_text(encoding="utf-8")
    for line in (
        "type: session",
        "status: open",
        f"claude_session_id: {SID}",
        "project: main",
        "trigger: manual",
        "capture: extractive",
        "- session",
        "- auto-capture",
    ):
        assert f"\n{line}\n" in text, line
    assert text.count("- [context] PreCompact at ") == 2
    assert "active work feature/wire-dream" in text
    assert text.count("#unconsumed") == 2
    res = run(["hook", "session-start", "--store", "bm://main"], home, start_payload(repo))
    context = json.loads(res.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "[1] Dream directive" in context and "[2] Dream directive" in context
    res = run(["directive", "consume", "--all", "--store", "bm://main"], home, cwd=repo)
    assert res.returncode == 0, res.stderr
    res = run(["hook", "session-start", "--store", "bm://main", "--plain"], home, b"{}")
    assert res.stdout.decode().startswith("Latest session note ")
    assert "directive" not in res.stdout.decode().lower()
    res = run(["add", "next-step", "Ship it", "--store", "bm://main"], home, cwd=repo)
    assert res.returncode == 0, res.stderr
    assert "- [next_step] Ship it\n" in note.read_text(encoding="utf-8")
    diags = sessionkit.lint(note.read_text(encoding="utf-8"), path=str(note))
    assert [str(d) for d in diags if d.severity is Severity.ERROR] == []


def test_payload_limit_from_the_environment(repo: Path, home: Path) -> None:
    res = run(
        ["hook", "pre-compact"], home, payload(repo), cwd=repo, SESSIONKIT_MAX_PAYLOAD_BYTES="64"
    )
    assert res.returncode == 0 and b"larger than 64 bytes" in res.stderr
    assert [p.name for p in pages(repo)] == [f"{today()}-0000000.md"]


def test_pre_compact_on_a_v1_page_with_that_short_id(repo: Path, home: Path) -> None:
    folder = repo / "aiwiki" / "sessions"
    folder.mkdir(parents=True)
    page = folder / "2026-05-02-5d6a0f3.md"
    shutil.copyfile(EXAMPLE.parent / page.name, page)
    res = run(["hook", "pre-compact"], home, payload(repo, session_id="5d6a0f3-1111-2222"))
    assert res.returncode == 0, res.stderr
    assert pages(repo) == [page]
    s = sessionkit.loads(page.read_text(encoding="utf-8"))
    assert len(s.checkpoints) == 1 and s.id == "5d6a0f3-1111-2222"
    assert_lints_clean(page)


def test_the_deadline_runs_on_an_injected_clock() -> None:
    from sessionkit.hooks import DeadlineExceeded
    from sessionkit.hooks.common import Deadline

    now = [100.0]
    deadline = Deadline(1.0, clock=lambda: now[0])
    deadline.enter("reading stdin")
    now[0] += 0.5
    assert 0.3 < deadline.remaining() < 0.4  # (less the exit's reserve)
    deadline.reset(5.0)
    now[0] += 2.0
    deadline.enter("writing the store")
    now[0] += 3.0
    with pytest.raises(DeadlineExceeded) as info:
        deadline.enter("recording the checkpoint")
    assert (info.value.stage, info.value.seconds) == ("recording the checkpoint", 5.0)
