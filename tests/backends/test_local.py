"""Local disk: atomic replace, temp-file hygiene, the lock file and its timeout."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

import sessionkit
from sessionkit.errors import ConflictError, StoreError

LOCK_NAME = ".sessionkit.lock"


def _storage(root: Path | str, **options: Any) -> Any:
    """The byte layer of a local store at ``root`` (what ``open_store`` opens)."""
    return sessionkit.open_store(str(root), layout="aiwiki", **options).storage


@pytest.fixture
def store(tmp_path: Path) -> Any:
    return sessionkit.open_store(tmp_path, layout="aiwiki", lock_timeout=0.3)


def _folder(tmp_path: Path) -> Path:
    return tmp_path / "aiwiki" / "sessions"


def test_failed_replace_keeps_old_text_and_leaves_no_temp(
    store: Any, tmp_path: Path, monkeypatch: Any
) -> None:
    store.write_text("n.md", "old")

    def broken(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken)
    with pytest.raises(StoreError, match="No space left"):
        store.write_text("n.md", "new")
    with pytest.raises(StoreError):
        store.update_text("n.md", lambda t: "new")
    monkeypatch.undo()
    assert store.read_text("n.md") == "old"
    assert sorted(p.name for p in _folder(tmp_path).iterdir()) == [LOCK_NAME, "n.md"]


def test_temp_files_are_hidden_dotfiles(store: Any, tmp_path: Path, monkeypatch: Any) -> None:
    seen: list[str] = []
    real = os.replace

    def spy(src: str, dst: str) -> None:
        seen.append(os.path.basename(src))
        real(src, dst)

    monkeypatch.setattr(os, "replace", spy)
    store.write_text("n.md", "x")
    assert seen and all(n.startswith(".n.md.") and n.endswith(".tmp") for n in seen)


def test_lock_timeout_is_a_conflict(store: Any, tmp_path: Path) -> None:
    from filelock import FileLock

    store.write_text("n.md", "x")
    with FileLock(str(_folder(tmp_path) / LOCK_NAME)), pytest.raises(ConflictError, match="lock"):
        store.update_text("n.md", lambda t: "y")
    assert store.read_text("n.md") == "x"


def test_create_is_atomic_against_foreign_writers(store: Any, tmp_path: Path) -> None:
    _folder(tmp_path).mkdir(parents=True)
    (_folder(tmp_path) / "n.md").write_text("someone else")
    with pytest.raises(ConflictError):
        store.write_text("n.md", "mine", create=True)
    assert store.read_text("n.md") == "someone else"


def test_root_need_not_exist(tmp_path: Path) -> None:
    storage = _storage(tmp_path / "later")
    assert storage.list() == []
    storage.write("aiwiki/sessions/a.md", b"x", create=True)
    assert [e.path for e in storage.list()] == ["aiwiki/sessions/a.md"]


def test_invalid_utf8_is_a_parse_error_with_line(store: Any, tmp_path: Path) -> None:
    store.write_text("n.md", "ok")
    (_folder(tmp_path) / "n.md").write_bytes(b"line one\nbad \xff byte\n")
    with pytest.raises(sessionkit.ParseError) as info:
        store.read_text("n.md")
    assert info.value.line == 2
    [(_key, err)] = list(store.read_many(["n.md"]))
    assert isinstance(err, sessionkit.ParseError)


@pytest.mark.parametrize("where", ["local", "memory"])
def test_versions_change_with_a_note_and_read_no_note(
    tmp_path: Path, where: str, monkeypatch: Any
) -> None:
    url = str(tmp_path) if where == "local" else f"memory://versions-{tmp_path.name}"
    store = sessionkit.open_store(url, layout="aiwiki")
    store.write_text("a.md", "one")
    store.write_text("b.md", "two")
    before = store.versions()
    assert set(before) == {"a.md", "b.md"} and all(before.values())
    monkeypatch.setattr(store.storage, "read", lambda path: pytest.fail("read a note"))
    assert store.versions() == before
    monkeypatch.undo()
    store.write_text("a.md", "one, longer")
    after = store.versions()
    assert after["a.md"] != before["a.md"] and after["b.md"] == before["b.md"]
