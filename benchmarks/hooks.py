"""Benchmark: ``sessionkit hook session-start`` on a large wiki vs ``python3 -c pass``.

Generates a wiki of N v2 session pages (``benchmarks/_corpus.py``,
deterministic; a pre-compact run adds an unconsumed directive to the newest
page), then runs,
alternating, for several rounds:

* **hook**: the installed ``sessionkit hook session-start`` with a SessionStart
  payload on stdin whose ``cwd`` is the wiki (what Claude Code runs on every
  session start);
* **floor**: ``python3 -c pass`` (the interpreter's own start-up).

Each round runs each command ``--runs`` times and keeps the per-run median.
Prints every round, the medians and the ratio (target: at most 3x, issue #47).  The hook's
output is checked once (valid JSON naming the directive).

    python benchmarks/hooks.py                  # 10,000 pages, 5 rounds x 5 runs
    python benchmarks/hooks.py --size 2000 --rounds 3
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _corpus import write_corpus


def _env(home: Path) -> dict[str, str]:
    """The environment of both commands: no sessionkit config; bytecode cached.

    ``PYTHONDONTWRITEBYTECODE`` is dropped and a private ``PYTHONPYCACHEPREFIX``
    set so that, as in an installed package, modules load from cached
    bytecode instead of being compiled on every run (a warm-up run fills it).
    """
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("SESSIONKIT_") and k != "PYTHONDONTWRITEBYTECODE"
    }
    env["HOME"] = str(home)
    env["XDG_CONFIG_HOME"] = str(home / ".config")
    env["PYTHONPYCACHEPREFIX"] = str(home / "pycache")
    return env


def _time(cmd: list[str], stdin: bytes, env: dict[str, str], cwd: Path) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, input=stdin, env=env, cwd=cwd, capture_output=True, check=True)
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=10_000, help="pages in the wiki")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--runs", type=int, default=5, help="runs per command per round")
    parser.add_argument("--dir", type=Path, help="where to build the wiki (default: a temp dir)")
    args = parser.parse_args()

    script = shutil.which("sessionkit")
    if script is None:
        print("the sessionkit console script is not on PATH", file=sys.stderr)
        return 2
    base = args.dir or Path(tempfile.mkdtemp(prefix="sk-hooks-bench-"))
    root = base / "wiki"
    (root / ".git").mkdir(parents=True, exist_ok=True)
    home = base / "home"
    home.mkdir(exist_ok=True)
    t0 = time.perf_counter()
    write_corpus(root, "v2", args.size)
    build = time.perf_counter() - t0
    env = _env(home)
    payload = json.dumps(
        {
            "session_id": "bench000-0000-0000-0000-000000000000",
            "transcript_path": str(base / "t.jsonl"),
            "cwd": str(root),
            "hook_event_name": "SessionStart",
            "source": "startup",
        }
    ).encode()
    hook = [script, "hook", "session-start"]
    floor = [sys.executable, "-c", "pass"]
    # a checkpoint on the newest page (found by its short id): it then carries
    # an unconsumed directive, as after a compaction
    first = subprocess.run(
        [*hook, "--plain"], input=payload, env=env, cwd=root, capture_output=True, check=True
    )
    newest = first.stdout.decode().split(":", 1)[0].rsplit(" ", 1)[-1]
    pre = json.loads(payload)
    pre.update(
        session_id=newest[len("YYYY-MM-DD-") : -len(".md")],
        hook_event_name="PreCompact",
        trigger="auto",
        custom_instructions="",
    )
    subprocess.run(
        [script, "hook", "pre-compact"],
        input=json.dumps(pre).encode(),
        env=env,
        cwd=root,
        capture_output=True,
        check=True,
    )
    for cmd in (floor, hook):  # warm-up: fill the bytecode cache
        subprocess.run(cmd, input=payload, env=env, cwd=root, capture_output=True, check=True)

    out = subprocess.run(hook, input=payload, env=env, cwd=root, capture_output=True, check=True)
    context = json.loads(out.stdout)["hookSpecificOutput"]["additionalContext"]
    print(f"wiki: {args.size} pages under {root} (built in {build:.1f}s)")
    print(f"hook says: {context.splitlines()[0]}")
    print(f"           {len(context.splitlines()) - 1} more line(s)")

    hook_rounds: list[float] = []
    floor_rounds: list[float] = []
    for i in range(args.rounds):
        h: list[float] = []
        f: list[float] = []
        for _ in range(args.runs):
            f.append(_time(floor, b"", env, root))
            h.append(_time(hook, payload, env, root))
        hm, fm = statistics.median(h), statistics.median(f)
        hook_rounds.append(hm)
        floor_rounds.append(fm)
        print(
            f"round {i + 1}: hook {hm * 1000:7.1f} ms   python3 -c pass {fm * 1000:7.1f} ms"
            f"   ratio {hm / fm:4.2f}x"
        )
    hm, fm = statistics.median(hook_rounds), statistics.median(floor_rounds)
    verdict = "ok" if hm / fm <= 3 else "over target"
    print(
        f"median: hook {hm * 1000:.1f} ms, python3 -c pass {fm * 1000:.1f} ms, "
        f"ratio {hm / fm:.2f}x (target <= 3x: {verdict})"
    )
    if args.dir is None:
        shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
