"""Basic Memory config resolution through ``open_store("bm://…")``: config dir,
config.json forms, project name matching."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import sessionkit
from sessionkit.errors import NotFoundError, ParseError

_VARS = (
    "XDG_CONFIG_HOME",
    "BASIC_MEMORY_CONFIG_DIR",
    "BASIC_MEMORY_DEFAULT_PROJECT",
    "BASIC_MEMORY_HOME",
)


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for name in _VARS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    return monkeypatch


def write_config(folder: Path, data: object) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.json").write_text(json.dumps(data), encoding="utf-8")


def root(url: str) -> str:
    """The project folder a ``bm://`` URL opens."""
    return str(sessionkit.open_store(url).storage.root)  # type: ignore[attr-defined]


def real(path: Path | str) -> str:
    return os.path.realpath(path)


def test_config_dir_precedence(tmp_path: Path, env: pytest.MonkeyPatch) -> None:
    for where in ("home/.basic-memory", "xdg/basic-memory", "c"):
        write_config(tmp_path / where, {"projects": {"main": str(tmp_path / where / "p")}})
    assert root("bm://main") == real(tmp_path / "home/.basic-memory/p")
    env.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    assert root("bm://main") == real(tmp_path / "xdg/basic-memory/p")
    env.setenv("BASIC_MEMORY_CONFIG_DIR", str(tmp_path / "c"))
    assert root("bm://main") == real(tmp_path / "c/p")


def test_current_form_and_name_normalisation(tmp_path: Path, env: pytest.MonkeyPatch) -> None:
    cfg = tmp_path / "cfg"
    main, research = tmp_path / "data-main", tmp_path / "data-r"
    write_config(
        cfg,
        {
            "default_project": "main",
            "projects": {"main": {"path": str(main)}, "My Research": {"path": str(research)}},
        },
    )
    env.setenv("BASIC_MEMORY_CONFIG_DIR", str(cfg))
    assert root("bm://") == real(main)
    for name in ("My Research", "my-research", "MY_RESEARCH", "my research"):
        assert root(f"bm://{name}") == real(research)
    with pytest.raises(NotFoundError, match="known: My Research, main"):
        root("bm://nope")
    env.setenv("BASIC_MEMORY_DEFAULT_PROJECT", "my-research")
    assert root("bm://") == real(research)


def test_legacy_form(tmp_path: Path, env: pytest.MonkeyPatch) -> None:
    notes, work = tmp_path / "notes", tmp_path / "work"
    write_config(
        tmp_path / "home/.basic-memory", {"projects": {"notes": str(notes), "work": str(work)}}
    )
    assert root("bm://") == real(notes)  # the first project
    assert root("bm://work") == real(work)


def test_defaults_without_a_config_file(tmp_path: Path, env: pytest.MonkeyPatch) -> None:
    assert root("bm://") == real(tmp_path / "home" / "basic-memory")
    env.setenv("BASIC_MEMORY_HOME", str(tmp_path / "bm"))
    assert root("bm://main") == real(tmp_path / "bm")


def test_explicit_null_default_and_stale_default(tmp_path: Path, env: pytest.MonkeyPatch) -> None:
    cfg = tmp_path / "cfg"
    env.setenv("BASIC_MEMORY_CONFIG_DIR", str(cfg))
    write_config(cfg, {"default_project": None, "projects": {"a": {"path": str(tmp_path / "a")}}})
    with pytest.raises(NotFoundError, match="no default project"):
        root("bm://")
    write_config(cfg, {"default_project": "gone", "projects": {"a": {"path": str(tmp_path / "a")}}})
    assert root("bm://") == real(tmp_path / "a")


@pytest.mark.parametrize(
    "content",
    ["{not json", "[]", json.dumps({"projects": []}), json.dumps({"projects": {"a": {}}})],
)
def test_bad_config_is_a_parse_error(tmp_path: Path, env: pytest.MonkeyPatch, content: str) -> None:
    cfg = tmp_path / "cfg"
    cfg.mkdir()
    (cfg / "config.json").write_text(content, encoding="utf-8")
    env.setenv("BASIC_MEMORY_CONFIG_DIR", str(cfg))
    with pytest.raises(ParseError) as info:
        root("bm://")
    assert str(cfg / "config.json") in str(info.value)
