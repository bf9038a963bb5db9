"""Writing Basic Memory notes: new notes as Basic Memory's ``write_note`` writes them,
and minimal edits of an existing note (only what changed is spliced)."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

import attrs
import yaml

from ..._diff import opcodes
from ..._lines import Lines, batched, chunked, handed
from ...document import MANY_LINES, Document, Section
from ...errors import FormatError
from ...markdown import tokenize
from ...model import ExtraSection, Link, LinkStyle, Observation, Session
from ..profiles import AIWIKI
from .grammar import BMObservation, BMRelation, iter_facts
from .permalink import filename_for_title, generate_permalink
from .read import (
    _CATEGORY_FIELDS,
    _FACT_SECTIONS,
    _KEY_FIELDS,
    _LEGACY_ID,
    _RESERVED,
    _SHARED_ID,
    DEFAULT_FOLDER,
    _classify,
    _fact_lines,
    _filed,
    _id_key,
    _link_of,
    _loose_lines,
    _new_id_key,
    _Pos,
    _sections_of,
    status_word_of,
)

__all__ = ["dump_yaml", "note_path", "render_note"]


class _Dumper(yaml.SafeDumper):
    """``SafeDumper`` that double-quotes a string holding U+0085 (NEL): raw in a plain
    scalar YAML reads it as a line break, so it would not read back (Basic Memory's
    own ``write_note`` loses it)."""


_Dumper.add_representer(
    str,
    lambda dumper, value: dumper.represent_scalar(
        "tag:yaml.org,2002:str", value, style='"' if "\x85" in value else None
    ),
)


def dump_yaml(data: Mapping[str, Any]) -> str:
    """Frontmatter YAML exactly as Basic Memory's ``write_note`` dumps it.

    PyYAML ``SafeDumper``, insertion order, unicode kept, block style (so
    lists are ``- item`` lines), PyYAML's default width and quoting.
    """
    return yaml.dump(
        dict(data), Dumper=_Dumper, sort_keys=False, allow_unicode=True, default_flow_style=False
    )


# --------------------------------------------------------------------------
# writing


def _check_line(text: str, what: str) -> str:
    if "\n" in text or "\r" in text:
        raise FormatError(f"{what} spans several lines; a Basic Memory observation is one line")
    if not text.strip():
        raise FormatError(f"{what} is empty; Basic Memory drops empty observations")
    return text.strip()


def _render_observation(obs: Observation) -> str:
    content = _check_line(obs.content, "an observation")
    head = f"- {content}" if obs.category is None else f"- [{obs.category}] {content}"
    if obs.context is not None:
        head += f" ({obs.context})"
    return head


def _render_category(category: str, text: str) -> str:
    return f"- [{category}] {_check_line(text, f'a [{category}] observation')}"


def _render_relation(link: Link) -> str:
    if link.style is LinkStyle.MARKDOWN:
        line = f"- [{link.label or ''}]({link.target})"
    else:
        rel = link.relation
        if not rel or any(c.isspace() for c in rel):
            rel = '"' + rel.replace('"', "'") + '"'
        target = link.target + (f"|{link.label}" if link.label else "")
        line = f"- {rel} [[{target}]]"
    if link.context is not None and link.style is not LinkStyle.MARKDOWN:
        line += f" ({link.context})"
    return line


def _normalize(session: Session) -> Session:
    """Fold model parts Basic Memory has no place for into ones it has."""
    if not session.files_touched and not session.checkpoints and not session.blocks:
        return session
    observations = list(session.observations)
    for cite in session.files_touched:
        observations.append(Observation(category="file", content=cite.render()))
    sections = list(session.sections)
    for title, field in AIWIKI.sections.items():  # prose among list items: a section of its own
        prose = [b.text for b in session.blocks.get(field, ()) if not b.is_item]
        if prose:
            sections.append(ExtraSection(title=title, body="\n\n".join(prose)))
    pre = session.blocks.get("checkpoints")
    if session.checkpoints or pre:
        parts: list[str] = [b.text + "\n" for b in pre or ()]
        for cp in session.checkpoints:
            parts.append(f"### {cp.event} at {cp.at}")
            if cp.body:
                parts.extend(["", cp.body])
            parts.append("")
        sections.append(ExtraSection(title="Checkpoints", body="\n".join(parts).rstrip("\n")))
    return attrs.evolve(
        session,
        files_touched=(),
        checkpoints=(),
        observations=tuple(observations),
        sections=tuple(sections),
        blocks={},
    )


def note_path(title: str, folder: str = DEFAULT_FOLDER) -> str:
    """The project-relative path ``write_note`` gives a note: ``{folder}/{title}.md`` sanitised."""
    name = filename_for_title(title) + ".md"
    folder = folder.strip("/")
    return f"{folder}/{name}" if folder else name


def _default_title(session: Session) -> str:
    if session.title:
        return session.title
    if session.started:
        return "Session " + session.started.replace("T", " ").rstrip("Z")[:19]
    if session.short_id:
        return f"Session {session.short_id}"
    return "Session"


def _frontmatter(session: Session, folder: str, project: str | None) -> dict[str, Any]:
    title = _default_title(session)
    meta: dict[str, Any] = {"title": title, "type": session.extra.get("type", "session")}
    permalink = session.extra.get("permalink")
    if permalink is None:
        permalink = generate_permalink(note_path(title, folder), project=project)
    meta["permalink"] = permalink
    meta["status"] = status_word_of(session)
    id_key = _new_id_key(session.extra)
    for key, attr in _KEY_FIELDS.items():
        value = getattr(session, attr)
        if value is not None and not (key == _LEGACY_ID and id_key == _SHARED_ID):
            meta[key] = value
    for key, value in session.extra.items():
        if key not in ("type", "permalink", "title", "tags") and key not in meta:
            meta[key] = value
            if key == "agent" and id_key == _SHARED_ID and session.id is not None:
                meta[_SHARED_ID] = session.id  # after its agent, as the hooks write it
    if session.tags:
        meta["tags"] = list(session.tags)
    return meta


def _multiset_remove(items: Sequence[Any], implied: Iterable[Any]) -> list[Any]:
    remaining = list(items)
    for value in implied:
        if value in remaining:
            remaining.remove(value)
    return remaining


def _render_body(session: Session, *, implied: bool = True) -> list[str | Iterator[str]]:
    """The body as parts to join (:func:`_pieces`): prose sections, ``## Observations``,
    ``## Relations``, fact lines made in batches as the note is joined.  ``implied``: facts
    the prose (or an observation line) already holds are not written again."""
    blocks: list[list[str | Iterator[str]]] = []  # a prose section's parts (not copied)
    loose: dict[str, list[str]] = {}  # the no-fact lines of the fact sections
    for sec in session.sections:
        if sec.title in _FACT_SECTIONS:
            if sec.body:
                loose.setdefault(sec.title, []).append(sec.body)
            continue
        body = sec.body
        if not sec.title:
            blocks.append([body])
            continue
        end = len(body)
        while end and body[end - 1] == "\n":  # (a heading and its body, newlines cut)
            end -= 1
        blocks.append([f"## {sec.title}\n\n", body[:end]] if end else [f"## {sec.title}"])
    summary = session.summary
    lists: dict[str, Sequence[Any]] = {
        attr: getattr(session, attr)
        for attr in (*_CATEGORY_FIELDS.values(), "observations")
        if attr != "summary"
    }
    relations: list[Link] = list(session.relations)
    prose = "\n\n".join("".join(_pieces(block)) for block in blocks) if implied else ""
    if prose:
        found: list[BMRelation] = []
        for attr, value in _filed(_observations_apart(prose, found)):
            if attr == "summary":
                if value == summary:
                    summary = None
            elif value in lists[attr]:
                left = lists[attr]
                if not isinstance(left, list):  # (copied once, when first needed)
                    left = lists[attr] = list(left)
                left.remove(value)
        relations = _multiset_remove(relations, (_link_of(r) for r in found))
    obs_pieces: Iterator[str] = batched(_observation_lines(summary, lists))
    if implied and relations:
        obs_text = "".join(obs_pieces)
        if "[" in obs_text:
            inline = [f for f in iter_facts(_lines_of(obs_text)) if isinstance(f, BMRelation)]
            relations = _multiset_remove(relations, (_link_of(r) for r in inline))
        obs_pieces = iter((obs_text,))
    rel_pieces = batched(_render_relation(link) for link in relations)
    sections = blocks
    for title, pieces in (("Observations", obs_pieces), ("Relations", rel_pieces)):
        first = next(pieces, "")  # (the lines are made as the note is joined)
        parts: list[str | Iterator[str]] = [first, pieces] if first else []
        for text in loose.get(title, ()):
            parts.extend(("\n\n", text) if parts else (text,))
        if parts:
            sections.append([f"## {title}\n\n", *parts])
    out: list[str | Iterator[str]] = []
    for n, section in enumerate(sections):
        if n:
            out.append("\n\n")
        out.extend(section)
    if out:
        out.append("\n")
    return out


def _pieces(parts: Iterable[str | Iterator[str]]) -> Iterator[str]:
    """The strings of :func:`_render_body`'s parts, in order."""
    for part in parts:
        if isinstance(part, str):
            yield part
        else:
            yield from part


def _lines_of(text: str) -> Sequence[str]:
    """The lines of ``text`` split at ``\\n``: for many lines, as offsets into it
    (:class:`~sessionkit._lines.Lines`, line ends kept, which the grammar reads alike)."""
    return Lines(text) if text.count("\n") >= MANY_LINES else text.split("\n")


def _observations_apart(text: str, relations: list[BMRelation]) -> Iterator[BMObservation]:
    """The observations of ``text`` (lines split at ``\\n``), one at a time; its
    relations are appended to ``relations`` as they come (no other fact outlives
    its line)."""
    for fact in iter_facts(_lines_of(text)):
        if isinstance(fact, BMObservation):
            yield fact
        else:
            relations.append(fact)


#: a new note's observation categories in the order the plugins' notes have them
_FIRST = {"summary": 0, "context": 1, "problem": 2, "decision": 3}
_WRITE_ORDER = sorted(_CATEGORY_FIELDS.items(), key=lambda item: _FIRST.get(item[0], 4))


def _observation_lines(summary: str | None, lists: dict[str, Sequence[Any]]) -> Iterator[str]:
    """The observation lines of ``## Observations``, in order."""
    if summary is not None:
        yield _render_category("summary", summary)
    for category, attr in _WRITE_ORDER:
        if attr != "summary":
            for text in lists[attr]:
                yield _render_category(category, text)
    for obs in lists["observations"]:
        yield _render_observation(obs)


def render_note(
    session: Session,
    *,
    folder: str = DEFAULT_FOLDER,
    project: str | None = None,
    implied: bool = True,
) -> tuple[str, str]:
    """A new note for ``session``: ``(project-relative path, text)``.

    ``project`` (default: ``session.project``) prefixes the permalink, as
    Basic Memory does for new notes.  ``implied=False``: the session's
    observations and relations are exactly the fact lines to write (none of
    them is left out because the prose or an observation line already holds
    it); see :func:`_render_body`.
    """
    path, pieces = _render_note(session, folder=folder, project=project, implied=implied)
    return path, "".join(pieces)


#: :func:`_render_note`'s ``status`` default: the session's own status word
_OWN_STATUS: Any = object()


def _render_note(
    session: Session,
    *,
    folder: str = DEFAULT_FOLDER,
    project: str | None = None,
    implied: bool = True,
    status: Any = _OWN_STATUS,
) -> tuple[str, tuple[str, ...]]:
    """:func:`render_note` with ``status`` the ``status`` value to write (``None``: no key),
    as pieces (frontmatter, then the body cut where its width changes; see
    :func:`~sessionkit.document.parse_pieces`)."""
    session = _normalize(session)
    meta = _frontmatter(session, folder, project if project is not None else session.project)
    if status is None:
        del meta["status"]
    elif status is not _OWN_STATUS:
        meta["status"] = status
    body = _render_body(session, implied=implied)
    # the body grown in place as its pieces come; a big one cut where its width changes
    # (one emoji in it widens its own piece only), one piece when it is small
    text = "\n" if body else ""
    rest = _pieces(body)
    for piece in rest:
        text += piece
        if len(text) > 1 << 16:  # (the text so far handed over, not held: it grows in place)
            box = [text]
            del text
            chunks = list(chunked(itertools.chain(handed(box), rest)))
            if sum(chunk.count("\n") for chunk in chunks) < MANY_LINES:
                chunks = ["".join(chunks)]
            break
    else:
        chunks = [text]
    head = f"---\n{dump_yaml(meta)}---\n"
    return note_path(str(meta["title"]), folder), (head, *chunks)


# -- minimal edits -----------------------------------------------------------


def _key_lines(key: str, value: Any) -> list[str]:
    return dump_yaml({key: value}).rstrip("\n").split("\n")


def _set_key(doc: Document, key: str, value: Any) -> Document:
    new = _key_lines(key, value)
    if not doc.has_frontmatter:
        return doc.insert_lines(0, ["---", *new, "---"])
    span = doc.key_spans.get(key)
    if span is not None:
        old = [doc.line_text(i) for i in range(span[0], span[1])]
        if old == new:
            return doc
        return doc.replace_lines(span[0], span[1], new)
    at = doc.fm_close if doc.fm_close is not None else 1
    if key != "tags" and "tags" in doc.key_spans:
        at = doc.key_spans["tags"][0]
    return doc.insert_lines(at, new)


def _edit_frontmatter(doc: Document, cur: Session, new: Session) -> Document:
    if new.title != cur.title:
        doc = doc.remove_key("title") if new.title is None else _set_key(doc, "title", new.title)
    id_key = (
        _id_key(doc.key_spans)
        if _LEGACY_ID in doc.key_spans or _SHARED_ID in doc.key_spans
        else _new_id_key(new.extra)
    )
    for key, attr in _KEY_FIELDS.items():
        value = getattr(new, attr)
        if value != getattr(cur, attr):
            key = id_key if key == _LEGACY_ID else key
            doc = doc.remove_key(key) if value is None else _set_key(doc, key, value)
    if (new.status, new.status_word) != (cur.status, cur.status_word):
        word = status_word_of(new)
        if word != status_word_of(cur) or "status" not in doc.key_spans:
            doc = _set_key(doc, "status", word)
    if new.tags != cur.tags:
        doc = doc.remove_key("tags") if not new.tags else _set_key(doc, "tags", list(new.tags))
    for key in cur.extra:
        if key not in new.extra:
            doc = doc.remove_key(key)
    for key, value in new.extra.items():
        if key in _RESERVED:
            raise FormatError(f"extra key {key!r} is a Session field; set the field instead")
        if key not in cur.extra or cur.extra[key] != value:
            doc = _set_key(doc, key, value)
    return doc


def _edit_sections(doc: Document, new: Session) -> Document:
    placed = _fact_lines(doc)  # line numbers above an edit stay valid bottom-up
    current = _sections_of(doc, placed)
    cur_titles = [s.title for s, _, _ in current]
    wanted = {s.title: s for s in new.sections}
    # edit or delete in place, bottom-up so indices stay valid
    for sec, start, end in reversed(current):
        target = wanted.get(sec.title)
        if sec.title in _FACT_SECTIONS:
            if target is not None and target.body == sec.body:
                continue
            loose = _loose_lines(doc, Section(sec.title, start, end), placed)
            for i in reversed(loose):  # the section's facts stay where they are
                doc = doc.replace_lines(i, i + 1, [])
            if target is not None and target.body:
                stop = doc.content_end(Section(sec.title, start, end - len(loose)))
                doc = doc.insert_lines(stop, ["", *target.body.split("\n")])
            continue
        if target is None:
            doc = doc.replace_lines(start, end, []) if sec.title else doc
            continue
        if target.body == sec.body:
            continue
        body_lines = target.body.split("\n") if target.body else []
        if not sec.title:
            doc = doc.replace_lines(start, end, ["", *body_lines, ""])
            continue
        stop = doc.content_end(Section(sec.title, start, end))
        doc = doc.replace_lines(start + 1, stop, ["", *body_lines])
    added = [s for s in new.sections if s.title not in cur_titles]
    for sec in [s for s in added if s.title in _FACT_SECTIONS and s.body]:
        # loose lines of a fact section: at the end of that section, or in a new one
        home = next((x for x in doc.sections if x.title == sec.title), None)
        body = sec.body.split("\n")
        if home is not None:
            doc = doc.insert_lines(doc.content_end(home), ["", *body])
        else:
            gap = [""] if doc.lines and doc.lines[-1].strip() else []
            doc = doc.insert_lines(len(doc.lines), [*gap, f"## {sec.title}", "", *body])
    added = [s for s in added if s.title not in _FACT_SECTIONS]
    if added:
        at = len(doc.lines)
        facts_sec = next((s for s in doc.sections if s.title in _FACT_SECTIONS), None)
        if facts_sec is not None:
            at = facts_sec.start
        lines: list[str] = []
        for sec in added:
            lines.extend([f"## {sec.title}" if sec.title else "", "", *sec.body.split("\n"), ""])
        if at == len(doc.lines) and doc.lines and doc.lines[-1].strip():
            lines.insert(0, "")
        doc = doc.insert_lines(at, lines)
    return doc


def _anchor(doc: Document, attr: str) -> tuple[Document, int]:
    """Where to put the first item of a list that is empty now (adding a section if needed)."""
    names = ("Relations", "Observations") if attr == "relations" else ("Observations",)
    for name in names:
        sec = doc.section(name)
        if sec is not None:
            end = doc.content_end(sec)
            if end == sec.start + 1:
                doc = doc.insert_lines(end, [""])
                return doc, end + 1
            return doc, end
    lines = ["## Relations" if attr == "relations" else "## Observations", ""]
    if doc.lines and doc.lines[-1].strip():
        lines.insert(0, "")
    doc = doc.insert_lines(len(doc.lines), lines)
    return doc, len(doc.lines)


def _edit_list(
    doc: Document,
    attr: str,
    old: Sequence[Any],
    new: Sequence[Any],
    positions: Sequence[_Pos],
    render: Callable[[Any], str],
) -> Document:
    if list(old) == list(new):
        return doc
    ops = [op for op in opcodes(old, new) if op[0] != "equal"]
    for tag, i1, i2, j1, j2 in reversed(ops):
        for k in range(i1, i2):
            if not positions[k].editable:
                raise FormatError(
                    f"cannot change {attr} item {old[k]!r}: it is part of prose "
                    f"(line {positions[k].start + 1}), not a list item of its own",
                    path=doc.path,
                    line=positions[k].start + 1,
                )
        rendered = [render(item) for item in new[j1:j2]]
        if tag in ("replace", "delete"):
            at = positions[i1].start
            for k in reversed(range(i1, i2)):
                doc = doc.replace_lines(positions[k].start, positions[k].end, [])
            if rendered:
                doc = doc.insert_lines(at, rendered)
            continue
        # insert: after (before) the whole Markdown item the neighbour is a line
        # of, so no item loses its continuation or sub-items to the new one
        if i1 > 0:
            at = _item_span(doc, positions[i1 - 1])[1]
        elif positions:
            at = _item_span(doc, positions[0])[0]
        else:
            doc, at = _anchor(doc, attr)
        doc = doc.insert_lines(at, rendered)
    return doc


def _item_span(doc: Document, pos: _Pos) -> tuple[int, int]:
    """Lines ``start:end`` of the outermost list item ``pos`` is a line of (continuation,
    lazy lines and sub-items, trailing blanks out); ``pos``'s own lines outside a list."""
    section = next((s for s in doc.sections if s.start <= pos.start < s.end), None)
    start, stop = (section.start, section.end) if section else (doc.body_start, len(doc.lines))
    for block in tokenize(doc.lines, start, stop, tables=False):
        if block.start > pos.start:
            break
        if block.kind != "list" or block.end <= pos.start:
            continue
        for item in block.children:
            if item.start <= pos.start < item.end:
                end = item.end
                while end > pos.end and not doc.lines[end - 1].strip():
                    end -= 1
                return item.start, max(end, pos.end)
    return pos.start, pos.end


def _write_with_base(session: Session, base: Document) -> Document:
    current, _ = _classify(base)
    if current == session:
        return base
    session = _normalize(session)
    doc = _edit_frontmatter(base, current, session)
    current, _ = _classify(doc)
    if current.sections != session.sections:
        doc = _edit_sections(doc, session)
    steps: list[tuple[str, Callable[[Any], str]]] = [
        ("summary", lambda t: _render_category("summary", t)),
        *(
            (attr, (lambda c: lambda t: _render_category(c, t))(cat))
            for cat, attr in _CATEGORY_FIELDS.items()
            if attr != "summary"
        ),
        ("observations", _render_observation),
        ("relations", _render_relation),
    ]
    for attr, render in steps:
        current, layout = _classify(doc)
        if attr == "summary":
            old: Sequence[Any] = () if current.summary is None else (current.summary,)
            new: Sequence[Any] = () if session.summary is None else (session.summary,)
        else:
            old, new = getattr(current, attr), getattr(session, attr)
        doc = _edit_list(doc, attr, old, new, layout.lists.get(attr, []), render)
    return doc
