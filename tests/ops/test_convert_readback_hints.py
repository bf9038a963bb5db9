"""Read-backs of aiwiki pages skip the carrier hints, and nothing changes.

Hints (:func:`_section_hints`) of an aiwiki page help read back a Basic
Memory note made from it; the pivot of a read-back is only compared
(:func:`_same_facts`), never a source, so ``_read_pivot(..., back=True)``
leaves them out.  These tests show the pivot is otherwise the same (equal,
same key, same strict comparison) and that conversions write the same text
whether read-backs build hints or not.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given

from sessionkit.adapters import crosswalk as C
from sessionkit.document import parse
from sessionkit.errors import SessionKitError
from tests.ops.test_convert_faithful import SLOW, _pages

_PATH = "aiwiki/sessions/2024-01-01-abcdef0.md"
ROOT = Path(__file__).resolve().parent.parent.parent
NOTES = sorted(
    p
    for pattern in ("tests/golden/**/*.md", "tests/corpus/**/*.md", "examples/**/*.md")
    for p in ROOT.glob(pattern)
)


def _both(text: str, path: str) -> tuple[Any, Any] | None:
    try:
        full = C.pivot_from_aiwiki(parse(text, path))
    except SessionKitError:
        return None
    return full, C.pivot_from_aiwiki(parse(text, path), hints=False)


def _same_but_hints(full: Any, bare: Any) -> None:
    assert bare.hints is None
    assert bare == full  # hints are eq=False: every other field
    assert bare.key() == full.key()
    assert C._strict_same(bare, full)


@SLOW
@given(_pages())
def test_pivot_without_hints_is_the_same(text: str) -> None:
    got = _both(text, _PATH)
    if got is not None:
        _same_but_hints(*got)


@pytest.mark.parametrize("note", NOTES, ids=lambda p: str(p.relative_to(ROOT)))
def test_corpus_pivot_without_hints_is_the_same(note: Path) -> None:
    got = _both(note.read_text(encoding="utf-8"), f"aiwiki/sessions/{note.name}")
    if got is not None:
        _same_but_hints(*got)


def _convert_all(monkeypatch: pytest.MonkeyPatch | None) -> list[str]:
    out = []
    for note in NOTES:
        text = note.read_text(encoding="utf-8")
        for src, dst, path in (
            ("aiwiki", "basic-memory", f"aiwiki/sessions/{note.name}"),
            ("basic-memory", "aiwiki", f"sessions/{note.name}"),
        ):
            try:
                doc = parse(text, path)
                res = C.convert_doc(
                    doc, src, dst, project="p", folder="sessions", today="2026-01-01"
                )
                out.append(f"{res.key}\n{res.text}\n{res.carried}")
            except SessionKitError as exc:
                out.append(f"error: {exc}")
    return out


def test_conversions_write_the_same_with_read_back_hints(monkeypatch: pytest.MonkeyPatch) -> None:
    fast = _convert_all(None)
    original = C._read_pivot

    def always_hints(doc: Any, family: str, folder: str, hints: Any = None, **_: Any) -> Any:
        return original(doc, family, folder, hints)

    monkeypatch.setattr(C, "_read_pivot", always_hints)
    assert _convert_all(monkeypatch) == fast
