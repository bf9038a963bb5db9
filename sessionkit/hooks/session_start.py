"""``sessionkit hook session-start``: tell the agent where the last session stopped.

The ``session-start`` lane reads the newest page of a plain local aiwiki folder
with the page parser alone (no store, no model); the store decides anything
else (outbox waiting, subfolders, symlinks, remote stores).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from types import SimpleNamespace

from .common import (
    NO_START,
    NOTICES,
    STDIN_SHARE,
    Settings,
    configured_deadline,
    deliver,
    describe,
    json_dumps,
    payload_limit,
    read_payload,
    say,
    start_dir,
    store_usable_without_start,
    system_message,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import IO, Any

    from .common import Deadline

__all__ = ["session_start", "session_start_text"]

#: the most an agent takes of a hook's context (Claude Code and Codex: 10,000 characters),
#: less room for the JSON around it; in tokens, one per three bytes (context.measure)
_AGENT_CONTEXT_CHARS = 9_500
_AGENT_CONTEXT_TOKENS = 3_000


def session_start(args: Any, stdin: IO[bytes] | None, deadline: Deadline) -> int:
    from .. import _fastpaths
    from ..ops import outbox

    deadline.enter("reading stdin")
    payload, _ = read_payload(stdin, payload_limit(), deadline.remaining() * STDIN_SHARE)
    start = start_dir(payload)
    if start is None and not store_usable_without_start(args.store):
        say(f"session-start: {NO_START.replace('recorded', 'read')}")
        return 0
    deadline.enter("loading the configuration")
    settings = Settings(start or os.getcwd(), args.store, args.storage_option)
    configured_deadline(deadline, settings)
    render = _render_options(payload, settings)
    identity = outbox.store_identity(settings.url, settings.start)
    waiting = outbox.pending(identity)  # checkpoints kept by a pre-compact: deliver first
    root = settings.local_aiwiki_root() if not waiting else None
    deadline.enter("reading the latest note")
    found = None
    if root is not None and _fastpaths.enabled("session-start"):
        try:
            found = _local_text(root, settings.max_note_bytes, render)
        except Exception:  # anything odd: the store decides (and reports)
            found = None
    if found is not None:
        _fastpaths.answered("session-start")
        text, unknown = found
    else:
        store = settings.open(deadline)
        if waiting:
            deadline.enter("delivering the outbox")
            try:
                deliver(outbox, store, identity, settings)
            except Exception as exc:  # the note as it is, then; they wait for the next run
                say(f"session-start: the outbox waits: {outbox.unavailable(exc) or describe(exc)}")
            deadline.enter("reading the latest note")
        text = session_start_text(store, render)
        unknown = []
        if getattr(store, "layout", None) == "aiwiki":
            from .._listing import unknown_notes

            if unknown_notes(store.keys()):
                unknown = unknown_notes(store.keys(), store.latest())
    _unknown_notice(unknown)
    deadline.disarm()  # the answer is ready: print it whole
    if not text or sys.stdout is None:
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
            "hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": text}
        }
        message = system_message()
        if message is not None:
            reply["systemMessage"] = message
            NOTICES.clear()  # said once, in this reply
        out = json_dumps(reply) + "\n"
    sys.stdout.write(out)
    sys.stdout.flush()
    return 0


def _unknown_notice(unknown: Sequence[str]) -> None:
    """Say where checkpoints without a session id are when some are as new as the latest
    session (they are never taken as the latest session themselves)."""
    if unknown:
        more = f" (and {len(unknown) - 1} more)" if len(unknown) > 1 else ""
        say(
            f"checkpoints without a session id are in aiwiki/sessions/{unknown[0]}{more}; "
            "not taken as the latest session"
        )


def _local_text(
    root: str, max_bytes: int, render: Mapping[str, Any]
) -> tuple[str | None, list[str]] | None:
    """:func:`session_start_text` for a plain local aiwiki folder, and the notes of
    checkpoints without a session id as new as its note; ``None``: the store decides."""
    from .._listing import folder_latest

    folder = os.path.join(root, "aiwiki", "sessions")
    latest = folder_latest(folder)
    if latest is None:
        return None
    key, unknown = latest
    if key is None:
        return None, unknown
    with open(os.path.join(folder, key), "rb") as fh:
        data = fh.read(max_bytes + 1)
    if len(data) > max_bytes:
        from ..errors import LimitExceededError

        raise LimitExceededError(f"note is larger than {max_bytes} bytes", path=key)
    from ..adapters.aiwiki_page import read_parts
    from ..context import render as render_context
    from ..document import decode, parse

    page, _ = read_parts(parse(decode(data, key), key))
    numbered: list[Any] = []  # (each directive numbered, as context.render reads them)
    for cp in page.checkpoints:
        for d in cp.directives:
            each = {"kind": d.kind, "action": d.action, "state": d.state, "checkpoint_at": cp.at}
            numbered.append(SimpleNamespace(index=len(numbered) + 1, **each))
    return render_context(key, page, numbered, **render).text, unknown


def session_start_text(store: Any, render: Mapping[str, Any] | None = None) -> str | None:
    """The SessionStart context for a store (``None``: no session note): summary line,
    unconsumed directives numbered as ``directive consume --index N`` takes them.
    ``render`` holds :func:`sessionkit.context.render`'s keyword arguments."""
    from ..context import for_store

    context = for_store(store, **(render or {}))
    return None if context is None else context.text


#: what shlex.quote leaves unquoted: ASCII letters, digits and ``_@%+=:,./-``
_SHELL_SAFE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_@%+=:,./-")


def _quoted(text: str) -> str:
    """``shlex.quote(text)``; a plain path left as it is without importing it."""
    if text and _SHELL_SAFE.issuperset(text):
        return text
    import shlex

    return shlex.quote(text)


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


def _render_options(payload: Any, settings: Settings) -> dict[str, Any]:
    """The context's source, budget (within what an agent takes), unit, the command showing
    all of it, and how the agent's shell runs sessionkit."""
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
