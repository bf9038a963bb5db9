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
from collections.abc import Callable
from functools import cache, lru_cache
from typing import Any

import attrs

from .._yaml_fast import fast_mapping
from ..diagnostics import Diagnostic, Severity
from ..document import _ATX, _CODE_FENCE, Document
from ..errors import SessionKitError
from ._aiwiki_parse import (
    _QUICK_CODE_CITATION,
    CHECKPOINT_HEADING,
    CHECKPOINTS,
    DIRECTIVE_HEADER,
    PLACEHOLDER,
    citation_state,
    parse_citation_lenient,
    scan,
)
from ._aiwiki_schema import Schema, builtin_schema

__all__ = [
    "KNOWN_VERSIONS",
    "PageFacts",
    "facts_of",
    "lint_facts",
    "lint_page",
    "quick_facts",
]

KNOWN_VERSIONS = (1, 2)
_THEMATIC_BREAK = re.compile(r"^(?:(?:-[ \t]*){3,}|(?:\*[ \t]*){3,}|(?:_[ \t]*){3,})$")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_STATUS_CONSUMED = re.compile(r"^\s*[-*+][ \t]+Status:[ \t]*consumed\b", re.IGNORECASE)


def parse_date(value: Any) -> dt.date | None:
    """An ISO date (``YYYY-MM-DD``, or the date part of an ISO timestamp), else None."""
    if not isinstance(value, str):
        return None
    return _parse_date_text(value)


@lru_cache(maxsize=4096)  # dates repeat from page to page
def _parse_date_text(value: str) -> dt.date | None:
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


@attrs.define(eq=False)
class PageFacts:
    """What the rules look at, found once per page (by :func:`facts_of` or the quick scan).

    Line numbers are 0-based indices into the page's lines.

    Attributes:
        path: the page's path, for findings and the filename rule.
        meta: the frontmatter (``None`` when it is unusable: see ``problem``).
        problem: (line, message) of unusable frontmatter.
        key_line: the 1-based line of a top-level frontmatter key (asked only
            for a finding).
        sections: (title, heading line) of every level-2 section, in order.
        nlines: the number of lines.
        files: (first line, text) of each bullet of the first ``Files touched``.
        files_loose: (line, text) of lines there that belong to no bullet.
        bad_checkpoints: level-3 headings under ``Checkpoints`` that are not
            ``<Event> at <timestamp>``.
        checkpoints: (heading line, timestamp text) of the checkpoint entries.
        stale_status: first lines of ``Status: consumed`` bullets under
            ``(unconsumed)`` directive headers.
    """

    path: str | None
    meta: dict[str, Any] | None
    problem: tuple[int | None, str] | None
    key_line: Callable[[str], int | None]
    sections: list[tuple[str, int]]
    nlines: int
    files: list[tuple[int, str]]
    files_loose: list[tuple[int, str]]
    bad_checkpoints: list[int]
    checkpoints: list[tuple[int, str]]
    stale_status: list[int]


def facts_of(doc: Document) -> PageFacts:
    """The facts of a parsed page (the general path: every Markdown shape)."""
    meta: dict[str, Any] | None = None
    problem: tuple[int | None, str] | None = None
    if doc.problem is not None:
        problem = (doc.problem.line, doc.problem.message)
    elif not doc.has_frontmatter:
        problem = (1, "no frontmatter: the page must start with a '---' fenced block")
    else:
        try:
            meta = doc.meta
        except SessionKitError as exc:
            problem = (exc.line, exc.message)
    try:
        _, layout = scan(doc)
    except Exception:  # pragma: no cover - scan is total; never let lint raise
        layout = None
    files: list[tuple[int, str]] = []
    loose: list[tuple[int, str]] = []
    bad: list[int] = []
    checkpoints: list[tuple[int, str]] = []
    stale: list[int] = []
    if layout is not None:
        title = "Files touched"
        if title in layout.known:
            files = [(item.start, item.text) for item in layout.items.get(title, ())]
            loose = [(line, doc.line_text(line)) for line in layout.loose.get(title, ())]
        if CHECKPOINTS in layout.known:
            bad = list(layout.bad_checkpoint_headings)
            titles = {h.line: h.title for h in doc.headings}
            for span in layout.checkpoints:
                m = CHECKPOINT_HEADING.match(titles[span.heading])
                assert m is not None
                checkpoints.append((span.heading, m.group("at")))
                for d in span.directives:
                    header = DIRECTIVE_HEADER.match(doc.line_text(d.header))
                    if header is None or not header.group("un"):
                        continue
                    stale.extend(
                        item.start
                        for item in d.items
                        if _STATUS_CONSUMED.match(doc.line_text(item.start))
                    )
    return PageFacts(
        path=doc.path,
        meta=meta,
        problem=problem,
        key_line=doc.key_line,
        sections=[(s.title, s.start) for s in doc.sections],
        nlines=len(doc.lines),
        files=files,
        files_loose=loose,
        bad_checkpoints=bad,
        checkpoints=checkpoints,
        stale_status=stale,
    )


@cache
def _filename_parts(pattern: str) -> list[str]:
    return re.split(r"(\{[a-z_]+\})", pattern)


class _Linter:
    def __init__(self, facts: PageFacts, schema: Schema, version: int) -> None:
        self.facts = facts
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
                path=self.facts.path,
                fixable=fixable,
            )
        )

    def error(self, code: str, line: int | None, message: str) -> None:
        self.add(code, Severity.ERROR, line, message)

    # -- frontmatter ---------------------------------------------------------
    def keys(self, meta: dict[str, Any]) -> None:
        key_line = self.facts.key_line
        for rule in self.schema.keys:
            name = rule.name
            if name not in meta:
                if not rule.optional:
                    self.error("AW002", 1, f"required key {name!r} is missing")
                continue
            value = meta[name]
            if value is None:
                if not rule.optional:
                    self.error("AW003", key_line(name), f"{name!r} must have a value")
                continue
            if name == "schema_id":
                if value != (rule.equals if rule.equals is not None else "session"):
                    self.error(
                        "AW004",
                        key_line(name),
                        f"schema_id is {value!r}; a session page has 'session'",
                    )
                continue
            kind = rule.type
            if kind == "integer":
                if isinstance(value, bool) or not isinstance(value, int):
                    self.error(
                        "AW003", key_line(name), f"{name!r} must be an integer, not {value!r}"
                    )
                    continue
                if name == "schema_version" and value not in KNOWN_VERSIONS:
                    self.error(
                        "AW004",
                        key_line(name),
                        f"unknown schema_version {value}; known versions: 1, 2",
                    )
                    continue
            elif kind == "string":
                if not isinstance(value, str):
                    self.error("AW003", key_line(name), f"{name!r} must be a string, not {value!r}")
                    continue
            elif kind == "enum":
                if not isinstance(value, str) or value not in rule.values:
                    allowed = ", ".join(rule.values)
                    self.error(
                        "AW003",
                        key_line(name),
                        f"{name!r} is {value!r}; allowed values: {allowed}",
                    )
                    continue
            elif kind == "date" and parse_date(value) is None:
                self.error(
                    "AW003", key_line(name), f"{name!r} is {value!r}, not an ISO date YYYY-MM-DD"
                )
                continue
            if rule.equals is not None and value != rule.equals:
                self.error(
                    "AW003", key_line(name), f"{name!r} must be {rule.equals!r}, not {value!r}"
                )

    def dates(self, meta: dict[str, Any]) -> None:
        key_line = self.facts.key_line
        start, end = parse_date(meta.get("date_start")), parse_date(meta.get("date_end"))
        if start and end and end < start:
            self.error(
                "AW014",
                key_line("date_end"),
                f"date_end {meta['date_end']} is before date_start {meta['date_start']}",
            )
        status = meta.get("status")
        has_end = meta.get("date_end") is not None
        if status == "active" and has_end:
            self.add(
                "AW019",
                Severity.WARNING,
                key_line("date_end"),
                "status is 'active' but date_end is set: set status to done, or clear date_end",
            )
        elif status == "done" and not has_end:
            self.add(
                "AW019",
                Severity.WARNING,
                key_line("status"),
                "status is 'done' but date_end is not set",
            )

    def filename(self, meta: dict[str, Any]) -> None:
        path, pattern = self.facts.path, self.schema.filename_pattern
        if not path or not pattern:
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
        parts = _filename_parts(pattern)
        literal = ""  # the name itself when every placeholder has a value
        complete = True
        for part in parts:
            if part[:1] == "{" and part[-1:] == "}":
                value = values.get(part[1:-1])
                if not value:
                    complete = False
                    break
                literal += value
            else:
                literal += part
        name = posixpath.basename(path.replace("\\", "/"))
        if complete:
            matches = name == literal
        else:
            regex = ""
            for part in parts:
                if part[:1] == "{" and part[-1:] == "}":
                    value = values.get(part[1:-1])
                    regex += re.escape(value) if value else r"[^/\\]+"
                else:
                    regex += re.escape(part)
            matches = re.fullmatch(regex, name) is not None
        if not matches:
            expected = pattern
            for key, value in values.items():
                if value:
                    expected = expected.replace("{" + key + "}", value)
            self.error("AW013", None, f"filename {name!r} does not match {expected!r}")

    # -- body ----------------------------------------------------------------
    def sections(self) -> None:
        schema = self.schema
        sections = self.facts.sections
        if not sections:
            self.error("AW008", None, "the page has no '## ' section; add at least one")
            return
        seen: set[str] = set()
        last = -1
        last_title = ""
        for title, start in sections:
            line = start + 1
            if title in seen:
                self.error("AW007", line, f"section '## {title}' appears more than once")
                continue
            seen.add(title)
            if title not in schema.sections:
                self.add(
                    "AW006",
                    Severity.WARNING,
                    line,
                    f"heading '## {title}' is not a section of the schema",
                )
                continue
            index = schema.sections.index(title)
            if schema.strict_order and index < last:
                first = schema.sections[0]
                hint = f"; '## {first}' must come first" if title == first else ""
                self.error(
                    "AW005",
                    line,
                    f"section '## {title}' is out of order: it belongs before "
                    f"'## {last_title}'{hint}",
                )
                continue
            last, last_title = index, title
        for title in schema.required_sections:
            if title not in seen:
                self.error("AW008", None, f"required section '## {title}' is missing")

    def size(self) -> None:
        count = self.facts.nlines
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

    def files_touched(self) -> None:
        for start, text in self.facts.files:
            quick = _QUICK_CODE_CITATION.match(text)
            if quick is not None and quick.group(1):
                continue  # the common case: a backticked citation with a SHA
            state = citation_state(text)
            if state == 2:
                continue
            c = parse_citation_lenient(text) if state else None
            if c is None:
                self.error(
                    "AW011",
                    start + 1,
                    "Files touched entry is not a citation (path, path:line or "
                    "path:start-end, with @sha7)",
                )
            elif not c.sha:
                self.add(
                    "AW012",
                    Severity.WARNING,
                    start + 1,
                    f"citation {c.ref!r} has no @sha7 (lint --fix fills it from git)",
                    fixable=True,
                )
        for line, raw in self.facts.files_loose:
            text = raw.strip()
            if text and not _THEMATIC_BREAK.match(text):
                self.error("AW011", line + 1, "Files touched holds a line that is not a citation")

    def checkpoints(self) -> None:
        for line in self.facts.bad_checkpoints:
            self.error(
                "AW015",
                line + 1,
                "checkpoint heading must be '### <Event> at <ISO-8601 timestamp>'",
            )
        previous: dt.datetime | None = None
        for heading, at in self.facts.checkpoints:
            stamp = parse_timestamp(at)
            if stamp is None:
                self.error("AW015", heading + 1, f"checkpoint time {at!r} is not valid")
            else:
                if previous is not None and stamp < previous:
                    self.add(
                        "AW016",
                        Severity.WARNING,
                        heading + 1,
                        "checkpoint is earlier than the one before it (the log is chronological)",
                    )
                previous = stamp if previous is None else max(previous, stamp)
        for line in self.facts.stale_status:
            self.add(
                "AW017",
                Severity.WARNING,
                line + 1,
                "'Status: consumed' under an '(unconsumed)' header: flip the header "
                "to '(consumed at <ISO>)' instead",
            )

    def run(self) -> list[Diagnostic]:
        facts = self.facts
        meta = facts.meta
        if facts.problem is not None:
            self.error("AW001", *facts.problem)
        if meta is not None:
            self.keys(meta)
            self.dates(meta)
            self.filename(meta)
            if meta.get("schema_version") == 1 and self.version == 1:
                self.add(
                    "AW018",
                    Severity.INFO,
                    facts.key_line("schema_version"),
                    "schema v1 page: migrate it to v2 (sessionkit migrate)",
                )
        self.sections()
        self.size()
        self.files_touched()
        self.checkpoints()
        if len(self.found) > 1:
            self.found.sort(key=lambda d: (d.line if d.line is not None else 0, d.code))
        return self.found


def _known_version(version: Any) -> int | None:
    if isinstance(version, int) and not isinstance(version, bool) and version in KNOWN_VERSIONS:
        return version
    return None


def page_version(doc: Document) -> int | None:
    """The page's ``schema_version`` when it is a known one, else None."""
    try:
        return _known_version(doc.meta.get("schema_version"))
    except SessionKitError:
        return None


def lint_facts(
    facts: PageFacts, schema: Schema | None = None, version: int = 2
) -> list[Diagnostic]:
    """Every finding for a page's facts (see :func:`lint_page`)."""
    declared = (_known_version(facts.meta.get("schema_version")) if facts.meta else None) or version
    if schema is None or schema.version != declared:
        schema = builtin_schema(declared)
    return _Linter(facts, schema, declared).run()


def lint_page(doc: Document, schema: Schema | None = None, version: int = 2) -> list[Diagnostic]:
    """Lint ``doc``; never raises.

    The rules are those of the page's own ``schema_version`` (v1 rules for a
    v1 page); ``schema`` overrides the built-in schema of that version when
    it describes it.
    """
    return lint_facts(facts_of(doc), schema, version)


# -- the quick scan ------------------------------------------------------------------
#
# Most pages in a wiki are plain: LF line ends, flat frontmatter, headings at
# the start of their lines, no code fences, no HTML, bullets at column 0.  For
# such a page the facts can be read off the text with a few string searches
# instead of the general line-by-line scan (which builds the whole layout for
# the writer).  Anything the quick scan does not model exactly sends the page
# to the general path; tests/adapters/test_aiwiki_quick_lint.py checks that
# both give the same facts on every test page and on generated ones.

#: body substrings the quick scan does not model outside code blocks: indented headings
_NOT_QUICK = ("\n #", "\n  #", "\n   #")
#: the same when the body has a "<": HTML blocks too
_NOT_QUICK_HTML = (*_NOT_QUICK, "\n<", "\n <", "\n  <", "\n   <")
_BULLETS = ("- ", "* ", "+ ")
_FENCE_MARKS = ("```", "~~~")


_headings: dict[str, tuple[int, str] | None] = {}
_UNREAD: Any = object()


def _heading(line: str) -> tuple[int, str] | None:
    """(level, title) of a line that starts with ``#`` (memoised: headings repeat)."""
    if line in _headings:
        return _headings[line]
    head = _read_heading(line)
    if len(_headings) < 4096:
        _headings[line] = head
    return head


def _read_heading(line: str) -> tuple[int, str] | None:
    """(level, title) of a line that starts with ``#``, read as ``document._ATX`` reads it."""
    rest = line.lstrip("#")
    level = len(line) - len(rest)
    if level > 6 or (rest and rest[0] not in " \t"):
        return None
    if "#" not in rest:  # no closing sequence: the title is the rest
        return level, rest.strip()
    m = _ATX.match(line)
    if m is None:
        return None
    title = (m.group(2) or "").strip()
    return level, "" if title and set(title) == {"#"} else title


def _code_blocks(probe: str) -> list[tuple[int, int]] | None:
    """Where the fenced code blocks of ``probe`` are, or ``None``.

    Each block is (position of the line break before its opening line, end
    of its closing line or of the text).  ``None`` when a fence mark is not
    at the start of its line (indented or inline fences are the general
    path's).
    """
    starts: list[int] = []
    for mark in _FENCE_MARKS:
        count = probe.count(mark)
        if not count:
            continue
        found = 0
        at = probe.find("\n" + mark)
        while at >= 0:
            starts.append(at)
            found += 1
            at = probe.find("\n" + mark, at + 1)
        if found != count:
            return None
    starts.sort()
    blocks: list[tuple[int, int]] = []
    fence: str | None = None
    opened = 0
    for at in starts:
        eol = probe.find("\n", at + 1)
        if eol < 0:
            eol = len(probe)
        m = _CODE_FENCE.match(probe[at + 1 : eol])
        assert m is not None
        if fence is None:
            if not (m.group(2)[0] == "`" and "`" in m.group(3)):
                fence, opened = m.group(2), at
        elif m.group(2)[0] == fence[0] and len(m.group(2)) >= len(fence) and not m.group(3).strip():
            blocks.append((opened, eol))
            fence = None
    if fence is not None:
        blocks.append((opened, len(probe)))
    return blocks


_STATUS_ANYWHERE = re.compile(r"status:[ \t]*consumed", re.IGNORECASE)


def _fm_key_line(frontmatter: str) -> Callable[[str], int | None]:
    """``key_line`` for flat frontmatter (every key at the start of its line)."""

    def key_line(key: str) -> int | None:
        for n, line in enumerate(frontmatter.split("\n")):
            if line.startswith(key + ":"):
                return n + 2
        return None

    return key_line


def quick_facts(text: str, path: str | None = None) -> PageFacts | None:
    """The facts of a plain page read straight off its text, or ``None``.

    ``None`` means the page has something only the general path models
    (CR line ends, a BOM, frontmatter the flat reader does not take, code
    fences, HTML, tabs, indented headings, prose or indented lines in
    ``Files touched``, ``Status: consumed`` near an ``(unconsumed)`` header);
    use :func:`facts_of` then.  Otherwise the result equals
    ``facts_of(parse(text, path))``.
    """
    if not text.startswith("---\n") or "\r" in text or "\t" in text:
        return None
    close = text.find("\n---", 3)
    if close < 0:
        return None
    after = close + 4
    size = len(text)
    if after < size and text[after] != "\n":
        return None
    frontmatter = text[4 : close + 1]
    meta = fast_mapping(frontmatter)
    if meta is None:
        return None
    # probe: the body with the line break before its first line (so "\n#" finds every heading)
    probe = text[close + 4 :] if after < size else "\n"
    first_line = frontmatter.count("\n") + 1  # the closing fence's line; the body follows it
    blocks: list[tuple[int, int]] | None = []
    if "```" in probe or ("~" in probe and "~~~" in probe):
        blocks = _code_blocks(probe)
        if blocks is None:
            return None
    # HTML blocks and indented headings (inside code blocks they change nothing)
    for pattern in _NOT_QUICK_HTML if "<" in probe else _NOT_QUICK:
        at = probe.find(pattern)
        while at >= 0:
            if not blocks or not any(start < at < end for start, end in blocks):
                return None
            at = probe.find(pattern, at + 1)
    # headings: (level, title, line, line break before it in probe, end of its line in probe)
    heads: list[tuple[int, str, int, int, int]] = []
    line, counted = first_line, 0
    find, count, memo = probe.find, probe.count, _headings
    at = find("\n#")
    while at >= 0:
        line += count("\n", counted, at + 1)
        counted = at + 1
        eol = find("\n", counted)
        if eol < 0:
            eol = len(probe)
        text_of = probe[counted:eol]
        head = memo.get(text_of, _UNREAD)
        if head is _UNREAD:
            head = _heading(text_of)
        if head is not None and not (blocks and any(start < at < end for start, end in blocks)):
            heads.append((head[0], head[1], line, at, eol))
        at = find("\n#", eol)
    nlines = line + count("\n", counted) + (0 if probe.endswith("\n") else 1)
    sections: list[tuple[str, int]] = []
    h2 = [h for h in heads if h[0] == 2]
    files: list[tuple[int, str]] = []
    bad: list[int] = []
    checkpoints: list[tuple[int, str]] = []
    seen_files = seen_checkpoints = False
    last = len(h2) - 1
    for n, (_, title, start, _, eol) in enumerate(h2):
        sections.append((title, start))
        if title == "Files touched" and not seen_files:
            seen_files = True
            body = probe[eol + 1 : h2[n + 1][3]] if n < last else probe[eol + 1 :]
            if "```" in body or "~~~" in body:
                return None
            placeholder = False
            k = start
            for raw in body.split("\n"):
                k += 1
                if raw[:2] in _BULLETS:
                    files.append((k, raw[2:].lstrip(" ")))
                elif not raw.strip():
                    continue
                elif not placeholder and not files and raw.strip() == PLACEHOLDER:
                    placeholder = True
                else:
                    return None
        elif title == CHECKPOINTS and not seen_checkpoints:
            seen_checkpoints = True
            end = h2[n + 1][2] if n < last else nlines
            body = probe[eol + 1 : h2[n + 1][3]] if n < last else probe[eol + 1 :]
            if "(unconsumed)" in body and _STATUS_ANYWHERE.search(body):
                return None
            for level, sub, at_line, _, _ in heads:
                if level == 3 and start < at_line < end:
                    m = CHECKPOINT_HEADING.match(sub)
                    if m is not None:
                        checkpoints.append((at_line, m.group("at")))
                    else:
                        bad.append(at_line)
    return PageFacts(
        path=path,
        meta=meta,
        problem=None,
        key_line=_fm_key_line(frontmatter),
        sections=sections,
        nlines=nlines,
        files=files,
        files_loose=[],
        bad_checkpoints=bad,
        checkpoints=checkpoints,
        stale_status=[],
    )
