"""The top-level functions: ``loads``, ``dumps``, ``lint``, ``read_document``."""

from __future__ import annotations

from .adapters import detect_format, get_adapter
from .diagnostics import Diagnostic, Severity
from .document import Document, parse
from .errors import ParseError, SessionKitError
from .model import Session

__all__ = ["decode", "dumps", "lint", "loads", "read_document"]

#: default cap on the size of one note, in bytes (see docs/reliability.md)
MAX_NOTE_BYTES = 8 * 1024 * 1024


def decode(data: bytes, path: str | None = None) -> str:
    """Decode a note's bytes as UTF-8 (a BOM is kept in the text).

    Raises:
        ParseError: not UTF-8, with the line of the first bad byte.
    """
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise ParseError(
            f"not valid UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start})",
            path=path,
            line=line,
        ) from None


def read_document(text: str, path: str | None = None) -> Document:
    """Parse text into a Document after the size check."""
    if len(text) > MAX_NOTE_BYTES:
        from .errors import LimitExceededError

        raise LimitExceededError(
            f"note is larger than the limit of {MAX_NOTE_BYTES} bytes", path=path, line=1
        )
    return parse(text, path)


def loads(text: str, path: str | None = None, format: str | None = None) -> Session:
    """Read a note's text into a :class:`Session`.

    Args:
        text: the whole note.
        path: its path, used in error messages (and filename checks).
        format: ``"aiwiki-v1"``, ``"aiwiki-v2"``, ``"basic-memory"``… or
            ``None`` to detect it.

    Raises:
        ParseError: unusable text (with path and line).
        FormatError: not a note of the format.
    """
    doc = read_document(text, path)
    name = format or detect_format(doc)
    try:
        return get_adapter(name).read(doc)
    except SessionKitError as exc:
        raise exc.with_path(path) from None


def dumps(session: Session, format: str | None = None) -> str:
    """Render a session as text.

    A session read by :func:`loads` and not changed renders to exactly the
    text it was read from; an edited one changes only the lines it must.
    ``format`` defaults to the format it was read from, else ``aiwiki-v2``.
    """
    origin = session.origin
    name = format or (origin.format if origin is not None else "aiwiki-v2")
    base = origin.document if origin is not None and origin.format == name else None
    return str(get_adapter(name).write(session, base=base).text)


def lint(text: str, path: str | None = None, format: str | None = None) -> list[Diagnostic]:
    """Every lint finding for a note's text (never raises for bad input).

    Unusable input (bad frontmatter, unknown format) is one error diagnostic.
    """
    try:
        doc = read_document(text, path)
        name = format or detect_format(doc)
    except SessionKitError as exc:
        return [
            Diagnostic(
                code="AW001" if isinstance(exc, ParseError) else "SK001",
                severity=Severity.ERROR,
                line=exc.line,
                message=exc.message,
                path=path,
            )
        ]
    return get_adapter(name).lint(doc)
