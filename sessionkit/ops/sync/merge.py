"""The three-way merge of two edits of one session, and what differs between two."""

from __future__ import annotations

import difflib
import json
from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from ..._api import read_document
from ...adapters import get_adapter
from ...adapters.coding_session import carry_edits, chain_page, notes_log, split_chain_page
from ...errors import ConflictError, SessionKitError
from ...model import Session
from .report import SyncConflict

__all__ = ["MergeConflict", "merge_sessions"]


class MergeConflict(ConflictError):
    """Both sides changed the same items: :attr:`conflicts` lists them."""

    def __init__(self, conflicts: Sequence[SyncConflict], *, path: str | None = None) -> None:
        super().__init__(f"{len(conflicts)} item(s) changed on both sides", path=path)
        self.conflicts = tuple(conflicts)


def _plain(value: Any) -> Any:
    """A JSON-ready rendering of a model value."""
    if attrs.has(type(value)):
        return {
            f.name: _plain(getattr(value, f.name))
            for f in attrs.fields(type(value))
            if f.eq is not False
        }
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, str | int | float | bool) or value is None:
        return value if not hasattr(value, "value") else str(value)
    return str(value)


_MISSING: Any = object()


def _merge_value(base: Any, a: Any, b: Any, where: str, out: list[SyncConflict]) -> Any:
    """Three-way merge of one value; conflicts are appended to ``out``."""
    if a == b:
        return a
    if a == base:
        return b
    if b == base:
        return a
    if base is not _MISSING and type(a) is type(b) is type(base):
        if attrs.has(type(a)):
            changes = {}
            for f in attrs.fields(type(a)):
                if f.eq is False or not f.init:
                    continue
                name = f.name
                merged = _merge_value(
                    getattr(base, name), getattr(a, name), getattr(b, name), _at(where, name), out
                )
                changes[name] = merged
            return attrs.evolve(a, **changes)
        if isinstance(a, tuple):
            return tuple(_merge_seq(base, a, b, where, out))
        if isinstance(a, Mapping):
            return _merge_map(base, a, b, where, out)
        if isinstance(a, str) and "\n" in f"{base}{a}{b}":
            lines = _merge_seq(
                tuple(base.split("\n")), tuple(a.split("\n")), tuple(b.split("\n")), where, out
            )
            return "\n".join(lines)
    out.append(
        SyncConflict(
            where=where or "(note)",
            base=None if base is _MISSING else _plain(base),
            aiwiki=None if a is _MISSING else _plain(a),
            basic_memory=None if b is _MISSING else _plain(b),
        )
    )
    return a


def _at(where: str, name: str) -> str:
    return f"{where}.{name}" if where else name


def _merge_map(
    base: Mapping[str, Any], a: Mapping[str, Any], b: Mapping[str, Any], where: str, out: list[Any]
) -> dict[str, Any]:
    keys = list(a) + [k for k in b if k not in a]
    merged: dict[str, Any] = {}
    for key in keys:
        value = _merge_value(
            base.get(key, _MISSING),
            a.get(key, _MISSING),
            b.get(key, _MISSING),
            _at(where, key),
            out,
        )
        if value is not _MISSING:
            merged[key] = value
    return merged


def _hunks(base: Sequence[Any], other: Sequence[Any]) -> list[tuple[int, int, list[Any]]]:
    """The edits turning ``base`` into ``other``: (start, end, replacement) over base."""
    matcher = difflib.SequenceMatcher(None, base, other, autojunk=False)
    return [
        (i1, i2, list(other[j1:j2]))
        for tag, i1, i2, j1, j2 in matcher.get_opcodes()
        if tag != "equal"
    ]


def _merge_seq(
    base: Sequence[Any], a: Sequence[Any], b: Sequence[Any], where: str, out: list[Any]
) -> list[Any]:
    """diff3 over item lists; overlapping edits merge item by item when both replace the same
    items one for one, are kept once when they agree, else conflict."""
    ha = [(s, e, r, "a") for s, e, r in _hunks(base, a)]
    hb = [(s, e, r, "b") for s, e, r in _hunks(base, b)]
    edits = sorted(ha + hb, key=lambda h: (h[0], h[1]))
    result: list[Any] = []
    pos = 0
    i = 0
    while i < len(edits):
        start, end = edits[i][0], edits[i][1]
        group = [edits[i]]
        i += 1
        # a cluster: edits whose base ranges overlap or touch at one insertion point
        while i < len(edits) and (
            edits[i][0] < end
            or (edits[i][0] == end and (edits[i][0] == edits[i][1] or start == end))
        ):
            group.append(edits[i])
            end = max(end, edits[i][1])
            i += 1
        result.extend(base[pos:start])
        chunk = list(base[start:end])
        va = _side_version(base, start, end, [h for h in group if h[3] == "a"])
        vb = _side_version(base, start, end, [h for h in group if h[3] == "b"])
        if va == vb or vb == chunk:
            result.extend(va)
        elif va == chunk:
            result.extend(vb)
        elif len(va) == len(vb) == len(chunk):
            for k, (x, y, z) in enumerate(zip(chunk, va, vb, strict=True)):
                result.append(_merge_value(x, y, z, f"{where}[{start + k}]", out))
        else:
            out.append(
                SyncConflict(
                    where=f"{where}[{start}:{end}]",
                    base=_plain(chunk),
                    aiwiki=_plain(va),
                    basic_memory=_plain(vb),
                )
            )
            result.extend(va)
        pos = end
    result.extend(base[pos:])
    return result


def _side_version(
    base: Sequence[Any], start: int, end: int, hunks: Sequence[tuple[int, int, list[Any], str]]
) -> list[Any]:
    """``base[start:end]`` with one side's hunks (inside that range) applied."""
    out: list[Any] = []
    pos = start
    for s, e, r, _ in sorted(hunks, key=lambda h: (h[0], h[1])):
        out.extend(base[pos:s])
        out.extend(r)
        pos = e
    out.extend(base[pos:end])
    return out


def merge_sessions(base: Session, ours: Session, theirs: Session) -> Session:
    """Three-way merge of two edits of one session (``ours``: the aiwiki side).

    Field by field; list fields (checkpoints, decisions, next steps, files,
    observations, relations, sections) item by item with a diff3 against
    ``base``; frontmatter ``extra`` key by key; multi-line texts (a section's
    body, a checkpoint's entry) line by line.  Edits of different things are
    all kept; an item both sides changed to different values is a conflict.

    Raises:
        MergeConflict: with :attr:`~MergeConflict.conflicts`, every such item.
    """
    found: list[SyncConflict] = []
    merged = _merge_value(base, ours, theirs, "", found)
    if found:
        raise MergeConflict(found)
    assert isinstance(merged, Session)
    return attrs.evolve(merged, origin=None)


def _differing(want: Any, got: Any, where: str = "") -> list[str]:
    """The fields (``session_id``, ``extra.branch``) where two sessions differ:
    names only, never values (a value may be a secret)."""
    if attrs.has(type(want)) and type(got) is type(want):
        out: list[str] = []
        for f in attrs.fields(type(want)):
            if f.eq is not False and getattr(want, f.name) != getattr(got, f.name):
                out += _differing(getattr(want, f.name), getattr(got, f.name), _at(where, f.name))
        return out
    if isinstance(want, Mapping) and isinstance(got, Mapping):
        keys = list(want) + [k for k in got if k not in want]
        out = []
        for k in keys:
            a, b = want.get(k), got.get(k)
            if a != b:
                inner = _carried(a), _carried(b)  # a converter's JSON carrier: by its keys
                if inner[0] is not None and inner[1] is not None:
                    out += _differing(inner[0], inner[1], _at(where, str(k)))
                else:
                    out.append(_at(where, str(k)))
        return out
    return [where or "(note)"]


def _carried(value: Any) -> Mapping[str, Any] | None:
    """A carrier's JSON object (``{}`` when absent), else ``None``."""
    if value is None:
        return {}
    if isinstance(value, str) and value.startswith("{"):
        try:
            data = json.loads(value)
        except ValueError:
            return None
        return data if isinstance(data, dict) else None
    return None


def _fields_differ(names: Sequence[str]) -> str:
    """``session_id differs`` / ``a, b differ`` (at most five names)."""
    shown = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
    text = f"{shown} {'differs' if len(names) == 1 else 'differ'}; values not shown"
    if any(n.endswith("_sessionkit.key") for n in names):
        text += (
            "; the session's id or date changed, so it now maps to another note name "
            "than its paired note's"
        )
    return text


def _page_edits(page: str, base: str, key: str) -> list[tuple[str, str]]:
    """The notes a chain page stands for, with its edits since ``base`` merged
    three-way against its blocks and carried item by item (:class:`MergeConflict`
    when a line and a block changed one item differently)."""
    notes = split_chain_page(page, key)
    derived = chain_page(notes)
    if derived == page:
        return notes
    aw = get_adapter("aiwiki-v2")

    def read(text: str) -> Session:
        return aw.read(read_document(text, key))

    theirs = read(derived)
    # the log is the notes' (blocks and entries, as the page has them): not merged
    ours = notes_log(read(page), theirs, key)
    merged = merge_sessions(attrs.evolve(read(base), checkpoints=theirs.checkpoints), ours, theirs)
    return carry_edits(notes, merged, key)


def _merge_note(key: str, base: str, ours: str, theirs: str) -> str | None:
    """A checkpoint note edited on the page (``ours``) and in Basic Memory
    (``theirs``), merged as a minimal edit of ``theirs``; ``None``: they clash."""
    bm = get_adapter("basic-memory")
    try:
        doc = read_document(theirs, key)
        merged = merge_sessions(
            bm.read(read_document(base, key)), bm.read(read_document(ours, key)), bm.read(doc)
        )
        text = bm.write(merged, doc).text
        if bm.read(read_document(text, key)) != merged:
            return None
    except (MergeConflict, SessionKitError):
        return None
    return text
