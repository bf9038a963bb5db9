"""The record's journal: appended changes read back, fold into the record, survive
torn lines and stale journals, and keep every writer's entries."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import sessionkit
from sessionkit.backends.record import IfStill, Record

PATH = "sessions/.state.json"


def _record(root: Path) -> Record:
    return Record(sessionkit.open_store(str(root), layout="aiwiki").storage, PATH)  # type: ignore[attr-defined]


def _journal(root: Path) -> Path:
    return root / (PATH + ".journal")


def test_appended_changes_read_back_and_fold_into_the_record(tmp_path: Path) -> None:
    record = _record(tmp_path)
    record.append({"a": {"n": 1}, "b": {"n": 2}})
    record.append({"b": None, "c": {"n": 3}})
    assert record.read() == {"a": {"n": 1}, "c": {"n": 3}}
    assert not (tmp_path / PATH).exists() and _journal(tmp_path).exists()
    record.fold()
    assert not _journal(tmp_path).exists()
    data = json.loads((tmp_path / PATH).read_text())
    assert data == {"version": 1, "notes": {"a": {"n": 1}, "c": {"n": 3}}}
    record.append({"a": {"n": 4}})  # a journal continuing the record just written
    assert record.read() == {"a": {"n": 4}, "c": {"n": 3}}
    assert record.merge({"d": {"n": 5}}) == {"a": {"n": 4}, "c": {"n": 3}, "d": {"n": 5}}
    assert not _journal(tmp_path).exists()


def test_if_still_changes_only_an_entry_nobody_changed(tmp_path: Path) -> None:
    record = _record(tmp_path)
    record.append({"a": {"n": 1}, "b": {"n": 1}})
    record.append({"b": {"n": 9}})  # someone else's change
    record.append({"a": IfStill({"n": 1}, {"n": 0}), "b": IfStill({"n": 1}, None)})
    assert record.read() == {"a": {"n": 0}, "b": {"n": 9}}
    record.append({"a": IfStill({"n": 0}, None)})
    assert record.read() == {"b": {"n": 9}}
    assert record.merge({"b": IfStill({"n": 9}, {"n": 10})}) == {"b": {"n": 10}}


def test_a_torn_last_line_is_ignored_and_cut_off(tmp_path: Path) -> None:
    record = _record(tmp_path)
    record.append({"a": {"n": 1}})
    with open(_journal(tmp_path), "ab") as fh:
        fh.write(b'{"notes": {"b": {"n"')  # a line a kill cut short
    assert record.read() == {"a": {"n": 1}}
    record.append({"c": {"n": 3}})
    assert record.read() == {"a": {"n": 1}, "c": {"n": 3}}
    lines = _journal(tmp_path).read_bytes().splitlines()
    assert len(lines) == 3 and all(json.loads(line) for line in lines)


def test_a_journal_of_a_replaced_record_is_ignored(tmp_path: Path) -> None:
    """A kill between writing the folded record and removing the journal leaves the
    journal behind: its lines are in the record, and it is never applied again."""
    record = _record(tmp_path)
    record.append({"a": {"n": 1}})
    stale = _journal(tmp_path).read_bytes()
    record.fold()
    record.merge({"a": None})
    _journal(tmp_path).write_bytes(stale)
    assert record.read() == {}
    record.append({"b": {"n": 2}})  # starts the journal again
    assert record.read() == {"b": {"n": 2}}


def test_read_with_fold_folds_a_journal_left_behind(tmp_path: Path) -> None:
    record = _record(tmp_path)
    record.append({"a": {"n": 1}})
    assert record.read(fold=True) == {"a": {"n": 1}}
    assert not _journal(tmp_path).exists()
    assert json.loads((tmp_path / PATH).read_text())["notes"] == {"a": {"n": 1}}


def test_fold_with_a_limit_leaves_a_large_journal(tmp_path: Path) -> None:
    record = _record(tmp_path)
    record.append({f"k{i}": {"n": i} for i in range(100)})
    record.fold(limit=100)
    assert _journal(tmp_path).exists() and not (tmp_path / PATH).exists()
    record.fold(limit=1 << 20)
    assert not _journal(tmp_path).exists() and len(record.read()) == 100


def test_threads_appending_keep_every_entry(tmp_path: Path) -> None:
    def work(name: str) -> None:
        record = _record(tmp_path)  # a storage of its own: its own lock file descriptor
        for i in range(20):
            record.append({f"{name}-{i}": {"n": i}})
            if i % 7 == 3:
                record.fold()

    threads = [threading.Thread(target=work, args=(f"t{t}",)) for t in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(_record(tmp_path).read()) == 80


APPENDER = """
import sys
import sessionkit
from sessionkit.backends.record import Record

storage = sessionkit.open_store(sys.argv[1], layout="aiwiki").storage
record = Record(storage, "sessions/.state.json")
print("go", flush=True)
for i in range(100000):
    record.append({f"{sys.argv[2]}-{i}": {"n": i}})
    print(i, flush=True)
"""


def test_kill_during_appends_loses_no_line_it_reported(tmp_path: Path) -> None:
    """Lines appended (fsynced) before a kill -9 are all read back; the next append
    continues the journal."""
    script = tmp_path / "append.py"
    script.write_text(APPENDER)
    for trial in range(3):
        proc = subprocess.Popen(
            [sys.executable, str(script), str(tmp_path), f"p{trial}"],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "go"
        done = -1
        for _ in range(20 + 15 * trial):
            done = int(proc.stdout.readline())
        os.kill(proc.pid, 9)
        proc.wait()
        entries = _record(tmp_path).read()
        assert all(f"p{trial}-{i}" in entries for i in range(done + 1))
    _record(tmp_path).append({"last": {"n": 0}})
    entries = _record(tmp_path).read(fold=True)
    assert "last" in entries and len(entries) >= 20 + 35 + 50 + 1
