"""sync and Basic Memory's plugin checkpoints: a chain of coding_session notes is one aiwiki page.

The golden notes in ``tests/corpus/coding-session`` are three checkpoints of
one Claude session (linked by ``continues``).  They arrive one at a time, as
the plugin writes them; the page follows, and edits come back note by note.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import sessionkit
from sessionkit import open_store
from sessionkit.adapters.coding_session import split_chain_page
from sessionkit.diagnostics import Severity
from sessionkit.ops.sync import sync

CORPUS = Path(__file__).parent.parent / "corpus" / "coding-session"
FIRST = "Session 2026-11-30 14-02-11 — give each host its own retry budget.md"
SECOND = "Claude checkpoint - per-host retry budget works.md"
THIRD = "Claude checkpoint - backfill uses per-host budgets.md"
PAGE = "2026-11-30-5be1c0d.md"


def _setup(root: Path, names: list[str]) -> tuple[Path, Path]:
    (root / "wiki" / "aiwiki" / "sessions").mkdir(parents=True)
    notes = root / "bm" / "sessions"
    notes.mkdir(parents=True)
    for name in names:
        shutil.copyfile(CORPUS / name, notes / name)
    return root / "wiki", root / "bm"


def _notes(bm: Path) -> dict[str, str]:
    return {p.name: p.read_text() for p in sorted((bm / "sessions").glob("*.md"))}


def test_checkpoints_arriving_one_by_one_become_one_page_in_order(tmp_path: Path) -> None:
    wiki, bm = _setup(tmp_path, [FIRST])
    first = sync(wiki, bm)
    assert [a.action for a in first.actions] == ["create-aiwiki"]
    page = wiki / "aiwiki" / "sessions" / PAGE
    assert page.exists()
    # the plugin writes two more checkpoints of the same Claude session
    for name in (SECOND, THIRD):
        shutil.copyfile(CORPUS / name, bm / "sessions" / name)
    report = sync(wiki, bm)
    assert [(a.action, a.aiwiki) for a in report.actions] == [("update-aiwiki", PAGE)]
    assert sorted(p.name for p in (wiki / "aiwiki" / "sessions").glob("*.md")) == [PAGE]
    text = page.read_text()
    session = sessionkit.loads(text, path=f"aiwiki/sessions/{PAGE}")
    assert [cp.at for cp in session.checkpoints] == [
        "2026-11-30T14:02:11+00:00",
        "2026-11-30T15:40:00+00:00",
        "2026-11-30T17:05:00+00:00",
    ]
    assert session.gotchas == ("The backfill job still shares one budget across hosts",)
    lint = sessionkit.lint(text, path=f"aiwiki/sessions/{PAGE}")
    assert not [d for d in lint if d.severity is Severity.ERROR]
    # the page holds every note byte for byte, and nothing in Basic Memory changed
    assert dict(split_chain_page(text)) == _notes(bm)
    assert _notes(bm) == {n: (CORPUS / n).read_text() for n in (FIRST, SECOND, THIRD)}
    assert sync(wiki, bm).written == []


def test_edits_to_a_chain_come_back_note_by_note(tmp_path: Path) -> None:
    wiki, bm = _setup(tmp_path, [FIRST, SECOND, THIRD])
    assert [a.action for a in sync(wiki, bm).actions] == ["create-aiwiki"]
    page = wiki / "aiwiki" / "sessions" / PAGE
    # a note's block edited on the page reaches that note only
    old = "- [next_step] Answer review comments on pull request 42"
    new = "- [next_step] Merge pull request 42 once approved"
    page.write_text(page.read_text().replace(old, new))
    report = sync(wiki, bm)
    assert [a.action for a in report.actions] == ["update-basic-memory"]
    notes = _notes(bm)
    assert notes[THIRD] == (CORPUS / THIRD).read_text().replace(old, new)
    assert notes[SECOND] == (CORPUS / SECOND).read_text()
    assert sessionkit.loads(page.read_text()).next_steps == ("Merge pull request 42 once approved",)
    assert sync(wiki, bm).written == []
    # a note edited in Basic Memory rewrites the page
    second = bm / "sessions" / SECOND
    second.write_text(
        second.read_text().replace("[blocker] The backfill", "[blocker] The old backfill")
    )
    report = sync(wiki, bm)
    assert [a.action for a in report.actions] == ["update-aiwiki"]
    assert "The old backfill" in page.read_text()
    # the same note edited differently on both sides: a conflict, both kept
    page.write_text(page.read_text().replace("14 passed", "15 passed"))
    second.write_text(second.read_text().replace("14 passed", "13 passed"))
    kept = page.read_text(), second.read_text()
    report = sync(wiki, bm)
    assert [a.action for a in report.actions] == ["conflict"]
    assert [c.where for c in report.actions[0].conflicts] == [SECOND]
    assert (page.read_text(), second.read_text()) == kept
    second.write_text(second.read_text().replace("13 passed", "15 passed"))
    assert [a.action for a in sync(wiki, bm).actions] == ["pair"]
    # an edit outside the notes' blocks goes to the note it belongs to: a next step
    # to the last note, the chain's cursor, as one added line (first, as on the page)
    before = _notes(bm)
    page.write_text(page.read_text().replace("## Next steps\n", "## Next steps\n\n- by hand\n", 1))
    report = sync(wiki, bm)
    assert [a.action for a in report.actions] == ["update-basic-memory"]
    after = _notes(bm)
    assert {k for k in after if after[k] != before[k]} == {THIRD}
    assert after[THIRD] == before[THIRD].replace(
        "- [next_step] Merge", "- [next_step] by hand\n- [next_step] Merge"
    )
    assert sessionkit.loads(page.read_text()).next_steps[0] == "by hand"
    assert sync(wiki, bm).written == []
    # an edit no note can carry is reported, nothing written on either side
    kept = page.read_text(), _notes(bm)
    page.write_text(page.read_text().replace("focus: Claude", "focus: My", 1))
    failed = sync(wiki, bm)
    assert [a.action for a in failed.actions] == ["failure"] and not failed.ok
    assert "cannot be carried to its checkpoint notes" in failed.actions[0].message
    assert "focus" in failed.actions[0].message
    assert _notes(bm) == kept[1]
    assert open_store(bm, layout="basic-memory").keys() == sorted([FIRST, SECOND, THIRD])


def test_the_page_and_basic_memory_editing_different_things_merge(tmp_path: Path) -> None:
    wiki, bm = _setup(tmp_path, [FIRST, SECOND, THIRD])
    assert sync(wiki, bm).ok
    page = wiki / "aiwiki" / "sessions" / PAGE
    third = bm / "sessions" / THIRD
    # the page gains a next step (the last note's), Basic Memory edits that very
    # note's verification: different things of one note, merged in the model
    page.write_text(
        page.read_text().replace(
            "- Answer review comments on pull request 42\n",
            "- Answer review comments on pull request 42\n- Tag a release\n",
        )
    )
    third.write_text(third.read_text().replace("pytest: 61 passed", "pytest: 62 passed"))
    report = sync(wiki, bm)
    assert [a.action for a in report.actions] == ["merge"], report.actions
    text = third.read_text()
    assert "- [verification] pytest: 62 passed" in text and "- [next_step] Tag a release" in text
    assert _notes(bm)[SECOND] == (CORPUS / SECOND).read_text()
    session = sessionkit.loads(page.read_text())
    assert session.next_steps == ("Answer review comments on pull request 42", "Tag a release")
    assert "62 passed" in page.read_text()
    assert sync(wiki, bm).written == []


@pytest.mark.parametrize("name", [FIRST, SECOND, THIRD])
def test_a_lone_checkpoint_syncs_to_a_page_and_back_byte_for_byte(
    tmp_path: Path, name: str
) -> None:
    wiki, bm = _setup(tmp_path, [name])
    assert [a.action for a in sync(wiki, bm).actions] == ["create-aiwiki"]
    other = tmp_path / "bm2"
    (other / "sessions").mkdir(parents=True)
    report = sync(wiki, other)  # the page alone makes its note again
    assert [a.action for a in report.actions] == ["create-basic-memory"]
    assert _notes(other) == {name: (CORPUS / name).read_text()}
    assert (other / "sessions" / name).read_bytes() == (CORPUS / name).read_bytes()
    assert sync(wiki, other).written == [] and sync(wiki, bm).written == []


def test_a_lost_state_file_pairs_the_chain_page_again(tmp_path: Path) -> None:
    from sessionkit.ops.sync import STATE_NAME

    wiki, bm = _setup(tmp_path, [FIRST, SECOND, THIRD])
    assert sync(wiki, bm).ok
    (wiki / "aiwiki" / "sessions" / STATE_NAME).unlink()
    report = sync(wiki, bm)
    assert [a.action for a in report.actions] == ["pair"]
    assert sorted(p.name for p in (bm / "sessions").glob("*.md")) == sorted([FIRST, SECOND, THIRD])
    assert sync(wiki, bm).written == []


def test_a_block_and_the_page_changing_one_item_differently_is_a_conflict(
    tmp_path: Path,
) -> None:
    wiki, bm = _setup(tmp_path, [FIRST, SECOND, THIRD])
    assert sync(wiki, bm).ok
    page = wiki / "aiwiki" / "sessions" / PAGE
    text = page.read_text()
    # the last note's next step changed in its block one way, in ## Next steps another
    text = text.replace("- [next_step] Answer review", "- [next_step] Reply to review")
    text = text.replace("\n- Answer review comments", "\n- Ignore review comments", 1)
    page.write_text(text)
    report = sync(wiki, bm)
    assert [a.action for a in report.actions] == ["conflict"] and not report.ok
    (clash,) = report.actions[0].conflicts
    assert "Reply to review" in str(clash.basic_memory) and "Ignore review" in str(clash.aiwiki)
    assert page.read_text() == text and _notes(bm) == {
        n: (CORPUS / n).read_text() for n in (FIRST, SECOND, THIRD)
    }
    # the block and the page agreeing is no conflict: carried to the note
    page.write_text(text.replace("\n- Ignore review comments", "\n- Reply to review comments", 1))
    report = sync(wiki, bm)
    assert [a.action for a in report.actions] == ["update-basic-memory"]
    assert "- [next_step] Reply to review comments on pull request 42" in _notes(bm)[THIRD]
