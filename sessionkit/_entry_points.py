"""Entry points of one group, as :mod:`importlib.metadata` reads them."""

from __future__ import annotations

__all__ = ["entry_points"]


def entry_points(group: str) -> list[tuple[str, str]]:
    """``(name, value)`` of every entry point in ``group``."""
    from importlib.metadata import entry_points as read

    return [(ep.name, ep.value) for ep in read(group=group)]
