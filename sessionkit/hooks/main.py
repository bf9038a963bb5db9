"""``sessionkit hook EVENT``: the argument parser and the run around each event."""

from __future__ import annotations

import os
import sys
from types import SimpleNamespace

from .common import (
    DEADLINE_ENV,
    DEADLINE_MS,
    NOTICES,
    Deadline,
    DeadlineExceeded,
    deadline_ms,
    describe,
    kept_line,
    notify,
    process_age,
    quiet_stdout,
    say,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import IO, Any

__all__ = ["AGENTS", "main"]

#: the agents whose hook payloads and answers the hooks know (``--agent``)
AGENTS = ("claude", "codex", "antigravity")


def main(argv: Sequence[str] | None = None, stdin: IO[bytes] | None = None) -> int:
    """Run ``sessionkit hook EVENT ...`` (``argv``: the arguments after ``hook``, default
    ``sys.argv[2:]``; ``stdin``: the payload's stream, default ``sys.stdin.buffer``) and
    return the exit code: never 2 (Claude Code would block the agent); a usage error exits
    1 (Claude Code shows its message); any other failure exits 0 with one line on stderr
    and the same words as the reply's ``systemMessage``; ``--help`` exits 0."""
    args_list = list(sys.argv[2:] if argv is None else argv)
    NOTICES.clear()
    try:
        args: Any = _parse(args_list)
    except _UsageError as exc:
        event, message = exc.args
        prog = f"sessionkit hook {event}".rstrip()
        sys.stderr.write(f"{_usage(event)}\n{prog}: error: {message}\n")
        return 1
    if args is None:  # (a help was printed)
        return 0
    try:
        code = _run(args, stdin)
    finally:
        plain = args.event == "session-start" and args.plain and args.agent == "claude"
        if not plain:
            notify()
    return code


def _run(args: Any, stdin: IO[bytes] | None) -> int:
    if stdin is None:
        stdin = getattr(sys.stdin, "buffer", None)
    budget = (deadline_ms(os.environ.get(DEADLINE_ENV)) or DEADLINE_MS) / 1000
    process_entry = sys.argv[1:2] == ["hook"]  # the console script, not a caller's process
    deadline = Deadline(budget, since_start=process_age() if process_entry else 0.0)
    deadline.process_entry = process_entry
    try:
        deadline.arm()
        try:
            if args.event == "pre-compact":
                from .pre_compact import pre_compact

                return pre_compact(args, stdin, deadline)
            if args.event == "session-end":
                from .pre_compact import session_end

                return session_end(args, stdin, deadline)
            from .session_start import session_start

            return session_start(args, stdin, deadline)
        finally:
            deadline.disarm()
    except DeadlineExceeded as exc:
        message = f"{args.event} stopped at its {exc.seconds:g} s deadline while {exc.stage}"
        if exc.kept is not None:
            message += f"; {kept_line(exc.kept or None)}"
        else:
            message += " (nothing partial was written; raise hooks.deadline_ms if the store is"
            message += " slow)"
        NOTICES.clear()  # said here, whole
        say(message)
        notify()
        return 0
    except BrokenPipeError:
        quiet_stdout()
        return 0
    except Exception as exc:  # a hook must never break the agent
        if os.environ.get("SESSIONKIT_DEBUG"):
            raise
        say(f"{args.event} failed: {describe(exc)}")
        return 0


#: each event's help (``hook --help`` lists them all)
_EVENTS = {
    "pre-compact": "PreCompact: record a checkpoint (the time, the trigger, the work item, a\n"
    "Dream directive) in the note of the payload's session_id, creating it on first use.\n"
    "Prints a one-line systemMessage JSON; exits 0.",
    "session-start": "SessionStart: print the latest note's summary, its unconsumed directives,\n"
    "next steps and open questions, within hooks.context_budget (Claude Code hook JSON\n"
    "by default, or --plain text). Exits 0.",
    "session-end": "SessionEnd (Codex: Stop): set the session's date_end and, for a real session\n"
    "end, close its checkpoint log with a SessionEnd entry; only when the session has\n"
    "a note. Quick (Claude Code gives SessionEnd hooks 1.5 s). Exits 0.",
}
_START = "session-start"
#: the options every event takes, each with a value, as its errors name them
_VALUES = {"--agent": "--agent", "--store": "--store", "--storage-option": "--storage-option/-o"}
_USAGE = "usage: sessionkit hook [-h] EVENT ..."
_EVENT_USAGE = (
    "usage: sessionkit hook {0} [-h] [--agent {{claude,codex,antigravity}}] [--store URL]\n"
    "                        {1}[--storage-option KEY=VALUE]{2}"
)
_FLAGS = " [--plain | --json]"
_HELP = (
    f"{_USAGE}\n\nClaude Code hooks: each reads the hook's JSON payload on stdin (session_id,\n"
    "cwd, transcript_path, source...) and never breaks the agent: a problem exits 0\n"
    "and is shown to the user in one line. Installed by `sessionkit install-hooks`;\n"
    "the store is --store, else hooks.store, else the configured one.\n\nevents:\n"
    + "".join(f"  {k}\n    {v.replace(chr(10), chr(10) + '    ')}\n" for k, v in _EVENTS.items())
    + "\noptions:\n  -h, --help     show this help message and exit\n\n"
    "`sessionkit hook EVENT --help` lists an event's options.\n"
)
_OPTIONS_HELP = """options:
  -h, --help            show this help message and exit
  --agent {claude,codex,antigravity}
                        the agent running the hook: its payload and the answer it accepts
  --store URL           store path or URL (default: configured)
  --storage-option KEY=VALUE, -o KEY=VALUE
                        fsspec storage option (repeatable); VALUE is a TOML literal or a string
"""
_FLAGS_HELP = """  --plain               print plain text
  --json                print Claude Code hook JSON
"""


def _is_option(arg: str) -> bool:
    """Whether argparse takes ``arg`` for an option (not ``-``, a number, words with a space)."""
    number = arg[1:].replace(".", "", 1).isdigit()
    return arg[:1] == "-" and arg != "-" and " " not in arg and not number


class _UsageError(Exception):
    """A command line the hook cannot run: ``(event or "", message)``."""


def _usage(event: str) -> str:
    if not event:
        return _USAGE
    return _EVENT_USAGE.format(event, " " * len(event), _FLAGS if event == _START else "")


def _parse(argv: Sequence[str]) -> Any:
    """``argv`` parsed as argparse parses a command line (a long option may be abbreviated,
    ``--opt=VALUE``, ``-oVALUE``); ``None`` once a help was printed.

    Raises:
        _UsageError: an unknown event or option, a missing or bad value.
    """
    head = argv[0] if argv else ""
    if head == "-h" or (len(head) > 2 and "--help".startswith(head)):
        sys.stdout.write(_HELP)
        return None
    if head not in _EVENTS:
        choices = ", ".join(map(repr, _EVENTS))
        why = f"argument EVENT: invalid choice: {head!r} (choose from {choices})"
        raise _UsageError("", why if head else "the following arguments are required: EVENT")
    args, at = SimpleNamespace(event=head, agent="claude", store=None, plain=None), 1
    args.storage_option = []
    names = [*_VALUES, "--help", *(("--plain", "--json") if head == _START else ())]
    while at < len(argv):
        arg, value = argv[at], None
        at += 1
        if arg[:2] == "-o":  # -o VALUE, -oVALUE, -o=VALUE
            name, value = "--storage-option", arg[2 + (arg[2:3] == "=") :] if arg[2:] else None
        elif arg[:2] == "--" and len(arg) > 2:
            name, eq, rest = arg.partition("=")
            found = [name] if name in names else [n for n in names if n.startswith(name)]
            if len(found) > 1:
                raise _UsageError(head, f"ambiguous option: {name} could match {', '.join(found)}")
            name, value = (found or [""])[0], rest if eq else None
        else:
            name = "-h" if arg == "-h" else ""
        label = f"argument {_VALUES.get(name, name)}"
        if not name:
            raise _UsageError(head, f"unrecognized arguments: {' '.join(argv[at - 1 :])}")
        if name in ("-h", "--help"):
            flags = _FLAGS_HELP if head == _START else ""
            sys.stdout.write(f"{_usage(head)}\n\n{_EVENTS[head]}\n\n{_OPTIONS_HELP}{flags}")
            return None
        if name in ("--plain", "--json"):
            if value is not None:
                raise _UsageError(head, f"{label}: ignored explicit argument {value!r}")
            if args.plain is (name == "--json"):
                other = "--json" if name == "--plain" else "--plain"
                raise _UsageError(head, f"{label}: not allowed with argument {other}")
            args.plain = name == "--plain"
            continue
        if value is None:
            if at == len(argv) or _is_option(argv[at]):
                raise _UsageError(head, f"{label}: expected one argument")
            value, at = argv[at], at + 1
        if name == "--agent" and value not in AGENTS:
            why = f"invalid choice: {value!r} (choose from {', '.join(map(repr, AGENTS))})"
            raise _UsageError(head, f"{label}: {why}")
        if name != "--storage-option":
            setattr(args, name[2:], value)
        elif "=" in value and value.partition("=")[0].strip():
            args.storage_option.append(value)
        else:
            raise _UsageError(head, f"{label}: {value!r} is not KEY=VALUE")
    return args
