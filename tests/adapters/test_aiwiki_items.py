"""The aiwiki reader finds a page's items and directives on the Markdown block tokens.

List sections are read from :func:`sessionkit.markdown.tokenize`'s blocks, so
the items a page holds are the top-level list items markdown-it finds (the
oracle here), bulleted and numbered alike; every other block of the section is
held beside them.  A directive header is aiwiki's line rule: a line
``**Kind directive (unconsumed):**`` outside a fenced code or HTML block starts
a directive even right after a bullet.  Generated sections are full of what
matters to a block reader (bullets of every kind, fences, indented and lazy
lines, rules, headings, directive headers, the placeholder, ``\\r``).
"""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

import sessionkit

from ..strategies import citations, lines

_LINES = [
    "",
    " ",
    "- a",
    "- `b.py` note",
    "-  two spaces",
    "-\tx",
    "-",
    "- ",
    "* star",
    "+ plus",
    "1. one",
    "2) two",
    " - one space",
    "   - three",
    "  indented",
    "\tcontinued",
    "lazy text",
    "> quoted",
    "<!-- a comment -->",
    "| a | b |",
    "(filled by /wrap)",
    "---",
    "### Sub-heading",
    "**bold text**",
    "- ```",
    "- ~~~ x",
    "```",
    "```py",
    "~~~",
    "  ```",
    "- [ ] a task",
    "a\r",
]

_line = st.one_of(st.sampled_from(_LINES), lines(12))

HEAD = (
    "---\nschema_id: session\nschema_version: 2\nstatus: active\ndate_start: 2026-05-18\n"
    "session_id: 7e8a3f21-9a4b\nfocus: f\n---\n\n"
)


def _top_items(body: str) -> int:
    """How many items the top-level lists of ``body`` have, as markdown-it reads it."""
    depth = 0
    count = 0
    for token in MarkdownIt("commonmark").enable("table").parse(body):
        if token.type == "list_item_open":
            if depth == 0:
                count += 1
            depth += 1
        elif token.type == "list_item_close":
            depth -= 1
    return count


@settings(max_examples=300, deadline=None)
@given(st.lists(_line, max_size=12))
@example(["- a", "lazy text", "- b"])
@example(["1. one", "   - nested", "2) two"])
@example(["We chose Postgres because:", "- a", "```", "- not an item", "```", "- b"])
def test_next_steps_are_the_items_markdown_it_finds(body_lines: list[str]) -> None:
    body = "".join(line.replace("\r", "") + "\n" for line in body_lines)
    if "\n#" in "\n" + body or "\n---" in "\n" + body:
        return  # a heading or rule would end the section, not what this checks
    text = HEAD + "## Next steps\n\n" + body
    session = sessionkit.loads(text, path="aiwiki/sessions/2026-05-18-7e8a3f2.md")
    assert len(session.next_steps) == _top_items(body)
    if "1. " not in body and "2) " not in body:  # (Files touched holds bullets alone)
        files = sessionkit.loads(text.replace("## Next steps", "## Files touched"), path="x.md")
        assert len(files.files_touched) == _top_items(body)
    assert sessionkit.dumps(session) == text


def _entry(*body: str) -> str:
    return (
        HEAD
        + "## Checkpoints\n\n### PreCompact at 2026-05-18T14:23:00Z\n\n"
        + "".join(line + "\n" for line in body)
    )


def test_a_directive_header_right_after_a_bullet_starts_a_directive() -> None:
    text = _entry(
        "**Dream directive (consumed at 2026-05-18T15:00:00Z):**",
        "- Action: first",
        "**Dream directive (unconsumed):**",
        "- Action: second",
    )
    session = sessionkit.loads(text, path="x.md")
    (cp,) = session.checkpoints
    assert [d.items for d in cp.directives] == [("Action: first",), ("Action: second",)]
    assert [d.state.value for d in cp.directives] == ["consumed", "unconsumed"]


def test_a_directive_header_inside_a_fence_is_text() -> None:
    text = _entry(
        "Active work: x",
        "```markdown",
        "**Dream directive (unconsumed):**",
        "- Action: an example, not a directive",
        "```",
        "",
        "**Dream directive (unconsumed):**",
        "- Action: the real one",
    )
    (cp,) = sessionkit.loads(text, path="x.md").checkpoints
    assert [d.items for d in cp.directives] == [("Action: the real one",)]
    assert "an example, not a directive" in cp.body
    assert sessionkit.dumps(sessionkit.loads(text, path="x.md")) == text


def test_each_entry_places_its_directive_headers_by_its_own_blocks() -> None:
    # fences and HTML blocks in the preamble, in other entries and in other sections
    # do not move what an entry's own blocks say about its directive headers
    header = "**Dream directive (unconsumed):**"
    text = (
        HEAD
        + "```\nopen in the preamble\n```\n\n## Checkpoints\n\n"
        + "### PreCompact at 2026-05-18T14:23:00Z\n\n"
        + f"~~~\n{header}\n- Action: fenced\n~~~\n\n{header}\n- Action: one\n\n---\n\n"
        + "### PreCompact at 2026-05-18T15:23:00Z\n\n"
        + f"<div>\n{header}\n- Action: html\n</div>\n\n{header}\n- Action: two\n\n---\n\n"
        + "### PreCompact at 2026-05-18T16:23:00Z\n\n"
        + f"{header}\n- Action: three\n\n---\n\n"
        + "## Next steps\n\n- a\n  ```\n  b\n  ```\n"
    )
    session = sessionkit.loads(text, path="x.md")
    assert [[d.items for d in cp.directives] for cp in session.checkpoints] == [
        [("Action: one",)],
        [("Action: two",)],
        [("Action: three",)],
    ]
    assert "Action: fenced" in session.checkpoints[0].body
    assert "Action: html" in session.checkpoints[1].body
    assert sessionkit.dumps(session) == text


def test_a_directive_reads_its_bullets_up_to_the_next_block() -> None:
    text = _entry(
        "**Dream directive (unconsumed):**",
        "",
        "- Scope: `aiwiki/raw/`",
        "  wrapped onto a second line",
        "",
        "* Status: done",
        "Trailing prose is the entry's text.",
    )
    (cp,) = sessionkit.loads(text, path="x.md").checkpoints
    (directive,) = cp.directives
    # a second list (another marker) after a blank line still belongs to the directive;
    # the prose right under its item is a lazy line of that item, as Markdown reads it
    assert directive.items == (
        "Scope: `aiwiki/raw/`\n  wrapped onto a second line",
        "Status: done\nTrailing prose is the entry's text.",
    )
    assert directive.status is None  # a Status item is one line
    assert "Trailing prose" not in cp.body


_CITATION_PIECES = [*"`ab./:-@ 0123456789fF\n\t", "abc1234", "x.py", "@", ":12-3", "``"]


@settings(deadline=None)
@given(
    st.one_of(
        citations().map(lambda c: c.render()),
        st.lists(st.sampled_from(_CITATION_PIECES), max_size=10).map("".join),
        st.lists(st.sampled_from(_CITATION_PIECES), max_size=8).map(lambda p: "`" + "".join(p)),
    )
)
@example("`a.py` ")
@example("`a.py`\n")
@example("`a.py`  two")
@example("`a.py:0-0@abcd` n")
@example("`a.py:01` n")
@example("`a.py@abc` n")
@example("`a b.py` n")
@example("`a.py` line\nnext")
@example("`a.py:3@abcdef0`")
def test_a_files_touched_bullet_reads_as_its_text(text: str) -> None:
    if "\n" in text or text != text.strip() or not text or text[0] in "-*+#>" or "`" * 3 in text:
        return  # one item's text on one line
    page = HEAD + "## Files touched\n\n- " + text + "\n"
    (cited,) = sessionkit.loads(page, path="x.md").files_touched
    assert cited.render() == text
    assert cited == sessionkit.loads(page + "- other\n", path="x.md").files_touched[0]
