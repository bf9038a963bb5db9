"""Every agent, from nothing: each agent's documented payloads through the hooks, answers
in the shape each agent accepts, session end, last_commit, and install-hooks round trips.

The payloads and output rules are those of each agent's public documentation: Claude
Code's hooks reference; Codex's hook schemas (``codex-rs/hooks/schema``: its command
outputs allow no other top-level keys); Antigravity's hooks (stdout must be JSON alone).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "wiki"
SID = "5b2f9a10-1111-4222-8333-444455556666"

#: what each agent's command output may hold at its top level (Codex validates strictly)
CODEX_COMMON = {"continue", "stopReason", "suppressOutput", "systemMessage"}
CODEX_OUTPUT = {
    "SessionStart": CODEX_COMMON | {"hookSpecificOutput"},
    "PreCompact": CODEX_COMMON,
    "Stop": CODEX_COMMON | {"decision", "reason"},
}


def payload(agent: str, event: str, cwd: Path, **extra: Any) -> dict[str, Any]:
    """A payload as the agent documents it for ``event``."""
    common: dict[str, Any] = {
        "session_id": SID,
        "transcript_path": None,
        "cwd": str(cwd),
        "hook_event_name": event,
    }
    if agent == "claude":
        common |= {"transcript_path": str(cwd / "t.jsonl"), "permission_mode": "default"}
    if agent == "codex":  # (every field its input schemas require)
        common |= {"model": "gpt-5-codex", "turn_id": "turn-1"}
        if event == "Stop":
            common |= {
                "permission_mode": "default",
                "stop_hook_active": False,
                "last_assistant_message": "Done.",
            }
    if agent == "antigravity":
        common |= {"timestamp": "2026-12-07T10:00:00Z"}
    return common | extra


@pytest.fixture
def repo(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    root = tmp_path / "repo"
    shutil.copytree(EXAMPLES, root)
    (root / ".git").mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SESSIONKIT_", "CLAUDE_"))}
    env.update(
        HOME=str(tmp_path / "home"),
        XDG_CONFIG_HOME=str(tmp_path / "xdg"),
        XDG_STATE_HOME=str(tmp_path / "state"),
        SESSIONKIT_CACHE_DIR=str(tmp_path / "cache"),
        SESSIONKIT_HOOK_DEADLINE_MS="600000",  # (the machine's load never decides a test)
    )
    return root, env


def hook(
    env: dict[str, str], cwd: Path, event: str, agent: str, data: Any
) -> subprocess.CompletedProcess[str]:
    args = ["hook", event] if agent == "claude" else ["hook", event, "--agent", agent]
    return subprocess.run(
        [sys.executable, "-m", "sessionkit", *args],
        input=json.dumps(data),
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def check_output(agent: str, event: str, stdout: str) -> dict[str, Any]:
    """The reply, checked against what ``agent`` accepts for ``event``."""
    if not stdout.strip():
        return {}
    reply = json.loads(stdout)  # every agent: one JSON object, nothing else on stdout
    assert isinstance(reply, dict)
    if agent == "codex":
        assert set(reply) <= CODEX_OUTPUT[event], reply
        if "hookSpecificOutput" in reply:
            specific = reply["hookSpecificOutput"]
            assert set(specific) <= {"hookEventName", "additionalContext", "env"}
            assert specific["hookEventName"] == "SessionStart"
            assert isinstance(specific.get("additionalContext", ""), str)
    specific = reply.get("hookSpecificOutput")
    if specific is not None:  # Claude Code and Codex take at most 10,000 characters
        assert len(specific["additionalContext"]) <= 10_000
    return reply


EVENTS = {
    "claude": ("SessionStart", "PreCompact", "SessionEnd"),
    "codex": ("SessionStart", "PreCompact", "Stop"),
    "antigravity": ("SessionStart", "PreCompress", "SessionEnd"),
}


@pytest.mark.parametrize("agent", sorted(EVENTS))
def test_each_agent_a_session_start_a_compaction_and_an_end(
    agent: str, repo: tuple[Path, dict[str, str]]
) -> None:
    root, env = repo
    start_event, compact_event, end_event = EVENTS[agent]
    sessions = root / "aiwiki" / "sessions"

    compact = hook(
        env, root, "pre-compact", agent, payload(agent, compact_event, root, trigger="auto")
    )
    assert compact.returncode == 0, compact.stderr
    check_output(agent, "PreCompact", compact.stdout)
    (page,) = sessions.glob("*-5b2f9a1.md")
    assert "### PreCompact at " in page.read_text(encoding="utf-8")

    start = hook(
        env, root, "session-start", agent, payload(agent, start_event, root, source="compact")
    )
    assert start.returncode == 0, start.stderr
    reply = check_output(agent, "SessionStart", start.stdout)
    context = reply["hookSpecificOutput"]["additionalContext"]
    assert page.name in context and "Unconsumed directives (1)" in context
    # the command the agent is told to run is one its shell can run (no venv there)
    consume = next(line for line in context.splitlines() if "directive consume" in line)
    program = consume.split("consumed: ", 1)[1].split(" directive consume")[0]
    assert os.path.isabs(program.split()[0]), consume

    end = hook(env, root, "session-end", agent, payload(agent, end_event, root, reason="clear"))
    assert end.returncode == 0, end.stderr
    check_output(agent, "Stop" if agent == "codex" else "SessionStart", end.stdout)
    text = page.read_text(encoding="utf-8")
    assert "\ndate_end: " in text
    assert ("### SessionEnd at " in text) is (agent != "codex")  # a turn's end is no entry
    again = hook(env, root, "session-end", agent, payload(agent, end_event, root, reason="clear"))
    assert again.returncode == 0
    lint = subprocess.run(
        [sys.executable, "-m", "sessionkit", "lint", str(page)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert lint.returncode == 0, lint.stdout + lint.stderr


def test_session_end_of_a_session_without_a_note_writes_nothing(
    repo: tuple[Path, dict[str, str]],
) -> None:
    root, env = repo
    before = sorted(p.name for p in (root / "aiwiki" / "sessions").iterdir())
    for agent, events in EVENTS.items():
        res = hook(env, root, "session-end", agent, payload(agent, events[2], root))
        assert (res.returncode, res.stdout) == (0, "")
    assert sorted(p.name for p in (root / "aiwiki" / "sessions").iterdir()) == before


def test_a_broken_payload_answers_each_agent_in_its_shape(
    repo: tuple[Path, dict[str, str]],
) -> None:
    root, env = repo
    for agent in EVENTS:
        for event in ("pre-compact", "session-start", "session-end"):
            args = ["hook", event, "--agent", agent]
            res = subprocess.run(
                [sys.executable, "-m", "sessionkit", *args],
                input="{not json",
                cwd=root,
                env=env,
                capture_output=True,
                text=True,
                timeout=120,
            )
            assert res.returncode == 0, res.stderr
            name = {"pre-compact": "PreCompact", "session-start": "SessionStart"}
            check_output(agent, name.get(event, "Stop"), res.stdout)


def test_pre_compact_fills_last_commit_from_git(repo: tuple[Path, dict[str, str]]) -> None:
    root, env = repo
    shutil.rmtree(root / ".git")
    git = [
        "git",
        "-c",
        "user.name=t",
        "-c",
        "user.email=t@example.com",
        "-c",
        "init.defaultBranch=main",
    ]
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "one"]):
        subprocess.run([*git, *args], cwd=root, check=True, capture_output=True)
    head = subprocess.run(
        ["git", "rev-parse", "--short=7", "HEAD"], cwd=root, capture_output=True, text=True
    ).stdout.strip()
    page = root / "aiwiki" / "sessions" / "2026-05-18-7e8a3f2.md"
    before = page.read_text(encoding="utf-8")
    data = payload("claude", "PreCompact", root, session_id="7e8a3f21-9a4b-4c8d-b1e2-f5a6c7d8e9f0")
    res = hook(env, root, "pre-compact", "claude", data)
    assert res.returncode == 0, res.stderr
    after = page.read_text(encoding="utf-8")
    assert f"\nlast_commit: '{head}'\n" in after  # a SHA, always quoted
    changed = [
        (a, b) for a, b in zip(before.splitlines(), after.splitlines(), strict=False) if a != b
    ]
    assert changed[0][0] == 'last_commit: "9c03b7f"'  # that one line, then the new entry
    new = hook(env, root, "pre-compact", "claude", payload("claude", "PreCompact", root))
    assert new.returncode == 0
    (fresh,) = (root / "aiwiki" / "sessions").glob("*-5b2f9a1.md")
    assert head in fresh.read_text(encoding="utf-8")


ORIGINAL = {
    "codex": '{\n  "hooks": {\n    "Stop": [\n      {\n        "hooks": [\n          {\n'
    '            "type": "command",\n            "command": "notify-send done"\n'
    "          }\n        ]\n      }\n    ]\n  },\n"
    '  "other": true\n}\n',
    "antigravity": '{\n    "my-linter": {\n        "PostToolUse": [\n            {\n'
    '                "matcher": "run_command",\n                "hooks": [\n'
    '                    {\n                        "type": "command",\n'
    '                        "command": "./lint.sh"\n                    }\n'
    "                ]\n            }\n        ]\n    }\n}\n",
    "claude": '{\n  "model": "opus"\n}',
}


@pytest.mark.parametrize("agent", sorted(ORIGINAL))
def test_install_hooks_round_trip_keeps_every_other_byte(
    agent: str, repo: tuple[Path, dict[str, str]]
) -> None:
    root, env = repo
    where = {
        "claude": root / ".claude" / "settings.json",
        "codex": root / ".codex" / "hooks.json",
        "antigravity": root / ".agents" / "hooks.json",
    }[agent]
    where.parent.mkdir(parents=True, exist_ok=True)
    where.write_text(ORIGINAL[agent], encoding="utf-8")

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "sessionkit", "install-hooks", "--agent", agent, *args],
            cwd=root,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )

    first = run()
    assert first.returncode == 0, first.stderr
    data = json.loads(where.read_text(encoding="utf-8"))
    table = data["hooks"] if agent != "antigravity" else data["sessionkit"]
    assert set(table) >= set(EVENTS[agent])
    commands = [
        h["command"]
        for e in EVENTS[agent]
        for g in table[e]
        for h in g["hooks"]
        if " hook " in h["command"]
    ]
    assert len(commands) == 3
    suffix = "" if agent == "claude" else f" --agent {agent}"
    assert all(os.path.isabs(c.split()[0]) and c.endswith(suffix) for c in commands)
    installed = where.read_bytes()
    assert "unchanged" in run().stdout and where.read_bytes() == installed
    assert run("--remove").returncode == 0
    assert where.read_text(encoding="utf-8") == ORIGINAL[agent]


def test_a_new_users_walk_with_claude_code_and_codex(tmp_path: Path) -> None:
    """docs/quickstart.md's walk: init, hooks for two agents, a session start, a compaction
    and an end for each, then lint and ls."""
    root = tmp_path / "fresh"
    (root / ".git").mkdir(parents=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SESSIONKIT_", "CLAUDE_"))}
    env.update(
        HOME=str(tmp_path / "home"),
        XDG_CONFIG_HOME=str(tmp_path / "xdg"),
        XDG_STATE_HOME=str(tmp_path / "state"),
        SESSIONKIT_CACHE_DIR=str(tmp_path / "cache"),
        SESSIONKIT_HOOK_DEADLINE_MS="600000",  # (the machine's load never decides a test)
    )

    def sk(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "sessionkit", *args],
            cwd=root,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )

    assert sk("init").returncode == 0
    assert sk("install-hooks", "--agent", "claude", "--agent", "codex").returncode == 0
    assert (root / ".claude" / "settings.json").is_file()
    assert (root / ".codex" / "hooks.json").is_file()
    for n, (agent, events) in enumerate((("claude", EVENTS["claude"]), ("codex", EVENTS["codex"]))):
        sid = f"{n}b2f9a10-1111-4222-8333-444455556666"
        first = hook(
            env, root, "session-start", agent, payload(agent, events[0], root, session_id=sid)
        )
        assert first.returncode == 0, first.stderr
        check_output(agent, "SessionStart", first.stdout)
        data = payload(agent, events[1], root, session_id=sid, trigger="auto")
        assert hook(env, root, "pre-compact", agent, data).returncode == 0
        after = hook(
            env, root, "session-start", agent, payload(agent, events[0], root, source="compact")
        )
        reply = check_output(agent, "SessionStart", after.stdout)
        assert "Unconsumed directives (1)" in reply["hookSpecificOutput"]["additionalContext"]
        end = hook(env, root, "session-end", agent, payload(agent, events[2], root, session_id=sid))
        assert end.returncode == 0
    lint = sk("lint")
    assert lint.returncode == 0, lint.stdout + lint.stderr
    listing = sk("ls")
    assert listing.returncode == 0
    assert [line.split()[1] for line in listing.stdout.splitlines()] == ["0b2f9a1", "1b2f9a1"]
