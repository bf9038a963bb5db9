"""Format plugins declared by installed distributions are found (sessionkit.adapters)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

GROUP = "sessionkit.formats"


def _dist(folder: Path, name: str, entry_points_txt: str, suffix: str = ".dist-info") -> None:
    info = folder / f"{name}-1.0{suffix}"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(entry_points_txt)


def _formats(*path: Path) -> list[str]:
    """``sessionkit.adapters.available_formats()`` in a process with ``path`` importable."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([*map(str, path), env.get("PYTHONPATH", "")])
    code = "from sessionkit.adapters import available_formats; print(*available_formats())"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return out.stdout.split()


@pytest.mark.parametrize("suffix", [".dist-info", ".egg-info"])
def test_a_declaring_package_on_the_path_is_found(tmp_path: Path, suffix: str) -> None:
    _dist(tmp_path, "other", "[console_scripts]\nx = other:main\n", suffix)
    _dist(tmp_path, "plug", f"[{GROUP}]\nmine = plug.mod:ADAPTER\n", suffix)
    assert "mine" in _formats(tmp_path)
    assert "mine" not in _formats()


def test_a_zip_on_the_path_is_read_too(tmp_path: Path) -> None:
    import zipfile

    archive = tmp_path / "plugins.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("zipped-1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: zipped\n")
        zf.writestr("zipped-1.0.dist-info/entry_points.txt", f"[{GROUP}]\nz = zipped:A\n")
    assert "z" in _formats(archive)
