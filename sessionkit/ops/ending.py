"""The end of a session, as the agents' session-end hooks report it.

:func:`record_session_end` edits the session's note only when there is one:
``date_end`` (Basic Memory: ``ended``) becomes the end's day and, for a real session
end, a ``### SessionEnd at …`` entry closes the checkpoint log; a turn's end (Codex's
``Stop``, ``entry=False``) writes nothing when the day is already recorded.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

import attrs

from ..errors import NotFoundError
from ..model import Checkpoint, Session
from .checkpoint import iso_now, one_line, payload_ids, text_field

__all__ = ["SessionEndReport", "record_session_end"]


@attrs.frozen(kw_only=True)
class SessionEndReport:
    """What :func:`record_session_end` did.

    Attributes:
        key: the session's note, or ``None`` when it has none (nothing written).
        ended: the end as recorded (a day for aiwiki, a timestamp for Basic Memory).
        changed: whether the note was written.
    """

    key: str | None
    ended: str | None = None
    changed: bool = False


def _is_bm(store: Any) -> bool:
    return str(getattr(store, "layout", "")) == "basic-memory" or str(
        getattr(store, "format", "")
    ).startswith("basic-memory")


def record_session_end(
    store: Any,
    payload: Any,
    now: datetime | None = None,
    *,
    entry: bool = True,
) -> SessionEndReport:
    """Record that the session a hook payload names has ended.

    Args:
        store: the hooks' store.
        payload: the hook's decoded JSON (``session_id``; ``reason`` for the entry).
        now: the end's time (default: now).
        entry: add a ``SessionEnd`` entry to the checkpoint log (a session's end);
            ``False`` for the end of a turn, which only keeps ``date_end`` current.

    A payload without a usable session id, or a session with no note, writes nothing.
    """
    from .lifecycle import find_session

    session_id, _, ok, _ = payload_ids(payload)
    if not ok or session_id is None:
        return SessionEndReport(key=None)
    try:
        key = find_session(store, session_id)
    except NotFoundError:
        return SessionEndReport(key=None)
    stamp = iso_now(now)
    ended = stamp if _is_bm(store) else stamp[:10]
    data: Mapping[str, Any] = payload if isinstance(payload, Mapping) else {}
    reason = one_line(text_field(data, "reason", 64) or "") or "other"
    changed = [False]

    def edit(session: Session) -> Session:
        changes: dict[str, Any] = {}
        if session.ended != ended:
            changes["ended"] = ended
        logged = any(c.event == "SessionEnd" and c.at == stamp for c in session.checkpoints)
        if entry and not _is_bm(store) and not logged:
            end = Checkpoint(event="SessionEnd", at=stamp, body=f"Reason: {reason}")
            changes["checkpoints"] = (*session.checkpoints, end)
        if not changes:
            return session
        changed[0] = True
        return attrs.evolve(session, **changes)

    store.update(key, edit)
    return SessionEndReport(key=key, ended=ended, changed=changed[0])
