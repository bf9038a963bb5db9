"""The top-level functions ``loads``, ``dumps``, ``lint``, ``decode`` (exported by sessionkit)."""

from __future__ import annotations

from .adapters import detect_format, get_adapter
from .diagnostics import Diagnostic, Severity
from .document import MAX_NOTE_BYTES, decode, read_document
from .errors import ParseError, SessionKitError

TYPE_CHECKING = False  # (typing is not imported at run time: lint's start-up pays for it)
if TYPE_CHECKING:
    from typing import Any

    from .adapters.aiwiki import Schema
    from .model import Session

__all__ = ["MAX_NOTE_BYTES", "decode", "dumps", "lint", "loads", "read_document"]


def loads(
    text: str,
    path: str | None = None,
    format: str | None = None,
    *,
    max_bytes: int | None = None,
) -> Session:
    """Read a note's text into a :class:`Session`.

    Args:
        text: the whole note.
        path: its path, used in error messages (and filename checks).
        format: ``"aiwiki-v1"``, ``"aiwiki-v2"``, ``"basic-memory"``… or
            ``None`` to detect it.
        max_bytes: refuse notes larger than this many UTF-8 bytes (default
            :data:`MAX_NOTE_BYTES`; the CLI passes ``limits.max_note_bytes``).

    Raises:
        ParseError: unusable text (with path and line); :class:`LimitExceededError`
            for a note over the size limit.
        FormatError: not a note of the format.
    """
    doc = read_document(text, path, max_bytes=max_bytes)
    name = format or detect_format(doc, by_content=True)
    try:
        return get_adapter(name).read(doc)
    except SessionKitError as exc:
        raise exc.with_path(path) from None


def listed(
    text: str, path: str | None = None, *, max_bytes: int | None = None
) -> dict[str, str | None]:
    """What ``sessionkit ls`` lists of a note: its ``id``, ``status`` (the word),
    ``started``, ``focus`` and ``title``, as :func:`loads` reads them (``max_bytes``
    as there).

    A note whose adapter reads its frontmatter fields alone (``read_header``:
    aiwiki, where these fields are all frontmatter) is not read past them.

    Raises:
        ParseError, FormatError: as :func:`loads` raises them, for the same notes.
    """
    doc = read_document(text, path, max_bytes=max_bytes)
    name = detect_format(doc, by_content=True)
    adapter = get_adapter(name)
    try:
        header = getattr(adapter, "read_header", None)
        if header is not None:
            fields = header(doc)
            return {key: fields.get(key) for key in _LISTED}
        session = adapter.read(doc)
    except SessionKitError as exc:
        raise exc.with_path(path) from None
    found: dict[str, str | None] = {key: getattr(session, key) for key in _LISTED}
    found["status"] = session.status.value
    return found


#: the fields :func:`listed` gives
_LISTED = ("id", "status", "started", "focus", "title")


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


def _with_nul(found: list[Diagnostic], text: str, path: str | None) -> list[Diagnostic]:
    """``found`` plus SK003 for the first NUL byte of ``text`` (unless a finding names it)."""
    at = text.find("\x00")
    if at < 0:
        return found
    line = text.count("\n", 0, at) + 1
    if any(d.line == line and "NUL" in d.message for d in found):
        return found  # a NUL in the frontmatter: already the YAML's error
    count = text.count("\x00")
    more = f" ({count} in all)" if count > 1 else ""
    return [
        *found,
        Diagnostic(
            code="SK003",
            severity=Severity.ERROR,
            line=line,
            message=f"NUL byte in the note{more}: it is not text (Basic Memory drops it, "
            "git calls the file binary); remove it",
            path=path,
        ),
    ]


def lint(
    text: str,
    path: str | None = None,
    format: str | None = None,
    *,
    max_bytes: int | None = None,
    schema: Schema | None = None,
) -> list[Diagnostic]:
    """Every lint finding for a note's text (never raises for bad input).

    Unusable input (bad frontmatter, unknown format, a note over ``max_bytes``,
    default :data:`MAX_NOTE_BYTES`) is one error diagnostic.

    Args:
        text: the whole note.
        path: its path, for messages and the filename check.
        format: the note's format, or ``None`` to detect it.
        max_bytes: the size limit in UTF-8 bytes.
        schema: an aiwiki session schema to lint aiwiki pages with instead of
            the built-in page of their version — e.g. a wiki's own
            ``aiwiki/schemas/session.md`` read with
            :func:`sessionkit.adapters.aiwiki.load_schema` or
            :func:`~sessionkit.adapters.aiwiki.schema_for_root`.  It applies
            to pages of the version it describes and is ignored for other
            formats.  ``lint`` never reads a schema page by itself (the
            ``sessionkit lint`` command does, for notes inside a wiki).
    """
    return lint_text(text, path, format, max_bytes, schema)


def lint_text(
    text: str,
    path: str | None,
    format: str | None = None,
    max_bytes: int | None = None,
    schema: Schema | None = None,
    data: bytes | None = None,
) -> list[Diagnostic]:
    """:func:`lint`, given the note's bytes too when the caller has them (``data``:
    the secret detectors read bytes faster than text)."""
    try:
        doc = read_document(text, path, max_bytes=max_bytes)
        name = format or detect_format(doc)
    except SessionKitError as exc:
        unusable = [
            Diagnostic(
                code="AW001" if isinstance(exc, ParseError) else "SK001",
                severity=Severity.ERROR,
                line=exc.line,
                message=exc.message,
                path=path,
            )
        ]
        return _with_nul(unusable, text, path) if "\x00" in text else unusable
    adapter = get_adapter(name)
    found: list[Diagnostic] | None = None
    if schema is not None and name.startswith("aiwiki"):
        from .adapters.aiwiki import AiwikiAdapter

        if isinstance(adapter, AiwikiAdapter):
            found = adapter.lint(doc, schema)
    if found is None:
        found = adapter.lint(doc)
    found = found + _lint_secrets(text if data is None else data, path, name)
    return _with_nul(found, text, path) if "\x00" in text else found


def _lint_secrets(data: str | bytes, path: str | None, format: str) -> list[Any]:
    global _lint_secrets
    from .redaction import lint_secrets

    _lint_secrets = lint_secrets  # (imported once: an import statement costs every note)
    return lint_secrets(data, path, format)
