"""Whole-file replacement (``sessionkit config set`` writes through it) leaves no temp file
behind, keeps the mode, and keeps the old file when the write fails."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from sessionkit.config import set_value


def test_replaces_content_keeps_mode_and_leaves_no_temp(tmp_path: Path) -> None:
    target = tmp_path / "sub" / "config.toml"
    env = {"SESSIONKIT_CONFIG": str(target)}
    set_value("store.format", "aiwiki-v2", scope="user", env=env)  # folder created
    assert target.read_bytes() == b'[store]\nformat = "aiwiki-v2"\n'
    target.write_bytes(b"# mine\r\n[store]\r\nformat = 'aiwiki-v1'\r\n")
    os.chmod(target, 0o640)
    set_value("store.format", "basic-memory", scope="user", env=env)
    assert target.read_bytes() == b"# mine\r\n[store]\r\nformat = 'basic-memory'\r\n"
    assert target.stat().st_mode & 0o777 == 0o640
    assert sorted(p.name for p in target.parent.iterdir()) == ["config.toml"]


def test_failure_keeps_the_old_file_and_removes_the_temp(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "config.toml"
    target.write_text("[store]\n")

    def boom(src: str, dst: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OSError):
        set_value("store.format", "aiwiki-v2", scope="user", env={"SESSIONKIT_CONFIG": str(target)})
    assert target.read_text() == "[store]\n"
    assert [p.name for p in tmp_path.iterdir()] == ["config.toml"]
