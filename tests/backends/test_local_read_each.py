"""LocalStorage.read_each: what read gives each path (bytes or the error), folder by
folder, and never a byte from outside the root, even when a folder is swapped for a
link while the notes are read."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

import sessionkit
from sessionkit.backends import open_store
from sessionkit.errors import PathSafetyError, StoreError


def _storage(root: Path | str, **options: Any) -> Any:
    """The byte layer of a local store at ``root`` (what ``open_store`` opens)."""
    return sessionkit.open_store(str(root), layout="aiwiki", **options).storage


def _what_read_gives(storage: Any, path: str) -> object:
    try:
        return storage.read(path)
    except StoreError as exc:
        return type(exc), str(exc)


def _as_read(value: object) -> object:
    return (type(value), str(value)) if isinstance(value, StoreError) else value


@pytest.fixture
def tree(tmp_path: Path) -> tuple[Path, Path]:
    """A root with notes in nested folders, links inside and out, and odd entries."""
    root, outside = tmp_path / "root", tmp_path / "outside"
    (root / "a" / "b").mkdir(parents=True)
    (root / "c").mkdir()
    outside.mkdir()
    (outside / "secret.md").write_bytes(b"outside\n")
    (root / "top.md").write_bytes(b"top\n")
    (root / "a" / "one.md").write_bytes(b"one\n")
    (root / "a" / "b" / "two.md").write_bytes(b"two\n" * 40_000)  # (several reads)
    (root / "c" / "empty.md").write_bytes(b"")
    (root / "a" / "inside.md").symlink_to(root / "top.md")  # a link that stays inside
    (root / "a" / "out.md").symlink_to(outside / "secret.md")  # one that leaves the root
    (root / "linked").symlink_to(root / "a", target_is_directory=True)  # a folder link inside
    (root / "away").symlink_to(outside, target_is_directory=True)  # one outside
    (root / "c" / "folder.md").mkdir()  # a folder where a note is asked for
    (root / "c" / "file").write_bytes(b"x")  # a file where a folder is asked for
    return root, outside


PATHS = [
    "top.md",
    "a/one.md",
    "a/b/two.md",
    "c/empty.md",
    "a/inside.md",
    "linked/one.md",
    "missing.md",
    "a/missing.md",
    "nowhere/one.md",
    "c/folder.md",
    "c/file/x.md",
    "a/one.md",  # (twice)
    "../escape.md",
]


def test_read_each_gives_what_read_gives(tree: tuple[Path, Path]) -> None:
    root, _ = tree
    storage = _storage(root)
    got = list(storage.read_each(PATHS))
    assert [path for path, _ in got] == PATHS
    assert [_as_read(value) for _, value in got] == [_what_read_gives(storage, p) for p in PATHS]
    assert dict(got)["a/b/two.md"] == b"two\n" * 40_000
    assert dict(got)["a/inside.md"] == b"top\n"


@pytest.mark.parametrize("path", ["a/out.md", "away/secret.md"])
def test_a_link_leading_outside_is_refused_as_read_refuses_it(
    tree: tuple[Path, Path], path: str
) -> None:
    root, _ = tree
    storage = _storage(root)
    with pytest.raises(PathSafetyError) as by_read:
        storage.read(path)
    got = dict(storage.read_each(["top.md", path]))
    assert got["top.md"] == b"top\n"
    assert isinstance(got[path], PathSafetyError) and str(got[path]) == str(by_read.value)


def test_a_folder_swapped_for_a_link_meanwhile_is_not_followed(tree: tuple[Path, Path]) -> None:
    """The notes of a folder are read from the folder that was checked: a link put in
    its place after the first note (to a folder outside holding the same names) is
    not followed."""
    root, outside = tree
    (outside / "one.md").write_bytes(b"outside one\n")
    (root / "a" / "second.md").write_bytes(b"second\n")
    (outside / "second.md").write_bytes(b"outside second\n")
    storage = _storage(root)
    reads = storage.read_each(["a/one.md", "a/second.md"])
    assert next(reads) == ("a/one.md", b"one\n")
    os.rename(root / "a", root / "a-moved")
    (root / "a").symlink_to(outside, target_is_directory=True)
    assert next(reads) == ("a/second.md", b"second\n")  # the folder checked, not the link
    with pytest.raises(PathSafetyError):
        storage.read("a/second.md")  # (read, checking again, refuses the link)


def test_no_descriptor_is_left_open(tree: tuple[Path, Path]) -> None:
    root, _ = tree
    storage = _storage(root)
    before = len(os.listdir("/proc/self/fd"))
    list(storage.read_each(PATHS[:6] * 3))
    reads = storage.read_each(PATHS[:6])
    next(reads)
    reads.close()  # (left early)
    assert len(os.listdir("/proc/self/fd")) == before


def test_a_batch_over_many_folders_keeps_few_open(tmp_path: Path) -> None:
    paths = []
    for i in range(150):
        (tmp_path / f"f{i:03}" / "g").mkdir(parents=True)
        (tmp_path / f"f{i:03}" / "g" / "n.md").write_bytes(f"{i}\n".encode())
        paths.append(f"f{i:03}/g/n.md")
    storage = _storage(tmp_path)
    before = len(os.listdir("/proc/self/fd"))
    most = 0
    got = []
    for _, data in storage.read_each(paths):
        got.append(data)
        most = max(most, len(os.listdir("/proc/self/fd")) - before)
    assert got == [f"{i}\n".encode() for i in range(150)]
    assert 0 < most <= 70
    assert len(os.listdir("/proc/self/fd")) == before


def test_a_store_reads_its_notes_through_it(tmp_path: Path) -> None:
    sessions = tmp_path / "wiki" / "aiwiki" / "sessions"
    sessions.mkdir(parents=True)
    (sessions / "2026-05-18-aaaaaaa.md").write_bytes(b"one\r\n")
    (sessions / "2026-05-19-bbbbbbb.md").symlink_to(sessions / "2026-05-18-aaaaaaa.md")
    (tmp_path / "elsewhere.md").write_bytes(b"outside\n")
    (sessions / "2026-05-20-ccccccc.md").symlink_to(tmp_path / "elsewhere.md")
    store = open_store(str(tmp_path / "wiki"), layout="aiwiki")
    keys = [
        "2026-05-18-aaaaaaa.md",
        "2026-05-21-missing.md",
        "2026-05-19-bbbbbbb.md",
        "2026-05-20-ccccccc.md",
        "2026-05-18-aaaaaaa.md",
    ]
    got = list(store.read_many(keys))
    assert [key for key, _ in got] == keys
    assert got[0][1] == got[2][1] == got[4][1] == "one\r\n"
    assert isinstance(got[1][1], StoreError)
    assert isinstance(got[3][1], PathSafetyError)


def test_a_remote_store_reads_a_key_asked_for_twice() -> None:
    """(The same order and repeats on a store that reads a batch at once: a key asked
    for twice was read once and then looked for again, a KeyError.)"""
    import fsspec

    fsspec.filesystem("memory").pipe("/twice/aiwiki/sessions/2026-05-18-aaaaaaa.md", b"one\n")
    store = open_store("memory://twice", layout="aiwiki")
    keys = ["2026-05-18-aaaaaaa.md", "2026-05-19-missing.md", "2026-05-18-aaaaaaa.md"]
    got = list(store.read_many(keys))
    assert [key for key, _ in got] == keys
    assert got[0][1] == got[2][1] == "one\n"
    assert isinstance(got[1][1], StoreError)
