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


def _payload_limit() -> int:
    """``$SESSIONKIT_MAX_PAYLOAD_BYTES`` when it is a positive integer, else :data:`MAX_PAYLOAD`.

    (The payload is read before the configuration files can be found, since
    its ``cwd`` says where to look; so only the environment can change this.)
    """
    raw = os.environ.get("SESSIONKIT_MAX_PAYLOAD_BYTES", "").strip().replace("_", "")
    return int(raw) if raw.isdigit() and int(raw) > 0 else MAX_PAYLOAD


def _start_dir(payload: Any) -> str:
    """The payload's absolute ``cwd`` if a folder, else ``$CLAUDE_PROJECT_DIR``, else the cwd.

    A relative ``cwd`` (``../``) is not trusted: it would name a folder
    relative to wherever the hook happens to run.
    """
    cwd = payload.get("cwd") if isinstance(payload, Mapping) else None
    if isinstance(cwd, str) and os.path.isabs(cwd) and "\x00" not in cwd and os.path.isdir(cwd):
        return os.path.abspath(cwd)
    env = os.environ.get("CLAUDE_PROJECT_DIR")
    if env and "\x00" not in env and os.path.isdir(env):
        return os.path.abspath(env)
    return os.getcwd()


def _user_config_file() -> str:
    """The user configuration file (as :func:`sessionkit.config.user_config_path` finds it)."""
    explicit = os.environ.get("SESSIONKIT_CONFIG")
    if explicit:
        return os.path.expanduser(explicit)
    import platformdirs

    return os.path.join(platformdirs.user_config_dir("sessionkit"), "config.toml")


def _config_sources_exist(start: str) -> bool:
    """Whether any configuration source exists: a ``SESSIONKIT_*`` variable, a file."""
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
    return os.path.isfile(_user_config_file())


def _repository_root(start: str) -> str:
    """The nearest ancestor holding ``aiwiki/`` or ``.git``, else ``start``.

    The same rule as :func:`sessionkit.config.repository_root`, without
    importing the configuration module (the hook path stays light).
    """
    here = start
    while True:
        if os.path.isdir(os.path.join(here, "aiwiki")) or os.path.exists(
            os.path.join(here, ".git")
        ):
            return here
        parent = os.path.dirname(here)
        if parent == here:
            return start
        here = parent


class _HookDefaults:
    """Built-in hook behaviour, when no configuration source exists."""

    directive_kind = "Dream"
    directive_scope = "`aiwiki/raw/`, recently-touched typed pages"
    directive_action = "invoke `support-dream` skill before resuming other work"
    session_start_output = "json"
    store = None
    context_budget = 9000
    context_unit = "chars"


class _Settings:
    """What a hook needs from the configuration.

    The configuration module is imported only when a configuration source
    exists (a ``SESSIONKIT_*`` variable, ``.sessionkit.toml`` above the start
    directory, the user file); otherwise the built-in defaults apply, which is
    what :func:`sessionkit.config.load_config` would return.
    """

    def __init__(self, start: str, store: str | None) -> None:
        self.start = start
        self.repo_root = _repository_root(start)
        self.options: dict[str, Any] = {}
        self.layout: str | None = None
        self.format: str | None = None
        self.bm_project: str | None = None
        self.hooks: Any = _HookDefaults()
        self.max_note_bytes = 8 * 1024 * 1024
        from_config = False
        if _config_sources_exist(start):
            from .config import hook_store_url, load_config, storage_options_for

            config = load_config(start)
            self.hooks = config.hooks
            self.max_note_bytes = config.limits.max_note_bytes
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

    def local_aiwiki_root(self) -> str | None:
        """The repository root when the store is a plain local aiwiki folder, else ``None``."""
        url = self.url
        if self.options or self.format not in (None, "aiwiki-v2", "aiwiki-v1"):
            return None
        if url.startswith("file://"):
            url = url[len("file://") :]
        if "://" in url or not url or "\x00" in url:
            return None
        root = os.path.abspath(url).rstrip("/") or "/"
        for tail in ("/aiwiki/sessions", "/aiwiki"):
            if root.endswith(tail):
                root = root[: -len(tail)] or "/"
                break
        if self.layout not in (None, "aiwiki"):
            return None
        if self.layout is None and not os.path.isdir(os.path.join(root, "aiwiki")):
            return None  # let the store detect its layout
        return root

    def project(self) -> str | None:
        if self.bm_project:
            return str(self.bm_project)
        if self.url.startswith("bm://"):
            rest = self.url[len("bm://") :].strip("/")
            return os.path.basename(rest) or None
        return None


def _pre_compact(args: argparse.Namespace, stdin: IO[bytes] | None) -> int:
    payload, problem = read_payload(stdin, _payload_limit())
    settings = _Settings(_start_dir(payload), args.store)
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


# -- session-start ---------------------------------------------------------------------

_DATED = None  # compiled on first use


def _local_latest(root: str) -> tuple[str, str] | None:
    """(key, absolute path) of the newest page under ``root/aiwiki/sessions``, or ``None``.

    The rule of :meth:`sessionkit.backends.aiwiki.AiwikiStore.latest`: the
    newest filename date, then the newest modification time among that date's
    pages (only those are stat-ed); undated names count only when no name has
    a date.  Dotfiles, dot-folders and ``INDEX.md`` are skipped, and so are
    symlinks that lead outside the root.  One directory scan, no page parsed.
    """
    import re

    global _DATED
    if _DATED is None:
        _DATED = re.compile(r"^(\d{4}-\d{2}-\d{2})(?:-(.+))?\.md$")
    base = os.path.join(root, "aiwiki", "sessions")
    real_root = os.path.realpath(root)
    best: list[tuple[str, str, str]] = []  # (date, key, path) sharing the best date
    top = ""
    undated: list[tuple[str, str, str]] = []
    stack = [(base, "")]
    while stack:
        folder, rel = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except (FileNotFoundError, NotADirectoryError):
            continue
        for entry in entries:
            name = entry.name
            if name.startswith("."):
                continue
            if entry.is_symlink():
                real = os.path.realpath(entry.path)
                if not (real == real_root or real.startswith(real_root.rstrip("/") + "/")):
                    continue
            if entry.is_dir():
                stack.append((entry.path, f"{rel}{name}/"))
                continue
            if not name.endswith(".md") or name == "INDEX.md" or not entry.is_file():
                continue
            m = _DATED.match(name)
            key = f"{rel}{name}"
            if m is None:
                undated.append(("", key, entry.path))
            elif m.group(1) > top:
                top = m.group(1)
                best = [(top, key, entry.path)]
            elif m.group(1) == top:
                best.append((top, key, entry.path))
    pool = best or undated
    if not pool:
        return None
    if len(pool) == 1:
        return pool[0][1], pool[0][2]

    def when(item: tuple[str, str, str]) -> tuple[float, str]:
        try:
            return os.stat(item[2]).st_mtime, item[1]
        except OSError:
            return 0.0, item[1]

    chosen = max(pool, key=when)
    return chosen[1], chosen[2]


def _context_text(
    key: str, session: Any, directives: Sequence[Any], render: Mapping[str, Any] | None = None
) -> str:
    """The SessionStart text (see :mod:`sessionkit.context`): summary, directives, handoff."""
    from .context import render as render_context

    return render_context(key, session, directives, **(render or {})).text


class _Numbered:
    """A directive with its number (the shape :func:`_context_text` reads)."""

    def __init__(self, index: int, kind: str, action: str | None, state: Any, at: str) -> None:
        self.index, self.kind, self.action, self.state = index, kind, action, state
        self.checkpoint_at: str | None = at


def _checkpoint_directives(session: Any) -> list[_Numbered]:
    out: list[_Numbered] = []
    for cp in session.checkpoints:
        for d in cp.directives:
            out.append(_Numbered(len(out) + 1, d.kind, d.action, d.state, cp.at))
    return out


def _local_session_start_text(
    root: str, max_bytes: int, render: Mapping[str, Any] | None = None
) -> str | None:
    """:func:`session_start_text` for a local aiwiki store, importing only the page parser."""
    found = _local_latest(root)
    if found is None:
        return None
    key, path = found
    with open(path, "rb") as fh:
        data = fh.read(max_bytes + 1)
    if len(data) > max_bytes:
        from .errors import LimitExceededError

        raise LimitExceededError(f"note is larger than {max_bytes} bytes", path=key)
    from ._api import decode
    from .adapters._aiwiki_parse import read_page
    from .document import parse

    session, _ = read_page(parse(decode(data, key), key))
    return _context_text(key, session, _checkpoint_directives(session), render)


def session_start_text(store: Any, render: Mapping[str, Any] | None = None) -> str | None:
    """The SessionStart context for a store: summary line and unconsumed directives.

    ``None`` when the store has no session note.  Directives are numbered
    over every directive of the note, as ``sessionkit directive consume
    --index N`` takes them.  ``render`` holds :func:`sessionkit.context.render`'s
    keyword arguments (``source``, ``budget``, ``unit``, ``rest``).
    """
    from ._api import loads
    from .ops.lifecycle import directives_of

    key = store.latest()
    if key is None:
        return None
    session = loads(store.read_text(key), path=key)
    return _context_text(key, session, directives_of(session), render)


def _date_in(key: str) -> str | None:
    import re

    m = re.search(r"\d{4}-\d{2}-\d{2}", key)
    return m.group(0) if m else None


def _session_start(args: argparse.Namespace, stdin: IO[bytes] | None) -> int:
    payload, _ = read_payload(stdin, _payload_limit())
    settings = _Settings(_start_dir(payload), args.store)
    render = _render_options(payload, settings)
    root = settings.local_aiwiki_root()
    text = None
    if root is not None:
        try:
            text = _local_session_start_text(root, settings.max_note_bytes, render)
        except Exception:  # anything odd: the full store path decides (and reports)
            root = None
    if root is None:
        text = session_start_text(settings.open(), render)
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


def _render_options(payload: Any, settings: _Settings) -> dict[str, Any]:
    """The context's source (the payload's), budget, unit and the command showing all of it."""
    import shlex

    source = payload.get("source") if isinstance(payload, Mapping) else None
    source = source if source in ("startup", "resume", "clear", "compact") else "startup"
    rest = f"sessionkit context --budget 0 --store {shlex.quote(settings.url)}"
    if source == "compact":
        rest += " --source compact"
    return {
        "source": source,
        "budget": settings.hooks.context_budget,
        "unit": settings.hooks.context_unit,
        "rest": rest,
    }


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
