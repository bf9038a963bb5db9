"""Write ``tests/corpus/bm-0.24`` with Basic Memory's own hook and ``write_note``.

Usage (Python >= 3.12 with basic-memory installed): ``python _bm_hook_corpus.py``.

Runs the real ``bm hook pre-compact --harness claude`` on made-up Claude Code
transcripts, in a general project (``type: session``) and a coding project
(``type: coding_session``, Git identity, a pull request from a stand-in
``gh``), a few times per agent session; then writes deliberate checkpoints in
the ``bm-checkpoint`` skill's shape with ``write_note``.  The notes are copied
as written (only the time in ``started``/``ended`` and the titles is the run's).
Not a test: the corpus is checked in, and the tests read it.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))
from tests.interop.conftest import BMHome  # noqa: E402

OUT = HERE.parent / "corpus" / "bm-0.24"

#: agent session -> (profile, opening request, later user turns, compactions)
SESSIONS = {
    "0c5e7a52-3d1f-4b8e-9a27-6f0e2b9c4d11": (
        "general",
        "Move the readings table from SQLite to Postgres without downtime",
        ["Start with the dual-write shim", "Now backfill the old rows", "Flip reads over"],
        3,
    ),
    "7b2f9e04-81c6-4d3a-b5e9-2a4c6d8e0f22": (
        "general",
        "Why does `bm reindex` stall on a 40k-note project?",
        ["It stalls at the embeddings step", "Try batching by 500"],
        2,
    ),
    "d41a8c3b-5e92-47f0-8b16-9c3e5a7d1b33": (
        "general",
        "Write the release notes for 1.4",
        ["Mention the retry budget"],
        1,
    ),
    "5be1c0de-7a11-4c0d-9e55-3c0ffee0a7b1": (
        "coding",
        "Give each host its own retry budget in the tides client",
        ["The backfill job shares one budget", "Add a starvation test", "Wire the metrics"],
        4,
    ),
    "e8f3b7c1-2a4d-4e6f-8b0a-1c3e5f7a9b44": (
        "coding",
        "Fix the flaky `test_feed_timeout` (it fails 1 in 20 runs)",
        ["It is the fake clock"],
        2,
    ),
}


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)


def _project(root: Path, name: str, profile: str) -> Path:
    repo = root / "work" / name
    (repo / ".claude").mkdir(parents=True)
    block = {"primaryProject": "demo", "sessionProfile": profile, "captureEvents": False}
    if profile == "coding":
        block["repository"] = "example/tides"
    (repo / ".claude" / "settings.json").write_text(json.dumps({"basicMemory": block}))
    if profile == "coding":
        _git(repo, "init", "-q", "-b", "retry-budget")
        _git(
            repo,
            "-c",
            "user.name=dev",
            "-c",
            "user.email=dev@example.com",
            "commit",
            "-q",
            "--allow-empty",
            "-m",
            "start",
        )
    return repo


def _fake_gh(root: Path) -> Path:
    """A stand-in ``gh`` answering ``gh pr view --json …`` for the coding project."""
    folder = root / "bin"
    folder.mkdir()
    gh = folder / "gh"
    pr = {
        "number": 123,
        "title": "Per-host retry budgets",
        "url": "https://github.com/example/tides/pull/123",
        "state": "OPEN",
        "baseRefName": "main",
        "headRefName": "retry-budget",
    }
    gh.write_text(f"#!/bin/sh\necho '{json.dumps(pr)}'\n")
    gh.chmod(gh.stat().st_mode | stat.S_IEXEC)
    return folder


def _transcript(path: Path, turns: list[tuple[str, str]]) -> None:
    with path.open("w", encoding="utf-8") as fh:
        for role, text in turns:
            fh.write(json.dumps({"type": role, "message": {"role": role, "content": text}}) + "\n")


#: deliberate checkpoints in the ``bm-checkpoint`` skill's shape (agent session, title,
#: profile, body); each continues the agent session's latest checkpoint before it
SKILL_NOTES = [
    (
        "5be1c0de-7a11-4c0d-9e55-3c0ffee0a7b1",
        "Claude checkpoint - per-host budgets land",
        "coding",
        "## Summary\nEvery host now draws on a budget of its own.\n\n"
        "## Story\nOne counter served all stations, so a flaky host starved the rest. "
        "The counter became a per-host table in the client, refilled on success.\n\n"
        "## Changed Files\n- `tides/client.py`\n- `tests/test_client.py`\n\n"
        "## Verification\n- `pytest tests/test_client.py` passed (14 tests)\n\n"
        "## Observations\n- [result] A slow host no longer stops retries for the others\n"
        "- [decision] Keep the budget in the client\n"
        "- [blocker] The backfill job still shares one budget\n"
        "- [next_step] Give the backfill job per-host budgets too\n",
    ),
    (
        "5be1c0de-7a11-4c0d-9e55-3c0ffee0a7b1",
        "Claude checkpoint - backfill budgets",
        "coding",
        "## Summary\nThe backfill job has per-host budgets as well.\n\n"
        "## Observations\n- [result] Backfill retries per host\n"
        "- [changed_file] tides/backfill.py\n"
        "- [next_step] Open the pull request for review\n",
    ),
    (
        "0c5e7a52-3d1f-4b8e-9a27-6f0e2b9c4d11",
        "Claude checkpoint - reads on Postgres",
        "general",
        "## Summary\nReads go to Postgres; SQLite only takes the dual writes.\n\n"
        "## Observations\n- [decision] Keep dual writes for a week\n"
        "- [next_step] Drop the SQLite writes after the week\n",
    ),
]


def _skill_notes(home: BMHome, written: list[Path]) -> None:
    """Write :data:`SKILL_NOTES` with ``write_note``, as the skill tells the agent to."""
    from sessionkit.document import parse

    latest: dict[str, tuple[str, dict[str, object]]] = {}
    for path in sorted(written, key=lambda p: p.name):
        meta = dict(parse(path.read_text(encoding="utf-8"), path.name).meta)
        latest[str(meta["session_id"])] = (str(meta["title"]), meta)
    specs = []
    for sid, title, profile, body in SKILL_NOTES:
        before, hook_meta = latest[sid]
        metadata: dict[str, object] = {
            "status": "open",
            "project": "demo",
            "cwd": hook_meta["cwd"],
            "started": "2026-12-07T18:00:00+00:00",
            "username": "dev",
            "hostname": "lap",
            "capture": "deliberate",
            "agent": "claude-code",
            "session_id": sid,
        }
        if profile == "coding":
            for key in ("repository", "repo_root", "branch", "git_sha"):
                metadata[key] = hook_meta[key]
            for key in [k for k in hook_meta if str(k).startswith("pull_request_")]:
                metadata[key] = hook_meta[key]
        specs.append(
            {
                "title": title,
                "folder": "sessions",
                "note_type": "coding_session" if profile == "coding" else "session",
                "tags": ["claude", "checkpoint"],
                "metadata": metadata,
                "content": f"# {title}\n\n{body}\n## Relations\n- continues [[{before}]]\n",
            }
        )
        latest[sid] = (title, hook_meta)
    home.write_notes(specs)


def main() -> None:
    root = Path(tempfile.gettempdir()) / "bm-hook-corpus"  # (the notes' cwd: one name)
    hooks = "--skills-only" not in sys.argv  # (add the skill's notes to the last run's)
    if hooks and root.exists():
        shutil.rmtree(root)
    home = BMHome(root)
    if hooks:
        _hook_notes(root, home)
    _skill_notes(home, sorted((home.project_dir / "sessions").glob("*.md")))
    if OUT.exists():
        shutil.rmtree(OUT)
    OUT.mkdir(parents=True)
    written = sorted((home.project_dir / "sessions").glob("*.md"))
    for path in written:
        shutil.copyfile(path, OUT / path.name)
    print(f"{len(written)} notes in {OUT}")


def _hook_notes(root: Path, home: BMHome) -> None:
    """Run the real pre-compact hook for every compaction of :data:`SESSIONS`."""
    env = dict(home.env)
    env["PATH"] = f"{_fake_gh(root)}{os.pathsep}{env.get('PATH', '')}"
    bm = shutil.which("bm", path=str(Path(sys.executable).parent)) or "bm"
    repos = {p: _project(root, p, p) for p in ("general", "coding")}
    for sid, (profile, opening, later, compactions) in SESSIONS.items():
        turns = [("user", opening), ("assistant", "On it.")]
        for n in range(compactions):
            if n < len(later):
                turns += [("user", later[n]), ("assistant", "Done: " + later[n].lower() + ".")]
            transcript = root / f"{sid}-{n}.jsonl"
            _transcript(transcript, turns)
            payload = {
                "session_id": sid,
                "transcript_path": str(transcript),
                "cwd": str(repos[profile]),
                "hook_event_name": "PreCompact",
                "trigger": "auto",
            }
            subprocess.run(
                [bm, "hook", "pre-compact", "--harness", "claude"],
                input=json.dumps(payload),
                env=env,
                text=True,
                check=True,
                capture_output=True,
            )
            time.sleep(1.1)  # titles carry the time to the second


if __name__ == "__main__":
    main()
