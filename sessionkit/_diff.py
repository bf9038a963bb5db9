"""The one sequence diff the writers use: difflib's opcodes of the part between the
common head and tail (difflib is quadratic on thousands of equal items; an edit changes
a few items of a long list)."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

__all__ = ["opcodes"]


def opcodes(a: Sequence[Any], b: Sequence[Any]) -> list[tuple[str, int, int, int, int]]:
    """``SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes()`` of the part between
    the common head and tail, shifted into place, with the head and tail as ``equal``
    opcodes (the same edit script for every edit that touches one place)."""
    import difflib

    n, m = len(a), len(b)
    head = 0
    while head < n and head < m and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < n - head and tail < m - head and a[n - 1 - tail] == b[m - 1 - tail]:
        tail += 1
    out: list[tuple[str, int, int, int, int]] = []
    if head:
        out.append(("equal", 0, head, 0, head))
    if n - head - tail or m - head - tail:
        middle = difflib.SequenceMatcher(
            a=list(a[head : n - tail]), b=list(b[head : m - tail]), autojunk=False
        )
        for tag, i1, i2, j1, j2 in middle.get_opcodes():
            out.append((tag, i1 + head, i2 + head, j1 + head, j2 + head))
    if tail:
        out.append(("equal", n - tail, n, m - tail, m))
    return out
