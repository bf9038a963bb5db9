"""Two-way sync between an aiwiki wiki and a Basic Memory project.

:func:`sync` pairs each aiwiki page with one Basic Memory note and keeps the
pairs, with both texts' SHA-256 and the aiwiki text as the *base* of the next
three-way merge, in the state file ``.sessionkit-sync.json`` in the wiki's
notes folder.  Per pair:

* neither side changed: nothing to do;
* one side changed: the change is carried to the other side through the model,
  as a minimal edit of the other note;
* both changed: a three-way merge of the two models against the base, field by
  field and list item by list item; edits of the same item to different values
  are a **conflict**: nothing is written, and the report lists each item;
* a note in no pair: created on the other side (or paired, when the other side
  already holds the same session);
* a paired note whose file is gone: reported; deleted on the other side only
  with ``propagate_deletes`` (never when that side was edited since); an
  emptied note is a failure, never a deletion.

Every note is written with its store's read-modify-write (lock or
compare-and-swap): a note edited while the sync runs is left alone and
reported.  The state file is merged once, after every note write is durable;
a sync killed at any point is finished by the next run.  Two syncs of one
wiki do not overlap (``.sessionkit-sync.lock``: a lock file, or a lease object
on object stores).

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
