"""Linting Basic Memory notes: frontmatter Basic Memory would rewrite, fact sections'
lines it does not index, and Picoschema validation."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ...diagnostics import Diagnostic, Severity
from ...document import Document
from ...errors import FormatError, ParseError
from .. import picoschema
from .grammar import BMObservation, iter_facts
from .read import _FACT_SECTIONS, _as_text, _body_lines, _semantics_on, _title_of


class _LintFacts:
    """A note's facts as the lint needs them, holding no fact object: ``placed`` (a byte
    a line, 1 on a fact's line), the observations' categories (``note`` for none) and
    contents, the relations' types and targets (none when ``bm_parse_semantics`` is off)."""

    __slots__ = ("categories", "contents", "placed", "targets", "types")

    def __init__(self, doc: Document, meta: Mapping[str, Any]) -> None:
        self.placed = placed = bytearray(len(doc.lines))
        self.categories: list[str] = []
        self.contents: list[str] = []
        self.types: list[str] = []
        self.targets: list[str] = []
        if not _semantics_on(meta):
            return
        for fact in iter_facts(_body_lines(doc), doc.body_start):
            placed[fact.line] = 1
            if isinstance(fact, BMObservation):
                self.categories.append(fact.category or "note")
                self.contents.append(fact.content)
            else:
                self.types.append(fact.type)
                self.targets.append(fact.target)


def _lint(doc: Document, schemas: Sequence[picoschema.Schema]) -> list[Diagnostic]:
    path = doc.path
    out: list[Diagnostic] = []

    def add(code: str, sev: Severity, line: int | None, msg: str, fixable: bool = False) -> None:
        out.append(
            Diagnostic(code=code, severity=sev, line=line, message=msg, path=path, fixable=fixable)
        )

    try:
        meta = doc.meta
    except ParseError as exc:
        add(
            "BM001",
            Severity.ERROR,
            exc.line,
            f"{exc.message}; Basic Memory would index this note as plain Markdown "
            "without frontmatter",
        )
        return out
    if not doc.has_frontmatter:
        add("BM002", Severity.WARNING, 1, "no frontmatter: Basic Memory will add one on indexing")
    else:
        for code, key in (("BM002", "title"), ("BM003", "type"), ("BM004", "permalink")):
            if meta.get(key) in (None, ""):
                add(
                    code,
                    Severity.WARNING,
                    1,
                    f"frontmatter has no {key!r}: Basic Memory will add it and rewrite the file",
                    fixable=True,
                )
    fact_secs = [s for s in doc.sections if s.title in _FACT_SECTIONS]
    facts: _LintFacts | None = None
    if fact_secs:
        facts = _LintFacts(doc, meta)
        placed = facts.placed
        for sec in fact_secs:
            for i in range(sec.start + 1, sec.end):
                if not placed[i] and doc.lines[i].strip():
                    add(
                        "BM008",
                        Severity.WARNING,
                        i + 1,
                        f"this line of ## {sec.title} is neither an observation nor a "
                        "relation: Basic Memory does not index it (the model keeps it as "
                        "text of the section)",
                    )
    if meta.get("type") == "schema":
        try:
            picoschema.parse_schema(meta, path)
        except FormatError as exc:
            add("BM006", Severity.ERROR, 1, exc.message)
        return out
    try:
        schema = picoschema.resolve_schema(meta, [*schemas, *picoschema.builtin_schemas()])
    except FormatError as exc:
        add("BM006", Severity.ERROR, doc.key_line("schema") or 1, exc.message)
        return out
    if schema is None:
        return out
    if facts is None:
        facts = _LintFacts(doc, meta)
    title = _title_of(meta, doc.path)
    type_value = meta.get("type")
    result = picoschema.validate(
        title or "",
        schema,
        zip(facts.categories, facts.contents, strict=True),
        zip(facts.types, facts.targets, strict=True),
        {**meta, "type": "note" if type_value is None else _as_text(type_value), "title": title},
    )
    sev = Severity.ERROR if schema.validation == "strict" else Severity.WARNING
    keyed = {r.message: r for r in result.field_results if r.message}
    for msg in (*result.errors, *result.warnings):
        fr = keyed.get(msg)
        line = None
        if fr is not None and fr.frontmatter:
            line = doc.key_line(fr.field.name) or 1
        elif msg.startswith("Missing required frontmatter key"):
            line = 1
        elif msg.startswith("Frontmatter key '"):
            line = doc.key_line(msg.split("'")[1]) or 1
        add("BM005", sev, line, f"{schema.entity} schema: {msg}")
    return out
