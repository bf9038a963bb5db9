"""Migrate every page of an aiwiki store between schema versions (v1 ⇄ v2).

:func:`migrate` applies :func:`sessionkit.adapters.aiwiki.migrate_document` to each page
through the store: minimal (only the lines the schema names change), atomic under the
folder's lock, made from the text read under the lock (no edit lost), never writing a page
it cannot migrate (reported with path, line and reason), and idempotent (a rerun finishes
an interrupted run).  It never prints; progress goes to an optional callback.
"""

from __future__ import annotations

import collections
import difflib
import enum
import functools
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from .._atomic import write_atomic
from ..backends._base import Store
from ..errors import NotFoundError, SessionKitError, StoreError, UnsupportedFormatError

if TYPE_CHECKING:
    from ..redaction import Finding

__all__ = ["FileResult", "MigrationReport", "Outcome", "ProgressCallback", "migrate"]

#: ``progress(done, total, key)``: called after each page is handled
ProgressCallback = Callable[[int, int, str], None]

#: formats :func:`migrate` can move pages to
TARGETS = ("aiwiki-v1", "aiwiki-v2")


class Outcome(enum.StrEnum):
    """What happened to one page."""

    #: rewritten to the target version (in a dry run: would be)
    MIGRATED = "migrated"
    #: already at the target version; not written
    CURRENT = "current"
    #: could not be read or migrated; not written
    FAILED = "failed"


@attrs.frozen(kw_only=True)
class FileResult:
    """The outcome for one page.

    Attributes:
        key: the page's store key (``2026-05-18-7e8a3f2.md``).
        path: its path relative to the store root (``aiwiki/sessions/…``).
        outcome: migrated, current or failed.
        line: 1-based line of the problem (failed pages, when known).
        reason: why the page failed (``None`` otherwise).
        diff: in a dry run, the unified diff the migration would apply
            (``None`` otherwise and for pages that would not change).
        redacted: the secrets the write of this page redacted (or, under
            ``secrets.redact = warn``, wrote as they are): path, line, kind.
    """

    key: str
    path: str
    outcome: Outcome
    line: int | None = None
    reason: str | None = None
    diff: str | None = None
    redacted: tuple[Finding, ...] = ()

    def __str__(self) -> str:
        if self.outcome is Outcome.FAILED:
            where = self.path if self.line is None else f"{self.path}:{self.line}"
            return f"{where}: {self.reason}"
        return f"{self.path}: {self.outcome.value}"

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able dict (``diff`` only when there is one, ``redacted`` only when
        the page held a secret)."""
        out: dict[str, Any] = {
            "key": self.key,
            "path": self.path,
            "outcome": self.outcome.value,
            "line": self.line,
            "reason": self.reason,
        }
        if self.diff is not None:
            out["diff"] = self.diff
        if self.redacted:
            out["redacted"] = [f.to_dict() for f in self.redacted]
        return out


@attrs.frozen(kw_only=True)
class MigrationReport:
    """What :func:`migrate` did, page by page, in key order.

    Attributes:
        root: the store's URL or path.
        to: the target format (``aiwiki-v2``).
        dry_run: whether nothing was written.
        backup: the backup folder, if one was asked for.
        files: one :class:`FileResult` per page, sorted by key (when
            :func:`migrate` was asked not to list every page: the pages that
            failed, had a secret redacted, or in a dry run have a diff).
        totals: the pages of each outcome, when ``files`` does not list them all.
    """

    root: str
    to: str
    dry_run: bool
    backup: str | None
    files: tuple[FileResult, ...]
    totals: dict[str, int] | None = None

    @property
    def redacted(self) -> list[Finding]:
        """Every secret the run's writes redacted (path, line, kind; never the
        value), page by page, whichever process wrote the page."""
        return [f for r in self.files for f in r.redacted]

    def _with(self, outcome: Outcome) -> list[FileResult]:
        return [f for f in self.files if f.outcome is outcome]

    @property
    def migrated(self) -> list[FileResult]:
        """Pages rewritten (in a dry run: pages that would be)."""
        return self._with(Outcome.MIGRATED)

    @property
    def current(self) -> list[FileResult]:
        """Pages already at the target version."""
        return self._with(Outcome.CURRENT)

    @property
    def failed(self) -> list[FileResult]:
        """Pages that could not be migrated (left untouched)."""
        return self._with(Outcome.FAILED)

    @property
    def ok(self) -> bool:
        """No page failed: every page is (after a dry run: would be) at the target version."""
        return not self.failed

    @property
    def diffs(self) -> list[str]:
        """The unified diffs of a dry run, in key order (empty for a real run)."""
        return [f.diff for f in self.files if f.diff]

    def counts(self) -> dict[str, int]:
        """``{"migrated": n, "current": n, "failed": n}``."""
        if self.totals is not None:
            return dict(self.totals)
        out = {o.value: 0 for o in Outcome}
        for f in self.files:
            out[f.outcome.value] += 1
        return out

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able dict: root, to, dry_run, backup, ok, counts, redacted, files."""
        return {
            "root": self.root,
            "to": self.to,
            "dry_run": self.dry_run,
            "backup": self.backup,
            "ok": self.ok,
            "counts": self.counts(),
            "redacted": [f.to_dict() for f in self.redacted],
            "files": [f.to_dict() for f in self.files],
        }


def _path_of(store: Store, key: str) -> str:
    path_of = getattr(store, "path_of", None)
    if not callable(path_of):
        return key
    try:
        return str(path_of(key))
    except SessionKitError:  # a name the store refuses (CON.md): its read reports it
        folder = getattr(store, "folder", "")
        return f"{folder}/{key}" if folder else key


def unified_diff(old: str, new: str, path: str) -> str:
    """A ``git apply``-able unified diff of one page (``a/path`` → ``b/path``)."""
    lines = difflib.unified_diff(
        old.splitlines(keepends=True),
        new.splitlines(keepends=True),
        fromfile=f"a/{path}",
        tofile=f"b/{path}",
    )
    out = []
    for line in lines:
        if line.endswith("\n"):
            out.append(line)
        else:  # the last line of a page without a final newline
            out.append(line + "\n\\ No newline at end of file\n")
    return "".join(out)


def _save_backup(store: Store, backup: Path, path: str, text: str) -> None:
    """Write ``text`` to ``backup/path`` durably (temp dotfile, fsync, replace)."""
    target = backup.joinpath(*path.split("/"))
    try:
        mode = _note_mode(store, path)
        if mode is not None:
            target.parent.mkdir(parents=True, exist_ok=True)
            os.close(os.open(target, os.O_WRONLY | os.O_CREAT, mode))
            now = stat.S_IMODE(os.stat(target).st_mode)
            if now & ~mode:  # (an older backup there, or a umask wider than the note)
                os.chmod(target, now & mode)
        write_atomic(target, text)  # (keeps the file's bits)
    except OSError as exc:
        raise StoreError(f"cannot back up to {target}: {exc.strerror or exc}", path=path) from None


def _note_mode(store: Store, path: str) -> int | None:
    """The permission bits of a local note (``None``: not on the local disk)."""
    resolve = getattr(getattr(store, "storage", None), "resolve", None)
    if resolve is None:
        return None
    try:
        return stat.S_IMODE(os.stat(resolve(path)).st_mode)
    except (OSError, ValueError, SessionKitError):
        return None


def _migrate_keys(
    store: Store, to: str, dry_run: bool, backup: str | None, keys: list[str]
) -> list[FileResult]:
    """Worker entry point for the pool: a chunk of pages migrated in one store batch (on a local
    disk written and synced together under one lock), each with the secrets its write redacted
    (which a worker process cannot report itself)."""
    from .._api import read_document
    from ..adapters.aiwiki import migrate_document
    from ..redaction import collect

    folder = None if backup is None else Path(backup)
    paths = {key: _path_of(store, key) for key in keys}
    changed: dict[str, tuple[str, str]] = {}

    def transform(key: str, text: str | None) -> str | None:
        changed.pop(key, None)
        path = paths[key]
        if text is None:
            raise NotFoundError("the page disappeared during the migration", path=path)
        doc = read_document(text, path)
        new = migrate_document(doc, to=to)
        if new is doc or new.text == text:
            return None
        changed[key] = (text, str(new.text))
        if dry_run:
            return None
        if folder is not None:
            _save_backup(store, folder, path, text)
        return str(new.text)

    def read(key: str) -> str | SessionKitError | None:
        try:
            return transform(key, store.read_text(key))
        except SessionKitError as exc:
            return exc

    with collect() as found:
        got = [read(key) for key in keys] if dry_run else store.update_texts(keys, transform)
    secrets: dict[str, list[Finding]] = {}
    for finding in dict.fromkeys(found):  # (a page written again after a race: once)
        secrets.setdefault(finding.path or "", []).append(finding)
    results = []
    for key, outcome in zip(keys, got, strict=True):
        path = paths[key]
        if isinstance(outcome, SessionKitError):
            result = FileResult(
                key=key,
                path=path,
                outcome=Outcome.FAILED,
                line=outcome.line,
                reason=outcome.message,
            )
        elif key in changed:
            diff = unified_diff(*changed[key], path) if dry_run else None
            redacted = tuple(secrets.get(path, ()))
            result = FileResult(
                key=key, path=path, outcome=Outcome.MIGRATED, diff=diff, redacted=redacted
            )
        else:
            result = FileResult(key=key, path=path, outcome=Outcome.CURRENT)
        results.append(result)
    return results


def _open(store_or_path: Store | str | os.PathLike[str]) -> Store:
    if isinstance(store_or_path, Store):
        store = store_or_path
    else:
        from ..backends import open_store
        from ..backends._storage import is_local, split_url

        url = os.fspath(store_or_path)
        if is_local(url):
            local = split_url(url)[1] if "://" in url else url
            if not os.path.isdir(local):
                raise StoreError("no such folder", path=local)
        store = open_store(url, layout="aiwiki")
    if store.layout == "basic-memory":
        raise UnsupportedFormatError(
            f"{store.url}: migrate moves aiwiki session pages; this is a Basic Memory store"
        )
    root = _local_root(store)
    if root is not None:
        if not os.path.isdir(root):
            raise StoreError("no such folder", path=store.url)
        notes = str(getattr(store, "folder", ""))
        if notes and not os.path.isdir(os.path.join(root, *notes.split("/"))):
            raise StoreError(f"not a wiki: it has no {notes}/ folder", path=store.url)
    return store


def _local_root(store: Store) -> str | None:
    """The root folder of a store on the local disk (``None``: elsewhere)."""
    from ..backends._storage import LocalStorage

    storage = getattr(store, "storage", None)
    return storage.root if isinstance(storage, LocalStorage) else None


def _check_backup(store: Store, backup: str | os.PathLike[str]) -> Path:
    from .._atomic import inside

    folder = Path(os.path.abspath(os.fspath(backup)))
    root = _local_root(store)
    notes = getattr(store, "folder", "")
    if root is not None:
        kept = os.path.realpath(os.path.join(root, *notes.split("/"))) if notes else root
        if inside(os.path.realpath(folder), kept):
            raise StoreError(
                f"the backup folder {folder} is inside the notes folder {kept}; "
                "its copies would be taken for notes",
                path=str(folder),
            )
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StoreError(
            f"cannot create the backup folder {folder}: {exc.strerror}", path=str(folder)
        ) from None
    return folder


def migrate(
    store_or_path: Store | str | os.PathLike[str],
    to: str = "aiwiki-v2",
    dry_run: bool = False,
    backup: str | os.PathLike[str] | None = None,
    progress: ProgressCallback | None = None,
    jobs: int | None = None,
    list_pages: bool = True,
) -> MigrationReport:
    """Migrate every session page of an aiwiki store to ``to``.

    Args:
        store_or_path: a :class:`~sessionkit.backends.Store`, or a repository
            root (path or fsspec URL) opened with the aiwiki layout.
        to: ``"aiwiki-v2"`` (default) or ``"aiwiki-v1"`` (only pages that
            lose nothing move back; the others fail with the reason).
        dry_run: write nothing; each page that would change gets its unified
            diff in :attr:`FileResult.diff` (see :attr:`MigrationReport.diffs`).
        backup: a local folder; before a page is replaced its original bytes
            are written there at the same relative path (``aiwiki/sessions/…``),
            durably (fsync).  Pages left unchanged are not copied.
        progress: ``progress(done, total, key)`` after each page.
        jobs: worker processes for a local store (``None``: the number of
            cores, but in-process for fewer than 64 pages; ``1``: in-process).
            Pages go to the workers in chunks and results come back in key
            order, so the report does not depend on it.  Stores on other
            filesystems always run in-process.
        list_pages: list every page in :attr:`MigrationReport.files`; with
            ``False`` only the pages that failed, had a secret redacted or (in a
            dry run) have a diff are listed and :meth:`MigrationReport.counts`
            counts them all, so the run's memory does not grow with the number
            of pages.

    Returns:
        A :class:`MigrationReport` with one result per page, in key order.

    Raises:
        UnsupportedFormatError: ``to`` is not an aiwiki format, or the store
            is a Basic Memory project.
        StoreError: the root is not a folder (or, on a local disk, has no
            ``aiwiki/sessions/`` folder), the store cannot be listed, or the
            backup folder cannot be created (nothing is written then).
        ValueError: ``jobs`` is below 1.
    """
    if to not in TARGETS:
        raise UnsupportedFormatError(f"cannot migrate to {to!r}; targets are {', '.join(TARGETS)}")
    if jobs is not None and jobs < 1:
        raise ValueError(f"jobs must be at least 1, not {jobs}")
    store = _open(store_or_path)
    backup_dir = None
    if backup is not None and not dry_run:
        backup_dir = _check_backup(store, backup)
    keys = store.keys()
    from ._parallel import MIN_PARALLEL, default_jobs, ordered_map_chunks

    workers, min_parallel = (jobs or default_jobs(), MIN_PARALLEL if jobs is None else 2)
    if _local_root(store) is None:  # (a pool for local disks only)
        workers, min_parallel = 1, 0

    chunk = functools.partial(
        _migrate_keys, store, to, dry_run, None if backup_dir is None else str(backup_dir)
    )
    from ..redaction import collect, relay

    results: list[FileResult] = []
    totals = {o.value: 0 for o in Outcome}
    # each chunk of pages is one store batch (on a local disk: the folder is
    # fsynced once per chunk, before its results come back, not once per page)
    around = None if dry_run else getattr(store, "batch", None)
    with collect() as here:  # the secrets this process's writes found
        # pages a worker process wrote: their secrets reach this process's collectors
        # (the CLI's stderr report) through the results
        seen: collections.Counter[Finding] = collections.Counter()
        taken = 0
        for done, result in enumerate(
            ordered_map_chunks(chunk, keys, jobs=workers, min_parallel=min_parallel, around=around),
            start=1,
        ):
            seen.update(here[taken:])  # found here, by the pages done in this process
            for finding in result.redacted:
                if seen[finding]:
                    seen[finding] -= 1
                else:
                    relay([finding])
            taken = len(here)
            totals[result.outcome.value] += 1
            if list_pages or result.outcome is Outcome.FAILED or result.diff or result.redacted:
                results.append(result)
            if progress is not None:
                progress(done, len(keys), result.key)
    return MigrationReport(
        root=store.url,
        to=to,
        dry_run=dry_run,
        backup=None if backup is None else os.fspath(backup),
        files=tuple(results),
        totals=None if list_pages else totals,
    )
