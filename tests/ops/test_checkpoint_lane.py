"""The ``pre-compact`` lane (kept: it saves about 3x on ``sessionkit hook pre-compact``).

On an existing v2 page of a local aiwiki folder the hook splices its entry without
the model or the store (:func:`sessionkit.ops.checkpoint.record_local`); with the
lane off (``SESSIONKIT_FAST_PATHS=-pre-compact``) it goes through the store.  This
one test holds the two to the same outcome: the note's bytes and mode, the folder's
names, stdout and stderr.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import stat
from pathlib import Path
from typing import Any

from sessionkit.hooks import main
from tests.hook_env import isolated

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "examples" / "wiki" / "aiwiki" / "sessions" / "2026-05-18-7e8a3f2.md"
MANIFEST = "status: in-progress\nartifacts:\n  prototype:\n    locked_at: 2026-05-17T11:00:00Z\n"


def _wiki(base: Path) -> Path:
    root = base / "wiki"
    folder = root / "aiwiki" / "sessions"
    folder.mkdir(parents=True)
    (root / ".git").mkdir()
    (folder / PAGE.name).write_bytes(PAGE.read_bytes())
    (folder / "2020-01-01-0ld0ld0.md").write_bytes(PAGE.read_bytes())  # never touched
    manifest = root / ".forge" / "work" / "feature" / "lane" / "manifest.yaml"
    manifest.parent.mkdir(parents=True)
    manifest.write_text(MANIFEST, encoding="utf-8")
    return root


def _state(root: Path) -> dict[str, Any]:
    return {
        p.name: (p.read_bytes(), stat.S_IMODE(p.stat().st_mode))
        for p in sorted((root / "aiwiki" / "sessions").iterdir())
        if p.name != ".sessionkit.lock"
    }


def _hook(root: Path) -> tuple[int, str, str]:
    payload = {
        "session_id": "7e8a3f21-9a4b-4c8d-b1e2-f5a6c7d8e9f0",
        "trigger": "manual",
        "cwd": str(root),
    }
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["pre-compact"], stdin=io.BytesIO(json.dumps(payload).encode()))
    return code, out.getvalue(), err.getvalue().replace(str(root), "")


def test_the_lane_writes_what_the_store_writes(tmp_path: Path) -> None:
    lane, store = _wiki(tmp_path / "lane"), _wiki(tmp_path / "store")
    with isolated(tmp_path, frozen=True):
        got_lane = _hook(lane)
        os.environ["SESSIONKIT_FAST_PATHS"] = "-pre-compact"
        got_store = _hook(store)
    assert got_lane == got_store == (0, "", "")
    assert _state(lane) == _state(store)
    assert b"Active work: feature/lane" in _state(lane)[PAGE.name][0]
