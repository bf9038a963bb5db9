"""The self-check's shortcuts for aiwiki pages agree with the long way.

The self-check asks whether a page, mapped to the pivot and written back as
aiwiki, reads as the same session.  The long way reads the rendering again
and compares both readings as JSON.  The shortcuts answer without that read:

* the same body and the same frontmatter values (however the YAML spells
  them) read the same;
* a body that is the page's own body without the blank lines between a
  directive's header and its first item reads the same, when no line of it
  can open a fence, indented code or an HTML block.

Each test builds pages from lines that matter to the readers (fences, HTML,
indented lines, headings, directive headers, blank lines) and asserts that
whenever a shortcut says "the same", the long way says so too.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sessionkit.adapters import crosswalk as C
from sessionkit.document import parse

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
    """The page as the converter writes it back (``None`` when it refuses it)."""
    doc = parse(text, _PATH)
    try:
        pivot = C.pivot_from_aiwiki(doc)
        return C._natural(pivot, "aiwiki", project=None, folder="sessions", today="2026-01-01")[1]
    except Exception:  # a page the converter refuses or carries: no shortcut to check
        return None


def _check(text: str) -> tuple[bool, bool]:
    """(a shortcut said the same, the long way said the same) for one page."""
    doc = parse(text, _PATH)
    try:
        pivot = C.pivot_from_aiwiki(doc)
        _, rendered = C._natural(
            pivot, "aiwiki", project=None, folder="sessions", today="2026-01-01"
        )
    except Exception:  # a page the converter refuses or carries: no shortcut to check
        return False, False
    again = parse(rendered, doc.path)
    quick = C._same_note(again, doc) or C._same_page_but_spacing(again, doc, pivot.layout)
    slow = C._plain(again, "aiwiki") == C._plain(doc, "aiwiki")
    return quick, slow


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
    quick, slow = _check(text)
    if quick:
        assert slow


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
    if spaced is None:
        return
    quick, slow = _check(spaced)
    if quick:
        assert slow


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
    doc = parse(_schema_shape(), _PATH)
    pivot = C.pivot_from_aiwiki(doc)
    _, rendered = C._natural(pivot, "aiwiki", project=None, folder="sessions", today="2026-01-01")
    again = parse(rendered, doc.path)
    assert rendered != doc.text and not C._same_note(again, doc)
    assert C._same_page_but_spacing(again, doc, pivot.layout)
    assert C._plain(again, "aiwiki") == C._plain(doc, "aiwiki")


def test_spacing_shortcut_refuses_a_body_with_a_fence() -> None:
    """A line that may open a block (here a fence) turns the shortcut off."""
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
    doc = parse(text + "\n", "aiwiki/sessions/2024-01-01-abcdef0.md")
    pivot = C.pivot_from_aiwiki(doc)
    _, rendered = C._natural(pivot, "aiwiki", project=None, folder="sessions", today="2026-01-01")
    assert not C._same_page_but_spacing(parse(rendered, doc.path), doc, pivot.layout)
