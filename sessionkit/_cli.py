"""The click commands behind ``sessionkit`` (imported only off the hook path).

Thin by rule: each command parses options, calls library functions and
prints.  Errors from the library (:class:`~sessionkit.errors.SessionKitError`)
and the operating system (:class:`OSError`) become one line on stderr with
exit code 2.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, NoReturn, TypeVar

import click

from . import __version__
from ._lint_cmd import _is_url, _local, _one_line, _shown, failure_text, local_items, report
from ._lint_cmd import _silence_stdout as _silence_stdout
from .config import (
    Config,
    config_file,
    describe,
    effective_store_url,
    find_project_file,
    format_config,
    load_config,
    set_value,
    storage_options_for,
    user_config_path,
)
from .errors import SessionKitError

__all__ = ["cli", "run"]

F = TypeVar("F", bound=Callable[..., Any])

#: exit codes
OK, FINDINGS, UNUSABLE = 0, 1, 2


# -- errors -----------------------------------------------------------------------


def _scrub_data(data: Any) -> Any:
    from .redaction import scrub_data

    return scrub_data(data)


def _say(message: Any = None, **kwargs: Any) -> None:
    """``click.echo`` of a message or report, its secrets' values replaced by their kind
    (``redaction.scrub``): what a command says quotes a user's value only through it."""
    from .redaction import scrub

    click.echo(None if message is None else scrub(str(message)), **kwargs)


class Failure(click.ClickException):
    """Unusable input: printed as one ``sessionkit: ...`` line, exit code 2."""

    exit_code = UNUSABLE

    def show(self, file: Any = None) -> None:
        """Print the one line on stderr."""
        _say(f"sessionkit: {self.message}", err=True)


def _failure(exc: BaseException) -> Failure:
    return Failure(failure_text(exc))


class _Group(click.Group):
    """A group that turns library and OS errors into one-line failures."""

    def make_context(self, *args: Any, **kwargs: Any) -> click.Context:
        try:
            return super().make_context(*args, **kwargs)
        except click.ClickException as exc:  # (a usage error may quote an argument)
            _scrubbed(exc)
            raise

    def invoke(self, ctx: click.Context) -> Any:
        if ctx.parent is None:  # the root group: report the secrets redacted on the way
            from .redaction import collect

            with collect() as found:
                try:
                    return self._invoke(ctx)
                finally:
                    _report_secrets(found)
        return self._invoke(ctx)

    def _invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except click.ClickException as exc:
            _scrubbed(exc)
            raise
        except (click.exceptions.Exit, click.Abort):
            raise
        except BrokenPipeError:
            raise
        except (SessionKitError, OSError) as exc:
            raise _failure(exc) from None
        except Exception as exc:
            if os.environ.get("SESSIONKIT_DEBUG"):
                raise
            raise _failure(exc) from None


def _scrubbed(exc: click.ClickException) -> None:
    """A usage error's message with the secrets it quotes replaced by their kind."""
    from .redaction import scrub

    exc.__dict__["message"] = scrub(exc.message)  # (typed Final: an instance attribute)


def _report_secrets(found: Sequence[Any]) -> None:
    """One stderr line per secret the stores redacted (or wrote as is, under ``warn``)."""
    if not found:
        return
    done = [f for f in found if f.redacted]
    kept = [f for f in found if not f.redacted]
    if done:
        _say(f"sessionkit: redacted {len(done)} secret(s) before writing:", err=True)
        for f in done:
            _say(f"  {f.path}:{f.line}: {f.kind} -> [REDACTED:{f.kind}]", err=True)
    if kept:
        _say(
            f"sessionkit: warning: wrote {len(kept)} secret(s) in clear (secrets.redact = warn):",
            err=True,
        )
        for f in kept:
            _say(f"  {f.path}:{f.line}: {f.kind}", err=True)


def _exit(code: int) -> NoReturn:
    raise click.exceptions.Exit(code)


# -- shared options ------------------------------------------------------------------


def _parse_option(item: str) -> tuple[str, Any]:
    name, sep, raw = item.partition("=")
    if not sep or not name.strip():
        raise click.BadParameter(f"{item!r} is not KEY=VALUE", param_hint="--storage-option")
    import tomllib

    try:
        value = tomllib.loads(f"v = {raw}")["v"]
    except tomllib.TOMLDecodeError:
        value = raw
    if not isinstance(value, str | int | float | bool):
        value = raw
    return name.strip(), value


def _one_of(
    ctx: click.Context, param: click.Parameter, value: str, names: list[str], what: str
) -> str:
    """``value`` when it is one of ``names``, else a usage error naming them."""
    if value not in names:
        raise click.BadParameter(
            f"{value!r} is not a {what}; choose from {', '.join(names)}", ctx=ctx, param=param
        )
    return value


def _check_format(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """``--format NAME``: a registered format (plugins included), else a usage error."""
    if value is None:
        return None
    from .adapters import available_formats

    return _one_of(ctx, param, value, list(available_formats()), "format")


def _check_layout(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """``--layout NAME``: aiwiki or basic-memory (or a registered backend's layout)."""
    if value is None or value in ("aiwiki", "basic-memory"):
        return value
    from .backends import available_backends

    return _one_of(ctx, param, value, list(available_backends()), "layout")


_format_option = click.option(
    "--format",
    "fmt",
    metavar="NAME",
    callback=_check_format,
    help="Note format (aiwiki-v1, aiwiki-v2, basic-memory; default: detected).",
)


def _store_options(func: F) -> F:
    """``--layout``, ``--format`` and ``--storage-option KEY=VALUE`` (repeatable)."""
    func = click.option(
        "--storage-option",
        "-o",
        "storage_option",
        multiple=True,
        metavar="KEY=VALUE",
        help="fsspec storage option (repeatable); VALUE is a TOML literal or a string.",
    )(func)
    func = _format_option(func)
    func = click.option(
        "--layout",
        metavar="NAME",
        callback=_check_layout,
        help="Store layout (aiwiki, basic-memory).",
    )(func)
    return func


class _State:
    """Per-invocation state: the start directory and the (lazily loaded) config."""

    def __init__(self, directory: str | None) -> None:
        self.directory = directory
        self._config: Config | None = None

    @property
    def config(self) -> Config:
        if self._config is None:
            self._config = load_config(self.directory)
        return self._config


def _user_path(target: str) -> str:
    """A store path the user typed, as the stores should take it.

    A path argument is the user's choice, as in git: a file URL is its local
    path (:func:`_local`), and a relative path is taken against the working
    directory (``-C DIR`` has made that DIR) wherever it leads, ``..``
    included.  Only what is inside a store (keys, links, configured values)
    must stay inside its root.  URLs are left as they are.
    """
    if _is_url(target):
        return target
    local = _local(target)
    if local and not os.path.isabs(local):
        from .backends._storage import local_path
        from .errors import PathSafetyError

        try:
            local_path(local)
        except PathSafetyError:  # (it leads out of the working directory: the user said so)
            return os.path.abspath(local)
    return local if target.startswith("file:") and local.startswith("/") else target


def _state() -> _State:
    obj = click.get_current_context().find_object(_State)
    return obj if obj is not None else _State(None)


def _open_store(
    root: str | None,
    layout: str | None,
    fmt: str | None,
    storage_option: Sequence[str],
    *,
    must_exist: bool = False,
    typed: bool = True,
) -> Any:
    """Open ``root`` (default: the configured store) with config and CLI storage options.

    ``must_exist``: a store that is not there is an error (exit 2) naming it,
    never an empty store created by reading.  ``typed``: ``root`` is a path the
    user gave (see :func:`_user_path`), not a configured value.
    """
    state = _state()
    config = state.config
    if root:
        url = _user_path(root) if typed else root
    else:
        url = effective_store_url(config, state.directory)
    options = storage_options_for(config, url)
    options.update(_parse_option(item) for item in storage_option)
    from .backends import check_store, open_store

    # what a hook kept for this store lands first (and may be what makes it exist)
    _deliver_outbox(url, layout=layout or config.layout, **options)
    store = open_store(url, layout=layout or config.layout, format=fmt or config.format, **options)
    # (named as the user gave it: `../w: no such folder`)
    check_store(store, root if root and typed else None, must_exist=must_exist)
    if hasattr(store, "redaction"):
        from .redaction import Policy

        store.redaction = Policy.from_config(config)
    return store


def _deliver_outbox(url: str, layout: str | None = None, **options: Any) -> None:
    """Deliver the checkpoints a hook kept in the outbox for this store, first (one line
    on stderr); nothing on a dry run or a run that only shows (``--yes`` not given)."""
    from .ops import outbox

    identity = outbox.store_identity(url)
    if not outbox.pending(identity):
        return
    ctx = click.get_current_context(silent=True)
    params = ctx.params if ctx is not None else {}
    if params.get("dry_run") or params.get("yes") is False:
        return
    try:
        from .backends import open_store

        kept = next((e for _, e in outbox.entries(identity) if e is not None), None) or {}
        store = open_store(url, layout=layout or kept.get("layout"), **options)
        if hasattr(store, "redaction"):
            from .redaction import Policy

            store.redaction = Policy.from_config(_state().config)
        done = outbox.deliver(store, identity, project=kept.get("project"))
    except (SessionKitError, OSError) as exc:
        click.echo(f"sessionkit: the outbox for {identity} waits: {_one_line(str(exc))}", err=True)
        return
    for path, why in done.failed:
        click.echo(f"sessionkit: the outbox entry {path} waits: {_one_line(str(why))}", err=True)
    if done.count:
        n = done.count
        click.echo(
            f"sessionkit: delivered {n} checkpoint{'s' * (n != 1)} from the outbox", err=True
        )


# -- the group -------------------------------------------------------------------------


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="sessionkit")
@click.option(
    "-C",
    "directory",
    metavar="DIR",
    type=click.Path(file_okay=False),
    help="Run as if started in DIR (as git -C): paths, .sessionkit.toml and the repository "
    "root are found from DIR.",
)
@click.pass_context
def cli(ctx: click.Context, directory: str | None) -> None:
    """Read, lint, edit, migrate and convert AI coding-agent session handoff notes.

    Works on aiwiki session pages (aiwiki/sessions/*.md, schema v1 and v2)
    and Basic Memory session notes, in a folder or on any fsspec URL
    (s3://, gs://, memory://, bm://PROJECT), without changing a byte nobody
    edited.  A command without a store uses the configured one
    (.sessionkit.toml, see `sessionkit config show`), else the repository.

    Exit codes: 0 ok, 1 findings of error severity, 2 unusable input or usage.
    Run `sessionkit COMMAND --help` for a command's options.
    """
    if directory is not None:  # as git -C: run as if started in DIR (restored after)
        previous = os.getcwd()
        os.chdir(directory)
        ctx.call_on_close(lambda: os.chdir(previous))
        directory = os.getcwd()
    ctx.obj = _State(directory)


# -- lint ---------------------------------------------------------------------------------


def _notes_under(folder: Path) -> list[Path]:
    """Every ``*.md`` note under ``folder/aiwiki/sessions`` (or ``folder``), INDEX.md
    excluded, none behind a link leading outside ``folder`` (lint --fix writes none)."""
    from .ops.lint import notes_under

    return [Path(note) for note in notes_under(folder)]


def _lint_targets(
    paths: Sequence[str], layout: str | None, fmt: str | None, storage_option: Sequence[str]
) -> Iterator[Any]:
    """A lint work item (see :data:`sessionkit.ops.lint.LintItem`) for every note, lazily.

    A note inside a wiki carries the wiki's own schema page, when it has one
    (read once per wiki; a broken one stops the run, exit 2).
    """
    from .ops.lint import WikiSchemas

    schemas = WikiSchemas()
    for target in paths:
        if _is_url(target):
            store = _open_store(target, layout, fmt, storage_option, must_exist=True)
            own = schemas.for_store(store)
            for key, text in _read_in_batches(store):
                shown = _note_shown(target, store, key)
                if isinstance(text, SessionKitError):  # unreadable: a finding, as ls says it
                    yield ("error", shown, (text.message, text.line))
                elif isinstance(text, BaseException):
                    yield ("error", shown, (_one_line(str(text)), None))
                else:
                    yield ("data", shown, text.encode("utf-8"), own)
            continue
        yield from local_items(target, schemas)


#: ``--jobs N``, shared by the bulk commands (lint, ls, migrate, convert)
_jobs_option = click.option(
    "--jobs",
    "-j",
    type=click.IntRange(min=1),
    metavar="N",
    help="Worker processes (default: the number of cores); output is the same for any N.",
)


@cli.command()
@click.argument("paths", nargs=-1, metavar="[PATH]...")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list of findings.")
@click.option(
    "--fix", is_flag=True, help="Redact secrets, fill missing @sha7 in citations from git, first."
)
@_jobs_option
@_store_options
def lint(
    paths: tuple[str, ...],
    as_json: bool,
    fix: bool,
    jobs: int | None,
    layout: str | None,
    fmt: str | None,
    storage_option: tuple[str, ...],
) -> None:
    """Check notes against their format's schema.

    PATH is a note, a folder (every *.md under its aiwiki/sessions, else under
    it) or a store URL; none means the configured store (exit 2 when there is
    none).  Prints one line per finding, `path:line: CODE severity: message`,
    as notes are linted.  Exits 1 when a finding is an error.  A wiki's own
    aiwiki/schemas/session.md replaces the built-in schema for its notes (a
    broken one: exit 2).
    """
    from . import redaction

    config = _state().config
    targets = list(paths)
    if not targets:  # the configured store, when there is one (never a repository's docs)
        from .errors import NotFoundError

        try:
            _open_store(None, layout, fmt, storage_option, must_exist=True)
        except NotFoundError as exc:
            raise Failure(
                f"{_one_line(exc.cli_text())}; to lint notes elsewhere, run `sessionkit lint PATH`"
            ) from None
        targets = [_shown(effective_store_url(config, _state().directory))]
    limit = config.limits.max_note_bytes
    redaction.LINT_ALLOW = config.secrets.allow_values()
    if fix:
        _fix(targets)
    items = _lint_targets(targets, layout, fmt, storage_option)
    _exit(FINDINGS if report(items, limit, jobs, as_json) else OK)


def _fix(targets: Sequence[str]) -> None:
    """Redact secrets in the local notes among ``targets`` (AW020, BM007), then fill
    missing ``@sha7`` citations in the aiwiki ones."""
    import importlib

    from ._api import decode, read_document
    from ._atomic import write_atomic
    from .adapters import detect_format
    from .config import repository_root
    from .redaction import redact

    allow = _state().config.secrets.allow_values()
    try:
        fill_shas = importlib.import_module("sessionkit.ops.sha_fill").fill_shas
    except (ImportError, AttributeError):
        raise Failure("lint --fix is not available (sessionkit.ops.sha_fill is missing)") from None
    for target in targets:
        if _is_url(target):
            raise Failure(f"{target}: lint --fix works on local files and folders only")
        local = Path(_local(target))
        for note in _notes_under(local) if local.is_dir() else [local]:
            path = str(note)
            if note.is_symlink():  # replacing it would turn the link into a copy
                _say(f"sessionkit: {path}: a symlink, not fixed", err=True)
                continue
            try:
                text = decode(note.read_bytes(), path)
            except SessionKitError:
                continue  # lint reports it
            done = redact(text, allow=allow, path=path)  # only the secrets' bytes change
            if done.findings:
                write_atomic(note, done.text)
                for found in done.findings:
                    _say(f"sessionkit: {found}: redacted", err=True)
            try:
                doc = read_document(done.text, path)
                if not detect_format(doc).startswith("aiwiki"):
                    continue
            except SessionKitError:
                continue  # lint reports it
            fixed = fill_shas(doc, repository_root(note.parent))
            if fixed.text != doc.text:
                write_atomic(note, fixed.text)
                _say(f"sessionkit: {path}: filled missing @sha7", err=True)


# -- show ---------------------------------------------------------------------------------


def _read_note(target: str, storage_option: Sequence[str], limit: int) -> bytes:
    if not _is_url(target):  # (a FIFO or a device is refused, never waited on or read)
        from ._safe_read import NotRegular, open_note, read_open
        from .ops.lint import outside_wiki

        away = outside_wiki(_local(target))  # (a note of a wiki: the store's root rule)
        if away is not None:
            real, root = away
            raise Failure(f"{target}: refused: it resolves to {real}, outside the store {root}")
        try:
            fd = open_note(_local(target))
        except NotRegular as exc:
            why = f"it is {exc.kind}, not a regular file"
            raise Failure(f"{target}: cannot read it: {why}") from None
        try:
            return read_open(fd, limit)
        finally:
            os.close(fd)
    import fsspec

    config = _state().config
    options = storage_options_for(config, target)
    options.update(_parse_option(item) for item in storage_option)
    from .backends._storage import bound_retries, remote_options, split_url

    own = {k: options.pop(k) for k in ("connect_timeout", "read_timeout") if k in options}
    options = remote_options(split_url(target)[0], options, **own)
    try:
        fs, path = fsspec.url_to_fs(target, **options)
        bound_retries(fs)
    except ImportError as exc:  # the protocol's package is not installed
        from .backends._storage import install_hint, split_url
        from .errors import MissingDependencyError

        protocol = split_url(target)[0] or "file"
        raise MissingDependencyError(
            f"{target}: reading {protocol}:// needs a package that is not installed "
            f"({exc}); {install_hint(protocol)}"
        ) from None
    try:
        data = fs.cat_file(path)
    except FileNotFoundError:
        raise Failure(f"{target}: no such note") from None
    except OSError as exc:  # (the store and what its server answered)
        raise Failure(f"{target}: cannot read: {failure_text(exc)}") from None
    return bytes(data)


def _summary(session: Any, path: str) -> str:
    from .model import DirectiveState

    fmt = session.origin.format if session.origin is not None else "?"
    out = [f"{path}  ({fmt})"]

    def row(label: str, value: Any) -> None:
        if value not in (None, "", ()):
            out.append(f"  {label + ':':<14}{value}")

    row("id", session.id)
    row("status", session.status)
    row("title", session.title)
    row("focus", session.focus)
    row("started", session.started)
    row("ended", session.ended)
    row("last commit", session.last_commit)
    row("project", session.project)
    if session.checkpoints:
        open_count = sum(
            1
            for cp in session.checkpoints
            for d in cp.directives
            if d.state is DirectiveState.UNCONSUMED
        )
        out.append(
            f"  checkpoints:  {len(session.checkpoints)} "
            f"({open_count} unconsumed {_plural(open_count, 'directive')})"
        )
        for cp in session.checkpoints:
            out.append(f"    - {cp.event} at {cp.at}")
            for d in cp.directives:
                state = (
                    "unconsumed"
                    if d.state is DirectiveState.UNCONSUMED
                    else f"consumed at {d.consumed_at}"
                )
                action = f": {d.action}" if d.action else ""
                out.append(f"        {d.kind} directive ({state}){action}")
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


@cli.command()
@click.argument("path")
@click.option("--json", "as_json", is_flag=True, help="Print the session as JSON.")
@click.option(
    "--storage-option",
    "-o",
    "storage_option",
    multiple=True,
    metavar="KEY=VALUE",
    help="fsspec storage option for a URL (repeatable).",
)
@_format_option
def show(path: str, as_json: bool, storage_option: tuple[str, ...], fmt: str | None) -> None:
    """Summarise one note (a file or an fsspec URL); --json prints the model.

    The note's format is detected (--format names it).
    """
    from ._api import decode, loads

    limit = _state().config.limits.max_note_bytes
    data = _read_note(path, storage_option, limit)
    if len(data) > limit:
        raise Failure(f"{path}: note is over the limit of {limit} bytes")
    session = loads(decode(data, path), path=path, format=fmt, max_bytes=limit)
    if as_json:
        from .serialize import write_json

        if sys.stdout is not None:  # (closed: nobody to tell, as click.echo does)
            write_json(session, sys.stdout)
    else:
        click.echo(_summary(session, path))


# -- ls -----------------------------------------------------------------------------------

_DATE = re.compile(r"(\d{4}-\d{2}-\d{2})")
_AGO = re.compile(r"^(\d+)([dw])$")


def parse_since(value: str, today: dt.date | None = None) -> str:
    """``YYYY-MM-DD`` or ``Nd`` / ``Nw`` (days or weeks ago) -> an ISO date."""
    today = today or dt.datetime.now(dt.UTC).date()
    m = _AGO.match(value.strip())
    if m:
        days = int(m.group(1)) * (7 if m.group(2) == "w" else 1)
        return (today - dt.timedelta(days=days)).isoformat()
    try:
        return dt.date.fromisoformat(value.strip()).isoformat()
    except ValueError:
        raise click.BadParameter(
            f"{value!r} is not a date (YYYY-MM-DD) or an age like 3d or 2w", param_hint="--since"
        ) from None


def _row(key: str, fields: dict[str, str | None]) -> dict[str, Any]:
    m = _DATE.search(fields["started"] or "") or _DATE.search(key)
    if not key.isprintable():  # (a name that is not UTF-8, or holds a newline: escaped)
        from ._names import shown

        key = shown(key)
    return {
        "key": key,
        "date": m.group(1) if m else None,
        "id": fields["id"],
        "status": fields["status"],
        "focus": fields["focus"],
        "title": fields["title"],
    }


def _note_shown(given: str, store: Any, key: str) -> str:
    """A note as messages name it, the same in every command: the store as the user
    gave it (``w``, ``s3://b/x``) joined with the note's path in the store."""
    from ._names import shown

    folder = str(getattr(store, "folder", "") or "")
    try:
        path_of = getattr(store, "path_of", None)
        rel = path_of(key) if callable(path_of) else key
    except SessionKitError:  # a name the store refuses (CON.md, surrounding blanks): as it is
        rel = f"{folder}/{shown(key)}" if folder else shown(key)
    if _is_url(given):
        return f"{given.rstrip('/')}/{rel}"
    from .ops.lint import spelled

    return spelled(os.path.join(given, rel))


def _ls_one(
    item: tuple[str, str | None, str | None, str, int],
) -> tuple[dict[str, Any] | None, str | None]:
    """(row, None) for a note that reads, (None, message) for one that does not."""
    from ._api import listed

    key, text, problem, shown, limit = item
    if text is None:
        return None, problem
    try:
        fields = listed(text, path=shown, max_bytes=limit)
    except SessionKitError as exc:
        return None, _one_line(exc.cli_text())
    return _row(key, fields), None


#: notes read per ``read_many`` call by ls and lint (concurrent on remote stores)
_READ_BATCH = 256


def _read_in_batches(store: Any) -> Iterator[tuple[str, Any]]:
    """``store.read_many`` over every key, :data:`_READ_BATCH` keys at a time.

    Only a batch of texts is held at once, not every note of the store.  Reading a
    remote store of more than one batch shows its progress on stderr when that is a
    terminal (a slow endpoint is then seen to be slow, not hung).
    """
    keys = store.keys()
    storage = getattr(store, "storage", None)
    remote = storage is not None and type(storage).__name__ != "LocalStorage"
    tty = sys.stderr is not None and sys.stderr.isatty()
    shown = remote and tty and len(keys) > _READ_BATCH
    for start in range(0, len(keys), _READ_BATCH):
        if shown:
            click.echo(
                f"\rsessionkit: reading {store.url}: {start}/{len(keys)} notes", err=True, nl=False
            )
        yield from store.read_many(keys[start : start + _READ_BATCH])
    if shown:
        click.echo(f"\rsessionkit: read {store.url}: {len(keys)} notes" + " " * 8, err=True)


def _ls_items(
    store: Any, given: str, limit: int
) -> Iterator[tuple[str, str | None, str | None, str, int]]:
    """(key, text or None, why not, the note as shown, the size limit) for every note."""
    for key, text in _read_in_batches(store):
        shown = _note_shown(given, store, key)
        if isinstance(text, SessionKitError):
            text.path = shown  # (the store named it by its key)
            yield key, None, _one_line(text.cli_text()), shown, limit
        elif isinstance(text, BaseException):
            yield key, None, _one_line(f"{shown}: {text}"), shown, limit
        else:
            yield key, text, None, shown, limit


def _given(root: str | None) -> str:
    """The store as messages name it: ROOT as typed, else the configured store."""
    if root:
        return root
    state = _state()
    return _shown(effective_store_url(state.config, state.directory))


def _listed_rows(
    store: Any, root: str | None, jobs: int | None
) -> Iterator[tuple[dict[str, Any] | None, str | None]]:
    """``ls``'s (row, problem) for every note, in key order, read over ``jobs`` processes
    within ``limits.max_note_bytes``."""
    from .ops._parallel import ordered_map

    limit = _state().config.limits.max_note_bytes
    return ordered_map(_ls_one, _ls_items(store, _given(root), limit), jobs=jobs)


class _Spool:
    """ls's output lines in sorted order, without holding them all in memory.

    Lines go to a temporary file as they come, and their sort keys and
    lengths to a second one.  When they came in order (the usual case: keys
    are listed sorted and most start with their date) the file is copied out
    as it is; otherwise the keys are read back, sorted in memory (stable),
    and the lines read in that order.
    """

    def __init__(self) -> None:
        import contextlib
        import tempfile

        self._files = contextlib.ExitStack()  # closed by __exit__
        self.file = self._files.enter_context(tempfile.TemporaryFile())  # noqa: SIM115
        self.keys = self._files.enter_context(tempfile.TemporaryFile())  # noqa: SIM115
        self.last: list[str] | None = None
        self.ordered = True

    def __enter__(self) -> _Spool:
        return self

    def __exit__(self, *exc: object) -> None:
        self._files.close()

    def add(self, sort_key: list[str], line: str) -> None:
        """Add one output line with its sort key."""
        data = line.encode("utf-8", "surrogateescape")
        if self.last is not None and sort_key < self.last:
            self.ordered = False
        self.last = sort_key
        self.file.write(data)
        self.keys.write(json.dumps([*sort_key, len(data)]).encode() + b"\n")

    def lines(self) -> Iterator[bytes]:
        """The lines' bytes in sorted order (blocks of them when they came in order)."""
        self.file.seek(0)
        if self.ordered:
            while chunk := self.file.read(1 << 16):
                yield chunk
            return
        self.keys.seek(0)
        index, at = [], 0
        for raw in self.keys:
            *sort_key, length = json.loads(raw)
            index.append((sort_key, at, length))
            at += length
        index.sort(key=lambda entry: entry[0])
        for _, at, length in index:
            self.file.seek(at)
            yield self.file.read(length)


@cli.command(name="ls")
@click.argument("root", required=False)
@click.option(
    "--status",
    type=click.Choice(["active", "done", "abandoned"]),
    help="Only sessions with this status.",
)
@click.option("--since", metavar="DATE|Nd", help="Only sessions started on or after (3d, 2w).")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list.")
@_jobs_option
@_store_options
def ls_(
    root: str | None,
    status: str | None,
    since: str | None,
    as_json: bool,
    jobs: int | None,
    layout: str | None,
    fmt: str | None,
    storage_option: tuple[str, ...],
) -> None:
    """List the sessions of a store (default: the configured store), oldest first.

    Notes that cannot be read are reported on stderr and make the exit code 1.
    """
    since_date = parse_since(since) if since else None
    store = _open_store(root, layout, fmt, storage_option, must_exist=True)
    # (the rows sorted, oldest first, held on disk: memory stays flat)
    with _Spool() as spool:
        bad = 0
        for row, problem in _listed_rows(store, root, jobs):
            if row is None:
                _say(f"sessionkit: {problem}", err=True)
                bad += 1
                continue
            if status and row["status"] != status:
                continue
            if since_date and (row["date"] is None or row["date"] < since_date):
                continue
            if as_json:  # each row as json.dumps(rows, indent=2) prints a list element
                line = ",\n  " + json.dumps(_scrub_data(row), indent=2, ensure_ascii=False).replace(
                    "\n", "\n  "
                )
            else:
                label = row["focus"] or row["title"] or ""
                ident = (row["id"] or "")[:7] or "-"
                date = row["date"] or "-"
                line = f"{date:<10}  {ident:<7}  {row['status']:<9}  {row['key']}  {label}\n"
            spool.add([row["date"] or "", row["key"]], line)
        out = sys.stdout
        out.flush()
        binary = out.buffer
        first = True
        for data in spool.lines():
            if as_json and first:
                data = b"[\n" + data[2:]  # the first element: no comma before it
            binary.write(data)
            first = False
        if as_json:
            binary.write(b"[]\n" if first else b"\n]\n")
        binary.flush()
    _exit(FINDINGS if bad else OK)


# -- index --------------------------------------------------------------------------------


def _regenerate_index(store: Any) -> int:
    """Regenerate the index; the number of notes left out of it (each reported)."""
    method = getattr(store, "write_index", None)
    if not callable(method):
        raise Failure(f"{store.url}: a {store.layout} store has no index to regenerate")
    left_out: list[tuple[str, str]] = []
    method(left_out)
    from ._names import shown

    for key, why in left_out:
        click.echo(f"sessionkit: {shown(key)}: left out of the index: {why}", err=True)
    return len(left_out)


@cli.command()
@click.argument("root", required=False)
@_store_options
def index(
    root: str | None, layout: str | None, fmt: str | None, storage_option: tuple[str, ...]
) -> None:
    """Regenerate the store's index page (aiwiki: aiwiki/sessions/INDEX.md).

    ROOT defaults to the configured store.  Notes that cannot be read are
    reported on stderr, as ls reports them, and make the exit code 1.
    """
    store = _open_store(root, layout, fmt, storage_option, must_exist=True)
    bad = 0
    for _, problem in _listed_rows(store, root, None):
        if problem is not None:
            _say(f"sessionkit: {problem}", err=True)
            bad += 1
    left_out = _regenerate_index(store)
    count = len(store.keys()) - left_out
    _say(f"{store.url}: index regenerated ({count} {_plural(count, 'note')})")
    _exit(FINDINGS if bad or left_out else OK)


def _plural(count: int, word: str) -> str:
    """``word`` for one, ``word`` + s for any other count."""
    return word if count == 1 else f"{word}s"


# -- config -------------------------------------------------------------------------------


@cli.group(cls=_Group)
def config() -> None:
    """Show and edit the configuration (.sessionkit.toml, the user file)."""


@config.command(name="show")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list of values and sources.")
def config_show(as_json: bool) -> None:
    """Print every effective value and where it came from (secrets masked)."""
    cfg = _state().config
    if as_json:
        click.echo(json.dumps(describe(cfg), indent=2, ensure_ascii=False))
    else:
        click.echo(format_config(cfg), nl=False)


@config.command(name="set")
@click.argument("key")
@click.argument("value")
@click.option("--project", is_flag=True, help="The project file (the default).")
@click.option("--user", is_flag=True, help="The user file.")
def config_set(key: str, value: str, project: bool, user: bool) -> None:
    """Set KEY to VALUE in .sessionkit.toml (default) or the user file.

    The value is checked against the key's type and range first (a refused
    value writes nothing).  Only the key's line changes, or one line is added;
    comments and order are kept.  Secret-looking keys are refused:
    credentials belong to fsspec and the cloud SDKs.
    """
    if project and user:
        raise click.UsageError("--project and --user exclude each other: name one file")
    scope = "user" if user else "project"
    written = set_value(key, value, scope=scope, start_dir=_state().directory)
    click.echo(f"{written}: {key} set")


@config.command(name="path")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON object.")
def config_path(as_json: bool) -> None:
    """Print the project and user configuration files (and whether they exist)."""
    directory = _state().directory
    found = find_project_file(directory)
    project = found if found is not None else config_file("project", directory)
    user = user_config_path()
    if as_json:
        click.echo(
            json.dumps(
                {
                    "project": {"path": str(project), "exists": project.is_file()},
                    "user": {"path": str(user), "exists": user.is_file()},
                },
                indent=2,
            )
        )
        return
    for label, path in (("project", project), ("user", user)):
        click.echo(f"{label}: {path}{'' if path.is_file() else '  (absent)'}")


# -- session lifecycle (directive, add, status, prune, install-hooks) ------------------------


def _lifecycle() -> Any:
    import importlib

    return importlib.import_module("sessionkit.ops.lifecycle")


def _report_json(report: Any, label: str = "REDACTED") -> str:
    import attrs

    from .redaction import scrub_data

    data = scrub_data(attrs.asdict(report), label=label)
    return json.dumps(data, indent=2, ensure_ascii=False, default=str)


def _hook_store(
    store: str | None, layout: str | None, fmt: str | None, storage_option: Sequence[str]
) -> Any:
    """The store the hooks write to (``--store``, else ``hooks.store``, else the default).

    The commands using it edit notes that exist, so the store must be there.
    """
    from .config import hook_store_url

    state = _state()
    if store:
        return _open_store(store, layout, fmt, storage_option, must_exist=True)
    url = hook_store_url(state.config, state.directory)
    return _open_store(url, layout, fmt, storage_option, must_exist=True, typed=False)


def _page_store(
    page: str | None,
    store: str | None,
    layout: str | None,
    fmt: str | None,
    storage_option: Sequence[str],
) -> tuple[Any, str | None]:
    """(store, note) for PAGE: a note file on disk opens the store around it."""
    if page and page.endswith(".md") and not _is_url(page) and Path(_local(page)).is_file():
        full = Path(_local(page)).resolve()
        parts = full.parts
        for i in range(len(parts) - 2, 0, -1):
            if parts[i] == "aiwiki" and i + 1 < len(parts) and parts[i + 1] == "sessions":
                root = str(Path(*parts[:i]))
                key = "/".join(parts[i + 2 :])
                return _open_store(root, layout or "aiwiki", fmt, storage_option), key
        if full.parent.name == "sessions":
            root = str(full.parent.parent)
            return _open_store(root, layout or "basic-memory", fmt, storage_option), full.name
        raise Failure(f"{page}: not under aiwiki/sessions/ or a Basic Memory sessions/ folder")
    return _hook_store(store, layout, fmt, storage_option), page


_STORE_HELP = "Store path or URL (default: the hooks' store: hooks.store, else the configured one)."


@cli.group(cls=_Group)
def directive() -> None:
    """Act on checkpoint directives (Dream directives written by pre-compact)."""


@directive.command(name="consume")
@click.argument("page", required=False)
@click.option("--all", "all_", is_flag=True, help="Consume every unconsumed directive.")
@click.option("--index", type=click.IntRange(min=1), metavar="N", help="Consume directive N.")
@click.option("--store", metavar="URL", help=_STORE_HELP)
@click.option("--json", "as_json", is_flag=True, help="Print a JSON report.")
@_store_options
def directive_consume(
    page: str | None,
    all_: bool,
    index: int | None,
    store: str | None,
    as_json: bool,
    layout: str | None,
    fmt: str | None,
    storage_option: tuple[str, ...],
) -> None:
    """Flip unconsumed directives to (consumed at <UTC ISO>).

    PAGE is a note file, a key or a session id (default: the latest note).
    Without --all or --index the newest unconsumed directive is consumed;
    N is the number `sessionkit hook session-start` shows.
    """
    if all_ and index is not None:
        raise click.UsageError("give --all or --index, not both")
    target, key = _page_store(page, store, layout, fmt, storage_option)
    report = _lifecycle().consume_directives(target, key, index=index, all=all_)
    if as_json:
        _say(_report_json(report))
        return
    if not report.consumed:
        _say(f"{report.key}: no unconsumed directive to consume")
        return
    for d in report.consumed:
        _say(f"{report.key}: [{d.index}] {d.kind} directive consumed at {report.at}")
    if report.remaining:
        left = report.remaining
        _say(f"{report.key}: {left} unconsumed {_plural(left, 'directive')} left")


@cli.command(name="context")
@click.option("--store", metavar="URL", help=_STORE_HELP)
@click.option(
    "--source",
    type=click.Choice(["startup", "resume", "clear", "compact"]),
    default="startup",
    show_default=True,
    help="The SessionStart source to render for (compact adds the latest checkpoint).",
)
@click.option(
    "--budget",
    type=click.IntRange(min=0),
    metavar="N",
    help="Most the text may measure (0: no limit; default hooks.context_budget).",
)
@click.option(
    "--unit",
    type=click.Choice(["chars", "tokens"]),
    help="Unit of the budget (default hooks.context_unit).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the rendering and its sizes as JSON.")
@_store_options
def context_(
    store: str | None,
    source: str,
    budget: int | None,
    unit: str | None,
    as_json: bool,
    layout: str | None,
    fmt: str | None,
    storage_option: tuple[str, ...],
) -> None:
    """Print the session-start context the hook injects (within the same budget).

    The text a `sessionkit hook session-start` gives the agent, so another
    tool (Codex, Cursor, a script) can reuse it. Prints nothing when the
    store has no note.
    """
    import shlex

    from .context import check_budget, for_store

    hooks = _state().config.hooks
    unit = unit or hooks.context_unit
    budget = hooks.context_budget if budget is None else budget
    problem = check_budget(budget, unit)
    if problem is not None:
        raise click.BadParameter(problem, param_hint="--budget")
    target = _hook_store(store, layout, fmt, storage_option)
    program = _lifecycle().hook_program()[0]  # (what an agent's shell can run: no venv there)
    rest = f"{program} context --budget 0"
    if store:
        rest += f" --store {shlex.quote(store)}"
    if source == "compact":
        rest += " --source compact"
    limit = _state().config.limits.max_note_bytes
    rendered = for_store(
        target,
        source=source,
        budget=budget,
        unit=unit,
        rest=rest,
        max_bytes=limit,
        program=program,
    )
    if as_json:
        click.echo(json.dumps(None if rendered is None else rendered.to_dict(), ensure_ascii=False))
    elif rendered is not None:
        click.echo(rendered.text)


def _is_dash_text(arg: str) -> bool:
    """A word that starts with '-' but cannot be an option: ``- [ ] item``, ``-> x``, ``-1``."""
    return len(arg) > 1 and arg[0] == "-" and not (arg[1].isalpha() or arg[1] == "-")


class _TextCommand(click.Command):
    """A command whose trailing TEXT may hold words that start with '-' (``- [ ] item``).

    From the first such word on, the words that are not this command's options
    are TEXT, as if they followed ``--``; an unknown option's error says how to
    pass text that looks like one.
    """

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if "--" not in args:
            args = self._text_last(args)
        try:
            return super().parse_args(ctx, args)
        except click.NoSuchOption as exc:
            hint = f"text that starts with '-' goes after --: {ctx.command_path} KIND -- TEXT"
            raise click.UsageError(f"{exc.format_message()} ({hint})", ctx=ctx) from None

    def _text_last(self, args: list[str]) -> list[str]:
        takes: dict[str, int] = {}  # option -> how many values follow it
        for param in self.params:
            if isinstance(param, click.Option):
                values = 0 if param.is_flag or param.count else param.nargs
                takes.update(dict.fromkeys([*param.opts, *param.secondary_opts], values))
        head: list[str] = []
        text: list[str] = []
        i = 0
        while i < len(args):
            arg = args[i]
            name = arg.split("=", 1)[0]
            if name in takes:
                n = 0 if "=" in arg else takes[name]
                head.extend(args[i : i + 1 + n])
                i += 1 + n
                continue
            (text if text or _is_dash_text(arg) else head).append(arg)
            i += 1
        return [*head, "--", *text] if text else args


@cli.command(name="add", cls=_TextCommand)
@click.argument("kind", type=click.Choice(["next-step", "decision", "gotcha", "question", "file"]))
@click.argument("text", nargs=-1, required=True)
@click.option("--session", metavar="ID", help="Note key, session id or short id (default: latest).")
@click.option("--store", metavar="URL", help=_STORE_HELP)
@click.option("--json", "as_json", is_flag=True, help="Print a JSON report.")
@_store_options
def add(
    kind: str,
    text: tuple[str, ...],
    session: str | None,
    store: str | None,
    as_json: bool,
    layout: str | None,
    fmt: str | None,
    storage_option: tuple[str, ...],
) -> None:
    """Add a bullet to a session's section (a minimal edit).

    KIND picks the section: next-step, decision, gotcha, question, or file
    (TEXT is a citation path:line@sha7, path:start-end@sha7 or a path).
    """
    target = _hook_store(store, layout, fmt, storage_option)
    from .redaction import collect, scrub

    with collect() as found:
        report = _lifecycle().add_item(target, kind, " ".join(text), session=session)
    # what the note holds: each secret redacted, or (secrets.redact = warn) in clear; the
    # terminal shows its kind either way, never its value
    label = "IN CLEAR" if any(not f.redacted for f in found) else "REDACTED"
    if as_json:
        click.echo(_report_json(report, label=label))
        return
    shown = scrub(report.text, label=label)
    if report.added:
        _say(f"{report.key}: {kind} added: {shown}")
    else:
        _say(f"{report.key}: {kind} already present: {shown}")


@cli.command(name="status")
@click.argument("status", type=click.Choice(["done", "abandoned", "active"]))
@click.option("--session", metavar="ID", help="Note key, session id or short id (default: latest).")
@click.option("--store", metavar="URL", help=_STORE_HELP)
@click.option("--json", "as_json", is_flag=True, help="Print a JSON report.")
@_store_options
def status_(
    status: str,
    session: str | None,
    store: str | None,
    as_json: bool,
    layout: str | None,
    fmt: str | None,
    storage_option: tuple[str, ...],
) -> None:
    """Set a session's status; done also sets date_end (Basic Memory: ended)."""
    target = _hook_store(store, layout, fmt, storage_option)
    report = _lifecycle().set_status(target, status, session=session)
    if as_json:
        _say(_report_json(report))
        return
    ended = f", ended {report.ended}" if report.ended and status == "done" else ""
    _say(f"{report.key}: {report.old} -> {report.new}{ended}")


_AGE = re.compile(r"^(\d+)([dw]?)$")


def _days(value: str) -> int:
    m = _AGE.match(value.strip())
    if not m:
        raise click.BadParameter(
            f"{value!r} is not an age like 14d or 2w", param_hint="--abandon-after"
        )
    return int(m.group(1)) * (7 if m.group(2) == "w" else 1)


@cli.command(name="prune")
@click.argument("root", required=False)
@click.option(
    "--abandon-after",
    "abandon_after",
    required=True,
    metavar="AGE",
    help="Mark active sessions with no activity for AGE (14d, 2w) as abandoned.",
)
@click.option("--delete-abandoned", is_flag=True, help="Also delete abandoned sessions.")
@click.option("--yes", is_flag=True, help="Really delete (without it, deletions are only listed).")
@click.option("--dry-run", is_flag=True, help="Change nothing; only report.")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON report.")
@_store_options
def prune_(
    root: str | None,
    abandon_after: str,
    delete_abandoned: bool,
    yes: bool,
    dry_run: bool,
    as_json: bool,
    layout: str | None,
    fmt: str | None,
    storage_option: tuple[str, ...],
) -> None:
    """Mark stale active sessions abandoned; with --delete-abandoned --yes, delete them.

    ROOT defaults to the configured store.  Deleting is destructive, so
    --delete-abandoned without --yes is a dry run: it changes nothing and
    lists what it would mark and delete.  Exits 1 when some notes are
    unreadable (they are left alone).
    """
    target = _open_store(root, layout, fmt, storage_option, must_exist=True)
    dry_run = dry_run or (delete_abandoned and not yes)  # (nothing at all without --yes)
    report = _lifecycle().prune(
        target,
        _days(abandon_after),
        delete_abandoned=delete_abandoned,
        dry_run=dry_run,
        max_bytes=_state().config.limits.max_note_bytes,
    )
    if as_json:
        _say(_report_json(report))
    else:
        verb = "would mark" if dry_run else "marked"
        for key in report.abandoned:
            _say(f"{key}: {verb} abandoned")
        for key in report.deleted:
            _say(f"{key}: deleted")
        for key in report.would_delete:
            _say(f"{key}: would delete")
        if delete_abandoned and not yes:
            _say("sessionkit: dry run, nothing changed; add --yes to apply", err=True)
        for key in report.unreadable:
            shown = _note_shown(_given(root), target, key)
            _say(f"sessionkit: {shown}: unreadable, left alone", err=True)
    _exit(FINDINGS if report.unreadable else OK)


@cli.command(name="install-hooks")
@click.option(
    "--agent",
    "agents",
    multiple=True,
    type=click.Choice(["claude", "codex", "antigravity"]),
    help="The agent whose hooks to write (repeatable; default: claude).",
)
@click.option(
    "--project",
    "scope",
    flag_value="project",
    default=True,
    help="The repository's configuration (default): .claude/settings.json, "
    ".codex/hooks.json, .agents/hooks.json.",
)
@click.option(
    "--user",
    "scope",
    flag_value="user",
    help="Your own: ~/.claude/settings.json, ~/.codex/hooks.json, ~/.gemini/config/hooks.json.",
)
@click.option("--remove", is_flag=True, help="Take sessionkit's hook entries out.")
@click.option(
    "--mcp",
    "with_mcp",
    is_flag=True,
    help="Also register `sessionkit mcp` in the repository's .mcp.json (project scope).",
)
@click.option("--json", "as_json", is_flag=True, help="Print a JSON report.")
def install_hooks_(
    agents: tuple[str, ...], scope: str, remove: bool, with_mcp: bool, as_json: bool
) -> None:
    """Write sessionkit's hooks into each agent's own hook configuration.

    Claude Code: PreCompact, SessionStart, SessionEnd; Codex: PreCompact,
    SessionStart, Stop; Antigravity: PreCompress, SessionStart, SessionEnd.
    The command written runs this sessionkit from any shell (the installed
    script's absolute path, else `<python> -m sessionkit`), since agents run
    hooks outside your virtual environment; a warning says when that cannot be
    found.  Idempotent; every other key and hook is kept; --remove takes out
    exactly sessionkit's entries.
    """
    from .config import repository_root
    from .ops.install import agent_config_path, install_agent_hooks

    top = repository_root(_state().directory)
    if with_mcp and scope == "user":
        raise Failure(
            "--mcp registers the server per repository (.mcp.json); for every project run: "
            "claude mcp add --scope user sessionkit -- " + _lifecycle().hook_program()[0] + " mcp"
        )
    reports = [
        install_agent_hooks(agent, agent_config_path(agent, scope, top), remove=remove)
        for agent in dict.fromkeys(agents or ("claude",))
    ]
    if with_mcp:
        reports.append(_lifecycle().register_mcp_server(top / ".mcp.json", remove=remove))
    if reports[0].warning:
        click.echo(f"sessionkit: warning: {reports[0].warning}", err=True)
    if as_json:
        if len(reports) == 1:
            click.echo(_report_json(reports[0]))
        else:  # several files: a list, in the order they were written
            click.echo("[\n" + ",\n".join(_report_json(r) for r in reports) + "\n]")
        return
    for each in reports:
        if not each.changed:
            state = "not installed" if remove else "already installed"
            click.echo(f"{each.path}: unchanged ({state})")
            continue
        done = each.removed if remove else each.added
        click.echo(f"{each.path}: {'removed' if remove else 'added'} {', '.join(done)}")


# -- migrate ------------------------------------------------------------------------------


def _progress_bar(
    enabled: bool, label: str
) -> tuple[Callable[[int, int, str], None] | None, list[Any]]:
    """A ``progress(done, total, key)`` callback drawing a bar on stderr when enabled.

    Returns the callback (``None`` when disabled) and a holder whose first item,
    once drawing started, is the bar to close with ``__exit__``.
    """
    if not enabled:
        return None, []
    holder: list[Any] = []

    def progress(done: int, total: int, key: str) -> None:
        if not holder:
            bar = click.progressbar(length=total, label=label, file=sys.stderr)
            bar.__enter__()
            holder[:] = [bar, 0]
        bar, shown = holder
        bar.update(done - shown)
        holder[1] = done

    return progress, holder


@cli.command(name="migrate")
@click.argument("root")
@click.option(
    "--to",
    "to",
    type=click.Choice(["aiwiki-v2", "aiwiki-v1"]),
    default="aiwiki-v2",
    show_default=True,
    help="Target schema version.",
)
@click.option("--dry-run", is_flag=True, help="Print the unified diff; write nothing.")
@click.option(
    "--backup",
    metavar="DIR",
    type=click.Path(file_okay=False),
    help="Copy each original to DIR (same relative path) before replacing it.",
)
@click.option("--json", "as_json", is_flag=True, help="Print a JSON report.")
@_jobs_option
@click.option(
    "--storage-option",
    "-o",
    "storage_option",
    multiple=True,
    metavar="KEY=VALUE",
    help="fsspec storage option (repeatable); VALUE is a TOML literal or a string.",
)
def migrate_(
    root: str,
    to: str,
    dry_run: bool,
    backup: str | None,
    as_json: bool,
    jobs: int | None,
    storage_option: tuple[str, ...],
) -> None:
    """Migrate every aiwiki session page under ROOT between schema versions.

    Each page changes only in the frontmatter lines the schema names
    (schema_version, session_id: ~) and is replaced atomically; pages already
    at the target are left alone, so a rerun finishes an interrupted run.
    Exit 0 when every page is at the target afterwards, 1 when some failed
    (each is reported as path:line: reason and left untouched), 2 when ROOT
    is unusable.
    """
    from .ops.migrate import migrate

    if not _is_url(root) and not os.path.isdir(_user_path(root)):
        if os.path.exists(_user_path(root)):
            raise Failure(
                f"{root}: is a file; migrate takes a wiki folder (the one holding aiwiki/)"
            )
        raise Failure(f"{root}: no such folder")
    store = _open_store(root, "aiwiki", None, storage_option)
    progress, holder = _progress_bar(sys.stderr.isatty() and not as_json, "migrating")
    try:
        report = migrate(
            store,
            to=to,
            dry_run=dry_run,
            backup=backup,
            progress=progress,
            jobs=jobs,
            list_pages=as_json,  # (the summary needs only the counts and the failures)
        )
    finally:
        if holder:
            holder[0].__exit__(None, None, None)
    if backup is not None and not dry_run and report.counts()["migrated"]:
        _say(
            f"sessionkit: the originals, secrets included, are kept in {backup} (--backup)",
            err=True,
        )
    if as_json:
        _say(json.dumps(_scrub_data(report.to_dict()), indent=2, ensure_ascii=False))
        _exit(OK if report.ok else FINDINGS)
    base = str(getattr(getattr(store, "storage", None), "url", store.url)).rstrip("/")
    for diff in report.diffs:
        _say(diff, nl=False)
    for item in report.failed:
        from ._names import shown

        where = f"{base}/{shown(item.path)}" + (f":{item.line}" if item.line is not None else "")
        _say(f"{where}: error: {item.reason}", err=True)
    counts = report.counts()
    verb = "would migrate" if dry_run else "migrated"
    _say(  # (the summary on stderr, as the docs say; stdout holds diffs and --json)
        f"{base}: {verb} {counts['migrated']}, already current {counts['current']}, "
        f"failed {counts['failed']} (to {to})",
        err=True,
    )
    _exit(OK if report.ok else FINDINGS)


# -- convert -------------------------------------------------------------------------------


_CONVERT_FORMATS = ["aiwiki", "aiwiki-v1", "aiwiki-v2", "basic-memory"]
#: convert writes aiwiki v2 pages (v1: convert, then ``migrate --to aiwiki-v1``)
_CONVERT_TARGETS = ["aiwiki", "aiwiki-v2", "basic-memory"]


#: options sessionkit's own stores take, local ones included (the rest are fsspec's)
_OWN_OPTIONS = ("single_writer", "lock_timeout", "max_attempts")


def _is_local_store(target: str) -> bool:
    """A plain path, ``file://``, ``local://`` or ``bm://`` (a local Basic Memory project)."""
    protocol = target.split("://", 1)[0].lower() if "://" in target else None
    return protocol in (None, "file", "local", "bm")


def _side_options(target: str, shared: Sequence[str], own: Sequence[str]) -> list[str]:
    """The ``KEY=VALUE`` options for one side of a two-store command.

    ``own`` (``--src-option`` / ``--dst-option``) are that side's; the
    shared ``-o`` ones go to every side that takes them: all of them to a
    remote store, only sessionkit's own (``lock_timeout``...) to a local one.
    """
    if _is_local_store(target):
        shared = [item for item in shared if item.partition("=")[0].strip() in _OWN_OPTIONS]
    return [*shared, *own]


def _convert_store(
    target: str, fmt: str | None, storage_option: Sequence[str], *, must_exist: bool = False
) -> Any:
    layout = None
    if fmt is not None:
        layout = "basic-memory" if fmt == "basic-memory" else "aiwiki"
    return _open_store(target, layout, None, storage_option, must_exist=must_exist)


@cli.command(name="convert")
@click.argument("src")
@click.argument("dst")
@click.option("--from", "from_", type=click.Choice(_CONVERT_FORMATS), help="Source format.")
@click.option(
    "--to",
    "to",
    type=click.Choice(_CONVERT_TARGETS),
    help="Target format (aiwiki means aiwiki-v2; for v1 pages migrate afterwards).",
)
@click.option("--project", metavar="NAME", help="Basic Memory project name for new notes.")
@click.option("--dry-run", is_flag=True, help="Report what would be written; write nothing.")
@click.option("--force", is_flag=True, help="Overwrite target notes edited by hand.")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON report.")
@_jobs_option
@click.option(
    "--storage-option",
    "-o",
    "storage_option",
    multiple=True,
    metavar="KEY=VALUE",
    help="fsspec storage option for each remote side (repeatable; a local side takes only "
    "lock_timeout, single_writer, max_attempts); VALUE is a TOML literal or a string.",
)
@click.option(
    "--src-option",
    "src_option",
    multiple=True,
    metavar="KEY=VALUE",
    help="Storage option for SRC only (repeatable).",
)
@click.option(
    "--dst-option",
    "dst_option",
    multiple=True,
    metavar="KEY=VALUE",
    help="Storage option for DST only (repeatable).",
)
def convert_(
    src: str,
    dst: str,
    from_: str | None,
    to: str | None,
    project: str | None,
    dry_run: bool,
    force: bool,
    as_json: bool,
    jobs: int | None,
    storage_option: tuple[str, ...],
    src_option: tuple[str, ...],
    dst_option: tuple[str, ...],
) -> None:
    """Convert the session notes of SRC (aiwiki or Basic Memory) into DST, losslessly.

    SRC and DST are store paths or URLs (bm://PROJECT for a Basic Memory
    project).  A rerun writes nothing; a target note edited by hand since the
    last conversion is reported as a conflict and kept unless --force.  Exit
    0 when every note converted, 1 on conflicts or failures, 2 when a store
    or format is unusable.

    -o options go to each side that takes them (every fsspec option to a
    remote store; a local folder takes only sessionkit's own), so
    `convert wiki s3://bucket/x -o endpoint_url=...` pushes a local wiki to
    a bucket; --src-option / --dst-option give one side its own.
    """
    from .errors import UnsupportedFormatError
    from .ops.convert import convert

    if not _is_url(src) and not os.path.exists(_local(src)):
        raise Failure(f"{src}: no such folder")
    source = _convert_store(
        src, from_, _side_options(src, storage_option, src_option), must_exist=True
    )
    if to is None and from_ is None:
        to = "aiwiki-v2" if source.layout == "basic-memory" else "basic-memory"
    elif to is None:
        to = "aiwiki-v2" if from_ == "basic-memory" else "basic-memory"
    target = _convert_store(dst, to, _side_options(dst, storage_option, dst_option))
    progress, holder = _progress_bar(sys.stderr.isatty() and not as_json, "converting")
    try:
        report = convert(
            source,
            target,
            to=to,
            dry_run=dry_run,
            progress=progress,
            force=force,
            jobs=jobs,
            project=project,
            from_=from_,
            list_notes=as_json,  # (the summary needs only the counts)
        )
    except UnsupportedFormatError as exc:
        raise Failure(_one_line(exc.cli_text())) from None
    finally:
        if holder:
            holder[0].__exit__(None, None, None)
    if as_json:
        _say(json.dumps(_scrub_data(report.to_dict()), indent=2, ensure_ascii=False))
        _exit(OK if report.ok else FINDINGS)
    for issue in report.conflicts:
        _say(f"sessionkit: conflict: {issue.message} (use --force to overwrite)", err=True)
    for issue in report.failures:
        _say(f"sessionkit: {_issue_line(issue.source, issue.message)}", err=True)
    if report.record_error:
        _say(f"sessionkit: the convert record: {_one_line(report.record_error)}", err=True)
    verb = "would write" if dry_run else "wrote"
    _say(
        f"{report.target}: {verb} {report.counts['created']} new, "
        f"{report.counts['updated']} updated; "
        f"{report.counts['unchanged']} unchanged, {len(report.conflicts)} conflicts, "
        f"{len(report.failures)} failed (to {report.to})"
    )
    _exit(OK if report.ok else FINDINGS)


# -- sync ----------------------------------------------------------------------------------


def _sync_line(action: Any) -> str:
    where = " <-> ".join(k for k in (action.aiwiki, action.basic_memory) if k)
    return f"{action.action}: {where}" + (
        f" ({_one_line(action.message)})" if action.message else ""
    )


@cli.command(name="sync")
@click.argument("a")
@click.argument("b")
@click.option("--dry-run", is_flag=True, help="Print the plan; write nothing.")
@click.option(
    "--propagate-deletes",
    is_flag=True,
    help="Delete a note whose counterpart was deleted (never one edited since the last sync).",
)
@click.option("--project", metavar="NAME", help="Basic Memory project name for new notes.")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON report.")
@click.option("--watch", is_flag=True, help="Keep syncing as either side changes (Ctrl-C ends).")
@click.option(
    "--interval",
    type=click.FloatRange(min=0.1),
    default=5.0,
    show_default=True,
    help="Seconds between polls of remote stores (--watch).",
)
@click.option(
    "--lock-timeout",
    type=click.FloatRange(min=0),
    default=30.0,
    show_default=True,
    help="Seconds to wait for another sync of the same wiki.",
)
@click.option(
    "--storage-option",
    "-o",
    "storage_option",
    multiple=True,
    metavar="KEY=VALUE",
    help="fsspec storage option for each remote side (repeatable; a local side takes only "
    "lock_timeout, single_writer, max_attempts); VALUE is a TOML literal or a string.",
)
@click.option(
    "--src-option",
    "src_option",
    multiple=True,
    metavar="KEY=VALUE",
    help="Storage option for A only (repeatable).",
)
@click.option(
    "--dst-option",
    "dst_option",
    multiple=True,
    metavar="KEY=VALUE",
    help="Storage option for B only (repeatable).",
)
def sync_(
    a: str,
    b: str,
    dry_run: bool,
    propagate_deletes: bool,
    project: str | None,
    as_json: bool,
    watch: bool,
    interval: float,
    lock_timeout: float,
    storage_option: tuple[str, ...],
    src_option: tuple[str, ...],
    dst_option: tuple[str, ...],
) -> None:
    """Keep an aiwiki wiki (A or B) and a Basic Memory project (the other) in step.

    Changes made on one side since the last sync are carried to the other as
    minimal edits; notes both sides edited are merged item by item, and an
    item both changed differently is a conflict: reported, both notes kept.
    New notes are created on the other side; deletions are reported (carried
    with --propagate-deletes).  The state lives in .sessionkit-sync.json in
    the wiki's aiwiki/sessions/ folder.  Exit 0 when in step, 1 on conflicts
    or failures, 2 when a store is unusable or another sync holds the lock.

    Storage options as for convert: the configured ones for each side's URL,
    -o for each side that takes them, --src-option for A, --dst-option for B.
    """
    from .ops.sync import sync
    from .ops.sync import watch as watch_

    a, b = _user_path(a), _user_path(b)
    missing = [t for t in (a, b) if not _is_url(t) and not os.path.isdir(_local(t))]
    if len(missing) == 2 or (missing and missing[0] == a and _is_url(b)):
        raise Failure(f"{missing[0]}: no such folder")
    config = _state().config

    def side(target: str, own: Sequence[str]) -> dict[str, Any]:
        options = storage_options_for(config, target)
        options.update(_parse_option(i) for i in _side_options(target, storage_option, own))
        return options

    progress, holder = _progress_bar(sys.stderr.isatty() and not as_json and not watch, "syncing")
    kwargs: dict[str, Any] = {
        "dry_run": dry_run,
        "propagate_deletes": propagate_deletes,
        "project": project,
        "lock_timeout": lock_timeout,
        "a_options": side(a, src_option),
        "b_options": side(b, dst_option),
    }
    # a missing folder is the Basic Memory side of a first sync: made by its first write

    def show(report: Any) -> None:
        if as_json:
            _say(
                json.dumps(
                    _scrub_data(report.to_dict()),
                    indent=2 if not watch else None,
                    ensure_ascii=False,
                )
            )
            return
        for action in report.actions:
            bad = action.action in ("conflict", "failure")
            _say(("sessionkit: " if bad else "") + _sync_line(action), err=bad)
            for item in action.conflicts:
                _say(
                    f"  {item.where}: aiwiki {json.dumps(item.aiwiki, ensure_ascii=False)}, "
                    f"basic-memory {json.dumps(item.basic_memory, ensure_ascii=False)}",
                    err=True,
                )
        _say(f"{report.aiwiki} <-> {report.basic_memory}: {report.summary()}")
        if watch and not waiting:
            waiting.append(True)
            _say(f"sessionkit: watching {a} and {b} for changes; press Ctrl-C to stop", err=True)

    waiting: list[bool] = []
    if not dry_run:  # checkpoints a hook kept for either side land first
        _deliver_outbox(a, **kwargs["a_options"])
        _deliver_outbox(b, **kwargs["b_options"])
    try:
        if watch:
            try:
                watch_(a, b, interval=interval, on_report=show, **kwargs)
            except KeyboardInterrupt:
                _exit(OK)
            _exit(OK)
        try:
            report = sync(a, b, progress=progress, **kwargs)
        finally:
            if holder:
                holder[0].__exit__(None, None, None)
    except KeyboardInterrupt:
        click.echo(
            "sessionkit: sync aborted; every note it wrote is whole, and running the same "
            "sync again resumes where it stopped",
            err=True,
        )
        _exit(130)
    show(report)
    _exit(OK if report.ok else FINDINGS)


def _issue_line(source: str, message: str) -> str:
    """``source: message`` on one line, naming the source once (errors often name it already)."""
    text = _one_line(message)
    if text == source or text.startswith((f"{source}:", f"{source} ")):
        return text
    return f"{source}: {text}"


@cli.command(name="outbox")
@click.option("--deliver", is_flag=True, help="Deliver what waits to each store now.")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON report.")
def outbox_(deliver: bool, as_json: bool) -> None:
    """Show the checkpoints waiting in the outbox, per store.

    A pre-compact hook whose store did not take its checkpoint in time keeps
    it in the outbox (in the user's state folder); the next hook, sync or
    command on that store delivers it.  With --deliver, each store is opened
    (with the configured storage options) and takes what waits for it, oldest
    first, exactly once.  Exit 0 when nothing waits afterwards, 1 otherwise.
    """
    from .backends import open_store
    from .ops import outbox

    stores = outbox.summary()
    if deliver:
        config = _state().config
        for item in stores:
            first = next((e for e in outbox.entries(item["store"]) if e[1] is not None), None)
            kind = (first[1] or {}) if first else {}
            try:
                options = storage_options_for(config, item["store"])
                store = open_store(item["store"], layout=kind.get("layout"), **options)
                done = outbox.deliver(store, item["store"], project=kind.get("project"))
            except (SessionKitError, OSError) as exc:
                item["error"] = _one_line(str(exc))
                continue
            item["delivered"] = done.count
            if done.failed:
                item["error"] = "; ".join(f"{p}: {_one_line(str(e))}" for p, e in done.failed)
        left = {s["store"]: s for s in outbox.summary()}
        for item in stores:
            waiting = left.get(item["store"])
            item["count"], item["entries"] = (
                (waiting["count"], waiting["entries"]) if waiting else (0, [])
            )
    if as_json:
        click.echo(json.dumps(stores, indent=2, ensure_ascii=False))
    else:
        if not stores:
            click.echo("nothing waits in the outbox")
        for item in stores:
            line = f"{item['store']}: {item['count']} waiting"
            if "delivered" in item:
                line += f", {item['delivered']} delivered"
            if "error" in item:
                line += f"; cannot deliver: {item['error']}"
            click.echo(line)
            for entry in item["entries"]:
                click.echo(f"  {entry['at']} session {entry['session_id']} ({entry['file']})")
    _exit(FINDINGS if any(item["count"] for item in stores) else OK)


# -- starting from nothing ----------------------------------------------------------------


@cli.command(name="init")
@click.argument("directory", required=False, metavar="[DIR]")
@click.option(
    "--layout",
    type=click.Choice(["aiwiki", "basic-memory"]),
    default="aiwiki",
    show_default=True,
    help="The notes' layout.",
)
@click.option(
    "--hooks",
    "agents",
    multiple=True,
    type=click.Choice(["claude", "codex", "antigravity"]),
    help="Also install this agent's hooks (repeatable).",
)
@click.option("--json", "as_json", is_flag=True, help="Print a JSON report.")
def init_(directory: str | None, layout: str, agents: tuple[str, ...], as_json: bool) -> None:
    """Make a store to start from in DIR (default: the repository root).

    aiwiki: aiwiki/sessions/ with INDEX.md and the schema page
    aiwiki/schemas/session.md; basic-memory: sessions/. A .sessionkit.toml is
    written only when DIR is not the repository root. Nothing that is there
    is overwritten: running it again changes nothing.
    """
    from .config import repository_root
    from .ops.setup import init_store

    top = repository_root(_state().directory)
    root = Path(_local(directory)).resolve() if directory else top
    program = _lifecycle().hook_program()[0]
    report = init_store(root, layout, config_root=top, program=program)
    from .ops.install import agent_config_path, install_agent_hooks

    hooks = [
        install_agent_hooks(agent, agent_config_path(agent, "project", top))
        for agent in dict.fromkeys(agents)
    ]
    if as_json:
        import attrs

        data = attrs.asdict(report)
        data["hooks"] = [attrs.asdict(h) for h in hooks]
        click.echo(json.dumps(data, indent=2, ensure_ascii=False))
        return
    for path in report.made:
        click.echo(f"made  {os.path.normpath(os.path.join(report.root, path))}")
    for path in report.kept:
        click.echo(f"kept  {os.path.normpath(os.path.join(report.root, path))} (there already)")
    for h in hooks:
        click.echo(f"hooks {h.path}: {'added ' + ', '.join(h.added) if h.changed else 'unchanged'}")
    click.echo("next:")
    for step in report.next[1:] if hooks else report.next:
        click.echo(f"  {step}")


@cli.command(name="new")
@click.option("--focus", metavar="TEXT", help="What this session is about (default: unset).")
@click.option("--id", "session_id", metavar="ID", help="The session id (default: a new UUID).")
@click.option("--store", metavar="URL", help=_STORE_HELP)
@click.option("--json", "as_json", is_flag=True, help="Print a JSON report.")
@_store_options
def new_(
    focus: str | None,
    session_id: str | None,
    store: str | None,
    as_json: bool,
    layout: str | None,
    fmt: str | None,
    storage_option: tuple[str, ...],
) -> None:
    """Start a session note by hand (status active, started now)."""
    from .ops.setup import new_session

    target = _hook_store(store, layout, fmt, storage_option)
    report = new_session(target, focus=focus, session_id=session_id)
    if as_json:
        click.echo(_report_json(report))
        return
    click.echo(f"{report.key}: new session {report.id}")


@cli.command(name="set")
@click.argument("field", type=click.Choice(["focus", "last-commit"]))
@click.argument("value")
@click.option("--session", metavar="ID", help="Note key, session id or short id (default: latest).")
@click.option("--store", metavar="URL", help=_STORE_HELP)
@click.option("--json", "as_json", is_flag=True, help="Print a JSON report.")
@_store_options
def set_(
    field: str,
    value: str,
    session: str | None,
    store: str | None,
    as_json: bool,
    layout: str | None,
    fmt: str | None,
    storage_option: tuple[str, ...],
) -> None:
    """Set a session's focus or last commit (a minimal edit of that one line)."""
    from .ops.setup import set_field
    from .redaction import redact

    target = _hook_store(store, layout, fmt, storage_option)
    report = set_field(target, field, value, session=session)
    if as_json:
        click.echo(redact(_report_json(report)).text)
        return
    click.echo(redact(f"{report.key}: {field}: {report.old or '-'} -> {report.new}").text)


@cli.group(cls=_Group)
def plugin() -> None:
    """Package sessionkit for an agent (a Claude Code plugin)."""


@plugin.command(name="build")
@click.argument("directory", metavar="DIR")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON report.")
def plugin_build(directory: str, as_json: bool) -> None:
    """Write a Claude Code plugin into DIR: .claude-plugin/plugin.json, hooks/hooks.json
    (this sessionkit's hooks, by absolute path) and .mcp.json (sessionkit mcp).

    Install it with: claude plugin install DIR (or add DIR to a marketplace).
    """
    from .ops.setup import build_plugin

    report = build_plugin(_local(directory))
    if as_json:
        click.echo(_report_json(report))
        return
    for rel in report.files:
        click.echo(f"wrote {os.path.join(report.root, rel)}")
    click.echo(f"hooks and MCP server run: {report.command}")


# -- search -------------------------------------------------------------------------------

#: ``sessionkit.ops.search.KINDS``, written out: importing that module here would put attrs
#: on every command's start (tests/ops/test_search.py holds the two equal)
SEARCH_KINDS = (
    "session",
    "checkpoint",
    "directive",
    "decision",
    "gotcha",
    "question",
    "next-step",
    "file",
    "context",
    "observation",
    "relation",
)


@cli.command(name="search")
@click.argument("query")
@click.argument("roots", nargs=-1, metavar="[ROOT|URL]...")
@click.option(
    "--kind",
    "kinds",
    multiple=True,
    type=click.Choice(SEARCH_KINDS),
    help="Only rows of this kind (repeatable).",
)
@click.option("--status", help="Only sessions with this status word (active, done, …).")
@click.option("--since", metavar="DATE|Nd", help="Only sessions started on or after (3d, 2w).")
@click.option("--project", help="Only notes of this project (Basic Memory).")
@click.option("--unconsumed", is_flag=True, help="Only directives still to act on.")
@click.option("--category", help="Only observation lines of this category (Basic Memory).")
@click.option("--limit", type=click.IntRange(min=1), default=20, show_default=True)
@click.option("--rebuild", is_flag=True, help="Make the index anew first.")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list of rows.")
@_store_options
def search_(
    query: str,
    roots: tuple[str, ...],
    kinds: tuple[str, ...],
    status: str | None,
    since: str | None,
    project: str | None,
    unconsumed: bool,
    category: str | None,
    limit: int,
    rebuild: bool,
    as_json: bool,
    layout: str | None,
    fmt: str | None,
    storage_option: tuple[str, ...],
) -> None:
    """Search past sessions in one or more stores (default: the configured store).

    Every word must match (any word, when no item has all); "a phrase" in
    quotes, and prefix* for a prefix. The index is a cache outside the
    repository, brought up to date from the notes before each search.
    Exit 1 when nothing matches.
    """
    from .ops.search import search

    since_date = parse_since(since) if since else None
    stores = [
        _open_store(root, layout, fmt, storage_option, must_exist=True) for root in roots or (None,)
    ]
    hits = search(
        query,
        stores,
        kind=kinds,
        status=status,
        since=since_date,
        project=project,
        unconsumed=unconsumed,
        category=category,
        limit=limit,
        rebuild=rebuild,
    )
    if as_json:
        click.echo(json.dumps([h.to_dict() for h in hits], indent=2, ensure_ascii=False))
    else:
        for h in hits:
            where = f"{h.path}:{h.line}" if h.line else h.path
            ident = (h.session or "")[:7] or "-"
            click.echo(f"{where}  {h.kind}  {h.date or '-'}  {ident}  {h.snippet}")
    _exit(OK if hits else FINDINGS)


@cli.command(name="mcp")
@click.argument("roots", nargs=-1, metavar="[ROOT|URL]...")
@click.option("--store", metavar="URL", help=_STORE_HELP)
@_store_options
def mcp_(
    roots: tuple[str, ...],
    store: str | None,
    layout: str | None,
    fmt: str | None,
    storage_option: tuple[str, ...],
) -> None:
    """Serve the notes to an agent over MCP (stdio): search, read, add, consume.

    Searches ROOTs (default: the configured store); reads and edits the hooks'
    store (--store, else hooks.store, else the configured store). Needs the
    mcp extra: pip install 'sessionkit[mcp]'.
    """
    try:
        import mcp.server.mcpserver  # noqa: F401
    except ImportError:
        raise Failure("sessionkit mcp needs the MCP SDK: pip install 'sessionkit[mcp]'") from None
    from .mcp_server import serve

    target = _hook_store(store, layout, fmt, storage_option)
    stores = [_open_store(r, layout, fmt, storage_option, must_exist=True) for r in roots]
    serve(stores or [target], target, budget=_state().config.hooks.context_budget)
    _exit(OK)


# -- hooks --------------------------------------------------------------------------------


@cli.command(
    name="hook",
    context_settings={"ignore_unknown_options": True, "allow_extra_args": True},
    add_help_option=False,
)
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def hook_(args: tuple[str, ...]) -> None:
    """Claude Code hooks: `hook pre-compact`, `hook session-start` (JSON payload on stdin).

    Installed by `sessionkit install-hooks`; run `sessionkit hook --help`.
    They never break the agent: a problem exits 0 and is shown to the user.
    """
    from .hooks import main as hook_main

    _exit(int(hook_main(list(args))))


# -- entry -----------------------------------------------------------------------------------


def run(args: Sequence[str]) -> int:
    """Run the click group on ``args`` (without the program name); return the exit code."""
    try:
        result = cli.main(args=list(args), prog_name="sessionkit", standalone_mode=False)
    except click.ClickException as exc:
        exc.show()
        return exc.exit_code
    except click.exceptions.Exit as exc:
        return exc.exit_code
    except click.Abort:
        _say("sessionkit: aborted", err=True)
        return 130
    except BrokenPipeError:
        _silence_stdout()
        return FINDINGS
    return result if isinstance(result, int) else OK
