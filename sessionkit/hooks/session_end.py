"""``sessionkit hook session-end``: record the end of the payload's session."""

from __future__ import annotations

import os

from .deadline import DEADLINE_ENV
from .payload import (
    NO_START,
    STDIN_SHARE,
    payload_limit,
    read_payload,
    say,
    start_dir,
    store_usable_without_start,
)
from .settings import Settings, configured_deadline

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import IO, Any

    from .deadline import Deadline

__all__ = ["SESSION_END_SECONDS", "session_end"]

#: Claude Code gives SessionEnd hooks 1.5 s: the session-end hook's own deadline
SESSION_END_SECONDS = 1.2


def session_end(args: Any, stdin: IO[bytes] | None, deadline: Deadline) -> int:
    """Record the end of the payload's session (``date_end``; a ``SessionEnd`` entry but
    for Codex, whose Stop ends a turn) when it has a note; nothing to say otherwise."""
    deadline.enter("reading stdin")
    payload, _ = read_payload(stdin, payload_limit(), deadline.remaining() * STDIN_SHARE)
    start = start_dir(payload)
    if start is None and not store_usable_without_start(args.store):
        say(f"session-end: {NO_START}")
        return 0
    from ..ops.checkpoint import payload_ids

    if not payload_ids(payload)[2]:  # no usable session id: no note is this session's
        return 0
    deadline.enter("loading the configuration")
    settings = Settings(start or os.getcwd(), args.store, args.storage_option)
    configured_deadline(deadline, settings)
    # (an explicit $SESSIONKIT_HOOK_DEADLINE_MS is the caller's choice, for this event too)
    if deadline.seconds > SESSION_END_SECONDS and not os.environ.get(DEADLINE_ENV):
        deadline.reset(SESSION_END_SECONDS)
    store = settings.open(deadline)
    deadline.enter("recording the session's end")
    from ..ops.ending import record_session_end

    record_session_end(store, payload, entry=args.agent != "codex")
    return 0
