"""kill -9 during ``sync``: every note is its old or its new bytes, and a rerun finishes the job.

Like ``tests/test_crash.py``: a subprocess runs the sync over a wiki and a
Basic Memory folder edited on both sides (a change carried each way, a merge,
a note created on each side) and is SIGKILLed (with its process group) after
a seeded random number of reported steps plus 0-5 ms.  After every kill:

* each note is exactly its bytes before the sync or after a clean sync, and
  reads as a session; nothing visible is left behind (only dotfiles);
* a rerun gives exactly the clean sync's notes and reports no conflict (the
  notes the killed run had already carried are found converged);
* a further sync writes nothing.
"""

from __future__ import annotations

import random
import shutil
import sys
from pathlib import Path

import pytest

import sessionkit
from sessionkit import open_store
from sessionkit.ops import lifecycle
from sessionkit.ops.sync import sync
from tests.test_crash import _assert_no_visible_leftovers, _files, _kill_at, _visible

TRIALS = [6, pytest.param(12, marks=pytest.mark.stress)]
SEED = 20261201
CORPUS = Path(__file__).parent.parent / "corpus" / "aiwiki-v2"
PAGES = sorted(p.name for p in CORPUS.glob("*.md"))[:7]

SYNC = """
import sys
from sessionkit.ops.sync import sync

def progress(done, total, key):
    print(done, flush=True)

print("go", flush=True)
report = sync(sys.argv[1], sys.argv[2], progress=progress)
print("done", report.ok, flush=True)
"""


def _edited_pair(root: Path) -> None:
    """A synced wiki and Basic Memory folder, then edits on both sides."""
    folder = root / "wiki" / "aiwiki" / "sessions"
    folder.mkdir(parents=True)
    for name in PAGES[:5]:
        shutil.copyfile(CORPUS / name, folder / name)
    (root / "bm").mkdir()
    aw, bm = (
        open_store(root / "wiki", layout="aiwiki"),
        open_store(root / "bm", layout="basic-memory"),
    )
    assert sync(aw, bm).ok
    listed = bm.keys()
    notes = {k: next(b for b in listed if bm.get(b).id == aw.get(k).id) for k in PAGES[:5]}
    lifecycle.add_item(aw, "decision", "carried to Basic Memory", PAGES[0])
    lifecycle.add_item(bm, "next-step", "carried to the wiki", notes[PAGES[1]])
    lifecycle.add_item(aw, "gotcha", "merged, wiki part", PAGES[2])
    lifecycle.add_item(bm, "next-step", "merged, Basic Memory part", notes[PAGES[2]])
    lifecycle.set_status(bm, "abandoned", notes[PAGES[3]])
    shutil.copyfile(CORPUS / PAGES[5], folder / PAGES[5])  # created in the wiki
    src = (CORPUS / PAGES[6]).read_text()  # created in Basic Memory
    from sessionkit.ops.convert import convert_text, target_key

    key = target_key(src, "basic-memory", PAGES[6], project="bm")
    (root / "bm" / "sessions" / key).write_text(
        convert_text(src, "basic-memory", PAGES[6], project="bm")
    )


@pytest.mark.slow
@pytest.mark.parametrize("trials", TRIALS)
def test_sync_killed_leaves_old_or_new_and_reruns(crash_dir: Path, trials: int) -> None:
    start = crash_dir / "start"
    _edited_pair(start)
    before = _files(start)
    clean = crash_dir / "clean"
    shutil.copytree(start, clean)
    report = sync(clean / "wiki", clean / "bm")
    assert report.ok and len(report.written) == 6, report.counts()
    reference = _files(clean)
    notes = {k for k in reference if _visible(k)}
    total = len(report.actions) + len(report.unchanged)
    rng = random.Random(SEED)
    stats = {"trials": 0, "killed": 0, "partial": 0}
    for _ in range(trials):
        run = crash_dir / "run"
        shutil.copytree(start, run)
        steps = rng.randrange(total + 1)
        cmd = [sys.executable, "-c", SYNC, str(run / "wiki"), str(run / "bm")]
        _, killed = _kill_at(cmd, steps, rng)
        stats["trials"] += 1
        stats["killed"] += killed
        after = _files(run)
        _assert_no_visible_leftovers(after, notes)
        changed = 0
        for key, data in after.items():
            if not _visible(key):
                continue
            assert data in (before.get(key), reference[key]), key
            changed += data != before.get(key)
            sessionkit.loads(data.decode(), path=key)  # a whole note, never a part
        stats["partial"] += 0 < changed < len(report.written)
        rerun = sync(run / "wiki", run / "bm")
        assert rerun.ok, [a.to_dict() for a in rerun.actions if a.action in ("conflict", "failure")]
        final = _files(run)
        assert {k: v for k, v in final.items() if _visible(k)} == {
            k: v for k, v in reference.items() if _visible(k)
        }
        assert sync(run / "wiki", run / "bm").written == []
        shutil.rmtree(run)
    print(f"\nsync kill -9: {stats}")
    assert stats["killed"] >= trials // 2
    assert stats["partial"] >= 2  # kills landed inside the run
