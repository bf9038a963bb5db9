"""#45: ``sessionkit sync`` between a local wiki and S3 (moto on loopback), from the CLI:
the storage options come from ``.sessionkit.toml`` as for ``ls``/``convert``, or per side."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from sessionkit import open_store, sync
from sessionkit.cli import main
from sessionkit.ops import lifecycle
from sessionkit.testing.s3 import MotoS3

pytestmark = pytest.mark.s3

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
    monkeypatch.chdir(root)
    return root


def _notes(server: MotoS3, url: str) -> list[str]:
    return [p for p in server.filesystem().find(url[5:]) if p.endswith(".md")]


def test_sync_reads_storage_options_from_the_configuration(
    wiki: Path, s3_server: MotoS3, s3_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # before: the configured endpoint was ignored ("host not found" after ~15 s)
    (wiki / ".sessionkit.toml").write_text(
        f'[storage_options."{s3_url}"]\n'
        f'endpoint_url = "{s3_server.endpoint_url}"\n'
        "use_listings_cache = false\n"
    )
    code = main(["sessionkit", "sync", ".", f"{s3_url}/bm"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "wrote 6;" in out
    assert len(_notes(s3_server, f"{s3_url}/bm")) == 6
    code = main(["sessionkit", "sync", ".", f"{s3_url}/bm"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "wrote 0; 6 unchanged" in out


def test_sync_takes_options_per_side_like_convert(
    wiki: Path, s3_server: MotoS3, s3_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    opts = [f"endpoint_url={s3_server.endpoint_url}", "use_listings_cache=false"]
    # -o goes to the remote side only (before: "local stores take no storage options")
    shared = [x for o in opts for x in ("-o", o)]
    code = main(["sessionkit", "sync", ".", f"{s3_url}/bm", *shared])
    _, err = capsys.readouterr()
    assert code == 0, err
    assert len(_notes(s3_server, f"{s3_url}/bm")) == 6
    # --dst-option is B's own, --src-option A's (the same names as convert's)
    own = [x for o in opts for x in ("--dst-option", o)]
    code = main(["sessionkit", "sync", ".", f"{s3_url}/bm2", *own])
    _, err = capsys.readouterr()
    assert code == 0, err
    own = [x for o in opts for x in ("--src-option", o)]
    code = main(["sessionkit", "sync", f"{s3_url}/bm3", ".", *own])
    _, err = capsys.readouterr()
    assert code == 0, err
    assert len(_notes(s3_server, f"{s3_url}/bm3")) == 6
    # an fsspec option given to the local side on purpose is refused, naming it
    code = main(["sessionkit", "sync", ".", f"{s3_url}/bm", "--src-option", "anon=true"])
    _, err = capsys.readouterr()
    assert code == 2 and "anon" in err


def test_an_edit_on_s3_while_sync_writes_is_kept(
    wiki: Path, s3_server: MotoS3, s3_url: str, s3_options: dict[str, Any]
) -> None:
    aw = open_store(wiki, layout="aiwiki")
    bm = open_store(f"{s3_url}/bm", layout="basic-memory", **s3_options)
    assert sync(aw, bm).ok
    lifecycle.consume_directives(aw, "2026-05-18-7e8a3f2.md", all=True)
    key = "Session 2026-05-18 7e8a3f2 — move readings from SQLite to Postgres.md"
    theirs = bm.read_text(key) + "\nan editor's line\n"
    original = bm.update_text
    fs = s3_server.filesystem()

    def update_text(k: str, fn: Callable[[str | None], str | None]) -> str | None:
        def checked_then_edited(current: str | None) -> str | None:
            new = fn(current)
            if k == key and current != theirs:  # another writer, between read and PUT
                fs.pipe(f"{s3_url[5:]}/bm/sessions/{key}", theirs.encode())
            return new

        return original(k, checked_then_edited)

    bm.update_text = update_text  # type: ignore[method-assign]
    report = sync(aw, bm)
    assert bm.read_text(key) == theirs  # the If-Match PUT refused to write over it
    (clash,) = report.conflicts
    assert "while the sync ran" in clash.message
