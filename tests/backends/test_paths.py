"""Path safety on local disk: keys, ids and symlinks cannot reach outside the store root."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sessionkit
from sessionkit.backends import check_key
from sessionkit.backends.aiwiki import AiwikiStore, safe_id7
from sessionkit.backends.basic_memory import BasicMemoryStore
from sessionkit.errors import PathSafetyError
from sessionkit.model import Session
from tests.budget import examples


@pytest.fixture
def wiki(tmp_path: Path) -> tuple[Path, Path]:
    root = tmp_path / "repo"
    (root / "aiwiki" / "sessions").mkdir(parents=True)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("---\nstatus: done\n---\nsecret\n")
    return root, outside


@pytest.mark.parametrize(
    "key",
    [
        "../x.md",
        "a/../../x.md",
        "/abs.md",
        "C:\\x.md",
        "a\\b.md",
        "n\x00ul.md",
        "aux.md",
        "COM1",
        "a" * 256,
        "é" * 128 + ".md",
        "..",
        ".",
        "a/./b.md",
        "x\n.md",
    ],
)
def test_check_key_refuses(key: str) -> None:
    with pytest.raises(PathSafetyError):
        check_key(key)


@pytest.mark.parametrize("key", ["2026-05-18-abc1234.md", "sub/dir/n.md", "Session 1 – x.md"])
def test_check_key_accepts(key: str) -> None:
    assert check_key(key) == key


def test_symlinked_folder_pointing_outside_is_refused(wiki: tuple[Path, Path]) -> None:
    root, outside = wiki
    os.symlink(outside, root / "aiwiki" / "sessions" / "linked")
    store = sessionkit.open_store(root)
    assert store.keys() == []  # not listed
    assert isinstance(store, AiwikiStore)
    with pytest.raises(PathSafetyError):
        store.read_text("linked/secret.md")
    with pytest.raises(PathSafetyError):
        store.write_text("linked/new.md", "x")
    with pytest.raises(PathSafetyError):
        store.update_text("linked/secret.md", lambda t: "pwned")
    with pytest.raises(PathSafetyError):
        store.delete("linked/secret.md")
    assert sorted(p.name for p in outside.iterdir()) == ["secret.md"]
    assert (outside / "secret.md").read_text().endswith("secret\n")


def test_symlinked_file_pointing_outside_is_refused(wiki: tuple[Path, Path]) -> None:
    root, outside = wiki
    os.symlink(outside / "secret.md", root / "aiwiki" / "sessions" / "2026-05-18-aaaaaaa.md")
    store = sessionkit.open_store(root)
    assert store.keys() == []
    with pytest.raises(PathSafetyError):
        store.read_text("2026-05-18-aaaaaaa.md")
    with pytest.raises(PathSafetyError):
        store.write_text("2026-05-18-aaaaaaa.md", "x")
    assert (outside / "secret.md").read_text().endswith("secret\n")


def test_symlinked_notes_folder_pointing_outside_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    (root / "aiwiki").mkdir(parents=True)
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    os.symlink(outside, root / "aiwiki" / "sessions")
    store = sessionkit.open_store(root)
    with pytest.raises(PathSafetyError):
        store.write_text("2026-05-18-aaaaaaa.md", "x")
    with pytest.raises(PathSafetyError):
        store.keys()
    assert list(outside.iterdir()) == []


def test_symlink_inside_root_is_followed(wiki: tuple[Path, Path]) -> None:
    root, _ = wiki
    (root / "archive").mkdir()
    (root / "archive" / "2026-01-01-0000000.md").write_text("old")
    os.symlink(root / "archive", root / "aiwiki" / "sessions" / "archive")
    store = sessionkit.open_store(root)
    assert store.keys() == ["archive/2026-01-01-0000000.md"]
    assert store.read_text("archive/2026-01-01-0000000.md") == "old"


@pytest.mark.parametrize(
    ("session_id", "expected"),
    [
        (None, "0000000"),
        ("", "0000000"),
        ("7e8a3f2c-1111", "7e8a3f2"),
        ("../../etc/passwd", "etcpass"),
        ("\x00\x00", "0000000"),
        ("a/b\\c:d e", "abcde"),
        ("..", "0000000"),
    ],
)
def test_safe_id7(session_id: str | None, expected: str) -> None:
    assert safe_id7(session_id) == expected


def test_key_for_hostile_sessions_stays_inside(tmp_path: Path) -> None:
    aw = sessionkit.open_store(tmp_path, layout="aiwiki")
    bm = sessionkit.open_store(tmp_path / "bm", layout="basic-memory")
    assert isinstance(bm, BasicMemoryStore)
    hostile = [
        Session(id="../../x", started="../../2026", title="../../../etc/passwd"),
        Session(id="\\\\server\\share", started="2026-05-18", title="C:\\Windows\\x"),
        Session(id="CON", started="2026-05-18T10:00:00Z", title="CON"),
        Session(id="x" * 500, started="2026-05-18", title="y" * 500),
        Session(id=None, started=None, title="\x00\x01..\x02"),
    ]
    for s in hostile:
        for store in (aw, bm):
            key = store.key_for(s)
            check_key(key)
            assert "/" not in key
            store.write_text(key, "x")
    written = [p for p in tmp_path.rglob("*") if p.is_file() and not p.name.startswith(".")]
    for path in written:
        assert path.resolve().is_relative_to(tmp_path.resolve())


def test_no_temp_or_lock_file_is_a_note(tmp_path: Path) -> None:
    store = sessionkit.open_store(tmp_path, layout="aiwiki")
    store.write_text("2026-05-18-aaaaaaa.md", "x")
    store.update_text("2026-05-18-aaaaaaa.md", lambda t: (t or "") + "y")
    folder = tmp_path / "aiwiki" / "sessions"
    names = sorted(p.name for p in folder.iterdir())
    assert names == [".sessionkit.lock", "2026-05-18-aaaaaaa.md"]
    assert store.keys() == ["2026-05-18-aaaaaaa.md"]


_SEGMENTS = st.sampled_from(
    ["..", ".", "", "a", "b.md", "/", "\\", "\x00", "con", "C:", "~", "é", " ", "%2e%2e"]
)


@settings(max_examples=examples(150), deadline=None)
@given(st.lists(_SEGMENTS, min_size=1, max_size=6).map("/".join) | st.text(max_size=40))
def test_any_key_is_refused_or_stays_inside(tmp_path_factory: Any, key: str) -> None:
    root = tmp_path_factory.getbasetemp() / "prop-root"
    storage: Any = sessionkit.open_store(str(root), layout="aiwiki").storage
    try:
        full = storage.resolve(key)
    except PathSafetyError:
        return
    real = os.path.realpath(full)
    assert real.startswith(storage.root + os.sep)
