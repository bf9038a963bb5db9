"""Benchmark: read N Basic Memory session notes into the model vs Basic Memory's own parser.

Generates N Basic Memory session notes (``benchmarks/_corpus.py``,
deterministic, in the plugin's style, ~2 KB), then alternates for several
rounds:

* **sessionkit** (this process): read each file, ``sessionkit.loads`` (format
  detection, strict frontmatter, the observation/relation grammar, the
  :class:`~sessionkit.model.Session`);
* **basic-memory** (a subprocess in a Python 3.12 venv with basic-memory:
  ``$SK_BM_PYTHON``, else ``/tmp/bmvenv``, else ``nox -s interop``'s): read each
  file, ``EntityParser.parse_markdown_content`` (python-frontmatter,
  markdown-it with Basic Memory's observation and relation plugins, its
  pydantic models), timed inside the subprocess so start-up is not counted.

Before timing, both sides' observations (category, content, tags, context)
and relations (type, target, context) are compared for every note; any
difference is printed and fails the run.  Prints notes/s per round, medians
and the ratio (target: sessionkit >= 10x).

    python benchmarks/bm_read.py                  # 2,000 notes, 3 rounds
    python benchmarks/bm_read.py --size 20000     # the target run
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _corpus import write_corpus

# Runs inside the basic-memory venv: ``python -c CHILD MODE LISTFILE``.
CHILD = r"""
import asyncio, json, sys, time
from pathlib import Path
from basic_memory.markdown.entity_parser import EntityParser

mode, listfile = sys.argv[1], sys.argv[2]
paths = [Path(p) for p in Path(listfile).read_text(encoding="utf-8").splitlines()]
parser = EntityParser(paths[0].parent)

async def read_all(limit=None):
    out = []
    for p in paths[:limit]:
        text = p.read_text(encoding="utf-8")
        out.append(await parser.parse_markdown_content(p, text))
    return out

async def timed():
    await read_all(100)  # warm: imports, caches
    start = time.perf_counter()
    await read_all()
    return time.perf_counter() - start

if mode == "time":
    print(json.dumps({"seconds": asyncio.run(timed())}))
else:
    notes = asyncio.run(read_all())
    print(json.dumps([
        {
            "observations": [
                {"category": o.category, "content": o.content, "tags": list(o.tags or []),
                 "context": o.context}
                for o in n.observations
            ],
            "relations": [
                {"type": r.type, "target": r.target, "context": r.context} for r in n.relations
            ],
        }
        for n in notes
    ]))
"""


def bm_python() -> str | None:
    """The interpreter of the basic-memory venv, if there is one."""
    nox_venv = Path(__file__).resolve().parent.parent / ".nox" / "interop" / "bin" / "python"
    for candidate in (os.environ.get("SK_BM_PYTHON"), "/tmp/bmvenv/bin/python", str(nox_venv)):
        if candidate and os.path.exists(candidate):
            return candidate
    return None


def run_child(python: str, mode: str, listfile: Path) -> object:
    done = subprocess.run(
        [python, "-c", CHILD, mode, str(listfile)],
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(done.stdout)


def run_sessionkit(paths: list[str]) -> int:
    """Read every note into a Session; returns the number of observations kept."""
    from sessionkit import loads

    kept = 0
    for p in paths:
        with open(p, "rb") as fh:
            text = fh.read().decode("utf-8")
        session = loads(text, path=p)
        kept += len(session.decisions) + len(session.next_steps) + len(session.observations)
    return kept


def sessionkit_facts(paths: list[str]) -> list[dict[str, object]]:
    """What sessionkit extracts from each note, in Basic Memory's shape."""
    from sessionkit import loads
    from sessionkit.adapters.basic_memory import bm_view

    out = []
    for p in paths:
        with open(p, encoding="utf-8") as fh:
            session = loads(fh.read(), path=p)
        assert session.origin is not None
        facts = bm_view(session.origin.document).facts
        out.append(
            {
                "observations": [
                    {
                        "category": o.category,
                        "content": o.content,
                        "tags": list(o.tags),
                        "context": o.context,
                    }
                    for o in facts.observations
                ],
                "relations": [
                    {"type": r.type, "target": r.target, "context": r.context}
                    for r in facts.relations
                ],
            }
        )
    return out


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print the table."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", type=int, default=2000, help="number of notes")
    ap.add_argument("--rounds", type=int, default=3, help="alternating rounds")
    ap.add_argument(
        "--dir",
        default=os.path.join(tempfile.gettempdir(), "sessionkit-bench"),
        help="corpus cache folder (notes are reused between runs)",
    )
    args = ap.parse_args(argv)
    python = bm_python()
    if python is None:
        print("bm_read benchmark skipped: no basic-memory venv (run nox -s interop first)")
        return 0
    folder = Path(args.dir) / f"bm-{args.size}"
    paths = [str(p) for p in write_corpus(folder, "bm", args.size)]
    listfile = folder / "paths.txt"
    listfile.write_text("\n".join(paths) + "\n", encoding="utf-8")
    version = subprocess.run(
        [python, "-c", "import basic_memory; print(basic_memory.__version__)"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    avg = sum(os.path.getsize(p) for p in paths) / len(paths)
    print(
        f"bm_read benchmark: {args.size} Basic Memory session notes ({avg / 1024:.1f} KB avg), "
        f"{args.rounds} rounds; sessionkit on python {sys.version.split()[0]}, "
        f"basic-memory {version} in {python}"
    )
    theirs = run_child(python, "facts", listfile)
    ours = sessionkit_facts(paths)
    assert isinstance(theirs, list)
    diff = [i for i, (a, b) in enumerate(zip(ours, theirs, strict=True)) if a != b]
    n_obs = sum(len(x["observations"]) for x in theirs)
    n_rel = sum(len(x["relations"]) for x in theirs)
    if diff:
        i = diff[0]
        print(f"  facts DIFFER on {len(diff)} notes; first: {paths[i]}")
        print(f"    sessionkit:   {json.dumps(ours[i])[:400]}")
        print(f"    basic-memory: {json.dumps(theirs[i])[:400]}")
        return 1
    print(f"  facts identical on all {args.size} notes: {n_obs} observations, {n_rel} relations")
    run_sessionkit(paths[:50])  # warm imports
    rates: dict[str, list[float]] = {"sessionkit": [], "basic-memory": []}
    for rnd in range(args.rounds):
        order = ["sessionkit", "basic-memory"]
        if rnd % 2:
            order.reverse()
        for name in order:
            if name == "sessionkit":
                start = time.perf_counter()
                run_sessionkit(paths)
                elapsed = time.perf_counter() - start
            else:
                result = run_child(python, "time", listfile)
                assert isinstance(result, dict)
                elapsed = float(result["seconds"])
            rates[name].append(args.size / elapsed)
            print(
                f"  round {rnd + 1}  {name:<13} {elapsed:7.3f} s"
                f"  {args.size / elapsed:8.0f} notes/s"
            )
    sk = statistics.median(rates["sessionkit"])
    bm = statistics.median(rates["basic-memory"])
    print(f"median sessionkit loads:          {sk:8.0f} notes/s  ({1e6 / sk:7.1f} us/note)")
    print(f"median basic-memory EntityParser: {bm:8.0f} notes/s  ({1e6 / bm:7.1f} us/note)")
    print(f"ratio sessionkit / basic-memory: {sk / bm:.2f}x  (target >= 10x)")
    print(f"targets met: {'yes' if sk / bm >= 10 else 'no'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
