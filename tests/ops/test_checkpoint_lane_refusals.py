"""What the pre-compact hook's light lane must refuse, as the store's way refuses it.

``tests/ops/test_checkpoint_lane.py`` compares the lane's bytes with the store's
way's; here are the pages neither way may write: one reached through a notes
folder that is a symbolic link leading outside the wiki, and one over the note
size limit.  Each runs the hook with the fast lanes on and off
(:mod:`sessionkit._fastpaths`) and checks that the page is untouched and that the
user is told why, the same way.
"""

from __future__ import annotations

import contextlib
import io
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from sessionkit.hooks import main
from tests import lanes as fastpaths
from tests.hook_env import isolated

NAME = "2026-12-02-abcdef0.md"
PAGE = (
    "---\nschema_id: session\nschema_version: 2\nstatus: active\ndate_start: 2026-12-02\n"
    "session_id: abcdef0-1\nfocus: lanes\nlast_commit: ~\n---\n\n## Checkpoints\n\n"
    "### PreCompact at 2026-12-02T08:00:00Z\n\nActive work: none found\n"
)


def _hook(root: Path) -> tuple[int, str, str]:
    payload = json.dumps({"session_id": "abcdef0-1", "trigger": "auto", "cwd": str(root)})
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["pre-compact"], stdin=io.BytesIO(payload.encode()))
    return code, out.getvalue(), err.getvalue()


def _both_ways(tmp: Path, make: Callable[[Path], None]) -> list[tuple[int, str, str]]:
    """The hook's outcome with the lanes on, then off, each on a wiki ``make`` builds."""
    got = []
    for way in ("fast", "general"):
        root = tmp / way / "wiki"
        make(root)
        off = fastpaths.general_paths() if way == "general" else contextlib.nullcontext()
        with isolated(tmp, frozen=True), off:
            code, out, err = _hook(root)
        got.append((code, out.replace(str(tmp / way), ""), err.replace(str(tmp / way), "")))
    return got


def test_a_notes_folder_linked_outside_the_wiki_is_not_written(tmp_path: Path) -> None:
    def make(root: Path) -> None:
        outside = root.parent / "outside"
        outside.mkdir(parents=True)
        (outside / NAME).write_text(PAGE, encoding="utf-8")
        (root / "aiwiki").mkdir(parents=True)
        (root / ".git").mkdir()
        (root / "aiwiki" / "sessions").symlink_to(outside, target_is_directory=True)

    fast, general = _both_ways(tmp_path, make)
    assert fast == general
    assert "outside the store root" in fast[2]
    for way in ("fast", "general"):
        assert (tmp_path / way / "outside" / NAME).read_text(encoding="utf-8") == PAGE


@pytest.mark.slow
def test_a_page_over_the_size_limit_is_not_written(tmp_path: Path) -> None:
    big = PAGE + "\n## Next steps\n\n" + "- step\n" * (9 * 1024 * 1024 // 7)

    def make(root: Path) -> None:
        (root / "aiwiki" / "sessions").mkdir(parents=True)
        (root / ".git").mkdir()
        (root / "aiwiki" / "sessions" / NAME).write_text(big, encoding="utf-8")

    fast, general = _both_ways(tmp_path, make)
    assert fast == general
    assert "over the limit" in fast[2]
    for way in ("fast", "general"):
        page = tmp_path / way / "wiki" / "aiwiki" / "sessions" / NAME
        assert page.read_text(encoding="utf-8") == big
