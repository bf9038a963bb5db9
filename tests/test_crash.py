"""kill -9 during ``convert`` and during checkpoint appends: old or new bytes, never a mix.

``tests/ops/test_migrate_crash.py`` does the same for ``migrate``.  8 trials each by
default, 20 under the ``stress`` marker.  Here a subprocess runs the operation and is
SIGKILLed (with its process group) at a seeded random point: after a random number of
steps reported done, plus a random 0-5 ms.  After every kill:

* every note is exactly the bytes of a clean run, or absent (convert), or the
  note as it was before or after the append in flight (checkpoints): it
  parses and lints as a clean note does;
* nothing a wiki or Basic Memory would see was left behind: the only other
  names are dotfiles (lock, manifest, ``.name.<hex>.tmp`` temporaries);
* a rerun completes and gives the clean result.

The stores live on tmpfs (``/dev/shm``) when there is one: a process kill is
not a power cut, what protects the notes is the rename, not the fsync.
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
from sessionkit.diagnostics import Severity

TRIALS = [8, pytest.param(20, marks=pytest.mark.stress)]
SEED = 20261130
CORPUS = Path(__file__).parent / "corpus"
SESSION_ID = "c0ffee12-3456-4789-abcd-ef0123456789"

CONVERT = """
import sys
from sessionkit.ops.convert import convert

def progress(done, total, key):
    print(done, flush=True)

print("go", flush=True)
report = convert(sys.argv[1], sys.argv[2], to="basic-memory", progress=progress)
print("done", report.ok, flush=True)
"""

APPEND = """
import sys
from sessionkit import open_store
from sessionkit.ops.lifecycle import DirectiveSpec, record_checkpoint

store = open_store(sys.argv[1], layout="aiwiki")
print("go", flush=True)
for i in range(int(sys.argv[2]), int(sys.argv[3])):
    record_checkpoint(store, {"session_id": sys.argv[4]}, repo_root=sys.argv[1],
                      directive=DirectiveSpec(scope="", action=f"append-{i:03d}"))
    print(i + 1, flush=True)
print("done", flush=True)
"""


def _files(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


def _visible(name: str) -> bool:
    return not any(part.startswith(".") for part in Path(name).parts)


def _assert_no_visible_leftovers(files: dict[str, bytes], allowed: set[str]) -> None:
    for name in files:
        if _visible(name):
            assert name in allowed, f"visible leftover {name!r}"
            assert not name.endswith(".tmp")


def _kill_at(cmd: list[str], steps: int, rng: random.Random) -> tuple[int, bool]:
    """Run ``cmd``, SIGKILL it after ``steps`` reported steps (+0-5 ms); (steps seen, killed)."""
    proc = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    assert proc.stdout is not None
    seen = 0
    killed = False
    try:
        assert proc.stdout.readline().strip() == "go"
        while seen < steps:
            line = proc.stdout.readline().strip()
            if not line or line.startswith("done"):
                break
            seen = int(line)
        time.sleep(rng.random() * 0.005)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
            killed = True
    finally:
        proc.wait(timeout=60)
        rest = proc.stdout.read()
        proc.stdout.close()
        assert proc.stderr is not None
        err = proc.stderr.read()
        proc.stderr.close()
    killed = killed and proc.returncode == -signal.SIGKILL
    for line in rest.split():
        if line.isdigit():
            seen = max(seen, int(line))
    assert killed or proc.returncode == 0, err[-2000:]
    return seen, killed


# -- convert -----------------------------------------------------------------------------------


def _aiwiki_source(root: Path) -> None:
    folder = root / "aiwiki" / "sessions"
    folder.mkdir(parents=True)
    for sub, count in (("aiwiki-v2", 10), ("convert", 6)):
        for note in sorted((CORPUS / sub).glob("*.md"))[:count]:
            shutil.copy(note, folder / note.name)


@pytest.mark.slow
@pytest.mark.parametrize("trials", TRIALS)
def test_convert_killed_leaves_old_or_new_and_reruns(crash_dir: Path, trials: int) -> None:
    from sessionkit.ops.convert import convert

    src = crash_dir / "src"
    _aiwiki_source(src)
    before = _files(src)
    dst = crash_dir / "dst"  # the project name (and the permalinks) come from the folder name
    clean = convert(str(src), str(dst), to="basic-memory")
    assert clean.ok and clean.created
    reference = _files(dst)
    shutil.rmtree(dst)
    notes = {k for k in reference if _visible(k)}
    total = len(clean.created)
    rng = random.Random(SEED)
    stats = {"trials": 0, "killed": 0, "partial": 0}
    for trial in range(trials):
        steps = rng.randrange(total + 1)
        _, killed = _kill_at([sys.executable, "-c", CONVERT, str(src), str(dst)], steps, rng)
        stats["trials"] += 1
        stats["killed"] += killed
        after = _files(dst) if dst.exists() else {}
        _assert_no_visible_leftovers(after, notes)
        present = {k for k in after if _visible(k)}
        stats["partial"] += 0 < len(present) < len(notes)
        for key in present:  # each note is the clean run's bytes, never a part of them
            assert after[key] == reference[key], key
        rerun = convert(str(src), str(dst), to="basic-memory")
        assert rerun.ok, (rerun.conflicts, rerun.failures)
        final = _files(dst)
        assert {k: v for k, v in final.items() if _visible(k)} == {
            k: v for k, v in reference.items() if _visible(k)
        }
        if trial % 10 == 0:
            assert convert(str(src), str(dst), to="basic-memory").written == []  # idempotent
        shutil.rmtree(dst, ignore_errors=True)
    assert _files(src) == before  # the source is never touched
    print(f"\nconvert kill -9: {stats}")
    assert stats["killed"] >= trials // 2
    assert stats["partial"] >= 3  # kills landed inside the run


# -- checkpoint append ------------------------------------------------------------------------


def _tags(text: str, key: str) -> list[str]:
    session = sessionkit.loads(text, path=key, format="aiwiki-v2")
    out = []
    for cp in session.checkpoints:
        for d in cp.directives:
            out += [item[len("Action: ") :] for item in d.items if item.startswith("Action: ")]
    return out


@pytest.mark.slow
@pytest.mark.parametrize("trials", TRIALS)
def test_checkpoint_append_killed_leaves_old_or_new_and_reruns(
    crash_dir: Path, trials: int
) -> None:
    from sessionkit.ops.lifecycle import DirectiveSpec, record_checkpoint

    rng = random.Random(SEED + 1)
    stats = {"trials": 0, "killed": 0, "appends_lost": 0}
    per_trial = 8
    for trial in range(trials):
        root = crash_dir / f"wiki{trial}"
        root.mkdir()
        store = sessionkit.open_store(root, layout="aiwiki")
        # start from a note that already has a checkpoint (append, not create), half the time
        start = trial % 2
        if start:
            record_checkpoint(
                store,
                {"session_id": SESSION_ID},
                repo_root=str(root),
                directive=DirectiveSpec(scope="", action="append-000"),
            )
        steps = rng.randrange(start, start + per_trial + 1)
        cmd = [sys.executable, "-c", APPEND, str(root), str(start), str(start + per_trial)]
        seen, killed = _kill_at([*cmd, SESSION_ID], steps, rng)
        stats["trials"] += 1
        stats["killed"] += killed
        keys = store.keys()
        files = _files(root)
        _assert_no_visible_leftovers(files, {f"aiwiki/sessions/{k}" for k in keys})
        if not keys:  # killed before the first note was created
            assert seen == 0
            continue
        [key] = keys
        text = store.read_text(key)
        tags = _tags(text, key)
        # the note as it was before or after the append in flight
        assert len(tags) in (max(seen, start), max(seen, start) + 1), (seen, tags)
        assert tags == [f"append-{i:03d}" for i in range(len(tags))]
        stats["appends_lost"] += max(seen, start) - min(len(tags), max(seen, start))
        errors = [d for d in sessionkit.lint(text, path=key) if d.severity is Severity.ERROR]
        assert errors == []
        # a rerun completes
        record_checkpoint(
            store,
            {"session_id": SESSION_ID},
            repo_root=str(root),
            directive=DirectiveSpec(scope="", action=f"append-{len(tags):03d}"),
        )
        assert _tags(store.read_text(key), key) == [f"append-{i:03d}" for i in range(len(tags) + 1)]
        shutil.rmtree(root, ignore_errors=True)
    print(f"\ncheckpoint kill -9: {stats}")
    assert stats["appends_lost"] == 0
    assert stats["killed"] >= trials // 2
