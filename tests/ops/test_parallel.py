"""Parallel bulk operations: the ordered map, bulk lint, and ``--jobs`` on the CLI.

No timing here (speed lives in ``benchmarks/``): these check that any number
of jobs gives the same results, in the same order, byte for byte.
"""

from __future__ import annotations

import contextlib
import functools
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from sessionkit.cli import cli
from sessionkit.ops._parallel import default_jobs, ordered_map
from sessionkit.ops.lint import lint_many
from tests.procs import children


def square(x: int) -> int:
    return x * x


def pid_of(_: int) -> int:
    return os.getpid()


def fail_at_50(x: int) -> int:
    if x == 50:
        raise KeyError(x)
    return x


@pytest.mark.parametrize("jobs", [1, 2, 3])
@pytest.mark.parametrize("n", [0, 1, 63, 64, 65, 200, 1001])
def test_ordered_map_keeps_input_order(jobs: int, n: int) -> None:
    got = list(ordered_map(square, range(n), jobs=jobs, chunk_size=16))
    assert got == [x * x for x in range(n)]


def test_ordered_map_reads_a_generator_lazily() -> None:
    taken: list[int] = []

    def source() -> Iterator[int]:
        for x in range(10_000):
            taken.append(x)
            yield x

    it = ordered_map(square, source(), jobs=2, chunk_size=10)
    assert [next(it) for _ in range(5)] == [0, 1, 4, 9, 16]
    # only the head and a few chunks in flight have been read, not all 10,000
    assert len(taken) < 200
    it.close()


def test_ordered_map_uses_workers_only_when_worth_it() -> None:
    me = os.getpid()
    assert set(ordered_map(pid_of, range(10), jobs=2)) == {me}  # tiny input: serial
    assert set(ordered_map(pid_of, range(300), jobs=1)) == {me}
    assert me not in set(ordered_map(pid_of, range(300), jobs=2, chunk_size=20))


@pytest.mark.parametrize("jobs", [1, 2])
def test_ordered_map_raises_at_the_failing_item(jobs: int) -> None:
    seen: list[int] = []
    with pytest.raises(KeyError):
        for x in ordered_map(fail_at_50, range(300), jobs=jobs, chunk_size=8):
            seen.append(x)
    assert seen == list(range(50))


def _failing_input(at: int) -> Iterator[int]:
    """0, 1, ... up to ``at``, then the input itself raises (a path found missing)."""
    yield from range(at)
    raise FileNotFoundError("gone.md")


@pytest.mark.parametrize("around", [None, contextlib.nullcontext])
@pytest.mark.parametrize("at", [5, 40, 130, 700])
@pytest.mark.parametrize("jobs", [1, 2, 3])
def test_ordered_map_raises_the_inputs_failure_at_its_place(
    jobs: int, at: int, around: Any
) -> None:
    """Every result before the input's own error is yielded first, however far ahead
    the map reads (the head, the lookahead, a chunk inside ``around``)."""
    seen: list[int] = []
    with pytest.raises(FileNotFoundError, match=r"gone\.md"):
        for x in ordered_map(square, _failing_input(at), jobs=jobs, chunk_size=16, around=around):
            seen.append(x)
    assert seen == [x * x for x in range(at)]


def sleep_then_square(x: int) -> int:
    import time

    time.sleep(0.002)
    return x * x


def test_ordered_map_says_so_when_a_worker_is_killed() -> None:
    import signal

    run = ordered_map(sleep_then_square, range(5000), jobs=2, chunk_size=16)
    assert next(run) == 0
    for pid in children():
        os.kill(pid, signal.SIGKILL)
    with pytest.raises(OSError, match="a worker process ended before it answered"):
        for _ in run:
            pass


class Around:
    """A chunk context (picklable) that logs, per process, each chunk's enter and exit."""

    def __init__(self, log: str) -> None:
        self.log = log

    def __call__(self) -> Any:
        return self

    def __enter__(self) -> None:
        with open(self.log, "a") as fh:
            fh.write(f"{os.getpid()} enter\n")

    def __exit__(self, *exc: object) -> None:
        with open(self.log, "a") as fh:
            fh.write(f"{os.getpid()} exit\n")


def logged(log: str, x: int) -> int:
    with open(log, "a") as fh:
        fh.write(f"{os.getpid()} item {x}\n")
    return x * x


@pytest.mark.parametrize("jobs", [1, 2])
def test_ordered_map_runs_each_chunk_inside_around(tmp_path: Path, jobs: int) -> None:
    log = str(tmp_path / "log")
    got = list(
        ordered_map(
            functools.partial(logged, log), range(100), jobs=jobs, chunk_size=16, around=Around(log)
        )
    )
    assert got == [x * x for x in range(100)]
    by_pid: dict[str, list[str]] = {}
    for line in Path(log).read_text().splitlines():
        pid, event = line.split(" ", 1)
        by_pid.setdefault(pid, []).append(event)
    chunks = []
    for events in by_pid.values():  # in each process: enter, its chunk's items, exit; again
        while events:
            assert events[0] == "enter"
            end = events.index("exit")
            chunks.append([int(e.split()[1]) for e in events[1:end]])
            events = events[end + 1 :]
    assert sorted(x for chunk in chunks for x in chunk) == list(range(100))
    assert all(0 < len(chunk) <= 16 for chunk in chunks)
    assert len(chunks) >= 100 // 16


def test_ordered_map_in_process_yields_a_chunk_after_its_context_exits() -> None:
    events: list[str] = []

    @contextlib.contextmanager
    def around() -> Iterator[None]:
        events.append("enter")
        yield
        events.append("exit")

    for x in ordered_map(square, range(5), jobs=1, chunk_size=2, around=around):
        events.append(f"got {x}")
    assert events == [
        "enter", "exit", "got 0", "got 1",
        "enter", "exit", "got 4", "got 9",
        "enter", "exit", "got 16",
    ]  # fmt: skip


def test_ordered_map_checks_its_arguments() -> None:
    with pytest.raises(ValueError):
        list(ordered_map(square, [1], jobs=0))
    with pytest.raises(ValueError):
        list(ordered_map(square, [1], chunk_size=0))
    assert default_jobs() >= 1


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


def _chunks_run(tmp_path: Path, n: int, jobs: int, chunk_size: int) -> list[list[int]]:
    """The chunks ``ordered_map`` ran (through ``around``), in input order."""
    log = str(tmp_path / f"log-{n}-{jobs}")
    func = functools.partial(logged, log)
    got = list(ordered_map(func, range(n), jobs=jobs, chunk_size=chunk_size, around=Around(log)))
    assert got == [x * x for x in range(n)]
    if not n:
        return []
    by_pid: dict[str, list[str]] = {}
    for line in Path(log).read_text().splitlines():
        pid, event = line.split(" ", 1)
        by_pid.setdefault(pid, []).append(event)
    chunks = []
    for events in by_pid.values():
        while events:
            end = events.index("exit")
            chunks.append([int(e.split()[1]) for e in events[1:end]])
            events = events[end + 1 :]
    return sorted(chunks)


@pytest.mark.parametrize("n", [399, 401, 2345])
@pytest.mark.parametrize("workers", [2, 3])
def test_chunks_share_out_the_tail(tmp_path: Path, n: int, workers: int) -> None:
    """Full chunks while more input follows, then ``2 * workers`` near-equal ones (so no
    worker is left with a whole chunk while the others wait)."""
    chunks = _chunks_run(tmp_path, n, workers, 100)
    assert [x for chunk in chunks for x in chunk] == list(range(n))
    assert all(0 < len(chunk) <= 100 for chunk in chunks)
    tail = len(chunks) if n < 100 * workers * 2 else 2 * workers
    sizes = [len(chunk) for chunk in chunks[-tail:]]
    assert all(size == sizes[0] for size in sizes[:-1]) and sizes[-1:] <= sizes[:1]
    assert sizes[0] - sizes[-1] < len(sizes)  # near-equal: what is left, shared out
    full = chunks[: len(chunks) - tail]
    assert all(len(chunk) == 100 for chunk in full)
    assert len(chunks[-tail:]) <= 2 * workers
