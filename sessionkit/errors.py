"""The one error tree of sessionkit.

Every error sessionkit raises on purpose derives from :class:`SessionKitError`.
Errors about a place in a file carry ``path`` and ``line`` (1-based) so a person
can act on them; ``str(err)`` renders ``path:line: message``.  An error that
a keyword argument resolves names it in ``option``: ``str(err)`` then ends
with ``; pass format=...`` and :meth:`SessionKitError.cli_text` (what the
command line prints) with ``; use --format``.
"""

from __future__ import annotations

__all__ = [
    "ConflictError",
    "FormatError",
    "LimitExceededError",
    "MissingDependencyError",
    "NotFoundError",
    "ParseError",
    "PathSafetyError",
    "SessionKitError",
    "StoreError",
    "UnsupportedFormatError",
    "ValidationError",
]


class SessionKitError(Exception):
    """Base class of every error sessionkit raises on purpose.

    Attributes:
        message: what went wrong, in words a person can act on.
        path: the file (or store key) concerned, if any.
        line: 1-based line number in that file, if known.
    """

    def __init__(
        self,
        message: str,
        *,
        path: str | None = None,
        line: int | None = None,
        option: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.path = path
        self.line = line
        self.option = option

    @property
    def advice(self) -> str:
        """What to do, in Python's spelling (``pass format=...``), or ``""``: ``option`` names
        the keyword argument that resolves the error (:meth:`cli_text` gives its flag)."""
        return f"pass {self.option}=..." if self.option else ""

    def cli_text(self) -> str:
        """``str(self)`` with the advice in the command line's spelling (``use --format``)."""
        if not self.option:
            return str(self)
        flag = "--" + self.option.rstrip("_").replace("_", "-")
        return f"{self._where()}{self.message}; use {flag}"

    def with_path(self, path: str | None) -> SessionKitError:
        """Return this error with ``path`` filled in when it was not set yet."""
        if self.path is None and path is not None:
            self.path = path
        return self

    def _where(self) -> str:
        if self.path is None:
            return "" if self.line is None else f"line {self.line}: "
        where = self.path
        if not where.isprintable():  # (a name that is not UTF-8, a newline in it)
            from ._names import shown

            where = shown(where)
        return where + ("" if self.line is None else f":{self.line}") + ": "

    def __str__(self) -> str:
        advice = self.advice
        return f"{self._where()}{self.message}" + (f"; {advice}" if advice else "")


class ParseError(SessionKitError):
    """Input text cannot be understood (bad frontmatter, bad YAML, bad encoding)."""


class LimitExceededError(ParseError):
    """Input is larger or deeper than the configured limits allow."""


class FormatError(SessionKitError):
    """The text is well formed but is not a valid note of the requested format."""


class UnsupportedFormatError(SessionKitError):
    """No adapter is registered for the requested or detected format."""


class ValidationError(SessionKitError):
    """A model value is not acceptable (wrong type, bad date, unknown enum value)."""


class StoreError(SessionKitError):
    """A storage backend failed to read or write."""


class NotFoundError(StoreError, KeyError):
    """The requested note does not exist in the store."""

    def __str__(self) -> str:  # KeyError would quote the message otherwise
        return SessionKitError.__str__(self)


class ConflictError(StoreError):
    """A conditional write lost a race, or a target was edited since it was written."""


class PathSafetyError(StoreError):
    """A key, name or path would read or write outside the store's root."""


class MissingDependencyError(SessionKitError, ImportError):
    """An optional dependency is needed; the message says what to install."""
