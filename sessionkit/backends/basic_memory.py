"""The Basic Memory layout: session notes in a project's ``sessions/`` folder.

Open a project by path, ``bm:///path/to/project`` or ``bm://NAME`` (from Basic
Memory's configuration); keys are paths below the notes folder; new notes are named
after their title the way Basic Memory names files.
"""

from __future__ import annotations

import builtins
import posixpath
import re
from datetime import UTC, date, datetime, timedelta
from typing import Any

from ..errors import SessionKitError
from ..model import Session, Status
from ._base import _WINDOWS_RESERVED, DateLike, NoteInfo, as_iso_date, check_key, in_range
from ._filestore import FileStore
from ._storage import Storage, open_storage

__all__ = [
    "SESSION_TYPES",
    "BasicMemoryStore",
    "is_bm_project",
    "project_name",
    "resolve_bm_url",
]

#: the default notes folder inside a project
DEFAULT_FOLDER = "sessions"
#: note types that count as sessions
SESSION_TYPES = frozenset({"session", "coding_session"})

#: Basic Memory status words -> model status
_STATUS_WORDS: dict[str, Status] = {
    "open": Status.ACTIVE,
    "resumed": Status.ACTIVE,
    "active": Status.ACTIVE,
    "closed": Status.DONE,
    "done": Status.DONE,
    "abandoned": Status.ABANDONED,
}

_NAME_STAMP = re.compile(r"(\d{4}-\d{2}-\d{2})(?:[ T_](\d{2})[-:.](\d{2})(?:[-:.](\d{2}))?)?")


#: the title's end of the note a day's checkpoints without a session id go to
UNKNOWN_TITLE = "checkpoints without a session id"


def unknown_title(day: str) -> str:
    """The title of ``day``'s note of checkpoints without a session id (one a day)."""
    return f"Session {day} — {UNKNOWN_TITLE}"


def is_unknown(key: str) -> bool:
    """Whether ``key`` is a note of checkpoints without a session id (never the latest)."""
    stem = key.rsplit("/", 1)[-1].removesuffix(".md")
    return stem.endswith(" " + UNKNOWN_TITLE) and stem.startswith("Session ")


def name_stamp(key: str) -> str | None:
    """``YYYY-MM-DD[ HH:MM[:SS]]`` from a note's file name (the first date in it), or ``None``."""
    m = _NAME_STAMP.search(key.rsplit("/", 1)[-1])
    if m is None:
        return None
    day, hh, mm, ss = m.groups()
    return day if hh is None else f"{day} {hh}:{mm}:{ss or '00'}"


def _filename_for_title(title: str) -> str:
    """``{stem}.md`` as Basic Memory names a note, safe everywhere (empty: ``Session``; long:
    cut to 200 bytes; reserved such as ``CON``: ``-note`` added)."""
    from ..adapters.basic_memory.permalink import filename_for_title

    stem = filename_for_title(title)
    # no leading dot: a dotfile is skipped by Basic Memory's indexer and by our own
    # listings, so the note would be written and never seen ("../x" gives "..-x")
    stem = "".join(c for c in stem if ord(c) >= 32).strip().lstrip(".-").strip() or "Session"
    while len(stem.encode("utf-8")) > 200:
        stem = stem[:-1]
    if _WINDOWS_RESERVED.match(stem):
        stem += "-note"
    return f"{stem.rstrip('. ')}.md"


def resolve_bm_url(url: str) -> str:
    """The project folder a ``bm://`` URL names.

    ``bm:///abs/path`` is that folder; ``bm://NAME`` (or ``bm://`` for the
    default project) is looked up in Basic Memory's configuration.

    Raises:
        NotFoundError: no such project (the message lists the known ones).
        ParseError: Basic Memory's config file is unreadable.
    """
    rest = url[len("bm://") :] if url.startswith("bm://") else url
    if rest.startswith("/"):
        return rest
    from ._bm_config import resolve_project

    return str(resolve_project(rest.strip("/") or None).path)


def project_name(store: Any) -> str | None:
    """The project name a store's new notes get (``project`` key, permalink prefix):
    ``NAME`` of ``bm://NAME``, else the project folder's name; ``None`` when neither says.
    """
    url = str(getattr(store, "url", "") or "")
    if url.startswith("bm://") and not url.startswith("bm:///"):
        name = url[len("bm://") :].strip("/")
        if name:
            return name
    storage = getattr(store, "storage", None)
    root = str(getattr(storage, "root", "") or url)
    name = posixpath.basename(root.replace("\\", "/").rstrip("/"))
    return name or None


def is_bm_project(path: str) -> bool:
    """Whether a local folder is one of the projects in Basic Memory's configuration."""
    import os

    from ._bm_config import load_config

    try:
        projects = load_config().projects
    except SessionKitError:
        return False
    real = os.path.realpath(path)
    return any(os.path.realpath(p) == real for p in projects.values())


def _status(value: Any) -> Status | None:
    return None if value is None else _STATUS_WORDS.get(str(value).strip().lower())


def _when(value: Any) -> datetime | None:
    if value is None:
        return None
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    if isinstance(value, date):
        return datetime(value.year, value.month, value.day, tzinfo=UTC)
    text = str(value).strip().replace("Z", "+00:00")
    try:
        found = datetime.fromisoformat(text)
    except ValueError:
        return None
    return found if found.tzinfo else found.replace(tzinfo=UTC)


class BasicMemoryStore(FileStore):
    """Session notes of a Basic Memory project (``storage`` rooted at the project folder,
    notes in ``folder``, new notes in ``format``, opened as ``url``).
    """

    layout = "basic-memory"

    def __init__(
        self,
        storage: Storage,
        *,
        folder: str = DEFAULT_FOLDER,
        format: str | None = None,
        url: str | None = None,
    ) -> None:
        super().__init__(storage, folder, url=url)
        self.format = format or "basic-memory"

    @classmethod
    def open(
        cls, url: str, *, format: str | None = None, folder: str = DEFAULT_FOLDER, **options: Any
    ) -> BasicMemoryStore:
        """Open a project folder (path, fsspec URL, ``bm:///path`` or ``bm://NAME``)."""
        root = resolve_bm_url(url) if url.startswith("bm://") else url
        return cls(open_storage(root, **options), folder=folder, format=format, url=url)

    def key_for(self, session: Session) -> str:
        """The file name Basic Memory gives a note with this session's title."""
        title = session.title
        if not title:
            started = (session.started or datetime.now(UTC).isoformat())[:19]
            title = "Session " + started.replace("T", " ")
        return check_key(_filename_for_title(title))

    def list(
        self,
        *,
        status: Status | str | None = None,
        since: DateLike | None = None,
        until: DateLike | None = None,
        days: float | None = None,
        types: frozenset[str] = SESSION_TYPES,
    ) -> builtins.list[NoteInfo]:
        """Session notes (``type`` in ``types``) matching every filter, sorted by key.

        Args:
            status: model status (``active`` matches ``open`` and ``resumed``,
                ``done`` matches ``closed``) or a raw status word.
            since: created on or after this day.
            until: created on or before this day.
            days: created in the last ``days`` days.
            types: note types that count as sessions.

        "Created" is the frontmatter ``started`` (else ``created``), else the
        file's modification time.
        """
        from ..adapters.basic_memory import session_id_of  # the format's one rule

        lo, hi = as_iso_date(since), as_iso_date(until)
        raw_want: str | None = None
        want: Status | None = None
        if status is not None:
            want = _status(status)
            if want is None:
                raw_want = str(status).strip().lower()
        cutoff = datetime.now(UTC) - timedelta(days=days) if days is not None else None
        entries = self.entries()
        metas = self.frontmatters([k for k, _ in entries])
        out: builtins.list[NoteInfo] = []
        for key, entry in entries:
            meta = metas.get(key, {})
            if str(meta.get("type", "")).strip() not in types:
                continue
            word = None if meta.get("status") is None else str(meta["status"]).strip().lower()
            st = _status(word)
            if st is Status.DONE and meta.get("aiwiki_status") == "abandoned":
                st = Status.ABANDONED  # as the format reads it (adapters.basic_memory)
            if want is not None and st is not want:
                continue
            if raw_want is not None and word != raw_want:
                continue
            created = _when(meta.get("started", meta.get("created")))
            if created is None and (cutoff or lo or hi):
                mtime = entry.mtime
                if mtime is None:
                    mtime = self.storage.mtime(self.path_of(key))
                if mtime is not None:
                    created = datetime.fromtimestamp(mtime, UTC)
            day = created.date().isoformat() if created else None
            if cutoff is not None and (created is None or created < cutoff):
                continue
            if not in_range(day, lo, hi):
                continue
            title = meta.get("title")
            out.append(
                NoteInfo(
                    key=key,
                    date=day,
                    status=st,
                    title=None if title is None else str(title),
                    id=session_id_of(meta),
                    mtime=entry.mtime,
                )
            )
        return out

    def latest(self) -> str | None:
        """The newest session note: the newest date (and time) in the file name, then the
        newest modification time among that name date's notes (undated names count only
        when none is dated); never a note of checkpoints without a session id.
        """
        found = [note for note in self.list() if not is_unknown(note.key)]
        if not found:
            return None
        named = [(name_stamp(note.key), note) for note in found]
        dated = [(stamp, note) for stamp, note in named if stamp is not None]
        pool = dated or [("", note) for _, note in named]
        top = max(stamp for stamp, _ in pool)
        ties = [note for stamp, note in pool if stamp == top]
        if len(ties) == 1:
            return ties[0].key

        def when(note: NoteInfo) -> tuple[float, str]:
            mtime = note.mtime
            if mtime is None:
                mtime = self.storage.mtime(self.path_of(note.key))
            return (mtime or 0.0, note.key)

        return max(ties, key=when).key
