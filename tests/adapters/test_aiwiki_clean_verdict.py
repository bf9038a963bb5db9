"""The clean-page verdict of the quick lint never hides a finding, and clean pages take it.

The quick lint first asks whether a plain page is clean (its body's outline,
citations, checkpoint times, line caps, and the frontmatter rules) and
answers ``[]`` without splitting the page into facts (the ``clean-verdict``
fast lane).  These tests build pages that are clean or one small step away
from a finding (an outline out of order, a checkpoint out of time order, a
bullet that is no citation, a stale status, a page over the line cap…) and
hold ``sessionkit.lint`` to the general path's findings on each (the fast
lanes off through :mod:`sessionkit._fastpaths`); and they check, with
``fastpaths.taken()``, that the verdict is what clean pages take, so the
property is not vacuous.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sessionkit
from sessionkit.adapters.aiwiki import builtin_schema
from tests.lanes import general_paths, taken

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "benchmarks"))

PATH = "aiwiki/sessions/2026-05-01-abcdef0.md"
FRONT = (
    "---\nschema_id: session\nschema_version: 2\nstatus: done\ndate_start: 2026-05-01\n"
    "date_end: 2026-05-01\nsession_id: abcdef0-1111\nfocus: clean\nlast_commit: 'abc1234'\n---\n"
)


def _general(text: str, path: str = PATH, **kwargs: Any) -> list[Any]:
    with general_paths():
        return list(sessionkit.lint(text, path, **kwargs))


def _check(text: str, path: str = PATH, **kwargs: Any) -> bool:
    """``sessionkit.lint`` gives the general path's findings; True when the verdict
    answered a clean page."""
    before = taken()["clean-verdict"]
    found = sessionkit.lint(text, path, **kwargs)
    verdict = taken()["clean-verdict"] > before
    assert found == _general(text, path, **kwargs)
    return verdict and found == []


CLEAN_BODY = """
## Checkpoints

### PreCompact at 2026-05-01T10:00:00Z

**Dream directive (consumed at 2026-05-01T12:00:00Z):**

- Scope: `aiwiki/raw/`
- Status: consumed

---

### Stop at 2026-05-01T11:00:00Z

## Files touched

- `src/a.py:1-20@abc1234` — the reader
- `src/b.py@abcdef1`

## Decisions made

- [[adr-0001]] one model

## Next steps

- Ship it
"""


def test_a_clean_page_takes_the_verdict() -> None:
    """A clean page is answered by the verdict (so its speed is the verdict's), which
    is part of the quick lint."""
    before = taken()
    assert _check(FRONT + CLEAN_BODY)
    after = taken()
    assert after["clean-verdict"] == before["clean-verdict"] + 1
    assert after["quick-lint"] == before["quick-lint"] + 1


def test_the_benchmark_corpus_takes_the_verdict(tmp_path: Path) -> None:
    from _corpus import write_corpus

    paths = write_corpus(tmp_path, "v2", 40)
    assert all(_check(p.read_text("utf-8"), str(p)) for p in paths)


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("## Decisions made", "## Decisions  made"),  # unknown section (AW006)
        ("## Next steps", "## Files touched"),  # twice (AW007)
        ("## Decisions made\n", "## Decisions made\n\n## Checkpoints\n"),  # out of order
        ("## Next steps", "## Next steps ##"),  # not canonical: the general scan
        ("T11:00:00Z", "T09:00:00Z"),  # checkpoints out of time order (AW016)
        ("T11:00:00Z", "T25:00:00Z"),  # not a time (AW015)
        ("T11:00:00Z", "T11:60:00Z"),  # not a time (AW015)
        ("2026-05-01T10:00:00Z", "2026-02-30T10:00:00Z"),  # not a day (AW015)
        ("2026-05-01T10:00:00Z", "2024-02-29T10:00:00Z"),  # a leap day (clean)
        ("2026-05-01T10:00:00Z", "0000-01-01T10:00:00Z"),  # not a year (AW015)
        ("### Stop at", "### Stop  at"),  # still a good heading, not the plain shape
        ("### Stop at 2026-05-01T11:00:00Z", "### Stop"),  # bad checkpoint heading
        ("### Stop at", "#### Stop at"),  # deeper heading under Checkpoints
        ("### Stop at", "### \u00a0 at"),  # an event that strips away (AW015)
        ("### Stop at", "### Stop\u00a0at"),  # no " at " (AW015)
        ("- `src/b.py@abcdef1`", "- src/b.py"),  # not a citation (AW011)
        ("- `src/b.py@abcdef1`", "- `src/b.py:3`"),  # no SHA (AW012)
        ("- `src/b.py@abcdef1`", "### sub"),  # a heading in Files touched
        ("(consumed at 2026-05-01T12:00:00Z)", "(unconsumed)"),  # stale status (AW017)
        ("- Ship it", "- Ship it" + "\n" * 300),  # over the soft target (AW010)
        ("- Ship it", "- Ship it" + "\n" * 500),  # over the hard cap (AW009)
        ("## Next steps", "##"),  # an empty level-2 heading
        ("## Next steps", "##x"),  # not a heading
        ("## Checkpoints\n", "## Checkpoints\n```\n## Next steps\n```\n"),  # code block
    ],
)
def test_one_step_from_clean(old: str, new: str) -> None:
    text = FRONT + CLEAN_BODY
    assert old in text
    _check(text.replace(old, new, 1))


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("status: done\n", "status: active\n"),  # active with date_end (AW019)
        ("date_end: 2026-05-01\n", ""),  # done without date_end (AW019)
        ("date_end: 2026-05-01", "date_end: 2026-04-30"),  # before date_start (AW014)
        ("focus: clean\n", ""),  # a required key missing (AW002)
        ("focus: clean", "focus: 12"),  # not a string (AW003)
        ("schema_version: 2", "schema_version: 1"),  # a v1 page (AW018 and v1 rules)
        ("session_id: abcdef0-1111", "session_id: 1234567-1111"),  # the file name (AW013)
        ("status: done", "status: wip"),  # not in the enum (AW003)
    ],
)
def test_frontmatter_one_step_from_clean(old: str, new: str) -> None:
    text = FRONT + CLEAN_BODY
    assert old in text
    changed = text.replace(old, new, 1)
    assert sessionkit.lint(changed, PATH) != []
    assert not _check(changed)


@pytest.mark.parametrize(
    "where",
    [
        "focus: clean",
        "— the reader",
        "- Ship it",
        "Scope: ",
        "## Files touched\n",
        "\n## Next",
        "```",
    ],
)
@pytest.mark.parametrize("fence", [False, True])
def test_bytes_that_are_not_utf8_are_unreadable_wherever_they_are(where: str, fence: bool) -> None:
    """The verdict checks only the parts that are not ASCII: a bad byte anywhere is still
    the general path's AW001 (with fences too: the scan decodes their lines)."""
    import sessionkit.ops.lint as ops_lint

    text = FRONT + CLEAN_BODY + ("\n```\ncode\n```\n" if fence or where == "```" else "")
    assert where in text
    good = text.encode()
    at = good.index(where.encode()) + len(where.encode())
    cases = [good[:at] + bad + good[at:] for bad in (b"\xff", b"\xe2\x80", b"\xc3(")]
    found = [ops_lint.lint_data(data, PATH, 1 << 20) for data in [*cases, good]]
    with general_paths():
        assert found == [ops_lint.lint_data(data, PATH, 1 << 20) for data in [*cases, good]]
    assert all([d.code for d in one] == ["AW001"] for one in found[:-1])


def _lane(text: str, path: str = PATH) -> str:
    """``sessionkit.lint`` gives the general path's findings; ``"clean-verdict"`` when
    the verdict answered a clean page, ``"verdict-findings"`` when it answered a page
    with findings, else ``""``."""
    lanes = ("clean-verdict", "quick-lint")
    before = taken()
    found = sessionkit.lint(text, path)
    after = taken()
    assert found == _general(text, path)
    took = [lane for lane in lanes if after[lane] > before[lane]]
    if took[:1] == ["clean-verdict"]:
        return "clean-verdict" if found == [] else "verdict-findings"
    return ""


@pytest.mark.parametrize(
    ("old", "new", "codes"),
    [
        ("- `src/b.py@abcdef1`", "- `src/b.py:3`", ["AW012"]),  # a citation without SHA
        ("- `src/b.py@abcdef1`", "- src/b.py", ["AW012"]),  # a bare one without SHA
        ("- `src/b.py@abcdef1`", "- not a citation", ["AW011"]),
        ("- `src/a.py:1-20@abc1234` — the reader", "- `a.py`\n- `b.py:2`", ["AW012", "AW012"]),
        ("- `src/b.py@abcdef1`", "- `src/b.py@abcdef1`x", ["AW011"]),  # ends inside its line
        ("## Files touched\n", "## Files touched\n(filled by /wrap)\n- `c.py`\n", ["AW012"]),
        ("status: done\n", "status: active\n", ["AW019"]),
        ("date_end: 2026-05-01", "date_end: 2026-04-30", ["AW014"]),
        ("focus: clean", "focus: 12", ["AW003"]),
        ("session_id: abcdef0-1111", "session_id: 1234567-1111", ["AW013"]),
        ("status: done", "status: wip", ["AW003"]),
    ],
)
@pytest.mark.parametrize("ends", ["\n", "\r\n"])
@pytest.mark.parametrize("bom", ["", "\ufeff"])
def test_pages_with_findings_take_the_lane_too(
    old: str, new: str, codes: list[str], ends: str, bom: str
) -> None:
    """A plain page with findings in its frontmatter or Files touched (the usual
    ones: a citation without a SHA, a v1 page's) is linted on the lane clean pages
    take, whatever its line ends and with or without a BOM: the general path's
    findings, found without the page's facts."""
    text = (FRONT + CLEAN_BODY).replace(old, new, 1)
    assert text != FRONT + CLEAN_BODY
    text = bom + text.replace("\n", ends)
    assert _lane(text) == "verdict-findings"
    assert sorted(d.code for d in sessionkit.lint(text, PATH)) == codes


@pytest.mark.parametrize("ends", ["\n", "\r\n"])
@pytest.mark.parametrize("bom", ["", "\ufeff"])
def test_a_clean_page_takes_the_verdict_whatever_its_line_ends(ends: str, bom: str) -> None:
    assert _lane(bom + (FRONT + CLEAN_BODY).replace("\n", ends)) == "clean-verdict"


def test_a_v1_page_takes_the_lane() -> None:
    """A v1 page (AW018 and its own schema's rules) takes the lane, read as its own
    version; as v2 it has the v2 rules."""
    front = FRONT.replace("schema_version: 2", "schema_version: 1").replace(
        "session_id: abcdef0-1111\n", ""
    )
    body = CLEAN_BODY.split("## Files touched")[1]
    text = front + "\n## Files touched" + body
    assert _lane(text, "aiwiki/sessions/2026-05-01-clean.md") == "verdict-findings"
    assert [d.code for d in sessionkit.lint(text, "aiwiki/sessions/2026-05-01-clean.md")] == [
        "AW018"
    ]
    for format in ("aiwiki-v1", "aiwiki-v2"):
        found = sessionkit.lint(text, PATH, format)
        assert found == _general_as(text, PATH, format)


def _general_as(text: str, path: str, format: str) -> list[Any]:
    with general_paths():
        return list(sessionkit.lint(text, path, format))


@pytest.mark.parametrize("kind", ["clean", "finding", "mix"])
def test_the_cli_benchmark_corpora_take_the_lane(kind: str) -> None:
    """Every page of the CLI benchmark's corpora (clean, each with a finding, and the
    mix of v1, CRLF, BOM and long pages) is linted on the verdict lane, with the
    general path's findings."""
    from _corpus import cli_page

    lanes = set()
    for i in range(40):
        name, data = cli_page(kind, i)
        lane = _lane(data.decode("utf-8"), f"aiwiki/sessions/{name}")
        assert lane, (kind, i)
        lanes.add(lane)
    expected = {"clean": {"clean-verdict"}, "finding": {"verdict-findings"}}
    assert lanes == expected.get(kind, {"clean-verdict", "verdict-findings"})


_FILES_LINES = [
    "",
    "- `src/a.py:1-20@abc1234` — the reader",
    "- `src/b.py`",
    "- `src/b.py:3`",
    "- `src/b.py:3-9` — why",
    "* `c.py:0`",
    "+  `c.py:12-0`",
    "-     `c.py`",
    "- `src/b.py:03`",
    "- `src/b.py:3-`",
    "- `src/b.py:`",
    "- `a b.py`",
    "- `é.py`",
    "- `src/b.py`x",
    "- `src/b.py` ",
    "- `src/b.py`  two blanks",
    "- ``",
    "- `src/b.py",
    "-`src/b.py`",
    "- src/b.py:4",
    "- not a citation",
    "(filled by /wrap)",
    "  - nested",
    "---",
]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_FILES_LINES), max_size=8))
def test_files_touched_lines_on_a_clean_outline(lines: list[str]) -> None:
    """Whatever a Files touched section of a clean outline holds (citations with and
    without a SHA, near misses, the placeholder, lines that are no bullet), the lane
    gives the general path's findings, lines and messages."""
    head, tail = CLEAN_BODY.split("## Decisions made")
    head = head.split("## Files touched")[0]
    _lane(FRONT + head + "## Files touched\n" + "\n".join(lines) + "\n\n## Decisions made" + tail)


@pytest.mark.parametrize(
    ("line", "ref"),
    [
        ("- `src/b.py`", "src/b.py"),
        ("- `src/b.py:3`", "src/b.py:3"),
        ("* `src/b.py:3-9` — why", "src/b.py:3-9"),
        ("+   `c.py:0`", "c.py:0"),
    ],
)
def test_citations_without_a_sha_are_found_on_the_lane(line: str, ref: str) -> None:
    """A citation but for its SHA is the usual finding: found on the lane, at its line,
    with the citation the backticks hold, among cited bullets."""
    text = (FRONT + CLEAN_BODY).replace("- `src/b.py@abcdef1`", f"{line}\n- `d.py@abcdef1`")
    assert _lane(text) == "verdict-findings"
    (found,) = sessionkit.lint(text, PATH)
    assert (found.code, found.line) == ("AW012", text.splitlines().index(line) + 1)
    assert repr(ref) in found.message


def test_a_schema_without_strict_order_has_no_verdict() -> None:
    text = FRONT + CLEAN_BODY
    schema = builtin_schema(2)
    assert _check(text, schema=schema)
    assert not _check(text, schema=schema.replace(strict_order=False))


# -- generated pages one or two steps from clean -------------------------------------

_SECTION_LINES: dict[str, list[str]] = {
    "Checkpoints": [
        "",
        "### PreCompact at 2026-05-01T10:00:00Z",
        "### Stop at 2026-05-01T11:00:00Z",
        "### Stop at 2026-05-01T09:59:59Z",
        "### Stop at 2026-02-30T10:00:00Z",
        "### \u00a0 at 2026-05-01T12:00:00Z",
        "### x at 2026-05-01T12:00:00Z",
        "### é at 2026-05-01T12:00:00Z",
        "### Stop at 2026-05-01T12:00:00+00:00",
        "### Stop at 2026-05-01T12:00:00Z ",
        "###  Stop at 2026-05-01T12:00:00Z",
        "### Stop # at 2026-05-01T12:00:00Z",
        "#### deeper",
        "##x",
        "**Dream directive (consumed at 2026-05-01T12:00:00Z):**",
        "**Dream directive (unconsumed):**",
        "- Status: consumed",
        "- status:consumed",
        "- Scope: `aiwiki/raw/`",
        "---",
    ],
    "Files touched": [
        "",
        "- `src/a.py:1-20@abc1234` — the reader",
        "- `src/b.py@abcdef1`",
        "* `c.py:3@ABCDEF12`",
        "- `src/a.py:01@abc1234`",
        "- `src/a.py:1-@abc1234`",
        "- `src/a b.py@abc1234`",
        "- `src/a.py@abc`",
        "- `src/a.py`",
        "- src/a.py",
        "  - nested",
        "### sub",
        "(filled by /wrap)",
    ],
    "other": [
        "",
        "- a bullet",
        "### a level-3 heading",
        "####### seven",
        "# one",
        "##x",
        "text with ## inside",
        "Status: consumed",
    ],
}
_TITLES = list(builtin_schema(2).sections)


@st.composite
def _sections(draw: st.DrawFn) -> str:
    titles = draw(st.lists(st.sampled_from(_TITLES), min_size=0, max_size=7))
    if draw(st.integers(0, 3)):  # mostly in the schema's order, each once
        titles = sorted(set(titles), key=_TITLES.index)
    parts = []
    for title in titles:
        pool = _SECTION_LINES.get(title, _SECTION_LINES["other"])
        heading = draw(st.sampled_from([f"## {title}"] * 6 + [f"## {title} ", "## Extra"]))
        good = pool[: 3 if title != "other" else 2]
        lines = draw(st.lists(st.sampled_from(pool if draw(st.integers(0, 2)) == 0 else good)))
        parts.append("\n".join([heading, *lines]))
    return "\n" + "\n\n".join(parts) + draw(st.sampled_from(["\n", "", "\n" * 190, "\n" * 420]))


_FRONTS = st.sampled_from(
    [
        FRONT,
        FRONT.replace("status: done\n", "status: active\n").replace("date_end: 2026-05-01\n", ""),
        FRONT.replace("date_end: 2026-05-01\n", "date_end: 2026-05-03\n"),
        FRONT.replace("status: done\n", "status: active\n"),
        FRONT.replace("schema_version: 2\n", "schema_version: 1\n"),
        FRONT.replace("focus: clean\n", "focus: ~\n"),
        FRONT.replace("last_commit: 'abc1234'\n", "tags:\n  - a\n"),
    ]
)


@settings(max_examples=700, deadline=None)
@given(_FRONTS, _sections())
def test_generated_near_clean_pages(front: str, body: str) -> None:
    _check(front + body)


def test_the_generator_reaches_the_verdict() -> None:
    """The property above is not vacuous: many generated pages take the verdict (about
    one in six: 400 examples keep the count clear of the bound)."""
    taken = 0

    @settings(max_examples=400, deadline=None, database=None)
    @given(_sections())
    def count(body: str) -> None:
        nonlocal taken
        taken += _check(FRONT + body)

    count()
    assert taken >= 20


# -- the frontmatter verdict's memo ----------------------------------------------------

_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-1, 3),
    st.floats(allow_nan=False, min_value=0, max_value=3),
    st.sampled_from(["session", "active", "done", "wip", "2026-05-01", "2026-04-30", "x"]),
    st.lists(st.sampled_from(["a"]), max_size=1),
)
_NAMES = st.sampled_from([rule.name for rule in builtin_schema(2).keys])


def _page(meta: dict[str, Any]) -> str:
    """A clean body under frontmatter of ``meta`` (JSON values are YAML flow scalars)."""
    front = "".join(f"{key}: {json.dumps(value)}\n" for key, value in meta.items())
    return "---\n" + front + "---\n" + CLEAN_BODY


@settings(max_examples=800, deadline=None)
@given(st.dictionaries(_NAMES, _VALUES), st.sampled_from([1, 2]))
def test_frontmatter_verdict_never_hides_a_finding(meta: dict[str, Any], version: int) -> None:
    """Across examples the memo sees 1, 1.0 and True (equal keys): it must tell them apart."""
    _check(_page({"schema_id": "session", "schema_version": version, **meta}))


def test_frontmatter_verdict_tells_equal_values_of_other_types_apart() -> None:
    base = {
        "schema_id": "session",
        "status": "active",
        "date_start": "2026-05-01",
        "focus": "x",
        "session_id": "abcdef0-1111",
    }
    assert _check(_page({**base, "schema_version": 2}))
    for value in (2.0, True, 1, True):
        for key in ("schema_version", "focus", "status"):
            _check(_page({**base, key: value}))
    assert _check(_page({**base, "schema_version": 2}))
    assert not _check(_page({**base, "schema_version": 2, "date_end": ["a"]}))
