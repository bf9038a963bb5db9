"""Basic Memory's note grammar as pure, token-level functions.

Basic Memory runs a CommonMark parser over a note's body and looks at every
*inline* run of text (a paragraph, a heading, the text of a list item) for:

* an **observation** — ``[category] content #tag (context)``, or any text with a
  ``#word`` in it (no category; the index files it as ``note``);
* **relations** — in a list item, ``type [[Target]]`` optionally followed by one
  ``(context)`` is an explicit relation; every other ``[[Target]]`` and every
  Markdown link to a relative path is a ``links_to`` relation.

The block tokenizer (:mod:`sessionkit.markdown`, which reads blocks as
markdown-it does) yields the inline runs; the functions below apply Basic
Memory's rules to them.  Every rule has a golden test in
``tests/golden/basic-memory/``; the whole is checked against basic-memory
0.24.1 in ``tests/interop``.

Known differences (documented in ``docs/basic-memory.md``): temporal qualifiers
(``- [decision] @2026-07-27 text``) are not peeled off the content, and
reference-style Markdown links are not relations.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from sys import intern
from urllib.parse import unquote, urlsplit

import attrs

from ...markdown import Block, tokenize

__all__ = [
    "BMObservation",
    "BMRelation",
    "Facts",
    "InlineRun",
    "inline_relations",
    "is_observation",
    "iter_facts",
    "parse_facts",
    "parse_observation",
    "parse_relation",
    "parse_tags",
    "scan_inline_runs",
]


@attrs.frozen
class InlineRun:
    """One inline run of text: what Basic Memory's parser calls an inline token.

    Attributes:
        content: the text, lines joined with ``\\n``, stripped.
        start: index of its first line in the scanned lines.
        end: index after its last line.
        kind: ``paragraph`` or ``heading``.
        in_list_item: inside a list item (as Basic Memory tracks it: reset by
            the first closing item, even of a nested list).
        in_blockquote: inside a block quote.
    """

    content: str
    start: int
    end: int
    kind: str = "paragraph"
    in_list_item: bool = False
    in_blockquote: bool = False


@attrs.frozen
class BMObservation:
    """An observation as Basic Memory indexes it (``category`` ``None`` = ``note``).

    ``text`` is the line's text after the category as written (first line
    only), which is what sessionkit keeps for the dedicated session fields.
    """

    category: str | None
    content: str
    tags: tuple[str, ...]
    context: str | None
    line: int
    text: str


@attrs.frozen
class BMRelation:
    """A relation as Basic Memory indexes it.

    ``target`` is what the index stores (``proj::Note`` becomes ``proj/Note``;
    ``T|Alias`` stays whole).  ``explicit`` is true for a ``type [[T]]`` list
    item; ``markdown`` for a Markdown link.
    """

    type: str
    target: str
    context: str | None
    line: int
    explicit: bool = False
    markdown: bool = False
    label: str | None = None


@attrs.frozen
class Facts:
    """Everything Basic Memory extracts from a body, in document order."""

    observations: tuple[BMObservation, ...] = ()
    relations: tuple[BMRelation, ...] = ()


# --------------------------------------------------------------------------
# inline runs, from the block tokenizer

#: an inline run while scanning: the fields of :class:`InlineRun`, in order
_Run = tuple[str, int, int, str, bool, bool]


def scan_inline_runs(lines: Sequence[str], start: int = 0) -> list[InlineRun]:
    """The inline runs of ``lines[start:]`` (lines with or without their ends)."""
    return [InlineRun(*run) for run in _scan(lines, start)]


def _scan(lines: Sequence[str], start: int) -> list[_Run]:
    """:func:`scan_inline_runs` as plain tuples: the blocks of
    :func:`sessionkit.markdown.tokenize` read as Basic Memory's markdown-it (the
    commonmark preset: no tables), with Basic Memory's flags: ``in_list_item`` set
    when an item opens and reset when any item closes (a nested one too),
    ``in_blockquote`` while a quote is open."""
    runs: list[_Run] = []
    _runs(tokenize(lines, start, tables=False), runs, False, 0)
    return runs


def _runs(blocks: Sequence[Block], runs: list[_Run], in_item: bool, quotes: int) -> bool:
    """Append the runs of ``blocks`` to ``runs``; the ``in_list_item`` flag after them."""
    for block in blocks:
        kind = block.kind
        if kind == "paragraph" or kind == "heading":
            text = block.content.strip()
            if text:
                marker = block.marker
                end = block.end - 1 if marker == "=" or marker == "-" else block.end
                runs.append((text, block.start, end, kind, in_item, quotes > 0))
        elif kind == "item":
            _runs(block.children, runs, True, quotes)
            in_item = False  # any item's close resets the flag, a nested one's too
        elif kind == "list":
            in_item = _runs(block.children, runs, in_item, quotes)
        elif kind == "blockquote":
            in_item = _runs(block.children, runs, in_item, quotes + 1)
    return in_item


# --------------------------------------------------------------------------
# observations

_TIME = r"\d{1,3}:\d{2}(?::\d{2})?(?:[.,]\d{1,3})?"
_TIME_CATEGORY = re.compile(rf"^{_TIME}(?:\s+-\s+{_TIME})?$")
_LINKS_TO_DIRECTIVE = re.compile(r"\s+#bm:links_to\s*$")
_CATEGORY = re.compile(r"^\[([^\[\]()]+)\]\s+(.+)")
_EMPTY_CATEGORY = re.compile(r"^\[\]\s+(.+)")


def _strip_directive(content: str) -> tuple[str, bool]:
    if "#bm:links_to" not in content:  # the pattern's literal part: no match without it
        return content, False
    m = _LINKS_TO_DIRECTIVE.search(content)
    if not m:
        return content, False
    return content[: m.start()].rstrip(), True


def _category_match(content: str) -> re.Match[str] | None:
    m = _CATEGORY.match(content)
    if not m:
        return None
    category = m.group(1).strip()
    if ":" in category and _TIME_CATEGORY.match(category):  # a clock time has a colon
        return None
    if len(category) == 1 and (category in "xX" or not category.isalnum()):
        return None  # a task marker: [x] [/] [?] [!] [>] ...
    return m


_LINK_ONLY = re.compile(r"^\[.*?\]\(.*?\)$")
_WIKI_ONLY = re.compile(r"^\[\[.*?\]\]$")


def _has_tag(text: str) -> bool:
    """Whether a word of ``text`` starts with ``#``."""
    return "#" in text and any(part.startswith("#") for part in text.split())


def is_observation(content: str) -> bool:
    """Whether an inline run's text is an observation for Basic Memory."""
    return _observation(content, 0) is not None


def parse_tags(content: str) -> tuple[str, ...]:
    """The ``#word`` tags of a text, Basic Memory's way (``#a#b`` gives ``a``, ``b``)."""
    if "#" not in content:
        return ()
    tags: list[str] = []
    for part in [p for p in content.split() if p[0] == "#"]:  # split() gives no empty part
        if "#" in part[1:]:
            tags.extend(t for t in part.split("#") if t)
        else:
            tags.append(part[1:])
    return tuple(tags)


def parse_observation(content: str, line: int = 0) -> BMObservation:
    """Split an observation's text into category, content, tags and context."""
    text, _ = _strip_directive(content.strip())
    return _split_observation(text, _category_match(text), line)


def _split_observation(text: str, m: re.Match[str] | None, line: int) -> BMObservation:
    """:func:`parse_observation` of ``text`` (stripped, directive removed) whose
    category match is ``m``."""
    category: str | None = None
    if m:
        category = intern(m.group(1).strip())  # one string per category, not one a fact
        text = m.group(2).strip()
    else:
        em = _EMPTY_CATEGORY.match(text)
        if em:
            text = em.group(1).strip()
    raw = text
    context: str | None = None
    if text.endswith(")"):
        at = text.rfind("(")
        if at != -1:
            context = text[at + 1 : -1].strip()
            text = text[:at].strip()
    # positional arguments (category, content, tags, context, line, text): an
    # attrs __init__ takes them markedly faster than keywords, once per fact
    return BMObservation(category, text, parse_tags(text), context, line, raw)


def _observation(content: str, line: int) -> BMObservation | None:
    """``parse_observation(content, line)`` if the text is an observation, else ``None``."""
    text, _ = _strip_directive(content.strip())
    if not text:
        return None
    m = None
    if text[0] == "[":
        if (
            text.startswith(("[ ]", "[x]", "[-]"))
            or ("](" in text and _LINK_ONLY.match(text))  # the patterns' literal parts
            or (text.startswith("[[") and _WIKI_ONLY.match(text))
        ):
            return None
        m = _category_match(text)
    if m is None and not _has_tag(text):
        return None
    return _split_observation(text, m, line)


# --------------------------------------------------------------------------
# relations


def _code_spans(content: str) -> list[tuple[int, int]]:
    """Source ranges of inline code spans (backtick runs of equal length)."""
    if "`" not in content:
        return []
    spans: list[tuple[int, int]] = []
    pos, n = 0, len(content)
    while pos < n:
        ch = content[pos]
        if ch == "\\" and pos + 1 < n:
            pos += 2
            continue
        if ch != "`":
            pos += 1
            continue
        run_end = pos
        while run_end < n and content[run_end] == "`":
            run_end += 1
        size = run_end - pos
        search = run_end
        found = -1
        while search < n:
            k = content.find("`", search)
            if k == -1:
                break
            e = k
            while e < n and content[e] == "`":
                e += 1
            if e - k == size:
                found = e
                break
            search = e
        if found == -1:
            pos = run_end
            continue
        spans.append((pos, found))
        pos = found
    return spans


def _mask(content: str, spans: Iterable[tuple[int, int]], chars: str | None) -> str:
    out = list(content)
    for a, b in spans:
        for k in range(a, b):
            if chars is None or out[k] in chars:
                out[k] = " "
    return "".join(out)


def _normalize_target(target: str) -> str:
    if "::" not in target:
        return target
    project, rest = target.split("::", 1)
    return f"{project}/{rest.lstrip('/')}"


def _relation_type(content: str) -> str | None:
    before = content.partition("[[")[0].strip()
    if not before:
        return None
    q = before[0]
    if q in "'\"" and before.endswith(q):
        return before[1:-1].strip() or None
    if len(before.split(None, 1)) > 1:  # a blank inside (``before`` is stripped)
        return None
    return before


def _single_parenthesized(text: str) -> bool:
    if not text.startswith("("):
        return False
    depth = 0
    for k, c in enumerate(text):
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return k == len(text) - 1
    return False


def _split_label(target: str) -> tuple[str, str | None]:
    base, bar, label = target.partition("|")
    return (base.strip(), label.strip() or None) if bar else (target, None)


def parse_relation(content: str, line: int = 0, source: str | None = None) -> BMRelation | None:
    """An explicit relation ``type [[Target]] (context)``, or ``None``.

    ``content`` has code spans masked; ``source`` is the text as written.
    """
    src = content if source is None else source
    rel_type = _relation_type(content)
    if rel_type is None:
        return None
    a = content.find("[[")
    b = content.find("]]", a + 2)
    if a == -1 or b == -1:
        return None
    target = _normalize_target(src[a + 2 : b].strip())
    if not target:
        return None
    after = content[b + 2 :].strip()
    context: str | None = None
    if after:
        if not _single_parenthesized(after):
            return None
        context = src[b + 2 :].strip()[1:-1].strip() or None
    # type, target, context, line, explicit, markdown, label (positional: see
    # _split_observation)
    return BMRelation(rel_type, target, context, line, True, False, _split_label(target)[1])


def _escaped(content: str, pos: int) -> bool:
    count = 0
    pos -= 1
    while pos >= 0 and content[pos] == "\\":
        count += 1
        pos -= 1
    return count % 2 == 1


def inline_relations(content: str, line: int = 0, source: str | None = None) -> list[BMRelation]:
    """Every outermost ``[[Target]]`` in a text, as ``links_to`` relations."""
    src = content if source is None else source
    found: list[BMRelation] = []
    start = 0
    while True:
        start = content.find("[[", start)
        if start == -1:
            break
        if _escaped(content, start):
            start += 2
            continue
        end = _closing_brackets(content, start + 2)
        if end == -1:
            break
        target = _normalize_target(src[start + 2 : end].strip())
        if target:
            # type, target, context, line, explicit, markdown, label
            found.append(
                BMRelation("links_to", target, None, line, False, False, _split_label(target)[1])
            )
        start = end + 2
    return found


def _closing_brackets(content: str, pos: int) -> int:
    """Index of the ``]]`` closing a ``[[`` opened just before ``pos``, or -1 (pairs
    nest; jumps bracket to bracket, so ``[[[[…]]]]`` stays linear)."""
    depth = 1
    close = -1
    while True:
        if close < pos:
            close = content.find("]]", pos)
            if close == -1:
                return -1  # nothing can close it
        opening = content.find("[[", pos, close)
        if opening != -1:
            pos = opening + 1
            if not _escaped(content, opening):
                depth += 1
                pos += 1
            continue
        pos = close + 1
        if not _escaped(content, close):
            depth -= 1
            if depth == 0:
                return close
            pos += 1


def markdown_link_target(href: str) -> str | None:
    """The project path a Markdown link records, or ``None`` (URLs, anchors, folders)."""
    try:
        parts = urlsplit(href)
    except ValueError:
        return None
    if parts.scheme or parts.netloc or not parts.path:
        return None
    path = unquote(parts.path)
    if "\\" in path or "\x00" in path or path.endswith("/"):
        return None
    return path if path.startswith(("/", "./", "../")) else f"./{path}"


#: a link's destination and optional title, after its text's closing ``]``
_MD_DEST = re.compile(r"\(\s*(<[^<>\n]*>|[^\s()<>]*)(?:\s+(?:\"[^\"]*\"|'[^']*'|\([^()]*\)))?\s*\)")


def _link_text_start(masked: str, close: int) -> int:
    """Where the text of a link whose text closes at ``masked[close]`` (a ``]``)
    opens: the ``[`` that balances it (CommonMark lets a link's text hold
    balanced brackets: ``[outer [[A]]](u)``, ``[a [b] c](u)``), or -1."""
    depth = 0
    pos = close - 1
    while pos >= 0:
        ch = masked[pos]
        if (ch == "[" or ch == "]") and not _escaped(masked, pos):
            if ch == "]":
                depth += 1
            elif depth == 0:
                return pos
            else:
                depth -= 1
        pos -= 1
    return -1


def _markdown_links(content: str, line: int) -> list[BMRelation]:
    if "](" not in content:
        return []
    masked = _mask(content, _code_spans(content), None)
    found: list[BMRelation] = []
    inner_start = -1  # where the last link's text opened (a link's text holds no link)
    close = masked.find("](")
    while close != -1:
        at = close
        close = masked.find("](", close + 1)
        if _escaped(masked, at):
            continue
        start = _link_text_start(masked, at)
        if start == -1 or (start > 0 and masked[start - 1] in "!]"):
            # no text, an image, or `[x][y](u)`: a reference link when `y` is
            # defined (not read: the known difference of docs/basic-memory.md)
            continue
        m = _MD_DEST.match(masked, at + 1)
        if m is None:
            continue
        if start < inner_start:
            continue  # its text holds the link found before it: that one is the link
        inner_start = start
        href = m.group(1)
        if href.startswith("<"):
            href = href[1:-1]
        target = markdown_link_target(href) if href else None
        # (a link to a URL is kept as a placeholder until the end: it is a link too)
        found.append(
            BMRelation(
                type="links_to",
                target=target or "",
                context=None,
                line=line,
                markdown=True,
                label=masked[start + 1 : at] or None,
            )
        )
    return [r for r in found if r.target]


def _relations_of(source: str, line: int, in_list_item: bool) -> list[BMRelation]:
    """The relations of an inline run with text ``source`` (that holds ``[[``)."""
    spans = _code_spans(source)
    if spans:
        content = _mask(source, spans, "[]")
        masked_all = _mask(content, spans, None)
    else:  # nothing to mask
        content = masked_all = source
    m = _LINKS_TO_DIRECTIVE.search(masked_all) if "#bm:links_to" in masked_all else None
    directive = m is not None
    without = content[: m.start()].rstrip() if m else content
    if in_list_item and not directive:
        rel = parse_relation(content, line, source)
        if rel is not None:
            return [rel]
    return inline_relations(without, line, source)


def iter_facts(lines: Sequence[str], start: int = 0) -> Iterator[BMObservation | BMRelation]:
    """The facts of the body ``lines[start:]`` one at a time, in document order.

    What :func:`parse_facts` returns, made as the body is scanned: a reader
    that files each fact as it comes holds one at a time, not the body's
    (each inline run gives its Markdown links, then its observation, then its
    ``[[`` relations).  Line numbers are indices into ``lines``.
    """
    for content, line, _, _, in_list_item, in_blockquote in _scan(lines, start):
        if "](" in content:
            yield from _markdown_links(content, line)
        if not in_blockquote:
            obs = _observation(content, line)
            if obs is not None and obs.content:
                yield obs
        if "[[" in content:
            yield from _relations_of(content, line, in_list_item)


def parse_facts(lines: Sequence[str], start: int = 0) -> Facts:
    """Observations and relations of the body ``lines[start:]``, as Basic Memory finds them.

    Line numbers in the result are indices into ``lines`` (the first line of
    the inline run the fact came from).  The facts of :func:`iter_facts`.
    """
    observations: list[BMObservation] = []
    relations: list[BMRelation] = []
    for fact in iter_facts(lines, start):
        if isinstance(fact, BMObservation):
            observations.append(fact)
        else:
            relations.append(fact)
    return Facts(observations=tuple(observations), relations=tuple(relations))
