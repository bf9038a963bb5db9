"""A new user's start: init, new, set focus — through the command line."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessionkit.cli import cli


@pytest.fixture
def repo(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SESSIONKIT_", "CLAUDE_"))}
    env.update(
        HOME=str(tmp_path / "home"),
        XDG_CONFIG_HOME=str(tmp_path / "xdg"),
        SESSIONKIT_CACHE_DIR=str(tmp_path / "cache"),
    )
    return root, env


def _run(root: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """``sessionkit -C ROOT ARGS`` in process (click's runner), in the environment ``env``."""
    unset = {k: None for k in os.environ if k not in env}
    result = CliRunner(env={**unset, **env}).invoke(cli, ["-C", str(root), *args])
    return subprocess.CompletedProcess(args, result.exit_code, result.stdout, result.stderr)


def _tree(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".git" not in p.parts
    }


def test_init_new_set_lint_ls(repo: tuple[Path, dict[str, str]]) -> None:
    root, env = repo
    first = _run(root, env, "init")
    assert first.returncode == 0, first.stderr
    made = _tree(root)
    assert sorted(made) == ["aiwiki/schemas/session.md", "aiwiki/sessions/INDEX.md"]
    assert made["aiwiki/schemas/session.md"].startswith(b"---\nschema_id: session\n")
    assert not (root / ".sessionkit.toml").exists()  # the root is the default store
    assert "next:" in first.stdout and "install-hooks" in first.stdout
    again = _run(root, env, "init")
    assert again.returncode == 0 and "made" not in again.stdout
    assert _tree(root) == made  # idempotent: nothing rewritten

    new = _run(root, env, "new", "--focus", "wire the exporter", "--id", "abcdef12-0000")
    assert new.returncode == 0, new.stderr
    page = root / "aiwiki" / "sessions"
    (name,) = [p.name for p in page.glob("*-abcdef1.md")]
    assert new.stdout.startswith(f"{name}: new session abcdef12-0000")
    before = (page / name).read_text()
    assert "focus: wire the exporter\n" in before

    assert _run(root, env, "set", "focus", "wire the exporter retries").returncode == 0
    after = (page / name).read_text()
    assert [
        (a, b) for a, b in zip(before.splitlines(), after.splitlines(), strict=True) if a != b
    ] == [("focus: wire the exporter", "focus: wire the exporter retries")]
    lint = _run(root, env, "lint")
    assert lint.returncode == 0, lint.stdout + lint.stderr
    ls = _run(root, env, "ls")
    assert ls.returncode == 0 and "wire the exporter retries" in ls.stdout


def test_init_refuses_to_overwrite_and_writes_config_only_when_needed(
    repo: tuple[Path, dict[str, str]],
) -> None:
    root, env = repo
    schema = root / "aiwiki" / "schemas" / "session.md"
    schema.parent.mkdir(parents=True)
    schema.write_text("my own schema page\n")
    assert _run(root, env, "init").returncode == 0
    assert schema.read_text() == "my own schema page\n"

    bm = _run(root, env, "init", "notes", "--layout", "basic-memory")
    assert bm.returncode == 0, bm.stderr
    assert (root / "notes" / "sessions").is_dir()
    assert (
        (root / ".sessionkit.toml")
        .read_text()
        .endswith('[store]\nurl = "notes"\nlayout = "basic-memory"\n')
    )
    new = _run(root, env, "new", "--focus", "bm start")
    assert new.returncode == 0, new.stderr
    (note,) = (root / "notes" / "sessions").glob("*.md")
    assert "type: session" in note.read_text()
    assert _run(root, env, "ls").returncode == 0

    (root / "file.txt").write_text("x")
    bad = _run(root, env, "init", "file.txt")
    assert bad.returncode == 2 and "not a folder" in bad.stderr
    outside = _run(root, env, "init", str(root.parent / "elsewhere"))
    assert outside.returncode == 2 and "outside the repository" in outside.stderr
    assert not (root.parent / "elsewhere").exists()


def test_plugin_build_gives_a_plugin_whose_hooks_keep_no_state_in_it(
    repo: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    import json
    import shlex

    root, env = repo
    plugin = tmp_path / "plugin"
    built = _run(root, env, "plugin", "build", str(plugin))
    assert built.returncode == 0, built.stderr
    files = _tree(plugin)
    assert sorted(files) == [".claude-plugin/plugin.json", ".mcp.json", "hooks/hooks.json"]
    manifest = json.loads(files[".claude-plugin/plugin.json"])
    assert manifest["name"] == "sessionkit" and manifest["version"]
    hooks = json.loads(files["hooks/hooks.json"])["hooks"]
    assert sorted(hooks) == ["PreCompact", "SessionEnd", "SessionStart"]
    server = json.loads(files[".mcp.json"])["mcpServers"]["sessionkit"]
    assert os.path.isabs(server["command"]) and server["args"][-1] == "mcp"
    assert _run(root, env, "plugin", "build", str(plugin)).returncode == 0
    assert _tree(plugin) == files  # the same bytes again

    # run the plugin's PreCompact command as Claude Code would
    (command,) = [h["command"] for g in hooks["PreCompact"] for h in g["hooks"]]
    payload = json.dumps(
        {
            "session_id": "5b2f9a10-1111-4222-8333-444455556666",
            "cwd": str(root),
            "hook_event_name": "PreCompact",
            "trigger": "auto",
        }
    )
    ran = subprocess.run(
        shlex.split(command),
        input=payload,
        cwd=root,
        env={**env, "CLAUDE_PLUGIN_ROOT": str(plugin), "CLAUDE_PROJECT_DIR": str(root)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert ran.returncode == 0, ran.stderr
    assert list((root / "aiwiki" / "sessions").glob("*-5b2f9a1.md"))
    assert _tree(plugin) == files  # no state under the plugin root
