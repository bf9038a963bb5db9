"""What a sync did: one action per pair of notes, and the run's report."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import attrs

if TYPE_CHECKING:
    from ...redaction import Finding

__all__ = ["WRITES", "SyncAction", "SyncConflict", "SyncReport"]


@attrs.frozen(kw_only=True)
class SyncConflict:
    """One item both sides changed to different values since the last sync.

    Attributes:
        where: the item (``status``, ``next_steps[2]``,
            ``checkpoints[0].directives[0].state``, ``extra.branch``).
        base: its value at the last sync (JSON-ready; ``None`` when absent).
        aiwiki: its value in the aiwiki page now.
        basic_memory: its value in the Basic Memory note now.
    """

    where: str
    base: Any
    aiwiki: Any
    basic_memory: Any


@attrs.frozen(kw_only=True)
class SyncAction:
    """What happened (or would, in a dry run) to one pair of notes.

    Attributes:
        action: one of ``create-aiwiki``, ``create-basic-memory`` (a note made
            from its counterpart), ``update-aiwiki``, ``update-basic-memory``
            (a change carried over), ``merge`` (both sides edited; both
            written), ``pair`` (both sides already hold the same session;
            recorded only), ``deleted`` (gone on one side; reported),
            ``delete-aiwiki``, ``delete-basic-memory`` (a deletion carried
            over), ``forget`` (gone on both sides), ``conflict``, ``failure``.
        aiwiki: the aiwiki page's key, when known.
        basic_memory: the Basic Memory note's key, when known.
        message: details in words (why it failed, which side deleted it).
        conflicts: for ``conflict``, every item both sides changed.
        texts: for ``conflict``, both notes' texts as they are (both kept).
    """

    action: str
    aiwiki: str | None = None
    basic_memory: str | None = None
    message: str = ""
    conflicts: tuple[SyncConflict, ...] = ()
    texts: Mapping[str, str] = attrs.field(factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        out: dict[str, Any] = {
            "action": self.action,
            "aiwiki": self.aiwiki,
            "basic_memory": self.basic_memory,
        }
        if self.message:
            out["message"] = self.message
        if self.conflicts:
            out["conflicts"] = [attrs.asdict(c) for c in self.conflicts]
        if self.texts:
            out["texts"] = dict(self.texts)
        return out


#: actions that write a note
WRITES = frozenset(
    f"{verb}-{side}"
    for verb in ("create", "update", "delete")
    for side in ("aiwiki", "basic-memory")
) | {"merge"}


@attrs.define(kw_only=True)
class SyncReport:
    """What :func:`sync` did.

    Attributes:
        aiwiki: the aiwiki store's URL.
        basic_memory: the Basic Memory store's URL.
        dry_run: nothing was written.
        actions: one entry per pair that needed anything, in key order.
        unchanged: pairs (aiwiki keys) neither side changed.
        skipped: Basic Memory notes that are not sessions.
        state_written: whether the state file was (re)written.
        redacted: the secrets the run's writes redacted (or, under
            ``secrets.redact = warn``, wrote as they are): path, line, kind.
    """

    aiwiki: str
    basic_memory: str
    dry_run: bool = False
    actions: list[SyncAction] = attrs.field(factory=list)
    unchanged: list[str] = attrs.field(factory=list)
    skipped: list[str] = attrs.field(factory=list)
    state_written: bool = False
    redacted: list[Finding] = attrs.field(factory=list)

    def of(self, *kinds: str) -> list[SyncAction]:
        """The actions of the given kinds."""
        return [a for a in self.actions if a.action in kinds]

    @property
    def written(self) -> list[SyncAction]:
        """Actions that wrote (or would write) a note."""
        return [a for a in self.actions if a.action in WRITES]

    @property
    def conflicts(self) -> list[SyncAction]:
        """Pairs both sides edited in the same place (nothing written for them)."""
        return self.of("conflict")

    @property
    def failures(self) -> list[SyncAction]:
        """Notes that could not be read, converted or written."""
        return self.of("failure")

    @property
    def ok(self) -> bool:
        """No conflicts and no failures (reported deletions do not count)."""
        return not self.conflicts and not self.failures

    def counts(self) -> dict[str, int]:
        """How many actions of each kind, plus ``unchanged``."""
        out: dict[str, int] = {}
        for a in self.actions:
            out[a.action] = out.get(a.action, 0) + 1
        out["unchanged"] = len(self.unchanged)
        return out

    def summary(self) -> str:
        """The CLI's one-line summary; every pair the run looked at is in one count."""
        tally = self.counts()
        verb = "would write" if self.dry_run else "wrote"
        parts = [
            f"{tally['unchanged']} unchanged",
            f"{tally.get('pair', 0)} already in step",
            f"{tally.get('conflict', 0)} conflicts",
            f"{tally.get('failure', 0)} failed",
        ]
        if tally.get("deleted"):
            parts.append(f"{tally['deleted']} deletions reported")
        if tally.get("forget"):
            parts.append(f"{tally['forget']} forgotten")
        return f"{verb} {len(self.written)}; " + ", ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (the CLI's ``--json`` output)."""
        return {
            "aiwiki": self.aiwiki,
            "basic_memory": self.basic_memory,
            "dry_run": self.dry_run,
            "ok": self.ok,
            "counts": self.counts(),
            "actions": [a.to_dict() for a in self.actions],
            "skipped": self.skipped,
            "state_written": self.state_written,
            "redacted": [f.to_dict() for f in self.redacted],
        }
