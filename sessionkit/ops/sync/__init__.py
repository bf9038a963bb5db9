"""Two-way sync between an aiwiki wiki and a Basic Memory project (docs/sync.md).

:func:`sync` pairs each aiwiki page with one Basic Memory note; the state file
``.sessionkit-sync.json`` in the wiki's notes folder keeps each pair's keys, both
texts' SHA-256 and the aiwiki text as the base of the next three-way merge.  A
change on one side is carried to the other as a minimal edit; changes on both
are merged item by item, and edits of one item to different values are a
conflict (nothing written).  A note in no pair is created on the other side; a
deletion is reported, and carried over only with ``propagate_deletes``.  Notes
are written with their store's lock or compare-and-swap, the state once every
write is durable; a killed sync is finished by the next run; two syncs of one
wiki do not overlap (``.sessionkit-sync.lock``).

``engine`` runs a sync, ``merge`` is the three-way merge, ``state`` the state
file and lock, ``report`` what a run did.
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
