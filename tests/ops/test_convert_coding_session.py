"""convert and Basic Memory's plugin checkpoints: a chain of coding_session notes is one page.

The golden notes in ``tests/corpus/coding-session`` are three checkpoints of
one Claude session, linked by ``continues``.  ``convert`` makes them one
aiwiki page with the checkpoints in order, and the page gives the very same
notes back; a second conversion either way writes nothing.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import sessionkit
from sessionkit.adapters.coding_session import split_chain_page
from sessionkit.cli import main
from sessionkit.ops.convert import convert

CORPUS = Path(__file__).parent.parent / "corpus" / "coding-session"
FIRST = "Session 2026-11-30 14-02-11 — give each host its own retry budget.md"
SECOND = "Claude checkpoint - per-host retry budget works.md"
THIRD = "Claude checkpoint - backfill uses per-host budgets.md"
PAGE = "2026-11-30-5be1c0d.md"
OTHER = Path(__file__).parent.parent / "corpus" / "aiwiki-v2" / "2026-05-19-a1b2c3d.md"


def _bm(root: Path, names: list[str]) -> Path:
    notes = root / "sessions"
    notes.mkdir(parents=True)
    for name in names:
        shutil.copyfile(CORPUS / name, notes / name)
    return root


def _notes(bm: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((bm / "sessions").glob("*.md"))}


def test_a_chain_converts_to_one_page_and_back_to_the_same_notes(tmp_path: Path) -> None:
    bm = _bm(tmp_path / "bm", [THIRD, FIRST, SECOND])
    seen: list[tuple[int, int, str]] = []
    report = convert(bm, tmp_path / "wiki", to="aiwiki-v2", progress=lambda *a: seen.append(a))
    assert report.ok and report.created == [PAGE] and report.failures == []
    assert seen == [(3, 3, FIRST)]  # the chain's three notes, placed at once
    pages = tmp_path / "wiki" / "aiwiki" / "sessions"
    assert sorted(p.name for p in pages.glob("*.md")) == [PAGE]
    text = (pages / PAGE).read_text()
    session = sessionkit.loads(text, path=f"aiwiki/sessions/{PAGE}")
    assert [cp.event for cp in session.checkpoints] == ["PreCompact", "Checkpoint", "Checkpoint"]
    assert [cp.at[:16] for cp in session.checkpoints] == [
        "2026-11-30T14:02",
        "2026-11-30T15:40",
        "2026-11-30T17:05",
    ]
    assert session.gotchas == ("The backfill job still shares one budget across hosts",)
    assert [c.path for c in session.files_touched] == ["tides/client.py", "tides/backfill.py"]
    assert [k for k, _ in split_chain_page(text)] == [FIRST, SECOND, THIRD]
    # and back: the very same notes, byte for byte
    back = convert(tmp_path / "wiki", tmp_path / "bm2", to="basic-memory")
    assert back.ok and sorted(back.created) == sorted([FIRST, SECOND, THIRD])
    assert _notes(tmp_path / "bm2") == _notes(bm)
    # a second conversion either way writes nothing
    again = convert(bm, tmp_path / "wiki", to="aiwiki-v2")
    assert again.written == [] and again.unchanged == [PAGE] and again.ok
    again = convert(tmp_path / "wiki", tmp_path / "bm2", to="basic-memory")
    assert again.written == [] and sorted(again.unchanged) == sorted([FIRST, SECOND, THIRD])


def test_a_lone_checkpoint_and_other_sessions_convert_as_before(tmp_path: Path) -> None:
    bm = _bm(tmp_path / "bm", [SECOND])
    wiki = tmp_path / "wiki" / "aiwiki" / "sessions"
    wiki.mkdir(parents=True)
    shutil.copyfile(OTHER, wiki / OTHER.name)
    assert convert(tmp_path / "wiki", bm, to="basic-memory").ok  # an ordinary page joins
    report = convert(bm, tmp_path / "wiki2", to="aiwiki-v2")
    assert report.ok and len(report.created) == 2
    page = next(k for k in report.created if k != OTHER.name)
    lone = sessionkit.loads((tmp_path / "wiki2" / "aiwiki" / "sessions" / page).read_text())
    assert "bm_chain" not in lone.extra  # one checkpoint is an ordinary note, not a chain
    back = tmp_path / "again" / "demo"  # the notes' own project name
    assert convert(tmp_path / "wiki2", back, to="basic-memory").ok
    # the same session (a lone note in the plugin's layout is not byte for byte:
    # convert_text's promise for notes outside Basic Memory's canonical layout)
    again = sessionkit.loads(_notes(back)[SECOND].decode(), path=SECOND)
    assert again == sessionkit.loads((CORPUS / SECOND).read_text(), path=SECOND)


def test_a_growing_chain_rewrites_its_page(tmp_path: Path) -> None:
    bm = _bm(tmp_path / "bm", [FIRST, SECOND])
    assert convert(bm, tmp_path / "wiki", to="aiwiki-v2").created == [PAGE]
    shutil.copyfile(CORPUS / THIRD, bm / "sessions" / THIRD)  # the plugin checkpoints again
    report = convert(bm, tmp_path / "wiki", to="aiwiki-v2")
    assert report.updated == [PAGE] and report.ok
    text = (tmp_path / "wiki" / "aiwiki" / "sessions" / PAGE).read_text()
    assert [k for k, _ in split_chain_page(text)] == [FIRST, SECOND, THIRD]


def test_a_chain_page_edited_outside_its_notes_is_refused_not_dropped(
    tmp_path: Path, capsys: object
) -> None:
    bm = _bm(tmp_path / "bm", [FIRST, SECOND, THIRD])
    assert convert(bm, tmp_path / "wiki", to="aiwiki-v2").ok
    page = tmp_path / "wiki" / "aiwiki" / "sessions" / PAGE
    page.write_text(page.read_text().replace("## Next steps\n", "## Next steps\n\n- by hand\n", 1))
    code = main(["sessionkit", "convert", str(tmp_path / "wiki"), str(tmp_path / "bm2")])
    assert code == 1
    err = capsys.readouterr().err  # type: ignore[attr-defined]
    assert f"{PAGE}: this chain page" in err and "differs from the page its checkpoint" in err
    assert "Traceback" not in err
    assert not list((tmp_path / "bm2").rglob("*.md"))  # nothing written for it
