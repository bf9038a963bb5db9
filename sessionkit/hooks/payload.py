"""What a hook reads (its JSON payload, its start folder) and how it says a problem."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Mapping

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import IO, Any

__all__ = [
    "MAX_PAYLOAD",
    "NO_START",
    "STDIN_SHARE",
    "describe",
    "json_dumps",
    "notify",
    "payload_limit",
    "quiet_stdout",
    "read_payload",
    "say",
    "start_dir",
    "store_usable_without_start",
    "system_message",
]

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
    import json

    return json.dumps(value, ensure_ascii=False)


def _json_loads(text: str) -> Any:
    import json

    return json.loads(text)


def _complete_json(data: bytes) -> bool:
    """Whether ``data`` already holds a whole JSON object (stdin may never close)."""
    if not data.rstrip().endswith(b"}"):
        return False
    try:
        _json_loads(data.decode("utf-8"))
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
    """Up to ``limit + 1`` bytes from ``fd`` within ``seconds``: ``(data, problem)``; stops at
    end of input, at a whole JSON object, past ``limit`` (draining what else arrives in
    time) or when the time is up."""
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
        value = _json_loads(data.decode("utf-8"))
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
