"""sessionkit.serialize: the JSON shape of the model and its strict inverse."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sessionkit.errors import ValidationError
from sessionkit.model import (
    Block,
    Checkpoint,
    Citation,
    Directive,
    DirectiveState,
    ExtraSection,
    Link,
    LinkStyle,
    Observation,
    Origin,
    Session,
    Status,
)
from sessionkit.serialize import from_dict, from_json, iter_json, to_dict, to_json, write_json
from tests import strategies

SESSION_KEYS = [
    "id",
    "status",
    "status_word",
    "focus",
    "title",
    "summary",
    "started",
    "ended",
    "last_commit",
    "project",
    "cwd",
    "checkpoints",
    "files_touched",
    "decisions",
    "gotchas",
    "questions",
    "next_steps",
    "context",
    "tags",
    "observations",
    "relations",
    "extra",
    "sections",
    "blocks",
]


def _sample() -> Session:
    return Session(
        id="7e8a3f21-9a4b-4c8d-b1e2-f5a6c7d8e9f0",
        status=Status.ACTIVE,
        focus="wire the retry budget",
        started="2026-05-18",
        last_commit="0123456",
        checkpoints=(
            Checkpoint(
                event="PreCompact",
                at="2026-05-18T14:23:00Z",
                body="Active work: feature/retry",
                directives=(
                    Directive(
                        state=DirectiveState.CONSUMED,
                        consumed_at="2026-05-18T15:00:00Z",
                        items=("Scope: `aiwiki/raw/`", "Action: invoke support-dream"),
                    ),
                ),
            ),
        ),
        files_touched=(Citation(path="src/retry.py", start=10, end=58, sha="0a1b2c3", note="— x"),),
        decisions=("Budget per host — [[adr-0007-retry-budget]]",),
        observations=(Observation(category="context", content="mid-refactor #retry"),),
        relations=(Link(target="docs/API.md", label="API", style=LinkStyle.MARKDOWN),),
        extra={"reviewer": "ana", "labels": ["a", "b"]},
        sections=(ExtraSection(title="Notes", body="free text"),),
    )


def test_keys_are_the_documented_snake_case_fields_in_order() -> None:
    data = to_dict(_sample())
    assert list(data) == SESSION_KEYS
    assert "origin" not in data
    assert list(data["checkpoints"][0]) == ["event", "at", "body", "directives"]
    assert list(data["checkpoints"][0]["directives"][0]) == [
        "kind",
        "state",
        "consumed_at",
        "items",
        "status",
    ]
    assert list(data["files_touched"][0]) == ["path", "start", "end", "sha", "note", "code"]
    assert list(data["relations"][0]) == ["target", "label", "relation", "context", "style"]
    assert list(data["observations"][0]) == ["category", "content", "tags", "context"]
    assert list(data["sections"][0]) == ["title", "body"]


def test_enums_are_plain_values_and_tuples_lists() -> None:
    data = to_dict(_sample())
    assert data["status"] == "active" and type(data["status"]) is str
    state = data["checkpoints"][0]["directives"][0]["state"]
    assert state == "consumed" and type(state) is str
    style = data["relations"][0]["style"]
    assert style == "markdown" and type(style) is str
    assert data["decisions"] == ["Budget per host — [[adr-0007-retry-budget]]"]
    assert type(data["checkpoints"][0]["directives"][0]["items"]) is list
    assert data["last_commit"] == "0123456"


def test_origin_is_omitted_and_not_needed() -> None:
    with_origin = attrs.evolve(_sample(), origin=Origin(format="aiwiki-v2", document=object()))
    data = to_dict(with_origin)
    assert "origin" not in data
    assert from_dict(data) == with_origin
    assert from_dict(data).origin is None


def test_to_json_is_valid_json_keeping_unicode() -> None:
    text = to_json(_sample())
    assert json.loads(text) == to_dict(_sample())
    assert "—" in text  # not escaped as \u2014
    assert text.startswith('{\n  "id": ')
    assert "\n" not in to_json(_sample(), indent=None)


def test_from_json_round_trip_and_bad_json() -> None:
    assert from_json(to_json(_sample())) == _sample()
    with pytest.raises(ValidationError, match="not JSON") as info:
        from_json('{"id": \n oops}')
    assert info.value.line == 2


def test_missing_keys_take_defaults() -> None:
    assert from_dict({}) == Session()
    assert from_dict({"status": "done", "tags": ["x"]}) == Session(status=Status.DONE, tags=("x",))


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"files_touched": [{"path": "a.py", "start": "7"}]}, "$.files_touched[0].start"),
        ({"files_touched": [{"path": "a.py", "start": True}]}, "expected an integer"),
        ({"files_touched": [{"path": "a.py", "start": 7.0}]}, "expected an integer"),
        ({"focus": True}, "expected a string, got boolean true @ $.focus"),
        ({"id": 42}, "expected a string, got number 42 @ $.id"),
        ({"last_commit": 123456}, "@ $.last_commit"),
        ({"tags": "abc"}, "expected a list, got string 'abc' @ $.tags"),
        ({"decisions": ["ok", 1]}, "@ $.decisions[1]"),
        ({"status": "closed"}, "expected one of 'active', 'done', 'abandoned'"),
        ({"status": "ACTIVE"}, "@ $.status"),
        ({"status": 1}, "@ $.status"),
        (
            {"checkpoints": [{"event": "E", "at": "t", "directives": [{"state": "done"}]}]},
            "@ $.checkpoints[0].directives[0].state",
        ),
        ({"checkpoints": [{"event": "E"}]}, "required key missing @ $.checkpoints[0].at"),
        ({"checkpoints": ["E"]}, "@ $.checkpoints[0]"),
        ({"relations": [{"target": "x", "style": "WIKI"}]}, "@ $.relations[0].style"),
        ({"files_touched": [{"path": "a", "code": 1}]}, "expected true or false"),
        ({"extra": ["a"]}, "expected an object, got a list @ $.extra"),
        ({"extra": {"k": 1}, "bogus": 1}, "unknown key(s): bogus @ $"),
        ({"origin": None}, "unknown key(s): origin @ $"),
        ({"sections": [{"title": "T", "text": ""}]}, "unknown key(s): text @ $.sections[0]"),
    ],
)
def test_from_dict_is_strict(data: dict[str, Any], message: str) -> None:
    with pytest.raises(ValidationError) as info:
        from_dict(data)
    assert message in str(info.value)


def test_every_problem_is_reported_once_with_its_path() -> None:
    data = to_dict(_sample())
    data["focus"] = 3
    data["files_touched"][0]["start"] = "10"
    data["checkpoints"][0]["directives"][0]["state"] = "eaten"
    with pytest.raises(ValidationError) as info:
        from_dict(data)
    message = str(info.value)
    assert "@ $.focus" in message
    assert "@ $.files_touched[0].start" in message
    assert "@ $.checkpoints[0].directives[0].state" in message
    assert message.count(" @ $") == 3


@pytest.mark.parametrize("value", [[], "text", 3, None])
def test_from_dict_needs_an_object(value: Any) -> None:
    with pytest.raises(ValidationError, match="expected a JSON object"):
        from_dict(value)


def test_unknown_frontmatter_values_are_copied_not_shared() -> None:
    nested: dict[str, Any] = {"k": [1, {"x": None}]}
    session = from_dict({"extra": nested})
    nested["k"].append(2)
    assert session.extra == {"k": [1, {"x": None}]}


def test_importing_sessionkit_does_not_import_cattrs() -> None:
    code = (
        "import sys, sessionkit, sessionkit.model; "
        "assert 'cattrs' not in sys.modules, 'cattrs imported'; "
        "import sessionkit.serialize; assert 'cattrs' in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


@settings(max_examples=40, deadline=None)
@given(strategies.sessions())
def test_round_trip(session: Session) -> None:
    data = to_dict(session)
    assert from_dict(data) == session
    assert from_dict(json.loads(json.dumps(data))) == session


@settings(max_examples=40, deadline=None)
@given(strategies.sessions(), st.sampled_from([None, 0, 2]))
def test_write_json_writes_to_json(session: Session, indent: int | None) -> None:
    import io

    out = io.StringIO()
    write_json(session, out, indent)
    assert out.getvalue() == to_json(session, indent) + "\n"


def test_write_json_writes_a_big_session_in_pieces() -> None:
    class Pieces(list[str]):
        def write(self, text: str) -> None:
            self.append(text)

    session = Session(focus="x", started="2026-01-01", next_steps=tuple(map(str, range(20_000))))
    out = Pieces()
    write_json(session, out)  # type: ignore[arg-type]
    assert "".join(out) == to_json(session) + "\n"
    assert len(out) > 2 and max(map(len, out)) < 1 << 17


@settings(max_examples=40, deadline=None)
@given(strategies.sessions(), st.sampled_from([None, 0, 2, 4]))
def test_iter_json_pieces_are_to_json(session: Session, indent: int | None) -> None:
    assert "".join(iter_json(session, indent)) == to_json(session, indent)


def _big_session(items: int) -> Session:
    """A session of ``items`` citations, directives and blocks (every kind of list)."""
    return Session(
        focus="big",
        started="2026-01-01",
        checkpoints=tuple(
            Checkpoint(
                event="PreCompact",
                at="2026-01-01T00:00:00Z",
                directives=(Directive(items=("a", "b")),),
            )
            for _ in range(items // 10)
        ),
        files_touched=tuple(Citation(path=f"src/m{i}.py", start=i) for i in range(items)),
        next_steps=tuple(f"step {i}" for i in range(items)),
        blocks={"next_steps": tuple(Block(text=f"step {i}", marker="*") for i in range(items))},
    )


@pytest.mark.parametrize("indent", [None, 2])
def test_iter_json_holds_a_batch_not_the_session(indent: int | None) -> None:
    import tracemalloc

    session = _big_session(32_000)  # (lists of several batches each)
    assert "".join(iter_json(session, indent)) == to_json(session, indent)
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        longest = max(len(piece) for piece in iter_json(session, indent))
        streamed = tracemalloc.get_traced_memory()[1] - base
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        whole = len(json.dumps(to_dict(session), indent=indent))
        held = tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()
    # a piece is a batch of items at most; the dict of every item and its text are not made
    assert longest < whole / 4
    assert streamed < held / 4, (streamed, held)


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(SESSION_KEYS[:10]), st.booleans() | st.integers() | st.floats())
def test_scalar_fields_reject_non_strings(key: str, bad: Any) -> None:
    data = to_dict(_sample())
    data[key] = bad
    with pytest.raises(ValidationError, match=rf"@ \$\.{key}\b"):
        from_dict(data)


EXAMPLE_NOTES = sorted(
    p
    for p in (Path(__file__).resolve().parent.parent / "examples").rglob("*.md")
    if p.name != "INDEX.md" and ("sessions" in p.parts)
)


@pytest.mark.parametrize("note", EXAMPLE_NOTES, ids=lambda p: p.name)
def test_example_notes_round_trip_through_json(note: Path) -> None:
    import sessionkit

    session = sessionkit.loads(note.read_text(encoding="utf-8"), path=str(note))
    assert from_json(to_json(session)) == session
