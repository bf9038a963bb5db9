"""convert's default is every core, as for the other bulk commands (and as --help says)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "tests" / "corpus" / "aiwiki-v2" / "2026-05-18-7e8a3f2.md"

CODE = """
import os
import sys
import sessionkit
os.sched_getaffinity = lambda pid: {{0, 1}}  # two cores, the same on a 1-core runner
report = sessionkit.convert(sys.argv[1], sys.argv[2], to="basic-memory", project="p"{jobs})
print(len(report.created), "concurrent.futures.process" in sys.modules)
"""


def _wiki(tmp_path: Path, n: int) -> Path:
    folder = tmp_path / "wiki" / "aiwiki" / "sessions"
    folder.mkdir(parents=True)
    text = PAGE.read_text(encoding="utf-8")
    for i in range(n):  # n sessions: each its own id and date
        own = text.replace("7e8a3f2-9a4b", f"{i:07x}-9a4b").replace(
            "2026-05-18", f"2026-01-{i % 28 + 1:02d}"
        )
        (folder / f"2026-01-{i % 28 + 1:02d}-{i:07x}.md").write_text(own, encoding="utf-8")
    return tmp_path / "wiki"


@pytest.mark.parametrize(
    ("notes", "jobs", "pool"),
    [(70, "", True), (10, "", False), (70, ", jobs=1", False), (70, ", jobs=2", True)],
)
def test_default_jobs_use_a_pool_for_bulk_runs(
    tmp_path: Path, notes: int, jobs: str, pool: bool
) -> None:
    wiki = _wiki(tmp_path, notes)
    out = subprocess.run(
        [sys.executable, "-c", CODE.format(jobs=jobs), str(wiki), str(tmp_path / "bm")],
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.split() == [str(notes), str(pool)]
