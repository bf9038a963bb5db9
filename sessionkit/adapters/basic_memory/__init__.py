"""The ``basic-memory`` format: Basic Memory notes (observations, relations, Picoschema).

A Basic Memory note is Markdown with YAML frontmatter.  Its facts are
*observations* (``- [category] content #tag (context)``) and *relations*
(``- relation_type [[Target]] (context)`` and any ``[[Target]]`` in text); see
:mod:`sessionkit.adapters.basic_memory.grammar` for the exact grammar and
``docs/basic-memory.md`` for the mapping to :class:`~sessionkit.model.Session`.

Reading keeps everything (:mod:`.read`).  Writing a new note follows Basic
Memory's own ``write_note`` byte for byte (key order, PyYAML safe-dump style,
``---\\n{yaml}---\\n\\n{body}``, canonical permalink); writing with a base
document splices only what changed (:mod:`.write`).

The names below are imported on first use: :mod:`.permalink` is light, and
:mod:`sessionkit.adapters.profiles` (light too) takes its rules from it.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from .adapter import BASIC_MEMORY, BasicMemoryAdapter
    from .read import (
        DEFAULT_FOLDER,
        PROFILE,
        SESSION_TYPES,
        BMView,
        bm_view,
        parse_bm_tags,
        session_id_of,
        split_lead,
        status_of,
        status_word_of,
    )
    from .write import dump_yaml, note_path, render_note

__all__ = [
    "BASIC_MEMORY",
    "DEFAULT_FOLDER",
    "PROFILE",
    "SESSION_TYPES",
    "BMView",
    "BasicMemoryAdapter",
    "bm_view",
    "dump_yaml",
    "note_path",
    "parse_bm_tags",
    "render_note",
    "session_id_of",
    "split_lead",
    "status_of",
    "status_word_of",
]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from importlib import import_module

        for where in ("read", "write", "adapter"):
            module = import_module(f"{__name__}.{where}")
            if name in module.__all__:
                value = globals()[name] = getattr(module, name)
                return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
