"""Issues #23, #19 and #22, the write side: every write keeps what it must.

* store URLs mean what they say (``/``, ``//``, ``file:///…``, relative
  ``aiwiki``), relative ones never leave the folder they are resolved against,
  and reading never creates a store;
* rewrites keep the note's mode and owner; a read-only note is not rewritten;
* ``lint`` and ``lint --fix`` never go through a link leading outside;
* temp files left by a killed writer are swept by the next run;
* bulk commands report failures note by note with the precise cause (EROFS and
  ENOSPC on real, small tmpfs mounts when the test may mount them).

The convert record's races and kills are ``tests/test_record_trials.py``.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import sessionkit
from sessionkit import hooks
from sessionkit.cli import cli
from sessionkit.errors import NotFoundError, PathSafetyError, StoreError

EXAMPLE = Path(__file__).parent.parent / "examples" / "wiki" / "aiwiki" / "sessions"
V2 = Path(__file__).parent / "corpus" / "aiwiki-v2"
NOTE = "2026-05-18-7e8a3f2.md"


def tree(root: Path) -> dict[str, bytes]:
    """Every file below ``root`` (relative path -> bytes), symlinks not followed."""
    out = {}
    for dirpath, _, files in os.walk(root):
        for name in files:
            full = Path(dirpath) / name
            if not full.is_symlink():
                out[str(full.relative_to(root))] = full.read_bytes()
    return out


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A sandbox: no sessionkit configuration, a repository ``repo`` with the example
    pages, the working directory inside it."""
    for name in list(os.environ):
        if name.startswith("SESSIONKIT_") or name == "CLAUDE_PROJECT_DIR":
            monkeypatch.delenv(name)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "home" / ".config"))
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    shutil.copytree(EXAMPLE, repo / "aiwiki" / "sessions")
    (tmp_path / "outside").mkdir()
    monkeypatch.chdir(repo)
    return tmp_path


def run(*args: str) -> Any:
    return CliRunner().invoke(cli, list(args))


def hook(event: str, payload: Any, *args: str) -> int:
    data = json.dumps(payload).encode()
    return hooks.main([event, *args], stdin=io.BytesIO(data))


# -- URLs -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "url", ["/", "//", "file:///", "file:///aiwiki", "file:///aiwiki/sessions"]
)
def test_root_urls_mean_the_filesystem_root(env: Path, url: str) -> None:
    store = sessionkit.open_store(url, layout="aiwiki")
    assert store.storage.root == "/"  # type: ignore[attr-defined]
    before = tree(env)
    with pytest.raises(PathSafetyError, match="filesystem root"):
        store.write_text("2026-05-18-abc1234.md", "x", create=True)
    assert tree(env) == before
    assert not Path("/aiwiki").exists() or Path("/aiwiki/sessions").is_dir()
    assert not (env / "repo" / "file:").exists()


def test_root_urls_are_not_stores_for_reading_commands(env: Path) -> None:
    for url in ("/", "//", "file:///"):
        res = run("ls", url)
        assert res.exit_code == 2, res.output
        assert "not a aiwiki store" in res.stderr or "no aiwiki/sessions" in res.stderr
    assert not (env / "repo" / "file:").exists()


def test_file_url_with_three_slashes_is_that_absolute_path(env: Path) -> None:
    store = sessionkit.open_store(f"file://{env}/outside", layout="aiwiki")
    store.write_text("2026-05-18-abc1234.md", "x\n", create=True)
    assert (env / "outside" / "aiwiki" / "sessions" / "2026-05-18-abc1234.md").read_text() == "x\n"
    assert not (env / "repo" / "file:").exists()


@pytest.mark.parametrize("url", ["aiwiki", "aiwiki/sessions", "aiwiki/sessions/", "file://aiwiki"])
def test_relative_aiwiki_means_the_repository_above(env: Path, url: str) -> None:
    store = sessionkit.open_store(url)
    assert os.path.realpath(store.storage.root) == os.path.realpath(env / "repo")  # type: ignore[attr-defined]
    assert NOTE in store.keys()  # noqa: SIM118
    res = run("ls", url)
    assert res.exit_code == 0 and NOTE in res.stdout
    assert not (env / "repo" / "aiwiki" / "aiwiki").exists()


@pytest.mark.parametrize("url", ["../outside", "file://../outside", "./x/../../outside", "link"])
def test_relative_urls_leaving_the_working_directory_are_refused(env: Path, url: str) -> None:
    (env / "repo" / "link").symlink_to(env / "outside")
    before = tree(env)
    with pytest.raises(PathSafetyError, match="outside"):
        sessionkit.open_store(url, layout="aiwiki")
    for args in (
        ("ls", url),
        ("index", url),
        ("prune", url, "--abandon-after", "1d"),
        ("add", "--store", url, "next-step", "x"),
        ("status", "--store", url, "done"),
        ("convert", url, "bm"),
        ("migrate", url),
    ):
        res = run(*args)
        # (a path the user gives is the user's choice, as in git (#45): these are
        # refused because no store is there, not because of where it is)
        assert res.exit_code == 2, (args, res.output)
        assert "Traceback" not in res.output
    assert tree(env) == before


@pytest.mark.parametrize("url", ["file://../x", "../x", "link/x", "file://aiwiki/../../x"])
def test_hook_store_leaving_the_payload_cwd_writes_nothing_anywhere(env: Path, url: str) -> None:
    (env / "repo" / "link").symlink_to(env / "outside")
    before = tree(env)
    payload = {"session_id": "7e8a3f2-abc", "cwd": str(env / "repo")}
    assert hook("pre-compact", payload, "--store", url) == 0
    assert hook("session-start", payload, "--store", url) == 0
    assert tree(env) == before
    assert not Path("/x").exists()


def test_hook_store_relative_means_inside_the_payload_cwd(env: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    (other / ".git").mkdir(parents=True)
    payload = {"session_id": "7e8a3f2-abc", "cwd": str(other)}
    assert hook("pre-compact", payload, "--store", "notes") == 0  # not the process's cwd
    assert [p.name for p in (other / "notes" / "aiwiki" / "sessions").glob("*.md")]
    assert not (env / "repo" / "notes").exists()


def test_hook_run_from_the_root_with_a_climbing_store_writes_nothing(
    env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir("/")  # the #22 reproduction: no payload cwd, run from /
    for store in ("file://../x", "../x", "x"):
        assert hook("pre-compact", {"session_id": "7e8a3f2-abc"}, "--store", store) == 0
        assert not Path("/x").exists(), store
    with pytest.raises(PathSafetyError):
        sessionkit.open_store("file://../x", base="/")


def test_hook_cwd_root_writes_nothing(env: Path, capsys: Any) -> None:
    before = tree(env)
    assert hook("pre-compact", {"session_id": "7e8a3f2-abc", "cwd": "/"}) == 0
    assert "filesystem root" in capsys.readouterr().err
    assert tree(env) == before
    assert not Path("/aiwiki/sessions").exists()


def test_hook_without_a_usable_folder_writes_nothing_and_says_why(
    env: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    plain = tmp_path / "plain"  # in no repository
    plain.mkdir()
    monkeypatch.chdir(plain)
    for payload in ({"session_id": "7e8a3f2-abc"}, {"session_id": "x", "cwd": "relative"}):
        assert hook("pre-compact", payload) == 0
        assert "nothing recorded" in capsys.readouterr().err
    assert list(plain.iterdir()) == []
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(env / "repo"))
    assert hook("pre-compact", {"session_id": "7e8a3f2-abc"}) == 0
    assert list(plain.iterdir()) == []
    assert any(p.name.endswith("-7e8a3f2.md") for p in (env / "repo/aiwiki/sessions").iterdir())
    monkeypatch.delenv("CLAUDE_PROJECT_DIR")  # a --store given on purpose is used
    assert hook("pre-compact", {"session_id": "7e8a3f2-abc"}, "--store", "here") == 0
    assert [p.name for p in plain.iterdir()] == ["here"]


# -- paths that are not stores --------------------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ("ls", "missingdir"),
        ("ls", "file:///nonexistent"),
        ("ls", "bm:///nonexistent/path"),
        ("prune", "missingdir", "--abandon-after", "14d"),
        ("index", "missingdir"),
        ("convert", "bm:///nonexistent/path", "out"),
        ("convert", "missingdir", "out"),
        ("add", "--store", "missingdir", "next-step", "x"),
    ],
)
def test_missing_stores_are_exit_2_naming_them_and_nothing_is_created(
    env: Path, args: tuple[str, ...]
) -> None:
    before = tree(env)
    res = run(*args)
    assert res.exit_code == 2, res.output
    named = next(a for a in args if "missing" in a or "nonexistent" in a)
    assert named in res.stderr
    assert tree(env) == before
    assert not (env / "repo" / "missingdir").exists() and not (env / "repo" / "out").exists()


def test_api_missing_source_is_not_found(env: Path) -> None:
    with pytest.raises(NotFoundError, match="nope"):
        sessionkit.convert("nope", "out")
    with pytest.raises(NotFoundError):
        sessionkit.open_store("nope", must_exist=True)
    assert not (env / "repo" / "out").exists()


def test_a_folder_that_is_not_a_store_is_not_found(env: Path) -> None:
    with pytest.raises(NotFoundError, match="no aiwiki/sessions/ folder"):
        sessionkit.open_store(env / "outside", layout="aiwiki", must_exist=True)


def test_convert_into_itself_or_into_a_file_is_refused_up_front(env: Path) -> None:
    before = tree(env)
    for dst in (".", "aiwiki", str(env / "repo"), "aiwiki/sessions/x"):
        res = run("convert", ".", dst, "--to", "basic-memory")
        assert res.exit_code == 2, (dst, res.output)
        assert "conflict" not in res.output
    (env / "repo" / "file.md").write_text("x")
    before = tree(env)
    res = run("convert", ".", "file.md")
    assert res.exit_code == 2 and "is a file" in res.stderr and "conflict" not in res.output
    assert tree(env) == before
    with pytest.raises(StoreError, match="itself"):
        sessionkit.convert(env / "repo", env / "repo", to="basic-memory")


# -- modes and owners -----------------------------------------------------------------------------


def _note() -> Path:
    return Path("aiwiki") / "sessions" / NOTE


def test_every_rewrite_keeps_the_mode(env: Path) -> None:
    note = _note()
    os.chmod(note, 0o600)
    payload = {"session_id": "7e8a3f21-9a4b-4c8d-b1e2-f5a6c7d8e9f0", "cwd": str(env / "repo")}
    steps = [
        lambda: hook("pre-compact", payload),
        lambda: run("add", "next-step", "keep", "the", "mode").exit_code,
        lambda: run("directive", "consume", "--all", str(note)).exit_code,
        lambda: run("status", "done", "--session", NOTE).exit_code,
    ]
    for step in steps:
        before = note.read_bytes()
        assert step() == 0
        assert note.read_bytes() != before  # it was rewritten, and
        assert note.stat().st_mode & 0o7777 == 0o600  # kept its mode


def test_migrate_keeps_mode_and_owner(env: Path) -> None:
    folder = env / "v1" / "aiwiki" / "sessions"
    folder.mkdir(parents=True)
    page = folder / "2026-01-05-abc1234.md"
    shutil.copyfile(sorted((Path(__file__).parent / "corpus" / "aiwiki-v1").glob("*.md"))[0], page)
    os.chmod(page, 0o640)
    owner = None
    if os.geteuid() == 0:
        owner = (12345, 23456)
        os.chown(page, *owner)
    report = sessionkit.migrate(env / "v1")
    assert report.ok and report.migrated
    st = page.stat()
    assert st.st_mode & 0o7777 == 0o640
    if owner is not None:
        assert (st.st_uid, st.st_gid) == owner


def test_a_read_only_note_is_not_rewritten(env: Path) -> None:
    note = _note()
    os.chmod(note, 0o444)
    before = note.read_bytes()
    res = run("add", "next-step", "must", "not", "land")
    assert res.exit_code == 2
    assert "read-only" in res.stderr and "chmod u+w" in res.stderr
    payload = {"session_id": "7e8a3f21-9a4b-4c8d-b1e2-f5a6c7d8e9f0", "cwd": str(env / "repo")}
    assert hook("pre-compact", payload) == 0
    assert note.read_bytes() == before
    assert note.stat().st_mode & 0o7777 == 0o444


# -- lint through links ---------------------------------------------------------------------------


def test_lint_and_fix_never_go_through_a_link_leading_outside(env: Path) -> None:
    outside = env / "outside" / "sessions"
    outside.mkdir()
    victim = outside / "2026-05-18-abc1234.md"
    text = (V2 / "2026-05-18-7e8a3f2.md").read_text()
    victim.write_text(text)
    wiki = env / "linked"
    (wiki / "aiwiki").mkdir(parents=True)
    (wiki / "aiwiki" / "sessions").symlink_to(outside)
    before = victim.read_bytes()
    res = run("lint", "--fix", str(wiki))
    assert res.exit_code == 1, res.output  # a finding: refused
    assert "refused" in res.stdout and "outside" in res.stdout
    assert victim.read_bytes() == before
    # a note that is itself a link to a file outside
    inner = env / "repo" / "aiwiki" / "sessions" / "2026-05-30-linked1.md"
    inner.symlink_to(victim)
    res = run("lint", str(env / "repo"))
    assert "2026-05-30-linked1.md" in res.stdout and "refused" in res.stdout
    assert victim.read_bytes() == before


def test_store_reads_refuse_links_leading_outside(env: Path) -> None:
    inner = env / "repo" / "aiwiki" / "sessions" / "2026-05-30-linked1.md"
    (env / "outside" / "secret.md").write_text("secret\n")
    inner.symlink_to(env / "outside" / "secret.md")
    store = sessionkit.open_store(env / "repo")
    assert "2026-05-30-linked1.md" not in store.keys()  # noqa: SIM118
    with pytest.raises(PathSafetyError):
        store.read_text("2026-05-30-linked1.md")
    with pytest.raises(PathSafetyError):
        store.write_text("2026-05-30-linked1.md", "x")
    assert (env / "outside" / "secret.md").read_text() == "secret\n"


# -- stale temp files -----------------------------------------------------------------------------


def test_stale_temps_are_swept_and_live_ones_kept(env: Path) -> None:
    folder = env / "repo" / "aiwiki" / "sessions"
    stale = folder / f".{NOTE}.0123456789ab.tmp"
    stale.write_bytes(b"half a note")
    live = folder / ".other.md.ba9876543210.tmp"
    live.write_bytes(b"being written")
    holder = subprocess.Popen(  # a live writer: holds the temp file's flock
        [
            "python3",
            "-c",
            "import fcntl,sys,time; f=open(sys.argv[1],'rb'); fcntl.flock(f, fcntl.LOCK_EX);"
            " print('held', flush=True); time.sleep(60)",
            str(live),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        unrelated = folder / ".notes-of-mine.tmp"
        unrelated.write_text("not ours")
        store = sessionkit.open_store(env / "repo")
        store.update_text(NOTE, lambda t: (t or "") + "\n")
        assert not stale.exists()
        assert live.exists() and unrelated.exists()
    finally:
        holder.kill()
        holder.wait()


# -- failures note by note, on real filesystems ---------------------------------------------------


@pytest.fixture
def tmpfs(tmp_path: Path) -> Iterator[Any]:
    """Mount small tmpfs filesystems (root only; skipped elsewhere)."""
    mounted: list[Path] = []

    def mount(name: str, size: str) -> Path:
        where = tmp_path / name
        where.mkdir()
        res = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)],
            capture_output=True,
        )
        if res.returncode != 0:
            pytest.skip("cannot mount a tmpfs here (needs root)")
        mounted.append(where)
        return where

    yield mount
    for where in mounted:
        subprocess.run(["umount", "-l", str(where)], capture_output=True)


def _v1_wiki(root: Path, count: int) -> None:
    folder = root / "aiwiki" / "sessions"
    folder.mkdir(parents=True)
    pages = sorted((Path(__file__).parent / "corpus" / "aiwiki-v1").glob("*.md"))
    for i in range(count):
        page = pages[i % len(pages)]
        shutil.copyfile(page, folder / f"2026-01-{1 + i // 28:02d}-{i:07d}.md")


def test_migrate_onto_a_folder_turned_read_only_reports_each_page(env: Path, tmpfs: Any) -> None:
    root = tmpfs("ro", "8m")
    _v1_wiki(root, 150)

    def progress(done: int, total: int, key: str) -> None:
        if done == 1:  # after the first chunk of pages the filesystem goes read-only
            subprocess.run(["mount", "-o", "remount,ro", str(root)], check=True)

    report = sessionkit.migrate(root, jobs=1, progress=progress)
    counts = report.counts()
    assert counts["migrated"] >= 1 and counts["failed"] >= 1
    assert counts["migrated"] + counts["failed"] + counts["current"] == 150
    for item in report.failed:
        assert "Read-only file system" in str(item.reason), item
        assert ".tmp" not in str(item.reason)
    # the CLI: exit 1 (pages failed), the same --json shape as a clean run
    res = run("migrate", str(root), "--json", "--jobs", "1")
    assert res.exit_code == 1, res.output
    data = json.loads(res.stdout)
    assert set(data) == {"root", "to", "dry_run", "backup", "ok", "counts", "redacted", "files"}
    assert data["counts"]["failed"] >= counts["failed"]  # (the page locks cannot be made now)
    assert all("Read-only file system" in f["reason"] for f in data["files"] if f["reason"])
    res = run("migrate", str(root), "--jobs", "1")
    assert res.exit_code == 1 and "failed" in res.stderr


def test_convert_onto_a_full_filesystem_reports_each_note(env: Path, tmpfs: Any) -> None:
    src = env / "src"
    folder = src / "aiwiki" / "sessions"
    folder.mkdir(parents=True)
    text = (EXAMPLE / NOTE).read_text()
    for i in range(120):  # distinct sessions (distinct Basic Memory titles)
        page = text.replace("move readings from SQLite to Postgres", f"note number {i}")
        page = page.replace("7e8a3f21-9a4b", f"{i:08x}-9a4b")
        (folder / f"2026-02-{1 + i // 28:02d}-{i:07d}.md").write_text(page)
    full = tmpfs("full", "128k")
    res = run("convert", str(src), str(full / "bm"), "--to", "basic-memory", "--json")
    assert res.exit_code == 1, res.output
    data = json.loads(res.stdout)
    clean = sessionkit.convert(src, env / "clean", to="basic-memory").to_dict()
    assert set(data) == set(clean)  # the same shape as a successful run
    assert data["created"] and data["failures"]
    assert len(data["created"]) + len(data["failures"]) == 120
    assert not data["conflicts"]
    for failure in data["failures"]:
        assert "No space left on device" in failure["message"], failure
    written = {p.name for p in (full / "bm" / "sessions").glob("*.md")}
    assert written == set(data["created"])
    res = run("convert", str(src), str(full / "bm2"), "--to", "basic-memory")
    assert res.exit_code == 1
    assert "wrote" in res.stdout and "failed" in res.stdout  # the summary, as always
    assert "ENOSPC" in res.stderr


def test_a_read_only_target_note_is_a_failure_not_a_conflict(env: Path) -> None:
    dst = env / "bm"
    assert sessionkit.convert(env / "repo", dst, to="basic-memory").ok
    record = json.loads((dst / "sessions" / ".sessionkit-convert.json").read_text())
    (name,) = [k for k, v in record["notes"].items() if v["source"] == NOTE]
    note = dst / "sessions" / name
    os.chmod(note, 0o444)
    page = env / "repo" / "aiwiki" / "sessions" / NOTE
    page.write_text(page.read_text().replace("status: active", "status: done"))
    report = sessionkit.convert(env / "repo", dst, to="basic-memory")
    assert not report.conflicts
    assert [f.target for f in report.failures] == [note.name]
    assert "read-only" in report.failures[0].message
