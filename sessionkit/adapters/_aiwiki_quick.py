"""The quick lint scan: the facts of a plain aiwiki page read straight off its bytes.

Most pages in a wiki are plain: LF line ends, flat frontmatter, headings at
the start of their lines, code fences (if any) at the start of theirs, no
HTML blocks, only bullets in ``Files touched``.  For such a page the facts
lint needs (:class:`~sessionkit.adapters._aiwiki_lint.PageFacts`) can be read
with a few byte searches instead of the general line-by-line scan, which
builds the whole layout for the writer.  It works on the UTF-8 bytes: every
character it looks for is ASCII, which UTF-8 never uses inside a multi-byte
character, and line numbers count ``\\n`` bytes.

The block questions (is the outline plain, where is fenced code, is a line
a bullet item or a thematic break) are the tokenizer module's
(:func:`sessionkit.markdown.plain_outline`,
:func:`~sessionkit.markdown.is_bullet_item_start`); this module keeps the
aiwiki rules (sections, Files touched, citations, checkpoints).

Anything the quick scan does not model exactly returns ``None`` and the page
goes to the general path.  ``tests/adapters/test_aiwiki_quick_lint.py``
checks that both give the same findings on every test page and on generated
ones, with the fast lanes on and off.
"""

from __future__ import annotations

import re
from itertools import accumulate, compress, repeat
from operator import add, is_not, itemgetter

from .. import _fastpaths
from .._yaml_fast import _mapping, _remember
from ..diagnostics import Diagnostic
from ..markdown import atx_heading, is_bullet_item_start, plain_outline
from ._aiwiki_lint import (
    PageFacts,
    _plan,
    by_line,
    files_findings,
    lint_facts,
    meta_clean,
    meta_findings,
    no_sha,
    parse_timestamp,
    rules_for,
)
from ._aiwiki_parse import CHECKPOINT_HEADING, CHECKPOINTS, PLACEHOLDER
from ._aiwiki_schema import Schema

TYPE_CHECKING = False  # (typing is not imported at run time: lint's start-up pays for it)
if TYPE_CHECKING:
    from typing import Any

    #: (meta, frontmatter, probe, first line, code blocks, is the probe known to be UTF-8,
    #: its "##" lines and lines starting with a space: _LINES)
    _Front = tuple[dict[str, Any], str, bytes, int, list[tuple[int, int]], bool, list[bytes]]

__all__ = ["body_findings", "lint_facts", "quick_lint_bytes"]

#: how a Files touched bullet starts here: at column 0, its marker and a space (every
#: line there is at column 0, so each bullet is a top-level item; whether the line is
#: an item at all is the tokenizer's answer, ``is_bullet_item_start``)
_BULLETS = (b"- ", b"* ", b"+ ")
_PLACEHOLDER = PLACEHOLDER.encode()
#: a Files touched line that is a bullet holding a backticked citation with a SHA whose
#: path is printable ASCII without ':', '@' or '`' (``citation_state`` reads its item
#: as 2, so the general check passes it); possessive, so no backtracking
#: (the path's class spelled as ranges of what it allows, and the line number's
#: usual first digit first: sre matches both faster)
_CITED = (
    rb"[-*+] ++`[!-9;-?A-_a-~]++(?::(?:[1-9][0-9]*+|0)(?:-(?:[1-9][0-9]*+|0))?+)?+"
    rb"@[0-9a-fA-F]{4,40}+`(?: [^\n]*+)?+"
)
#: a Files touched body of such lines and empty ones
_ALL_CITED_BODY = re.compile(rb"(?:(?:" + _CITED + rb")?+\n)*+(?:" + _CITED + rb")?+")
#: a Files touched line that is a citation but for its SHA (the usual finding, AW012):
#: the citation is group 1; a line for ``fullmatch``
_NO_SHA = re.compile(
    rb"[-*+] ++`([!-9;-?A-_a-~]++(?::(?:[1-9][0-9]*+|0)(?:-(?:[1-9][0-9]*+|0))?+)?+)`"
    rb"(?: [^\n]*+)?+"
)
_STATUS_CONSUMED = re.compile(r"status:[ \t]*consumed", re.IGNORECASE)

#: heading line (bytes) -> (level, title), or None when it is not a heading
_headings: dict[bytes, tuple[int, str] | None] = {}
_UNREAD: Any = object()
#: the text after "##" on a level-2 heading line -> the section title
_h2_titles: dict[bytes, str] = {}
#: what a part that is no level-2 section gets for a title
_NOT_H2: Any = object()
_first = itemgetter(0)

#: what :func:`_files` returns for a section of citations with SHAs only (never changed)
_ALL_CITED: list[tuple[int, str]] = []

_BodyFacts = tuple[
    list[tuple[str, int]], list[tuple[int, str]], list[int], list[tuple[int, str]], int
]


def _heading(line: bytes) -> tuple[int, str] | None:
    """(level, title) of a line that starts with ``#`` (memoised: headings repeat)."""
    head = _headings.get(line, _UNREAD)
    if head is _UNREAD:
        head = atx_heading(line.decode())
        _remember(_headings, line, head)
    return head  # type: ignore[no-any-return]


def _files(body: bytes, start: int) -> list[tuple[int, str]] | None:
    """Bullets of a Files touched section body (from the line after its heading ``start``).

    ``None`` when it holds anything but bullets at column 0, blank lines and
    one leading placeholder (the general scan reads those; the placeholder is
    a paragraph, which an empty bullet right under it does not interrupt).  The marker
    list ``_ALL_CITED`` when every bullet is a citation with a SHA: nothing
    to report, nothing to list.
    """
    if _ALL_CITED_BODY.fullmatch(body):
        return _ALL_CITED if body.strip(b"\n") else []
    files: list[tuple[int, str]] = []
    placeholder = False
    k = start
    under = 0  # the line right under the placeholder (a paragraph)
    for raw in body.split(b"\n"):
        k += 1
        if raw[:2] in _BULLETS and is_bullet_item_start(raw, after_paragraph=k == under):
            files.append((k, raw[2:].lstrip(b" ").decode()))
        elif not raw.strip():  # (ASCII whitespace: blank for str.strip() too)
            continue
        elif not placeholder and not files and raw.strip() == _PLACEHOLDER:
            placeholder = True
            under = k + 1
        else:
            return None
    return files


def _uncited(body: bytes) -> list[tuple[int, str, str | None]] | None:
    """(offset in ``body``, text, citation) of the bullets of a Files touched section
    body that are not citations with a SHA, as :func:`_files` reads them (its ``None``
    too): the cited ones are passed over by ``_ALL_CITED_BODY``.  ``citation`` is the
    citation of a bullet that is one but for its SHA (its text is left empty then: the
    finding needs only the citation), ``None`` for the others."""
    bullets: list[tuple[int, str, str | None]] = []
    placeholder = False
    under = -1  # where the line right under the placeholder (a paragraph) starts
    at, end = 0, len(body)
    while True:
        at = _ALL_CITED_BODY.match(body, at).end()  # type: ignore[union-attr]
        if at >= end:
            return bullets
        if at and body[at - 1] != 10:  # (a citation ending inside its line: not one)
            at = body.rfind(b"\n", 0, at) + 1
        eol = body.find(b"\n", at)
        if eol < 0:
            eol = end
        raw = body[at:eol]
        no_sha_ = _NO_SHA.fullmatch(raw)
        if no_sha_ is not None:
            bullets.append((at, "", no_sha_.group(1).decode()))
        elif raw[:2] in _BULLETS and is_bullet_item_start(raw, after_paragraph=at == under):
            bullets.append((at, raw[2:].lstrip(b" ").decode(), None))
        elif not raw.strip():  # (ASCII whitespace: blank for str.strip() too)
            pass
        elif (
            not placeholder
            and not bullets
            and not body[:at].strip()  # (no bullet before it, cited or not)
            and raw.strip() == _PLACEHOLDER
        ):
            placeholder = True
            under = eol + 1
        else:
            return None
        at = eol + 1
        if at > end:
            return bullets


def _stale_status_possible(section: bytes) -> bool:
    """Could a ``Status: consumed`` bullet sit under an ``(unconsumed)`` header here?"""
    if section.find(b"(unconsumed)") < 0:
        return False
    # the case-blind "status:" needs "tatu" in ASCII letters of any case (no other
    # character matches t, a or u case-blind; "ſ" does match s): a cheap test first
    if section.lower().find(b"tatu") < 0:
        return False
    return _STATUS_CONSUMED.search(section.decode()) is not None


def _checkpoint_heads(
    heads: list[tuple[int, str]], bad: list[int], checkpoints: list[tuple[int, str]]
) -> None:
    """Sort level-3 headings (line, title) of the Checkpoints section into good and bad."""
    for line, title in heads:
        at = _plain_checkpoint_at(title)
        if at is not None:
            checkpoints.append((line, at))
            continue
        m = CHECKPOINT_HEADING.match(title)
        if m is not None:
            checkpoints.append((line, m.group("at")))
        else:
            bad.append(line)


def _plain_checkpoint_at(title: str) -> str | None:
    """The timestamp of ``<Event> at YYYY-MM-DDTHH:MM:SSZ`` (ASCII, the usual shape), else None.

    What ``CHECKPOINT_HEADING`` reads as the timestamp for such a title; any
    other title (None) goes to that pattern.
    """
    if len(title) < 25 or title[-24:-20] != " at " or not title[0].strip():
        return None
    at = title[-20:]
    if not at.isascii() or at[4::3] != "--T::Z":  # the separators at 4, 7, 10, 13, 16, 19
        return None
    digits = at.replace("-", "").replace(":", "")  # "YYYYMMDDTHHMMSSZ"
    if not (digits[:8].isdigit() and digits[9:15].isdigit()):
        return None
    return at


def _part_title(key: bytes) -> Any:
    """The section title of a part whose first line is ``key`` (after "##"), or ``_NOT_H2``."""
    lead = key[:1]
    if lead != b" " and lead:  # "###…" or "##x": a deeper heading or none
        return _NOT_H2
    head = _heading(b"##" + key)
    assert head is not None and head[0] == 2
    _remember(_h2_titles, key, head[1])
    return head[1]


def _h3_title(key: bytes) -> str | None:
    """The title of a part whose first line is ``key`` (after "##") when that line
    is a level-3 heading, else ``None``.

    Checkpoint headings (``### <Event> at <time>``) are seldom seen twice, so
    the usual shape is read without the heading memo.
    """
    if key[:2] == b"# " and key.find(b"#", 2) < 0:  # "### title", nothing to close
        head = atx_heading("##" + key.decode())  # (trimmed as markdown-it trims)
        assert head is not None
        return head[1]
    if key[:1] != b"#":
        return None
    sub = _heading(b"##" + key)
    return sub[1] if sub is not None and sub[0] == 3 else None


def _split_body(probe: bytes, first_line: int) -> _BodyFacts | None:
    """Body facts of a page without code blocks.

    Headings of level 2 and 3 are then exactly the lines starting with
    ``##`` that read as such (indented ones were ruled out), so splitting
    there finds the sections and the checkpoint headings in one pass.  The
    parts are handled with C-level ``map``s; Python looks only at the parts
    that matter (Files touched, Checkpoints and headings not seen before).
    """
    parts = probe.split(b"\n##")
    # the line each part after the first starts on: its "##" line
    totals = list(accumulate(map(bytes.count, parts, repeat(b"\n"))))
    lines = list(map(add, totals, range(first_line + 1, first_line + len(parts))))
    keys = list(map(_first, map(bytes.partition, parts, repeat(b"\n"))))
    del keys[0]
    titles: list[Any] = list(map(_h2_titles.get, keys))
    at = 0
    for _ in range(titles.count(None)):
        at = titles.index(None, at)
        titles[at] = _part_title(keys[at])
    sections: list[tuple[str, int]] = list(
        compress(zip(titles, lines, strict=True), map(is_not, titles, repeat(_NOT_H2)))
    )
    files: list[tuple[int, str]] = []
    bad: list[int] = []
    checkpoints: list[tuple[int, str]] = []
    if "Files touched" in titles:
        at = titles.index("Files touched")
        if at + 1 < len(titles) and titles[at + 1] is _NOT_H2:
            return None  # "###" or "##x" lines in Files touched: the general scan reads them
        found = _files(parts[at + 1].partition(b"\n")[2], lines[at])
        if found is None:
            return None
        files = found
    if "Checkpoints" in titles:
        at = titles.index("Checkpoints")
        end = at + 1
        while end < len(titles) and titles[end] is _NOT_H2:
            end += 1
        own = parts[at + 1 : end + 1]  # the section's heading part and the deeper ones
        joined = b"\n".join(own)
        if joined.find(b"unconsumed") >= 0 and _stale_status_possible(joined):
            return None
        heads: list[tuple[int, str]] = []
        for n in range(at + 1, end):
            title = _h3_title(keys[n])
            if title is not None:
                heads.append((lines[n], title))
        _checkpoint_heads(heads, bad, checkpoints)
    nlines = first_line + totals[-1] + len(parts) - 1 + (0 if probe.endswith(b"\n") else 1)
    return sections, files, bad, checkpoints, nlines


def _scan_body(probe: bytes, first_line: int, blocks: list[tuple[int, int]]) -> _BodyFacts | None:
    """Body facts found heading by heading, skipping code blocks."""
    # headings: (level, title, line, line break before it, end of its line)
    heads: list[tuple[int, str, int, int, int]] = []
    line, counted = first_line, 0
    at = probe.find(b"\n#")
    while at >= 0:
        line += probe.count(b"\n", counted, at + 1)
        counted = at + 1
        eol = probe.find(b"\n", counted)
        if eol < 0:
            eol = len(probe)
        head = _heading(probe[counted:eol])
        if head is not None and not (blocks and any(start < at < end for start, end in blocks)):
            heads.append((head[0], head[1], line, at, eol))
        at = probe.find(b"\n#", eol)
    nlines = line + probe.count(b"\n", counted) + (0 if probe.endswith(b"\n") else 1)
    sections: list[tuple[str, int]] = []
    h2 = [h for h in heads if h[0] == 2]
    files: list[tuple[int, str]] = []
    bad: list[int] = []
    checkpoints: list[tuple[int, str]] = []
    seen_files = seen_checkpoints = False
    last = len(h2) - 1
    for n, (_, title, start, _, eol) in enumerate(h2):
        sections.append((title, start))
        body = probe[eol + 1 : h2[n + 1][3]] if n < last else probe[eol + 1 :]
        if title == "Files touched" and not seen_files:
            seen_files = True
            found = _files(body, start)
            if found is None:
                return None
            files = found
        elif title == "Checkpoints" and not seen_checkpoints:
            seen_checkpoints = True
            end = h2[n + 1][2] if n < last else nlines
            if _stale_status_possible(body):
                return None
            _checkpoint_heads(
                [(ln, sub) for level, sub, ln, _, _ in heads if level == 3 and start < ln < end],
                bad,
                checkpoints,
            )
    return sections, files, bad, checkpoints, nlines


def _fm_key_line(frontmatter: str) -> Any:
    """``key_line`` for flat frontmatter (every key at the start of its line)."""

    def key_line(key: str) -> int | None:
        for n, line in enumerate(frontmatter.split("\n")):
            if line.startswith(key + ":"):
                return n + 2
        return None

    return key_line


# -- the clean-page verdict ------------------------------------------------------
#
# Most pages lint clean, and most pages of a wiki share their outline.  The body
# is split at its "##" lines as in _split_body; the outline (the level-2
# heading lines, and where deeper ones sit) is judged once per schema and
# remembered: schema sections in the schema's order, each once, the required
# ones present, nothing deeper under Files touched.  Per page only what differs
# is checked: the Files touched bullets (all citations with a SHA), the level-3
# headings under Checkpoints (all "### <Event> at <YYYY-MM-DDTHH:MM:SSZ>", in
# time order), no stale status, the line caps.  A page that passes has no body
# finding; any other page is split and linted as before, so the verdict can
# make a clean page faster but never change a finding.

#: the keys (the heading lines after "##", one per line) of checkpoint headings
#: _plain_checkpoint_at reads ("# ", printable ASCII first, no "#" after it), each
#: giving its timestamp; the time and the day are checked here as far as a pattern
#: can (days 29-31 are checked against the calendar by parse_timestamp)
_CHECKPOINT_KEYS = re.compile(
    rb"^# [!-\"$-~][^\n#]* at ("
    rb"(?!0000)[0-9]{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12][0-9]|3[01])"
    rb"T(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]Z)$",
    re.MULTILINE,
)
#: what a clean outline gives the per-page checks: (the Files touched heading line,
#: the Checkpoints one, the level-2 heading line after that, the number of headings
#: under Checkpoints), each line with the line break before it (b"" for none, or for
#: no level-2 heading after Checkpoints)
_Outline = tuple[bytes, bytes, bytes, int]
#: a "##" line deeper than level 2 in a body's shape (see _LINES)
_DEEPER = b"###"
#: a line that starts with a space in a body's shape
_SPACED = b" "
#: the shape of a body: each line that starts with "##" (the whole line; ``_DEEPER`` for
#: those deeper than level 2) or with a space (``_SPACED``: plain_outline asks whether
#: there is one); "\n##" cannot start inside a match, so the "##" lines found are the
#: ones ``split(b"\n##")`` splits at
_LINES = re.compile(rb"\n(##(?:#|[^\n]*+)| )")
#: the checkpoint headings _CHECKPOINT_KEYS reads, as lines of the section's text
_CHECKPOINT_LINES = re.compile(rb"\n##" + _CHECKPOINT_KEYS.pattern.removeprefix(b"^"), re.MULTILINE)


class _BodyPlan:
    """The outlines one schema has judged (see the comment above)."""

    def __init__(self, schema: Schema) -> None:
        self.schema = schema
        # the key of each section's own heading line -> its place in the schema
        self.places: dict[bytes, int] | None = {}
        for n, title in enumerate(schema.sections):
            if not title.isprintable() or atx_heading("## " + title) != (2, title):
                self.places = None  # a title that does not read back from its own heading
                break
            self.places[b"## " + title.encode()] = n
        if not schema.strict_order or not schema.sections:
            self.places = None
        self.required = frozenset(schema.required_sections)
        self.outlines: dict[tuple[bytes, ...], _Outline | None] = {}
        # the most lines a page may have without a line-cap finding (None: no cap)
        caps = [schema.hard_cap, schema.soft_target[1] if schema.soft_target else None]
        self.most_lines = min((cap for cap in caps if cap is not None), default=None)

    def outline(self, shape: tuple[bytes, ...]) -> _Outline | None:
        """The parts to check of a body with this outline, or ``None`` when the outline
        itself has a finding or needs the general scan."""
        known = self.outlines.get(shape, _UNREAD)
        if known is _UNREAD:
            known = self._judge(shape)
            _remember(self.outlines, shape, known)
        return known  # type: ignore[no-any-return]

    def _judge(self, shape: tuple[bytes, ...]) -> _Outline | None:
        places = self.places
        if places is None:
            return None
        sections = self.schema.sections
        last = -1
        title = ""
        seen: set[str] = set()
        files = checkpoints = after = b""
        heads = 0
        for key in shape:
            if key == _DEEPER:
                if title == "Files touched":
                    return None  # (the general scan reads those)
                if title == CHECKPOINTS:
                    heads += 1
                continue
            place = places.get(key)
            if place is None or place <= last:  # unknown, not canonical, twice or out of order
                return None
            last = place
            if title == CHECKPOINTS:
                after = b"\n" + key
            title = sections[place]
            seen.add(title)
            if title == CHECKPOINTS:
                checkpoints = b"\n" + key
            elif title == "Files touched":
                files = b"\n" + key
        if not seen or not self.required <= seen:
            return None
        return files, checkpoints, after, heads


def body_findings(
    probe: bytes,
    data: bytes,
    schema: Schema,
    utf8: bool = True,
    path: str | None = None,
    first_line: int = 0,
    lines: list[bytes] | None = None,
    blocks: list[tuple[int, int]] | None = None,
) -> list[Diagnostic] | None:
    """The body findings of ``schema`` (AW005-AW012, AW015-AW017) for the body
    ``probe`` of the plain page ``data`` (see :func:`_front`), when its outline is
    clean; ``None``: split the page and run the rules.

    ``blocks`` are the body's fenced code blocks (:func:`plain_outline`): none may
    hold a line starting with ``#`` (then every ``##`` line is a heading and the
    checkpoint headings are the ones counted here) nor lie in ``Files touched``
    (whose bullets are read line by line); else ``None``.  Elsewhere (the manifest
    block a PreCompact checkpoint carries) a block changes no finding: it adds no
    heading, no bullet the verdict reads, and a status line in it only sends the
    page to the general path.

    ``[]`` for a clean body.  Findings are found here only in ``Files touched``
    (a bullet that is no citation, a citation without a SHA: the usual
    finding); a body with any other finding, or one over a line cap, is
    ``None``.  ``utf8`` says whether ``probe`` is known to be UTF-8; if not, it
    is checked here.  ``first_line`` is the line (0-based) before the body's
    first.  ``lines`` is ``_LINES.findall(probe)`` when the caller has it.
    """
    if blocks and any(probe.find(b"\n#", start + 1, end) >= 0 for start, end in blocks):
        return None
    if lines is None:
        lines = _LINES.findall(probe)
    rules = _plan(schema)  # (the schema's plan for the rules keeps its body plan too)
    plan: _BodyPlan | None = rules.body
    if plan is None:
        plan = rules.body = _BodyPlan(schema)
    shape = tuple(lines if _SPACED not in lines else [k for k in lines if k != _SPACED])
    outline = plan.outlines.get(shape, _UNREAD)
    if outline is _UNREAD:
        outline = plan.outline(shape)
    if outline is None:
        return None
    if not utf8 and not _utf8(probe):
        return None
    files, checkpoints, after, heads = outline
    breaks = -1  # the page's line breaks, once counted
    found: list[Diagnostic] = []
    at = -1  # where the Files touched heading's line begins
    if files:
        line = files + b"\n"  # (the heading's whole line: where the body starts)
        at = probe.find(line)
        if at >= 0:
            start = at + len(line)
        else:  # (the heading is the last line, or not there)
            at = _line_at(probe, files, 0)
            if at < 0:
                return None
            start = len(probe)
        end = probe.find(b"\n##", start - 1)
        if end < 0:
            end = len(probe)
        if blocks and any(b_start < end and start < b_end for b_start, b_end in blocks):
            return None
        body = probe[start:end]
        bullets = _uncited(body)
        if bullets is None:
            return None
        if bullets:
            # a bullet's line: the line breaks before it (the body's first line follows
            # the heading's line break), counted on from the bullet before, and on to the
            # end for the line caps (the page's line breaks: the probe's and first_line)
            where, counted = first_line, 0
            for off, text, citation in bullets:
                where += probe.count(b"\n", counted, start + off)
                counted = start + off
                if citation is None:
                    found += files_findings([(where, text)], (), path)
                else:
                    found.append(no_sha(citation, where, path))
            breaks = where + probe.count(b"\n", counted)
    if checkpoints:
        start = _line_at(probe, checkpoints, 0)
        if not after:  # (the last section)
            end = len(probe)
        elif after == files:  # (the usual order: Files touched next, found already)
            end = at
        else:
            end = _line_at(probe, after, start + 1)
        if start < 0 or end < 0:
            return None
        own = probe[start:end]
        if _stale_status_possible(own):
            return None
        if heads:
            stamps = _CHECKPOINT_LINES.findall(own)
            if len(stamps) != heads:
                return None  # (a heading of another shape, or a time that is none)
            if len(stamps) > 1 and stamps != sorted(stamps):  # (text order is time order)
                return None
            for stamp in stamps:
                if stamp[8:10] > b"28" and parse_timestamp(stamp.decode()) is None:
                    return None
    most = plan.most_lines
    if most is not None:
        if breaks < 0:
            breaks = data.count(b"\n")
        if breaks >= most and breaks + (data[-1:] != b"\n") > most:  # (the lines: one more
            return None  # when the last has no line break)
    return found


def _line_at(probe: bytes, line: bytes, start: int) -> int:
    """Where ``line`` (a heading's whole line and the line break before it) begins in
    ``probe`` from ``start`` on, or -1."""
    at = probe.find(line, start)
    while at >= 0:
        end = at + len(line)
        if end == len(probe) or probe[end] == 10:  # (the whole line, not its start)
            return at
        at = probe.find(line, at + 1)
    return -1


def _utf8(data: bytes) -> bool:
    """Are these bytes UTF-8?"""
    try:
        data.decode()
    except UnicodeDecodeError:
        return False
    return True


def _front(data: bytes, off: frozenset[str] = frozenset()) -> _Front | None:
    """(meta, frontmatter, probe, first line, code blocks, UTF-8 checked) of a plain
    page, or ``None`` (for callers that know the fast lanes are on; ``off``: the lanes
    :func:`~sessionkit._fastpaths.lanes_off` names).

    ``probe`` is the body with the line break before its first line (so
    ``b"\n#"`` finds every heading); ``first line`` is the closing fence's
    line (0-based), the body follows it.  The checks that send a page to the
    general path before its body is split are done here.  Whether the body
    is UTF-8 is left to the caller when nothing here needs to know (the last
    item is False then): the clean-page verdict checks only the parts that
    are not ASCII.
    """
    # (an int for a one-byte search: "b'x' in data" first fails to read b'x' as an int)
    if not data.startswith(b"---\n") or 13 in data or 9 in data:  # CR, tab
        return None
    checked = data.isascii()
    close = data.find(b"\n---", 3)
    if close < 0:
        return None
    after = close + 4
    size = len(data)
    if after < size and data[after] != 10:  # b"\n"
        return None
    try:
        frontmatter = data[4 : close + 1].decode()
    except UnicodeDecodeError:
        return None
    # (fast_mapping's reader: the quick scan runs only with the fast lanes on)
    meta = _mapping(frontmatter) if "flat-frontmatter" not in off else None
    if meta is None:
        return None
    _fastpaths.answered("flat-frontmatter")
    probe = data[close + 4 :] if after < size else b"\n"
    first_line = frontmatter.count("\n") + 1
    # the headings are the lines starting with "#" that read as such, outside fenced code
    lines = _LINES.findall(probe)
    blocks = plain_outline(probe, _SPACED in lines)
    if blocks is None:
        return None
    return meta, frontmatter, probe, first_line, blocks, checked, lines


def _facts(front: _Front, path: str | None) -> PageFacts | None:
    """The facts of a page :func:`_front` took (``None``: the general path)."""
    meta, frontmatter, probe, first_line, blocks, checked, _ = front
    if not checked and not _utf8(probe):
        return None
    found = _scan_body(probe, first_line, blocks) if blocks else _split_body(probe, first_line)
    if found is None:
        return None
    sections, files, bad, checkpoints, nlines = found
    return PageFacts(
        path=path,
        meta=meta,
        problem=None,
        key_line=_fm_key_line(frontmatter),
        sections=sections,
        nlines=nlines,
        files=None if files is _ALL_CITED else files,
        files_loose=[],
        bad_checkpoints=bad,
        checkpoints=checkpoints,
        stale_status=[],
    )


def quick_lint_bytes(
    data: bytes,
    path: str | None,
    schema: Schema | None = None,
    version: int | None = None,
    off: frozenset[str] | None = None,
) -> list[Diagnostic] | None:
    """The lint findings of a plain session page's bytes, or ``None`` for the general path.

    ``None`` also for a page that is not an aiwiki session page of a known
    ``schema_version``.  ``version`` is the format's version when the caller
    names one (``None``: the page's own).  For callers that know the fast lanes are
    on (:func:`sessionkit._fastpaths.enabled`); ``off`` is what
    :func:`~sessionkit._fastpaths.lanes_off` says, when the caller has asked it.  A
    page whose body outline is clean (the common case, findings or not) is linted by
    :func:`body_findings` and the frontmatter rules alone; any other page by its facts.
    """
    if off is None:
        off = _fastpaths.lanes_off()
    front = _front(data, off)
    if front is None:
        return None
    meta = front[0]
    if meta.get("schema_id") != "session":
        return None
    declared = meta.get("schema_version")
    if type(declared) is not int or declared not in (1, 2):  # not 2.0, not True
        return None
    if version is None:
        version = declared
    rules, rules_version = rules_for(meta, schema, version)
    if "clean-verdict" not in off:
        found = body_findings(front[2], data, rules, front[5], path, front[3], front[6], front[4])
        if found is not None:
            _fastpaths.answered("clean-verdict")
            if meta_clean(meta, path, rules, rules_version):
                return found
            key_line = _fm_key_line(front[1])
            return by_line(meta_findings(meta, path, key_line, rules, rules_version) + found)
    facts = _facts(front, path)
    if facts is None:
        return None
    return lint_facts(facts, schema, version)
