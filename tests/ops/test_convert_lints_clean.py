"""sessionkit's own output passes sessionkit's own lint (#48): the examples converted and synced
both ways lint clean on both sides, and come back byte for byte where the issue asks it."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

import sessionkit
from sessionkit.cli import main

ROOT = Path(__file__).resolve().parents[2]
WIKI = ROOT / "examples" / "wiki"
BM = ROOT / "examples" / "bm-project"
NOTE = "Session 2026-05-14 10-02-37 — retry budget metrics.md"


@pytest.fixture(autouse=True)
def _clean_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.startswith("SESSIONKIT_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.chdir(tmp_path)


def notes(root: Path) -> dict[str, Path]:
    """The session notes below ``root`` (a wiki or a Basic Memory project), by file name."""
    found = {p.name: p for p in root.rglob("*.md") if p.name != "INDEX.md"}
    if (root / "aiwiki").is_dir():
        found = {n: p for n, p in found.items() if p.parent.name == "sessions"}
    return found


def findings(root: Path) -> list[str]:
    """Every lint finding above info on the notes below ``root`` (``sessionkit.lint``)."""
    out = []
    for name, path in sorted(notes(root).items()):
        rel = path.relative_to(root).as_posix()
        for d in sessionkit.lint(path.read_text(encoding="utf-8"), rel):
            if d.severity.value != "info":
                out.append(f"{name}:{d.line}: {d.code} {d.message}")
    return out


def test_the_examples_lint_clean_to_start_with() -> None:
    assert findings(WIKI) == [] and findings(BM) == []


def test_converted_examples_lint_clean_both_ways(tmp_path: Path) -> None:
    sessionkit.convert(BM, tmp_path / "wiki", to="aiwiki-v2")
    assert findings(tmp_path / "wiki") == []  # no AW006 for '## Summary', '## Recent thread'
    page = next(iter(notes(tmp_path / "wiki").values())).read_text(encoding="utf-8")
    assert "## bm: Summary" in page and "## bm: Recent thread" in page
    sessionkit.convert(tmp_path / "wiki", tmp_path / "bm", to="basic-memory")
    assert findings(tmp_path / "bm") == []
    for name, path in notes(BM).items():  # and Basic Memory's own names come back, byte for byte
        assert (tmp_path / "bm" / "sessions" / name).read_bytes() == path.read_bytes()
    sessionkit.convert(WIKI, tmp_path / "bm2", to="basic-memory")
    assert findings(tmp_path / "bm2") == []
    sessionkit.convert(tmp_path / "bm2", tmp_path / "wiki2", to="aiwiki-v2")
    assert findings(tmp_path / "wiki2") == []


def test_synced_examples_lint_clean_on_both_sides(tmp_path: Path) -> None:
    shutil.copytree(WIKI, tmp_path / "a" / "wiki")
    (tmp_path / "a" / "bm" / "sessions").mkdir(parents=True)
    (tmp_path / "b" / "wiki" / "aiwiki" / "sessions").mkdir(parents=True)
    shutil.copytree(BM, tmp_path / "b" / "bm")
    for side in ("a", "b"):
        report = sessionkit.sync(tmp_path / side / "wiki", tmp_path / side / "bm")
        assert not report.failures and not report.conflicts
        assert findings(tmp_path / side / "wiki") == []
        assert findings(tmp_path / side / "bm") == []


def test_a_focus_edited_in_aiwiki_syncs_and_leaves_no_bm_title(tmp_path: Path) -> None:
    wiki, bm = tmp_path / "wiki", tmp_path / "bm"
    (wiki / "aiwiki" / "sessions").mkdir(parents=True)
    shutil.copytree(BM, bm)
    sessionkit.sync(wiki, bm)
    page = wiki / "aiwiki" / "sessions" / "2026-05-14-8b07d4e.md"
    text = page.read_text(encoding="utf-8")
    focus = "focus: 'Session 2026-05-14 10:02:37 — retry budget metrics'"
    assert focus in text
    page.write_text(text.replace(focus, "focus: the backfill budget"), encoding="utf-8")
    report = sessionkit.sync(wiki, bm)
    assert not report.failures and not report.conflicts
    note = bm / "sessions" / NOTE  # retitled; it keeps its file name
    assert sessionkit.parse(note.read_text(encoding="utf-8")).meta["title"] == "the backfill budget"
    # an edit in Basic Memory comes back to the page without a bm_title line
    note.write_text(note.read_text(encoding="utf-8").replace("Run the 90", "Run soon the 90"))
    report = sessionkit.sync(wiki, bm)
    assert not report.failures and not report.conflicts
    text = page.read_text(encoding="utf-8")
    assert "Run soon the 90" in text and "bm_title" not in text
    assert "focus: the backfill budget" in text
    assert findings(wiki) == [] and findings(bm) == []
    assert not sessionkit.sync(wiki, bm).failures


def test_abandoned_survives_both_ways(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "w" / "aiwiki" / "sessions").mkdir(parents=True)
    page = tmp_path / "w" / "aiwiki" / "sessions" / "2026-05-14-8b07d4e.md"
    text = (WIKI / "aiwiki" / "sessions" / page.name).read_text(encoding="utf-8")
    page.write_text(text.replace("status: done", "status: abandoned"), encoding="utf-8")
    sessionkit.convert(tmp_path / "w", tmp_path / "b", to="basic-memory")
    assert findings(tmp_path / "b") == []
    assert main(["sessionkit", "ls", "--status", "abandoned", str(tmp_path / "b")]) == 0
    assert "8b07d4e  abandoned" in capsys.readouterr().out
    sessionkit.convert(tmp_path / "b", tmp_path / "w2", to="aiwiki-v2")
    back = (tmp_path / "w2" / "aiwiki" / "sessions" / page.name).read_text(encoding="utf-8")
    assert sessionkit.parse(back).meta["status"] == "abandoned"
    # and Basic Memory's own word: to aiwiki and back, byte for byte
    (tmp_path / "bm" / "sessions").mkdir(parents=True)
    src = (BM / "sessions" / NOTE).read_text(encoding="utf-8")
    src = src.replace("status: closed", "status: abandoned")
    (tmp_path / "bm" / "sessions" / NOTE).write_text(src, encoding="utf-8")
    sessionkit.convert(tmp_path / "bm", tmp_path / "w3", to="aiwiki-v2")
    assert findings(tmp_path / "w3") == []
    assert main(["sessionkit", "ls", "--status", "abandoned", str(tmp_path / "w3")]) == 0
    assert "8b07d4e  abandoned" in capsys.readouterr().out
    sessionkit.convert(tmp_path / "w3", tmp_path / "bm2", to="basic-memory")
    assert (tmp_path / "bm2" / "sessions" / NOTE).read_text(encoding="utf-8") == src


def test_a_closed_note_without_ended_converts_without_aw019(tmp_path: Path) -> None:
    (tmp_path / "bm" / "sessions").mkdir(parents=True)
    src = (BM / "sessions" / NOTE).read_text(encoding="utf-8")
    src = "".join(line for line in src.splitlines(True) if not line.startswith("ended:"))
    (tmp_path / "bm" / "sessions" / NOTE).write_text(src, encoding="utf-8")
    sessionkit.convert(tmp_path / "bm", tmp_path / "w", to="aiwiki-v2")
    assert findings(tmp_path / "w") == []  # done, and it ends the day it started
    sessionkit.convert(tmp_path / "w", tmp_path / "bm2", to="basic-memory")
    assert (tmp_path / "bm2" / "sessions" / NOTE).read_text(encoding="utf-8") == src
    # an aiwiki page done without date_end keeps that through Basic Memory
    (tmp_path / "a" / "aiwiki" / "sessions").mkdir(parents=True)
    name = "2026-05-14-8b07d4e.md"
    text = (WIKI / "aiwiki" / "sessions" / name).read_text(encoding="utf-8")
    text = "".join(line for line in text.splitlines(True) if not line.startswith("date_end:"))
    (tmp_path / "a" / "aiwiki" / "sessions" / name).write_text(text, encoding="utf-8")
    sessionkit.convert(tmp_path / "a", tmp_path / "b", to="basic-memory")
    sessionkit.convert(tmp_path / "b", tmp_path / "a2", to="aiwiki-v2")
    back = (tmp_path / "a2" / "aiwiki" / "sessions" / name).read_text(encoding="utf-8")
    assert "date_end" not in back and "bm_ended" not in back
