"""Lint findings: one :class:`Diagnostic` per problem, with a stable code."""

from __future__ import annotations

import enum

from ._plain import Frozen

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["Diagnostic", "Severity"]

_setattr = object.__setattr__  # (past Frozen's __setattr__, which refuses every change)


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
        # (the fields one by one: a finding is made for every page with one, and
        # Frozen._set's keywords and loop cost about as much again)
        _setattr(self, "code", code)
        _setattr(self, "severity", severity)
        _setattr(self, "line", line)
        _setattr(self, "message", message)
        _setattr(self, "path", path)
        _setattr(self, "fixable", fixable)

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
        if self.line is not None:
            where += f":{self.line}"
        # (the severity is a str: joined as one, without reading the enum's value)
        return where + ": " + self.code + " " + self.severity + ": " + self.message


def _revive(
    code: str, severity: str, line: int | None, message: str, path: str | None, fixable: bool
) -> Diagnostic:
    """A :class:`Diagnostic` from its pickled fields (see ``Diagnostic.__reduce__``)."""
    new = object.__new__(Diagnostic)
    _setattr(new, "code", code)
    _setattr(new, "severity", _SEVERITIES[severity])
    _setattr(new, "line", line)
    _setattr(new, "message", message)
    _setattr(new, "path", path)
    _setattr(new, "fixable", fixable)
    return new


_SEVERITIES = {member.value: member for member in Severity}
