"""Finding and serving past sessions: ``search``, ``mcp`` and ``hook``."""

from __future__ import annotations

from typing import Any

import click

from .base import (
    FINDINGS,
    OK,
    Failure,
    emit_json,
    exit_with,
    hook_store,
    json_option,
    open_store,
    parse_since,
    state,
    store_options,
    store_url_option,
)

#: ``sessionkit.ops.search.KINDS``, written out: importing that module here would put attrs
#: on every command's start (tests/ops/test_search.py holds the two equal)
SEARCH_KINDS = [
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
]


@click.command(name="search")
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
@json_option("Print a JSON list of rows.")
@store_options
def search_(
    query: str,
    roots: tuple[str, ...],
    kinds: tuple[str, ...],
    since: str | None,
    as_json: bool,
    layout: str | None,
    fmt: str | None,
    storage_option: tuple[str, ...],
    **filters: Any,
) -> None:
    """Search past sessions in one or more stores (default: the configured store).

    Every word must match (any word, when no item has all); "a phrase" in
    quotes, and prefix* for a prefix. The index is a cache outside the
    repository, brought up to date from the notes before each search.
    Exit 1 when nothing matches.
    """
    from ..ops.search import search

    since_date = parse_since(since) if since else None
    stores = [
        open_store(root, layout, fmt, storage_option, must_exist=True) for root in roots or (None,)
    ]
    hits = search(query, stores, kind=kinds, since=since_date, **filters)
    if as_json:
        emit_json([h.to_dict() for h in hits], scrub=False)
    for h in hits if not as_json else ():
        where = f"{h.path}:{h.line}" if h.line else h.path
        ident = (h.session or "")[:7] or "-"
        click.echo(f"{where}  {h.kind}  {h.date or '-'}  {ident}  {h.snippet}")
    exit_with(OK if hits else FINDINGS)


@click.command(name="mcp")
@click.argument("roots", nargs=-1, metavar="[ROOT|URL]...")
@store_url_option
@store_options
def mcp_(roots: tuple[str, ...], store_url: str | None, **store: Any) -> None:
    """Serve the notes to an agent over MCP (stdio): search, read, add, consume.

    Searches ROOTs (default: the configured store); reads and edits the hooks'
    store (--store, else hooks.store, else the configured store). Needs the
    mcp extra: pip install 'sessionkit[mcp]'.
    """
    try:
        import mcp.server.mcpserver  # noqa: F401
    except ImportError:
        raise Failure("sessionkit mcp needs the MCP SDK: pip install 'sessionkit[mcp]'") from None
    from ..mcp_server import serve

    target = hook_store(store_url, **store)
    stores = [open_store(r, **store, must_exist=True) for r in roots]
    serve(stores or [target], target, budget=state().config.hooks.context_budget)
    exit_with(OK)


@click.command(
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
    from ..hooks import main as hook_main

    exit_with(int(hook_main(list(args))))


COMMANDS = [search_, mcp_, hook_]
