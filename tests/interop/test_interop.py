"""sessionkit against the real basic-memory (0.24.x): index, write_note, permalinks, grammar.

1. sessionkit writes 24 varied session notes; ``bm reindex`` indexes them without
   rewriting a byte; titles, permalinks, observations and relations in the index
   equal sessionkit's model; ``bm schema validate`` reports no warnings.
2. Notes written by basic-memory's ``write_note`` (the plugin's pre-compact
   checkpoint shape and every grammar golden case) read back in sessionkit with
   exactly the facts basic-memory indexed.
3. Permalinks agree for a set of paths.
Plus a differential check of the grammar against basic-memory's parser.
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path
from typing import Any

import attrs
import pytest

pytest.importorskip("basic_memory", reason="interop needs basic-memory (Python >= 3.12)")

from sessionkit.adapters.basic_memory import BASIC_MEMORY, bm_view, render_note
from sessionkit.adapters.basic_memory.grammar import parse_facts, parse_observation
from sessionkit.adapters.profiles import generate_permalink
from sessionkit.document import parse
from sessionkit.model import (
    ExtraSection,
    Link,
    LinkStyle,
    Observation,
    Session,
    Status,
)

from ._bm_oracle import bm_facts
from .conftest import PROJECT, BMHome, sha256

GOLDEN = Path(__file__).resolve().parent.parent / "golden" / "basic-memory"

TITLES = [
    "Session 2026-05-18 14:23:00 — fix the parser",
    "Alias test: a/b",
    "Café crème brûlée",
    "CamelCaseTitle and Version 2.0.0",
    "Don't Panic! (v2)",
    "What? A <weird> | name * here",
    "中文 session 测试",
    "A very long session title that goes on and on so that PyYAML has to fold it "
    "across more than one line at its default width of eighty characters",
    "under_scores_and-dashes",
    "Émile's résumé notes",
    "tabs\tand  spaces",
    "yes",
    "2026-05-18",
    "0123456",
    "hash #tag in title",
    "[[brackets]] in title",
    "quote \"double\" and 'single'",
    "Ends with a dot.",
    "Trailing spaces and ümlauts",
    "Zürich — Köln",
    "multi: colon: title",
    "Session 17",
    "Session 18",
    "Σ greek Ωmega",
]


def make_sessions() -> list[Session]:
    rng = random.Random(7)
    words = ["parser", "index", "cache", "hook", "schema", "tests", "docs", "ci", "perf"]
    sessions: list[Session] = []
    for n, title in enumerate(TITLES):

        def phrase(k: int = 4, rng: random.Random = rng) -> str:
            return " ".join(rng.choice(words) for _ in range(rng.randint(1, k)))

        observations = []
        for _ in range(rng.randint(0, 3)):
            content = phrase() + rng.choice(["", " #perf", " #a#b", " é"])
            category = rng.choice(["idea", "fact", "multi word", None])
            if category is None and "#" not in content:
                content += " #misc"
            from sessionkit.adapters.basic_memory.grammar import parse_tags

            observations.append(
                Observation(
                    category=category,
                    content=content,
                    tags=parse_tags(content),
                    context=rng.choice([None, "because " + phrase(2)]),
                )
            )
        relations = []
        if n % 3 == 0:
            relations.append(Link(target="Grammar Notes"))  # from the Summary prose
        used: set[tuple[str, str]] = set()
        for _ in range(rng.randint(0, 4)):
            rel = rng.choice(["produced", "relates_to", "depends on", "produced"])
            target = rng.choice(["Parser Fix", "Roadmap", "proj/Other Note", "Index Notes"])
            if (rel, target) in used:
                continue
            used.add((rel, target))
            relations.append(
                Link(
                    target=target,
                    relation=rel,
                    label=rng.choice([None, None, "alias"]),
                    context=rng.choice([None, phrase(2)]),
                )
            )
        sections = []
        if n % 3 == 0:
            sections.append(ExtraSection(title="Summary", body="Worked on [[Grammar Notes]]."))
        if n % 4 == 1:
            sections.append(ExtraSection(title="Recent thread", body="- user: go\n- assistant: ok"))
        s = Session(
            title=title,
            project=PROJECT,
            status=[Status.ACTIVE, Status.DONE][n % 2],
            started=f"2026-05-{10 + n % 19:02d}T1{n % 10}:01:10Z",
            ended=None if n % 5 == 0 else "2026-05-30T00:00:00Z",
            cwd=rng.choice([None, "/home/me/src/app", "C:\\work\\x"]),
            id=rng.choice([None, f"{n:07d}", f"0b7c6f1e-2a4d-4c1b-9f0e-{n:012d}"]),
            summary=rng.choice([None, phrase(6)]),
            context=tuple(phrase() for _ in range(rng.randint(0, 2))),
            next_steps=tuple(phrase() + " (soon)" for _ in range(rng.randint(0, 2))),
            decisions=tuple(phrase() for _ in range(rng.randint(0, 2))),
            gotchas=tuple(phrase() + " #pain" for _ in range(rng.randint(0, 2))),
            tags=tuple(
                rng.sample(["session", "auto-capture", "parser", "ünïcode"], rng.randint(0, 3))
            ),
            observations=tuple(observations),
            relations=tuple(relations),
            extra={
                "type": "session",
                "capture": rng.choice(["extractive", "summarized"]),
                "trigger": rng.choice(["auto", "manual"]),
            },
            sections=tuple(sections),
        )
        sessions.append(s)
    return sessions


def index_observations(s: Session) -> list[tuple[Any, ...]]:
    """The observation rows basic-memory should index for a session, per sessionkit's model."""
    out: list[tuple[Any, ...]] = []
    dedicated = [("summary", (s.summary,) if s.summary is not None else ())]
    dedicated += [
        ("context", s.context),
        ("next_step", s.next_steps),
        ("decision", s.decisions),
        ("problem", s.gotchas),
        ("question", s.questions),
    ]
    for category, texts in dedicated:
        for text in texts:
            o = parse_observation(f"[{category}] {text}")
            out.append((category, o.content, o.context, o.tags))
    for obs in s.observations:
        out.append((obs.category or "note", obs.content, obs.context, obs.tags))
    return sorted(out, key=repr)


def index_relations(s: Session) -> list[tuple[Any, ...]]:
    out: list[tuple[Any, ...]] = []
    for link in s.relations:
        target = link.target
        if link.style is LinkStyle.WIKI and link.label:
            target += "|" + link.label
        row = (link.relation, target, link.context)
        if not any(r[:2] == row[:2] for r in out):  # the index keeps one per (type, target)
            out.append(row)
    return sorted(out, key=repr)


def db_observations(entity: dict[str, Any]) -> list[tuple[Any, ...]]:
    return sorted(entity["observations"], key=repr)


@pytest.fixture(scope="session")
def indexed(bm_home: BMHome) -> dict[str, Any]:
    cached = bm_home.root / "indexed.json"
    if cached.is_file():  # a kept run (SESSIONKIT_INTEROP_DIR)
        data = json.loads(cached.read_text(encoding="utf-8"))
        sessions = {render_note(s, project=PROJECT)[0]: s for s in make_sessions()}
        data["written"] = {p: (sessions[p], c) for p, c in data["written"].items()}
        return data
    # 1. sessionkit writes notes into the project
    written: dict[str, tuple[Session, str]] = {}
    for s in make_sessions():
        path, text = render_note(s, project=PROJECT)
        target = bm_home.project_dir / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8", newline="")
        written[path] = (s, sha256(target))
    schema = (
        Path(__file__).resolve().parents[2]
        / "sessionkit"
        / "adapters"
        / "schemas"
        / "basic-memory-session.md"
    )
    (bm_home.project_dir / "schemas").mkdir(exist_ok=True)
    (bm_home.project_dir / "schemas" / "Session.md").write_text(
        schema.read_text(encoding="utf-8"), encoding="utf-8"
    )
    # 2. basic-memory writes notes with its own write_note
    spec: list[dict[str, Any]] = [
        {
            "title": "Session 2026-05-19 09:00:00 — checkpoint from the plugin",
            "folder": "sessions",
            "note_type": "session",
            "tags": ["session", "auto-capture"],
            "metadata": {
                "status": "open",
                "started": "2026-05-19T08:40:00Z",
                "ended": "2026-05-19T09:00:00Z",
                "project": PROJECT,
                "cwd": "/home/me/src/app",
                "claude_session_id": "0123456",
                "trigger": "auto",
                "capture": "extractive",
            },
            "content": (GOLDEN / "plugin_checkpoint.md").read_text(encoding="utf-8"),
        }
    ]
    for md in sorted(GOLDEN.glob("*.md")):
        spec.append(
            {"title": md.stem, "folder": "bm-written", "content": md.read_text(encoding="utf-8")}
        )
    bm_results = bm_home.write_notes(spec)
    # 3. basic-memory indexes the project
    bm_home.bm("reindex", "--search", "--project", PROJECT)
    validation = json.loads(
        bm_home.bm("schema", "validate", "session", "--project", PROJECT, "--json").stdout
    )
    if "SESSIONKIT_INTEROP_DIR" in os.environ:
        keep = {p: c for p, (_, c) in written.items()}
        cached.write_text(
            json.dumps({"written": keep, "bm_results": bm_results, "validation": validation}),
            encoding="utf-8",
        )
    return {"written": written, "bm_results": bm_results, "validation": validation}


def test_sessionkit_notes_indexed_without_rewrites(
    bm_home: BMHome, indexed: dict[str, Any]
) -> None:
    written = indexed["written"]
    assert len(written) >= 20
    for path, (session, checksum) in written.items():
        file = bm_home.project_dir / path
        assert sha256(file) == checksum, f"basic-memory rewrote {path}"
        entity = bm_home.entity(path)
        assert entity["checksum"] == checksum
        model = BASIC_MEMORY.read(parse(file.read_text(encoding="utf-8"), path))
        assert model == attrs.evolve(
            session, extra={**session.extra, "permalink": entity["permalink"]}
        )
        assert entity["title"] == model.title
        assert entity["note_type"] == "session"
        assert entity["permalink"] == model.extra["permalink"]
        assert entity["permalink"] == generate_permalink(path, project=PROJECT)
        assert db_observations(entity) == index_observations(model), path
        assert sorted(entity["relations"], key=repr) == index_relations(model), path


def test_session_schema_reports_no_warnings(indexed: dict[str, Any]) -> None:
    titles = {s.title for s, _ in indexed["written"].values()}
    results = {r["note_identifier"]: r for r in indexed["validation"]["results"]}
    assert titles <= set(results)
    for title in titles:
        r = results[title]
        assert r["passed"], r
        assert r["schema_entity"] == "Session"
        assert not r.get("warnings"), (title, r.get("warnings"))
        assert not r.get("errors"), (title, r.get("errors"))


def test_basic_memory_written_notes_read_with_the_indexed_facts(
    bm_home: BMHome, indexed: dict[str, Any]
) -> None:
    results = indexed["bm_results"]
    assert len(results) >= 20
    for result in results:
        path = result["file_path"]
        text = (bm_home.project_dir / path).read_text(encoding="utf-8")
        doc = parse(text, path)
        entity = bm_home.entity(path)
        view = bm_view(doc)
        observations = sorted(
            ((o.category or "note", o.content, o.context, o.tags) for o in view.facts.observations),
            key=repr,
        )
        assert observations == db_observations(entity), path
        relations: list[tuple[Any, ...]] = []
        for r in view.facts.relations:
            row = (r.type, r.target, r.context)
            if not any(x[:2] == row[:2] for x in relations):
                relations.append(row)
        assert sorted(relations, key=repr) == sorted(entity["relations"], key=repr), path
        # and the model view agrees with the index
        model = BASIC_MEMORY.read(doc)
        assert index_observations(model) == db_observations(entity), path
        assert entity["title"] == model.title == result["title"]
        assert entity["permalink"] == result["permalink"] == model.extra["permalink"]
        assert entity["permalink"] == generate_permalink(path, project=PROJECT)
        # reading and writing back changes nothing
        assert BASIC_MEMORY.write(model, base=doc).text == text


def test_plugin_checkpoint_shape(bm_home: BMHome, indexed: dict[str, Any]) -> None:
    result = indexed["bm_results"][0]
    text = (bm_home.project_dir / result["file_path"]).read_text(encoding="utf-8")
    s = BASIC_MEMORY.read(parse(text, result["file_path"]))
    assert s.status is Status.ACTIVE and s.id == "0123456" and s.project == PROJECT
    assert s.started == "2026-05-19T08:40:00Z"
    assert s.tags == ("session", "auto-capture")
    assert s.context and s.next_steps and s.decisions and s.gotchas
    assert Link(target="Parser Fix", relation="produced") in s.relations
    assert [x.title for x in s.sections] == ["Summary", "Recent thread"]
    # what sessionkit would write for the same session is what write_note wrote
    path, ours = render_note(s, project=PROJECT)
    assert path == result["file_path"]
    head = text.split("---\n\n", 1)[0]
    assert ours.split("---\n\n", 1)[0] == head


PERMALINK_PATHS = [
    "docs/My Feature.md",
    "specs/API (v2).md",
    "notes/Don't Panic!.md",
    "CamelCaseTitle",
    "café/Crème brûlée.md",
    "design/unified_model_refactor.md",
    "中文/测试文档.md",
    "中文/Mixed 测试 Doc.md",
    "Version 2.0.0",
    "sessions/Session 2026-05-18 14-23-00 — fix the parser.md",
    "sessions/Alias test- a-b.md",
    "a/b/c/Deep___path--here.md",
    "Ünïcödé/Ærø Œuvre ßtraße.md",
    "x/iPhone and HTTPServer.md",
    "x/tabs\tand  spaces.md",
    "x/Zürich — Köln.md",
    "x/Σ greek Ωmega.md",
    "x/full，width！punct.md",
]


@pytest.mark.parametrize("path", PERMALINK_PATHS)
def test_permalinks_equal_basic_memory(path: str) -> None:
    from basic_memory.utils import build_canonical_permalink
    from basic_memory.utils import generate_permalink as bm_permalink

    assert generate_permalink(path) == bm_permalink(path)
    assert generate_permalink(path, project=PROJECT) == build_canonical_permalink(PROJECT, path)


def test_filenames_equal_basic_memory() -> None:
    from basic_memory.file_utils import sanitize_for_filename

    from sessionkit.adapters.profiles import filename_for_title

    for title in [*TITLES, '..a<b>c:"d|e?f*g..', "a//b\\\\c", "-lead-"]:
        assert filename_for_title(title) == sanitize_for_filename(title), title


@pytest.mark.parametrize("name", sorted(p.stem for p in GOLDEN.glob("*.md")))
def test_golden_expectations_match_live_basic_memory(name: str) -> None:
    body = (GOLDEN / f"{name}.md").read_text(encoding="utf-8")
    assert bm_facts(body) == json.loads((GOLDEN / f"{name}.json").read_text(encoding="utf-8"))


FRAGMENTS = [
    "- [cat] content #tag (ctx)",
    "- [x] done",
    "- [ ] todo",
    "- [/] prog",
    "- [00:01:02] t #t",
    "- [multi word] thing",
    "- rel [[Target]]",
    "- rel [[Target]] (why)",
    "- rel [[A]] and more",
    '- "quoted type" [[B]]',
    "- type: [[X]]",
    "- [[Only]]",
    "text with [[Inline]] link",
    "We fixed issue #42 today.",
    "# Heading #tag",
    "## [cat] heading obs",
    "```",
    "~~~",
    "    indented [[Code]] #x",
    "> quote [[Q]] #q",
    "> [!info] callout",
    "",
    "",
    "  continuation line #c",
    "prose after item [[P]]",
    "- [cat]text",
    "- \\[esc\\] text",
    "a#frag",
    "- [] empty cat #e",
    "- [cat] b (c) (d)",
    "- [cat] content (ctx (nested))",
    "* [star] bullet",
    "1. [num] ordered [[N]]",
    "   - [nested] nested #n",
    "- proj [[proj::Note]]",
    "- alias [[T|Alias]]",
    "[md](docs/a.md) and [ext](https://x.y)",
    "`code [[NotLink]]` [[Real]]",
    "---",
    "===",
    "<div>",
    "</div>",
    "- rel [[A]] #bm:links_to",
    "***",
    "+ [plus] item",
    "2. [two] second",
    "\t- [tab] tabbed",
    "-",
    "- ",
    "<!-- c #c [[C]] -->",
    "      - [deep] deep item",
    "- [cat] with [[Wiki]] inside (ctx)",
]


@pytest.mark.parametrize("seed", range(4))
def test_grammar_differential(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(400):
        body = "\n".join(rng.choice(FRAGMENTS) for _ in range(rng.randint(1, 8)))
        facts = parse_facts(body.split("\n"))
        ours = {
            "observations": [
                {
                    "category": o.category,
                    "content": o.content,
                    "tags": list(o.tags),
                    "context": o.context,
                }
                for o in facts.observations
            ],
            "relations": [
                {"type": r.type, "target": r.target, "context": r.context} for r in facts.relations
            ],
        }
        assert ours == bm_facts(body), body
