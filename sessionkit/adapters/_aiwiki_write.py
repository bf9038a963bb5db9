"""Writing aiwiki session pages: the canonical layout, and minimal edits to an existing page.

An edit re-reads the base page, compares the new session with it field by
field and turns each difference into a splice of the base's lines, so every
byte nobody changed stays as it was.
"""

from __future__ import annotations

import datetime as dt
import itertools
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, cast

from .. import _yaml
from .._diff import opcodes
from .._lines import batched, chunked
from ..document import Document, parse_pieces
from ..errors import FormatError
from ..model import (
    Block,
    Checkpoint,
    Citation,
    ExtraSection,
    Session,
    list_blocks,
)
from ..text.grammar import DATE
from ._aiwiki_parse import (
    CHECKPOINTS,
    KEY_FIELDS,
    LIST_FIELDS,
    PLACEHOLDER,
    RESERVED_KEYS,
    CheckpointSpan,
    ItemSpan,
    Layout,
    checkpoint_lines,
    directive_header,
    item_lines,
    read_page,
)
from ._aiwiki_schema import Schema

__all__ = [
    "checkpoint_lines",
    "directive_header",
    "edit_page",
    "item_lines",
    "render_page",
    "yaml_text",
]

# a splice: (start, end, new lines without line ends, sequence number)
_Edit = tuple[int, int, list[str], int]

_YAML_PRINTABLE = re.compile("[^\x20-\x7e\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]|\ufeff")
#: the characters of Unicode categories Zl and Zp (U+2028 and U+2029, the only ones;
#: ``tests/adapters/test_aiwiki_quoting.py`` checks every code point)
_LINE_SEPARATORS = re.compile("[\u2028\u2029]")
#: a UUID (an agent's session id), plain in every YAML reader: no number, date or word of YAML
_UUID = re.compile(r"[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}")


def _double_quoted(text: str) -> str:
    out = ['"']
    for ch in text:
        code = ord(ch)
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif _YAML_PRINTABLE.match(ch) or ch in "\u2028\u2029":
            # (a raw line separator would be a line break YAML folds into a space)
            if code <= 0xFF:
                out.append(f"\\x{code:02x}")
            elif code <= 0xFFFF:
                out.append(f"\\u{code:04x}")
            else:
                out.append(f"\\U{code:08x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def _str_text(value: str) -> str:
    """:func:`yaml_text` of a string."""
    if _YAML_PRINTABLE.search(value) or _LINE_SEPARATORS.search(value):
        return _double_quoted(value)
    return _yaml.scalar(value)


def yaml_text(value: Any) -> str:
    """One-line YAML for ``value`` that the strict loader reads back as ``value``."""
    if isinstance(value, str):
        return _str_text(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(yaml_text(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{yaml_text(k)}: {yaml_text(v)}" for k, v in value.items()) + "}"
    return _yaml.scalar(value)


def key_text(key: str, value: Any, schema: Schema) -> str:
    """One-line YAML for the value of frontmatter key ``key``."""
    if key == "last_commit" and type(value) is str and "'" not in value and value.isprintable():
        return f"'{value}'"  # a SHA is always written quoted (a reader may take 1e10 for a number)
    if key == "session_id" and type(value) is str and _UUID.fullmatch(value):
        return value  # (as the plugin writes it)
    if isinstance(value, str) and DATE.fullmatch(value):
        rule = schema.key(key)
        if rule is not None and rule.type == "date":
            try:
                dt.date.fromisoformat(value)
            except ValueError:
                pass
            else:
                return value
    return yaml_text(value)


def _key_values(session: Session) -> dict[str, Any]:
    return {
        "status": str(session.status),
        "date_start": session.started,
        "date_end": session.ended,
        "session_id": session.id,
        "focus": session.focus,
        "last_commit": session.last_commit,
    }


# -- rendering pieces ---------------------------------------------------------


def citation_text(c: Citation) -> str:
    """A Files touched bullet's text for a citation (or a verbatim fallback)."""
    return c.render()


CHECKPOINT_BLOCKS = "checkpoints"


def checkpoints_lines(session: Session) -> list[str]:
    """The body of ``## Checkpoints``: the text before the first entry, then the entries."""
    out: list[str] = []
    pre = session.blocks.get(CHECKPOINT_BLOCKS)
    if pre:
        out.extend([*block_lines(pre), ""])
    for cp in session.checkpoints:
        out.extend(checkpoint_lines(cp))
        out.append("")
    while out and out[-1] == "":
        out.pop()
    return out


def _section_items(session: Session, title: str) -> Iterable[str]:
    field = LIST_FIELDS[title]
    if field == "files_touched":
        return map(citation_text, session.files_touched)
    texts: tuple[str, ...] = getattr(session, field)
    return texts


def block_lines(blocks: Sequence[Block]) -> list[str]:
    """The lines of a list section's blocks (see :class:`~sessionkit.model.Block`):
    items as ``<marker> <text>``, other blocks as written, each after its gap."""
    out: list[str] = []
    for n, b in enumerate(blocks):
        if n:
            out.extend([""] * b.gap)
        if b.marker is None:
            out.extend(b.text.split("\n"))
        else:
            out.extend((f"{b.marker} {b.text}" if b.text else b.marker).split("\n"))
    return out


def list_section_lines(session: Session, title: str) -> list[str]:
    """The body of list section ``title`` as the writer spells it (no blank lines
    around it): its blocks, or the items, or the placeholder when it is empty."""
    return list(_section_lines(session, title))


def _section_lines(session: Session, title: str) -> Iterator[str]:
    """:func:`list_section_lines`, a line at a time."""
    field = LIST_FIELDS[title]
    if field in session.blocks:
        yield from block_lines(list_blocks(session, field))
        return
    empty = True
    for text in _section_items(session, title):
        empty = False
        if "\n" in text:
            yield from item_lines(text)
        else:
            yield "- " + text
    if empty:
        yield PLACEHOLDER


def render_page(session: Session, schema: Schema, version: int) -> Document:
    """Render ``session`` in the canonical layout of the schema's skeleton."""
    if version < 2 and session.id is not None:
        raise FormatError("aiwiki v1 pages have no session_id; use aiwiki-v2")
    if version < 2 and session.checkpoints:
        raise FormatError("aiwiki v1 pages have no ## Checkpoints; use aiwiki-v2")
    clash = [k for k in session.extra if k in RESERVED_KEYS]
    if clash:
        raise FormatError(f"extra frontmatter key {clash[0]!r} collides with a schema key")
    values = _key_values(session)
    front = ["---", "schema_id: session", f"schema_version: {version}"]
    order = ["status", "date_start", "date_end", "session_id", "focus", "last_commit"]
    for key in order:
        value = values[key]
        if key == "date_end" and value is None:
            continue
        if key == "session_id" and version < 2:
            continue
        front.append(f"{key}: {key_text(key, value, schema)}")
    for key, value in session.extra.items():
        front.append(f"{yaml_text(key)}: {yaml_text(value)}")
    front.append("---")
    # the body's lines (held apart from the frontmatter's, see below); a big list section
    # is one iterator of its lines joined a batch at a time (never all strings at once)
    lines: list[str | Iterator[str]] = []
    extras = list(session.sections)
    if extras and extras[0].title == "":
        # the preamble stands where the blank line after the frontmatter would
        pre = extras.pop(0)
        if pre.body:
            lines.append(pre.body)  # (its lines, "\n" between: the body as it is)
    lines.append("")
    titles = list(schema.sections)
    for title in (CHECKPOINTS, *LIST_FIELDS):
        if title not in titles:
            titles.append(title)
    for title in titles:
        if title == CHECKPOINTS:
            if session.checkpoints or CHECKPOINT_BLOCKS in session.blocks:
                lines.extend([f"## {CHECKPOINTS}", ""])
                lines.extend(checkpoints_lines(session))
                lines.append("")
            continue
        if title not in LIST_FIELDS:
            continue
        lines.extend([f"## {title}", ""])
        section = _section_lines(session, title)
        first = list(itertools.islice(section, 4096))
        if len(first) == 4096:
            lines.append(batched(itertools.chain(first, section)))
        elif first:
            lines.append("\n".join(first))
        lines.append("")
    for sec in extras:
        lines.append(f"## {sec.title}" if sec.title else "##")
        if sec.body:
            lines.append(sec.body)
        lines.append("")
    # the frontmatter and the body's pieces, cut where the width changes: a character in
    # the frontmatter (an emoji in the focus) or in one line does not widen a big body
    # (see parse_pieces)
    head = "\n".join(front) + "\n"
    if any(not isinstance(part, str) for part in lines):  # (a big list section)
        return parse_pieces((head, *_ended(chunked(_joined(lines)))))
    body = "\n".join(cast("list[str]", lines))
    lines.clear()  # (a big checkpoint log's lines go before the body's are found)
    return parse_pieces((head, *_ended(chunked((body,)) if len(body) > 1 << 16 else (body,))))


def _joined(parts: Iterable[str | Iterator[str]]) -> Iterator[str]:
    """The pieces of ``"\\n".join(parts)``, an iterator part's pieces in order."""
    for n, part in enumerate(parts):
        if n:
            yield "\n"
        if isinstance(part, str):
            yield part
        else:
            yield from part


def _ended(pieces: Iterable[str]) -> list[str]:
    """``pieces`` with the blank lines at their end cut to one line end (a section
    may end with blank lines of its own)."""
    out = list(pieces)
    while out and out[-1].count("\n") == len(out[-1]):  # (blank: looked at, not copied)
        out.pop()
    if out:
        last = out[-1]
        end = len(last)
        while last[end - 1] == "\n":
            end -= 1
        if end == len(last):
            out[-1] = last + "\n"
        elif end < len(last) - 1:  # (a big body is cut once, not copied twice)
            out[-1] = last[: end + 1]
    return out


# -- minimal edits ------------------------------------------------------------

_KEY_PREFIX = re.compile(
    r"""^(?P<pre>(?:"(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[^:#'"]*?)[ \t]*:)(?P<rest>.*)$"""
)


def _value_end(rest: str) -> int | None:
    """End of the scalar at the start of ``rest`` (None if it is not a one-line scalar)."""
    if not rest:
        return 0
    if rest[0] == "'":
        i = 1
        while i < len(rest):
            if rest[i] == "'":
                if i + 1 < len(rest) and rest[i + 1] == "'":
                    i += 2
                    continue
                return i + 1
            i += 1
        return None
    if rest[0] == '"':
        i = 1
        while i < len(rest):
            if rest[i] == "\\":
                i += 2
                continue
            if rest[i] == '"':
                return i + 1
            i += 1
        return None
    if rest[0] in "[{|>&*!%@`":
        return None
    m = re.search(r"[ \t]+#", rest)
    end = m.start() if m else len(rest)
    return len(rest[:end].rstrip(" \t"))


def replace_value(line: str, value_text: str) -> str | None:
    """``line`` (``key: old  # comment``) with its value replaced, comment kept; or None."""
    m = _KEY_PREFIX.match(line)
    if not m:
        return None
    rest = m.group("rest")
    lead = len(rest) - len(rest.lstrip(" \t"))
    body = rest[lead:]
    end = _value_end(body)
    if end is None:
        return None
    tail = body[end:]
    if tail.strip() and not tail.strip().startswith("#"):
        return None
    space = rest[:lead] or " "
    return m.group("pre") + space + value_text + tail


class _Editor:
    def __init__(self, base: Document) -> None:
        self.base = base
        self.edits: list[_Edit] = []

    def add(self, start: int, end: int, new: Sequence[str]) -> None:
        self.edits.append((start, end, list(new), len(self.edits)))

    def line(self, i: int) -> str:
        return self.base.line_text(i)

    def blank(self, i: int) -> bool:
        return 0 <= i < len(self.base.lines) and not self.base.lines[i].strip()

    def apply(self) -> Document:
        # (all at once: a splice an edit would copy the page once an edit)
        return self.base.edit_lines([(start, end, new) for start, end, new, _ in self.edits])


def _content_end(doc: Document, start: int, end: int) -> int:
    while end > start and not doc.lines[end - 1].strip():
        end -= 1
    return end


def _frontmatter(ed: _Editor, old: Session, new: Session, version: int, schema: Schema) -> None:
    doc = ed.base
    spans = doc.key_spans
    old_v, new_v = _key_values(old), _key_values(new)
    order = ["schema_id", "schema_version", "status", "date_start", "date_end"]
    order += ["session_id", "focus", "last_commit"]
    pending: list[str] = []

    def set_key(key: str, value: Any) -> None:
        text = key_text(key, value, schema)
        span = spans.get(key)
        if span is not None:
            if span[1] - span[0] == 1:
                replaced = replace_value(ed.line(span[0]), text)
                if replaced is not None:
                    ed.add(span[0], span[1], [replaced])
                    return
            ed.add(span[0], span[1], [f"{yaml_text(key)}: {text}"])
            return
        if doc.fm_close is None:
            pending.append(f"{yaml_text(key)}: {text}")
            return
        at = doc.fm_close
        if key in order:
            for prev in reversed(order[: order.index(key)]):
                if prev in spans:
                    at = spans[prev][1]
                    break
        ed.add(at, at, [f"{yaml_text(key)}: {text}"])

    for key in KEY_FIELDS:
        if old_v[key] == new_v[key]:
            continue
        if new_v[key] is None and key not in spans:
            continue
        if new_v[key] is None and key == "date_end":
            # an open session has no end date: the line goes, as render_page omits it
            ed.add(spans[key][0], spans[key][1], [])
            continue
        set_key(key, new_v[key])
    if old.extra != new.extra:
        for key in old.extra:
            if key not in new.extra and key in spans:
                ed.add(spans[key][0], spans[key][1], [])
        for key, value in new.extra.items():
            if key in RESERVED_KEYS:
                raise FormatError(f"extra frontmatter key {key!r} collides with a schema key")
            if key in old.extra and old.extra[key] == value and type(old.extra[key]) is type(value):
                continue
            set_key(key, value)
    if pending:
        ed.add(0, 0, ["---", *pending, "---"])


def _insert_section(
    ed: _Editor, layout: Layout, schema_titles: Sequence[str], title: str, body: list[str]
) -> None:
    doc = ed.base
    later = False
    at = len(doc.lines)
    for t in schema_titles:
        if t == title:
            later = True
            continue
        if later and t in layout.known:
            at = layout.known[t].start
            break
    block = [f"## {title}", "", *body]
    if at < len(doc.lines):
        block.append("")
        if at > 0 and not ed.blank(at - 1):
            block.insert(0, "")
    else:
        while block and block[-1] == "":
            block.pop()
        if doc.lines and not ed.blank(len(doc.lines) - 1):
            block.insert(0, "")
    ed.add(at, at, block)


def _diff_items(
    ed: _Editor,
    spans: Sequence[ItemSpan],
    old: Sequence[Any],
    new: Sequence[Any],
    render: Callable[[Any], list[str]],
) -> None:
    for tag, i1, i2, j1, j2 in opcodes(old, new):
        if tag == "equal":
            continue
        rendered = [line for x in new[j1:j2] for line in render(x)]
        if tag == "replace" and i2 - i1 == j2 - j1:
            for k in range(i2 - i1):
                ed.add(spans[i1 + k].start, spans[i1 + k].end, render(new[j1 + k]))
        elif tag == "insert":
            if i1 < len(spans):
                ed.add(spans[i1].start, spans[i1].start, rendered)
            else:
                ed.add(spans[-1].end, spans[-1].end, rendered)
        else:  # delete, or replace of unequal size
            ed.add(spans[i1].start, spans[i2 - 1].end, rendered)


def _list_section(
    ed: _Editor, layout: Layout, titles: Sequence[str], title: str, old: Session, new: Session
) -> None:
    field = LIST_FIELDS[title]
    old_items: tuple[Any, ...] = getattr(old, field)
    new_items: tuple[Any, ...] = getattr(new, field)
    if field in old.blocks or field in new.blocks:
        if old_items == new_items and old.blocks.get(field) == new.blocks.get(field):
            return
        sec = layout.known.get(title)
        body = list_section_lines(new, title)
        if sec is None:
            _insert_section(ed, layout, titles, title, body)
            return
        # a section laid out with more than plain items is written again as a whole
        at = sec.start + 1
        while at < sec.end and ed.blank(at):
            at += 1
        stop = _content_end(ed.base, sec.start + 1, sec.end)
        if at >= stop:
            ed.add(stop, stop, ["", *body])
        else:
            ed.add(at, stop, body)
        return
    if old_items == new_items:
        return

    def render(x: Any) -> list[str]:
        return item_lines(citation_text(x) if isinstance(x, Citation) else x)

    sec = layout.known.get(title)
    rendered = [line for x in new_items for line in render(x)]
    if sec is None:
        _insert_section(ed, layout, titles, title, rendered)
        return
    spans = layout.items.get(title, ())
    if spans:
        _diff_items(ed, spans, old_items, new_items, render)
        return
    ph = layout.placeholders.get(title)
    if ph is not None:
        ed.add(ph, ph + 1, rendered)
        return
    at = _content_end(ed.base, sec.start + 1, sec.end)
    if at == sec.start + 1:
        block = ["", *rendered]
        if sec.end == sec.start + 1 and sec.end < len(ed.base.lines):
            block.append("")
        ed.add(at, at, block)
    else:
        ed.add(at, at, ["", *rendered])


def _status_line(line: str, status: str) -> str:
    m = re.match(r"^(\s*[-*+][ \t]+Status:[ \t]*)", line)
    return (m.group(1) if m else "- Status: ") + status


def _edit_checkpoint(ed: _Editor, span: CheckpointSpan, old: Checkpoint, new: Checkpoint) -> None:
    whole = (
        old.body != new.body
        or len(old.directives) != len(new.directives)
        or any(
            a.kind != b.kind or len(a.items) != len(b.items)
            for a, b in zip(old.directives, new.directives, strict=True)
        )
    )
    if whole:
        ed.add(span.heading, span.content_end, checkpoint_lines(new))
        return
    if (old.event, old.at) != (new.event, new.at):
        ed.add(span.heading, span.heading + 1, [f"### {new.event} at {new.at}"])
    for dspan, a, b in zip(span.directives, old.directives, new.directives, strict=True):
        if (a.state, a.consumed_at) != (b.state, b.consumed_at):
            ed.add(dspan.header, dspan.header + 1, [directive_header(b)])
        item_spans = [s for s in dspan.items if s is not dspan.status]
        for s, x, y in zip(item_spans, a.items, b.items, strict=True):
            if x != y:
                ed.add(s.start, s.end, item_lines(y))
        if a.status != b.status:
            if dspan.status is not None:
                if b.status is None:
                    ed.add(dspan.status.start, dspan.status.end, [])
                else:
                    old_line = ed.line(dspan.status.start)
                    ed.add(dspan.status.start, dspan.status.end, [_status_line(old_line, b.status)])
            elif b.status is not None:
                at = dspan.items[-1].end if dspan.items else dspan.header + 1
                ed.add(at, at, [f"- Status: {b.status}"])


def _checkpoints(
    ed: _Editor, layout: Layout, titles: Sequence[str], old: Session, new: Session
) -> None:
    old_pre = old.blocks.get(CHECKPOINT_BLOCKS)
    new_pre = new.blocks.get(CHECKPOINT_BLOCKS)
    if old.checkpoints == new.checkpoints and old_pre == new_pre:
        return
    sec = layout.known.get(CHECKPOINTS)
    if old_pre != new_pre:  # the text before the first entry changed: the log is written again
        body = checkpoints_lines(new)
        if sec is None:
            _insert_section(ed, layout, titles, CHECKPOINTS, body)
            return
        at = sec.start + 1
        while at < sec.end and ed.blank(at):
            at += 1
        stop = _content_end(ed.base, sec.start + 1, sec.end)
        if at < stop:
            ed.add(at, stop, body)
        else:
            ed.add(stop, stop, ["", *body])
        return
    rendered_all: list[str] = []
    for cp in new.checkpoints:
        rendered_all.extend([*checkpoint_lines(cp), ""])
    while rendered_all and rendered_all[-1] == "":
        rendered_all.pop()
    if sec is None:
        _insert_section(ed, layout, titles, CHECKPOINTS, rendered_all)
        return
    spans = layout.checkpoints
    if not spans:
        at = _content_end(ed.base, sec.start + 1, sec.end)
        block = ["", *rendered_all]
        if at == sec.end and sec.end < len(ed.base.lines):
            block.append("")
        ed.add(at, at, block)
        return
    _checkpoint_opcodes(ed, spans, old, new)


def _checkpoint_opcodes(
    ed: _Editor, spans: Sequence[CheckpointSpan], old: Session, new: Session
) -> None:
    for tag, i1, i2, j1, j2 in opcodes(old.checkpoints, new.checkpoints):
        if tag == "equal":
            continue
        if tag == "replace" and i2 - i1 == j2 - j1:
            for k in range(i2 - i1):
                _edit_checkpoint(
                    ed, spans[i1 + k], old.checkpoints[i1 + k], new.checkpoints[j1 + k]
                )
            continue
        block: list[str] = []
        for cp in new.checkpoints[j1:j2]:
            block.extend([*checkpoint_lines(cp), ""])
        if tag == "insert":
            if i1 < len(spans):
                ed.add(spans[i1].heading, spans[i1].heading, block)
            else:
                at = spans[-1].content_end
                ed.add(at, at, ["", *block[:-1]])
            continue
        start = spans[i1].heading
        end = spans[i2 - 1].content_end
        if block:
            block.pop()
        elif i2 < len(spans):
            end = spans[i2].heading
        ed.add(start, end, block)


def _body_lines(body: str) -> list[str]:
    return body.split("\n") if body else []


def _extra_sections(ed: _Editor, layout: Layout, old: Session, new: Session) -> None:
    doc = ed.base
    old_x, new_x = list(old.sections), list(new.sections)
    old_pre = old_x.pop(0) if len(old_x) == len(layout.extra) + 1 else None
    new_pre = new_x.pop(0) if new_x and new_x[0].title == "" else None
    if (old_pre.body if old_pre else "") != (new_pre.body if new_pre else ""):
        start, end = layout.preamble
        lines = _body_lines(new_pre.body if new_pre else "")
        if end < len(doc.lines):
            lines.append("")
        ed.add(start, end, lines)
    if old_x == new_x:
        return
    spans = layout.extra

    def render(sec: ExtraSection) -> list[str]:
        return [f"## {sec.title}" if sec.title else "##", *_body_lines(sec.body)]

    for tag, i1, i2, j1, j2 in opcodes(old_x, new_x):
        if tag == "equal":
            continue
        if tag == "replace" and i2 - i1 == j2 - j1:
            for k in range(i2 - i1):
                a, b, s = old_x[i1 + k], new_x[j1 + k], spans[i1 + k]
                if a.title != b.title:
                    ed.add(s.start, s.start + 1, render(b)[:1])
                if a.body != b.body:
                    ed.add(s.start + 1, _content_end(doc, s.start + 1, s.end), _body_lines(b.body))
            continue
        for k in range(i1, i2):  # one by one: known sections may sit between them
            ed.add(spans[k].start, spans[k].end, [])
        if j2 > j1:
            block: list[str] = []
            for sec in new_x[j1:j2]:
                block.extend([*render(sec), ""])
            at = spans[i1].start if i1 < len(spans) else len(doc.lines)
            if at >= len(doc.lines):
                block.pop()
                if doc.lines and not ed.blank(len(doc.lines) - 1):
                    block.insert(0, "")
            ed.add(at, at, block)


def edit_page(session: Session, base: Document, schema: Schema, version: int) -> Document:
    """Edit ``base`` minimally so that it reads as ``session``."""
    old, layout = read_page(base)
    if old == session:
        return base
    ed = _Editor(base)
    titles = list(schema.sections)
    for title in (CHECKPOINTS, *LIST_FIELDS):
        if title not in titles:
            titles.append(title)
    _frontmatter(ed, old, session, version, schema)
    _checkpoints(ed, layout, titles, old, session)
    for title in LIST_FIELDS:
        _list_section(ed, layout, titles, title, old, session)
    _extra_sections(ed, layout, old, session)
    return ed.apply()
