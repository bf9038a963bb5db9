"""Golden round trips on the Basic Memory side (issue #48): the example notes written
back anew, and through aiwiki and back, give their bytes; YAML comments and CRLF line
ends in the frontmatter survive a round trip that changes nothing, and an edit of the
body."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import sessionkit
from sessionkit.adapters.basic_memory import BASIC_MEMORY
from sessionkit.document import parse

ROOT = Path(__file__).resolve().parent.parent.parent
EXAMPLES = sorted((ROOT / "examples" / "bm-project" / "sessions").glob("*.md"))


def test_there_are_examples() -> None:
    assert len(EXAMPLES) == 2


@pytest.mark.parametrize("note", EXAMPLES, ids=lambda p: p.name)
def test_an_example_note_written_anew_is_its_bytes(note: Path) -> None:
    # the observations come back in the order the plugins write them (issue #48: 0/2)
    text = note.read_text(encoding="utf-8")
    session = BASIC_MEMORY.read(parse(text, f"sessions/{note.name}"))
    assert BASIC_MEMORY.write(attrs.evolve(session, origin=None)).text == text


def test_the_examples_through_aiwiki_and_back_are_their_bytes(tmp_path: Path) -> None:
    wiki, back = tmp_path / "wiki", tmp_path / "bm"
    assert not sessionkit.convert(ROOT / "examples" / "bm-project", wiki, to="aiwiki").failures
    assert not sessionkit.convert(wiki, back, to="basic-memory").failures
    for note in EXAMPLES:
        assert (back / "sessions" / note.name).read_bytes() == note.read_bytes(), note.name


_NOTE = (
    "---\r\ntitle: Session one\r\ntype: session\r\n# a comment\r\n"
    "permalink: sessions/session-one\r\nstatus: open  # trailing\r\n"
    "started: 2026-05-14T08:47:10Z\r\n---\r\n\r\n## Summary\r\n\r\nDid things.\r\n\r\n"
    "## Observations\r\n\r\n- [context] ctx #x\r\n- [decision] dec\r\n- [next_step] next\r\n"
)


def test_comments_and_crlf_survive_an_unchanged_round_trip() -> None:
    session = sessionkit.loads(_NOTE, path="sessions/Session one.md")
    assert sessionkit.dumps(session) == _NOTE


def test_comments_and_crlf_survive_an_edit_of_the_body() -> None:
    session = sessionkit.loads(_NOTE, path="sessions/Session one.md")
    edited = sessionkit.dumps(attrs.evolve(session, decisions=(*session.decisions, "more")))
    assert edited == _NOTE.replace(
        "- [decision] dec\r\n", "- [decision] dec\r\n- [decision] more\r\n"
    )


def test_comments_and_crlf_survive_an_edit_of_another_key() -> None:
    session = sessionkit.loads(_NOTE, path="sessions/Session one.md")
    edited = sessionkit.dumps(attrs.evolve(session, tags=("a",)))
    assert edited == _NOTE.replace("\r\n---\r\n\r\n", "\r\ntags:\r\n- a\r\n---\r\n\r\n", 1)


# ----------------------------------------------------------------------------- through aiwiki


def _there_and_back(text: str, name: str = "note.md") -> tuple[str, str]:
    """(the aiwiki page, the Basic Memory note converted back from it)."""
    from sessionkit.adapters.crosswalk import convert_doc

    kw: dict[str, Any] = {"project": None, "folder": "sessions", "today": "2026-01-01"}
    page = convert_doc(parse(text, f"sessions/{name}"), "basic-memory", "aiwiki", **kw)
    back = convert_doc(
        parse(page.text, f"aiwiki/sessions/{page.key}"), "aiwiki", "basic-memory", **kw
    )
    assert back.key == name
    return page.text, back.text


def _carrier(page: str) -> dict[str, Any]:
    value = parse(page).meta.get("bm_sessionkit")
    return json.loads(value) if isinstance(value, str) else {}


def _assert_layout_carried(text: str) -> None:
    page, back = _there_and_back(text)
    assert back == text
    carrier = _carrier(page)
    # the layout rides as its own lines: never the note, never the session
    assert "pivot" not in carrier
    assert len(json.dumps(carrier)) < len(text) // 2 + 80


_PLUGIN = (
    "---\ntitle: Fix the flaky feed test\ntype: session\n"
    "permalink: sessions/fix-the-flaky-feed-test\n"
    "status: open\nstarted: '2026-05-14T08:47:10Z'\ntags:\n- session\n---\n\n"
    "## Summary\n\nChased the flaky feed test.\n\n"
    "## Observations\n\n"
    "- [summary] The feed test fails 1 in 20 runs\n"
    "- [context] The fake clock drifts #flaky\n"
    "- [problem] `asyncio.sleep(0)` yields too early\n"
    "- [decision] Advance the clock by hand (see PR #12)\n"
    "- [next_step] Run it 500 times in CI\n\n"
    "## Relations\n\n- relates_to [[Feed client]]\n- part_of [[Tidewater]]\n"
)

_SHAPES = {
    "as the plugins write it": _PLUGIN,
    "observations in another order": _PLUGIN.replace(
        "- [summary] The feed test fails 1 in 20 runs\n", ""
    ).replace(
        "- [next_step] Run it 500 times in CI\n",
        "- [next_step] Run it 500 times in CI\n- [summary] The feed test fails 1 in 20 runs\n",
    ),
    "CRLF line ends": _PLUGIN.replace("\n", "\r\n"),
    "CRLF in the frontmatter only": _PLUGIN.replace("\n", "\r\n", 9),
    "YAML comments": _PLUGIN.replace(
        "status: open\n", "# set by the hook\nstatus: open  # still\n"
    ),
    "blank lines": _PLUGIN.replace("## Summary\n\n", "## Summary\n\n\n").replace(
        "\n\n## Relations", "\n\n\n\n## Relations"
    ),
    "another key order": _PLUGIN.replace("status: open\n", "").replace(
        "tags:\n", "status: open\ntags:\n"
    ),
    "no final newline": _PLUGIN.rstrip("\n"),
    "no summary section": _PLUGIN.replace("## Summary\n\nChased the flaky feed test.\n\n", ""),
    "no relations": _PLUGIN.split("\n## Relations")[0],
    "prose sections": _PLUGIN.replace(
        "## Observations",
        "## Recent thread\n\n- user: fix it\n- assistant: done\n\n"
        "## Notes\n\nSome *prose* with a [[Wiki link]].\n\n## Observations",
    ),
    "blank lines before the frontmatter": "\n\n" + _PLUGIN,
}


@pytest.mark.parametrize("shape", list(_SHAPES))
def test_a_note_through_aiwiki_and_back_is_its_bytes(shape: str) -> None:
    _assert_layout_carried(_SHAPES[shape])


def test_an_edited_page_writes_the_note_anew() -> None:
    # the layout patch belongs to the note it was made from: after an edit of the
    # page the note is written anew (facts kept), never patched into something else
    from sessionkit.adapters.crosswalk import convert_doc

    text = _SHAPES["YAML comments"]
    page, _ = _there_and_back(text)
    edited = page.replace("Chased the flaky feed test.", "Chased the flaky feed test again.")
    kw: dict[str, Any] = {"project": None, "folder": "sessions", "today": "2026-01-01"}
    back = convert_doc(parse(edited, "aiwiki/sessions/x.md"), "aiwiki", "basic-memory", **kw)
    assert "again." in back.text and "# set by the hook" not in back.text
    session = sessionkit.loads(back.text, path="sessions/note.md")
    assert session.decisions == ("Advance the clock by hand (see PR #12)",)


_CATEGORIES = ("summary", "context", "problem", "decision", "next_step", "idea", "fix")


@st.composite
def _notes(draw: st.DrawFn) -> str:
    keys = [
        "title: A session",
        "type: session",
        "permalink: sessions/a-session",
        "status: " + draw(st.sampled_from(["open", "closed", "resumed"])),
        "started: '2026-05-14T08:47:10Z'",
        "project: tidewater",
        "tags:\n- session\n- auto-capture",
    ]
    keys = draw(st.permutations(keys))
    comment = draw(st.sampled_from(["", "# a comment\n", "# hook v2\n"]))
    spot = draw(st.integers(0, len(keys)))
    fm = "".join(k + "\n" for k in keys[:spot]) + comment + "".join(k + "\n" for k in keys[spot:])
    words = st.text(alphabet="abcdefgh xyz", min_size=1, max_size=12).map(str.strip).filter(bool)
    cats = draw(st.lists(st.sampled_from(_CATEGORIES), max_size=6))
    obs = [f"- [{c}] {c} {draw(words)}\n" for c in cats]
    gap = "\n" * draw(st.integers(1, 3))
    sections = []
    if draw(st.booleans()):
        sections.append("## Summary\n\n" + draw(words) + "\n")
    if obs:
        sections.append("## Observations\n\n" + "".join(obs))
    if draw(st.booleans()):
        sections.append("## Notes\n\nSome prose " + draw(words) + ".\n")
    if draw(st.booleans()):
        sections.append("## Relations\n\n- relates_to [[Other " + draw(words) + "]]\n")
    sections = draw(st.permutations(sections))
    text = "---\n" + fm + "---\n" + gap + gap.join(sections)
    if draw(st.booleans()):
        text = text.rstrip("\n")
    if draw(st.booleans()):
        text = text.replace("\n", "\r\n")
    return text


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_notes())
def test_property_bm_aiwiki_bm_is_the_bytes(text: str) -> None:
    page, back = _there_and_back(text)
    assert back == text
    carrier = _carrier(page)
    assert "pivot" not in carrier


def test_the_carrier_holds_just_the_layout() -> None:
    # a moved observation rides as the number of its line, a comment as itself, CRLF
    # and a missing final line end as flags: no line of the note is copied but those
    page = _there_and_back(_SHAPES["observations in another order"])[0]
    assert "fails 1 in 20" not in json.dumps(_carrier(page)["bm"])
    patch = _carrier(_there_and_back(_SHAPES["YAML comments"])[0])["bm"]
    assert [line for op in patch["ops"] for line in op[2]] == [
        "# set by the hook\n",
        "status: open  # still\n",
    ]
    crlf = _SHAPES["CRLF line ends"].rstrip("\r\n")
    patch = _carrier(_there_and_back(crlf)[0])["bm"]
    assert patch["crlf"] == patch["eof"] == 1 and patch["ops"] == []


def test_the_convert_report_says_which_pages_keep_a_layout(tmp_path: Path) -> None:
    # a note in the plugins' own layout needs no patch; one with its observations in
    # another order keeps that order in bm_sessionkit, and the report names its page
    from click.testing import CliRunner

    from sessionkit.cli import cli

    project = tmp_path / "bm" / "sessions"
    project.mkdir(parents=True)
    (project / "plain.md").write_text(_PLUGIN, encoding="utf-8")
    (project / "moved.md").write_text(
        _SHAPES["observations in another order"]
        .replace("Fix the flaky", "Fix the moved")
        .replace("2026-05-14T", "2026-05-15T"),
        encoding="utf-8",
    )
    report = sessionkit.convert(tmp_path / "bm", tmp_path / "wiki", to="aiwiki")
    assert not report.failures and report.counts["created"] == 2
    assert report.counts["layout"] == 1 and len(report.layout) == 1
    assert report.to_dict()["layout"] == report.layout
    page = (tmp_path / "wiki" / "aiwiki" / "sessions" / report.layout[0]).read_text("utf-8")
    assert "bm" in _carrier(page)
    result = CliRunner().invoke(
        cli, ["convert", str(tmp_path / "bm"), str(tmp_path / "again"), "--to", "aiwiki"]
    )
    assert result.exit_code == 0, result.output
    assert "1 page keeps the Basic Memory note's layout" in result.stderr
