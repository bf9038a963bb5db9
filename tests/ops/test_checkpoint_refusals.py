"""Pages the pre-compact hook must not write, and says why: one reached through a notes
folder that is a symbolic link leading outside the wiki, and one over the size limit."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest

from sessionkit.hooks import main
from tests.hook_env import isolated

NAME = "2026-12-02-abcdef0.md"
PAGE = (
    "---\nschema_id: session\nschema_version: 2\nstatus: active\ndate_start: 2026-12-02\n"
    "session_id: abcdef0-1\nfocus: lanes\nlast_commit: ~\n---\n\n## Checkpoints\n\n"
    "### PreCompact at 2026-12-02T08:00:00Z\n\nActive work: none found\n"
)


def _hook(tmp: Path, root: Path) -> tuple[int, str, str]:
    payload = json.dumps({"session_id": "abcdef0-1", "trigger": "auto", "cwd": str(root)})
    out, err = io.StringIO(), io.StringIO()
    stdout, stderr = contextlib.redirect_stdout(out), contextlib.redirect_stderr(err)
    with isolated(tmp, frozen=True), stdout, stderr:
        code = main(["pre-compact"], stdin=io.BytesIO(payload.encode()))
    return code, out.getvalue(), err.getvalue()


def test_a_notes_folder_linked_outside_the_wiki_is_not_written(tmp_path: Path) -> None:
    root = tmp_path / "wiki"
    outside = tmp_path / "outside"
    outside.mkdir(parents=True)
    (outside / NAME).write_text(PAGE, encoding="utf-8")
    (root / "aiwiki").mkdir(parents=True)
    (root / ".git").mkdir()
    (root / "aiwiki" / "sessions").symlink_to(outside, target_is_directory=True)
    code, _, err = _hook(tmp_path, root)
    assert code == 0 and "outside the store root" in err
    assert (outside / NAME).read_text(encoding="utf-8") == PAGE


@pytest.mark.slow
def test_a_page_over_the_size_limit_is_not_written(tmp_path: Path) -> None:
    big = PAGE + "\n## Next steps\n\n" + "- step\n" * (9 * 1024 * 1024 // 7)
    root = tmp_path / "wiki"
    (root / "aiwiki" / "sessions").mkdir(parents=True)
    (root / ".git").mkdir()
    page = root / "aiwiki" / "sessions" / NAME
    page.write_text(big, encoding="utf-8")
    code, _, err = _hook(tmp_path, root)
    assert code == 0 and "over the limit" in err
    assert page.read_text(encoding="utf-8") == big
