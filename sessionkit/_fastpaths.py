"""The switch between sessionkit's few fast lanes and its general readers (private).

A fast lane is a second way to do one job, kept only where it saves at least
1.3x on a command users run (docs/performance.md names each and what it
saves).  Each must give exactly what the general path gives; one test holds it
there.  To rule the lanes out when you suspect one, set the environment
variable ``SESSIONKIT_FAST_PATHS=0`` (or ``false``, ``no``, ``off``), or turn
off some lanes alone with ``SESSIONKIT_FAST_PATHS=-lane,-lane`` (names from
:data:`LANES`; how ``benchmarks/lanes.py`` measures what one lane saves).
:func:`taken` counts the answers each lane gave in this process.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from contextlib import AbstractContextManager
    from typing import Any

__all__ = ["ENV", "LANES", "answered", "enabled", "general_paths", "lanes_off", "taken"]

#: the environment variable read by :func:`enabled`
ENV = "SESSIONKIT_FAST_PATHS"

#: the fast lanes, by the names :func:`taken` counts them under
LANES = {
    "session-start": "the session-start hook reading a local aiwiki folder without a store",
    "pre-compact": "the pre-compact hook splicing its entry into a local aiwiki note, no store",
}

_forced_general = 0
_taken = dict.fromkeys(LANES, 0)


def enabled(lane: str | None = None) -> bool:
    """Whether the fast lanes are on (the default); with ``lane`` (a name from
    :data:`LANES`), whether that lane is: the environment variable can turn
    off some lanes alone (see above)."""
    if _forced_general:
        return False
    raw = os.environ.get(ENV)
    if raw is None:
        return True
    if raw != _seen[0]:
        _seen[:] = [raw, _lanes_off(raw)]
    off: frozenset[str] | None = _seen[1]
    return off is not None and lane not in off


#: the variable's last value read and the lanes it turns off (``None``: all of them)
_seen: list[Any] = [None, frozenset()]

_NONE_OFF: frozenset[str] = frozenset()
_ALL_OFF = frozenset(LANES)


def lanes_off() -> frozenset[str]:
    """The lanes turned off right now (every name in :data:`LANES` when all are off): for a
    caller that asks about several lanes at once, ``lane not in lanes_off()`` is
    ``enabled(lane)``."""
    if _forced_general:
        return _ALL_OFF
    if os.environ.get(ENV) is None:
        return _NONE_OFF
    enabled()  # (reads the variable's value into _seen)
    off: frozenset[str] | None = _seen[1]
    return _ALL_OFF if off is None else off


def _lanes_off(value: str) -> frozenset[str] | None:
    """The lanes a value of the variable turns off (``None``: every lane)."""
    value = value.strip().lower()
    if value in ("0", "false", "no", "off"):
        return None
    names = [name.strip() for name in value.split(",")]
    return frozenset(LANES).intersection(name[1:] for name in names if name.startswith("-"))


class _General:
    """The context of :func:`general_paths` (a class: no :mod:`contextlib` on the hook path)."""

    def __enter__(self) -> None:
        global _forced_general
        _forced_general += 1

    def __exit__(self, *exc: object) -> None:
        global _forced_general
        _forced_general -= 1


def general_paths() -> AbstractContextManager[None]:
    """Run the block inside with every fast lane off (the general readers only)."""
    return _General()


def taken() -> dict[str, int]:
    """How many answers each fast lane (:data:`LANES`) has given in this process: a copy,
    never reset (tests and benchmarks compare two readings)."""
    return dict(_taken)


def answered(lane: str) -> None:
    """Count one answer of the fast lane ``lane`` (called by the lanes themselves).

    Raises:
        KeyError: ``lane`` is not one of :data:`LANES`.
    """
    _taken[lane] += 1
