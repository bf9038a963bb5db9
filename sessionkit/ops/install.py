"""Writing sessionkit into agents' hook configurations (``sessionkit install-hooks``).

Each agent's JSON file (:data:`AGENTS`; docs/hooks.md) has the *settings* shape,
``{"hooks": {EVENT: [{"matcher": "", "hooks": [{"type": "command", "command": …}]}]}}``,
or the *named* one, the same table under a hook name (``{"sessionkit": {EVENT: …}}``).
Installing twice changes nothing; an entry of ours spelled otherwise (another venv) is
updated in place; every other key and hook is kept in order, with the file's indentation;
removal takes out exactly sessionkit's entries.  Files are written atomically, only when
they change.
"""

from __future__ import annotations

import json
import os
import shlex
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs

from .._atomic import write_atomic
from ..errors import ParseError, ValidationError

__all__ = [
    "AGENTS",
    "HOOK_COMMANDS",
    "MCP_SERVER_NAME",
    "HooksReport",
    "agent_config_path",
    "agent_events",
    "hook_program",
    "install_agent_hooks",
    "install_hooks",
    "register_mcp_server",
]

#: the agents whose hooks sessionkit writes: (project file, user file, shape)
AGENTS: dict[str, tuple[str, str, str]] = {
    "claude": (".claude/settings.json", "~/.claude/settings.json", "settings"),
    "codex": (".codex/hooks.json", "~/.codex/hooks.json", "settings"),
    "antigravity": (".agents/hooks.json", "~/.gemini/config/hooks.json", "named"),
}

#: each agent's hook events and the sessionkit hook that answers it
_EVENTS: dict[str, dict[str, str]] = {
    "claude": {
        "PreCompact": "pre-compact",
        "SessionStart": "session-start",
        "SessionEnd": "session-end",
    },
    # (Codex has no session end: its Stop fires when the agent ends a turn)
    "codex": {"PreCompact": "pre-compact", "SessionStart": "session-start", "Stop": "session-end"},
    "antigravity": {
        "PreCompress": "pre-compact",
        "SessionStart": "session-start",
        "SessionEnd": "session-end",
    },
}

#: Claude Code's entries: event -> command (the program's spelling aside)
HOOK_COMMANDS: dict[str, str] = {
    event: f"sessionkit hook {name}" for event, name in _EVENTS["claude"].items()
}

#: the name sessionkit's MCP server is registered under
MCP_SERVER_NAME = "sessionkit"
#: the hook name of sessionkit's entries in a *named* configuration
_HOOK_NAME = "sessionkit"


@attrs.frozen(kw_only=True)
class HooksReport:
    """What :func:`install_agent_hooks` (or :func:`register_mcp_server`) did.

    Attributes:
        path: the configuration file.
        changed: whether the file was written.
        added: events whose entry was added or updated.
        removed: events whose entry was removed.
        command: the program the entries run.
        warning: a problem to tell the user (no absolute sessionkit found).
        agent: the agent whose file it is.
    """

    path: str
    changed: bool
    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    command: str = ""
    warning: str | None = None
    agent: str = "claude"


def agent_events(agent: str) -> dict[str, str]:
    """``{agent's event name: sessionkit hook name}`` for ``agent``."""
    try:
        return dict(_EVENTS[agent])
    except KeyError:
        raise ValidationError(f"unknown agent {agent!r} (one of {', '.join(AGENTS)})") from None


def agent_config_path(agent: str, scope: str, repo_root: str | os.PathLike[str]) -> Path:
    """Where ``agent`` reads its hooks for ``scope`` (``project`` or ``user``)."""
    agent_events(agent)  # (refuses an unknown agent)
    project, user, _ = AGENTS[agent]
    if scope == "user":
        return Path(os.path.expanduser(user))
    return Path(repo_root) / project


def hook_program() -> tuple[str, str | None]:
    """The command that runs sessionkit from any shell, and a warning when there is none.

    Agents run hook commands with their own ``PATH``, outside any virtual
    environment, so a bare ``sessionkit`` is not found after a venv install.
    The answer is the absolute path of the ``sessionkit`` script installed next
    to this interpreter; else ``<absolute python> -m sessionkit``; else (no
    absolute interpreter known) the bare name, with a warning saying so.
    """
    import sys

    python = sys.executable
    if python and os.path.isabs(python):
        folder = os.path.dirname(python)
        for name in ("sessionkit", "sessionkit.exe"):
            script = os.path.join(folder, name)
            if os.path.isfile(script) and os.access(script, os.X_OK):
                return shlex.quote(script), None
        return f"{shlex.quote(python)} -m sessionkit", None
    return "sessionkit", (
        "cannot tell where this sessionkit is installed (no absolute interpreter path); "
        "the hooks run 'sessionkit' from the agent's PATH: check that it finds it"
    )


def _is_ours(hook: Any, name: str) -> bool:
    """Whether ``hook`` runs ``sessionkit hook NAME`` by any spelling of sessionkit, so that
    reinstalling updates an entry another version or environment wrote."""
    if not isinstance(hook, dict):
        return False
    cmd = hook.get("command")
    if not isinstance(cmd, str):
        return False
    try:
        words = shlex.split(cmd)
    except ValueError:
        words = cmd.split()
    for start in range(1, min(len(words), 4)):
        head, tail = words[:start], words[start:]
        if tail[:2] != ["hook", name] or tail[2:] not in ([], ["--agent", tail[-1]]):
            continue
        if len(head) == 1 and (head[0] == "sessionkit" or head[0].endswith("/sessionkit")):
            return True
        if len(head) == 3 and head[1:] == ["-m", "sessionkit"]:
            return True
    return False


def _read_json(path: Path, what: str) -> tuple[str, dict[str, Any]]:
    try:
        raw = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raw = ""
    if not raw.strip():
        return raw, {}
    try:
        data = json.loads(raw)
    except ValueError as exc:
        line = getattr(exc, "lineno", None)
        raise ParseError(f"not valid JSON: {exc}", path=str(path), line=line) from None
    if not isinstance(data, dict):
        raise ValidationError(f"{what} must be a JSON object", path=str(path), line=1)
    return raw, data


def _indent_of(raw: str) -> int | str:
    """The file's indentation unit (2 when it cannot tell)."""
    for line in raw.splitlines()[1:]:
        stripped = line.lstrip(" \t")
        if stripped and stripped != line:
            lead = line[: len(line) - len(stripped)]
            return lead if "\t" in lead else len(lead)
    return 2


def _edit_json(
    path: Path,
    what: str,
    key: str,
    remove: bool,
    program: str | None,
    edit: Callable[[dict[str, Any], str], tuple[list[str], list[str]]],
    agent: str = "claude",
) -> HooksReport:
    """Apply ``edit(table, program) -> (added, removed)`` to the object under ``key`` of a
    JSON file (``remove``: a table left empty goes); the file is written only if it changed."""
    raw, data = _read_json(path, what)
    table = data.get(key)
    if table is not None and not isinstance(table, dict):
        raise ValidationError(f"'{key}' must be a JSON object", path=str(path))
    warning = None
    if program is None:
        program, warning = hook_program()
    if table is None and not remove:
        table = data[key] = {}
    added, removed = edit(table if table is not None else {}, program)
    if removed and not table:
        del data[key]
    if added or removed:
        text = json.dumps(data, indent=_indent_of(raw), ensure_ascii=False)
        write_atomic(path, text + ("\n" if not raw or raw.endswith("\n") else ""))
    return HooksReport(
        path=str(path),
        changed=bool(added or removed),
        added=tuple(added),
        removed=tuple(removed),
        command=program,
        warning=warning if not remove else None,
        agent=agent,
    )


def install_agent_hooks(
    agent: str,
    config_path: str | os.PathLike[str],
    remove: bool = False,
    *,
    program: str | None = None,
) -> HooksReport:
    """Merge (or with ``remove``, take out) sessionkit's hook entries for ``agent``.

    Each of the agent's events (:func:`agent_events`) runs ``PROGRAM hook NAME``
    (``--agent AGENT`` added for agents other than Claude Code, so the hook
    answers in that agent's shape). See the module docs for the files.

    Raises:
        ParseError: the file is not valid JSON.
        ValidationError: an unknown agent, or the file's shape is not the agent's.
    """
    events = agent_events(agent)
    key = "hooks" if AGENTS[agent][2] == "settings" else _HOOK_NAME
    suffix = "" if agent == "claude" else f" --agent {agent}"
    path = Path(config_path)

    def edit(table: dict[str, Any], program: str) -> tuple[list[str], list[str]]:
        added: list[str] = []
        removed: list[str] = []
        for event, name in events.items():
            if remove:
                groups = table.get(event)
                if not isinstance(groups, list):
                    continue
                kept, hit = [], False
                for group in groups:
                    inner = group.get("hooks") if isinstance(group, dict) else None
                    if isinstance(inner, list) and any(_is_ours(h, name) for h in inner):
                        hit = True
                        rest = [h for h in inner if not _is_ours(h, name)]
                        if rest:
                            kept.append({**group, "hooks": rest})
                        continue
                    kept.append(group)
                if hit:
                    removed.append(event)
                    if kept:
                        table[event] = kept
                    else:
                        del table[event]
                continue
            groups = table.setdefault(event, [])
            if not isinstance(groups, list):
                raise ValidationError(f"'{key}.{event}' must be a JSON list", path=str(path))
            wanted = f"{program} hook {name}{suffix}"
            present = False
            for group in groups:
                inner = group.get("hooks") if isinstance(group, dict) else None
                for h in inner if isinstance(inner, list) else ():
                    if _is_ours(h, name):
                        present = True
                        if h.get("command") != wanted:  # another spelling: make it ours
                            h["command"] = wanted
                            added.append(event)
            if not present:
                groups.append({"matcher": "", "hooks": [{"type": "command", "command": wanted}]})
                added.append(event)
        return added, removed

    return _edit_json(path, "a hook configuration", key, remove, program, edit, agent)


def install_hooks(
    settings_path: str | os.PathLike[str],
    remove: bool = False,
    *,
    program: str | None = None,
) -> HooksReport:
    """Claude Code's entries (``PreCompact``, ``SessionStart``, ``SessionEnd``) in a
    settings file: :func:`install_agent_hooks` for ``claude``."""
    return install_agent_hooks("claude", settings_path, remove, program=program)


def register_mcp_server(
    config_path: str | os.PathLike[str],
    remove: bool = False,
    *,
    program: str | None = None,
) -> HooksReport:
    """Add (or with ``remove``, take out) the ``sessionkit`` entry of an ``.mcp.json`` file.

    The entry is Claude Code's project-scope form, ``{"mcpServers":
    {"sessionkit": {"type": "stdio", "command": …, "args": [..., "mcp"]}}}``,
    with the command of :func:`hook_program`; the rules are those of
    :func:`install_agent_hooks`.

    Raises:
        ParseError: the file is not valid JSON.
        ValidationError: it is not a JSON object, or ``mcpServers`` is not one.
    """

    def edit(servers: dict[str, Any], program: str) -> tuple[list[str], list[str]]:
        if remove:
            if MCP_SERVER_NAME not in servers:
                return [], []
            del servers[MCP_SERVER_NAME]
            return [], [MCP_SERVER_NAME]
        argv = shlex.split(program)
        wanted = {"command": argv[0], "args": [*argv[1:], "mcp"]}
        entry = servers.get(MCP_SERVER_NAME)
        if isinstance(entry, dict) and {k: entry.get(k) for k in wanted} == wanted:
            return [], []
        base = entry if isinstance(entry, dict) else {"type": "stdio"}
        servers[MCP_SERVER_NAME] = {**base, **wanted}
        return [MCP_SERVER_NAME], []

    path = Path(config_path)
    return _edit_json(path, "an MCP configuration", "mcpServers", remove, program, edit)
