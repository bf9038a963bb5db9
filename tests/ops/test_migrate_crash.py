"""kill -9 during ``migrate``: every page is the old or the new bytes, and a rerun finishes.

A wiki of 150 v1 pages (LF, CRLF, BOM, comments, extra keys) is migrated by a
subprocess that is SIGKILLed (with its whole process group, so pool workers
die too) at a seeded random point: after a random number of pages reported
done through the progress callback, plus a random 0-5 ms.  After every kill:

* each page holds exactly its original bytes or exactly its migrated bytes;
* the only other names in the folder are dotfiles (the lock file and, when
  a kill lands between writing a temporary file and renaming it, that
  ``.name.<hex>.tmp`` file): nothing the aiwiki ``*.md`` glob, the store's
  listing or Basic Memory's indexer (which skips dotfiles and ``*.tmp``)
  would see;
* a rerun in this process reports ``ok`` and leaves every page migrated.

A process kill is not a power cut: what protects the pages here is the
rename, not the fsync, so the wiki lives on tmpfs (``/dev/shm``) when there
is one, which keeps the trials fast (12 by default, 36 under the ``stress`` marker).
"""

from __future__ import annotations

import contextlib
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import sessionkit
from sessionkit.adapters.aiwiki import migrate_document

PAGES = 150
#: (single-process trials, --jobs 2 trials where the pool workers are killed too)
TRIALS = [(10, 2), pytest.param((30, 6), marks=pytest.mark.stress)]
SEED = 20261130

RUNNER = """
import sys
from sessionkit.ops.migrate import migrate

def progress(done, total, key):
    sys.stdout.write(f"{done}\\n")
    sys.stdout.flush()

print("go", flush=True)
report = migrate(sys.argv[1], jobs=int(sys.argv[2]), progress=progress)
print("done", report.ok, flush=True)
"""


def page(i: int) -> tuple[str, bytes]:
    """(name, bytes) of the i-th generated v1 page; every fifth CRLF, every seventh a BOM."""
    day = f"2025-{i % 12 + 1:02d}-{i % 28 + 1:02d}"
    lines = [
        "---",
        "schema_id: session",
        "schema_version: 1" + ("   # old format" if i % 11 == 0 else ""),
        "status: done",
        f"date_start: {day}",
        f"focus: page {i} of the crash wiki",
        *([f"owner: team-{i % 4}"] if i % 3 == 0 else []),
        "---",
        "",
        "## Files touched",
        "",
        *[f"- `src/mod{j}.py:{i + j}@{i * 7 + j:07x}` — change {j}" for j in range(6)],
        "",
        "## Next steps",
        "",
        *[f"- step {j} for page {i}" for j in range(8)],
    ]
    eol = "\r\n" if i % 5 == 0 else "\n"
    text = ("\ufeff" if i % 7 == 0 else "") + eol.join(lines) + eol
    return f"{day}-crash{i:03d}.md", text.encode("utf-8")


def fresh_wiki(root: Path, originals: dict[str, bytes]) -> Path:
    shutil.rmtree(root, ignore_errors=True)
    folder = root / "aiwiki" / "sessions"
    folder.mkdir(parents=True)
    for name, data in originals.items():
        (folder / name).write_bytes(data)
    return folder


def start(root: Path, jobs: int) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen(
        [sys.executable, "-c", RUNNER, str(root), str(jobs)],
        stdout=subprocess.PIPE,
        start_new_session=True,  # its own process group: killpg reaches pool workers
    )
    assert proc.stdout is not None
    assert proc.stdout.readline() == b"go\n"
    return proc


def kill_group(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    assert proc.stdout is not None
    proc.stdout.close()


@pytest.mark.slow
@pytest.mark.parametrize("trials", TRIALS)
def test_sigkill_leaves_old_or_new_pages_and_a_rerun_finishes(
    crash_dir: Path, trials: tuple[int, int]
) -> None:
    single, pool = trials
    originals = dict(page(i) for i in range(PAGES))
    expected = {}
    for name, data in originals.items():
        doc = sessionkit.parse(data.decode("utf-8"), name)
        expected[name] = migrate_document(doc).text.encode("utf-8")
        assert expected[name] != data
    root = crash_dir / "wiki"

    rng = random.Random(SEED)
    stats = {"trials": 0, "killed": 0, "mid_run": 0, "corrupt": 0, "visible_temp": 0}
    leftover_temps = 0
    for trial in range(single + pool):
        jobs = 1 if trial < single else 2
        folder = fresh_wiki(root, originals)
        proc = start(root, jobs)
        # a random point: after the page numbered `target` is done, plus up to 5 ms
        target = rng.randrange(PAGES)
        assert proc.stdout is not None
        while target:
            line = proc.stdout.readline()
            if not line or line.startswith(b"done") or int(line) >= target:
                break
        time.sleep(rng.uniform(0.0, 0.005))
        kill_group(proc)
        stats["trials"] += 1
        stats["killed"] += proc.returncode == -signal.SIGKILL

        migrated = 0
        for name in originals:
            data = (folder / name).read_bytes()
            if data == expected[name]:
                migrated += 1
            elif data != originals[name]:
                stats["corrupt"] += 1
        stats["mid_run"] += 0 < migrated < PAGES
        visible = set()
        for entry in folder.rglob("*"):
            rel = entry.relative_to(folder)
            if any(part.startswith(".") for part in rel.parts):
                if entry.name != ".sessionkit.lock":
                    assert entry.name.endswith(".tmp"), entry
                    leftover_temps += 1
                continue
            visible.add(str(rel))
        stray = visible - set(originals)
        stats["visible_temp"] += len(stray)
        store = sessionkit.open_store(root, layout="aiwiki")
        assert store.keys() == sorted(originals)

        report = sessionkit.migrate(root, jobs=1)
        assert report.ok, [str(f) for f in report.failed]
        assert len(report.migrated) == PAGES - migrated
        assert {p.name: p.read_bytes() for p in folder.glob("*.md")} == expected

    print(
        f"\nmigrate kill -9: {stats['trials']} trials ({single} single, {pool} --jobs 2), "
        f"{stats['killed']} killed, {stats['mid_run']} mid-run, corrupt pages {stats['corrupt']}, "
        f"visible temp files {stats['visible_temp']}, hidden .tmp leftovers {leftover_temps}"
    )
    assert stats["corrupt"] == 0
    assert stats["visible_temp"] == 0
    assert stats["killed"] >= (single + pool) // 2
    assert stats["mid_run"] >= (single + pool) // 2  # kills landed inside the run
