"""The convert record (``.sessionkit-convert.json``) against races and kill -9, as repeated trials.

* two ``convert`` processes from different sources (or the same one) into
  one target, at once: every note of both is recorded, and the next run of
  each finds nothing to do (no "not written by sessionkit convert");
* a ``convert`` updating every note is SIGKILLed at a seeded random point,
  the sources are edited again, and the rerun updates every note: never an
  "edited by hand" conflict, never a lost entry, no temp file left behind;
* :class:`~sessionkit.backends.record.Record` merges concurrent writers'
  entries (threads on one local store).

Trials are few and the notes small, so this stays a few seconds per trial.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

import sessionkit
from sessionkit.backends.record import Record
from sessionkit.ops.convert import MANIFEST_NAME, convert

EXAMPLE = Path(__file__).parent.parent / "examples" / "wiki" / "aiwiki" / "sessions"
SEED = 20261201
RACE_TRIALS = 3
KILL_TRIALS = [3, pytest.param(6, marks=pytest.mark.stress)]

CONVERT = """
import sys
from sessionkit.ops.convert import convert

def progress(done, total, key):
    print(done, flush=True)

print("go", flush=True)
report = convert(sys.argv[1], sys.argv[2], to="basic-memory", progress=progress)
print("done", report.ok, len(report.conflicts), flush=True)
"""


def _storage(root: Path | str, **options: Any) -> Any:
    """The byte layer of a local store at ``root`` (what ``open_store`` opens)."""
    return sessionkit.open_store(str(root), layout="aiwiki", **options).storage


def _source(root: Path, tag: str, count: int, version: int = 1) -> None:
    """A wiki of ``count`` distinct sessions (titles carry ``tag``), at ``version``."""
    folder = root / "aiwiki" / "sessions"
    folder.mkdir(parents=True, exist_ok=True)
    text = (EXAMPLE / "2026-05-18-7e8a3f2.md").read_text()
    for i in range(count):
        page = text.replace("move readings from SQLite to Postgres", f"{tag} session {i}")
        page = page.replace("7e8a3f21-9a4b", f"{i:08x}-9a4b")
        page = page.replace("## Next steps\n", f"## Next steps\n\n- revision {version}\n", 1)
        (folder / f"2026-05-{1 + i % 28:02d}-{tag[:3]}{i:04d}.md").write_text(page)


def _record(target: Path) -> dict[str, dict[str, object]]:
    data = json.loads((target / "sessions" / MANIFEST_NAME).read_text())
    notes = data["notes"]
    assert isinstance(notes, dict)
    return notes


def _temps(target: Path) -> list[str]:
    return [p.name for p in (target / "sessions").iterdir() if p.name.endswith(".tmp")]


@pytest.mark.slow
def test_concurrent_converts_into_one_target_keep_every_entry(tmp_path: Path) -> None:
    count = 20
    _source(tmp_path / "a", "alpha", count)
    _source(tmp_path / "b", "beta", count)
    for trial in range(RACE_TRIALS):
        target = tmp_path / f"target{trial}"
        # the last trial races two converts of the same source (the same notes)
        sides = ("a", "a") if trial == RACE_TRIALS - 1 else ("a", "b")
        procs = [
            subprocess.Popen(
                [sys.executable, "-c", CONVERT, str(tmp_path / side), str(target)],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for side in sides
        ]
        for proc in procs:
            out, err = proc.communicate(timeout=120)
            assert proc.returncode == 0, err[-2000:]
            assert out.strip().endswith("done True 0"), out[-500:]
        entries = _record(target)
        assert len(entries) == len(set(sides)) * count, trial
        assert {str(e["source"])[11:14] for e in entries.values()} == {
            {"a": "alp", "b": "bet"}[side] for side in sides
        }
        for side in sides:
            again = convert(tmp_path / side, target, to="basic-memory")
            assert again.ok and again.written == [] and not again.conflicts, trial
        assert _temps(target) == []


@pytest.mark.slow
@pytest.mark.parametrize("trials", KILL_TRIALS)
def test_kill_during_an_updating_convert_never_gives_false_conflicts(
    tmp_path: Path, trials: int
) -> None:
    count = 16
    rng = random.Random(SEED)
    stats = {"trials": 0, "killed": 0, "mid_run": 0, "conflicts": 0, "temps_after_rerun": 0}
    for trial in range(trials):
        src, target = tmp_path / f"src{trial}", tmp_path / f"dst{trial}"
        _source(src, "kill", count, version=1)
        first = convert(src, target, to="basic-memory")
        assert first.ok and len(first.created) == count
        _source(src, "kill", count, version=2)  # every note changes
        steps = rng.randrange(count + 1)
        proc = subprocess.Popen(
            [sys.executable, "-c", CONVERT, str(src), str(target)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        assert proc.stdout is not None
        seen = 0
        assert proc.stdout.readline().strip() == "go"
        while seen < steps:
            line = proc.stdout.readline().strip()
            if not line or line.startswith("done"):
                break
            seen = int(line)
        time.sleep(rng.random() * 0.003)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=60)
        proc.stdout.close()
        assert proc.stderr is not None
        proc.stderr.close()
        stats["trials"] += 1
        stats["killed"] += proc.returncode == -signal.SIGKILL
        stats["mid_run"] += 0 < seen < count
        _source(src, "kill", count, version=3)  # edited again before the rerun
        rerun = convert(src, target, to="basic-memory")
        stats["conflicts"] += len(rerun.conflicts)
        assert not rerun.conflicts, (trial, rerun.conflicts[:3])
        assert rerun.ok and len(rerun.updated) + len(rerun.unchanged) == count
        entries = _record(target)
        assert len(entries) == count and not any("was" in e for e in entries.values())
        stats["temps_after_rerun"] += len(_temps(target))
        assert convert(src, target, to="basic-memory").written == []
    print(f"\nconvert record kill -9: {stats}")
    assert stats["temps_after_rerun"] == 0
    assert stats["killed"] >= trials // 2
    assert stats["mid_run"] >= 2


def test_record_merges_concurrent_writers(tmp_path: Path) -> None:
    storage = _storage(tmp_path)
    errors: list[BaseException] = []

    def writer(name: str) -> None:
        record = Record(_storage(tmp_path), "sessions/.state.json")
        try:
            for i in range(40):
                record.merge({f"{name}-{i}": {"sha256": str(i)}})
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(f"w{n}",)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    entries = Record(storage, "sessions/.state.json").read()
    assert len(entries) == 160
    # a change may depend on the entry as it is now; None drops an entry
    record = Record(storage, "sessions/.state.json")
    out = record.merge({"w0-0": lambda cur: None if cur else {"x": 1}, "w1-1": None})
    assert "w0-0" not in out and "w1-1" not in out and len(out) == 158
    # other top-level keys are kept
    path = tmp_path / "sessions" / ".state.json"
    data = json.loads(path.read_text())
    data["owner"] = "sync"
    path.write_text(json.dumps(data))
    record.merge({"new": {"sha256": "n"}})
    assert json.loads(path.read_text())["owner"] == "sync"


@pytest.mark.s3
def test_record_merges_concurrent_writers_on_s3() -> None:
    """On S3 each merge is a compare-and-swap: concurrent writers keep every entry."""
    pytest.importorskip("moto.server", reason="needs moto[server]")
    pytest.importorskip("s3fs", reason="needs s3fs")
    from sessionkit.testing.s3 import moto_s3

    with moto_s3() as server:
        url = server.make_bucket("record-race")
        errors: list[BaseException] = []

        def writer(name: str) -> None:
            storage = _storage(f"{url}/wiki", **server.storage_options)
            try:
                for i in range(8):
                    Record(storage, "sessions/.state.json").merge({f"{name}-{i}": {"n": i}})
            except BaseException as exc:  # pragma: no cover - reported below
                errors.append(exc)

        threads = [threading.Thread(target=writer, args=(f"w{n}",)) for n in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert errors == []
        storage = _storage(f"{url}/wiki", **server.storage_options)
        assert len(Record(storage, "sessions/.state.json").read()) == 16
