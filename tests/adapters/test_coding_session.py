"""Basic Memory's plugin checkpoints (``coding_session``): the model view, chains, chain pages.

The golden notes in ``tests/corpus/coding-session/`` were written by
basic-memory's own ``write_note`` with the frontmatter and sections the
Claude Code plugin's PreCompact hook and ``bm-checkpoint`` skill document
(one extractive checkpoint and two deliberate ones of one Claude session,
linked by ``continues``); their words are ours.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sessionkit
from sessionkit.adapters.coding_session import (
    CODING_SESSION_CATEGORIES,
    chain_page,
    chains,
    coding_view,
    split_chain_page,
)
from sessionkit.diagnostics import Severity
from sessionkit.errors import FormatError
from sessionkit.model import Status

CORPUS = Path(__file__).parent.parent / "corpus" / "coding-session"
NOTES = {p.name: p.read_text(encoding="utf-8") for p in sorted(CORPUS.glob("*.md"))}
FIRST = "Session 2026-11-30 14-02-11 — give each host its own retry budget.md"
SECOND = "Claude checkpoint - per-host retry budget works.md"
THIRD = "Claude checkpoint - backfill uses per-host budgets.md"


def test_the_golden_notes_are_coding_sessions_read_losslessly() -> None:
    for key, text in NOTES.items():
        session = sessionkit.loads(text, path=key)
        assert session.extra["type"] == "coding_session"
        assert sessionkit.dumps(session) == text


def test_the_plugin_categories_fill_the_model_fields() -> None:
    assert CODING_SESSION_CATEGORIES["changed_file"] == "files_touched"
    assert CODING_SESSION_CATEGORIES["blocker"] == "gotchas"
    view = coding_view(sessionkit.loads(NOTES[SECOND], path=SECOND))
    assert [c.path for c in view.files_touched] == ["tides/client.py"]
    assert view.gotchas == ("The backfill job still shares one budget across hosts",)
    assert view.decisions == ("Keep the budget in the client, refilled on each success",)
    assert view.next_steps == ("Give the backfill job per-host budgets too",)
    # verification and result stay typed observations, continues stays a relation
    assert [(o.category, o.content) for o in view.observations] == [
        ("result", "One slow host no longer stops retries for the others"),
        ("verification", "pytest tests/test_client.py: 14 passed"),
    ]
    assert [(r.relation, r.target) for r in view.relations] == [
        ("continues", "Session 2026-11-30 14:02:11 — give each host its own retry budget")
    ]


def test_the_category_table_is_the_basic_memory_profiles_and_coding_view_follows_it() -> None:
    from sessionkit.adapters.profiles import BASIC_MEMORY

    note_type = BASIC_MEMORY.note_types["coding_session"]
    assert CODING_SESSION_CATEGORIES is note_type.categories  # one table, in the profile
    assert note_type.session_keys == ("session_id", "claude_session_id", "codex_session_id")
    assert note_type.continues == "continues"
    head = NOTES[SECOND].split("## Observations\n")[0] + "## Observations\n"
    for category, field in note_type.categories.items():
        text = f"{head}- [{category}] item of {category}\n"
        view = coding_view(sessionkit.loads(text, path=SECOND))
        if field is None:
            assert [(o.category, o.content) for o in view.observations] == [
                (category, f"item of {category}")
            ]
            continue
        value = getattr(view, field)
        if isinstance(value, str):  # the summary: the note's text and the item
            assert value.endswith(f"item of {category}"), category
        else:
            items = [c.path for c in value] if field == "files_touched" else list(value)
            assert items[-1:] == [f"item of {category}"], category
        assert not view.observations


def test_chains_follow_the_continues_links() -> None:
    assert chains(NOTES) == [[FIRST, SECOND, THIRD]]
    # the order comes from the links, not from the keys or the listing
    assert chains(dict(reversed(list(NOTES.items())))) == [[FIRST, SECOND, THIRD]]
    # a lone checkpoint is no chain
    assert chains({SECOND: NOTES[SECOND]}) == []


def test_a_chain_is_one_page_with_its_checkpoints_in_order_and_back_byte_for_byte() -> None:
    notes = [(k, NOTES[k]) for k in (FIRST, SECOND, THIRD)]
    page = chain_page(notes)
    path = "aiwiki/sessions/2026-11-30-5be1c0d.md"
    session = sessionkit.loads(page, path=path)
    assert [cp.event for cp in session.checkpoints] == ["PreCompact", "Checkpoint", "Checkpoint"]
    assert [cp.at for cp in session.checkpoints] == [
        "2026-11-30T14:02:11+00:00",
        "2026-11-30T15:40:00+00:00",
        "2026-11-30T17:05:00+00:00",
    ]
    assert session.id == "5be1c0de-7a11-4c0d-9e55-3c0ffee0a7b1"
    assert session.status is Status.DONE and session.ended == "2026-11-30"
    assert [c.path for c in session.files_touched] == ["tides/client.py", "tides/backfill.py"]
    assert session.gotchas == ("The backfill job still shares one budget across hosts",)
    assert session.next_steps == ("Answer review comments on pull request 42",)
    assert not [d for d in sessionkit.lint(page, path=path) if d.severity is Severity.ERROR]
    assert split_chain_page(page, path) == notes


@settings(max_examples=40, deadline=None)
@given(
    body=st.text(
        alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\r\x00"),
        max_size=200,
    ),
    eol=st.booleans(),
)
def test_any_note_text_comes_back_from_a_chain_page(body: str, eol: bool) -> None:
    a = NOTES[FIRST]
    b = NOTES[SECOND].rstrip("\n") + "\n\n" + body.replace("\x85", " ")
    b = b + "\n" if eol else b.rstrip("\n")
    try:
        page = chain_page([(FIRST, a), (SECOND, b)])
    except sessionkit.SessionKitError:
        return  # a body the notes' reader refuses
    assert split_chain_page(page) == [(FIRST, a), (SECOND, b)]


def test_a_page_that_is_not_a_chain_is_refused() -> None:
    page = (Path(__file__).parent.parent / "corpus/aiwiki-v2/2026-05-18-7e8a3f2.md").read_text()
    with pytest.raises(FormatError, match="not a chain page"):
        split_chain_page(page)


_WORDS = st.from_regex(r"[A-Za-z][A-Za-z0-9 ]{0,14}[A-Za-z0-9]", fullmatch=True).filter(
    lambda w: "  " not in w
)


def _frontmatter(text: str) -> str:
    return text.split("\n---\n", 1)[0]


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_any_list_edit_of_a_chain_page_comes_back_through_its_notes(data: st.DataObject) -> None:
    """The page's lists edited at random (items kept, dropped, reordered, new):
    the notes carry every edit, make a page that reads as the edited one, and
    nothing else of them changes."""
    import attrs

    from sessionkit.adapters.coding_session import page_notes
    from sessionkit.model import Citation

    notes = [(k, NOTES[k]) for k in (FIRST, SECOND, THIRD)]
    path = "aiwiki/sessions/2026-11-30-5be1c0d.md"
    session = sessionkit.loads(chain_page(notes), path=path)

    def edited(items: tuple[str, ...]) -> tuple[str, ...]:
        pool = st.one_of(st.sampled_from(items), _WORDS) if items else _WORDS
        return tuple(data.draw(st.lists(pool, max_size=4, unique=True)))

    paths = edited(tuple(c.path for c in session.files_touched))
    changed = attrs.evolve(
        session,
        decisions=edited(session.decisions),
        gotchas=edited(session.gotchas),
        next_steps=edited(session.next_steps),
        files_touched=tuple(Citation(path=p.replace(" ", "_") + ".py", code=False) for p in paths)
        if paths != tuple(c.path for c in session.files_touched)
        else session.files_touched,
    )
    page = sessionkit.dumps(changed)
    out = page_notes(page, path)
    assert [k for k, _ in out] == [FIRST, SECOND, THIRD]
    assert out[0] == notes[0]  # the first checkpoint holds none of these lists
    for (_, before), (_, after) in zip(notes, out, strict=True):
        assert _frontmatter(after) == _frontmatter(before)
    again = sessionkit.loads(chain_page(out), path=path)
    for field in ("decisions", "gotchas", "next_steps", "files_touched"):
        assert getattr(again, field) == getattr(changed, field), field
    assert page_notes(chain_page(out), path) == out  # and that page gives them back as they are
