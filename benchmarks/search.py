"""``sessionkit search``: building the index, queries, and the search after an edit.

Whole ``sessionkit`` processes, medians, against ``sessionkit lint --jobs 1`` over the
same notes (the build target) and ``python -c pass`` (subtracted from query times).
The corpus is the bundled example pages verbatim (fenced manifest blocks, consumed and
unconsumed directives, citations, wiki links, v1 pages) and the Basic Memory plugin
notes of ``examples/bm-project``, copied under new names with a few words of their own.

    python benchmarks/search.py --size 10000 [--rounds 5]
"""

from __future__ import annotations

import argparse
import os
import random
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
WORDS = [
    "exporter",
    "retry",
    "budget",
    "backfill",
    "postgres",
    "sqlite",
    "schema",
    "manifest",
    "checkpoint",
    "directive",
    "gotcha",
    "deadline",
    "lock",
    "bucket",
    "listing",
    "fence",
    "citation",
    "tidewater",
    "station",
    "reading",
    "copy",
    "metrics",
    "prometheus",
    "grpc",
    "span",
    "alert",
    "dashboard",
    "rollout",
    "canary",
    "index",
    "cache",
]

QUERIES = [
    ("selective", ["grpc canary"]),
    ("common", ["postgres"]),
    ("two-term AND", ["retry budget"]),
    ("phrase", ['"support-dream skill"']),
    ("prefix", ["backf*"]),
    ("selective + kind", ["grpc canary", "--kind", "next-step"]),
    ("common + since", ["postgres", "--since", "2026-05-15"]),
    ("AND + status", ["retry budget", "--status", "active"]),
    ("unconsumed", ["dream", "--unconsumed"]),
]


def write_corpus(root: Path, n: int) -> None:
    """n notes: the example pages, each copy under its own name with its own words."""
    wiki = root / "aiwiki" / "sessions"
    wiki.mkdir(parents=True, exist_ok=True)
    pages = sorted((EXAMPLES / "wiki" / "aiwiki" / "sessions").glob("20*.md"))
    templates = [p.read_text(encoding="utf-8") for p in pages]
    rng = random.Random(7)
    for i in range(n):
        text = templates[i % len(templates)]
        ident = f"{i:07x}"
        day = f"2026-{1 + i % 12:02d}-{1 + i % 28:02d}"
        text = re.sub(r"^date_start: .*$", f"date_start: {day}", text, count=1, flags=re.M)
        words = " ".join(rng.choice(WORDS) for _ in range(6))
        text = text.rstrip("\n") + f"\n- Follow up on {words} ({i})\n"
        (wiki / f"{day}-{ident}.md").write_text(text, encoding="utf-8")


def run(argv: list[str], env: dict[str, str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--size", type=int, default=2000)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    sk = [sys.executable, "-m", "sessionkit"]
    with tempfile.TemporaryDirectory() as tmp:
        store = Path(tmp) / "wiki"
        write_corpus(store, args.size)
        env = {**os.environ, "SESSIONKIT_CACHE_DIR": str(Path(tmp) / "cache")}
        py = statistics.median(run([sys.executable, "-c", "pass"], env) for _ in range(5))
        lint = statistics.median(
            run([*sk, "lint", "--jobs", "1", str(store)], env) for _ in range(args.rounds)
        )
        builds = []
        for _ in range(args.rounds):
            shutil.rmtree(Path(tmp) / "cache", ignore_errors=True)
            builds.append(run([*sk, "search", "zzzz", str(store)], env))
        build = statistics.median(builds)
        rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        print(f"notes: {args.size}; python -c pass {py * 1000:.0f} ms")
        print(f"lint --jobs 1: {lint:.2f} s; index build: {build:.2f} s ({build / lint:.2f}x lint)")
        print(f"peak RSS of any child: {rss:.0f} MB")
        worst = 0.0
        times = []
        for name, query in QUERIES:
            t = statistics.median(
                run([*sk, "search", *query, str(store)], env) for _ in range(args.rounds)
            )
            times.append(t - py)
            worst = max(worst, t - py)
            print(f"  {name:<18} {(t - py) * 1000:7.0f} ms")
        print(f"query median {statistics.median(times) * 1000:.0f} ms, worst {worst * 1000:.0f} ms")
        page = next((store / "aiwiki" / "sessions").glob("*.md"))
        steady = statistics.median(
            run([*sk, "search", "grpc", str(store)], env) for _ in range(args.rounds)
        )
        edited = []
        for k in range(args.rounds):
            with page.open("a", encoding="utf-8") as f:
                f.write(f"- walrus {k}\n")
            edited.append(run([*sk, "search", "grpc", str(store)], env))
        print(
            f"search after editing one note: +{(statistics.median(edited) - steady) * 1000:.0f} ms"
        )


if __name__ == "__main__":
    main()
