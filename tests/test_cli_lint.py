"""``sessionkit lint`` of local paths: every form of the command line, one path."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from sessionkit.cli import main

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def _no_user_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No configuration source but what a test makes (a user file, a project file)."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "home" / ".config"))
    for name in list(os.environ):
        if name.startswith("SESSIONKIT_"):
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)


@pytest.fixture()
def wiki(tmp_path: Path) -> Path:
    """The example wiki, one page with a finding and one that is not UTF-8 added."""
    root = tmp_path / "wiki"
    shutil.copytree(REPO / "examples" / "wiki", root)
    sessions = root / "aiwiki" / "sessions"
    page = sorted(sessions.glob("2*.md"))[0]
    text = page.read_text("utf-8")
    (sessions / "2026-01-01-abcdef0.md").write_text(text.replace("status:", "status: x\nfoo:"))
    (sessions / "2026-01-02-bad.md").write_bytes(b"---\nschema_id: session\n\xff\n---\n")
    return root


def _lint(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """Run ``sessionkit lint ARGV``: (exit code, stdout, stderr)."""
    code = main(["sessionkit", "lint", *argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("json", [[], ["--json"]])
@pytest.mark.parametrize("jobs", [[], ["--jobs", "1"], ["-j", "2"], ["--jobs=3"]])
def test_a_wiki(
    wiki: Path, capsys: pytest.CaptureFixture[str], json: list[str], jobs: list[str]
) -> None:
    code, out, _ = _lint([*json, *jobs, str(wiki)], capsys)
    assert code == 1  # the page that is not UTF-8
    assert "AW001" in out and "AW003" in out


def test_paths_of_every_kind(wiki: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sessions = wiki / "aiwiki" / "sessions"
    page = str(sorted(sessions.glob("2*.md"))[-1])
    assert _lint([page], capsys)[0] == 0
    assert _lint([page, str(sessions), "--json"], capsys)[0] == 1
    assert _lint(["file://" + page], capsys)[0] == 0  # (a URL: click's)
    assert _lint(["--json", page], capsys)[1].startswith("[")
    code, out, err = _lint([page, str(wiki / "missing.md")], capsys)
    assert code == 2 and "missing.md" in err and err.startswith("sessionkit: ") and not out
    outside = wiki.parent / "outside.md"
    shutil.copy(page, outside)
    (sessions / "link.md").symlink_to(outside)
    assert "refused: it resolves to" in _lint([str(wiki)], capsys)[1]


@pytest.mark.parametrize("json", [[], ["--json"]])
def test_no_path_is_the_repository_root(
    wiki: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, json: list[str]
) -> None:
    """``sessionkit lint`` with no path lints the configured store: with no configuration
    source, the repository root, as click's command finds it (shown relative to the
    working directory when under it), from the root and from a folder below it."""
    (wiki / ".git").mkdir()
    monkeypatch.chdir(wiki)
    code, out, _ = _lint(json, capsys)
    assert code == 1 and "AW001" in out
    assert out == _lint([*json, "."], capsys)[1]  # (the root, shown as ".")
    monkeypatch.chdir(wiki / "aiwiki" / "sessions")
    code, below, _ = _lint(json, capsys)
    assert code == 1
    assert below == _lint([*json, str(wiki)], capsys)[1]  # (above it: the whole path)


def test_no_path_with_a_configuration_is_the_configured_store(
    wiki: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (wiki / ".git").mkdir()
    (wiki / ".sessionkit.toml").write_text('[store]\nlayout = "aiwiki"\n')
    monkeypatch.chdir(wiki)
    code, out, _ = _lint([], capsys)
    assert code == 1 and "AW001" in out


def test_a_broken_schema_page_stops_the_run(wiki: Path, capsys: pytest.CaptureFixture[str]) -> None:
    own = wiki / "aiwiki" / "schemas" / "session.md"
    own.parent.mkdir(parents=True, exist_ok=True)
    own.write_text("---\nschema_id: [\n---\n")
    code, _, err = _lint([str(wiki)], capsys)
    assert code == 2 and "session.md" in err


def test_a_reader_that_stops_early(tmp_path: Path) -> None:
    """``sessionkit lint ... | head -1``: exit 1, no traceback, no process left."""
    import os
    import subprocess
    import sys

    sys.path.insert(0, str(REPO / "benchmarks"))
    from _corpus import write_cli_corpus

    root = tmp_path / "wiki"
    write_cli_corpus(root, "finding", 600)
    env = dict(os.environ)
    cmd = [sys.executable, "-m", "sessionkit.cli", "lint", "--jobs", "2", str(root)]
    with subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env) as proc:
        assert proc.stdout is not None and proc.stderr is not None
        assert b"AW012" in proc.stdout.readline()
        proc.stdout.close()
        err = proc.stderr.read()
        assert proc.wait(timeout=60) == 1
    assert b"Traceback" not in err and b"Error" not in err


def test_the_configuration_is_read_when_there_is_one(
    wiki: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without a configuration source the built-in limits apply; a project file, a
    variable or the user file is read."""
    from sessionkit.config import Limits
    from sessionkit.ops.lint import MAX_NOTE_BYTES

    assert Limits().max_note_bytes == MAX_NOTE_BYTES
    sessions = str(wiki / "aiwiki" / "sessions")
    big = wiki / "aiwiki" / "sessions" / "2026-01-03-big.md"
    big.write_bytes(b"x" * (MAX_NOTE_BYTES + 1))
    assert "SK002" in _lint([sessions], capsys)[1]
    big.unlink()
    (tmp_path / ".sessionkit.toml").write_text("[limits]\nmax_note_bytes = 1500\n")
    assert "over the limit of 1500" in _lint([sessions], capsys)[1]
    (tmp_path / ".sessionkit.toml").unlink()
    monkeypatch.setenv("SESSIONKIT_MAX_NOTE_BYTES", "1600")
    assert "over the limit of 1600" in _lint([sessions], capsys)[1]
    monkeypatch.delenv("SESSIONKIT_MAX_NOTE_BYTES")
    user = tmp_path / "home" / ".config" / "sessionkit" / "config.toml"
    user.parent.mkdir(parents=True)
    user.write_text("[limits]\nmax_note_bytes = 1700\n")
    assert "over the limit of 1700" in _lint([sessions], capsys)[1]
    user.write_text("[limits]\nmax_note_bytes = 'x'\n")  # a broken one: exit 2
    code, _, err = _lint([sessions], capsys)
    assert code == 2 and "config.toml" in err
