"""LocalStorage.update_many and write_many: a group written together keeps every
guarantee of one write (no lost edit, modes kept, read-only refused, nothing
outside the root, no temp file left, a conflict per note)."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

import pytest

import sessionkit
from sessionkit.errors import ConflictError, NotFoundError, PathSafetyError, StoreError

LOCK_NAME = ".sessionkit.lock"


def _storage(root: Path | str, **options: Any) -> Any:
    """The byte layer of a local store at ``root`` (what ``open_store`` opens)."""
    return sessionkit.open_store(str(root), layout="aiwiki", **options).storage


def _names(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def _files(root: Path, n: int = 5) -> list[str]:
    (root / "s").mkdir(exist_ok=True)
    paths = []
    for i in range(n):
        (root / "s" / f"n{i}.md").write_bytes(f"note {i}\n".encode())
        paths.append(f"s/n{i}.md")
    return paths


def test_update_many_writes_each_file_and_keeps_modes(tmp_path: Path) -> None:
    storage = _storage(tmp_path)
    paths = _files(tmp_path)
    os.chmod(tmp_path / paths[1], 0o600)
    with storage.batch():
        got = storage.update_many(paths, lambda p, b: None if p == paths[2] else b + b"more\n")
    assert got[2] == b"note 2\n"
    for i, path in enumerate(paths):
        want = f"note {i}\n".encode() + (b"" if i == 2 else b"more\n")
        assert (tmp_path / path).read_bytes() == want and got[i] == want
    assert stat.S_IMODE(os.stat(tmp_path / paths[1]).st_mode) == 0o600
    assert _names(tmp_path / "s") == [LOCK_NAME, *[f"n{i}.md" for i in range(5)]]


def test_update_many_redoes_a_file_changed_after_fn_saw_it(tmp_path: Path) -> None:
    storage = _storage(tmp_path)
    paths = _files(tmp_path)
    calls: list[tuple[str, bytes | None]] = []

    def fn(path: str, data: bytes | None) -> bytes:
        calls.append((path, data))
        if path == paths[3] and len([c for c in calls if c[0] == path]) == 1:
            with open(tmp_path / path, "ab") as fh:  # another writer, after fn read it
                fh.write(b"theirs\n")
        assert data is not None
        return data + b"ours\n"

    got = storage.update_many(paths, fn)
    assert (tmp_path / paths[3]).read_bytes() == b"note 3\ntheirs\nours\n" == got[3]
    assert [p for p, _ in calls].count(paths[3]) == 2
    assert (tmp_path / paths[0]).read_bytes() == b"note 0\nours\n"
    assert not [n for n in _names(tmp_path / "s") if n.endswith(".tmp")]


def test_update_many_refuses_read_only_files_and_reports_each_error(tmp_path: Path) -> None:
    storage = _storage(tmp_path)
    paths = _files(tmp_path)
    os.chmod(tmp_path / paths[0], 0o444)
    (tmp_path / paths[4]).unlink()
    outside = tmp_path.parent / f"{tmp_path.name}-outside.md"
    outside.write_bytes(b"outside\n")
    os.symlink(outside, tmp_path / "s" / "link.md")

    def fn(path: str, data: bytes | None) -> bytes:
        if data is None:
            raise NotFoundError("gone", path=path)
        return data + b"x\n"

    got = storage.update_many([*paths, "s/link.md"], fn)
    assert isinstance(got[0], StoreError) and "read-only" in str(got[0])
    assert isinstance(got[4], NotFoundError)
    assert isinstance(got[5], PathSafetyError)
    assert got[1] == b"note 1\nx\n"
    assert (tmp_path / paths[0]).read_bytes() == b"note 0\n"
    assert outside.read_bytes() == b"outside\n"


def test_update_many_refuses_a_file_made_read_only_after_fn_saw_it(tmp_path: Path) -> None:
    """Same bytes, but the mode changed meanwhile (``chmod a-w`` by the user): the
    file is checked again under the lock and refused, not replaced."""
    storage = _storage(tmp_path)
    paths = _files(tmp_path)

    def fn(path: str, data: bytes | None) -> bytes:
        if path == paths[2]:
            os.chmod(tmp_path / path, 0o444)  # after the read, before the lock
        assert data is not None
        return data + b"x\n"

    got = storage.update_many(paths, fn)
    assert isinstance(got[2], StoreError) and "read-only" in str(got[2])
    assert (tmp_path / paths[2]).read_bytes() == b"note 2\n"
    assert stat.S_IMODE(os.stat(tmp_path / paths[2]).st_mode) == 0o444
    assert got[1] == (tmp_path / paths[1]).read_bytes() == b"note 1\nx\n"


def test_write_many_creates_each_new_file_and_refuses_existing_ones(tmp_path: Path) -> None:
    storage = _storage(tmp_path)
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "taken.md").write_bytes(b"theirs")
    (tmp_path / "s" / "dir.md").mkdir()
    items = [("s/a.md", b"a"), ("s/taken.md", b"mine"), ("s/b.md", b"b"), ("s/dir.md", b"d")]
    with storage.batch():
        got = storage.write_many(items, create=True)
    assert got[0] is None and got[2] is None
    assert isinstance(got[1], ConflictError)
    assert isinstance(got[3], StoreError) and not isinstance(got[3], ConflictError)
    assert (tmp_path / "s" / "taken.md").read_bytes() == b"theirs"
    assert (tmp_path / "s" / "a.md").read_bytes() == b"a"
    assert not [n for n in _names(tmp_path / "s") if n.endswith(".tmp")]


def test_write_many_without_hard_links_takes_the_locked_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    storage = _storage(tmp_path)
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "taken.md").write_bytes(b"theirs")

    def no_links(src: str, dst: str) -> None:
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(os, "link", no_links)
    with storage.batch():
        got = storage.write_many(
            [("s/a.md", b"a"), ("s/taken.md", b"mine"), ("s/b.md", b"b")], create=True
        )
    assert got[0] is None and got[2] is None and isinstance(got[1], ConflictError)
    assert (tmp_path / "s" / "b.md").read_bytes() == b"b"
    assert (tmp_path / "s" / "taken.md").read_bytes() == b"theirs"
    assert not [n for n in _names(tmp_path / "s") if n.endswith(".tmp")]


def test_update_many_waits_for_the_lock(tmp_path: Path) -> None:
    from filelock import FileLock

    storage = _storage(tmp_path, lock_timeout=0.2)
    paths = _files(tmp_path, 3)
    with FileLock(str(tmp_path / "s" / LOCK_NAME)):  # another process's lock (filelock's flock)
        got = storage.update_many(paths, lambda p, b: (b or b"") + b"x")
    assert all(isinstance(g, ConflictError) and "lock" in str(g) for g in got)
    assert [(tmp_path / p).read_bytes() for p in paths] == [
        f"note {i}\n".encode() for i in range(3)
    ]
    assert not [n for n in _names(tmp_path / "s") if n.endswith(".tmp")]


def test_a_root_swapped_for_a_link_after_opening_is_refused(tmp_path: Path) -> None:
    """The path checks look at the parts below the root, and at the root itself:
    a root replaced by a symlink to elsewhere (after the store was opened) leads
    outside, and nothing is read or written there."""
    root = tmp_path / "wiki"
    root.mkdir()
    paths = _files(root, 3)
    storage = _storage(root)
    assert storage.read(paths[0]) == b"note 0\n"
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "s").mkdir(parents=True)
    (elsewhere / "s" / "n0.md").write_bytes(b"theirs\n")
    root.rename(tmp_path / "moved")
    root.symlink_to(elsewhere, target_is_directory=True)
    with pytest.raises(PathSafetyError):
        storage.read(paths[0])
    with pytest.raises(PathSafetyError):
        storage.write("s/new.md", b"x", create=True)
    got = storage.update_many(paths, lambda p, b: (b or b"") + b"x")
    assert all(isinstance(g, PathSafetyError) for g in got)
    assert (elsewhere / "s" / "n0.md").read_bytes() == b"theirs\n"
    assert sorted(p.name for p in (elsewhere / "s").iterdir()) == ["n0.md"]
