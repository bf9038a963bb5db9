"""ls prints oldest first from a spool on disk: the same rows and bytes in and out of order."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessionkit.cli import cli

PAGE = """\
---
schema_id: session
schema_version: 2
session_id: {sid}-1111-2222-3333-444455556666
date_start: {date}
status: done
date_end: {date}
focus: focus {n} \u00e9t\u00e9
last_commit: "abc1234"
---

## Next steps

- write the docs
"""


def _ls(root: Path, *args: str) -> str:
    result = CliRunner().invoke(cli, ["ls", *args, str(root)], catch_exceptions=False)
    assert result.exit_code == 0, result.stderr
    return result.stdout_bytes.decode("utf-8")


def _wiki(tmp_path: Path, dates: list[str]) -> Path:
    folder = tmp_path / "wiki" / "aiwiki" / "sessions"
    folder.mkdir(parents=True)
    (tmp_path / "wiki" / ".git").mkdir()
    for n, date in enumerate(dates):
        sid = f"{n:07x}"
        (folder / f"2026-01-01-{sid}.md").write_text(PAGE.format(sid=sid, date=date, n=n))
    return tmp_path / "wiki"


@pytest.mark.parametrize(
    "dates",
    [
        ["2026-01-01", "2026-01-02", "2026-01-03", "2026-01-04"],  # in key order already
        ["2026-03-01", "2026-01-02", "2026-02-03", "2026-01-02", "2025-12-31"],  # not
        ["2026-01-01", "2026-01-05", "2026-01-03", "2026-01-06", "2026-01-02"],  # interleaved
    ],
)
def test_ls_rows_come_oldest_first(tmp_path: Path, dates: list[str]) -> None:
    root = _wiki(tmp_path, dates)
    rows = json.loads(_ls(root, "--json", "--jobs", "1"))
    keys = [f"2026-01-01-{n:07x}.md" for n in range(len(dates))]
    expected = sorted(zip(dates, keys, strict=True))
    assert [(r["date"], r["key"]) for r in rows] == expected
    # the JSON text is json.dumps of that list, as before the spool
    assert _ls(root, "--json") == json.dumps(rows, indent=2, ensure_ascii=False) + "\n"
    plain = _ls(root, "--jobs", "1").splitlines()
    assert [line.split()[0] for line in plain] == [d for d, _ in expected]
    assert [line.split()[3] for line in plain] == [k for _, k in expected]
    assert all(
        line.endswith(f"focus {keys.index(line.split()[3])} \u00e9t\u00e9") for line in plain
    )


def test_ls_of_an_empty_store(tmp_path: Path) -> None:
    root = _wiki(tmp_path, [])
    assert _ls(root, "--json") == "[]\n"
    assert _ls(root) == ""
