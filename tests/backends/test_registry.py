"""The backend registry and open_store: URLs, layout detection, lazy loading, install hints."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

import sessionkit
from sessionkit import backends
from sessionkit.backends import (
    Store,
    available_backends,
    detect_layout,
    get_backend,
    register_backend,
)
from sessionkit.backends.aiwiki import AiwikiStore
from sessionkit.backends.basic_memory import BasicMemoryStore
from sessionkit.errors import MissingDependencyError, NotFoundError, StoreError


@pytest.fixture
def clean_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    plugins = backends._plugins
    monkeypatch.setattr(plugins, "targets", dict(plugins.targets))
    monkeypatch.setattr(plugins, "loaded", dict(plugins.loaded))
    monkeypatch.setattr(plugins, "read", plugins.read)


def test_builtins_registered() -> None:
    assert {"aiwiki", "basic-memory", "bm"} <= set(available_backends())


def test_import_sessionkit_does_not_import_fsspec() -> None:
    import subprocess

    code = "import sys, sessionkit; sys.exit('fsspec' in sys.modules or 'filelock' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0


def test_plain_path_and_file_url(tmp_path: Path) -> None:
    (tmp_path / "aiwiki" / "sessions").mkdir(parents=True)
    for url in (tmp_path, str(tmp_path), f"file://{tmp_path}"):
        store = sessionkit.open_store(url)
        assert isinstance(store, AiwikiStore)
        store.write_text("a.md", "x")
    assert (tmp_path / "aiwiki" / "sessions" / "a.md").read_text() == "x"


def test_aiwiki_sessions_path_means_repo_root(tmp_path: Path) -> None:
    (tmp_path / "aiwiki" / "sessions").mkdir(parents=True)
    (tmp_path / "aiwiki" / "sessions" / "2026-05-18-0000000.md").write_text("x")
    for url in (tmp_path / "aiwiki" / "sessions", tmp_path / "aiwiki"):
        store = sessionkit.open_store(url)
        assert store.layout == "aiwiki"
        assert store.keys() == ["2026-05-18-0000000.md"]


def test_detects_basic_memory_project(tmp_path: Path) -> None:
    (tmp_path / "sessions").mkdir()
    (tmp_path / "sessions" / "Session one.md").write_text("---\ntype: session\n---\n")
    store = sessionkit.open_store(tmp_path)
    assert isinstance(store, BasicMemoryStore)
    assert store.keys() == ["Session one.md"]
    assert detect_layout(str(tmp_path)) == "basic-memory"


def test_empty_folder_defaults_to_aiwiki(tmp_path: Path) -> None:
    assert sessionkit.open_store(tmp_path / "new").layout == "aiwiki"


def test_bm_path_url(tmp_path: Path) -> None:
    store = sessionkit.open_store(f"bm://{tmp_path}")
    assert isinstance(store, BasicMemoryStore)
    store.write_text("n.md", "x")
    assert (tmp_path / "sessions" / "n.md").read_text() == "x"


def test_bm_project_name_uses_basic_memory_config(tmp_path: Path, monkeypatch: Any) -> None:
    project = tmp_path / "notes"
    project.mkdir()
    cfg = tmp_path / "cfg"
    cfg.mkdir()
    config = {"default_project": "main", "projects": {"main": {"path": str(project)}}}
    (cfg / "config.json").write_text(json.dumps(config))
    monkeypatch.setenv("BASIC_MEMORY_CONFIG_DIR", str(cfg))
    store = sessionkit.open_store("bm://main")
    store.write_text("n.md", "x")
    assert (project / "sessions" / "n.md").read_text() == "x"
    assert sessionkit.open_store("bm://").url == "bm://"  # the default project
    # a configured project folder is detected even before it has a sessions/ folder
    shutil.rmtree(project / "sessions")
    assert sessionkit.open_store(project).layout == "basic-memory"
    with pytest.raises(NotFoundError, match="no Basic Memory project named"):
        sessionkit.open_store("bm://nope")


def test_memory_url() -> None:
    store = sessionkit.open_store("memory://reg-test", layout="aiwiki")
    store.write_text("a.md", "x")
    assert sessionkit.open_store("memory://reg-test").keys() == ["a.md"]


def test_url_none_uses_configuration_or_cwd(tmp_path: Path, monkeypatch: Any) -> None:
    (tmp_path / "aiwiki" / "sessions").mkdir(parents=True)
    (tmp_path / "aiwiki" / "sessions" / "2026-05-18-0000000.md").write_text("x")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    for name in list(os.environ):
        if name.startswith("SESSIONKIT_"):
            monkeypatch.delenv(name)
    store = sessionkit.open_store()
    assert store.keys() == ["2026-05-18-0000000.md"]


def test_missing_optional_dependency_gives_install_hint(monkeypatch: Any) -> None:
    import fsspec

    def no_s3fs(url: str, **kwargs: Any) -> Any:
        err = ImportError("Install s3fs to access S3")
        err.name = "s3fs"
        raise err

    monkeypatch.setattr(fsspec, "url_to_fs", no_s3fs)
    with pytest.raises(MissingDependencyError, match=r"pip install 'sessionkit\[s3\]'") as info:
        sessionkit.open_store("s3://bucket/wiki", layout="aiwiki")
    assert isinstance(info.value, ImportError)  # still catchable as one


def test_backend_module_missing_gives_hint(clean_registry: Any) -> None:
    register_backend("ghost", "sessionkit_ghost_backend_missing:Store")
    with pytest.raises(MissingDependencyError, match="pip install"):
        get_backend("ghost")


def test_unknown_backend_is_store_error() -> None:
    with pytest.raises(StoreError, match="unknown store backend"):
        sessionkit.open_store("memory://x", layout="nope")


def test_register_refuses_duplicates(clean_registry: Any) -> None:
    with pytest.raises(ValueError):
        register_backend("aiwiki", lambda url, **kw: None)


def test_custom_scheme_backend(clean_registry: Any, tmp_path: Path) -> None:
    opened: list[tuple[str, dict[str, Any]]] = []

    def factory(url: str, *, format: str | None = None, **options: Any) -> Store:
        opened.append((url, options))
        return AiwikiStore.open(str(tmp_path), format=format)

    register_backend("mydb", factory)
    store = sessionkit.open_store("mydb://anything", token="t")
    assert isinstance(store, AiwikiStore)
    assert opened == [("mydb://anything", {"token": "t"})]


def test_entry_point_backend_loaded_lazily(clean_registry: Any, monkeypatch: Any) -> None:
    from importlib import metadata

    class EP:
        name = "fromplugin"
        value = "sessionkit.backends.aiwiki:AiwikiStore"

    def fake_entry_points(group: str) -> list[EP]:
        return [EP()] if group == "sessionkit.backends" else []

    monkeypatch.setattr(metadata, "entry_points", fake_entry_points)
    backends._plugins.read = False
    assert "fromplugin" in available_backends()
    assert get_backend("fromplugin") == AiwikiStore.open


def test_local_store_refuses_fsspec_options() -> None:
    with pytest.raises(StoreError):
        sessionkit.open_store("/tmp/x", layout="aiwiki", endpoint_url="http://x")


def test_single_writer_required_where_no_guarantee(monkeypatch: Any) -> None:
    """A filesystem with neither lock nor conditional writes refuses racy writes by default."""
    import fsspec
    from fsspec.implementations.memory import MemoryFileSystem

    class PlainFS(MemoryFileSystem):
        protocol = ("plainfs",)

    fsspec.register_implementation("plainfs", PlainFS, clobber=True)
    store = sessionkit.open_store("plainfs://w", layout="aiwiki")
    store.write_text("a.md", "x")  # a blind overwrite is allowed
    with pytest.raises(StoreError, match="single_writer=True"):
        store.write_text("b.md", "x", create=True)
    with pytest.raises(StoreError, match="single_writer=True"):
        store.update_text("a.md", lambda t: (t or "") + "y")
    ok = sessionkit.open_store("plainfs://w", layout="aiwiki", single_writer=True)
    assert ok.update_text("a.md", lambda t: (t or "") + "y") == "xy"
    assert ok.describe()["guarantee"] == "single-writer"
