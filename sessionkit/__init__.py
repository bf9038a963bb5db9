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

#: the public names, by the module that defines them (the type checkers' view below
#: is held equal to it by tests/test_docs.py)
_EXPORTS: dict[str, str] = {
    "model": "Session Checkpoint Directive DirectiveState Link LinkStyle Citation Observation "
    "ExtraSection Origin Status",
    "document": "Document parse",
    "diagnostics": "Diagnostic Severity",
    "_api": "loads dumps lint decode",
    "adapters": "get_adapter register_format available_formats detect_format",
    "backends": "Store NoteInfo open_store register_backend",
    "errors": "SessionKitError ParseError FormatError ValidationError UnsupportedFormatError "
    "StoreError NotFoundError ConflictError PathSafetyError LimitExceededError "
    "MissingDependencyError",
    "config": "Config ConfigError load_config",
    "ops.migrate": "migrate MigrationReport",
    "ops.convert": "convert convert_text ConversionReport",
    "ops.lifecycle": "consume consume_directives directives_of DirectiveInfo",
    "ops.sync": "sync SyncReport",
    "ops.search": "search SearchHit",
}
_HOME = {name: module for module, names in _EXPORTS.items() for name in names.split()}
__all__ = sorted([*_HOME, "__version__"])


def __getattr__(name: str) -> Any:
    module = _HOME.get(name)
    if module is None:
        raise AttributeError(f"module 'sessionkit' has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(f"sessionkit.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__


if TYPE_CHECKING:  # pragma: no cover - the same names, for type checkers (``X as X``: exported)
    # fmt: off
    from ._api import decode as decode, dumps as dumps, lint as lint, loads as loads  # noqa: I001
    from .adapters import (available_formats as available_formats, detect_format as detect_format,
        get_adapter as get_adapter, register_format as register_format)
    from .backends import (NoteInfo as NoteInfo, Store as Store, open_store as open_store,
        register_backend as register_backend)
    from .config import Config as Config, ConfigError as ConfigError, load_config as load_config
    from .diagnostics import Diagnostic as Diagnostic, Severity as Severity
    from .document import Document as Document, parse as parse
    from .errors import (ConflictError as ConflictError, FormatError as FormatError,
        LimitExceededError as LimitExceededError, MissingDependencyError as MissingDependencyError,
        NotFoundError as NotFoundError, ParseError as ParseError,
        PathSafetyError as PathSafetyError,
        SessionKitError as SessionKitError, StoreError as StoreError,
        UnsupportedFormatError as UnsupportedFormatError, ValidationError as ValidationError)
    from .model import (Checkpoint as Checkpoint, Citation as Citation, Directive as Directive,
        DirectiveState as DirectiveState, ExtraSection as ExtraSection, Link as Link,
        LinkStyle as LinkStyle, Observation as Observation, Origin as Origin, Session as Session,
        Status as Status)
    from .ops.convert import (ConversionReport as ConversionReport, convert as convert,
        convert_text as convert_text)
    from .ops.lifecycle import (DirectiveInfo as DirectiveInfo, consume as consume,
        consume_directives as consume_directives, directives_of as directives_of)
    from .ops.migrate import MigrationReport as MigrationReport, migrate as migrate
    from .ops.search import SearchHit as SearchHit, search as search
    from .ops.sync import SyncReport as SyncReport, sync as sync
    # fmt: on
