"""Small value classes without attrs (too costly to import on the hook path):
equality, hash and repr from ``__slots__``; :class:`Frozen` values cannot change."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["Frozen", "Plain"]


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


class Frozen(Plain):
    """A :class:`Plain` value whose fields its ``__init__`` sets once (:meth:`_set`)."""

    __slots__: tuple[str, ...] = ()

    def _set(self, **values: Any) -> None:
        for name, value in values.items():
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"{type(self).__name__} is frozen: {name!r} cannot be set")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is frozen: {name!r} cannot be deleted")

    def __reduce__(self) -> tuple[Any, ...]:
        return _rebuild, (type(self), self._values())

    def replace(self, **changes: Any) -> Any:
        """A copy with the fields named in ``changes`` set to their values.

        Raises:
            TypeError: a name that is no field.
        """
        unknown = set(changes) - set(self.__slots__)
        if unknown:
            raise TypeError(f"{type(self).__name__} has no field {sorted(unknown)[0]!r}")
        values = [changes.get(name, getattr(self, name)) for name in self.__slots__]
        return _rebuild(type(self), values)


def _rebuild(cls: type[Frozen], values: Any) -> Frozen:
    """A ``cls`` value with these field values (for pickling and :meth:`Frozen.replace`)."""
    new = object.__new__(cls)
    for name, value in zip(cls.__slots__, values, strict=True):
        object.__setattr__(new, name, value)
    return new
