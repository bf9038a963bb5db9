"""Storage backends: where notes live and how they are named.

(Stub: the registry and ``open_store`` are filled in by the stores work.)
"""

from __future__ import annotations

from typing import Any

from ._base import NoteInfo, Store, check_key

__all__ = ["NoteInfo", "Store", "check_key", "open_store", "register_backend"]


def register_backend(name: str, factory: Any, *, replace: bool = False) -> None:
    """Register a backend factory under ``name``."""
    raise NotImplementedError


def open_store(
    url: Any = None, layout: str | None = None, format: str | None = None, **storage_options: Any
) -> Store:
    """Open a store at a path or URL."""
    raise NotImplementedError
