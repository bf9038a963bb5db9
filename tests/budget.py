"""How many Hypothesis examples a test with its own count tries under the loaded profile."""

from __future__ import annotations

from hypothesis import settings


def examples(ci_count: int) -> int:
    """``ci_count`` under the "ci" profile (100 a test), a quarter under "quick" (25)."""
    return max(10, ci_count * settings.default.max_examples // 100)
