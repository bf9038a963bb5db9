"""The one process pool behind ``--jobs`` (lint, ls, migrate, convert), through its callers.

No timing here (speed lives in ``benchmarks/``): these check that any number
of jobs gives the same results, in the same order, byte for byte; that a failure
comes at its item's place; that a killed worker is named; and that each chunk of
a migration is one store batch, its tail shared out between the workers.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from sessionkit.cli import cli
from sessionkit.diagnostics import Diagnostic
from sessionkit.ops.lint import lint_many
from sessionkit.ops.migrate import migrate
from tests.procs import children

LIMIT = 1 << 20


def _items(n: int) -> list[tuple[str, str, bytes]]:
    """``n`` notes to lint, each found by its own path (``b"\\xff"``: one finding)."""
    return [("data", f"mem/{i:05d}.md", b"\xff") for i in range(n)]


def _paths(n: int) -> list[str]:
    return [item[1] for item in _items(n)]


# ``render`` functions: they run where the item is linted (a worker, or this process)


def path_of(found: list[Diagnostic]) -> str | None:
    return found[0].path


def pid_of(_: list[Diagnostic]) -> int:
    return os.getpid()


def fail_at_50(found: list[Diagnostic]) -> str | None:
    if found[0].path == "mem/00050.md":
        raise KeyError(50)
    return found[0].path


def slow_path_of(found: list[Diagnostic]) -> str | None:
    time.sleep(0.001)
    return found[0].path


@pytest.mark.parametrize("jobs", [1, 2, 3])
@pytest.mark.parametrize("n", [0, 1, 63, 64, 65, 200, 1001])
def test_lint_many_keeps_input_order(jobs: int, n: int) -> None:
    assert list(lint_many(_items(n), limit=LIMIT, jobs=jobs, render=path_of)) == _paths(n)


def test_lint_many_reads_a_generator_lazily() -> None:
    taken: list[int] = []

    def source() -> Iterator[tuple[str, str, bytes]]:
        for x in range(100_000):
            taken.append(x)
            yield ("data", f"mem/{x:06d}.md", b"\xff")

    it = lint_many(source(), limit=LIMIT, jobs=2, render=path_of)
    assert [next(it) for _ in range(5)] == [f"mem/{x:06d}.md" for x in range(5)]
    # only the head and a few chunks in flight have been read, not all 100,000
    assert len(taken) < 10_000
    it.close()


def test_lint_many_uses_workers_only_when_worth_it() -> None:
    me = os.getpid()
    assert set(lint_many(_items(10), limit=LIMIT, jobs=2, render=pid_of)) == {me}  # tiny: serial
    assert set(lint_many(_items(300), limit=LIMIT, jobs=1, render=pid_of)) == {me}
    assert me not in set(lint_many(_items(300), limit=LIMIT, jobs=2, render=pid_of))


@pytest.mark.parametrize("jobs", [1, 2])
def test_lint_many_raises_at_the_failing_item(jobs: int) -> None:
    seen: list[str | None] = []
    with pytest.raises(KeyError):
        for path in lint_many(_items(300), limit=LIMIT, jobs=jobs, render=fail_at_50):
            seen.append(path)
    assert seen == _paths(50)


@pytest.mark.parametrize("jobs", [1, 2])
def test_lint_many_raises_an_unreadable_file_at_its_place(tmp_path: Path, jobs: int) -> None:
    items: list[Any] = _items(300)
    items[120] = ("file", str(tmp_path / "gone.md"), None)
    seen: list[str | None] = []
    with pytest.raises(OSError, match=r"gone\.md"):
        for path in lint_many(items, limit=LIMIT, jobs=jobs, render=path_of):
            seen.append(path)
    assert seen == _paths(120)


def _failing_input(at: int) -> Iterator[tuple[str, str, bytes]]:
    """The first ``at`` items, then the input itself raises (a path found missing)."""
    yield from _items(at)
    raise FileNotFoundError("gone.md")


@pytest.mark.parametrize("at", [5, 40, 130, 700])
@pytest.mark.parametrize("jobs", [1, 2, 3])
def test_lint_many_raises_the_inputs_failure_at_its_place(jobs: int, at: int) -> None:
    """Every result before the input's own error is yielded first, however far ahead
    the map reads (the head, the lookahead)."""
    seen: list[str | None] = []
    with pytest.raises(FileNotFoundError, match=r"gone\.md"):
        for path in lint_many(_failing_input(at), limit=LIMIT, jobs=jobs, render=path_of):
            seen.append(path)
    assert seen == _paths(at)


def test_lint_many_says_so_when_a_worker_is_killed() -> None:
    import signal

    def source() -> Iterator[tuple[str, str, bytes]]:
        for x in range(20_000):
            yield ("data", f"mem/{x:05d}.md", b"\xff")

    run = lint_many(source(), limit=LIMIT, jobs=2, render=slow_path_of)
    assert next(run) == "mem/00000.md"
    for pid in children():
        os.kill(pid, signal.SIGKILL)
    with pytest.raises(OSError, match="a worker process ended before it answered"):
        for _ in run:
            pass


def test_lint_many_checks_its_arguments() -> None:
    with pytest.raises(ValueError, match="jobs must be at least 1"):
        list(lint_many(_items(1), limit=LIMIT, jobs=0))
    assert list(lint_many(_items(2), limit=LIMIT, render=path_of)) == _paths(2)  # jobs: the cores


# -- each chunk of a migration is one store batch ----------------------------------------


def _v1_wiki(root: Path, n: int) -> Path:
    folder = root / "aiwiki" / "sessions"
    folder.mkdir(parents=True)
    for i in range(n):
        (folder / f"note-{i:04d}.md").write_text(V1.format(i=i, day=i % 28 + 1), encoding="utf-8")
    return folder


def _spy_chunks(monkeypatch: pytest.MonkeyPatch, log: Path) -> None:
    """Log, per process, each page written (``os.replace``) and each folder fsync (a
    batch's end): into a file, so that forked workers' count too."""
    import stat

    real_replace, real_fsync = os.replace, os.fsync

    def note(event: str) -> None:
        with open(log, "a", encoding="utf-8") as fh:
            fh.write(f"{os.getpid()} {event}\n")

    def replace(src: Any, dst: Any, **kw: Any) -> None:
        real_replace(src, dst, **kw)
        note("write " + os.path.basename(dst))

    def fsync(fd: Any) -> None:
        real_fsync(fd)
        if stat.S_ISDIR(os.fstat(fd if isinstance(fd, int) else fd.fileno()).st_mode):
            note("sync")

    monkeypatch.setattr(os, "replace", replace)
    monkeypatch.setattr(os, "fsync", fsync)


def _chunks_of(log: Path) -> list[list[int]]:
    """The chunks written, each a process's run of pages up to its folder fsync."""
    by_pid: dict[str, list[str]] = {}
    for line in log.read_text().splitlines():
        pid, event = line.split(" ", 1)
        by_pid.setdefault(pid, []).append(event)
    chunks: list[list[int]] = []
    for events in by_pid.values():
        while events:
            end = events.index("sync")  # (each chunk ends with its batch's one fsync)
            chunks.append([int(e[len("write note-") : -3]) for e in events[:end]])
            events = events[end + 1 :]
    return sorted(chunks)


@pytest.mark.parametrize("jobs", [1, 2])
def test_migrate_writes_each_chunk_in_one_batch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, jobs: int
) -> None:
    _v1_wiki(tmp_path, 150)
    log = tmp_path / "log"
    _spy_chunks(monkeypatch, log)
    assert migrate(tmp_path, jobs=jobs).counts()["migrated"] == 150
    chunks = _chunks_of(log)
    assert [x for chunk in chunks for x in chunk] == list(range(150))
    assert all(0 < len(chunk) <= 64 for chunk in chunks)
    assert len(chunks) >= 150 // 64


def test_migrate_in_process_reports_a_chunk_after_its_batch_ends(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.fsyncs import folder_fsyncs

    _v1_wiki(tmp_path, 150)
    events: list[str] = []
    folder_fsyncs(monkeypatch, tmp_path, seen=lambda _: events.append("sync"))
    migrate(tmp_path, jobs=1, progress=lambda done, total, key: events.append("page"))
    assert events == ["sync", *["page"] * 64, "sync", *["page"] * 64, "sync", *["page"] * 22]


@pytest.mark.parametrize("n", [199, 401, 1001])
@pytest.mark.parametrize("workers", [2, 3])
def test_migrate_chunks_share_out_the_tail(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, n: int, workers: int
) -> None:
    """Full chunks (64 pages) while more input follows, then ``2 * workers`` near-equal
    ones (so no worker is left with a whole chunk while the others wait)."""
    _v1_wiki(tmp_path, n)
    log = tmp_path / "log"
    _spy_chunks(monkeypatch, log)
    assert migrate(tmp_path, jobs=workers).counts()["migrated"] == n
    chunks = _chunks_of(log)
    assert [x for chunk in chunks for x in chunk] == list(range(n))
    assert all(0 < len(chunk) <= 64 for chunk in chunks)
    tail = len(chunks) if n < 64 * workers * 2 else 2 * workers
    sizes = [len(chunk) for chunk in chunks[-tail:]]
    assert all(size == sizes[0] for size in sizes[:-1]) and sizes[-1:] <= sizes[:1]
    assert sizes[0] - sizes[-1] < len(sizes)  # near-equal: what is left, shared out
    full = chunks[: len(chunks) - tail]
    assert all(len(chunk) == 64 for chunk in full)
    assert len(chunks[-tail:]) <= 2 * workers


# -- a wiki with every kind of note -----------------------------------------------------

GOOD = """\
---
schema_id: session
schema_version: 2
status: done
date_start: 2026-05-{day:02d}
date_end: 2026-05-{day:02d}
session_id: {sid}
focus: note {i}
last_commit: 'abc{i:04d}'
---

## Checkpoints

### PreCompact at 2026-05-{day:02d}T10:00:00Z

**Dream directive (unconsumed):**

- Status: consumed

## Files touched

- `src/a{i}.py:1-{i}` — no sha
- not a citation

## Next steps

- step {i}
"""

V1 = """\
---
schema_id: session
schema_version: 1
status: active
date_start: 2026-04-{day:02d}
focus: old note {i}
---

## Next steps

- step {i}
"""

BM = """\
---
title: Session {i}
type: session
status: open
started: '2026-03-{day:02d}T10:00:00Z'
---

## Observations

- [decision] keep note {i} #bench
"""


def make_wiki(root: Path, n: int = 150) -> Path:
    folder = root / "aiwiki" / "sessions"
    folder.mkdir(parents=True)
    for i in range(n):
        day = i % 28 + 1
        sid = f"{i:08x}-1111-2222-3333-444455556666"
        kind = i % 10
        if kind == 7:
            data = b"---\nschema_id: session\nfocus: [unclosed\n---\n\n## Next steps\n"
        elif kind == 8:
            data = b"---\nschema_id: session\nfocus: caf\xe9\n---\n"
        elif kind == 9:
            data = V1.format(i=i, day=day).encode()
        elif kind == 6:
            data = BM.format(i=i, day=day).encode()
        else:
            data = GOOD.format(i=i, day=day, sid=sid).encode()
        name = f"2026-05-{day:02d}-{sid[:7]}.md" if kind < 6 else f"note-{i:03d}.md"
        (folder / name).write_bytes(data)
    return root


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize("json_flag", [(), ("--json",)])
def test_lint_jobs_2_output_is_byte_identical(tmp_path: Path, json_flag: tuple[str, ...]) -> None:
    wiki = make_wiki(tmp_path)
    one = run("lint", *json_flag, "--jobs", "1", str(wiki))
    two = run("lint", *json_flag, "--jobs", "2", str(wiki))
    assert one == two
    code, out, _ = one
    assert code == 1
    codes = {"AW001", "AW012", "AW011", "AW017", "AW018"}
    assert all(c in out for c in codes), out
    assert out.count("\n") > 150


def test_lint_json_streams_the_same_document_as_one_dump(tmp_path: Path) -> None:
    import json

    wiki = make_wiki(tmp_path)
    _, out, _ = run("lint", "--json", "--jobs", "2", str(wiki))
    data = json.loads(out)
    assert out == json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    assert [d["path"] for d in data] == sorted(
        (d["path"] for d in data), key=lambda p: Path(p).parts
    )
    _, empty, _ = run("lint", "--json", "--jobs", "2", str(tmp_path / "nothing.md"))
    assert empty == ""  # missing path: an error (exit 2), no JSON


@pytest.mark.parametrize("json_flag", [(), ("--json",)])
def test_ls_jobs_2_output_is_byte_identical(tmp_path: Path, json_flag: tuple[str, ...]) -> None:
    wiki = make_wiki(tmp_path)
    one = run("ls", *json_flag, "--jobs", "1", str(wiki))
    two = run("ls", *json_flag, "--jobs", "2", str(wiki))
    assert one == two
    code, out, err = one
    assert code == 1  # the broken notes
    assert err.count("sessionkit: ") == 30
    assert out.count("note ") >= 60


def test_lint_many_equals_serial_lint(tmp_path: Path) -> None:
    wiki = make_wiki(tmp_path, 80)
    files = sorted(str(p) for p in (wiki / "aiwiki" / "sessions").iterdir())
    items = [("file", p, None) for p in files]
    items.append(("data", "mem/x.md", b"\xff"))
    items.append(("error", "mem/y.md", ("bad bytes", 3)))
    serial = list(lint_many(items, limit=1 << 20, jobs=1))
    parallel = list(lint_many(items, limit=1 << 20, jobs=2))
    assert serial == parallel
    assert len(serial) == len(items)
    assert serial[-1][0].line == 3 and serial[-1][0].code == "AW001"
    assert serial[-2][0].code == "AW001"
    tiny = list(lint_many(items, limit=10, jobs=2))
    assert all(found[0].code == "SK002" for found in tiny[:-2])


@pytest.mark.parametrize("size", [0, 1, (1 << 16) - 1, 1 << 16, (1 << 16) + 1, 3 << 20])
def test_lint_file_reads_whole_files_and_stops_at_the_limit(tmp_path: Path, size: int) -> None:
    """Files below, at and past the first read's 64 KiB are read whole (their findings
    are those of their bytes); past the limit, the finding gives the file's size."""
    from sessionkit.ops.lint import lint_data, lint_file

    page = tmp_path / "2026-05-01-abcdef0.md"
    body = b"---\nschema_id: session\nschema_version: 2\n---\n\n## Next steps\n"
    data = (body + b"x\n" * size)[: max(size, len(body))] if size else b""  # (lines: AW009 counts)
    page.write_bytes(data)
    limit = 8 << 20
    assert lint_file(str(page), limit) == lint_data(data, str(page), limit)
    small = lint_file(str(page), len(data) - 1) if data else []
    if data:
        assert [d.code for d in small] == ["SK002"]
        assert f"note is {len(data)} bytes" in small[0].message
