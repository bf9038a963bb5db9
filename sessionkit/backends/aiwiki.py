"""The aiwiki layout: ``{root}/aiwiki/sessions/**/*.md``, one page per session.

Keys are paths below ``aiwiki/sessions/`` (``2026-05-18-7e8a3f2.md``); new notes
are ``{date_start}-{id7}.md``; ``INDEX.md`` is a generated table, never a note.
"""

from __future__ import annotations

import builtins
import os
from datetime import UTC, datetime
from typing import Any

from .._listing import latest_note, note_day
from ..adapters.profiles import safe_id7
from ..errors import SessionKitError
from ..model import Session, Status
from ._base import DateLike, NoteInfo, as_iso_date, as_status, check_key
from ._filestore import FileStore
from ._storage import Storage, is_local, local_path, open_storage, split_url

__all__ = ["NOTES_FOLDER", "AiwikiStore", "repository_of", "safe_id7"]

#: where notes live below the repository root
NOTES_FOLDER = "aiwiki/sessions"
#: the generated index page (never a note)
INDEX_NAME = "INDEX.md"


def repository_of(url: str) -> str:
    """The repository root a store URL names: ``…/aiwiki`` and ``…/aiwiki/sessions`` mean
    the folder above (``aiwiki`` alone: the working directory); local paths come back
    absolute, a plain relative path as typed, a remote URL keeps its scheme and bucket.
    """
    if is_local(url) and "://" not in url and not os.path.isabs(url):
        # a plain relative path keeps its spelling (reports show what was typed)
        rel = os.path.normpath(url).replace(os.sep, "/")
        local_path(rel)  # refuses one leading outside the working directory
        for tail in (NOTES_FOLDER, "aiwiki"):
            if rel == tail:
                return "."
            if rel.endswith("/" + tail):
                return rel[: -len(tail) - 1]
        return rel
    if is_local(url):
        path = local_path(url)
        for tail in ("/" + NOTES_FOLDER, "/aiwiki"):
            if path.endswith(tail):
                return path[: -len(tail)] or "/"
        return path
    protocol, rest = split_url(url)
    trimmed = rest.rstrip("/")
    for tail in ("/" + NOTES_FOLDER, "/aiwiki"):
        if trimmed.endswith(tail) and trimmed[: -len(tail)].strip("/"):
            return f"{protocol}://{trimmed[: -len(tail)]}"
    return url


def _status(value: Any) -> Status | None:
    try:
        return Status(str(value).strip().lower())
    except ValueError:
        return None


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


class AiwikiStore(FileStore):
    """Session pages of an aiwiki wiki.

    Args:
        storage: byte layer rooted at the repository root.
        format: format of new notes (``aiwiki-v2`` by default).
        url: how the store was opened.
    """

    layout = "aiwiki"
    excluded_names = frozenset({INDEX_NAME})

    def __init__(self, storage: Storage, *, format: str | None = None, url: str | None = None):
        super().__init__(storage, NOTES_FOLDER, url=url)
        self.format = format or "aiwiki-v2"

    @classmethod
    def open(cls, url: str, *, format: str | None = None, **options: Any) -> AiwikiStore:
        """Open the aiwiki store at a repository root (path or fsspec URL).

        A URL ending in ``/aiwiki`` or ``/aiwiki/sessions`` is taken to mean
        the repository root above it.
        """
        return cls(open_storage(repository_of(url), **options), format=format, url=url)

    def key_for(self, session: Session) -> str:
        """``{date_start}-{id7}.md``: start date (today, UTC, if unknown) and safe short id."""
        day = None
        if session.started:
            try:
                day = as_iso_date(session.started)
            except Exception:
                day = None
        if day is None:
            day = datetime.now(UTC).date().isoformat()
        return check_key(f"{day}-{safe_id7(session.id)}.md")

    # -- listing --------------------------------------------------------------
    def info(self) -> builtins.list[NoteInfo]:
        """Every note with what its name tells (date, short id, mtime when free)."""
        out = []
        for key, entry in self.entries():
            name = key.rsplit("/", 1)[-1]
            day = note_day(name)
            short = name[11:-3] if day is not None and len(name) > 13 else None
            out.append(NoteInfo(key=key, date=day, id=short, mtime=entry.mtime))
        return out

    def list(
        self,
        *,
        status: Status | str | None = None,
        since: DateLike | None = None,
        until: DateLike | None = None,
    ) -> builtins.list[NoteInfo]:
        """Notes matching every filter, sorted by key, each row filled the same way.

        Each :class:`NoteInfo` has ``date`` (the name's, else ``date_start``), ``status``,
        ``title`` (``focus``) and ``id`` (the full ``session_id``; ``None`` when the note has
        none) from the frontmatter heads (4 KB a note, read in one batch, only of notes
        whose name's date can still match), and ``mtime`` when the listing gave it; a note
        whose frontmatter cannot be read has ``status``, ``title`` and ``id`` ``None``.
        """
        lo, hi = as_iso_date(since), as_iso_date(until)
        want = as_status(status)

        def in_range(day: str | None) -> bool:
            return not (lo and day is not None and day < lo) and not (
                hi and day is not None and day > hi
            )

        notes = [n for n in self.info() if n.date is None or in_range(n.date)]
        metas = self.frontmatters([n.key for n in notes]) if notes else {}
        out = []
        for note in notes:
            meta = metas.get(note.key) or {}
            day = note.date
            if day is None and meta.get("date_start") is not None:
                try:
                    day = as_iso_date(str(meta["date_start"]))
                except Exception:
                    day = None
            note = NoteInfo(
                key=note.key,
                date=day,
                status=_status(meta.get("status")),
                title=_text(meta.get("focus")),
                id=_text(meta.get("session_id")),
                mtime=note.mtime,
            )
            if want is not None and note.status is not want:
                continue
            if (lo or hi) and day is None:
                continue
            if lo and day is not None and day < lo:
                continue
            if hi and day is not None and day > hi:
                continue
            out.append(note)
        return out

    def latest(self) -> str | None:
        """The key of the newest note: latest filename date, then latest mtime, then the
        greatest key (:func:`sessionkit._listing.latest_note`, the rule the hooks share); no
        page parsed, a note that cannot be read never chosen, the note of checkpoints
        without a session id (``YYYY-MM-DD-0000000.md``) never counted.
        """
        entries = dict(self.entries())

        def mtime(key: str) -> float | None:
            listed = entries[key].mtime
            return listed if listed is not None else self.storage.mtime(self.path_of(key))

        keys = list(entries)
        readable = self.storage.readable
        while keys:  # (a note that cannot be read, a FIFO or a looping link, is never the latest)
            key = latest_note(keys, mtime)
            if key is None or readable(self.path_of(key)):
                return key
            keys.remove(key)
        return None

    # -- INDEX.md -------------------------------------------------------------
    def index_text(self, left_out: builtins.list[tuple[str, str]] | None = None) -> str:
        """The ``INDEX.md`` page: a Markdown table of every note, newest first.

        Columns: date, id, status, focus, link; cells escaped so the table always parses.
        A note whose name the store refuses, that is not UTF-8 or cannot be read has no
        row: ``(key, why)`` goes to ``left_out`` (when given).
        """
        notes = []
        for n in self.info():
            try:
                self.path_of(n.key)
                n.key.encode("utf-8")
            except (SessionKitError, UnicodeEncodeError) as exc:
                why = exc.message if isinstance(exc, SessionKitError) else "it is not UTF-8"
                if left_out is not None:
                    left_out.append((n.key, why))
                continue
            notes.append(n)
        metas = self.frontmatters([n.key for n in notes])
        readable = self.storage.readable
        unread = {
            n.key for n in notes if not metas.get(n.key) and not readable(self.path_of(n.key))
        }
        if unread:  # (a FIFO, a device, a looping link: no blank row for it)
            notes = [n for n in notes if n.key not in unread]
            if left_out is not None:
                why = "cannot read it (not a regular file, or a looping link)"
                left_out.extend((key, why) for key in sorted(unread))
        rows = []
        for n in notes:
            meta = metas.get(n.key, {})
            day = n.date or _text(meta.get("date_start")) or ""
            sid = _text(meta.get("session_id")) or n.id or ""
            rows.append(
                (
                    day,
                    sid[:7] if sid else "",
                    _text(meta.get("status")) or "",
                    _text(meta.get("focus")) or "",
                    n.key,
                )
            )
        rows.sort(key=lambda r: (r[0], r[4]), reverse=True)

        def cell(value: str) -> str:
            return " ".join(value.split()).replace("\\", "\\\\").replace("|", "\\|")

        lines = [
            "# Sessions",
            "",
            "| date | id | status | focus | link |",
            "|---|---|---|---|---|",
        ]
        for day, sid, st, focus, key in rows:
            target = key.replace(" ", "%20").replace("(", "%28").replace(")", "%29")
            link = f"[{cell(key)}]({target})"
            lines.append(f"| {cell(day)} | {cell(sid)} | {cell(st)} | {cell(focus)} | {link} |")
        return "\n".join(lines) + "\n"

    def write_index(self, left_out: builtins.list[tuple[str, str]] | None = None) -> str:
        """Regenerate ``aiwiki/sessions/INDEX.md`` (atomically); returns its text.

        ``left_out``: as :meth:`index_text` fills it.  A secret in a note's focus (or
        name) is redacted in the index, as in the notes.
        """
        from ..redaction import scrub

        text = scrub(self.index_text(left_out))
        self.storage.write(f"{NOTES_FOLDER}/{INDEX_NAME}", text.encode("utf-8"))
        return text
