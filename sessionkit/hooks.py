"""``sessionkit hook ...``: the Claude Code hook commands (no click, minimal imports).

Two commands, run by Claude Code with the hook's JSON payload on stdin:

``sessionkit hook pre-compact [--store URL]``
    Records a ``PreCompact`` checkpoint (with the active work item and an
    unconsumed directive) in the session's note, creating the note lazily.
    Prints nothing (Claude Code does not show PreCompact output to the model).

``sessionkit hook session-start [--store URL] [--plain | --json]``
    Prints a one-line summary of the newest session note and each of its
    unconsumed directives, as ``{"hookSpecificOutput": {"hookEventName":
    "SessionStart", "additionalContext": "..."}}`` or, with ``--plain`` (or
    ``hooks.session_start_output = "plain"``), as text.  Prints nothing when
    there is no note.

The store is ``--store``, else the configuration (``hooks.store``,
``store.url``; the project file is looked for from the payload's ``cwd``),
else the repository at ``cwd``, else ``$CLAUDE_PROJECT_DIR``, else the
working directory.

A hook must never break the agent: any internal failure exits 0 with one
line on stderr, and the store's read-modify-write means nothing is
half-written.  This module is imported before click, and it imports neither
fsspec nor cattrs nor click.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Mapping, Sequence
from typing import IO, Any

__all__ = ["main", "read_payload", "session_start_text"]

#: default cap on the payload read from stdin (``limits.max_payload_bytes``)
MAX_PAYLOAD = 1024 * 1024
_ENV_PREFIX = "SESSIONKIT_"
_PROJECT_FILE = ".sessionkit.toml"


def _say(message: str) -> None:
    """One line on stderr (never raises)."""
    try:
        text = " ".join(str(message).split())
        sys.stderr.write(f"sessionkit hook: {text}\n")
        sys.stderr.flush()
    except Exception:  # pragma: no cover - stderr closed
        pass


def read_payload(stream: IO[bytes] | None, limit: int = MAX_PAYLOAD) -> tuple[Any, str | None]:
    """Read and decode a hook payload: ``(value, problem)``.

    ``value`` is the decoded JSON (``{}`` when unusable) and ``problem`` a
    short reason when the payload was empty, too large, not UTF-8, not JSON
    or not an object.  Never raises.
    """
    if stream is None:
        return {}, "no stdin"
    try:
        if hasattr(stream, "isatty") and stream.isatty():
            return {}, "stdin is a terminal"
        data = stream.read(limit + 1)
    except (OSError, ValueError) as exc:
        return {}, f"cannot read stdin: {exc}"
    if len(data) > limit:
        # drain the rest so the writer does not get a broken pipe
        try:
            while stream.read(1 << 16):
                pass
        except (OSError, ValueError):
            pass
        return {}, f"payload larger than {limit} bytes"
    if not data.strip():
        return {}, "empty payload"
    try:
        value = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return {}, "payload is not JSON"
    if not isinstance(value, dict):
        return value, "payload is not a JSON object"
    return value, None


def _start_dir(payload: Any) -> str:
    """The payload's ``cwd`` when it is a directory, else ``$CLAUDE_PROJECT_DIR``, else the cwd."""
    cwd = payload.get("cwd") if isinstance(payload, Mapping) else None
    if isinstance(cwd, str) and cwd and "\x00" not in cwd and os.path.isdir(cwd):
        return os.path.abspath(cwd)
    env = os.environ.get("CLAUDE_PROJECT_DIR")
    if env and "\x00" not in env and os.path.isdir(env):
        return os.path.abspath(env)
    return os.getcwd()


def _config_files_exist(start: str) -> bool:
    """Whether any configuration source exists (env, project file, user file)."""
    if any(k.startswith(_ENV_PREFIX) and k != "SESSIONKIT_DEBUG" for k in os.environ):
        return True
    here = start
    while True:
        if os.path.isfile(os.path.join(here, _PROJECT_FILE)):
            return True
        parent = os.path.dirname(here)
        if parent == here:
            break
        here = parent
    from .config import user_config_path

    return user_config_path().is_file()


class _Settings:
    """What a hook needs from the configuration."""

    def __init__(self, start: str, store: str | None) -> None:
        from .config import (
            HookConfig,
            Limits,
            hook_store_url,
            load_config,
            repository_root,
            storage_options_for,
        )

        self.start = start
        self.repo_root = str(repository_root(start))
        self.options: dict[str, Any] = {}
        self.layout: str | None = None
        self.format: str | None = None
        self.bm_project: str | None = None
        self.hooks: Any = HookConfig()
        self.limits: Any = Limits()
        from_config = False
        if _config_files_exist(start):
            config = load_config(start)
            self.hooks, self.limits = config.hooks, config.limits
            self.layout, self.format, self.bm_project = (
                config.layout,
                config.format,
                config.bm_project,
            )
            from_config = bool(config.hooks.store) or config.source("store.url").kind != "default"
            url = store or hook_store_url(config, start)
            self.options = storage_options_for(config, url)
        else:
            url = store or self.repo_root
        self.url = url
        if store is None and not from_config:
            self.layout = "aiwiki"  # the repository root: never guess Basic Memory there

    def open(self) -> Any:
        from .backends import open_store

        return open_store(self.url, layout=self.layout, format=self.format, **self.options)

    def project(self) -> str | None:
        if self.bm_project:
            return str(self.bm_project)
        if self.url.startswith("bm://"):
            rest = self.url[len("bm://") :].strip("/")
            return os.path.basename(rest) or None
        return None


def _pre_compact(args: argparse.Namespace, stdin: IO[bytes] | None) -> int:
    payload, problem = read_payload(stdin)
    settings = _Settings(_start_dir(payload), args.store)
    if problem is not None and problem.startswith("payload larger"):
        payload = {}
    from .ops.lifecycle import DirectiveSpec, record_checkpoint

    store = settings.open()
    report = record_checkpoint(
        store,
        payload,
        repo_root=settings.repo_root,
        directive=DirectiveSpec.from_config(settings.hooks),
        project=settings.project(),
    )
    if problem is None and not report.payload_ok:
        problem = "payload has no usable session_id"
    if problem is not None:
        _say(f"{problem}; checkpoint recorded under short id {report.short_id} in {report.key}")
    return 0


def session_start_text(store: Any) -> str | None:
    """The SessionStart context for a store: summary line and unconsumed directives.

    ``None`` when the store has no session note.
    """
    from ._api import loads
    from .model import DirectiveState
    from .ops.lifecycle import directives_of

    key = store.latest()
    if key is None:
        return None
    session = loads(store.read_text(key), path=key)
    day = (session.started or "")[:10] or _date_in(key) or "undated"
    label = session.focus or session.title or "unset"
    lines = [f"Latest session note {key}: {day}, status {session.status}, focus: {label}"]
    open_ = [d for d in directives_of(session) if d.state is DirectiveState.UNCONSUMED]
    if open_:
        lines.append(f"Unconsumed directives ({len(open_)}) - act on them before other work:")
        for d in open_:
            where = f" (from checkpoint at {d.checkpoint_at})" if d.checkpoint_at else ""
            lines.append(f"[{d.index}] {d.kind} directive{where}: {d.action or '(no action)'}")
        lines.append(
            "When done, mark them consumed: sessionkit directive consume --all"
            " (or --index N for one)."
        )
    return "\n".join(lines)


def _date_in(key: str) -> str | None:
    import re

    m = re.search(r"\d{4}-\d{2}-\d{2}", key)
    return m.group(0) if m else None


def _session_start(args: argparse.Namespace, stdin: IO[bytes] | None) -> int:
    payload, _ = read_payload(stdin)
    settings = _Settings(_start_dir(payload), args.store)
    text = session_start_text(settings.open())
    if not text:
        return 0
    plain = args.plain if args.plain is not None else settings.hooks.session_start_output == "plain"
    if plain:
        out = text + "\n"
    else:
        out = (
            json.dumps(
                {
                    "hookSpecificOutput": {
                        "hookEventName": "SessionStart",
                        "additionalContext": text,
                    }
                },
                ensure_ascii=False,
            )
            + "\n"
        )
    sys.stdout.write(out)
    sys.stdout.flush()
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="sessionkit hook",
        description="Claude Code hook commands (read the hook's JSON payload on stdin).",
    )
    sub = parser.add_subparsers(dest="event", metavar="EVENT", required=True)
    pre = sub.add_parser("pre-compact", help="record a PreCompact checkpoint")
    pre.add_argument("--store", metavar="URL", help="store path or URL (default: configured)")
    start = sub.add_parser("session-start", help="print the latest session and its directives")
    start.add_argument("--store", metavar="URL", help="store path or URL (default: configured)")
    fmt = start.add_mutually_exclusive_group()
    fmt.add_argument(
        "--plain", dest="plain", action="store_true", default=None, help="print plain text"
    )
    fmt.add_argument(
        "--json", dest="plain", action="store_false", help="print Claude Code hook JSON"
    )
    return parser


def main(argv: Sequence[str] | None = None, stdin: IO[bytes] | None = None) -> int:
    """Run ``sessionkit hook EVENT ...`` and return the exit code.

    Args:
        argv: the arguments after ``hook`` (default: ``sys.argv[2:]``).
        stdin: where the payload comes from (default: ``sys.stdin.buffer``).

    Usage errors exit 2; every other failure exits 0 with one line on stderr.
    """
    args_list = list(sys.argv[2:] if argv is None else argv)
    try:
        args = _parser().parse_args(args_list)
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 2
    if stdin is None:
        stdin = getattr(sys.stdin, "buffer", None)
    try:
        if args.event == "pre-compact":
            return _pre_compact(args, stdin)
        return _session_start(args, stdin)
    except BrokenPipeError:
        return 0
    except Exception as exc:  # a hook must never break the agent
        if os.environ.get("SESSIONKIT_DEBUG"):
            raise
        _say(f"{args.event} failed: {_describe(exc)}")
        return 0


def _describe(exc: BaseException) -> str:
    from .errors import SessionKitError

    if isinstance(exc, SessionKitError):
        return str(exc)
    if isinstance(exc, OSError):
        name = f"{os.fsdecode(exc.filename)}: " if exc.filename is not None else ""
        return f"{name}{exc.strerror or exc}"
    return f"internal error: {type(exc).__name__}: {exc}"
