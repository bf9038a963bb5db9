"""Editing sessions: ``new``, ``add``, ``set``, ``status``, ``directive consume``,
``context`` and ``prune``."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import click

from .base import (
    FINDINGS,
    OK,
    Failure,
    Group,
    emit_json,
    exit_with,
    given,
    hook_store,
    is_url,
    json_option,
    local,
    note_shown,
    open_store,
    plural,
    say,
    session_option,
    state,
    store_options,
    store_url_option,
)


def _lifecycle() -> Any:
    from ..ops import lifecycle

    return lifecycle


def _page_store(page: str | None, store_url: str | None, **store: Any) -> tuple[Any, str | None]:
    """(store, note) for PAGE: a note file on disk opens the store around it."""
    if not (page and page.endswith(".md") and not is_url(page) and Path(local(page)).is_file()):
        return hook_store(store_url, **store), page
    full = Path(local(page)).resolve()
    parts = full.parts
    layout = store.pop("layout", None)
    for i in range(len(parts) - 2, 0, -1):
        if parts[i] == "aiwiki" and i + 1 < len(parts) and parts[i + 1] == "sessions":
            key = "/".join(parts[i + 2 :])
            return open_store(str(Path(*parts[:i])), layout or "aiwiki", **store), key
    if full.parent.name == "sessions":
        root = str(full.parent.parent)
        return open_store(root, layout or "basic-memory", **store), full.name
    raise Failure(f"{page}: not under aiwiki/sessions/ or a Basic Memory sessions/ folder")


@click.group(cls=Group)
def directive() -> None:
    """Act on checkpoint directives (Dream directives written by pre-compact)."""


@directive.command(name="consume")
@click.argument("page", required=False)
@click.option("--all", "all_", is_flag=True, help="Consume every unconsumed directive.")
@click.option("--index", type=click.IntRange(min=1), metavar="N", help="Consume directive N.")
@store_url_option
@json_option()
@store_options
def directive_consume(
    page: str | None,
    all_: bool,
    index: int | None,
    store_url: str | None,
    as_json: bool,
    **store: Any,
) -> None:
    """Flip unconsumed directives to (consumed at <UTC ISO>).

    PAGE is a note file, a key or a session id (default: the latest note).
    Without --all or --index the newest unconsumed directive is consumed;
    N is the number `sessionkit hook session-start` shows.
    """
    if all_ and index is not None:
        raise click.UsageError("give --all or --index, not both")
    target, key = _page_store(page, store_url, **store)
    report = _lifecycle().consume_directives(target, key, index=index, all=all_)
    if as_json:
        return emit_json(report)
    if not report.consumed:
        return say(f"{report.key}: no unconsumed directive to consume")
    for d in report.consumed:
        say(f"{report.key}: [{d.index}] {d.kind} directive consumed at {report.at}")
    if left := report.remaining:
        say(f"{report.key}: {left} unconsumed {plural(left, 'directive')} left")


@click.command(name="context")
@store_url_option
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
@json_option("Print the rendering and its sizes as JSON.")
@store_options
def context_(
    store_url: str | None,
    source: str,
    budget: int | None,
    unit: str | None,
    as_json: bool,
    **store: Any,
) -> None:
    """Print the session-start context the hook injects (within the same budget).

    The text a `sessionkit hook session-start` gives the agent, so another
    tool (Codex, Cursor, a script) can reuse it. Prints nothing when the
    store has no note.
    """
    import shlex

    from ..context import check_budget, for_store

    config = state().config
    unit = unit or config.hooks.context_unit
    budget = config.hooks.context_budget if budget is None else budget
    problem = check_budget(budget, unit)
    if problem is not None:
        raise click.BadParameter(problem, param_hint="--budget")
    target = hook_store(store_url, **store)
    program = _lifecycle().hook_program()[0]  # (what an agent's shell can run: no venv there)
    rest = f"{program} context --budget 0"
    if store_url:
        rest += f" --store {shlex.quote(store_url)}"
    if source == "compact":
        rest += " --source compact"
    rendered = for_store(
        target,
        source=source,
        budget=budget,
        unit=unit,
        rest=rest,
        max_bytes=config.limits.max_note_bytes,
        program=program,
    )
    if as_json:
        emit_json(None if rendered is None else rendered.to_dict(), indent=None, scrub=False)
    elif rendered is not None:
        click.echo(rendered.text)


def _is_dash_text(arg: str) -> bool:
    """A word that starts with '-' but cannot be an option: ``- [ ] item``, ``-> x``, ``-1``."""
    return len(arg) > 1 and arg[0] == "-" and not (arg[1].isalpha() or arg[1] == "-")


class _TextCommand(click.Command):
    """A command whose trailing TEXT may start with '-' (``- [ ] item``): from that word on,
    words that are not its options are TEXT, as after ``--``."""

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


@click.command(name="add", cls=_TextCommand)
@click.argument("kind", type=click.Choice(["next-step", "decision", "gotcha", "question", "file"]))
@click.argument("text", nargs=-1, required=True)
@session_option
@store_url_option
@json_option()
@store_options
def add(
    kind: str,
    text: tuple[str, ...],
    session: str | None,
    store_url: str | None,
    as_json: bool,
    **store: Any,
) -> None:
    """Add a bullet to a session's section (a minimal edit).

    KIND picks the section: next-step, decision, gotcha, question, or file
    (TEXT is a citation path:line@sha7, path:start-end@sha7 or a path).
    """
    from ..redaction import collect, scrub

    target = hook_store(store_url, **store)
    with collect() as found:
        report = _lifecycle().add_item(target, kind, " ".join(text), session=session)
    # what the note holds: each secret redacted, or (secrets.redact = warn) in clear; the
    # terminal shows its kind either way, never its value
    label = "IN CLEAR" if any(not f.redacted for f in found) else "REDACTED"
    if as_json:
        return emit_json(report, label=label)
    done = "added" if report.added else "already present"
    say(f"{report.key}: {kind} {done}: {scrub(report.text, label=label)}")


@click.command(name="status")
@click.argument("status", type=click.Choice(["done", "abandoned", "active"]))
@session_option
@store_url_option
@json_option()
@store_options
def status_(
    status: str, session: str | None, store_url: str | None, as_json: bool, **store: Any
) -> None:
    """Set a session's status; done also sets date_end (Basic Memory: ended)."""
    report = _lifecycle().set_status(hook_store(store_url, **store), status, session=session)
    if as_json:
        return emit_json(report)
    ended = f", ended {report.ended}" if report.ended and status == "done" else ""
    say(f"{report.key}: {report.old} -> {report.new}{ended}")


@click.command(name="new")
@click.option("--focus", metavar="TEXT", help="What this session is about (default: unset).")
@click.option("--id", "session_id", metavar="ID", help="The session id (default: a new UUID).")
@store_url_option
@json_option()
@store_options
def new_(
    focus: str | None, session_id: str | None, store_url: str | None, as_json: bool, **store: Any
) -> None:
    """Start a session note by hand (status active, started now)."""
    from ..ops.setup import new_session

    report = new_session(hook_store(store_url, **store), focus=focus, session_id=session_id)
    if as_json:
        return emit_json(report)
    click.echo(f"{report.key}: new session {report.id}")


@click.command(name="set")
@click.argument("field", type=click.Choice(["focus", "last-commit"]))
@click.argument("value")
@session_option
@store_url_option
@json_option()
@store_options
def set_(
    field: str, value: str, session: str | None, store_url: str | None, as_json: bool, **store: Any
) -> None:
    """Set a session's focus or last commit (a minimal edit of that one line)."""
    from ..ops.setup import set_field
    from ..redaction import redact
    from .base import json_text

    report = set_field(hook_store(store_url, **store), field, value, session=session)
    if as_json:
        text = json_text(report)
    else:
        text = f"{report.key}: {field}: {report.old or '-'} -> {report.new}"
    click.echo(redact(text).text)


_AGE = re.compile(r"^(\d+)([dw]?)$")


@click.command(name="prune")
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
@json_option()
@store_options
def prune_(
    root: str | None,
    abandon_after: str,
    delete_abandoned: bool,
    yes: bool,
    dry_run: bool,
    as_json: bool,
    **store: Any,
) -> None:
    """Mark stale active sessions abandoned; with --delete-abandoned --yes, delete them.

    ROOT defaults to the configured store.  Deleting is destructive, so
    --delete-abandoned without --yes is a dry run: it changes nothing and
    lists what it would mark and delete.  Exits 1 when some notes are
    unreadable (they are left alone).
    """
    target = open_store(root, **store, must_exist=True)
    m = _AGE.match(abandon_after.strip())
    if not m:
        raise click.BadParameter(
            f"{abandon_after!r} is not an age like 14d or 2w", param_hint="--abandon-after"
        )
    dry_run = dry_run or (delete_abandoned and not yes)  # (nothing at all without --yes)
    report = _lifecycle().prune(
        target,
        int(m.group(1)) * (7 if m.group(2) == "w" else 1),
        delete_abandoned=delete_abandoned,
        dry_run=dry_run,
        max_bytes=state().config.limits.max_note_bytes,
    )
    if as_json:
        emit_json(report)
        exit_with(FINDINGS if report.unreadable else OK)
    verb = "would mark" if dry_run else "marked"
    for key in report.abandoned:
        say(f"{key}: {verb} abandoned")
    for key in report.deleted:
        say(f"{key}: deleted")
    for key in report.would_delete:
        say(f"{key}: would delete")
    if delete_abandoned and not yes:
        say("sessionkit: dry run, nothing changed; add --yes to apply", err=True)
    for key in report.unreadable:
        say(f"sessionkit: {note_shown(given(root), target, key)}: unreadable, left alone", err=True)
    exit_with(FINDINGS if report.unreadable else OK)


COMMANDS = [directive, context_, add, status_, new_, set_, prune_]
