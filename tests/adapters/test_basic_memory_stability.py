"""A note read and rendered fresh is stable: facts are not written twice.

``read`` returns every fact Basic Memory indexes, including the ``[[link]]``
inside an observation line (a ``links_to`` relation) and the ``- [category]``
lines inside prose sections.  A fresh ``write`` of such a session must not
emit those again under ``## Relations`` / ``## Observations``: the text it
writes already implies them.
"""

from __future__ import annotations

from pathlib import Path

import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sessionkit.adapters.basic_memory import BASIC_MEMORY
from sessionkit.document import parse
from sessionkit.model import ExtraSection, Link, Observation, Session

ROOT = Path(__file__).resolve().parent.parent.parent
GOLDEN = ROOT / "tests" / "golden" / "basic-memory"
EXAMPLES = ROOT / "examples" / "bm-project" / "sessions"
NOTES = sorted(GOLDEN.glob("*.md")) + sorted(EXAMPLES.glob("*.md"))

HEAD = "---\ntitle: T\ntype: session\npermalink: sessions/t\nstatus: open\n---\n\n"


def _read(text: str) -> Session:
    return attrs.evolve(BASIC_MEMORY.read(parse(text, "sessions/t.md")), origin=None)


def _fresh(session: Session) -> str:
    return str(BASIC_MEMORY.write(attrs.evolve(session, origin=None)).text)


def _same_facts(before: Session, after: Session) -> None:
    """Equal sessions, but for the keys a fresh write adds (``type``, ``permalink``)."""
    added = {k: v for k, v in after.extra.items() if k in before.extra}
    for key in after.extra:
        if key not in before.extra:
            assert key in ("type", "permalink"), key
    assert attrs.evolve(after, extra=added) == before


def test_link_in_observation_line_is_not_written_again() -> None:
    text = HEAD + (
        "## Observations\n\n"
        "- [decision] Use [[Grammar Notes]] as the reference\n"
        "- [idea] Cache it, see [[Perf]] #perf\n\n"
        "## Relations\n\n"
        "- relates_to [[Roadmap]]\n"
    )
    s = _read(text)
    assert [link.target for link in s.relations] == ["Grammar Notes", "Perf", "Roadmap"]
    out = _fresh(s)
    assert out.count("[[Grammar Notes]]") == 1
    assert out.count("[[Perf]]") == 1
    assert _read(out) == s
    assert out == text


def test_category_lines_in_prose_are_not_written_again() -> None:
    text = HEAD + (
        "## Notes\n\n"
        "- [decision] Keep the scanner small\n"
        "- [summary] Worked on the scanner\n"
        "- [idea] Cache the scan #perf\n\n"
        "## Observations\n\n"
        "- [decision] Ship it\n"
    )
    s = _read(text)
    assert s.decisions == ("Keep the scanner small", "Ship it")
    assert s.summary == "Worked on the scanner"
    out = _fresh(s)
    assert out.count("Keep the scanner small") == 1
    assert out.count("Worked on the scanner") == 1
    assert out.count("Cache the scan") == 1
    assert _read(out) == s
    assert out == text


def test_link_in_prose_observation_and_second_summary() -> None:
    text = HEAD + (
        "Preamble with [[Intro]].\n\n"
        "## Notes\n\n"
        "- [problem] Broke [[Parser]] (twice)\n"
        "- [summary] first\n"
        "- [summary] second\n"
    )
    s = _read(text)
    out = _fresh(s)
    assert out == text
    assert _read(out) == s


def test_session_built_by_hand_still_gets_its_relation_line() -> None:
    """A relation that no written line implies is written under ## Relations."""
    s = Session(
        title="T",
        decisions=("Use [[A]]",),
        relations=(Link(target="A", relation="links_to"), Link(target="B", relation="uses")),
        sections=(ExtraSection(title="Notes", body="- [idea] x #y"),),
        observations=(Observation(category="idea", content="x #y", tags=("y",)),),
    )
    out = _fresh(s)
    assert out.count("[[A]]") == 1
    assert "- uses [[B]]" in out
    assert out.count("[idea] x #y") == 1
    back = _read(out)
    assert back.relations == s.relations
    assert back.observations == s.observations
    assert back.decisions == s.decisions


@pytest.mark.parametrize("note", NOTES, ids=lambda p: p.name)
def test_corpus_read_write_read_is_stable(note: Path) -> None:
    """Golden and example notes: read(write(read)) == read, and the fresh text is a fixed point."""
    doc = parse(note.read_text(encoding="utf-8"), f"sessions/{note.name}")
    first = attrs.evolve(BASIC_MEMORY.read(doc), origin=None)
    text = _fresh(first)
    second = _read(text)
    _same_facts(first, second)
    assert _fresh(second) == text


# -- Hypothesis: bodies mixing prose facts, links in observations and relations

_word = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=6)
_phrase = st.lists(_word, min_size=1, max_size=3).map(" ".join)
_link = _phrase.map(lambda p: f"[[{p.title()}]]")
_category = st.sampled_from(["decision", "summary", "context", "problem", "idea", "next_step"])


@st.composite
def _fact_line(draw: st.DrawFn) -> str:
    words = draw(st.lists(st.one_of(_word, _link, _word.map(lambda w: "#" + w)), min_size=1))
    return f"- [{draw(_category)}] " + " ".join(words)


@st.composite
def _relation_line(draw: st.DrawFn) -> str:
    return f"- {draw(_word)} {draw(_link)}"


_RANK = {"summary": 0, "context": 1, "problem": 2, "decision": 3, "next_step": 4}


def _canonical_order(lines: list[str], prose_summary: bool) -> list[str]:
    ranked: list[tuple[int, str]] = [(0, "")] if prose_summary else []
    for line in lines:
        category = line[3 : line.index("]")]
        rank = _RANK.get(category, 9)
        if rank == 0 and any(r == 0 for r, _ in ranked):
            rank = 9  # a second summary is an ordinary observation
        ranked.append((rank, line))
    return [line for _, line in sorted(ranked, key=lambda item: item[0]) if line]


@st.composite
def _notes(draw: st.DrawFn) -> str:
    prose_lines = draw(
        st.lists(
            st.one_of(_fact_line(), _phrase, _phrase.map(lambda p: f"see {p} [[X]]")), max_size=5
        )
    )
    # a fresh write lists observations by field (summary, context, problems,
    # decisions, next steps, then the rest); draw them in that order, since the
    # model does not record the order across fields
    prose_summary = any(line.startswith("- [summary]") for line in prose_lines)
    obs = _canonical_order(draw(st.lists(_fact_line(), max_size=4)), prose_summary)
    rels = draw(st.lists(_relation_line(), max_size=3))
    body = ""
    if prose_lines:
        body += "## Notes\n\n" + "\n".join(prose_lines) + "\n\n"
    if obs:
        body += "## Observations\n\n" + "\n".join(obs) + "\n\n"
    if rels:
        body += "## Relations\n\n" + "\n".join(rels) + "\n"
    return HEAD + body


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_notes())
def test_fresh_write_of_a_read_note_is_stable(text: str) -> None:
    first = _read(text)
    out = _fresh(first)
    second = _read(out)
    assert second == first
    assert _fresh(second) == out
