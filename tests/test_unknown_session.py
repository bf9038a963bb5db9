"""A checkpoint without a session id is kept, but its note is never the latest session.

``echo garbage | sessionkit hook pre-compact`` records under ``<today>-0000000.md``;
session-start, ``context``, ``add``, ``status`` and ``directive consume`` still default
to the real session's note (issue #45), through the console script.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "wiki" / "aiwiki" / "sessions" / "2026-05-18-7e8a3f2.md"
SCRIPT = shutil.which("sessionkit")

pytestmark = pytest.mark.skipif(
    SCRIPT is None, reason="the sessionkit console script is not installed"
)


def _run(
    args: list[str], repo: Path, stdin: bytes = b"", **extra: str
) -> subprocess.CompletedProcess[str]:
    assert SCRIPT is not None
    env = {k: v for k, v in os.environ.items() if not k.startswith("SESSIONKIT_")}
    env.pop("CLAUDE_PROJECT_DIR", None)
    env.update(HOME=str(repo.parent / "home"), XDG_CONFIG_HOME=str(repo.parent / "xdg"))
    env["SESSIONKIT_HOOK_DEADLINE_MS"] = "120000"  # (not about the deadline)
    env.update(extra)
    res = subprocess.run(
        [SCRIPT, *args], input=stdin, capture_output=True, cwd=repo, env=env, timeout=120
    )
    return subprocess.CompletedProcess(
        res.args, res.returncode, res.stdout.decode(), res.stderr.decode()
    )


def _today() -> str:
    return dt.datetime.now(dt.UTC).date().isoformat()


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    """A repository holding the example session page (2026-05-18, one unconsumed
    directive) and, newer in date and in time, a checkpoint of a garbage payload."""
    r = tmp_path / "repo"
    (r / ".git").mkdir(parents=True)
    sessions = r / "aiwiki" / "sessions"
    sessions.mkdir(parents=True)
    shutil.copy(EXAMPLE, sessions / EXAMPLE.name)
    res = _run(["hook", "pre-compact"], r, b"garbage\n")
    assert res.returncode == 0, res.stderr
    assert "short id 0000000" in res.stderr
    unknown = sessions / f"{_today()}-0000000.md"
    assert unknown.is_file()
    return r


def _unknown(repo: Path) -> Path:
    return repo / "aiwiki" / "sessions" / f"{_today()}-0000000.md"


@pytest.mark.parametrize("lanes", ["1", "0"])
def test_session_start_names_the_real_session_and_says_where_the_rest_is(
    repo: Path, lanes: str
) -> None:
    start = json.dumps({"cwd": str(repo), "source": "startup"}).encode()
    res = _run(["hook", "session-start"], repo, start, SESSIONKIT_FAST_PATHS=lanes)
    assert res.returncode == 0, res.stderr
    reply = json.loads(res.stdout)
    context = reply["hookSpecificOutput"]["additionalContext"]
    assert context.startswith("Latest session note 2026-05-18-7e8a3f2.md")
    assert "0000000" not in context
    # one line says where the checkpoints without a session id went
    assert f"aiwiki/sessions/{_today()}-0000000.md" in reply["systemMessage"]
    assert res.stderr.count("\n") == 1 and "without a session id" in res.stderr


def test_reading_and_editing_commands_default_to_the_real_session(repo: Path) -> None:
    unknown_before = _unknown(repo).read_bytes()
    page = repo / "aiwiki" / "sessions" / EXAMPLE.name

    res = _run(["context"], repo)
    assert res.returncode == 0, res.stderr
    assert res.stdout.startswith("Latest session note 2026-05-18-7e8a3f2.md")

    res = _run(["add", "next-step", "Check the unknown checkpoint"], repo)
    assert res.returncode == 0, res.stderr
    assert "- Check the unknown checkpoint" in page.read_text(encoding="utf-8")

    res = _run(["directive", "consume"], repo)
    assert res.returncode == 0, res.stderr
    assert res.stdout.startswith("2026-05-18-7e8a3f2.md:")
    assert "Dream directive (consumed at " in page.read_text(encoding="utf-8")

    res = _run(["status", "done"], repo)
    assert res.returncode == 0, res.stderr
    assert "status: done" in page.read_text(encoding="utf-8")

    assert _unknown(repo).read_bytes() == unknown_before  # never touched by a default


def test_a_newer_unknown_note_of_the_same_day_is_not_the_latest(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    real = {"session_id": "5b2f9a1c-real", "cwd": str(repo)}
    assert _run(["hook", "pre-compact"], repo, json.dumps(real).encode()).returncode == 0
    assert _run(["hook", "pre-compact"], repo, b'{"cwd": "' + bytes(repo) + b'"}').returncode == 0
    later = time.time() + 60
    os.utime(_unknown(repo), (later, later))  # the newer one, by modification time
    start = json.dumps({"cwd": str(repo)}).encode()
    for lanes in ("1", "0"):
        res = _run(["hook", "session-start", "--plain"], repo, start, SESSIONKIT_FAST_PATHS=lanes)
        assert res.stdout.startswith(f"Latest session note {_today()}-5b2f9a1.md"), res
    res = _run(["context"], repo)
    assert res.stdout.startswith(f"Latest session note {_today()}-5b2f9a1.md")


def test_only_unknown_checkpoints_mean_no_latest_session(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    assert _run(["hook", "pre-compact"], repo, b"not json").returncode == 0
    start = json.dumps({"cwd": str(repo)}).encode()
    res = _run(["hook", "session-start"], repo, start)
    assert res.returncode == 0
    reply = json.loads(res.stdout)
    assert "hookSpecificOutput" not in reply
    assert f"{_today()}-0000000.md" in reply["systemMessage"]
    res = _run(["context"], repo)
    assert (res.returncode, res.stdout) == (0, "")  # as in a store without notes
    res = _run(["add", "next-step", "x"], repo)
    assert res.returncode == 2 and "no session notes" in res.stderr


def test_basic_memory_keeps_one_unknown_note_a_day_and_never_takes_it(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    store = f"bm://{tmp_path / 'bm'}"
    real = json.dumps({"session_id": "5b2f9a1c-real", "cwd": str(repo)}).encode()
    assert _run(["hook", "pre-compact", "--store", store], repo, real).returncode == 0
    for garbage in (b"garbage", b"[1, 2]", b'{"cwd": "/nowhere"}'):
        res = _run(["hook", "pre-compact", "--store", store], repo, garbage)
        assert res.returncode == 0 and "short id 0000000" in res.stderr
    notes = sorted(p.name for p in (tmp_path / "bm" / "sessions").glob("*.md"))
    unknown = f"Session {_today()} — checkpoints without a session id.md"
    assert unknown in notes and len(notes) == 2  # one note for the three of them
    text = (tmp_path / "bm" / "sessions" / unknown).read_text(encoding="utf-8")
    assert text.count("[context] PreCompact at") == 3
    (real_note,) = [n for n in notes if n != unknown]
    start = json.dumps({"cwd": str(repo)}).encode()
    res = _run(["hook", "session-start", "--plain", "--store", store], repo, start)
    assert res.stdout.startswith(f"Latest session note {real_note}"), res
    res = _run(["directive", "consume", "--store", store], repo)
    assert res.returncode == 0 and res.stdout.startswith(f"{real_note}:"), res
