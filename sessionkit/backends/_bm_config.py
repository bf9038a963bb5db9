"""Basic Memory's configuration, read the way Basic Memory reads it (no import of it).

The config dir is ``$BASIC_MEMORY_CONFIG_DIR``, else ``$XDG_CONFIG_HOME/basic-memory``,
else ``~/.basic-memory``; its ``config.json`` maps project names to folders (or to
``{"path": ...}``); names match by their permalink slug; the default project is
``$BASIC_MEMORY_DEFAULT_PROJECT``, the config's, else the first; with no projects,
``main`` at ``$BASIC_MEMORY_HOME`` or ``~/basic-memory``.  Reads one file, writes none.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs

from ..adapters.profiles import normalize_project_name
from ..errors import NotFoundError, ParseError

__all__ = ["BMConfig", "BMProject", "config_dir", "load_config", "resolve_project"]


@attrs.frozen
class BMProject:
    """A Basic Memory project: its configured name and its folder."""

    name: str
    path: Path


@attrs.frozen
class BMConfig:
    """``config.json``'s projects (name -> folder, in file order), default project, and
    the file read (``None``: none)."""

    projects: Mapping[str, Path]
    default_project: str | None
    path: Path | None


def _home(env: Mapping[str, str]) -> Path:
    home = env.get("HOME") or env.get("USERPROFILE")
    return Path(home) if home else Path.home()


def config_dir(env: Mapping[str, str] | None = None) -> Path:
    """Basic Memory's config directory for this environment."""
    env = os.environ if env is None else env
    if env.get("BASIC_MEMORY_CONFIG_DIR"):
        return Path(env["BASIC_MEMORY_CONFIG_DIR"])
    if env.get("XDG_CONFIG_HOME"):
        return Path(env["XDG_CONFIG_HOME"]) / "basic-memory"
    return _home(env) / ".basic-memory"


def _default_home(env: Mapping[str, str]) -> Path:
    value = env.get("BASIC_MEMORY_HOME")
    return Path(value) if value else _home(env) / "basic-memory"


def _project_path(name: str, entry: Any, cfg: Path) -> Path:
    if isinstance(entry, str):
        return Path(entry).expanduser()
    if isinstance(entry, Mapping) and isinstance(entry.get("path"), str):
        return Path(entry["path"]).expanduser()
    raise ParseError(
        f"project {name!r} in Basic Memory's config has no usable 'path'", path=str(cfg)
    )


def load_config(env: Mapping[str, str] | None = None) -> BMConfig:
    """Read ``config.json`` from :func:`config_dir` (current and legacy forms);
    :class:`ParseError` when it is not a JSON object or a project has no path."""
    env = os.environ if env is None else env
    path = config_dir(env) / "config.json"
    data: Any = {}
    read_from: Path | None = None
    if path.is_file():
        read_from = path
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError) as exc:
            raise ParseError(f"cannot read Basic Memory's config: {exc}", path=str(path)) from None
        except json.JSONDecodeError as exc:
            raise ParseError(
                f"Basic Memory's config is not valid JSON: {exc.msg}",
                path=str(path),
                line=exc.lineno,
            ) from None
        if not isinstance(data, dict):
            raise ParseError("Basic Memory's config is not a JSON object", path=str(path), line=1)
    raw = data.get("projects")
    raw = {} if raw is None else raw
    if not isinstance(raw, dict):
        raise ParseError("'projects' in Basic Memory's config is not an object", path=str(path))
    projects = {str(name): _project_path(str(name), entry, path) for name, entry in raw.items()}
    if not projects:
        projects = {"main": _default_home(env)}
    default = data.get("default_project") if "default_project" in data else next(iter(projects))
    env_default = env.get("BASIC_MEMORY_DEFAULT_PROJECT")
    if env_default:
        default = env_default
    if isinstance(default, str) and _find(projects, default) is None:
        default = next(iter(projects))
    return BMConfig(
        projects=projects,
        default_project=default if isinstance(default, str) else None,
        path=read_from,
    )


def _find(projects: Mapping[str, Path], name: str) -> str | None:
    if name in projects:
        return name
    key = normalize_project_name(name)
    for configured in projects:
        if normalize_project_name(configured) == key:
            return configured
    return None


def resolve_project(name: str | None = None, env: Mapping[str, str] | None = None) -> BMProject:
    """The project called ``name`` (Basic Memory's name matching), or the default one;
    :class:`NotFoundError` listing the known ones when there is none."""
    cfg = load_config(env)
    where = str(cfg.path) if cfg.path is not None else str(config_dir(env) / "config.json")
    wanted = name if name else cfg.default_project
    if not wanted:
        raise NotFoundError(
            "Basic Memory has no default project; name one (bm://PROJECT)", path=where
        )
    found = _find(cfg.projects, wanted)
    if found is None:
        known = ", ".join(sorted(cfg.projects)) or "none"
        raise NotFoundError(
            f"no Basic Memory project named {wanted!r} (known: {known})", path=where
        )
    return BMProject(name=found, path=cfg.projects[found])
