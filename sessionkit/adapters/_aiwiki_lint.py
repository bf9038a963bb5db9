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
import re
from collections import namedtuple
from collections.abc import Callable, Iterable
from functools import cache, lru_cache
from operator import itemgetter

from .._lazyre import lazy
from ..diagnostics import Diagnostic, Severity, _finding
from ..document import Document
from ..errors import SessionKitError
from ..text.grammar import thematic_break
from ._aiwiki_parse import (
    _QUICK_CODE_CITATION,
    CHECKPOINT_HEADING,
    CHECKPOINTS,
    DIRECTIVE_HEADER,
    LIGHT,
    citation_state,
    parse_citation_lenient,
    scan,
    scan_items,
)
from ._aiwiki_schema import Schema, builtin_schema

TYPE_CHECKING = False  # (typing is not imported at run time: lint's start-up pays for it)
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "KNOWN_VERSIONS",
    "PageFacts",
    "by_line",
    "facts_of",
    "files_findings",
    "lint_facts",
    "lint_page",
    "no_sha",
    "rules_for",
]

KNOWN_VERSIONS = (1, 2)
_first = itemgetter(0)
#: the severities, read once (an enum member's lookup costs more than a global's)
_ERROR, _WARNING, _INFO = Severity.ERROR, Severity.WARNING, Severity.INFO
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_STATUS_CONSUMED = re.compile(r"^\s*[-*+][ \t]+Status:[ \t]*consumed\b", re.IGNORECASE)


def _carrier(title: str) -> bool:
    """Whether ``title`` heads a section a conversion from Basic Memory carries (``## bm:
    Summary``…: documented, kept so the note converts back; no AW006).  (The profiles
    are imported for such a heading alone, not at lint's start-up.)"""
    from .profiles import BASIC_MEMORY

    return title.startswith(BASIC_MEMORY.section_prefix)


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


#: What the rules look at, found once per page by :func:`facts_of` (line numbers are
#: 0-based): the page's ``path``; ``meta``, its frontmatter (``None`` when unusable:
#: ``problem`` is (line, message)); ``key_line``, the 1-based line of a frontmatter
#: key; ``sections``, (title, heading line) of each level-2 section; ``nlines``;
#: ``files``, (first line, text) of each bullet of the first ``Files touched``
#: (``None``: all citations with a SHA) and ``files_loose``, (line, text) of its
#: other lines; ``bad_checkpoints``, level-3 headings under ``Checkpoints`` that are
#: not ``<Event> at <timestamp>``; ``checkpoints``, (heading line, time text) of the
#: entries; ``stale_status``, first lines of ``Status: consumed`` bullets under
#: ``(unconsumed)`` headers.
PageFacts = namedtuple(
    "PageFacts",
    "path meta problem key_line sections nlines files files_loose bad_checkpoints "
    "checkpoints stale_status",
)


def facts_of(doc: Document) -> PageFacts:
    """The facts of a parsed page: what the rules need of it, and no more (no model)."""
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
    files: list[tuple[int, str]] | None = []
    loose: list[tuple[int, str]] = []
    section = doc.section("Files touched")
    if section is not None:
        body = doc.span_text(section.start, section.end).partition("\n")[2]
        if _ALL_CITED.fullmatch(body):
            files = None  # every bullet a citation with a SHA: nothing to report
        else:
            found, _, lines = scan_items(doc.lines, section.start + 1, section.end)
            files = [(item.start, item.text) for item in found]
            loose = [(line, doc.line_text(line)) for line in lines]
    bad: list[int] = []
    checkpoints: list[tuple[int, str]] = []
    stale: list[int] = []
    section = doc.section(CHECKPOINTS)
    if section is not None:
        for level, title, line, _ in doc.outline:
            if level == 3 and section.start < line < section.end:
                m = CHECKPOINT_HEADING.match(title)
                if m is None:
                    bad.append(line)
                else:
                    checkpoints.append((line, m.group("at")))
        text = doc.span_text(section.start, section.end)
        if "(unconsumed)" in text and _STALE_POSSIBLE.search(text):
            stale = _stale_status(doc)
    return PageFacts(
        path=doc.path,
        meta=meta,
        problem=problem,
        key_line=doc.key_line,
        sections=[(s.title, s.start) for s in doc.sections],
        nlines=doc.line_count,
        files=files,
        files_loose=loose,
        bad_checkpoints=bad,
        checkpoints=checkpoints,
        stale_status=stale,
    )


def _stale_status(doc: Document) -> list[int]:
    """First lines of ``Status: consumed`` bullets of ``(unconsumed)`` directives."""
    stale: list[int] = []
    for span in scan(doc, LIGHT)[1].checkpoints:
        for d in span.directives:
            header = DIRECTIVE_HEADER.match(doc.line_text(d.header))
            if header is not None and header.group("un"):
                stale.extend(
                    item.start
                    for item in d.items
                    if _STATUS_CONSUMED.match(doc.line_text(item.start))
                )
    return stale


#: a checkpoint time of the usual shape, ``YYYY-MM-DDTHH:MM:SSZ`` (days 29-31 checked apart)
_PLAIN_STAMP = lazy(
    r"(?!0000)[0-9]{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12][0-9]|3[01])"
    r"T(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]Z\Z"
)
#: a Files touched body of blank lines and bullets each a backticked citation with a SHA
#: whose path is printable ASCII without ':', '@' or '`' (no finding; possessive)
_CITED = (
    r"[-*+] ++`[!-9;-?A-_a-~]++(?::(?:[1-9][0-9]*+|0)(?:-(?:[1-9][0-9]*+|0))?+)?+"
    r"@[0-9a-fA-F]{4,40}+`(?: [^\r\n]*+)?+"
)
_ALL_CITED = lazy(rf"(?:(?:{_CITED})?+\r?\n)*+(?:{_CITED})?+")
#: a section where a ``Status: consumed`` bullet may sit under an ``(unconsumed)`` header
_STALE_POSSIBLE = lazy(r"\n\s*[-*+][ \t]+(?i:status:[ \t]*consumed)")


@cache
def _filename_parts(pattern: str) -> list[str]:
    return re.split(r"(\{[a-z_]+\})", pattern)


_NONE_TYPE = type(None)
_TEXT_TYPES = frozenset({str, _NONE_TYPE})


def _filename_mismatch(
    pattern: str | None, path: str | None, meta: dict[str, Any]
) -> tuple[str, dict[str, str | None]] | None:
    """(file name, placeholder values) when ``path``'s name does not follow ``pattern``."""
    if not path or not pattern:
        return None
    date = meta.get("date_start")
    if not isinstance(date, str) or _parse_date_text(date) is None:
        return None
    sid = meta.get("session_id")
    sid7 = sid[:7] if isinstance(sid, str) and sid else None
    name = path.rpartition("/")[2]  # (the name after the last "/" or "\\")
    if "\\" in name:
        name = name.rpartition("\\")[2]
    # the common case: every placeholder has a value, the name is a plain string
    template = _template(pattern)
    if template is not None and (sid7 or not template[1]):
        literal = template[0].format(date, sid7)
        return None if name == literal else (name, _placeholders(date, sid7))
    values = _placeholders(date, sid7)
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
    matches = name == literal if complete else _glob_match(name, parts, values)
    return None if matches else (name, values)


@lru_cache(maxsize=64)
def _template(pattern: str) -> tuple[str, bool] | None:
    """The format string :func:`_filename_mismatch` fills for ``pattern`` (the date as
    ``{0}``, the short session id as ``{1}``) and whether it uses the id, or ``None``
    for a pattern with other braces."""
    text = pattern.replace("{date}", "\0").replace("{date_start}", "\0")
    text = text.replace("{session_id_short}", "\1")
    if "{" in text or "}" in text or "\0" in pattern or "\1" in pattern:
        return None
    return text.replace("\0", "{0}").replace("\1", "{1}"), "\1" in text


def _glob_match(name: str, parts: list[str], values: dict[str, str | None]) -> bool:
    """Whether ``name`` (no ``/`` or ``\\`` in it) reads as the pattern ``parts``, each
    placeholder its value or, without one, any text of one character or more."""
    # the pattern as the literal stretches around its placeholders without a value
    literals: list[str] = []
    text = ""
    for part in parts:
        if part[:1] == "{" and part[-1:] == "}":
            value = values.get(part[1:-1])
            if not value:
                literals.append(text)
                text = ""
                continue
            text += value
        else:
            text += part
    literals.append(text)
    head, tail = literals[0], literals[-1]
    if not name.startswith(head) or not name.endswith(tail):
        return False
    at, end = len(head), len(name) - len(tail)
    for piece in literals[1:-1]:  # (each after a gap of one character or more)
        found = name.find(piece, at + 1, end - 1)  # (and room for the last gap)
        if found < 0:
            return False
        at = found + len(piece)
    return end - at >= 1  # the last gap


class _Plan:
    """What a schema asks, with what was found clean before: the frontmatter values
    (:meth:`meta_clean`) and the section title sequences (``sections``)."""

    def __init__(self, schema: Schema) -> None:
        self.schema = schema
        self.sections: set[tuple[str, ...]] = set()
        # what the key rules and the date rules read: the values of every key but the
        # plain text ones, and the types of all (2, 2.0 and True are equal values); for
        # which of these they found nothing is remembered, as they repeat page to page
        names = tuple(rule.name for rule in schema.keys)
        texts = {
            rule.name
            for rule in schema.keys
            if rule.type == "string" and rule.equals is None and rule.name != "schema_id"
        }
        self.memo_names = tuple(dict.fromkeys(names + _DATE_RULE_KEYS))
        self.memo_values = _getter(
            [n for n, name in enumerate(self.memo_names) if name not in texts]
        )
        self.clean_values: dict[tuple[Any, ...], bool] = {}

    def meta_clean(self, meta: dict[str, Any]) -> bool:
        """True when the key rules and the date rules find nothing (False: run them)."""
        values = tuple(map(meta.get, self.memo_names))
        key = (self.memo_values(values), tuple(map(type, values)))
        try:
            clean = self.clean_values.get(key)
        except TypeError:  # a list value: not remembered
            return False
        if clean is None:
            linter = _MetaLinter(None, _no_line, self.schema, self.schema.version)
            linter.keys(meta)
            linter.dates(meta)
            clean = not linter.found
            if len(self.clean_values) >= 4096:
                self.clean_values.clear()
            self.clean_values[key] = clean
        return clean


#: the frontmatter keys the date rules (AW014, AW019) read
_DATE_RULE_KEYS = ("date_start", "date_end", "status")


def _no_line(key: str) -> int | None:
    return None


def _placeholders(day: str, sid7: str | None) -> dict[str, str | None]:
    """The values of the filename pattern's placeholders."""
    return {"date": day, "date_start": day, "session_id_short": sid7}


def _getter(indices: list[int]) -> Callable[[tuple[Any, ...]], tuple[Any, ...]]:
    if len(indices) > 1:
        return itemgetter(*indices)
    if indices:
        index = indices[0]
        return lambda values: (values[index],)
    return lambda values: ()


#: per schema (by identity, kept alive here)
_plans: dict[int, _Plan] = {}


def _plan(schema: Schema) -> _Plan:
    plan = _plans.get(id(schema))
    if plan is None or plan.schema is not schema:
        if len(_plans) > 64:
            _plans.clear()
        plan = _plans[id(schema)] = _Plan(schema)
    return plan


class _MetaLinter:
    """The frontmatter rules (AW002-AW004, AW013, AW014, AW018, AW019) of one page."""

    def __init__(
        self,
        path: str | None,
        key_line: Callable[[str], int | None],
        schema: Schema,
        version: int,
    ) -> None:
        self.path = path
        self.key_line = key_line
        self.schema = schema
        self.plan = _plan(schema)
        self.version = version
        self.found: list[Diagnostic] = []

    def add(
        self, code: str, severity: Severity, line: int | None, message: str, fixable: bool = False
    ) -> None:
        self.found.append(_finding(code, severity, line, message, self.path, fixable))

    def error(self, code: str, line: int | None, message: str) -> None:
        self.add(code, _ERROR, line, message)

    # -- frontmatter ---------------------------------------------------------
    def keys(self, meta: dict[str, Any]) -> None:
        key_line = self.key_line
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
        key_line = self.key_line
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
                _WARNING,
                key_line("date_end"),
                "status is 'active' but date_end is set: set status to done, or clear date_end",
            )
        elif status == "done" and not has_end:
            self.add(
                "AW019",
                _WARNING,
                key_line("status"),
                "status is 'done' but date_end is not set",
            )

    def filename(self, meta: dict[str, Any]) -> None:
        pattern = self.schema.filename_pattern
        wrong = _filename_mismatch(pattern, self.path, meta)
        if wrong is not None and pattern:
            self._wrong_filename(wrong[0], pattern, wrong[1])

    def _wrong_filename(self, name: str, pattern: str, values: dict[str, str | None]) -> None:
        expected = pattern
        for key, value in values.items():
            if value:
                expected = expected.replace("{" + key + "}", value)
        self.error("AW013", None, f"filename {name!r} does not match {expected!r}")

    def meta(self, meta: dict[str, Any]) -> None:
        """Every frontmatter rule."""
        if not self.plan.meta_clean(meta):
            self.keys(meta)
            self.dates(meta)
        self.filename(meta)
        if meta.get("schema_version") == 1 and self.version == 1:
            self.add(
                "AW018",
                _INFO,
                self.key_line("schema_version"),
                "schema v1 page: migrate it to v2 (sessionkit migrate)",
            )


def _plain_and_in_order(stamps: list[tuple[int, str]]) -> bool:
    """Whether every checkpoint time is valid, of the usual shape, and in order (the
    text order of that shape is time order): then AW015 and AW016 find nothing."""
    before = ""
    for _, at in stamps:
        if at < before or not _PLAIN_STAMP.match(at):
            return False
        if at[8:10] > "28" and parse_timestamp(at) is None:
            return False
        before = at
    return True


class _Linter(_MetaLinter):
    """Every rule of one page, from its facts."""

    def __init__(self, facts: PageFacts, schema: Schema, version: int) -> None:
        super().__init__(facts.path, facts.key_line, schema, version)
        self.facts = facts

    # -- body ----------------------------------------------------------------
    def sections(self) -> None:
        sections = self.facts.sections
        if not sections:
            self.error("AW008", None, "the page has no '## ' section; add at least one")
            return
        titles = tuple(map(_first, sections))
        clean = self.plan.sections
        if titles in clean:  # these titles in this order were fine before
            return
        before = len(self.found)
        self._check_sections(sections)
        if len(self.found) == before:
            if len(clean) >= 4096:
                clean.clear()
            clean.add(titles)

    def _check_sections(self, sections: list[tuple[str, int]]) -> None:
        schema = self.schema
        seen: set[str] = set()
        last = -1
        last_title = ""
        for title, start in sections:
            line = start + 1
            if title in seen:
                self.error("AW007", line, f"section '## {title}' appears more than once")
                continue
            seen.add(title)
            if title not in schema.sections and _carrier(title):
                continue  # a Basic Memory carrier section (docs/converting.md): no finding
            if title not in schema.sections:
                self.add(
                    "AW006",
                    _WARNING,
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
                _INFO,
                None,
                f"{count} lines, over the soft target of {soft[0]}-{soft[1]}",
            )

    def files_touched(self) -> None:
        self.found += files_findings(self.facts.files or (), self.facts.files_loose, self.path)

    def checkpoints(self) -> None:
        for line in self.facts.bad_checkpoints:
            self.error(
                "AW015",
                line + 1,
                "checkpoint heading must be '### <Event> at <ISO-8601 timestamp>'",
            )
        previous: dt.datetime | None = None
        stamps = self.facts.checkpoints
        for heading, at in [] if _plain_and_in_order(stamps) else stamps:
            stamp = parse_timestamp(at)
            if stamp is None:
                self.error("AW015", heading + 1, f"checkpoint time {at!r} is not valid")
            else:
                if previous is not None and stamp < previous:
                    self.add(
                        "AW016",
                        _WARNING,
                        heading + 1,
                        "checkpoint is earlier than the one before it (the log is chronological)",
                    )
                previous = stamp if previous is None else max(previous, stamp)
        for line in self.facts.stale_status:
            self.add(
                "AW017",
                _WARNING,
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
            self.meta(meta)
        self.sections()
        self.size()
        self.files_touched()
        self.checkpoints()
        return by_line(self.found)


def files_findings(
    files: Iterable[tuple[int, str]], loose: Iterable[tuple[int, str]], path: str | None
) -> list[Diagnostic]:
    """The findings (AW011, AW012) for the bullets (first line, text) of ``Files touched``
    and its lines that belong to no bullet (line, text)."""
    found: list[Diagnostic] = []
    for start, text in files:
        quick = _QUICK_CODE_CITATION.match(text)
        if quick is not None:  # the common shape: what parse_citation_lenient reads too
            if quick.group(1):
                continue  # a citation with a SHA
            # one without: the citation is what the backticks hold (quick.group(0) ends
            # with the closing backtick and a blank, or the backtick at the end)
            ref = text[1 : quick.end() - (2 if quick.group(0)[-1] == " " else 1)]
            found.append(no_sha(ref, start, path))
            continue
        state = citation_state(text)
        if state == 2:
            continue
        c = parse_citation_lenient(text) if state else None
        if c is None:
            found.append(
                Diagnostic(
                    code="AW011",
                    severity=_ERROR,
                    line=start + 1,
                    message="Files touched entry is not a citation (path, path:line or "
                    "path:start-end, with @sha7)",
                    path=path,
                )
            )
        elif not c.sha:
            found.append(no_sha(c.ref, start, path))
    for line, raw in loose:
        text = raw.strip()
        if text and not thematic_break(text):  # a thematic break may separate
            found.append(
                Diagnostic(
                    code="AW011",
                    severity=_ERROR,
                    line=line + 1,
                    message="Files touched holds a line that is not a citation",
                    path=path,
                )
            )
    return found


def no_sha(ref: str, start: int, path: str | None) -> Diagnostic:
    """AW012 for the citation ``ref`` of the bullet starting on line ``start`` (0-based)."""
    return _finding(
        "AW012",
        _WARNING,
        start + 1,
        f"citation {ref!r} has no @sha7 (lint --fix fills it from git)",
        path,
        True,
    )


def by_line(found: list[Diagnostic]) -> list[Diagnostic]:
    """``found`` in the order :func:`lint_facts` reports: by line (none first), then code."""
    if len(found) > 1:
        found.sort(key=_line_code)
    return found


def _line_code(d: Diagnostic) -> tuple[int, str]:
    return (d.line if d.line is not None else 0, d.code)


def _known_version(version: Any) -> int | None:
    if isinstance(version, int) and not isinstance(version, bool) and version in KNOWN_VERSIONS:
        return version
    return None


def lint_facts(
    facts: PageFacts, schema: Schema | None = None, version: int = 2
) -> list[Diagnostic]:
    """Every finding for a page's facts (see :func:`lint_page`)."""
    schema, declared = rules_for(facts.meta, schema, version)
    return _Linter(facts, schema, declared).run()


def rules_for(
    meta: dict[str, Any] | None, schema: Schema | None, version: int
) -> tuple[Schema, int]:
    """The schema and version :func:`lint_facts` lints a page with this frontmatter by
    (its own ``schema_version`` first)."""
    declared = (_known_version(meta.get("schema_version")) if meta else None) or version
    if schema is None or schema.version != declared:
        schema = builtin_schema(declared)
    return schema, declared


def lint_page(doc: Document, schema: Schema | None = None, version: int = 2) -> list[Diagnostic]:
    """Lint ``doc``; never raises.

    The rules are those of the page's own ``schema_version`` (v1 rules for a
    v1 page); ``schema`` overrides the built-in schema of that version when
    it describes it.
    """
    return lint_facts(facts_of(doc), schema, version)
