"""What each note format is, as data: its status words, its sections or categories, its keys.

A :class:`FormatProfile` says, for one format family, how its words map to
the model: the status words it reads and writes, which section (aiwiki) or
observation category (Basic Memory) holds which :class:`~sessionkit.model.Session`
list field, which frontmatter keys it owns, the prefixes under which its
own things travel in the *other* format, and its title and filename rules.
The crosswalk between the formats (:mod:`sessionkit.adapters.crosswalk`) maps
through :data:`AIWIKI` and :data:`BASIC_MEMORY`; anything else that needs one
of these rules (stores, hooks, operations) reads it here.

This module is light: it imports no YAML and no Markdown reader.

>>> from sessionkit.adapters.profiles import AIWIKI, BASIC_MEMORY
>>> AIWIKI.sections["Next steps"], BASIC_MEMORY.sections["next_step"]
('next_steps', 'next_steps')
>>> BASIC_MEMORY.note_types["coding_session"].field_of("blocker")
'gotchas'
>>> BASIC_MEMORY.status_of("draft"), BASIC_MEMORY.word_for(BASIC_MEMORY.status_of("archived"))
(<Status.ACTIVE: 'active'>, 'closed')
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

import attrs

from .._listing import NO_ID
from ..model import Status
from ..text.grammar import dated_key
from . import _aiwiki_words
from .basic_memory.permalink import filename_for_title, generate_permalink, normalize_project_name

__all__ = [
    "AIWIKI",
    "BASIC_MEMORY",
    "FormatProfile",
    "NoteType",
    "aiwiki_filename",
    "bm_filename",
    "filename_for_title",
    "generate_permalink",
    "normalize_project_name",
    "safe_id7",
]


def _frozen(value: Mapping[Any, Any]) -> Mapping[Any, Any]:
    return dict(value)


@attrs.frozen(kw_only=True)
class NoteType:
    """A note type some other tool writes in a format, and how its words map to the model.

    Read by views of that type (:func:`sessionkit.adapters.coding_session.coding_view`),
    not by the format's lossless reader: a note of the type still round-trips
    with its observations as they are.

    Attributes:
        name: the frontmatter ``type`` (``coding_session``).
        categories: observation category -> the :class:`Session` list field it
            fills (``None``: kept as a typed observation).
        session_keys: frontmatter keys naming the agent session a note belongs
            to, in order of preference.
        agents: a legacy session key -> the agent it implies (a note with
            ``claude_session_id`` is Claude Code's); the shared ``session_id``
            pairs with the note's own ``agent`` key.
        continues: the relation a note links the one before it with.
    """

    name: str
    categories: Mapping[str, str | None] = attrs.field(converter=_frozen)
    session_keys: tuple[str, ...] = ()
    agents: Mapping[str, str] = attrs.field(converter=_frozen, factory=dict)
    continues: str | None = None

    def field_of(self, category: str) -> str | None:
        """The :class:`Session` field a category fills (``None``: none, kept as is)."""
        return self.categories.get(category)

    def agent_session(self, meta: Mapping[str, Any]) -> tuple[str, str] | None:
        """``(agent, session id)`` of a note's frontmatter, if it names its agent session.

        Basic Memory's identity of an agent session is the pair: the shared
        ``session_id`` with the note's ``agent`` (empty when the note has none),
        a legacy key with the agent it implies.
        """
        for key in self.session_keys:
            value = meta.get(key)
            if value not in (None, ""):
                agent = self.agents.get(key, meta.get("agent"))
                return ("" if agent is None else str(agent), str(value))
        return None


@attrs.frozen(kw_only=True)
class FormatProfile:
    """One format family's rules, as data.

    Attributes:
        name: the family (``aiwiki``, ``basic-memory``).
        status_words: status word as read -> model status (lower case).
        status_default: what a word the table does not know maps to
            (``None``: such a word is an error).
        status_write: model status -> the word written for it.
        sections: where each list field lives: aiwiki section title, or
            Basic Memory observation category -> :class:`Session` field.
        keys: frontmatter key -> :class:`Session` field (the keys it owns).
        key_prefix: the prefix its own frontmatter keys take in the other
            format (``aiwiki_status`` in a Basic Memory note).
        section_prefix: the prefix its own sections take in the other format
            (``## aiwiki: Checkpoints`` in a Basic Memory note).
        filename: the file name of a new note, from its session's fields.
        note_types: note types other tools write in the format, by name
            (:class:`NoteType`: their own categories and links).
    """

    name: str
    status_words: Mapping[str, Status] = attrs.field(converter=_frozen)
    status_default: Status | None
    status_write: Mapping[Status, str] = attrs.field(converter=_frozen)
    sections: Mapping[str, str] = attrs.field(converter=_frozen)
    keys: Mapping[str, str] = attrs.field(converter=_frozen)
    key_prefix: str
    section_prefix: str
    filename: Callable[..., str] = attrs.field(eq=False)
    note_types: Mapping[str, NoteType] = attrs.field(converter=_frozen, factory=dict)

    def status_of(self, word: Any) -> Status:
        """The model status ``word`` maps to.

        Raises:
            ValueError: the word is unknown and the format has no default.
        """
        found = self.status_words.get(str(word).strip().lower())
        if found is not None:
            return found
        if self.status_default is None:
            raise ValueError(f"{word!r} is not a {self.name} status")
        return self.status_default

    def word_for(self, status: Status, word: str | None = None) -> str:
        """The status word to write: ``word`` (a note's own) while it maps to
        ``status``, else the format's word for ``status``."""
        if word is not None:
            try:
                if self.status_of(word) is status:
                    return word
            except ValueError:
                pass
        return self.status_write[status]

    def field_of(self, section: str) -> str | None:
        """The :class:`Session` field a section title or category holds, if any."""
        return self.sections.get(section)


_UNSAFE_ID = re.compile(r"[^0-9A-Za-z_-]")


def safe_id7(session_id: str | None) -> str:
    """The aiwiki filename id part: the first 7 safe characters (``[0-9A-Za-z_-]``).

    Anything else (``/``, ``.``, spaces, NUL…) is dropped first, so an id can
    never steer a filename; ``0000000`` when nothing is left.
    """
    cleaned = _UNSAFE_ID.sub("", session_id or "")[:7]
    return cleaned or NO_ID


def aiwiki_filename(started: str | None, session_id: str | None) -> str:
    """An aiwiki page's file name: ``{date_start}-{id7}.md``."""
    return dated_key(str(started), safe_id7(session_id))


def bm_filename(title: str) -> str:
    """A Basic Memory note's file name for ``title``, as ``write_note`` gives it."""
    return filename_for_title(title) + ".md"


#: the aiwiki session page (schema v1 and v2)
AIWIKI = FormatProfile(
    name="aiwiki",
    status_words={word: Status(word) for word in _aiwiki_words.STATUS_WORDS},
    status_default=None,
    status_write={Status(word): word for word in _aiwiki_words.STATUS_WORDS},
    sections=_aiwiki_words.SECTIONS,
    keys=_aiwiki_words.KEYS,
    key_prefix="aiwiki_",
    section_prefix="aiwiki: ",
    filename=aiwiki_filename,
)

#: the Basic Memory session note
BASIC_MEMORY = FormatProfile(
    name="basic-memory",
    status_words={
        **dict.fromkeys(("open", "resumed", "active", "draft", "blocked", "paused"), Status.ACTIVE),
        **dict.fromkeys(("waiting", "in-progress", "in_progress"), Status.ACTIVE),
        **dict.fromkeys(("closed", "done", "complete", "completed"), Status.DONE),
        **dict.fromkeys(("finished", "archived"), Status.DONE),
        **dict.fromkeys(("abandoned", "cancelled", "canceled", "dropped"), Status.ABANDONED),
    },
    status_default=Status.ACTIVE,
    status_write={Status.ACTIVE: "open", Status.DONE: "closed", Status.ABANDONED: "abandoned"},
    sections={
        "summary": "summary",
        "context": "context",
        "next_step": "next_steps",
        "decision": "decisions",
        "problem": "gotchas",
        "question": "questions",
    },
    keys={
        "title": "title",
        "status": "status",
        "tags": "tags",
        "started": "started",
        "ended": "ended",
        "project": "project",
        "cwd": "cwd",
        "claude_session_id": "id",
        "focus": "focus",
        "last_commit": "last_commit",
    },
    key_prefix="bm_",
    section_prefix="bm: ",
    filename=bm_filename,
    note_types={
        # the checkpoints Basic Memory's Claude Code and Codex plugins write
        "coding_session": NoteType(
            name="coding_session",
            categories={
                "summary": "summary",
                "context": "context",
                "decision": "decisions",
                "blocker": "gotchas",
                "next_step": "next_steps",
                "changed_file": "files_touched",
                "verification": None,
                "result": None,
            },
            # 0.24's hooks and skills write ``agent`` + ``session_id``; older
            # notes the agent's own key
            session_keys=("session_id", "claude_session_id", "codex_session_id"),
            agents={"claude_session_id": "claude-code", "codex_session_id": "codex"},
            continues="continues",
        ),
    },
)
