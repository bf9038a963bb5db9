"""Moving notes between formats and stores: ``migrate``, ``convert``, ``sync`` and ``outbox``."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Sequence
from typing import Any

import click

from ..errors import SessionKitError
from .base import (
    FINDINGS,
    OK,
    Failure,
    deliver_outbox,
    emit_json,
    exit_with,
    is_url,
    jobs_option,
    json_option,
    local,
    one_line,
    open_store,
    parse_option,
    progress_bar,
    say,
    side_options,
    state,
    storage_option,
    two_store_options,
    user_path,
)


def _summary_or_json(report: Any, as_json: bool) -> None:
    """``--json``: the report, and the exit code (0 when ``report.ok``)."""
    if as_json:
        emit_json(report)
        exit_with(OK if report.ok else FINDINGS)


@click.command(name="migrate")
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
@json_option()
@jobs_option
@storage_option()
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
    from .._names import shown
    from ..ops.migrate import migrate

    if not is_url(root) and not os.path.isdir(user_path(root)):
        if os.path.exists(user_path(root)):
            raise Failure(
                f"{root}: is a file; migrate takes a wiki folder (the one holding aiwiki/)"
            )
        raise Failure(f"{root}: no such folder")
    store = open_store(root, "aiwiki", None, storage_option)
    with progress_bar(sys.stderr.isatty() and not as_json, "migrating") as progress:
        report = migrate(
            store,
            to=to,
            dry_run=dry_run,
            backup=backup,
            progress=progress,
            jobs=jobs,
            list_pages=as_json,  # (the summary needs only the counts and the failures)
        )
    if backup is not None and not dry_run and report.counts()["migrated"]:
        say(
            f"sessionkit: the originals, secrets included, are kept in {backup} (--backup)",
            err=True,
        )
    _summary_or_json(report, as_json)
    base = str(getattr(getattr(store, "storage", None), "url", store.url)).rstrip("/")
    for diff in report.diffs:
        say(diff, nl=False)
    for item in report.failed:
        where = f"{base}/{shown(item.path)}" + (f":{item.line}" if item.line is not None else "")
        say(f"{where}: error: {item.reason}", err=True)
    counts = report.counts()
    verb = "would migrate" if dry_run else "migrated"
    say(  # (the summary on stderr, as the docs say; stdout holds diffs and --json)
        f"{base}: {verb} {counts['migrated']}, already current {counts['current']}, "
        f"failed {counts['failed']} (to {to})",
        err=True,
    )
    exit_with(OK if report.ok else FINDINGS)


_CONVERT_FORMATS = ["aiwiki", "aiwiki-v1", "aiwiki-v2", "basic-memory"]


def _issue_line(source: str, message: str) -> str:
    """``source: message`` on one line, naming the source once (errors often name it already)."""
    text = one_line(message)
    if text == source or text.startswith((f"{source}:", f"{source} ")):
        return text
    return f"{source}: {text}"


@click.command(name="convert")
@click.argument("src")
@click.argument("dst")
@click.option("--from", "from_", type=click.Choice(_CONVERT_FORMATS), help="Source format.")
@click.option(
    "--to",
    "to",
    # convert writes aiwiki v2 pages (v1: convert, then ``migrate --to aiwiki-v1``)
    type=click.Choice(["aiwiki", "aiwiki-v2", "basic-memory"]),
    help="Target format (aiwiki means aiwiki-v2; for v1 pages migrate afterwards).",
)
@click.option("--project", metavar="NAME", help="Basic Memory project name for new notes.")
@click.option("--dry-run", is_flag=True, help="Report what would be written; write nothing.")
@click.option("--force", is_flag=True, help="Overwrite target notes edited by hand.")
@json_option()
@jobs_option
@two_store_options("SRC", "DST")
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
    from ..errors import UnsupportedFormatError
    from ..ops.convert import convert

    def side(target: str, fmt: str | None, own: Sequence[str], must_exist: bool = False) -> Any:
        layout = None if fmt is None else "basic-memory" if fmt == "basic-memory" else "aiwiki"
        options = side_options(target, storage_option, own)
        return open_store(target, layout, None, options, must_exist=must_exist)

    if not is_url(src) and not os.path.exists(local(src)):
        raise Failure(f"{src}: no such folder")
    source = side(src, from_, src_option, must_exist=True)
    if to is None:
        from_bm = source.layout == "basic-memory" if from_ is None else from_ == "basic-memory"
        to = "aiwiki-v2" if from_bm else "basic-memory"
    target = side(dst, to, dst_option)
    try:
        with progress_bar(sys.stderr.isatty() and not as_json, "converting") as progress:
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
        raise Failure(one_line(exc.cli_text())) from None
    _summary_or_json(report, as_json)
    for issue in report.conflicts:
        say(f"sessionkit: conflict: {issue.message} (use --force to overwrite)", err=True)
    for issue in report.failures:
        say(f"sessionkit: {_issue_line(issue.source, issue.message)}", err=True)
    if report.record_error:
        say(f"sessionkit: the convert record: {one_line(report.record_error)}", err=True)
    if report.counts["layout"]:
        n = report.counts["layout"]
        pages = "1 page keeps" if n == 1 else f"{n} pages keep"
        say(
            f"sessionkit: {pages} the Basic Memory note's layout (observation order, line "
            "ends, comments) as a line patch in bm_sessionkit",
            err=True,
        )
    verb = "would write" if dry_run else "wrote"
    counts = report.counts
    say(
        f"{report.target}: {verb} {counts['created']} new, {counts['updated']} updated; "
        f"{counts['unchanged']} unchanged, {len(report.conflicts)} conflicts, "
        f"{len(report.failures)} failed (to {report.to})"
    )
    exit_with(OK if report.ok else FINDINGS)


@click.command(name="sync")
@click.argument("a")
@click.argument("b")
@click.option("--dry-run", is_flag=True, help="Print the plan; write nothing.")
@click.option(
    "--propagate-deletes",
    is_flag=True,
    help="Delete a note whose counterpart was deleted (never one edited since the last sync).",
)
@click.option("--project", metavar="NAME", help="Basic Memory project name for new notes.")
@json_option()
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
@two_store_options("A", "B")
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
    from ..config import storage_options_for
    from ..ops.sync import sync
    from ..ops.sync import watch as watch_

    a, b = user_path(a), user_path(b)
    # a missing folder is the Basic Memory side of a first sync: made by its first write
    missing = [t for t in (a, b) if not is_url(t) and not os.path.isdir(local(t))]
    if len(missing) == 2 or (missing and missing[0] == a and is_url(b)):
        raise Failure(f"{missing[0]}: no such folder")

    def side(target: str, own: Sequence[str]) -> dict[str, Any]:
        options = storage_options_for(state().config, target)
        options.update(parse_option(i) for i in side_options(target, storage_option, own))
        return options

    kwargs: dict[str, Any] = {
        "dry_run": dry_run,
        "propagate_deletes": propagate_deletes,
        "project": project,
        "lock_timeout": lock_timeout,
        "a_options": side(a, src_option),
        "b_options": side(b, dst_option),
    }
    waiting: list[bool] = []

    def show(report: Any) -> None:
        if as_json:
            return emit_json(report, indent=None if watch else 2)
        for action in report.actions:
            bad = action.action in ("conflict", "failure")
            where = " <-> ".join(k for k in (action.aiwiki, action.basic_memory) if k)
            why = f" ({one_line(action.message)})" if action.message else ""
            say(("sessionkit: " if bad else "") + f"{action.action}: {where}{why}", err=bad)
            for item in action.conflicts:
                aiwiki = json.dumps(item.aiwiki, ensure_ascii=False)
                bm = json.dumps(item.basic_memory, ensure_ascii=False)
                say(f"  {item.where}: aiwiki {aiwiki}, basic-memory {bm}", err=True)
        say(f"{report.aiwiki} <-> {report.basic_memory}: {report.summary()}")
        if watch and not waiting:
            waiting.append(True)
            say(f"sessionkit: watching {a} and {b} for changes; press Ctrl-C to stop", err=True)

    if not dry_run:  # checkpoints a hook kept for either side land first
        deliver_outbox(a, **kwargs["a_options"])
        deliver_outbox(b, **kwargs["b_options"])
    try:
        if watch:
            watch_(a, b, interval=interval, on_report=show, **kwargs)
            exit_with(OK)
        with progress_bar(sys.stderr.isatty() and not as_json, "syncing") as progress:
            report = sync(a, b, progress=progress, **kwargs)
    except KeyboardInterrupt:
        if watch:
            exit_with(OK)
        click.echo(
            "sessionkit: sync aborted; every note it wrote is whole, and running the same "
            "sync again resumes where it stopped",
            err=True,
        )
        exit_with(130)
    show(report)
    exit_with(OK if report.ok else FINDINGS)


@click.command(name="outbox")
@click.option("--deliver", is_flag=True, help="Deliver what waits to each store now.")
@json_option()
def outbox_(deliver: bool, as_json: bool) -> None:
    """Show the checkpoints waiting in the outbox, per store.

    A pre-compact hook whose store did not take its checkpoint in time keeps
    it in the outbox (in the user's state folder); the next hook, sync or
    command on that store delivers it.  With --deliver, each store is opened
    (with the configured storage options) and takes what waits for it, oldest
    first, exactly once.  Exit 0 when nothing waits afterwards, 1 otherwise.
    """
    from ..backends import open_store as open_
    from ..config import storage_options_for
    from ..ops import outbox

    stores = outbox.summary()
    for item in stores if deliver else ():
        first = next((e for e in outbox.entries(item["store"]) if e[1] is not None), None)
        kind = (first[1] or {}) if first else {}
        try:
            options = storage_options_for(state().config, item["store"])
            store = open_(item["store"], layout=kind.get("layout"), **options)
            done = outbox.deliver(store, item["store"], project=kind.get("project"))
        except (SessionKitError, OSError) as exc:
            item["error"] = one_line(str(exc))
            continue
        item["delivered"] = done.count
        if done.failed:
            item["error"] = "; ".join(f"{p}: {one_line(str(e))}" for p, e in done.failed)
    if deliver:
        left = {s["store"]: s for s in outbox.summary()}
        for item in stores:
            waiting = left.get(item["store"], {"count": 0, "entries": []})
            item["count"], item["entries"] = waiting["count"], waiting["entries"]
    if as_json:
        emit_json(stores, scrub=False)
    elif not stores:
        click.echo("nothing waits in the outbox")
    for item in stores if not as_json else ():
        line = f"{item['store']}: {item['count']} waiting"
        if "delivered" in item:
            line += f", {item['delivered']} delivered"
        if "error" in item:
            line += f"; cannot deliver: {item['error']}"
        click.echo(line)
        for entry in item["entries"]:
            click.echo(f"  {entry['at']} session {entry['session_id']} ({entry['file']})")
    exit_with(FINDINGS if any(item["count"] for item in stores) else OK)


COMMANDS = [migrate_, convert_, sync_, outbox_]
