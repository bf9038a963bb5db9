"""Benchmark: read N notes from an S3 server, batched (``read_many``) vs one by one.

Starts moto's S3 server on 127.0.0.1 (``sessionkit.testing.s3``) in its own
process (``--in-process`` to share this one and count requests), uploads N
aiwiki v2 pages (``benchmarks/_corpus.py``, deterministic; uploads are not
timed), then alternates for several rounds:

* **batched**: ``store.read_many(store.keys())`` — one listing, then one
  ``fs.cat`` on the whole list; s3fs runs the GETs concurrently;
* **one by one**: ``store.keys()`` then ``store.read_text(key)`` per key.

Prints notes/s per round, the medians and the ratio (with ``--in-process``
also the requests the server saw per round: both ways are N GETs plus one
listing; batching saves waiting, not requests).  Loopback has no round-trip
time and moto is CPU-bound, so each request is delayed by ``--latency`` ms (default 20, a
typical cloud round trip) to show what overlapping requests buys; with
``--latency 0`` both ways are bound by moto's speed and the ratio is near 1.

    python benchmarks/remote.py                 # 1,000 notes, 3 rounds, 20 ms
    python benchmarks/remote.py --size 200 --rounds 2 --latency 0
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _corpus import aiwiki_v2_page

import sessionkit
from sessionkit.testing.s3 import MotoS3, moto_s3

_SERVER = """
import sys
from sessionkit.testing.s3 import MotoS3, moto_s3
with moto_s3(serialize=False, latency=float(sys.argv[1])) as server:
    print(server.endpoint_url, flush=True)
    sys.stdin.read()  # until the parent closes our stdin
"""


@contextlib.contextmanager
def _server_process(latency: float) -> Iterator[dict[str, Any]]:
    """moto in its own process (no GIL shared with the client); yields storage options."""
    proc = subprocess.Popen(
        [sys.executable, "-c", _SERVER, str(latency)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        endpoint = proc.stdout.readline().strip()
        yield {
            "endpoint_url": endpoint,
            "key": "testing",
            "secret": "testing",
            "use_listings_cache": False,
        }
    finally:
        assert proc.stdin is not None
        proc.stdin.close()
        proc.wait(timeout=30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", type=int, default=1000, help="number of notes")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--latency", type=float, default=20.0, help="emulated round trip per request, ms"
    )
    parser.add_argument(
        "--in-process",
        action="store_true",
        help="run moto in this process (shares the GIL, but counts requests)",
    )
    args = parser.parse_args()
    latency = args.latency / 1000

    with contextlib.ExitStack() as stack:
        server: MotoS3 | None = None
        if args.in_process:
            server = stack.enter_context(moto_s3(serialize=False, latency=latency))
            options = server.storage_options
        else:
            options = stack.enter_context(_server_process(latency))
        _run(args.size, args.rounds, args.latency, options, server)


def _run(
    size: int, rounds: int, latency_ms: float, options: dict[str, Any], server: MotoS3 | None
) -> None:
    import s3fs

    fs = s3fs.S3FileSystem(**options)
    fs.mkdir("bench")
    store = sessionkit.open_store("s3://bench/wiki", layout="aiwiki", **options)
    print(
        f"uploading {size} notes to {options['endpoint_url']} "
        f"(emulated round trip {latency_ms:g} ms) …",
        flush=True,
    )
    pages = dict(aiwiki_v2_page(i) for i in range(size))
    fs.pipe({f"bench/wiki/aiwiki/sessions/{name}": text.encode() for name, text in pages.items()})
    assert len(store.keys()) == size

    def requests() -> str:
        return f" ({server.count()} requests)" if server is not None else ""

    batched: list[float] = []
    single: list[float] = []
    for r in range(1, rounds + 1):
        if server is not None:
            server.reset_counts()
        t0 = time.perf_counter()
        got = dict(store.read_many(store.keys()))
        t_batch = time.perf_counter() - t0
        n_batch = requests()
        assert got == pages

        if server is not None:
            server.reset_counts()
        t0 = time.perf_counter()
        listed = store.keys()
        one = {key: store.read_text(key) for key in listed}
        t_single = time.perf_counter() - t0
        n_single = requests()
        assert one == pages

        batched.append(size / t_batch)
        single.append(size / t_single)
        print(
            f"round {r}: batched {batched[-1]:8.0f} notes/s{n_batch}   "
            f"one by one {single[-1]:8.0f} notes/s{n_single}",
            flush=True,
        )

    mb, ms = statistics.median(batched), statistics.median(single)
    print(f"median: batched {mb:.0f} notes/s, one by one {ms:.0f} notes/s")
    print(f"ratio batched / one-by-one: {mb / ms:.2f}x")


if __name__ == "__main__":
    main()
