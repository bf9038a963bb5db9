"""What every command shares: exit codes, failures, options, opening stores and output.

Errors from the library (:class:`~sessionkit.errors.SessionKitError`) and the
operating system become one ``sessionkit: ...`` line on stderr with exit code 2;
whatever a command prints goes through :func:`say` or :func:`emit_json`, which
replace a secret's value by its kind.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import os
import re
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

import click

from .._lint_cmd import _is_url, _local, _one_line, _shown, failure_text
from ..errors import SessionKitError

if TYPE_CHECKING:
    from ..config import Config

F = TypeVar("F", bound=Callable[..., Any])

#: exit codes
OK, FINDINGS, UNUSABLE = 0, 1, 2

is_url, local, one_line, shown_path = _is_url, _local, _one_line, _shown


def say(message: Any = None, **kwargs: Any) -> None:
    """``click.echo`` with every secret's value replaced by its kind (``redaction.scrub``)."""
    from ..redaction import scrub

    click.echo(None if message is None else scrub(str(message)), **kwargs)


def emit_json(
    data: Any, label: str = "REDACTED", indent: int | None = 2, scrub: bool = True
) -> None:
    """Print ``data`` (a report: attrs, ``to_dict()`` or plain) as JSON; with ``scrub``, every
    secret's value replaced by ``[label:kind]``."""
    if not scrub:
        click.echo(json.dumps(data, indent=indent, ensure_ascii=False))
    else:
        say(json_text(data, label, indent))


def json_text(data: Any, label: str = "REDACTED", indent: int | None = 2) -> str:
    """``data`` (a report: attrs, ``to_dict()`` or plain) as scrubbed JSON text."""
    import attrs

    from ..redaction import scrub_data

    if hasattr(data, "to_dict"):
        data = data.to_dict()
    elif attrs.has(type(data)):
        data = attrs.asdict(data)
    return json.dumps(scrub_data(data, label=label), indent=indent, ensure_ascii=False, default=str)


class Failure(click.ClickException):
    """Unusable input: printed as one ``sessionkit: ...`` line, exit code 2."""

    exit_code = UNUSABLE

    def show(self, file: Any = None) -> None:
        say(f"sessionkit: {self.message}", err=True)


def _scrubbed(exc: click.ClickException) -> None:
    """A usage error's message with the secrets it quotes replaced by their kind."""
    from ..redaction import scrub

    exc.__dict__["message"] = scrub(exc.message)  # (typed Final: an instance attribute)


class Group(click.Group):
    """A group that turns library and OS errors into one-line failures."""

    def make_context(self, *args: Any, **kwargs: Any) -> click.Context:
        try:
            return super().make_context(*args, **kwargs)
        except click.ClickException as exc:  # (a usage error may quote an argument)
            _scrubbed(exc)
            raise

    def invoke(self, ctx: click.Context) -> Any:
        if ctx.parent is not None:
            return self._invoke(ctx)
        from ..redaction import collect  # the root group reports the secrets redacted

        with collect() as found:
            try:
                return self._invoke(ctx)
            finally:
                _report_secrets(found)

    def _invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except click.ClickException as exc:
            _scrubbed(exc)
            raise
        except (click.exceptions.Exit, click.Abort, BrokenPipeError):
            raise
        except Exception as exc:
            if not isinstance(exc, SessionKitError | OSError) and os.environ.get(
                "SESSIONKIT_DEBUG"
            ):
                raise
            raise Failure(failure_text(exc)) from None


def _report_secrets(found: Sequence[Any]) -> None:
    """One stderr line per secret the stores redacted (or wrote as is, under ``warn``)."""
    done = [f for f in found if f.redacted]
    kept = [f for f in found if not f.redacted]
    if done:
        say(f"sessionkit: redacted {len(done)} secret(s) before writing:", err=True)
        for f in done:
            say(f"  {f.path}:{f.line}: {f.kind} -> [REDACTED:{f.kind}]", err=True)
    if kept:
        n = len(kept)
        say(f"sessionkit: warning: wrote {n} secret(s) in clear (secrets.redact = warn):", err=True)
        for f in kept:
            say(f"  {f.path}:{f.line}: {f.kind}", err=True)


def exit_with(code: int) -> NoReturn:
    raise click.exceptions.Exit(code)


def plural(count: int, word: str) -> str:
    return word if count == 1 else f"{word}s"


# -- options ------------------------------------------------------------------------------


def parse_option(item: str) -> tuple[str, Any]:
    """``KEY=VALUE`` (VALUE a TOML literal, else the string) -> (key, value)."""
    name, sep, raw = item.partition("=")
    if not sep or not name.strip():
        raise click.BadParameter(f"{item!r} is not KEY=VALUE", param_hint="--storage-option")
    from .._config_sources import scalar

    return name.strip(), scalar(raw)


def _one_of(ctx: click.Context, param: click.Parameter, value: str, names: Any, what: str) -> str:
    if value not in names:
        raise click.BadParameter(
            f"{value!r} is not a {what}; choose from {', '.join(names)}", ctx=ctx, param=param
        )
    return value


def _check_format(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    if value is None:
        return None
    from ..adapters import available_formats

    return _one_of(ctx, param, value, list(available_formats()), "format")


def _check_layout(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    if value is None or value in ("aiwiki", "basic-memory"):
        return value
    from ..backends import available_backends

    return _one_of(ctx, param, value, list(available_backends()), "layout")


def json_option(help: str = "Print a JSON report.") -> Callable[[F], F]:
    return click.option("--json", "as_json", is_flag=True, help=help)


def storage_option(
    help: str = "fsspec storage option (repeatable); VALUE is a TOML literal or a string.",
    name: str = "--storage-option",
    dest: str = "storage_option",
    short: tuple[str, ...] = ("-o",),
) -> Callable[[F], F]:
    return click.option(name, *short, dest, multiple=True, metavar="KEY=VALUE", help=help)


format_option = click.option(
    "--format",
    "fmt",
    metavar="NAME",
    callback=_check_format,
    help="Note format (aiwiki-v1, aiwiki-v2, basic-memory; default: detected).",
)

#: ``--jobs N``, shared by the bulk commands (lint, ls, migrate, convert)
jobs_option = click.option(
    "--jobs",
    "-j",
    type=click.IntRange(min=1),
    metavar="N",
    help="Worker processes (default: the number of cores); output is the same for any N.",
)

store_url_option = click.option(
    "--store",
    "store_url",
    metavar="URL",
    help="Store path or URL (default: the hooks' store: hooks.store, else the configured one).",
)
session_option = click.option(
    "--session", metavar="ID", help="Note key, session id or short id (default: latest)."
)


def store_options(func: F) -> F:
    """``--layout``, ``--format`` and ``--storage-option KEY=VALUE`` (repeatable)."""
    func = format_option(storage_option()(func))
    layout_help = "Store layout (aiwiki, basic-memory)."
    return click.option("--layout", metavar="NAME", callback=_check_layout, help=layout_help)(func)


def two_store_options(a: str, b: str) -> Callable[[F], F]:
    """``-o`` for each side that takes it; ``--src-option`` (``a``), ``--dst-option`` (``b``)."""

    def wrap(func: F) -> F:
        for side, name in ((b, "dst"), (a, "src")):
            own = f"Storage option for {side} only (repeatable)."
            func = storage_option(own, f"--{name}-option", f"{name}_option", ())(func)
        return storage_option(
            "fsspec storage option for each remote side (repeatable; a local side takes only "
            "lock_timeout, single_writer, max_attempts); VALUE is a TOML literal or a string."
        )(func)

    return wrap


#: options sessionkit's own stores take, local ones included (the rest are fsspec's)
_OWN_OPTIONS = ("single_writer", "lock_timeout", "max_attempts")


def side_options(target: str, shared: Sequence[str], own: Sequence[str]) -> list[str]:
    """One side's ``KEY=VALUE`` options: its own, and the shared ``-o`` ones it takes (all of
    them for a remote store; sessionkit's own for a path, ``file://``, ``local://``, ``bm://``)."""
    protocol = target.split("://", 1)[0].lower() if "://" in target else None
    if protocol in (None, "file", "local", "bm"):
        shared = [item for item in shared if item.partition("=")[0].strip() in _OWN_OPTIONS]
    return [*shared, *own]


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


@contextlib.contextmanager
def progress_bar(enabled: bool, label: str) -> Iterator[Callable[[int, int, str], None] | None]:
    """A ``progress(done, total, key)`` callback drawing a bar on stderr (``None`` when off)."""
    if not enabled:
        yield None
        return
    bars: list[Any] = []

    def progress(done: int, total: int, key: str) -> None:
        if not bars:
            bars.append(click.progressbar(length=total, label=label, file=sys.stderr).__enter__())
        bars[0].update(done - bars[0].pos)

    try:
        yield progress
    finally:
        if bars:
            bars[0].__exit__(None, None, None)


# -- stores -------------------------------------------------------------------------------


class State:
    """Per-invocation state: the start directory and the (lazily loaded) config."""

    def __init__(self, directory: str | None) -> None:
        self.directory = directory
        self._config: Config | None = None

    @property
    def config(self) -> Config:
        if self._config is None:  # (config is imported here: --version and --help need none)
            from ..config import load_config

            self._config = load_config(self.directory)
        return self._config


def state() -> State:
    obj = click.get_current_context().find_object(State)
    return obj if obj is not None else State(None)


def user_path(target: str) -> str:
    """A store path the user typed, as the stores take it: a file URL is its local path, and a
    relative path is taken against the working directory wherever it leads (``..``
    included), as in git.  URLs are left as they are."""
    if is_url(target):
        return target
    path = local(target)
    if path and not os.path.isabs(path):
        from ..backends._storage import local_path
        from ..errors import PathSafetyError

        try:
            local_path(path)
        except PathSafetyError:  # (it leads out of the working directory: the user said so)
            return os.path.abspath(path)
    return path if target.startswith("file:") and path.startswith("/") else target


def given(root: str | None) -> str:
    """The store as messages name it: ROOT as typed, else the configured store."""
    if root:
        return root
    from ..config import effective_store_url

    return shown_path(effective_store_url(state().config, state().directory))


def open_store(
    root: str | None,
    layout: str | None = None,
    fmt: str | None = None,
    storage_option: Sequence[str] = (),
    *,
    must_exist: bool = False,
    typed: bool = True,
) -> Any:
    """Open ``root`` (default: the configured store) with config and CLI storage options.

    ``must_exist``: a missing store is an error naming it, never an empty store
    created by reading.  ``typed``: ``root`` is a path the user gave, not a
    configured value.
    """
    from ..config import effective_store_url, storage_options_for

    config = state().config
    if root:
        url = user_path(root) if typed else root
    else:
        url = effective_store_url(config, state().directory)
    options = storage_options_for(config, url)
    options.update(parse_option(item) for item in storage_option)
    from ..backends import check_store
    from ..backends import open_store as open_

    # what a hook kept for this store lands first (and may be what makes it exist)
    deliver_outbox(url, layout=layout or config.layout, **options)
    store = open_(url, layout=layout or config.layout, format=fmt or config.format, **options)
    # (named as the user gave it: `../w: no such folder`)
    check_store(store, root if root and typed else None, must_exist=must_exist)
    return _with_policy(store)


def _with_policy(store: Any) -> Any:
    if hasattr(store, "redaction"):
        from ..redaction import Policy

        store.redaction = Policy.from_config(state().config)
    return store


def hook_store(store_url: str | None, **store: Any) -> Any:
    """The store the hooks write to (``--store``, else ``hooks.store``, else the default);
    it must be there (the commands using it edit notes that exist)."""
    if store_url:
        return open_store(store_url, **store, must_exist=True)
    from ..config import hook_store_url

    url = hook_store_url(state().config, state().directory)
    return open_store(url, **store, must_exist=True, typed=False)


def deliver_outbox(url: str, layout: str | None = None, **options: Any) -> None:
    """Deliver the checkpoints a hook kept in the outbox for this store, first (one line
    on stderr); nothing on a dry run or a run that only shows (``--yes`` not given)."""
    from ..ops import outbox

    identity = outbox.store_identity(url)
    if not outbox.pending(identity):
        return
    ctx = click.get_current_context(silent=True)
    params = ctx.params if ctx is not None else {}
    if params.get("dry_run") or params.get("yes") is False:
        return
    try:
        from ..backends import open_store as open_

        kept = next((e for _, e in outbox.entries(identity) if e is not None), None) or {}
        store = _with_policy(open_(url, layout=layout or kept.get("layout"), **options))
        done = outbox.deliver(store, identity, project=kept.get("project"))
    except (SessionKitError, OSError) as exc:
        click.echo(f"sessionkit: the outbox for {identity} waits: {one_line(str(exc))}", err=True)
        return
    for path, why in done.failed:
        click.echo(f"sessionkit: the outbox entry {path} waits: {one_line(str(why))}", err=True)
    if done.count:
        n = done.count
        click.echo(f"sessionkit: delivered {n} {plural(n, 'checkpoint')} from the outbox", err=True)


def note_shown(given: str, store: Any, key: str) -> str:
    """A note as messages name it in every command: the store as the user gave it (``w``,
    ``s3://b/x``) joined with the note's path in the store."""
    from .._names import shown

    folder = str(getattr(store, "folder", "") or "")
    try:
        path_of = getattr(store, "path_of", None)
        rel = path_of(key) if callable(path_of) else key
    except SessionKitError:  # a name the store refuses (CON.md, surrounding blanks): as it is
        rel = f"{folder}/{shown(key)}" if folder else shown(key)
    if is_url(given):
        return f"{given.rstrip('/')}/{rel}"
    from ..ops.lint import spelled

    return spelled(os.path.join(given, rel))
