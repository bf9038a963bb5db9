"""sessionkit against what Basic Memory 0.24 writes and ships (``nox -s interop``; #48).

* The schema notes sessionkit bundles (``sessionkit/adapters/schemas``) declare
  the same fields as the installed package's own ``Session`` and
  ``CodingSession`` schema notes, read with the package's own Picoschema parser
  (descriptions aside: those are sessionkit's words).
* The notes in ``tests/corpus/bm-0.24`` (written by the real ``bm hook
  pre-compact``, see ``_bm_hook_corpus.py``) read with the same observations
  and relations in sessionkit as in Basic Memory's ``EntityParser``.
"""

from __future__ import annotations

import asyncio
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
import yaml

from sessionkit.adapters import picoschema
from sessionkit.adapters.basic_memory import BASIC_MEMORY, bm_view
from sessionkit.document import parse

from ..adapters.test_basic_memory_024 import LINK_CASES

pytest.importorskip("basic_memory", reason="interop needs basic-memory (Python >= 3.12)")

ROOT = Path(__file__).resolve().parents[2]
CORPUS = sorted((ROOT / "tests" / "corpus" / "bm-0.24").glob("*.md"))
#: the installed package's schema note of each entity sessionkit bundles
SHIPPED = {"Session": "session.md", "CodingSession": "coding-session.md"}


def _shipped(name: str) -> str:
    folder = resources.files("basic_memory") / "data" / "tau" / "extension" / "schemas"
    return (folder / name).read_text(encoding="utf-8")


def _fields(fields: Any) -> list[tuple[Any, ...]]:
    return [
        (
            f.name,
            f.type,
            f.required,
            f.is_array,
            f.is_enum,
            tuple(f.enum_values),
            f.is_entity_ref,
            tuple(_fields(f.children)),
        )
        for f in fields
    ]


@pytest.mark.parametrize("entity", sorted(SHIPPED))
def test_the_bundled_schema_notes_are_the_installed_packages(entity: str) -> None:
    from basic_memory.picoschema.parser import parse_schema_note

    text = _shipped(SHIPPED[entity])
    theirs = parse_schema_note(yaml.safe_load(text.split("---\n")[1]))
    (ours,) = [s for s in picoschema.builtin_schemas() if s.entity == entity]
    assert (ours.entity, ours.version, ours.validation) == (
        theirs.entity,
        theirs.version,
        theirs.validation_mode,
    )
    assert _fields(ours.fields) == _fields(theirs.fields)
    assert _fields(ours.frontmatter_fields) == _fields(theirs.frontmatter_fields)
    # and sessionkit reads the package's note as the package does
    again = picoschema.load_schema_note(text, SHIPPED[entity])
    assert _fields(again.fields) == _fields(ours.fields)
    assert _fields(again.frontmatter_fields) == _fields(ours.frontmatter_fields)


@pytest.mark.parametrize("path", CORPUS, ids=[p.name for p in CORPUS])
def test_a_hook_note_reads_with_basic_memorys_facts(path: Path, tmp_path: Path) -> None:
    from basic_memory.markdown.entity_parser import EntityParser

    text = path.read_text(encoding="utf-8")
    key = f"sessions/{path.name}"
    entity = asyncio.run(EntityParser(tmp_path).parse_markdown_content(tmp_path / key, text))
    view = bm_view(parse(text, key))
    assert [(o.category, o.content, o.context) for o in view.facts.observations] == [
        (o.category, o.content, o.context) for o in entity.observations
    ]
    assert [(r.type, r.target) for r in view.facts.relations] == [
        (r.type, r.target) for r in entity.relations
    ]
    meta = entity.frontmatter.metadata
    session = BASIC_MEMORY.read(parse(text, key))
    assert session.id == meta["session_id"] and session.extra["agent"] == meta["agent"]
    assert BASIC_MEMORY.write(session, base=parse(text, key)).text == text


@pytest.mark.parametrize("body", [body for body, _ in LINK_CASES])
def test_markdown_links_with_brackets_in_their_text_read_as_basic_memory_reads_them(
    body: str, tmp_path: Path
) -> None:
    from basic_memory.markdown.entity_parser import EntityParser

    text = "---\ntitle: t\ntype: note\n---\n\n" + body
    entity = asyncio.run(EntityParser(tmp_path).parse_markdown_content(tmp_path / "n.md", text))
    want = dict(LINK_CASES)[body]
    assert [(r.type, r.target) for r in entity.relations] == want
    view = bm_view(parse(text, "n.md"))
    assert [(r.type, r.target) for r in view.facts.relations] == want
