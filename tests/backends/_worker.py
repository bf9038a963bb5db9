"""Run as a script: append ``count`` lines to one note through ``update_text``.

Usage: python _worker.py URL KEY WORKER COUNT [JSON_STORAGE_OPTIONS]
Each line is ``w{WORKER}-{i:03d}``; a start gate file (env ``SK_GATE``) makes
all workers begin together.
"""

from __future__ import annotations

import json
import os
import sys
import time


def main() -> None:
    url, key, worker, count = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    options = json.loads(sys.argv[5]) if len(sys.argv) > 5 else {}
    import sessionkit

    store = sessionkit.open_store(url, layout="aiwiki", **options)
    gate = os.environ.get("SK_GATE")
    while gate and not os.path.exists(gate):
        time.sleep(0.01)
    for i in range(count):
        line = f"w{worker}-{i:03d}\n"
        store.update_text(key, lambda text, line=line: (text or "") + line)


if __name__ == "__main__":
    main()
