"""``sessionkit hook EVENT``: the argument parser and the run around each event."""

from __future__ import annotations

import os
import sys

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
    import argparse
    from collections.abc import Sequence
    from typing import IO, Any

__all__ = ["AGENTS", "main"]

#: the agents whose hook payloads and answers the hooks know (``--agent``)
AGENTS = ("claude", "codex", "antigravity")


def main(argv: Sequence[str] | None = None, stdin: IO[bytes] | None = None) -> int:
    """Run ``sessionkit hook EVENT ...`` and return the exit code.

    Args:
        argv: the arguments after ``hook`` (default: ``sys.argv[2:]``).
        stdin: where the payload comes from (default: ``sys.stdin.buffer``).

    Never exits 2 (Claude Code would block the agent): a usage error
    (``hook bogus``) exits 1, a non-blocking error whose message Claude Code
    shows; every other failure exits 0 with one line on stderr and the same
    words as the JSON reply's ``systemMessage``, which Claude Code shows the
    user.  ``--help`` exits 0.
    """
    args_list = list(sys.argv[2:] if argv is None else argv)
    NOTICES.clear()
    try:
        args: Any = _parser().parse_args(args_list)
    except SystemExit as exc:
        return 0 if exc.code in (0, None) else 1
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


def _key_value(item: str) -> str:
    if "=" not in item or not item.partition("=")[0].strip():
        import argparse

        raise argparse.ArgumentTypeError(f"{item!r} is not KEY=VALUE")
    return item


def _parser() -> argparse.ArgumentParser:
    import argparse

    raw = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(
        prog="sessionkit hook",
        formatter_class=raw,
        description=(
            "Claude Code hooks: each reads the hook's JSON payload on stdin (session_id,\n"
            "cwd, transcript_path, source...) and never breaks the agent: a problem exits 0\n"
            "and is shown to the user in one line."
        ),
        epilog=(
            "events:\n"
            "  pre-compact    PreCompact: record a checkpoint (with its Dream directive) in\n"
            "                 the session's note, creating the note on first use\n"
            "  session-start  SessionStart: print where the last session stopped (summary,\n"
            "                 unconsumed directives, next steps) within hooks.context_budget\n"
            "  session-end    SessionEnd (Codex: Stop): record the session's end (date_end)\n"
            "\n"
            "Installed by `sessionkit install-hooks`; `sessionkit hook EVENT --help` lists an\n"
            "event's options. The store is --store, else hooks.store, else the configured one."
        ),
    )
    sub = parser.add_subparsers(dest="event", metavar="EVENT", required=True)
    pre = sub.add_parser(
        "pre-compact",
        help="record a PreCompact checkpoint",
        formatter_class=raw,
        description=(
            "PreCompact: record a checkpoint (the time, the trigger, the work item, a Dream\n"
            "directive) in the note of the payload's session_id, creating it on first use.\n"
            "Prints a one-line systemMessage JSON; exits 0."
        ),
    )
    start = sub.add_parser(
        "session-start",
        help="print the latest session and its directives",
        formatter_class=raw,
        description=(
            "SessionStart: print the latest note's summary, its unconsumed directives, next\n"
            "steps and open questions, within hooks.context_budget (Claude Code hook JSON by\n"
            "default, or --plain text). Exits 0."
        ),
    )
    end = sub.add_parser(
        "session-end",
        help="record that the session ended",
        formatter_class=raw,
        description=(
            "SessionEnd (Codex: Stop): set the session's date_end and, for a real session end,\n"
            "close its checkpoint log with a SessionEnd entry; only when the session has a\n"
            "note. Quick (Claude Code gives SessionEnd hooks 1.5 s). Exits 0."
        ),
    )
    for each in (pre, start, end):
        each.add_argument(
            "--agent",
            choices=AGENTS,
            default="claude",
            help="the agent running the hook: its payload and the answer it accepts",
        )
        each.add_argument("--store", metavar="URL", help="store path or URL (default: configured)")
        each.add_argument(
            "--storage-option",
            "-o",
            dest="storage_option",
            action="append",
            default=[],
            type=_key_value,
            metavar="KEY=VALUE",
            help="fsspec storage option (repeatable); VALUE is a TOML literal or a string",
        )
    fmt = start.add_mutually_exclusive_group()
    fmt.add_argument(
        "--plain", dest="plain", action="store_true", default=None, help="print plain text"
    )
    fmt.add_argument(
        "--json", dest="plain", action="store_false", help="print Claude Code hook JSON"
    )
    return parser
