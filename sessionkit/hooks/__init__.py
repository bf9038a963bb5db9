"""``sessionkit hook pre-compact | session-start | session-end``: the agent hooks.

Each reads the hook's JSON payload on stdin, imports little (no click, no fsspec for a
local store) and never breaks the agent: a failure exits 0 with one line on stderr and
the same words as Claude Code's ``systemMessage``.  The store is ``--store``, else the
configuration (``hooks.store``, ``store.url``), else the repository at the payload's
``cwd``.  Each run has a deadline (``hooks.deadline_ms``, default 5000 ms); a
checkpoint the store did not take in time waits in :mod:`sessionkit.ops.outbox`.
"""

from __future__ import annotations

from .common import DEADLINE_MS, DeadlineExceeded, read_payload
from .main import main

__all__ = ["DEADLINE_MS", "DeadlineExceeded", "main", "read_payload", "session_start_text"]

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .session_start import session_start_text
else:

    def __getattr__(name: str) -> object:
        if name == "session_start_text":  # (imported when asked: pre-compact needs none of it)
            from .session_start import session_start_text

            return session_start_text
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
