"""The command line as a new user meets it (issue #45): dry runs, citations, short ids,
paths, limits and messages."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

import sessionkit
from sessionkit.cli import cli

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples" / "wiki"
EXAMPLE = EXAMPLES / "aiwiki" / "sessions" / "2026-05-18-7e8a3f2.md"


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Isolated HOME/XDG, no SESSIONKIT_* variables, cwd = a fresh git-like repo."""
    for name in list(os.environ):
        if name.startswith("SESSIONKIT_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    monkeypatch.chdir(repo)
    return repo


def invoke(*args: str) -> click.testing.Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def wiki_copy(where: Path) -> Path:
    shutil.copytree(EXAMPLES, where)
    return where


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
        cwd=cwd, capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip


# -- a citation with a space -------------------------------------------------------------------


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_a_citation_with_a_space_reads_back_and_is_fixed(env: Path) -> None:
    shutil.rmtree(env / ".git")
    git(env, "init", "-q")
    (env / "src").mkdir()
    (env / "src" / "with space.py").write_text("print(1)\n")
    git(env, "add", "src")
    git(env, "commit", "-qm", "src")
    sha = git(env, "log", "-1", "--format=%h", "--abbrev=7")
    page = env / "aiwiki" / "sessions" / EXAMPLE.name
    page.parent.mkdir(parents=True)
    shutil.copyfile(EXAMPLE, page)
    result = invoke("add", "file", "src/with space.py:1", "--store", ".")
    assert result.exit_code == 0, result.output
    assert "- `src/with space.py:1`\n" in page.read_text()
    cited = sessionkit.loads(page.read_text()).files_touched
    assert [(c.path, c.start) for c in cited][-1] == ("src/with space.py", 1)
    result = invoke("lint", "--fix", str(page))
    text = page.read_text()
    assert f"- `src/with space.py:1@{sha}`\n" in text, result.output
    assert "`src/with@" not in text
    # a bare path and a note after a backticked reference keep their meanings
    assert invoke("add", "file", "`src/app.py:3` the parser", "--store", ".").exit_code == 0
    assert "- `src/app.py:3` the parser\n" in page.read_text()
    assert invoke("add", "file", "not a citation", "--store", ".").exit_code == 2


# -- short ids on every store --------------------------------------------------------------------


def test_short_ids_work_on_a_basic_memory_store(env: Path) -> None:
    wiki_copy(env / "w")
    assert invoke("convert", "w", "bm", "--to", "basic-memory").exit_code == 0
    result = invoke("add", "next-step", "ship it", "--session", "7e8a3f2", "--store", "bm")
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("Session 2026-05-18 7e8a3f2")
    result = invoke("status", "done", "--session", "7e8a", "--store", "bm", "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["key"].startswith("Session 2026-05-18 7e8a3f2")
    result = invoke("status", "done", "--session", "ffff9999", "--store", "bm")
    assert result.exit_code == 2 and "no session 'ffff9999'" in result.stderr
