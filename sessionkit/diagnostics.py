"""Lint findings: one :class:`Diagnostic` per problem, with a stable code."""

from __future__ import annotations

import enum

from ._plain import Frozen

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["Diagnostic", "Severity"]


class Severity(enum.StrEnum):
    """How bad a finding is. Only ``error`` makes ``sessionkit lint`` exit 1."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    def __str__(self) -> str:
        return self.value


class Diagnostic(Frozen):
    """One lint finding (a frozen value: :meth:`replace` makes a changed copy).

    Attributes:
        code: stable rule code (``AW003``, ``BM001``).
        severity: error, warning or info.
        line: 1-based line, or ``None`` for the whole file.
        message: what is wrong, in words a person can act on.
        path: the file, when known.
        fixable: ``sessionkit lint --fix`` can repair it.
    """

    # (the fields in their order: repr and equality take them so)
    __slots__ = ("code", "severity", "line", "message", "path", "fixable")  # noqa: RUF023
    code: str
    severity: Severity
    line: int | None
    message: str
    path: str | None
    fixable: bool

    def __init__(
        self,
        *,
        code: str,
        severity: Severity,
        line: int | None,
        message: str,
        path: str | None = None,
        fixable: bool = False,
    ) -> None:
        # (each field through its slot's own setter, past Frozen's __setattr__: a finding
        # is made for every page with one, and object.__setattr__ by name costs more)
        _code(self, code)
        _severity(self, severity)
        _line(self, line)
        _message(self, message)
        _path(self, path)
        _fixable(self, fixable)

    def __reduce__(self) -> tuple[Any, ...]:
        # (the fields as they are and the severity as its value: --jobs N sends every
        # finding a worker makes through a pipe, and an enum member pickles as a call)
        return _revive, (
            self.code,
            self.severity.value,
            self.line,
            self.message,
            self.path,
            self.fixable,
        )

    def to_dict(self) -> dict[str, object]:
        """The JSON shape printed by ``sessionkit lint --json``."""
        return {
            "path": self.path,
            "line": self.line,
            "code": self.code,
            "severity": self.severity.value,
            "message": self.message,
        }

    def __str__(self) -> str:
        where = self.path or "<text>"
        if not where.isprintable():  # (a name that is not UTF-8, or holds a newline: escaped)
            from ._names import shown

            where = shown(where)
        if self.line is not None:
            where += f":{self.line}"
        # (the severity is a str: joined as one, without reading the enum's value)
        return where + ": " + self.code + " " + self.severity + ": " + self.message


def _revive(
    code: str, severity: str, line: int | None, message: str, path: str | None, fixable: bool
) -> Diagnostic:
    """A :class:`Diagnostic` from its pickled fields (see ``Diagnostic.__reduce__``)."""
    return _finding(code, _SEVERITIES[severity], line, message, path, fixable)


def _finding(
    code: str,
    severity: Severity,
    line: int | None,
    message: str,
    path: str | None = None,
    fixable: bool = False,
) -> Diagnostic:
    """``Diagnostic(code=code, severity=severity, …)`` by position, for the rules that
    make one for many pages (no keywords to parse: about half the cost)."""
    new = _new(Diagnostic)
    _code(new, code)
    _severity(new, severity)
    _line(new, line)
    _message(new, message)
    _path(new, path)
    _fixable(new, fixable)
    return new


#: the slots' setters (member descriptors), which Frozen's __setattr__ does not guard
_code, _severity, _line, _message, _path, _fixable = (
    Diagnostic.__dict__[name].__set__
    for name in ("code", "severity", "line", "message", "path", "fixable")
)
_new = object.__new__
_SEVERITIES = {member.value: member for member in Severity}
