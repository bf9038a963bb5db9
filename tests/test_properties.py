"""The Hypothesis properties the other test files leave out (see docs/reliability.md).

Already elsewhere: text-layer identity (tests/test_document.py), model round
trips per format (tests/adapters/test_aiwiki.py, test_basic_memory.py),
convert A->B->A both ways (tests/ops/test_convert.py).  Here:

* every format: a note that reads renders back to exactly its text, for
  corpus notes with arbitrary lines spliced in (hand edits);
* every format: ``lint`` returns diagnostics and never raises, ``loads``
  raises only :class:`SessionKitError`, on arbitrary text;
* migrate v1 -> v2 is idempotent and v2 -> v1 -> v2 gives the v2 page back,
  on generated v1 pages.
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import sessionkit
from sessionkit.adapters import get_adapter
from sessionkit.adapters.aiwiki import migrate_document
from sessionkit.diagnostics import Diagnostic
from sessionkit.document import parse
from sessionkit.errors import SessionKitError
from tests.adapters._aiwiki_helpers import sessions

FORMATS = ("aiwiki-v2", "aiwiki-v1", "basic-memory")
CORPUS = sorted(
    p.read_text(encoding="utf-8")
    for folder in ("corpus/aiwiki-v2", "corpus/aiwiki-v1", "corpus/convert", "golden/basic-memory")
    for p in (Path(__file__).parent / folder).rglob("*.md")
)
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

_line = st.sampled_from(
    [
        "",
        "---",
        "## Next steps",
        "## Checkpoints",
        "### PreCompact at 2026-05-18T14:23:00Z",
        "**Dream directive (unconsumed):**",
        "- Status: consumed",
        "- [note] an observation #tag (ctx)",
        "- relates_to [[Other]]",
        "```",
        "> quote",
        "<!--",
        "\t- tab",
        "x: y",
        "# title",
    ]
) | st.text(st.characters(blacklist_categories=("Cs",)), max_size=30)


@st.composite
def edited_notes(draw: st.DrawFn) -> str:
    """A corpus note with a few lines inserted or replaced (frontmatter included)."""
    lines = draw(st.sampled_from(CORPUS)).split("\n")
    for _ in range(draw(st.integers(0, 4))):
        at = draw(st.integers(0, len(lines)))
        new = draw(_line)
        if draw(st.booleans()) and at < len(lines):
            lines[at] = new
        else:
            lines.insert(at, new)
    eol = draw(st.sampled_from(["\n", "\r\n"]))
    return eol.join(lines)


@SETTINGS
@given(edited_notes(), st.sampled_from(FORMATS))
def test_a_note_that_reads_renders_back_to_its_text(text: str, fmt: str) -> None:
    try:
        session = sessionkit.loads(text, path="n.md", format=fmt)
    except SessionKitError:
        return
    assert sessionkit.dumps(session) == text
    doc = parse(text, "n.md")
    adapter = get_adapter(fmt)
    assert adapter.write(adapter.read(doc), base=doc).text == text


@SETTINGS
@given(edited_notes() | st.text(max_size=300), st.sampled_from((None, *FORMATS)))
def test_lint_never_raises_and_loads_raises_only_our_errors(text: str, fmt: str | None) -> None:
    found = sessionkit.lint(text, path="n.md", format=fmt)
    assert all(isinstance(d, Diagnostic) for d in found)
    try:
        sessionkit.loads(text, path="n.md", format=fmt)
    except SessionKitError as exc:
        assert exc.path == "n.md"


@SETTINGS
@given(sessions(version=1))
def test_migrate_is_idempotent_and_reversible(session: sessionkit.Session) -> None:
    v1 = get_adapter("aiwiki-v1").write(session)
    v2 = migrate_document(v1)
    assert migrate_document(v2) is v2 or migrate_document(v2).text == v2.text  # idempotent
    assert sessionkit.loads(v2.text, format="aiwiki-v2").checkpoints == ()
    back = migrate_document(v2, to="aiwiki-v1")
    assert back.text == v1.text
    assert migrate_document(back).text == v2.text
