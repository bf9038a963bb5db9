"""Converted notes against the real basic-memory (``nox -s interop``).

1. The aiwiki corpus (>= 20 pages) is converted into a Basic Memory project;
   ``bm reindex`` indexes every note without rewriting it (checksums unchanged),
   with the permalink, title and observations sessionkit wrote, and ``bm schema
   validate`` passes the Session schema with no warnings.
2. Session notes written by basic-memory's own ``write_note`` convert to aiwiki
   pages that lint clean and come back byte for byte.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import attrs
import pytest

from sessionkit import lint, loads
from sessionkit.adapters.basic_memory import render_note
from sessionkit.adapters.profiles import generate_permalink
from sessionkit.diagnostics import Severity
from sessionkit.ops.convert import convert, convert_text
from sessionkit.serialize import to_json

from .conftest import PROJECT, BMHome, sha256, write_plugin_notes

ROOT = Path(__file__).resolve().parents[2]
CORPORA = (ROOT / "tests" / "corpus" / "aiwiki-v2", ROOT / "tests" / "corpus" / "convert")
SCHEMA = ROOT / "sessionkit" / "adapters" / "schemas" / "basic-memory-session.md"


def _clean_pages() -> list[Path]:
    pages = []
    for folder in CORPORA:
        for page in sorted(folder.glob("*.md")):
            text = page.read_text(encoding="utf-8")
            path = f"aiwiki/sessions/{page.name}"
            if not any(d.severity is Severity.ERROR for d in lint(text, path=path)):
                pages.append(page)
    return pages


@pytest.fixture(scope="module")
def converted(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    pytest.importorskip("basic_memory", reason="interop needs basic-memory (Python >= 3.12)")
    home = BMHome(tmp_path_factory.mktemp("bm-convert"))
    wiki = tmp_path_factory.mktemp("wiki")
    folder = wiki / "aiwiki" / "sessions"
    folder.mkdir(parents=True)
    pages = _clean_pages()
    for page in pages:
        (folder / page.name).write_bytes(page.read_bytes())
    report = convert(wiki, home.project_dir, to="basic-memory", project=PROJECT)
    assert report.ok, report.to_dict()
    (home.project_dir / "schemas").mkdir(exist_ok=True)
    (home.project_dir / "schemas" / "Session.md").write_text(
        SCHEMA.read_text(encoding="utf-8"), encoding="utf-8"
    )
    notes = {
        f"sessions/{key}": sha256(home.project_dir / "sessions" / key) for key in report.created
    }
    # basic-memory's own session notes, written through write_note
    spec: list[dict[str, Any]] = []
    for i in range(3):
        spec.append(
            {
                "title": f"Session 2026-06-0{i + 1} 10:00:0{i} — written by write_note {i}",
                "folder": "bm-sessions",
                "note_type": "session",
                "tags": ["session", "auto-capture"],
                "metadata": {
                    "status": ["open", "resumed", "closed"][i],
                    "started": f"2026-06-0{i + 1}T09:00:00Z",
                    "ended": f"2026-06-0{i + 1}T10:00:00Z",
                    "project": PROJECT,
                    "cwd": "/home/me/src/app",
                    "claude_session_id": f"{i}f0e1d2c-0000-4000-8000-00000000000{i}",
                    "trigger": "auto",
                    "capture": "extractive",
                },
                "content": (
                    "## Summary\n\nA short summary with [[Some Note]].\n\n"
                    "## Recent thread\n\n- user: convert the notes\n- assistant: done\n\n"
                    "## Observations\n\n"
                    # (the plugins' order, which sessionkit's writer gives a new note)
                    f"- [context] context line {i} #tag\n"
                    "- [problem] a problem we hit\n"
                    "- [decision] keep it simple (for now)\n"
                    "- [next_step] write the next test\n\n"
                    "## Relations\n\n"
                    "- produced [[Output Note]]\n"
                ),
            }
        )
    written = home.write_notes(spec)
    home.bm("reindex", "--search", "--project", PROJECT)
    validation = json.loads(
        home.bm("schema", "validate", "session", "--project", PROJECT, "--json").stdout
    )
    return {
        "home": home,
        "pages": pages,
        "notes": notes,
        "written": written,
        "validation": validation,
    }


def test_converted_corpus_is_indexed_without_rewrites(converted: dict[str, Any]) -> None:
    home: BMHome = converted["home"]
    notes: dict[str, str] = converted["notes"]
    assert len(notes) == len(converted["pages"]) >= 20
    for path, checksum in notes.items():
        file = home.project_dir / path
        assert sha256(file) == checksum, f"basic-memory rewrote {path}"
        entity = home.entity(path)
        assert entity["checksum"] == checksum
        text = file.read_text(encoding="utf-8")
        model = loads(text, path=path, format="basic-memory")
        assert entity["title"] == model.title
        assert entity["note_type"] == "session"
        assert entity["permalink"] == model.extra["permalink"]
        assert entity["permalink"] == generate_permalink(path, project=PROJECT)


def test_converted_corpus_passes_the_session_schema(converted: dict[str, Any]) -> None:
    home: BMHome = converted["home"]
    titles = {home.entity(path)["title"] for path in converted["notes"]}
    results = {r["note_identifier"]: r for r in converted["validation"]["results"]}
    assert titles <= set(results)
    for title in titles:
        r = results[title]
        assert r["passed"], r
        assert not r.get("warnings"), (title, r.get("warnings"))
        assert not r.get("errors"), (title, r.get("errors"))


def test_indexed_notes_convert_back_to_the_same_pages(converted: dict[str, Any]) -> None:
    home: BMHome = converted["home"]
    by_key = {p.name: p for p in converted["pages"]}
    for path in converted["notes"]:
        text = (home.project_dir / path).read_text(encoding="utf-8")
        page = convert_text(text, to="aiwiki-v2", path=path)
        session = loads(page)
        name = f"{session.started}-{(session.id or '0000000')[:7]}.md"
        original = by_key.get(name)
        if original is None:  # a page whose file name was not the derived one
            continue
        expected = loads(original.read_text(encoding="utf-8"), path=original.name)
        assert to_json(loads(page, path=name)) == to_json(expected)


def test_write_note_sessions_round_trip(converted: dict[str, Any]) -> None:
    home: BMHome = converted["home"]
    written = converted["written"]
    assert len(written) == 3
    for result in written:
        path = result["file_path"]
        text = (home.project_dir / path).read_text(encoding="utf-8")
        key = path.split("/", 1)[1]
        page = convert_text(text, to="aiwiki-v2", path=key, folder="bm-sessions")
        session = loads(page)
        name = f"aiwiki/sessions/{session.started}-{(session.id or '')[:7]}.md"
        errors = [d for d in lint(page, path=name) if d.severity is Severity.ERROR]
        assert not errors, errors
        back = convert_text(page, to="basic-memory", folder="bm-sessions")
        original = loads(text, path=path, format="basic-memory")
        assert to_json(loads(back, path=path, format="basic-memory")) == to_json(original)
        # the very same bytes come back (status words like `resumed` included) ...
        assert back == text, path
        # ... and write_note wrote the layout sessionkit's own writer gives, status word
        # included (Session.status_word keeps `resumed`)
        canonical = render_note(attrs.evolve(original, origin=None), folder="bm-sessions")[1]
        assert canonical == text


def _bm_parse(text: str, tmp: Path) -> Any:
    import asyncio

    from basic_memory.markdown.entity_parser import EntityParser

    parser = EntityParser(tmp)
    return asyncio.run(parser.parse_markdown_content(tmp / "sessions" / "note.md", text))


def test_a_chain_of_plugin_checkpoints_converts_to_one_page_and_back(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """write_note's checkpoints -> one aiwiki page -> the same notes, byte for byte;
    the page edited (a next step, a gotcha resolved, aiwiki's pre-compact checkpoint
    and its directive consumed) -> the notes with those edits, which basic-memory
    indexes without rewriting them, item by item as sessionkit reads them."""
    pytest.importorskip("basic_memory", reason="interop needs basic-memory (Python >= 3.12)")
    from datetime import UTC, datetime

    from sessionkit import open_store
    from sessionkit.adapters.coding_session import split_chain_page
    from sessionkit.ops import lifecycle

    home = BMHome(tmp_path_factory.mktemp("bm-chain-src"))
    written = write_plugin_notes(home)
    wiki = tmp_path_factory.mktemp("wiki-chain")
    report = convert(home.project_dir, wiki, to="aiwiki-v2")
    assert report.ok and len(report.created) == 1, report.to_dict()
    (page,) = (wiki / "aiwiki" / "sessions").glob("*.md")
    assert [k for k, _ in split_chain_page(page.read_text())] == [
        "Session 2026-11-30 14-02-11 — give each host its own retry budget.md",
        "Claude checkpoint - per-host retry budget works.md",
        "Claude checkpoint - backfill uses per-host budgets.md",
    ]
    assert not [
        d
        for d in lint(page.read_text(), path=f"aiwiki/sessions/{page.name}")
        if d.severity is Severity.ERROR
    ]
    back = BMHome(tmp_path_factory.mktemp("bm-chain-back"))
    assert convert(wiki, back.project_dir, to="basic-memory", project=PROJECT).ok
    folder = back.project_dir / "sessions"
    assert {p.name: p.read_bytes() for p in folder.glob("*.md")} == written

    # the page is edited as people and aiwiki's hooks edit it
    text = page.read_text()
    text = text.replace(
        "- Answer review comments on pull request 42\n",
        "- Answer review comments on pull request 42\n- Tag release 1.4\n",
    )
    text = text.replace(
        "## Gotchas surfaced\n\n- The backfill job still shares one budget across hosts\n",
        "## Gotchas surfaced\n\n(filled by /wrap)\n",
    )
    page.write_text(text)
    store = open_store(wiki, layout="aiwiki")
    payload = {"session_id": "5be1c0de-7a11-4c0d-9e55-3c0ffee0a7b1", "cwd": str(wiki)}
    lifecycle.record_checkpoint(store, payload, now=datetime(2026, 12, 1, 9, 0, tzinfo=UTC))
    lifecycle.consume_directives(
        store, page.name, all=True, now=datetime(2026, 12, 1, 10, 0, tzinfo=UTC)
    )
    report = convert(wiki, back.project_dir, to="basic-memory", project=PROJECT)
    assert report.ok and len(report.updated) == 2, report.to_dict()  # the second and third notes
    notes = {p.name: p.read_text(encoding="utf-8") for p in folder.glob("*.md")}
    last = notes["Claude checkpoint - backfill uses per-host budgets.md"]
    assert "- [next_step] Tag release 1.4" in last and "(consumed at 2026-12-01T10:00:00Z)" in last
    assert "[blocker]" not in notes["Claude checkpoint - per-host retry budget works.md"]

    back.bm("reindex", "--search", "--project", PROJECT)
    for name, note in notes.items():
        path = f"sessions/{name}"
        entity = back.entity(path)
        assert entity["checksum"] == sha256(folder / name), f"basic-memory rewrote {path}"
        assert entity["note_type"] == "coding_session"
        # item by item: basic-memory's parser and its index hold the facts sessionkit reads
        session = loads(note, path=path)
        parsed = _bm_parse(note, back.project_dir)
        mine = [(o.category, o.content) for o in session.observations]
        mine += [
            (cat, t)
            for cat, field in (
                ("decision", "decisions"),
                ("next_step", "next_steps"),
                ("context", "context"),
            )
            for t in getattr(session, field)
        ]
        theirs = [(o.category, o.content) for o in parsed.observations]
        assert sorted(theirs) == sorted(mine), name
        assert sorted((c, t) for c, t, _, _ in entity["observations"]) == sorted(mine), name
        links = [(r.relation, r.target) for r in session.relations]
        assert [(r.type, r.target) for r in parsed.relations] == links, name
    # a second conversion either way writes nothing
    assert convert(wiki, back.project_dir, to="basic-memory", project=PROJECT).written == []
