"""What every hook shares: its deadline, its payload and start folder, how it says a
problem, and its settings and store."""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Mapping

from .._config_sources import config_sources_exist, repository_root, scalar

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import IO, Any

__all__ = [
    "DEADLINE_ENV",
    "DEADLINE_MS",
    "MAX_PAYLOAD",
    "NO_START",
    "STDIN_SHARE",
    "Deadline",
    "DeadlineExceeded",
    "HookDefaults",
    "Settings",
    "bounded_options",
    "configured_deadline",
    "deadline_ms",
    "deliver",
    "describe",
    "json_dumps",
    "kept_line",
    "notify",
    "payload_limit",
    "quiet_stdout",
    "read_payload",
    "say",
    "start_dir",
    "store_usable_without_start",
    "system_message",
]

# -- the deadline ------------------------------------------------------------------------------

#: default time budget of one hook run, in milliseconds (``hooks.deadline_ms``)
DEADLINE_MS = 5000
DEADLINE_ENV = "SESSIONKIT_HOOK_DEADLINE_MS"
#: seconds kept back from the budget for the interpreter's exit
EXIT_RESERVE = 0.15


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
        self.stage, self.seconds = stage, seconds
        self.kept: str | None = None


class Deadline:
    """The budget of one hook run from its start (monotonic clock).

    :meth:`arm` sets a ``SIGALRM`` timer (main thread, POSIX) that raises
    :class:`DeadlineExceeded` wherever the hook is; the hook's own blocking
    reads (stdin) are bounded by :meth:`remaining` as well.  ``clock`` is the
    monotonic clock (tests inject their own).
    """

    def __init__(self, seconds: float, *, since_start: float = 0.0, clock: Any = None) -> None:
        self.clock = clock or time.monotonic
        self.start = self.clock() - since_start - EXIT_RESERVE
        self.seconds, self.end = seconds, self.start + seconds
        self.stage = "starting"
        self.process_entry = False  # the hook is the whole process (the console script)
        self._armed = False
        self._previous: Any = None

    def remaining(self) -> float:
        return max(0.0, self.end - self.clock())

    def enter(self, stage: str) -> None:
        """Say what the hook does next; raise at once when no time is left."""
        self.stage = stage
        if self.remaining() <= 0:
            self.disarm()  # said now: the timer must not fire again while the hook says it
            raise DeadlineExceeded(stage, self.seconds)

    def reset(self, seconds: float) -> None:
        """Change the budget (the configuration may set another one), still from the start."""
        self.seconds, self.end = seconds, self.start + seconds
        if self._armed:
            self._set_timer()

    def _fire(self, signum: int, frame: Any) -> None:
        self.disarm()
        raise DeadlineExceeded(self.stage, self.seconds)

    def _set_timer(self) -> None:
        _signal().setitimer(_signal().ITIMER_REAL, max(self.remaining(), 0.001))

    def arm(self) -> None:
        signal = _signal()
        if self._armed or not hasattr(signal, "setitimer"):
            return
        try:
            self._previous = signal.signal(signal.SIGALRM, self._fire)
        except ValueError:  # not the main thread (the bounded reads still hold)
            return
        self._armed = True
        self._set_timer()

    def disarm(self) -> None:
        if not self._armed:
            return
        signal = _signal()
        self._armed = False
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, self._previous or signal.SIG_DFL)


def _signal() -> Any:
    """``_signal`` (loaded at start-up; :mod:`signal` builds enums on import), else ``signal``."""
    module = sys.modules.get("signal") or sys.modules.get("_signal")
    if module is None:  # pragma: no cover - not CPython
        import signal as module
    return module


def process_age() -> float:
    """Seconds since this process started (Linux ``/proc``), else ``0.0``: the agent's
    budget covers the interpreter's start-up too."""
    try:
        with open("/proc/self/stat", "rb") as fh:
            stat = fh.read().rsplit(b")", 1)[1].split()
        with open("/proc/uptime", "rb") as fh:
            uptime = float(fh.read().split()[0])
        age = uptime - int(stat[19]) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, AttributeError):
        return 0.0
    return age if 0.0 <= age < 60.0 else 0.0


def deadline_ms(raw: object) -> int | None:
    """A positive number of milliseconds from ``raw`` (a string or an int), else ``None``."""
    if isinstance(raw, bool):
        return None
    if isinstance(raw, int):
        return raw if raw > 0 else None
    text = str(raw or "").strip().replace("_", "")
    return int(text) if text.isdigit() and int(text) > 0 else None


# -- the payload, and what the hook says --------------------------------------------------------

#: default cap on the payload read from stdin (``limits.max_payload_bytes``)
MAX_PAYLOAD = 1024 * 1024
#: share of the budget a stdin that never closes may take (the rest is for the store)
STDIN_SHARE = 0.4

#: problems said during this run, for the user (``systemMessage``, see :func:`notify`)
NOTICES: list[str] = []


def say(message: str) -> None:
    """One line on stderr, kept for the user's ``systemMessage`` too (never raises)."""
    try:
        text = " ".join(str(message).split())
        NOTICES.append(text)
        sys.stderr.write(f"sessionkit hook: {text}\n")
        sys.stderr.flush()
    except Exception:  # pragma: no cover - stderr closed
        pass


def system_message() -> str | None:
    """What Claude Code shows the user for this run's problems, or ``None``."""
    return "sessionkit hook: " + "; ".join(NOTICES) if NOTICES else None


def notify() -> None:
    """Print ``{"systemMessage": ...}`` on stdout when a problem was said and not yet shown
    (Claude Code shows a hook's stderr only in verbose mode when it exits 0)."""
    message = system_message()
    NOTICES.clear()
    if message is None:
        return
    try:
        if sys.stdout is not None:
            sys.stdout.write(json_dumps({"systemMessage": message}) + "\n")
            sys.stdout.flush()
    except BrokenPipeError:  # nobody reads stdout: stderr had it
        quiet_stdout()
    except (OSError, ValueError):  # stdout closed: stderr had it
        pass


def quiet_stdout() -> None:
    """stdout went away: point it at /dev/null so the exit's flush says nothing."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.close(devnull)
    except OSError:  # pragma: no cover
        pass


def describe(exc: BaseException) -> str:
    """One line about a failure, for the user."""
    from ..errors import SessionKitError

    if isinstance(exc, SessionKitError):
        return str(exc)
    from ..backends._netfail import unreachable

    why = unreachable(exc)
    if why is not None:
        return f"cannot reach the store: {why}"
    if isinstance(exc, OSError):
        name = f"{os.fsdecode(exc.filename)}: " if exc.filename is not None else ""
        return f"{name}{exc.strerror or exc}"
    return f"internal error: {type(exc).__name__}: {exc}"


# -- JSON in and out ----------------------------------------------------------------------


def json_dumps(value: Mapping[str, Any]) -> str:
    return json.dumps(value, ensure_ascii=False)


def _complete_json(data: bytes) -> bool:
    """Whether ``data`` already holds a whole JSON object (stdin may never close)."""
    if not data.rstrip().endswith(b"}"):
        return False
    try:
        json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return False
    return True


def _fileno(stream: IO[bytes]) -> int | None:
    try:
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):
        return None
    return fd if isinstance(fd, int) and fd >= 0 else None


def _read_bounded(fd: int, limit: int, seconds: float) -> tuple[bytes, str | None]:
    """``(data, problem)``: up to ``limit + 1`` bytes from ``fd`` within ``seconds``, stopping
    at end of input, at a whole JSON object, or past ``limit`` (the rest drained)."""
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
        if seconds is None:  # drain the rest so the writer does not get a broken pipe
            try:
                while stream.read(1 << 16):
                    pass
            except (OSError, ValueError):
                pass
        return {}, f"payload larger than {limit} bytes"
    if not data.strip():
        return {}, timed_out or "empty payload"
    try:
        value = json.loads(data.decode("utf-8"))
    except RecursionError:
        return {}, "payload is nested too deep to decode"
    except (UnicodeDecodeError, ValueError):
        return {}, timed_out or "payload is not JSON"
    if not isinstance(value, dict):
        return value, "payload is not a JSON object"
    return value, None


def payload_limit() -> int:
    """``$SESSIONKIT_MAX_PAYLOAD_BYTES`` when a positive integer, else :data:`MAX_PAYLOAD`
    (the payload is read before the configuration can be found)."""
    raw = os.environ.get("SESSIONKIT_MAX_PAYLOAD_BYTES", "").strip().replace("_", "")
    return int(raw) if raw.isdigit() and int(raw) > 0 else MAX_PAYLOAD


# -- where the hook starts ------------------------------------------------------------------

#: why a hook wrote nothing when it had no folder to start from
NO_START = (
    "nothing recorded: the payload has no usable cwd (an existing absolute folder), "
    "$CLAUDE_PROJECT_DIR names no folder, the working directory is in no repository, "
    "and no --store was given"
)


def start_dir(payload: Any) -> str | None:
    """The payload's absolute ``cwd`` if a folder, else ``$CLAUDE_PROJECT_DIR``, else the
    working directory when it is inside a repository; ``None`` when none is usable (a
    relative ``cwd`` or a working directory outside any repository is not trusted)."""
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
    from .._config_sources import repository_above

    return here if repository_above(here) is not None else None


def store_usable_without_start(store: str | None) -> bool:
    """Whether ``--store`` names a store when no start folder is known: an absolute
    path or a URL, or a relative path in a working directory that is not ``/``."""
    if not store:
        return False
    rest = store[len("file://") :] if store.startswith("file://") else store
    if "://" in rest or os.path.isabs(rest):
        return True
    try:
        return os.path.dirname(os.getcwd()) != os.getcwd()
    except OSError:
        return False


# -- the settings and the store -----------------------------------------------------------------


class HookDefaults:
    """Built-in hook behaviour, when no configuration source exists."""

    directive_kind = "Dream"
    directive_scope = "`aiwiki/raw/`, recently-touched typed pages"
    directive_action = "invoke `support-dream` skill before resuming other work"
    session_start_output = "json"
    store = None
    context_budget = 9000
    context_unit = "chars"
    deadline_ms: int | None = None  # then $SESSIONKIT_HOOK_DEADLINE_MS, else DEADLINE_MS


class Settings:
    """The store and hook settings for a run started in ``start``.

    The configuration module is imported only when a configuration source
    exists (:func:`~sessionkit._config_sources.config_sources_exist`); otherwise
    the built-in defaults apply, which is what ``load_config`` would return.
    """

    def __init__(self, start: str, store: str | None, options: Sequence[str] = ()) -> None:
        self.start = start
        self.repo_root = repository_root(start)
        self.options: dict[str, Any] = {}
        self.layout: str | None = None
        self.format: str | None = None
        self.bm_project: str | None = None
        self.hooks: Any = HookDefaults()
        self.secrets: Any = None  # the configuration's secrets settings (None: redact)
        self.max_note_bytes = 8 * 1024 * 1024
        from_config = False
        if config_sources_exist(start):
            from ..config import hook_store_url, load_config, storage_options_for

            # a bad value must not stop the hook: that key's default applies, one line says so
            config = load_config(start, on_problem=_config_problem)
            self.hooks = config.hooks
            self.secrets = config.secrets
            self.max_note_bytes = config.limits.max_note_bytes
            self.layout, self.format = config.layout, config.format
            self.bm_project = config.bm_project
            from_config = bool(config.hooks.store) or config.source("store.url").kind != "default"
            url = store or hook_store_url(config, start)
            self.options = storage_options_for(config, url)
        else:
            url = store or self.repo_root
        self.url = url
        self.options.update(_option(item) for item in options)
        if store is None and not from_config:
            self.layout = "aiwiki"  # the repository root: never guess Basic Memory there

    def open(self, deadline: Deadline | None = None) -> Any:
        from ..backends import open_store

        options = dict(self.options)
        if deadline is not None:
            options = bounded_options(
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
        from ..redaction import Policy

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


def configured_deadline(deadline: Deadline, settings: Settings) -> None:
    """Apply ``hooks.deadline_ms`` once the configuration is known (it may differ from the env)."""
    ms = deadline_ms(getattr(settings.hooks, "deadline_ms", None))
    if ms is not None and ms / 1000 != deadline.seconds:
        deadline.reset(ms / 1000)


def _config_problem(problem: Exception) -> None:
    """Say one bad configuration value that the hook leaves out, and what it does instead."""
    key = getattr(problem, "key", None)
    instead = f"the default for {key}" if key else "the defaults for this file's values"
    say(f"configuration: {problem}; using {instead}")


def bounded_options(
    url: str, options: dict[str, Any], seconds: float, *, process_wide: bool = False
) -> dict[str, Any]:
    """Storage options that keep one store's waits inside ``seconds``: a local store's
    lock wait; on S3, botocore's connect and read timeouts (less a margin, so the store's
    "cannot reach" comes first) and no retries (``process_wide``: s3fs's class too).
    """
    from ..backends._storage import split_url

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
    # a silent endpoint costs about two read timeouts, and a listing may follow a layout probe
    wanted = {"connect_timeout": left / 2, "read_timeout": left / 4}
    config = dict(options.get("config_kwargs") or {})
    for key, value in wanted.items():
        current = config.get(key)
        config[key] = value if not isinstance(current, (int, float)) else min(current, value)
    config["retries"] = {"max_attempts": 1, "mode": "standard"}
    if process_wide:
        import contextlib

        with contextlib.suppress(Exception):
            fsspec.get_filesystem_class(protocol).retries = 1
    return {**options, "config_kwargs": config}


def _option(item: str) -> tuple[str, Any]:
    """``KEY=VALUE`` as ``sessionkit -o`` reads it."""
    name, _, raw = item.partition("=")
    return name.strip(), scalar(raw)


def deliver(outbox: Any, store: Any, identity: str, settings: Settings) -> None:
    """Deliver the store's outbox; raises only when the store is busy or unreachable (an
    entry the store refuses waits, and is named in one line)."""
    done = outbox.deliver(store, identity, project=settings.project())
    if done.failed:
        path, exc = done.failed[0]
        say(f"the outbox entry {path} waits: {describe(exc)}")


def kept_line(path: str | None) -> str:
    """The end of the one line a hook says when the store did not take its checkpoint."""
    if path is None:
        return "nothing recorded: the outbox could not be written either"
    return (
        f"the checkpoint waits in the outbox ({path}) for the next hook, "
        "`sessionkit outbox --deliver` or any command on that store"
    )
