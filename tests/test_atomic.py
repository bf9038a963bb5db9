"""sessionkit._atomic: whole-file replacement that leaves no temp file behind."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from sessionkit._atomic import write_atomic


def test_replaces_content_keeps_mode_and_leaves_no_temp(tmp_path: Path) -> None:
    target = tmp_path / "sub" / "settings.json"
    write_atomic(target, "a\r\nb\n")  # folder created, line ends untouched
    assert target.read_bytes() == b"a\r\nb\n"
    os.chmod(target, 0o640)
    write_atomic(target, b"new")
    assert target.read_bytes() == b"new"
    assert target.stat().st_mode & 0o777 == 0o640
    assert sorted(p.name for p in target.parent.iterdir()) == ["settings.json"]


def test_failure_keeps_the_old_file_and_removes_the_temp(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "config.toml"
    target.write_text("old")

    def boom(src: str, dst: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OSError):
        write_atomic(target, "new")
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["config.toml"]
