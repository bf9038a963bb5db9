"""Run as a script: append ``count`` lines to one note through ``update_text``.

Usage: python _worker.py URL KEY WORKER COUNT [JSON_STORAGE_OPTIONS [MODE]]

MODE ``text`` (default) appends the line ``w{WORKER}-{i:03d}`` with
``update_text``; MODE ``model`` appends a checkpoint ``### Append w3-007 at …``
(the tag in its event name, no body, so 80 entries stay under the schema's
400-line cap) with ``Store.update`` (the aiwiki adapter splices it in),
timestamped one second after the last checkpoint so the log stays in time order.  A start
gate file (env ``SK_GATE``) makes all workers begin together.
"""

from __future__ import annotations

import json
import os
import sys
import time


def main() -> None:
    url, key, worker, count = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    options = json.loads(sys.argv[5]) if len(sys.argv) > 5 else {}
    mode = sys.argv[6] if len(sys.argv) > 6 else "text"
    import sessionkit

    store = sessionkit.open_store(url, layout="aiwiki", **options)
    gate = os.environ.get("SK_GATE")
    while gate and not os.path.exists(gate):
        time.sleep(0.01)
    for i in range(count):
        tag = f"w{worker}-{i:03d}"
        if mode == "model":
            store.update(key, lambda s, tag=tag: _add_checkpoint(s, tag))
        else:
            store.update_text(key, lambda text, tag=tag: (text or "") + tag + "\n")


def _add_checkpoint(session: object, tag: str) -> object:
    from datetime import datetime, timedelta

    import attrs

    from sessionkit import Checkpoint

    last = session.checkpoints[-1].at if session.checkpoints else "2026-05-18T20:00:00Z"  # type: ignore[attr-defined]
    at = datetime.fromisoformat(last.replace("Z", "+00:00")) + timedelta(seconds=1)
    stamp = at.strftime("%Y-%m-%dT%H:%M:%SZ")
    entry = Checkpoint(event=f"Append {tag}", at=stamp)
    return attrs.evolve(session, checkpoints=(*session.checkpoints, entry))  # type: ignore[attr-defined]


if __name__ == "__main__":
    main()
