"""The quick lint scan gives the same facts as the general one, or steps aside.

:func:`quick_facts` reads plain pages straight off their text; for anything
else it returns ``None`` and lint takes the general path (:func:`facts_of`).
These tests hold it to that: on every page the tests have and on generated
pages built from the shapes that trip scanners (fences, HTML, tabs, CRLF,
indented headings, lazy continuations, directives), the quick facts are
either ``None`` or equal to the general ones, and so are the findings.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sessionkit._api as api
from sessionkit.adapters._aiwiki_lint import (
    PageFacts,
    builtin_schema,
    facts_of,
    lint_facts,
    lint_page,
)
from sessionkit.adapters._aiwiki_parse import citation_state
from sessionkit.adapters._aiwiki_quick import quick_facts
from sessionkit.document import parse
from sessionkit.fastpaths import general_paths

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


def _same(quick: PageFacts, full: PageFacts) -> None:
    for field in (
        "path",
        "meta",
        "problem",
        "sections",
        "nlines",
        "files_loose",
        "bad_checkpoints",
        "checkpoints",
        "stale_status",
    ):
        assert getattr(quick, field) == getattr(full, field), field
    if quick.files is None:  # every entry a citation with a SHA: nothing to report
        assert all(citation_state(text) == 2 for _, text in full.files or ())
    else:
        assert quick.files == full.files
    assert full.meta is not None
    for key in [*full.meta, "missing_key"]:
        assert quick.key_line(key) == full.key_line(key), key


def _general_lint(text: str, path: str) -> list[object]:
    """``sessionkit.lint`` with the quick path switched off."""
    with general_paths():
        return list(api.lint(text, path))


def _check(text: str, path: str = "aiwiki/sessions/2026-05-01-abcdef0.md") -> bool:
    """Quick and full agree on ``text``; True when the quick scan took it."""
    assert api.lint(text, path) == _general_lint(text, path)
    quick = quick_facts(text, path)
    if quick is None:
        return False
    full = facts_of(parse(text, path))
    _same(quick, full)
    for version in (1, 2):
        assert lint_facts(quick, None, version) == lint_page(parse(text, path), None, version)
    return True


def _read(path: Path) -> str:
    with open(path, encoding="utf-8", newline="") as f:
        return f.read()


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(REPO)))
def test_every_test_page(page: Path) -> None:
    _check(_read(page), f"aiwiki/sessions/{page.name}")


def test_the_quick_scan_takes_plain_pages() -> None:
    """It is not a path nothing takes: the example wiki and most of the corpus are plain."""
    taken = [p for p in PAGES if _check(_read(p), f"aiwiki/sessions/{p.name}")]
    examples = [p for p in (REPO / "examples" / "wiki" / "aiwiki" / "sessions").glob("2*.md")]
    assert len(examples) >= 5 and all(p in taken for p in examples)
    assert len(taken) >= len(PAGES) // 3


def test_the_benchmark_corpus_is_plain(tmp_path: Path) -> None:
    from _corpus import write_corpus

    paths = write_corpus(tmp_path, "v2", 40)
    assert all(_check(p.read_text("utf-8"), str(p)) for p in paths)


def test_findings_through_lint_are_the_general_ones() -> None:
    """``sessionkit.lint`` (which tries the quick scan) equals the general path."""
    for page in PAGES:
        text, path = _read(page), f"aiwiki/sessions/{page.name}"
        doc = parse(text, path)
        try:
            version = doc.meta.get("schema_version")
        except Exception:
            continue
        if doc.meta.get("schema_id") != "session" or version not in (1, 2):
            continue
        # SK003 (a NUL byte) is the note-level check sessionkit.lint adds to any format
        found = [d for d in api.lint(text, path) if d.code != "SK003"]
        assert found == lint_page(doc, None, version), page
        assert any(d.code == "SK003" for d in api.lint(text, path)) == ("\x00" in text)


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


@settings(max_examples=400, deadline=None)
@given(
    st.one_of(
        st.text(alphabet="`ab./:-@0123456789cdef \n", max_size=40),
        st.builds(
            lambda path, line, sha, note: f"`{path}{line}{sha}`{note}",
            st.text(alphabet="ab./@-", min_size=1, max_size=8),
            st.sampled_from(["", ":1", ":0", ":01", ":3-9", ":3-"]),
            st.sampled_from(["", "@abc1", "@abc", "@ABCDEF1234", "@xyz1234"]),
            st.sampled_from(["", " note", "  two", " — x\nmore"]),
        ),
    )
)
def test_citation_state_is_parse_citation_lenient(text: str) -> None:
    from sessionkit.adapters._aiwiki_parse import parse_citation_lenient

    c = parse_citation_lenient(text)
    assert citation_state(text) == (0 if c is None else 2 if c.sha else 1)


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


@settings(max_examples=600, deadline=None)
@given(st.dictionaries(_NAMES, _VALUES), st.sampled_from([1, 2]))
def test_keys_shortcut_never_hides_a_finding(meta: dict[str, object], version: int) -> None:
    from sessionkit.adapters._aiwiki_lint import _Linter, _plan, builtin_schema

    schema = builtin_schema(version)
    facts = quick_facts("---\nschema_id: session\nschema_version: 2\n---\n\n## Next steps\n")
    assert facts is not None
    linter = _Linter(facts, schema, version)
    _plan(schema).sections.clear()
    linter.keys(meta)  # with the shortcut
    shortcut = _plan(schema).keys_clean(meta)
    full = _Linter(facts, schema, version)
    plan = _plan(schema)
    saved = plan.keys_clean
    plan.keys_clean = lambda meta: False  # type: ignore[method-assign]
    try:
        full.keys(meta)
    finally:
        plan.keys_clean = saved  # type: ignore[method-assign]
    assert linter.found == full.found
    if shortcut:
        assert full.found == []


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
    import attrs

    from sessionkit.adapters._aiwiki_lint import _Linter, builtin_schema

    schema = attrs.evolve(builtin_schema(2), filename_pattern=pattern)
    facts = quick_facts("---\nschema_id: session\nschema_version: 2\n---\n\n## Next steps\n")
    assert facts is not None
    facts.path = f"aiwiki/sessions/{name}"
    meta = {"date_start": date, "session_id": sid}
    linter = _Linter(facts, schema, 2)
    linter.filename(meta)
    values = {
        "date": date,
        "date_start": date,
        "session_id_short": sid[:7] if sid else None,
    }
    assert (not linter.found) == _reference_filename(pattern, name, values)


@settings(max_examples=800, deadline=None)
@given(
    st.one_of(
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
)
def test_cited_line_only_passes_cited_citations(text: str) -> None:
    from sessionkit.adapters._aiwiki_quick import _ALL_CITED_BODY

    line = text.encode()
    if "\n" not in text and text and _ALL_CITED_BODY.fullmatch(line):
        assert text[:2] in ("- ", "* ", "+ ")
        assert citation_state(text[2:].lstrip(" ")) == 2


def test_only_ascii_letters_match_t_a_u_case_blind() -> None:
    """The stale-status pre-test looks for "tatu" in lowercased bytes; that is sound
    only if no other character matches t, a or u under re.IGNORECASE."""
    import re

    for letter in "tau":
        pattern = re.compile(letter, re.IGNORECASE)
        odd = [hex(cp) for cp in range(0x80, 0x30000) if pattern.fullmatch(chr(cp))]
        assert odd == [], letter


def test_stale_status_is_not_missed() -> None:
    from sessionkit.adapters._aiwiki_quick import _stale_status_possible

    for status in (
        "Status: consumed",
        "STATUS:consumed",
        "\u017ftatus: consumed",
        "statu\u017f: consumed",
    ):
        section = f"\n**D directive (unconsumed):**\n- {status}\n".encode()
        assert _stale_status_possible(section)
    assert not _stale_status_possible(b"\n**D directive (unconsumed):**\n- Action: x\n")


@given(st.text(alphabet="# a\u00a0\u3000", max_size=12))
def test_level3_title_is_the_heading_readers(rest: str) -> None:
    """The checkpoint-heading shortcut reads what the shared heading reader reads."""
    from sessionkit.adapters._aiwiki_quick import _h3_title
    from sessionkit.document import atx_heading

    head = atx_heading("##" + rest) if rest[:1] == "#" else None
    want = head[1] if head is not None and head[0] == 3 else None
    assert _h3_title(rest.encode()) == want


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
