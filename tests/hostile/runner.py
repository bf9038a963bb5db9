"""Run hostile cases through ``loads`` and ``lint`` under memory and CPU limits.

Usage: ``python -m tests.hostile.runner MAX_BYTES FORMATS CASE...`` (``FORMATS``
comma-separated, ``-`` for "detect"; ``MAX_BYTES`` ``0`` for the default).
Prints one JSON object per call (with its CPU seconds), then ``{"maxrss_mb": ...}``.
The address space is capped at :data:`AS_LIMIT` and the CPU time at :data:`CPU_LIMIT`
first, so a runaway input ends this process, not the test machine.
"""

from __future__ import annotations

import json
import resource
import sys
import time

AS_LIMIT = 2 * 1024**3
CPU_LIMIT = 600


def main() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (AS_LIMIT, AS_LIMIT))
    resource.setrlimit(resource.RLIMIT_CPU, (CPU_LIMIT, CPU_LIMIT))
    import sessionkit
    from sessionkit import decode
    from sessionkit.errors import SessionKitError
    from tests.hostile.cases import build

    max_bytes = int(sys.argv[1]) or None
    formats = [None if f == "-" else f for f in sys.argv[2].split(",")]
    for name in sys.argv[3:]:
        data = build(name)
        path = f"aiwiki/sessions/{name}.md"
        for fmt in formats:
            for fn in ("loads", "lint"):
                row: dict[str, object] = {"case": name, "format": fmt, "fn": fn}
                start = time.process_time()
                try:
                    text = decode(data, path)
                    if fn == "loads":
                        sessionkit.loads(text, path=path, format=fmt, max_bytes=max_bytes)
                        row["outcome"] = "ok"
                    else:
                        found = sessionkit.lint(text, path=path, format=fmt, max_bytes=max_bytes)
                        row["outcome"] = "ok"
                        row["diagnostics"] = len(found)
                        row["bad_diagnostics"] = sum(
                            1 for d in found if not isinstance(d, sessionkit.Diagnostic)
                        )
                except SessionKitError as exc:
                    row.update(
                        outcome="error",
                        type=type(exc).__name__,
                        path=exc.path,
                        line=exc.line,
                        message=exc.message[:200],
                    )
                except BaseException as exc:  # the thing this runner looks for
                    row.update(outcome="crash", type=type(exc).__name__, message=str(exc)[:300])
                row["seconds"] = round(time.process_time() - start, 3)  # CPU time: load-proof
                print(json.dumps(row), flush=True)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"maxrss_mb": round(rss, 1)}), flush=True)


if __name__ == "__main__":
    main()
