"""Reading notes: ``lint``, ``show``, ``ls`` and ``index``."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import click

from .._lint_cmd import local_items, report
from ..errors import SessionKitError
from ..text.grammar import DATE
from .base import (
    FINDINGS,
    OK,
    Failure,
    exit_with,
    format_option,
    given,
    is_url,
    jobs_option,
    json_option,
    local,
    note_shown,
    one_line,
    open_store,
    parse_since,
    plural,
    say,
    state,
    storage_option,
    store_options,
)

# -- lint ---------------------------------------------------------------------------------


def _lint_targets(paths: Sequence[str], **store: Any) -> Iterator[Any]:
    """A lint work item (:data:`sessionkit.ops.lint.LintItem`) for every note, lazily; a note
    inside a wiki carries the wiki's own schema page (a broken one stops the run, exit 2)."""
    from ..ops.lint import WikiSchemas

    schemas = WikiSchemas()
    for target in paths:
        if not is_url(target):
            yield from local_items(target, schemas)
            continue
        opened = open_store(target, **store, must_exist=True)
        own = schemas.for_store(opened)
        for key, text in read_in_batches(opened):
            shown = note_shown(target, opened, key)
            if isinstance(text, SessionKitError):  # unreadable: a finding, as ls says it
                yield ("error", shown, (text.message, text.line))
            elif isinstance(text, BaseException):
                yield ("error", shown, (one_line(str(text)), None))
            else:
                yield ("data", shown, text.encode("utf-8"), own)


@click.command()
@click.argument("paths", nargs=-1, metavar="[PATH]...")
@json_option("Print a JSON list of findings.")
@click.option(
    "--fix", is_flag=True, help="Redact secrets, fill missing @sha7 in citations from git, first."
)
@jobs_option
@store_options
def lint(paths: tuple[str, ...], as_json: bool, fix: bool, jobs: int | None, **store: Any) -> None:
    """Check notes against their format's schema.

    PATH is a note, a folder (every *.md under its aiwiki/sessions, else under
    it) or a store URL; none means the configured store (exit 2 when there is
    none).  Prints one line per finding, `path:line: CODE severity: message`,
    as notes are linted.  Exits 1 when a finding is an error.  A wiki's own
    aiwiki/schemas/session.md replaces the built-in schema for its notes (a
    broken one: exit 2).
    """
    from .. import redaction

    config = state().config
    targets = list(paths)
    if not targets:  # the configured store, when there is one (never a repository's docs)
        from ..errors import NotFoundError

        try:
            open_store(None, **store, must_exist=True)
        except NotFoundError as exc:
            raise Failure(
                f"{one_line(exc.cli_text())}; to lint notes elsewhere, run `sessionkit lint PATH`"
            ) from None
        targets = [given(None)]
    redaction.LINT_ALLOW = config.secrets.allow_values()
    if fix:
        _fix(targets)
    items = _lint_targets(targets, **store)
    exit_with(FINDINGS if report(items, config.limits.max_note_bytes, jobs, as_json) else OK)


def _fix(targets: Sequence[str]) -> None:
    """Redact secrets in the local notes among ``targets`` (AW020, BM007), then fill
    missing ``@sha7`` citations in the aiwiki ones."""
    from .._api import decode, read_document
    from .._atomic import write_atomic
    from ..adapters import detect_format
    from ..config import repository_root
    from ..ops.lint import notes_under
    from ..ops.sha_fill import fill_shas
    from ..redaction import redact

    allow = state().config.secrets.allow_values()
    for target in targets:
        if is_url(target):
            raise Failure(f"{target}: lint --fix works on local files and folders only")
        top = Path(local(target))
        # (none behind a link leading outside the folder: --fix writes none)
        for note in map(Path, notes_under(top)) if top.is_dir() else [top]:
            path = str(note)
            if note.is_symlink():  # replacing it would turn the link into a copy
                say(f"sessionkit: {path}: a symlink, not fixed", err=True)
                continue
            try:
                text = decode(note.read_bytes(), path)
            except SessionKitError:
                continue  # lint reports it
            done = redact(text, allow=allow, path=path)  # only the secrets' bytes change
            if done.findings:
                write_atomic(note, done.text)
                for found in done.findings:
                    say(f"sessionkit: {found}: redacted", err=True)
            try:
                doc = read_document(done.text, path)
                if not detect_format(doc).startswith("aiwiki"):
                    continue
            except SessionKitError:
                continue  # lint reports it
            fixed = fill_shas(doc, repository_root(note.parent))
            if fixed.text != doc.text:
                write_atomic(note, fixed.text)
                say(f"sessionkit: {path}: filled missing @sha7", err=True)


# -- show ---------------------------------------------------------------------------------


def _read_note(target: str, storage_option: Sequence[str], limit: int) -> bytes:
    if not is_url(target):  # (a FIFO or a device is refused, never waited on or read)
        from .._safe_read import NotRegular, open_note, read_open
        from ..ops.lint import outside_wiki

        away = outside_wiki(local(target))  # (a note of a wiki: the store's root rule)
        if away is not None:
            raise Failure(
                f"{target}: refused: it resolves to {away[0]}, outside the store {away[1]}"
            )
        try:
            fd = open_note(local(target))
        except NotRegular as exc:
            raise Failure(
                f"{target}: cannot read it: it is {exc.kind}, not a regular file"
            ) from None
        try:
            return read_open(fd, limit)
        finally:
            os.close(fd)
    import fsspec

    from .._lint_cmd import failure_text
    from ..backends._storage import bound_retries, install_hint, remote_options, split_url
    from ..config import storage_options_for
    from .base import parse_option

    options = storage_options_for(state().config, target)
    options.update(parse_option(item) for item in storage_option)
    protocol = split_url(target)[0]
    own = {k: options.pop(k) for k in ("connect_timeout", "read_timeout") if k in options}
    try:
        fs, path = fsspec.url_to_fs(target, **remote_options(protocol, options, **own))
        bound_retries(fs)
    except ImportError as exc:  # the protocol's package is not installed
        from ..errors import MissingDependencyError

        protocol = protocol or "file"
        raise MissingDependencyError(
            f"{target}: reading {protocol}:// needs a package that is not installed "
            f"({exc}); {install_hint(protocol)}"
        ) from None
    try:
        return bytes(fs.cat_file(path))
    except FileNotFoundError:
        raise Failure(f"{target}: no such note") from None
    except OSError as exc:  # (the store and what its server answered)
        raise Failure(f"{target}: cannot read: {failure_text(exc)}") from None


def _summary(session: Any, path: str) -> str:
    from ..model import DirectiveState

    fmt = session.origin.format if session.origin is not None else "?"
    out = [f"{path}  ({fmt})"]

    def row(label: str, value: Any) -> None:
        if value not in (None, "", ()):
            out.append(f"  {label + ':':<14}{value}")

    for label in ("id", "status", "title", "focus", "started", "ended", "last commit", "project"):
        row(label, getattr(session, label.replace(" ", "_")))
    if session.checkpoints:
        unconsumed = DirectiveState.UNCONSUMED
        n = sum(d.state is unconsumed for cp in session.checkpoints for d in cp.directives)
        out.append(
            f"  checkpoints:  {len(session.checkpoints)} ({n} unconsumed {plural(n, 'directive')})"
        )
        for cp in session.checkpoints:
            out.append(f"    - {cp.event} at {cp.at}")
            for d in cp.directives:
                done = "unconsumed" if d.state is unconsumed else f"consumed at {d.consumed_at}"
                action = f": {d.action}" if d.action else ""
                out.append(f"        {d.kind} directive ({done}){action}")
    for label, items in (
        ("files touched", [c.render() for c in session.files_touched]),
        ("decisions", session.decisions),
        ("gotchas", session.gotchas),
        ("questions", session.questions),
        ("next steps", session.next_steps),
        ("context", session.context),
    ):
        if items:
            out.append(f"  {label}:")
            out.extend(f"    - {item}" for item in items)
    if session.tags:
        row("tags", ", ".join(session.tags))
    if session.observations:
        row("observations", len(session.observations))
    if session.sections:
        row("other sections", ", ".join(s.title for s in session.sections))
    return "\n".join(out)


@click.command()
@click.argument("path")
@json_option("Print the session as JSON.")
@storage_option("fsspec storage option for a URL (repeatable).")
@format_option
def show(path: str, as_json: bool, storage_option: tuple[str, ...], fmt: str | None) -> None:
    """Summarise one note (a file or an fsspec URL); --json prints the model.

    The note's format is detected (--format names it).
    """
    from .._api import decode, loads

    limit = state().config.limits.max_note_bytes
    data = _read_note(path, storage_option, limit)
    if len(data) > limit:
        raise Failure(f"{path}: note is over the limit of {limit} bytes")
    session = loads(decode(data, path), path=path, format=fmt, max_bytes=limit)
    if not as_json:
        click.echo(_summary(session, path))
    elif sys.stdout is not None:  # (closed: nobody to tell, as click.echo does)
        from ..serialize import write_json

        write_json(session, sys.stdout)


# -- ls -----------------------------------------------------------------------------------


def _ls_one(
    item: tuple[str, str | None, str | None, str, int],
) -> tuple[dict[str, Any] | None, str | None]:
    """(row, None) for a note that reads, (None, message) for one that does not."""
    from .._api import listed

    key, text, problem, shown, limit = item
    if text is None:
        return None, problem
    try:
        fields = listed(text, path=shown, max_bytes=limit)
    except SessionKitError as exc:
        return None, one_line(exc.cli_text())
    m = DATE.search(fields["started"] or "") or DATE.search(key)
    if not key.isprintable():  # (a name that is not UTF-8, or holds a newline: escaped)
        from .._names import shown as escaped

        key = escaped(key)
    date = m.group(0) if m else None
    row = {"key": key, "date": date, **{k: fields[k] for k in ("id", "status", "focus", "title")}}
    return row, None


#: notes read per ``read_many`` call by ls and lint (concurrent on remote stores)
_READ_BATCH = 256


def read_in_batches(store: Any) -> Iterator[tuple[str, Any]]:
    """``store.read_many`` over every key, a batch at a time (never every note at once);
    a remote store of more than one batch shows its progress on a terminal's stderr."""
    keys = store.keys()
    storage = getattr(store, "storage", None)
    remote = storage is not None and type(storage).__name__ != "LocalStorage"
    tty = sys.stderr is not None and sys.stderr.isatty()
    shown = remote and tty and len(keys) > _READ_BATCH
    for start in range(0, len(keys), _READ_BATCH):
        if shown:
            where = f"\rsessionkit: reading {store.url}: {start}/{len(keys)} notes"
            click.echo(where, err=True, nl=False)
        yield from store.read_many(keys[start : start + _READ_BATCH])
    if shown:
        click.echo(f"\rsessionkit: read {store.url}: {len(keys)} notes" + " " * 8, err=True)


def _ls_items(
    store: Any, given: str, limit: int
) -> Iterator[tuple[str, str | None, str | None, str, int]]:
    """(key, text or None, why not, the note as shown, the size limit) for every note."""
    for key, text in read_in_batches(store):
        shown = note_shown(given, store, key)
        if isinstance(text, SessionKitError):
            text.path = shown  # (the store named it by its key)
            yield key, None, one_line(text.cli_text()), shown, limit
        elif isinstance(text, BaseException):
            yield key, None, one_line(f"{shown}: {text}"), shown, limit
        else:
            yield key, text, None, shown, limit


def _listed_rows(
    store: Any, root: str | None, jobs: int | None
) -> Iterator[tuple[dict[str, Any] | None, str | None]]:
    """``ls``'s (row, problem) for every note, in key order, read over ``jobs`` processes."""
    from ..ops._parallel import ordered_map

    limit = state().config.limits.max_note_bytes
    return ordered_map(_ls_one, _ls_items(store, given(root), limit), jobs=jobs)


class _Spool:
    """ls's output lines sorted on disk, not in memory: the lines that come in order (each
    sort key at least the last one's) in one temporary file and their sort keys in
    another; those that come late in a third, only their sort keys and places held
    (one bytes object each), merged in on the way out."""

    def __init__(self) -> None:
        import tempfile

        files = (tempfile.TemporaryFile() for _ in range(3))  # noqa: SIM115 (closed by __exit__)
        self.file, self.keys, self.late = files
        self.last = b""
        self.index: list[bytes] = []  # a late line's sort key, then b"offset length"

    def __enter__(self) -> _Spool:
        return self

    def __exit__(self, *exc: object) -> None:
        for file in (self.file, self.keys, self.late):
            file.close()

    def add(self, sort_key: list[str], line: str) -> None:
        data = line.encode("utf-8", "surrogateescape")
        # each part ends in NUL (in no name): UTF-8 keeps the code points' order, NUL the list's
        key = "".join(f"{part}\0" for part in sort_key).encode("utf-8", "surrogatepass")
        if key >= self.last:
            self.last = key
            self.file.write(data)
            self.keys.write(b"%d %d\n%s" % (len(key), len(data), key))
        else:
            self.index.append(key + b"%d %d" % (self.late.tell(), len(data)))
            self.late.write(data)

    def lines(self) -> Iterator[bytes]:
        """The lines' bytes in sorted order (blocks of them when none came late)."""
        self.file.seek(0)
        if not self.index:
            while chunk := self.file.read(1 << 16):
                yield chunk
            return
        import heapq

        self.index.sort()
        self.keys.seek(0)
        ordered = (self._in_order(head) for head in iter(self.keys.readline, b""))
        for key, length in heapq.merge(ordered, ((entry, -1) for entry in self.index)):
            if length >= 0:
                yield self.file.read(length)
                continue
            at, size = map(int, key.rpartition(b"\0")[2].split())
            self.late.seek(at)
            yield self.late.read(size)

    def _in_order(self, head: bytes) -> tuple[bytes, int]:
        size, length = map(int, head.split())
        return self.keys.read(size), length


@click.command(name="ls")
@click.argument("root", required=False)
@click.option(
    "--status",
    type=click.Choice(["active", "done", "abandoned"]),
    help="Only sessions with this status.",
)
@click.option("--since", metavar="DATE|Nd", help="Only sessions started on or after (3d, 2w).")
@json_option("Print a JSON list.")
@jobs_option
@store_options
def ls_(
    root: str | None,
    status: str | None,
    since: str | None,
    as_json: bool,
    jobs: int | None,
    **store: Any,
) -> None:
    """List the sessions of a store (default: the configured store), oldest first.

    Notes that cannot be read are reported on stderr and make the exit code 1.
    """
    from .base import json_text

    since_date = parse_since(since) if since else None
    opened = open_store(root, **store, must_exist=True)
    with _Spool() as spool:  # (the rows sorted, oldest first, held on disk: memory stays flat)
        bad = 0
        for row, problem in _listed_rows(opened, root, jobs):
            if row is None:
                say(f"sessionkit: {problem}", err=True)
                bad += 1
                continue
            if status and row["status"] != status:
                continue
            if since_date and (row["date"] is None or row["date"] < since_date):
                continue
            if as_json:  # each row as json.dumps(rows, indent=2) prints a list element
                line = ",\n  " + json_text(row).replace("\n", "\n  ")
            else:
                label = row["focus"] or row["title"] or ""
                ident = (row["id"] or "")[:7] or "-"
                date = row["date"] or "-"
                line = f"{date:<10}  {ident:<7}  {row['status']:<9}  {row['key']}  {label}\n"
            spool.add([row["date"] or "", row["key"]], line)
        sys.stdout.flush()
        binary = sys.stdout.buffer
        first = True
        for data in spool.lines():
            binary.write(b"[\n" + data[2:] if as_json and first else data)  # (no comma first)
            first = False
        if as_json:
            binary.write(b"[]\n" if first else b"\n]\n")
        binary.flush()
    exit_with(FINDINGS if bad else OK)


# -- index --------------------------------------------------------------------------------


@click.command()
@click.argument("root", required=False)
@store_options
def index(root: str | None, **store: Any) -> None:
    """Regenerate the store's index page (aiwiki: aiwiki/sessions/INDEX.md).

    ROOT defaults to the configured store.  Notes that cannot be read are
    reported on stderr, as ls reports them, and make the exit code 1.
    """
    opened = open_store(root, **store, must_exist=True)
    bad = 0
    for _, problem in _listed_rows(opened, root, None):
        if problem is not None:
            say(f"sessionkit: {problem}", err=True)
            bad += 1
    write_index = getattr(opened, "write_index", None)
    if not callable(write_index):
        raise Failure(f"{opened.url}: a {opened.layout} store has no index to regenerate")
    left_out: list[tuple[str, str]] = []
    write_index(left_out)
    from .._names import shown

    for key, why in left_out:
        click.echo(f"sessionkit: {shown(key)}: left out of the index: {why}", err=True)
    count = len(opened.keys()) - len(left_out)
    say(f"{opened.url}: index regenerated ({count} {plural(count, 'note')})")
    exit_with(FINDINGS if bad or left_out else OK)


COMMANDS = [lint, show, ls_, index]
