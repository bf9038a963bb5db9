"""sessionkit: one typed model for AI coding-agent session handoff notes.

Read, lint, edit, migrate, convert and store aiwiki session pages and Basic
Memory session notes without losing a byte nobody changed::

    import sessionkit
    s = sessionkit.loads(text)                 # format detected
    assert sessionkit.dumps(s) == text         # lossless
    diags = sessionkit.lint(text, path="aiwiki/sessions/2026-05-18-7e8a3f2.md")

Names are imported lazily so that ``import sessionkit`` stays cheap on the
agent-hook path.
"""

from __future__ import annotations

TYPE_CHECKING = False  # (typing itself is not imported: see the module doc)
if TYPE_CHECKING:
    from typing import Any

__version__ = "0.1.0"

# public name -> module that defines it
_EXPORTS: dict[str, str] = {
    # model
    "Session": "sessionkit.model",
    "Checkpoint": "sessionkit.model",
    "Directive": "sessionkit.model",
    "DirectiveState": "sessionkit.model",
    "Link": "sessionkit.model",
    "LinkStyle": "sessionkit.model",
    "Citation": "sessionkit.model",
    "Observation": "sessionkit.model",
    "ExtraSection": "sessionkit.model",
    "Origin": "sessionkit.model",
    "Status": "sessionkit.model",
    # text layer
    "Document": "sessionkit.document",
    "parse": "sessionkit.document",
    # diagnostics
    "Diagnostic": "sessionkit.diagnostics",
    "Severity": "sessionkit.diagnostics",
    # functions
    "loads": "sessionkit._api",
    "dumps": "sessionkit._api",
    "lint": "sessionkit._api",
    "decode": "sessionkit._api",
    # formats
    "get_adapter": "sessionkit.adapters",
    "register_format": "sessionkit.adapters",
    "available_formats": "sessionkit.adapters",
    "detect_format": "sessionkit.adapters",
    # stores
    "Store": "sessionkit.backends",
    "NoteInfo": "sessionkit.backends",
    "open_store": "sessionkit.backends",
    "register_backend": "sessionkit.backends",
    # errors
    "SessionKitError": "sessionkit.errors",
    "ParseError": "sessionkit.errors",
    "FormatError": "sessionkit.errors",
    "ValidationError": "sessionkit.errors",
    "UnsupportedFormatError": "sessionkit.errors",
    "StoreError": "sessionkit.errors",
    "NotFoundError": "sessionkit.errors",
    "ConflictError": "sessionkit.errors",
    "PathSafetyError": "sessionkit.errors",
    "LimitExceededError": "sessionkit.errors",
    "MissingDependencyError": "sessionkit.errors",
    # operations
    "migrate": "sessionkit.ops.migrate",
    "consume": "sessionkit.ops.lifecycle",
    "consume_directives": "sessionkit.ops.lifecycle",
    "directives_of": "sessionkit.ops.lifecycle",
    "DirectiveInfo": "sessionkit.ops.lifecycle",
    # configuration
    "Config": "sessionkit.config",
    "ConfigError": "sessionkit.config",
    "load_config": "sessionkit.config",
    "MigrationReport": "sessionkit.ops.migrate",
    "convert": "sessionkit.ops.convert",
    "convert_text": "sessionkit.ops.convert",
    "ConversionReport": "sessionkit.ops.convert",
    "sync": "sessionkit.ops.sync",
    "SyncReport": "sessionkit.ops.sync",
    "search": "sessionkit.ops.search",
    "SearchHit": "sessionkit.ops.search",
}

__all__ = [
    "Checkpoint",
    "Citation",
    "Config",
    "ConfigError",
    "ConflictError",
    "ConversionReport",
    "Diagnostic",
    "Directive",
    "DirectiveInfo",
    "DirectiveState",
    "Document",
    "ExtraSection",
    "FormatError",
    "LimitExceededError",
    "Link",
    "LinkStyle",
    "MigrationReport",
    "MissingDependencyError",
    "NotFoundError",
    "NoteInfo",
    "Observation",
    "Origin",
    "ParseError",
    "PathSafetyError",
    "SearchHit",
    "Session",
    "SessionKitError",
    "Severity",
    "Status",
    "Store",
    "StoreError",
    "SyncReport",
    "UnsupportedFormatError",
    "ValidationError",
    "__version__",
    "available_formats",
    "consume",
    "consume_directives",
    "convert",
    "convert_text",
    "decode",
    "detect_format",
    "directives_of",
    "dumps",
    "get_adapter",
    "lint",
    "load_config",
    "loads",
    "migrate",
    "open_store",
    "parse",
    "register_backend",
    "register_format",
    "search",
    "sync",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'sessionkit' has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__


if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs only
    from ._api import decode, dumps, lint, loads
    from .adapters import available_formats, detect_format, get_adapter, register_format
    from .backends import NoteInfo, Store, open_store, register_backend
    from .config import Config, ConfigError, load_config
    from .diagnostics import Diagnostic, Severity
    from .document import Document, parse
    from .errors import (
        ConflictError,
        FormatError,
        LimitExceededError,
        MissingDependencyError,
        NotFoundError,
        ParseError,
        PathSafetyError,
        SessionKitError,
        StoreError,
        UnsupportedFormatError,
        ValidationError,
    )
    from .model import (
        Checkpoint,
        Citation,
        Directive,
        DirectiveState,
        ExtraSection,
        Link,
        LinkStyle,
        Observation,
        Origin,
        Session,
        Status,
    )
    from .ops.convert import ConversionReport, convert, convert_text
    from .ops.lifecycle import DirectiveInfo, consume, consume_directives, directives_of
    from .ops.migrate import MigrationReport, migrate
    from .ops.sync import SyncReport, sync
