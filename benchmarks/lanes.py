"""Benchmark: what each fast lane saves the command it serves, timed as whole processes.

A fast lane earns its place when the command a user runs is slower without
it.  For each command below, a probe run (one process, ``--jobs 1``, the
lanes' counters printed at its exit) names the lanes that answer in it; then
the command runs with every lane on and with each of those lanes off alone
(``SESSIONKIT_FAST_PATHS=-lane``, see :mod:`sessionkit._fastpaths`), all in
turns (the order rotating), for several rounds.  The table gives, for each
lane, the median time with it off over the median with all on: 1.00x means
the lane saves that command nothing measurable.

Commands (corpora from ``benchmarks/_corpus.py``, cached with ``cli.py``'s):

* ``lint DIR --jobs 1`` on the mix corpus;
* ``ls DIR`` (default ``--jobs``) on the mix corpus;
* ``convert DIR DST --to basic-memory`` on the mix corpus, and the notes it
  wrote converted back ``--to aiwiki``;
* ``migrate DIR`` on v1 pages (a fresh copy before every run);
* ``hook session-start`` and ``hook pre-compact`` in a wiki of clean pages
  (several runs a turn, their median).

    python benchmarks/lanes.py                       # 1,000 pages, 3 rounds
    python benchmarks/lanes.py --size 10000 --rounds 5 --commands lint,ls
    python benchmarks/lanes.py --size 2000 --commands convert --lanes same-note,same-facts+same-note
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

from _corpus import write_cli_corpus
from cli import Bench, Sample, _fresh, _median_run, cli_hook_page, machine, turns, v1_corpus

from sessionkit._fastpaths import LANES

#: a command run in one process that prints the lanes' counters when it ends
#: (atexit)
PROBE = """\
import atexit, json, os, sys
from sessionkit._fastpaths import taken
atexit.register(lambda: os.write(2, ("\\nLANES " + json.dumps(taken()) + "\\n").encode()))
from sessionkit.cli import main
sys.argv = ["sessionkit", *sys.argv[1:]]
sys.exit(main())
"""


class Command:
    """One command a user runs: how to run it, and what to do before each run."""

    def __init__(
        self,
        name: str,
        args: list[str],
        *,
        probe_args: list[str] | None = None,
        prepare: object = None,
        stdin: bytes = b"",
        cwd: Path | None = None,
        runs: int = 1,
    ) -> None:
        self.name, self.args, self.probe_args = name, args, probe_args or args
        self.prepare, self.stdin, self.cwd, self.runs = prepare, stdin, cwd, runs

    def before(self) -> None:
        if self.prepare is not None:
            self.prepare()  # type: ignore[operator]


def probe(bench: Bench, command: Command) -> list[str]:
    """The lanes that answer in one run of ``command`` (in one process)."""
    command.before()
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, *command.probe_args],
        input=command.stdin,
        capture_output=True,
        env=bench.env,
        cwd=command.cwd,
        check=False,
    )
    lines = [ln for ln in proc.stderr.decode().splitlines() if ln.startswith("LANES ")]
    if not lines:
        raise SystemExit(f"{command.name}: the probe printed no lanes: {proc.stderr.decode()}")
    counts: dict[str, int] = json.loads(lines[-1][6:])
    return sorted(lane for lane, n in counts.items() if n)


def run_with(bench: Bench, command: Command, off: str | None) -> Sample:
    """One turn of ``command`` with the lanes ``off`` (names joined by ``+``) turned
    off (``None``: all on)."""
    env = dict(bench.env)
    saved = bench.env
    if off is not None:
        env["SESSIONKIT_FAST_PATHS"] = ",".join(f"-{lane}" for lane in off.split("+"))
    bench.env = env
    try:
        times = []
        for _ in range(command.runs):
            command.before()
            times.append(
                bench.run([*bench.sk, *command.args], stdin=command.stdin, cwd=command.cwd)
            )
    finally:
        bench.env = saved
    return _median_run(times)


def commands(bench: Bench, base: Path, size: int, which: set[str]) -> list[Command]:
    found = []
    mix = base / f"mix-{size}"
    write_cli_corpus(mix, "mix", size)
    if "lint" in which:
        found.append(
            Command(
                "lint --jobs 1 (mix)",
                ["lint", "--jobs", "1", str(mix)],
            )
        )
    if "ls" in which:
        found.append(
            Command("ls (mix)", ["ls", str(mix)], probe_args=["ls", "--jobs", "1", str(mix)])
        )
    if "convert" in which:
        dst = base / f"lanes-bm-{size}"
        back = base / f"lanes-back-{size}"
        # the notes converted back: made once, outside every timing
        made = base / f"lanes-bm-source-{size}"
        if not (made / ".complete").exists():
            _fresh(made)
            subprocess.run(
                [*bench.sk, "convert", str(mix), str(made), "--to", "basic-memory"],
                env=bench.env,
                check=True,
                capture_output=True,
            )
            (made / ".complete").write_text("")
        for title, src, out, to in (
            ("convert --to basic-memory (mix)", mix, dst, "basic-memory"),
            ("convert --to aiwiki (the notes it wrote)", made, back, "aiwiki"),
        ):
            args = ["convert", str(src), str(out), "--to", to]
            found.append(
                Command(
                    title,
                    args,
                    probe_args=[*args, "--jobs", "1"],
                    prepare=lambda out=out: _fresh(out),
                )
            )
    if "migrate" in which:
        pristine = v1_corpus(base, size)
        work = base / f"lanes-migrate-{size}"

        def fresh_copy() -> None:
            _fresh(work)
            shutil.copytree(pristine, work)
            os.sync()

        found.append(
            Command(
                "migrate (v1)",
                ["migrate", str(work)],
                probe_args=["migrate", str(work), "--jobs", "1"],
                prepare=fresh_copy,
            )
        )
    if "hooks" in which:
        root = base / f"hooks-clean-{size}"
        write_cli_corpus(root, "clean", size)
        sessions = root / "aiwiki" / "sessions"
        newest = max(os.listdir(sessions))
        page = next(d for n, d in map(cli_hook_page, range(size)) if n == newest)
        text = page.decode("utf-8-sig")
        sid = next(ln.split(": ", 1)[1] for ln in text.splitlines() if ln.startswith("session_"))
        common = {"session_id": sid, "transcript_path": str(root / "t.jsonl"), "cwd": str(root)}
        start = {**common, "hook_event_name": "SessionStart", "source": "startup"}
        pre = {**common, "hook_event_name": "PreCompact", "trigger": "auto"}
        pre["custom_instructions"] = ""

        def restore() -> None:  # pre-compact appends: every run starts from the same page
            (sessions / newest).write_bytes(page)

        for event, payload in (("session-start", start), ("pre-compact", pre)):
            found.append(
                Command(
                    f"hook {event} ({size:,} pages)",
                    ["hook", event],
                    prepare=restore,
                    stdin=json.dumps(payload).encode(),
                    cwd=root,
                    runs=9,
                )
            )
    return found


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", type=int, default=1000, help="pages (1,000)")
    ap.add_argument("--rounds", type=int, default=3, help="rounds of turns (3)")
    ap.add_argument(
        "--commands", default="lint,convert,migrate,hooks", help="lint,ls,convert,migrate,hooks"
    )
    ap.add_argument(
        "--base",
        default=os.path.join(tempfile.gettempdir(), "sessionkit-bench-cli"),
        help="corpus cache folder (shared with cli.py)",
    )
    ap.add_argument(
        "--lanes",
        help="the lanes to turn off, one variant each, a group joined by '+' turned off "
        "together (default: each lane that answers in the command, alone)",
    )
    args = ap.parse_args(argv)
    wanted = None if args.lanes is None else args.lanes.split(",")
    for group in wanted or ():
        unknown = set(group.split("+")) - set(LANES)
        if unknown:
            ap.error(f"no such lane: {', '.join(sorted(unknown))} (see sessionkit._fastpaths)")
    base = Path(args.base)
    base.mkdir(parents=True, exist_ok=True)
    bench = Bench(base)
    began = time.perf_counter()
    print(f"lanes benchmark: {machine()}; {args.size:,} pages, {args.rounds} rounds", flush=True)
    table = []
    for command in commands(bench, base, args.size, set(args.commands.split(","))):
        answer = probe(bench, command)
        print(f"{command.name}: lanes that answer: {', '.join(answer) or 'none'}", flush=True)
        lanes = answer
        if wanted is not None:  # (the groups with a lane that answers here)
            lanes = [g for g in wanted if set(g.split("+")) & set(answer)]
        runs = {"all on": lambda c=command: run_with(bench, c, None)}
        for lane in lanes:
            runs[f"-{lane}"] = lambda c=command, lane=lane: run_with(bench, c, lane)
        run_with(bench, command, None)  # warm: bytecode, page cache
        got = turns(command.name, args.rounds, runs)
        on = statistics.median(s[0] for s in got["all on"])
        for lane in lanes:
            off = statistics.median(s[0] for s in got[f"-{lane}"])
            rounds = " ".join(
                f"{o[0] / a[0]:.2f}" for o, a in zip(got[f"-{lane}"], got["all on"], strict=True)
            )
            table.append(
                f"| {command.name} | {lane} | {on * 1000:,.0f} ms | {off * 1000:,.0f} ms | "
                f"**{off / on:.2f}x** ({rounds}) |"
            )
    print(
        f"\n{time.perf_counter() - began:.0f} s; load average at the end "
        f"{' '.join(f'{x:.1f}' for x in os.getloadavg())}\n"
    )
    print("| command | lane off | all lanes on | that lane off | off / on (per round) |")
    print("|---|---|---|---|---|")
    print("\n".join(table))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
