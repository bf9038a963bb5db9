"""Benchmark: migrate a wiki of v1 pages to v2 vs the read + atomic-write floor.

Generates N v1 session pages (``benchmarks/_corpus.py``, deterministic), then
in the same process, alternating, for several rounds:

* **sessionkit**: ``sessionkit.migrate(root)`` on a fresh copy of the wiki
  (every page parsed, spliced, written atomically under the folder lock,
  directory synced);
* **floor**: plain Python over a fresh copy of the same files: open/read,
  write a temporary file in the same folder, fsync, ``os.replace``.

Copies are made outside the timed region.  Prints files/s per round, the
medians and the ratio (target: sessionkit within 3x of the floor).

    python benchmarks/migrate.py            # 10,000 pages, 3 rounds
    python benchmarks/migrate.py --size 2000 --rounds 5 --jobs 2
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


def floor(root: Path) -> int:
    """Read every page and write it back atomically (temp, fsync, replace)."""
    folder = root / "aiwiki" / "sessions"
    n = 0
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".md") or name.startswith("."):
            continue
        path = folder / name
        with open(path, "rb") as fh:
            data = fh.read()
        tmp = folder / f".{name}.tmp"
        with open(tmp, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
        n += 1
    return n


def run_sessionkit(root: Path, jobs: int) -> int:
    """``sessionkit.migrate`` over the wiki; checks every page was migrated."""
    import sessionkit

    report = sessionkit.migrate(root, jobs=jobs)
    counts = report.counts()
    if not report.ok or counts["current"]:
        raise SystemExit(f"unexpected migration result: {counts}")
    return counts["migrated"]


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print the table."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", type=int, default=10_000, help="number of v1 pages")
    ap.add_argument("--rounds", type=int, default=3, help="alternating rounds")
    ap.add_argument("--jobs", type=int, default=1, help="sessionkit worker processes")
    ap.add_argument("--dir", help="work folder (default: a temporary folder)")
    args = ap.parse_args(argv)

    base = Path(args.dir) if args.dir else Path(tempfile.mkdtemp(prefix="sk-bench-migrate-"))
    pristine = base / "pristine"
    write_corpus(pristine, "v1", args.size)
    size = sum(p.stat().st_size for p in (pristine / "aiwiki" / "sessions").iterdir())
    print(
        f"migrate benchmark: {args.size} aiwiki v1 pages ({size / args.size / 1024:.1f} KB avg), "
        f"{args.rounds} rounds, sessionkit --jobs {args.jobs}, python {sys.version.split()[0]}"
    )
    rates: dict[str, list[float]] = {"sessionkit": [], "floor": []}
    try:
        for rnd in range(1, args.rounds + 1):
            order = ("sessionkit", "floor") if rnd % 2 else ("floor", "sessionkit")
            for name in order:
                work = base / f"work-{name}"
                shutil.rmtree(work, ignore_errors=True)
                shutil.copytree(pristine, work)
                os.sync()
                start = time.perf_counter()
                n = run_sessionkit(work, args.jobs) if name == "sessionkit" else floor(work)
                elapsed = time.perf_counter() - start
                if n != args.size:
                    raise SystemExit(f"{name} handled {n} of {args.size} pages")
                rates[name].append(n / elapsed)
                print(f"  round {rnd}  {name:<10}  {elapsed:7.2f} s  {n / elapsed:9.0f} files/s")
    finally:
        if not args.dir:
            shutil.rmtree(base, ignore_errors=True)
    sk = statistics.median(rates["sessionkit"])
    fl = statistics.median(rates["floor"])
    print(f"median sessionkit migrate: {sk:9.0f} files/s")
    print(f"median read+write floor:   {fl:9.0f} files/s")
    print(f"ratio (floor / sessionkit): {fl / sk:.2f}x  (target: <= 3x)")
    print(f"peak RSS: {peak_rss_mb():.0f} MB")
    return 0 if fl / sk <= 3 else 1


if __name__ == "__main__":
    raise SystemExit(main())
