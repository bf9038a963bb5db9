"""The notes Basic Memory 0.24.1 writes (#48).

``tests/corpus/bm-0.24`` holds notes written by the real ``bm hook
pre-compact`` (general and coding profiles, several compactions per agent
session) and deliberate checkpoints in the ``bm-checkpoint`` skill's shape
(written with ``write_note``; ``tests/interop/_bm_hook_corpus.py`` made them).
They name their agent session with ``agent`` + ``session_id``.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import attrs
import pytest
from click.testing import CliRunner

import sessionkit
from sessionkit.cli import cli
from sessionkit.model import Observation
from sessionkit.ops.convert import convert

CORPUS = Path(__file__).parent.parent / "corpus" / "bm-0.24"
NOTES = sorted(p.name for p in CORPUS.glob("*.md"))


def _meta(name: str) -> dict[str, object]:
    session = sessionkit.loads((CORPUS / name).read_text(), path=f"sessions/{name}")
    assert session.origin is not None
    return dict(session.origin.document.meta)


def _bm(root: Path, names: list[str]) -> Path:
    (root / "sessions").mkdir(parents=True)
    for name in names:
        shutil.copyfile(CORPUS / name, root / "sessions" / name)
    return root


def _notes(root: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((root / "sessions").glob("*.md"))}


def test_the_corpus_is_what_0_24_writes() -> None:
    assert len(NOTES) >= 12
    for name in NOTES:
        meta = _meta(name)
        assert meta["agent"] == "claude-code" and meta["session_id"], name
        assert "claude_session_id" not in meta
    captures = {_meta(n)["capture"] for n in NOTES}
    assert {"extractive", "deliberate"} <= captures
    assert any("pull_request_number" in _meta(n) for n in NOTES)


@pytest.mark.parametrize("name", NOTES)
def test_a_0_24_note_names_its_session_and_writes_back_unchanged(name: str) -> None:
    text = (CORPUS / name).read_text()
    session = sessionkit.loads(text, path=f"sessions/{name}")
    meta = _meta(name)
    assert session.id == meta["session_id"]
    assert session.extra["agent"] == "claude-code" and "session_id" not in session.extra
    assert sessionkit.dumps(session) == text
    # a new id goes where the note has its id, nowhere else
    again = sessionkit.dumps(attrs.evolve(session, id="other-id"))
    assert again == text.replace(f"session_id: {meta['session_id']}\n", "session_id: other-id\n")


def test_a_new_note_of_an_agents_session_writes_agent_and_session_id() -> None:
    session = sessionkit.Session(
        id="abc-123", started="2026-12-07", project="demo", extra={"agent": "codex"}
    )
    text = sessionkit.dumps(session, format="basic-memory")
    assert "agent: codex\nsession_id: abc-123\n" in text and "claude_session_id" not in text
    assert sessionkit.loads(text, path="sessions/x.md").id == "abc-123"
    # without an agent, the older key (it names its agent itself)
    plain = sessionkit.dumps(attrs.evolve(session, extra={}), format="basic-memory")
    assert "claude_session_id: abc-123\n" in plain and "\nsession_id" not in plain


def test_ls_shows_the_session_id_0_24_writes(tmp_path: Path) -> None:
    bm = _bm(tmp_path / "bm", NOTES)
    result = CliRunner().invoke(cli, ["ls", str(bm), "--layout", "basic-memory", "--json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.output)
    rows = rows["notes"] if isinstance(rows, dict) else rows
    assert len(rows) == len(NOTES)
    assert {r["id"] for r in rows} == {str(_meta(n)["session_id"]) for n in NOTES}


def test_every_0_24_note_converts_in_its_sessions_chain_and_comes_back(tmp_path: Path) -> None:
    bm = _bm(tmp_path / "bm", NOTES)
    sessions = {str(_meta(n)["session_id"]) for n in NOTES}
    report = convert(bm, tmp_path / "wiki", to="aiwiki-v2")
    assert report.ok and report.failures == []
    pages = sorted((tmp_path / "wiki" / "aiwiki" / "sessions").glob("*.md"))
    assert len(pages) == len(sessions)  # one page per agent session
    chained = []
    for page in pages:
        session = sessionkit.loads(page.read_text(), path=f"aiwiki/sessions/{page.name}")
        assert session.id in sessions
        chained.extend(session.extra.get("bm_chain", []))
    assert sorted(chained) == NOTES  # a lone 0.24 `session` note is a chain of one
    back = convert(tmp_path / "wiki", tmp_path / "bm2", to="basic-memory", project="demo")
    assert back.ok and back.failures == []
    assert _notes(tmp_path / "bm2") == _notes(bm)  # every note, byte for byte
    assert convert(bm, tmp_path / "wiki", to="aiwiki-v2").written == []


def test_checkpoints_of_one_agent_session_chain_in_continues_order() -> None:
    from sessionkit.adapters.coding_session import chains

    texts = {n: (CORPUS / n).read_text() for n in NOTES}
    found = chains(texts)
    by_session = {str(_meta(chain[0])["session_id"]): chain for chain in found}
    for sid, chain in by_session.items():
        assert all(_meta(k)["session_id"] == sid for k in chain)
        starts = [str(_meta(k)["started"]) for k in chain if _meta(k)["capture"] == "extractive"]
        assert starts == sorted(starts)
    # a legacy note of the same Claude session joins it; another agent's same id does not
    name = NOTES[0]
    text = texts[name]
    sid = str(_meta(name)["session_id"])
    legacy = text.replace("agent: claude-code\nsession_id:", "claude_session_id:")
    codex = text.replace("agent: claude-code\n", "agent: codex\n")
    grouped = chains({name: text, "legacy.md": legacy, "codex.md": codex})
    assert [sorted(c) for c in grouped] == [sorted([name, "legacy.md"])]
    assert sid


@pytest.mark.parametrize("name", NOTES)
def test_a_0_24_note_lints_clean_of_schema_warnings(name: str) -> None:
    text = (CORPUS / name).read_text()
    found = sessionkit.lint(text, path=f"sessions/{name}", format="basic-memory")
    assert [d.code for d in found if d.code == "BM005"] == [], found


HEAD = "---\ntitle: a\ntype: session\npermalink: demo/sessions/a\nstatus: open\n---\n\n"


@pytest.mark.parametrize(
    ("body", "field", "want"),
    [
        (  # a lazy continuation line
            "## Observations\n- [decision] Use Postgres\n- [fix] Fixed in #12 and the\n"
            "follow-up change.\n",
            "observations",
            "- [fix] Fixed in #12 and the\nfollow-up change.\n- [fix] Another\n",
        ),
        (  # a soft-wrapped item
            "## Observations\n- [next_step] Rotate the keys\n  before Friday (ops)\n",
            "next_steps",
            "- [next_step] Rotate the keys\n  before Friday (ops)\n- [next_step] Another\n",
        ),
        (  # an item's sub-items, one nested 8 spaces deep
            "## Observations\n- [fix] one\n  - [fix] two\n    - [fix] three\n"
            "      - [fix] four\n        - [fix] deep\n",
            "observations",
            "        - [fix] deep\n- [fix] Another\n",
        ),
        (  # a sub-list under a plain line of the item
            "## Observations\n- [fix] one\n  - sub\n        - [fix] deep nested\n\n## Relations\n",
            "observations",
            "        - [fix] deep nested\n- [fix] Another\n\n## Relations\n",
        ),
    ],
)
def test_an_added_item_goes_after_the_whole_item_before_it(
    body: str, field: str, want: str
) -> None:
    session = sessionkit.loads(HEAD + body, path="sessions/a.md")
    new = (
        (*session.observations, Observation(category="fix", content="Another"))
        if field == "observations"
        else (*session.next_steps, "Another")
    )
    out = sessionkit.dumps(attrs.evolve(session, **{field: new}))
    assert want in out
    # every fact the note had is still there, whole, and the new one once
    again = sessionkit.loads(out, path="sessions/a.md")
    assert getattr(again, field) == new
    lines = out.split("\n")
    for line in (HEAD + body).split("\n"):
        assert line in lines


def test_an_abandoned_session_converted_to_basic_memory_lists_as_abandoned(
    tmp_path: Path,
) -> None:
    """#48: it is ``status: closed`` (the Session schema's word) + ``aiwiki_status``."""
    page = Path(__file__).parent.parent / "corpus" / "convert" / "2026-07-03-c0ffee4.md"
    wiki = tmp_path / "wiki" / "aiwiki" / "sessions"
    wiki.mkdir(parents=True)
    shutil.copyfile(page, wiki / page.name)
    assert convert(tmp_path / "wiki", tmp_path / "bm", to="basic-memory", project="demo").ok
    runner = CliRunner()
    args = ["ls", str(tmp_path / "bm"), "--layout", "basic-memory"]
    listed = runner.invoke(cli, [*args, "--status", "abandoned"])
    assert listed.exit_code == 0 and "abandoned" in listed.output, listed.output
    assert runner.invoke(cli, [*args, "--status", "done"]).output.strip() == ""
    # and back: the page, byte for byte
    assert convert(tmp_path / "bm", tmp_path / "wiki2", to="aiwiki-v2").ok
    assert (tmp_path / "wiki2" / "aiwiki" / "sessions" / page.name).read_bytes() == (
        page.read_bytes()
    )


#: Markdown links whose text holds brackets, and the relations Basic Memory 0.24.1's
#: EntityParser finds in them (tests/interop/test_bm_024_interop.py checks the table)
LINK_CASES = [
    ("[outer [[A]]](u)\n", [("links_to", "./u"), ("links_to", "A")]),
    ("See [outer [[A]]](notes/u.md) here.\n", [("links_to", "./notes/u.md"), ("links_to", "A")]),
    ("- [note] See [outer [[A]]](u) here\n", [("links_to", "./u"), ("links_to", "A")]),
    ("- relates_to [outer [[B]]](u)\n", [("links_to", "./u"), ("links_to", "B")]),
    ("[a [b] c](u)\n", [("links_to", "./u")]),
    ("[[A]](u)\n", [("links_to", "./u"), ("links_to", "A")]),
    (
        "[x [[A]] y](<u v>) and [[C]]\n",
        [("links_to", "./u v"), ("links_to", "A"), ("links_to", "C")],
    ),
    ("[a [b](v) c](u)\n", [("links_to", "./v")]),
    ("[a [b](http://v) c](u)\n", []),
    ("[a [b](c)](d) [e](f)\n", [("links_to", "./c"), ("links_to", "./f")]),
    ("[`x](y)`](u)\n", [("links_to", "./u")]),
    ("![img [[A]]](u)\n", [("links_to", "A")]),
    ("[a\\]b](u)\n", [("links_to", "./u")]),
]


@pytest.mark.parametrize(("body", "want"), LINK_CASES)
def test_a_markdown_link_whose_text_holds_brackets_is_a_relation(
    body: str, want: list[tuple[str, str]]
) -> None:
    from sessionkit.adapters.basic_memory import bm_view
    from sessionkit.document import parse

    view = bm_view(parse("---\ntitle: t\ntype: note\n---\n\n" + body, "n.md"))
    assert [(r.type, r.target) for r in view.facts.relations] == want


def test_a_converted_pages_carrier_sections_lint_clean(tmp_path: Path) -> None:
    """#48: `## bm: Observations` is sessionkit's documented carrier, not an AW006."""
    note = HEAD.replace("title: a\n", "title: a\nstarted: '2026-12-07'\n") + (
        "## Observations\n- [decision] Use Postgres\n- [result] Reads are 3x faster\n"
        "\n## Relations\n- relates_to [[Other]]\n"
    )
    (tmp_path / "bm" / "sessions").mkdir(parents=True)
    (tmp_path / "bm" / "sessions" / "a.md").write_text(note)
    assert convert(tmp_path / "bm", tmp_path / "wiki", to="aiwiki-v2").ok
    (page,) = (tmp_path / "wiki" / "aiwiki" / "sessions").glob("*.md")
    text = page.read_text()
    assert "## bm: Observations\n" in text and "## bm: Relations\n" in text
    found = sessionkit.lint(text, path=f"aiwiki/sessions/{page.name}")
    assert [d.code for d in found if d.code == "AW006"] == [], found
    # a heading that is no carrier still is one
    other = text.replace("## bm: Observations", "## Observations")
    assert "AW006" in [d.code for d in sessionkit.lint(other, path=f"aiwiki/sessions/{page.name}")]


def test_an_open_checkpoints_ended_travels_without_a_date_end(tmp_path: Path) -> None:
    """#48: the hook writes `ended` (when it checkpointed) on every open note; as the
    page's date_end it made an active page with an end (AW019).  (A note in the
    older plugin's shape: an ordinary note, not a chain of one.)"""
    (name,) = [n for n in NOTES if "release notes" in n]
    meta = _meta(name)
    assert meta["status"] == "open" and meta["ended"]
    older = (CORPUS / name).read_text()
    older = older.replace("agent: claude-code\nsession_id:", "claude_session_id:")
    (tmp_path / "bm" / "sessions").mkdir(parents=True)
    (tmp_path / "bm" / "sessions" / name).write_text(older)
    assert convert(tmp_path / "bm", tmp_path / "wiki", to="aiwiki-v2").ok
    (page,) = (tmp_path / "wiki" / "aiwiki" / "sessions").glob("*.md")
    text = page.read_text()
    session = sessionkit.loads(text, path=f"aiwiki/sessions/{page.name}")
    assert "bm_chain" not in session.extra
    assert session.ended is None and session.extra["bm_ended"] == meta["ended"]
    found = sessionkit.lint(text, path=f"aiwiki/sessions/{page.name}")
    assert "AW019" not in [d.code for d in found]
    assert convert(tmp_path / "wiki", tmp_path / "bm2", to="basic-memory", project="demo").ok
    back = (tmp_path / "bm2" / "sessions" / name).read_text()
    assert sessionkit.loads(back, path=f"sessions/{name}").ended == meta["ended"]
