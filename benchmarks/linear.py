"""Benchmark: every parser's worst cases at 10 KB, 100 KB and 1 MB (linear or not).

The cases are ``tests/hostile/worst.py`` (Basic Memory grammar, Markdown block
nesting, YAML frontmatter, aiwiki lint rules).  For each one this prints the
best of ``--runs`` times of ``sessionkit.loads`` and ``sessionkit.lint`` at each
size (CPU time of this process: the machine may be shared; ``--wall`` for
wall-clock time), and the growth from one size to the next: about 10x is linear, 100x
quadratic.  The baseline is linear growth; the target for the 1 MB lint is
under one second.  A case whose 100 KB run already took over ``--give-up``
seconds is not run at 1 MB (it would take minutes).

    python benchmarks/linear.py                 # every case, 3 runs
    python benchmarks/linear.py --only "bm: one line" --runs 1
    python benchmarks/linear.py --hooks         # plus the hooks on a 200/500 KB '> ' note
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import sessionkit  # noqa: E402
from tests.hostile.worst import CASES, note  # noqa: E402

SIZES = (10_000, 100_000, 1_000_000)
WALL = False  # --wall


def _best(fn: object, text: str, fmt: str, runs: int) -> float:
    """Best CPU time of ``runs`` calls (``--wall``: wall-clock time instead)."""
    clock = time.perf_counter if WALL else time.process_time
    best = float("inf")
    for _ in range(runs):
        start = clock()
        with contextlib.suppress(sessionkit.SessionKitError):
            fn(text, path="x.md", format=fmt)  # type: ignore[operator]
        best = min(best, clock() - start)
    return best


def _cases(only: str | None) -> list[str]:
    return [n for n in CASES if only is None or only in n]


def bench(only: str | None, runs: int, give_up: float) -> int:
    print(f"{'case':44} {'fn':5} " + " ".join(f"{s // 1000:>7} KB" for s in SIZES) + "   growth")
    slow = 0
    for name in _cases(only):
        fmt = CASES[name][0]
        texts = [note(name, size) for size in SIZES]
        for label, fn in (("loads", sessionkit.loads), ("lint", sessionkit.lint)):
            times: list[float | None] = []
            for size, text in zip(SIZES, texts, strict=True):
                if times and times[-1] is not None and times[-1] > give_up:
                    times.append(None)
                    continue
                times.append(_best(fn, text, fmt, runs if size < 1_000_000 else max(1, runs - 1)))
            growth = [
                f"{b / a:5.1f}x" if a and b else "    -" for a, b in itertools.pairwise(times)
            ]
            cells = " ".join("   skipped" if t is None else f"{t * 1000:8.1f}ms" for t in times)
            last = times[-1]
            if label == "lint" and (last is None or last >= 1.0):
                slow += 1
            print(f"{name[:44]:44} {label:5} {cells}   {' '.join(growth)}", flush=True)
    print(f"\n1 MB lint at or over 1 s (or skipped): {slow}")
    return slow


def hooks(sizes: tuple[int, ...] = (200_000, 500_000)) -> None:
    """``hook session-start`` and ``hook pre-compact`` on a Basic Memory note of one '> ' line."""
    script = "import sys; from sessionkit.cli import main; sys.exit(main())"
    for size in sizes:
        with tempfile.TemporaryDirectory() as tmp:
            project = Path(tmp) / "bm"
            (project / "sessions").mkdir(parents=True)
            (project / ".basic-memory").mkdir()
            (project / "sessions" / "session.md").write_text(
                "---\ntitle: Session\ntype: session\nstatus: open\n"
                "claude_session_id: 7e8a3f21-9a4b-4c8d-b1e2-f5a6c7d8e9f0\n---\n\n"
                + "> " * (size // 2)
                + "\n",
                encoding="utf-8",
            )
            payload = json.dumps(
                {"session_id": "7e8a3f21-9a4b-4c8d-b1e2-f5a6c7d8e9f0", "cwd": tmp}
            ).encode()
            env = {k: v for k, v in os.environ.items() if not k.startswith("SESSIONKIT_")}
            env.update(HOME=tmp, XDG_CONFIG_HOME=tmp, SESSIONKIT_HOOK_DEADLINE_MS="600000")
            for event in ("session-start", "pre-compact"):
                start = time.perf_counter()
                before = os.times()
                proc = subprocess.run(
                    [sys.executable, "-c", script, "hook", event, "--store", f"bm://{project}"],
                    input=payload,
                    capture_output=True,
                    env=env,
                    cwd=tmp,
                    timeout=900,
                )
                took = time.perf_counter() - start
                after = os.times()
                cpu = (after.children_user - before.children_user) + (
                    after.children_system - before.children_system
                )
                said = proc.stderr.decode().strip()[:100]
                print(
                    f"hook {event:13} on one {size // 1000} KB line of '> ': "
                    f"{took:6.2f} s wall, {cpu:5.2f} s CPU {said}"
                )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="only cases whose name contains this")
    parser.add_argument("--runs", type=int, default=3, help="best of this many (1 MB: one fewer)")
    parser.add_argument("--give-up", type=float, default=5.0, help="skip 1 MB after this (s)")
    parser.add_argument("--hooks", action="store_true", help="also time the hooks")
    parser.add_argument("--wall", action="store_true", help="wall-clock times, not CPU times")
    args = parser.parse_args()
    global WALL
    WALL = args.wall
    print(f"{'wall-clock' if WALL else 'CPU'} times; load average {os.getloadavg()[0]:.1f}")
    bench(args.only, args.runs, args.give_up)
    if args.hooks:
        hooks()


if __name__ == "__main__":
    main()
