"""The entry-point scan agrees with importlib.metadata, with and without a declaring package."""

from __future__ import annotations

import importlib
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

from sessionkit._entry_points import entry_points

GROUP = "sessionkit.formats"


def _importlib(group: str) -> list[tuple[str, str]]:
    return [(ep.name, ep.value) for ep in metadata.entry_points(group=group)]


def _dist(folder: Path, name: str, entry_points_txt: str, suffix: str = ".dist-info") -> None:
    info = folder / f"{name}-1.0{suffix}"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(entry_points_txt)


def test_no_declaring_package_gives_what_importlib_gives() -> None:
    assert entry_points(GROUP) == _importlib(GROUP) == []


def test_a_declaring_package_on_the_path_is_found(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _dist(tmp_path, "other", "[console_scripts]\nx = other:main\n")
    _dist(tmp_path, "plug", f"[{GROUP}]\nmine = plug.mod:ADAPTER\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.invalidate_caches()
    assert entry_points(GROUP) == _importlib(GROUP) == [("mine", "plug.mod:ADAPTER")]


def test_an_egg_info_package_is_found(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _dist(tmp_path, "eggy", f"[{GROUP}]\negg = eggy:A\n", suffix=".egg-info")
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.invalidate_caches()
    assert ("egg", "eggy:A") in entry_points(GROUP)
    assert entry_points(GROUP) == _importlib(GROUP)


def test_a_zip_on_the_path_is_left_to_importlib(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import zipfile

    archive = tmp_path / "plugins.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("zipped-1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: zipped\n")
        zf.writestr("zipped-1.0.dist-info/entry_points.txt", f"[{GROUP}]\nz = zipped:A\n")
    monkeypatch.syspath_prepend(str(archive))
    importlib.invalidate_caches()
    assert entry_points(GROUP) == _importlib(GROUP) == [("z", "zipped:A")]


def test_lint_does_not_import_importlib_metadata(tmp_path: Path) -> None:
    page = Path(__file__).parent / "corpus"
    note = next(p for p in sorted(page.rglob("*.md")))
    code = (
        "import sys\nfrom sessionkit.cli import main\n"
        f"code = main(['sessionkit', 'lint', '--jobs', '1', {str(note)!r}])\n"
        "print('importlib.metadata' in sys.modules, 'multiprocessing' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split()[-2:] == ["False", "False"]
