"""Lint rules AW001..AW019 for aiwiki session pages, driven by the schema page.

| code  | severity | finding |
|-------|----------|---------|
| AW001 | error    | frontmatter missing, unclosed or not a YAML mapping |
| AW002 | error    | a required key is missing (also ``schema_version``) |
| AW003 | error    | wrong type, bad date or a value not in its enum |
| AW004 | error    | ``schema_id`` is not ``session`` or ``schema_version`` is unknown |
| AW005 | error    | known sections out of the schema's order |
| AW006 | warning  | a level-2 heading the schema does not name |
| AW007 | error    | a section appears twice |
| AW008 | error    | no section at all |
| AW009 | error    | more lines than the hard cap |
| AW010 | info     | more lines than the soft target |
| AW011 | error    | a Files touched entry is not a citation |
| AW012 | warning  | a citation without ``@sha7`` (fixable) |
| AW013 | error    | filename does not follow the schema's pattern |
| AW014 | error    | ``date_end`` before ``date_start`` |
| AW015 | error    | checkpoint heading not ``### <Event> at <ISO timestamp>`` |
| AW016 | warning  | checkpoints not in time order |
| AW017 | warning  | ``Status: consumed`` under an ``(unconsumed)`` header |
| AW018 | info     | a v1 page: migrate it |
| AW019 | warning  | ``status`` and ``date_end`` disagree |

Missing things are reported on line 1 (the frontmatter fence); whole-file
findings (AW008, AW010, AW013) have no line, AW009 points at the first line
over the cap.
"""

from __future__ import annotations

import datetime as dt
import posixpath
import re
from typing import Any

from ..diagnostics import Diagnostic, Severity
from ..document import Document
from ..errors import SessionKitError
from ._aiwiki_parse import (
    CHECKPOINT_HEADING,
    CHECKPOINTS,
    DIRECTIVE_HEADER,
    Layout,
    parse_citation_lenient,
    scan,
)
from ._aiwiki_schema import Schema, builtin_schema

__all__ = ["KNOWN_VERSIONS", "lint_page"]

KNOWN_VERSIONS = (1, 2)
_THEMATIC_BREAK = re.compile(r"^(?:(?:-[ \t]*){3,}|(?:\*[ \t]*){3,}|(?:_[ \t]*){3,})$")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_STATUS_CONSUMED = re.compile(r"^\s*[-*+][ \t]+Status:[ \t]*consumed\b", re.IGNORECASE)


def parse_date(value: Any) -> dt.date | None:
    """An ISO date (``YYYY-MM-DD``, or the date part of an ISO timestamp), else None."""
    if not isinstance(value, str):
        return None
    text = value.strip()
    try:
        if _DATE.match(text):
            return dt.date.fromisoformat(text)
        if len(text) > 10 and text[10] in "T " and _DATE.match(text[:10]):
            return dt.datetime.fromisoformat(text).date()
    except ValueError:
        return None
    return None


def parse_timestamp(value: str) -> dt.datetime | None:
    """An ISO-8601 timestamp as an aware datetime (naive ones taken as UTC), else None."""
    try:
        stamp = dt.datetime.fromisoformat(value)
    except ValueError:
        return None
    if stamp.tzinfo is None:
        stamp = stamp.replace(tzinfo=dt.UTC)
    return stamp


class _Linter:
    def __init__(self, doc: Document, schema: Schema, version: int) -> None:
        self.doc = doc
        self.schema = schema
        self.version = version
        self.found: list[Diagnostic] = []

    def add(
        self, code: str, severity: Severity, line: int | None, message: str, fixable: bool = False
    ) -> None:
        self.found.append(
            Diagnostic(
                code=code,
                severity=severity,
                line=line,
                message=message,
                path=self.doc.path,
                fixable=fixable,
            )
        )

    def error(self, code: str, line: int | None, message: str) -> None:
        self.add(code, Severity.ERROR, line, message)

    # -- frontmatter ---------------------------------------------------------
    def frontmatter(self) -> dict[str, Any] | None:
        doc = self.doc
        if doc.problem is not None:
            self.error("AW001", doc.problem.line, doc.problem.message)
            return None
        if not doc.has_frontmatter:
            self.error("AW001", 1, "no frontmatter: the page must start with a '---' fenced block")
            return None
        try:
            return doc.meta
        except SessionKitError as exc:
            self.error("AW001", exc.line, exc.message)
            return None

    def keys(self, meta: dict[str, Any]) -> None:
        doc = self.doc
        for rule in self.schema.keys:
            line = doc.key_line(rule.name)
            if rule.name not in meta:
                if not rule.optional:
                    self.error("AW002", 1, f"required key {rule.name!r} is missing")
                continue
            value = meta[rule.name]
            if value is None:
                if not rule.optional:
                    self.error("AW003", line, f"{rule.name!r} must have a value")
                continue
            if rule.name == "schema_id":
                if value != (rule.equals if rule.equals is not None else "session"):
                    self.error(
                        "AW004", line, f"schema_id is {value!r}; a session page has 'session'"
                    )
                continue
            if rule.type == "integer":
                if isinstance(value, bool) or not isinstance(value, int):
                    self.error("AW003", line, f"{rule.name!r} must be an integer, not {value!r}")
                    continue
                if rule.name == "schema_version" and value not in KNOWN_VERSIONS:
                    self.error(
                        "AW004",
                        line,
                        f"unknown schema_version {value}; known versions: 1, 2",
                    )
                    continue
            elif rule.type == "string":
                if not isinstance(value, str):
                    self.error("AW003", line, f"{rule.name!r} must be a string, not {value!r}")
                    continue
            elif rule.type == "enum":
                if not isinstance(value, str) or value not in rule.values:
                    allowed = ", ".join(rule.values)
                    self.error(
                        "AW003", line, f"{rule.name!r} is {value!r}; allowed values: {allowed}"
                    )
                    continue
            elif rule.type == "date" and parse_date(value) is None:
                self.error("AW003", line, f"{rule.name!r} is {value!r}, not an ISO date YYYY-MM-DD")
                continue
            if rule.equals is not None and value != rule.equals:
                self.error("AW003", line, f"{rule.name!r} must be {rule.equals!r}, not {value!r}")

    def dates(self, meta: dict[str, Any]) -> None:
        doc = self.doc
        start, end = parse_date(meta.get("date_start")), parse_date(meta.get("date_end"))
        if start and end and end < start:
            self.error(
                "AW014",
                doc.key_line("date_end"),
                f"date_end {meta['date_end']} is before date_start {meta['date_start']}",
            )
        status = meta.get("status")
        has_end = meta.get("date_end") is not None
        if status == "active" and has_end:
            self.add(
                "AW019",
                Severity.WARNING,
                doc.key_line("date_end"),
                "status is 'active' but date_end is set: set status to done, or clear date_end",
            )
        elif status == "done" and not has_end:
            self.add(
                "AW019",
                Severity.WARNING,
                doc.key_line("status"),
                "status is 'done' but date_end is not set",
            )

    def filename(self, meta: dict[str, Any]) -> None:
        doc, pattern = self.doc, self.schema.filename_pattern
        if not doc.path or not pattern:
            return
        date = meta.get("date_start")
        if parse_date(date) is None:
            return
        sid = meta.get("session_id")
        values: dict[str, str | None] = {
            "date": str(date),
            "date_start": str(date),
            "session_id_short": str(sid)[:7] if isinstance(sid, str) and sid else None,
        }
        regex = ""
        literal: str | None = ""  # the name itself when every placeholder has a value
        for part in re.split(r"(\{[a-z_]+\})", pattern):
            if part.startswith("{") and part.endswith("}"):
                value = values.get(part[1:-1])
                regex += re.escape(value) if value else r"[^/\\]+"
                literal = literal + value if literal is not None and value else None
            else:
                regex += re.escape(part)
                literal = None if literal is None else literal + part
        name = posixpath.basename(doc.path.replace("\\", "/"))
        # an all-literal pattern matches only itself: skip compiling a regex per page
        matches = name == literal if literal is not None else re.fullmatch(regex, name)
        if not matches:
            expected = pattern
            for key, value in values.items():
                if value:
                    expected = expected.replace("{" + key + "}", value)
            self.error("AW013", None, f"filename {name!r} does not match {expected!r}")

    # -- body ----------------------------------------------------------------
    def sections(self) -> None:
        doc, schema = self.doc, self.schema
        sections = doc.sections
        if not sections:
            self.error("AW008", None, "the page has no '## ' section; add at least one")
            return
        seen: set[str] = set()
        last = -1
        last_title = ""
        for sec in sections:
            line = sec.start + 1
            if sec.title in seen:
                self.error("AW007", line, f"section '## {sec.title}' appears more than once")
                continue
            seen.add(sec.title)
            if sec.title not in schema.sections:
                self.add(
                    "AW006",
                    Severity.WARNING,
                    line,
                    f"heading '## {sec.title}' is not a section of the schema",
                )
                continue
            index = schema.sections.index(sec.title)
            if schema.strict_order and index < last:
                first = schema.sections[0]
                hint = f"; '## {first}' must come first" if sec.title == first else ""
                self.error(
                    "AW005",
                    line,
                    f"section '## {sec.title}' is out of order: it belongs before "
                    f"'## {last_title}'{hint}",
                )
                continue
            last, last_title = index, sec.title
        for title in schema.required_sections:
            if title not in seen:
                self.error("AW008", None, f"required section '## {title}' is missing")

    def size(self) -> None:
        count = len(self.doc.lines)
        cap, soft = self.schema.hard_cap, self.schema.soft_target
        if cap is not None and count > cap:
            self.error(
                "AW009",
                cap + 1,
                f"{count} lines, over the hard cap of {cap}: consolidate the page (/wrap)",
            )
        elif soft is not None and count > soft[1]:
            self.add(
                "AW010",
                Severity.INFO,
                None,
                f"{count} lines, over the soft target of {soft[0]}-{soft[1]}",
            )

    def files_touched(self, layout: Layout) -> None:
        title = "Files touched"
        if title not in layout.known:
            return
        for item in layout.items.get(title, ()):
            c = parse_citation_lenient(item.text)
            if c is None:
                self.error(
                    "AW011",
                    item.start + 1,
                    "Files touched entry is not a citation (path, path:line or "
                    "path:start-end, with @sha7)",
                )
            elif not c.sha:
                self.add(
                    "AW012",
                    Severity.WARNING,
                    item.start + 1,
                    f"citation {c.ref!r} has no @sha7 (lint --fix fills it from git)",
                    fixable=True,
                )
        for line in layout.loose.get(title, ()):
            text = self.doc.line_text(line).strip()
            if text and not _THEMATIC_BREAK.match(text):
                self.error("AW011", line + 1, "Files touched holds a line that is not a citation")

    def checkpoints(self, layout: Layout) -> None:
        doc = self.doc
        sec = layout.known.get(CHECKPOINTS)
        if sec is None:
            return
        for line in layout.bad_checkpoint_headings:
            self.error(
                "AW015",
                line + 1,
                "checkpoint heading must be '### <Event> at <ISO-8601 timestamp>'",
            )
        previous: dt.datetime | None = None
        for span in layout.checkpoints:
            title = next(h.title for h in doc.headings if h.line == span.heading)
            m = CHECKPOINT_HEADING.match(title)
            assert m is not None
            stamp = parse_timestamp(m.group("at"))
            if stamp is None:
                self.error(
                    "AW015", span.heading + 1, f"checkpoint time {m.group('at')!r} is not valid"
                )
            else:
                if previous is not None and stamp < previous:
                    self.add(
                        "AW016",
                        Severity.WARNING,
                        span.heading + 1,
                        "checkpoint is earlier than the one before it (the log is chronological)",
                    )
                previous = stamp if previous is None else max(previous, stamp)
            for d in span.directives:
                header = DIRECTIVE_HEADER.match(doc.line_text(d.header))
                if header is None or not header.group("un"):
                    continue
                for item in d.items:
                    if _STATUS_CONSUMED.match(doc.line_text(item.start)):
                        self.add(
                            "AW017",
                            Severity.WARNING,
                            item.start + 1,
                            "'Status: consumed' under an '(unconsumed)' header: flip the header "
                            "to '(consumed at <ISO>)' instead",
                        )

    def run(self) -> list[Diagnostic]:
        meta = self.frontmatter()
        if meta is not None:
            self.keys(meta)
            self.dates(meta)
            self.filename(meta)
            if meta.get("schema_version") == 1 and self.version == 1:
                self.add(
                    "AW018",
                    Severity.INFO,
                    self.doc.key_line("schema_version"),
                    "schema v1 page: migrate it to v2 (sessionkit migrate)",
                )
        try:
            _, layout = scan(self.doc)
        except Exception:  # pragma: no cover - scan is total; never let lint raise
            layout = None
        self.sections()
        self.size()
        if layout is not None:
            self.files_touched(layout)
            self.checkpoints(layout)
        self.found.sort(key=lambda d: (d.line if d.line is not None else 0, d.code))
        return self.found


def page_version(doc: Document) -> int | None:
    """The page's ``schema_version`` when it is a known one, else None."""
    try:
        version = doc.meta.get("schema_version")
    except SessionKitError:
        return None
    if isinstance(version, int) and not isinstance(version, bool) and version in KNOWN_VERSIONS:
        return version
    return None


def lint_page(doc: Document, schema: Schema | None = None, version: int = 2) -> list[Diagnostic]:
    """Lint ``doc``; never raises.

    The rules are those of the page's own ``schema_version`` (v1 rules for a
    v1 page); ``schema`` overrides the built-in schema of that version when
    it describes it.
    """
    declared = page_version(doc) or version
    if schema is None or schema.version != declared:
        schema = builtin_schema(declared)
    return _Linter(doc, schema, declared).run()
