"""``sessionkit hook pre-compact`` and ``session-end``: record in the session's note.

A checkpoint the store does not take (the deadline, a lock not free in time,
an unreachable store) is kept in the outbox (:mod:`sessionkit.ops.outbox`)
and delivered before the next hook's own work.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from .common import (
    DEADLINE_ENV,
    NO_START,
    STDIN_SHARE,
    DeadlineExceeded,
    Settings,
    configured_deadline,
    deliver,
    kept_line,
    payload_limit,
    read_payload,
    say,
    start_dir,
    store_usable_without_start,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import IO, Any

    from .common import Deadline

__all__ = ["SESSION_END_SECONDS", "pre_compact", "session_end"]


def pre_compact(args: Any, stdin: IO[bytes] | None, deadline: Deadline) -> int:
    deadline.enter("reading stdin")
    payload, problem = read_payload(stdin, payload_limit(), deadline.remaining() * STDIN_SHARE)
    start = start_dir(payload)
    if start is None and not store_usable_without_start(args.store):
        say(f"pre-compact: {NO_START}")
        return 0
    from ..ops import outbox
    from ..ops.checkpoint import iso_now

    checkpoint_id, at = outbox.new_id(), iso_now()  # what the outbox keeps, if it must
    settings: Settings | None = None
    try:
        deadline.enter("loading the configuration")
        settings = Settings(start or os.getcwd(), args.store, args.storage_option)
        configured_deadline(deadline, settings)
        report, found = _record(settings, payload, deadline, checkpoint_id)
    except DeadlineExceeded as exc:
        deadline.disarm()  # (off once it fired; also when a stage found no time left)
        if settings is None:  # the configuration is needed to know the store: read it now
            try:
                settings = Settings(start or os.getcwd(), args.store, args.storage_option)
            except Exception:
                raise exc from None
        exc.kept = _keep(settings, payload, checkpoint_id, at) or ""  # ("": it failed)
        raise
    except Exception as exc:
        deadline.disarm()  # judging it and writing the outbox must not be cut short
        why = outbox.unavailable(exc) if settings is not None else None
        if why is None or settings is None:
            raise
        path = _keep(settings, payload, checkpoint_id, at)
        say(f"pre-compact: the store did not take the checkpoint ({why}); {kept_line(path)}")
        return 0
    if found:
        where = ", ".join(f"{f.path}:{f.line} {f.kind}" for f in found[:10])
        verb = "redacted" if found[0].redacted else "wrote in clear (warn)"
        say(f"{verb} {len(found)} secret(s): {where}")
    if problem is None and not report.payload_ok:
        problem = "payload has no usable session_id"
    if problem is not None:
        say(f"{problem}; checkpoint recorded under short id {report.short_id} in {report.key}")
    return 0


def _record(
    settings: Settings, payload: Any, deadline: Deadline, checkpoint_id: str
) -> tuple[Any, list[Any]]:
    """Deliver what waits in the store's outbox, then record this run's checkpoint:
    ``(report, secrets found)``."""
    from ..ops import outbox

    identity = outbox.store_identity(settings.url, settings.start)
    report: Any = None
    found: list[Any] = []
    waiting = outbox.pending(identity)  # (one listing: usually an empty or missing folder)
    root = settings.local_aiwiki_root() if not waiting else None
    if root is not None:  # an existing page of a local aiwiki folder: the pre-compact lane
        from ..ops.checkpoint import record_local

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
        from ..ops.lifecycle import DirectiveSpec, record_checkpoint

        deadline.enter("opening the store")
        store = settings.open(deadline)
        if waiting:
            deadline.enter("delivering the outbox")
            deliver(outbox, store, identity, settings)
        deadline.enter("recording the checkpoint")
        remote = not identity.startswith("file://")
        report = record_checkpoint(
            store,
            payload,
            repo_root=settings.repo_root,
            directive=DirectiveSpec.from_config(settings.hooks),
            project=settings.project(),
            # a write the deadline cuts short may have landed: its id keeps the outbox's
            # copy from landing twice (a local write is done or not)
            checkpoint_id=checkpoint_id if remote else None,
        )
        found = getattr(store, "redactions", None) or []
    return report, found


def _keep(settings: Settings, payload: Any, checkpoint_id: str, at: str) -> str | None:
    """Write this run's checkpoint to the store's outbox; its path (``None``: not written)."""
    from ..ops import outbox
    from ..ops.checkpoint import find_work, payload_ids, text_field

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
            k: str(getattr(hooks, f"directive_{k}")) for k in ("kind", "scope", "action")
        },
        "layout": settings.layout,
        "format": settings.format,
        "project": settings.project(),
    }
    try:
        return outbox.keep(identity, entry)
    except OSError:
        return None


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
