"""Search: both formats, filters, incremental updates, a corrupt index, secrets."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import sessionkit

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
TOKEN = "ghp_" + "R8sT2uV4wX6yZ8aB0cD2eF4gH6iJ8kL0mN2p"

EXTRA = """\
---
schema_id: session
schema_version: 2
status: done
date_start: 2026-06-01
session_id: "a1b2c3d4-0000-4000-8000-000000000001"
focus: exporter retries
---

## Gotchas surfaced

- the exporter drops spans when the retry budget is spent
- grpc deadline applies per attempt, not per call

## Next steps

- measure the retry budget under load
"""


@pytest.fixture
def stores(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    monkeypatch.setenv("SESSIONKIT_CACHE_DIR", str(tmp_path / "cache"))
    wiki, bm = tmp_path / "wiki", tmp_path / "bm"
    shutil.copytree(EXAMPLES / "wiki", wiki)
    shutil.copytree(EXAMPLES / "bm-project", bm)
    (wiki / "aiwiki" / "sessions" / "2026-06-01-a1b2c3d.md").write_text(EXTRA)
    return wiki, bm


def _open(*roots: Path) -> list[sessionkit.Store]:
    return [sessionkit.open_store(str(r)) for r in roots]


def _keys(hits: list[sessionkit.SearchHit]) -> list[tuple[str, str]]:
    return [(h.key, h.kind) for h in hits]


def test_finds_items_in_both_formats_with_their_lines(stores: tuple[Path, Path]) -> None:
    wiki, bm = stores
    hits = sessionkit.search("postgres copy", _open(wiki, bm))
    assert {h.store for h in hits} == {str(wiki), str(bm)}
    for h in hits:  # every row points at a line that holds what it matched (a checkpoint
        assert h.line is not None  # at its heading)
        line = Path(h.path).read_text(encoding="utf-8").splitlines()[h.line - 1].lower()
        if h.kind == "checkpoint":
            assert line.startswith("### precompact at "), (h, line)
        else:
            assert "postgres" in line or "copy" in line, (h, line)
    decision = next(h for h in hits if h.kind == "decision" and h.store == str(wiki))
    assert decision.key == "2026-05-18-7e8a3f2.md"
    assert decision.line == 55
    assert decision.session == "7e8a3f21-9a4b-4c8d-b1e2-f5a6c7d8e9f0"
    assert decision.date == "2026-05-18" and decision.status == "active"
    assert "[COPY]" in decision.snippet


def test_filters(stores: tuple[Path, Path]) -> None:
    wiki, bm = stores
    both = _open(wiki, bm)
    gotchas = sessionkit.search("retry", both, kind="gotcha")
    assert ("2026-06-01-a1b2c3d.md", "gotcha") in _keys(gotchas)
    assert {h.kind for h in gotchas} == {"gotcha"}
    assert {h.status for h in sessionkit.search("retry", both, status="done")} == {"done"}
    recent = sessionkit.search("postgres", both, since="2026-05-18")
    assert recent and all((h.date or "") >= "2026-05-18" for h in recent)
    assert {h.project for h in sessionkit.search("postgres", both, project="tidewater")} == {
        "tidewater"
    }
    open_ones = sessionkit.search("support dream", both, unconsumed=True)
    assert [(h.key, h.line, h.state) for h in open_ones] == [
        ("2026-05-18-7e8a3f2.md", 38, "unconsumed")
    ]
    decisions = sessionkit.search("budget", both, category="decision")
    assert decisions and {h.category for h in decisions} == {"decision"}
    assert all(h.store == str(bm) for h in decisions)
    with pytest.raises(sessionkit.ValidationError):
        sessionkit.search("x", both, kind="nope")


def test_every_word_first_then_any_phrase_and_prefix(stores: tuple[Path, Path]) -> None:
    wiki, _ = stores
    (store,) = _open(wiki)
    strict = sessionkit.search("grpc deadline", store)
    assert _keys(strict) == [("2026-06-01-a1b2c3d.md", "gotcha")]
    relaxed = sessionkit.search("grpc qqqqunknown", store)  # no item has both: any word
    assert _keys(relaxed) == [("2026-06-01-a1b2c3d.md", "gotcha")]
    assert sessionkit.search('"per attempt, not per call"', store)[0].line == 13
    assert sessionkit.search('"per call, not per attempt"', store) == []
    assert any(h.kind == "gotcha" for h in sessionkit.search("expor*", store))
    assert sessionkit.search("( ) * : ^ -", store) == []  # no words: nothing to look for
    # FTS5 syntax is never taken as such: operators are plain words, quotes may be unbalanced
    assert sessionkit.search('NEAR(grpc "deadline', store)[0].kind == "gotcha"
    assert "[not]" in sessionkit.search("grpc NOT", store)[0].snippet  # a word, not an operator


def test_an_edited_a_new_and_a_deleted_note_are_seen_by_the_next_search(
    stores: tuple[Path, Path],
) -> None:
    from sessionkit.ops.search import refresh

    wiki, _ = stores
    (store,) = _open(wiki)
    assert refresh(store).read == 7
    assert refresh(store).read == 0  # nothing changed: nothing read
    page = wiki / "aiwiki" / "sessions" / "2026-06-01-a1b2c3d.md"
    page.write_text(EXTRA + "- rotate the zeppelin credentials\n")
    assert _keys(sessionkit.search("zeppelin", store)) == [("2026-06-01-a1b2c3d.md", "next-step")]
    assert refresh(store).read == 0
    page.unlink()
    assert sessionkit.search("zeppelin", store) == []
    (wiki / "aiwiki" / "sessions" / "2026-06-02-b2c3d4e.md").write_text(
        EXTRA.replace("exporter retries", "walrus tuning")
    )
    assert [h.kind for h in sessionkit.search("walrus", store)] == ["session"]


def test_a_corrupt_or_missing_index_is_rebuilt(stores: tuple[Path, Path]) -> None:
    from sessionkit.ops.search import index_path

    wiki, _ = stores
    (store,) = _open(wiki)
    first = sessionkit.search("postgres", store)
    path = Path(index_path(store))
    path.write_bytes(b"this is not a database" * 100)
    assert sessionkit.search("postgres", store) == first
    path.unlink()
    assert sessionkit.search("postgres", store) == first
    assert sessionkit.search("postgres", store, rebuild=True) == first


def test_the_index_lives_outside_the_store_and_holds_no_secret(
    stores: tuple[Path, Path], tmp_path: Path
) -> None:
    wiki, _ = stores
    page = wiki / "aiwiki" / "sessions" / "2026-06-01-a1b2c3d.md"
    page.write_text(EXTRA + f"- push with token {TOKEN} tomorrow\n")
    before = sorted(p.relative_to(wiki) for p in wiki.rglob("*"))
    hits = sessionkit.search("push tomorrow", _open(wiki))
    assert hits and TOKEN not in json.dumps([h.to_dict() for h in hits])
    assert sorted(p.relative_to(wiki) for p in wiki.rglob("*")) == before
    cache = tmp_path / "cache"
    assert any(cache.rglob("*.sqlite3"))
    for f in cache.rglob("*"):
        if f.is_file():
            assert TOKEN.encode() not in f.read_bytes()
            assert TOKEN[4:20].encode() not in f.read_bytes()


def _cli(*args: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sessionkit", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_cli_rows_json_and_exit_codes(stores: tuple[Path, Path], tmp_path: Path) -> None:
    wiki, bm = stores
    env = {**os.environ, "SESSIONKIT_CACHE_DIR": str(tmp_path / "cache")}
    found = _cli("search", "retry budget", str(wiki), str(bm), "--json", cwd=tmp_path, env=env)
    assert found.returncode == 0, found.stderr
    rows = json.loads(found.stdout)
    assert rows and set(rows[0]) >= {"path", "line", "kind", "session", "date", "snippet", "score"}
    text = _cli("search", "grpc", str(wiki), "--kind", "gotcha", cwd=tmp_path, env=env)
    assert text.returncode == 0
    assert text.stdout.splitlines() == [
        f"{wiki}/aiwiki/sessions/2026-06-01-a1b2c3d.md:13  gotcha  2026-06-01  a1b2c3d  "
        "[grpc] deadline applies per attempt, not per call"
    ]
    none = _cli("search", "qqqqunknown", str(wiki), cwd=tmp_path, env=env)
    assert (none.returncode, none.stdout) == (1, "")
    bad = _cli("search", "x", str(tmp_path / "missing"), cwd=tmp_path, env=env)
    assert bad.returncode == 2 and bad.stderr.startswith("sessionkit: ")
    assert "Traceback" not in bad.stderr


BM_DIRECTIVES = """\
---
title: Session 2026-06-03 09:00:00 — flaky exporter
type: session
permalink: demo/sessions/session-2026-06-03-09-00-00-flaky-exporter
status: open
started: '2026-06-03T08:00:00Z'
project: demo
claude_session_id: c3d4e5f6-0000-4000-8000-000000000003
tags:
- session
---

## Observations

- [directive] Dream: re-run the exporter soak test #unconsumed
- [directive] Dream: archive old exporter dashboards #consumed (consumed at 2026-06-03T09:30Z)
- [problem] the exporter soak test times out after 30 minutes
"""


def test_basic_memory_directives_and_categories(stores: tuple[Path, Path]) -> None:
    _, bm = stores
    (bm / "sessions" / "Session 2026-06-03 09-00-00 — flaky exporter.md").write_text(
        BM_DIRECTIVES, encoding="utf-8"
    )
    (store,) = _open(bm)
    hits = sessionkit.search("exporter", store)
    assert sorted((h.kind, h.state, h.category, h.line) for h in hits) == [
        ("directive", "consumed", "directive", 16),
        ("directive", "unconsumed", "directive", 15),
        ("gotcha", None, "problem", 17),
        ("session", None, None, 2),
    ]
    assert [h.line for h in sessionkit.search("exporter", store, unconsumed=True)] == [15]


def test_the_command_offers_every_kind() -> None:
    from sessionkit.ops.search import KINDS

    shown = subprocess.run(
        [sys.executable, "-m", "sessionkit", "search", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
    ).stdout
    offered = shown.split("--kind [", 1)[1].split("]", 1)[0]
    assert tuple(offered.replace("\n", "").replace(" ", "").split("|")) == KINDS


def test_a_same_size_edit_in_place_and_a_linked_note_are_seen(stores: tuple[Path, Path]) -> None:
    wiki, _ = stores
    (store,) = _open(wiki)
    page = wiki / "aiwiki" / "sessions" / "2026-06-01-a1b2c3d.md"
    assert sessionkit.search("spans", store)
    with page.open("r+b") as f:  # the same bytes count, no rename: only its mtime tells
        data = f.read()
        f.seek(0)
        f.write(data.replace(b"spans", b"walls"))
    os.utime(page, ns=(page.stat().st_atime_ns, page.stat().st_mtime_ns + 10**9))
    assert [h.key for h in sessionkit.search("walls", store)] == ["2026-06-01-a1b2c3d.md"]
    assert sessionkit.search("spans", store) == []
    outside = wiki / "drafts" / "linked.md"  # a link in the folder: the store's listing decides
    outside.parent.mkdir()
    outside.write_text(EXTRA.replace("exporter retries", "heron tuning"))
    link = wiki / "aiwiki" / "sessions" / "2026-06-03-c3d4e5f.md"
    link.symlink_to(outside)
    assert [h.key for h in sessionkit.search("heron", store)] == [link.name]
    outside.write_text(EXTRA.replace("exporter retries", "egret tuning"))
    assert [h.key for h in sessionkit.search("egret", store)] == [link.name]


def test_rows_tied_on_score_come_newest_first(stores: tuple[Path, Path]) -> None:
    wiki, _ = stores
    folder = wiki / "aiwiki" / "sessions"
    for day in range(1, 10):  # nine notes whose one matching row scores the same
        text = EXTRA.replace("2026-06-01", f"2026-07-0{day}").replace("a1b2c3d4", f"b1b2c3d{day}")
        (folder / f"2026-07-0{day}-b1b2c3d.md").write_text(text + "- feed the axolotl\n")
    (store,) = _open(wiki)
    for limit in (1, 2, 3):
        hits = sessionkit.search("axolotl", store, limit=limit)
        assert [h.date for h in hits] == [f"2026-07-0{9 - i}" for i in range(limit)]
        assert len({h.score for h in hits}) == 1
    kind = sessionkit.search("axolotl", store, limit=2, kind="next-step")
    assert [h.date for h in kind] == ["2026-07-09", "2026-07-08"]
