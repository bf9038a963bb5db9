"""Run every benchmark in ``benchmarks/`` (lint, bm_read, migrate, convert, hooks, remote, …).

Each ``benchmarks/<name>.py`` (not ``_*.py``, not this file) runs in its own
subprocess with ``--size`` (default: a small 1,000) and, when given,
``--rounds``; its output is printed as it comes.  Exit code 1 when a script
fails to run (a missed target is printed by the script, not an error here).

    python benchmarks/run_all.py                   # small: 1,000 items each
    python benchmarks/run_all.py --size 20000      # the target runs
    python benchmarks/run_all.py --only lint,bm_read
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
#: the order they run in; any other script found runs after these
ORDER = ["cli", "lint", "bm_read", "migrate", "convert", "hooks", "remote"]


def scripts() -> list[str]:
    """Names of the benchmark scripts, in run order."""
    found = sorted(p.stem for p in HERE.glob("*.py") if not p.name.startswith("_"))
    found = [n for n in found if n != "run_all"]
    return [n for n in ORDER if n in found] + [n for n in found if n not in ORDER]


def main(argv: list[str] | None = None) -> int:
    """Run the scripts one after another; returns 1 if any of them failed."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", type=int, default=1000, help="items per benchmark (1,000)")
    ap.add_argument("--rounds", type=int, help="alternating rounds (each script's default)")
    ap.add_argument("--only", help="comma-separated script names (default: all)")
    args = ap.parse_args(argv)
    names = scripts()
    if args.only:
        wanted = [n.strip() for n in args.only.split(",") if n.strip()]
        unknown = [n for n in wanted if n not in names]
        if unknown:
            ap.error(f"no benchmark named {', '.join(unknown)}; have {', '.join(names)}")
        names = [n for n in names if n in wanted]
    failed: list[str] = []
    for name in names:
        cmd = [sys.executable, str(HERE / f"{name}.py"), "--size", str(args.size)]
        if args.rounds is not None:
            cmd += ["--rounds", str(args.rounds)]
        print(f"\n=== {name}: {' '.join(cmd[1:])}", flush=True)
        start = time.perf_counter()
        code = subprocess.call(cmd)
        print(f"=== {name}: exit {code} after {time.perf_counter() - start:.0f} s", flush=True)
        if code not in (0, 1):  # 1 is a missed target in some scripts
            failed.append(name)
    if failed:
        print(f"\nbenchmarks that failed to run: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
