"""Bulk lint: many notes, in order, over a process pool, one note in memory at a time.

Each work item is one note: a local file (read in the worker) or bytes
already fetched from a store.  :func:`lint_many` yields each note's findings
in input order, as they arrive, so a caller can print while linting.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from typing import Any

from ..diagnostics import Diagnostic, Severity
from ..errors import ParseError
from ._parallel import ordered_map

__all__ = ["LintItem", "lint_data", "lint_file", "lint_item", "lint_many"]

#: one note to lint: ``("file", path, None)``, ``("data", shown path, bytes)``
#: or ``("error", shown path, (message, line))`` for a note a store could not read
LintItem = tuple[str, str, Any]


def too_big(path: str, size: int, limit: int) -> Diagnostic:
    """The finding for a note over the size limit (SK002)."""
    return Diagnostic(
        code="SK002",
        severity=Severity.ERROR,
        line=None,
        message=f"note is {size} bytes, over the limit of {limit} (limits.max_note_bytes)",
        path=path,
    )


def unreadable(message: str, line: int | None, path: str) -> Diagnostic:
    """The finding for a note whose bytes cannot be read as text (AW001)."""
    return Diagnostic(code="AW001", severity=Severity.ERROR, line=line, message=message, path=path)


def lint_data(data: bytes, path: str, limit: int) -> list[Diagnostic]:
    """Findings for a note's bytes (size limit, UTF-8, then its format's lint)."""
    if len(data) > limit:
        return [too_big(path, len(data), limit)]
    from .._api import decode, lint

    try:
        text = decode(data, path)
    except ParseError as exc:
        return [unreadable(exc.message, exc.line, path)]
    found = lint(text, path=path, max_bytes=limit)
    if any(not d.path for d in found):
        import attrs

        found = [d if d.path else attrs.evolve(d, path=path) for d in found]
    return found


def lint_file(path: str, limit: int) -> list[Diagnostic]:
    """Findings for a local file (its size is checked before it is read).

    Raises:
        OSError: the file cannot be read.
    """
    size = os.stat(path).st_size
    if size > limit:
        return [too_big(path, size, limit)]
    with open(path, "rb") as fh:
        data = fh.read()
    return lint_data(data, path, limit)


def lint_item(item: LintItem, limit: int) -> list[Diagnostic]:
    """Findings for one work item (see :data:`LintItem`)."""
    kind, path, payload = item
    if kind == "file":
        return lint_file(path, limit)
    if kind == "data":
        assert isinstance(payload, bytes)
        return lint_data(payload, path, limit)
    message, line = payload
    return [unreadable(str(message), line, path)]


class _Job:
    """A picklable ``item -> findings`` function with the size limit bound."""

    def __init__(self, limit: int) -> None:
        self.limit = limit

    def __call__(self, item: LintItem) -> list[Diagnostic]:
        return lint_item(item, self.limit)


def lint_many(
    items: Iterable[LintItem], *, limit: int, jobs: int | None = None
) -> Iterator[list[Diagnostic]]:
    """Each item's findings, in input order, linted over ``jobs`` processes.

    Items are read lazily; only a few chunks are in memory at once.

    Raises:
        OSError: a local file cannot be read (at its place in the order).
        ValueError: ``jobs`` is below 1.
    """
    return ordered_map(_Job(limit), items, jobs=jobs, chunk_size=64)
