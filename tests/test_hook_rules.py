"""Rules the hook path reads without compiling their regular expressions, held to them.

A hook run compiles each pattern it uses (a tenth of a millisecond or more
each), so a few one-line rules are read with string methods instead: the
frontmatter fence, the rule that closes a checkpoint entry, a directive's
``Status:`` item, a session id's safe characters, the note of a short id and
the date in a note's name.  Each is checked here against the pattern it
replaces, through the public functions that use it.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sessionkit.adapters.aiwiki_page import read_page
from sessionkit.document import parse, split_lines
from sessionkit.hooks import main
from sessionkit.ops.checkpoint import NO_ID, key_for_id7, safe_short_id
from tests.budget import examples

FENCE = re.compile(r"^---[ \t]*\r?\n?$")
RULE = re.compile(r"^---[ \t]*$")
STATUS = re.compile(r"^Status:[ \t]*(?P<value>.*)$")
UNSAFE = re.compile(r"[^0-9A-Za-z_-]")
DATED_KEY = re.compile(r"^(?:.*/)?([0-9]{4}-[0-9]{2}-[0-9]{2})-([0-9A-Za-z_-]+)\.md$")
DATED = re.compile(r"^(\d{4}-\d{2}-\d{2})(?:-(.+))?\.md$")

#: characters the rules turn on, and some they must not confuse (Unicode digits, NUL-free)
_TRICKY = "-0123456789 \t\r\n.:/_amdAS\u0660\u0661\uff10\uff11\u00b2x"


def _text(max_size: int = 24) -> st.SearchStrategy[str]:
    return st.text(st.sampled_from(_TRICKY), max_size=max_size)


@settings(max_examples=examples(500), deadline=None)
@given(st.lists(_text(8), max_size=6))
def test_the_frontmatter_fence_is_the_pattern(parts: list[str]) -> None:
    text = "---" + "".join(parts) + "\nkey: v\n" + "---".join(parts) + "\n---\n"
    lines = split_lines(text)
    doc = parse(text)
    if not lines or not FENCE.match(lines[0]):
        assert doc.fm_close is None and doc.problem is None
        return
    closing = next((i for i in range(1, len(lines)) if FENCE.match(lines[i])), None)
    assert doc.fm_close == closing


@settings(max_examples=examples(300), deadline=None)
@given(rule=_text(6), status=_text(10))
def test_the_entry_rule_and_the_status_item_are_the_patterns(rule: str, status: str) -> None:
    rule_line = "---" + rule.replace("\n", "").replace("\r", "")
    status_line = "Status:" + status.replace("\n", "").replace("\r", "")
    page = (
        "---\nschema_id: session\nschema_version: 2\nsession_id: abcdef0\n---\n\n"
        "## Checkpoints\n\n### PreCompact at 2026-05-18T10:00:00Z\n\nActive work: x\n\n"
        "**Dream directive (unconsumed):**\n- Action: go\n"
        f"- {status_line}\n\n{rule_line}\n"
    )
    (cp,) = read_page(parse(page))[0].checkpoints
    (directive,) = cp.directives
    text = split_lines(page)[-3].rstrip("\n")[2:]  # the status bullet's text
    m = STATUS.match(text)
    assert directive.status == (m.group("value") if m else None)
    body = cp.body.split("\n")
    if RULE.match(rule_line):  # the closing rule is not part of the entry's text
        assert rule_line not in body
    elif rule_line.strip():
        assert body[-1] == rule_line


@settings(max_examples=examples(500), deadline=None)
@given(st.one_of(_text(12), st.text(max_size=12)))
def test_a_short_id_is_the_pattern(session_id: str) -> None:
    assert safe_short_id(session_id) == (UNSAFE.sub("", session_id)[:7] or NO_ID)


def _reference(keys: list[str], id7: str, today: str | None) -> str | None:
    best = None
    for key in keys:
        if not key.endswith(f"-{id7}.md"):  # (the rule's own first test)
            continue
        m = DATED_KEY.match(key)
        if m is None or m.group(2) != id7 or (today is not None and m.group(1) != today):
            continue
        if best is None or (m.group(1), key) > best:
            best = (m.group(1), key)
    return None if best is None else best[1]


_DAYS = st.sampled_from(["2026-05-18", "2026-05-19", "2026-5-18", "\u0662026-05-18", "20260518"])
_IDS = st.sampled_from(["abcdef0", "abcdef", "abc_ef0", "ab/cdef", "abcdef0x", "-", "ab.cd"])


@settings(max_examples=examples(500), deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["", "sub/", "a/b/", "x\n/"]),
            _DAYS,
            st.sampled_from(["-", "_", "--", ""]),
            _IDS,
            st.sampled_from([".md", ".md\n", ".txt", "md", ".md.md"]),
        ).map("".join),
        max_size=6,
    ),
    _IDS,
    st.none() | _DAYS,
)
def test_the_note_of_a_short_id_is_the_pattern(
    keys: list[str], id7: str, today: str | None
) -> None:
    assert key_for_id7(keys, id7, today) == _reference(keys, id7, today)


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    names=st.lists(
        st.tuples(
            _DAYS,
            st.sampled_from(["", "-a", "-", "x", "-a.md", "-\u0661"]),
            st.sampled_from([".md", ".md\n", ".txt", ""]),
        ).map("".join),
        min_size=1,
        max_size=5,
        unique=True,
    )
)
def test_the_latest_note_by_its_name_is_the_pattern(tmp_path: Path, names: list[str]) -> None:
    """session-start picks the note AiwikiStore.latest picks (its pattern, _DATED)."""
    base = Path(tempfile.mkdtemp(dir=tmp_path))
    folder = base / "aiwiki" / "sessions"
    folder.mkdir(parents=True)
    page = b"---\nschema_id: session\nschema_version: 2\nfocus: f\n---\n"
    for i, name in enumerate(names):
        (folder / name).write_bytes(page)
        os.utime(folder / name, (1_000_000_000 + i, 1_000_000_000 + i))
    notes = [n for n in names if n.endswith(".md") and n != "INDEX.md"]  # (the store's is_note)
    dated = [(m.group(1), n) for n in notes if (m := DATED.match(n))]
    if dated:
        top = max(d for d, _ in dated)
        expected = max((n for d, n in dated if d == top), key=names.index)
    else:
        expected = max(notes, key=names.index) if notes else None

    def run() -> str:
        out, err = io.StringIO(), io.StringIO()
        payload = json.dumps({"cwd": str(base)}).encode()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            main(["session-start", "--plain", "--store", str(base)], stdin=io.BytesIO(payload))
        return out.getvalue() + err.getvalue()

    old = os.environ.get("SESSIONKIT_HOOK_DEADLINE_MS")
    os.environ["SESSIONKIT_HOOK_DEADLINE_MS"] = "600000"
    try:
        fast = run()
    finally:
        if old is None:
            del os.environ["SESSIONKIT_HOOK_DEADLINE_MS"]
        else:
            os.environ["SESSIONKIT_HOOK_DEADLINE_MS"] = old
    if expected is None:
        assert fast == ""
    else:
        assert fast.startswith(f"Latest session note {' '.join(expected.split())}:")
