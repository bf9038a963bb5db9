"""#19: sessionkit's lock and state files never show up in ``git status``."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from sessionkit.cli import main
from sessionkit.hooks import main as hook

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "wiki"
pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


def _git(repo: Path, *args: str) -> str:
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_SYSTEM": os.devnull}
    return subprocess.run(
        ["git", "-C", str(repo), *args], check=True, capture_output=True, text=True, env=env
    ).stdout


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in list(os.environ):
        if name.startswith("SESSIONKIT_") or name == "CLAUDE_PROJECT_DIR":
            monkeypatch.delenv(name)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    root = tmp_path / "repo"
    shutil.copytree(EXAMPLES, root)
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "-c", "user.email=a@b", "-c", "user.name=a", "commit", "-qm", "wiki")
    monkeypatch.chdir(root)
    return root


def test_lock_and_state_files_are_not_untracked_noise(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    payload = {"session_id": "a1b2c3d4-0000-4000-8000-000000000000", "cwd": str(repo)}
    assert hook(["pre-compact"], stdin=io.BytesIO(json.dumps(payload).encode())) == 0
    assert main(["sessionkit", "add", "next-step", "ship", "it"]) == 0
    assert main(["sessionkit", "convert", ".", str(repo / "bm")]) == 0
    capsys.readouterr()
    assert (repo / "aiwiki" / "sessions" / ".sessionkit.lock").exists()
    assert (repo / "bm" / "sessions" / ".sessionkit-convert.json").exists()
    status = _git(repo, "status", "--porcelain", "-z", "--untracked-files=all").split("\0")
    names = [line[3:] for line in status if line]
    assert not [n for n in names if "/.sessionkit" in n], status
    assert any(n.startswith("aiwiki/sessions/") and n.endswith("-a1b2c3d.md") for n in names), (
        status
    )
    assert any(n.startswith("bm/") for n in names), status  # converted notes not hidden
    # the repository's own ignore file, not a committed .gitignore; written once
    exclude = (repo / ".git" / "info" / "exclude").read_text()
    assert exclude.count("/aiwiki/sessions/.sessionkit.lock") == 1
    assert not (repo / ".gitignore").exists()
    assert "sessionkit.toml" not in exclude  # the project's configuration is never hidden


def test_outside_git_nothing_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in list(os.environ):
        if name.startswith("SESSIONKIT_") or name == "CLAUDE_PROJECT_DIR":
            monkeypatch.delenv(name)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    folder = tmp_path / "plain" / "notes"
    (folder / "aiwiki" / "sessions").mkdir(parents=True)
    monkeypatch.chdir(folder)
    payload = {"session_id": "a1b2c3d4-0000-4000-8000-000000000000", "cwd": str(folder)}
    assert hook(["pre-compact"], stdin=io.BytesIO(json.dumps(payload).encode())) == 0
    capsys.readouterr()
    assert (folder / "aiwiki" / "sessions" / ".sessionkit.lock").exists()
    assert list(tmp_path.rglob("exclude")) == []
