"""Interop fixtures: an isolated Basic Memory home (temp config dir, no network) and one
indexing run shared by the interop tests.

Skipped unless ``basic_memory`` is importable (it needs Python >= 3.12; ``nox -s
interop`` builds that environment).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent
PROJECT = "demo"


def bm_env(root: Path) -> dict[str, str]:
    """Environment that keeps basic-memory inside ``root`` and off the network."""
    env = dict(os.environ)
    for key in list(env):
        if key.startswith("BASIC_MEMORY_"):
            del env[key]
    home = root / "home"
    home.mkdir(parents=True, exist_ok=True)
    unreachable = "http://127.0.0.1:9"
    env.update(
        HOME=str(home),
        XDG_CONFIG_HOME=str(root / "xdg"),
        BASIC_MEMORY_CONFIG_DIR=str(root / "config"),
        BASIC_MEMORY_HOME=str(home / "basic-memory"),
        BASIC_MEMORY_AUTO_UPDATE="false",
        BASIC_MEMORY_CLOUD_PROMO_OPT_OUT="true",
        BASIC_MEMORY_LOGFIRE_ENABLED="false",
        BASIC_MEMORY_NO_PROMOS="1",
        HF_HUB_OFFLINE="1",
        DO_NOT_TRACK="1",
        HTTP_PROXY=unreachable,
        HTTPS_PROXY=unreachable,
        http_proxy=unreachable,
        https_proxy=unreachable,
        NO_PROXY="",
        no_proxy="",
    )
    env.pop("PYTEST_CURRENT_TEST", None)
    return env


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


class BMHome:
    """An isolated Basic Memory installation with one project."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.env = bm_env(root)
        self.project_dir = root / PROJECT
        self.project_dir.mkdir(parents=True, exist_ok=True)
        config = root / "config"
        config.mkdir(parents=True, exist_ok=True)
        (config / "config.json").write_text(
            json.dumps(
                {
                    "default_project": PROJECT,
                    "projects": {PROJECT: {"path": str(self.project_dir)}},
                    "auto_update": False,
                    "cloud_promo_opt_out": True,
                    "logfire_enabled": False,
                    "format_on_save": False,
                }
            ),
            encoding="utf-8",
        )
        self.db = config / "memory.db"

    def bm(self, *args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
        exe = shutil.which("bm", path=str(Path(sys.executable).parent)) or shutil.which("bm")
        cmd = [exe, *args] if exe else [sys.executable, "-m", "basic_memory.cli.main", *args]
        proc = subprocess.run(
            cmd, env=self.env, capture_output=True, text=True, timeout=timeout, check=False
        )
        if proc.returncode != 0:
            raise AssertionError(f"bm {' '.join(args)} failed:\n{proc.stdout}\n{proc.stderr}")
        return proc

    def write_notes(self, spec: list[dict[str, Any]]) -> list[dict[str, Any]]:
        spec_path = self.root / "spec.json"
        out_path = self.root / "written.json"
        spec_path.write_text(json.dumps(spec), encoding="utf-8")
        proc = subprocess.run(
            [sys.executable, str(HERE / "_bm_writer.py"), str(spec_path), str(out_path)],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=900,
            check=False,
        )
        if proc.returncode != 0:
            raise AssertionError(f"write_note failed:\n{proc.stdout}\n{proc.stderr}")
        result: list[dict[str, Any]] = json.loads(out_path.read_text(encoding="utf-8"))
        return result

    def query(self, sql: str, *params: Any) -> list[tuple[Any, ...]]:
        with sqlite3.connect(self.db) as con:
            return list(con.execute(sql, params))

    def entity(self, file_path: str) -> dict[str, Any]:
        rows = self.query(
            "select id, title, permalink, checksum, note_type from entity where file_path = ?",
            file_path,
        )
        assert rows, f"basic-memory did not index {file_path}"
        eid, title, permalink, checksum, note_type = rows[0]
        observations = [
            (cat, content, ctx, tuple(json.loads(tags) or ()) if tags else ())
            for cat, content, ctx, tags in self.query(
                "select category, content, context, tags from observation "
                "where entity_id = ? order by id",
                eid,
            )
        ]
        relations = [
            tuple(r)
            for r in self.query(
                "select relation_type, to_name, context from relation "
                "where from_id = ? order by id",
                eid,
            )
        ]
        return {
            "id": eid,
            "title": title,
            "permalink": permalink,
            "checksum": checksum,
            "note_type": note_type,
            "observations": observations,
            "relations": relations,
        }


@pytest.fixture(scope="session")
def bm_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BMHome]:
    pytest.importorskip("basic_memory", reason="interop needs basic-memory (Python >= 3.12)")
    keep = os.environ.get("SESSIONKIT_INTEROP_DIR")  # reuse one run while debugging
    root = Path(keep) if keep else tmp_path_factory.mktemp("bm")
    yield BMHome(root)


def write_plugin_notes(home: BMHome) -> dict[str, bytes]:
    """Write the golden ``coding_session`` checkpoints (tests/corpus/coding-session)
    with basic-memory's own ``write_note``; checks it writes them byte for byte and
    returns them by file name."""
    from sessionkit import loads

    corpus = Path(__file__).resolve().parents[1] / "corpus" / "coding-session"
    specs = []
    for path in sorted(corpus.glob("*.md")):
        text = path.read_text(encoding="utf-8")
        meta = dict(loads(text, path=path.name).origin.document.meta)
        specs.append(
            {
                "title": meta.pop("title"),
                "folder": "sessions",
                "note_type": meta.pop("type"),
                "tags": meta.pop("tags"),
                "metadata": {k: v for k, v in meta.items() if k != "permalink"},
                "content": text.split("---\n", 2)[2].lstrip("\n"),
            }
        )
    home.write_notes(specs)
    written = {p.name: p.read_bytes() for p in (home.project_dir / "sessions").glob("*.md")}
    # the golden notes are what write_note writes
    assert written == {p.name: p.read_bytes() for p in corpus.glob("*.md")}
    return written
