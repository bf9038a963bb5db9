"""The lint folder walk: the notes and order of ``sorted(rglob)``, and schemas per folder."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sessionkit.ops.lint import WikiSchemas, note_runs, notes_under, wiki_root


def _reference(folder: Path) -> list[str]:
    """The walk as ``sorted(Path.rglob)`` with the same exclusions (the oracle)."""
    sessions = folder / "aiwiki" / "sessions"
    base = sessions if sessions.is_dir() else folder
    found = []
    for path in base.rglob("*.md"):
        rel = path.relative_to(base).parts
        if path.name == "INDEX.md" or any(part.startswith(".") for part in rel):
            continue
        if path.is_file():
            found.append(path)
    return [str(p) for p in sorted(found)]


NAMES = st.sampled_from(
    ["a", "a.md", "b.md", "INDEX.md", ".hidden.md", ".d", "z", "A.md", "a-b.md", "a_b", "x.txt"]
)
TREES = st.lists(st.lists(NAMES, min_size=1, max_size=4), min_size=1, max_size=12)


def _build(root: Path, paths: list[list[str]]) -> None:
    for parts in paths:
        target = root.joinpath(*parts)
        if any(p.is_file() for p in [*target.parents, target] if p != root and p.exists()):
            continue  # a file where a folder would go: skip this one
        if target.is_dir():
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text("x\n")


@settings(max_examples=60, deadline=None)
@given(TREES, st.booleans())
def test_walk_equals_sorted_rglob(tmp_path_factory: pytest.TempPathFactory, tree, wiki) -> None:
    root = tmp_path_factory.mktemp("walk")
    base = root / "aiwiki" / "sessions" if wiki else root
    base.mkdir(parents=True, exist_ok=True)
    _build(base, tree)
    assert list(notes_under(root)) == _reference(root)
    assert list(notes_under(str(root) + os.sep)) == _reference(Path(str(root) + os.sep))
    _runs_are_the_walk(root)


def _runs_are_the_walk(root: Path) -> None:
    """``note_runs``: the walk cut into runs, each of one folder's notes, none empty."""
    runs = list(note_runs(root))
    assert [prefix + name for prefix, names in runs for name in names] == list(notes_under(root))
    for prefix, names in runs:
        assert names
        assert all(Path(prefix + name).parent == Path(prefix) for name in names)


def test_walk_spells_paths_as_pathlib(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "aiwiki" / "sessions").mkdir(parents=True)
    (tmp_path / "aiwiki" / "sessions" / "2026-01-01-abcdef0.md").write_text("x\n")
    monkeypatch.chdir(tmp_path)
    assert list(notes_under(".")) == ["aiwiki/sessions/2026-01-01-abcdef0.md"]
    assert list(notes_under("./aiwiki/sessions/")) == ["aiwiki/sessions/2026-01-01-abcdef0.md"]


def test_walk_does_not_enter_linked_folders(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "n.md").write_text("x\n")
    root = tmp_path / "root"
    root.mkdir()
    (root / "linked").symlink_to(outside, target_is_directory=True)
    (root / "own.md").write_text("x\n")
    assert list(notes_under(root)) == _reference(root) == [str(root / "own.md")]


def test_linked_notes_inside_are_walked_and_those_outside_refused(tmp_path: Path) -> None:
    outside = tmp_path / "outside.md"
    outside.write_text("x\n")
    root = tmp_path / "root"
    (root / "sub").mkdir(parents=True)
    for name in ("a.md", "c.md", "sub/b.md"):
        (root / name).write_text("x\n")
    (root / "b-in.md").symlink_to(root / "c.md")  # a link to a note inside: walked
    (root / "b-out.md").symlink_to(outside)  # a link to a note outside: refused
    (root / "folder.md").mkdir()  # a folder named like a note: entered
    (root / "folder.md" / "d.md").write_text("x\n")
    (root / "e.md").symlink_to(root / "sub", target_is_directory=True)  # neither
    (root / "dangling.md").symlink_to(tmp_path / "gone.md")  # neither
    refused: list[str] = []
    walked = list(notes_under(root, refused))
    assert walked == [
        str(root / name) for name in ("a.md", "b-in.md", "c.md", "folder.md/d.md", "sub/b.md")
    ]
    assert refused == [str(root / "b-out.md")]
    _runs_are_the_walk(root)


SCHEMA = """---
schema_id: session
schema_version: 2
hard_cap_lines: 50
---
"""


def test_schema_per_folder_is_the_schema_per_note(tmp_path: Path) -> None:
    outer = tmp_path / "outer"
    inner = outer / "aiwiki" / "sessions" / "deep" / "aiwiki" / "sessions"
    inner.mkdir(parents=True)
    (outer / "aiwiki" / "schemas").mkdir()
    (outer / "aiwiki" / "schemas" / "session.md").write_text(SCHEMA)
    notes = [
        outer / "aiwiki" / "sessions" / "a.md",
        outer / "aiwiki" / "sessions" / "deep" / "b.md",
        inner / "c.md",
        tmp_path / "loose.md",
    ]
    for note in notes:
        note.write_text("x\n")
    cached = WikiSchemas()
    for note in notes * 2:  # the second time from the folder cache
        fresh = WikiSchemas()
        root = wiki_root(note)
        expected = None if root is None else fresh.for_root(root)
        assert cached.for_note(str(note)) == expected
    assert cached.for_note(str(notes[0])) is not None
    assert cached.for_note(str(notes[1])) is not None  # still the outer wiki
    assert cached.for_note(str(notes[2])) is None  # the inner wiki has no schema page
    assert cached.for_note(str(notes[3])) is None


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["a", "b", ".", "..", "/", "//", "x.md", " "]), max_size=7))
def test_paths_are_spelled_as_pathlib_spells_them(parts: list[str]) -> None:
    """The walk spells its folder without importing pathlib when it can: as pathlib does."""
    from sessionkit.ops.lint import spelled

    text = "".join(parts)
    assert spelled(text) == str(Path(text))
    assert spelled(Path(text)) == str(Path(text))


@pytest.mark.parametrize("form", ["wiki", "./wiki", "wiki/", "./wiki//", "wiki/.", "."])
def test_a_folder_spelled_any_way_walks_as_pathlib_spells_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, form: str
) -> None:
    folder = tmp_path / "wiki" / "aiwiki" / "sessions"
    folder.mkdir(parents=True)
    (folder / "2026-05-01-abcdef0.md").write_text("x")
    monkeypatch.chdir(tmp_path / "wiki" if form == "." else tmp_path)
    assert list(notes_under(form)) == _reference(Path(form))
    assert wiki_root(next(notes_under(form))) == (tmp_path / "wiki")
