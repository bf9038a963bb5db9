"""``sessionkit mcp``: a Model Context Protocol server over stdio.

Built on the official ``mcp`` Python SDK (``pip install 'sessionkit[mcp]'``).
The tools an agent needs to find and keep its handoff notes:

``search_sessions``   full-text search (:func:`sessionkit.search`), paginated
``read_session``      one note, or one of its sections
``latest_handoff``    what the SessionStart hook gives, within the same budget
``add_next_step``     a bullet in ``## Next steps`` (a minimal, locked, redacting edit)
``add_decision``      a bullet in ``## Decisions made``
``consume_directive`` flip a directive's header to ``(consumed at …)``

Writes go through the same functions as the CLI (``sessionkit add``,
``sessionkit directive consume``), so they are locked, redacted and minimal.
Results are compact text (a search row in a few dozen tokens) and capped well
under MCP clients' output limits.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from typing import Any

__all__ = ["MAX_CHARS", "build_server", "serve"]

#: the longest text a tool returns (MCP clients warn from about 10,000 tokens)
MAX_CHARS = 20_000


def _capped(text: str, hint: str) -> str:
    if len(text) <= MAX_CHARS:
        return text
    return text[:MAX_CHARS] + f"\n… (cut at {MAX_CHARS} characters; {hint})"


@contextlib.contextmanager
def _told() -> Iterator[None]:
    """A sessionkit error becomes the tool's error text (for the model to read)."""
    from mcp.server.mcpserver.exceptions import ToolError

    from .errors import SessionKitError
    from .redaction import redact

    try:
        yield
    except SessionKitError as exc:
        raise ToolError(redact(str(exc)).text) from None


def _row(hit: Any) -> str:
    where = f"{hit.path}:{hit.line}" if hit.line else hit.path
    ident = (hit.session or "")[:7] or "-"
    state = f" ({hit.state})" if hit.state else ""
    return f"{where} | {hit.kind}{state} | {hit.date or '-'} | {ident} | {hit.snippet}"


def build_server(
    search_stores: Sequence[Any], write_store: Any, *, budget: int | None = None
) -> Any:
    """The server (an ``mcp.server.mcpserver.MCPServer``) over these stores.

    Args:
        search_stores: the stores ``search_sessions`` looks in.
        write_store: the store the other tools read and edit (the hooks' store).
        budget: the characters ``latest_handoff`` may give (the hooks' context budget).
    """
    from mcp.server.mcpserver import MCPServer

    from .document import parse
    from .ops import lifecycle
    from .ops.search import search

    server = MCPServer(
        "sessionkit",
        instructions=(
            "Session handoff notes of this repository: search past sessions, read the "
            "latest handoff, record next steps and decisions, consume directives."
        ),
    )

    @server.tool()
    def search_sessions(
        query: str,
        kind: str | None = None,
        since: str | None = None,
        status: str | None = None,
        limit: int = 10,
        offset: int = 0,
    ) -> str:
        """Search past sessions' notes (checkpoints, directives, decisions, gotchas, open
        questions, next steps, files touched, observations). Every word must match (any
        word when nothing has all); "a phrase" in quotes; prefix*. kind: one of session,
        checkpoint, directive, decision, gotcha, question, next-step, file, context,
        observation, relation. since: YYYY-MM-DD. One row per line:
        path:line | kind | date | session | snippet."""
        limit = max(1, min(int(limit), 50))
        offset = max(0, int(offset))
        with _told():
            hits = search(
                query,
                search_stores,
                kind=kind or None,
                since=since or None,
                status=status or None,
                limit=offset + limit + 1,
            )
        page = hits[offset : offset + limit]
        if not page:
            return "no match"
        lines = [_row(h) for h in page]
        if len(hits) > offset + limit:
            lines.append(f"(more: offset={offset + limit})")
        return _capped("\n".join(lines), "narrow the query or lower the limit")

    @server.tool()
    def read_session(id_or_path: str | None = None, section: str | None = None) -> str:
        """Read one session note: a note key, a session id or its 7-character short
        id (default: the latest). section: a level-2 heading's title such as
        "Next steps" or "Checkpoints" to read only that section."""
        with _told():
            key = lifecycle.find_session(write_store, id_or_path or None)
            text = write_store.read_text(key)
        if section:
            doc = parse(text, path=key)
            wanted = section.removeprefix("## ").strip().lower()
            found = next((s for s in doc.sections if s.title.strip().lower() == wanted), None)
            if found is None:
                titles = ", ".join(s.title for s in doc.sections) or "none"
                return f"{key}: no section {section!r} (sections: {titles})"
            text = "\n".join(line.rstrip("\r\n") for line in doc.lines[found.start : found.end])
        return _capped(f"{key}\n\n{text}", "ask for one section")

    @server.tool()
    def latest_handoff() -> str:
        """What the SessionStart hook gives: the latest session's summary line and its
        unconsumed directives, numbered as consume_directive takes them."""
        from .hooks import session_start_text
        from .ops.install import hook_program

        # (the commands it names run from the agent's shell: this sessionkit's absolute one)
        render: dict[str, Any] = {"program": hook_program()[0]}
        if budget:
            render["budget"] = budget
        with _told():
            text = session_start_text(write_store, render)
        return text or "no session notes yet"

    def _add(kind: str, text: str, session: str | None) -> str:
        from .redaction import redact

        with _told():
            report = lifecycle.add_item(write_store, kind, text, session=session or None)
        verb = "added" if report.added else "already present"
        return redact(f"{report.key}: {kind} {verb}: {report.text}").text

    @server.tool()
    def add_next_step(text: str, session: str | None = None) -> str:
        """Add a bullet to a session's "Next steps" (default: the latest session)."""
        return _add("next-step", text, session)

    @server.tool()
    def add_decision(text: str, session: str | None = None) -> str:
        """Add a bullet to a session's "Decisions made" (default: the latest session)."""
        return _add("decision", text, session)

    @server.tool()
    def consume_directive(
        session: str | None = None, index: int | None = None, all: bool = False
    ) -> str:
        """Mark a directive consumed once acted on: index as latest_handoff numbers it,
        or all=true for every unconsumed one (default: the newest unconsumed one)."""
        with _told():
            report = lifecycle.consume_directives(
                write_store, session or None, index=index, all=bool(all)
            )
        if not report.consumed:
            return f"{report.key}: no unconsumed directive to consume"
        numbers = ", ".join(str(d.index) for d in report.consumed)
        return (
            f"{report.key}: directive {numbers} consumed at {report.at}; "
            f"{report.remaining} still unconsumed"
        )

    return server


def serve(search_stores: Sequence[Any], write_store: Any, *, budget: int | None = None) -> None:
    """Run the server on stdin/stdout until the client closes it."""
    build_server(search_stores, write_store, budget=budget).run("stdio")
