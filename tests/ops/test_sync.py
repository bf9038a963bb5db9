"""Two-way sync between an aiwiki wiki and a Basic Memory folder (real files, no mocks).

Each test builds a wiki from golden corpus pages, syncs it into an empty
Basic Memory folder, edits both sides the way the tools do (the lifecycle
commands, hand edits), syncs again and checks both sides through the model.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from sessionkit import open_store
from sessionkit.errors import ConflictError
from sessionkit.model import DirectiveState, Status
from sessionkit.ops import lifecycle
from sessionkit.ops.sync import STATE_NAME, MergeConflict, merge_sessions, read_state, sync

CORPUS = Path(__file__).parent.parent / "corpus" / "aiwiki-v2"
PAGES = [
    "2026-05-18-7e8a3f2.md",  # an unconsumed directive
    "2026-05-19-a1b2c3d.md",  # done, files, decisions, next steps
    "2026-05-21-b7c9d01.md",
    "2026-05-22-c0ffee1.md",
    "2026-05-23-d00d123.md",
    "2026-05-24-e1e2e3e.md",
]


def make_wiki(root: Path, pages: list[str] = PAGES) -> Path:
    folder = root / "wiki" / "aiwiki" / "sessions"
    folder.mkdir(parents=True)
    for name in pages:
        shutil.copyfile(CORPUS / name, folder / name)
    (root / "bm").mkdir()
    return root / "wiki"


def stores(root: Path) -> tuple[object, object]:
    return open_store(root / "wiki", layout="aiwiki"), open_store(
        root / "bm", layout="basic-memory"
    )


def texts(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.name.startswith(".")
    }


def bm_key(root: Path, aw_key: str) -> str:
    return str(notes_of(root)[aw_key]["basic_memory"])


def notes_of(root: Path) -> dict[str, dict[str, str]]:
    state = read_state(open_store(root / "wiki", layout="aiwiki"))
    (peer,) = state["peers"]
    assert peer == "../bm"
    return state["peers"][peer]["notes"]


def as_aiwiki(bm: object, root: Path, aw_key: str) -> object:
    """The Basic Memory note paired with ``aw_key``, read as an aiwiki page."""
    from sessionkit import loads
    from sessionkit.ops.convert import convert_text

    key = bm_key(root, aw_key)
    return loads(convert_text(bm.read_text(key), "aiwiki-v2", key))  # type: ignore[attr-defined]


def test_first_sync_creates_every_note_and_a_rerun_writes_nothing(tmp_path: Path) -> None:
    make_wiki(tmp_path)
    aw, bm = stores(tmp_path)
    report = sync(aw, bm)
    assert report.ok
    assert [a.action for a in report.actions] == ["create-basic-memory"] * len(PAGES)
    assert len(bm.keys()) == len(PAGES)
    state = json.loads((tmp_path / "wiki/aiwiki/sessions" / STATE_NAME).read_text())
    assert state["version"] == 1 and sorted(notes_of(tmp_path)) == PAGES
    entry = notes_of(tmp_path)[PAGES[0]]
    assert entry["base"] == (CORPUS / PAGES[0]).read_text()
    assert entry["aiwiki_sha256"] == hashlib.sha256((CORPUS / PAGES[0]).read_bytes()).hexdigest()
    before = texts(tmp_path)
    again = sync(aw, bm)
    assert again.actions == [] and sorted(again.unchanged) == PAGES
    assert not again.state_written
    assert texts(tmp_path) == before
    # the Basic Memory side reads as the same sessions as the wiki
    for key in PAGES:
        assert bm.get(bm_key(tmp_path, key)).id == aw.get(key).id


def test_edits_on_both_sides_meet_and_a_conflict_keeps_both_texts(tmp_path: Path) -> None:
    make_wiki(tmp_path)
    aw, bm = stores(tmp_path)
    assert sync(aw, bm).ok
    consumed, step, st_aw, st_bm, both, clash = PAGES
    # the wiki: a directive consumed, a status change, a decision
    lifecycle.consume_directives(aw, consumed, all=True)
    lifecycle.set_status(aw, "abandoned", st_aw)
    lifecycle.add_item(aw, "decision", "keep the merge at the model level", both)
    # Basic Memory: a next step, a relation, a status change, a next step on the same note
    lifecycle.add_item(bm, "next-step", "re-run the Windows CI job", bm_key(tmp_path, step))
    lifecycle.set_status(bm, "done", bm_key(tmp_path, st_bm))
    lifecycle.add_item(bm, "next-step", "write the sync docs", bm_key(tmp_path, both))
    rel = tmp_path / "bm" / "sessions" / bm_key(tmp_path, step)
    text = rel.read_text()
    rel.write_text(text.rstrip("\n") + "\n\n## Relations\n\n- relates_to [[adr-0012]]\n")
    # one true conflict: the focus changed to different words on each side
    page = tmp_path / "wiki/aiwiki/sessions" / clash
    page.write_text(page.read_text().replace("focus: ", "focus: wiki says ", 1))
    note = tmp_path / "bm" / "sessions" / bm_key(tmp_path, clash)
    clash_text = note.read_text().replace("\nfocus: ", "\nfocus: bm says ", 1)
    note.write_text(clash_text)
    wiki_clash = page.read_text()

    report = sync(aw, bm)
    by_key = {a.aiwiki: a for a in report.actions}
    assert by_key[consumed].action == "update-basic-memory"
    assert by_key[st_aw].action == "update-basic-memory"
    assert by_key[step].action == "update-aiwiki"
    assert by_key[st_bm].action == "update-aiwiki"
    assert by_key[both].action == "merge"
    assert by_key[clash].action == "conflict"
    assert not report.ok
    (item,) = by_key[clash].conflicts
    assert item.where == "focus"
    assert item.aiwiki.startswith("wiki says") and item.basic_memory.startswith("bm says")
    assert by_key[clash].texts == {"aiwiki": wiki_clash, "basic_memory": clash_text}
    # both texts kept as they were
    assert page.read_text() == wiki_clash and note.read_text() == clash_text

    a = {k: aw.get(k) for k in PAGES}
    b = {k: bm.get(bm_key(tmp_path, k)) for k in PAGES}
    assert all(
        d.state is DirectiveState.CONSUMED for cp in a[consumed].checkpoints for d in cp.directives
    )
    bm_consumed = stores(tmp_path)[1]
    assert (
        "unconsumed" not in (tmp_path / "bm" / "sessions" / bm_key(tmp_path, consumed)).read_text()
    )
    assert "re-run the Windows CI job" in a[step].next_steps
    assert any(link.target == "adr-0012" for link in b[step].relations)
    assert "adr-0012" in aw.read_text(step)
    # Basic Memory has no "abandoned": the note says closed and carries the aiwiki status
    assert (
        a[st_aw].status is Status.ABANDONED
        and as_aiwiki(bm, tmp_path, st_aw).status is Status.ABANDONED
    )
    assert a[st_bm].status is Status.DONE and b[st_bm].status is Status.DONE
    assert "keep the merge at the model level" in a[both].decisions
    assert "keep the merge at the model level" in b[both].decisions
    assert (
        "write the sync docs" in a[both].next_steps and "write the sync docs" in b[both].next_steps
    )
    del bm_consumed
    for key in PAGES:
        if key != clash:
            assert as_aiwiki(bm, tmp_path, key) == a[key]

    # a second sync writes nothing (the conflict is still reported)
    before = texts(tmp_path)
    again = sync(aw, bm)
    assert [a.action for a in again.actions] == ["conflict"]
    assert texts(tmp_path) == before

    # resolving: make the two sides agree on the item, the next sync records it
    page.write_text(page.read_text().replace("focus: wiki says ", "focus: bm says ", 1))
    done = sync(aw, bm)
    assert done.ok and len(done.actions) == 1 and done.actions[0].aiwiki == clash
    assert aw.get(clash).focus.startswith("bm says")
    assert sync(aw, bm).actions == []


def test_created_on_either_side_appears_on_the_other(tmp_path: Path) -> None:
    make_wiki(tmp_path, PAGES[:2])
    aw, bm = stores(tmp_path)
    assert sync(aw, bm).ok
    shutil.copyfile(CORPUS / PAGES[2], tmp_path / "wiki/aiwiki/sessions" / PAGES[2])
    # a note made on the Basic Memory side from another page's conversion
    from sessionkit.ops.convert import convert_text, target_key

    src = (CORPUS / PAGES[3]).read_text()
    key = target_key(src, "basic-memory", PAGES[3], project="bm")
    (tmp_path / "bm" / "sessions" / key).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / "bm" / "sessions" / key).write_text(
        convert_text(src, "basic-memory", PAGES[3], project="bm")
    )
    report = sync(aw, bm)
    assert report.ok
    assert sorted(a.action for a in report.actions) == ["create-aiwiki", "create-basic-memory"]
    assert aw.get(PAGES[3]) == aw.get(PAGES[3])  # readable
    assert aw.get(PAGES[3]).id is not None
    assert sync(aw, bm).actions == []


def test_deleted_on_one_side_is_reported_and_propagated_only_when_asked(tmp_path: Path) -> None:
    make_wiki(tmp_path, PAGES[:3])
    aw, bm = stores(tmp_path)
    assert sync(aw, bm).ok
    gone = bm_key(tmp_path, PAGES[0])
    (tmp_path / "wiki/aiwiki/sessions" / PAGES[0]).unlink()
    dry = sync(aw, bm, propagate_deletes=True, dry_run=True)
    assert [a.action for a in dry.actions] == ["delete-basic-memory"]
    assert (tmp_path / "bm" / "sessions" / gone).exists()
    report = sync(aw, bm)
    assert [a.action for a in report.actions] == ["deleted"] and report.ok
    assert (tmp_path / "bm" / "sessions" / gone).exists()
    # edited on the other side since: never deleted
    lifecycle.add_item(bm, "next-step", "keep me", gone)
    edited = sync(aw, bm, propagate_deletes=True)
    assert [a.action for a in edited.actions] == ["conflict"]
    assert (tmp_path / "bm" / "sessions" / gone).exists()
    # an untouched counterpart is deleted with propagate_deletes
    (tmp_path / "bm" / "sessions" / bm_key(tmp_path, PAGES[1])).unlink()
    report = sync(aw, bm, propagate_deletes=True)
    assert "delete-aiwiki" in [a.action for a in report.actions]
    assert not (tmp_path / "wiki/aiwiki/sessions" / PAGES[1]).exists()
    assert PAGES[1] not in notes_of(tmp_path)


def test_dry_run_writes_nothing(tmp_path: Path) -> None:
    make_wiki(tmp_path)
    before = texts(tmp_path)
    report = sync(tmp_path / "wiki", tmp_path / "bm", dry_run=True)
    assert len(report.written) == len(PAGES)
    assert texts(tmp_path) == before
    assert not (tmp_path / "wiki/aiwiki/sessions" / STATE_NAME).exists()


def test_same_family_is_refused(tmp_path: Path) -> None:
    make_wiki(tmp_path)
    from sessionkit.errors import UnsupportedFormatError

    with pytest.raises(UnsupportedFormatError, match="aiwiki"):
        sync(tmp_path / "wiki", tmp_path / "wiki")


def test_a_second_sync_waits_for_the_first_and_fails_cleanly(tmp_path: Path) -> None:
    make_wiki(tmp_path, PAGES[:1])
    aw, bm = stores(tmp_path)
    from filelock import FileLock

    lock = FileLock(str(tmp_path / "wiki/aiwiki/sessions/.sessionkit-sync.lock"))
    with lock, pytest.raises(ConflictError, match="another sync"):
        sync(aw, bm, lock_timeout=0.2)
    # two at once in threads: both finish, the notes are created once
    results = []
    threads = [threading.Thread(target=lambda: results.append(sync(aw, bm))) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(len(r.written) for r in results) == [0, 1]
    assert len(bm.keys()) == 1


def test_the_state_is_merged_into_the_file_as_it_is_when_written(tmp_path: Path) -> None:
    """Another writer's state entries made while a sync runs are kept (merged under
    the wiki's lock, not overwritten with the copy read at the start)."""
    make_wiki(tmp_path, PAGES[:3])
    aw, bm = stores(tmp_path)
    state_file = tmp_path / "wiki/aiwiki/sessions" / STATE_NAME
    assert sync(aw, bm).ok
    first = json.loads(state_file.read_text())
    lifecycle.add_item(aw, "decision", "carried over", PAGES[0])
    other = {"notes": {"x.md": {"basic_memory": "X.md", "base": "", "aiwiki_sha256": "0"}}}

    def meanwhile(done: int, total: int, key: str) -> None:  # after the run read the state
        data = json.loads(state_file.read_text())
        data["peers"]["bm://elsewhere"] = other
        data["peers"]["../bm"]["notes"][PAGES[1]]["note"] = "kept"
        data["by_hand"] = True
        state_file.write_text(json.dumps(data))

    report = sync(aw, bm, progress=meanwhile)
    assert [a.action for a in report.actions] == ["update-basic-memory"] and report.state_written
    after = json.loads(state_file.read_text())
    assert after["peers"]["bm://elsewhere"] == other and after["by_hand"] is True
    notes = after["peers"]["../bm"]["notes"]
    assert notes[PAGES[1]] == {**first["peers"]["../bm"]["notes"][PAGES[1]], "note": "kept"}
    assert notes[PAGES[0]]["base"] == (tmp_path / "wiki/aiwiki/sessions" / PAGES[0]).read_text()
    assert after["version"] == first["version"] == 1
    assert sorted(p.name for p in state_file.parent.iterdir() if p.name.startswith(".")) == [
        ".sessionkit-sync.json",
        ".sessionkit-sync.lock",
        ".sessionkit.lock",
    ]  # replaced whole: no temp file left beside it


def test_merge_sessions_item_by_item() -> None:
    from sessionkit.model import Session

    base = Session(id="x", next_steps=("a", "b", "c"), decisions=("d",))
    ours = Session(id="x", next_steps=("a", "B", "c"), decisions=("d", "e"))
    theirs = Session(id="x", next_steps=("a", "b", "c", "z"), decisions=("d",), focus="f")
    merged = merge_sessions(base, ours, theirs)
    assert merged.next_steps == ("a", "B", "c", "z")
    assert merged.decisions == ("d", "e") and merged.focus == "f"
    # the same edit on both sides is no conflict
    assert merge_sessions(base, ours, ours) == ours
    # the same item changed to two values is
    with pytest.raises(MergeConflict) as info:
        merge_sessions(base, ours, Session(id="x", next_steps=("a", "Q", "c"), decisions=("d",)))
    assert [c.where for c in info.value.conflicts] == ["next_steps[1]"]
    # two insertions at the same place conflict (their order is unknowable)
    with pytest.raises(MergeConflict):
        merge_sessions(
            base,
            Session(id="x", next_steps=("a", "b", "c", "y"), decisions=("d",)),
            theirs,
        )


def test_cli_sync_json_and_exit_codes(tmp_path: Path) -> None:
    from sessionkit.cli import main

    make_wiki(tmp_path, PAGES[:2])
    wiki, bm = str(tmp_path / "wiki"), str(tmp_path / "bm")
    assert main(["sessionkit", "sync", wiki, bm, "--dry-run"]) == 0
    assert not (tmp_path / "bm" / "sessions").exists()
    assert main(["sessionkit", "sync", wiki, bm]) == 0
    # a conflict: exit 1, both texts in the JSON report
    page = tmp_path / "wiki/aiwiki/sessions" / PAGES[0]
    page.write_text(page.read_text().replace("focus: ", "focus: one ", 1))
    note = tmp_path / "bm" / "sessions" / bm_key(tmp_path, PAGES[0])
    note.write_text(note.read_text().replace("\nfocus: ", "\nfocus: two ", 1))
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["sessionkit", "sync", bm, wiki, "--json"]) == 1
    data = json.loads(out.getvalue())
    (action,) = data["actions"]
    assert action["action"] == "conflict" and set(action["texts"]) == {"aiwiki", "basic_memory"}
    assert action["conflicts"][0]["where"] == "focus"
    assert main(["sessionkit", "sync", str(tmp_path / "no1"), str(tmp_path / "no2")]) == 2
    assert main(["sessionkit", "sync", wiki, wiki]) == 2
    # a missing folder is the Basic Memory side of a first sync
    assert main(["sessionkit", "sync", wiki, str(tmp_path / "new-bm")]) == 0
    assert len(list((tmp_path / "new-bm" / "sessions").glob("*.md"))) == 2


@pytest.fixture(scope="module")
def s3() -> Any:
    pytest.importorskip("moto.server", reason="needs moto[server]")
    pytest.importorskip("s3fs", reason="needs s3fs")
    from sessionkit.testing.s3 import moto_s3

    with moto_s3() as server:
        yield server


@pytest.mark.s3
def test_sync_with_s3_on_either_side_and_the_lease(tmp_path: Path, s3: Any) -> None:
    url = s3.make_bucket("sync-" + tmp_path.name[-8:].lower().replace("_", "-"))
    opts = s3.storage_options
    make_wiki(tmp_path, PAGES[:2])
    remote_bm = open_store(f"{url}/proj", layout="basic-memory", **opts)
    local_aw = open_store(tmp_path / "wiki", layout="aiwiki")
    assert sync(local_aw, remote_bm).ok
    key = bm_key_in(local_aw, f"{url}/proj", PAGES[0])
    lifecycle.add_item(remote_bm, "next-step", "from S3", key)
    report = sync(local_aw, remote_bm)
    assert [a.action for a in report.actions] == ["update-aiwiki"]
    assert "from S3" in local_aw.get(PAGES[0]).next_steps
    assert sync(local_aw, remote_bm).actions == []
    # the wiki on S3 (its lock is a lease object), Basic Memory on disk
    remote_aw = open_store(f"{url}/repo", layout="aiwiki", **opts)
    for name in PAGES[:2]:
        remote_aw.write_text(name, (CORPUS / name).read_text(), create=True)
    assert sync(remote_aw, open_store(tmp_path / "bm2", layout="basic-memory")).ok
    fs = s3.filesystem()
    lease = f"{url[len('s3://') :]}/repo/aiwiki/sessions/.sessionkit-sync.lock"
    assert not fs.exists(lease)  # released
    fs.pipe(lease, json.dumps({"host": "h", "pid": 1, "at": time.time()}).encode())
    with pytest.raises(ConflictError, match="another sync"):
        sync(remote_aw, tmp_path / "bm2", lock_timeout=0.3)
    fs.pipe(lease, json.dumps({"host": "h", "pid": 1, "at": time.time() - 3600}).encode())
    assert sync(remote_aw, tmp_path / "bm2", lock_timeout=0.3).ok  # a stale lease is taken over
    assert not fs.exists(lease)


def bm_key_in(aw: Any, peer: str, aw_key: str) -> str:
    return str(read_state(aw)["peers"][peer]["notes"][aw_key]["basic_memory"])


@pytest.mark.parametrize("events", [False, True], ids=["poll", "watchfiles"])
def test_watch_syncs_again_when_a_side_changes(tmp_path: Path, events: bool) -> None:
    from sessionkit.ops.sync import watch

    if events:
        pytest.importorskip("watchfiles")
    make_wiki(tmp_path, PAGES[:1])
    reports: list[Any] = []
    edited = threading.Event()
    done = threading.Event()

    def on_report(report: Any) -> None:
        reports.append(report)
        if len(reports) == 1:  # the first sync created the note: now edit it in Basic Memory
            bm = open_store(tmp_path / "bm", layout="basic-memory")
            lifecycle.add_item(bm, "next-step", "seen by watch", bm.keys()[0])
            edited.set()
        if len(reports) == 2:
            done.set()

    thread = threading.Thread(
        target=watch,
        args=(tmp_path / "wiki", tmp_path / "bm"),
        kwargs={
            "interval": 0.05,
            "on_report": on_report,
            "stop": done.is_set,
            "events": events,
        },
        daemon=True,
    )
    thread.start()
    thread.join(timeout=60)
    assert not thread.is_alive()
    assert [a.action for a in reports[1].actions] == ["update-aiwiki"]
    aw = open_store(tmp_path / "wiki", layout="aiwiki")
    assert "seen by watch" in aw.get(PAGES[0]).next_steps
