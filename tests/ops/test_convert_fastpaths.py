"""The shortcuts in conversion give exactly what the long way gives.

* carrier section bodies rendered straight from the aiwiki writer's lines
  (``plain-section``) equal the ones cut out of a whole rendered page;
* a note whose rendering has the same body and frontmatter values as the
  note reads the same (``same-note``: the self-check then skips a full read);
* Basic Memory targets tried with every aiwiki list as observations first end
  in the text the precise list check alone gives;
* whether a Basic Memory note is a session is read from its parsed document.

Each is a fast lane: the tests convert with the lanes on and off
(:mod:`sessionkit.fastpaths`) and compare the texts, and check with
``fastpaths.taken()`` that the lanes answer.
"""

from __future__ import annotations

import json
from pathlib import Path

import attrs
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import sessionkit
from sessionkit import get_adapter, loads
from sessionkit.adapters.basic_memory import render_note
from sessionkit.document import parse
from sessionkit.errors import FormatError, SessionKitError
from sessionkit.fastpaths import general_paths, taken
from sessionkit.model import Session
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


# -- conversions both ways ------------------------------------------------------------------


def _both(text: str, to: str, path: str = "p.md") -> str:
    """``convert_text`` with the fast lanes on and off: the same text (or error)."""

    def run() -> str:
        try:
            return convert_text(text, to=to, path=path, project="demo")
        except SessionKitError as exc:
            return f"error: {exc}"

    fast = run()
    with general_paths():
        assert run() == fast, text
    return fast


def _page(**fields: object) -> str:
    session = attrs.evolve(Session(focus="x", started="2000-01-01"), **fields)
    return str(get_adapter("aiwiki-v2").write(session).text)


# -- the Basic Memory self-check --------------------------------------------------------------


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
    notes = [(path.name, _read(path)) for path in BM_NOTES]
    for page in AIWIKI_PAGES:  # notes with every kind of carrier in their frontmatter
        notes.append((page.name, convert_text(_read(page), to="basic-memory", project="demo")))
    before = taken()["same-note"]
    requoted = 0
    for name, text in notes:
        variants = [_requoted(text), text.replace("\n\n", "\n\n\n", 1), text + "\n"]
        requoted += variants[0] != text
        for variant in variants:
            _both(variant, "aiwiki-v2", f"sessions/{name}")
    # (most requoted notes: a note carried whole, or read back from its carrier, is not
    # checked against its rendering at all)
    assert requoted >= 5 and taken()["same-note"] - before >= requoted * 3 // 4


def _crlf(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\n", "\r\n")


def test_a_crlf_note_takes_the_shortcuts_of_its_lf_twin() -> None:
    """A note with CRLF line ends converts as with the lanes off, and its self-check
    takes the same shortcut as the LF note (``same-note``), not two full reads."""
    before = taken()["same-note"]
    pages = [p for p in AIWIKI_PAGES if "\r" not in _read(p)]
    for page in pages:
        _both(_crlf(_read(page)), "basic-memory", f"aiwiki/sessions/{page.name}")
    assert taken()["same-note"] - before >= 5  # (as many as their LF forms take: 8)
    for path in BM_NOTES:  # (their LF forms take the long way: so do these)
        _both(_crlf(_read(path)), "aiwiki-v2", f"sessions/{path.name}")
    # a carriage return that ends no line: the long way (the lane does not answer)
    text = _read(pages[0]).replace("\n\n", "\n\r\n", 1).replace("## ", "## a\rb ", 1)
    before = taken()["same-note"]
    _both(text, "basic-memory", "aiwiki/sessions/x.md")
    assert taken()["same-note"] == before


@SLOW
@given(st.lists(S.checkpoints(), min_size=1, max_size=3).map(tuple), st.booleans())
def test_crlf_pages_convert_as_the_long_way_does(
    checkpoints: tuple[object, ...], bom: bool
) -> None:
    _both(("\ufeff" if bom else "") + _crlf(_page(checkpoints=checkpoints)), "basic-memory")


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
    for variant in (_requoted(text), text.replace("\n## ", "\n##  ", 1)):
        _both(variant, "aiwiki-v2", key)


# -- observations first -----------------------------------------------------------------------


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
    got = _both(text, "basic-memory")
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
    got = _both(text, "basic-memory")
    assert "## aiwiki: Decisions made" in got
    assert "- [problem] plain" in got


def test_every_page_converts_as_the_precise_check_gives() -> None:
    for path in AIWIKI_PAGES:
        _both(_read(path), "basic-memory", path.name)


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


def _convert_folder(tmp_path: Path, name: str, text: str) -> dict[str, object]:
    """``sessionkit.convert`` of a project holding one note: what it did with it."""
    src = tmp_path / name / "src"
    folder = src / "sessions"
    folder.mkdir(parents=True)
    (folder / "a.md").write_bytes(text.encode("utf-8", "surrogatepass"))
    report = sessionkit.convert(src, tmp_path / name / "out", to="aiwiki")
    found = report.to_dict()
    found.pop("target", None)
    found.pop("source", None)
    return found


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    bom=st.booleans(),
    crlf=st.booleans(),
    lines=st.lists(_FM_LINES, max_size=5),
    close=st.sampled_from(["---", "--- ", "---\t", "", "----"]),
    tail=st.sampled_from(["", "\n", "body\n", "body", "\n## Observations\n- [a] b\n"]),
)
def test_session_check_with_the_document_equals_the_reader(
    tmp_path_factory: object, bom: bool, crlf: bool, lines: list[str], close: str, tail: str
) -> None:
    newline = "\r\n" if crlf else "\n"
    text = ("\ufeff" if bom else "") + newline.join(["---", *lines, close]) + newline + tail
    if not tail and close:  # also the fence as the last line, with no newline after it
        text = text[: -len(newline)]
    tmp = Path(tmp_path_factory.mktemp("check"))  # type: ignore[attr-defined]
    fast = _convert_folder(tmp, "fast", text)
    with general_paths():
        assert _convert_folder(tmp, "general", text) == fast


def test_session_check_skips_a_note_too_big_before_its_size_matters(tmp_path: Path) -> None:
    big = "---\ntype: note\n---\n" + "x" * (9 << 20) + "\n"
    skipped = _convert_folder(tmp_path, "note", big)
    assert not skipped["created"] and not skipped["failures"]
    failed = _convert_folder(tmp_path, "session", big.replace("note", "session"))
    assert "over the limit" in json.dumps(failed["failures"])
