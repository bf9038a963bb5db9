"""The top-level functions ``loads``, ``dumps``, ``lint``, ``decode`` (exported by sessionkit)."""

from __future__ import annotations

import re
from types import ModuleType

from . import _fastpaths
from .adapters import _is_builtin, detect_format, get_adapter
from .diagnostics import Diagnostic, Severity
from .document import MAX_NOTE_BYTES, decode, read_document
from .errors import ParseError, SessionKitError

TYPE_CHECKING = False  # (typing is not imported at run time: lint's start-up pays for it)
if TYPE_CHECKING:
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
    aiwiki, where these fields are all frontmatter) is not read past them.  That
    is the fast lane ``ls-header`` (:mod:`sessionkit._fastpaths`); with it off,
    every note is read whole.

    Raises:
        ParseError, FormatError: as :func:`loads` raises them, for the same notes.
    """
    doc = read_document(text, path, max_bytes=max_bytes)
    name = detect_format(doc, by_content=True)
    adapter = get_adapter(name)
    try:
        header = getattr(adapter, "read_header", None)
        if header is not None and _fastpaths.enabled("ls-header"):
            fields = header(doc)
            _fastpaths.answered("ls-header")
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


def lint_quick(
    data: bytes,
    path: str | None,
    format: str | None = None,
    max_bytes: int | None = None,
    schema: Schema | None = None,
) -> list[Diagnostic] | None:
    """Lint a plain aiwiki page's bytes without the general scan, or ``None``.

    ``None`` means: take the general path (:func:`lint`).  Only pages the
    built-in aiwiki formats would be chosen for are linted here, and their
    findings equal the general path's (see ``adapters/_aiwiki_quick.py``).
    """
    if len(data) > (MAX_NOTE_BYTES if max_bytes is None else max_bytes):
        return None
    off = _fastpaths.lanes_off()  # (asked once for the lanes the quick lint takes)
    if "quick-lint" in off:  # the quick lint is a fast lane: off with the switch
        return None
    # (ints for one-byte searches: "b'x' in data" first fails to read b'x' as an int,
    # and the TypeError it raises and drops costs more than the search)
    if 10 not in data:  # one line, or CR-only line ends: the general path says which
        return None
    if format not in (None, "aiwiki-v1", "aiwiki-v2") or not _is_builtin(format):
        return None
    # a BOM is no part of the page's lines, and CRLF line ends read as LF ones: the
    # same lines, the same findings (tests/test_lint_line_ends.py)
    plain = data[3:] if data.startswith(_BOM) else data
    if 13 in plain:  # CR
        if _LONE_CR.search(plain) is not None:  # a CR of its own: the general path
            return None
        plain = plain.translate(None, b"\r")  # (every CR ends a CRLF: a C loop, no search)
    quick = _quick or _load_quick()
    found: list[Diagnostic] | None = quick.quick_lint_bytes(
        plain, path, schema, None if format is None else int(format[-1]), off
    )
    if found is not None:
        _fastpaths.answered("quick-lint")
        secrets = _lint_secrets(data, path, format or "aiwiki")
        if secrets:  # (most notes have none: no copy of their findings)
            found = found + secrets
    if found is not None and 0 in data:  # NUL
        return _with_nul(found, data.decode("utf-8", "replace"), path)
    return found


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


_quick: ModuleType | None = None
_BOM = b"\xef\xbb\xbf"
#: a CR that is not followed by LF (a CR of its own)
_LONE_CR = re.compile(rb"\r(?!\n)")


def _lint_secrets(data: bytes, path: str | None, format: str) -> list[Diagnostic]:
    global _lint_secrets
    from .redaction import lint_secrets

    _lint_secrets = lint_secrets  # (imported once: an import statement costs every note)
    return lint_secrets(data, path, format)


def _load_quick() -> ModuleType:
    """Import the quick aiwiki lint on first use (``import sessionkit`` stays light)."""
    global _quick
    from .adapters import _aiwiki_quick as module

    _quick = module
    return module


def load_schema(text_or_path: str, *, source: str | None = None) -> Schema:
    """:func:`sessionkit.adapters.aiwiki.load_schema`, without importing the whole
    adapter (the model, attrs, the writer: ``sessionkit lint``'s start-up would pay
    for them on every wiki that has its own schema page)."""
    from .adapters._aiwiki_schema import load_schema

    return load_schema(text_or_path, source=source)


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
    try:
        data = text.encode()
    except UnicodeEncodeError:  # lone surrogates: the general path says where
        data = b""
    quick = lint_quick(data, path, format, max_bytes, schema) if data else None
    if quick is not None:
        return quick
    return lint_general(text, path, format, max_bytes=max_bytes, schema=schema)


def lint_general(
    text: str,
    path: str | None = None,
    format: str | None = None,
    *,
    max_bytes: int | None = None,
    schema: Schema | None = None,
) -> list[Diagnostic]:
    """:func:`lint` without trying :func:`lint_quick` first."""
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
    from .redaction import lint_secrets

    adapter = get_adapter(name)
    found: list[Diagnostic] | None = None
    if schema is not None and name.startswith("aiwiki"):
        from .adapters.aiwiki import AiwikiAdapter

        if isinstance(adapter, AiwikiAdapter):
            found = adapter.lint(doc, schema)
    if found is None:
        found = adapter.lint(doc)
    found = found + lint_secrets(text, path, name)
    return _with_nul(found, text, path) if "\x00" in text else found
