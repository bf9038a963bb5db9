"""Remote stores have a deadline on every command (#46).

An S3 endpoint that accepts connections and never answers (a thread holding a
listening socket on loopback: :func:`sessionkit.testing.s3.silent_endpoint`)
used to hang ``ls``, ``lint``, ``add``, ``status`` and ``convert`` for minutes
with no output.  With the read timeout set small (the configuration's storage
options, or ``SESSIONKIT_READ_TIMEOUT``), each ends with exit 2 and one line
naming the store (a command that hung would hit the subprocess's own timeout).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("s3fs")

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = "import sys; from sessionkit.cli import main; sys.exit(main())"


def _env(home: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SESSIONKIT_", "AWS_"))}
    env.update(
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / ".config"),
        PYTHONPATH=str(ROOT),
        AWS_ACCESS_KEY_ID="testing",
        AWS_SECRET_ACCESS_KEY="testing",
        AWS_DEFAULT_REGION="us-east-1",
    )
    env.update(extra)
    return env


def _run(repo: Path, args: list[str], **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", SCRIPT, *args],
        capture_output=True,
        text=True,
        cwd=repo,
        env=_env(repo.parent / "home", **env),
        timeout=300,  # (the old code: 150 s and more; fails here instead of hanging)
    )


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (tmp_path / "home").mkdir()
    return repo


COMMANDS = {
    "ls": ["ls"],
    "lint": ["lint", "s3://notes/wiki"],
    "add": ["add", "next-step", "x"],
    "status": ["status", "done"],
    "convert": ["convert", "s3://notes/wiki", "out", "--to", "basic-memory"],
}


@pytest.mark.parametrize("command", list(COMMANDS))
def test_a_silent_endpoint_fails_within_the_configured_timeout(repo: Path, command: str) -> None:
    from sessionkit.testing.s3 import silent_endpoint

    with silent_endpoint() as endpoint:
        (repo / ".sessionkit.toml").write_text(
            '[store]\nurl = "s3://notes/wiki"\nlayout = "aiwiki"\n'
            f'[storage_options."s3://notes"]\nendpoint_url = "{endpoint}"\n'
            "connect_timeout = 1\nread_timeout = 0.25\n",
            encoding="utf-8",
        )
        proc = _run(repo, COMMANDS[command])
    assert proc.returncode == 2, (command, proc.stdout, proc.stderr)
    assert "cannot reach s3://notes: no answer (read timed out)" in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr
    assert not (repo / "out").exists()


def test_the_timeouts_come_from_the_environment_too(repo: Path) -> None:
    from sessionkit.testing.s3 import silent_endpoint

    with silent_endpoint() as endpoint:
        args = ["ls", "s3://notes/wiki", "-o", f"endpoint_url={endpoint}"]
        proc = _run(repo, args, SESSIONKIT_READ_TIMEOUT="0.25", SESSIONKIT_CONNECT_TIMEOUT="1")
        assert proc.returncode == 2, proc.stderr
        assert "cannot reach s3://notes: no answer (read timed out)" in proc.stderr
        proc = _run(repo, args, SESSIONKIT_READ_TIMEOUT="soon")
    assert proc.returncode == 2
    assert "SESSIONKIT_READ_TIMEOUT must be a positive number of seconds" in proc.stderr


#: one batch of reads (256) and a few more: ls shows its progress past the first batch
NOTES = 260


def test_a_slow_endpoint_shows_progress_on_a_terminal_and_ends(repo: Path) -> None:
    """A slow endpoint (each request waits before it is served): ls ends, and with stderr
    on a terminal says how far it has read; with stderr not a terminal it says nothing."""
    import pty

    from sessionkit.testing.s3 import moto_s3

    page = (ROOT / "examples/wiki/aiwiki/sessions/2026-05-18-7e8a3f2.md").read_bytes()
    with moto_s3() as s3:
        s3.make_bucket("notes")
        fs = s3.filesystem()
        fs.pipe({f"notes/wiki/aiwiki/sessions/2026-05-18-{i:07x}.md": page for i in range(NOTES)})
        s3.latency = 0.02  # (from here: the notes are put at full speed)
        args = [sys.executable, "-c", SCRIPT, "ls", "s3://notes/wiki"]
        args += ["-o", f"endpoint_url={s3.endpoint_url}"]
        env = _env(repo.parent / "home", SESSIONKIT_READ_TIMEOUT="20")
        master, slave = pty.openpty()
        proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=slave, cwd=repo, env=env)
        os.close(slave)
        shown = b""
        while True:
            try:
                chunk = os.read(master, 4096)
            except OSError:  # (EIO: the child closed the terminal)
                break
            if not chunk:
                break
            shown += chunk
        out, _ = proc.communicate(timeout=300)
        os.close(master)
        quiet = _run(repo, args[3:], SESSIONKIT_READ_TIMEOUT="20")
    assert proc.returncode == 0, (proc.returncode, shown)
    assert out.count(b"\n") == NOTES
    assert f"sessionkit: reading s3://notes/wiki: 256/{NOTES} notes".encode() in shown, shown
    assert f"read s3://notes/wiki: {NOTES} notes".encode() in shown
    assert quiet.returncode == 0 and quiet.stderr == "", quiet.stderr


def test_gcs_requests_get_the_same_deadlines() -> None:
    pytest.importorskip("gcsfs")
    import sessionkit

    store = sessionkit.open_store(
        "gcs://notes/wiki", layout="aiwiki", token="anon", connect_timeout=2, read_timeout=3
    )
    timeout = store.storage.fs.requests_timeout  # type: ignore[attr-defined]
    assert (timeout.connect, timeout.sock_read) == (2, 3)
