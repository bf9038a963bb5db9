"""The hook's arguments, its payload reader, the user configuration file, and the
``session-start`` lane (kept: it saves about 3x on ``sessionkit hook session-start``).

The lane reads the newest page of a plain local aiwiki folder with the page parser
alone; with it off (``SESSIONKIT_FAST_PATHS=-session-start``) the store answers.  One
test holds the two to the same reply.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
from pathlib import Path

import pytest

from sessionkit.hooks import main, read_payload
from tests.hook_env import isolated

ROOT = Path(__file__).resolve().parent.parent


def _start(root: Path, *args: str, source: str = "startup") -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    payload = json.dumps({"cwd": str(root), "source": source}).encode()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["session-start", *args], stdin=io.BytesIO(payload))
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("source", ["startup", "compact"])
def test_the_session_start_lane_answers_as_the_store_does(tmp_path: Path, source: str) -> None:
    shutil.copytree(ROOT / "examples" / "wiki", tmp_path / "wiki")
    root = tmp_path / "wiki"
    (root / "aiwiki" / "sessions" / "2026-05-18-0000000.md").write_text(
        "---\nschema_id: session\nschema_version: 2\n---\n", encoding="utf-8"
    )
    with isolated(tmp_path):
        lane = _start(root, source=source)
        os.environ["SESSIONKIT_FAST_PATHS"] = "-session-start"
        store = _start(root, source=source)
    assert lane == store
    reply = json.loads(lane[1].splitlines()[0])
    assert "2026-05-18-7e8a3f2.md" in reply["hookSpecificOutput"]["additionalContext"]
    assert "2026-05-18-0000000.md" in reply["systemMessage"]


# -- arguments ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "usage_error"),
    [
        (["session-start"], False),
        (["session-start", "--plain"], False),
        (["session-start", "--json"], False),
        (["session-start", "--plain", "--plain"], False),
        (["session-start", "--plain", "--json"], True),
        (["session-start", "--store", "{root}"], False),
        (["session-start", "--store={root}", "--plain"], False),
        (["session-start", "-o", "lock_timeout=3", "--store", "{root}"], False),
        (["session-start", "--storage-option=lock_timeout=3", "--store", "{root}"], False),
        (["session-start", "-o", "novalue"], True),
        (["session-start", "-o", "=x"], True),
        (["session-start", "-olock_timeout=3"], False),
        (["session-start", "--store"], True),
        (["session-start", "--store", "-x"], True),
        (["session-start", "--pl"], False),  # an abbreviation
        (["session-start", "--help"], False),
        (["session-start", "--plain=x"], True),
        (["session-start", "-o=lock_timeout=3"], False),
        (["session-start", "--ag", "codex"], False),
        (["session-start", "--agent", "x"], True),
        (["session-start", "--json", "--json"], False),
        (["session-start", "extra"], True),
        (["pre-compact", "--json"], True),
        (["--he"], False),
        (["-h"], False),
        (["pre-compact", "--plain"], True),
        (["pre-compact", "--store", "{root}"], False),
        (["bogus"], True),
        ([], True),
    ],
)
def test_arguments(tmp_path: Path, argv: list[str], usage_error: bool) -> None:
    """A usage error exits 1 (never 2: Claude Code would block the agent); the rest 0."""
    shutil.copytree(ROOT / "examples" / "wiki", tmp_path / "wiki")
    root = tmp_path / "wiki"
    args = [a.replace("{root}", str(root)) for a in argv]
    payload = json.dumps({"cwd": str(root)}).encode()

    def run() -> tuple[int, str, str]:
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(list(args), stdin=io.BytesIO(payload))
        return code, out.getvalue(), err.getvalue()

    with isolated(tmp_path):
        code, _, err = run()
    assert code == (1 if usage_error else 0), err
    assert "Traceback" not in err


# -- JSON in and out -----------------------------------------------------------------------------


def test_a_payload_nested_too_deep_is_named() -> None:
    data = b"[" * 100_000 + b"]" * 100_000
    assert read_payload(io.BytesIO(data)) == ({}, "payload is nested too deep to decode")


# -- the user configuration file ---------------------------------------------------------------


@pytest.mark.parametrize(
    "env",
    [
        {},
        {"XDG_CONFIG_HOME": "/x/conf"},
        {"XDG_CONFIG_HOME": "/x/conf/"},
        {"XDG_CONFIG_HOME": "relative/conf"},
        {"XDG_CONFIG_HOME": ""},
        {"HOME": "/home/someone/"},
        {"HOME": "/"},
        {"HOME": "relative-home"},
        {"SESSIONKIT_CONFIG": "~/my/sk.toml"},
    ],
)
def test_user_config_file_is_where_platformdirs_says(
    env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import platformdirs

    from sessionkit.config import user_config_path

    for name in ("XDG_CONFIG_HOME", "SESSIONKIT_CONFIG"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    if "SESSIONKIT_CONFIG" in env:
        expected = Path(os.path.expanduser(env["SESSIONKIT_CONFIG"]))
    else:
        expected = Path(platformdirs.user_config_dir("sessionkit")) / "config.toml"
    assert user_config_path() == expected
