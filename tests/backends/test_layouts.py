"""The aiwiki and Basic Memory layouts: names, filters, latest, INDEX.md; requests counted."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path
from typing import Any

import pytest

import sessionkit
from sessionkit.backends.aiwiki import AiwikiStore
from sessionkit.backends.basic_memory import BasicMemoryStore
from sessionkit.model import Session, Status

from .conftest import CallCounter

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _page(day: str, status: str, focus: str = "f", sid: str | None = None, pad: int = 0) -> str:
    extra = f'session_id: "{sid}"\n' if sid else ""
    padding = "".join(f"# pad {i}\n" for i in range(pad))  # YAML comments
    return (
        f"---\nschema_id: session\nschema_version: 2\nstatus: {status}\n"
        f"date_start: {day}\n{extra}focus: {focus}\n{padding}---\n\n## Next steps\n\n- x\n"
    )


@pytest.fixture
def wiki(tmp_path: Path) -> AiwikiStore:
    store = sessionkit.open_store(tmp_path, layout="aiwiki")
    assert isinstance(store, AiwikiStore)
    store.write_text("2026-05-01-aaaaaaa.md", _page("2026-05-01", "done", "first | pipe"))
    store.write_text("2026-05-03-bbbbbbb.md", _page("2026-05-03", "active", "second"))
    store.write_text("2026-05-03-ccccccc.md", _page("2026-05-03", "abandoned", "third"))
    store.write_text("2026/2026-04-30-ddddddd.md", _page("2026-04-30", "done", "nested"))
    store.write_text("undated.md", _page("2026-05-02", "done", "undated", pad=400))
    store.write_text("INDEX.md", "old index\n")
    (tmp_path / "aiwiki" / "sessions" / "notes.txt").write_text("not a note")
    return store


def test_aiwiki_keys_exclude_index_and_non_notes(wiki: AiwikiStore) -> None:
    assert wiki.keys() == [
        "2026-05-01-aaaaaaa.md",
        "2026-05-03-bbbbbbb.md",
        "2026-05-03-ccccccc.md",
        "2026/2026-04-30-ddddddd.md",
        "undated.md",
    ]


def test_aiwiki_key_for() -> None:
    store = sessionkit.open_store("memory://kf", layout="aiwiki")
    s = Session(id="7e8a3f21-9a4b", started="2026-05-18T14:23:00Z")
    assert store.key_for(s) == "2026-05-18-7e8a3f2.md"
    assert store.key_for(Session(started="2026-05-18")) == "2026-05-18-0000000.md"
    today = store.key_for(Session(id="abc"))
    assert today.endswith("-abc.md") and len(today) == len("2026-05-18-abc.md")


def test_aiwiki_list_filters(wiki: AiwikiStore) -> None:
    assert [n.key for n in wiki.list(status="done")] == [
        "2026-05-01-aaaaaaa.md",
        "2026/2026-04-30-ddddddd.md",
        "undated.md",  # its frontmatter is beyond the first 4 KB: read whole
    ]
    assert [n.key for n in wiki.list(since="2026-05-02")] == [
        "2026-05-03-bbbbbbb.md",
        "2026-05-03-ccccccc.md",
        "undated.md",  # dated by date_start
    ]
    assert [n.key for n in wiki.list(status=Status.DONE, until="2026-04-30")] == [
        "2026/2026-04-30-ddddddd.md"
    ]
    first = wiki.list(status="done")[0]
    assert (first.date, first.status, first.title) == ("2026-05-01", Status.DONE, "first | pipe")


def test_aiwiki_list_by_date_reads_only_the_heads_it_returns(
    wiki: AiwikiStore, monkeypatch: Any
) -> None:
    opened: list[str] = []
    real_open = open

    def spy(path: Any, *args: Any, **kwargs: Any) -> Any:
        opened.append(str(path))
        return real_open(path, *args, **kwargs)

    real_os_open = os.open

    def os_spy(path: Any, *args: Any, **kwargs: Any) -> Any:
        opened.append(str(path))
        return real_os_open(path, *args, **kwargs)

    monkeypatch.setattr("builtins.open", spy)
    monkeypatch.setattr("os.open", os_spy)  # (notes are opened by descriptor, O_NONBLOCK)
    found = wiki.list(since="2026-05-01", until="2026-05-03")
    # every row filled (#19), so the heads of the notes kept are read, and no other
    folder = os.path.join(wiki.storage.root, "aiwiki", "sessions")  # type: ignore[attr-defined]
    kept = {os.path.join(folder, n.key) for n in found} | {os.path.join(folder, "undated.md")}
    assert {p for p in opened if p.endswith(".md")} == kept
    assert all(n.status is not None for n in found)


def test_aiwiki_latest_by_name_then_mtime(wiki: AiwikiStore, tmp_path: Path) -> None:
    folder = tmp_path / "aiwiki" / "sessions"
    now = time.time()
    os.utime(folder / "2026-05-03-bbbbbbb.md", (now, now))
    os.utime(folder / "2026-05-03-ccccccc.md", (now - 100, now - 100))
    assert wiki.latest() == "2026-05-03-bbbbbbb.md"
    os.utime(folder / "2026-05-03-ccccccc.md", (now + 100, now + 100))
    assert wiki.latest() == "2026-05-03-ccccccc.md"


def test_aiwiki_index(wiki: AiwikiStore, tmp_path: Path) -> None:
    text = wiki.write_index()
    assert (tmp_path / "aiwiki" / "sessions" / "INDEX.md").read_text() == text
    lines = text.splitlines()
    assert lines[2] == "| date | id | status | focus | link |"
    rows = lines[4:]
    assert len(rows) == 5
    assert rows[0].startswith("| 2026-05-03 | ")
    assert "first \\| pipe" in text
    assert "[2026/2026-04-30-ddddddd.md](2026/2026-04-30-ddddddd.md)" in text
    assert all(row.count(" | ") == 4 for row in rows)  # escaped pipes keep 5 cells
    assert not wiki.exists("INDEX.md")


def test_aiwiki_model_level(tmp_path: Path) -> None:
    import attrs

    store = sessionkit.open_store(tmp_path, layout="aiwiki")
    s = Session(id="7e8a3f21-9a4b", started="2026-05-18", focus="model", status=Status.ACTIVE)
    key = store.put(s)
    assert key == "2026-05-18-7e8a3f2.md"
    before = store.read_text(key)
    store.update(key, lambda x: attrs.evolve(x, next_steps=(*x.next_steps, "ship it")))
    after = store.read_text(key)
    assert after.startswith(before.rstrip("\n").split("\n## ")[0])  # frontmatter untouched
    assert store.get(key).next_steps == ("ship it",)
    assert [n.key for n in store.list(status="active")] == [key]


def test_local_keys_never_stat(wiki: AiwikiStore, monkeypatch: Any) -> None:
    calls: list[str] = []
    real_stat = os.stat

    def spy(path: Any, *args: Any, **kwargs: Any) -> Any:
        calls.append(str(path))
        return real_stat(path, *args, **kwargs)

    monkeypatch.setattr(os, "stat", spy)
    wiki.keys()
    assert [c for c in calls if c.endswith(".md")] == []


# -- memory:// request counts ---------------------------------------------------


@pytest.fixture
def memory_wiki(memory_url: str) -> Any:
    store = sessionkit.open_store(memory_url, layout="aiwiki")
    for i in range(20):
        store.write_text(f"2026-05-{i + 1:02d}-{i:07d}.md", _page(f"2026-05-{i + 1:02d}", "done"))
    counter = CallCounter(store.storage.fs, ("find", "ls", "info", "cat", "cat_file", "cat_ranges"))
    yield store, counter
    counter.restore()


def test_memory_one_listing_and_one_batch(memory_wiki: Any) -> None:
    store, counter = memory_wiki
    keys = store.keys()
    assert len(keys) == 20
    assert counter.calls == ["find"]
    counter.calls.clear()
    got = list(store.read_many(keys))
    assert all(isinstance(t, str) for _, t in got)
    assert counter.calls.count("cat") == 1 and "info" not in counter.calls
    counter.calls.clear()
    store.list(status="done")
    assert counter.calls.count("find") == 1 and counter.calls.count("cat_ranges") == 1


def test_read_many_glob_characters_are_literal(memory_url: str) -> None:
    store = sessionkit.open_store(memory_url, layout="basic-memory")
    store.write_text("Session [draft].md", "a")
    store.write_text("Session d.md", "b")
    assert dict(store.read_many(["Session [draft].md", "Session d.md"])) == {
        "Session [draft].md": "a",
        "Session d.md": "b",
    }


# -- Basic Memory ---------------------------------------------------------------


@pytest.fixture
def project(tmp_path: Path) -> BasicMemoryStore:
    shutil.copytree(EXAMPLES / "bm-project", tmp_path / "proj")
    store = sessionkit.open_store(tmp_path / "proj")
    assert isinstance(store, BasicMemoryStore)
    store.write_text("Plain note.md", "---\ntitle: Plain\ntype: note\n---\nnot a session\n")
    store.write_text(
        "Old coding.md",
        "---\ntitle: Old\ntype: coding_session\nstatus: open\n"
        "started: '2020-01-01T00:00:00Z'\n---\n",
    )
    return store


def test_bm_lists_sessions_only(project: BasicMemoryStore) -> None:
    keys = [n.key for n in project.list()]
    assert "Plain note.md" not in keys
    assert "Old coding.md" in keys
    assert len(keys) == 3


def test_bm_status_filter(project: BasicMemoryStore) -> None:
    done = project.list(status="done")  # matches Basic Memory's "closed"
    assert done and all(n.status is Status.DONE for n in done)
    raw_open = [n.key for n in project.list(status="open")]  # a raw Basic Memory word
    assert "Old coding.md" in raw_open and not {n.key for n in done} & set(raw_open)
    assert [n.key for n in project.list(status=Status.ACTIVE)] == raw_open  # open + resumed


def test_bm_created_in_last_days(project: BasicMemoryStore) -> None:
    project.write_text(
        "Fresh.md",
        "---\ntitle: Fresh\ntype: session\nstatus: open\n---\n",  # no started: mtime counts
    )
    assert [n.key for n in project.list(days=3)] == ["Fresh.md"]
    assert "Old coding.md" in [n.key for n in project.list(until="2020-01-02")]
    # latest() is the rule of every layout (#19): the newest date in a name, and a
    # name without one counts only when no session note's name has a date
    assert (
        project.latest() == "Session 2026-05-18 14-23-00 — move readings from SQLite to Postgres.md"
    )


def test_bm_key_for_uses_basic_memory_filenames(tmp_path: Path) -> None:
    store = sessionkit.open_store(f"bm://{tmp_path}")
    title = "Session 2026-05-18 14:23:00 — a/b: c?"
    key = store.key_for(Session(title=title))
    assert key == "Session 2026-05-18 14-23-00 — a-b- c.md"


def test_bm_model_level(tmp_path: Path) -> None:
    shutil.copytree(EXAMPLES / "bm-project", tmp_path / "proj")
    store = sessionkit.open_store(tmp_path / "proj")
    for key, text in store.read_many(store.keys()):
        assert isinstance(text, str)
        session = store.get(key)
        assert sessionkit.dumps(session) == text
