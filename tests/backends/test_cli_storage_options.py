"""#19: storage options per side: a local wiki pushed to a bucket from the command line."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from sessionkit.cli import main
from sessionkit.testing.s3 import MotoS3

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "wiki"


@pytest.fixture
def wiki(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in list(os.environ):
        if name.startswith("SESSIONKIT_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    root = tmp_path / "wiki"
    shutil.copytree(EXAMPLES, root)
    monkeypatch.chdir(tmp_path)
    return root


def _opts(server: MotoS3, flag: str = "-o") -> list[str]:
    out = []
    for key, value in server.storage_options.items():
        text = str(value).lower() if isinstance(value, bool) else str(value)
        out += [flag, f"{key}={text}"]
    return out


def test_convert_local_to_s3_with_o(
    wiki: Path, s3_server: MotoS3, s3_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # before: "local stores take no storage options", exit 2
    code = main(["sessionkit", "convert", str(wiki), f"{s3_url}/bm", *_opts(s3_server)])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "wrote 6 new" in out
    fs = s3_server.filesystem()
    assert len([p for p in fs.find(s3_url[5:]) if p.endswith(".md")]) == 6
    # and back, the local side again taking none of the fsspec options
    back = wiki.parent / "back"
    code = main(["sessionkit", "convert", f"{s3_url}/bm", str(back), *_opts(s3_server)])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert len(list((back / "aiwiki" / "sessions").glob("*.md"))) == 6


def test_per_side_options(
    wiki: Path, s3_server: MotoS3, s3_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["sessionkit", "convert", str(wiki), f"{s3_url}/bm"]
    code = main([*args, *_opts(s3_server, "--dst-option")])
    _, err = capsys.readouterr()
    assert code == 0, err
    # an fsspec option given to the local side on purpose is still refused, naming it
    code = main([*args, "--src-option", "anon=true"])
    _, err = capsys.readouterr()
    assert code == 2 and "anon" in err
