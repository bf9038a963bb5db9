"""Picoschema: Basic Memory's schema notes, parsed as data and used to validate notes.

A schema note is a Markdown note with ``type: schema`` whose frontmatter holds
``entity`` (the note type it describes), ``version`` (default 1), ``schema``
(a mapping of field declarations) and ``settings`` (``validation``: ``warn``,
``strict`` or ``error`` — an alias of strict; ``frontmatter``: declarations
for frontmatter keys).

A field declaration is ``name[?][(array|enum|object[, description])]: type[, description]``.
The scalar types are ``string integer number boolean any``; a capitalised
type names an entity, and such a field is satisfied by relations whose type is
the field name; every other field by observations whose category is the field
name.  Enum values are a YAML list.

Validation follows Basic Memory: a missing *required* field or a value outside
an enum is a problem — a warning in ``warn`` mode (the note still passes), an
error in ``strict`` mode.  Messages are worded as Basic Memory words them, e.g.
``Missing required field: name (expected [name] observation)``.

The Basic Memory plugin's ``Session`` schema ships with sessionkit
(:func:`builtin_schemas`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from functools import cache
from importlib import resources
from typing import Any, Literal

import attrs

from ..document import parse
from ..errors import FormatError
from .basic_memory.permalink import normalize_project_name

__all__ = [
    "FieldResult",
    "Schema",
    "SchemaField",
    "ValidationResult",
    "builtin_schemas",
    "load_schema_note",
    "normalize_note_type",
    "parse_fields",
    "parse_schema",
    "resolve_schema",
    "validate",
]

ValidationMode = Literal["warn", "strict"]
SCALAR_TYPES = frozenset({"string", "integer", "number", "boolean", "any"})
_MODIFIERS = frozenset({"array", "enum", "object"})


@attrs.frozen(kw_only=True)
class SchemaField:
    """One declared field.

    Attributes:
        name: the observation category, relation type or frontmatter key.
        type: ``string``, ``integer``, …, ``enum``, ``object`` or an entity name.
        required: declared without ``?``.
        is_array: declared with ``(array)``.
        is_enum: declared with ``(enum)``; ``enum_values`` are the allowed values.
        description: the text after the comma, if any.
        is_entity_ref: the type is capitalised (satisfied by relations).
        children: the fields of an ``(object)``.
    """

    name: str
    type: str
    required: bool = True
    is_array: bool = False
    is_enum: bool = False
    enum_values: tuple[str, ...] = ()
    description: str | None = None
    is_entity_ref: bool = False
    children: tuple[SchemaField, ...] = ()


@attrs.frozen(kw_only=True)
class Schema:
    """A parsed schema note (or an inline ``schema:`` mapping).

    Attributes:
        entity: the note type it describes (``Session``).
        version: schema version.
        fields: declarations for observations and relations.
        validation: ``warn`` or ``strict``.
        frontmatter_fields: declarations for frontmatter keys.
        title: the schema note's title, if read from a note.
        path: where it was read from, if known.
    """

    entity: str
    version: int | str = 1
    fields: tuple[SchemaField, ...] = ()
    validation: ValidationMode = "warn"
    frontmatter_fields: tuple[SchemaField, ...] = ()
    title: str | None = None
    path: str | None = None


@attrs.frozen(kw_only=True)
class FieldResult:
    """How one field fared: ``status`` is ``present``, ``missing`` or ``enum_mismatch``."""

    field: SchemaField
    status: str
    values: tuple[str, ...] = ()
    message: str | None = None
    frontmatter: bool = False


@attrs.frozen(kw_only=True)
class ValidationResult:
    """The outcome of validating one note against one schema.

    ``passed`` is false only when there are errors (strict mode); warnings
    never fail a note.
    """

    identifier: str
    entity: str
    passed: bool
    field_results: tuple[FieldResult, ...] = ()
    unmatched_observations: Mapping[str, int] = attrs.field(factory=dict)
    unmatched_relations: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    errors: tuple[str, ...] = ()


def normalize_note_type(name: str) -> str:
    """The identity Basic Memory compares note types and entities by (snake case)."""
    s = re.sub(r"[\s\-\\.]", "_", name.strip())
    return re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", s).lower()


def _validation_mode(value: object, path: str | None) -> ValidationMode:
    if value in ("strict", "error"):
        return "strict"
    if value == "warn":
        return "warn"
    raise FormatError(
        f"Invalid settings.validation value {value!r}; expected one of: "
        "'warn', 'strict', or 'error' (alias for 'strict')",
        path=path,
    )


def _split_modifier(key: str) -> tuple[str, str | None, str | None]:
    stripped = key.rstrip()
    if not stripped.endswith(")"):
        return key, None, None
    depth = 0
    opening = -1
    for k in range(len(stripped) - 1, -1, -1):
        c = stripped[k]
        if c == ")":
            depth += 1
        elif c == "(":
            depth -= 1
            if depth == 0:
                opening = k
                break
    if opening == -1:
        return key, None, None
    inside = stripped[opening + 1 : -1].strip()
    modifier, comma, description = inside.partition(",")
    modifier = modifier.strip()
    if modifier not in _MODIFIERS:
        return key, None, None
    return stripped[:opening].rstrip(), modifier, (description.strip() if comma else None) or None


def _enum_from_text(value: str) -> tuple[tuple[str, ...], str | None]:
    m = re.match(r"\[([^\]]+)\](?:\s*,\s*(.+))?", value)
    if m:
        items = tuple(item.strip() for item in m.group(1).split(","))
        return items, (m.group(2).strip() if m.group(2) else None)
    return (value.strip(),), None


def parse_fields(declarations: Mapping[str, Any]) -> tuple[SchemaField, ...]:
    """Parse a Picoschema mapping (``{"name?(array)": "string, why"}``) into fields."""
    fields: list[SchemaField] = []
    for raw_key, value in declarations.items():
        key, modifier, key_description = _split_modifier(str(raw_key))
        required = True
        if key.endswith("?"):
            required = False
            key = key[:-1]
        name = key.strip()
        if modifier == "enum":
            description = key_description
            if isinstance(value, list):
                values = tuple(str(v) for v in value)
            else:
                values, extra = _enum_from_text(str(value))
                description = description or extra
            fields.append(
                SchemaField(
                    name=name,
                    type="enum",
                    required=required,
                    is_enum=True,
                    enum_values=values,
                    description=description,
                )
            )
            continue
        if modifier == "object" or isinstance(value, dict):
            children = parse_fields(value) if isinstance(value, dict) else ()
            fields.append(
                SchemaField(
                    name=name,
                    type="object",
                    required=required,
                    description=key_description,
                    children=children,
                )
            )
            continue
        text = str(value)
        type_text, comma, value_description = text.partition(",")
        type_name = type_text.strip()
        fields.append(
            SchemaField(
                name=name,
                type=type_name,
                required=required,
                is_array=modifier == "array",
                description=key_description
                or ((value_description.strip() or None) if comma else None),
                is_entity_ref=type_name not in SCALAR_TYPES and type_name[:1].isupper(),
            )
        )
    return tuple(fields)


def parse_schema(meta: Mapping[str, Any], path: str | None = None) -> Schema:
    """Build a :class:`Schema` from a schema note's frontmatter.

    Raises:
        FormatError: no ``entity``, no ``schema`` mapping, or a bad ``settings.validation``.
    """
    entity = meta.get("entity")
    if not entity:
        raise FormatError("Schema note missing required 'entity' field in frontmatter", path=path)
    declarations = meta.get("schema")
    if not declarations or not isinstance(declarations, dict):
        raise FormatError("Schema note missing required 'schema' dict in frontmatter", path=path)
    version = meta.get("version", 1)
    title = meta.get("title")
    return Schema(
        entity=str(entity),
        version=version if isinstance(version, (int, str)) else str(version),
        fields=parse_fields(declarations),
        **_settings(meta, path),
        title=None if title is None else str(title),
        path=path,
    )


def _settings(meta: Mapping[str, Any], path: str | None) -> dict[str, Any]:
    """A schema's ``validation`` and ``frontmatter_fields``, from its ``settings``."""
    settings = meta.get("settings")
    settings = settings if isinstance(settings, dict) else {}
    fm = settings.get("frontmatter")
    return {
        "validation": _validation_mode(settings.get("validation", "warn"), path),
        "frontmatter_fields": parse_fields(fm) if isinstance(fm, dict) else (),
    }


def load_schema_note(text: str, path: str | None = None) -> Schema:
    """Parse a schema note's text.

    Raises:
        ParseError: unusable frontmatter.
        FormatError: not a schema note.
    """
    doc = parse(text, path)
    meta = doc.meta
    if meta.get("type") != "schema":
        raise FormatError("not a schema note (its type is not 'schema')", path=path, line=1)
    return parse_schema(meta, path)


#: the schema notes sessionkit ships (Basic Memory 0.24.1's plugins' ``Session`` and
#: ``CodingSession``), in ``sessionkit/adapters/schemas``
BUILTIN_NOTES = ("basic-memory-session.md", "basic-memory-coding-session.md")


@cache
def builtin_schemas() -> tuple[Schema, ...]:
    """The schemas sessionkit ships: Basic Memory 0.24.1's plugins' ``Session`` and
    ``CodingSession`` schemas (a project's own schema notes come first)."""
    folder = resources.files("sessionkit.adapters") / "schemas"
    return tuple(
        load_schema_note((folder / name).read_text(encoding="utf-8"), f"sessionkit:schemas/{name}")
        for name in BUILTIN_NOTES
    )


def resolve_schema(
    meta: Mapping[str, Any], schemas: Iterable[Schema] | None = None
) -> Schema | None:
    """The schema that applies to a note, found as Basic Memory finds it.

    1. an inline ``schema:`` mapping in the note;
    2. ``schema: Name`` — a schema whose entity matches ``Name`` (snake-case
       compared), else one whose title or slug matches; an unknown name falls
       through to 3;
    3. a schema whose entity matches the note's ``type``;
    4. none.

    ``schemas`` defaults to :func:`builtin_schemas`; pass a project's own
    schema notes first to override them.
    """
    pool = tuple(builtin_schemas() if schemas is None else schemas)
    value = meta.get("schema")
    if isinstance(value, dict):
        entity = str(meta.get("type", "unknown"))
        return Schema(entity=entity, fields=parse_fields(value), **_settings(meta, None))

    def by_entity(name: str) -> Schema | None:
        key = normalize_note_type(name)
        for schema in pool:
            if normalize_note_type(schema.entity) == key:
                return schema
        return None

    if isinstance(value, str):
        found = by_entity(value)
        if found is None:
            key = normalize_project_name(value)
            for schema in pool:
                if schema.title is not None and (
                    schema.title == value or normalize_project_name(schema.title) == key
                ):
                    found = schema
                    break
        if found is not None:
            return found
    note_type = meta.get("type")
    if isinstance(note_type, str) and note_type:
        return by_entity(note_type)
    return None


def _missing_message(f: SchemaField) -> str:
    kind = "required" if f.required else "optional"
    if f.is_entity_ref:
        return f"Missing {kind} field: {f.name} (no '{f.name} [[...]]' relation found)"
    return f"Missing {kind} field: {f.name} (expected [{f.name}] observation)"


def _check_field(
    f: SchemaField, by_category: Mapping[str, list[str]], by_type: Mapping[str, list[str]]
) -> FieldResult:
    if f.is_entity_ref:
        targets = by_type.get(f.name, [])
        if not targets:
            return FieldResult(
                field=f,
                status="missing",
                message=f"Missing relation: {f.name} (no '{f.name} [[...]]' relation found)",
            )
        return FieldResult(field=f, status="present", values=tuple(targets))
    values = by_category.get(f.name, [])
    if not values:
        return FieldResult(field=f, status="missing", message=_missing_message(f))
    if f.is_enum:
        invalid = [v for v in values if v not in f.enum_values]
        if invalid:
            return FieldResult(
                field=f,
                status="enum_mismatch",
                values=tuple(values),
                message=f"Field '{f.name}' has invalid value(s): {', '.join(invalid)} "
                f"(allowed: {', '.join(f.enum_values)})",
            )
    return FieldResult(field=f, status="present", values=tuple(values))


def _check_frontmatter(f: SchemaField, meta: Mapping[str, Any]) -> FieldResult:
    value = meta.get(f.name)
    if value is None:
        return FieldResult(
            field=f,
            status="missing",
            message=f"Missing frontmatter key: {f.name}",
            frontmatter=True,
        )
    if f.is_enum:
        text = str(value)
        if text not in f.enum_values:
            return FieldResult(
                field=f,
                status="enum_mismatch",
                values=(text,),
                message=f"Frontmatter key '{f.name}' has invalid value: {text} "
                f"(allowed: {', '.join(f.enum_values)})",
                frontmatter=True,
            )
        return FieldResult(field=f, status="present", values=(text,), frontmatter=True)
    values = tuple(str(v) for v in value) if isinstance(value, list) else (str(value),)
    return FieldResult(field=f, status="present", values=values, frontmatter=True)


def validate(
    identifier: str,
    schema: Schema,
    observations: Iterable[tuple[str, str]],
    relations: Iterable[tuple[str, str]],
    frontmatter: Mapping[str, Any] | None = None,
) -> ValidationResult:
    """Validate a note's facts against ``schema``, as Basic Memory does.

    Args:
        identifier: the note's title or permalink, for reports.
        schema: the schema (see :func:`resolve_schema`).
        observations: ``(category, content)`` pairs; an uncategorised
            observation has category ``note``, as in Basic Memory's index.
        relations: ``(relation type, target)`` pairs.
        frontmatter: the note's frontmatter, for ``settings.frontmatter``.
    """
    by_category: dict[str, list[str]] = {}
    for category, content in observations:
        by_category.setdefault(category, []).append(content)
    by_type: dict[str, list[str]] = {}
    for rel_type, target in relations:
        by_type.setdefault(rel_type, []).append(target)
    results: list[FieldResult] = []
    problems: list[str] = []
    matched_categories: set[str] = set()
    matched_types: set[str] = set()
    for f in schema.fields:
        result = _check_field(f, by_category, by_type)
        results.append(result)
        (matched_types if f.is_entity_ref else matched_categories).add(f.name)
        if result.status == "missing" and f.required:
            problems.append(_missing_message(f))
        elif result.status == "enum_mismatch":
            problems.append(result.message or f"Field '{f.name}' has invalid enum value")
    if frontmatter is not None and schema.frontmatter_fields:
        for f in schema.frontmatter_fields:
            result = _check_frontmatter(f, frontmatter)
            results.append(result)
            if result.status == "missing" and f.required:
                problems.append(f"Missing required frontmatter key: {f.name}")
            elif result.status == "enum_mismatch":
                problems.append(
                    result.message or f"Frontmatter key '{f.name}' has invalid enum value"
                )
    strict = schema.validation == "strict"
    return ValidationResult(
        identifier=identifier,
        entity=schema.entity,
        passed=not (strict and problems),
        field_results=tuple(results),
        unmatched_observations={
            c: len(v) for c, v in by_category.items() if c not in matched_categories
        },
        unmatched_relations=tuple(t for t in by_type if t not in matched_types),
        warnings=() if strict else tuple(problems),
        errors=tuple(problems) if strict else (),
    )
