"""Format adapters and their registry.

Formats are registered by name and imported on first use.  Third parties add
formats through the ``sessionkit.formats`` entry-point group; the entry point's
value is ``module:attribute`` naming an :class:`Adapter` instance (or a
zero-argument callable returning one).
"""

from __future__ import annotations

from ..errors import MissingDependencyError, SessionKitError, UnsupportedFormatError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ..document import Document
    from ._base import Adapter

__all__ = ["Adapter", "available_formats", "detect_format", "get_adapter", "register_format"]

#: built-in formats: name -> "module:attribute"
_BUILTIN: dict[str, str] = {
    "aiwiki-v2": "sessionkit.adapters.aiwiki:AIWIKI_V2",
    "aiwiki-v1": "sessionkit.adapters.aiwiki:AIWIKI_V1",
    "basic-memory": "sessionkit.adapters.basic_memory:BASIC_MEMORY",
}
_registry: dict[str, str | Adapter] = dict(_BUILTIN)
_loaded: dict[str, Adapter] = {}
_entry_points_read = False


def register_format(name: str, adapter: str | Adapter, *, replace: bool = False) -> None:
    """Register an adapter (or a ``"module:attr"`` string loaded on first use)."""
    if name in _registry and not replace:
        raise ValueError(f"format {name!r} is already registered")
    _registry[name] = adapter
    _loaded.pop(name, None)


def _read_entry_points() -> None:
    global _entry_points_read
    if _entry_points_read:
        return
    _entry_points_read = True
    from .._entry_points import entry_points  # (importlib.metadata, imported on first use)

    for name, value in entry_points("sessionkit.formats"):
        _registry.setdefault(name, value)


def available_formats() -> list[str]:
    """Names of every registered format (built-in and from entry points)."""
    _read_entry_points()
    return sorted(_registry)


def get_adapter(name: str) -> Adapter:
    """The adapter registered as ``name``, imported on first use.

    Raises:
        UnsupportedFormatError: no such format.
        MissingDependencyError: its module needs an optional dependency.
    """
    if name in _loaded:
        return _loaded[name]
    if name not in _registry:
        _read_entry_points()
    target = _registry.get(name)
    if target is None:
        raise UnsupportedFormatError(
            f"unknown format {name!r} (known: {', '.join(available_formats())})"
        )
    adapter: Any = target
    if isinstance(target, str):
        module_name, _, attr = target.partition(":")
        from importlib import import_module

        try:
            module = import_module(module_name)
        except ImportError as exc:
            raise MissingDependencyError(
                f"format {name!r} needs {exc.name or 'a missing module'}: "
                f"pip install 'sessionkit[{name}]'"
            ) from exc
        adapter = getattr(module, attr)
        if callable(adapter) and not hasattr(adapter, "read"):
            adapter = adapter()
    _loaded[name] = adapter
    return adapter  # type: ignore[no-any-return]


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
