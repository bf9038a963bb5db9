"""The shortcuts in conversion give exactly what the long way gives.

* carrier section bodies rendered straight from the aiwiki writer's lines
  equal the ones cut out of a whole rendered page;
* a Basic Memory note with the same body and frontmatter values as another
  reads the same (the self-check then skips the second full read);
* Basic Memory targets tried with every aiwiki list as observations first end
  in the text the precise list check gives.
"""

from __future__ import annotations

import json
from pathlib import Path

import attrs
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sessionkit import get_adapter, loads
from sessionkit.adapters import crosswalk as C
from sessionkit.adapters.basic_memory import render_note
from sessionkit.document import parse
from sessionkit.errors import FormatError
from sessionkit.model import Session
from sessionkit.ops import convert as OPS
from sessionkit.ops.convert import convert_text
from sessionkit.serialize import to_json
from tests import strategies as S

ROOT = Path(__file__).resolve().parents[2]
BM_NOTES = [
    *sorted((ROOT / "examples" / "bm-project" / "sessions").glob("*.md")),
    *sorted((ROOT / "tests" / "golden" / "basic-memory").rglob("*.md")),
]
AIWIKI_PAGES = [
    *sorted((ROOT / "tests" / "corpus" / "aiwiki-v2").glob("*.md")),
    *sorted((ROOT / "tests" / "corpus" / "convert").glob("*.md")),
]
SLOW = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

#: list texts with the characters that matter to Markdown and Basic Memory's grammar
_TRICKY = st.text(st.sampled_from(list("ab #`~<>[]()-*\t\r\n:|!")), max_size=12)
_TEXTS = st.lists(S.lines(20) | _TRICKY | S.blocks(), max_size=4).map(tuple)


def _read(path: Path) -> str:
    with path.open(encoding="utf-8", newline="") as fh:
        return fh.read()


# -- section bodies ---------------------------------------------------------------------------


def _holder(**fields: object) -> Session:
    return attrs.evolve(Session(focus="x", started="2000-01-01"), **fields)


@SLOW
@given(st.lists(S.checkpoints(), min_size=1, max_size=3).map(tuple))
def test_checkpoint_body_fast_equals_cut_from_page(checkpoints: tuple[object, ...]) -> None:
    holder = _holder(checkpoints=checkpoints)
    assert C._aiwiki_section_body(holder, "Checkpoints") == C._aiwiki_section_body_read(
        holder, "Checkpoints"
    )


@SLOW
@given(st.lists(S.citations(), min_size=1, max_size=4).map(tuple))
def test_files_body_fast_equals_cut_from_page(files: tuple[object, ...]) -> None:
    holder = _holder(files_touched=files)
    assert C._aiwiki_section_body(holder, "Files touched") == C._aiwiki_section_body_read(
        holder, "Files touched"
    )


@SLOW
@given(st.sampled_from(sorted(C._LIST_CATEGORIES)), _TEXTS.filter(bool))
def test_list_body_fast_equals_cut_from_page(name: str, texts: tuple[str, ...]) -> None:
    title = C._LIST_CATEGORIES[name][1]
    holder = _holder(**{name: texts})
    assert C._aiwiki_section_body(holder, title) == C._aiwiki_section_body_read(holder, title)


def test_plain_lines_refuses_what_could_open_a_block() -> None:
    assert C._plain_lines(["- a", "", "### cp at t", "**Dream directive:**", "---"])
    for bad in ("## x", "# x", "```", "~~~", "<div>", " - a", "\tx", "a\r"):
        assert not C._plain_lines(["- a", bad]), bad


# -- the Basic Memory self-check --------------------------------------------------------------


def _reading(doc: object) -> str:
    return C._plain(doc, C.BASIC_MEMORY)  # type: ignore[arg-type]


def _requoted(text: str) -> str:
    """The note with its frontmatter spelled in JSON flow style (same keys, same values)."""
    doc = parse(text)
    if not doc.body_start:
        return text
    try:
        lines = [
            f"{json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}" for k, v in doc.meta.items()
        ]
    except TypeError:
        return text
    return "---\n" + "".join(x + "\n" for x in lines) + "---\n" + doc.body


def test_same_note_matches_the_full_reading_on_every_example() -> None:
    checked = requoted = 0
    notes = [(path.name, _read(path)) for path in BM_NOTES]
    for page in AIWIKI_PAGES:  # notes with every kind of carrier in their frontmatter
        notes.append((page.name, convert_text(_read(page), to="basic-memory", project="demo")))
    for name, text in notes:
        doc = parse(text, name)
        variants = [_requoted(text), text.replace("\n\n", "\n\n\n", 1), text + "\n"]
        requoted += variants[0] != text
        for variant in variants:
            other = parse(variant, name)
            if C._same_note(other, doc):
                checked += 1
                assert _reading(other) == _reading(doc), name
    assert requoted >= 5 and checked >= requoted  # every requoted note at least


bm_sessions = S.sessions(
    checkpoints=st.just(()),
    files_touched=st.just(()),
    title=S.words(),
    focus=st.none(),
    started=S.timestamps(),
    project=st.just("demo"),
)


@SLOW
@given(bm_sessions)
def test_same_note_implies_the_same_reading(session: Session) -> None:
    try:
        key, text = render_note(session)
    except FormatError:
        return
    doc = parse(text, key)
    for variant in (_requoted(text), text.replace("\n## ", "\n##  ", 1)):
        other = parse(variant, key)
        if C._same_note(other, doc):
            assert _reading(other) == _reading(doc)
        else:
            assert other.body != doc.body or variant != text


def test_same_note_refuses_a_different_body_or_value() -> None:
    text = _read(BM_NOTES[0])
    doc = parse(text, "n.md")
    assert C._same_note(parse(text, "n.md"), doc)
    assert not C._same_note(parse(text + "x\n", "n.md"), doc)
    assert not C._same_note(parse(text.replace("type: ", "type: x", 1), "n.md"), doc)


# -- observations first -----------------------------------------------------------------------


def _precise(text: str, path: str) -> str | None:
    """What conversion gave before the first try with every list as observations."""
    doc = parse(text, path)
    pivot = C._read_pivot(doc, "aiwiki", "sessions")
    if pivot.original is not None or not C._faithful(pivot, doc, "aiwiki", "sessions", "x"):
        return None
    session, word = C._to_bm_session(pivot, "demo")
    key, out = C._render_bm(session, word, "sessions", pivot.bm_key)
    back = C._read_pivot(parse(out, key), C.BASIC_MEMORY, "sessions")
    return out if back.key() == pivot.key() else None


aiwiki_lists = S.sessions(
    title=st.none(),
    summary=st.none(),
    project=st.none(),
    cwd=st.none(),
    context=st.just(()),
    tags=st.just(()),
    observations=st.just(()),
    relations=st.just(()),
    started=S.dates(),
    ended=st.none(),
    focus=S.words(),
    extra=st.just({}),
    sections=st.just(()),
    decisions=_TEXTS,
    gotchas=_TEXTS,
    next_steps=st.lists(S.words(), max_size=2).map(tuple),
)


@SLOW
@given(aiwiki_lists)
def test_observations_first_gives_the_precise_text(session: Session) -> None:
    text = str(get_adapter("aiwiki-v2").write(session).text)
    want = _precise(text, "p.md")
    got = convert_text(text, to="basic-memory", path="p.md", project="demo")
    if want is not None:
        assert got == want
    back = convert_text(got, to="aiwiki-v2")
    assert to_json(loads(back, format="aiwiki-v2")) == to_json(loads(text, format="aiwiki-v2"))


def test_lists_that_cannot_be_observations_still_travel_as_sections() -> None:
    session = Session(
        focus="f",
        started="2026-01-02",
        decisions=("one\ntwo", "see [x](y)"),
        gotchas=("plain",),
    )
    text = str(get_adapter("aiwiki-v2").write(session).text)
    got = convert_text(text, to="basic-memory", path="p.md", project="demo")
    assert got == _precise(text, "p.md")
    assert "## aiwiki: Decisions made" in got
    assert "- [problem] plain" in got


def test_every_page_converts_as_the_precise_check_gives() -> None:
    for path in AIWIKI_PAGES:
        text = _read(path)
        want = _precise(text, f"aiwiki/sessions/{path.name}")
        if want is not None:
            got = convert_text(text, to="basic-memory", path=path.name, project="demo")
            assert got == want, path.name


# -- whether a Basic Memory note is a session: the parsed document's frontmatter


_FM_LINES = st.sampled_from(
    [
        "type: session",
        "type: note",
        "type:  session ",
        "type: [session]",
        "aiwiki_sessionkit: {}",
        "title: x",
        "type: 'session'",
        "type: session\r",
        "bad: [unclosed",
        "- a list item",
        "type: sess\x00ion",
        "",
        "---",
        "--- ",
        "# comment",
    ]
)


@SLOW
@given(
    bom=st.booleans(),
    crlf=st.booleans(),
    lines=st.lists(_FM_LINES, max_size=5),
    close=st.sampled_from(["---", "--- ", "---\t", "", "----"]),
    tail=st.sampled_from(["", "\n", "body\n", "body", "\n## Observations\n- [a] b\n"]),
)
def test_session_check_with_the_document_equals_the_reader(
    bom: bool, crlf: bool, lines: list[str], close: str, tail: str
) -> None:
    newline = "\r\n" if crlf else "\n"
    text = ("\ufeff" if bom else "") + newline.join(["---", *lines, close]) + newline + tail
    if not tail and close:  # also the fence as the last line, with no newline after it
        text = text[: -len(newline)]
    doc = parse(text, "sessions/a.md")
    assert OPS._is_session_note(text, C.BASIC_MEMORY, doc) == OPS._is_session_note(
        text, C.BASIC_MEMORY
    )


def test_session_check_skips_a_note_too_big_before_its_size_matters() -> None:
    job = OPS._Job(src=C.BASIC_MEMORY, dst="aiwiki", project=None, folder="sessions", today="x")
    big = "---\ntype: note\n---\n" + "x" * (9 << 20) + "\n"
    assert OPS._convert_job(job, ("sessions/big.md", big)) == ("sessions/big.md", None)
    _, result = OPS._convert_job(job, ("sessions/big.md", big.replace("note", "session")))
    assert isinstance(result, str) and "over the limit" in result
