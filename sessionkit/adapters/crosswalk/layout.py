"""How an aiwiki list travels in a Basic Memory note: its items as observations where they read
back as such, every other block carried in an ``## aiwiki: <Section>`` section, and a layout
(in the ``aiwiki_sessionkit`` carrier) that puts each back in its place."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, TypeGuard

import attrs

from ...errors import FormatError, SessionKitError
from ...model import Block, Session
from ..profiles import AIWIKI as AW_PROFILE
from ..profiles import BASIC_MEMORY as BM_PROFILE

#: the JSON carrier of restore information in a Basic Memory note
BM_META = AW_PROFILE.key_prefix + "sessionkit"
#: aiwiki list fields and the observation category and aiwiki section of each:
#: the two profiles' tables, joined on the Session field
_LIST_CATEGORIES: dict[str, tuple[str, str]] = {
    field: (category, title)
    for title, field in AW_PROFILE.sections.items()
    for category, other in BM_PROFILE.sections.items()
    if other == field
}


def observation_text(text: str) -> str:
    """An item's text as one observation line holds it: its lines stripped and
    joined by single spaces (soft wraps, hard breaks, trailing spaces and
    nested lines fold into the line; the exact text rides in the layout)."""
    return " ".join(part for part in (line.strip() for line in text.split("\n")) if part)


def _item_plans(
    session: Session, names: Sequence[str]
) -> dict[str, tuple[list[str], list[Block], list[Any]]]:
    """How each list of ``names`` goes to Basic Memory, item by item: ``{name: (observation texts,
    carried blocks, layout)}``."""
    from ...model import list_blocks
    from ..basic_memory.grammar import parse_facts

    lines: list[str] = []
    wanted: list[tuple[str, int, str]] = []  # (category, line, text) of each candidate
    # a row each block: (block, line, text) of a candidate, the block alone otherwise
    laid: dict[str, list[Block | tuple[Block, int, str]]] = {}
    for name in names:
        category = _LIST_CATEGORIES[name][0]
        rows: list[Block | tuple[Block, int, str]] = []
        for b in list_blocks(session, name):
            if b.is_item:
                text = observation_text(b.text)
                if text and not any(c in text for c in "\r\x00"):
                    rows.append((b, len(lines), text))
                    wanted.append((category, len(lines), text))
                    lines.append(f"- [{category}] {text}")
                    continue
            rows.append(b)
        laid[name] = rows
    found: dict[int, tuple[str | None, str]] = {}
    if lines:
        for obs in parse_facts(lines).observations:
            found.setdefault(obs.line, (obs.category, obs.text))
    ok = {line for category, line, text in wanted if found.get(line) == (category, text)}
    out: dict[str, tuple[list[str], list[Block], list[Any]]] = {}
    for name, rows in laid.items():
        texts: list[str] = []
        carried: list[Block] = []
        layout: list[Any] = []
        for row in rows:
            b, line, text = (row, None, "") if isinstance(row, Block) else row
            if line is not None and line in ok:
                texts.append(text)
                entry: list[Any] = ["o", b.gap, b.marker]
                if text != b.text:
                    entry.append(b.text)
                layout.append(entry)
            else:
                gap = 1 if carried else 0  # (the block itself when its gap is that already)
                carried.append(b if b.gap == gap else attrs.evolve(b, gap=gap))
                _add_carried(layout, b.gap)
        out[name] = (texts, carried, layout)
    return out


def _run(entry: Any) -> int:
    """How many carried blocks a layout entry ``["c", gap]`` or ``["c", gap, n]``
    places (see :func:`_item_plans`); ``ValueError`` for a count below 1."""
    run = int(entry[2]) if len(entry) > 2 else 1
    if run < 1:
        raise ValueError(run)
    return run


def _is_run(entry: Any) -> TypeGuard[list[Any]]:
    """Whether ``entry`` is a carried-blocks entry exactly as :func:`_add_carried`
    writes it (JSON ints, a count of 1 or more)."""
    return (
        isinstance(entry, list)
        and len(entry) in (2, 3)
        and entry[0] == "c"
        and type(entry[1]) is int
        and (len(entry) == 2 or (type(entry[2]) is int and entry[2] >= 1))
    )


def _add_carried(layout: list[Any], gap: int, count: int = 1) -> None:
    """Put ``count`` carried blocks after ``gap`` blank lines at the end of ``layout``:
    into its last entry when that is carried blocks with that gap (``["c", gap, n]``,
    ``n`` left out when 1), else as a new entry (see :func:`_item_plans`)."""
    last = layout[-1] if layout else None
    if _is_run(last) and last[1] == gap:
        if len(last) == 2:
            last.append(1)
        last[2] += count
    else:
        layout.append(["c", gap] if count == 1 else ["c", gap, count])


def _canonical_carrier(value: Any) -> Any:
    """The conversion carrier ``value`` (JSON text) as :func:`_item_plans` writes it now: a note
    written before its layouts had runs (``["c", 1]`` a carried block) reads as the same note."""
    if not isinstance(value, str) or '"layout"' not in value:
        return value
    try:
        data = json.loads(value)
        layouts = data["layout"]
        for name, layout in layouts.items():
            out: list[Any] = []
            for entry in layout:
                if _is_run(entry):
                    _add_carried(out, entry[1], _run(entry))
                else:
                    out.append(entry)
            layouts[name] = out
    except (ValueError, TypeError, KeyError, AttributeError):
        return value
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


class _Reuse:
    """Makes the blocks of a second read: a block equal to the next block expected of some list is
    that block, so the read does not hold a second copy of every block (a section of a hundred
    thousand paragraphs)."""

    __slots__ = ("heads",)

    def __init__(self, expected: Iterable[Iterator[Block]]) -> None:
        self.heads: list[tuple[Block | None, Iterator[Block]]] = [
            (next(blocks, None), blocks) for blocks in expected
        ]

    @classmethod
    def carried(cls, like: Session, layouts: Mapping[str, Any]) -> _Reuse:
        """For a read-back's carrier sections: the carried blocks of each list of the
        source session ``like``, as each list's layout places them."""
        return cls(
            _carried_of(like.blocks.get(name, ()), layout) for name, layout in layouts.items()
        )

    @classmethod
    def every(cls, like: Session) -> _Reuse:
        """For a page rendered again from ``like``: every block of each of its lists."""
        return cls(iter(blocks) for blocks in like.blocks.values())

    def __call__(self, *, text: str, marker: str | None = None, gap: int = 0) -> Block:
        heads = self.heads
        for n, (want, rest) in enumerate(heads):
            if want is not None and want.text == text and want.marker == marker and want.gap == gap:
                heads[n] = (next(rest, None), rest)
                return want
        return Block(text=text, marker=marker, gap=gap)


def _carried_of(blocks: Sequence[Block], layout: Any) -> Iterator[Block]:
    """The blocks of a list its carrier section holds, in order, as :func:`_item_plans`
    wrote them (each a carried block of ``blocks``, whose layout is ``layout``,
    the first after no blank line, the others after one); nothing more once the
    layout is not one it wrote (:func:`_placed` says so)."""
    at = 0
    first = True
    try:
        for entry in layout:
            if entry[0] == "o":
                at += 1
                continue
            for _ in range(_run(entry)):
                if at >= len(blocks):
                    return
                b, at = blocks[at], at + 1
                gap, first = 0 if first else 1, False
                yield b if b.gap == gap else attrs.evolve(b, gap=gap)
    except (TypeError, ValueError, IndexError, KeyError):
        return


def _placed(
    layout: Any,
    texts: Sequence[str],
    carried: Sequence[Block],
    path: str | None,
    like: Sequence[Block] = (),
) -> list[Block]:
    """The blocks of a list put back from a note's observations (``texts``, in order), its carried
    blocks and the layout :func:`_item_plans` wrote."""

    def shared(block: Block) -> Block:
        at = len(out)
        return like[at] if at < len(like) and like[at] == block else block

    if not isinstance(layout, list):
        raise FormatError(f"{BM_META}: a list layout is not a list", path=path, line=1)
    out: list[Block] = []
    oi = ci = 0
    try:
        for entry in layout:
            kind, gap = entry[0], int(entry[1])
            if kind == "o":
                if oi >= len(texts):
                    continue  # removed in Basic Memory since
                text = texts[oi]
                if len(entry) > 3 and observation_text(str(entry[3])) == text:
                    text = entry[3]  # the exact text, while the observation still says it
                oi += 1
                out.append(shared(Block(text=str(text), marker=str(entry[2]), gap=gap)))
            else:  # "c"
                run = _run(entry)
                for block in carried[ci : ci + run]:
                    out.append(shared(block if block.gap == gap else attrs.evolve(block, gap=gap)))
                ci = min(ci + run, len(carried))
    except (TypeError, ValueError, IndexError, SessionKitError):
        raise FormatError(f"{BM_META}: unusable list layout", path=path, line=1) from None
    out.extend(Block(text=t, marker="-") for t in texts[oi:])
    out.extend(carried[ci:])
    return out


#: observation lines checked at once (each line is a list item of its own, so it reads the
#: same in a batch as alone, and a big list's lines and facts are never all held)
_BATCH = 4096


def _lists_as_observations(session: Session) -> set[str]:
    """The list fields whose every item reads back from its ``- [category] text`` line."""
    ok: set[str] = set()
    for name, (category, _) in _LIST_CATEGORIES.items():
        texts: tuple[str, ...] = getattr(session, name)
        if (
            name not in session.blocks
            and all(  # (one laid out with more than items: carried)
                _observed(category, texts[at : at + _BATCH]) for at in range(0, len(texts), _BATCH)
            )
        ):
            ok.add(name)
    return ok


def _observed(category: str, texts: Sequence[str]) -> bool:
    """Whether each of ``texts`` reads back as its own ``[category]`` observation."""
    from ..basic_memory.grammar import parse_facts

    if any(not t or t != t.strip() or any(c in t for c in "\n\r\x00") for t in texts):
        return False
    found = parse_facts([f"- [{category}] {t}" for t in texts]).observations
    return len(found) == len(texts) and all(
        obs.line == i and obs.category == category and obs.text == t
        for i, (obs, t) in enumerate(zip(found, texts, strict=True))
    )
