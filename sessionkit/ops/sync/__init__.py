"""Two-way sync between an aiwiki wiki and a Basic Memory project (docs/sync.md).

:func:`sync` pairs each aiwiki page with one Basic Memory note; the state file
``.sessionkit-sync.json`` keeps each pair's keys, both texts' SHA-256 and the aiwiki text
as the base of the next three-way merge.  A change on one side is carried over as a
minimal edit; changes on both are merged item by item (one item edited two ways is a
conflict: nothing written).  A deletion is carried over only with ``propagate_deletes``.
The state is written once every note write is durable, so a killed sync is finished by
the next run; ``.sessionkit-sync.lock`` keeps two syncs of one wiki apart.
"""

from __future__ import annotations

from .engine import fingerprint, sync, watch
from .merge import MergeConflict, merge_sessions
from .report import SyncAction, SyncConflict, SyncReport
from .state import LOCK_NAME, STATE_NAME, peer_id, read_state

__all__ = [
    "LOCK_NAME",
    "STATE_NAME",
    "MergeConflict",
    "SyncAction",
    "SyncConflict",
    "SyncReport",
    "fingerprint",
    "merge_sessions",
    "peer_id",
    "read_state",
    "sync",
    "watch",
]
