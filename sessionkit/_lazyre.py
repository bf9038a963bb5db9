"""Regular expressions compiled on first use, not at import (the hooks import modules
whose patterns a run may never use): after the first use, the compiled pattern's own
bound methods sit on the object."""

from __future__ import annotations

import re

__all__ = ["lazy"]

#: the compiled pattern's names an object of :func:`lazy` answers for it
_NAMES: tuple[str, ...] = (
    "match",
    "fullmatch",
    "search",
    "sub",
    "subn",
    "split",
    "findall",
    "finditer",
)
_NAMES += ("scanner", "pattern", "flags", "groups", "groupindex")


class _Lazy:
    """A pattern and its flags, compiled when first used (see :func:`lazy`)."""

    def __init__(self, pattern: str, flags: int) -> None:
        self._source = (pattern, flags)

    def __getattr__(self, name: str) -> object:  # (only for names not yet set: first use)
        if name not in _NAMES:
            raise AttributeError(name)
        compiled = re.compile(*self._source)
        for each in _NAMES:
            setattr(self, each, getattr(compiled, each))
        return getattr(compiled, name)

    def __repr__(self) -> str:
        return f"lazy({self._source[0]!r}, {self._source[1]})"


def lazy(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """``re.compile(pattern, flags)``, compiled the first time it is used."""
    return _Lazy(pattern, flags)  # type: ignore[return-value]
