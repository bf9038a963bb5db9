"""Benchmark: the ``sessionkit`` commands people run, as whole processes, against baselines.

Every figure here is a whole process timed from start to finish (interpreter
start, imports, folder walk, reading, output), the way a user or CI meets
it.  Each command and its baseline run in turns (the one and then the other
leading, round by round), for several rounds, and the medians are compared.
The peak RSS of every sessionkit process is measured (``wait4``), the
largest of its rounds is shown.

Commands and their baselines (each baseline a script of its own, run as a
process the same way):

* ``lint DIR --jobs 1`` and ``--jobs 2`` against a python-frontmatter script
  that walks the same folder and runs ``frontmatter.loads`` on every page
  (libyaml's C loader; it only splits and loads the YAML);
* ``ls DIR`` against the same python-frontmatter script;
* ``migrate DIR`` (default options) on v1 pages against a read + write +
  fsync script (read each page, write a temporary file beside it, fsync,
  ``os.replace``), each on a fresh copy made outside the timed region;
* ``convert DIR DST --to basic-memory`` (default options) against the same
  floor writing into a fresh folder; the target is removed and the removal
  flushed (``os.sync``) outside the timed region; on ``mix`` both convert the
  corpus with each example page once (:func:`convert_source`: its copies are
  the same sessions, which convert refuses to map onto one note);
* ``hook session-start`` and ``hook pre-compact`` in a wiki of ``--hook-size``
  pages against ``python -c pass``, without a configuration file and with a
  project one (``.sessionkit.toml``, as hooks pointed at a store have).

Corpora (``benchmarks/_corpus.py``, deterministic): ``clean`` v2 pages;
``finding``, each page with one citation without ``@sha7``; ``mix``, 55% v2,
15% v1, 10% CRLF, 10% BOM, 10% long pages, in a wiki with its own schema page
(a copy of the shipped one, as the aiwiki plugin sets a wiki up).  They are
cached under the temporary folder.

    python benchmarks/cli.py                           # small: 1,000 pages, 3 rounds
    python benchmarks/cli.py --sizes 1000,10000 --rounds 5
    python benchmarks/cli.py --sizes 100000 --commands lint,ls --rounds 3   # by hand
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

from _corpus import CLI_CORPORA, aiwiki_v1_page, cli_page, write_cli_corpus


def machine() -> str:
    """The interpreter, the cores and the load average, for a benchmark's first line."""
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    return f"python {sys.version.split()[0]}, {os.cpu_count()} cores, load average {load}"


def cli_hook_page(i: int) -> tuple[str, bytes]:
    """Page ``i`` of the hooks' wiki (the ``clean`` corpus)."""
    return cli_page("clean", i)


FRONTMATTER_SCRIPT = '''\
"""python-frontmatter over every page of a folder (the lint and ls baseline)."""
import os, sys
import frontmatter

keys = 0
for top, dirs, files in os.walk(sys.argv[1]):
    dirs[:] = sorted(d for d in dirs if not d.startswith("."))
    for name in sorted(files):
        if name.endswith(".md") and name != "INDEX.md":
            with open(os.path.join(top, name), "rb") as fh:
                text = fh.read().decode("utf-8-sig")
            keys += len(frontmatter.loads(text).metadata)
print(keys)
'''

FLOOR_SCRIPT = '''\
"""Read every page under SRC and write it atomically into DST (temp, fsync, replace)."""
import os, sys

src, dst = sys.argv[1], sys.argv[2]
for top, dirs, files in os.walk(src):
    dirs[:] = sorted(d for d in dirs if not d.startswith("."))
    out = os.path.join(dst, os.path.relpath(top, src))
    os.makedirs(out, exist_ok=True)
    for name in sorted(files):
        if not name.endswith(".md") or name.startswith("."):
            continue
        with open(os.path.join(top, name), "rb") as fh:
            data = fh.read()
        tmp = os.path.join(out, "." + name + ".tmp")
        with open(tmp, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, os.path.join(out, name))
    fd = os.open(out, os.O_RDONLY)
    os.fsync(fd)
    os.close(fd)
'''


LAUNCHER = """\
import os, sys, time
out = int(sys.argv[1])
start = time.perf_counter()
pid = os.fork()
if pid == 0:
    try:
        os.close(out)
        os.execvp(sys.argv[2], sys.argv[2:])
    finally:
        os._exit(127)
_, status, usage = os.wait4(pid, 0)
elapsed = time.perf_counter() - start
code = os.waitstatus_to_exitcode(status)
cpu = usage.ru_utime + usage.ru_stime
os.write(out, f"{elapsed} {usage.ru_maxrss} {cpu} {code}".encode())
"""


class Bench:
    """Runs processes in a clean environment and records wall time and peak RSS.

    Each command is started by a small launcher process (:data:`LAUNCHER`),
    which forks it, times it and reads its resource use with ``wait4``: Linux
    counts the RSS a process had when it was forked in its peak RSS, so a
    command started straight from this process (tens of MB after copying or
    removing a 100,000-page corpus) would report at least this process's size.
    """

    def __init__(self, base: Path) -> None:
        self.base = base
        home = base / "home"
        home.mkdir(parents=True, exist_ok=True)
        self.env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith("SESSIONKIT_") and k != "PYTHONDONTWRITEBYTECODE"
        }
        self.env["HOME"] = str(home)
        self.env["XDG_CONFIG_HOME"] = str(home / ".config")
        self.env["PYTHONPYCACHEPREFIX"] = str(base / "pycache")
        sk = shutil.which("sessionkit", path=str(Path(sys.executable).parent))
        self.sk = [sk] if sk else [sys.executable, "-m", "sessionkit.cli"]
        self.fm = base / "frontmatter_baseline.py"
        self.fm.write_text(FRONTMATTER_SCRIPT)
        self.floor = base / "floor_baseline.py"
        self.floor.write_text(FLOOR_SCRIPT)

    def run(
        self,
        cmd: list[str],
        *,
        stdin: bytes = b"",
        cwd: Path | None = None,
        ok: tuple[int, ...] = (0,),
    ) -> tuple[float, float, float]:
        """(seconds, peak RSS in MB, CPU seconds) of one process, output discarded."""
        read, write = os.pipe()
        try:
            with tempfile.TemporaryFile() as err:
                with subprocess.Popen(
                    [sys.executable, "-S", "-c", LAUNCHER, str(write), *cmd],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.DEVNULL,
                    stderr=err,
                    env=self.env,
                    cwd=cwd,
                    pass_fds=(write,),
                ) as proc:
                    os.close(write)
                    write = -1
                    assert proc.stdin is not None
                    proc.stdin.write(stdin)
                    proc.stdin.close()
                    with os.fdopen(read, "rb") as fh:
                        read = -1
                        report = fh.read().decode()
                if proc.returncode != 0 or not report:
                    err.seek(0)
                    raise SystemExit(f"launcher exited {proc.returncode}: {err.read().decode()}")
                elapsed, rss, cpu, code = report.split()
                if int(code) not in ok:
                    err.seek(0)
                    raise SystemExit(
                        f"{' '.join(cmd)} exited {code}: {err.read().decode()[-2000:]}"
                    )
        finally:
            for fd in (read, write):
                if fd >= 0:
                    os.close(fd)
        return float(elapsed), int(rss) / 1024, float(cpu)


Sample = tuple[float, float, float]  # wall seconds, peak RSS MB, CPU seconds


class Row:
    """One line of the table: a sessionkit command against its baseline, round by round."""

    def __init__(self, what: str, size: int, corpus: str, baseline: str, kind: str, target: str):
        self.what, self.size, self.corpus = what, size, corpus
        self.baseline, self.kind, self.target = baseline, kind, target
        self.sk: list[Sample] = []
        self.base: list[Sample] = []

    def add(self, sk: Sample, base: Sample) -> None:
        self.sk.append(sk)
        self.base.append(base)

    def _ratio(self, sk: float, base: float) -> float:
        """``speedup``: baseline / sessionkit; ``floor``: sessionkit / floor."""
        return base / sk if self.kind == "speedup" else sk / base

    def ratio(self, col: int = 0) -> float:
        """The ratio of the medians (col 0: wall time, 2: CPU time)."""
        sk = statistics.median(x[col] for x in self.sk)
        base = statistics.median(x[col] for x in self.base)
        return self._ratio(sk, base)

    def met(self) -> str:
        if not self.target:
            return ""
        op, value = self.target[:2], float(self.target[2:].rstrip("x"))
        r = self.ratio()
        return "yes" if (r >= value if op == ">=" else r <= value) else "NO"

    def line(self) -> str:
        sk = statistics.median(x[0] for x in self.sk)
        base = statistics.median(x[0] for x in self.base)
        rounds = " ".join(
            f"{self._ratio(s[0], b[0]):.2f}" for s, b in zip(self.sk, self.base, strict=True)
        )
        return (
            f"| {self.what} | {self.corpus} | {self.size:,} | {sk * 1000:,.0f} ms | "
            f"{self.baseline} {base * 1000:,.0f} ms | **{self.ratio():.2f}x** ({rounds}) | "
            f"{self.ratio(2):.2f}x | {max(x[1] for x in self.sk):.1f} MB | "
            f"{self.target} | {self.met()} |"
        )


def turns(
    label: str, rounds: int, runs: dict[str, object], prepare: object = None
) -> dict[str, list[Sample]]:
    """Each of ``runs`` once a round, for ``rounds`` rounds, the order rotating each round.

    ``prepare(name)`` runs before each (outside its timing).  Returns each
    run's samples, round by round.
    """
    names = list(runs)
    got: dict[str, list[Sample]] = {n: [] for n in names}
    for rnd in range(rounds):
        order = names[rnd % len(names) :] + names[: rnd % len(names)]
        if rnd % 2:
            order.reverse()
        for name in order:
            if prepare is not None:
                prepare(name)  # type: ignore[operator]
            got[name].append(runs[name]())  # type: ignore[operator]
        print(
            f"  {label:<40} round {rnd + 1}: "
            + "  ".join(
                f"{n} {got[n][-1][0] * 1000:7.0f} ms ({got[n][-1][1]:5.1f} MB)" for n in names
            ),
            flush=True,
        )
    return got


def alternate(
    bench: Bench, row: Row, rounds: int, sk: object, base: object, prepare: object = None
) -> None:
    """``sk()`` against ``base()`` in turns (see :func:`turns`), into ``row``."""
    label = f"{row.what} {row.corpus} {row.size:,}"
    got = turns(label, rounds, {"sessionkit": sk, row.baseline: base}, prepare)
    for a, b in zip(got["sessionkit"], got[row.baseline], strict=True):
        row.add(a, b)


def bench_lint(bench: Bench, root: Path, size: int, corpus: str, rounds: int) -> list[Row]:
    """lint --jobs 1, --jobs 2 and the frontmatter script, all three in turns."""
    cmds = {
        "--jobs 1": [*bench.sk, "lint", "--jobs", "1", str(root)],
        "--jobs 2": [*bench.sk, "lint", "--jobs", "2", str(root)],
        "frontmatter": [sys.executable, str(bench.fm), str(root)],
    }
    # (lint exits 1 on a finding; the script exits 0, else it did not run: no baseline)
    oks = {n: (0,) if n == "frontmatter" else (0, 1) for n in cmds}
    for name, cmd in cmds.items():  # warm: bytecode, page cache
        bench.run(cmd, ok=oks[name])
    runs = {n: (lambda c=c, ok=oks[n]: bench.run(c, ok=ok)) for n, c in cmds.items()}
    got = turns(f"lint {corpus} {size:,}", rounds, runs)
    target = ">=1.5x" if size >= 10_000 else ""  # (issue #47's target, at 10,000 pages)
    rows = [
        Row("lint --jobs 1", size, corpus, "frontmatter", "speedup", target),
        Row("lint --jobs 2", size, corpus, "frontmatter", "speedup", ""),
        Row("lint --jobs 2 over --jobs 1", size, corpus, "--jobs 1", "speedup", ""),
    ]
    pairs = [("--jobs 1", "frontmatter"), ("--jobs 2", "frontmatter"), ("--jobs 2", "--jobs 1")]
    for row, (a, b) in zip(rows, pairs, strict=True):
        for x, y in zip(got[a], got[b], strict=True):
            row.add(x, y)
    return rows


def bench_ls(bench: Bench, root: Path, size: int, corpus: str, rounds: int) -> list[Row]:
    row = Row("ls", size, corpus, "frontmatter", "speedup", "")
    cmd = [*bench.sk, "ls", str(root)]
    base = [sys.executable, str(bench.fm), str(root)]
    bench.run(cmd, ok=(0, 1))
    alternate(bench, row, rounds, lambda: bench.run(cmd, ok=(0, 1)), lambda: bench.run(base))
    return [row]


def _fresh(path: Path) -> None:
    shutil.rmtree(path, ignore_errors=True)
    os.sync()  # ext4's deferred deletion work stays out of the next run's fsyncs


def v1_corpus(base_dir: Path, size: int) -> Path:
    """A wiki of ``size`` v1 pages under ``base_dir`` (made once, then reused)."""
    pristine = base_dir / f"v1-{size}"
    folder = pristine / "aiwiki" / "sessions"
    if not (pristine / ".complete").exists():
        folder.mkdir(parents=True, exist_ok=True)
        (pristine / ".git").mkdir(exist_ok=True)
        for i in range(size):
            name, text = aiwiki_v1_page(i)
            (folder / name).write_text(text, encoding="utf-8")
        (pristine / ".complete").write_text(f"{size}\n")
    return pristine


def bench_migrate(bench: Bench, base_dir: Path, size: int, rounds: int) -> list[Row]:
    pristine = v1_corpus(base_dir, size)
    work = base_dir / f"migrate-work-{size}"
    row = Row("migrate", size, "v1", "floor", "floor", "<=2x" if size >= 10_000 else "")
    sessions = str(work / "aiwiki" / "sessions")

    def prepare(_: str) -> None:
        _fresh(work)
        shutil.copytree(pristine, work)
        os.sync()

    alternate(
        bench,
        row,
        rounds,
        lambda: bench.run([*bench.sk, "migrate", str(work)]),
        lambda: bench.run([sys.executable, str(bench.floor), sessions, sessions]),
        prepare,
    )
    return [row]


def convert_source(root: Path) -> Path:
    """``root`` as a wiki a user converts: each example page once (made once, then reused).

    The ``mix`` corpus copies the example wiki's pages verbatim into folders of their own, so
    the same session appears many times; ``convert`` rightly refuses two pages that map to one
    target note, and a user would drop the copies before converting.  Every other page is the
    corpus's own file (a hard link).
    """
    src = root.parent / f"{root.name}-convert-src"
    if (src / ".complete").exists():
        return src
    shutil.rmtree(src, ignore_errors=True)
    seen: set[str] = set()
    for top, dirs, files in os.walk(root):
        dirs.sort()
        rel = Path(top).relative_to(root)
        for name in sorted(files):
            if name == ".complete":
                continue
            if rel.name.startswith("x") and rel.parent.name == "sessions":
                if name in seen:
                    continue
                seen.add(name)
            (src / rel).mkdir(parents=True, exist_ok=True)
            os.link(Path(top) / name, src / rel / name)
        (src / rel).mkdir(parents=True, exist_ok=True)
    (src / ".complete").write_text("")
    return src


def bench_convert(bench: Bench, root: Path, size: int, corpus: str, rounds: int) -> list[Row]:
    dst = root.parent / f"{root.name}-converted"
    root = convert_source(root)
    row = Row("convert --to basic-memory", size, corpus, "floor", "floor", "")
    if size >= 10_000:
        row.target = "<=2x"
    sessions = str(root / "aiwiki" / "sessions")
    cmd = [*bench.sk, "convert", str(root), str(dst), "--to", "basic-memory", "--project", "b"]
    alternate(
        bench,
        row,
        rounds,
        lambda: bench.run(cmd),
        lambda: bench.run([sys.executable, str(bench.floor), sessions, str(dst)]),
        lambda _: _fresh(dst),
    )
    _fresh(dst)
    return [row]


def _median_run(times: list[Sample]) -> Sample:
    """The median wall and CPU time of several runs, and their largest peak RSS."""
    return (
        statistics.median(t[0] for t in times),
        max(t[1] for t in times),
        statistics.median(t[2] for t in times),
    )


def bench_hooks(bench: Bench, root: Path, size: int, rounds: int, runs: int) -> list[Row]:
    folder = root / "aiwiki" / "sessions"
    newest = max(os.listdir(folder))
    # pre-compact appends to the newest page: each run starts from the page the corpus made
    # (else the page, and both hooks' work, grows from one run of the benchmark to the next)
    pristine = root / ".hooks-page"
    if not pristine.exists():
        pristine.write_bytes(next(d for n, d in map(cli_hook_page, range(size)) if n == newest))
    (folder / newest).write_bytes(pristine.read_bytes())
    text = (folder / newest).read_text(encoding="utf-8-sig")
    sid = next(
        line.split(": ", 1)[1] for line in text.splitlines() if line.startswith("session_id:")
    )
    common = {"session_id": sid, "transcript_path": str(root / "t.jsonl"), "cwd": str(root)}
    start = json.dumps({**common, "hook_event_name": "SessionStart", "source": "startup"})
    pre = json.dumps(
        {**common, "hook_event_name": "PreCompact", "trigger": "auto", "custom_instructions": ""}
    )
    floor = [sys.executable, "-c", "pass"]
    rows = []
    config = root / ".sessionkit.toml"
    for configured in (False, True):
        # (a project configuration file, as hooks pointed at a store or told what to write
        # have one: here it sets two hook keys to their defaults, so the output is the same)
        if configured:
            config.write_text(HOOK_CONFIG)
        elif config.exists():
            config.unlink()
        corpus = "clean, configured" if configured else "clean"
        for event, payload in (("session-start", start), ("pre-compact", pre)):
            cmd = [*bench.sk, "hook", event]
            bench.run(cmd, stdin=payload.encode(), cwd=root)
            row = Row(f"hook {event}", size, corpus, "python -c pass", "floor", "<=3x")

            def sk(cmd: list[str] = cmd, payload: str = payload) -> Sample:
                times = [bench.run(cmd, stdin=payload.encode(), cwd=root) for _ in range(runs)]
                return _median_run(times)

            def base() -> Sample:
                return _median_run([bench.run(floor, cwd=root) for _ in range(runs)])

            alternate(bench, row, rounds, sk, base)
            rows.append(row)
    config.unlink()
    return rows


#: the project configuration file of the configured hook runs
HOOK_CONFIG = '[hooks]\nsession_start_output = "json"\ncontext_budget = 9000\n'


COMMANDS = ("lint", "ls", "migrate", "convert", "hooks")


def main(argv: list[str] | None = None) -> int:
    """Run the chosen commands over the chosen corpora and sizes; print the table."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="1000", help="comma-separated page counts (1000)")
    ap.add_argument("--size", type=int, help="one page count (as run_all.py passes it)")
    ap.add_argument("--rounds", type=int, default=3, help="rounds of turns (3)")
    ap.add_argument("--corpora", default=",".join(CLI_CORPORA), help="clean,finding,mix")
    ap.add_argument("--commands", default=",".join(COMMANDS), help=",".join(COMMANDS))
    ap.add_argument("--hook-size", type=int, help="pages in the hooks' wiki (10,000; --size N: N)")
    ap.add_argument("--hook-runs", type=int, default=5, help="runs of a hook per turn (5)")
    ap.add_argument(
        "--dir",
        default=os.path.join(tempfile.gettempdir(), "sessionkit-bench-cli"),
        help="corpus cache folder",
    )
    args = ap.parse_args(argv)
    sizes = [args.size] if args.size else [int(s) for s in args.sizes.split(",") if s.strip()]
    corpora = [c.strip() for c in args.corpora.split(",") if c.strip()]
    commands = [c.strip() for c in args.commands.split(",") if c.strip()]
    base_dir = Path(args.dir)
    base_dir.mkdir(parents=True, exist_ok=True)
    bench = Bench(base_dir)
    print(
        f"CLI benchmark: {machine()}; sizes {sizes}, corpora {corpora}, {args.rounds} rounds",
        flush=True,
    )
    rows: list[Row] = []
    started = time.perf_counter()
    for size in sizes:
        for corpus in corpora:
            root = base_dir / f"{corpus}-{size}"
            write_cli_corpus(root, corpus, size)
            if "lint" in commands:
                rows += bench_lint(bench, root, size, corpus, args.rounds)
            if "ls" in commands:
                rows += bench_ls(bench, root, size, corpus, args.rounds)
            if "convert" in commands and corpus != "finding":
                rows += bench_convert(bench, root, size, corpus, args.rounds)
        if "migrate" in commands:
            rows += bench_migrate(bench, base_dir, size, args.rounds)
    if "hooks" in commands:
        hook_size = args.hook_size or args.size or 10_000
        root = base_dir / f"hooks-clean-{hook_size}"
        write_cli_corpus(root, "clean", hook_size)
        rows += bench_hooks(bench, root, hook_size, args.rounds, args.hook_runs)
    load = os.getloadavg()
    print(
        f"\n{time.perf_counter() - started:.0f} s; load average at the end "
        f"{load[0]:.1f} {load[1]:.1f} {load[2]:.1f}\n"
    )
    print(
        "| command | corpus | pages | sessionkit | baseline | ratio (per round) "
        "| CPU-time ratio | peak RSS | target | met |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for row in rows:
        print(row.line())
    for row in rows:
        if row.size >= 100_000 and row.what.split()[0] in ("lint", "ls", "migrate", "convert"):
            rss = max(x[1] for x in row.sk)
            print(f"peak RSS {row.what} {row.corpus} {row.size:,}: {rss:.1f} MB (target < 60 MB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
