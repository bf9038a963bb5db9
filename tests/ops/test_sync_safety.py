"""#45: sync never infers a deletion, never writes over an edit made while it runs,
writes nothing on a dry run, refuses stores inside each other, and says what it did.

Real files, the public API (``sessionkit.sync``, ``open_store``) and the CLI.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from sessionkit import open_store
from sessionkit.cli import main
from sessionkit.ops import lifecycle
from sessionkit.ops.sync import STATE_NAME, sync

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "wiki"
PAGE = "2026-05-18-7e8a3f2.md"
NOTE = "Session 2026-05-18 7e8a3f2 — move readings from SQLite to Postgres.md"


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in list(os.environ):
        if name.startswith("SESSIONKIT_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    root = tmp_path / "work"
    root.mkdir()
    shutil.copytree(EXAMPLES, root / "wiki")
    monkeypatch.chdir(root)
    return root


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["sessionkit", *args])
    out, err = capsys.readouterr()
    return code, out, err


def snapshot(root: Path) -> dict[str, tuple[bytes | None, int]]:
    """Every path below ``root`` (folders too): its bytes and modification time."""
    out: dict[str, tuple[bytes | None, int]] = {}
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            p = Path(folder) / name
            data = p.read_bytes() if p.is_file() else None
            out[str(p.relative_to(root))] = (data, p.stat().st_mtime_ns)
    return out


# -- 1: an emptied note is a failure, never a deletion ------------------------------------


@pytest.mark.parametrize("text", ["\n", "", "---\n---\n", "no frontmatter\n"])
def test_an_emptied_note_is_reported_and_its_page_kept(
    work: Path, capsys: pytest.CaptureFixture[str], text: str
) -> None:
    assert run(capsys, "sync", "wiki", "bm")[0] == 0
    (work / "bm" / "sessions" / NOTE).write_text(text)
    page = work / "wiki" / "aiwiki" / "sessions" / PAGE
    before = page.read_bytes()
    # before: "delete-aiwiki ... (deleted in basic-memory)", exit 0, the page gone
    code, out, err = run(capsys, "sync", "wiki", "bm", "--propagate-deletes")
    assert code == 1, out + err
    assert "delete-aiwiki" not in out + err
    assert NOTE in err and ("empty" in err or "frontmatter" in err)
    assert page.read_bytes() == before
    assert (work / "bm" / "sessions" / NOTE).read_text() == text


@pytest.mark.parametrize("text", ["\n", "---\n---\n", "no frontmatter\n"])
def test_an_emptied_page_is_reported_and_its_note_kept(
    work: Path, capsys: pytest.CaptureFixture[str], text: str
) -> None:
    assert run(capsys, "sync", "wiki", "bm")[0] == 0
    note = work / "bm" / "sessions" / NOTE
    before = note.read_bytes()
    (work / "wiki" / "aiwiki" / "sessions" / PAGE).write_text(text)
    code, out, err = run(capsys, "sync", "wiki", "bm", "--propagate-deletes")
    assert code == 1, out + err
    assert PAGE in err and ("empty" in err or "frontmatter" in err)
    assert note.read_bytes() == before  # (before: `---\n---\n` emptied the note too)


def test_a_note_really_deleted_is_still_propagated(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(capsys, "sync", "wiki", "bm")[0] == 0
    (work / "bm" / "sessions" / NOTE).unlink()
    code, out, err = run(capsys, "sync", "wiki", "bm", "--propagate-deletes")
    assert code == 0, err
    assert f"delete-aiwiki: {PAGE}" in out
    assert not (work / "wiki" / "aiwiki" / "sessions" / PAGE).exists()


# -- 2: an edit made while sync runs is never written over --------------------------------


def _edit_after_read(store: Any, edit: Callable[[str], None]) -> None:
    """Make ``store`` run ``edit(key)`` once, as another editor that takes no lock,
    between the moment sync has read and checked a note and the moment it replaces it."""
    original = store.update_text
    done: list[str] = []

    def update_text(key: str, fn: Callable[[str | None], str | None]) -> str | None:
        def checked_then_edited(current: str | None) -> str | None:
            new = fn(current)
            if not done:
                done.append(key)
                edit(key)
            return new

        return original(key, checked_then_edited)

    store.update_text = update_text


@pytest.mark.parametrize("side", ["basic-memory", "aiwiki"])
def test_an_edit_made_while_sync_writes_is_kept_and_reported(work: Path, side: str) -> None:
    aw = open_store(work / "wiki", layout="aiwiki")
    bm = open_store(work / "bm", layout="basic-memory")
    assert sync(aw, bm).ok
    if side == "basic-memory":  # the wiki changes, so sync writes the note
        lifecycle.consume_directives(aw, PAGE, all=True)
        target, path = bm, work / "bm" / "sessions" / NOTE
    else:
        lifecycle.add_item(bm, "next-step", "from basic memory", NOTE)
        target, path = aw, work / "wiki" / "aiwiki" / "sessions" / PAGE
    theirs = path.read_text() + "\nan editor's line\n"

    def edit(key: str) -> None:
        path.write_text(theirs)  # no lock, no rename: as a plain editor saves

    _edit_after_read(target, edit)
    report = sync(aw, bm)
    # before: the edit was overwritten and the sync reported success
    assert path.read_text() == theirs
    assert not report.ok
    (clash,) = report.conflicts
    assert "while the sync ran" in clash.message


def test_a_page_edited_after_sync_read_it_is_not_deleted(work: Path) -> None:
    aw = open_store(work / "wiki", layout="aiwiki")
    bm = open_store(work / "bm", layout="basic-memory")
    assert sync(aw, bm).ok
    (work / "bm" / "sessions" / NOTE).unlink()
    page = work / "wiki" / "aiwiki" / "sessions" / PAGE
    theirs = page.read_text() + "\nan editor's line\n"
    original = aw.read_many

    def read_then_edited(keys: Any) -> Any:
        got = list(original(keys))
        page.write_text(theirs)  # saved after sync read the wiki, before it deletes
        return iter(got)

    aw.read_many = read_then_edited  # type: ignore[method-assign]
    report = sync(aw, bm, propagate_deletes=True)
    assert page.read_text() == theirs
    assert [a.action for a in report.actions] == ["conflict"]


# -- 3: a dry run writes nothing anywhere --------------------------------------------------


@pytest.mark.parametrize("wiki", ["wiki", "empty"])
def test_dry_run_writes_nothing_anywhere(
    work: Path, capsys: pytest.CaptureFixture[str], wiki: str
) -> None:
    (work / "empty").mkdir()
    before = snapshot(work)
    # before: the Basic Memory folder and aiwiki/sessions/.sessionkit-sync.lock were made
    code, out, err = run(capsys, "sync", wiki, "bm", "--dry-run")
    assert code == 0, err
    assert snapshot(work) == before
    assert "would write" in out


# -- 5: stores inside each other -----------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ("wiki", "wiki/aiwiki/sessions/x"),
        ("wiki/aiwiki/sessions/x", "wiki"),
        ("bm/sessions/w", "bm"),
    ],
)
def test_a_store_inside_the_other_is_refused(
    work: Path, capsys: pytest.CaptureFixture[str], args: tuple[str, str]
) -> None:
    assert run(capsys, "sync", "wiki", "bm")[0] == 0
    shutil.copytree(EXAMPLES, work / "bm" / "sessions" / "w")
    before = snapshot(work)
    # before: exit 0, and the next sync of the wiki reported 6 failures
    code, out, err = run(capsys, "sync", *args)
    assert code == 2, out + err
    assert "inside the other" in err and err.count("\n") == 1
    assert snapshot(work) == before  # not even the missing folder was made
    assert run(capsys, "sync", "wiki", "bm")[0] == 0


# -- 6: messages and counts ------------------------------------------------------------------


def _counts(line: str) -> dict[str, int]:
    written = int(re.search(r"(?:wrote|would write) (\d+)", line).group(1))  # type: ignore[union-attr]
    rest = dict((name, int(n)) for n, name in re.findall(r"(\d+) ([a-z ]+?)(?:,|$)", line))
    return {"written": written, **rest}


def test_a_rerun_after_an_interrupted_sync_gives_counts_that_add_up(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(capsys, "sync", "wiki", "bm")[0] == 0
    # what a first sync killed before its last note and its state leaves
    (work / "wiki" / "aiwiki" / "sessions" / STATE_NAME).unlink()
    (work / "bm" / "sessions" / NOTE).unlink()
    code, out, err = run(capsys, "sync", "wiki", "bm")
    assert code == 0, err
    counts = _counts(out.strip().splitlines()[-1].split(": ", 1)[1])
    pages = len(list((work / "wiki" / "aiwiki" / "sessions").glob("2026-*.md")))
    # before: "wrote 0; 0 unchanged, 0 conflicts, 0 failed" for 6 pages
    assert sum(counts.values()) == pages, out
    assert counts["already in step"] == pages - 1 and counts["written"] == 1


def test_a_changed_session_id_names_the_field_not_the_value(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(capsys, "sync", "wiki", "bm")[0] == 0
    page = work / "wiki" / "aiwiki" / "sessions" / "2026-05-16-c41d9e0.md"
    secret = "deadbeef-0000-4000-8000-000000000000"
    page.write_text(re.sub(r"session_id: .*", f"session_id: {secret}", page.read_text()))
    code, _out, err = run(capsys, "sync", "wiki", "bm")
    assert code == 1
    assert "does not read back the same" in err
    assert "differs" in err and "id or date changed" in err
    assert secret not in err and "deadbee" not in err


def test_ctrl_c_says_a_rerun_resumes(
    work: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import sessionkit.ops.sync as ops_sync

    def interrupted(*args: Any, **kwargs: Any) -> Any:
        raise KeyboardInterrupt

    monkeypatch.setattr(ops_sync, "sync", interrupted)
    code, _out, err = run(capsys, "sync", "wiki", "bm")
    assert code == 130
    assert "aborted" in err and "again resumes" in err


def test_watch_says_what_it_watches_and_how_to_stop(
    work: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import sessionkit.ops.sync as ops_sync

    def one_sync_then_ctrl_c(a: Any, b: Any, *, on_report: Any, **kwargs: Any) -> None:
        kwargs.pop("interval")
        on_report(ops_sync.sync(a, b, **kwargs))
        raise KeyboardInterrupt  # while it waits for a change

    monkeypatch.setattr(ops_sync, "watch", one_sync_then_ctrl_c)
    code, _out, err = run(capsys, "sync", "wiki", "bm", "--watch")
    assert code == 0, err
    (line,) = [x for x in err.splitlines() if "watching" in x]
    assert "wiki" in line and "bm" in line and "Ctrl-C" in line
