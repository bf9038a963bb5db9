"""convert and Basic Memory's plugin checkpoints: a chain of coding_session notes is one page.

The golden notes in ``tests/corpus/coding-session`` are three checkpoints of
one Claude session, linked by ``continues``.  ``convert`` makes them one
aiwiki page with the checkpoints in order, and the page gives the very same
notes back; a second conversion either way writes nothing.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import sessionkit
from sessionkit.adapters.coding_session import chain_page, split_chain_page
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


@pytest.mark.parametrize("name", sorted(p.name for p in CORPUS.glob("*.md")))
def test_a_lone_checkpoint_converts_and_comes_back_byte_for_byte(tmp_path: Path, name: str) -> None:
    bm = _bm(tmp_path / "bm", [name])
    wiki = tmp_path / "wiki" / "aiwiki" / "sessions"
    wiki.mkdir(parents=True)
    shutil.copyfile(OTHER, wiki / OTHER.name)  # an ordinary page converts alongside
    report = convert(bm, tmp_path / "wiki", to="aiwiki-v2")
    assert report.ok and sorted(report.created) == [PAGE]  # the lone checkpoint's page
    lone = sessionkit.loads((wiki / PAGE).read_text(), path=f"aiwiki/sessions/{PAGE}")
    assert lone.extra["bm_chain"] == [name]  # a chain of one
    back = tmp_path / "again"
    again = convert(tmp_path / "wiki", back, to="basic-memory", project="demo")
    assert again.ok and name in again.created
    assert _notes(back)[name] == (CORPUS / name).read_bytes()  # the very same bytes
    # a second conversion either way writes nothing
    assert convert(bm, tmp_path / "wiki", to="aiwiki-v2").written == []
    assert convert(tmp_path / "wiki", back, to="basic-memory", project="demo").written == []
    assert _notes(back)[name] == (CORPUS / name).read_bytes()


def test_a_growing_chain_rewrites_its_page(tmp_path: Path) -> None:
    bm = _bm(tmp_path / "bm", [FIRST, SECOND])
    assert convert(bm, tmp_path / "wiki", to="aiwiki-v2").created == [PAGE]
    shutil.copyfile(CORPUS / THIRD, bm / "sessions" / THIRD)  # the plugin checkpoints again
    report = convert(bm, tmp_path / "wiki", to="aiwiki-v2")
    assert report.updated == [PAGE] and report.ok
    text = (tmp_path / "wiki" / "aiwiki" / "sessions" / PAGE).read_text()
    assert [k for k, _ in split_chain_page(text)] == [FIRST, SECOND, THIRD]


def _diff(before: str, after: str) -> list[str]:
    """The changed lines of a note, ``-``/``+`` prefixed, in order."""
    import difflib

    lines = difflib.ndiff(before.splitlines(), after.splitlines())
    return [line for line in lines if line[:1] in "-+"]


def test_a_chain_page_edited_outside_its_notes_carries_each_edit_to_its_note(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bm = _bm(tmp_path / "bm", [FIRST, SECOND, THIRD])
    assert convert(bm, tmp_path / "wiki", to="aiwiki-v2").ok
    page = tmp_path / "wiki" / "aiwiki" / "sessions" / PAGE
    text = page.read_text()
    # a next step added, a gotcha resolved (removed), a file touched renamed,
    # a decision added between two, the status set back to active
    text = text.replace(
        "- Answer review comments on pull request 42\n",
        "- Answer review comments on pull request 42\n- Rebase on main before merging\n",
    )
    text = text.replace(
        "## Gotchas surfaced\n\n- The backfill job still shares one budget across hosts\n",
        "## Gotchas surfaced\n\n(filled by /wrap)\n",
    )
    text = text.replace("- tides/backfill.py\n", "- tides/backfill_job.py\n")
    text = text.replace("status: done\n", "status: active\n").replace("date_end: 2026-11-30\n", "")
    page.write_text(text)
    code = main(["sessionkit", "convert", str(tmp_path / "wiki"), str(tmp_path / "bm2")])
    assert code == 0, capsys.readouterr().err
    notes = {k: v.decode() for k, v in _notes(tmp_path / "bm2").items()}
    originals = {k: (CORPUS / k).read_text() for k in (FIRST, SECOND, THIRD)}
    assert notes[FIRST] == originals[FIRST]
    assert _diff(originals[SECOND], notes[SECOND]) == [
        "- - [blocker] The backfill job still shares one budget across hosts"
    ]
    assert _diff(originals[THIRD], notes[THIRD]) == [
        "- status: closed",
        "+ status: open",
        "- - [changed_file] tides/backfill.py",
        "+ - [changed_file] tides/backfill_job.py",
        "+ - [next_step] Rebase on main before merging",
    ]
    # the notes make the edited page (as the model reads it), and nothing else changes
    made = sessionkit.loads(chain_page([(k, notes[k]) for k in (FIRST, SECOND, THIRD)]))
    assert made.next_steps == sessionkit.loads(text).next_steps
    assert made.gotchas == () and made.status is sessionkit.Status.ACTIVE
    assert [c.path for c in made.files_touched] == ["tides/client.py", "tides/backfill_job.py"]
    again = main(["sessionkit", "convert", str(tmp_path / "wiki"), str(tmp_path / "bm2")])
    assert again == 0 and _notes(tmp_path / "bm2") == {k: v.encode() for k, v in notes.items()}


def test_a_checkpoint_entry_added_on_a_chain_page_and_its_directive_consumed_come_back(
    tmp_path: Path,
) -> None:
    from datetime import UTC, datetime

    from sessionkit import open_store
    from sessionkit.ops import lifecycle

    bm = _bm(tmp_path / "bm", [FIRST, SECOND, THIRD])
    assert convert(bm, tmp_path / "wiki", to="aiwiki-v2").ok
    wiki = open_store(tmp_path / "wiki", layout="aiwiki")
    payload = {"session_id": "5be1c0de-7a11-4c0d-9e55-3c0ffee0a7b1", "cwd": str(tmp_path)}
    lifecycle.record_checkpoint(wiki, payload, now=datetime(2026, 12, 1, 9, 0, tzinfo=UTC))
    lifecycle.consume_directives(wiki, PAGE, all=True, now=datetime(2026, 12, 1, 10, 0, tzinfo=UTC))
    report = convert(tmp_path / "wiki", tmp_path / "bm2", to="basic-memory")
    assert report.ok, report.failures
    notes = {k: v.decode() for k, v in _notes(tmp_path / "bm2").items()}
    original = (CORPUS / THIRD).read_text()
    assert notes[FIRST] == (CORPUS / FIRST).read_text()
    assert notes[SECOND] == (CORPUS / SECOND).read_text()
    # the entry rides in the last note, the one before it on the page, at its end
    assert notes[THIRD].startswith(original + "\n\n## aiwiki: Checkpoints\n\n")
    tail = notes[THIRD][len(original) :]
    assert "### PreCompact at 2026-12-01T09:00:00Z" in tail
    assert "**Dream directive (consumed at 2026-12-01T10:00:00Z):**" in tail
    assert "(unconsumed)" not in tail
    # and the notes make the page again, byte for byte
    page = (tmp_path / "wiki" / "aiwiki" / "sessions" / PAGE).read_text()
    assert chain_page([(k, notes[k]) for k in (FIRST, SECOND, THIRD)]) == page


def test_an_edit_no_checkpoint_note_can_carry_is_reported_and_nothing_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bm = _bm(tmp_path / "bm", [FIRST, SECOND, THIRD])
    assert convert(bm, tmp_path / "wiki", to="aiwiki-v2").ok
    page = tmp_path / "wiki" / "aiwiki" / "sessions" / PAGE
    made = page.read_text()
    # the focus is the last note's title: no note can carry an edit of it
    page.write_text(made.replace("focus: Claude checkpoint", "focus: Edited checkpoint", 1))
    code = main(["sessionkit", "convert", str(tmp_path / "wiki"), str(tmp_path / "bm2")])
    err = capsys.readouterr().err
    assert code == 1 and f"{PAGE}: these edits of the chain page cannot be carried" in err
    assert "focus: 'Claude checkpoint - backfill uses per-host budgets' -> 'Edited" in err
    assert "Traceback" not in err
    assert not list((tmp_path / "bm2").rglob("*.md"))  # nothing written for it
    # a note's block and the page's lists both edited: which is newer cannot be told
    both = made.replace("- [next_step] Answer review", "- [next_step] Reply to review")
    page.write_text(both.replace("\n- Answer review", "\n- Ignore review", 1))
    code = main(["sessionkit", "convert", str(tmp_path / "wiki"), str(tmp_path / "bm2")])
    err = capsys.readouterr().err
    assert code == 1 and f"the block of {THIRD} (edited" in err and "both edited" in err
    assert not list((tmp_path / "bm2").rglob("*.md"))


@pytest.mark.parametrize("value", ["5", "null", "true", "{a: 1}"])
def test_a_chain_list_edited_into_no_list_is_a_failure_of_that_page(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], value: str
) -> None:
    """A hand-edited ``bm_chain`` that is no list is the page's failure (exit 1, the
    key named), not an internal error stopping the run."""
    bm = _bm(tmp_path / "bm", [FIRST, SECOND, THIRD])
    assert convert(bm, tmp_path / "wiki", to="aiwiki-v2").ok
    page = tmp_path / "wiki" / "aiwiki" / "sessions" / PAGE
    lines = page.read_text().split("\n")
    at = next(i for i, line in enumerate(lines) if line.startswith("bm_chain:"))
    lines[at] = f"bm_chain: {value}"
    page.write_text("\n".join(lines))
    code = main(["sessionkit", "convert", str(tmp_path / "wiki"), str(tmp_path / "bm2")])
    err = capsys.readouterr().err
    assert code == 1, err
    assert f"{PAGE}: bm_chain does not list the checkpoints' notes in order" in err
    assert "internal error" not in err and "Traceback" not in err
    assert not list((tmp_path / "bm2").rglob("*.md"))


def test_an_edited_chain_page_converts_back_into_the_notes_it_was_made_from(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bm = _bm(tmp_path / "bm", [FIRST, SECOND, THIRD])
    assert convert(bm, tmp_path / "wiki", to="aiwiki-v2").ok
    page = tmp_path / "wiki" / "aiwiki" / "sessions" / PAGE
    page.write_text(
        page.read_text().replace(
            "- Answer review comments on pull request 42\n",
            "- Answer review comments on pull request 42\n- Tag a release\n",
        )
    )
    # the notes are as the page was made from them: the edit replaces them in place
    # (the converter did not write them, but the page's blocks vouch for them)
    code = main(["sessionkit", "convert", str(tmp_path / "wiki"), str(bm)])
    assert code == 0, capsys.readouterr().err
    notes = {k: v.decode() for k, v in _notes(bm).items()}
    assert notes[FIRST] == (CORPUS / FIRST).read_text()
    assert notes[SECOND] == (CORPUS / SECOND).read_text()
    assert _diff((CORPUS / THIRD).read_text(), notes[THIRD]) == ["+ - [next_step] Tag a release"]
    # a note edited by hand since the page was made is not overwritten
    second = bm / "sessions" / SECOND
    second.write_text(second.read_text().replace("14 passed", "15 passed"))
    hand = second.read_text()
    page.write_text(page.read_text().replace("\n- Tag a release\n", "\n- Tag release 1.4\n"))
    page.write_text(
        page.read_text().replace("- tides/client.py\n", "- tides/client.py\n- tides/pool.py\n")
    )
    code = main(["sessionkit", "convert", str(tmp_path / "wiki"), str(bm)])
    err = capsys.readouterr().err
    assert code == 1 and f"{SECOND}: edited by hand since the last conversion" in err
    assert second.read_text() == hand
    # the other note the page's edit concerns is written
    assert "- [next_step] Tag release 1.4" in (bm / "sessions" / THIRD).read_text()


@pytest.mark.parametrize(
    "name",
    [
        "Session 2026-11-30 14-02-11 — why does `bm reindex` stall.md",
        "Session ```` fenced ~~~ both.md",
        "Session \u2028 odd \x85 breaks.md",
    ],
)
def test_a_checkpoint_named_with_a_backtick_travels_through_its_chain_page(
    tmp_path: Path, name: str
) -> None:
    """#48: the key sits in the block's info string, where a backtick ends the fence."""
    bm = tmp_path / "bm"
    (bm / "sessions").mkdir(parents=True)
    shutil.copyfile(CORPUS / SECOND, bm / "sessions" / name)
    report = convert(bm, tmp_path / "wiki", to="aiwiki-v2")
    assert report.ok and report.created == [PAGE] and report.failures == []
    text = (tmp_path / "wiki" / "aiwiki" / "sessions" / PAGE).read_text()
    assert [k for k, _ in split_chain_page(text)] == [name]
    back = convert(tmp_path / "wiki", tmp_path / "bm2", to="basic-memory", project="demo")
    assert back.ok and back.created == [name]
    assert _notes(tmp_path / "bm2") == _notes(bm)
