"""The grammar's shortcuts find exactly what the plain path finds.

:mod:`sessionkit.adapters._bm_grammar` takes shortcuts on its hot path (one
pass for "is it an observation" and "split it", one-line list items without
a nested scan, first-character dispatch before the block patterns, literal
pre-checks before regexes).  Each test here runs the shortcut and the plain
path on the same generated text and asserts they agree, so an optimisation
that changes behaviour fails here before it reaches the interop differential.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sessionkit.adapters import _bm_grammar as g

# Characters that mean something to the grammar, plus plain letters and
# blanks that are not spaces (tabs, NBSP, a Unicode space).
_ALPHABET = " \t\u00a0\u2003\x1c\x85-*+#[]()`~<>!|:\\=_.0123456789abxX/?'\"@"
_FRAGMENTS = [
    "- [cat] content #tag (ctx)",
    "- [x] done",
    "- [ ] todo",
    "- [00:01:02] t #t",
    "- rel [[Target]] (why)",
    "- [[Only]]",
    "text with [[Inline]] link",
    "# Heading #tag",
    "```",
    "~~~",
    "    indented [[Code]] #x",
    "> quote [[Q]] #q",
    "",
    "  continuation line #c",
    "- [cat] `code [[No]]` [[Yes]] #bm:links_to",
    "1. [num] ordered [[N]]",
    "   - [nested] nested #n",
    "[md](docs/a.md) and [ext](https://x.y)",
    "---",
    "===",
    "<div>",
    "<!-- c -->",
    "***",
    "\t- [tab] tabbed",
    "-",
    "- \tafter tab",
    "-      five spaces #f",
    "- =",
    "- [cat] x\\",
    "* [] empty #e",
]

texts = st.text(alphabet=_ALPHABET, max_size=40)
lines = st.one_of(st.sampled_from(_FRAGMENTS), texts)
bodies = st.lists(lines, max_size=12)


def _interrupts_plain(line: str) -> bool:
    """``_interrupts`` as it was before the first-character dispatch."""
    if g._blank(line) or g._indent(line) >= 4:
        return False
    s = line.lstrip(" ")
    if s[0] not in g._BLOCK_START:
        return False
    if s.startswith(">"):
        return True
    if g._ATX.match(s) or g._HR.match(s):
        return True
    fm = g._FENCE.match(s)
    if fm and not (fm.group(1)[0] == "`" and "`" in fm.group(2)):
        return True
    if g._html_kind(s) is not None:
        return True
    marker = g._list_marker(s)
    return bool(marker and marker[1] and marker[2].strip())


def _list_marker_plain(stripped: str) -> tuple[int, bool, str] | None:
    m = g._BULLET.match(stripped)
    if m:
        return 1, True, stripped[1:]
    m = g._ORDERED.match(stripped)
    if m:
        return len(m.group(0)), int(m.group(1)) == 1, stripped[len(m.group(0)) :]
    return None


def _strip_directive_plain(content: str) -> tuple[str, bool]:
    m = g._LINKS_TO_DIRECTIVE.search(content)
    if not m:
        return content, False
    return content[: m.start()].rstrip(), True


def _tags_plain(content: str) -> tuple[str, ...]:
    tags: list[str] = []
    for part in content.split():
        if part.startswith("#"):
            if "#" in part[1:]:
                tags.extend(t for t in part.split("#") if t)
            else:
                tags.append(part[1:])
    return tuple(tags)


@given(st.one_of(texts, st.sampled_from([f[2:] for f in _FRAGMENTS])), st.integers(0, 99))
@settings(max_examples=500)
def test_one_pass_observation_equals_is_then_parse(text: str, line: int) -> None:
    expected = g.parse_observation(text, line) if g.is_observation(text) else None
    assert g._observation(text, line) == expected


@pytest.mark.parametrize(
    "text",
    [
        "[cat] a #t",
        "[x] a #t",
        "[ ] a",
        "[a](b) #t",
        "[[W]] #t",
        "[] x #e",
        "plain",
        "a #b",
        "[cat] a #bm:links_to",
        "x #bm:links_to",
        "#bm:links_to",
    ],
)
def test_one_pass_observation_on_edge_cases(text: str) -> None:
    expected = g.parse_observation(text, 3) if g.is_observation(text) else None
    assert g._observation(text, 3) == expected


@given(lines)
@settings(max_examples=500)
def test_interrupts_dispatch_equals_trying_every_block(line: str) -> None:
    assert g._interrupts(line) == _interrupts_plain(line)


@given(st.one_of(lines, st.text(alphabet="-*+1.) \t\n\r\u00a0x", max_size=5)))
@settings(max_examples=500)
def test_bullet_check_equals_the_pattern(text: str) -> None:
    assert g._list_marker(text) == _list_marker_plain(text)
    for edge in ("-", "-\n", "-\n\n", "- ", "-\t", "-x", "*\r", "+\u00a0", "", "1.", "1.\n"):
        assert g._list_marker(edge) == _list_marker_plain(edge), edge


@given(st.one_of(texts, st.just("a #bm:links_to"), st.just("a\t#bm:links_to \u00a0")))
@settings(max_examples=300)
def test_literal_prechecks_equal_the_regexes(text: str) -> None:
    assert g._strip_directive(text) == _strip_directive_plain(text)
    assert g.parse_tags(text) == _tags_plain(text)
    assert g._has_tag(text) == any(part.startswith("#") for part in text.split())


def _scan_both(body: list[str], start: int = 0) -> tuple[object, object]:
    fast = (g.scan_inline_runs(body, start), g.parse_facts(body, start))
    g._Scanner.shortcuts = False
    try:
        plain = (g.scan_inline_runs(body, start), g.parse_facts(body, start))
    finally:
        g._Scanner.shortcuts = True
    return fast, plain


@given(bodies, st.sampled_from(["", "\n", "\r\n"]))
@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
def test_list_item_shortcut_equals_the_full_scan(body: list[str], eol: str) -> None:
    fast, plain = _scan_both([line + eol for line in body])
    assert fast == plain


def test_list_item_shortcut_at_the_nesting_cap() -> None:
    deep = ["> " * (g.MAX_NESTING - 1) + "- [cat] deep #d", "> " * g.MAX_NESTING + "- [c] x"]
    fast, plain = _scan_both(deep)
    assert fast == plain


def test_shortcut_flag_is_on() -> None:
    # the tests above compare against the plain path only if it is not the default
    assert g._Scanner.shortcuts is True
    runs = g.scan_inline_runs(["- [cat] one #t", "- two"])
    assert [(r.content, r.in_list_item) for r in runs] == [("[cat] one #t", True), ("two", True)]


def test_tabs_are_expanded_only_in_the_leading_blanks() -> None:
    # _scan keeps the text as written only for lines with a tab (the others
    # are the same either way): a continuation line keeps its tabs, a tab
    # after a list marker stays in the item's text, tab-indented code is code
    runs = g.scan_inline_runs(["para", "\tcontinued\tline", "", "\t- x", "", "-\tx\ty"])
    assert [r.content for r in runs] == ["para\n\tcontinued\tline", "x\ty"]


@given(lines, st.sampled_from(["", "\n", "\r\n", "\r", "\r\r\n"]))
@settings(max_examples=300)
def test_item_line_check_needs_no_line_end_cut(line: str, eol: str) -> None:
    from sessionkit.adapters.basic_memory import _is_item
    from sessionkit.document import _strip_eol

    plain = _strip_eol(line + eol).lstrip(" ")[:2] in ("- ", "* ", "+ ")
    assert _is_item(line + eol) == plain


def test_read_builds_the_origin_session_equal_to_the_result() -> None:
    from sessionkit import loads

    text = (
        "---\ntitle: T\ntype: session\nk: v\n---\n\n## Observations\n\n- [decision] d\n"
        "- [cat] c #t\n\n## Relations\n\n- rel [[X]]\n"
    )
    session = loads(text)
    assert session.origin is not None and session.origin.session.origin is None
    assert session.origin.session == session
    assert session.extra == {"type": "session", "k": "v"}
    assert session.extra is not session.origin.session.extra
    assert session.decisions == ("d",) and session.relations[0].target == "X"
