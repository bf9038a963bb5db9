"""Run every fuzz target for a bounded time, seeded with the test corpora.

Usage: ``python fuzz/run.py [--seconds N] [--keep DIR]`` (default 60 s in
total, split evenly between targets).  Prints the executions per target and
exits 1 when a target found a crash (the input is saved under
``fuzz/artifacts/``, ready to become a regression case).
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
TARGETS = sorted(HERE.glob("fuzz_*.py"))


def main() -> int:
    """Seed, run each target, report."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=int, default=60, help="total time for all targets")
    parser.add_argument("--keep", help="corpus folder to keep (default: a temp folder)")
    args = parser.parse_args()
    per = max(5, args.seconds // max(1, len(TARGETS)))
    artifacts = HERE / "artifacts"
    artifacts.mkdir(exist_ok=True)
    failed = []
    total = 0
    with tempfile.TemporaryDirectory() as tmp:
        corpus = Path(args.keep or tmp)
        subprocess.run([sys.executable, str(HERE / "seed.py"), str(corpus)], check=True)
        for target in TARGETS:
            proc = subprocess.run(
                [
                    sys.executable,
                    str(target),
                    str(corpus),
                    f"-max_total_time={per}",
                    "-rss_limit_mb=2048",
                    # a unit is "hung" after 120 s: the slowest legal inputs (56 KB notes of
                    # nested lists) take about 1 s uninstrumented and 13 s under atheris on a
                    # loaded 2-core machine, so 30 s failed CI runs on load, not on a hang
                    "-timeout=120",
                    f"-artifact_prefix={artifacts}/",
                    "-print_final_stats=1",
                ],
                capture_output=True,
                text=True,
            )
            m = re.search(r"Done (\d+) runs", proc.stderr)
            runs = int(m.group(1)) if m else 0
            total += runs
            status = "ok" if proc.returncode == 0 else f"CRASH (exit {proc.returncode})"
            slow = re.search(r"Slowest unit: (\d+) s", proc.stderr)
            slowest = f", slowest unit {slow.group(1)} s" if slow else ""
            print(f"{target.name}: {runs} executions in {per} s{slowest}: {status}")
            if proc.returncode != 0:
                print(proc.stderr[-4000:])
                failed.append(target.name)
    print(f"fuzz: {total} executions, {len(failed)} target(s) crashed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
