"""Pages as people write them (``tests/corpus/hand-edited/``): nothing is lost.

For every page: every word of its body is in the model (``show --json``), in
the model's canonical rendering, in the Basic Memory note it converts to and
in the page converted back; the page converted back reads as the same
session; a second conversion writes nothing; every list item Basic Memory's
grammar can hold is an observation of its category.  A Hypothesis property
does the same over generated list sections.
"""

from __future__ import annotations

import ast
import json
import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import attrs
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import sessionkit
from sessionkit.adapters.basic_memory import bm_view
from sessionkit.adapters.crosswalk import pivot_from_bm
from sessionkit.cli import cli
from sessionkit.document import parse
from sessionkit.model import Session, Status
from sessionkit.ops.convert import convert, convert_text, target_key
from sessionkit.serialize import to_dict

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "corpus" / "hand-edited"
PAGES = sorted(CORPUS.glob("*.md"))
WORD = re.compile(r"\w+")
STRUCTURE = re.compile(
    r"^(?:## (?:Files touched|Decisions made|Gotchas surfaced|Open questions|Next steps)"
    r"|\(filled by /wrap\))[ \t]*$"
)
CATEGORIES = {
    "decisions": "decision",
    "gotchas": "problem",
    "questions": "question",
    "next_steps": "next_step",
}
#: a Markdown link at the end of an observation line: Basic Memory's parser excludes it
LINK_AT_END = re.compile(r"\]\([^()\s]*\)\s*$")


def _text(path: Path) -> str:
    return path.read_bytes().decode("utf-8")


def body_words(text: str) -> Counter[str]:
    """The words of a page's body, less the aiwiki schema's own headings."""
    doc = parse(text)
    out: Counter[str] = Counter()
    for line in doc.lines[doc.body_start :]:
        bare = line.rstrip("\r\n")
        if not STRUCTURE.match(bare.strip()):
            out.update(WORD.findall(bare))
    return out


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list | tuple):
        for v in value:
            yield from _strings(v)


def words(texts: Iterator[str] | list[str]) -> Counter[str]:
    out: Counter[str] = Counter()
    for text in texts:
        out.update(WORD.findall(text))
    return out


def _aw_path(page: Path) -> str:
    return f"aiwiki/sessions/{page.name}"


def test_the_corpus_has_the_pages_the_issue_lists() -> None:
    assert len(PAGES) >= 24
    texts = [_text(p) for p in PAGES]
    assert any("\r\n" in t for t in texts)  # CRLF
    assert any("\t" in t for t in texts)  # tabs
    assert any(re.search(r"[\u4e00-\u9fff]", t) for t in texts)  # CJK
    assert any(re.search(r"^1[.)] ", t, re.M) for t in texts)  # numbered lists
    assert any("```" in t for t in texts) and any("<!--" in t for t in texts)
    assert any(re.search(r"^### ", t, re.M) for t in texts)  # sub-headings
    assert any(re.search(r"^> ", t, re.M) for t in texts)  # quotes
    assert any(re.search(r"^\|", t, re.M) for t in texts)  # tables
    assert any(re.search(r" {2}\r?$", t, re.M) for t in texts)  # trailing spaces
    assert any("- [ ] " in t for t in texts)  # checkboxes


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_word_is_in_the_model_and_its_rendering(page: Path) -> None:
    text = _text(page)
    session = sessionkit.loads(text, path=_aw_path(page))
    source = body_words(text)
    assert source - words(list(_strings(to_dict(session)))) == Counter()
    rendered = sessionkit.dumps(attrs.evolve(session, origin=None))
    assert source - words([rendered]) == Counter()
    # the canonical rendering reads back as the same session
    assert sessionkit.loads(rendered, path=_aw_path(page)) == session


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_no_word_is_lost_in_basic_memory_or_back(page: Path) -> None:
    text = _text(page)
    session = sessionkit.loads(text, path=_aw_path(page))
    note = convert_text(text, "basic-memory", path=_aw_path(page))
    source = body_words(text)
    assert source - words([note]) == Counter()
    key = target_key(text, "basic-memory", path=_aw_path(page))
    back = convert_text(note, "aiwiki-v2", path=f"sessions/{key}")
    assert source - body_words(back) == Counter()
    assert sessionkit.loads(back, path=_aw_path(page)) == attrs.evolve(session, last_commit=None)
    # and the note converts to the same note again
    assert convert_text(back, "basic-memory", path=_aw_path(page)) == note


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_each_item_basic_memory_can_hold_is_an_observation(page: Path) -> None:
    text = _text(page)
    session = sessionkit.loads(text, path=_aw_path(page))
    note = convert_text(text, "basic-memory", path=_aw_path(page))
    view = bm_view(parse(note, "sessions/note.md"))
    for field, category in CATEGORIES.items():
        indexed = [o.text for o in view.facts.observations if o.category == category]
        expected = [
            " ".join(part.strip() for part in item.split("\n") if part.strip())
            for item in getattr(session, field)
            if not LINK_AT_END.search(item)
        ]
        assert indexed == expected, field


def test_coverage_figure() -> None:
    """The figure docs/converting.md gives: items indexed / items on this corpus."""
    items = indexed = 0
    for page in PAGES:
        text = _text(page)
        session = sessionkit.loads(text, path=_aw_path(page))
        note = convert_text(text, "basic-memory", path=_aw_path(page))
        cats = [o.category for o in bm_view(parse(note, "s/n.md")).facts.observations]
        for field, category in CATEGORIES.items():
            items += len(getattr(session, field))
            indexed += min(len(getattr(session, field)), cats.count(category))
    assert (indexed, items) == (61, 64)


def test_a_store_converts_and_a_second_run_writes_nothing(tmp_path: Path) -> None:
    wiki = tmp_path / "wiki"
    folder = wiki / "aiwiki" / "sessions"
    folder.mkdir(parents=True)
    for page in PAGES:
        (folder / page.name).write_bytes(page.read_bytes())
    project = tmp_path / "bm"
    first = convert(wiki, project, to="basic-memory", project="demo")
    assert first.ok and len(first.created) == len(PAGES) and not first.carried
    again = convert(wiki, project, to="basic-memory", project="demo")
    assert again.ok and not again.written and len(again.unchanged) == len(PAGES)
    back = tmp_path / "back"
    home = convert(project, back, to="aiwiki-v2")
    assert home.ok and len(home.created) == len(PAGES)
    for page in PAGES:
        out = (back / "aiwiki" / "sessions" / page.name).read_bytes().decode("utf-8")
        assert body_words(_text(page)) - body_words(out) == Counter()
    assert not convert(project, back, to="aiwiki-v2").written


def test_show_json_holds_a_numbered_next_steps_list(tmp_path: Path) -> None:
    page = CORPUS / "2026-08-01-a000001.md"
    folder = tmp_path / "aiwiki" / "sessions"
    folder.mkdir(parents=True)
    (folder / page.name).write_bytes(page.read_bytes())
    result = CliRunner().invoke(cli, ["show", str(folder / page.name), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["next_steps"] == [
        "Rotate the credentials",
        "Tell the on-call team",
        "Remove the old keys from the vault",
    ]
    assert [b["marker"] for b in data["blocks"]["next_steps"]] == ["1.", "2.", "3."]


# -- generated list sections -----------------------------------------------------

_WORDS = st.text(alphabet="abcdefghij", min_size=1, max_size=6)
_LINE = st.lists(_WORDS, min_size=1, max_size=4).map(" ".join)


@st.composite
def _block(draw: st.DrawFn) -> str:
    kind = draw(st.sampled_from(["item", "numbered", "prose", "fence", "quote", "wrapped"]))
    line = draw(_LINE)
    if kind == "item":
        return f"- {line}" + draw(st.sampled_from(["", "  ", "   "]))
    if kind == "numbered":
        return f"{draw(st.integers(1, 9))}. {line}"
    if kind == "prose":
        return line
    if kind == "fence":
        return f"```\n{line}\n```"
    if kind == "quote":
        return f"> {line}"
    child = draw(_LINE)
    return f"- {line}\n  {child}" if draw(st.booleans()) else f"1. {line}\n   - {child}"


@st.composite
def _page(draw: st.DrawFn) -> str:
    sections = []
    for title in ("Decisions made", "Gotchas surfaced", "Open questions", "Next steps"):
        blocks = draw(st.lists(_block(), max_size=5))
        sep = draw(st.sampled_from(["\n", "\n\n"]))
        body = sep.join(blocks) if blocks else "(filled by /wrap)"
        sections.append(f"## {title}\n\n{body}\n")
    head = (
        "---\nschema_id: session\nschema_version: 2\nstatus: active\n"
        "date_start: 2026-05-18\nfocus: generated\n---\n\n"
    )
    return head + "\n".join(sections)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_page())
def test_generated_pages_keep_every_word(text: str) -> None:
    path = "aiwiki/sessions/2026-05-18-0000000.md"
    session = sessionkit.loads(text, path=path)
    source = body_words(text)
    assert source - words(list(_strings(to_dict(session)))) == Counter()
    rendered = sessionkit.dumps(attrs.evolve(session, origin=None))
    assert source - words([rendered]) == Counter()
    note = convert_text(text, "basic-memory", path=path)
    assert source - words([note]) == Counter()
    key = target_key(text, "basic-memory", path=path)
    back = convert_text(note, "aiwiki-v2", path=f"sessions/{key}")
    assert sessionkit.loads(back, path=path) == attrs.evolve(session, last_commit=None)


# -- Basic Memory status words and frontmatter ---------------------------------------

_NOTE = (
    "---\ntitle: Session one\ntype: session\npermalink: sessions/session-one\n"
    "status: {word}\n---\n\n## Observations\n\n- [decision] use the queue\n"
)


@pytest.mark.parametrize(
    ("word", "status"),
    [
        ("draft", Status.ACTIVE),
        ("blocked", Status.ACTIVE),
        ("resumed", Status.ACTIVE),
        ("archived", Status.DONE),
        ("Cancelled", Status.ABANDONED),
        ("whatever-we-like", Status.ACTIVE),
    ],
)
def test_any_status_word_survives_reading_editing_and_conversion(word: str, status: Status) -> None:
    text = _NOTE.format(word=word)
    session = sessionkit.loads(text, path="sessions/Session one.md")
    assert (session.status, session.status_word) == (status, word)
    edited = attrs.evolve(session, decisions=(*session.decisions, "and a second one"))
    out = sessionkit.dumps(edited)
    assert f"status: {word}\n" in out
    assert sessionkit.loads(out, path="sessions/Session one.md").status_word == word
    page = convert_text(text, "aiwiki-v2", path="sessions/Session one.md")
    assert convert_text(page, "basic-memory") == text
    # a new status writes the format's word for it
    closed = sessionkit.dumps(attrs.evolve(session, status=Status.DONE))
    assert ("status: closed\n" in closed) or (status is Status.DONE)


def test_a_blank_line_before_the_frontmatter_reads_as_basic_memory_reads_it() -> None:
    text = "\n" + _NOTE.format(word="open")
    session = sessionkit.loads(text, path="sessions/Session one.md")
    assert session.title == "Session one" and session.decisions == ("use the queue",)
    edited = sessionkit.dumps(attrs.evolve(session, decisions=("use the log",)))
    assert edited.count("---\n") == 2  # one frontmatter block, still after the blank line
    assert edited == text.replace("use the queue", "use the log")
    assert sessionkit.detect_format(parse(text, "sessions/Session one.md")) == "basic-memory"
    # Basic Memory's own reading agrees (tests/interop checks it against the real package)
    assert bm_view(parse(text, "sessions/Session one.md")).type == "session"


def test_a_focus_with_nel_converts_and_comes_back() -> None:
    text = (
        "---\nschema_id: session\nschema_version: 2\nstatus: active\ndate_start: 2026-05-18\n"
        'focus: "a\\x85b"\n---\n\n## Next steps\n\n- x\n'
    )
    note = convert_text(text, "basic-memory")
    back = convert_text(note, "aiwiki-v2")
    assert sessionkit.loads(back).focus == "a\x85b"


def _private_uses(path: Path, text: str | None = None) -> list[tuple[str, int, str]]:
    """Private names of *other* modules in sessionkit.adapters or sessionkit.ops that
    ``path`` imports or uses: ``from ..adapters._x import y``, ``from .convert import
    _y``, ``import sessionkit.adapters._x``, ``crosswalk._y`` on an imported module,
    ``import_module("sessionkit.adapters._x")``.  A private module of the importer's own
    package (``ops/_parallel.py`` for ``ops/convert.py``) is that package's business."""
    rel = path.relative_to(ROOT).with_suffix("").parts
    here, package = ".".join(rel), ".".join(rel[:-1])
    watched = ("sessionkit.adapters.", "sessionkit.ops.")

    def bad_name(dotted: str) -> bool:
        if not dotted.startswith(watched):
            return False
        parts = dotted.split(".")
        for i in range(2, len(parts)):
            if parts[i].startswith("_") and not parts[i].startswith("__"):
                owner = ".".join(parts[:i])
                return owner not in (package, here)
        return False

    def absolute(module: str | None, level: int) -> str:
        if not level:
            return module or ""
        base = package.split(".")[: len(package.split(".")) - level + 1]
        return ".".join([*base, *([module] if module else [])])

    bad: list[tuple[str, int, str]] = []
    bound: dict[str, str] = {}  # local name -> what it names in a watched package
    tree = ast.parse(path.read_text(encoding="utf-8") if text is None else text)
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.ImportFrom):
            module = absolute(node.module, node.level)
            for a in node.names:
                names.append(f"{module}.{a.name}")
                bound[a.asname or a.name] = f"{module}.{a.name}"
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "import_module":
            arg = node.args[0] if node.args else None
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                names = [arg.value]
        for name in dict.fromkeys(names):
            if bad_name(name):
                bad.append((path.name, node.lineno, name))
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            owner = bound.get(node.value.id)
            if owner is not None and bad_name(f"{owner}.{node.attr}"):
                bad.append((path.name, node.lineno, f"{owner}.{node.attr}"))
    return sorted(bad, key=lambda b: b[1])


def test_ops_backends_and_hooks_use_no_private_name_of_adapters_or_ops() -> None:
    pkg = ROOT / "sessionkit"
    files = [
        *(pkg / "ops").glob("*.py"),
        *(pkg / "backends").glob("*.py"),
        *(pkg / "hooks").glob("*.py"),
    ]
    assert [bad for path in sorted(files) for bad in _private_uses(path)] == []


def test_the_private_name_check_finds_each_kind_of_use() -> None:
    probe = ROOT / "sessionkit" / "ops" / "probe.py"  # read from the text below, not a file
    text = (
        "import importlib\n"
        "from ..adapters._aiwiki_parse import parse_citation\n"
        "from ..adapters.crosswalk import _Pivot\n"
        "from .convert import _record\n"
        "from ..adapters import _bm_grammar\n"
        "from ..adapters import crosswalk\n"
        "from ._parallel import ordered_map\n"  # the package's own private module: fine
        "import sessionkit.adapters._base\n"
        "crosswalk._load_pivot\n"
        "importlib.import_module('sessionkit.adapters._bm_grammar')\n"
    )
    found = [name for _, _, name in _private_uses(probe, text)]
    assert found == [
        "sessionkit.adapters._aiwiki_parse.parse_citation",
        "sessionkit.adapters.crosswalk._Pivot",
        "sessionkit.ops.convert._record",
        "sessionkit.adapters._bm_grammar",
        "sessionkit.adapters._base",
        "sessionkit.adapters.crosswalk._load_pivot",
        "sessionkit.adapters._bm_grammar",
    ]


def test_a_session_built_by_hand_has_no_blocks() -> None:
    session = Session(focus="x", started="2026-05-18", next_steps=("a", "b"))
    assert session.blocks == {}
    page = sessionkit.dumps(session, format="aiwiki-v2")
    assert sessionkit.loads(page).blocks == {}


_RUNS_PAGE = (
    "---\nschema_id: session\nschema_version: 2\nstatus: done\ndate_start: 2026-05-18\n"
    "session_id: 7e8a3f2-9a4b-4c8d-b1e2-f5a6c7d8e9f0\nfocus: runs\n---\n\n"
    "## Open questions\n\npara 0\n\npara 1\n\npara 2\n\n- q\n\npara x\n\n\npara y\n"
)


def _blocks_back(note: str) -> list[tuple[str, str | None, int]]:
    """The Open questions blocks of a Basic Memory note converted back to aiwiki."""
    back = sessionkit.loads(convert_text(note, "aiwiki-v2", "sessions/a.md"), format="aiwiki-v2")
    return [(b.text, b.marker, b.gap) for b in back.blocks["questions"]]


_RUNS_BLOCKS = [
    ("para 0", None, 0),
    ("para 1", None, 1),
    ("para 2", None, 1),
    ("q", "-", 1),
    ("para x", None, 1),
    ("para y", None, 2),
]


def _layout(note: str) -> Any:
    meta = parse(note, "sessions/a.md").meta
    return json.loads(meta["aiwiki_sessionkit"])["layout"]["questions"]


def test_carried_blocks_in_a_row_are_one_layout_entry_and_come_back_exactly() -> None:
    note = convert_text(_RUNS_PAGE, "basic-memory", "sessions/a.md")
    # the next carried blocks after the same number of blank lines: one entry and a count
    assert _layout(note) == [["c", 0], ["c", 1, 2], ["o", 1, "-"], ["c", 1], ["c", 2]]
    assert _blocks_back(note) == _RUNS_BLOCKS


def test_a_layout_written_an_entry_a_block_still_reads() -> None:
    # what sessionkit wrote before runs: ["c", 1] for every carried block
    note = convert_text(_RUNS_PAGE, "basic-memory", "sessions/a.md")
    old = note.replace('["c",1,2]', '["c",1],["c",1]')
    assert old != note
    assert _blocks_back(old) == _RUNS_BLOCKS


def test_a_run_longer_than_the_carried_blocks_places_what_there_is() -> None:
    # the carrier section lost blocks by hand since: the run places those it has
    note = convert_text(_RUNS_PAGE, "basic-memory", "sessions/a.md")
    edited = note.replace('["c",1,2]', '["c",1,99]')
    back = pivot_from_bm(parse(edited, "sessions/a.md")).session.blocks["questions"]
    assert [b.text for b in back] == ["para 0", "para 1", "para 2", "para x", "para y", "q"]


@pytest.mark.parametrize("run", ["0", "-1", '"x"', "[]"])
def test_a_bad_run_is_an_unusable_layout(run: str) -> None:
    note = convert_text(_RUNS_PAGE, "basic-memory", "sessions/a.md")
    bad = note.replace('["c",1,2]', f'["c",1,{run}]')
    with pytest.raises(sessionkit.FormatError, match="unusable list layout") as err:
        convert_text(bad, "aiwiki-v2", "sessions/a.md")
    assert err.value.line == 1
