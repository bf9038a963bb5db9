"""Picoschema: schema notes as data, resolution, validation messages worded like Basic Memory's."""

from __future__ import annotations

import pytest

from sessionkit.adapters import picoschema as ps
from sessionkit.errors import FormatError


def test_builtin_session_schema() -> None:
    schema, coding = ps.builtin_schemas()
    assert (schema.entity, schema.version, schema.validation) == ("Session", 1, "warn")
    names = [(f.name, f.required, f.is_array, f.is_entity_ref) for f in schema.fields]
    assert names == [
        ("summary", False, False, False),
        ("context", False, True, False),
        ("next_step", False, True, False),
        ("decision", False, True, False),
        ("problem", False, True, False),
        ("produced", False, True, True),
    ]
    status = next(f for f in schema.frontmatter_fields if f.name == "status")
    assert status.is_enum and status.enum_values == ("open", "resumed", "closed")
    assert [f.name for f in schema.frontmatter_fields if f.required] == ["project", "started"]
    # Basic Memory 0.24.1's: the shared agent session keys, deliberate checkpoints (#48)
    capture = next(f for f in schema.frontmatter_fields if f.name == "capture")
    assert capture.enum_values == ("extractive", "deliberate", "summarized")
    assert {"agent", "session_id", "claude_session_id"} <= {
        f.name for f in schema.frontmatter_fields
    }
    assert (coding.entity, coding.validation) == ("CodingSession", "warn")
    assert [f.name for f in coding.frontmatter_fields if f.required] == [
        "project",
        "started",
        "repository",
        "repo_root",
        "cwd",
        "branch",
        "git_sha",
    ]


def test_field_key_grammar() -> None:
    fields = ps.parse_fields(
        {
            "name": "string, full name",
            "role?": "string",
            "tags?(array, labels)": "string",
            "status?(enum)": "[active, blocked], current state",
            "meta?(object)": {"a": "integer"},
            "works_at": "Organization, employer",
            "odd(key)": "any",
        }
    )
    by = {f.name: f for f in fields}
    assert by["name"].required and by["name"].description == "full name"
    assert not by["role"].required
    assert by["tags"].is_array and by["tags"].description == "labels"
    assert by["status"].enum_values == ("active", "blocked")
    assert by["status"].description == "current state"
    assert by["meta"].type == "object" and by["meta"].children[0].type == "integer"
    assert by["works_at"].is_entity_ref and by["works_at"].type == "Organization"
    assert "odd(key)" in by  # not a modifier: part of the name


@pytest.mark.parametrize(
    ("value", "mode"), [("warn", "warn"), ("strict", "strict"), ("error", "strict")]
)
def test_validation_modes(value: str, mode: str) -> None:
    meta = {"entity": "X", "schema": {"a": "string"}, "settings": {"validation": value}}
    assert ps.parse_schema(meta).validation == mode


def test_bad_schema_notes() -> None:
    with pytest.raises(FormatError, match=r"Invalid settings\.validation"):
        ps.parse_schema({"entity": "X", "schema": {"a": "string"}, "settings": {"validation": "x"}})
    with pytest.raises(FormatError, match="entity"):
        ps.parse_schema({"schema": {"a": "string"}})
    with pytest.raises(FormatError, match="'schema' dict"):
        ps.parse_schema({"entity": "X"})
    with pytest.raises(FormatError, match="not a schema note"):
        ps.load_schema_note("---\ntype: note\n---\n")


def test_resolution_order() -> None:
    person = ps.parse_schema({"entity": "Person", "title": "People", "schema": {"name": "string"}})
    pool = [person, *ps.builtin_schemas()]
    inline = ps.resolve_schema({"type": "x", "schema": {"a": "string"}}, pool)
    assert inline is not None and inline.entity == "x"
    assert ps.resolve_schema({"schema": "person"}, pool) is person
    assert ps.resolve_schema({"schema": "people"}, pool) is person
    # an unknown name falls through to the type
    found = ps.resolve_schema({"schema": "nope", "type": "session"}, pool)
    assert found is not None and found.entity == "Session"
    coding = ps.resolve_schema({"type": "coding_session"}, pool)
    assert coding is not None and coding.entity == "CodingSession"
    assert ps.resolve_schema({"type": "codex_session"}, pool) is None
    assert ps.resolve_schema({"type": "Person"}, pool) is person
    assert ps.normalize_note_type("Memory Service") == "memory_service"
    assert ps.normalize_note_type("CodingSession") == "coding_session"


def test_validate_messages_and_modes() -> None:
    schema = ps.parse_schema(
        {
            "entity": "Person",
            "schema": {"name": "string", "works_at": "Organization", "genre?(enum)": ["a", "b"]},
            "settings": {"frontmatter": {"project": "string", "kind?(enum)": ["x"]}},
        }
    )
    result = ps.validate(
        "p", schema, [("genre", "z"), ("hobby", "chess")], [("knows", "Bob")], {"kind": "y"}
    )
    assert result.passed
    assert result.warnings == (
        "Missing required field: name (expected [name] observation)",
        "Missing required field: works_at (no 'works_at [[...]]' relation found)",
        "Field 'genre' has invalid value(s): z (allowed: a, b)",
        "Missing required frontmatter key: project",
        "Frontmatter key 'kind' has invalid value: y (allowed: x)",
    )
    assert dict(result.unmatched_observations) == {"hobby": 1}
    assert result.unmatched_relations == ("knows",)
    statuses = {r.field.name: r.status for r in result.field_results}
    assert statuses == {
        "name": "missing",
        "works_at": "missing",
        "genre": "enum_mismatch",
        "project": "missing",
        "kind": "enum_mismatch",
    }
    strict = ps.parse_schema(
        {"entity": "P", "schema": {"name": "string"}, "settings": {"validation": "strict"}}
    )
    result = ps.validate("p", strict, [], [])
    assert not result.passed and result.errors and not result.warnings
    ok = ps.validate("p", strict, [("name", "Ada")], [])
    assert ok.passed and ok.field_results[0].values == ("Ada",)
