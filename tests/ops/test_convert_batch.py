"""Conversion writes in one store batch: the same guarantees, less per-file work.

* inside a local store's ``storage.batch()`` every folder is fsynced once, when the
  batch ends, and before ``convert`` writes its manifest;
* create-only writes need no lock file (the hard link refuses an existing
  name by itself); replacing writes still wait for the lock;
* without hard links the locked path is used, with the same result.
"""

from __future__ import annotations

import os
import threading
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pytest

import sessionkit
from sessionkit.backends.aiwiki import AiwikiStore
from sessionkit.backends.basic_memory import BasicMemoryStore
from sessionkit.errors import ConflictError
from sessionkit.ops import convert as OPS
from tests.fsyncs import folder_fsyncs

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted((ROOT / "tests" / "corpus" / "aiwiki-v2").glob("*.md"))[:6]
LOCK_NAME = ".sessionkit.lock"  # (the lock file docs/remote.md names)


def _storage(root: Path | str, **options: Any) -> Any:
    """The byte layer of a local store at ``root`` (what ``open_store`` opens)."""
    return sessionkit.open_store(str(root), layout="aiwiki", **options).storage


def _wiki(tmp_path: Path) -> Path:
    """A wiki at ``tmp_path/wiki`` holding :data:`PAGES`; returns its sessions folder."""
    src = tmp_path / "wiki" / "aiwiki" / "sessions"
    src.mkdir(parents=True)
    for page in PAGES:
        (src / page.name).write_bytes(page.read_bytes())
    return src


def test_batch_fsyncs_each_folder_once_at_the_end(tmp_path: Path, monkeypatch: Any) -> None:
    storage = _storage(tmp_path)
    seen = folder_fsyncs(monkeypatch, tmp_path)
    with storage.batch():
        for i in range(5):
            storage.write(f"a/n{i}.md", b"x", create=True)
        storage.write("a/n0.md", b"y")  # a replace, under the lock
        storage.write("b/m.md", b"z")
        with storage.batch():  # nested: the outer one syncs
            storage.write("a/n9.md", b"w", create=True)
        assert seen == []
    assert sorted(seen) == [str(tmp_path / "a"), str(tmp_path / "b")]
    assert (tmp_path / "a" / "n0.md").read_bytes() == b"y"
    seen.clear()
    storage.write("a/late.md", b"x", create=True)  # outside a batch: synced at once
    assert seen == [str(tmp_path / "a")]


def test_batch_syncs_even_when_the_block_raises(tmp_path: Path, monkeypatch: Any) -> None:
    storage = _storage(tmp_path)
    seen = folder_fsyncs(monkeypatch, tmp_path)
    with pytest.raises(RuntimeError), storage.batch():
        storage.write("n.md", b"x", create=True)
        raise RuntimeError
    assert seen == [str(tmp_path)]
    storage.write("late.md", b"x", create=True)  # the batch is over: synced at once
    assert seen == [str(tmp_path)] * 2


def test_batch_create_needs_no_lock_but_replace_waits(tmp_path: Path) -> None:
    from filelock import FileLock

    storage = _storage(tmp_path, lock_timeout=0.2)
    storage.write("n.md", b"old")
    with FileLock(str(tmp_path / LOCK_NAME)), storage.batch():
        storage.write("new.md", b"x", create=True)
        with pytest.raises(ConflictError, match="lock"):
            storage.write("n.md", b"clobber")
        with pytest.raises(ConflictError, match="exists"):
            storage.write("n.md", b"clobber", create=True)
    assert (tmp_path / "new.md").read_bytes() == b"x"
    assert (tmp_path / "n.md").read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == [LOCK_NAME, "n.md", "new.md"]


def test_batch_without_hard_links_takes_the_locked_path(tmp_path: Path, monkeypatch: Any) -> None:
    storage = _storage(tmp_path)
    (tmp_path / "taken.md").write_bytes(b"theirs")

    def no_links(src: str, dst: str) -> None:
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(os, "link", no_links)
    with storage.batch():
        storage.write("a.md", b"x", create=True)
        storage.write("b.md", b"y", create=True)
        with pytest.raises(ConflictError):
            storage.write("taken.md", b"mine", create=True)
    assert (tmp_path / "a.md").read_bytes() == b"x"
    assert (tmp_path / "b.md").read_bytes() == b"y"
    assert (tmp_path / "taken.md").read_bytes() == b"theirs"
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_a_batch_belongs_to_its_thread(tmp_path: Path, monkeypatch: Any) -> None:
    storage = _storage(tmp_path)
    seen = folder_fsyncs(monkeypatch, tmp_path)
    with storage.batch():
        storage.write("mine.md", b"x", create=True)
        other = threading.Thread(target=storage.write, args=("t.md", b"x"), kwargs={"create": True})
        other.start()
        other.join()
        assert seen == [str(tmp_path)]  # the other thread's write was not deferred
    assert seen == [str(tmp_path)] * 2  # this thread's, when its batch ended


def test_convert_records_ahead_then_syncs_the_notes_then_confirms(
    tmp_path: Path, monkeypatch: Any
) -> None:
    from sessionkit.backends.record import JOURNAL_SUFFIX, Record

    _wiki(tmp_path)
    events: list[str] = []
    real_merge = Record.merge
    real_append = Record.append

    def merge(self: Any, changes: Any) -> Any:
        events.append("record")
        return real_merge(self, changes)

    def append(self: Any, changes: Any) -> Any:
        events.append("journal " + ",".join(sorted({str(v.get("was")) for v in changes.values()})))
        return real_append(self, changes)

    folder_fsyncs(monkeypatch, tmp_path, seen=lambda f: events.append("sync " + Path(f).name))
    monkeypatch.setattr(Record, "merge", merge)
    monkeypatch.setattr(Record, "append", append)
    dst = tmp_path / "project"
    report = OPS.convert(tmp_path / "wiki", dst, to="basic-memory")
    assert report.ok and len(report.created) == len(PAGES)
    # the record's journal says what is about to be written (durably: the line is
    # fsynced, and the new journal's folder too), then every note is written and the
    # folder synced once; new notes' entries need no confirmation; at the end the
    # journal is folded into the record (replaced whole: synced)
    assert events == [
        "journal None",
        "sync sessions",
        "sync sessions",
        "record",
        "sync sessions",
    ]
    folder = dst / "sessions"
    assert not (folder / (OPS.MANIFEST_NAME + JOURNAL_SUFFIX)).exists()
    assert len(Record(_storage(dst), "sessions/" + OPS.MANIFEST_NAME).read()) == len(PAGES)
    for page in PAGES:  # an update is recorded ahead with the digest it replaces
        (tmp_path / "wiki" / "aiwiki" / "sessions" / page.name).write_text(
            page.read_text() + "\nedited\n"
        )
    events.clear()
    again = OPS.convert(tmp_path / "wiki", dst, to="basic-memory")
    assert len(again.updated) == len(PAGES) and again.ok
    assert events[0].startswith("journal ['")  # ahead: each with the digest it replaces
    # then the notes, then the confirmations (the "was" digests go), then the fold
    assert events[1:] == [
        "sync sessions",
        "sync sessions",
        "journal None",
        "record",
        "sync sessions",
    ]
    assert OPS.convert(tmp_path / "wiki", dst, to="basic-memory").written == []


def test_convert_with_jobs_gives_the_same_files(tmp_path: Path) -> None:
    _wiki(tmp_path)
    one = OPS.convert(tmp_path / "wiki", tmp_path / "p1", to="basic-memory", project="p")
    two = OPS.convert(tmp_path / "wiki", tmp_path / "p2", to="basic-memory", project="p", jobs=2)
    assert one.to_dict() | {"target": ""} == two.to_dict() | {"target": ""}

    def files(root: Path) -> dict[str, bytes]:
        return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}

    a, b = files(tmp_path / "p1"), files(tmp_path / "p2")
    assert a == b and len([k for k in a if not k.split("/")[-1].startswith(".")]) == len(PAGES)


def test_workers_read_a_local_wiki_and_an_unreadable_note_keeps_its_place(
    tmp_path: Path, monkeypatch: Any
) -> None:
    src = _wiki(tmp_path)
    names = sorted(p.name for p in PAGES)
    bad = names[2][:-3] + "-bad.md"  # sorts between the third and the fourth page
    (src / bad).write_bytes(b"---\nschema_version: 2\n---\n\xff\xfe not UTF-8\n")
    asked: list[list[str]] = []
    real = AiwikiStore.read_many

    def spy(self: AiwikiStore, keys: Any) -> Any:
        keys = list(keys)
        asked.append(keys)
        return real(self, keys)

    monkeypatch.setattr(AiwikiStore, "read_many", spy)
    reports = []
    calls: list[tuple[int, int, str]] = []
    for jobs, out in ((1, "p1"), (2, "p2")):
        calls.clear()
        reports.append(
            OPS.convert(
                tmp_path / "wiki",
                tmp_path / out,
                to="basic-memory",
                project="p",
                jobs=jobs,
                progress=lambda *a: calls.append(a),
            )
        )
        order = sorted([*names, bad])
        assert calls == [(i, len(order), key) for i, key in enumerate(order, start=1)]
    assert asked == []  # each note is read where it is converted, not here first
    one, two = reports
    assert [f.source for f in one.failures] == [bad]
    assert "UTF-8" in one.failures[0].message
    assert len(one.created) == len(PAGES)
    assert one.to_dict() | {"target": ""} == two.to_dict() | {"target": ""}


#: more Basic Memory notes than one read of the sources takes (256 notes a read)
_MANY = 300


def test_sources_read_here_stream_in_batches_and_an_unreadable_note_keeps_its_place(
    tmp_path: Path, monkeypatch: Any
) -> None:
    folder = tmp_path / "bm" / "sessions"
    folder.mkdir(parents=True)
    for i in range(_MANY):
        day = (date(2020, 1, 1) + timedelta(days=i)).isoformat()
        (folder / f"Session {i:03d}.md").write_text(
            f"---\ntitle: Session {i:03d}\ntype: session\npermalink: sessions/session-{i:03d}\n"
            f"status: closed\nstarted: {day}\n---\n\n## Observations\n\n- [decision] chose {i}\n"
        )
    names = sorted(p.name for p in folder.glob("*.md"))
    bad = names[2][:-3] + " bad.md"  # sorts between the third and the fourth note
    (folder / bad).write_bytes(b"---\ntype: session\n---\n\xff\xfe not UTF-8\n")
    asked: list[list[str]] = []
    real = BasicMemoryStore.read_many
    progressed: list[int] = []  # notes done when each read was asked for

    def spy(self: BasicMemoryStore, keys: Any) -> Any:
        keys = list(keys)
        asked.append(keys)
        progressed.append(len(calls))
        return real(self, keys)

    monkeypatch.setattr(BasicMemoryStore, "read_many", spy)
    reports = []
    calls: list[tuple[int, int, str]] = []
    order = sorted([*names, bad])
    for jobs, out in ((1, "a1"), (2, "a2")):
        calls.clear()
        asked.clear()
        progressed.clear()
        reports.append(
            OPS.convert(
                tmp_path / "bm",
                tmp_path / out,
                to="aiwiki-v2",
                jobs=jobs,
                progress=lambda *a: calls.append(a),
            )
        )
        assert calls == [(i, len(order), key) for i, key in enumerate(order, start=1)]
        # every note read once, in key order, in more than one read: not all held at once
        assert [key for keys in asked for key in keys] == order
        assert len(asked) > 1, "one read took every note: raise _MANY above the read batch"
        if jobs == 1:  # in process, a read comes once notes of the reads before are done
            assert progressed[0] == 0
            for n in range(1, len(asked)):
                assert 0 < progressed[n] <= sum(map(len, asked[:n])), (n, progressed)
    one, two = reports
    assert [f.source for f in one.failures] == [bad]
    assert "UTF-8" in one.failures[0].message
    assert len(one.created) == len(names)
    assert one.to_dict() | {"target": ""} == two.to_dict() | {"target": ""}


@pytest.mark.parametrize("jobs", [1, 2])
def test_without_listing_the_notes_the_report_counts_them(tmp_path: Path, jobs: int) -> None:
    src = _wiki(tmp_path)
    first = sorted(p.name for p in PAGES)[0]
    twin = first[:-3] + "-twin.md"  # the same session again: the same target note
    (src / twin).write_bytes((src / first).read_bytes())
    listed = OPS.convert(tmp_path / "wiki", tmp_path / "a", to="basic-memory", jobs=jobs)
    counted = OPS.convert(
        tmp_path / "wiki", tmp_path / "b", to="basic-memory", jobs=jobs, list_notes=False
    )
    one, two = sorted([first, twin])  # the second in key order is the one not written
    assert [f.source for f in listed.failures] == [two]
    assert "maps to the same target note as " + repr(one) in listed.failures[0].message
    for what in ("created", "updated", "unchanged", "carried", "skipped"):
        assert counted.counts[what] == len(getattr(listed, what)) == listed.counts[what]
        assert getattr(counted, what) == []
    assert counted.counts["created"] == len(PAGES)
    assert counted.failures == listed.failures and counted.conflicts == listed.conflicts
    again = OPS.convert(
        tmp_path / "wiki", tmp_path / "b", to="basic-memory", jobs=jobs, list_notes=False
    )
    assert again.counts["unchanged"] == len(PAGES) and again.counts["created"] == 0
