"""The block tokenizer against its oracle, markdown-it-py.

For generated text over the block grammar's alphabet and for hand-picked
pages, :func:`sessionkit.markdown.tokenize` must find the blocks markdown-it
finds: the same kinds, nesting and line ranges (``token.map``), headings'
levels and text, paragraphs' text, lists' markers, numbers and looseness,
fences' info strings.  This is the one oracle test of the tokenizer.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from sessionkit import markdown
from sessionkit.document import split_lines
from sessionkit.markdown import Block, tokenize, top_headings, walk
from tests.budget import examples

CORPUS = Path(__file__).parent / "corpus"
EXAMPLES = Path(__file__).parent.parent / "examples"

_MD = {
    False: MarkdownIt("commonmark", {"inline_definitions": True}),
    True: MarkdownIt("commonmark", {"inline_definitions": True}).enable("table"),
}

_OPEN = {
    "heading_open": "heading",
    "paragraph_open": "paragraph",
    "blockquote_open": "blockquote",
    "bullet_list_open": "list",
    "ordered_list_open": "list",
    "list_item_open": "item",
    "table_open": "table",
}
_LEAF = {
    "fence": "fence",
    "code_block": "code",
    "html_block": "html",
    "hr": "hr",
    "definition": "reference",
}

Row = tuple[Any, ...]


def _parse(md: Any, text: str) -> Any:
    """The oracle's tokens for ``text``; a last line of block quote markers alone
    is ended first.

    CommonMark reads such a line the same with or without its line end, and so
    does markdown-it (JavaScript); markdown-it-py's fence rule does not: where a
    fence left open in a block quote meets the document's end on such a line
    (``">```\n>"``), it reads past the end of the text, catches the IndexError
    and ends the fence a line early.  Ending that line keeps the oracle off the
    port's artifact.  (Other unended last lines stay as they are: a blank one
    does read differently there.)
    """
    if _QUOTE_MARKS.search(text):
        text += "\n"
    return md.parse(text)


#: a last line of ``>`` markers and blanks, not ended
_QUOTE_MARKS = re.compile(r"(?:^|\n)[ \t]*>[> \t]*\Z")


def _oracle(text: str, tables: bool) -> list[Row]:
    tokens = _parse(_MD[tables], text)
    rows: list[Row] = []
    tight: dict[int, bool] = {}  # index of a list's row -> tight
    open_lists: list[int] = []
    for i, tok in enumerate(tokens):
        if tok.type.endswith("_list_close"):
            open_lists.pop()
            continue
        kind = _OPEN.get(tok.type) or _LEAF.get(tok.type)
        if kind is None or tok.map is None:
            continue
        extra: tuple[Any, ...] = ()
        if kind == "heading":
            extra = (int(tok.tag[1]), tokens[i + 1].content)
        elif kind == "paragraph":
            extra = (tokens[i + 1].content,)
            if open_lists and tok.hidden:
                tight[open_lists[-1]] = True
        elif kind == "fence":
            extra = (tok.info, tok.markup)
        elif kind == "list":
            start = tok.attrs.get("start", 1) if tok.type == "ordered_list_open" else None
            extra = (tok.type == "ordered_list_open", tok.markup, start)
            open_lists.append(len(rows))
            tight.setdefault(len(rows), False)
        elif kind == "item":
            extra = (int(tok.info) if tok.info else None,)
        rows.append((kind, tok.map[0], tok.map[1], tok.level, *extra))
    # a list is tight when its paragraphs are hidden (a list without one: no say)
    return [
        (*row, tight[k]) if row[0] == "list" and _has_paragraph(rows, k) else row
        for k, row in enumerate(rows)
    ]


def _has_paragraph(rows: list[Row], k: int) -> bool:
    level = rows[k][3]
    for row in rows[k + 1 :]:
        if row[3] <= level:
            return False
        if row[0] == "paragraph" and row[3] == level + 2:
            return True
    return False


def _ours(text: str, tables: bool) -> list[Row]:
    blocks = tokenize(split_lines(text), tables=tables)
    rows: list[Row] = []
    for block, depth in walk(blocks):
        if block.kind in ("blank", "nested"):
            continue
        extra: tuple[Any, ...] = ()
        if block.kind == "heading":
            extra = (block.level, block.content)
        elif block.kind == "paragraph":
            extra = (block.content,)
        elif block.kind == "fence":
            extra = (block.info, block.marker)
        elif block.kind == "list":
            extra = (block.ordered, block.marker, block.number)
        elif block.kind == "item":
            extra = (block.number,)
        rows.append((block.kind, block.start, block.end, depth, *extra))
    tight = _tightness(blocks)
    return [
        (*row, tight[k]) if row[0] == "list" and _has_paragraph(rows, k) else row
        for k, row in enumerate(rows)
    ]


def _tightness(blocks: list[Block]) -> dict[int, bool]:
    out: dict[int, bool] = {}
    k = 0
    for block, _ in walk(blocks):
        if block.kind in ("blank", "nested"):
            continue
        if block.kind == "list":
            out[k] = block.tight
        k += 1
    return out


def _covers(text: str, tables: bool) -> None:
    """Every line is in exactly one top-level block, in order; children inside parents."""
    lines = split_lines(text)
    blocks = tokenize(lines, tables=tables)
    at = 0
    for block in blocks:
        assert block.start == at, (block, at)
        assert block.end > block.start
        at = block.end
    assert at == len(lines)
    for block, _ in walk(blocks):
        for child in block.children:
            assert block.start <= child.start < child.end <= block.end


def check(text: str) -> None:
    for tables in (False, True):
        oracle = _oracle(text, tables)
        assert _ours(text, tables) == oracle, (text, tables)
        _covers(text, tables)


# --------------------------------------------------------------------------
# generated text

_PIECES = [
    "",
    " ",
    "  ",
    "   ",
    "    ",
    "\t",
    " \t",
    "#",
    "# ",
    "## ",
    "### ",
    "#######",
    "-",
    "- ",
    "* ",
    "+ ",
    "1. ",
    "1)",
    "2. ",
    "10) ",
    ">",
    "> ",
    ">\t",
    "```",
    "```py",
    "~~~",
    "````",
    "|",
    "| a | b |",
    "|---|---|",
    "a|b",
    "--|--",
    "---",
    "===",
    "***",
    "_ _ _",
    "<!--",
    "-->",
    "<div>",
    "</div>",
    "<pre>",
    "</pre>",
    "<?x",
    "?>",
    "<a href='x'>",
    "text",
    "漢字",
    "[ ] ",
    "[x] ",
    "[a]: /u",
    "'t'",
    "\\",
]

_LINE = st.lists(st.sampled_from(_PIECES), max_size=4).map("".join)
_TEXT = st.tuples(st.lists(_LINE, max_size=14), st.sampled_from(["\n", "\r\n"]), st.booleans()).map(
    lambda t: t[1].join(t[0]) + (t[1] if t[2] else "")
)


@settings(max_examples=examples(300), deadline=None)
@given(_TEXT)
@example("- a\n - b\n  - c\n   - d\n    - e\n")
@example("> ```\nfoo\n```\n")
@example("> a\n>\n>\n\n\nb\n")
@example("-\n\n  foo\n")
@example(">```\n>")  # (see _parse)
def test_blocks_agree_with_markdown_it(text: str) -> None:
    check(text)


# --------------------------------------------------------------------------
# hand-picked text

HAND_PICKED = [
    # numbered lists, prose before a list, nested items under numbered items
    "## Next steps\n\n1. Rotate the credentials\n2. Tell ops\n   - ops@\n   - oncall\n3. Done\n",
    "## Decisions\n\nWe chose Postgres because:\n- it is there\n- it is cheap\n",
    "1) one\n2) two\n\n3) three\n",
    "5. five\n6. six\n",
    "para\n2. not a list\n",
    "para\n1. a list\n",
    # fences, quotes, tables, comments, sub-headings
    "- item\n\n  ```sh\n  make\n  ```\n- next\n",
    "```\n## not a heading\n```\n## heading\n",
    "~~~~ info\n~~~\n~~~~\n",
    "> quoted\n> - item\n>   more\nlazy\n\nafter\n",
    "> > > deep\n> > lazy\n",
    "| a | b |\n|---|:-:|\n| 1 | 2 |\n| 3 |\n\ntext\n",
    "text\n| a | b |\n| - | - |\n",
    "<!-- comment\n## hidden\n-->\n## shown\n",
    "<div>\n## hidden\n\n## shown\n",
    "## Gotchas\n\n### Sub\n\n- a\n- b\n",
    # lazy continuation, setext underlines, tabs, CRLF, CJK
    "- a\nlazy\n- b\n",
    "Title\n=====\n\nSub\n---\n",
    "- a\n---\n",
    "-\tfoo\n\n\tbar\n",
    ">\t\tcode\n",
    "  - a\n\t- b\n",
    "## 見出し\r\n\r\n- 項目\r\n- 二つ目\r\n",
    "- [ ] open\n- [x] done\n- [X] also\n- [y] not\n",
    "[ref]: /url 'title'\n\n[x]:\n/next\n\n[bad] no\n",
    "[a]: <b\\>c>\n[b]: <b\\\n[c]: <x y> \"t\"\n[d]: <x<y>\n[e]: /u (t)\n[f]: a(b(c)) 't\n' x\n",
    "| a \\| b | c |\n|:-|--:|\n| 1 |\n\t\n  a\tb\n\t- c\n",
    "    code\n\n    more\n\ntext\n",
    "* a\n\n* b\n",
    "- a\n\n  b\n- c\n",
    "1. a\n\n   ```\n   x\n   ```\n2. b\n",
    "\t\n  ",
]


#: the page shapes people have: the hook's checkpoint with its fenced manifest,
#: directives, citations, wiki links, nested lists, a table, Basic Memory facts
PAGE = """## Checkpoints

### PreCompact at 2026-05-18T10:45:00Z

Active work: feature/rename
Manifest: .forge/work/feature/rename/manifest.yaml

Phase status (from manifest):
```yaml
status: in-progress
artifacts.codify.locked_at: ~
```

**Dream directive (unconsumed):**

- Scope: `aiwiki/raw/`, recently-touched typed pages
- Status: unconsumed

---

## Files touched

- `src/a.py:10-20@b0a2a38` — writer lock
- [[adr-0080]] checkpoint parser
  - nested [[x|label]]
    1. deeper
- [decision] use Postgres #db
- relates_to [[Other note]]

| a | b |
|---|---|
| 1 | 2 |
"""
HAND_PICKED += [PAGE, PAGE.replace("\n", "\r\n"), "- a\n- b" * 3, "> " + PAGE.replace("\n", "\n> ")]


@pytest.mark.parametrize("text", HAND_PICKED)
def test_hand_picked_blocks_agree_with_markdown_it(text: str) -> None:
    check(text)


def _corpus() -> list[Path]:
    return sorted(CORPUS.rglob("*.md")) + sorted(EXAMPLES.rglob("*.md"))


def test_corpus_pages_agree_with_markdown_it() -> None:
    pages = _corpus()
    assert pages
    for path in pages:
        text = path.read_text(encoding="utf-8").lstrip("\ufeff")
        check(text)


def test_nesting_stops_where_markdown_it_stops() -> None:
    check("> " * 40 + "deep\n")
    check("".join("  " * k + "- x\n" for k in range(30)))
    deep = tokenize(split_lines("> " * 40 + "deep\n"))
    kinds = [b.kind for b, _ in walk(deep)]
    assert kinds.count("blockquote") == markdown.MAX_NESTING
    assert kinds[-1] == "nested"  # the lines markdown-it skips are still accounted for


def test_item_fields() -> None:
    lines = split_lines("3. [x] done\n4. [ ] open\n   nested\n")
    (lst,) = tokenize(lines)
    assert (lst.kind, lst.ordered, lst.marker, lst.number, lst.tight) == (
        "list",
        True,
        ".",
        3,
        True,
    )
    first, second = lst.children
    assert (first.number, first.task, first.indent) == (3, True, 3)
    assert (second.number, second.task, second.start, second.end) == (4, False, 1, 3)
    assert [c.content for c in second.children] == ["[ ] open\nnested"]


def test_ranges_are_into_the_given_lines() -> None:
    lines = split_lines("---\na: 1\n---\n## A\ntext\n")
    blocks = tokenize(lines, 3)
    assert [(b.kind, b.start, b.end) for b in blocks] == [("heading", 3, 4), ("paragraph", 4, 5)]


_ITEM_LINE = st.tuples(
    st.sampled_from(["", " ", "  ", "   ", "    ", "\t", "> ", ">  ", "> - "]),
    st.sampled_from(["- ", "* ", "+ ", "1. ", "2) ", "10. ", "-", "- - -", ""]),
    st.sampled_from(["a", "`c`", "```", "[[w]] x", "[a]: /u", "**b**", "# h", "*", "", "|a|"]),
).map("".join)


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(_ITEM_LINE, max_size=10), st.booleans())
@example(["- a", "", "", "  b"], True)
@example(["1.   a", "    - x"], True)
@example(["- a", "- - -", "* b"], True)
@example(["-      five spaces", "1.\t\t\tx"], True)
def test_list_pages_agree_with_markdown_it(lines: list[str], last_eol: bool) -> None:
    """Lists and items (one-line, nested, loose, lazy, in quotes) as markdown-it reads them."""
    check("\n".join(lines) + ("\n" if last_eol else ""))


@settings(max_examples=examples(150), deadline=None)
@given(_TEXT, st.data())
def test_a_range_reads_as_its_own_page(text: str, data: st.DataObject) -> None:
    """``tokenize(lines, start, end)`` is the page ``lines[start:end]``, its line numbers
    counted from the whole."""
    lines = split_lines(text)
    start = data.draw(st.integers(0, len(lines)))
    end = data.draw(st.integers(start, len(lines)))
    whole = _dump(tokenize(lines, start, end))
    alone = _dump(tokenize(lines[start:end]))
    assert [(d, k, s - start, e - start, *r) for d, k, s, e, *r in whole] == alone


# --------------------------------------------------------------------------
# top_headings, held to markdown-it

_HEADING_PIECES = [
    *("## A", "## B ##", "##", "### c", "### x ###", "#######", "####### seven", "#no"),
    *("## a #", "## \\#", " ## indented", "   ## three", "    ## code", "\t## tab"),
    *("text", "- item", "> q", "1. x", "", "---", "--- ", "----", "```", "~~~", "<div>"),
    *("<!-- x", "-->", "\x0c## feed", "## crlf\r"),
]
_HEADING_LINES = st.lists(
    st.one_of(st.sampled_from(_HEADING_PIECES), st.text(max_size=10)), max_size=20
).map(lambda parts: "\n".join(parts).replace("\r", "\r\n").replace("\r\n\n", "\r\n"))


def _oracle_headings(text: str) -> list[tuple[int, str, int]]:
    tokens = _parse(_MD[False], text)
    return [
        (int(tok.tag[1]), tokens[i + 1].content, tok.map[0])
        for i, tok in enumerate(tokens)
        if tok.type == "heading_open" and tok.level == 0 and tok.markup.startswith("#") and tok.map
    ]


@settings(max_examples=examples(300), deadline=None)
@given(_HEADING_LINES, st.data())
@example("## a\n\n# b\n#c\n", None)
@example("#", None)
@example("text\n## a\r\n", None)
@example("```\n## in code\n", None)
@example("## a\n <b>\n## c\n", None)
def test_top_headings_agree_with_markdown_it(text: str, data: st.DataObject | None) -> None:
    lines = split_lines(text)
    start = 0 if data is None else data.draw(st.integers(0, len(lines)))
    stop = len(lines) if data is None else data.draw(st.integers(start, len(lines)))
    general = top_headings(lines, start, stop)
    if (
        "\r" not in text.replace("\r\n", "") and "\x00" not in text
    ):  # markdown-it splits on a lone CR
        oracle = _oracle_headings("".join(lines[start:stop]))
        assert general == [(lvl, title, line + start) for lvl, title, line in oracle]


@settings(max_examples=examples(400), deadline=None)
@given(st.text(alphabet="#  \t\u00a0\x0ca", max_size=8), st.sampled_from(["#", "##", "###"]))
@example(" # #", "##")
@example(" #\u00a0", "##")
def test_heading_titles_cut_their_tail_as_markdown_it_does(rest: str, opening: str) -> None:
    """The closing run of ``#`` (one, after a space or tab) goes, and the title is
    trimmed as markdown-it trims it."""
    lines = [opening + rest + "\n"]
    assert top_headings(lines) == _oracle_headings(lines[0])


@settings(max_examples=examples(300), deadline=None)
@given(_HEADING_LINES)
@example("## a\n\n# b\n#c\n")
@example("a\n\u00a0```\n## b\n")
@example("a\r\n\r\n## b\r\n")
@example("- ```\n## b\n")
def test_may_open_block_agrees_with_markdown_it(text: str) -> None:
    """When no line may open indented code, a fence or an HTML block, markdown-it
    opens none at the top level, and its ``#`` headings are the lines that read as
    headings by themselves (what top_headings' string search and conversion rely on)."""
    if markdown.may_open_block(text) or "\r" in text.replace("\r\n", "") or "\x00" in text:
        return  # (markdown-it splits on a lone CR)
    tokens = _parse(_MD[False], text)
    assert not [t.type for t in tokens if t.level == 0 and t.type in _LEAF and t.type != "hr"]
    by_itself = [
        (head[0], head[1], n)
        for n, line in enumerate(split_lines(text))
        if line.startswith("#") and (head := markdown.atx_heading(line.rstrip("\r\n")))
    ]
    assert by_itself == _oracle_headings(text)


@pytest.mark.parametrize(
    ("text", "may"),
    [
        ("# T\n\n## A\n- item\ntext\n", False),
        ("a\r\n\r\n## b\r\n", False),  # CRLF line ends are no blanks
        ("", False),
        (" a", True),
        ("a\n    code\n", True),
        ("a\n\t\n", True),
        ("a\n```\n", True),
        ("~~~\n", True),
        ("a\n<div>\n", True),
        ("a\n\u00a0b\n", True),  # any whitespace, not only markdown-it's blanks
        ("a\rb", False),  # lines are split at LF only (callers check for a lone CR)
        ("a\n\rb", True),
        ("\r\n ", True),
    ],
)
def test_may_open_block_cases(text: str, may: bool) -> None:
    assert markdown.may_open_block(text) is may


# --------------------------------------------------------------------------
# flat pages

_FLAT_PIECES = [
    *("# Title", "## Section", "### Sub ###", "#tag line", "text", "more text  ", "漢字"),
    *("- item", "- [decision] d #t", "- [x] done", "- [ ] open", "* star", "+ plus"),
    *("- `a.py`", "- **bold**", "**Dream:**", "- rel [[X]]", "[a] b", "[a]: /u", "2026 year"),
    *("1. one", "- - x", "---", "***", "=", "text =", "`code`", "```", "| a |", "", "  ", "\t"),
    *("  indented", "> q", "<div>", "-", "-  two spaces", "a\x00b", "\u3000", "-- -", "** *"),
    *("--x", "==", "=x", "_x_", "__ _", "___", "* * *", "- - -", "---  ", "-\t-\t-"),
]


def _dump(blocks: list[Block]) -> list[tuple[object, ...]]:
    fields = ("kind", "start", "end", "level", "content", "marker", "ordered", "number")
    more = ("indent", "task", "tight", "info", "closed", "html_kind")
    return [
        (depth, *(getattr(b, f) for f in fields + more), len(b.children))
        for b, depth in walk(blocks)
    ]


@settings(max_examples=examples(250), deadline=None)
@given(
    st.lists(st.sampled_from(_FLAT_PIECES), max_size=16),
    st.sampled_from(["\n", "\r\n"]),
    st.booleans(),
    st.booleans(),
)
def test_flat_pages_tokenize_as_markdown_it_does(
    parts: list[str], eol: str, last_eol: bool, tables: bool
) -> None:
    text = eol.join(parts) + (eol if last_eol else "")
    if "\x00" not in text:
        assert _ours(text, tables) == _oracle(text, tables)


# --------------------------------------------------------------------------
# single lines, against markdown-it

_LINE_PIECES = [
    *("-", "*", "_", "+", "=", " ", "  ", "   ", "    ", "\t", "x", "#", "<", "`", "~", "é"),
    *("- - -", "* * *", "***", "-- -", "---", "--", "- ", "* ", "+ ", "-\t", "1. ", ">"),
]
HAND_PICKED_LINES = [
    *("---", "***", "___", "- - -", "* * *", "_ _ _", "-- -", "** *", "-\t-\t-", "-  -  -  "),
    *(" ---", "   ***", "    ---", "\t---", " \t---", "--", "- -", "+ + +", "-*-", "--- x"),
    *("- item", "* item", "+ item", "-", "- ", "-\titem", "   - three", "    - four", "-item"),
    *("- ---", "- -- x", "* **", "+ ++", "1. one", "# heading", "  # two", "<div>", "  <!--"),
    *("```", "  ```", "   ~~~", "    ```", "- ```", "é", "-é", "- é"),
]


def _first_block(text: str, line: int) -> str | None:
    """The type of markdown-it's top-level token opening on ``line`` of ``text``."""
    for tok in _parse(_MD[False], text):
        if tok.level == 0 and tok.map is not None and tok.map[0] == line and tok.nesting >= 0:
            return tok.type
    return None


def _check_line(line: str) -> None:
    if "\r" in line or "\n" in line:
        return  # (no line end, by the functions' contract)
    alone = _first_block(line + "\n", 0)
    under = _first_block("para\n" + line + "\n", 1)
    for form in (line, line.encode()):
        assert markdown.is_thematic_break(form) == (alone == "hr"), (line, alone)
        assert markdown.is_bullet_item_start(form) == (alone == "bullet_list_open"), (line, alone)
        assert markdown.is_bullet_item_start(form, after_paragraph=True) == (
            under == "bullet_list_open"
        ), (line, under)


@settings(max_examples=examples(500), deadline=None)
@given(st.lists(st.sampled_from(_LINE_PIECES), max_size=6).map("".join))
def test_line_rules_agree_with_markdown_it(line: str) -> None:
    """Whether one line is a thematic break, or opens a bullet item (alone and under a
    paragraph line), as markdown-it reads it; for ``str`` and ``bytes``."""
    _check_line(line)


@pytest.mark.parametrize("line", HAND_PICKED_LINES)
def test_hand_picked_line_rules_agree_with_markdown_it(line: str) -> None:
    _check_line(line)
