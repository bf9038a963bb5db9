"""The command line as a new user meets it (issue #45): dry runs, citations, short ids,
paths, limits and messages."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
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


# -- unreadable notes, reported per note by every reading command --------------------------------


def test_lint_of_a_bucket_reports_an_unreadable_note_and_goes_on(env: Path) -> None:
    pytest.importorskip("moto.server", reason="needs moto[server]")
    pytest.importorskip("s3fs", reason="needs s3fs")
    from sessionkit.testing.s3 import moto_s3

    with moto_s3() as server:
        url = server.make_bucket("lint-per-note")
        fs = server.filesystem()
        for page in sorted((EXAMPLES / "aiwiki" / "sessions").glob("2026-05-1*.md")):
            fs.pipe(f"lint-per-note/w/aiwiki/sessions/{page.name}", page.read_bytes())
        v1 = (EXAMPLES / "aiwiki" / "sessions" / "2026-05-02-5d6a0f3.md").read_bytes()
        fs.pipe("lint-per-note/w/aiwiki/sessions/2026-06-01-5d6a0f3.md", v1)  # (AW018 info)
        server.fail["/lint-per-note/w/aiwiki/sessions/2026-05-14-8b07d4e.md"] = 403
        opts = ["-o", f"endpoint_url={server.endpoint_url}", "-o", "use_listings_cache=false"]
        result = invoke("lint", f"{url}/w", *opts)
        listing = invoke("ls", f"{url}/w", *opts)
    shown = f"{url}/w/aiwiki/sessions/2026-05-14-8b07d4e.md"
    assert result.exit_code == 1, result.output
    assert any(line.startswith(f"{shown}: ") for line in result.stdout.splitlines())
    assert f"{url}/w/aiwiki/sessions/2026-06-01-5d6a0f3.md:" in result.stdout  # linted on
    # ls names the same note the same way, and what the server answered
    assert listing.exit_code == 1 and f"sessionkit: {shown}: " in listing.stderr
    assert "the server answered HTTP 403" in listing.stderr and "Errno" not in listing.stderr


def test_index_reports_unreadable_notes_like_ls(env: Path) -> None:
    wiki = wiki_copy(env / "w")
    (wiki / "aiwiki" / "sessions" / "2026-05-19-badbad0.md").write_text("---\nstatus: [\n---\n")
    result = invoke("index", "w")
    assert result.exit_code == 1, result.output
    assert "sessionkit: w/aiwiki/sessions/2026-05-19-badbad0.md:3: " in result.stderr
    assert "index regenerated (7 notes)" in result.stdout
    listing = invoke("ls", "w")
    assert listing.exit_code == 1
    assert "sessionkit: w/aiwiki/sessions/2026-05-19-badbad0.md:3: " in listing.stderr


def test_the_note_size_limit_holds_for_ls_and_context(env: Path) -> None:
    wiki_copy(env / "w")
    (env / ".sessionkit.toml").write_text("[limits]\nmax_note_bytes = 1000\n")
    listing = invoke("ls", "w")
    assert listing.exit_code == 1
    big = "w/aiwiki/sessions/2026-05-18-7e8a3f2.md"
    assert f"sessionkit: {big}:1: note is " in listing.stderr
    assert "over the limit of 1000" in listing.stderr
    assert "2026-05-16-c41d9e0.md" in listing.stdout  # (588 bytes: listed)
    context = invoke("context", "--store", "w")
    assert context.exit_code == 2 and "over the limit of 1000" in context.stderr
    pruned = invoke("prune", "w", "--abandon-after", "1d", "--dry-run")
    assert pruned.exit_code == 1 and f"{big}: unreadable" in pruned.stderr
    assert invoke("show", big).exit_code == 2


def test_show_of_an_empty_frontmatter_agrees_with_ls(env: Path) -> None:
    wiki = wiki_copy(env / "w")
    note = wiki / "aiwiki" / "sessions" / "2026-05-20-empty00.md"
    note.write_text("---\n---\n")
    shown = invoke("show", str(note.relative_to(env)))
    assert shown.exit_code == 2 and "cannot tell the format" in shown.stderr
    listing = invoke("ls", "w")
    assert listing.exit_code == 1 and "cannot tell the format" in listing.stderr


# -- lint with no path ----------------------------------------------------------------------------


def _script(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The console entry point (its plain lint lane included), in ``cwd``."""
    code = (
        "import sys; from sessionkit.cli import main; sys.exit(main(['sessionkit', *sys.argv[1:]]))"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("SESSIONKIT_")}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    return subprocess.run(
        [sys.executable, "-c", code, *args], cwd=cwd, capture_output=True, text=True, env=env
    )


def test_lint_without_a_path_lints_the_store_or_says_there_is_none(env: Path) -> None:
    (env / "README.md").write_text("# A project\n")
    (env / "docs").mkdir()
    (env / "docs" / "guide.md").write_text("Some prose.\n")
    for run in (lambda: _script(env, "lint"), lambda: invoke("lint")):
        result = run()
        code = getattr(result, "returncode", getattr(result, "exit_code", None))
        assert code == 2, result.stdout
        assert result.stdout == "" and "SK001" not in result.stderr
        (line,) = result.stderr.splitlines()
        assert "not an aiwiki store" in line and "sessionkit lint PATH" in line
    shutil.copytree(EXAMPLES / "aiwiki", env / "aiwiki")
    result = _script(env, "lint")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "README.md" not in result.stdout and "aiwiki/sessions/" in result.stdout


def test_an_ordinary_basic_memory_note_is_no_sk001(env: Path) -> None:
    project = env / "bm" / "notes"
    project.mkdir(parents=True)
    (project / "coffee.md").write_text("---\ntitle: Coffee notes\n---\n\nSome text.\n")
    result = invoke("lint", "bm")
    assert result.exit_code == 0, result.output
    assert "SK001" not in result.stdout


# -- paths the user gives: `..`, -C DIR, file URLs -----------------------------------------------


def test_dotdot_paths_are_the_users_choice_as_in_git(tmp_path: Path, env: Path) -> None:
    wiki_copy(tmp_path / "wiki")
    listing = invoke("ls", "../wiki")
    assert listing.exit_code == 0, listing.output
    assert "2026-05-18-7e8a3f2.md" in listing.stdout
    assert invoke("lint", "../wiki").exit_code == 0
    converted = invoke("convert", "../wiki", "out")
    assert converted.exit_code == 0, converted.output
    assert len(list((env / "out" / "sessions").glob("*.md"))) == 6
    synced = invoke("sync", "../wiki", "../bm")
    assert synced.exit_code == 0, synced.output
    assert len(list((tmp_path / "bm" / "sessions").glob("*.md"))) == 6


def test_dash_c_makes_relative_paths_relative_to_dir(tmp_path: Path, env: Path) -> None:
    wiki_copy(tmp_path / "elsewhere" / "wiki")
    listing = invoke("-C", str(tmp_path / "elsewhere"), "ls", "wiki")
    assert listing.exit_code == 0, listing.output
    assert "2026-05-18-7e8a3f2.md" in listing.stdout
    assert Path.cwd() == env  # (the working directory is the caller's again)
    (tmp_path / "elsewhere" / "sub").mkdir()
    assert invoke("-C", str(tmp_path / "elsewhere" / "sub"), "ls", "../wiki").exit_code == 0


@pytest.mark.parametrize("form", ["file:{}", "file://{}", "file://localhost{}"])
def test_file_urls_are_the_local_path_everywhere(form: str, tmp_path: Path, env: Path) -> None:
    wiki = wiki_copy(tmp_path / "wiki")
    out, bm = tmp_path / "out", tmp_path / "bm"
    assert invoke("lint", form.format(wiki)).exit_code == 0
    assert invoke("ls", form.format(wiki)).exit_code == 0
    converted = invoke("convert", str(wiki), form.format(out))
    assert converted.exit_code == 0, converted.output
    assert len(list((out / "sessions").glob("*.md"))) == 6
    synced = invoke("sync", str(wiki), form.format(bm))
    assert synced.exit_code == 0, synced.output
    assert len(list((bm / "sessions").glob("*.md"))) == 6
    assert sorted(p.name for p in env.iterdir()) == [".git"]  # (nothing made in the cwd)


# -- messages ------------------------------------------------------------------------------------


def test_messages_say_what_is_wrong_in_plain_words(env: Path) -> None:
    import fcntl

    wiki = wiki_copy(env / "w")
    sessions = wiki / "aiwiki" / "sessions"
    # a lock not taken in time: the seconds rounded
    with open(sessions / ".sessionkit.lock", "a") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        late = invoke("add", "next-step", "x", "--store", "w", "-o", "lock_timeout=0.33")
    assert late.exit_code == 2 and "timed out after 0.3 s waiting" in late.stderr
    # convert into the same format names the problem, not "both stores"
    same = invoke("convert", "w", "out", "--to", "aiwiki")
    assert same.exit_code == 2 and "both stores" not in same.stderr
    assert "w holds aiwiki notes" in same.stderr and "into basic-memory" in same.stderr
    assert not (env / "out").exists()
    # a bullet that starts with '-'
    added = invoke("add", "next-step", "- [ ] item", "--store", "w")
    assert added.exit_code == 0, added.output
    assert "- - [ ] item\n" in (sessions / "2026-05-18-7e8a3f2.md").read_text()
    typo = invoke("add", "next-step", "x", "--sesion", "1", "--store", "w")
    assert typo.exit_code == 2 and "goes after --" in typo.stderr
    # a directive number the note lacks: the note is named
    missing = invoke("directive", "consume", "--index", "99", "--store", "w")
    assert missing.exit_code == 2
    assert "2026-05-18-7e8a3f2.md: no directive number 99" in missing.stderr
    # migrate of a file
    (env / "file.txt").write_text("x\n")
    migrated = invoke("migrate", "file.txt")
    assert migrated.exit_code == 2 and "file.txt: is a file" in migrated.stderr
    # plurals and articles
    shown = invoke("show", str(sessions / "2026-05-18-7e8a3f2.md"))
    assert "(1 unconsumed directive)" in shown.stdout
    (env / "plain").mkdir()
    assert "not an aiwiki store" in invoke("ls", "plain").stderr
    # migrate's summary on stderr (as the docs say), stdout for the diffs and --json
    done = invoke("migrate", "w")
    assert done.stdout == "" and "w: migrated 2, already current 4" in done.stderr


def test_hook_help_lists_the_events_and_their_options(env: Path) -> None:
    result = _script(env, "hook", "--help")
    assert result.returncode == 0
    for word in ("pre-compact", "session-start", "PreCompact", "SessionStart", "install-hooks"):
        assert word in result.stdout
    event = _script(env, "hook", "session-start", "--help")
    assert "--plain" in event.stdout and "hooks.context_budget" in event.stdout
