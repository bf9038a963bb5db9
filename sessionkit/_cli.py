"""The click group behind ``sessionkit`` (imported only off the hook path).

Thin by rule: each command (in :mod:`sessionkit._commands`) parses options,
calls library functions and prints.  Errors from the library and the
operating system become one line on stderr with exit code 2.
"""

from __future__ import annotations

import os
from collections import UserDict
from collections.abc import Sequence
from importlib import import_module
from typing import Any

import click

from . import __version__
from ._commands.base import FINDINGS, OK, Group, State, say
from ._lint_cmd import _silence_stdout

__all__ = ["cli", "run"]

#: the commands, by the module of :mod:`sessionkit._commands` that defines them (in its
#: ``COMMANDS``)
_HOMES = {
    "notes": "lint show ls index",
    "edit": "directive context add status new set prune",
    "stores": "migrate convert sync outbox",
    "setup": "init install-hooks plugin config",
    "search": "search mcp hook",
}


class _Commands(UserDict[str, Any]):
    """The root group's commands by name, each imported with its module on first look-up
    (``lint`` imports only ``notes``); every name is known at once (help, "Did you mean")."""

    def __getitem__(self, name: str) -> click.Command:
        if isinstance(self.data[name], str):  # (the module defining it, not imported yet)
            for command in import_module(f"sessionkit._commands.{self.data[name]}").COMMANDS:
                self.data[str(command.name)] = command
        return self.data[name]  # type: ignore[no-any-return]


@click.group(
    cls=Group,
    commands=_Commands({n: m for m, names in _HOMES.items() for n in names.split()}),
    context_settings={"help_option_names": ["-h", "--help"]},
)
@click.version_option(__version__, "--version", prog_name="sessionkit")
@click.option(
    "-C",
    "directory",
    metavar="DIR",
    type=click.Path(file_okay=False),
    help="Run as if started in DIR (as git -C): paths, .sessionkit.toml and the repository "
    "root are found from DIR.",
)
@click.pass_context
def cli(ctx: click.Context, directory: str | None) -> None:
    """Read, lint, edit, migrate and convert AI coding-agent session handoff notes.

    Works on aiwiki session pages (aiwiki/sessions/*.md, schema v1 and v2)
    and Basic Memory session notes, in a folder or on any fsspec URL
    (s3://, gs://, memory://, bm://PROJECT), without changing a byte nobody
    edited.  A command without a store uses the configured one
    (.sessionkit.toml, see `sessionkit config show`), else the repository.

    Exit codes: 0 ok, 1 findings of error severity, 2 unusable input or usage.
    Run `sessionkit COMMAND --help` for a command's options.
    """
    if directory is not None:  # as git -C: run as if started in DIR (restored after)
        previous = os.getcwd()
        os.chdir(directory)
        ctx.call_on_close(lambda: os.chdir(previous))
        directory = os.getcwd()
    ctx.obj = State(directory)


def run(args: Sequence[str]) -> int:
    """Run the click group on ``args`` (without the program name); return the exit code."""
    try:
        result = cli.main(args=list(args), prog_name="sessionkit", standalone_mode=False)
    except click.ClickException as exc:
        exc.show()
        return exc.exit_code
    except click.exceptions.Exit as exc:
        return exc.exit_code
    except click.Abort:
        say("sessionkit: aborted", err=True)
        return 130
    except BrokenPipeError:
        _silence_stdout()
        return FINDINGS
    return result if isinstance(result, int) else OK
