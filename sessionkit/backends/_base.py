"""The store and storage interfaces: session notes under a root, addressed by key.

A *key* is a note's path relative to the store's notes folder, ``/``-separated;
every backend checks it with :func:`check_key` before touching storage.  A
:class:`Store` implements six primitives (``keys``, ``read_text``,
``write_text``, ``update_text``, ``delete``, ``key_for``) and derives the rest;
a :class:`Storage` is the byte layer the built-in stores run on (local disk in
``_local.py``, fsspec in ``_remote.py``).  A third-party store proves itself
with :mod:`sessionkit.testing.conformance`.
"""

from __future__ import annotations

import abc
import builtins
import collections
import contextlib
import functools
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import date
from typing import Any

import attrs

from ..errors import PathSafetyError, SessionKitError, StoreError
from ..model import Session, Status
from ..text.grammar import DATE

__all__ = ["FileEntry", "NoteInfo", "Storage", "Store", "check_key"]

_WINDOWS_RESERVED = re.compile(r"^(?:con|prn|aux|nul|com[0-9]|lpt[0-9])(?:\..*)?$", re.IGNORECASE)
MAX_NAME = 255
#: a C0 control character (code point below 32)
_CONTROL = re.compile("[\x00-\x1f]")


def check_key(key: str) -> str:
    """Return ``key`` if it is a safe relative key; raise :class:`PathSafetyError` if not."""
    problem = None
    if not key or key.strip() != key:
        problem = "is empty or has surrounding white space"
    elif "\x00" in key:
        problem = "contains a NUL byte"
    elif "\\" in key:
        problem = "contains a backslash"
    elif key.startswith("/") or re.match(r"^[A-Za-z]:", key) or "://" in key:
        problem = "is absolute"
    else:
        for part in key.split("/"):
            if part in ("", ".", ".."):
                problem = "has an empty, '.' or '..' part"
                break
            if len(part.encode("utf-8", "surrogatepass")) > MAX_NAME:
                problem = f"has a part longer than {MAX_NAME} bytes"
                break
            if _WINDOWS_RESERVED.match(part):
                problem = f"uses the reserved name {part!r}"
                break
            if _CONTROL.search(part):
                problem = "contains a control character"
                break
    if problem:
        raise PathSafetyError(f"refused key {key!r}: it {problem}")
    return key


@attrs.frozen(kw_only=True)
class NoteInfo:
    """What a listing knows about a note without parsing its body.

    :meth:`Store.list` fills every row the same way, whatever its filters
    (it reads each note's frontmatter head); :meth:`Store.info` reads names
    only.

    Attributes:
        key: the note's key (as ``sessionkit ls`` and ``ls --json`` print it).
        date: ``YYYY-MM-DD``: aiwiki the filename's date, else ``date_start``;
            Basic Memory ``started``, else ``created``, else the mtime's day.
            ``info()``: the filename's date only.
        status: the lifecycle status from the frontmatter (Basic Memory's
            words mapped: ``open``/``resumed`` active, ``closed`` done);
            ``None`` when unreadable or unknown, and always from ``info()``.
        title: aiwiki ``focus``, Basic Memory ``title``; ``None`` from ``info()``.
        id: the full session id (aiwiki ``session_id``, Basic Memory
            ``claude_session_id``), the ``id`` of ``ls --json``; ``None`` when
            the note has none.  ``info()`` of an aiwiki store gives the short
            id of the filename instead.
        mtime: modification time (POSIX seconds), when the listing gave it.
    """

    key: str
    date: str | None = None
    status: Status | None = None
    title: str | None = None
    id: str | None = None
    mtime: float | None = None


DateLike = str | date
"""A ``YYYY-MM-DD`` string or a :class:`datetime.date` (filters accept both)."""


def as_iso_date(value: DateLike | None) -> str | None:
    """``YYYY-MM-DD`` for a date or a string starting with one; ``None`` passes through.

    Raises:
        ValidationError: the string is not a date.
    """
    from ..errors import ValidationError

    if value is None:
        return None
    if isinstance(value, date):
        return value.isoformat()[:10]
    text = str(value).strip()
    if not DATE.match(text):
        raise ValidationError(f"not a date (YYYY-MM-DD): {value!r}")
    try:
        return date.fromisoformat(text[:10]).isoformat()
    except ValueError:
        raise ValidationError(f"not a date (YYYY-MM-DD): {value!r}") from None


def as_status(value: Status | str | None) -> Status | None:
    """The :class:`Status` named by ``value`` (``None`` passes through).

    Raises:
        ValidationError: not ``active``, ``done`` or ``abandoned``.
    """
    if value is None or isinstance(value, Status):
        return value
    try:
        return Status(value)
    except ValueError:
        from ..errors import ValidationError

        allowed = ", ".join(member.value for member in Status)
        raise ValidationError(f"status {value!r} is not one of {allowed}") from None


def in_range(day: str | None, lo: str | None, hi: str | None) -> bool:
    """Whether ``day`` is on or after ``lo`` and on or before ``hi`` (``None``: no bound);
    no day is in no bounded range."""
    if day is None:
        return not (lo or hi)
    return (not lo or day >= lo) and (not hi or day <= hi)


def _each(items: Iterable[Any], call: Callable[[Any], Any]) -> list[Any]:
    """``call`` of each item, in order; a :class:`SessionKitError` is kept, not raised."""
    out: list[Any] = []
    for item in items:
        try:
            out.append(call(item))
        except SessionKitError as exc:
            out.append(exc)
    return out


class Store(abc.ABC):
    """A collection of session notes (abstract).

    Attributes:
        url: where the store lives (path or fsspec URL).
        format: format name of notes this store writes (``aiwiki-v2``).
        layout: layout name (``aiwiki``, ``basic-memory``).
    """

    url: str
    format: str
    layout: str

    # -- primitives ----------------------------------------------------------
    @abc.abstractmethod
    def keys(self) -> list[str]:
        """Every note key, sorted, from one listing."""

    @abc.abstractmethod
    def read_text(self, key: str) -> str:
        """The exact text of a note. Raises :class:`NotFoundError`."""

    @abc.abstractmethod
    def write_text(self, key: str, text: str, *, create: bool = False) -> None:
        """Write a note atomically; with ``create``, fail with ConflictError if it exists."""

    @abc.abstractmethod
    def update_text(self, key: str, fn: Callable[[str | None], str | None]) -> str | None:
        """Read-modify-write without lost updates (lock or compare-and-swap): ``fn`` gets
        the text (``None``: absent), returns the new one (``None``: leave it); maybe twice."""

    @abc.abstractmethod
    def delete(self, key: str) -> None:
        """Remove a note. Raises :class:`NotFoundError`."""

    @abc.abstractmethod
    def key_for(self, session: Session) -> str:
        """The key a new note for ``session`` gets under this store's layout."""

    # -- derived -------------------------------------------------------------
    def exists(self, key: str) -> bool:
        """Whether a note with this key exists."""
        return key in set(self.keys())

    def write_texts(
        self, items: Sequence[tuple[str, str]], *, create: bool = False
    ) -> list[SessionKitError | None]:
        """:meth:`write_text` of several notes, each with its guarantees: per note, in
        order, ``None`` or the error that stopped it (built-in stores overlap them)."""
        return _each(items, lambda item: self.write_text(item[0], item[1], create=create))

    def update_texts(
        self, keys: Sequence[str], fn: Callable[[str, str | None], str | None]
    ) -> list[str | SessionKitError | None]:
        """:meth:`update_text` of several notes, ``fn(key, current)`` for each (maybe more
        than once): per note, in order, its text afterwards or the error that stopped it."""
        return _each(keys, lambda key: self.update_text(key, functools.partial(fn, key)))

    def read_many(self, keys: Iterable[str]) -> Iterator[tuple[str, str | SessionKitError]]:
        """(key, text) for each key, in order; errors are yielded, not raised."""
        for key in keys:
            try:
                yield key, self.read_text(key)
            except SessionKitError as exc:
                yield key, exc

    def get(self, key: str) -> Session:
        """Read and parse one note."""
        from .._api import loads

        return loads(self.read_text(key), path=key, format=None)

    def put(self, session: Session, key: str | None = None, *, create: bool = True) -> str:
        """Write ``session`` (created when new); returns its key."""
        from .._api import dumps

        key = key or self.key_for(session)
        fmt = session.origin.format if session.origin is not None else self.format
        self.write_text(key, dumps(session, format=fmt), create=create)
        return key

    def update(self, key: str, fn: Callable[[Session], Session]) -> Session:
        """Apply ``fn`` to the note's model and write the minimal edit, without lost updates."""
        from .._api import dumps, loads
        from ..errors import NotFoundError

        result: list[Session] = []

        def edit(text: str | None) -> str | None:
            if text is None:
                raise NotFoundError(f"no note {key!r}", path=key)
            new = fn(loads(text, path=key))
            result[:] = [new]
            out = dumps(new)
            return None if out == text else out

        self.update_text(key, edit)
        return result[0]

    def info(self) -> list[NoteInfo]:
        """A listing of every note (names only where the layout allows)."""
        return [NoteInfo(key=k) for k in self.keys()]

    def list(
        self,
        *,
        status: Status | str | None = None,
        since: DateLike | None = None,
        until: DateLike | None = None,
    ) -> list[NoteInfo]:
        """Notes matching every filter given (``status``; dated on or after ``since``,
        on or before ``until``), sorted by key.  This generic version parses every
        note; layouts read names first and frontmatter heads only when needed.
        """
        from .._api import loads

        lo, hi = as_iso_date(since), as_iso_date(until)
        want = as_status(status)
        out: list[NoteInfo] = []
        for key, text in self.read_many(self.keys()):
            if isinstance(text, SessionKitError):
                continue
            try:
                s = loads(text, path=key)
            except SessionKitError:
                continue
            day = (s.started or "")[:10] or None
            if want is not None and s.status is not want:
                continue
            if not in_range(day, lo, hi):
                continue
            out.append(
                NoteInfo(key=key, date=day, status=s.status, title=s.focus or s.title, id=s.id)
            )
        return out

    def sessions(
        self,
        *,
        status: Status | str | None = None,
        since: DateLike | None = None,
        until: DateLike | None = None,
    ) -> Iterator[tuple[str, Session]]:
        """``(key, session)`` for every note matching the filters of :meth:`list`, read in
        batches and parsed lazily; a note that cannot be read or parsed raises its
        error when the loop reaches it (:class:`ValidationError`: a bad filter).
        """
        from .._api import loads

        keys = [info.key for info in self.list(status=status, since=since, until=until)]
        for start in range(0, len(keys), 256):
            for key, text in self.read_many(keys[start : start + 256]):
                if isinstance(text, SessionKitError):
                    raise text
                yield key, loads(text, path=key)

    def versions(self) -> dict[str, str]:
        """Every note's key -> a version that changes when the note changes, without
        reading any note (``""``: unknown, the note must be read to tell)."""
        return dict.fromkeys(self.keys(), "")

    def latest(self) -> str | None:
        """The key of the most recent note (``None`` in an empty store)."""
        keys = self.keys()
        return keys[-1] if keys else None

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.url!r})"

    def describe(self) -> dict[str, Any]:
        """A JSON-able description (url, layout, format)."""
        return {"url": self.url, "layout": self.layout, "format": self.format}


# --------------------------------------------------------------------------- bytes

Updater = Callable[[bytes | None], bytes | None]


@attrs.frozen(kw_only=True)
class FileEntry:
    """One file found by a listing: its path below the root (``/``-separated), and
    its ``mtime`` (POSIX seconds) and ``size`` when the listing gave them for free."""

    path: str
    mtime: float | None = None
    size: int | None = None


class Storage(abc.ABC):
    """Files below one root (abstract): the byte layer of the built-in stores.

    Attributes:
        url: the root, as a path or URL.
        guarantee: how conditional writes are made safe: ``"lock"``, ``"cas"``,
            ``"process-lock"``, ``"single-writer"`` or ``"none"``.
        remote: whether the files leave this machine (redaction refuses clear
            secrets there whatever ``secrets.redact`` says).
    """

    url: str
    guarantee: str
    remote: bool = True

    @abc.abstractmethod
    def list(self, folder: str = "") -> builtins.list[FileEntry]:
        """Every file below ``folder`` (recursively), sorted, from one listing call;
        dotfiles and dot-folders left out; a missing folder lists as empty."""

    def list_paths(self, folder: str = "", *, relative: bool = False) -> builtins.list[str]:
        """The paths :meth:`list` gives (``relative``: relative to ``folder``)."""
        cut = len(folder) + 1 if folder and relative else 0
        return [entry.path[cut:] for entry in self.list(folder)]

    @abc.abstractmethod
    def names(self) -> set[str]:
        """The names directly under the root (one listing; empty when it is missing)."""

    @abc.abstractmethod
    def read(self, path: str) -> bytes:
        """The bytes of one file. Raises :class:`NotFoundError`."""

    @abc.abstractmethod
    def read_many(self, paths: Sequence[str]) -> dict[str, bytes | StoreError]:
        """Several files in as few round trips as possible; errors mapped, not raised."""

    def read_each(self, paths: Sequence[str]) -> Iterator[tuple[str, bytes | StoreError]]:
        """``(path, bytes or error)`` of each path, in order: one :meth:`read_many`
        batch, each file's bytes let go once yielded."""
        got = self.read_many(builtins.list(dict.fromkeys(paths)))
        left = collections.Counter(paths)
        for path in paths:
            left[path] -= 1
            yield path, got[path] if left[path] else got.pop(path)

    @abc.abstractmethod
    def read_heads(self, paths: Sequence[str], nbytes: int) -> dict[str, bytes | StoreError]:
        """The first ``nbytes`` of each file (ranged reads where possible), batched."""

    @abc.abstractmethod
    def write(self, path: str, data: bytes, *, create: bool = False) -> None:
        """Replace (or create) a file atomically; with ``create``,
        :class:`ConflictError` when it exists, without touching it."""

    @abc.abstractmethod
    def update(self, path: str, fn: Updater) -> bytes | None:
        """Read-modify-write one file without lost updates.

        ``fn`` gets the current bytes (``None``: missing) and returns new bytes or
        ``None`` (leave it); it may be called more than once.  Returns the bytes
        afterwards (``None`` if it still does not exist).
        """

    @abc.abstractmethod
    def delete(self, path: str) -> None:
        """Remove a file. Raises :class:`NotFoundError`."""

    @abc.abstractmethod
    def mtime(self, path: str) -> float | None:
        """Modification time of one file (one stat), ``None`` if unknown."""

    def readable(self, path: str) -> bool:
        """Whether ``path`` may be read as a note (local disks tell FIFOs, devices and
        outside links apart; elsewhere every listed file is one)."""
        return True

    def write_many(
        self, items: Sequence[tuple[str, bytes]], *, create: bool = False
    ) -> builtins.list[SessionKitError | None]:
        """:meth:`write` of several files; per file, in order, ``None`` or the error."""
        return _each(items, lambda item: self.write(item[0], item[1], create=create))

    def update_many(
        self, paths: Sequence[str], fn: Callable[[str, bytes | None], bytes | None]
    ) -> builtins.list[bytes | SessionKitError | None]:
        """:meth:`update` of several files, ``fn(path, current)`` each; per file, in
        order, its bytes afterwards or the error that stopped it."""
        return _each(paths, lambda path: self.update(path, functools.partial(fn, path)))

    def batch(self) -> contextlib.AbstractContextManager[None]:
        """Group many writes made by this thread (local disk: one folder ``fsync``
        when the block ends); every write is durable when the block exits."""
        return contextlib.nullcontext()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.url!r})"
