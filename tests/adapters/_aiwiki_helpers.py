"""Shared helpers for the aiwiki adapter tests: corpus loading and Hypothesis strategies."""

from __future__ import annotations

from pathlib import Path

from hypothesis import strategies as st

from sessionkit.model import (
    Checkpoint,
    Citation,
    Directive,
    DirectiveState,
    ExtraSection,
    Session,
    Status,
)

ROOT = Path(__file__).resolve().parent.parent
CORPUS_V2 = sorted((ROOT / "corpus" / "aiwiki-v2").glob("*.md"))
CORPUS_V1 = sorted((ROOT / "corpus" / "aiwiki-v1").glob("*.md"))


def read_text(path: Path) -> str:
    """A corpus file's exact text (no newline translation)."""
    with open(path, encoding="utf-8", newline="") as f:
        return f.read()


def page_path(path: Path) -> str:
    """The path a corpus page is linted under (inside a wiki)."""
    return f"aiwiki/sessions/{path.name}"


_WORD = st.text(
    st.characters(
        codec="utf-8",
        exclude_categories=("Cc", "Cs", "Zl", "Zp", "Zs"),
        exclude_characters="`*#[]\\<>|{}~_-+=!@:$%&",
    ),
    min_size=1,
    max_size=8,
)
# one line of plain words: never a heading, bullet, fence, rule or directive header
plain_line = st.lists(_WORD, min_size=1, max_size=5).map(" ".join)
dates = st.dates().map(lambda d: d.isoformat())
timestamps = st.datetimes(timezones=st.just(__import__("datetime").UTC)).map(
    lambda t: t.replace(microsecond=0).isoformat().replace("+00:00", "Z")
)
shas = st.text("0123456789abcdef", min_size=7, max_size=7)
paths = st.lists(st.from_regex(r"[a-z][a-z0-9_]{0,6}", fullmatch=True), min_size=1, max_size=3).map(
    lambda parts: "/".join(parts) + ".py"
)


@st.composite
def citations(draw: st.DrawFn) -> Citation:
    """Citations in every form the format spells."""
    start = draw(st.none() | st.integers(1, 5000))
    end = None if start is None else draw(st.none() | st.integers(start, start + 300))
    return Citation(
        path=draw(paths),
        start=start,
        end=end,
        sha=draw(st.none() | shas),
        note=draw(st.just("") | plain_line.map(lambda s: "— " + s)),
        code=draw(st.booleans()),
    )


@st.composite
def directives(draw: st.DrawFn) -> Directive:
    """Directives, unconsumed or consumed, with or without a Status item."""
    consumed = draw(st.booleans())
    return Directive(
        kind=draw(st.sampled_from(["Dream", "Review", "Recovery"])),
        state=DirectiveState.CONSUMED if consumed else DirectiveState.UNCONSUMED,
        consumed_at=draw(timestamps) if consumed else None,
        items=tuple(draw(st.lists(plain_line.map(lambda s: "Action: " + s), max_size=3))),
        status=draw(st.none() | st.sampled_from(["unconsumed", "consumed"])),
    )


@st.composite
def checkpoints(draw: st.DrawFn) -> Checkpoint:
    """Checkpoint entries with a plain body."""
    body = draw(st.lists(plain_line, max_size=3).map("\n".join))
    return Checkpoint(
        event=draw(st.sampled_from(["PreCompact", "Dream", "Wrap"])),
        at=draw(timestamps),
        body=body,
        directives=tuple(draw(st.lists(directives(), max_size=2))),
    )


bullets = st.lists(plain_line, max_size=3).map(tuple)
extra_values = st.none() | st.booleans() | st.integers(-1000, 1000) | plain_line | dates | shas
extra_keys = st.from_regex(r"[a-z][a-z0-9_]{0,10}", fullmatch=True).filter(
    lambda k: (
        k
        not in {
            "schema_id",
            "schema_version",
            "status",
            "date_start",
            "date_end",
            "session_id",
            "focus",
            "last_commit",
            "y",
            "n",
            "yes",
            "no",
            "on",
            "off",
            "true",
            "false",
            "null",
            "nan",
            "inf",
        }
    )
)


@st.composite
def sessions(draw: st.DrawFn, version: int = 2) -> Session:
    """Sessions the aiwiki format of ``version`` can represent."""
    extra_sections = draw(
        st.lists(
            st.builds(
                ExtraSection,
                title=plain_line.filter(lambda t: t not in _KNOWN),
                body=st.tuples(st.booleans(), st.lists(plain_line, max_size=3)).map(
                    lambda b: "\n".join(["", *b[1]] if b[0] and b[1] else b[1])
                ),
            ),
            max_size=2,
        )
    )
    if draw(st.booleans()):
        pre = draw(st.lists(plain_line, min_size=1, max_size=2))
        extra_sections.insert(
            0, ExtraSection(title="", body="\n".join(["", "# " + pre[0], *pre[1:]]))
        )
    return Session(
        id=draw(st.none() | st.uuids().map(str)) if version == 2 else None,
        status=draw(st.sampled_from(list(Status))),
        focus=draw(st.none() | plain_line | st.sampled_from(["it's: odd", "#hash", "yes", "0123"])),
        started=draw(st.none() | dates),
        ended=draw(st.none() | dates),
        last_commit=draw(st.none() | shas),
        checkpoints=tuple(draw(st.lists(checkpoints(), max_size=3))) if version == 2 else (),
        files_touched=tuple(draw(st.lists(citations(), max_size=4))),
        decisions=draw(bullets),
        gotchas=draw(bullets),
        questions=draw(bullets),
        next_steps=draw(bullets),
        extra=draw(st.dictionaries(extra_keys, extra_values, max_size=3)),
        sections=tuple(extra_sections),
    )


_KNOWN = {
    "Checkpoints",
    "Files touched",
    "Decisions made",
    "Gotchas surfaced",
    "Open questions",
    "Next steps",
}
