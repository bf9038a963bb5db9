"""``sessionkit hook ...``: the agent hook commands (no click, minimal imports).

Run by the agent with the hook's JSON payload on stdin:

``sessionkit hook pre-compact [--store URL] [-o KEY=VALUE]...``
    Records a ``PreCompact`` checkpoint (with the active work item and an
    unconsumed directive) in the session's note, creating the note lazily.

``sessionkit hook session-start [--store URL] [-o KEY=VALUE]... [--plain | --json]``
    Prints the newest session note's summary and its unconsumed directives, as
    ``{"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext":
    "..."}}`` or, with ``--plain`` (or ``hooks.session_start_output = "plain"``),
    as text.  Prints nothing when there is no note.

``sessionkit hook session-end [--store URL]``
    Records the session's end (``date_end``) when it has a note.

The store is ``--store``, else the configuration (``hooks.store``,
``store.url``; the project file is looked for from the payload's ``cwd``),
else the repository at ``cwd``, else ``$CLAUDE_PROJECT_DIR``, else the
working directory.

A hook never breaks the agent: any failure exits 0 with one line on stderr
and the same words as Claude Code's ``systemMessage``.  Every run has a
deadline (``hooks.deadline_ms``, ``$SESSIONKIT_HOOK_DEADLINE_MS``, default
5000 ms) covering stdin, the configuration and the store; a ``SIGALRM`` timer
stops what still runs when it is over, nothing is half-written (store writes
are atomic), and a checkpoint the store did not take waits in the outbox
(:mod:`sessionkit.ops.outbox`) for the next run.
"""

from __future__ import annotations

from .deadline import DEADLINE_MS, DeadlineExceeded
from .main import main
from .payload import read_payload
from .session_start import session_start_text

__all__ = ["DEADLINE_MS", "DeadlineExceeded", "main", "read_payload", "session_start_text"]
