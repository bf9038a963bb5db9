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

from .document import item_field

__all__ = [
    "LIST_FIELDS",
    "Block",
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
    "list_blocks",
]

#: the list fields of :class:`Session` whose items :attr:`Session.blocks` can lay out
LIST_FIELDS = ("files_touched", "decisions", "gotchas", "questions", "next_steps")
#: the keys :attr:`Session.blocks` may have: the list fields, and ``checkpoints`` for
#: the text of the checkpoint log before its first entry (blocks that are not items)
BLOCK_FIELDS = (*LIST_FIELDS, "checkpoints")


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
    wanted: list[type] = []  # the item class, looked up on first use (it may be defined later)

    def convert(value: Any) -> Any:
        if type(value) is tuple:  # the usual case: no str, bytes or mapping to tell apart
            out = value
        elif isinstance(value, str | bytes | Mapping) or not hasattr(value, "__iter__"):
            raise _invalid(
                owner,
                name,
                f"expected a tuple of {item}, got {_kind(value)} {value!r:.60}"
                + (f" (write ({value!r},) for one item)" if isinstance(value, str) else ""),
            )
        else:
            out = tuple(value)
        if not wanted:
            wanted.append(str if item == "str" else globals()[item])
        want = wanted[0]
        for element in out:
            if type(element) is not want and not isinstance(element, want):
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
        gap: blank lines between its header and its first bullet, as written (layout
            only: not compared, not in JSON).
    """

    kind: str = "Dream"
    state: DirectiveState = DirectiveState.UNCONSUMED
    consumed_at: str | None = None
    items: tuple[str, ...] = ()
    status: str | None = None
    gap: int = attrs.field(default=0, eq=False, repr=False)

    def field(self, name: str) -> str | None:
        """The value of an item ``Name: value`` (case-insensitive name), if any."""
        return item_field(self.items, name)

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


@attrs.frozen(kw_only=True, field_transformer=_checked)
class Block:
    r"""One block of a list section, in order: an item of the list, or other Markdown.

    A list section (``Decisions made``, ``Next steps``…) is read into two
    things: its items' texts (:attr:`Session.next_steps` and the like, what
    most code wants) and, only when the section holds more than plain ``- ``
    items, its blocks (:attr:`Session.blocks`): every item and every block
    between items, in order, so that nothing written there is lost.

    Attributes:
        text: an item's text (the field's entry: without its marker, its
            continuation and nested lines kept, dedented, joined with
            ``\n``), or the Markdown of any other block (prose, a fence, a
            quote, a table, a ``###`` heading, an HTML comment) as written,
            lines joined with ``\n``.
        marker: the item's list marker (``-``, ``*``, ``+``, ``1.``, ``2)``…);
            ``None`` for a block that is not an item.
        gap: blank lines before this block, as written.
    """

    text: str
    marker: str | None = None
    gap: int = 0

    @property
    def is_item(self) -> bool:
        """True for a list item (it has a marker)."""
        return self.marker is not None


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
        status_word: the format's own status word when it is not the one the
            format writes for :attr:`status` (Basic Memory ``resumed``,
            ``draft``, ``blocked``…); kept when the note is written back while
            it still maps to :attr:`status` (see the format docs).
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
        blocks: for a list field (``decisions``, ``next_steps``… see
            :data:`LIST_FIELDS`) whose section holds more than plain ``- ``
            items, every block of the section in order (:class:`Block`);
            fields laid out plainly have no entry.  The field's tuple stays
            the truth for item texts: :func:`list_blocks` lines the two up.
            ``checkpoints``: the text of the checkpoint log before its first
            entry, when it has any.
        origin: where the session was read from (not compared).
    """

    id: str | None = None
    status: Status = Status.ACTIVE
    status_word: str | None = None
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
    blocks: Mapping[str, tuple[Block, ...]] = attrs.field(
        factory=dict, converter=_mapping, hash=False
    )
    origin: Origin | None = attrs.field(default=None, eq=False, repr=False, hash=False)

    def __attrs_post_init__(self) -> None:
        if self.blocks:  # line the blocks up with the items (the fields are the truth)
            object.__setattr__(self, "blocks", _settled(self))

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


def _item_texts(session: Session, field: str) -> list[str]:
    values: tuple[Any, ...] = getattr(session, field)
    if field == "files_touched":
        return [c.render() for c in values]
    return list(values)


def list_blocks(session: Session, field: str, default_marker: str = "-") -> list[Block]:
    """The blocks of list field ``field`` (see :class:`Block`), lined up with its items.

    Without an entry in :attr:`Session.blocks` every item is a ``-`` item.
    With one, items whose text is still in the field keep their marker and
    place; the blocks between them stay where they were; an item the field
    no longer has goes; a changed item keeps its marker; a new item takes the
    marker of the item before it (the next number when that one is numbered).
    The first block's ``gap`` is 0: nothing comes before it in its section.
    """
    if field == "checkpoints":
        return _first_gap_zero(list(session.blocks.get(field, ())))
    texts = _item_texts(session, field)
    laid = session.blocks.get(field)
    if not laid:
        return [Block(text=t, marker=default_marker) for t in texts]
    old = [b.text for b in laid if b.is_item]
    if old == texts:
        return _first_gap_zero(list(laid))
    return _first_gap_zero(_relaid(laid, old, texts, default_marker))


def _first_gap_zero(blocks: list[Block]) -> list[Block]:
    """``blocks`` with the first one's gap 0 (a section's first block follows its
    heading's blank line, however the blocks were edited)."""
    if blocks and blocks[0].gap:
        blocks[0] = attrs.evolve(blocks[0], gap=0)
    return blocks


def _relaid(
    laid: tuple[Block, ...], old: list[str], texts: list[str], default_marker: str
) -> list[Block]:
    """The blocks of ``laid`` with its items ``old`` replaced by ``texts`` (see
    :func:`list_blocks`)."""
    from ._diff import opcodes

    at_item: dict[int, list[Block]] = {k: [] for k in range(len(old))}
    before: dict[int, list[Block]] = {k: [] for k in range(len(old) + 1)}
    items = [b for b in laid if b.is_item]
    for tag, i1, i2, j1, j2 in opcodes(old, texts):
        if tag == "equal":
            for k in range(i1, i2):
                at_item[k] = [items[k]]
            continue
        n_old, n_new = i2 - i1, j2 - j1
        for n in range(min(n_old, n_new)):
            at_item[i1 + n] = [attrs.evolve(items[i1 + n], text=texts[j1 + n])]
        fresh = [Block(text=texts[j], marker="") for j in range(j1 + n_old, j2)]
        if fresh:
            if n_old:
                at_item[i2 - 1].extend(fresh)
            else:
                before[i1].extend(fresh)
    out: list[Block] = []
    k = 0
    for b in laid:
        if b.is_item:
            out.extend(before[k])
            out.extend(at_item[k])
            k += 1
        else:
            out.append(b)
    out.extend(before[len(old)])
    first = next((b.marker for b in out if b.marker), default_marker)
    last: str | None = None
    for n, b in enumerate(out):
        if b.marker == "":
            last = first if last is None else _next_marker(last)
            out[n] = attrs.evolve(b, marker=last)
        elif b.marker is not None:
            last = b.marker
    return out


def _settled(session: Session) -> dict[str, tuple[Block, ...]]:
    """:attr:`Session.blocks` lined up with the items (:func:`list_blocks`), without
    the entries of fields laid out plainly (only ``-`` items)."""
    out: dict[str, tuple[Block, ...]] = {}
    for field, laid in session.blocks.items():
        if field not in BLOCK_FIELDS:
            raise _invalid("Session", "blocks", f"{field!r} is not a list field")
        if isinstance(laid, str | bytes | Mapping) or not all(isinstance(b, Block) for b in laid):
            raise _invalid("Session", "blocks", f"expected a tuple of Block for {field!r}")
        if field == "checkpoints":
            if any(b.is_item for b in laid):
                raise _invalid("Session", "blocks", "the checkpoints' blocks are not items")
            if laid:
                out[field] = tuple(laid)
            continue
        parts: tuple[Block, ...]
        if isinstance(laid, tuple) and _lined_up(session, field, laid):
            parts = laid  # (kept as it is: an evolved session shares its blocks)
        else:
            parts = tuple(list_blocks(session, field))
        if any(b.marker != "-" for b in parts):
            out[field] = parts
    return out


def _lined_up(session: Session, field: str, laid: tuple[Block, ...]) -> bool:
    """Whether ``laid`` is already what :func:`list_blocks` makes of it: its items
    are the field's, in order, and its first block follows no blank line."""
    if laid and laid[0].gap:
        return False
    return [b.text for b in laid if b.is_item] == _item_texts(session, field)


_NUMBERED = re.compile(r"^(\d{1,9})([.)])$")


def _next_marker(marker: str) -> str:
    m = _NUMBERED.match(marker)
    if m is None:
        return marker
    return f"{int(m.group(1)) + 1}{m.group(2)}"
