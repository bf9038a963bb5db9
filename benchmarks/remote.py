"""Benchmark: read N notes from an S3 server, batched (``read_many``) vs one by one.

Starts moto's S3 server on 127.0.0.1 (``sessionkit.testing.s3``), uploads N
aiwiki v2 pages (``benchmarks/_corpus.py``, deterministic; uploads are not
timed), then alternates for several rounds:

* **batched**: ``store.read_many(store.keys())`` — one listing, then one
  ``fs.cat`` on the whole list; s3fs runs the GETs concurrently;
* **one by one**: ``store.keys()`` then ``store.read_text(key)`` per key.

Prints notes/s per round, the medians, the ratio, and the requests the server
saw per round (both are N GETs plus one listing: batching saves waiting, not
requests).  Loopback has no round-trip time and moto is CPU-bound in this
very process, so each request is delayed by ``--latency`` ms (default 20, a
typical cloud round trip) to show what overlapping requests buys; with
``--latency 0`` both ways are bound by moto's speed and the ratio is near 1.

    python benchmarks/remote.py                 # 1,000 notes, 3 rounds, 20 ms
    python benchmarks/remote.py --size 200 --rounds 2 --latency 0
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _corpus import aiwiki_v2_page

import sessionkit
from sessionkit.testing.s3 import moto_s3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", type=int, default=1000, help="number of notes")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--latency", type=float, default=20.0, help="emulated round trip per request, ms"
    )
    args = parser.parse_args()

    # requests may overlap (no serialising); each waits --latency like a network round trip
    with moto_s3(serialize=False, latency=args.latency / 1000) as server:
        url = server.make_bucket("bench") + "/wiki"
        store = sessionkit.open_store(url, layout="aiwiki", **server.storage_options)
        fs = store.storage.fs  # type: ignore[attr-defined]
        root = store.storage.root  # type: ignore[attr-defined]
        print(
            f"uploading {args.size} notes to {server.endpoint_url} "
            f"(emulated round trip {args.latency:g} ms) …",
            flush=True,
        )
        pages = dict(aiwiki_v2_page(i) for i in range(args.size))
        fs.pipe({f"{root}/aiwiki/sessions/{name}": text.encode() for name, text in pages.items()})
        assert len(store.keys()) == args.size

        batched: list[float] = []
        single: list[float] = []
        for r in range(1, args.rounds + 1):
            server.reset_counts()
            t0 = time.perf_counter()
            got = dict(store.read_many(store.keys()))
            t_batch = time.perf_counter() - t0
            n_batch = server.count()
            assert got == pages

            server.reset_counts()
            t0 = time.perf_counter()
            listed = store.keys()
            one = {key: store.read_text(key) for key in listed}
            t_single = time.perf_counter() - t0
            n_single = server.count()
            assert one == pages

            batched.append(args.size / t_batch)
            single.append(args.size / t_single)
            print(
                f"round {r}: batched {batched[-1]:8.0f} notes/s ({n_batch} requests)   "
                f"one by one {single[-1]:8.0f} notes/s ({n_single} requests)",
                flush=True,
            )

        mb, ms = statistics.median(batched), statistics.median(single)
        print(f"median: batched {mb:.0f} notes/s, one by one {ms:.0f} notes/s")
        print(f"ratio batched / one-by-one: {mb / ms:.2f}x")


if __name__ == "__main__":
    main()
