"""sessionkit.migrate over a store: minimal edits, idempotence, dry run, backup, failures, jobs."""

from __future__ import annotations

import difflib
import functools
import json
import os
import shutil
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest
from click.testing import CliRunner

import sessionkit
from sessionkit.backends import Store
from sessionkit.cli import cli
from sessionkit.diagnostics import Severity
from sessionkit.errors import SessionKitError
from sessionkit.ops.migrate import FileResult, MigrationReport, Outcome, migrate

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "aiwiki-v1"
SESSIONS = Path("aiwiki") / "sessions"
BOM = b"\xef\xbb\xbf"

BROKEN_YAML = (
    b"---\nschema_id: session\nschema_version: 1\nstatus: done: bad\nfocus: x\n---\n"
    b"\n## Next steps\n\n- a\n"
)
BAD_UTF8 = b"---\nschema_id: session\nschema_version: 1\nstatus: done\nfocus: caf\xe9\n---\n"
NO_VERSION = (
    b"---\nschema_id: session\nstatus: done\ndate_start: 2026-01-01\nfocus: x\n---\n"
    b"\n## Next steps\n\n- a\n"
)


def corpus_pages() -> list[Path]:
    pages = sorted(CORPUS.glob("*.md"))
    assert len(pages) >= 20, "the v1 corpus should hold at least 20 varied pages"
    return pages


@pytest.fixture
def wiki(tmp_path: Path) -> Path:
    """A repository root whose aiwiki/sessions holds a copy of the v1 corpus."""
    root = tmp_path / "wiki"
    folder = root / SESSIONS
    folder.mkdir(parents=True)
    for page in corpus_pages():
        shutil.copyfile(page, folder / page.name)
    return root


@pytest.fixture
def cli_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in list(os.environ):
        if name.startswith("SESSIONKIT_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    return tmp_path


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file below root (dotfiles included) -> bytes."""
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


def notes(root: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((root / SESSIONS).glob("*.md"))}


def assert_only_frontmatter_lines_changed(old: bytes, new: bytes) -> None:
    """new == old except: `schema_version: 1` -> `2` (same line) and `session_id: ~` after it."""
    assert new.startswith(BOM) == old.startswith(BOM)
    a = old.decode("utf-8").splitlines(keepends=True)
    b = new.decode("utf-8").splitlines(keepends=True)
    ops = [op for op in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes()]
    changes = [op for op in ops if op[0] != "equal"]
    assert len(changes) == 1, changes
    tag, i1, i2, j1, j2 = changes[0]
    assert (tag, i2 - i1, j2 - j1) == ("replace", 1, 2), changes
    before, after, added = a[i1], b[j1], b[j1 + 1]
    assert before.lstrip("\ufeff").startswith("schema_version:")
    assert after == before.replace("1", "2", 1)
    eol = "\r\n" if before.endswith("\r\n") else "\n"
    assert added == "session_id: ~" + eol
    # the line spans frontmatter only: both changed lines sit before the closing fence
    closing = next(k for k in range(1, len(b)) if b[k].rstrip() == "---")
    assert j1 + 1 < closing


# -- the corpus ------------------------------------------------------------------------------


def test_corpus_migrates_with_two_frontmatter_lines_and_lints_clean(wiki: Path) -> None:
    before = notes(wiki)
    report = migrate(wiki)
    assert isinstance(report, MigrationReport)
    assert report.ok
    assert report.counts() == {"migrated": len(before), "current": 0, "failed": 0}
    assert [f.key for f in report.files] == sorted(before)
    after = notes(wiki)
    assert sorted(after) == sorted(before)  # filenames stay
    for name, old in before.items():
        new = after[name]
        assert_only_frontmatter_lines_changed(old, new)
        text = new.decode("utf-8")
        errors = [
            d
            for d in sessionkit.lint(text, path=f"aiwiki/sessions/{name}")
            if d.severity is Severity.ERROR
        ]
        assert errors == [], (name, errors)
        assert sessionkit.detect_format(sessionkit.parse(text)) == "aiwiki-v2"


def test_rerun_is_idempotent_and_writes_nothing(wiki: Path) -> None:
    migrate(wiki)
    folder = wiki / SESSIONS
    stamps = {p.name: p.stat().st_mtime_ns for p in folder.glob("*.md")}
    inodes = {p.name: p.stat().st_ino for p in folder.glob("*.md")}
    before = snapshot(wiki)
    report = migrate(wiki)
    assert report.ok
    assert report.counts() == {"migrated": 0, "current": len(stamps), "failed": 0}
    assert snapshot(wiki) == before
    assert {p.name: p.stat().st_mtime_ns for p in folder.glob("*.md")} == stamps
    assert {p.name: p.stat().st_ino for p in folder.glob("*.md")} == inodes  # not replaced


def test_back_to_v1_restores_the_original_bytes(wiki: Path) -> None:
    before = notes(wiki)
    assert migrate(wiki).ok
    report = migrate(wiki, to="aiwiki-v1")
    assert report.ok and len(report.migrated) == len(before)
    assert notes(wiki) == before


def test_dry_run_writes_nothing_and_returns_the_diffs(wiki: Path) -> None:
    before = snapshot(wiki)
    report = migrate(wiki, dry_run=True, backup=wiki.parent / "bak")
    assert snapshot(wiki) == before
    assert not (wiki.parent / "bak").exists()
    assert report.dry_run and report.ok
    assert len(report.diffs) == len(notes(wiki))
    for result, diff in zip(report.migrated, report.diffs, strict=True):
        assert diff.startswith(f"--- a/{result.path}\n+++ b/{result.path}\n@@ ")
        body = [ln for ln in diff.splitlines()[2:] if ln[:1] in "+-"]
        assert [ln.rstrip("\r") for ln in body if ln.startswith("-")] == [
            "-" + ln[1:].rstrip("\r").replace("2", "1", 1) for ln in body if ln.startswith("+s")
        ][:1]
        assert [ln.rstrip("\r") for ln in body if ln.startswith("+")][-1] == "+session_id: ~"
        assert len(body) == 3


def test_dry_run_diff_reproduces_the_migration(wiki: Path, tmp_path: Path) -> None:
    """Applying a dry run's diff by hand gives the bytes a real run writes."""
    report = migrate(wiki, dry_run=True)
    copy = tmp_path / "copy"
    shutil.copytree(wiki, copy)
    migrate(copy)
    for result in report.migrated:
        assert result.diff is not None
        old = (wiki / result.path).read_bytes().decode("utf-8").splitlines(keepends=True)
        lines = result.diff.splitlines(keepends=True)
        restored = "".join(difflib.restore(_ndiff_from_unified(old, lines), 2))
        assert restored.encode("utf-8") == (copy / result.path).read_bytes()


def _ndiff_from_unified(old: list[str], diff: list[str]) -> list[str]:
    """Turn one-hunk-per-change unified diff lines into ndiff lines over the whole file."""
    out: list[str] = []
    pos = 0
    i = 2
    while i < len(diff):
        header = diff[i]
        assert header.startswith("@@ -")
        start = int(header.split()[1][1:].split(",")[0]) - 1
        out.extend("  " + line for line in old[pos:start])
        pos = start
        i += 1
        while i < len(diff) and not diff[i].startswith("@@ "):
            line = diff[i]
            if line.startswith("\\"):
                i += 1
                continue
            tag, text = line[0], line[1:]
            if tag in " -":
                pos += 1
            out.append({" ": "  ", "-": "- ", "+": "+ "}[tag] + text)
            i += 1
    out.extend("  " + line for line in old[pos:])
    return out


def test_backup_copies_originals_at_their_relative_paths(wiki: Path, tmp_path: Path) -> None:
    nested = wiki / SESSIONS / "2025" / "q4"
    nested.mkdir(parents=True)
    shutil.copyfile(corpus_pages()[0], nested / "2025-12-01-nested.md")
    current = wiki / SESSIONS / "2026-09-09-current.md"
    current.write_bytes(
        b"---\nschema_id: session\nschema_version: 2\nstatus: done\n"
        b"date_start: 2026-09-09\nfocus: x\n---\n\n## Next steps\n\n- a\n"
    )
    originals = snapshot(wiki)
    backup = tmp_path / "backup"
    report = migrate(wiki, backup=backup)
    assert report.ok and report.backup == str(backup)
    saved = snapshot(backup)
    expected = {k: v for k, v in originals.items() if not k.endswith("current.md")}
    assert saved == expected
    assert "aiwiki/sessions/2025/q4/2025-12-01-nested.md" in saved
    assert not any(name.rsplit("/", 1)[-1].startswith(".") for name in saved)  # no temp left
    # a rerun copies nothing more and does not overwrite the originals with v2 pages
    assert migrate(wiki, backup=backup).counts()["migrated"] == 0
    assert snapshot(backup) == expected


def test_backup_inside_the_notes_folder_is_refused(wiki: Path) -> None:
    before = snapshot(wiki)
    with pytest.raises(sessionkit.StoreError, match="inside the notes folder"):
        migrate(wiki, backup=wiki / SESSIONS / "bak")
    assert snapshot(wiki) == before


# -- failures --------------------------------------------------------------------------------


def test_broken_pages_are_reported_with_path_and_line_and_left_untouched(wiki: Path) -> None:
    folder = wiki / SESSIONS
    (folder / "2026-02-01-broken.md").write_bytes(BROKEN_YAML)
    (folder / "2026-02-02-latin1.md").write_bytes(BAD_UTF8)
    (folder / "2026-02-03-noversion.md").write_bytes(NO_VERSION)
    report = migrate(wiki)
    assert not report.ok
    failed = {f.key: f for f in report.failed}
    assert sorted(failed) == [
        "2026-02-01-broken.md",
        "2026-02-02-latin1.md",
        "2026-02-03-noversion.md",
    ]
    assert failed["2026-02-01-broken.md"].line == 4
    assert failed["2026-02-02-latin1.md"].line == 5
    assert failed["2026-02-03-noversion.md"].line is not None
    for result in failed.values():
        assert result.outcome is Outcome.FAILED and result.reason
        assert result.path == f"aiwiki/sessions/{result.key}"
        assert str(result).startswith(f"aiwiki/sessions/{result.key}:{result.line}: ")
    assert (folder / "2026-02-01-broken.md").read_bytes() == BROKEN_YAML
    assert (folder / "2026-02-02-latin1.md").read_bytes() == BAD_UTF8
    assert (folder / "2026-02-03-noversion.md").read_bytes() == NO_VERSION
    assert len(report.migrated) == len(corpus_pages())


def test_v2_to_v1_is_refused_when_it_would_lose_the_session_id(tmp_path: Path) -> None:
    folder = tmp_path / SESSIONS
    folder.mkdir(parents=True)
    page = (
        b"---\nschema_id: session\nschema_version: 2\nstatus: active\ndate_start: 2026-05-18\n"
        b"session_id: 7e8a3f2-9a4b\nfocus: x\n---\n\n## Next steps\n\n- a\n"
    )
    (folder / "2026-05-18-7e8a3f2.md").write_bytes(page)
    report = migrate(tmp_path, to="aiwiki-v1")
    [result] = report.failed
    assert result.line == 6 and "session_id" in (result.reason or "")
    assert (folder / "2026-05-18-7e8a3f2.md").read_bytes() == page


def test_unusable_input_raises(tmp_path: Path, wiki: Path) -> None:
    with pytest.raises(sessionkit.StoreError, match="no such folder"):
        migrate(tmp_path / "missing")
    (tmp_path / "notawiki").mkdir()
    with pytest.raises(sessionkit.StoreError, match="has no aiwiki/sessions/ folder"):
        migrate(tmp_path / "notawiki")
    with pytest.raises(sessionkit.UnsupportedFormatError):
        migrate(wiki, to="basic-memory")
    with pytest.raises(ValueError):
        migrate(wiki, jobs=0)
    bm = tmp_path / "bm"
    (bm / "sessions").mkdir(parents=True)
    (bm / ".basic-memory").mkdir()
    store = sessionkit.open_store(bm, layout="basic-memory")
    with pytest.raises(sessionkit.UnsupportedFormatError, match="Basic Memory"):
        migrate(store)


def test_a_concurrent_edit_is_kept(wiki: Path) -> None:
    """The new text is computed from what the store reads under its lock, not earlier."""
    store = sessionkit.open_store(wiki, layout="aiwiki")
    key = store.keys()[0]
    path = wiki / SESSIONS / key
    real_update = store.update_text

    def racing_update(k: str, fn: Callable[[str | None], str | None]) -> str | None:
        if k == key:  # another writer appends a line between listing and our write
            with open(path, "ab") as fh:
                fh.write(b"- added by someone else\n")
        return real_update(k, fn)

    store.update_text = racing_update  # type: ignore[method-assign]
    # (note by note, as a store without its own update_texts does)
    store.update_texts = functools.partial(Store.update_texts, store)  # type: ignore[method-assign]
    assert migrate(store, jobs=1).ok
    text = path.read_bytes()
    assert text.endswith(b"- added by someone else\n") and b"session_id: ~" in text


def test_an_edit_made_after_the_page_was_migrated_and_before_it_is_written_is_kept(
    wiki: Path,
) -> None:
    """A chunk of pages is migrated without the lock and moved into place under it:
    a page edited in between is migrated again from its new text, under the lock."""
    store = sessionkit.open_store(wiki, layout="aiwiki")
    keys = store.keys()
    assert len(keys) >= 3
    path = wiki / SESSIONS / keys[1]
    real_many = store.update_texts
    calls: list[str] = []

    def racing_many(
        ks: Sequence[str], fn: Callable[[str, str | None], str | None]
    ) -> list[str | SessionKitError | None]:
        def racing_fn(k: str, text: str | None) -> str | None:
            calls.append(k)
            out = fn(k, text)
            if k == keys[1] and calls.count(k) == 1:  # computed from the old text
                with open(path, "ab") as fh:
                    fh.write(b"- added by someone else\n")
            return out

        return real_many(ks, racing_fn)

    store.update_texts = racing_many  # type: ignore[method-assign]
    report = migrate(store, jobs=1)
    assert report.ok and len(report.migrated) == len(keys)
    assert calls.count(keys[1]) == 2 and calls.count(keys[0]) == 1
    text = path.read_bytes()
    assert text.endswith(b"- added by someone else\n") and b"session_id: ~" in text
    for key in keys:
        assert b"schema_version: 2" in (wiki / SESSIONS / key).read_bytes()


def test_progress_reports_every_page_in_order(wiki: Path) -> None:
    calls: list[tuple[int, int, str]] = []
    report = migrate(wiki, progress=lambda d, t, k: calls.append((d, t, k)))
    n = len(report.files)
    assert calls == [(i + 1, n, f.key) for i, f in enumerate(report.files)]


def test_memory_store(tmp_path: Path) -> None:
    store = sessionkit.open_store("memory://sk-migrate-test", layout="aiwiki")
    for page in corpus_pages()[:5]:
        store.write_text(page.name, page.read_bytes().decode("utf-8"))
    report = migrate(store, jobs=2)  # not local: runs in-process
    assert report.ok and len(report.migrated) == 5
    assert migrate(store).counts()["current"] == 5


# -- parallel --------------------------------------------------------------------------------


def _wiki_with_failures(root: Path) -> Path:
    folder = root / SESSIONS
    folder.mkdir(parents=True)
    for page in corpus_pages():
        shutil.copyfile(page, folder / page.name)
    for i in range(40):  # enough pages for several chunks per worker
        name, text = _v1(i)
        (folder / name).write_text(text, encoding="utf-8")
    (folder / "2026-02-01-broken.md").write_bytes(BROKEN_YAML)
    (folder / "2026-02-02-latin1.md").write_bytes(BAD_UTF8)
    return root


def _v1(i: int) -> tuple[str, str]:
    return (
        f"2025-03-{i % 28 + 1:02d}-gen{i:03d}.md",
        f"---\nschema_id: session\nschema_version: 1\nstatus: done\n"
        f"date_start: 2025-03-{i % 28 + 1:02d}\nfocus: page {i}\n---\n\n## Next steps\n\n- {i}\n",
    )


def test_jobs_2_gives_the_same_report_as_jobs_1(tmp_path: Path) -> None:
    one = _wiki_with_failures(tmp_path / "one")
    two = _wiki_with_failures(tmp_path / "two")
    dry_one = migrate(one, dry_run=True, jobs=1)
    dry_two = migrate(two, dry_run=True, jobs=2)
    assert dry_two.files == dry_one.files
    r1 = migrate(one, jobs=1, backup=tmp_path / "b1")
    r2 = migrate(two, jobs=2, backup=tmp_path / "b2")
    assert r2.files == r1.files
    assert snapshot(one / SESSIONS) == snapshot(two / SESSIONS)
    assert snapshot(tmp_path / "b1") == snapshot(tmp_path / "b2")


def test_jobs_uses_a_pool_for_local_stores(wiki: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import concurrent.futures
    from concurrent.futures import ProcessPoolExecutor

    pools: list[int | None] = []

    class Spy(ProcessPoolExecutor):
        def __init__(self, max_workers: int | None = None) -> None:
            pools.append(max_workers)
            super().__init__(max_workers=max_workers)

    # the pool class is looked up where it is defined, when a pool starts
    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", Spy)
    assert migrate(wiki, jobs=2).ok
    assert pools == [2]
    assert migrate(wiki, jobs=1).ok
    assert pools == [2]


@pytest.mark.parametrize("jobs", [1, 2])
def test_the_folder_is_synced_once_per_chunk_not_per_page(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, jobs: int
) -> None:
    from tests.fsyncs import folder_fsyncs

    root = tmp_path / "wiki"
    (root / SESSIONS).mkdir(parents=True)
    for i in range(150):
        name, text = _v1(i)
        (root / SESSIONS / name).write_text(text, encoding="utf-8")
    log = tmp_path / "syncs"
    folder_fsyncs(monkeypatch, root, log)  # into a file: the workers' fsyncs count too
    report = migrate(root, jobs=jobs)
    assert report.counts()["migrated"] == 150
    syncs = log.read_text().splitlines()
    # one per chunk of 64 pages (or fewer, at the end of the input), each of the notes folder
    assert set(syncs) == {str(root / SESSIONS)}
    assert 3 <= len(syncs) <= 8


# -- the command line ------------------------------------------------------------------------


def test_cli_jobs_2_output_is_identical_to_jobs_1(
    tmp_path: Path, cli_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runner = CliRunner()
    outputs = {}
    for jobs in ("1", "2"):
        base = tmp_path / f"run{jobs}"
        _wiki_with_failures(base / "wiki")
        monkeypatch.chdir(base)
        for extra in (["--dry-run"], ["--json", "--dry-run"], [], ["--json"]):
            result = runner.invoke(cli, ["migrate", "wiki", "--jobs", jobs, *extra])
            assert result.exit_code == 1, result.output
            outputs[(jobs, " ".join(extra))] = (result.stdout, result.stderr)
    for extra in ("--dry-run", "--json --dry-run", "", "--json"):
        assert outputs[("2", extra)] == outputs[("1", extra)]


def test_cli_exit_codes_and_output(wiki: Path, cli_env: Path) -> None:
    runner = CliRunner()
    before = snapshot(wiki)
    dry = runner.invoke(cli, ["migrate", str(wiki), "--dry-run"])
    assert dry.exit_code == 0
    assert snapshot(wiki) == before
    assert dry.stdout.count("--- a/aiwiki/sessions/") == len(notes(wiki))
    assert "+session_id: ~" in dry.stdout
    assert f"would migrate {len(notes(wiki))}" in dry.stderr

    done = runner.invoke(cli, ["migrate", str(wiki), "--backup", str(cli_env / "bak")])
    assert done.exit_code == 0, done.output
    # the summary on stderr (#45); stderr is not a terminal here: no progress bar; one line
    # says what the backup keeps
    assert done.stderr.splitlines() == [
        f"sessionkit: the originals, secrets included, are kept in {cli_env / 'bak'} (--backup)",
        f"{wiki}: migrated {len(before)}, already current 0, failed 0 (to aiwiki-v2)",
    ]
    assert (cli_env / "bak" / SESSIONS / corpus_pages()[0].name).is_file()

    again = runner.invoke(cli, ["migrate", str(wiki), "--json"])
    assert again.exit_code == 0
    data = json.loads(again.stdout)
    assert data["ok"] is True and data["counts"]["current"] == len(before)

    (wiki / SESSIONS / "2026-02-01-broken.md").write_bytes(BROKEN_YAML)
    bad = runner.invoke(cli, ["migrate", str(wiki)])
    assert bad.exit_code == 1
    assert f"{wiki}/aiwiki/sessions/2026-02-01-broken.md:4: error: " in bad.stderr

    missing = runner.invoke(cli, ["migrate", str(cli_env / "nope")])
    assert missing.exit_code == 2
    assert missing.stderr.startswith("sessionkit: ") and "no such folder" in missing.stderr
    assert "Traceback" not in missing.output


def test_cli_back_to_v1(wiki: Path, cli_env: Path) -> None:
    before = notes(wiki)
    runner = CliRunner()
    assert runner.invoke(cli, ["migrate", str(wiki)]).exit_code == 0
    assert runner.invoke(cli, ["migrate", str(wiki), "--to", "aiwiki-v1"]).exit_code == 0
    assert notes(wiki) == before


def test_file_result_to_dict() -> None:
    r = FileResult(
        key="k.md", path="aiwiki/sessions/k.md", outcome=Outcome.FAILED, line=3, reason="bad"
    )
    assert r.to_dict() == {
        "key": "k.md",
        "path": "aiwiki/sessions/k.md",
        "outcome": "failed",
        "line": 3,
        "reason": "bad",
    }
    assert str(r) == "aiwiki/sessions/k.md:3: bad"


@pytest.mark.parametrize("jobs", [1, 2])
def test_without_listing_the_pages_the_report_counts_them(tmp_path: Path, jobs: int) -> None:
    listed_root, counted_root = tmp_path / "a", tmp_path / "b"
    for root in (listed_root, counted_root):
        _wiki_with_failures(root)
    listed = migrate(listed_root, jobs=jobs)
    counted = migrate(counted_root, jobs=jobs, list_pages=False)
    assert counted.counts() == listed.counts()
    assert counted.counts()["failed"] and counted.counts()["migrated"]
    assert counted.files == tuple(f for f in listed.files if f.outcome is Outcome.FAILED)
    assert counted.failed == listed.failed and not counted.ok
    assert counted.to_dict()["counts"] == listed.to_dict()["counts"]
    for root in (listed_root, counted_root):
        pages = sorted((root / SESSIONS).glob("*.md"))
        assert [p.read_bytes() for p in pages] == [
            p.read_bytes() for p in sorted((listed_root / SESSIONS).glob("*.md"))
        ]
