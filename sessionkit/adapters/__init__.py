"""Format adapters and their registry.

Formats are registered by name and imported on first use.  Third parties add
formats through the ``sessionkit.formats`` entry-point group; the entry point's
value is ``module:attribute`` naming an :class:`Adapter` instance (or a
zero-argument callable returning one).
"""

from __future__ import annotations

from .._entry_points import Registry
from ..errors import MissingDependencyError, SessionKitError, UnsupportedFormatError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ..document import Document
    from ._base import Adapter

__all__ = ["Adapter", "available_formats", "detect_format", "get_adapter", "register_format"]


def _made(target: Any) -> Adapter:
    """An entry point's target: the adapter, or a zero-argument callable returning one."""
    return target() if callable(target) and not hasattr(target, "read") else target  # type: ignore[no-any-return]


_plugins = Registry(
    "sessionkit.formats",
    "format",
    {
        "aiwiki-v2": "sessionkit.adapters.aiwiki:AIWIKI_V2",
        "aiwiki-v1": "sessionkit.adapters.aiwiki:AIWIKI_V1",
        "basic-memory": "sessionkit.adapters.basic_memory:BASIC_MEMORY",
    },
    _made,
    UnsupportedFormatError,
)


def register_format(name: str, adapter: str | Adapter, *, replace: bool = False) -> None:
    """Register an adapter (or a ``"module:attr"`` string loaded on first use)."""
    _plugins.register(name, adapter, replace)


def available_formats() -> list[str]:
    """Names of every registered format (built-in and from entry points)."""
    return _plugins.names()


def get_adapter(name: str) -> Adapter:
    """The adapter registered as ``name``, imported on first use.

    Raises:
        UnsupportedFormatError: no such format.
        MissingDependencyError: its module needs an optional dependency.
    """
    adapter: Adapter = _plugins.get(name)
    return adapter


#: the most a format claims a note by its place alone (aiwiki v2 under
#: ``aiwiki/sessions/``, so that lint says what the page lacks)
HINT_SCORE = 5


def detect_format(doc: Document, *, by_content: bool = False) -> str:
    """The name of the format that claims ``doc`` most confidently.

    ``by_content``: a note whose frontmatter reads but names no format is claimed
    by no format, even where its place alone (:data:`HINT_SCORE`) would (lint
    takes that hint, to say what the page lacks).

    Raises:
        UnsupportedFormatError: no adapter recognises it.
    """
    best, best_score = None, 0
    for name in available_formats():
        try:
            score = get_adapter(name).detect(doc)
        except MissingDependencyError:
            continue
        if score > best_score:
            best, best_score = name, score
            if score >= 100:  # (no other can claim it more)
                break
    if best is not None and by_content and best_score <= HINT_SCORE and doc.has_frontmatter:
        try:
            _ = doc.meta
            best = None  # (frontmatter that reads, and names no format)
        except SessionKitError:
            pass
    if best is None:
        # frontmatter nobody can read: its own error (the YAML's line and cause)
        try:
            _ = doc.meta
        except SessionKitError as exc:
            raise exc.with_path(doc.path) from None
        raise UnsupportedFormatError(
            "cannot tell the format of this note (no aiwiki schema_id, no Basic Memory "
            "frontmatter)",
            path=doc.path,
            line=1,
            option="format",
        )
    return best


def __getattr__(name: str) -> Any:
    # ``Adapter`` on first use: the light modules here must not pay for the model
    if name == "Adapter":
        from ._base import Adapter

        return Adapter
    raise AttributeError(f"module 'sessionkit.adapters' has no attribute {name!r}")
