"""The format-independent model of a session handoff note.

Nothing here knows a heading, a YAML key or a file: adapters map formats to
and from these classes.  All classes are frozen, slotted and keyword-only;
change one with :func:`attrs.evolve`.

Values are kept *as written* where formats disagree on their type: dates and
timestamps are ISO strings (``"2026-05-18"``, ``"2026-05-18T14:23:00Z"``), ids
and SHAs are strings.  What a format has that the model has no field for
rides along in :attr:`Session.extra` (frontmatter keys, in order),
:attr:`Session.sections` (unknown sections, in order),
:attr:`Session.observations` and :attr:`Session.relations` (Basic Memory facts
with no dedicated field), so nothing is lost.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Mapping
from typing import Any

import attrs

__all__ = [
    "Checkpoint",
    "Citation",
    "Directive",
    "DirectiveState",
    "ExtraSection",
    "Link",
    "LinkStyle",
    "Observation",
    "Origin",
    "Session",
    "Status",
    "links_in",
]


# -- checking values at the boundary ------------------------------------------------------
#
# Every model class gets a converter per field from its annotation (by
# ``field_transformer``, so a field added later is checked too): a value of
# the wrong type is a ValidationError naming the class and field, a plain
# string where a tuple is expected is refused (``next_steps="abc"`` would
# otherwise be three bullets), lists become tuples, and enum fields take
# their value (``status="done"``) but refuse an unknown one.


def _invalid(owner: str, name: str, message: str) -> Exception:
    from .errors import ValidationError

    return ValidationError(f"{owner}.{name}: {message}")


def _kind(value: Any) -> str:
    return type(value).__name__


def _check_scalar(owner: str, name: str, annotation: str) -> Any:
    optional = annotation.endswith(" | None")
    base = annotation.removesuffix(" | None")
    types: tuple[type, ...] = {"str": (str,), "int": (int,), "bool": (bool,)}[base]

    def convert(value: Any) -> Any:
        if value is None and optional:
            return value
        if type(value) in types or (
            isinstance(value, types) and not (base == "int" and isinstance(value, bool))
        ):
            return value
        want = f"{base} or None" if optional else base
        raise _invalid(owner, name, f"expected {want}, got {_kind(value)} {value!r}")

    return convert


def _check_enum(owner: str, name: str, enum_name: str) -> Any:
    def convert(value: Any) -> Any:
        cls = globals()[enum_name]
        if type(value) is cls:
            return value
        try:
            return cls(value)
        except ValueError:
            allowed = ", ".join(member.value for member in cls)
            raise _invalid(owner, name, f"{value!r} is not one of {allowed}") from None

    return convert


def _check_tuple(owner: str, name: str, item: str) -> Any:
    def convert(value: Any) -> Any:
        if isinstance(value, str | bytes | Mapping) or not hasattr(value, "__iter__"):
            raise _invalid(
                owner,
                name,
                f"expected a tuple of {item}, got {_kind(value)} {value!r:.60}"
                + (f" (write ({value!r},) for one item)" if isinstance(value, str) else ""),
            )
        out = value if type(value) is tuple else tuple(value)
        want = str if item == "str" else globals()[item]
        for element in out:
            if not isinstance(element, want):
                raise _invalid(
                    owner, name, f"expected {item} items, got {_kind(element)} {element!r:.60}"
                )
        return out

    return convert


_TUPLE = re.compile(r"^tuple\[(\w+), \.\.\.\]$")
_ENUMS = frozenset({"Status", "DirectiveState", "LinkStyle"})
_SCALARS = re.compile(r"^(?:str|int|bool)(?: \| None)?$")


def _checked(cls: type, fields: list[attrs.Attribute[Any]]) -> list[attrs.Attribute[Any]]:
    """``field_transformer``: add a checking converter to every field without one."""
    out = []
    for field in fields:
        annotation = field.type if isinstance(field.type, str) else None
        convert = None
        if field.converter is None and annotation is not None:
            m = _TUPLE.match(annotation)
            if m:
                convert = _check_tuple(cls.__name__, field.name, m.group(1))
            elif annotation.removesuffix(" | None") in _ENUMS:
                convert = _check_enum(cls.__name__, field.name, annotation)
            elif _SCALARS.match(annotation):
                convert = _check_scalar(cls.__name__, field.name, annotation)
        out.append(field.evolve(converter=convert) if convert is not None else field)
    return out


class Status(enum.StrEnum):
    """Lifecycle of a session.

    ``active``: in progress; ``done``: handed off; ``abandoned``: orphaned.
    Formats with other words (Basic Memory's ``open``/``resumed``/``closed``)
    map onto these; see the conversion docs.
    """

    ACTIVE = "active"
    DONE = "done"
    ABANDONED = "abandoned"

    def __str__(self) -> str:
        return self.value


class DirectiveState(enum.StrEnum):
    """Whether the next agent has acted on a directive yet."""

    UNCONSUMED = "unconsumed"
    CONSUMED = "consumed"

    def __str__(self) -> str:
        return self.value


class LinkStyle(enum.StrEnum):
    """How a link is spelled: ``[[target]]`` or ``[label](target)``."""

    WIKI = "wiki"
    MARKDOWN = "markdown"

    def __str__(self) -> str:
        return self.value


@attrs.frozen(kw_only=True, field_transformer=_checked)
class Citation:
    """A code citation ``path:line@sha7``, ``path:start-end@sha7`` or ``path``.

    Attributes:
        path: file path as written (relative to the repository).
        start: first cited line, if any.
        end: last cited line of a range, if any.
        sha: short commit SHA (usually 7 hex digits), if any.
        note: trailing text after the citation (``"— parser rewrite"``).
        code: whether the citation was written in backticks.
    """

    path: str
    start: int | None = None
    end: int | None = None
    sha: str | None = None
    note: str = ""
    code: bool = True

    @property
    def ref(self) -> str:
        """The citation itself without backticks or note: ``a.py:3-9@abc1234``."""
        out = self.path
        if self.start is not None:
            out += f":{self.start}"
            if self.end is not None:
                out += f"-{self.end}"
        if self.sha:
            out += f"@{self.sha}"
        return out

    def render(self) -> str:
        """The bullet text for this citation (without the ``- ``)."""
        ref = f"`{self.ref}`" if self.code else self.ref
        return f"{ref} {self.note}" if self.note else ref


@attrs.frozen(kw_only=True, field_transformer=_checked)
class Link:
    """A link from a session to another note or page.

    Attributes:
        target: the linked page or note (``adr-0007``, ``docs/API.md``).
        label: display text (``[[T|label]]`` or ``[label](T)``), if any.
        relation: relation type (Basic Memory); ``links_to`` for plain links.
        context: a trailing ``(context)``, if any.
        style: wiki or Markdown spelling.
    """

    target: str
    label: str | None = None
    relation: str = "links_to"
    context: str | None = None
    style: LinkStyle = LinkStyle.WIKI


@attrs.frozen(kw_only=True, field_transformer=_checked)
class Observation:
    """A categorised fact (Basic Memory's ``- [category] content #tag (context)``).

    ``category`` is ``None`` for an uncategorised line that Basic Memory still
    indexes (a ``#tag`` in prose); ``content`` keeps its tags.
    """

    category: str | None
    content: str
    tags: tuple[str, ...] = ()
    context: str | None = None


@attrs.frozen(kw_only=True, field_transformer=_checked)
class Directive:
    """An instruction for the next agent, inside a checkpoint.

    Attributes:
        kind: what kind of directive (``Dream``).
        state: unconsumed until the next agent acts on it.
        consumed_at: ISO timestamp of consumption, when consumed.
        items: its bullet lines without the ``- `` (``Scope: …``, ``Action: …``),
            excluding a ``Status:`` line.
        status: the value of a ``Status:`` bullet inside it, if it has one.
    """

    kind: str = "Dream"
    state: DirectiveState = DirectiveState.UNCONSUMED
    consumed_at: str | None = None
    items: tuple[str, ...] = ()
    status: str | None = None

    def field(self, name: str) -> str | None:
        """The value of an item ``Name: value`` (case-insensitive name), if any."""
        prefix = name.lower() + ":"
        for item in self.items:
            if item.lower().startswith(prefix):
                return item[len(prefix) :].strip()
        return None

    @property
    def action(self) -> str | None:
        """The ``Action:`` item's value, if any."""
        return self.field("Action")


@attrs.frozen(kw_only=True, field_transformer=_checked)
class Checkpoint:
    """One event of the checkpoint log (``### PreCompact at 2026-05-18T14:23:00Z``).

    Attributes:
        event: event name (``PreCompact``, ``Dream``, ``Wrap``…).
        at: ISO-8601 timestamp as written.
        body: the entry's Markdown other than its directives, stripped of
            surrounding blank lines and of the closing ``---`` rule.
        directives: the directives in the entry, in order.
    """

    event: str
    at: str
    body: str = ""
    directives: tuple[Directive, ...] = ()


@attrs.frozen(kw_only=True, field_transformer=_checked)
class ExtraSection:
    """A section the model has no field for, kept verbatim.

    Attributes:
        title: heading text without ``## `` (``Notes``).
        body: the section's lines after the heading, as written (line ends
            normalised to ``\\n``), without trailing blank lines.
    """

    title: str
    body: str = ""


@attrs.frozen(kw_only=True, eq=False, field_transformer=_checked)
class Origin:
    """Where a session was read from: the adapter uses it for minimal edits.

    Not part of equality: two sessions with the same facts are equal
    whatever text they came from.
    """

    format: str
    document: Any  # sessionkit.document.Document (kept untyped to avoid an import cycle)
    session: Any = None  # the Session as first read, to diff edits against


def _mapping(value: Mapping[str, Any] | None) -> Mapping[str, Any]:
    return dict(value or {})


@attrs.frozen(kw_only=True, field_transformer=_checked)
class Session:
    """One agent session's handoff note, independent of its format.

    Attributes:
        id: the agent's full session id (aiwiki ``session_id``, Basic Memory
            ``claude_session_id``), if known.
        status: lifecycle status.
        focus: what the session is about (aiwiki ``focus``).
        title: a note title (Basic Memory ``title``), if the format has one.
        summary: a one-paragraph summary, if any.
        started: when the session began, ISO date or timestamp as written.
        ended: when it ended, if it has.
        last_commit: SHA of the last commit during the session.
        project: project name (Basic Memory ``project``).
        cwd: working directory the session ran in.
        checkpoints: the event log, in file order.
        files_touched: code citations.
        decisions: decision bullets (text as written, links inside).
        gotchas: gotcha bullets.
        questions: open-question bullets.
        next_steps: next-step bullets.
        context: context bullets (Basic Memory ``[context]`` observations).
        tags: tags (Basic Memory ``tags``).
        observations: other observations, in order.
        relations: other relations, in order.
        extra: frontmatter keys the model has no field for, in order.
        sections: sections the model has no field for, in order.
        origin: where the session was read from (not compared).
    """

    id: str | None = None
    status: Status = Status.ACTIVE
    focus: str | None = None
    title: str | None = None
    summary: str | None = None
    started: str | None = None
    ended: str | None = None
    last_commit: str | None = None
    project: str | None = None
    cwd: str | None = None
    checkpoints: tuple[Checkpoint, ...] = ()
    files_touched: tuple[Citation, ...] = ()
    decisions: tuple[str, ...] = ()
    gotchas: tuple[str, ...] = ()
    questions: tuple[str, ...] = ()
    next_steps: tuple[str, ...] = ()
    context: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    observations: tuple[Observation, ...] = ()
    relations: tuple[Link, ...] = ()
    extra: Mapping[str, Any] = attrs.field(factory=dict, converter=_mapping, hash=False)
    sections: tuple[ExtraSection, ...] = ()
    origin: Origin | None = attrs.field(default=None, eq=False, repr=False, hash=False)

    @property
    def short_id(self) -> str | None:
        """First 7 characters of :attr:`id` (the filename part), if set."""
        return None if not self.id else self.id[:7]

    @property
    def links(self) -> tuple[Link, ...]:
        """Every link in decisions, gotchas and open questions, then relations."""
        found: list[Link] = []
        for text in (*self.decisions, *self.gotchas, *self.questions):
            found.extend(links_in(text))
        found.extend(self.relations)
        return tuple(found)

    def unconsumed(self) -> list[tuple[int, Checkpoint, Directive]]:
        """Unconsumed checkpoint directives as ``(number, checkpoint, directive)``.

        ``number`` is the directive's number, from 1 over every directive of
        the note (consumed ones too), the one ``sessionkit.consume(session,
        number)``, ``sessionkit directive consume --index`` and the
        session-start hook use.
        """
        out = []
        number = 0
        for cp in self.checkpoints:
            for d in cp.directives:
                number += 1
                if d.state is DirectiveState.UNCONSUMED:
                    out.append((number, cp, d))
        return out


_WIKI_LINK = re.compile(r"\[\[([^\[\]]+?)\]\]")
_MD_LINK = re.compile(r"(?<!!)\[([^\[\]]*)\]\(([^()\s]+)(?:\s+\"[^\"]*\")?\)")


def links_in(text: str) -> tuple[Link, ...]:
    """Wiki links ``[[target]]`` / ``[[target|label]]`` and Markdown links in ``text``."""
    found: list[tuple[int, Link]] = []
    for m in _WIKI_LINK.finditer(text):
        target, _, label = m.group(1).partition("|")
        found.append((m.start(), Link(target=target.strip(), label=label.strip() or None)))
    for m in _MD_LINK.finditer(text):
        found.append(
            (
                m.start(),
                Link(target=m.group(2), label=m.group(1) or None, style=LinkStyle.MARKDOWN),
            )
        )
    found.sort(key=lambda pair: pair[0])
    return tuple(link for _, link in found)
