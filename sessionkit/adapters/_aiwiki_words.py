"""The aiwiki session page's words, as plain data (imports nothing).

The one place these tables are written: :data:`sessionkit.adapters.profiles.AIWIKI`
is built from them, and the light page reader (:mod:`sessionkit.adapters.aiwiki_page`,
which the agent hooks use without the model) reads them here.
"""

from __future__ import annotations

__all__ = ["FORMAT_KEYS", "KEYS", "SECTIONS", "STATUS_WORDS"]

#: the status words a page may hold (each is the model status of the same name)
STATUS_WORDS = ("active", "done", "abandoned")

#: list section title -> the Session field it holds
SECTIONS = {
    "Files touched": "files_touched",
    "Decisions made": "decisions",
    "Gotchas surfaced": "gotchas",
    "Open questions": "questions",
    "Next steps": "next_steps",
}

#: frontmatter key -> the Session field it holds (the keys a page owns)
KEYS = {
    "status": "status",
    "date_start": "started",
    "date_end": "ended",
    "session_id": "id",
    "focus": "focus",
    "last_commit": "last_commit",
}

#: keys that belong to the format itself, not to the session
FORMAT_KEYS = ("schema_id", "schema_version")
