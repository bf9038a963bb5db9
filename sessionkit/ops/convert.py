"""Converting every session note of a store into another store.

:func:`convert` plans the run over the source's notes, converts each one (in worker processes
with ``jobs``) through the note-level crosswalk (:mod:`sessionkit.adapters.crosswalk`), writes
the results and returns a :class:`ConversionReport`.  It is idempotent (a second run writes
nothing) and never overwrites a target note edited by hand since the last conversion unless
``force=True``; a manifest dotfile in the target's notes folder (``.sessionkit-convert.json``)
records the SHA-256 of every note it wrote.  Basic Memory's ``coding_session`` checkpoints of
one agent session convert together into one aiwiki page, and back into the very same notes.
:func:`convert_text` converts one note's text.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

import attrs

from ..adapters.crosswalk import (
    AIWIKI,
    BASIC_MEMORY,
    Converted,
    chain_notes,
    convert_chain,
    convert_doc,
    detect_family,
    note_family,
    today_utc,
)
from ..document import Document, check_utf8, encode_blocks
from ..errors import (
    ConflictError,
    LimitExceededError,
    NotFoundError,
    SessionKitError,
    StoreError,
    UnsupportedFormatError,
)

if TYPE_CHECKING:
    from ..backends import Store
    from ..backends._filestore import FileStore
    from ..redaction import Finding

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
        layout: aiwiki pages that keep their Basic Memory note's layout (observation
            order, line ends, comments, blank lines) as a line patch in ``bm_sessionkit``.
        skipped: source keys that are not session notes (Basic Memory notes of other types).
        conflicts: target notes edited by hand (or not written by the converter);
            left alone unless ``force``.
        failures: source notes that could not be read, converted or written, each
            with why (``not written: … No space left on device (ENOSPC)``).
        record_error: why the convert record (``.sessionkit-convert.json``)
            could not be updated, if it could not (``None`` otherwise).  Notes
            reported written are written either way; notes of a group whose
            record update failed are not written and are listed in ``failures``.
        redacted: the secrets redacted from the source notes before they were
            converted (path, line, kind; never the value).
        counts: how many notes went each way: ``created``, ``updated``,
            ``unchanged``, ``carried``, ``layout``, ``skipped`` (the lengths of those
            lists, also when :func:`convert` was asked not to list the notes).
    """

    source: str
    target: str
    to: str
    dry_run: bool = False
    created: list[str] = attrs.field(factory=list)
    updated: list[str] = attrs.field(factory=list)
    unchanged: list[str] = attrs.field(factory=list)
    carried: list[str] = attrs.field(factory=list)
    layout: list[str] = attrs.field(factory=list)
    skipped: list[str] = attrs.field(factory=list)
    conflicts: list[ConversionIssue] = attrs.field(factory=list)
    failures: list[ConversionIssue] = attrs.field(factory=list)
    record_error: str | None = None
    redacted: list[Finding] = attrs.field(factory=list)
    counts: dict[str, int] = attrs.field(
        factory=lambda: dict.fromkeys(
            ("created", "updated", "unchanged", "carried", "layout", "skipped"), 0
        )
    )

    @property
    def written(self) -> list[str]:
        """Target keys written (or that would be, in a dry run): created + updated."""
        return [*self.created, *self.updated]

    @property
    def ok(self) -> bool:
        """No conflicts, no failures, and the record was updated."""
        return not self.conflicts and not self.failures and self.record_error is None

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
            "layout": self.layout,
            "skipped": self.skipped,
            "conflicts": [attrs.asdict(c) for c in self.conflicts],
            "failures": [attrs.asdict(c) for c in self.failures],
            "record_error": self.record_error,
            "redacted": [f.to_dict() for f in self.redacted],
        }


def _sha(text: str | Sequence[str]) -> str:
    """SHA-256 of ``text`` (or of the join of its pieces) as UTF-8, hashed a block at a time
    (:func:`~sessionkit.document.encode_blocks`: a big note is not held a second time)."""
    sha = hashlib.sha256()
    for piece in (text,) if isinstance(text, str) else text:
        for block in encode_blocks(piece):
            sha.update(block)
    return sha.hexdigest()


def _mark(key: str) -> bytes:
    """A target key as the run remembers it (16 bytes, not the key's own string)."""
    return hashlib.blake2b(key.encode("utf-8", "surrogatepass"), digest_size=16).digest()


def _open(
    target: Any, fmt: str | None, storage_options: Mapping[str, Any], *, must_exist: bool = False
) -> Store:
    from ..backends import Store, check_store, open_store

    if isinstance(target, Store):
        check_store(target, must_exist=must_exist)
        return target
    layout = None
    if fmt is not None:
        layout = "basic-memory" if note_family(fmt) == BASIC_MEMORY else "aiwiki"
    return open_store(
        os.fspath(target), layout=layout, must_exist=must_exist, **dict(storage_options)
    )


def _notes_folder(store: Store) -> str | None:
    """The local notes folder of a store (absolute, symlinks resolved), else ``None``."""
    from ..backends._storage import LocalStorage

    storage = getattr(store, "storage", None)
    if not isinstance(storage, LocalStorage):
        return None
    folder = str(getattr(store, "folder", "") or "")
    return os.path.realpath(
        os.path.join(storage.root, *folder.split("/")) if folder else storage.root
    )


def refuse_overlap(source: Store, target: Store, *, verb: str = "convert") -> None:
    """Refuse converting (or syncing, ``verb``) a store into itself: the same root,
    or notes folders that overlap (either one inside the other)."""
    a, b = _notes_folder(source), _notes_folder(target)
    into = "into" if verb == "convert" else "with"
    if a is not None and b is not None:
        roots = [os.path.realpath(str(getattr(s, "storage").root)) for s in (source, target)]  # noqa: B009
        if roots[0] == roots[1]:
            raise StoreError(f"{target.url}: cannot {verb} a store {into} itself (the same root)")
    if a is None or b is None:
        if str(source.url) == str(target.url):
            raise StoreError(f"{target.url}: cannot {verb} a store {into} itself")
        return
    for x, y in ((a, b), (b, a)):
        if x == y or x.startswith(y.rstrip(os.sep) + os.sep):
            head = (
                f"{target.url}: cannot convert {source.url} into itself"
                if verb == "convert"
                else f"cannot {verb} {source.url} {into} {target.url}: one lies inside the other"
            )
            raise StoreError(f"{head} (the notes folders {a} and {b} overlap)")


def _store_family(store: Store) -> str:
    return BASIC_MEMORY if store.layout == "basic-memory" else "aiwiki"


def _manifest_path(store: Store) -> str | None:
    folder = getattr(store, "folder", None)
    if getattr(store, "storage", None) is None or folder is None:
        return None
    return f"{folder}/{MANIFEST_NAME}" if folder else MANIFEST_NAME


def _recorded(source_key: str) -> str:
    """A source note's key as the record keeps it: a secret in a file name redacted."""
    from ..redaction import scrub

    return scrub(source_key)


def _record(store: Store) -> Any:
    """The target's convert record (``None`` for a store without a byte layer)."""
    from ..backends.record import Record

    path = _manifest_path(store)
    storage = getattr(store, "storage", None)
    if path is None or storage is None:
        return None
    return Record(storage, path)


def _is_session_note(text: str, family: str, doc: Document | None = None) -> bool:
    """Whether a source note is a session (every aiwiki page is; a Basic Memory note is when its
    frontmatter says so, read as :func:`read_frontmatter` reads it)."""
    if family != BASIC_MEMORY:
        return True
    from ..adapters.basic_memory import SESSION_TYPES, split_lead
    from ..backends._filestore import read_frontmatter

    if doc is not None:
        lead, note = split_lead(doc)
        if lead:
            text = note.text
    meta = read_frontmatter(text) or {}
    return str(meta.get("type", "")).strip() in SESSION_TYPES or "aiwiki_sessionkit" in meta


@attrs.frozen(kw_only=True)
class _Job:
    """What every note of one :func:`convert` run shares (sent to workers once per chunk)."""

    src: str
    dst: str
    project: str | None
    folder: str
    today: str
    target: Any = None
    source: Any = None
    #: the target's redaction policy, for a worker that redacts what it reads without the target
    policy: Any = None


@attrs.frozen
class _Unreadable:
    """A source note that could not be read: why (goes to the report in its place)."""

    message: str


@attrs.frozen
class _Chain:
    """Basic Memory ``coding_session`` checkpoints of one agent session, ``(key, text)``
    in chain order: converted together into one aiwiki page."""

    notes: tuple[tuple[str, str], ...]


#: a source note the worker reads itself (:attr:`_Job.source`)
_READ_THERE: None = None

#: a source item's result: a note, a chain page's notes, ``None`` (skipped) or why it failed
_Result = Converted | list[Converted | str] | str | None

#: a source item: ``(key, text, why it is unreadable, a chain, or :data:`_READ_THERE`)``
_Item = tuple[str, str | _Unreadable | _Chain | None]


@attrs.frozen
class _Done:
    """One source item converted: its key, the result, the secrets found on the
    way (redacted or refused) and the process that found them."""

    key: str
    result: _Result
    found: tuple[Finding, ...] = ()
    pid: int = 0


def _convert_job(job: _Job, item: _Item) -> _Done:
    """Convert one source item (in a worker when ``jobs > 1``), with the secrets found."""
    from ..redaction import collect

    with collect() as found:
        key, result = _convert_one(job, item)
    return _Done(key, result, tuple(found), os.getpid())


def _convert_one(job: _Job, item: _Item) -> tuple[str, _Result]:
    key, text = item
    if text is None:  # _READ_THERE
        try:
            text = job.source.read_text(key)
        except SessionKitError as exc:
            return key, str(exc)
        # (without the target, a stand-in holding only its redaction policy)
        policy_of = job.target if job.target is not None else SimpleNamespace(redaction=job.policy)
        text = _redacted_source(policy_of, job.source, key, text)
    key, result = _convert_item(job, (key, text))
    if isinstance(result, list):
        notes: list[Converted | str] = list(result)
        return key, notes if job.target is None else [_checked(job.target, n) for n in notes]
    if job.target is None or not isinstance(result, Converted):
        return key, result
    return key, _checked(job.target, result)


def _checked(target: Store, result: Converted | str) -> Converted | str:
    """:func:`_without_secrets`, with its digest; or why it cannot be written."""
    if isinstance(result, str):
        return result
    try:
        done = _without_secrets(target, result)
    except SessionKitError as exc:
        return str(exc)
    return done if done is result else attrs.evolve(done, sha=_sha(done.pieces))


def _convert_item(
    job: _Job, item: tuple[str, str | _Unreadable | _Chain]
) -> tuple[str, Converted | list[Converted] | str | None]:
    """Convert one source note ``(key, text)``."""
    key, text = item
    if isinstance(text, _Unreadable):
        return key, text.message
    if isinstance(text, _Chain):
        try:
            result = convert_chain(text.notes)
        except SessionKitError as exc:
            return key, str(exc.with_path(exc.path or key))
        return key, attrs.evolve(result, sha=_sha(result.pieces))
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
        if job.src == "aiwiki" and job.dst == BASIC_MEMORY:
            notes = chain_notes(doc)
            if notes is not None:
                return key, [attrs.evolve(n, sha=_sha(n.pieces)) for n in notes]
        result = convert_doc(
            doc, job.src, job.dst, project=job.project, folder=job.folder, today=job.today
        )
        return key, attrs.evolve(result, sha=_sha(result.pieces))
    except SessionKitError as exc:
        return key, str(exc.with_path(key))


def _run_jobs(job: _Job, items: Iterable[_Item], jobs: int | None) -> Iterator[_Done]:
    """``_convert_job`` over ``items`` in order, streaming (results come as chunks finish)."""
    import functools

    from ._parallel import ordered_map

    one = functools.partial(_convert_job, job)
    # (chunks sent ahead: the workers keep converting while this process writes a group)
    ahead = max(3, -(-2 * _READ_BATCH // _CHUNK))
    if jobs is None:  # every core, for runs big enough to pay for a pool
        return ordered_map(one, items, jobs=None, chunk_size=_CHUNK, in_flight=ahead)
    if jobs <= 1:
        return map(one, items)
    return ordered_map(
        one, items, jobs=jobs, chunk_size=_CHUNK, min_parallel=2 * jobs, in_flight=ahead
    )


#: a group of converted notes is written once it holds this many characters (big notes soon)
_GROUP_CHARS = 1 << 20

#: source notes per task sent to a worker
_CHUNK = 32

#: source notes per :meth:`Store.read_many` call, and the largest group of notes written at once
_READ_BATCH = 256


def _sources(source: Store, keys: Sequence[str]) -> Iterator[tuple[str, str | _Unreadable]]:
    """``(key, text)`` of every source note, read a batch at a time as the
    conversion asks for them (so the workers start on the first batch and the
    texts are not all held at once); an unreadable note comes with why."""
    for start in range(0, len(keys), _READ_BATCH):
        for key, text in source.read_many(keys[start : start + _READ_BATCH]):
            yield key, _Unreadable(str(text)) if isinstance(text, SessionKitError) else text


def _with_chains(
    items: Iterable[tuple[str, str | _Unreadable]], sizes: dict[str, int]
) -> Iterator[tuple[str, str | _Unreadable | _Chain]]:
    """Basic Memory source notes with each chain of checkpoints (one agent session, linked by
    ``continues``: :func:`~sessionkit.adapters.coding_session.chains`) as one :class:`_Chain`
    item."""
    from ..adapters.coding_session import chains, may_chain

    held: dict[str, str] = {}
    for key, text in items:
        if isinstance(text, str) and may_chain(text):
            held[key] = text
        else:
            yield key, text
    if not held:
        return
    chain_of = {member: chain for chain in chains(held, minimum=1) for member in chain}
    for key, text in held.items():
        chain = chain_of.get(key)
        if chain is None:
            yield key, text
        elif chain[0] not in sizes:
            sizes[chain[0]] = len(chain)
            yield chain[0], _Chain(tuple((k, held[k]) for k in chain))


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
    list_notes: bool = True,
) -> ConversionReport:
    """Convert every session note of ``src`` into ``dst``.

    Args:
        src: a store, or a path/URL :func:`~sessionkit.open_store` opens.
        dst: the target store (created on first write).
        to: target format (``basic-memory`` or ``aiwiki-v2``); by default the
            other family than the source's (or the target store's, when given a store).
        dry_run: compute everything, write nothing.
        progress: called as ``progress(done, total, source_key)`` after each source
            note, in source order (``total``: the notes listed, unreadable ones too);
            Basic Memory ``coding_session`` checkpoints come last, a chain of them
            at once (``done`` counts every note of it).
        force: overwrite target notes edited by hand (or not written by the converter).
        jobs: worker processes for the conversion itself (``None``: the number
            of cores, in process for fewer than 64 notes; 1: in process).
        project: Basic Memory project name (the ``project`` key and the
            permalink prefix of notes that have none); by default the target
            store's project (``bm://NAME``) or its folder name.
        from_: source format; by default the source store's.
        storage_options: fsspec options for stores given as URLs.
        list_notes: list each note's key in the report (``created``, ``updated``,
            ``unchanged``, ``carried``, ``skipped``); with ``False`` those lists
            stay empty and only :attr:`ConversionReport.counts` counts them, so the
            run's memory does not grow with the number of notes (conflicts and
            failures are always listed).

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
    source = _open(src, from_, options, must_exist=True)
    src_family = note_family(from_) if from_ else _store_family(source)
    if to is None and not isinstance(dst, Store):
        to = AIWIKI if src_family == BASIC_MEMORY else BASIC_MEMORY
    target = _open(dst, to, options)
    dst_family = _target_family(to) if to else _store_family(target)
    if dst_family == src_family:
        other = "aiwiki" if src_family == BASIC_MEMORY else BASIC_MEMORY
        asked = "the target is to hold them too" if to else f"{target.url} holds them too"
        raise UnsupportedFormatError(
            f"{source.url} holds {src_family} notes and {asked}: convert turns one format "
            f"into the other, here into {other}",
            option="to",
        )
    refuse_overlap(source, target)
    to_name = AIWIKI if dst_family == "aiwiki" else BASIC_MEMORY
    report = ConversionReport(
        source=str(source.url), target=str(target.url), to=to_name, dry_run=dry_run
    )
    folder = str(getattr(target if dst_family == BASIC_MEMORY else source, "folder", "sessions"))
    if dst_family != BASIC_MEMORY and source.layout != "basic-memory":
        folder = "sessions"
    if dst_family == BASIC_MEMORY and project is None:
        from ..backends.basic_memory import project_name

        project = project_name(target)
    local_target = _notes_folder(target) is not None
    reads_there = src_family == "aiwiki" and _notes_folder(source) is not None
    job = _Job(
        src=src_family,
        dst=dst_family,
        project=project,
        folder=folder,
        today=today_utc(),
        target=target if local_target else None,  # (a local store pickles cheaply)
        source=source if reads_there else None,
        policy=getattr(target, "redaction", None),
    )
    from ..redaction import collect, relay

    with collect() as secrets:  # every write of this run is made in this process
        keys = source.keys()
        record = _record(target)
        manifest = record.read(fold=not dry_run) if record is not None else {}
        existing = set(target.keys())
        seen: dict[bytes, str] = {}  # each target key's mark -> its source
        total = len(keys)
        items: Iterable[_Item]
        sizes: dict[str, int] = {}  # a chain's item key -> how many source notes it is
        if reads_there:  # each worker reads (and redacts) its own notes
            items = ((key, _READ_THERE) for key in keys)
        else:
            items = _redacted_sources(target, source, _sources(source, keys))
            if src_family == BASIC_MEMORY and dst_family != BASIC_MEMORY:
                items = _with_chains(items, sizes)
        run = _Run(target, report, record, manifest, existing, seen, dry_run, force)
        run.checked = job.target is not None
        run.list_notes = list_notes
        here = os.getpid()
        # (a worker's key string is let go for this process's own, in key order)
        own = iter(keys) if reads_there else None
        log = getattr(target, "redactions", None)
        done = 0
        last: str | None = None  # the source key placed last (a chain page's notes share one)

        def placed_all(group: Sequence[tuple[str, Converted | str | None]]) -> None:
            nonlocal done, last
            for placed in run.group(group):
                if placed == last:
                    continue
                last = placed
                done += sizes.get(placed, 1)
                if progress is not None:
                    progress(done, total, placed)

        group: list[tuple[str, Converted | str | None]] = []
        # groups grow 8, 16, 32 … up to the read batch: the first notes land soon
        size = min(8, _READ_BATCH)
        held = 0  # characters of the group's converted notes
        for item in _run_jobs(job, items, jobs):
            if item.found and item.pid != here:  # found in a worker: as if found here
                if isinstance(log, list):
                    log.extend(item.found)
                relay(item.found)
            key, result = item.key, item.result
            if own is not None:
                key = next(own)
                assert key == item.key
            results = result if isinstance(result, list) else [result]
            group.extend((key, one) for one in results)
            held += sum(sum(map(len, n.pieces)) for n in results if isinstance(n, Converted))
            if len(group) >= size or held >= _GROUP_CHARS:  # (big notes: not held long)
                placed_all(group)
                group = []
                held = 0
                size = min(2 * size, _READ_BATCH)
            del item, result, results  # (not held while the next note converts)
        placed_all(group)
        run.finish()
    report.redacted.extend(secrets)
    return report


def _redacted_sources(
    target: Store, source: Store, items: Iterable[tuple[str, str | _Unreadable]]
) -> Iterator[tuple[str, str | _Unreadable]]:
    """Source notes with their secrets redacted before they are converted."""
    for key, text in items:
        if isinstance(text, str):
            text = _redacted_source(target, source, key, text)
        yield key, text


def _redacted_source(target: Any, source: Store, key: str, text: str) -> str | _Unreadable:
    """A source note with its secrets redacted before it is converted."""
    from ..redaction import SecretError, guard

    path_of = getattr(source, "path_of", None)
    try:
        return guard(target, str(path_of(key)) if callable(path_of) else key, text, strict=True)
    except SecretError as exc:
        return _Unreadable(str(exc))


def _without_secrets(target: Store, result: Converted) -> Converted:
    """The note as the target may hold it: secrets redacted, or :class:`SecretError`."""
    from ..redaction import guard_pieces

    path_of = getattr(target, "path_of", None)
    path = str(path_of(result.key)) if callable(path_of) else result.key
    pieces = guard_pieces(target, path, result.pieces, strict=True)
    if pieces == result.pieces:
        return result
    return attrs.evolve(result, pieces=pieces, sha=None, was=None)


#: a journal up to this size is folded into the record when a run ends (a larger one, later)
_FOLD_LIMIT = 2 << 20


class _Run:
    """The writing side of one :func:`convert`: notes in groups, the record write-ahead."""

    def __init__(
        self,
        target: Store,
        report: ConversionReport,
        record: Any,
        manifest: dict[str, dict[str, Any]],
        existing: set[str],
        seen: dict[bytes, str],
        dry_run: bool,
        force: bool,
    ) -> None:
        self.target, self.report, self.record = target, report, record
        self.manifest, self.existing, self.seen = manifest, existing, seen
        self.dry_run, self.force = dry_run, force
        from ..backends._filestore import FileStore

        #: a built-in target: notes written in pieces, and judged by their bytes
        self.file_store: FileStore | None = target if isinstance(target, FileStore) else None
        #: record changes waiting for the next merge (confirmations)
        self.pending: dict[str, Any] = {}
        #: each target note's record entry before this run wrote ahead for it
        self._before: dict[str, dict[str, Any] | None] = {}
        #: the results come checked for secrets (:func:`_checked`, in the workers)
        self.checked = False
        #: list each note in the report (else only count it)
        self.list_notes = True

    def _add(self, what: str, key: str) -> None:
        """Count a note under ``what`` (``created``…), and list it when asked."""
        self.report.counts[what] += 1
        if self.list_notes:
            getattr(self.report, what).append(key)

    def _issue(self, kind: str, source: str, target: str | None, message: str) -> None:
        """Report a note under ``kind`` (``failures`` or ``conflicts``)."""
        getattr(self.report, kind).append(
            ConversionIssue(source=source, target=target, message=message)
        )

    def _merge(self, changes: Mapping[str, Any]) -> str | None:
        """Add changes to the record (:meth:`Record.append`: on a local disk a line of
        its journal, not a rewrite); the error message when it cannot be written."""
        if self.record is None or self.dry_run or not changes:
            return None
        try:
            self.record.append(changes)
        except SessionKitError as exc:
            return str(exc)
        return None

    def group(self, items: Sequence[tuple[str, Converted | str | None]]) -> Iterator[str]:
        """Handle one group of ``(source key, result)``; yields each source key when done."""
        from ..backends.record import WAS, IfStill

        plans: list[tuple[str, Converted, str | None]] = []  # (source, result, current sha)
        planned: list[tuple[str, Converted, str | None] | None] = []  # per item, in order
        for key, result in items:
            plan = self._decide(key, result)
            planned.append(plan)
            if plan is not None:
                plans.append(plan)
        ahead: dict[str, Any] = dict(self.pending)
        for source_key, result, now in plans:
            entry: dict[str, Any] = {
                "sha256": result.sha or _sha(result.pieces),
                "source": _recorded(source_key),
            }
            if now is not None:
                entry[WAS] = [now]
            ahead[result.key] = entry
        self.pending = {}
        problem = self._merge(ahead) if plans or ahead else None
        if problem is not None:
            self.report.record_error = problem
            for source_key, result, _ in plans:
                why = f"not written: the convert record could not be updated first ({problem})"
                self._issue("failures", source_key, result.key, why)
            yield from (k for k, _ in items)
            return
        written: set[str] = set()
        batch = getattr(self.target, "batch", None)
        try:
            with batch() if batch is not None and not self.dry_run else contextlib.nullcontext():
                written = self._write_all(plans)
        except SessionKitError as exc:  # the batch's final fsync
            self.report.record_error = str(exc)
        yield from (key for key, _ in items)  # progress, in source order
        for source_key, result, _ in plans:
            tkey = result.key
            before = self._before.pop(tkey, None)
            if tkey in written:
                done = {
                    "sha256": result.sha or _sha(result.pieces),
                    "source": _recorded(source_key),
                }
                if ahead[tkey] != done:  # (a new note's entry is already what it should be)
                    self.pending[tkey] = done
            else:  # not written: the entry goes back to what it was, unless someone
                # else has recorded theirs meanwhile (a concurrent run made that note)
                self.pending[tkey] = IfStill(ahead[tkey], before)

    def _decide(
        self, key: str, result: Converted | str | None
    ) -> tuple[str, Converted, str | None] | None:
        """Report what needs no write; return ``(source, result, current sha)`` for a write."""
        from ..backends.record import entry_accepts

        if result is None:
            self._add("skipped", key)
            return None
        if isinstance(result, str):
            self._issue("failures", key, None, result)
            return None
        if not self.checked:
            try:
                result = _without_secrets(self.target, result)
            except SessionKitError as exc:
                self._issue("failures", key, None, str(exc))
                return None
        tkey, pieces = result.key, result.pieces
        mark = _mark(tkey)
        if mark in self.seen:
            self._issue(
                "failures", key, tkey, f"maps to the same target note as {self.seen[mark]!r}"
            )
            return None
        self.seen[mark] = key
        entry = {"sha256": result.sha or _sha(pieces), "source": _recorded(key)}
        recorded = self.manifest.pop(tkey, None)  # (each target note is decided once)
        if result.carried:
            self._add("carried", tkey)
        if result.layout:
            self._add("layout", tkey)
        now: str | None = None  # the SHA-256 of the note there now
        if tkey in self.existing:
            try:
                now = self._digest(tkey)
            except NotFoundError:
                now = None
            except SessionKitError as exc:
                self._issue("failures", key, tkey, f"not written: {exc}")
                return None
        if now is None:
            if self.dry_run:
                self._add("created", tkey)
                return None
            self._before[tkey] = recorded
            return key, result, None
        if now == entry["sha256"]:  # (the same bytes: the same text)
            self._add("unchanged", tkey)
            if recorded != entry:
                self.pending[tkey] = entry
            return None
        # a note still as the source was made from it takes the edit; one edited by hand, not
        if not entry_accepts(recorded, now) and now != result.was and not self.force:
            why = (
                "edited by hand since the last conversion"
                if recorded
                else "exists and was not written by sessionkit convert"
            )
            self._issue("conflicts", key, tkey, f"{tkey}: {why}")
            return None
        if self.dry_run:
            self._add("updated", tkey)
            return None
        self._before[tkey] = recorded
        return key, result, now

    def _write_all(self, plans: Sequence[tuple[str, Converted, str | None]]) -> set[str]:
        """Write a group's planned notes (new ones together, then the updates together: on a local
        disk their flushes overlap); report each, in the group's order; the target keys written."""
        creates = [n for n, plan in enumerate(plans) if plan[2] is None]
        updates = [n for n, plan in enumerate(plans) if plan[2] is not None]
        outcome: dict[int, SessionKitError | bool | None] = {}
        if creates:
            made = self.target.write_texts(
                [(plans[n][1].key, self._payload(plans[n][1])) for n in creates], create=True
            )
            outcome.update(zip(creates, made, strict=True))
        if updates:
            by_key = {plans[n][1].key: plans[n] for n in updates}
            took: dict[str, bool] = {}

            def edit(tkey: str, current: str | None) -> str | None:
                _, result, now = by_key[tkey]
                took[tkey] = current is not None and _sha(current) == now
                return result.text if took[tkey] else None

            def edit_encoded(tkey: str, current: bytes | None) -> tuple[str, ...] | None:
                _, result, now = by_key[tkey]
                took[tkey] = current is not None and hashlib.sha256(current).hexdigest() == now
                return result.pieces if took[tkey] else None

            keys = [plans[n][1].key for n in updates]
            store = self.file_store
            got: Sequence[object] = (
                store.update_encoded(keys, edit_encoded)
                if store is not None
                else self.target.update_texts(keys, edit)
            )
            for n, value in zip(updates, got, strict=True):
                tkey = plans[n][1].key
                outcome[n] = value if isinstance(value, SessionKitError) else took.get(tkey, False)
        written: set[str] = set()
        for n, (source_key, result, now) in enumerate(plans):
            if self._report_write(source_key, result, now, outcome[n]):
                written.add(result.key)
        return written

    def _report_write(
        self,
        source_key: str,
        result: Converted,
        now: str | None,
        outcome: SessionKitError | bool | None,
    ) -> bool:
        """Report one planned note's write (``outcome``: ``None`` a new note
        written, ``True``/``False`` an update made or found changed meanwhile, or
        the error); whether the note now holds what was converted."""
        tkey = result.key
        if outcome is None:
            self._add("created", tkey)
            return True
        if outcome is True:
            self._add("updated", tkey)
            return True
        if outcome is False:
            why = f"{tkey}: changed by someone else while converting"
            self._issue("conflicts", source_key, tkey, why)
            return False
        if isinstance(outcome, ConflictError):
            if now is None and self._same(tkey, result.sha or _sha(result.pieces)):
                self._add("unchanged", tkey)
                return True
            self._issue("conflicts", source_key, tkey, str(outcome))
            return False
        self._issue("failures", source_key, tkey, f"not written: {outcome}")
        return False

    def _same(self, tkey: str, sha: str) -> bool:
        """Whether the target note ``tkey`` is there with the SHA-256 ``sha``
        (another run made the same note)."""
        try:
            return self._digest(tkey) == sha
        except SessionKitError:
            return False

    def _digest(self, tkey: str) -> str:
        """The SHA-256 of the target note's text, from its bytes in the built-in stores (checked to
        be UTF-8 a block at a time: a big note is never held as a string)."""
        store = self.file_store
        if store is None:
            return _sha(self.target.read_text(tkey))
        data = store.read_bytes(tkey)
        check_utf8(data, tkey)
        return hashlib.sha256(data).hexdigest()

    def _payload(self, result: Converted) -> Any:
        """What the target writes for ``result``: its text in pieces for the built-in
        stores (written without joining them), else the text."""
        return result.pieces if self.file_store is not None else result.text

    def finish(self) -> None:
        """Add the last confirmations to the record, and fold its journal into it
        unless that is large (then the next run that reads the record folds it)."""
        problem = self._merge(self.pending)
        if problem is not None:
            self.report.record_error = problem
        self.pending = {}
        self.manifest = {}
        if self.record is not None and not self.dry_run:
            with contextlib.suppress(SessionKitError):  # (the journal keeps it all meanwhile)
                self.record.fold(limit=_FOLD_LIMIT)
