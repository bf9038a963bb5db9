"""The steps of ``sessionkit lint`` (:func:`sessionkit._cli.lint`): the work items of
local paths (:func:`local_items`), the run over worker processes that prints each
finding as it comes (:func:`report`) and the one-line text of a failure
(:func:`failure_text`).
"""

from __future__ import annotations

import os
import sys

from .diagnostics import Severity

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator
    from typing import Any

    from .diagnostics import Diagnostic

__all__ = ["failure_text", "local_items", "render_json", "render_text", "report"]


def _is_url(target: str) -> bool:
    """Whether ``target`` names a remote (or ``memory://``) store: not a plain path and
    none of the file URL forms :func:`_local` reads."""
    return "://" in target and not target.startswith("file://")


def _local(target: str) -> str:
    """The local path a path argument names: itself, or for a file URL its path —
    ``file:/abs``, ``file:///abs`` and ``file://localhost/abs`` are all ``/abs``
    (``file://x`` keeps the relative ``x``, as :func:`sessionkit.open_store` reads
    it).  The one reading of a file URL for every command."""
    if not target.startswith("file:"):
        return target
    rest = target[len("file:") :]
    if rest.startswith("//"):
        rest = rest[2:]
        if rest.startswith("localhost/"):
            rest = rest[len("localhost") :]
    return rest


def _shown(url: str) -> str:
    """A local store path relative to the working directory when it is under it (as typed)."""
    if _is_url(url):
        return url
    try:
        rel = os.path.relpath(_local(url))
    except ValueError:  # another drive (Windows)
        return url
    return url if rel == ".." or rel.startswith(".." + os.sep) else rel


def local_items(target: str, schemas: Any) -> Iterator[Any]:
    """The lint work items (:data:`sessionkit.ops.lint.LintItem`) of a local path: a
    note, or every note of a folder (those behind a link leading outside it are
    refused), each with its wiki's own schema (``schemas``, a
    :class:`~sessionkit.ops.lint.WikiSchemas`).

    Raises:
        OSError: the path is not there (exit 2), raised when its turn comes.
    """
    from itertools import repeat

    from .ops.lint import note_runs, outside_wiki, spelled

    local = spelled(_local(target))
    refused: list[str] = []  # behind a link leading outside the folder: not read
    if os.path.isdir(local):
        for prefix, names in note_runs(local, refused):
            # (a run's notes share their folder: the schema is looked up once a run, and
            # the items are made by C-level maps)
            schema = schemas.for_note(prefix + names[0])
            yield from zip(repeat("file"), map(prefix.__add__, names), repeat(None), repeat(schema))
    else:
        os.stat(local)  # a missing path is an error (exit 2), not an empty lint
        away = outside_wiki(local)  # (a note of a wiki: the store's root rule)
        if away is not None:
            yield ("error", local, (f"refused: it resolves to {away[0]}, outside {away[1]}", None))
            return
        yield ("file", local, None, schemas.for_note(local))
    for path in refused:
        real = os.path.realpath(path)
        yield ("error", path, (f"refused: it resolves to {real}, outside {local}", None))


def report(items: Iterable[Any], limit: int, jobs: int | None, as_json: bool) -> bool:
    """Lint the work items (:data:`sessionkit.ops.lint.LintItem`) over ``jobs``
    processes and print every finding as it comes (``path:line: CODE severity:
    message``, or a JSON list); whether one is an error.

    Each process formats the findings it made (:func:`render_text`,
    :func:`render_json`): workers send back text, not findings.
    """
    from .ops.lint import lint_many

    render = render_json if as_json else render_text
    errors = False
    count = 0
    # (one write a note into stdout's own buffer: a flush per note would be a system
    # call per note; a terminal's stdout is line-buffered anyway)
    write = sys.stdout.write
    from .redaction import scrub

    for text, found, error in lint_many(items, limit=limit, jobs=jobs, render=render):
        if found:
            errors = errors or error
            text = scrub(text)  # (a message may quote a value: a file name, a key's value)
            if as_json:
                write(("[\n" if not count else ",\n") + text)
            else:
                write(text)
            count += found
    if as_json:
        write("\n]\n" if count else "[]\n")
    sys.stdout.flush()
    return errors


#: the severity that fails a run (an enum member read once, not once a finding)
_ERROR = Severity.ERROR


def render_text(found: list[Diagnostic]) -> tuple[str, int, bool]:
    """One note's findings as ``lint`` prints them (a line each), their number, and
    whether one is an error."""
    if not found:
        return "", 0, False
    error = _ERROR
    if len(found) == 1:  # (the usual case: no comprehension)
        diag = found[0]
        return f"{diag}\n", 1, diag.severity is error
    text = "".join([f"{diag}\n" for diag in found])
    return text, len(found), any(diag.severity is error for diag in found)


def render_json(found: list[Diagnostic]) -> tuple[str, int, bool]:
    """One note's findings as elements of ``lint --json``'s list (joined by ``,\\n``),
    their number, and whether one is an error."""
    if not found:
        return "", 0, False
    error = _ERROR
    text = ",\n".join([_json_item(diag) for diag in found])
    return text, len(found), any(diag.severity is error for diag in found)


def _json_item(diag: Diagnostic) -> str:
    """One finding as ``json.dumps(list, indent=2)`` prints a list element."""
    import json

    return "  " + json.dumps(diag.to_dict(), indent=2, ensure_ascii=False).replace("\n", "\n  ")


def _one_line(text: str) -> str:
    return " ".join(part.strip() for part in text.splitlines() if part.strip()) or text


def _os_message(exc: OSError) -> str:
    reason = exc.strerror or str(exc) or type(exc).__name__
    if exc.filename is not None:
        return f"{os.fsdecode(exc.filename)}: {reason}"
    return reason


def failure_text(exc: BaseException) -> str:
    """The one line (after ``sessionkit: ``) that reports an error stopping a command."""
    from .errors import SessionKitError

    if isinstance(exc, SessionKitError):
        return _one_line(exc.cli_text())
    from .backends._netfail import http_error, unreachable

    why = unreachable(exc)  # a remote store's endpoint refused or never answered
    if why is not None:
        return f"cannot reach the store: {why}"
    answer = http_error(exc)  # (an S3 500 is "[Errno 121] ..." otherwise)
    if answer is not None:
        return f"the store failed: {answer}"
    if isinstance(exc, OSError):
        return _one_line(_os_message(exc))
    return _one_line(f"internal error: {type(exc).__name__}: {exc}")


def _silence_stdout() -> None:
    """Point stdout at the null device (a closed pipe: nothing more to say there)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
