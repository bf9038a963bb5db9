"""Basic Memory config resolution: config dir, config.json forms, project name matching."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sessionkit.backends._bm_config import config_dir, load_config, resolve_project
from sessionkit.errors import NotFoundError, ParseError


def env_for(tmp_path: Path, **extra: str) -> dict[str, str]:
    return {"HOME": str(tmp_path / "home"), **extra}


def write_config(folder: Path, data: object) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.json").write_text(json.dumps(data), encoding="utf-8")


def test_config_dir_precedence(tmp_path: Path) -> None:
    home = tmp_path / "home"
    assert config_dir(env_for(tmp_path)) == home / ".basic-memory"
    assert config_dir(env_for(tmp_path, XDG_CONFIG_HOME="/x")) == Path("/x/basic-memory")
    env = env_for(tmp_path, XDG_CONFIG_HOME="/x", BASIC_MEMORY_CONFIG_DIR="/c")
    assert config_dir(env) == Path("/c")


def test_current_form_and_name_normalisation(tmp_path: Path) -> None:
    cfg = tmp_path / "cfg"
    write_config(
        cfg,
        {
            "default_project": "main",
            "projects": {"main": {"path": "/data/main"}, "My Research": {"path": "/data/r"}},
        },
    )
    env = env_for(tmp_path, BASIC_MEMORY_CONFIG_DIR=str(cfg))
    assert resolve_project(None, env).path == Path("/data/main")
    for name in ("My Research", "my-research", "MY_RESEARCH", "my research"):
        found = resolve_project(name, env)
        assert (found.name, found.path) == ("My Research", Path("/data/r"))
    with pytest.raises(NotFoundError, match="known: My Research, main"):
        resolve_project("nope", env)
    assert resolve_project(None, {**env, "BASIC_MEMORY_DEFAULT_PROJECT": "my-research"}).name == (
        "My Research"
    )


def test_legacy_form(tmp_path: Path) -> None:
    cfg = tmp_path / "home" / ".basic-memory"
    write_config(cfg, {"projects": {"notes": "/data/notes", "work": "/data/work"}})
    env = env_for(tmp_path)
    assert load_config(env).default_project == "notes"  # the first project
    assert resolve_project("work", env).path == Path("/data/work")


def test_defaults_without_a_config_file(tmp_path: Path) -> None:
    env = env_for(tmp_path)
    assert resolve_project(None, env).path == tmp_path / "home" / "basic-memory"
    env = env_for(tmp_path, BASIC_MEMORY_HOME="/bm")
    project = resolve_project("main", env)
    assert (project.name, project.path) == ("main", Path("/bm"))


def test_explicit_null_default_and_stale_default(tmp_path: Path) -> None:
    cfg = tmp_path / "cfg"
    env = env_for(tmp_path, BASIC_MEMORY_CONFIG_DIR=str(cfg))
    write_config(cfg, {"default_project": None, "projects": {"a": {"path": "/a"}}})
    with pytest.raises(NotFoundError, match="no default project"):
        resolve_project(None, env)
    write_config(cfg, {"default_project": "gone", "projects": {"a": {"path": "/a"}}})
    assert resolve_project(None, env).name == "a"


@pytest.mark.parametrize(
    "content",
    ["{not json", "[]", json.dumps({"projects": []}), json.dumps({"projects": {"a": {}}})],
)
def test_bad_config_is_a_parse_error(tmp_path: Path, content: str) -> None:
    cfg = tmp_path / "cfg"
    cfg.mkdir()
    (cfg / "config.json").write_text(content, encoding="utf-8")
    with pytest.raises(ParseError) as info:
        resolve_project(None, env_for(tmp_path, BASIC_MEMORY_CONFIG_DIR=str(cfg)))
    assert str(cfg / "config.json") in str(info.value)
