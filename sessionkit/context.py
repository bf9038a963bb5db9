"""The session-start context: what an agent is told about the last session, within a budget.

Agents cut long hook output (Claude Code past 10,000 characters), so the context
has a hard budget (``hooks.context_budget``, 9,000 characters by default, or an
estimate in tokens) and is laid out most important first: the note's line (key,
day, status, focus), the count of unconsumed directives, each of them oldest first,
the instruction that marks them consumed, for ``source = "compact"`` the checkpoint
just recorded, the next steps, the open questions; then, when anything did not
fit, one line saying how much was left out and the command that prints it all.
When it does not fit, identical directives are folded into one line first, then
each part keeps its longest prefix that fits.  Imports nothing heavy (the hooks).
"""

from __future__ import annotations

from ._config_sources import MIN_BUDGET, UNITS, check_budget
from ._plain import Frozen

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence
    from typing import Any

__all__ = [
    "DEFAULT_BUDGET",
    "MIN_BUDGET",
    "SOURCES",
    "UNITS",
    "Context",
    "check_budget",
    "measure",
    "render",
]

#: default ``hooks.context_budget`` (characters): under Claude Code's 10,000
DEFAULT_BUDGET = 9000
#: ``source`` values of Claude Code's SessionStart payload
SOURCES = ("startup", "resume", "clear", "compact")

# caps, in base units (characters, or UTF-8 bytes for tokens), of what is never left out
_HEADER_CAP = 240
_CHECKPOINT_CAP = 150
_REST_CAP = 160
_ITEM_CAP = 1000
_MIN_CLIP = 80  # an item is clipped to the room left only when that much is left
_CONSUME = (
    "When done, mark them consumed: {program} directive consume --all (or --index N for one)."
)


def measure(text: str, unit: str = "chars") -> int:
    """The size of ``text`` in ``unit``: characters, or estimated tokens.

    The token estimate is one token per three UTF-8 bytes, rounded up: more
    than real tokenizers count for English (about four characters a token)
    and about right for CJK text, so a budget in tokens is not exceeded.
    """
    if unit == "tokens":
        return -(-len(text.encode("utf-8")) // 3)
    return len(text)


class Context(Frozen):
    """A rendered context: immutable (``replace(**changes)`` makes a changed copy).

    Attributes:
        text: what the agent is given.
        key: the note it describes.
        source: the SessionStart source it was rendered for.
        budget: the budget (0: none) and ``unit`` it was rendered within.
        size: the size of ``text`` in ``unit``.
        unconsumed: how many unconsumed directives the note has.
        shown: how many of them the text names.
        left_out: items left out, by part (``directives``, ``next_steps``,
            ``questions``, ``checkpoint``), only parts that lost some.
        left_out_size: the size (in ``unit``) of the full rendering not shown.
        rest: the command that prints the whole context.
    """

    __slots__ = (
        "budget",
        "key",
        "left_out",
        "left_out_size",
        "rest",
        "shown",
        "size",
        "source",
        "text",
        "unconsumed",
        "unit",
    )
    text: str
    key: str
    source: str
    budget: int
    unit: str
    size: int
    unconsumed: int
    shown: int
    left_out: dict[str, int]
    left_out_size: int
    rest: str

    def __init__(
        self,
        *,
        text: str,
        key: str,
        source: str,
        budget: int,
        unit: str,
        size: int,
        unconsumed: int,
        shown: int,
        left_out: dict[str, int] | None = None,
        left_out_size: int = 0,
        rest: str = "",
    ) -> None:
        self._set(
            text=text,
            key=key,
            source=source,
            budget=budget,
            unit=unit,
            size=size,
            unconsumed=unconsumed,
            shown=shown,
            left_out={} if left_out is None else left_out,
            left_out_size=left_out_size,
            rest=rest,
        )

    def __eq__(self, other: object) -> bool:
        return type(other) is Context and self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]  # (it holds a dict)

    def __repr__(self) -> str:
        return f"Context(key={self.key!r}, source={self.source!r}, text={self.text!r})"

    @property
    def complete(self) -> bool:
        """Whether nothing was left out."""
        return not self.left_out and not self.left_out_size

    def to_dict(self) -> dict[str, Any]:
        """JSON shape (``sessionkit context --json``)."""
        out = {name: getattr(self, name) for name in _JSON_KEYS.split()}
        return {**out, "left_out": dict(self.left_out)}  # (a copy, in its place)


_JSON_KEYS = (
    "key source budget unit size complete unconsumed shown left_out left_out_size rest text"
)


class _Part:
    """One part of the rendering: a heading (or none) and its items, each one line."""

    __slots__ = ("full", "heading", "items", "label", "weights")

    def __init__(
        self,
        label: str,
        heading: str | None,
        items: list[str],
        weights: list[int] | None = None,
        full: list[str] | None = None,
    ) -> None:
        self.label, self.heading, self.items = label, heading, items
        self.weights = weights or [1] * len(items)  # how many things each item stands for
        self.full = full or items  # the full rendering's text of what each item stands for


def _one_line(text: str) -> str:
    # splitlines() first: it breaks at characters split() keeps (U+001C..U+001E among them)
    return " ".join(" ".join(str(text).splitlines()).split())


def _clip(text: str, cap: int, unit: str) -> str:
    """``text`` shortened (ending in ``…``) so that its base size is at most ``cap``."""
    if _base(text, unit) <= cap:
        return text
    if unit == "tokens":
        data = text.encode("utf-8")[: max(0, cap - 3)]
        return data.decode("utf-8", "ignore") + "…"
    return text[: max(0, cap - 1)] + "…"


def _base(text: str, unit: str) -> int:
    """Size in base units: characters, or UTF-8 bytes for a token budget."""
    return len(text.encode("utf-8")) if unit == "tokens" else len(text)


def _ranges(numbers: Sequence[int]) -> str:
    out: list[str] = []
    start = prev = numbers[0]
    for n in [*numbers[1:], None]:
        if n is not None and n == prev + 1:
            prev = n
            continue
        out.append(str(start) if start == prev else f"{start}-{prev}")
        if n is not None:
            start = prev = n
    if len(out) > 6:
        out = [*out[:5], f"… {len(out) - 5} more ranges"]
    return ", ".join(out)


def _directive_line(d: Any) -> str:
    where = f" (from checkpoint at {d.checkpoint_at})" if d.checkpoint_at else ""
    return f"[{d.index}] {d.kind} directive{where}: {_one_line(d.action or '(no action)')}"


def _folded(open_: Sequence[Any]) -> tuple[list[str], list[int], list[str]]:
    """Identical directives (same kind and action) as one line each, in first-seen order."""
    groups: dict[tuple[str, str], list[Any]] = {}
    for d in open_:
        groups.setdefault((str(d.kind), _one_line(d.action or "(no action)")), []).append(d)
    lines, weights, full = [], [], []
    for (kind, action), members in groups.items():
        if len(members) == 1:
            lines.append(_directive_line(members[0]))
        else:
            ats = [m.checkpoint_at for m in members if m.checkpoint_at]
            span = f", checkpoints {ats[0]} to {ats[-1]}" if ats else ""
            numbers = _ranges([m.index for m in members])
            lines.append(f"[{numbers}] {kind} directive ×{len(members)}{span}: {action}")
        weights.append(len(members))
        full.append("\n".join(_directive_line(m) for m in members))
    return lines, weights, full


def _checkpoint_lines(session: Any) -> tuple[str | None, list[str]]:
    """The newest checkpoint: a heading and its body's lines (compact source)."""
    checkpoints = getattr(session, "checkpoints", ())
    if checkpoints:
        cp = checkpoints[-1]
        body = [line for line in str(cp.body).splitlines() if line.strip()]
        return f"Checkpoint just recorded: {cp.event} at {cp.at}", body
    # Basic Memory: a ``- [context] PreCompact at …`` observation
    for item in reversed(getattr(session, "context", ())):
        if str(item).startswith("PreCompact at"):
            return f"Checkpoint just recorded: {_one_line(item)}", []
    for obs in reversed(getattr(session, "observations", ())):
        if obs.category == "context" and str(obs.content).startswith("PreCompact at"):
            return f"Checkpoint just recorded: {_one_line(obs.content)}", []
    return None, []


def _header(key: str, session: Any) -> str:
    day = (session.started or "")[:10]
    if not day:  # the first date in the note's name
        from .text.grammar import DATE

        m = DATE.search(key)
        day = (m.group(0) if m else "") or "undated"
    label = _one_line(session.focus or session.title or "unset")
    return f"Latest session note {_one_line(key)}: {day}, status {session.status}, focus: {label}"


def _left_size(parts: Sequence[_Part], shown: Sequence[list[str]], unit: str) -> int:
    """How much of the full rendering the shown items leave out (in base units)."""
    left = 0
    for part, keep in zip(parts, shown, strict=True):
        for i, whole in enumerate(part.full):
            if i >= len(keep):
                left += _base(whole, unit) + 1
            elif part.items[i] == whole and keep[i] != whole:  # clipped
                left += _base(whole, unit) - _base(keep[i], unit)
            elif keep[i] != part.items[i]:  # a folded line, clipped
                left += _base(part.items[i], unit) - _base(keep[i], unit)
    return left


def _left_out_line(
    left: dict[str, tuple[int, int]], size: int, budget: int, unit: str, rest: str
) -> str:
    names = {
        "directives": "directives",
        "checkpoint": "checkpoint lines",
        "next_steps": "next steps",
        "questions": "open questions",
    }
    parts = [f"{n:,} of {total:,} {names[label]}" for label, (n, total) in left.items() if n]
    what = ", ".join(parts) if parts else "parts of long lines"
    word = "characters" if unit == "chars" else "tokens"
    return (
        f"[Left out to fit {budget:,} {word}: {what} ({size:,} {word} in all). All of it: {rest}]"
    )


def render(
    key: str,
    session: Any,
    directives: Iterable[Any],
    *,
    source: str = "startup",
    budget: int = DEFAULT_BUDGET,
    unit: str = "chars",
    rest: str | None = None,
    program: str = "sessionkit",
) -> Context:
    """Render the context of one note within ``budget``.

    Args:
        key: the note's key (named in the first line).
        session: the note's :class:`~sessionkit.model.Session`.
        directives: every directive of the note, numbered (objects with
            ``index``, ``kind``, ``action``, ``state``, ``checkpoint_at``,
            as :func:`sessionkit.ops.lifecycle.directives_of` returns).
        source: ``startup``, ``resume``, ``clear`` (the handoff) or
            ``compact`` (also the checkpoint just recorded); others count
            as ``startup``.
        budget: the most ``text`` may measure in ``unit``; 0 for no limit.
        unit: ``"chars"`` or ``"tokens"`` (see :func:`measure`).
        rest: the command that shows everything (named in the last line
            when something is left out); default ``PROGRAM context --budget 0``.
        program: how the agent's shell runs sessionkit (the hooks pass the absolute
            command ``install-hooks`` records: an agent's shell has no venv).

    Raises:
        ValueError: ``budget`` or ``unit`` is unusable (see :func:`check_budget`).
    """
    problem = check_budget(budget, unit)
    if problem is not None:
        raise ValueError(f"context budget {problem}")
    source = source if source in SOURCES else "startup"
    rest = None if rest is None else _one_line(rest)
    if rest is None or _base(rest, unit) > _REST_CAP:
        rest = f"{program} context --budget 0" + (
            " --source compact" if source == "compact" else ""
        )
    consume = _CONSUME.format(program=program)
    open_ = [d for d in directives if str(d.state) == "unconsumed"]
    header = _header(key, session)
    count = (
        f"Unconsumed directives ({len(open_)}) - act on them before other work:" if open_ else None
    )
    parts: list[_Part] = [_Part("directives", None, [_directive_line(d) for d in open_])]
    tail: list[_Part] = []
    checkpoint: str | None = None
    if source == "compact":
        checkpoint, body = _checkpoint_lines(session)
        if checkpoint is not None:
            tail.append(_Part("checkpoint", None, [_one_line(b) for b in body]))
    steps = [f"- {_one_line(s)}" for s in getattr(session, "next_steps", ())]
    questions = [f"- {_one_line(q)}" for q in getattr(session, "questions", ())]
    if steps:
        tail.append(_Part("next_steps", "Next steps:", steps))
    if questions:
        tail.append(_Part("questions", "Open questions:", questions))

    def assemble(head: str, shown: list[list[str]], cp_head: str | None) -> str:
        lines = [head]
        if count is not None:
            lines.append(count)
            lines.extend(shown[0])
            lines.append(consume)
        if cp_head is not None:
            lines.append(cp_head)
        for part, items in zip(all_parts[1:], shown[1:], strict=True):
            if items and part.heading is not None:
                lines.append(part.heading)
            lines.extend(items)
        return "\n".join(lines)

    all_parts = parts + tail
    full = assemble(header, [p.items for p in all_parts], checkpoint)
    full_size = measure(full, unit)
    base = {
        "key": key,
        "source": source,
        "budget": budget,
        "unit": unit,
        "unconsumed": len(open_),
        "rest": rest,
    }
    if budget == 0 or full_size <= budget:
        return Context(text=full, size=full_size, shown=len(open_), **base)  # type: ignore[arg-type]

    # -- it does not fit: fold, clip, then keep each part's longest prefix that fits
    capacity = budget * 3 if unit == "tokens" else budget
    folded, weights, whole = _folded(open_)
    parts[0] = all_parts[0] = _Part("directives", None, folded, weights, whole)
    head = _clip(header, _HEADER_CAP, unit)
    worst = max(
        _base(_left_out_line({}, full_size, budget, unit, rest), unit),
        _base(
            _left_out_line(
                {p.label: (sum(p.weights), sum(p.weights)) for p in all_parts},
                full_size,
                budget,
                unit,
                rest,
            ),
            unit,
        ),
    )
    used = _base(head, unit) + 1 + worst
    if count is not None:
        used += _base(count, unit) + 1 + _base(consume, unit) + 1
    cp_head = None if checkpoint is None else _clip(checkpoint, _CHECKPOINT_CAP, unit)
    if cp_head is not None:
        used += _base(cp_head, unit) + 1
    shown: list[list[str]] = []
    left: dict[str, tuple[int, int]] = {}
    for part in all_parts:
        keep: list[str] = []
        heading_cost = 0 if part.heading is None else _base(part.heading, unit) + 1
        for item in part.items:
            line = _clip(item, _ITEM_CAP, unit)
            extra = 1 + (heading_cost if not keep else 0)
            if used + _base(line, unit) + extra > capacity:
                room = capacity - used - extra
                if room >= _MIN_CLIP:  # the first item that does not fit: as much as fits
                    line = _clip(line, room, unit)
                    keep.append(line)
                    used += _base(line, unit) + extra
                break
            keep.append(line)
            used += _base(line, unit) + extra
        shown.append(keep)
        total = sum(part.weights)
        kept = sum(part.weights[: len(keep)])
        if kept < total:
            left[part.label] = (total - kept, total)
    while True:
        text = assemble(head, shown, cp_head)
        left_base = _left_size(all_parts, shown, unit) + _base(header, unit) - _base(head, unit)
        if checkpoint is not None:
            left_base += _base(checkpoint, unit) - (0 if cp_head is None else _base(cp_head, unit))
        left_size = -(-left_base // 3) if unit == "tokens" else left_base
        if left or left_size:  # folding alone may have made it fit: then nothing is left out
            text = f"{text}\n{_left_out_line(left, left_size, budget, unit, rest)}"
        if _base(text, unit) <= capacity:
            break
        # not reached when the reservations above hold; kept so the budget always does
        full_parts = [i for i, keep in enumerate(shown) if keep]
        if not full_parts:
            if cp_head is None and _base(head, unit) <= 21:
                break  # below any budget check_budget allows
            head = _clip(head, max(20, _base(head, unit) - (_base(text, unit) - capacity)), unit)
            cp_head = None
            continue
        i = full_parts[-1]
        shown[i].pop()
        part = all_parts[i]
        total = sum(part.weights)
        left[part.label] = (total - sum(part.weights[: len(shown[i])]), total)
    shown_directives = sum(parts[0].weights[: len(shown[0])])
    return Context(
        text=text,
        size=measure(text, unit),
        shown=shown_directives,
        left_out={label: n for label, (n, _) in left.items()},
        left_out_size=left_size,
        **base,  # type: ignore[arg-type]
    )


def for_store(
    store: Any,
    *,
    source: str = "startup",
    budget: int = DEFAULT_BUDGET,
    unit: str = "chars",
    rest: str | None = None,
    max_bytes: int | None = None,
    program: str = "sessionkit",
) -> Context | None:
    """:func:`render` for the newest note of ``store`` (``None`` when it has none); a note
    over ``max_bytes`` (``limits.max_note_bytes``) is refused as ``loads`` refuses it."""
    from ._api import loads
    from .ops.lifecycle import directives_of

    key = store.latest()
    if key is None:
        return None
    session = loads(store.read_text(key), path=key, max_bytes=max_bytes)
    return render(
        key,
        session,
        directives_of(session),
        source=source,
        budget=budget,
        unit=unit,
        rest=rest,
        program=program,
    )
