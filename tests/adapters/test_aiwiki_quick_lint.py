"""The quick lint gives the general lint's findings, or steps aside.

``sessionkit.lint`` reads plain aiwiki pages straight off their bytes (the
``quick-lint`` fast lane); anything else takes the general path.  These tests
run each page with the fast lanes on and off (:mod:`sessionkit._fastpaths`, the
public switch), read as its own version and as v1 and v2, on every page the
tests have and on generated pages built from the shapes that trip scanners
(fences, HTML, tabs, CRLF, indented headings, lazy continuations, directives,
near-miss citations, checkpoint headings, frontmatter values): the findings
are the same.  ``fastpaths.taken()`` shows the quick lint does answer for the
usual page, so the comparison is not of the general path with itself.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sessionkit
from sessionkit.adapters.aiwiki import builtin_schema
from tests.lanes import general_paths, taken

ROOT = Path(__file__).resolve().parent.parent
REPO = ROOT.parent
sys.path.insert(0, str(REPO / "benchmarks"))

PAGES = sorted(
    [
        *ROOT.glob("corpus/**/*.md"),
        *ROOT.glob("golden/**/*.md"),
        *(REPO / "examples").glob("**/*.md"),
    ]
)
PATH = "aiwiki/sessions/2026-05-01-abcdef0.md"
FRONT = "---\nschema_id: session\nschema_version: 2\n---\n"


def _lint_both(
    text: str, path: str, format: str | None = None, **kwargs: object
) -> tuple[list[sessionkit.Diagnostic], bool]:
    """``sessionkit.lint`` with the fast lanes on and off (the public switch): the same
    findings; and whether the quick lint answered."""
    before = taken()["quick-lint"]
    fast = sessionkit.lint(text, path, format, **kwargs)  # type: ignore[arg-type]
    took = taken()["quick-lint"] > before
    with general_paths():
        general = sessionkit.lint(text, path, format, **kwargs)  # type: ignore[arg-type]
    assert fast == general, (text, format)
    return fast, took


def _check(text: str, path: str = PATH) -> bool:
    """Quick and general agree on ``text``, read as its own version and as v1 and v2;
    True when the quick lint took it."""
    _, took = _lint_both(text, path)
    for format in ("aiwiki-v1", "aiwiki-v2"):
        _lint_both(text, path, format)
    return took


def _read(path: Path) -> str:
    with open(path, encoding="utf-8", newline="") as f:
        return f.read()


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(REPO)))
def test_every_test_page(page: Path) -> None:
    text, path = _read(page), f"aiwiki/sessions/{page.name}"
    _check(text, path)
    # SK003 (a NUL byte) is the note-level check sessionkit.lint adds to any format
    assert any(d.code == "SK003" for d in sessionkit.lint(text, path)) == ("\x00" in text)


def test_the_quick_scan_takes_plain_pages() -> None:
    """It is not a path nothing takes: the example wiki and most of the corpus are plain."""
    taken_pages = [p for p in PAGES if _check(_read(p), f"aiwiki/sessions/{p.name}")]
    examples = [p for p in (REPO / "examples" / "wiki" / "aiwiki" / "sessions").glob("2*.md")]
    assert len(examples) >= 5 and all(p in taken_pages for p in examples)
    assert len(taken_pages) >= len(PAGES) // 3


def test_the_benchmark_corpus_is_plain(tmp_path: Path) -> None:
    from _corpus import write_corpus

    paths = write_corpus(tmp_path, "v2", 40)
    assert all(_check(p.read_text("utf-8"), str(p)) for p in paths)


@pytest.mark.parametrize("kind", ["clean", "finding"])
@pytest.mark.parametrize("version", [1, 2])
@pytest.mark.parametrize("extra", [-1, 0, 1])
@pytest.mark.parametrize("last_break", [True, False])
def test_pages_at_the_line_caps(kind: str, version: int, extra: int, last_break: bool) -> None:
    """A benchmark page (without and with a citation lacking its SHA, a finding the quick
    lane reports) grown to one line under, at and over its schema's first line cap, with
    and without a line break after its last line: the same findings both ways, and the
    quick lane answers for it (it counts the lines while it looks at the bullets)."""
    from _corpus import cli_page

    name, data = cli_page(kind, 7)
    text = data.decode()
    if version == 1:
        text = text.replace("schema_version: 2", "schema_version: 1", 1)
    schema = builtin_schema(version)
    caps = [schema.hard_cap, schema.soft_target[1] if schema.soft_target else None]
    most = min(cap for cap in caps if cap is not None)
    body = text.rstrip("\n")
    lines = body.count("\n") + 1
    assert lines < most
    # (most + extra lines either way: empty ones, or a last one without its line break)
    grown = body + "\n" * (most + extra - lines) + ("\n" if last_break else "- the last line")
    found, took = _lint_both(grown, f"aiwiki/sessions/{name}")
    assert took
    over = [d for d in found if d.code in ("AW009", "AW010")]
    assert bool(over) == (extra > 0), found
    assert any(d.code == "AW012" for d in found) == (kind == "finding")


# -- generated pages -----------------------------------------------------------------

_FRONT = st.sampled_from(
    [
        "schema_id: session\nschema_version: 2\nstatus: active\ndate_start: 2026-05-01\n"
        "session_id: abcdef0-1111\nfocus: x\nlast_commit: ~\n",
        "schema_id: session\nschema_version: 1\nstatus: done\ndate_start: 2026-05-02\n"
        "date_end: 2026-05-01\nfocus: y\n",
        "schema_id: session\nschema_version: 2\ntags:\n  - a\n  - b\nstatus: wip\n",
        "schema_id: session\nschema_version: 2\nstatus: [a, b]\n",
        "schema_id: session\nschema_version: 2.0\nstatus: done\n",
        "schema_id: session\nschema_version: true\nstatus: done\n",
        "schema_id: session\nschema_version: '2'\n",
        "schema_id: session\n",
        "type: session\ntitle: x\npermalink: a/b\n",
        "schema_id: other\nschema_version: 3\n",
        "",
        "a: 1\n",
    ]
)
_LINE = st.sampled_from(
    [
        "",
        " ",
        "## Files touched",
        "## Checkpoints",
        "## Next steps",
        "## Decisions made",
        "## Open questions",
        "## Gotchas surfaced",
        "## Checkpoints ##",
        "## Files touched #",
        "##",
        "## ##",
        "# Title",
        "#tag line",
        "####### seven",
        "##x not a heading",
        "###",
        "### ",
        "##  two spaces",
        "~ tilde ~~ two",
        "### PreCompact at 2026-05-01T10:00:00Z",
        "### PreCompact at 2026-05-01T09:00:00Z",
        "### PreCompact at 2026-13-45T99:00:00Z",
        "### Not a checkpoint",
        "#### deeper",
        "   ## three spaces",
        "    ## four spaces",
        "\t## tab",
        "- `a.py:1@abc1234` — cited",
        "- `a.py:1` — no sha",
        "- a.py",
        "- not a citation at all",
        "-  `b.py:2-3@abcdef1`",
        "* `c.py@1234567`",
        "+ d/e.txt",
        "-",
        "- ",
        "* ",
        " - one space bullet",
        "  - nested bullet",
        "    indented text",
        "lazy continuation text",
        "(filled by /wrap)",
        "---",
        "***",
        "* * *",
        "```",
        "```python",
        "~~~",
        "<!-- comment -->",
        "<div>",
        "a < b",
        "**Dream directive (unconsumed):**",
        "**Dream directive (consumed at 2026-05-01T12:00:00Z):**",
        "- Status: consumed",
        "- status:   CONSUMED now",
        "- Status: unconsumed",
        "- Action: dream",
        "prose with `code` and [[link]]",
        "line with trailing spaces   ",
        "\u00a0",
        "\x0b",
        "---x",
    ]
)


@st.composite
def pages(draw: st.DrawFn) -> str:
    front = draw(_FRONT)
    body = draw(st.lists(_LINE, max_size=30))
    newline = draw(st.sampled_from(["\n", "\n", "\n", "\r\n"]))
    closing = draw(st.sampled_from(["---", "---", "--- ", "----"]))
    text = "---\n" + front + closing + "\n" + "\n".join(body)
    if draw(st.booleans()):
        text += "\n"
    return text.replace("\n", newline)


@settings(max_examples=600, deadline=None)
@given(pages())
def test_generated_pages(text: str) -> None:
    _check(text)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="-#\n \t`~<*+()abc:", max_size=120))
def test_arbitrary_text(text: str) -> None:
    _check("---\nschema_id: session\nschema_version: 2\n---\n" + text)
    _check(text)


_CITATIONS = st.one_of(
    st.text(alphabet="`ab./:-@0123456789cdef \n", max_size=40).map(lambda t: "- " + t),
    st.builds(
        lambda path, line, sha, note: f"- `{path}{line}{sha}`{note}",
        st.text(alphabet="ab./@-", min_size=1, max_size=8),
        st.sampled_from(["", ":1", ":0", ":01", ":3-9", ":3-"]),
        st.sampled_from(["", "@abc1", "@abc", "@ABCDEF1234", "@xyz1234"]),
        st.sampled_from(["", " note", "  two", " — x\nmore"]),
    ),
    st.text(alphabet="-*+ `ab/.:@0123456789cdefABCDEFxyz\x01\u00e9\u00a0", max_size=40),
    st.builds(
        lambda marker, path, lines, sha, tail: f"{marker}`{path}{lines}{sha}`{tail}",
        st.sampled_from(["- ", "* ", "+ ", "-  ", "- -", "-"]),
        st.text(alphabet="ab./-_:@`\u00e9 \x1c", min_size=0, max_size=8),
        st.sampled_from(["", ":1", ":0", ":01", ":3-9", ":3-", ":3-0", ":3-04", ":-3"]),
        st.sampled_from(["", "@abc1", "@abc", "@ABCDEF1234", "@xyz1234", "@" + "a" * 41]),
        st.sampled_from(["", " note", "x", "  two", "` more"]),
    ),
)


@settings(max_examples=800, deadline=None)
@given(st.lists(_CITATIONS, min_size=1, max_size=3), st.booleans())
def test_files_touched_entries_read_the_same_both_ways(entries: list[str], more: bool) -> None:
    """Citations with and without a SHA, near misses and prose in ``Files touched``:
    the quick lint's shortcuts for cited lines (and its citation check) find what
    the general path finds (AW010, AW011…)."""
    text = FRONT + "\n## Files touched\n\n" + "\n".join(entries) + "\n"
    if more:
        text += "\n## Next steps\n\n- x\n"
    _check(text)


@pytest.mark.parametrize(
    "entry", ["- --", "* * *", "- - -", "-  -  -  ", "* **", "- ---", "- -- x", "+ ++"]
)
@pytest.mark.parametrize("cited", [False, True])
def test_a_thematic_break_in_files_touched_is_no_entry(entry: str, cited: bool) -> None:
    """``- --`` or ``* * *`` starts like a bullet but is a thematic break (no entry, no
    finding), with or without cited entries around it; ``- -- x`` is an entry."""
    around = "- `a.py:1@abc1234`\n" if cited else ""
    _check(FRONT + "\n## Files touched\n\n" + around + entry + "\n" + around)


@pytest.mark.parametrize("empty", ["- ", "* ", "+ ", "-   "])
@pytest.mark.parametrize("between", ["", "- `a.py:1@abc1234`\n", "\n"])
def test_an_empty_bullet_under_the_placeholder_is_no_entry(empty: str, between: str) -> None:
    """The placeholder is a paragraph: an empty bullet right under it does not
    interrupt it (``- `` underlines it, ``* `` continues it), so it is no entry;
    after a blank line or another bullet it is one (found by the quick lane
    once bullets were asked of the tokenizer's rule)."""
    _check(FRONT + "\n## Files touched\n\n(filled by /wrap)\n" + between + empty + "\n")


def test_cited_pages_take_the_quick_lint() -> None:
    for entry in ("- `src/a.py:1-20@abc1234` — the reader", "- `b.py@abcdef1`", "- `a.py:1`"):
        assert _check(FRONT + "\n## Files touched\n\n" + entry + "\n")


# -- the rules' shortcuts ------------------------------------------------------------

_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-2, 3),
    st.floats(allow_nan=False, min_value=0, max_value=3),
    st.sampled_from(
        ["session", "other", "active", "done", "wip", "2026-05-01", "2026-13-01", "", "x"]
    ),
    st.lists(st.sampled_from(["a", "b"]), max_size=2),
)
_NAMES = st.sampled_from([rule.name for rule in builtin_schema(2).keys] + ["extra"])


def _frontmatter(meta: dict[str, object]) -> str:
    """``meta`` as frontmatter (JSON values are YAML flow scalars; a string that
    spells a date stays a string)."""
    return "".join(f"{key}: {json.dumps(value)}\n" for key, value in meta.items())


@settings(max_examples=600, deadline=None)
@given(st.dictionaries(_NAMES, _VALUES), st.sampled_from([1, 2]), st.booleans())
def test_keys_shortcut_never_hides_a_finding(
    meta: dict[str, object], version: int, session: bool
) -> None:
    """The key rules' shortcut (every key rule met: skip them) is a fast lane: the
    findings are the same with it off, as the declared version and as v1 and v2."""
    if session:  # (else the keys' own values decide what the page is)
        meta = {"schema_id": "session", "schema_version": version, **meta}
    _check("---\n" + _frontmatter(meta) + "---\n\n## Next steps\n")


def test_keys_shortcut_pages_are_clean() -> None:
    meta = {
        "schema_id": "session",
        "schema_version": 2,
        "status": "done",
        "date_start": "2026-05-01",
        "date_end": "2026-05-01",
        "focus": "x",
    }
    text = "---\n" + _frontmatter(meta) + "---\n\n## Next steps\n"
    found, took = _lint_both(text, PATH)
    assert took and found == []
    found, _ = _lint_both(text.replace('"done"', '"wip"'), PATH)
    assert [d.code for d in found] == ["AW003"]


def _reference_filename(pattern: str, name: str, values: dict[str, str | None]) -> bool:
    """The filename rule as first written (a regex per page)."""
    import re

    regex = ""
    for part in re.split(r"(\{[a-z_]+\})", pattern):
        if part.startswith("{") and part.endswith("}"):
            value = values.get(part[1:-1])
            regex += re.escape(value) if value else r"[^/\\]+"
        else:
            regex += re.escape(part)
    return re.fullmatch(regex, name) is not None


@settings(max_examples=400, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            ["{date}", "{date_start}", "{session_id_short}", "{other}", "{", "}", "-", ".md", "x"]
        ),
        min_size=1,
        max_size=5,
    ).map("".join),
    st.sampled_from(["2026-05-01", "2026-05-01T10:00:00"]),
    st.one_of(st.none(), st.sampled_from(["abcdef0123", "{date}x", "ab}", "a"])),
    st.sampled_from(
        ["2026-05-01-abcdef0.md", "2026-05-01.md", "x.md", "{date}.md", "2026-05-01-a.md"]
    ),
)
def test_filename_rule_matches_its_reference(
    pattern: str, date: str, sid: str | None, name: str
) -> None:
    """AW013 (a file name off the schema's pattern), through ``sessionkit.lint`` with a
    schema of that pattern, both ways, is the reference rule's verdict."""
    schema = builtin_schema(2).replace(filename_pattern=pattern)
    meta = {"schema_id": "session", "schema_version": 2, "date_start": date, "session_id": sid}
    text = "---\n" + _frontmatter(meta) + "---\n\n## Next steps\n"
    found, _ = _lint_both(text, f"aiwiki/sessions/{name}", schema=schema)
    values = {
        "date": date,
        "date_start": date,
        "session_id_short": sid[:7] if sid else None,
    }
    assert ("AW013" not in [d.code for d in found]) == _reference_filename(pattern, name, values)


def test_only_ascii_letters_match_t_a_u_case_blind() -> None:
    """The stale-status pre-test looks for "tatu" in lowercased bytes; that is sound
    only if no other character matches t, a or u under re.IGNORECASE."""
    import re

    for letter in "tau":
        pattern = re.compile(letter, re.IGNORECASE)
        odd = [hex(cp) for cp in range(0x80, 0x30000) if pattern.fullmatch(chr(cp))]
        assert odd == [], letter


def test_stale_status_is_not_missed() -> None:
    """AW017 (``Status: consumed`` under an ``(unconsumed)`` header) is found both ways,
    in any case and with the long s (which matches s case-blind)."""
    checkpoints = "\n## Checkpoints\n\n### PreCompact at 2026-05-01T10:00:00Z\n\n"
    for status in (
        "Status: consumed",
        "STATUS:consumed",
        "\u017ftatus: consumed",
        "statu\u017f: consumed",
    ):
        text = FRONT + checkpoints + f"**D directive (unconsumed):**\n\n- {status}\n"
        found, _ = _lint_both(text, PATH)
        assert "AW017" in [d.code for d in found], status
    text = FRONT + checkpoints + "**D directive (unconsumed):**\n\n- Action: x\n"
    found, took = _lint_both(text, PATH)
    assert took and "AW017" not in [d.code for d in found]


@given(st.text(alphabet="# a\t\u00a0\u3000\x1c\x85\x0c", max_size=12))
def test_level3_headings_read_the_same_both_ways(rest: str) -> None:
    """Checkpoint headings (``### <Event> at <time>``, and near misses) under
    Checkpoints are read by the quick lint as the shared heading reader reads them."""
    for tail in ("", " at 2026-05-01T10:00:00Z"):
        _check(FRONT + "\n## Checkpoints\n\n##" + rest + tail + "\n\ntext\n")


def test_bulk_lint_gives_the_same_findings_with_the_fast_lanes_off(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``sessionkit lint`` over the test pages, fast lanes on and then off
    (``SESSIONKIT_FAST_PATHS=0``, the public switch): the same findings."""
    from sessionkit.ops.lint import lint_many

    def run() -> list[list[object]]:
        return [
            list(found)
            for found in lint_many(
                (("file", str(p), None) for p in PAGES), limit=8 * 1024 * 1024, jobs=1
            )
        ]

    fast = run()
    monkeypatch.setenv("SESSIONKIT_FAST_PATHS", "0")
    assert run() == fast
    assert any(fast)  # the pages hold findings: the comparison is not of empties
