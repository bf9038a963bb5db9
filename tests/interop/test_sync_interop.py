"""Two-way sync against the real basic-memory (``nox -s interop``).

A wiki of corpus pages and a Basic Memory project are synced, then both sides
are edited between syncs: a directive consumed in the wiki, a next step and a
relation added in Basic Memory, a status change on each side (different
notes), a note written by basic-memory's own ``write_note``, and one true
conflict.  After one sync both sides hold every edit, ``bm reindex`` indexes
the Basic Memory side (without rewriting it, with the new facts), the wiki
lints clean, and the conflict is reported with both texts kept; a second
sync writes nothing.
"""

from __future__ import annotations

import contextlib
import io
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from sessionkit import loads, open_store
from sessionkit.cli import main
from sessionkit.model import DirectiveState, Status
from sessionkit.ops import lifecycle
from sessionkit.ops.convert import convert_text
from sessionkit.ops.sync import read_state, sync

from .conftest import PROJECT, BMHome, sha256, write_plugin_notes

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "corpus" / "aiwiki-v2"
PAGES = {
    "consumed": "2026-05-18-7e8a3f2.md",
    "next_step": "2026-05-19-a1b2c3d.md",
    "status_wiki": "2026-05-21-b7c9d01.md",
    "status_bm": "2026-05-22-c0ffee1.md",
    "conflict": "2026-05-24-e1e2e3e.md",
}


def _files(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not any(part.startswith(".") for part in p.relative_to(root).parts)
    }


def _as_aiwiki(bm: Any, key: str) -> Any:
    return loads(convert_text(bm.read_text(key), "aiwiki-v2", key))


@pytest.fixture(scope="module")
def synced(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    pytest.importorskip("basic_memory", reason="interop needs basic-memory (Python >= 3.12)")
    home = BMHome(tmp_path_factory.mktemp("bm-sync"))
    wiki = tmp_path_factory.mktemp("wiki")
    folder = wiki / "aiwiki" / "sessions"
    folder.mkdir(parents=True)
    for name in PAGES.values():
        shutil.copyfile(CORPUS / name, folder / name)
    aw = open_store(wiki, layout="aiwiki")
    bm = open_store(home.project_dir, layout="basic-memory")
    first = sync(aw, bm, project=PROJECT)
    assert first.ok and len(first.written) == len(PAGES), first.to_dict()
    (peer,) = read_state(aw)["peers"].values()
    keys = {role: peer["notes"][name]["basic_memory"] for role, name in PAGES.items()}

    # the wiki side
    lifecycle.consume_directives(aw, PAGES["consumed"], all=True)
    lifecycle.set_status(aw, "abandoned", PAGES["status_wiki"])
    page = folder / PAGES["conflict"]
    page.write_text(page.read_text().replace("focus: ", "focus: wiki says ", 1))
    # the Basic Memory side
    lifecycle.add_item(bm, "next-step", "re-run the Windows CI job", keys["next_step"])
    note = home.project_dir / "sessions" / keys["next_step"]
    text = note.read_text()
    assert "## Relations" not in text
    note.write_text(text.rstrip("\n") + "\n\n## Relations\n\n- relates_to [[adr-0012]]\n")
    lifecycle.set_status(bm, "done", keys["status_bm"])
    clash = home.project_dir / "sessions" / keys["conflict"]
    clash.write_text(clash.read_text().replace("\nfocus: ", "\nfocus: bm says ", 1))
    # a note basic-memory writes itself
    written = home.write_notes(
        [
            {
                "title": "Session 2026-06-01 10:00:00 — written by write_note",
                "folder": "sessions",
                "note_type": "session",
                "tags": ["session", "auto-capture"],
                "metadata": {
                    "status": "open",
                    "started": "2026-06-01T09:00:00Z",
                    "project": PROJECT,
                    "claude_session_id": "0f0e1d2c-0000-4000-8000-000000000001",
                    "capture": "extractive",
                },
                "content": (
                    "## Summary\n\nSynced from a note basic-memory wrote.\n\n"
                    "## Observations\n\n- [next_step] sync it into the wiki\n"
                ),
            }
        ]
    )
    texts = {"wiki": page.read_text(), "bm": clash.read_text()}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["sessionkit", "sync", str(wiki), str(home.project_dir), "--json"])
    report = json.loads(out.getvalue())
    after = {**_files(wiki), **{f"bm/{k}": v for k, v in _files(home.project_dir).items()}}
    home.bm("reindex", "--search", "--project", PROJECT)
    return {
        "home": home,
        "wiki": wiki,
        "aw": aw,
        "bm": bm,
        "keys": keys,
        "code": code,
        "report": report,
        "texts": texts,
        "after": after,
        "written": written,
    }


def test_one_sync_carries_every_edit_both_ways(synced: dict[str, Any]) -> None:
    aw, bm, keys = synced["aw"], synced["bm"], synced["keys"]
    actions = {a["aiwiki"]: a["action"] for a in synced["report"]["actions"]}
    assert actions[PAGES["consumed"]] == "update-basic-memory"
    assert actions[PAGES["status_wiki"]] == "update-basic-memory"
    assert actions[PAGES["next_step"]] == "update-aiwiki"
    assert actions[PAGES["status_bm"]] == "update-aiwiki"
    assert "create-aiwiki" in actions.values()
    # the consumed directive, in the wiki and in Basic Memory's carrier
    for session in (aw.get(PAGES["consumed"]), _as_aiwiki(bm, keys["consumed"])):
        directives = [d for cp in session.checkpoints for d in cp.directives]
        assert directives and all(d.state is DirectiveState.CONSUMED for d in directives)
    # the next step and the relation, in the wiki
    page = aw.get(PAGES["next_step"])
    assert "re-run the Windows CI job" in page.next_steps
    assert "adr-0012" in aw.read_text(PAGES["next_step"])
    assert _as_aiwiki(bm, keys["next_step"]) == page
    # the status changes
    assert aw.get(PAGES["status_wiki"]).status is Status.ABANDONED
    assert _as_aiwiki(bm, keys["status_wiki"]).status is Status.ABANDONED
    assert aw.get(PAGES["status_bm"]).status is Status.DONE
    assert bm.get(keys["status_bm"]).status is Status.DONE
    # the note basic-memory wrote is now a wiki page
    made = [a for a in synced["report"]["actions"] if a["action"] == "create-aiwiki"]
    (new,) = made
    assert "sync it into the wiki" in aw.get(new["aiwiki"]).next_steps


def test_the_conflict_is_reported_with_both_texts_kept(synced: dict[str, Any]) -> None:
    assert synced["code"] == 1
    (conflict,) = [a for a in synced["report"]["actions"] if a["action"] == "conflict"]
    assert conflict["aiwiki"] == PAGES["conflict"]
    assert conflict["texts"] == {
        "aiwiki": synced["texts"]["wiki"],
        "basic_memory": synced["texts"]["bm"],
    }
    (item,) = conflict["conflicts"]
    assert item["where"] == "focus"
    assert item["aiwiki"].startswith("wiki says") and item["basic_memory"].startswith("bm says")
    home: BMHome = synced["home"]
    assert (synced["wiki"] / "aiwiki/sessions" / PAGES["conflict"]).read_text() == synced["texts"][
        "wiki"
    ]
    clash = home.project_dir / "sessions" / synced["keys"]["conflict"]
    assert clash.read_text() == synced["texts"]["bm"]


def test_basic_memory_indexes_the_synced_notes_without_rewriting_them(
    synced: dict[str, Any],
) -> None:
    home: BMHome = synced["home"]
    for role, key in synced["keys"].items():
        path = f"sessions/{key}"
        file = home.project_dir / path
        assert synced["after"][f"bm/{path}"] == file.read_bytes(), f"basic-memory rewrote {path}"
        entity = home.entity(path)
        assert entity["checksum"] == sha256(file)
        assert entity["note_type"] == "session", role
    facts = home.entity(f"sessions/{synced['keys']['next_step']}")
    assert ("next_step", "re-run the Windows CI job", None, ()) in facts["observations"]
    assert any(r[0] == "relates_to" and r[1] == "adr-0012" for r in facts["relations"])


def test_the_wiki_lints_clean_and_a_second_sync_writes_nothing(synced: dict[str, Any]) -> None:
    wiki, home = synced["wiki"], synced["home"]
    assert main(["sessionkit", "lint", str(wiki)]) == 0
    before = {**_files(wiki), **{f"bm/{k}": v for k, v in _files(home.project_dir).items()}}
    report = sync(wiki, home.project_dir, project=PROJECT)
    assert [a.action for a in report.actions] == ["conflict"]
    assert report.written == []
    after = {**_files(wiki), **{f"bm/{k}": v for k, v in _files(home.project_dir).items()}}
    assert after == before


def test_a_chain_of_plugin_checkpoints_round_trips_through_one_page(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """Checkpoints written by write_note as the plugin writes them become one page;
    a block edited on the page comes back to its note, which basic-memory indexes."""
    pytest.importorskip("basic_memory", reason="interop needs basic-memory (Python >= 3.12)")
    from sessionkit.adapters.coding_session import split_chain_page

    home = BMHome(tmp_path_factory.mktemp("bm-chain"))
    written = write_plugin_notes(home)
    wiki = tmp_path_factory.mktemp("wiki-chain")
    (wiki / "aiwiki" / "sessions").mkdir(parents=True)
    report = sync(wiki, home.project_dir, project=PROJECT)
    assert [a.action for a in report.actions] == ["create-aiwiki"]
    (page,) = (wiki / "aiwiki" / "sessions").glob("*.md")
    assert {k: v.encode() for k, v in split_chain_page(page.read_text())} == written
    old = "- [next_step] Answer review comments on pull request 42"
    page.write_text(page.read_text().replace(old, "- [next_step] Merge pull request 42"))
    assert [a.action for a in sync(wiki, home.project_dir).actions] == ["update-basic-memory"]
    assert main(["sessionkit", "lint", str(wiki)]) == 0
    home.bm("reindex", "--search", "--project", PROJECT)
    path = "sessions/Claude checkpoint - backfill uses per-host budgets.md"
    entity = home.entity(path)
    assert entity["note_type"] == "coding_session"
    assert entity["checksum"] == sha256(home.project_dir / path)
    assert ("next_step", "Merge pull request 42", None, ()) in entity["observations"]
    assert any(r[0] == "continues" for r in entity["relations"])
    assert sync(wiki, home.project_dir).written == []
    # edits outside the blocks: a next step and a resolved gotcha on the page, and
    # aiwiki's pre-compact checkpoint with its directive consumed
    from datetime import UTC, datetime

    text = page.read_text()
    text = text.replace(
        "- Merge pull request 42\n", "- Merge pull request 42\n- Tag release 1.4\n", 1
    )
    text = text.replace(
        "## Gotchas surfaced\n\n- The backfill job still shares one budget across hosts\n",
        "## Gotchas surfaced\n\n(filled by /wrap)\n",
    )
    page.write_text(text)
    store = open_store(wiki, layout="aiwiki")
    payload = {"session_id": "5be1c0de-7a11-4c0d-9e55-3c0ffee0a7b1", "cwd": str(wiki)}
    when = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
    lifecycle.record_checkpoint(store, payload, now=when)
    lifecycle.consume_directives(store, page.name, all=True, now=when)
    assert [a.action for a in sync(wiki, home.project_dir).actions] == ["update-basic-memory"]
    home.bm("reindex", "--search", "--project", PROJECT)
    entity = home.entity(path)
    assert entity["checksum"] == sha256(home.project_dir / path)
    assert ("next_step", "Tag release 1.4", None, ()) in entity["observations"]
    second = home.entity("sessions/Claude checkpoint - per-host retry budget works.md")
    assert "blocker" not in [o[0] for o in second["observations"]]
    assert "(consumed at 2026-12-01T09:00:00Z)" in (home.project_dir / path).read_text()
    assert sync(wiki, home.project_dir).written == []
