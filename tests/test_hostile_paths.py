"""Hostile paths in a store (#46, #45): FIFOs, devices, looping and outside links, odd names.

Every case runs the installed entry point in its own process with a timeout (a
FIFO would otherwise hang the test, not fail it): each reading command answers
with a per-note error and goes on with the other notes, never hangs, never
reads a device, never reads through a link that leaves the store's root, and
never stops with an internal error.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "wiki" / "aiwiki" / "sessions" / "2026-05-18-7e8a3f2.md"
SCRIPT = "import sys; from sessionkit.cli import main; sys.exit(main())"
SID = "7e8a3f21-9a4b-4c8d-b1e2-f5a6c7d8e9f0"

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="POSIX paths")


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SESSIONKIT_", "AWS_"))}
    env.pop("CLAUDE_PROJECT_DIR", None)
    env.update(HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"), PYTHONPATH=str(ROOT))
    return env


def _run(repo: Path, *args: str, stdin: bytes = b"") -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT, *args],
        input=stdin.decode(),
        capture_output=True,
        text=True,
        errors="surrogateescape",
        cwd=repo,
        env=_env(repo.parent / "home"),
        timeout=60,  # a hang fails here (the old FIFO read never returned)
    )
    assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr, proc.stderr
    return proc


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (tmp_path / "home").mkdir()
    sessions = repo / "aiwiki" / "sessions"
    sessions.mkdir(parents=True)
    shutil.copy(EXAMPLE, sessions / EXAMPLE.name)
    return repo


def _hostile(sessions: Path) -> list[str]:
    """A FIFO, a looping link and a link to a device, all named as newer notes."""
    os.mkfifo(sessions / "2027-01-01-fifo000.md")
    os.symlink("2027-01-02-loop000.md", sessions / "2027-01-02-loop000.md")
    os.symlink("/dev/zero", sessions / "2027-01-03-zero000.md")
    return ["2027-01-01-fifo000.md", "2027-01-02-loop000.md", "2027-01-03-zero000.md"]


def test_show_refuses_a_fifo_and_a_device_without_waiting(repo: Path) -> None:
    sessions = repo / "aiwiki" / "sessions"
    _hostile(sessions)
    res = _run(repo, "show", "aiwiki/sessions/2027-01-01-fifo000.md")
    assert res.returncode == 2
    assert "it is a FIFO, not a regular file" in res.stderr, res.stderr
    res = _run(repo, "show", "/dev/zero")
    assert res.returncode == 2
    assert "it is a character device, not a regular file" in res.stderr, res.stderr
    res = _run(repo, "lint", "/dev/zero")
    assert res.returncode == 1 and "character device" in res.stdout, res.stdout
    # a link inside the store to a device leads outside its root: refused as such
    res = _run(repo, "show", "aiwiki/sessions/2027-01-03-zero000.md")
    assert res.returncode == 2 and "outside the store" in res.stderr, res.stderr


def test_a_device_node_in_the_store_is_never_read(repo: Path) -> None:
    import stat

    node = repo / "aiwiki" / "sessions" / "2027-01-04-zero000.md"
    try:  # the /dev/zero device itself, made in the store (needs CAP_MKNOD: root)
        os.mknod(node, stat.S_IFCHR | 0o600, os.makedev(1, 5))
    except (OSError, AttributeError):
        pytest.skip("cannot make a device node here")
    res = _run(repo, "show", str(node))
    assert res.returncode == 2 and "it is a character device" in res.stderr, res.stderr
    res = _run(repo, "ls")
    assert res.returncode == 1 and "character device" in res.stderr, res.stderr
    assert EXAMPLE.name in res.stdout
    res = _run(repo, "lint")
    assert res.returncode == 1 and "AW001 error: cannot read it: it is a character" in res.stdout


def test_one_unreadable_entry_never_disables_the_other_notes(repo: Path) -> None:
    sessions = repo / "aiwiki" / "sessions"
    fifo, loop, _ = _hostile(sessions)
    res = _run(repo, "ls")
    assert res.returncode == 1, res.stderr
    assert EXAMPLE.name in res.stdout
    assert f"{fifo}': it is a FIFO" in res.stderr and "Too many levels" in res.stderr
    res = _run(repo, "lint")
    assert res.returncode == 1
    assert f"{fifo}: AW001 error: cannot read it: it is a FIFO" in res.stdout, res.stdout
    assert f"{loop}: AW001 error: cannot read it: Too many levels" in res.stdout
    res = _run(repo, "migrate", "aiwiki", "--dry-run")
    assert res.returncode == 1 and "failed 2" in res.stdout + res.stderr
    res = _run(repo, "index")  # no blank row for what cannot be read: reported, exit 1
    assert res.returncode == 1 and f"{fifo}: left out of the index" in res.stderr, res.stderr
    index = (sessions / "INDEX.md").read_text("utf-8")
    assert EXAMPLE.name in index and fifo not in index and loop not in index
    # the latest lookup skips what it cannot read: the real session is the latest
    for args in (["context"], ["add", "next-step", "check the FIFO"], ["directive", "consume"]):
        res = _run(repo, *args)
        assert res.returncode in (0, 1), (args, res.stderr)
        assert "fifo000" not in res.stderr and "loop000" not in res.stderr, (args, res.stderr)
    assert "check the FIFO" in (sessions / EXAMPLE.name).read_text("utf-8")
    payload = json.dumps({"session_id": SID, "cwd": str(repo)}).encode()
    res = _run(repo, "hook", "pre-compact", stdin=payload)
    assert res.returncode == 0 and res.stderr == "", res.stderr
    assert "PreCompact at" in (sessions / EXAMPLE.name).read_text("utf-8")
    res = _run(repo, "hook", "session-start", "--plain", stdin=payload)
    assert res.returncode == 0 and f"Latest session note {EXAMPLE.name}" in res.stdout


def test_a_sessions_folder_leading_outside_is_refused_by_every_command(
    repo: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "victim"
    (repo / "aiwiki" / "sessions").rename(outside)
    (repo / "aiwiki" / "sessions").symlink_to(outside)
    payload = json.dumps({"session_id": SID, "cwd": str(repo)}).encode()
    for args in (["ls"], ["context"], ["add", "next-step", "x"], ["index"], ["status", "done"]):
        res = _run(repo, *args)
        assert res.returncode == 2 and "outside the store root" in res.stderr, (args, res.stderr)
    res = _run(repo, "show", f"aiwiki/sessions/{EXAMPLE.name}")
    assert res.returncode == 2 and "outside the store" in res.stderr, res.stderr
    res = _run(repo, "lint", f"aiwiki/sessions/{EXAMPLE.name}")
    assert res.returncode == 1 and "refused: it resolves to" in res.stdout, res.stdout
    res = _run(repo, "hook", "session-start", "--plain", stdin=payload)
    assert res.returncode == 0 and "Latest session note" not in res.stdout, res.stdout
    assert "outside the store root" in res.stderr, res.stderr
    assert (outside / EXAMPLE.name).read_bytes() == EXAMPLE.read_bytes()  # nothing written there


def test_a_link_inside_the_root_is_followed(repo: Path) -> None:
    real = repo / "notes-real"
    (repo / "aiwiki" / "sessions").rename(real)
    (repo / "aiwiki" / "sessions").symlink_to(real)
    payload = json.dumps({"session_id": SID, "cwd": str(repo)}).encode()
    res = _run(repo, "hook", "session-start", "--plain", stdin=payload)
    assert res.returncode == 0 and f"Latest session note {EXAMPLE.name}" in res.stdout
    assert _run(repo, "ls").returncode == 0


# -- names that are not UTF-8, reserved or odd ----------------------------------------------

ODD = ["CON.md", " 2026-05-19-lead.md", "2026-05-20-new\nline.md"]


def _odd_notes(sessions: Path) -> None:
    data = EXAMPLE.read_bytes()
    for name in ODD:
        (sessions / name).write_bytes(data)
    # a name that is not UTF-8 (bytes 0xff 0xfe), made through the bytes API
    with open(os.fsencode(sessions) + b"/2026-05-21-\xff\xfe.md", "wb") as fh:
        fh.write(data)


def test_names_that_are_not_utf8_are_listed_escaped(repo: Path) -> None:
    sessions = repo / "aiwiki" / "sessions"
    _odd_notes(sessions)
    res = _run(repo, "ls")
    assert res.returncode == 1  # the odd names are reported, the rest listed
    assert "2026-05-21-\\xff\\xfe.md" in res.stdout, res.stdout
    assert EXAMPLE.name in res.stdout
    rows = json.loads(_run(repo, "ls", "--json").stdout)
    assert "2026-05-21-\\xff\\xfe.md" in [row["key"] for row in rows]
    res = _run(repo, "lint")
    assert "aiwiki/sessions/2026-05-21-\\xff\\xfe.md: AW013" in res.stdout, res.stdout
    for args in (["context"], ["prune", "--abandon-after", "10000"], ["status", "active"]):
        res = _run(repo, *args)
        assert res.returncode in (0, 1), (args, res.stderr)
    res = _run(repo, "convert", ".", str(repo.parent / "bm"), "--to", "basic-memory")
    assert res.returncode == 1, res.stderr  # the odd ones fail, each named; the others convert
    assert "internal error" not in res.stderr and list((repo.parent / "bm").rglob("*.md"))


def test_odd_names_are_reported_and_the_other_pages_processed(repo: Path) -> None:
    sessions = repo / "aiwiki" / "sessions"
    _odd_notes(sessions)
    res = _run(repo, "index")
    assert res.returncode == 1, res.stderr
    for shown in ("CON.md", "2026-05-20-new\\nline.md", "2026-05-21-\\xff\\xfe.md"):
        assert f"{shown}: left out of the index" in res.stderr, res.stderr
    assert EXAMPLE.name in (sessions / "INDEX.md").read_text("utf-8")
    res = _run(repo, "migrate", "aiwiki", "--dry-run")
    assert res.returncode == 1
    assert "aiwiki/sessions/CON.md: error: refused key" in res.stderr, res.stderr
    assert "new\\nline.md: error" in res.stderr and "failed 3" in res.stderr
    # every error stays on one line
    assert all(
        line.startswith(("./", ".:", " ", "-", "+", "@")) for line in res.stderr.splitlines()
    )
