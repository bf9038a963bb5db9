"""Benchmark: convert N notes each way vs the read + atomic-write floor.

Generates N aiwiki v2 pages and N Basic Memory session notes
(``benchmarks/_corpus.py``, deterministic), then in the same process,
alternating, for several rounds:

* **aiwiki → Basic Memory**: ``sessionkit.convert(wiki, project)`` into a fresh
  project folder (every page parsed, mapped, rendered, read back to check
  nothing was lost, written atomically; manifest written);
* **Basic Memory → aiwiki**: the same the other way;
* **floor**: plain Python over the same files: read each one, write it into a
  fresh folder as a temporary file, fsync, ``os.replace``.

Before each timed run its target folder is removed and ``os.sync()`` flushes
the removal, outside the timed region (ext4 otherwise does the deferred work
of deleting 10,000 files inside the next run's fsyncs, which doubled a
floor's system time here); each conversion and its floor take turns leading.
Prints files/s per round, the medians and the ratios (target: within 3x of
the floor).

    python benchmarks/convert.py              # 10,000 notes each way, 3 rounds
    python benchmarks/convert.py --size 2000 --rounds 5 --jobs 2
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _corpus import peak_rss_mb, write_corpus


def floor(src: Path, dst: Path) -> int:
    """Read every note in ``src`` and write it atomically into ``dst`` (temp, fsync, replace)."""
    dst.mkdir(parents=True, exist_ok=True)
    n = 0
    for name in sorted(os.listdir(src)):
        if not name.endswith(".md") or name.startswith("."):
            continue
        with open(src / name, "rb") as fh:
            data = fh.read()
        tmp = dst / f".{name}.tmp"
        with open(tmp, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, dst / name)
        n += 1
    return n


def run_convert(src: Path, dst: Path, to: str, jobs: int | None) -> int:
    """``sessionkit.convert`` from ``src`` to ``dst``; checks every note was written."""
    import sessionkit

    report = sessionkit.convert(src, dst, to=to, project="bench", jobs=jobs)
    if report.failures or report.conflicts:
        first = (report.failures or report.conflicts)[0]
        raise SystemExit(f"conversion failed: {first.source}: {first.message}")
    return len(report.created)


def timed(fn: object, *args: object) -> tuple[float, int]:
    start = time.perf_counter()
    n = fn(*args)  # type: ignore[operator]
    return time.perf_counter() - start, int(n)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=10_000, help="notes each way (10,000)")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds (3)")
    parser.add_argument("--jobs", type=int, default=None, help="worker processes (default 1)")
    parser.add_argument("--dir", help="work folder (default: a temp folder)")
    args = parser.parse_args()

    base = Path(args.dir) if args.dir else Path(tempfile.mkdtemp(prefix="sk-convert-bench-"))
    wiki, project = base / "wiki", base / "project"
    write_corpus(wiki, "v2", args.size)
    write_corpus(project, "bm", args.size)
    pages, notes = wiki / "aiwiki" / "sessions", project / "sessions"
    print(f"corpus: {args.size} aiwiki v2 pages, {args.size} Basic Memory notes in {base}")
    print(f"jobs: {args.jobs or 1}; rounds: {args.rounds}")

    results: dict[str, list[float]] = {
        "aiwiki->bm": [],
        "floor aiwiki": [],
        "bm->aiwiki": [],
        "floor bm": [],
    }
    for r in range(1, args.rounds + 1):
        pairs = [
            (
                ("aiwiki->bm", run_convert, (wiki, "a2b", "basic-memory", args.jobs)),
                ("floor aiwiki", floor, (pages, "fa")),
            ),
            (
                ("bm->aiwiki", run_convert, (project, "b2a", "aiwiki-v2", args.jobs)),
                ("floor bm", floor, (notes, "fb")),
            ),
        ]
        for pair in pairs:
            # each pair is led by the conversion in odd rounds, by the floor in even ones
            for name, fn, (src, out_name, *rest) in pair if r % 2 else pair[::-1]:
                out = base / f"out-{out_name}"
                shutil.rmtree(out, ignore_errors=True)
                # the removal's deferred disk work must not land in the timed region
                os.sync()
                seconds, n = timed(fn, src, out, *rest)
                rate = n / seconds
                results[name].append(rate)
                print(
                    f"round {r}: {name:<13} {n:>6} files in {seconds:7.2f} s = {rate:9.0f} files/s"
                )
    print()
    med = {name: statistics.median(v) for name, v in results.items()}
    for name, rate in med.items():
        print(f"median {name:<13} {rate:9.0f} files/s")
    for conv, flo in (("aiwiki->bm", "floor aiwiki"), ("bm->aiwiki", "floor bm")):
        ratio = med[flo] / med[conv]
        verdict = "within" if ratio <= 3 else "NOT within"
        print(f"{conv}: {ratio:.1f}x slower than the floor ({verdict} the 3x target)")
    print(f"peak RSS: {peak_rss_mb():.0f} MB")
    if not args.dir:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
