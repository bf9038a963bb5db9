"""The aiwiki session schema as data.

A schema page is Markdown whose YAML frontmatter lists the required keys and
their types, the sections and their order, the line caps and the filename
pattern.  The package ships the v1 and v2 pages; a wiki's own
``aiwiki/schemas/session.md`` overrides the built-in page of its version.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from functools import cache

from .._plain import Frozen, _rebuild
from ..errors import FormatError, ParseError, SessionKitError

TYPE_CHECKING = False  # (typing is not imported at run time: lint's start-up pays for it)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["KeyRule", "Schema", "builtin_schema", "load_schema", "schema_for_root"]

_TYPES = frozenset({"string", "integer", "enum", "date"})


class KeyRule(Frozen):
    """What the schema asks of one frontmatter key (a frozen value).

    Attributes:
        name: the key.
        type: ``string``, ``integer``, ``enum`` or ``date``.
        values: allowed values of an enum.
        equals: the one value allowed, if the schema fixes it.
        optional: the key may be absent or null.
    """

    # (the fields in their order: repr and equality take them so)
    __slots__ = ("name", "type", "values", "equals", "optional")  # noqa: RUF023
    name: str
    type: str
    values: tuple[str, ...]
    equals: Any
    optional: bool

    def __init__(
        self,
        *,
        name: str,
        type: str,
        values: tuple[str, ...] = (),
        equals: Any = None,
        optional: bool = False,
    ) -> None:
        self._set(name=name, type=type, values=values, equals=equals, optional=optional)


class Schema(Frozen):
    """An aiwiki page schema (read from a schema page's frontmatter; a frozen value:
    :meth:`~sessionkit._plain.Frozen.replace` makes a changed copy).

    Attributes:
        schema_id: the page kind it describes (``session``).
        version: ``schema_version`` of the pages it describes.
        keys: the frontmatter keys, in the schema's order.
        sections: level-2 section titles (without ``## ``), in order.
        required_sections: titles that must be present.
        strict_order: known sections must follow :attr:`sections`' order.
        hard_cap: maximum number of lines.
        soft_target: (low, high) number of lines a page should have.
        filename_pattern: e.g. ``{date}-{session_id_short}.md``.
        source: where the schema was read from (``builtin:v2`` or a path).
    """

    # (the fields in their order: repr and equality take them so)
    __slots__ = (  # noqa: RUF023
        "schema_id",
        "version",
        "keys",
        "sections",
        "required_sections",
        "strict_order",
        "hard_cap",
        "soft_target",
        "filename_pattern",
        "source",
    )
    schema_id: str
    version: int
    keys: tuple[KeyRule, ...]
    sections: tuple[str, ...]
    required_sections: tuple[str, ...]
    strict_order: bool
    hard_cap: int | None
    soft_target: tuple[int, int] | None
    filename_pattern: str | None
    source: str

    def __init__(
        self,
        *,
        schema_id: str,
        version: int,
        keys: tuple[KeyRule, ...],
        sections: tuple[str, ...],
        required_sections: tuple[str, ...] = (),
        strict_order: bool = True,
        hard_cap: int | None = None,
        soft_target: tuple[int, int] | None = None,
        filename_pattern: str | None = None,
        source: str = "",
    ) -> None:
        self._set(
            schema_id=schema_id,
            version=version,
            keys=keys,
            sections=sections,
            required_sections=required_sections,
            strict_order=strict_order,
            hard_cap=hard_cap,
            soft_target=soft_target,
            filename_pattern=filename_pattern,
            source=source,
        )

    def __reduce__(self) -> tuple[Any, ...]:
        return _unpickled, (self._values(),)

    def key(self, name: str) -> KeyRule | None:
        """The rule for frontmatter key ``name``, if the schema has one."""
        for rule in self.keys:
            if rule.name == name:
                return rule
        return None


#: the schemas this process has unpickled, by their values (see :func:`_unpickled`)
_UNPICKLED: dict[tuple[Any, ...], Schema] = {}


def _unpickled(values: tuple[Any, ...]) -> Schema:
    """A pickled schema read back: the one this process already read back with these
    values, if any."""
    try:
        known = _UNPICKLED.get(values)
    except TypeError:  # (a value that cannot be hashed: a new schema each time)
        known = None
        keep = False
    else:
        keep = len(_UNPICKLED) < 64
    if known is None:
        new: Any = _rebuild(Schema, values)
        known = new
        if keep:
            _UNPICKLED[values] = new
    return known


def _title(entry: Any, source: str, line: int | None = None) -> str:
    if not isinstance(entry, str):
        raise FormatError(f"schema section entry {entry!r} is not a string", path=source, line=line)
    text = entry.strip()
    if text.startswith("## "):
        text = text[3:].strip()
    return text


def _int(meta: dict[str, Any], key: str, source: str, line: int | None = None) -> int | None:
    value = meta.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise FormatError(f"schema key {key!r} must be an integer", path=source, line=line)
    return value


def _from_meta(
    meta: dict[str, Any], source: str, line_of: Callable[[str], int | None] | None = None
) -> Schema:
    def at(key: str) -> int | None:
        """The line of top-level key ``key`` in the schema page (for errors)."""
        return line_of(key) if line_of is not None else None

    schema_id = meta.get("schema_id")
    if not isinstance(schema_id, str):
        raise FormatError("schema page has no string schema_id", path=source, line=at("schema_id"))
    version = _int(meta, "schema_version", source, at("schema_version"))
    if version is None:
        raise FormatError(
            "schema page has no schema_version", path=source, line=at("schema_version")
        )
    raw_keys = meta.get("required_frontmatter") or {}
    if not isinstance(raw_keys, dict):
        raise FormatError(
            "required_frontmatter must be a mapping", path=source, line=at("required_frontmatter")
        )
    keys: list[KeyRule] = []
    for name, spec in raw_keys.items():
        problem = None
        if not isinstance(spec, dict):
            problem = f"rule for key {name!r} must be a mapping"
        elif (kind := spec.get("type", "string")) not in _TYPES:
            problem = f"key {name!r} has unknown type {kind!r}"
        elif not isinstance(values := spec.get("values") or [], list):
            problem = f"values of key {name!r} must be a list"
        if problem:
            raise FormatError(problem, path=source, line=at("required_frontmatter"))
        keys.append(
            KeyRule(
                name=str(name),
                type=str(kind),
                values=tuple(str(v) for v in values),
                equals=spec.get("equals"),
                optional=bool(spec.get("optional", False)),
            )
        )
    sections_raw = meta.get("optional_sections") or []
    required_raw = meta.get("required_sections") or []
    if not isinstance(sections_raw, list) or not isinstance(required_raw, list):
        bad = "optional_sections" if not isinstance(sections_raw, list) else "required_sections"
        raise FormatError(
            "optional_sections and required_sections must be lists", path=source, line=at(bad)
        )
    required = tuple(_title(x, source, at("required_sections")) for x in required_raw)
    sections = list(required)
    for entry in sections_raw:
        title = _title(entry, source, at("optional_sections"))
        if title not in sections:
            sections.append(title)
    order = meta.get("section_order", "strict")
    if isinstance(order, list):
        # an explicit order list wins over the listing order
        line = at("section_order")
        sections = [_title(x, source, line) for x in order] + [
            s for s in sections if s not in {_title(x, source, line) for x in order}
        ]
        order = "strict"
    soft = meta.get("soft_target_lines")
    soft_target: tuple[int, int] | None = None
    if soft is not None:
        if (
            not isinstance(soft, list)
            or len(soft) != 2
            or not all(isinstance(x, int) and not isinstance(x, bool) for x in soft)
        ):
            raise FormatError(
                "soft_target_lines must be [low, high]", path=source, line=at("soft_target_lines")
            )
        soft_target = (soft[0], soft[1])
    pattern = meta.get("filename_pattern")
    return Schema(
        schema_id=schema_id,
        version=version,
        keys=tuple(keys),
        sections=tuple(sections),
        required_sections=required,
        strict_order=order == "strict",
        hard_cap=_int(meta, "hard_cap_lines", source, at("hard_cap_lines")),
        soft_target=soft_target,
        filename_pattern=pattern if isinstance(pattern, str) else None,
        source=source,
    )


def load_schema(text_or_path: str | os.PathLike[str], *, source: str | None = None) -> Schema:
    """Read a schema page (its text, or the path of a file holding it).

    A ``str`` containing a line break is taken as the page's text; any other
    ``str`` or path-like as a file path.

    Raises:
        ParseError: the page's frontmatter is unusable (with line).
        FormatError: the frontmatter is not a schema (with the reason and the
            line of the offending key).
    """
    from ..document import parse

    if isinstance(text_or_path, str) and "\n" in text_or_path:
        text = text_or_path
        where = source or "<schema>"
    else:
        file = os.fspath(text_or_path)  # (no pathlib: lint's start-up would pay for it)
        where = source or file
        try:
            with open(file, encoding="utf-8") as handle:
                text = handle.read()
        except (OSError, UnicodeDecodeError) as exc:
            raise ParseError(f"cannot read schema page: {exc}", path=where) from None
    doc = parse(text, where)
    meta = _shipped_meta(doc) if doc.has_frontmatter else None
    if meta is None:
        try:
            meta = doc.meta
        except SessionKitError as exc:
            raise exc.with_path(where) from None
    if not doc.has_frontmatter:
        raise FormatError("schema page has no frontmatter", path=where, line=1)
    return _from_meta(meta, where, lambda key: doc.key_line(key) or 1)


def _shipped_meta(doc: Any) -> dict[str, Any] | None:
    """The frontmatter of a shipped schema page (:data:`_SHIPPED`) when ``doc``'s is its
    very text, else ``None``."""
    from ..document import parse

    text = doc.frontmatter_text.replace("\r\n", "\n")
    for version, meta in _SHIPPED.items():
        try:
            with open(_shipped_page(version), encoding="utf-8") as page:
                shipped = page.read()
        except OSError:  # (not installed as files: the YAML reads it)
            return None
        if parse(shipped).frontmatter_text == text:
            return meta
    return None


def _shipped_page(version: int) -> str:
    """The path of the schema page shipped for ``version``."""
    return os.path.join(os.path.dirname(__file__), "schemas", f"aiwiki-session-v{version}.md")


#: the frontmatter of the schema pages shipped with sessionkit
#: (``sessionkit/adapters/schemas/aiwiki-session-v1.md`` and ``-v2.md``) as their
#: YAML reads, kept here so that lint reads no YAML for them;
#: ``tests/adapters/test_aiwiki_schema.py`` holds it to the pages themselves
_V1: dict[str, Any] = {
    "schema_id": "session",
    "schema_version": 1,
    "applies_to": "aiwiki/sessions/**/*.md",
    "filename_pattern": "{date}-{slug}.md",
    "hard_cap_lines": 200,
    "soft_target_lines": [40, 150],
    "required_frontmatter": {
        "schema_id": {"type": "string", "equals": "session"},
        "schema_version": {"type": "integer"},
        "status": {"type": "enum", "values": ["active", "done", "abandoned"]},
        "date_start": {"type": "date"},
        "date_end": {"type": "date", "optional": True},
        "focus": {"type": "string"},
        "last_commit": {"type": "string", "optional": True},
    },
    "required_sections": [],
    "optional_sections": [
        "## Files touched",
        "## Decisions made",
        "## Gotchas surfaced",
        "## Open questions",
        "## Next steps",
    ],
    "section_order": "strict",
    "citation_rule": "required-in-files-touched-when-present",
    "maintained_by": "wrap",
}
_KEYS_V1: dict[str, Any] = _V1["required_frontmatter"]
_SHIPPED: dict[int, dict[str, Any]] = {
    1: _V1,
    2: {
        **_V1,
        "schema_version": 2,
        "filename_pattern": "{date}-{session_id_short}.md",
        "hard_cap_lines": 400,
        "soft_target_lines": [40, 200],
        "required_frontmatter": {
            **{k: v for k, v in _KEYS_V1.items() if k != "last_commit"},
            "session_id": {"type": "string", "optional": True},
            "last_commit": _KEYS_V1["last_commit"],
        },
        "optional_sections": ["## Checkpoints", *_V1["optional_sections"]],
        "maintained_by": "lazy-on-first-event",
    },
}


@cache
def builtin_schema(version: int) -> Schema:
    """The schema page shipped with sessionkit for ``version`` (1 or 2).

    Its frontmatter is kept as data (:data:`_SHIPPED`): the schema equals
    ``load_schema(page_text, source=f"builtin:v{version}")``.

    Raises:
        FormatError: no such built-in version.
    """
    if version not in (1, 2):
        raise FormatError(f"no built-in aiwiki session schema version {version}")
    return _from_meta(_SHIPPED[version], f"builtin:v{version}")


def schema_for_root(repo_root: str | os.PathLike[str], version: int) -> Schema:
    """The schema for pages of ``version`` in the wiki at ``repo_root``.

    The wiki's own ``aiwiki/schemas/session.md`` is used when it exists and
    describes that version; otherwise the built-in page.
    """
    own = os.path.join(repo_root, "aiwiki", "schemas", "session.md")
    if os.path.isfile(own):
        schema = load_schema(own)
        if schema.version == version and schema.schema_id == "session":
            return schema
    return builtin_schema(version)
