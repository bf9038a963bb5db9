"""JSON for the model (what ``sessionkit show --json`` prints): :func:`to_dict`,
:func:`to_json`, :func:`write_json` / :func:`iter_json` (a big session a piece at a
time) and the strict inverse :func:`from_dict` / :func:`from_json`.

Keys are the :class:`~sessionkit.model.Session` attribute names, in order;
``origin`` is left out; enums are their values and tuples lists (the whole
shape: ``docs/model.md``, "JSON").  :func:`from_dict` converts nothing: a
wrong type or an unknown key is a :class:`~sessionkit.errors.ValidationError`
naming the JSON path of every bad value (``$.checkpoints[0].directives[1].state``).
cattrs is imported here and nowhere on the hook path.
"""

from __future__ import annotations

import enum
import functools
import json
import typing
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, TextIO

import attrs
import cattrs
from cattrs.errors import IterableValidationNote
from cattrs.gen import make_dict_structure_fn, make_dict_unstructure_fn, override

from .errors import ValidationError
from .model import (
    Block,
    Checkpoint,
    Citation,
    Directive,
    DirectiveState,
    ExtraSection,
    Link,
    LinkStyle,
    Observation,
    Session,
    Status,
)

__all__ = ["from_dict", "from_json", "iter_json", "to_dict", "to_json", "write_json"]

_MODEL_CLASSES = (Citation, Link, Observation, Directive, Checkpoint, ExtraSection, Block)


class _Invalid(ValueError):
    """A value of the wrong type; the message says what was expected."""


def _describe(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"boolean {'true' if value else 'false'}"
    if isinstance(value, int | float):
        return f"number {value!r}"
    if isinstance(value, str):
        shown = value if len(value) <= 40 else value[:37] + "..."
        return f"string {shown!r}"
    if isinstance(value, list | tuple):
        return "a list"
    if isinstance(value, Mapping):
        return "an object"
    return type(value).__name__


def _exactly(cls: type, expected: str) -> Callable[[Any, type], Any]:
    """A structure hook taking only a ``cls`` value (a bool is no int), converting nothing."""

    def structure(value: Any, _: type) -> Any:
        if not isinstance(value, cls) or (cls is int and isinstance(value, bool)):
            raise _Invalid(f"expected {expected}, got {_describe(value)}")
        return value

    return structure


def _json_value(value: Any) -> Any:
    """A deep copy of ``value`` with tuples as lists and mappings as dicts."""
    if isinstance(value, Mapping):
        return {str(k): _json_value(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_json_value(v) for v in value]
    return value


def _structure_extra(value: Any, _: type) -> dict[str, Any]:
    if not isinstance(value, Mapping):
        raise _Invalid(f"expected an object, got {_describe(value)}")
    for key in value:
        if not isinstance(key, str):
            raise _Invalid(f"expected string keys, got {_describe(key)}")
    return {k: _json_value(v) for k, v in value.items()}


def _enum_hook(cls: type[enum.Enum]) -> Callable[[Any, type], enum.Enum]:
    allowed = ", ".join(repr(m.value) for m in cls)

    def structure(value: Any, _: type) -> enum.Enum:
        if isinstance(value, str):
            for member in cls:
                if member.value == value:
                    return member
        raise _Invalid(f"expected one of {allowed}, got {_describe(value)}")

    return structure


def _is_homogeneous_tuple(tp: Any) -> bool:
    args = typing.get_args(tp)
    return typing.get_origin(tp) is tuple and len(args) == 2 and args[1] is Ellipsis


def _tuple_hook_factory(tp: Any, converter: cattrs.Converter) -> Callable[[Any, type], Any]:
    item_type = typing.get_args(tp)[0]
    structure_item = converter.get_structure_hook(item_type)

    def structure(value: Any, _: type) -> tuple[Any, ...]:
        if not isinstance(value, list | tuple):
            raise _Invalid(f"expected a list, got {_describe(value)}")
        out: list[Any] = []
        errors: list[Exception] = []
        for index, item in enumerate(value):
            try:
                out.append(structure_item(item, item_type))
            except Exception as exc:  # collected with their index, raised together below
                note = IterableValidationNote(f"index {index}", index, item_type)
                exc.__notes__ = [*getattr(exc, "__notes__", []), note]
                errors.append(exc)
        if errors:
            raise cattrs.IterableValidationError(f"while structuring {tp!r}", errors, tp)
        return tuple(out)

    return structure


@functools.cache
def _converter() -> cattrs.Converter:
    conv = cattrs.Converter(forbid_extra_keys=True, detailed_validation=True)
    for scalar, expected in ((str, "a string"), (int, "an integer"), (bool, "true or false")):
        conv.register_structure_hook(scalar, _exactly(scalar, expected))
    for enum_cls in (Status, DirectiveState, LinkStyle):
        # StrEnums are str subclasses: without this cattrs passes them through
        conv.register_unstructure_hook(enum_cls, lambda member: member.value)
        conv.register_structure_hook(enum_cls, _enum_hook(enum_cls))
    conv.register_structure_hook_factory(_is_homogeneous_tuple, _tuple_hook_factory)
    conv.register_unstructure_hook_factory(_is_homogeneous_tuple, _tuple_unstructure)
    gap = override(omit=True)  # (a directive's ``gap`` is layout, not a fact: not in JSON)
    conv.register_unstructure_hook(Directive, make_dict_unstructure_fn(Directive, conv, gap=gap))
    for cls in _MODEL_CLASSES:  # (Directive before Checkpoint, whose hook takes its hook)
        hook = make_dict_structure_fn(cls, conv, _cattrs_forbid_extra_keys=True)
        if cls is Directive:
            hook = make_dict_structure_fn(cls, conv, _cattrs_forbid_extra_keys=True, gap=gap)
        conv.register_structure_hook(cls, hook)
    conv.register_structure_hook(
        Session,
        make_dict_structure_fn(
            Session,
            conv,
            _cattrs_forbid_extra_keys=True,
            origin=override(omit=True),
            extra=override(struct_hook=_structure_extra),
        ),
    )
    conv.register_unstructure_hook(
        Session,
        make_dict_unstructure_fn(
            Session,
            conv,
            origin=override(omit=True),
            extra=override(unstruct_hook=_json_value),
        ),
    )
    return conv


def _tuple_unstructure(tp: Any, conv: cattrs.Converter) -> Callable[[Any], list[Any]]:
    unstructure_item = conv.get_unstructure_hook(typing.get_args(tp)[0])
    return lambda value: [unstructure_item(v) for v in value]


def _format_exception(exc: BaseException, tp: type | None) -> str:
    if isinstance(exc, _Invalid):
        return str(exc)
    if isinstance(exc, KeyError):
        return "required key missing"
    if isinstance(exc, cattrs.ForbiddenExtraKeysError):
        return f"unknown key(s): {', '.join(sorted(exc.extra_fields))}"
    if isinstance(exc, AttributeError | TypeError) and tp is not None:
        return "expected an object"
    return cattrs.v.format_exception(exc, tp)


def to_dict(session: Session) -> dict[str, Any]:
    """The session as a JSON-ready dict (see the module docs for its keys)."""
    result: dict[str, Any] = _converter().unstructure(session, Session)
    return result


def to_json(session: Session, indent: int | None = 2) -> str:
    """The session as JSON text: :func:`to_dict` dumped with ``indent``, non-ASCII
    characters as they are (not escaped)."""
    return json.dumps(to_dict(session), indent=indent, ensure_ascii=False)


def write_json(session: Session, out: TextIO, indent: int | None = 2) -> None:
    """Write :func:`to_json` ``(session, indent)`` and a line break to ``out``, a
    piece at a time (:func:`iter_json`): neither the JSON text of a big session
    nor a JSON object of each of its items is ever held whole."""
    pieces: list[str] = []
    size = 0
    for piece in iter_json(session, indent):
        pieces.append(piece)
        size += len(piece)
        if size >= 1 << 16:
            out.write("".join(pieces))
            pieces, size = [], 0
    pieces.append("\n")
    out.write("".join(pieces))


#: list items made JSON at once by :func:`iter_json`
_BATCH = 4096


def iter_json(session: Session, indent: int | None = 2) -> Iterator[str]:
    """:func:`to_json` ``(session, indent)`` in pieces whose concatenation is that text;
    a list field is made JSON a batch of items at a time, so a session of a million
    items costs a batch of them, not a dict of every one and its text."""
    nl = "" if indent is None else "\n" + " " * indent
    yield "{"
    for number, (name, kind, hook) in enumerate(_field_plan()):
        value = getattr(session, name)
        yield ("" if not number else ", " if indent is None else ",") + nl + json.dumps(name) + ": "
        if kind == "list":
            yield from _list_json(value, hook, indent, 1)
        elif kind == "lists":
            yield from _lists_json(value, hook, indent)
        else:
            # (no line break in a value's JSON but the indented layout's)
            yield json.dumps(hook(value), ensure_ascii=False, indent=indent).replace("\n", nl)
    yield "}" if indent is None else "\n}"


def _list_json(
    items: Sequence[Any], hook: Callable[[Any], Any], indent: int | None, level: int
) -> Iterator[str]:
    """A list value at nesting ``level``, as ``json.dumps`` writes it, a batch at a time."""
    if not items:
        yield "[]"
        return
    pad = "" if indent is None else "\n" + " " * (indent * level)
    yield "["
    for start in range(0, len(items), _BATCH):
        batch = json.dumps(
            [hook(v) for v in items[start : start + _BATCH]], ensure_ascii=False, indent=indent
        )
        sep = "" if not start else ", " if indent is None else ","
        # ("[a, b]" -> "a, b"; indented, "[\n  a,\n  b\n]" -> "\n  a,\n  b" moved to the level)
        yield sep + (batch[1:-1] if indent is None else batch[1:-2].replace("\n", pad))
    yield pad + "]"


def _lists_json(
    value: Mapping[str, Sequence[Any]], hook: Callable[[Any], Any], indent: int | None
) -> Iterator[str]:
    """A mapping of lists at nesting level 1 (``blocks``), as ``json.dumps`` writes it."""
    if not value:
        yield "{}"
        return
    pad = "" if indent is None else "\n" + " " * indent
    inner = "" if indent is None else pad + " " * indent
    comma = ", " if indent is None else ","
    yield "{"
    for number, (key, items) in enumerate(value.items()):
        yield (comma if number else "") + inner + json.dumps(key) + ": "
        yield from _list_json(items, hook, indent, 2)
    yield pad + "}"


@functools.cache
def _field_plan() -> tuple[tuple[str, str, Callable[[Any], Any]], ...]:
    """``(name, kind, hook)`` for each field, as :func:`to_dict` makes it JSON-ready: ``kind``
    is ``"list"`` or ``"lists"`` (a mapping of lists; ``hook`` for an item) or ``"value"``."""
    conv = _converter()
    hints = typing.get_type_hints(Session)
    plan: list[tuple[str, str, Callable[[Any], Any]]] = []
    for field in attrs.fields(Session):
        tp = hints[field.name]
        if field.name == "origin":  # (omitted, as in the converter)
            continue
        if field.name == "extra":  # (its override in the converter)
            plan.append((field.name, "value", _json_value))
        elif _is_homogeneous_tuple(tp):
            plan.append((field.name, "list", conv.get_unstructure_hook(typing.get_args(tp)[0])))
        elif typing.get_origin(tp) is Mapping and _is_homogeneous_tuple(typing.get_args(tp)[1]):
            item = typing.get_args(typing.get_args(tp)[1])[0]
            plan.append((field.name, "lists", conv.get_unstructure_hook(item)))
        else:
            plan.append((field.name, "value", conv.get_unstructure_hook(tp)))
    return tuple(plan)


def from_dict(data: Mapping[str, Any]) -> Session:
    """Build a :class:`~sessionkit.model.Session` from the output of :func:`to_dict`;
    missing keys take the model's defaults.

    Raises:
        ValidationError: every problem, one per line, each ending with the
            JSON path of the bad value (``@ $.files_touched[2].start``).
    """
    if not isinstance(data, Mapping):
        raise ValidationError(f"expected a JSON object for a session, got {_describe(data)}")
    try:
        session: Session = _converter().structure(dict(data), Session)
    except (cattrs.ClassValidationError, cattrs.IterableValidationError) as exc:
        problems = cattrs.transform_error(exc, path="$", format_exception=_format_exception)
        raise ValidationError("invalid session: " + "; ".join(problems)) from None
    except (_Invalid, cattrs.ForbiddenExtraKeysError) as exc:  # pragma: no cover - defensive
        raise ValidationError(f"invalid session: {_format_exception(exc, Session)} @ $") from None
    return session


def from_json(text: str) -> Session:
    """Parse JSON text and build a session with :func:`from_dict`.

    Raises:
        ValidationError: the text is not JSON, or not a valid session.
    """
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValidationError(f"not JSON: {exc.msg}", line=exc.lineno) from None
    return from_dict(data)
