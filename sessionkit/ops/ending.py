"""The end of a session, as the agents' session-end hooks report it, and the commit it
ended on.

Claude Code's and Antigravity's ``SessionEnd`` (and Codex's ``Stop``, which fires when
the agent ends a turn) call :func:`record_session_end`.  It edits the session's note
only when there is one (notes are made lazily, by the first checkpoint or by hand):
``date_end`` (Basic Memory: ``ended``) becomes the end's day, and for a real session
end a ``### SessionEnd at …`` entry with its reason closes the checkpoint log.  A turn's
end (``entry=False``) writes nothing when the day is already recorded, so a hook on
every turn costs one read.

:func:`head_commit` reads the repository's current commit from ``.git`` without running
git (the pre-compact hook fills ``last_commit`` with it).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from datetime import datetime
from typing import Any

import attrs

from ..errors import NotFoundError
from ..model import Checkpoint, Session
from .checkpoint import iso_now, one_line, payload_ids, text_field

__all__ = ["SessionEndReport", "head_commit", "record_session_end"]


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


def head_commit(repo_root: str | os.PathLike[str] | None) -> str | None:
    """The short sha (7 characters) of the commit ``HEAD`` names in ``repo_root``'s
    ``.git``, read from its files (a branch's ref file, else ``packed-refs``);
    ``None`` when there is no repository or it cannot tell (never runs git)."""
    if repo_root is None:
        return None
    git = os.path.join(os.fspath(repo_root), ".git")
    try:
        if os.path.isfile(git):  # a worktree or submodule: "gitdir: <path>"
            with open(git, encoding="utf-8") as f:
                line = f.read(4096).strip()
            if not line.startswith("gitdir:"):
                return None
            git = os.path.join(os.fspath(repo_root), line[len("gitdir:") :].strip())
        with open(os.path.join(git, "HEAD"), encoding="utf-8") as f:
            head = f.read(4096).strip()
        if not head.startswith("ref:"):
            return _sha7(head)
        ref = head[4:].strip()
        if ".." in ref.split("/"):
            return None
        for base in (git, _common_dir(git)):
            path = os.path.join(base, ref)
            if os.path.isfile(path):
                with open(path, encoding="utf-8") as f:
                    return _sha7(f.read(4096).strip())
            packed = os.path.join(base, "packed-refs")
            if os.path.isfile(packed):
                with open(packed, encoding="utf-8") as f:
                    for line in f:
                        sha, _, name = line.strip().partition(" ")
                        if name == ref:
                            return _sha7(sha)
    except (OSError, UnicodeDecodeError):
        return None
    return None


def _common_dir(git: str) -> str:
    try:
        with open(os.path.join(git, "commondir"), encoding="utf-8") as f:
            return os.path.normpath(os.path.join(git, f.read(4096).strip()))
    except OSError:
        return git


def _sha7(text: str) -> str | None:
    sha = text.strip().lower()
    if len(sha) >= 7 and all(c in "0123456789abcdef" for c in sha[:40]) and len(sha) in (40, 64):
        return sha[:7]
    return None
