"""Write the fuzz seed corpus: the test corpora and the small hostile cases.

Usage: ``python fuzz/seed.py DIR``.  Each seed is prefixed with a format byte
(see ``fuzz_loads.py``): every note goes in once per format.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    """Write the seeds into ``sys.argv[1]``."""
    sys.path.insert(0, str(ROOT))
    from tests.hostile.cases import cases

    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    seeds: list[tuple[str, bytes]] = []
    for folder in ("tests/corpus", "tests/golden", "examples"):
        for path in sorted((ROOT / folder).rglob("*.md")):
            seeds.append((path.stem, path.read_bytes()))
    seeds.extend((name, data) for name, data in cases(big=False) if len(data) <= 64 * 1024)
    for n, (name, data) in enumerate(seeds):
        fmt = n % 4
        (out / f"{n:04d}-{fmt}-{name[:40]}").write_bytes(bytes([fmt]) + data)
    print(f"{len(seeds)} seeds in {out}")


if __name__ == "__main__":
    main()
