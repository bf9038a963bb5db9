"""Benchmark: full lint of N aiwiki v2 pages vs python-frontmatter's load alone.

Generates N v2 session pages (``benchmarks/_corpus.py``, deterministic, ~2.5 KB
with checkpoints, directives and citations) in a folder, then in the same
process, for several rounds, times three passes over all of them.  The
``--jobs 1`` pass and python-frontmatter's take turns slice by slice
(``--slice`` pages, the first of each pair alternating), so that both meet the
same moments of a shared machine, whose speed can drift by a third within a
minute; the ``--jobs 2`` pass runs whole, first or last in turn:

* **sessionkit, 1 job**: ``sessionkit.ops.lint.lint_many`` over the files with
  ``jobs=1`` (what ``sessionkit lint DIR --jobs 1`` does: read, decode, detect
  the format, every AW rule);
* **sessionkit, 2 jobs**: the same with ``jobs=2`` (process pool, ordered);
* **python-frontmatter**: read and decode each file, ``frontmatter.loads``
  (its YAML handler uses PyYAML's C ``CSafeLoader`` when libyaml is built in,
  which it is here); it only splits and loads the YAML.

Prints pages/s per round, medians and the ratios (targets: lint 1 job >= 2x
python-frontmatter; 2 jobs >= 1.7x 1 job).  Then the peak RSS of
``sessionkit lint DIR --jobs 1`` over 10,000 and 100,000 pages, each measured
in its own subprocess (target: < 150 MB at 100k).

    python benchmarks/lint.py                 # 2,000 pages, 5 rounds
    python benchmarks/lint.py --size 20000    # the target run
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _corpus import write_corpus

LIMIT = 8 * 1024 * 1024


def run_sessionkit(paths: list[str], jobs: int) -> int:
    """Lint every page; returns the number of findings (the corpus has none)."""
    from sessionkit.ops.lint import lint_many

    found = 0
    for diags in lint_many((("file", p, None) for p in paths), limit=LIMIT, jobs=jobs):
        found += len(diags)
    return found


def run_frontmatter(paths: list[str]) -> int:
    """Read each page and load it with python-frontmatter; returns the key count."""
    import frontmatter

    keys = 0
    for p in paths:
        with open(p, "rb") as fh:
            text = fh.read().decode("utf-8")
        post = frontmatter.loads(text)
        keys += len(post.metadata)
    return keys


def _timed(run: Any, *args: Any) -> float:
    """Seconds one call of ``run(*args)`` takes."""
    start = time.perf_counter()
    run(*args)
    return time.perf_counter() - start


def rss_child(folder: str) -> int:
    """Run ``sessionkit lint FOLDER --jobs 1`` in a subprocess; its peak RSS in KB."""
    code = "import sys; from sessionkit.cli import main; sys.exit(main(sys.argv))"
    with subprocess.Popen(
        [sys.executable, "-c", code, "lint", "--jobs", "1", folder],
        stdout=subprocess.DEVNULL,
    ) as proc:
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"sessionkit lint exited {proc.returncode}")
    return int(usage.ru_maxrss)


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print the table."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", type=int, default=2000, help="number of v2 pages")
    ap.add_argument("--rounds", type=int, default=5, help="alternating rounds")
    ap.add_argument(
        "--slice",
        type=int,
        default=500,
        help="pages per turn when --jobs 1 and python-frontmatter alternate",
    )
    ap.add_argument(
        "--rss-sizes",
        default="10000,100000",
        help="comma-separated page counts for the peak RSS runs ('' to skip)",
    )
    ap.add_argument(
        "--dir",
        default=os.path.join(tempfile.gettempdir(), "sessionkit-bench"),
        help="corpus cache folder (pages are reused between runs)",
    )
    args = ap.parse_args(argv)
    from importlib.metadata import version

    import frontmatter
    import yaml

    handler = frontmatter.default_handlers.YAMLHandler
    loader = getattr(frontmatter.default_handlers, "SafeLoader", None)
    base = Path(args.dir)
    folder = base / f"lint-v2-{args.size}"
    paths = [str(p) for p in write_corpus(folder, "v2", args.size)]
    avg = sum(os.path.getsize(p) for p in paths) / len(paths)
    print(
        f"lint benchmark: {args.size} aiwiki v2 pages ({avg / 1024:.1f} KB avg), "
        f"{args.rounds} rounds, python {sys.version.split()[0]}, {os.cpu_count()} cores"
    )
    print(
        f"  python-frontmatter {version('python-frontmatter')}: {handler.__name__} loads with "
        f"{getattr(loader, '__name__', loader)} (libyaml {yaml.__with_libyaml__})"
    )
    findings = run_sessionkit(paths[:50], 1)  # warm imports, check the corpus lints clean
    if findings:
        raise SystemExit(f"the corpus should lint clean; {findings} findings")
    names = ["sessionkit --jobs 1", "sessionkit --jobs 2", "python-frontmatter"]
    rates: dict[str, list[float]] = {n: [] for n in names}
    slices = [paths[at : at + args.slice] for at in range(0, len(paths), args.slice)]
    for rnd in range(args.rounds):
        elapsed = dict.fromkeys(names, 0.0)
        if rnd % 2:  # the --jobs 2 pass first in odd rounds, last in even ones
            elapsed["sessionkit --jobs 2"] = _timed(run_sessionkit, paths, 2)
        # --jobs 1 and python-frontmatter slice by slice, in turns, so that both
        # meet the same moments of a shared machine
        for n, part in enumerate(slices):
            pair = [("sessionkit --jobs 1", 1), ("python-frontmatter", 0)]
            for name, jobs in pair if (n + rnd) % 2 == 0 else pair[::-1]:
                if jobs:
                    elapsed[name] += _timed(run_sessionkit, part, jobs)
                else:
                    elapsed[name] += _timed(run_frontmatter, part)
        if not rnd % 2:
            elapsed["sessionkit --jobs 2"] = _timed(run_sessionkit, paths, 2)
        for name in names:
            rates[name].append(args.size / elapsed[name])
            print(
                f"  round {rnd + 1}  {name:<20} {elapsed[name]:7.3f} s"
                f"  {args.size / elapsed[name]:8.0f} pages/s"
            )
    med = {n: statistics.median(v) for n, v in rates.items()}
    for n in names:
        print(f"median {n:<20} {med[n]:8.0f} pages/s  ({1e6 / med[n]:6.1f} us/page)")
    r1 = med["sessionkit --jobs 1"] / med["python-frontmatter"]
    r2 = med["sessionkit --jobs 2"] / med["sessionkit --jobs 1"]
    print(f"ratio lint --jobs 1 / python-frontmatter load: {r1:.2f}x  (target >= 2x)")
    print(f"ratio lint --jobs 2 / lint --jobs 1:           {r2:.2f}x  (target >= 1.7x)")
    ok = r1 >= 2 and r2 >= 1.7
    for size in [int(x) for x in args.rss_sizes.split(",") if x.strip()]:
        rss_folder = base / f"lint-v2-{size}"
        write_corpus(rss_folder, "v2", size)
        kb = rss_child(str(rss_folder))
        print(f"peak RSS, sessionkit lint --jobs 1 over {size:>7} pages: {kb / 1024:6.1f} MB")
        if size >= 100_000 and kb / 1024 >= 150:
            ok = False
    print(f"targets met: {'yes' if ok else 'no'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
