"""A base for small value classes on the hook path (no attrs there).

``attrs`` costs more to import than the whole of a hook run may take, so the
classes the agent hooks build (a page's parts and layout, the context, a
redaction finding) derive from :class:`Plain`: each lists its fields in
``__slots__`` and sets them in its own ``__init__``; equality, hash and repr
come from those fields, in that order.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["Plain"]


class Plain:
    """Equality (same class, same fields), hash and repr from ``__slots__``."""

    __slots__: tuple[str, ...] = ()

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self.__slots__)

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._values() == other._values()

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        inner = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__)
        return f"{type(self).__name__}({inner})"
