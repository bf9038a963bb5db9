"""``sessionkit hook ...``: the Claude Code hook commands (no click, minimal imports).

Two commands, run by Claude Code with the hook's JSON payload on stdin:

``sessionkit hook pre-compact [--store URL] [-o KEY=VALUE]...``
    Records a ``PreCompact`` checkpoint (with the active work item and an
    unconsumed directive) in the session's note, creating the note lazily.
    Prints nothing (Claude Code does not show PreCompact output to the model).

``sessionkit hook session-start [--store URL] [-o KEY=VALUE]... [--plain | --json]``
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
fsspec nor cattrs nor click (for a local store).

Every run has a deadline (``hooks.deadline_ms``, ``$SESSIONKIT_HOOK_DEADLINE_MS``,
default 5000): reading stdin, the transcript and the work manifest, listing,
reading and writing the store all count against it.  Remote stores get their
connect and read timeouts from what is left of it; a ``SIGALRM`` timer stops
whatever is still running when it runs out.  The hook then exits 0, having
written nothing partial (store writes are atomic), and says why in one line:
Claude Code's ``systemMessage`` (on stdout, shown to the user) and stderr say
the same words.  A checkpoint the store did not take (the deadline, a lock
not free in time, an unreachable store) is kept in the outbox
(:mod:`sessionkit.ops.outbox`) and delivered, once, before the next hook's
own work or any command's on that store.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Mapping, Sequence

from . import _fastpaths

TYPE_CHECKING = False
if TYPE_CHECKING:  # (this module imports little: see the module doc and docs/hooks.md)
    import argparse
    from typing import IO, Any

__all__ = ["DEADLINE_MS", "DeadlineExceeded", "main", "read_payload", "session_start_text"]

#: default cap on the payload read from stdin (``limits.max_payload_bytes``)
MAX_PAYLOAD = 1024 * 1024
#: default time budget of one hook run, in milliseconds (``hooks.deadline_ms``)
DEADLINE_MS = 5000
#: the agents whose hook payloads and answers the hooks know (``--agent``)
AGENTS = ("claude", "codex", "antigravity")
_DEADLINE_ENV = "SESSIONKIT_HOOK_DEADLINE_MS"
#: share of the budget a stdin that never closes may take (the rest is for the store)
_STDIN_SHARE = 0.4


class DeadlineExceeded(BaseException):
    """A hook ran out of its time budget.

    A ``BaseException`` (like ``KeyboardInterrupt``), so no library's
    ``except Exception`` retry loop swallows it; ``finally`` blocks still run,
    which is how a store write in flight removes its temp file.

    Attributes:
        stage: what the hook was doing (``reading stdin``, ``writing the store``).
        seconds: the budget, in seconds.
        kept: the outbox entry the checkpoint went to instead (``""``: writing it
            failed; ``None``: there was none to keep).
    """

    def __init__(self, stage: str, seconds: float) -> None:
        super().__init__(stage, seconds)
        self.stage = stage
        self.seconds = seconds
        #: where the checkpoint went when the store did not take it (the outbox)
        self.kept: str | None = None


class _Deadline:
    """The time budget of one hook run, from its start (monotonic clock).

    :meth:`arm` sets a ``SIGALRM`` timer (main thread, POSIX) that raises
    :class:`DeadlineExceeded` at the deadline, wherever the hook is: blocked
    in a socket read, waiting on a lock, parsing.  Blocking reads the hook
    makes itself (stdin) are bounded by :meth:`remaining` as well, so they
    never depend on the timer.
    """

    def __init__(self, seconds: float, *, since_start: float = 0.0) -> None:
        self.start = time.monotonic() - since_start - _EXIT_RESERVE
        self.seconds = seconds
        self.end = self.start + seconds
        self.stage = "starting"
        self.process_entry = False  # the hook is the whole process (the console script)
        self._armed = False
        self._previous: Any = None

    def remaining(self) -> float:
        return max(0.0, self.end - time.monotonic())

    def enter(self, stage: str) -> None:
        """Say what the hook does next; raise at once when no time is left."""
        self.stage = stage
        if self.remaining() <= 0:
            self.disarm()  # said now: the timer must not fire again while the hook says it
            raise DeadlineExceeded(stage, self.seconds)

    def reset(self, seconds: float) -> None:
        """Change the budget (the configuration may set another one), still from the start."""
        self.seconds = seconds
        self.end = self.start + seconds
        if self._armed:
            self._set_timer()

    def _fire(self, signum: int, frame: Any) -> None:
        self.disarm()
        raise DeadlineExceeded(self.stage, self.seconds)

    def _set_timer(self) -> None:
        signal = _signal_module()

        signal.setitimer(signal.ITIMER_REAL, max(self.remaining(), 0.001))

    def arm(self) -> None:
        signal = _signal_module()

        if self._armed or not hasattr(signal, "setitimer"):
            return
        try:
            self._previous = signal.signal(signal.SIGALRM, self._fire)
        except ValueError:  # not the main thread: signals only reach that one
            return  # (the bounded reads still hold)
        self._armed = True
        self._set_timer()

    def disarm(self) -> None:
        signal = _signal_module()

        if not self._armed:
            return
        self._armed = False
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, self._previous or signal.SIG_DFL)


def _signal_module() -> Any:
    """The signal functions: ``_signal``, the C module :mod:`signal` wraps (whose import
    builds its enums, a tenth of a hook run's own work), else :mod:`signal` itself."""
    module = sys.modules.get("signal") or sys.modules.get("_signal")  # (loaded at start-up)
    if module is None:  # pragma: no cover - not CPython
        import signal as module
    return module


#: seconds kept back from the budget for the interpreter's exit
_EXIT_RESERVE = 0.15


def _process_age() -> float:
    """Seconds since this process started (Linux ``/proc``), else ``0.0``.

    The budget is for the whole hook run as the agent sees it, so the
    interpreter's start-up and imports count against it too.
    """
    try:
        with open("/proc/self/stat", "rb") as fh:
            stat = fh.read().rsplit(b")", 1)[1].split()
        with open("/proc/uptime", "rb") as fh:
            uptime = float(fh.read().split()[0])
        ticks = os.sysconf("SC_CLK_TCK")
        age = uptime - int(stat[19]) / ticks
    except (OSError, ValueError, IndexError, AttributeError):
        return 0.0
    return age if 0.0 <= age < 60.0 else 0.0


def _deadline_ms(raw: object) -> int | None:
    """A positive number of milliseconds from ``raw`` (a string or an int), else ``None``."""
    if isinstance(raw, bool):
        return None
    if isinstance(raw, int):
        return raw if raw > 0 else None
    text = str(raw or "").strip().replace("_", "")
    return int(text) if text.isdigit() and int(text) > 0 else None


#: problems said during this run, for the user (``systemMessage``, see :func:`_notify`)
_NOTICES: list[str] = []


def _say(message: str) -> None:
    """One line on stderr, kept for the user's ``systemMessage`` too (never raises)."""
    try:
        text = " ".join(str(message).split())
        _NOTICES.append(text)
        sys.stderr.write(f"sessionkit hook: {text}\n")
        sys.stderr.flush()
    except Exception:  # pragma: no cover - stderr closed
        pass


def _system_message() -> str | None:
    """What Claude Code shows the user for this run's problems, or ``None``."""
    return "sessionkit hook: " + "; ".join(_NOTICES) if _NOTICES else None


def _notify() -> None:
    """Print ``{"systemMessage": ...}`` on stdout when a problem was said and not yet shown.

    Claude Code shows a hook's stderr only in verbose mode when it exits 0, but
    it shows a JSON reply's ``systemMessage`` to the user; exit 2 would block
    the agent, so the hooks never use it.
    """
    message = _system_message()
    _NOTICES.clear()
    if message is None:
        return
    try:
        if sys.stdout is not None:
            sys.stdout.write(_json_dumps({"systemMessage": message}) + "\n")
            sys.stdout.flush()
    except BrokenPipeError:  # nobody reads stdout: stderr had it
        _quiet_stdout()
    except (OSError, ValueError):  # stdout closed: stderr had it
        pass


def _fileno(stream: IO[bytes]) -> int | None:
    try:
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):
        return None
    return fd if isinstance(fd, int) and fd >= 0 else None


# -- JSON in and out --------------------------------------------------------------------


def _json_loads(text: str) -> Any:
    """``json.loads(text)`` (imported here: most runs read one payload and nothing else)."""
    import json

    return json.loads(text)


def _json_dumps(value: Mapping[str, Any]) -> str:
    """``json.dumps(value, ensure_ascii=False)``."""
    import json

    return json.dumps(value, ensure_ascii=False)


def _complete_json(data: bytes) -> bool:
    """Whether ``data`` already holds a whole JSON object (stdin may never close)."""
    if not data.rstrip().endswith(b"}"):
        return False
    try:
        _json_loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return False
    return True


def _read_bounded(fd: int, limit: int, seconds: float) -> tuple[bytes, str | None]:
    """Up to ``limit + 1`` bytes from ``fd`` within ``seconds``: ``(data, problem)``.

    Stops at end of input, at a whole JSON object (a writer that never closes
    stdin), past ``limit`` (then drains what else arrives in time, so the
    writer does not get a broken pipe) or when the time is up.
    """
    import select

    end = time.monotonic() + seconds
    chunks: list[bytes] = []
    size = 0
    while True:
        wait = end - time.monotonic()
        if wait <= 0:
            break
        ready, _, _ = select.select([fd], [], [], wait)
        if not ready:
            break
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            return b"".join(chunks), None
        if size <= limit:
            chunks.append(chunk)
        size += len(chunk)
        if size <= limit and _complete_json(b"".join(chunks)):
            return b"".join(chunks), None
    data = b"".join(chunks)
    if size > limit:
        return data, None
    return data, f"stdin was not closed within {seconds:.1f} s"


def read_payload(
    stream: IO[bytes] | None, limit: int = MAX_PAYLOAD, seconds: float | None = None
) -> tuple[Any, str | None]:
    """Read and decode a hook payload: ``(value, problem)``.

    ``value`` is the decoded JSON (``{}`` when unusable) and ``problem`` a
    short reason when the payload was empty, too large, not UTF-8, not JSON,
    nested too deep to decode, not an object, or when stdin stayed open
    past ``seconds`` without a whole JSON object.  With ``seconds``, a stream
    with a file descriptor is read without ever blocking past that time (a
    whole object ends the read even if stdin never closes).  Never raises.
    """
    if stream is None:
        return {}, "no stdin"
    timed_out = None
    try:
        if hasattr(stream, "isatty") and stream.isatty():
            return {}, "stdin is a terminal"
        fd = _fileno(stream) if seconds is not None else None
        if fd is not None and seconds is not None:
            data, timed_out = _read_bounded(fd, limit, seconds)
        else:
            data = stream.read(limit + 1)
    except (OSError, ValueError) as exc:
        return {}, f"cannot read stdin: {exc}"
    if len(data) > limit:
        if seconds is None:
            # drain the rest so the writer does not get a broken pipe
            try:
                while stream.read(1 << 16):
                    pass
            except (OSError, ValueError):
                pass
        return {}, f"payload larger than {limit} bytes"
    if not data.strip():
        return {}, timed_out or "empty payload"
    try:
        value = _json_loads(data.decode("utf-8"))
    except RecursionError:
        return {}, "payload is nested too deep to decode"
    except (UnicodeDecodeError, ValueError):
        return {}, timed_out or "payload is not JSON"
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


def _start_dir(payload: Any) -> str | None:
    """The payload's absolute ``cwd`` if a folder, else ``$CLAUDE_PROJECT_DIR``, else the
    working directory when it is inside a repository (``.git`` or ``aiwiki/`` at or
    above it); ``None`` when none of them is usable.

    A relative ``cwd`` (``../``) is not trusted: it would name a folder
    relative to wherever the hook happens to run; nor is a working directory
    outside any repository (``/tmp``): a hook run from there writes nothing.
    """
    cwd = payload.get("cwd") if isinstance(payload, Mapping) else None
    if isinstance(cwd, str) and os.path.isabs(cwd) and "\x00" not in cwd and os.path.isdir(cwd):
        return os.path.abspath(cwd)
    env = os.environ.get("CLAUDE_PROJECT_DIR")
    if env and "\x00" not in env and os.path.isabs(env) and os.path.isdir(env):
        return os.path.abspath(env)
    try:
        here = os.getcwd()
    except OSError:  # the working directory was removed
        return None
    return here if _in_repository(here) else None


#: why a hook wrote nothing when it had no folder to start from
_NO_START = (
    "nothing recorded: the payload has no usable cwd (an existing absolute folder), "
    "$CLAUDE_PROJECT_DIR names no folder, the working directory is in no repository, "
    "and no --store was given"
)


def _store_usable_without_start(store: str | None) -> bool:
    """Whether ``--store`` names a store when no start folder is known: an absolute
    path or a URL, or a relative path in a working directory that is not ``/``."""
    if not store:
        return False
    rest = store[len("file://") :] if store.startswith("file://") else store
    if "://" in rest or os.path.isabs(rest):
        return True
    try:
        return os.path.dirname(os.getcwd()) != os.getcwd()  # not the filesystem root
    except OSError:
        return False


def _in_repository(start: str) -> bool:
    """Whether ``start`` or a folder above it holds ``aiwiki/`` or ``.git``."""
    from ._config_sources import repository_above

    return repository_above(start) is not None


def _repository_root(start: str) -> str:
    """The nearest ancestor holding ``aiwiki/`` or ``.git``, else ``start``.

    The rule of :func:`sessionkit.config.repository_root`, without importing the
    configuration module (the hook path stays light).
    """
    from ._config_sources import repository_root

    return repository_root(start)


class _HookDefaults:
    """Built-in hook behaviour, when no configuration source exists."""

    directive_kind = "Dream"
    directive_scope = "`aiwiki/raw/`, recently-touched typed pages"
    directive_action = "invoke `support-dream` skill before resuming other work"
    session_start_output = "json"
    store = None
    context_budget = 9000
    context_unit = "chars"
    deadline_ms: int | None = None  # then $SESSIONKIT_HOOK_DEADLINE_MS, else DEADLINE_MS


class _Settings:
    """What a hook needs from the configuration.

    The configuration module is imported only when a configuration source
    exists (a ``SESSIONKIT_*`` variable, ``.sessionkit.toml`` above the start
    directory, the user file); otherwise the built-in defaults apply, which is
    what :func:`sessionkit.config.load_config` would return.
    """

    def __init__(self, start: str, store: str | None, options: Sequence[str] = ()) -> None:
        self.start = start
        if _fastpaths.enabled("hook-root"):
            self.repo_root = _repository_root(start)
            _fastpaths.answered("hook-root")
        else:  # (the light copy of the rule is a fast lane: off with the switch)
            from .config import repository_root

            self.repo_root = str(repository_root(start))
        self.options: dict[str, Any] = {}
        self.layout: str | None = None
        self.format: str | None = None
        self.bm_project: str | None = None
        self.hooks: Any = _HookDefaults()
        self.secrets: Any = None  # the configuration's secrets settings (None: redact)
        self.max_note_bytes = 8 * 1024 * 1024
        from_config = False
        from ._config_sources import config_sources_exist

        if config_sources_exist(start):
            from .config import hook_store_url, load_config, storage_options_for

            # a bad value must not stop the hook from recording: that key's default
            # applies, and one line says so
            config = load_config(start, on_problem=_config_problem)
            self.hooks = config.hooks
            self.secrets = config.secrets
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
        self.options.update(_option(item) for item in options)
        if store is None and not from_config:
            self.layout = "aiwiki"  # the repository root: never guess Basic Memory there

    def open(self, deadline: _Deadline | None = None) -> Any:
        from .backends import open_store

        options = dict(self.options)
        if deadline is not None:
            options = _bounded_options(
                self.url, options, deadline.remaining(), process_wide=deadline.process_entry
            )
        # a relative store URL means a folder inside the start folder (never above it)
        store = open_store(
            self.url, layout=self.layout, format=self.format, base=self.start, **options
        )
        if self.secrets is not None and hasattr(store, "redaction"):
            store.redaction = self.policy()
        return store

    def policy(self) -> Any:
        """The configured :class:`~sessionkit.redaction.Policy` (``None``: the default, redact)."""
        if self.secrets is None:
            return None
        from .redaction import Policy

        return Policy(mode=self.secrets.redact, allow=self.secrets.allow_values())

    def local_aiwiki_root(self) -> str | None:
        """The repository root when the store is a plain local aiwiki folder, else ``None``."""
        url = self.url
        if self.options or self.format not in (None, "aiwiki-v2", "aiwiki-v1"):
            return None
        if url.startswith("file://"):
            url = url[len("file://") :]
        if "://" in url or not url or "\x00" in url:
            return None
        root = os.path.normpath(os.path.join(self.start, url)).rstrip("/") or "/"
        real, real_start = os.path.realpath(root), os.path.realpath(self.start)
        if not os.path.isabs(url) and not (
            real == real_start or real.startswith(real_start.rstrip("/") + "/")
        ):
            return None  # leads outside the start folder: the store refuses it, and says so
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


def _config_problem(problem: Exception) -> None:
    """Say one bad configuration value (file and line, or the variable) that the hook
    leaves out, and what it does instead."""
    key = getattr(problem, "key", None)
    instead = f"the default for {key}" if key else "the defaults for this file's values"
    _say(f"configuration: {problem}; using {instead}")


def _bounded_options(
    url: str, options: dict[str, Any], seconds: float, *, process_wide: bool = False
) -> dict[str, Any]:
    """Storage options that keep one store's waits inside ``seconds``.

    A local store waits for its lock file at most that long.  On S3, botocore
    gets connect and read timeouts of what is left (less a margin, so the
    store's own "cannot reach" error comes before the hook's timer) and no
    retries of its own; s3fs's retry loop is set to one attempt on the
    filesystem instance (which fsspec caches, so the store gets the same one).
    """
    from .backends._storage import split_url

    protocol, _ = split_url(url)
    if protocol in (None, "file", "local"):
        left = max(0.2, seconds - 0.3)
        current = options.get("lock_timeout")
        wait = left if not isinstance(current, (int, float)) else min(float(current), left)
        return {**options, "lock_timeout": wait}
    if protocol not in ("s3", "s3a"):
        return options
    start = time.monotonic()
    try:
        import fsspec

        fsspec.get_filesystem_class(protocol)  # the import of s3fs counts before the timeouts
    except Exception:  # the store reports a missing package itself
        return options
    left = max(0.3, seconds - (time.monotonic() - start) - 0.3)
    # a silent endpoint costs about two read timeouts (measured with aiobotocore 3.10:
    # 0.5 s -> 1.65 s, 2 s -> 4.3 s), and a listing may follow a layout probe
    wanted = {"connect_timeout": left / 2, "read_timeout": left / 4}
    config = dict(options.get("config_kwargs") or {})
    for key, value in wanted.items():
        current = config.get(key)
        config[key] = value if not isinstance(current, (int, float)) else min(current, value)
    config["retries"] = {"max_attempts": 1, "mode": "standard"}
    if process_wide:
        # s3fs's own retry loop (five attempts with back-off) is a class attribute,
        # not an argument; this process is one hook run, so set it for the class
        import contextlib

        with contextlib.suppress(Exception):
            fsspec.get_filesystem_class(protocol).retries = 1
    return {**options, "config_kwargs": config}


def _option(item: str) -> tuple[str, Any]:
    """``KEY=VALUE`` as ``sessionkit -o`` reads it (VALUE a TOML literal, else a string)."""
    name, _, raw = item.partition("=")
    import tomllib

    try:
        value = tomllib.loads(f"v = {raw}")["v"]
    except tomllib.TOMLDecodeError:
        value = raw
    if not isinstance(value, str | int | float | bool):
        value = raw
    return name.strip(), value


def _pre_compact(args: Any, stdin: IO[bytes] | None, deadline: _Deadline) -> int:
    deadline.enter("reading stdin")
    payload, problem = read_payload(stdin, _payload_limit(), deadline.remaining() * _STDIN_SHARE)
    start = _start_dir(payload)
    if start is None and not _store_usable_without_start(args.store):
        _say(f"pre-compact: {_NO_START}")
        return 0
    from .ops import outbox
    from .ops.checkpoint import iso_now

    checkpoint_id, at = outbox.new_id(), iso_now()  # what the outbox keeps, if it must
    settings: _Settings | None = None
    try:
        deadline.enter("loading the configuration")
        settings = _Settings(start or os.getcwd(), args.store, args.storage_option)
        _configured_deadline(deadline, settings)
        report, found = _record(settings, payload, deadline, checkpoint_id)
    except DeadlineExceeded as exc:
        deadline.disarm()  # (off once it fired; also when a stage found no time left)
        if settings is None:  # the configuration is needed to know the store: read it now
            try:
                settings = _Settings(start or os.getcwd(), args.store, args.storage_option)
            except Exception:
                raise exc from None
        exc.kept = _keep(settings, payload, checkpoint_id, at) or ""  # ("": it failed)
        raise
    except Exception as exc:
        why = _unavailable(exc) if settings is not None else None
        if why is None or settings is None:
            raise
        deadline.disarm()  # writing the outbox must not be cut short
        path = _keep(settings, payload, checkpoint_id, at)
        _say(f"pre-compact: the store did not take the checkpoint ({why}); {_kept_line(path)}")
        return 0
    if found:
        where = ", ".join(f"{f.path}:{f.line} {f.kind}" for f in found[:10])
        verb = "redacted" if found[0].redacted else "wrote in clear (warn)"
        _say(f"{verb} {len(found)} secret(s): {where}")
    if problem is None and not report.payload_ok:
        problem = "payload has no usable session_id"
    if problem is not None:
        _say(f"{problem}; checkpoint recorded under short id {report.short_id} in {report.key}")
    return 0


def _record(
    settings: _Settings, payload: Any, deadline: _Deadline, checkpoint_id: str
) -> tuple[Any, list[Any]]:
    """Deliver what waits in the store's outbox, then record this run's checkpoint:
    ``(report, secrets found)``."""
    from .ops import outbox

    identity = outbox.store_identity(settings.url, settings.start)
    report: Any = None
    found: list[Any] = []
    waiting = outbox.pending(identity)  # (one listing: usually an empty or missing folder)
    root = settings.local_aiwiki_root() if not waiting else None
    if root is not None:  # an existing page of a local aiwiki folder: the light lane
        from .ops.checkpoint import record_local

        # reading the work manifest, listing the folder, writing the note
        deadline.enter("recording the checkpoint")
        hooks = settings.hooks
        report = record_local(
            root,
            payload,
            repo_root=settings.repo_root,
            kind=str(hooks.directive_kind),
            scope=str(hooks.directive_scope),
            action=str(hooks.directive_action),
            lock_timeout=max(0.2, deadline.remaining() - 0.3),
            redaction=settings.policy(),
        )
        found = report.findings if report is not None else []
    if report is None:
        from .ops.lifecycle import DirectiveSpec, record_checkpoint

        deadline.enter("opening the store")
        store = settings.open(deadline)
        if waiting:
            deadline.enter("delivering the outbox")
            _deliver(outbox, store, identity, settings)
        # reading the transcript and the work manifest, listing the store, writing the note
        deadline.enter("recording the checkpoint")
        remote = not identity.startswith("file://")
        report = record_checkpoint(
            store,
            payload,
            repo_root=settings.repo_root,
            directive=DirectiveSpec.from_config(settings.hooks),
            project=settings.project(),
            # a write the deadline cuts short may have landed: its id keeps the
            # outbox's copy from landing twice (a local write is done or not)
            checkpoint_id=checkpoint_id if remote else None,
        )
        found = getattr(store, "redactions", None) or []
    return report, found


def _deliver(outbox: Any, store: Any, identity: str, settings: _Settings) -> None:
    """Deliver the store's outbox; raises only when the store is busy or unreachable (an
    entry the store refuses waits, and is named in one line)."""
    done = outbox.deliver(store, identity, project=settings.project())
    if done.failed:
        path, exc = done.failed[0]
        _say(f"the outbox entry {path} waits: {_describe(exc)}")


def _unavailable(exc: BaseException) -> str | None:
    """Why the store could not take the checkpoint when it was busy or unreachable
    (a lock not free in time, lost write races, no answer), else ``None``."""
    from .errors import ConflictError, SessionKitError

    if isinstance(exc, ConflictError):
        return str(exc)
    from .backends._netfail import unreachable

    why = unreachable(exc)
    if why is not None:
        return f"cannot reach the store: {why}"
    if isinstance(exc, SessionKitError) and "cannot reach" in str(exc):
        return str(exc)
    return None


def _keep(settings: _Settings, payload: Any, checkpoint_id: str, at: str) -> str | None:
    """Write this run's checkpoint to the store's outbox; its path (``None``: not written)."""
    from .ops import outbox
    from .ops.checkpoint import find_work, payload_ids, text_field

    identity = outbox.store_identity(settings.url, settings.start)
    session_id, id7, _, trigger = payload_ids(payload)
    data: Mapping[str, Any] = payload if isinstance(payload, Mapping) else {}
    work = find_work(settings.repo_root)
    hooks = settings.hooks
    entry = {
        "id": checkpoint_id,
        "at": at,
        "session_id": session_id,
        "short_id": id7,
        "trigger": trigger,
        "transcript_path": text_field(data, "transcript_path"),
        "work": None
        if work is None
        else {
            "name": work.name,
            "manifest": work.manifest,
            "status": work.status,
            "phases": [list(p) for p in work.phases],
        },
        "directive": {
            "kind": str(hooks.directive_kind),
            "scope": str(hooks.directive_scope),
            "action": str(hooks.directive_action),
        },
        "layout": settings.layout,
        "format": settings.format,
        "project": settings.project(),
    }
    try:
        return outbox.keep(identity, entry)
    except OSError:
        return None


def _kept_line(path: str | None) -> str:
    """The end of the one line a hook says when the store did not take its checkpoint."""
    if path is None:
        return "nothing recorded: the outbox could not be written either"
    return (
        f"the checkpoint waits in the outbox ({path}) for the next hook, "
        "`sessionkit outbox --deliver` or any command on that store"
    )


# -- session-start ---------------------------------------------------------------------


class _NotPlain(Exception):
    """The sessions folder holds more than plain files: the store's walk decides."""


def _local_latest(root: str) -> tuple[str | None, str, list[str]]:
    """(key, absolute path) of the newest page under ``root/aiwiki/sessions`` (key
    ``None`` when there is none) and the notes of checkpoints without a session id
    dated on or after it (see :func:`_unknown_notice`).

    The rule of :meth:`sessionkit.backends.aiwiki.AiwikiStore.latest`
    (:func:`sessionkit._listing.latest_note`) over one listing of the folder:
    only the newest date's pages are stat-ed, no page is parsed.

    Raises:
        _NotPlain: the folder holds a subfolder or a symlink (then the store walks it).
    """
    from ._listing import latest_note, note_names, unknown_notes

    base = os.path.join(root, "aiwiki", "sessions")
    if not os.path.isdir(base):
        return None, base, []
    for folder in (os.path.dirname(base), base):
        if os.path.islink(folder):  # (the store's root rule decides where it leads)
            raise _NotPlain(folder)
    names = note_names(base)
    if names is None:
        raise _NotPlain(base)

    def when(name: str) -> float:
        try:
            return os.stat(os.path.join(base, name)).st_mtime
        except OSError:
            return 0.0

    chosen = latest_note(names, when)
    unknown = unknown_notes(names, chosen)
    return chosen, base if chosen is None else os.path.join(base, chosen), unknown


def _unknown_notice(unknown: Sequence[str]) -> None:
    """Say (one line) where checkpoints without a session id are, when some are as new
    as the latest session: they are never taken as the latest session themselves."""
    if unknown:
        more = f" (and {len(unknown) - 1} more)" if len(unknown) > 1 else ""
        _say(
            f"checkpoints without a session id are in aiwiki/sessions/{unknown[0]}{more}; "
            "not taken as the latest session"
        )


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
) -> tuple[str | None, list[str]]:
    """:func:`session_start_text` for a local aiwiki store, importing only the page parser,
    and the notes of checkpoints without a session id as new as it."""
    key, path, unknown = _local_latest(root)
    if key is None:
        return None, unknown
    with open(path, "rb") as fh:
        data = fh.read(max_bytes + 1)
    if len(data) > max_bytes:
        from .errors import LimitExceededError

        raise LimitExceededError(f"note is larger than {max_bytes} bytes", path=key)
    from .adapters.aiwiki_page import read_parts
    from .document import decode, parse

    page, _ = read_parts(parse(decode(data, key), key))
    return _context_text(key, page, _checkpoint_directives(page), render), unknown


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


def _session_start(args: Any, stdin: IO[bytes] | None, deadline: _Deadline) -> int:
    deadline.enter("reading stdin")
    payload, _ = read_payload(stdin, _payload_limit(), deadline.remaining() * _STDIN_SHARE)
    start = _start_dir(payload)
    if start is None and not _store_usable_without_start(args.store):
        _say(f"session-start: {_NO_START.replace('recorded', 'read')}")
        return 0
    deadline.enter("loading the configuration")
    settings = _Settings(start or os.getcwd(), args.store, args.storage_option)
    _configured_deadline(deadline, settings)
    render = _render_options(payload, settings)
    from .ops import outbox

    identity = outbox.store_identity(settings.url, settings.start)
    waiting = outbox.pending(identity)  # checkpoints kept by a pre-compact: deliver first
    root = settings.local_aiwiki_root() if not waiting else None
    text = None
    deadline.enter("reading the latest note")
    if root is not None and not _fastpaths.enabled("session-start"):
        root = None  # the light path is a fast lane: off with the switch
    unknown: list[str] = []
    if root is not None:
        try:
            text, unknown = _local_session_start_text(root, settings.max_note_bytes, render)
            _fastpaths.answered("session-start")
        except Exception:  # anything odd: the full store path decides (and reports)
            root = None
    if root is None:
        store = settings.open(deadline)
        if waiting:
            deadline.enter("delivering the outbox")
            try:
                _deliver(outbox, store, identity, settings)
            except Exception as exc:  # the note as it is, then; they wait for the next run
                _say(f"session-start: the outbox waits: {_unavailable(exc) or _describe(exc)}")
            deadline.enter("reading the latest note")
        text = session_start_text(store, render)
        if getattr(store, "layout", None) == "aiwiki":
            from ._listing import unknown_notes

            if unknown_notes(store.keys()):
                unknown = unknown_notes(store.keys(), store.latest())
    _unknown_notice(unknown)
    deadline.disarm()  # the answer is ready: print it whole
    if not text:
        return 0
    if sys.stdout is None:  # stdout closed: nobody to tell
        return 0
    if args.agent != "claude":  # Codex validates its JSON strictly; Antigravity takes JSON only
        plain = False
    elif args.plain is not None:
        plain = args.plain
    else:
        plain = settings.hooks.session_start_output == "plain"
    if plain:
        out = text + "\n"
    else:
        reply: dict[str, Any] = {
            "hookSpecificOutput": {
                "hookEventName": "SessionStart",
                "additionalContext": text,
            }
        }
        message = _system_message()
        if message is not None:
            reply["systemMessage"] = message
            _NOTICES.clear()  # said once, in this reply
        out = _json_dumps(reply) + "\n"
    sys.stdout.write(out)
    sys.stdout.flush()
    return 0


def _plain_reply(args: Any) -> bool:
    """Whether session-start was asked for plain text (Claude Code only: the other agents
    take JSON)."""
    return bool(getattr(args, "plain", False)) and getattr(args, "agent", "claude") == "claude"


# -- session-end -----------------------------------------------------------------------

#: Claude Code gives SessionEnd hooks 1.5 s: the session-end hook's own deadline
_SESSION_END_SECONDS = 1.2


def _session_end(args: Any, stdin: IO[bytes] | None, deadline: _Deadline) -> int:
    """Record the end of the payload's session (``date_end``; a ``SessionEnd`` entry but
    for Codex, whose Stop ends a turn) when it has a note; nothing to say otherwise."""
    deadline.enter("reading stdin")
    payload, _ = read_payload(stdin, _payload_limit(), deadline.remaining() * _STDIN_SHARE)
    start = _start_dir(payload)
    if start is None and not _store_usable_without_start(args.store):
        _say(f"session-end: {_NO_START}")
        return 0
    from .ops.checkpoint import payload_ids

    if not payload_ids(payload)[2]:  # no usable session id: no note is this session's
        return 0
    deadline.enter("loading the configuration")
    settings = _Settings(start or os.getcwd(), args.store, args.storage_option)
    _configured_deadline(deadline, settings)
    if deadline.seconds > _SESSION_END_SECONDS:
        deadline.reset(_SESSION_END_SECONDS)
    store = settings.open(deadline)
    deadline.enter("recording the session's end")
    from .ops.ending import record_session_end

    record_session_end(store, payload, entry=args.agent != "codex")
    return 0


#: what shlex.quote leaves unquoted: ASCII letters, digits and ``_@%+=:,./-``
_SHELL_SAFE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_@%+=:,./-")


def _quoted(text: str) -> str:
    """``shlex.quote(text)``; a text it leaves as it is (a plain path) without importing it."""
    if text and _SHELL_SAFE.issuperset(text):
        return text
    import shlex

    return shlex.quote(text)


#: the most an agent takes of a hook's context (Claude Code and Codex: 10,000 characters),
#: less room for the JSON around it; in tokens, one per three bytes (context.measure)
_AGENT_CONTEXT_CHARS = 9_500
_AGENT_CONTEXT_TOKENS = 3_000


def _program() -> str:
    """How an agent's shell runs this sessionkit: the console script's absolute path (as
    ``install-hooks`` records it), else ``<python> -m sessionkit`` (a shell has no venv)."""
    script = sys.argv[0] if sys.argv else ""
    if os.path.isabs(script) and os.path.basename(script) == "sessionkit":
        return _quoted(script)
    python = sys.executable
    if python and os.path.isabs(python):
        beside = os.path.join(os.path.dirname(python), "sessionkit")
        if os.path.isfile(beside) and os.access(beside, os.X_OK):
            return _quoted(beside)
        return f"{_quoted(python)} -m sessionkit"
    return "sessionkit"


def _render_options(payload: Any, settings: _Settings) -> dict[str, Any]:
    """The context's source (the payload's), budget, unit, the command showing all of it,
    and how the agent's shell runs sessionkit; the budget within what an agent takes."""
    source = payload.get("source") if isinstance(payload, Mapping) else None
    source = source if source in ("startup", "resume", "clear", "compact") else "startup"
    program = _program()
    rest = f"{program} context --budget 0 --store {_quoted(settings.url)}"
    if source == "compact":
        rest += " --source compact"
    unit = settings.hooks.context_unit
    cap = _AGENT_CONTEXT_TOKENS if unit == "tokens" else _AGENT_CONTEXT_CHARS
    budget = settings.hooks.context_budget
    return {
        "source": source,
        "budget": cap if budget == 0 else min(budget, cap),
        "unit": unit,
        "rest": rest,
        "program": program,
    }


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
    _NOTICES.clear()
    try:
        args: Any = _parser().parse_args(args_list)
    except SystemExit as exc:
        return 0 if exc.code in (0, None) else 1
    try:
        code = _run(args, stdin)
    finally:
        if args.event != "session-start" or not _plain_reply(args):
            _notify()
    return code


def _run(args: Any, stdin: IO[bytes] | None) -> int:
    """:func:`main` after the arguments are parsed."""
    if stdin is None:
        stdin = getattr(sys.stdin, "buffer", None)
    budget = (_deadline_ms(os.environ.get(_DEADLINE_ENV)) or DEADLINE_MS) / 1000
    process_entry = sys.argv[1:2] == ["hook"]  # the console script, not a caller's process
    deadline = _Deadline(budget, since_start=_process_age() if process_entry else 0.0)
    deadline.process_entry = process_entry
    if process_entry:
        import gc

        # a short process that makes many small objects (a folder's names) and no cycles
        # worth collecting: the collector's passes over them are pure cost
        gc.disable()
    try:
        deadline.arm()
        try:
            if args.event == "pre-compact":
                return _pre_compact(args, stdin, deadline)
            if args.event == "session-end":
                return _session_end(args, stdin, deadline)
            return _session_start(args, stdin, deadline)
        finally:
            deadline.disarm()
    except DeadlineExceeded as exc:
        _deadline_message(args.event, exc)
        return 0
    except BrokenPipeError:
        _quiet_stdout()
        return 0
    except Exception as exc:  # a hook must never break the agent
        if os.environ.get("SESSIONKIT_DEBUG"):
            raise
        _say(f"{args.event} failed: {_describe(exc)}")
        return 0


def _configured_deadline(deadline: _Deadline, settings: _Settings) -> None:
    """Apply ``hooks.deadline_ms`` once the configuration is known (it may differ from the env)."""
    ms = _deadline_ms(getattr(settings.hooks, "deadline_ms", None))
    if ms is not None and ms / 1000 != deadline.seconds:
        deadline.reset(ms / 1000)


def _deadline_message(event: str, exc: DeadlineExceeded) -> None:
    """Say that the deadline stopped the hook: one line, on stderr and as Claude Code's
    ``systemMessage`` (the same words), said alone."""
    message = f"{event} stopped at its {exc.seconds:g} s deadline while {exc.stage}"
    if exc.kept is not None:
        message += f"; {_kept_line(exc.kept or None)}"
    else:
        message += " (nothing partial was written; raise hooks.deadline_ms if the store is slow)"
    _NOTICES.clear()  # said here, whole
    _say(message)
    _notify()


def _quiet_stdout() -> None:
    """stdout went away: point it at /dev/null so the exit's flush says nothing."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.close(devnull)
    except OSError:  # pragma: no cover
        pass


def _describe(exc: BaseException) -> str:
    from .errors import SessionKitError

    if isinstance(exc, SessionKitError):
        return str(exc)
    from .backends._netfail import unreachable

    why = unreachable(exc)
    if why is not None:
        return f"cannot reach the store: {why}"
    if isinstance(exc, OSError):
        name = f"{os.fsdecode(exc.filename)}: " if exc.filename is not None else ""
        return f"{name}{exc.strerror or exc}"
    return f"internal error: {type(exc).__name__}: {exc}"
