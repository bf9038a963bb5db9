"""Converting every session note of a store into another store.

:func:`convert` plans the run over the source's notes, converts each one
(in worker processes with ``jobs``) through the note-level crosswalk
(:func:`sessionkit.adapters.crosswalk.convert_doc`, where the field mapping
and the carriers are described), writes the results and returns a
:class:`ConversionReport`.  It is idempotent (a second run writes nothing)
and never overwrites a target note edited by hand since the last conversion
unless ``force=True``.  :func:`convert_text` converts one note's text.

Idempotence and conflicts use a manifest dotfile in the target's notes folder
(``.sessionkit-convert.json``; dotfiles are ignored by Basic Memory and by
sessionkit listings) recording the SHA-256 of every note the converter wrote.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import posixpath
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import attrs

from ..adapters.crosswalk import (
    AIWIKI,
    BASIC_MEMORY,
    Converted,
    convert_doc,
    detect_family,
    note_family,
    today_utc,
)
from ..document import Document
from ..errors import (
    LimitExceededError,
    NotFoundError,
    SessionKitError,
    StoreError,
    UnsupportedFormatError,
)

if TYPE_CHECKING:
    from ..backends import Store

__all__ = [
    "AIWIKI",
    "BASIC_MEMORY",
    "MANIFEST_NAME",
    "ConversionIssue",
    "ConversionReport",
    "convert",
    "convert_text",
    "target_key",
]

#: manifest of what the converter wrote, in the target's notes folder
MANIFEST_NAME = ".sessionkit-convert.json"


def convert_text(
    text: str,
    to: str,
    path: str | None = None,
    from_: str | None = None,
    *,
    project: str | None = None,
    folder: str = "sessions",
) -> str:
    """Convert one note's text to another format.

    Args:
        text: the whole note.
        to: ``"basic-memory"`` or ``"aiwiki-v2"`` (``"aiwiki"`` works too).
        path: the note's path, for error messages.
        from_: the source format; detected when ``None``.
        project: Basic Memory project name for the ``project`` key and the
            permalink prefix of notes that have none.
        folder: Basic Memory folder the note lives in (permalinks use it).

    Returns:
        The converted note's text.  Converting it back gives the original
        session (same model; same bytes for notes in canonical layout).

    Raises:
        ParseError: unusable input (with path and line).
        UnsupportedFormatError: ``to`` or the source is not aiwiki or Basic Memory,
            or both are the same family.
    """
    from .._api import read_document

    doc = read_document(text, path)
    src = note_family(from_) if from_ else detect_family(doc)
    dst = _target_family(to)
    if src == dst:
        raise UnsupportedFormatError(f"the note is already {to}: nothing to convert", path=path)
    try:
        return convert_doc(doc, src, dst, project=project, folder=folder, today=today_utc()).text
    except SessionKitError as exc:
        raise exc.with_path(path) from None


def _target_family(to: str) -> str:
    """``note_family`` of a target format; ``aiwiki-v1`` is refused (convert writes v2)."""
    if to == "aiwiki-v1":
        raise UnsupportedFormatError(
            "convert writes aiwiki-v2 pages, not aiwiki-v1; convert to aiwiki-v2, then "
            "sessionkit.migrate(store, to='aiwiki-v1') (sessionkit migrate --to aiwiki-v1)"
        )
    return note_family(to)


def target_key(text: str, to: str, path: str | None = None, *, project: str | None = None) -> str:
    """The key the converted note gets in a store of format ``to``."""
    from .._api import read_document

    doc = read_document(text, path)
    src, dst = detect_family(doc), note_family(to)
    return convert_doc(doc, src, dst, project=project, folder="sessions", today=today_utc()).key


# ----------------------------------------------------------------------------- stores


@attrs.frozen(kw_only=True)
class ConversionIssue:
    """A note that was not converted, or not written.

    Attributes:
        source: the source note's key.
        target: the target key, when known.
        message: what happened, in words.
    """

    source: str
    target: str | None
    message: str


@attrs.define(kw_only=True)
class ConversionReport:
    """What :func:`convert` did.

    Attributes:
        source: the source store's URL.
        target: the target store's URL.
        to: the target format.
        dry_run: nothing was written.
        created: target keys of new notes.
        updated: target keys of notes rewritten (converter-written and unchanged by hand,
            or forced).
        unchanged: target keys whose text was already what conversion gives.
        carried: target keys whose session rides in the JSON carrier (see module docs).
        skipped: source keys that are not session notes (Basic Memory notes of other types).
        conflicts: target notes edited by hand (or not written by the converter);
            left alone unless ``force``.
        failures: source notes that could not be read or converted.
    """

    source: str
    target: str
    to: str
    dry_run: bool = False
    created: list[str] = attrs.field(factory=list)
    updated: list[str] = attrs.field(factory=list)
    unchanged: list[str] = attrs.field(factory=list)
    carried: list[str] = attrs.field(factory=list)
    skipped: list[str] = attrs.field(factory=list)
    conflicts: list[ConversionIssue] = attrs.field(factory=list)
    failures: list[ConversionIssue] = attrs.field(factory=list)

    @property
    def written(self) -> list[str]:
        """Target keys written (or that would be, in a dry run): created + updated."""
        return [*self.created, *self.updated]

    @property
    def ok(self) -> bool:
        """No conflicts and no failures."""
        return not self.conflicts and not self.failures

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (the CLI's ``--json`` output)."""
        return {
            "source": self.source,
            "target": self.target,
            "to": self.to,
            "dry_run": self.dry_run,
            "ok": self.ok,
            "created": self.created,
            "updated": self.updated,
            "unchanged": self.unchanged,
            "carried": self.carried,
            "skipped": self.skipped,
            "conflicts": [attrs.asdict(c) for c in self.conflicts],
            "failures": [attrs.asdict(c) for c in self.failures],
        }


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _open(target: Any, fmt: str | None, storage_options: Mapping[str, Any]) -> Store:
    from ..backends import Store, open_store

    if isinstance(target, Store):
        return target
    layout = None
    if fmt is not None:
        layout = "basic-memory" if note_family(fmt) == BASIC_MEMORY else "aiwiki"
    return open_store(os.fspath(target), layout=layout, **dict(storage_options))


def _store_family(store: Store) -> str:
    return BASIC_MEMORY if store.layout == "basic-memory" else "aiwiki"


def _project_name(store: Store) -> str | None:
    url = str(getattr(store, "url", "") or "")
    if url.startswith("bm://") and not url.startswith("bm:///"):
        name = url[len("bm://") :].strip("/")
        if name:
            return name
    storage = getattr(store, "storage", None)
    root = str(getattr(storage, "root", "") or url)
    name = posixpath.basename(root.replace("\\", "/").rstrip("/"))
    return name or None


def _manifest_path(store: Store) -> str | None:
    folder = getattr(store, "folder", None)
    if getattr(store, "storage", None) is None or folder is None:
        return None
    return f"{folder}/{MANIFEST_NAME}" if folder else MANIFEST_NAME


def _read_manifest(store: Store) -> dict[str, dict[str, str]]:
    path = _manifest_path(store)
    if path is None:
        return {}
    storage: Any = getattr(store, "storage", None)
    try:
        data = json.loads(storage.read(path).decode("utf-8"))
    except NotFoundError:
        return {}
    except (ValueError, UnicodeDecodeError):
        return {}
    notes = data.get("notes") if isinstance(data, dict) else None
    return {k: v for k, v in (notes or {}).items() if isinstance(v, dict)}


def _write_manifest(store: Store, notes: Mapping[str, Mapping[str, str]]) -> None:
    path = _manifest_path(store)
    if path is None:
        return
    storage: Any = getattr(store, "storage", None)
    data = {"version": 1, "notes": {k: dict(notes[k]) for k in sorted(notes)}}
    text = json.dumps(data, indent=1, ensure_ascii=False, sort_keys=True) + "\n"
    storage.write(path, text.encode("utf-8"))


def _is_session_note(text: str, family: str, doc: Document | None = None) -> bool:
    """Whether a source note is a session (every aiwiki page is; a Basic Memory
    note is when its frontmatter says so, read as :func:`read_frontmatter` reads it).

    ``doc``: the note already parsed, whose frontmatter is used when it is the
    very text :func:`read_frontmatter` would load (then the YAML is read once).
    """
    if family != BASIC_MEMORY:
        return True
    from ..adapters.basic_memory import SESSION_TYPES
    from ..backends._filestore import read_frontmatter

    meta: Mapping[str, Any] | None = None
    if doc is not None and _same_frontmatter_text(doc):
        with contextlib.suppress(SessionKitError):
            meta = doc.meta
    if meta is None:
        meta = read_frontmatter(text) or {}
    return str(meta.get("type", "")).strip() in SESSION_TYPES or "aiwiki_sessionkit" in meta


def _same_frontmatter_text(doc: Document) -> bool:
    """Whether ``doc.meta`` loads the same text with the same loader as
    :func:`read_frontmatter` does for ``doc.text``.

    Both take the lines between the first line and the next ``---`` line when
    both are fences by the same rule, which holds when the text has no BOM
    and no carriage return and every line ends with a newline (the reader
    does not take a fence on an unterminated last line, the document does).
    The frontmatter must not be empty (the reader loads ``"\n"``, the
    document ``""``) and hold no NUL (the document refuses it before loading).
    """
    text = doc.text
    return (
        doc.fm_close is not None
        and doc.fm_close > 1
        and not doc.bom
        and text.endswith("\n")
        and "\r" not in text
        and "\x00" not in text
    )


@attrs.frozen(kw_only=True)
class _Job:
    """What every note of one :func:`convert` run shares (sent to workers once per chunk)."""

    src: str
    dst: str
    project: str | None
    folder: str
    today: str


@attrs.frozen
class _Unreadable:
    """A source note that could not be read: why (goes to the report in its place)."""

    message: str


def _convert_job(
    job: _Job, item: tuple[str, str | _Unreadable]
) -> tuple[str, Converted | str | None]:
    """Convert one source note ``(key, text)`` (in a worker when ``jobs > 1``).

    Returns ``(key, result)``: the converted note, ``None`` for a note that is
    not a session (skipped), or the error as text.
    """
    key, text = item
    if isinstance(text, _Unreadable):
        return key, text.message
    from .._api import read_document

    try:
        try:
            doc = read_document(text, key)
        except LimitExceededError:
            if not _is_session_note(text, job.src):  # skipped before its size matters
                return key, None
            raise
        if not _is_session_note(text, job.src, doc):
            return key, None
        result = convert_doc(
            doc, job.src, job.dst, project=job.project, folder=job.folder, today=job.today
        )
        return key, attrs.evolve(result, sha=_sha(result.text))
    except SessionKitError as exc:
        return key, str(exc.with_path(key))


def _run_jobs(
    job: _Job, items: Iterable[tuple[str, str | _Unreadable]], jobs: int | None
) -> Iterator[tuple[str, Converted | str | None]]:
    """``_convert_job`` over ``items`` in order, streaming (results come as chunks finish)."""
    import functools

    from ._parallel import ordered_map

    one = functools.partial(_convert_job, job)
    if jobs is None:  # every core, for runs big enough to pay for a pool
        return ordered_map(one, items, jobs=None, chunk_size=32)
    if jobs <= 1:
        return map(one, items)
    return ordered_map(one, items, jobs=jobs, chunk_size=32, min_parallel=2 * jobs)


#: source notes read per :meth:`Store.read_many` call (concurrent reads on remote stores)
_READ_BATCH = 256


def _sources(source: Store, keys: Sequence[str]) -> Iterator[tuple[str, str | _Unreadable]]:
    """``(key, text)`` of every source note, read a batch at a time as the
    conversion asks for them (so the workers start on the first batch and the
    texts are not all held at once); an unreadable note comes with why."""
    for start in range(0, len(keys), _READ_BATCH):
        for key, text in source.read_many(keys[start : start + _READ_BATCH]):
            yield key, _Unreadable(str(text)) if isinstance(text, SessionKitError) else text


def convert(
    src: Store | str | os.PathLike[str],
    dst: Store | str | os.PathLike[str],
    to: str | None = None,
    dry_run: bool = False,
    progress: Callable[[int, int, str], None] | None = None,
    force: bool = False,
    jobs: int | None = None,
    project: str | None = None,
    *,
    from_: str | None = None,
    storage_options: Mapping[str, Any] | None = None,
) -> ConversionReport:
    """Convert every session note of ``src`` into ``dst``.

    Args:
        src: a store, or a path/URL :func:`~sessionkit.open_store` opens.
        dst: the target store (created on first write).
        to: target format (``basic-memory`` or ``aiwiki-v2``); by default the
            other family than the source's (or the target store's, when given a store).
        dry_run: compute everything, write nothing.
        progress: called as ``progress(done, total, source_key)`` after each source
            note, in source order (``total``: the notes listed, unreadable ones too).
        force: overwrite target notes edited by hand (or not written by the converter).
        jobs: worker processes for the conversion itself (``None``: the number
            of cores, in process for fewer than 64 notes; 1: in process).
        project: Basic Memory project name (the ``project`` key and the
            permalink prefix of notes that have none); by default the target
            store's project (``bm://NAME``) or its folder name.
        from_: source format; by default the source store's.
        storage_options: fsspec options for stores given as URLs.

    Returns:
        A :class:`ConversionReport`.  A second run over the same source
        writes nothing.

    Raises:
        StoreError: a store cannot be opened.
        UnsupportedFormatError: the formats are not aiwiki and Basic Memory.
    """
    from ..backends import Store

    if to is not None:
        _target_family(to)  # refused before any store is opened
    options = dict(storage_options or {})
    source = _open(src, from_, options)
    src_family = note_family(from_) if from_ else _store_family(source)
    if to is None and not isinstance(dst, Store):
        to = AIWIKI if src_family == BASIC_MEMORY else BASIC_MEMORY
    target = _open(dst, to, options)
    dst_family = _target_family(to) if to else _store_family(target)
    if dst_family == src_family:
        raise UnsupportedFormatError(
            f"both stores hold {src_family} notes; convert needs aiwiki on one side "
            "and basic-memory on the other",
            option="to",
        )
    to_name = AIWIKI if dst_family == "aiwiki" else BASIC_MEMORY
    report = ConversionReport(
        source=str(source.url), target=str(target.url), to=to_name, dry_run=dry_run
    )
    folder = str(getattr(target if dst_family == BASIC_MEMORY else source, "folder", "sessions"))
    if dst_family != BASIC_MEMORY and source.layout != "basic-memory":
        folder = "sessions"
    if dst_family == BASIC_MEMORY and project is None:
        project = _project_name(target)
    job = _Job(src=src_family, dst=dst_family, project=project, folder=folder, today=today_utc())
    keys = source.keys()
    manifest = _read_manifest(target)
    new_manifest = dict(manifest)
    existing = set(target.keys())
    seen: dict[str, str] = {}
    total = len(keys)
    items = _sources(source, keys)
    batch = getattr(target, "batch", None)
    with batch() if batch is not None and not dry_run else contextlib.nullcontext():
        for done, (key, result) in enumerate(_run_jobs(job, items, jobs), start=1):
            _take(
                target, report, manifest, new_manifest, existing, seen, key, result, dry_run, force
            )
            if progress is not None:
                progress(done, total, key)
    # the batch is over: every note written is durable before the manifest records it
    if not dry_run and new_manifest != manifest:
        _write_manifest(target, new_manifest)
    return report


def _take(
    target: Store,
    report: ConversionReport,
    manifest: Mapping[str, Mapping[str, str]],
    new_manifest: dict[str, dict[str, str]],
    existing: set[str],
    seen: dict[str, str],
    key: str,
    result: Converted | str | None,
    dry_run: bool,
    force: bool,
) -> None:
    """Record (and write) one source note's result."""
    if result is None:
        report.skipped.append(key)
        return
    if isinstance(result, str):
        report.failures.append(ConversionIssue(source=key, target=None, message=result))
        return
    tkey = result.key
    if tkey in seen:
        report.failures.append(
            ConversionIssue(
                source=key, target=tkey, message=f"maps to the same target note as {seen[tkey]!r}"
            )
        )
        return
    seen[tkey] = key
    try:
        _place(target, report, manifest, new_manifest, existing, key, result, dry_run, force)
    except SessionKitError as exc:
        report.failures.append(ConversionIssue(source=key, target=None, message=str(exc)))


def _place(
    target: Store,
    report: ConversionReport,
    manifest: Mapping[str, Mapping[str, str]],
    new_manifest: dict[str, dict[str, str]],
    existing: set[str],
    source_key: str,
    result: Converted,
    dry_run: bool,
    force: bool,
) -> None:
    tkey, text = result.key, result.text
    entry = {"sha256": result.sha or _sha(text), "source": source_key}
    if result.carried:
        report.carried.append(tkey)
    if tkey in existing:
        try:
            current = target.read_text(tkey)
        except NotFoundError:
            current = None
        if current == text:
            report.unchanged.append(tkey)
            if manifest.get(tkey) != entry:
                new_manifest[tkey] = entry
            return
        if current is not None:
            recorded = manifest.get(tkey, {}).get("sha256")
            if recorded != _sha(current) and not force:
                why = (
                    "edited by hand since the last conversion"
                    if recorded
                    else "exists and was not written by sessionkit convert"
                )
                report.conflicts.append(
                    ConversionIssue(source=source_key, target=tkey, message=f"{tkey}: {why}")
                )
                return
            if not dry_run:
                target.write_text(tkey, text)
            report.updated.append(tkey)
            new_manifest[tkey] = entry
            return
    if not dry_run:
        try:
            target.write_text(tkey, text, create=True)
        except StoreError as exc:
            report.conflicts.append(
                ConversionIssue(source=source_key, target=tkey, message=str(exc))
            )
            return
    report.created.append(tkey)
    new_manifest[tkey] = entry
