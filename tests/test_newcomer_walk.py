"""#19: a scripted newcomer walk: the README's commands on a fresh copy, then bad input.

Fast (in process, one temporary copy of ``examples/``): every command a new
user would try first, and the bad inputs of #19 that are this branch's;
each must give its documented exit code and one line, never a traceback.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest

from sessionkit.cli import main

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def clone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in list(os.environ):
        if name.startswith("SESSIONKIT_") or name == "CLAUDE_PROJECT_DIR":
            monkeypatch.delenv(name)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    repo = tmp_path / "clone"
    repo.mkdir()
    shutil.copytree(ROOT / "examples", repo / "examples")
    shutil.copy(ROOT / "README.md", repo / "README.md")
    (repo / ".git").mkdir()
    monkeypatch.chdir(repo)
    return repo


def _readme_commands() -> list[list[str]]:
    """The ``sessionkit ...`` commands of the README's set-up line and its bash blocks."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    found = []
    for block in re.findall(r"```bash\n(.*?)```", text, re.S):
        for part in re.split(r"&&|\n", block):
            words = part.split()
            if words[:1] == ["sessionkit"]:
                found.append(words)
    return found


def test_the_walk(clone: Path, capsys: pytest.CaptureFixture[str]) -> None:
    commands = _readme_commands()
    assert ["sessionkit", "lint", "examples/wiki"] in commands
    for words in commands:
        code = main(words)
        out, err = capsys.readouterr()
        assert code in (0, 1), (words, err)
        assert "Traceback" not in err and "internal error" not in err, (words, err)
    sessions = clone / "examples" / "wiki" / "aiwiki" / "sessions"
    before = {p.name: p.read_bytes() for p in sessions.iterdir()}
    # the help describes the tool and lists every command, hook included
    assert main(["sessionkit", "--help"]) == 0
    out, _ = capsys.readouterr()
    for name in ("convert", "hook", "install-hooks", "ls", "lint", "show", "migrate"):
        assert re.search(rf"^  {name} ", out, re.M), name
    # bad input: each a clear one-line error with the documented exit code
    broken = sessions.parent / "broken.md"
    broken.write_text("---\nschema_id: session\nfocus: [unclosed\n---\n")
    walk = [
        (["show", str(sessions / "INDEX.md")], 2, "no frontmatter"),
        (["show", str(broken)], 2, "invalid YAML"),
        (["lint", "--format", "nonsense", "examples/wiki"], 2, "choose from"),
        (["convert", "examples/wiki", "out", "--to", "aiwiki-v1"], 2, "aiwiki-v1"),
        (["convert", "examples/wiki", "examples/wiki", "--to", "aiwiki"], 2, "use --to"),
        (["hook", "bogus"], 1, "usage"),
        # the wrong paths of #19 (fixed in the store layer): exit 2 naming them
        (["ls", "missingdir"], 2, "missingdir: no such folder"),
        (["ls", "file:///nonexistent"], 2, "no such folder"),
        (["ls", "bm:///nonexistent/path"], 2, "no such folder"),
        (["index", "missingdir"], 2, "missingdir"),
        (["prune", "missingdir", "--abandon-after", "14d"], 2, "missingdir"),
        (["convert", "examples/wiki", "examples/wiki"], 2, "into itself"),
        (
            ["convert", "examples/wiki", str(sessions / "2026-05-18-7e8a3f2.md")],
            2,
            "is a file, not a store folder",
        ),
    ]
    for args, want, words in walk:
        code = main(["sessionkit", *args])
        out, err = capsys.readouterr()
        assert code == want, (args, out, err)
        assert words in err, (args, err)
        assert "Traceback" not in err and "internal error" not in err
        line = err.splitlines()[-1]  # naming a path at most once
        path = next((a for a in args if "/" in a or a == "missingdir"), None)
        assert path is None or line.count(path) <= 1, line
    # reading changed nothing in the wiki
    assert {p.name: p.read_bytes() for p in sessions.iterdir()} == before
    assert not (clone / "out").exists() and not (clone / "missingdir").exists()


# -- docs/cli.md: the console examples print what the commands print ---------------------

_STAMP = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z")
_ENDED = re.compile(r"ended \d{4}-\d{2}-\d{2}")
#: commands a console block shows for reading only: a network, jq or a shell, a real
#: home folder, or today's date (prune's 14 days count from the day it runs)
_NOT_RUN = ("pip ", "s3://", "| ", "echo ", "install-hooks", "hook ", "prune ")


def _console_blocks(page: Path) -> list[list[tuple[str, list[str]]]]:
    """Each ```console block as [(command, expected output lines)]."""
    blocks = []
    for body in re.findall(r"```console\n(.*?)```", page.read_text(encoding="utf-8"), re.S):
        steps: list[tuple[str, list[str]]] = []
        for line in body.splitlines():
            if line.startswith("$ "):
                steps.append((line[2:], []))
            elif steps:
                steps[-1][1].append(line)
        blocks.append(steps)
    return blocks


def _words(command: str) -> list[str]:
    import shlex

    return shlex.split(command.split("  #", 1)[0])


def _normal(lines: list[str]) -> list[str]:
    return [_ENDED.sub("ended DATE", _STAMP.sub("STAMP", ln)).rstrip() for ln in lines]


def test_cli_console_examples_match_real_output(
    clone: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    shutil.copytree(clone / "examples" / "wiki", clone / "wiki")
    checked = 0
    for steps in _console_blocks(ROOT / "docs" / "cli.md"):
        if any(any(bad in cmd for bad in _NOT_RUN) for cmd, _ in steps):
            continue
        if any(any(ln.strip() == "..." for ln in out) for _, out in steps):
            continue  # an abridged output
        # each block on fresh copies; "." and "--store ." mean the wiki itself
        work = clone.parent / f"block{checked}"
        shutil.copytree(clone, work, ignore=shutil.ignore_patterns("out", "block*"))
        (work / "notes.txt").write_text("just words\n")
        local = any(" . " in f" {cmd} " for cmd, _ in steps)
        monkeypatch.chdir(work / "wiki" if local else work)
        for command, expected in steps:
            words = _words(command)
            if words[0] == "cd":
                monkeypatch.chdir(words[1])
                continue
            assert words[0] == "sessionkit", command
            main(words)
            out, err = capsys.readouterr()
            got = [ln for ln in (out + err).splitlines() if ln.strip()]
            assert _normal(got) == _normal(expected), command
            checked += 1
    assert checked >= 10  # the blocks above were found and run
