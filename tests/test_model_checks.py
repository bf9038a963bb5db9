"""The model checks its values at the boundary (#19): a wrong type is a clear error."""

from __future__ import annotations

from typing import Any

import attrs
import pytest

import sessionkit
from sessionkit import Checkpoint, Citation, Directive, Session, ValidationError


@pytest.mark.parametrize(
    ("cls", "values", "words"),
    [
        (Session, {"status": "finished"}, "Session.status: 'finished' is not one of active"),
        (Session, {"next_steps": "abc"}, "Session.next_steps: expected a tuple of str, got str"),
        (Session, {"next_steps": [1]}, "Session.next_steps: expected str items, got int"),
        (Session, {"focus": 3}, "Session.focus: expected str or None, got int"),
        (Session, {"checkpoints": ["x"]}, "Session.checkpoints: expected Checkpoint items"),
        (Session, {"tags": None}, "Session.tags: expected a tuple of str"),
        (Citation, {"path": "a.py", "start": True}, "Citation.start: expected int or None"),
        (Citation, {"path": None}, "Citation.path: expected str, got NoneType"),
        (Directive, {"state": "done"}, "Directive.state: 'done' is not one of unconsumed"),
        (Checkpoint, {"event": "PreCompact", "at": 5}, "Checkpoint.at: expected str"),
    ],
)
def test_a_wrong_value_is_a_validation_error(cls: Any, values: dict[str, Any], words: str) -> None:
    with pytest.raises(ValidationError) as info:
        cls(**values)
    assert words in str(info.value)
    assert isinstance(info.value, sessionkit.SessionKitError)


def test_evolve_is_checked_too() -> None:
    with pytest.raises(ValidationError, match=r"Session\.status"):
        attrs.evolve(Session(), status="finished")


def test_values_of_the_right_shape_are_normalised() -> None:
    s = Session(status="done", next_steps=["a", "b"], tags=("x",))  # type: ignore[arg-type]
    assert s.status is sessionkit.Status.DONE
    assert s.next_steps == ("a", "b") and type(s.next_steps) is tuple
    assert s == Session(status=sessionkit.Status.DONE, next_steps=("a", "b"), tags=("x",))
    d = Directive(state="consumed", consumed_at="2026-05-18T14:23:00Z")  # type: ignore[arg-type]
    assert d.state is sessionkit.DirectiveState.CONSUMED


def test_dumps_never_sees_a_wrong_status() -> None:
    # before #19: dumps wrote `status: finished` and three bullets `- a`, `- b`, `- c`
    with pytest.raises(ValidationError):
        sessionkit.dumps(Session(status="finished", next_steps="abc"))  # type: ignore[arg-type]


def test_an_evolved_session_shares_blocks_already_lined_up() -> None:
    # a section of prose between items: every evolve re-lines the blocks up with the
    # items; when they are already lined up, the tuple is kept (not a copy per evolve)
    from sessionkit.model import Block

    laid = (Block(text="para"), Block(text="q", marker="1.", gap=1), Block(text="end", gap=1))
    session = Session(questions=("q",), blocks={"questions": laid})
    assert session.blocks["questions"] is laid
    assert attrs.evolve(session, focus="x").blocks["questions"] is laid
    # what is not lined up is still made so: a first gap, an item the field no longer has
    gapped = Session(
        questions=("q",), blocks={"questions": (attrs.evolve(laid[0], gap=2), *laid[1:])}
    )
    assert gapped.blocks["questions"] == laid
    edited = attrs.evolve(session, questions=("r",))
    assert [b.text for b in edited.blocks["questions"]] == ["para", "r", "end"]
    assert edited.blocks["questions"][1].marker == "1."
