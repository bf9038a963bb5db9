"""#19: hooks out of the box: problems reach the user, storage options, never exit 2."""

from __future__ import annotations

import io
import json
import os
import uuid
from pathlib import Path

import pytest

from sessionkit.hooks import main as hook


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in list(os.environ):
        if name.startswith("SESSIONKIT_") or name == "CLAUDE_PROJECT_DIR":
            monkeypatch.delenv(name)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    monkeypatch.chdir(root)
    return root


def _payload(repo: Path, **extra: str) -> io.BytesIO:
    data = {
        "session_id": "7e8a3f21-9a4b-4c8d-b1e2-f5a6c7d8e9f0",
        "cwd": str(repo),
        "hook_event_name": "PreCompact",
        "trigger": "auto",
        **extra,
    }
    return io.BytesIO(json.dumps(data).encode())


def test_a_problem_is_a_system_message_with_exit_0(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # before: one line on stderr, which Claude Code does not show for exit 0
    code = hook(["pre-compact", "--store", "nosuch://x"], stdin=_payload(repo))
    out, err = capsys.readouterr()
    assert code == 0
    reply = json.loads(out)
    assert reply["systemMessage"].startswith("sessionkit hook: pre-compact failed")
    assert reply["systemMessage"].split(": ", 1)[1] in err


def test_session_start_puts_the_message_in_its_one_reply(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert hook(["pre-compact"], stdin=_payload(repo)) == 0  # the session's note
    assert hook(["pre-compact"], stdin=io.BytesIO(b"")) == 0  # empty payload: said
    first, _ = capsys.readouterr()
    assert "empty payload" in json.loads(first)["systemMessage"]
    assert hook(["session-start"], stdin=_payload(repo, hook_event_name="SessionStart")) == 0
    out, _ = capsys.readouterr()
    [line] = out.splitlines()  # one JSON reply, no message left over from the run before
    reply = json.loads(line)
    assert "empty payload" not in reply["systemMessage"]  # (only where that checkpoint went)
    assert "0000000.md; not taken as the latest session" in reply["systemMessage"]
    assert "Unconsumed directives (1)" in reply["hookSpecificOutput"]["additionalContext"]


def test_a_clean_run_prints_nothing_for_pre_compact(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert hook(["pre-compact"], stdin=_payload(repo)) == 0
    out, err = capsys.readouterr()
    assert out == "" and err == ""


def test_hooks_take_storage_options(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from sessionkit import open_store

    url = f"memory://hooks-{uuid.uuid4().hex[:8]}"
    opts = ["--store", url]
    opts += ["-o", "skip_instance_cache=true", "--storage-option", "use_listings_cache=false"]
    assert hook(["pre-compact", *opts], stdin=_payload(repo)) == 0
    out, err = capsys.readouterr()
    assert out == "" and err == "", err
    store = open_store(url, layout="aiwiki")
    assert len(store.keys()) == 1
    assert hook(["session-start", *opts, "--plain"], stdin=_payload(repo)) == 0
    out, _ = capsys.readouterr()
    assert out.startswith("Latest session note ")
    assert hook(["pre-compact", "--store", url, "-o", "novalue"], stdin=_payload(repo)) == 1
    assert "KEY=VALUE" in capsys.readouterr().err


def test_usage_errors_never_exit_2(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for args in (["bogus"], [], ["session-start", "--nope"]):
        assert hook(args, stdin=io.BytesIO(b"")) == 1, args
    assert "usage:" in capsys.readouterr().err


def test_latest_is_one_rule_for_every_layout(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # before: a Basic Memory store compared one note's `started` with another's mtime,
    # so session-start showed an old note and left out the new unconsumed directive
    from sessionkit import open_store

    project = repo / "bm"
    (project / "sessions").mkdir(parents=True)
    old = project / "sessions" / "Session 2026-04-01 10-00-00 — old work.md"
    old.write_text("---\ntitle: Session 2026-04-01 10-00-00 — old work\ntype: session\n---\n")
    newer = project / "sessions" / "Session 2026-05-20 09-30-05 — new work.md"
    newer.write_text(
        "---\ntitle: Session 2026-05-20 09-30-05 — new work\ntype: session\n"
        "started: 2026-05-20T09:30:05Z\nstatus: open\n---\n\n## Observations\n\n"
        "- [directive] Dream: do the new thing #unconsumed\n"
    )
    os.utime(newer, (1_000_000, 1_000_000))  # the old note was touched last
    store = open_store(str(project), layout="basic-memory")
    assert store.latest() == newer.name
    assert hook(["session-start", "--store", str(project), "--plain"], stdin=_payload(repo)) == 0
    out, _ = capsys.readouterr()
    assert out.startswith(f"Latest session note {newer.name}") and "do the new thing" in out
    # same date in two names: the newer modification time decides, as for aiwiki
    same = project / "sessions" / "Session 2026-05-20 09-30-05 — twin.md"
    same.write_text("---\ntitle: twin\ntype: session\n---\n")
    assert store.latest() == same.name
    # names without a date count only when no session note's name has one
    for p in (old, newer, same):
        p.unlink()
    (project / "sessions" / "Alpha.md").write_text("---\ntitle: Alpha\ntype: session\n---\n")
    beta = project / "sessions" / "Beta.md"
    beta.write_text("---\ntitle: Beta\ntype: session\n---\n")
    os.utime(beta, (1_000_000, 1_000_000))
    assert store.latest() == "Alpha.md"
