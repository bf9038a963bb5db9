"""Every configuration value is checked when set and when read; a bad one never stops a hook.

Through the console script (issues #45 and #46): ``config set`` refuses a value out of
its documented type or range and writes nothing; a bad value written by hand stops
every command with the file and line (or the variable) named, exit 2; the hooks fall
back to that key's default, say so in one line, and still record.  A store location
in a configuration file obeys the root rule of ``--store``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

SCRIPT = shutil.which("sessionkit")

pytestmark = pytest.mark.skipif(
    SCRIPT is None, reason="the sessionkit console script is not installed"
)

COMMENTED = '# notes for this repo\n[hooks]  # the agent hooks\ndirective_kind = "Plan"  # ours\n'


def _run(
    args: list[str], cwd: Path, stdin: bytes = b"", **extra: str
) -> subprocess.CompletedProcess[str]:
    assert SCRIPT is not None
    env = {k: v for k, v in os.environ.items() if not k.startswith("SESSIONKIT_")}
    env.pop("CLAUDE_PROJECT_DIR", None)
    env.update(HOME=str(cwd.parent / "home"), XDG_CONFIG_HOME=str(cwd.parent / "xdg"))
    env["SESSIONKIT_HOOK_DEADLINE_MS"] = "120000"  # (not about the deadline)
    env.update(extra)
    res = subprocess.run(
        [SCRIPT, *args], input=stdin, capture_output=True, cwd=cwd, env=env, timeout=120
    )
    return subprocess.CompletedProcess(
        res.args, res.returncode, res.stdout.decode(), res.stderr.decode()
    )


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    r = tmp_path / "repo"
    (r / ".git").mkdir(parents=True)
    (r / "aiwiki" / "sessions").mkdir(parents=True)
    (tmp_path / "victim").mkdir()
    return r


def _user_file(repo: Path) -> Path:
    return repo.parent / "xdg" / "sessionkit" / "config.toml"


def _pre_compact(repo: Path, **extra: str) -> subprocess.CompletedProcess[str]:
    payload = json.dumps({"session_id": "5b2f9a1c-real", "cwd": str(repo)}).encode()
    return _run(["hook", "pre-compact"], repo, payload, **extra)


def _checkpoints(repo: Path) -> int:
    page = repo / "aiwiki" / "sessions"
    return sum(p.read_text().count("### PreCompact at") for p in page.glob("*.md"))


# -- config set: refused, nothing written ----------------------------------------------------

BAD_SETS = [
    ("hooks.context_budget", "10", "at least 1000 chars, not 10"),
    ("hooks.context_budget", "-1", "at least 0"),
    ("store.layout", "bogus", "store.layout must be one of aiwiki, basic-memory"),
    ("store.format", "bogus", "store.format must be one of aiwiki-v1, aiwiki-v2, basic-memory"),
    ("hooks.deadline_ms", "0", "positive integer"),
    ("limits.max_note_bytes", "lots", "must be an integer"),
    ("hooks.session_start_output", "xml", "json, plain"),
    ("hooks.context_unit", "words", "chars, tokens"),
    ("secrets.redact", "maybe", "on, warn, off"),
    ("hooks.directive_kind", "Dream\nrm -rf", "one line"),
    ("store.url", "../victim", "outside that folder"),
    ("hooks.store", "../victim", "outside that folder"),
]


@pytest.mark.parametrize(("key", "value", "words"), BAD_SETS)
def test_config_set_refuses_a_value_out_of_its_type_or_range(
    repo: Path, key: str, value: str, words: str
) -> None:
    project = repo / ".sessionkit.toml"
    project.write_text(COMMENTED)
    res = _run(["config", "set", "--", key, value], repo)
    assert res.returncode == 2, res
    assert words in res.stderr and res.stderr.count("\n") == 1
    assert "Traceback" not in res.stderr
    assert project.read_text() == COMMENTED  # nothing written
    assert _run(["ls"], repo).returncode == 0  # and every command still works


def test_config_set_checks_the_budget_with_its_unit(repo: Path) -> None:
    assert _run(["config", "set", "hooks.context_budget", "500"], repo).returncode == 2
    assert not (repo / ".sessionkit.toml").exists()
    assert _run(["config", "set", "hooks.context_unit", "tokens"], repo).returncode == 0
    assert _run(["config", "set", "hooks.context_budget", "500"], repo).returncode == 0
    res = _run(["config", "set", "hooks.context_unit", "chars"], repo)  # 500 chars: too few
    assert res.returncode == 2 and "at least 1000 chars, not 500" in res.stderr
    assert 'context_unit = "tokens"' in (repo / ".sessionkit.toml").read_text()


def test_config_set_project_and_user_together_is_refused(repo: Path) -> None:
    res = _run(["config", "set", "--project", "--user", "store.format", "aiwiki-v2"], repo)
    assert res.returncode == 2 and "exclude each other" in res.stderr
    assert not (repo / ".sessionkit.toml").exists() and not _user_file(repo).exists()


def test_config_set_repairs_a_bad_value_written_by_hand(repo: Path) -> None:
    project = repo / ".sessionkit.toml"
    project.write_text("[hooks]\ncontext_budget = 10  # too small\n")
    assert _run(["ls"], repo).returncode == 2
    res = _run(["config", "set", "hooks.context_budget", "9000"], repo)
    assert res.returncode == 0, res.stderr
    assert project.read_text() == "[hooks]\ncontext_budget = 9000  # too small\n"
    assert _run(["ls"], repo).returncode == 0


# -- read: every command names the file and line, the hooks still record -------------------

BAD_FILES = [
    ("[hooks]\n# small\ncontext_budget = 10\n", 3, "hooks.context_budget"),
    ('[store]\nlayout = "bogus"\n', 2, "store.layout"),
    ('[store]\n\nformat = "bogus"\n', 3, "store.format"),
    ("[hooks]\ndeadline_ms = 0\n", 2, "hooks.deadline_ms"),
    ('[hooks]\ncontext_unit = "words"\n', 2, "hooks.context_unit"),
]


@pytest.mark.parametrize(("text", "line", "key"), BAD_FILES)
def test_a_bad_value_names_its_file_and_line_and_never_stops_a_hook(
    repo: Path, text: str, line: int, key: str
) -> None:
    project = repo / ".sessionkit.toml"
    project.write_text(text)
    for command in (["ls"], ["context"], ["config", "show"]):
        res = _run(command, repo)
        assert res.returncode == 2, (command, res)
        assert res.stderr.startswith(f"sessionkit: {project}:{line}: {key}")
    res = _pre_compact(repo)
    assert res.returncode == 0
    assert _checkpoints(repo) == 1  # recorded all the same
    said = [x for x in res.stderr.splitlines() if key in x]
    assert len(said) == 1 and f"{project}:{line}:" in said[0]
    assert f"using the default for {key}" in said[0]
    assert f"using the default for {key}" in json.loads(res.stdout)["systemMessage"]
    start = json.dumps({"cwd": str(repo)}).encode()
    res = _run(["hook", "session-start", "--plain"], repo, start)
    assert res.stdout.startswith("Latest session note ") and key in res.stderr


def test_a_file_that_is_not_toml_never_stops_a_hook(repo: Path) -> None:
    (repo / ".sessionkit.toml").write_text("[hooks\n")
    res = _pre_compact(repo)
    assert _checkpoints(repo) == 1
    assert "bad TOML" in res.stderr and "using the defaults for this file's values" in res.stderr


def test_a_bad_environment_value_names_the_variable(repo: Path) -> None:
    res = _run(["ls"], repo, SESSIONKIT_CONTEXT_BUDGET="5")
    assert res.returncode == 2 and res.stderr.startswith("sessionkit: $SESSIONKIT_CONTEXT_BUDGET:")
    res = _pre_compact(repo, SESSIONKIT_LAYOUT="bogus")
    assert _checkpoints(repo) == 1
    assert "$SESSIONKIT_LAYOUT: store.layout must be one of" in res.stderr
    assert "using the default for store.layout" in res.stderr


# -- #46: a store location from a file obeys the root rule of --store -----------------------


@pytest.mark.parametrize("text", ['[hooks]\nstore = "../victim"\n', '[store]\nurl = "../victim"\n'])
def test_a_project_file_cannot_send_the_hooks_outside_the_repository(repo: Path, text: str) -> None:
    project = repo / ".sessionkit.toml"
    project.write_text(text)
    victim = repo.parent / "victim"
    res = _pre_compact(repo)
    assert res.returncode == 0
    assert list(victim.iterdir()) == []  # nothing written outside
    assert _checkpoints(repo) == 1  # the checkpoint went to the repository's own store
    assert "refused store '../victim'" in res.stderr and "using the default for" in res.stderr
    # every other command refuses it as it refuses --store ../victim
    res = _run(["ls"], repo)
    assert res.returncode == 2 and res.stderr.startswith(f"sessionkit: {project}:2: ")
    assert "outside that folder" in res.stderr
    res = _run(["ls", "../victim"], repo)
    assert res.returncode == 2 and "outside that folder" in res.stderr


def test_a_symlink_in_the_repository_leading_out_is_refused_too(repo: Path) -> None:
    (repo / "wiki").symlink_to(repo.parent / "victim")
    (repo / ".sessionkit.toml").write_text('[store]\nurl = "wiki"\n')
    res = _pre_compact(repo)
    assert list((repo.parent / "victim").iterdir()) == []
    assert _checkpoints(repo) == 1 and "outside that folder" in res.stderr


def test_a_relative_store_inside_the_repository_and_an_absolute_one_still_work(
    repo: Path,
) -> None:
    (repo / "notes").mkdir()
    (repo / ".sessionkit.toml").write_text('[hooks]\nstore = "notes"\n')
    res = _pre_compact(repo)
    assert res.returncode == 0 and res.stderr == ""
    assert len(list((repo / "notes" / "aiwiki" / "sessions").glob("*.md"))) == 1
    elsewhere = repo.parent / "victim"
    (repo / ".sessionkit.toml").write_text(f"[hooks]\nstore = {json.dumps(str(elsewhere))}\n")
    assert _pre_compact(repo).stderr == ""  # an absolute path means that folder, as --store
    assert len(list((elsewhere / "aiwiki" / "sessions").glob("*.md"))) == 1


def test_a_bad_value_in_another_file_does_not_block_config_set(repo: Path) -> None:
    _user_file(repo).parent.mkdir(parents=True)
    _user_file(repo).write_text('[store]\nlayout = "bogus"\n')
    res = _run(["config", "set", "hooks.directive_kind", "Plan"], repo)
    assert res.returncode == 0, res.stderr
    res = _run(["config", "set", "storage_options.s3://team.profile", "dev"], repo)
    assert res.returncode == 0, res.stderr
    res = _run(["ls"], repo)  # (that file is still reported, by every command)
    assert res.returncode == 2 and f"{_user_file(repo)}:2: store.layout" in res.stderr


def test_configuration_page_documents_every_key_with_its_variable() -> None:
    from sessionkit.config import SETTINGS

    page = (Path(__file__).resolve().parent.parent / "docs" / "configuration.md").read_text()
    rows = {line.split("|")[1].strip(" `"): line for line in page.splitlines() if "| `" in line}
    for setting in SETTINGS:
        assert setting.key in rows, f"{setting.key} is not in docs/configuration.md"
        assert f"`{setting.env}`" in rows[setting.key]
