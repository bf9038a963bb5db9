"""Setting up: ``init``, ``install-hooks``, ``plugin build`` and ``config``."""

from __future__ import annotations

import json
import os
from pathlib import Path

import click

from .base import Failure, Group, emit_json, json_option, json_text, local, state

AGENTS = ["claude", "codex", "antigravity"]


def _hook_program() -> str:
    from ..ops.install import hook_program

    return hook_program()[0]


@click.command(name="init")
@click.argument("directory", required=False, metavar="[DIR]")
@click.option(
    "--layout",
    type=click.Choice(["aiwiki", "basic-memory"]),
    default="aiwiki",
    show_default=True,
    help="The notes' layout.",
)
@click.option(
    "--hooks",
    "agents",
    multiple=True,
    type=click.Choice(AGENTS),
    help="Also install this agent's hooks (repeatable).",
)
@json_option()
def init_(directory: str | None, layout: str, agents: tuple[str, ...], as_json: bool) -> None:
    """Make a store to start from in DIR (default: the repository root).

    aiwiki: aiwiki/sessions/ with INDEX.md and the schema page
    aiwiki/schemas/session.md; basic-memory: sessions/. A .sessionkit.toml is
    written only when DIR is not the repository root. Nothing that is there
    is overwritten: running it again changes nothing.
    """
    import attrs

    from ..config import repository_root
    from ..ops.install import agent_config_path, install_agent_hooks
    from ..ops.setup import init_store

    top = repository_root(state().directory)
    root = Path(local(directory)).resolve() if directory else top
    report = init_store(root, layout, config_root=top, program=_hook_program())
    hooks = [
        install_agent_hooks(agent, agent_config_path(agent, "project", top))
        for agent in dict.fromkeys(agents)
    ]
    if as_json:
        data = {**attrs.asdict(report), "hooks": [attrs.asdict(h) for h in hooks]}
        return emit_json(data, scrub=False)
    for path in report.made:
        click.echo(f"made  {os.path.normpath(os.path.join(report.root, path))}")
    for path in report.kept:
        click.echo(f"kept  {os.path.normpath(os.path.join(report.root, path))} (there already)")
    for h in hooks:
        click.echo(f"hooks {h.path}: {'added ' + ', '.join(h.added) if h.changed else 'unchanged'}")
    click.echo("next:")
    for step in report.next[1:] if hooks else report.next:
        click.echo(f"  {step}")


@click.command(name="install-hooks")
@click.option(
    "--agent",
    "agents",
    multiple=True,
    type=click.Choice(AGENTS),
    help="The agent whose hooks to write (repeatable; default: claude).",
)
@click.option(
    "--project",
    "scope",
    flag_value="project",
    default=True,
    help="The repository's configuration (default): .claude/settings.json, "
    ".codex/hooks.json, .agents/hooks.json.",
)
@click.option(
    "--user",
    "scope",
    flag_value="user",
    help="Your own: ~/.claude/settings.json, ~/.codex/hooks.json, ~/.gemini/config/hooks.json.",
)
@click.option("--remove", is_flag=True, help="Take sessionkit's hook entries out.")
@click.option(
    "--mcp",
    "with_mcp",
    is_flag=True,
    help="Also register `sessionkit mcp` in the repository's .mcp.json (project scope).",
)
@json_option()
def install_hooks_(
    agents: tuple[str, ...], scope: str, remove: bool, with_mcp: bool, as_json: bool
) -> None:
    """Write sessionkit's hooks into each agent's own hook configuration.

    Claude Code: PreCompact, SessionStart, SessionEnd; Codex: PreCompact,
    SessionStart, Stop; Antigravity: PreCompress, SessionStart, SessionEnd.
    The command written runs this sessionkit from any shell (the installed
    script's absolute path, else `<python> -m sessionkit`), since agents run
    hooks outside your virtual environment; a warning says when that cannot be
    found.  Idempotent; every other key and hook is kept; --remove takes out
    exactly sessionkit's entries.
    """
    from ..config import repository_root
    from ..ops.install import agent_config_path, install_agent_hooks, register_mcp_server

    top = repository_root(state().directory)
    if with_mcp and scope == "user":
        raise Failure(
            "--mcp registers the server per repository (.mcp.json); for every project run: "
            "claude mcp add --scope user sessionkit -- " + _hook_program() + " mcp"
        )
    reports = [
        install_agent_hooks(agent, agent_config_path(agent, scope, top), remove=remove)
        for agent in dict.fromkeys(agents or ("claude",))
    ]
    if with_mcp:
        reports.append(register_mcp_server(top / ".mcp.json", remove=remove))
    if reports[0].warning:
        click.echo(f"sessionkit: warning: {reports[0].warning}", err=True)
    if as_json:  # several files: a list, in the order they were written
        texts = [json_text(r) for r in reports]
        return click.echo(texts[0] if len(texts) == 1 else "[\n" + ",\n".join(texts) + "\n]")
    for each in reports:
        if not each.changed:
            click.echo(f"{each.path}: unchanged ({'not' if remove else 'already'} installed)")
            continue
        done = each.removed if remove else each.added
        click.echo(f"{each.path}: {'removed' if remove else 'added'} {', '.join(done)}")


@click.group(cls=Group)
def plugin() -> None:
    """Package sessionkit for an agent (a Claude Code plugin)."""


@plugin.command(name="build")
@click.argument("directory", metavar="DIR")
@json_option()
def plugin_build(directory: str, as_json: bool) -> None:
    """Write a Claude Code plugin into DIR: .claude-plugin/plugin.json, hooks/hooks.json
    (this sessionkit's hooks, by absolute path) and .mcp.json (sessionkit mcp).

    Install it with: claude plugin install DIR (or add DIR to a marketplace).
    """
    from ..ops.setup import build_plugin

    report = build_plugin(local(directory))
    if as_json:
        return emit_json(report)
    for rel in report.files:
        click.echo(f"wrote {os.path.join(report.root, rel)}")
    click.echo(f"hooks and MCP server run: {report.command}")


@click.group(cls=Group)
def config() -> None:
    """Show and edit the configuration (.sessionkit.toml, the user file)."""


@config.command(name="show")
@json_option("Print a JSON list of values and sources.")
def config_show(as_json: bool) -> None:
    """Print every effective value and where it came from (secrets masked)."""
    from ..config import describe, format_config

    if as_json:
        emit_json(describe(state().config), scrub=False)
    else:
        click.echo(format_config(state().config), nl=False)


@config.command(name="set")
@click.argument("key")
@click.argument("value")
@click.option("--project", is_flag=True, help="The project file (the default).")
@click.option("--user", is_flag=True, help="The user file.")
def config_set(key: str, value: str, project: bool, user: bool) -> None:
    """Set KEY to VALUE in .sessionkit.toml (default) or the user file.

    The value is checked against the key's type and range first (a refused
    value writes nothing).  Only the key's line changes, or one line is added;
    comments and order are kept.  Secret-looking keys are refused:
    credentials belong to fsspec and the cloud SDKs.
    """
    from ..config import set_value

    if project and user:
        raise click.UsageError("--project and --user exclude each other: name one file")
    scope = "user" if user else "project"
    written = set_value(key, value, scope=scope, start_dir=state().directory)
    click.echo(f"{written}: {key} set")


@config.command(name="path")
@json_option("Print a JSON object.")
def config_path(as_json: bool) -> None:
    """Print the project and user configuration files (and whether they exist)."""
    from ..config import config_file, find_project_file, user_config_path

    found = find_project_file(state().directory)
    files = {
        "project": found if found is not None else config_file("project", state().directory),
        "user": user_config_path(),
    }
    if as_json:
        data = {k: {"path": str(p), "exists": p.is_file()} for k, p in files.items()}
        return click.echo(json.dumps(data, indent=2))
    for label, path in files.items():
        click.echo(f"{label}: {path}{'' if path.is_file() else '  (absent)'}")


COMMANDS = [init_, install_hooks_, plugin, config]
