"""Bulk lint over several processes: :func:`lint_many` shares the work through the one
process pool (:func:`sessionkit.ops._parallel.ordered_map`), with or without another
thread running in the caller (one is kept running here).

No timing here (speed lives in ``benchmarks/``): any number of jobs gives the
findings of one job, in the same order; an unreadable note stops the run at
its place, whichever process read it; a run left early leaves no process
behind.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from sessionkit.diagnostics import Diagnostic
from sessionkit.ops.lint import lint_many
from tests.procs import children

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))


@pytest.fixture(autouse=True)
def threaded() -> Iterator[None]:
    """Another thread runs during each test, as in a threaded caller."""
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        yield
    finally:
        stop.set()
        other.join()


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """1,100 pages (more than four chunks) of the CLI benchmark's mixed corpus, and an
    unreadable note, a note of bytes and a store's read error among them."""
    from _corpus import cli_page

    folder = tmp_path_factory.mktemp("wiki") / "aiwiki" / "sessions"
    folder.mkdir(parents=True)
    paths = []
    for i in range(1100):
        name, data = cli_page("mix" if i % 3 else "finding", i)
        (folder / name).parent.mkdir(exist_ok=True)  # (the example pages: a folder each)
        (folder / name).write_bytes(data)
        paths.append(str(folder / name))
    return sorted(paths)


def _items(paths: list[str]) -> list[tuple[object, ...]]:
    items: list[tuple[object, ...]] = [("file", p, None) for p in paths]
    items.insert(300, ("data", "mem/x.md", b"---\nschema_id: session\n\xff\n---\n"))
    items.insert(700, ("error", "mem/y.md", ("bad bytes", 3)))
    return items


@pytest.mark.parametrize("jobs", [2, 3])
def test_any_number_of_jobs_gives_the_findings_of_one(pages: list[str], jobs: int) -> None:
    items = _items(pages)
    serial = list(lint_many(items, limit=1 << 20, jobs=1))
    assert len(serial) == len(items) and sum(map(len, serial)) > 500
    assert list(lint_many(iter(items), limit=1 << 20, jobs=jobs)) == serial
    assert not children()


def _codes(found: list[Diagnostic]) -> tuple[str, ...]:
    """What the render test makes of a note's findings (picklable: at the top level)."""
    return tuple(f"{d.code}@{d.line}" for d in found)


@pytest.mark.parametrize("jobs", [1, 2, 3])
def test_render_gives_what_it_makes_of_each_notes_findings(
    pages: list[str], tmp_path: Path, jobs: int
) -> None:
    """``render`` runs on each note's findings in the process that linted them, and its
    result comes back in the notes' order; an unreadable note still stops the run at
    its place."""
    items = _items(pages)
    serial = list(lint_many(items, limit=1 << 20, jobs=1))
    rendered = list(lint_many(iter(items), limit=1 << 20, jobs=jobs, render=_codes))
    assert rendered == [_codes(found) for found in serial]
    assert sum(map(bool, rendered)) > 300  # (notes with findings among them)
    items[800] = ("file", str(tmp_path / "missing.md"), None)
    got = []
    with pytest.raises(FileNotFoundError, match=r"missing\.md"):
        for text in lint_many(items, limit=1 << 20, jobs=jobs, render=_codes):
            got.append(text)
    assert got == rendered[:800]
    assert not children()


#: a page whose lint takes a while (the general path over thousands of bullets)
_SLOW_PAGE = (
    "---\nschema_id: session\nschema_version: 2\n---\n\n## Next steps\n\n"
    + "".join(f"- step {i} with some words\n" for i in range(8000))
).encode()


@pytest.mark.parametrize("jobs", [2, 3])
@pytest.mark.parametrize("at", [1, 150, 193, 260])
def test_slow_notes_among_quick_ones_lose_nothing(jobs: int, at: int) -> None:
    """A stretch of slow notes among quick ones (this process may lint the slow ones
    while the workers answer everything they were sent) still gives every note's
    findings, in order: a run once ended there, silently, with notes left unread."""
    quick: list[tuple[object, ...]] = [
        ("error", f"mem/q{i}.md", ("bad bytes", 1)) for i in range(at + 300)
    ]
    slow: list[tuple[object, ...]] = [("data", f"mem/s{i}.md", _SLOW_PAGE) for i in range(32)]
    items = quick[:at] + slow + quick[at:]
    serial = list(lint_many(items, limit=1 << 22, jobs=1))
    assert len(serial) == len(items)
    assert list(lint_many(iter(items), limit=1 << 22, jobs=jobs)) == serial


@pytest.mark.parametrize("at", [10, 300, 600, 1000])
@pytest.mark.parametrize("jobs", [2, 3])
def test_an_unreadable_note_stops_the_run_at_its_place(
    pages: list[str], tmp_path: Path, at: int, jobs: int
) -> None:
    """A note that cannot be read raises at its place in the order, after every finding
    before it, whether this process or a worker read it."""
    items = _items(pages)
    items[at] = ("file", str(tmp_path / "missing.md"), None)
    before = list(lint_many(items[:at], limit=1 << 20, jobs=1))
    got = []
    with pytest.raises(FileNotFoundError, match=r"missing\.md"):
        for found in lint_many(items, limit=1 << 20, jobs=jobs):
            got.append(found)
    assert got == before
    assert not children()


def test_a_run_left_early_leaves_no_worker_behind(pages: list[str]) -> None:
    run = lint_many(_items(pages), limit=1 << 20, jobs=3)
    first = [next(run) for _ in range(600)]
    assert first == list(lint_many(_items(pages)[:600], limit=1 << 20, jobs=1))
    assert children()  # the workers are there while the run is
    run.close()
    assert not children()


def test_a_few_notes_are_linted_here(pages: list[str]) -> None:
    """Fewer notes than a pool is worth: no worker at all."""
    items = _items(pages)[:40]
    run = lint_many(iter(items), limit=1 << 20, jobs=2)
    assert next(run) == next(iter(lint_many(items[:1], limit=1 << 20, jobs=1)))
    assert not children()
    assert [next(run), *run] == list(lint_many(items[1:], limit=1 << 20, jobs=1))


@pytest.mark.parametrize("at", [30, 500, 1064])
@pytest.mark.parametrize("jobs", [2, 3])
def test_an_input_that_fails_stops_the_run_at_its_place(
    pages: list[str], at: int, jobs: int
) -> None:
    """The input itself raising (a path that is not there, found when its turn comes)
    raises after every finding before it, whichever process linted those."""
    items = _items(pages)

    def given() -> Iterator[tuple[object, ...]]:
        yield from items[:at]
        raise FileNotFoundError("gone.md")

    got = []
    with pytest.raises(FileNotFoundError, match=r"gone\.md"):
        for found in lint_many(given(), limit=1 << 20, jobs=jobs):
            got.append(found)
    assert got == list(lint_many(items[:at], limit=1 << 20, jobs=1))
    assert not children()


#: a run whose workers are killed after its first note, in a process of its own (a hang
#: there fails the test at its timeout instead of stopping the suite); it prints what the
#: run raised and the processes left
_KILLED = """
import os, signal, sys, threading
sys.path.insert(0, sys.argv[1])
from tests.procs import children
from sessionkit.ops.lint import lint_many

folder = sys.argv[2]
threading.Thread(target=threading.Event().wait, daemon=True).start()
paths = sorted(os.path.join(folder, name) for name in os.listdir(folder))
paths = [path for path in paths if os.path.isfile(path)]  # (the example pages' folders: no)
items = [("file", path, None) for path in paths] * 10  # (more chunks than a pool has in flight)
run = lint_many(items, limit=1 << 20, jobs=3)
next(run)
workers = children()
print(len(workers), flush=True)
for pid in workers:
    os.kill(pid, signal.SIGKILL)
try:
    for _ in run:
        pass
except OSError as exc:
    print(type(exc).__name__, exc)
else:
    print("no error")
print(sorted(children()))
"""


def test_a_worker_killed_fails_the_run_and_leaves_no_process(pages: list[str]) -> None:
    """A worker that dies (killed) ends the run with an OSError that says so, never
    a BrokenPipeError, which the command would take for a closed stdout; no process is
    left, and the run does not hang (CPython 3.11's process pool could hang in its
    shutdown with dead workers)."""
    folder = os.path.dirname(pages[0])
    done = subprocess.run(
        [sys.executable, "-c", _KILLED, str(ROOT), folder],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    count, raised, left = done.stdout.splitlines()
    assert int(count) == 3  # (a pool of 3)
    assert raised == "OSError a worker process ended before it answered"
    assert left == "[]"
