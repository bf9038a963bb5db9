"""The command line: exit codes, one-line errors, JSON shapes, config commands."""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from sessionkit.cli import cli, main

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "wiki"
DIAG_LINE = re.compile(r"^[^\n]+?(?::\d+)?: [A-Z]+\d+ (error|warning|info): .+$")

V2_NOTE = """\
---
schema_id: session
schema_version: 2
session_id: 7e8a3f2c-1111-2222-3333-444455556666
date_start: 2026-05-18
date_end: ~
status: active
focus: config system
last_commit: "abc1234"
---

## Checkpoints

### PreCompact at 2026-05-18T14:23:00Z

**Dream directive (unconsumed):**

- Scope: `aiwiki/raw/`
- Action: invoke `support-dream` skill before resuming other work

---

## Next steps

- write the docs
"""


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


def assert_one_line_error(stderr: str, *words: str) -> None:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert lines[0].startswith("sessionkit: "), stderr
    assert "Traceback" not in stderr
    for word in words:
        assert word in lines[0]


# -- basics ---------------------------------------------------------------------------------


def test_version_and_help(env: Path) -> None:
    result = invoke("--version")
    assert result.exit_code == 0 and "0.1.0" in result.output
    result = invoke("--help")
    assert result.exit_code == 0
    for command in ("lint", "show", "ls", "index", "config"):
        assert command in result.output


def test_usage_errors_exit_2(env: Path) -> None:
    assert invoke("no-such-command").exit_code == 2
    assert "Did you mean 'lint'?" in invoke("lnt").output  # (every name known before import)
    assert invoke("lint", "--no-such-flag").exit_code == 2
    assert invoke("show").exit_code == 2  # PATH missing


def test_main_returns_exit_codes_without_raising(
    env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["sessionkit", "--version"]) == 0
    assert main(["sessionkit", "lint", "missing.md"]) == 2
    assert_one_line_error(capsys.readouterr().err, "missing.md", "No such file")
    assert main(["sessionkit", "ls", "--since", "yesterday-ish"]) == 2


def test_every_listed_command_loads_and_answers_help(env: Path) -> None:
    # the group imports a command's module on first use: each name it lists must load
    ctx = click.Context(cli)
    names = cli.list_commands(ctx)
    assert len(names) == len(set(names)) and {"lint", "ls", "convert", "hook"} <= set(names)
    for name in names:
        result = invoke(name, "--help")
        assert result.exit_code == 0 and f" {name} [" in result.output.lower(), name


def test_importing_the_entry_point_does_not_import_click() -> None:
    code = "import sys, sessionkit.cli; print('click' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_hook_dispatch_skips_click() -> None:
    code = (
        "import sys, types\n"
        "m = types.ModuleType('sessionkit.hooks')\n"
        "m.main = lambda argv: print('hook got', argv) or 0\n"
        "sys.modules['sessionkit.hooks'] = m\n"
        "from sessionkit.cli import main\n"
        "rc = main(['sessionkit', 'hook', 'session-start', '--plain'])\n"
        "print(rc, 'click' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.splitlines() == ["hook got ['session-start', '--plain']", "0 False"]


# -- lint ------------------------------------------------------------------------------------


def test_lint_missing_path_is_one_line_exit_2(env: Path) -> None:
    result = invoke("lint", "nope/missing.md")
    assert result.exit_code == 2
    assert result.stdout == ""
    assert_one_line_error(result.stderr, "nope/missing.md")


def test_lint_unusable_note_is_a_finding_exit_1(env: Path) -> None:
    note = env / "aiwiki" / "sessions" / "2026-05-18-7e8a3f2.md"
    note.parent.mkdir(parents=True)
    note.write_text("just some text, no frontmatter\n")
    result = invoke("lint", str(env))
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert lines and all(DIAG_LINE.match(line) for line in lines), result.stdout
    assert lines[0].startswith(str(note))
    result = invoke("lint", "--json", str(note))
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    assert isinstance(data, list) and data
    for item in data:
        assert set(item) == {"path", "line", "code", "severity", "message"}
        assert item["path"] == str(note)
    assert any(item["severity"] == "error" for item in data)


def test_lint_not_utf8_is_a_finding(env: Path) -> None:
    note = env / "bad.md"
    note.write_bytes(b"---\nfocus: \xff\n---\n")
    result = invoke("lint", "--json", str(note))
    assert result.exit_code == 1
    (item,) = json.loads(result.stdout)
    assert item["line"] == 2 and item["severity"] == "error"


def test_lint_folder_skips_index_and_hidden(env: Path) -> None:
    folder = env / "notes"
    (folder / ".trash").mkdir(parents=True)
    (folder / "INDEX.md").write_text("# index\n")
    (folder / ".trash" / "old.md").write_text("x\n")
    (folder / "a.md").write_text("x\n")
    result = invoke("lint", "--json", str(folder))
    paths = {item["path"] for item in json.loads(result.stdout)}
    assert paths == {str(folder / "a.md")}


def test_lint_respects_the_configured_size_limit(env: Path) -> None:
    (env / ".sessionkit.toml").write_text("[limits]\nmax_note_bytes = 10\n")
    note = env / "big.md"
    note.write_text("x" * 11)
    result = invoke("lint", "--json", str(note))
    assert result.exit_code == 1
    (item,) = json.loads(result.stdout)
    assert item["code"] == "SK002" and "limit" in item["message"]


def test_lint_valid_v2_note_exits_0(env: Path) -> None:
    pytest.importorskip("sessionkit.adapters.aiwiki")
    note = env / "aiwiki" / "sessions" / "2026-05-18-7e8a3f2.md"
    note.parent.mkdir(parents=True)
    note.write_text(V2_NOTE)
    result = invoke("lint", "--json", str(env))
    errors = [d for d in json.loads(result.stdout) if d["severity"] == "error"]
    assert errors == []
    assert result.exit_code == 0


def _v2_schema_page(**changes: str) -> str:
    from importlib import resources

    page = resources.files("sessionkit.adapters").joinpath("schemas/aiwiki-session-v2.md")
    text = page.read_text(encoding="utf-8")
    for old, new in changes.items():
        assert old in text
        text = text.replace(old, new)
    return text


def _thirty_line_wiki(root: Path) -> Path:
    note = root / "aiwiki" / "sessions" / "2026-05-18-7e8a3f2.md"
    note.parent.mkdir(parents=True)
    extra = "".join(f"- step {i}\n" for i in range(30 - V2_NOTE.count("\n")))
    note.write_text(V2_NOTE + extra)
    assert len(note.read_text().splitlines()) == 30
    return note


def test_lint_uses_the_wikis_own_schema_page(env: Path) -> None:
    note = _thirty_line_wiki(env)
    for target in (str(note), str(env), str(note.parent)):
        result = invoke("lint", "--json", target)
        assert result.exit_code == 0 and json.loads(result.stdout) == [], result.output
    schemas = env / "aiwiki" / "schemas"
    schemas.mkdir()
    own = _v2_schema_page(**{"hard_cap_lines: 400": "hard_cap_lines: 20"})
    (schemas / "session.md").write_text(own)
    for target in (str(note), str(env), str(note.parent)):
        result = invoke("lint", "--json", "-j", "1", target)
        assert result.exit_code == 1, result.output
        (item,) = json.loads(result.stdout)
        assert item["code"] == "AW009" and item["line"] == 21 and item["path"] == str(note)
    # the Python API reads nothing behind the caller's back: the schema is explicit
    import sessionkit
    from sessionkit.adapters.aiwiki import load_schema

    text = note.read_text()
    assert sessionkit.lint(text, path=str(note)) == []
    found = sessionkit.lint(text, path=str(note), schema=load_schema(schemas / "session.md"))
    assert [d.code for d in found] == ["AW009"]


def test_lint_a_store_url_uses_its_own_schema_page(env: Path) -> None:
    import fsspec

    fs = fsspec.filesystem("memory")
    root = "/sk-cli-own-schema"
    extra = "".join(f"- step {i}\n" for i in range(30 - V2_NOTE.count("\n")))
    fs.pipe(f"{root}/aiwiki/sessions/2026-05-18-7e8a3f2.md", (V2_NOTE + extra).encode())
    try:
        assert invoke("lint", f"memory://{root}").exit_code == 0
        own = _v2_schema_page(**{"hard_cap_lines: 400": "hard_cap_lines: 20"})
        fs.pipe(f"{root}/aiwiki/schemas/session.md", own.encode())
        result = invoke("lint", "--json", f"memory://{root}")
        assert result.exit_code == 1
        assert [d["code"] for d in json.loads(result.stdout)] == ["AW009"]
    finally:
        fs.rm(root, recursive=True)


def test_lint_with_a_broken_schema_page_is_one_error_exit_2(env: Path) -> None:
    _thirty_line_wiki(env)
    schemas = env / "aiwiki" / "schemas"
    schemas.mkdir()
    bad = _v2_schema_page(**{"hard_cap_lines: 400": "hard_cap_lines: lots"})
    (schemas / "session.md").write_text(bad)
    line = bad.splitlines().index("hard_cap_lines: lots") + 1
    result = invoke("lint", str(env))
    assert result.exit_code == 2
    assert_one_line_error(result.stderr, f"{schemas / 'session.md'}:{line}:", "hard_cap_lines")
    (schemas / "session.md").write_text("---\nschema_id: session\nschema_version: [2\n---\n")
    result = invoke("lint", str(env))
    assert result.exit_code == 2
    assert_one_line_error(result.stderr, f"{schemas / 'session.md'}:")


def test_lint_examples_prints_diagnostic_lines(env: Path) -> None:
    pytest.importorskip("sessionkit.adapters.aiwiki")
    result = invoke("lint", str(EXAMPLES))
    assert result.exit_code in (0, 1)
    assert all(DIAG_LINE.match(line) for line in result.stdout.splitlines()), result.stdout


def test_lint_fix_fills_missing_sha_from_git(env: Path) -> None:
    pytest.importorskip("sessionkit.ops.sha_fill")
    pytest.importorskip("sessionkit.adapters.aiwiki")
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    shutil.rmtree(env / ".git")

    def git(*args: str) -> str:
        return subprocess.run(
            ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
            cwd=env, capture_output=True, text=True, check=True,
        ).stdout.strip()  # fmt: skip

    git("init", "-q")
    (env / "src").mkdir()
    (env / "src" / "app.py").write_text("print(1)\n")
    git("add", "src/app.py")
    git("commit", "-qm", "app")
    sha = git("log", "-1", "--format=%h", "--abbrev=7")
    note = env / "aiwiki" / "sessions" / "2026-05-18-7e8a3f2.md"
    note.parent.mkdir(parents=True)
    text = V2_NOTE.replace("## Next steps", "## Files touched\n\n- `src/app.py:1`\n\n## Next steps")
    note.write_text(text)
    before = json.loads(invoke("lint", "--json", str(env)).stdout)
    assert "AW012" in {d["code"] for d in before}
    result = invoke("lint", "--fix", "--json", str(env))
    assert "AW012" not in {d["code"] for d in json.loads(result.stdout)}
    assert note.read_text() == text.replace("`src/app.py:1`", f"`src/app.py:1@{sha}`")


# -- show ------------------------------------------------------------------------------------


def test_show_missing_file_exit_2(env: Path) -> None:
    result = invoke("show", "missing.md")
    assert result.exit_code == 2
    assert_one_line_error(result.stderr, "missing.md")


def test_show_unreadable_note_is_one_line_exit_2(env: Path) -> None:
    note = env / "x.md"
    note.write_text("---\nkey: [unclosed\n---\n")
    result = invoke("show", str(note))
    assert result.exit_code == 2
    assert_one_line_error(result.stderr, str(note))


def test_show_summary_and_json(env: Path) -> None:
    pytest.importorskip("sessionkit.adapters.aiwiki")
    note = env / "2026-05-18-7e8a3f2.md"
    note.write_text(V2_NOTE)
    result = invoke("show", str(note))
    assert result.exit_code == 0
    assert "config system" in result.stdout
    assert "1 unconsumed directive)" in result.stdout
    assert "invoke `support-dream` skill" in result.stdout
    result = invoke("show", "--json", str(note))
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert data["id"] == "7e8a3f2c-1111-2222-3333-444455556666"
    assert data["status"] == "active"
    assert data["next_steps"] == ["write the docs"]
    assert data["checkpoints"][0]["directives"][0]["state"] == "unconsumed"


def test_show_json_with_stdout_closed_exits_quietly(env: Path) -> None:
    # the JSON is written a piece at a time (serialize.write_json): a closed stdout
    # is nobody to tell, as for the summary, not an internal error
    note = env / "2026-05-18-7e8a3f2.md"
    note.write_text(V2_NOTE)
    code = "import sys; from sessionkit.cli import main; sys.exit(main())"
    for args in (["show", "--json", str(note)], ["show", str(note)]):
        proc = subprocess.run(  # (started with fd 1 closed: sys.stdout is None)
            [sys.executable, "-c", code, *args],
            stdout=None,
            stderr=subprocess.PIPE,
            text=True,
            check=False,
            preexec_fn=lambda: os.close(1),
        )
        assert (proc.returncode, proc.stderr) == (0, "")


# -- ls and index ------------------------------------------------------------------------------


@pytest.fixture
def wiki(env: Path) -> Path:
    pytest.importorskip("sessionkit.adapters.aiwiki")
    pytest.importorskip("sessionkit.backends.aiwiki")
    target = env / "wiki"
    shutil.copytree(EXAMPLES, target)
    return target


def test_ls_json_shape_and_filters(wiki: Path) -> None:
    result = invoke("ls", "--json", str(wiki))
    assert result.exit_code == 0, result.stderr
    rows = json.loads(result.stdout)
    assert rows
    for row in rows:
        assert set(row) == {"key", "date", "id", "status", "focus", "title"}
        assert row["status"] in ("active", "done", "abandoned")
    assert [r["date"] for r in rows] == sorted(r["date"] for r in rows)
    done = json.loads(invoke("ls", "--json", "--status", "done", str(wiki)).stdout)
    assert done == [r for r in rows if r["status"] == "done"]
    since = json.loads(invoke("ls", "--json", "--since", "2026-05-14", str(wiki)).stdout)
    assert since == [r for r in rows if r["date"] >= "2026-05-14"]


def test_ls_uses_the_configured_store(wiki: Path, env: Path) -> None:
    invoke("config", "set", "store.url", "wiki")
    with_config = json.loads(invoke("ls", "--json").stdout)
    assert with_config == json.loads(invoke("ls", "--json", str(wiki)).stdout)


def test_ls_since_takes_a_date_or_an_age(wiki: Path) -> None:
    def keys(since: str) -> list[str]:
        result = invoke("ls", "--json", "--since", since, str(wiki))
        assert result.exit_code == 0, result.stderr
        return [row["key"] for row in json.loads(result.stdout)]

    today = dt.datetime.now(dt.UTC).date()
    days = (today - dt.date(2026, 5, 14)).days
    assert keys(f"{days}d") == keys("2026-05-14")
    weeks = days // 7
    assert keys(f"{weeks}w") == keys((today - dt.timedelta(weeks=weeks)).isoformat())
    result = invoke("ls", "--since", "last tuesday", str(wiki))
    assert result.exit_code == 2
    assert "is not a date (YYYY-MM-DD) or an age like 3d or 2w" in result.stderr


def test_index_regenerates_the_index(wiki: Path) -> None:
    index = wiki / "aiwiki" / "sessions" / "INDEX.md"
    index.unlink()
    result = invoke("index", str(wiki))
    assert result.exit_code == 0, result.stderr
    assert "index regenerated (6 notes)" in result.stdout
    text = index.read_text()
    for note in (wiki / "aiwiki" / "sessions").glob("2026-*.md"):
        assert note.stem[11:] in text


# -- config -------------------------------------------------------------------------------------


def test_config_show_json_shape(env: Path) -> None:
    result = invoke("config", "show", "--json")
    assert result.exit_code == 0
    rows = json.loads(result.stdout)
    keys = [row["key"] for row in rows]
    assert keys[0] == "store.url" and "hooks.session_start_output" in keys
    for row in rows:
        assert set(row) == {"key", "value", "source"}
        assert set(row["source"]) == {"kind", "file", "line", "name"}
    assert rows[0]["value"] == str(env) and rows[0]["source"]["kind"] == "default"


def test_config_set_then_show_names_the_source(env: Path) -> None:
    (env / ".sessionkit.toml").write_text("# keep me\n[store]\nformat = 'aiwiki-v2'\n")
    result = invoke("config", "set", "store.layout", "aiwiki")
    assert result.exit_code == 0
    assert (env / ".sessionkit.toml").read_text() == (
        "# keep me\n[store]\nformat = 'aiwiki-v2'\nlayout = \"aiwiki\"\n"
    )
    result = invoke("config", "show")
    line = next(x for x in result.stdout.splitlines() if x.startswith("store.layout"))
    assert line == f'store.layout = "aiwiki"  # project {env / ".sessionkit.toml"}:4'


def test_config_set_user_and_path(env: Path, tmp_path: Path) -> None:
    assert invoke("config", "set", "--user", "basic_memory.project", "work").exit_code == 0
    data = json.loads(invoke("config", "path", "--json").stdout)
    assert data["user"] == {
        "path": str(tmp_path / "xdg" / "sessionkit" / "config.toml"),
        "exists": True,
    }
    assert data["project"] == {"path": str(env / ".sessionkit.toml"), "exists": False}
    text = invoke("config", "path").stdout
    assert "(absent)" in text.splitlines()[0] and "(absent)" not in text.splitlines()[1]


def test_config_set_secret_is_refused_exit_2(env: Path) -> None:
    result = invoke("config", "set", "storage_options.s3://b.secret_access_key", "x")
    assert result.exit_code == 2
    assert_one_line_error(result.stderr, "secret", "fsspec")
    assert not (env / ".sessionkit.toml").exists()


def test_malformed_config_is_one_line_exit_2(env: Path) -> None:
    (env / ".sessionkit.toml").write_text("[store]\nurll = 'x'\n")
    result = invoke("config", "show")
    assert result.exit_code == 2
    assert_one_line_error(result.stderr, f"{env / '.sessionkit.toml'}:2:", "store.urll")
    result = invoke("lint", str(env))
    assert result.exit_code == 2


def test_dash_c_starts_the_search_elsewhere(env: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    (other / ".sessionkit.toml").write_text("[hooks]\nsession_start_output = 'plain'\n")
    rows = json.loads(invoke("-C", str(other), "config", "show", "--json").stdout)
    (row,) = [r for r in rows if r["key"] == "hooks.session_start_output"]
    assert row["value"] == "plain"


# -- the installed console script ------------------------------------------------------------------


def script() -> str:
    path = shutil.which("sessionkit")
    if path is None:
        pytest.skip("the sessionkit console script is not installed")
    return path


def run(env: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([script(), *args], capture_output=True, text=True, cwd=env)


def test_script_version(env: Path) -> None:
    out = run(env, "--version")
    assert out.returncode == 0 and "0.1.0" in out.stdout


def test_script_missing_file_one_line_exit_2(env: Path) -> None:
    out = run(env, "lint", "missing.md")
    assert out.returncode == 2
    assert out.stdout == ""
    assert_one_line_error(out.stderr, "missing.md")


def test_script_malformed_config_exit_2(env: Path) -> None:
    (env / ".sessionkit.toml").write_text("[limits]\nmax_note_bytes = 'big'\n")
    out = run(env, "config", "show", "--json")
    assert out.returncode == 2
    assert_one_line_error(out.stderr, ".sessionkit.toml:2:", "limits.max_note_bytes")


def test_script_lint_json_and_findings_exit_1(env: Path) -> None:
    (env / "bad.md").write_text("no frontmatter here\n")
    out = run(env, "lint", "--json", "bad.md")
    assert out.returncode == 1
    data = json.loads(out.stdout)
    assert data[0]["path"] == "bad.md" and data[0]["severity"] == "error"


def test_script_usage_error_exit_2(env: Path) -> None:
    out = run(env, "ls", "--status", "finished")
    assert out.returncode == 2
    assert "Traceback" not in out.stderr


def test_a_console_lint_run_prints_every_finding(env: Path) -> None:
    """The console script's lint prints every finding (more than stdout's buffer
    holds) and exits 1."""
    for n in range(300):
        (env / f"bad-{n:03}.md").write_text("no frontmatter here\n")
    code = "import sys; from sessionkit.cli import console; sys.exit(console())"
    out = subprocess.run(
        [sys.executable, "-c", code, "lint", "."], capture_output=True, text=True, cwd=env
    )
    assert out.returncode == 1
    lines = out.stdout.splitlines()
    assert len(lines) == 300 and lines[-1].startswith("./bad-299.md:1: SK001")


def test_basic_memory_project_lists_and_lints(env: Path) -> None:
    pytest.importorskip("sessionkit.adapters.basic_memory")
    pytest.importorskip("sessionkit.backends.basic_memory")
    project = env / "bm"
    shutil.copytree(EXAMPLES.parent / "bm-project", project)
    result = invoke("ls", "--json", "--layout", "basic-memory", str(project))
    assert result.exit_code == 0, result.stderr
    rows = json.loads(result.stdout)
    assert rows and all(r["title"] and r["title"].startswith("Session ") for r in rows)
    assert {r["status"] for r in rows} <= {"active", "done", "abandoned"}
    result = invoke("lint", "--json", str(project))
    assert [d for d in json.loads(result.stdout) if d["severity"] == "error"] == []
    assert result.exit_code == 0
    result = invoke("index", "--layout", "basic-memory", str(project))
    assert result.exit_code == 2
    assert_one_line_error(result.stderr, "no index")


def test_lint_a_store_url_reports_unreadable_notes_as_findings(env: Path) -> None:
    pytest.importorskip("sessionkit.adapters.aiwiki")
    pytest.importorskip("sessionkit.backends.aiwiki")
    import fsspec

    fs = fsspec.filesystem("memory")
    root = "/sk-cli-lint"
    fs.pipe(f"{root}/aiwiki/sessions/2026-05-18-7e8a3f2.md", V2_NOTE.encode())
    fs.pipe(f"{root}/aiwiki/sessions/2026-05-19-0000000.md", b"---\nfocus: \xff\n---\n")
    try:
        result = invoke("lint", "--json", f"memory://{root}")
        assert result.exit_code == 1
        data = json.loads(result.stdout)
        bad = [d for d in data if d["path"].endswith("2026-05-19-0000000.md")]
        assert bad and bad[0]["code"] == "AW001" and bad[0]["line"] == 2
        assert bad[0]["path"] == f"memory://{root}/aiwiki/sessions/2026-05-19-0000000.md"
        good = [d for d in data if d["path"].endswith("2026-05-18-7e8a3f2.md")]
        assert [d for d in good if d["severity"] == "error"] == []
    finally:
        fs.rm(root, recursive=True)
