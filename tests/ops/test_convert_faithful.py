"""The self-check's shortcuts for aiwiki pages agree with the long way.

Before converting a page, the check asks whether the page, mapped to the
pivot and written back as aiwiki, reads as the same session.  The long way
reads the rendering again and compares both readings.  The shortcuts (the
``same-note`` fast lane) answer without that read:

* the same body and the same frontmatter values (however the YAML spells
  them) read the same;
* a body that is the page's own body without the blank lines between a
  directive's header and its first item reads the same, when no line of it
  can open a fence, indented code or an HTML block.

A wrong "the same" would let a page convert as if the model held every word
of it.  Each test builds pages from lines that matter to the readers
(fences, HTML, indented lines, headings, directive headers, blank lines),
converts them with the lanes on and off (:mod:`sessionkit.fastpaths`) and
asserts the same result; ``fastpaths.taken()`` shows the lane answers.
"""

from __future__ import annotations

import collections
import re

import attrs
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import sessionkit.document as document
from sessionkit import get_adapter
from sessionkit.adapters.crosswalk import Converted, convert_doc
from sessionkit.document import parse, parse_pieces
from sessionkit.errors import SessionKitError
from sessionkit.fastpaths import general_paths, taken

_PATH = "aiwiki/sessions/2024-01-01-abcdef0.md"
SLOW = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

_HEADER = "**Dream directive (consumed at 2024-01-01T12:00:00Z):**"
#: lines that mean something to the aiwiki reader or to the heading scan
_LINES = [
    "",
    "text",
    "- Scope: `aiwiki/raw/`, recent pages",
    "- Status: consumed",
    "- ```",
    "```",
    "~~~",
    "    indented",
    "  - nested",
    "\tTab",
    "<div>",
    "<!--",
    "-->",
    "## Files touched",
    "### PreCompact at 2024-01-01T10:00:00Z",
    "### not a checkpoint",
    _HEADER,
    "**Refine directive (unconsumed):**",
    "---",
    "- `src/a.py:1-2@abc1234` — note",
    "- [[adr-0001]] decided",
    "continued",
    " ",
]
_FRONT = [
    ["status: done", "date_start: 2024-01-01", "focus: Work"],
    [
        "status: done",
        "date_start: 2024-01-01",
        "session_id: 2d6b0a35-efb2-c80f-a8c9-ea4668bad905",
        "focus: Work",
        "last_commit: 'a5e0573'",
    ],
    ["status: 'active'", "date_start: '2024-01-02'", 'focus: "Work"', "extra_key: [a, b]"],
]


@st.composite
def _pages(draw: st.DrawFn) -> str:
    front = draw(st.sampled_from(_FRONT))
    lines = ["---", "schema_id: session", "schema_version: 2", *front, "---", ""]
    lines += ["## Checkpoints", ""]
    for n in range(draw(st.integers(0, 3))):
        lines += [f"### PreCompact at 2024-01-01T1{n}:00:00Z", ""]
        lines += draw(st.lists(st.sampled_from(_LINES), max_size=3))
        for _ in range(draw(st.integers(0, 2))):
            lines.append(draw(st.sampled_from([_HEADER, "**Refine directive (unconsumed):**"])))
            lines += [""] * draw(st.integers(0, 2))
            lines += draw(st.lists(st.sampled_from(_LINES), max_size=4))
        lines += ["", "---", ""]
    for title in draw(st.lists(st.sampled_from(["Files touched", "Next steps", "Notes"]))):
        lines += [f"## {title}", ""]
        lines += draw(st.lists(st.sampled_from(_LINES), max_size=5))
        lines.append("")
    return "\n".join(lines) + "\n"


def _render(text: str) -> str | None:
    """The page as the aiwiki writer writes its session (``None`` when it cannot)."""
    aiwiki = get_adapter("aiwiki-v2")
    try:
        session = aiwiki.read(parse(text, _PATH))
        return str(aiwiki.write(attrs.evolve(session, origin=None)).text)
    except SessionKitError:
        return None


def _convert(text: str) -> Converted | None:
    try:
        return convert_doc(
            parse(text, _PATH), "aiwiki", "basic-memory", project=None, folder="sessions", today="x"
        )
    except SessionKitError:
        return None


def _check(text: str) -> int:
    """The page converted with the lanes on and off: the same; how many times the
    ``same-note`` lane answered."""
    before = taken()["same-note"]
    fast = _convert(text)
    answered = taken()["same-note"] - before
    with general_paths():
        assert _convert(text) == fast, text
    return answered


def _spaced(text: str, after: set[int]) -> str:
    """``text`` with a blank line added after each line whose index is in ``after``."""
    out: list[str] = []
    for i, line in enumerate(text.split("\n")):
        out.append(line)
        if i in after:
            out.append("")
    return "\n".join(out)


@SLOW
@given(_pages())
def test_aiwiki_shortcuts_agree_with_a_second_read(text: str) -> None:
    _check(text)


def _written_and_spaced(text: str, data: st.DataObject) -> str | None:
    """``text`` as the writer writes it, with blank lines added after directive
    headers and anywhere else (``None`` when the writer does not take it)."""
    rendered = _render(text)
    if rendered is None:
        return None
    lines = rendered.split("\n")
    headers = [i for i, line in enumerate(lines) if line.startswith("**")]
    anywhere = data.draw(st.sets(st.integers(0, len(lines) - 1), max_size=2))
    chosen = data.draw(st.sets(st.sampled_from(headers))) if headers else set()
    return _spaced(rendered, chosen | anywhere)


@SLOW
@given(_pages(), st.data())
def test_spacing_shortcut_agrees_with_a_second_read(text: str, data: st.DataObject) -> None:
    """Pages the writer wrote, with blank lines added: after directive headers
    (the shortcut's case) and anywhere else."""
    spaced = _written_and_spaced(text, data)
    if spaced is not None:
        _check(spaced)


def _schema_shape() -> str:
    """A page as the schema's checkpoint entry shape has it: a blank line after the
    directive header, the session id unquoted, the SHA quoted."""
    page = (
        "---\nschema_id: session\nschema_version: 2\nstatus: done\n"
        "date_start: 2024-01-01\nsession_id: 2d6b0a35-efb2-c80f-a8c9-ea4668bad905\n"
        "focus: Work\nlast_commit: 'a5e0573'\n---\n\n## Checkpoints\n\n"
        "### PreCompact at 2024-01-01T10:54:00Z\n\nActive work: feature/commit\n\n"
        f"{_HEADER}\n- Scope: `aiwiki/raw/`, recently-touched typed pages\n"
        "- Trigger: pre-compact, context ~85%\n\n---\n\n## Next steps\n\n- Ship it\n"
    )
    rendered = _render(page)
    assert rendered is not None
    at = rendered.split("\n").index(_HEADER)
    return _spaced(rendered, {at}).replace(
        "session_id: '2d6b0a35-efb2-c80f-a8c9-ea4668bad905'",
        "session_id: 2d6b0a35-efb2-c80f-a8c9-ea4668bad905",
    )


def test_spacing_shortcut_takes_the_schema_entry_shape() -> None:
    # the page is not the writer's text (a blank line after the directive header, the
    # session id unquoted), yet the lane answers: no second read
    text = _schema_shape()
    assert text != _render(text)
    assert _check(text) == 1


def test_a_blank_line_in_the_frontmatter_converts_alike() -> None:
    """The writer's page with a blank line after its opening ``---``: the same frontmatter
    and body, so the lane answers without a second read; the long way must also find
    that the model holds every word (found by Hypothesis: it carried the page's text,
    as the target's JSON carrier does not spell 'directive')."""
    page = (
        "---\nschema_id: session\nschema_version: 2\nstatus: done\ndate_start: 2024-01-01\n"
        "focus: Work\n---\n\n## Checkpoints\n\n### PreCompact at 2024-01-01T10:00:00Z\n\n"
        "---\n\n### PreCompact at 2024-01-01T11:00:00Z\n\n"
        "**Dream directive (consumed at 2024-01-01T12:00:00Z):**\n\n## Files touched\n\n---\n"
    )
    written = _render(page)
    assert written is not None
    assert _check(_spaced(written, {0})) == 1


def test_a_body_with_a_fence_converts_alike() -> None:
    """A line that may open a block (here a fence): the long way decides."""
    text = "\n".join(
        [
            "---",
            "schema_id: session",
            "schema_version: 2",
            "status: done",
            "date_start: 2024-01-01",
            "focus: Work",
            "---",
            "",
            "## Checkpoints",
            "",
            "### PreCompact at 2024-01-01T10:54:00Z",
            "",
            _HEADER,
            "",
            "- Scope: x",
            "",
            "---",
            "",
            "## Notes",
            "",
            "```",
            "code",
            "```",
        ]
    )
    _check(text + "\n")


def test_word_check_knows_a_target_ending_with_the_source_body() -> None:
    from sessionkit.adapters.crosswalk import WordCheck

    source = parse("---\r\nfocus: x\r\n---\r\n\r\n## Summary\r\n\r\nkept words\r\n", "n.md")
    check = WordCheck(source, "aiwiki")
    # the body with LF line ends, under frontmatter spelled anew: every word is there
    assert check.kept("---\nfocus: 'x'\n---\n\n## Summary\n\nkept words\n", "aiwiki")
    # a word char before the body joins its first word ("\n" here is the body's own)
    glued = parse("---\nfocus: x\n---\nword and more\n", "g.md")
    assert glued.body == "word and more\n"
    assert not WordCheck(glued, "aiwiki").kept("---\nfocus: x\n---\nxword and more\n", "aiwiki")
    assert WordCheck(glued, "aiwiki").kept("---\nfocus: x\n---\n word and more\n", "aiwiki")
    # a target that does not end with the body is counted: a lost word is found
    assert not check.kept("---\nfocus: x\n---\n\n## Summary\n\nkept\n", "aiwiki")


_words = st.text(st.sampled_from("ab \r\n-\u00e9\U0001f680"), max_size=80)


def _cut_lines(text: str, cuts: list[int]) -> list[str]:
    """``text`` cut after some of its lines (no piece empty)."""
    ends = [i + 1 for i, c in enumerate(text) if c == "\n"]
    at = sorted({ends[c % len(ends)] for c in cuts} - {len(text)}) if ends else []
    return [text[a:b] for a, b in zip([0, *at], [*at, len(text)], strict=True)]


@settings(deadline=None)
@given(
    _words,
    _words,
    _words,
    st.sampled_from(["keep", "lf", "drop", "glue", "last"]),
    st.lists(st.integers(0, 1000), max_size=4),
    st.booleans(),
    st.integers(1, 8),
)
@example("ab ba\nzz a", "", "", "last", [3], True, 30)  # (past the first characters)
def test_word_check_counts_a_text_in_pieces_as_its_words(
    body: str, before: str, after: str, change: str, cuts: list[int], pieced: bool, times: int
) -> None:
    # a target holding the source's body (or nearly): kept exactly when every word of
    # the body is in it as often, however the target and the source are cut in pieces
    from sessionkit.adapters.crosswalk import WordCheck

    body *= times  # (longer than the first characters looked for)
    text = "---\nfocus: x\n---\n" + body
    if pieced:  # the source held in pieces too (as parse_pieces holds a big note)
        with pytest.MonkeyPatch.context() as m:
            m.setattr(document, "MANY_LINES", 0)
            source = parse_pieces(("---\nfocus: x\n---\n", *_cut_lines(body, cuts)), "n.md")
    else:
        source = parse(text, "n.md")
    kept = source.body
    if change == "lf":
        kept = kept.replace("\r\n", "\n")
    elif change == "drop" and kept:
        kept = kept[: len(kept) // 2] + kept[len(kept) // 2 + 1 :]
    elif change == "glue":
        kept = "a" + kept
    elif change == "last" and kept:
        kept = kept[:-1] + ("b" if kept[-1] == "a" else "a")
    head = "---\nfocus: y\n---\n"
    rest = before + "\n" + kept + after
    want = not collections.Counter(re.findall(r"\w+", source.body)) - collections.Counter(
        re.findall(r"\w+", head + rest)
    )
    check = WordCheck(source, "aiwiki")
    assert check.kept((head + rest,), "aiwiki") is want
    assert check.kept((head, *_cut_lines(rest, cuts)), "aiwiki") is want
