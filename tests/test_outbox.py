"""A checkpoint is never lost: the outbox of ``sessionkit hook pre-compact`` (#45).

When the store does not take a checkpoint before the hook's deadline (it sleeps,
refuses connections, holds its lock), the hook keeps it in the outbox, in the user's
state folder (``$SESSIONKIT_STATE_DIR`` here), and says so in one line: stderr and
the ``systemMessage`` the same words.  The next hook, ``sessionkit outbox --deliver``
or any command on that store delivers it, exactly once.  Concurrent hooks on one
session all land, directly or through the outbox.

Everything runs through the installed ``sessionkit`` script, against real files and
moto's S3 server on loopback (through s3fs).  No assertion depends on speed: a slow
machine sends more checkpoints through the outbox, and the counts are the same.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import sessionkit
from sessionkit.diagnostics import Severity

SCRIPT = shutil.which("sessionkit")
SID = "7e8a3f21-9a4b-4c8d-b1e2-f5a6c7d8e9f0"
CHECKPOINT = re.compile(r"^### PreCompact at \S+$", re.M)
MARKER = re.compile(r"checkpoint ([0-9a-f]{16})")

pytestmark = pytest.mark.skipif(
    SCRIPT is None, reason="the sessionkit console script is not installed"
)


@pytest.fixture()
def world(tmp_path: Path) -> dict[str, Path]:
    """A repository (no work item), a home folder and a state folder."""
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (tmp_path / "home").mkdir()
    return {"repo": repo, "home": tmp_path / "home", "state": tmp_path / "state"}


#: moto keeps its buckets per process, whatever server serves them: one bucket a test
BUCKETS = iter(f"notes-{i}-{os.getpid()}" for i in range(1_000_000))


def _env(world: dict[str, Path], deadline_ms: int = 120_000) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("SESSIONKIT_", "AWS_")) and k != "CLAUDE_PROJECT_DIR"
    }
    env.update(
        HOME=str(world["home"]),
        XDG_CONFIG_HOME=str(world["home"] / ".config"),
        XDG_STATE_HOME=str(world["home"] / ".local" / "state"),  # (not used: the variable)
        SESSIONKIT_STATE_DIR=str(world["state"]),
        SESSIONKIT_HOOK_DEADLINE_MS=str(deadline_ms),
        AWS_ACCESS_KEY_ID="testing",
        AWS_SECRET_ACCESS_KEY="testing",
        AWS_DEFAULT_REGION="us-east-1",
    )
    return env


def _payload(repo: Path, **changes: Any) -> bytes:
    data = {"session_id": SID, "cwd": str(repo), "hook_event_name": "PreCompact"}
    data.update({"trigger": "auto", **changes})
    return json.dumps(data).encode()


def _sk(
    world: dict[str, Path], *args: str, stdin: bytes = b"", deadline_ms: int = 120_000
) -> subprocess.CompletedProcess[str]:
    assert SCRIPT is not None
    return subprocess.run(
        [SCRIPT, *args],
        input=stdin.decode(),
        capture_output=True,
        text=True,
        cwd=world["repo"],
        env=_env(world, deadline_ms),
        timeout=120,
    )


def _hook(world: dict[str, Path], deadline_ms: int = 120_000) -> subprocess.CompletedProcess[str]:
    return _sk(world, "hook", "pre-compact", stdin=_payload(world["repo"]), deadline_ms=deadline_ms)


def _waiting(world: dict[str, Path]) -> list[Path]:
    return sorted(world["state"].glob("outbox/*/*-7e8a3f2-*.json"))


def _kept_line(res: subprocess.CompletedProcess[str]) -> str:
    """The one line a hook says when it kept its checkpoint: stderr and systemMessage alike."""
    assert res.returncode == 0, res.stderr
    (line,) = res.stderr.splitlines()
    assert json.loads(res.stdout) == {"systemMessage": line}
    assert line.startswith("sessionkit hook: pre-compact")
    assert "waits in the outbox" in line and "Traceback" not in res.stderr
    return line


def _s3_config(repo: Path, endpoint: str, bucket: str) -> None:
    (repo / ".sessionkit.toml").write_text(
        f'[store]\nurl = "s3://{bucket}/wiki"\nlayout = "aiwiki"\n'
        f'[storage_options."s3://{bucket}"]\nendpoint_url = "{endpoint}"\n'
        "use_listings_cache = false\n",
        encoding="utf-8",
    )


def _s3_note(server: Any) -> str:
    bucket = server.bucket
    store = sessionkit.open_store(f"s3://{bucket}/wiki", layout="aiwiki", **server.storage_options)
    (key,) = store.keys()
    return str(store.read_text(key))


def _local_note(world: dict[str, Path]) -> str:
    (page,) = sorted((world["repo"] / "aiwiki" / "sessions").glob("*.md"))
    return page.read_text(encoding="utf-8")


def _once_each(text: str, expected: int, key: str = f"{SID[:7]}.md") -> None:
    """``expected`` checkpoints, none twice (every id at most once), the page readable."""
    assert len(CHECKPOINT.findall(text)) == expected
    ids = MARKER.findall(text)
    assert len(ids) == len(set(ids)), ids
    assert len(sessionkit.loads(text).checkpoints) == expected
    # lints clean: a checkpoint delivered late is never stamped before the one above it
    key = f"{sessionkit.loads(text).started}-{key}"
    diags = sessionkit.lint(text, path=key)
    assert [str(d) for d in diags if d.severity is not Severity.INFO] == []


@pytest.fixture()
def moto() -> Iterator[Any]:
    from sessionkit.testing.s3 import moto_s3

    with moto_s3() as server:
        server.bucket = next(BUCKETS)
        server.make_bucket(server.bucket)
        yield server


# -- a store that does not take the checkpoint in time ------------------------------------


def _kept_while_locked(world: dict[str, Path]) -> str:
    """A hook run while another writer holds the local store's lock past its deadline."""
    lock = world["repo"] / "aiwiki" / "sessions" / ".sessionkit.lock"
    fd = os.open(lock, os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        return _kept_line(_hook(world, deadline_ms=4000))
    finally:
        os.close(fd)


def test_a_locked_local_store_keeps_the_checkpoint_until_the_next_hook(
    world: dict[str, Path],
) -> None:
    assert _hook(world).returncode == 0  # the note exists
    line = _kept_while_locked(world)
    assert "lock" in line
    (entry,) = _waiting(world)
    assert str(entry) in line
    assert not str(entry).startswith(str(world["repo"]))  # never inside the repository
    assert len(CHECKPOINT.findall(_local_note(world))) == 1
    shown = _sk(world, "outbox", "--json")
    assert shown.returncode == 1  # something waits
    [store] = json.loads(shown.stdout)
    assert store["store"] == f"file://{os.path.realpath(world['repo'])}"
    assert [e["session_id"] for e in store["entries"]] == [SID]
    # the next hook delivers it first, then records its own
    res = _hook(world)
    assert res.returncode == 0 and res.stderr == "", res.stderr
    assert _waiting(world) == []
    text = _local_note(world)
    _once_each(text, 3)
    assert text.count(f"checkpoint {entry.name.split('-')[-1][:-5]}") == 1
    assert _sk(world, "outbox").stdout == "nothing waits in the outbox\n"


def test_session_start_delivers_first_and_shows_the_kept_directive(
    world: dict[str, Path],
) -> None:
    assert _hook(world).returncode == 0
    _kept_while_locked(world)
    shown = _sk(world, "outbox")
    assert shown.returncode == 1
    assert shown.stdout.startswith(f"file://{os.path.realpath(world['repo'])}: 1 waiting\n")
    start = _payload(world["repo"], hook_event_name="SessionStart", source="compact")
    res = _sk(world, "hook", "session-start", "--plain", stdin=start)
    assert res.returncode == 0 and res.stderr == "", res.stderr
    assert "Unconsumed directives (2)" in res.stdout
    assert _waiting(world) == []
    _once_each(_local_note(world), 2)


def test_sync_delivers_first_but_a_dry_run_does_not(world: dict[str, Path]) -> None:
    assert _hook(world).returncode == 0
    _kept_while_locked(world)
    bm = world["repo"].parent / "bm"
    dry = _sk(world, "sync", str(world["repo"]), str(bm), "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert len(_waiting(world)) == 1 and len(CHECKPOINT.findall(_local_note(world))) == 1
    res = _sk(world, "sync", str(world["repo"]), str(bm))
    assert res.returncode == 0, res.stderr
    assert "delivered 1 checkpoint from the outbox" in res.stderr
    assert _waiting(world) == []
    _once_each(_local_note(world), 2)


def test_a_store_that_sleeps_past_the_deadline(world: dict[str, Path], moto: Any) -> None:
    _s3_config(world["repo"], moto.endpoint_url, moto.bucket)
    moto.latency = 30.0  # every request sleeps far past the hook's deadline
    line = _kept_line(_hook(world, deadline_ms=5000))  # (it ends: _sk's timeout)
    assert "deadline" in line or "cannot reach" in line
    (entry,) = _waiting(world)
    kept = json.loads(entry.read_text(encoding="utf-8"))
    assert kept["session_id"] == SID and kept["store"] == f"s3://{moto.bucket}/wiki"
    assert "testing" not in entry.read_text(encoding="utf-8")  # no credential kept
    moto.latency = 0.0
    # any command on the store delivers it first (a request the hook sent and gave up on
    # may land late: the id keeps the delivery from writing it twice)
    res = _sk(world, "ls")
    assert res.returncode == 0, res.stderr
    assert "delivered 1 checkpoint from the outbox" in res.stderr
    assert _waiting(world) == []
    _once_each(_s3_note(moto), 1)
    assert _hook(world).returncode == 0
    _once_each(_s3_note(moto), 2)


def test_a_refused_store_comes_back_and_takes_the_checkpoint(world: dict[str, Path]) -> None:
    from sessionkit.testing.s3 import moto_s3, refused_endpoint

    bucket = next(BUCKETS)
    with refused_endpoint() as endpoint:
        _s3_config(world["repo"], endpoint, bucket)
        line = _kept_line(_hook(world, deadline_ms=3000))
    assert "connection refused" in line or "deadline" in line
    assert len(_waiting(world)) == 1
    with moto_s3() as server:  # the store is back (on another port)
        server.bucket = bucket
        server.make_bucket(bucket)
        _s3_config(world["repo"], server.endpoint_url, bucket)
        res = _sk(world, "outbox", "--deliver")
        assert res.returncode == 0, res.stdout + res.stderr
        assert "1 delivered" in res.stdout
        assert _waiting(world) == []
        again = _sk(world, "outbox", "--deliver", "--json")
        assert (again.returncode, json.loads(again.stdout)) == (0, [])
        _once_each(_s3_note(server), 1)


def test_a_checkpoint_delivered_late_keeps_the_log_chronological(
    world: dict[str, Path],
) -> None:
    assert _hook(world).returncode == 0
    _kept_while_locked(world)
    time.sleep(1.1)  # (so that the next checkpoint's second is a later one)
    elsewhere = {**world, "state": world["state"].parent / "other-state"}
    assert _hook(elsewhere).returncode == 0  # a hook that does not see this outbox
    assert _sk(world, "outbox", "--deliver").returncode == 0
    text = _local_note(world)
    _once_each(text, 3)  # (lints clean: no AW016)
    stamps = [cp.at for cp in sessionkit.loads(text).checkpoints]
    assert stamps == sorted(stamps)


def test_an_entry_the_store_refuses_waits_without_stopping_other_sessions(
    world: dict[str, Path],
) -> None:
    assert _hook(world).returncode == 0
    _kept_while_locked(world)
    (page,) = (world["repo"] / "aiwiki" / "sessions").glob("*.md")
    page.write_bytes(b"\xff\xfe not a note\n")  # its session's note no longer reads
    other = "0c9f2e11-1111-4222-8333-944455566677"
    res = _sk(world, "hook", "pre-compact", stdin=_payload(world["repo"], session_id=other))
    assert res.returncode == 0, res.stderr
    (line,) = res.stderr.splitlines()
    assert "outbox entry" in line and "waits" in line and "Traceback" not in line
    assert len(_waiting(world)) == 1  # still there, for when the note is mended
    (new,) = (world["repo"] / "aiwiki" / "sessions").glob("*-0c9f2e1.md")
    _once_each(new.read_text(encoding="utf-8"), 1, key="0c9f2e1.md")


def test_the_outbox_keeps_no_secret(world: dict[str, Path]) -> None:
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    (world["repo"] / ".sessionkit.toml").write_text(
        f'[hooks]\ndirective_action = "use {token} to push"\n', encoding="utf-8"
    )
    assert _hook(world).returncode == 0
    line = _kept_while_locked(world)
    assert token not in line
    (entry,) = _waiting(world)
    text = entry.read_text(encoding="utf-8")
    assert token not in text and "[REDACTED:" in text


@pytest.mark.parametrize("event", ["pre-compact", "session-start"])
def test_one_message_for_one_deadline(world: dict[str, Path], event: str) -> None:
    # a 1 ms budget is spent before the run starts: the deadline stops it, whatever the load
    res = _sk(world, "hook", event, stdin=_payload(world["repo"]), deadline_ms=1)
    assert res.returncode == 0
    (line,) = res.stderr.splitlines()
    assert json.loads(res.stdout) == {"systemMessage": line}
    assert line.startswith(f"sessionkit hook: {event} stopped at its 0.001 s deadline while")


# -- concurrent hooks on one session ---------------------------------------------------------


def _concurrent(world: dict[str, Path], n: int, deadline_ms: int) -> list[str]:
    """``n`` hooks at once on one session: each records or keeps its checkpoint (the
    lines of those that kept it)."""
    assert SCRIPT is not None
    procs = [
        subprocess.Popen(
            [SCRIPT, "hook", "pre-compact"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=world["repo"],
            env=_env(world, deadline_ms),
        )
        for _ in range(n)
    ]
    payload = _payload(world["repo"]).decode()
    for p in procs:
        assert p.stdin is not None
        p.stdin.write(payload)
        p.stdin.close()
    kept = []
    for p in procs:
        assert p.wait(timeout=300) == 0
        assert p.stderr is not None
        err = p.stderr.read()
        # nothing said, or the one line of a checkpoint kept in the outbox
        assert err == "" or (len(err.splitlines()) == 1 and "waits in the outbox" in err), err
        kept += err.splitlines()
    print(f"\n{len(kept)} of {n} kept in the outbox", *kept, sep="\n")
    return kept


@pytest.mark.parametrize("n", [8, pytest.param(20, marks=pytest.mark.stress)])
def test_concurrent_hooks_on_a_local_store_all_land(world: dict[str, Path], n: int) -> None:
    # time enough whatever the load (a 120 s hook deadline): every lock wait ends; the
    # outbox's own tests are above.  (20 at once: stress only, as test_hooks'
    # test_twenty_concurrent_pre_compacts_leave_twenty_checkpoints runs 20 by default.)
    _concurrent(world, n, 120_000)
    res = _sk(world, "outbox", "--deliver")
    assert res.returncode == 0, res.stdout + res.stderr
    _once_each(_local_note(world), n)


@pytest.mark.s3
def test_concurrent_hooks_on_s3_land_directly_given_time(world: dict[str, Path], moto: Any) -> None:
    # with time enough, no hook needs the outbox: each lost compare-and-swap is retried
    _s3_config(world["repo"], moto.endpoint_url, moto.bucket)
    assert _concurrent(world, 8, 240_000) == []
    _once_each(_s3_note(moto), 8)
