"""Golden round trips on the Basic Memory side (issue #48): the example notes written
back anew, and through aiwiki and back, give their bytes; YAML comments and CRLF line
ends in the frontmatter survive a round trip that changes nothing, and an edit of the
body."""

from __future__ import annotations

from pathlib import Path

import attrs
import pytest

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
