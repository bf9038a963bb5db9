"""Regular expressions compiled on first use, not at import.

The hooks run on every agent start and compaction, and every module they
import is paid for in each run; a pattern ``re.compile`` builds at import
costs its compile even in a run that never matches it.  :func:`lazy` gives an
object that stands for the compiled pattern and compiles it the first time
one of its methods or attributes is used; from then on those are the
compiled pattern's own (bound methods kept on the object), so a call costs
what a call on the compiled pattern costs.

>>> from sessionkit._lazyre import lazy
>>> DATE = lazy(r"\\d{4}-\\d{2}-\\d{2}")
>>> DATE.search("at 2026-05-18").group(0)
'2026-05-18'
"""

from __future__ import annotations

import re

__all__ = ["lazy"]

#: the compiled pattern's names an object of :func:`lazy` answers for it
_NAMES = (
    "match",
    "fullmatch",
    "search",
    "sub",
    "subn",
    "split",
    "findall",
    "finditer",
    "scanner",
    "pattern",
    "flags",
    "groups",
    "groupindex",
)


class _Lazy:
    """A pattern and its flags, compiled when first used (see :func:`lazy`)."""

    def __init__(self, pattern: str, flags: int) -> None:
        self._source = (pattern, flags)

    def __getattr__(self, name: str) -> object:
        # called only for names not yet on the object: the first use
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
