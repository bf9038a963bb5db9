"""Hypothesis strategies for every model class.

Each strategy builds valid model objects with varied but plausible values.
Keyword arguments override the strategy of a field, so a test that needs a
narrower shape (one a given format can express) can say so::

    from tests.strategies import sessions, checkpoints
    st_v2 = sessions(observations=st.just(()), title=st.none())

Text strategies:

- :func:`words`: a non-empty single line without leading/trailing spaces;
- :func:`lines`: a single line (may be empty);
- :func:`blocks`: multi-line text with ``\\n`` line ends, no trailing newline.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from sessionkit.model import (
    Checkpoint,
    Citation,
    Directive,
    DirectiveState,
    ExtraSection,
    Link,
    LinkStyle,
    Observation,
    Session,
    Status,
)

__all__ = [
    "blocks",
    "checkpoints",
    "citations",
    "dates",
    "directives",
    "extra_sections",
    "extras",
    "json_values",
    "lines",
    "links",
    "observations",
    "session_ids",
    "sessions",
    "shas",
    "statuses",
    "timestamps",
    "words",
]

_ALPHABET = st.characters(
    codec="utf-8",
    exclude_categories=("Cc", "Cs", "Zl", "Zp"),  # no control chars, surrogates, line seps
)


def lines(max_size: int = 40) -> st.SearchStrategy[str]:
    """One line of text (no line breaks), possibly empty."""
    return st.text(_ALPHABET, max_size=max_size)


def words(max_size: int = 40) -> st.SearchStrategy[str]:
    """A non-empty single line with no leading or trailing whitespace."""
    return lines(max_size).map(str.strip).filter(bool)


def blocks(max_lines: int = 4) -> st.SearchStrategy[str]:
    """Multi-line text joined with ``\\n`` (no trailing newline)."""
    return st.lists(lines(), max_size=max_lines).map("\n".join)


def shas() -> st.SearchStrategy[str]:
    """Short commit SHAs (7 hex digits; leading zeros included)."""
    return st.text("0123456789abcdef", min_size=7, max_size=7)


def session_ids() -> st.SearchStrategy[str]:
    """Session ids shaped like Claude Code's UUIDs."""
    return st.uuids().map(str)


def dates() -> st.SearchStrategy[str]:
    """ISO dates as written, ``YYYY-MM-DD``."""
    return st.dates().map(lambda d: d.isoformat())


def timestamps() -> st.SearchStrategy[str]:
    """ISO-8601 UTC timestamps, ``YYYY-MM-DDTHH:MM:SSZ``."""
    return st.datetimes().map(lambda d: d.replace(microsecond=0).isoformat() + "Z")


def _slugs(max_size: int, sep: str = "-") -> st.SearchStrategy[str]:
    """Lowercase names: a letter, then letters, digits and ``sep``."""
    first = st.sampled_from("abcdefghijklmnopqrstuvwxyz")
    rest = st.text("abcdefghijklmnopqrstuvwxyz0123456789" + sep, max_size=max_size - 1)
    return st.builds(str.__add__, first, rest)


def statuses() -> st.SearchStrategy[Status]:
    """Any session status."""
    return st.sampled_from(Status)


def _paths() -> st.SearchStrategy[str]:
    segment = st.text("abcdefghijklmnopqrstuvwxyz0123456789_-", min_size=1, max_size=10)
    ext = st.sampled_from([".py", ".md", ".toml", ".sh", ""])
    return st.builds(
        lambda parts, e: "/".join(parts) + e, st.lists(segment, min_size=1, max_size=4), ext
    )


def citations(**fields: st.SearchStrategy[Any]) -> st.SearchStrategy[Citation]:
    """A :class:`Citation`: ``path``, ``path:line@sha`` or ``path:start-end@sha``."""

    @st.composite
    def build(draw: st.DrawFn) -> Citation:
        start = draw(fields.get("start", st.none() | st.integers(1, 5000)))
        end_default = (
            st.none() if start is None else st.none() | st.integers(start + 1, start + 500)
        )
        return Citation(
            path=draw(fields.get("path", _paths())),
            start=start,
            end=draw(fields.get("end", end_default)),
            sha=draw(fields.get("sha", st.none() | shas())),
            note=draw(fields.get("note", st.just("") | words())),
            code=draw(fields.get("code", st.booleans())),
        )

    return build()


def links(**fields: st.SearchStrategy[Any]) -> st.SearchStrategy[Link]:
    """A :class:`Link` of either style."""
    defaults: dict[str, st.SearchStrategy[Any]] = {
        "target": words(30),
        "label": st.none() | words(20),
        "relation": st.just("links_to") | st.sampled_from(["produced", "relates_to", "implements"]),
        "context": st.none() | words(20),
        "style": st.sampled_from(LinkStyle),
    }
    return st.builds(Link, **{**defaults, **fields})


def observations(**fields: st.SearchStrategy[Any]) -> st.SearchStrategy[Observation]:
    """An :class:`Observation` (category may be ``None``)."""
    defaults: dict[str, st.SearchStrategy[Any]] = {
        "category": st.none() | st.sampled_from(["context", "next_step", "decision", "problem"]),
        "content": words(60),
        "tags": st.lists(_slugs(12), max_size=3).map(tuple),
        "context": st.none() | words(20),
    }
    return st.builds(Observation, **{**defaults, **fields})


def directives(**fields: st.SearchStrategy[Any]) -> st.SearchStrategy[Directive]:
    """A :class:`Directive`; ``consumed_at`` is set exactly when it is consumed."""

    @st.composite
    def build(draw: st.DrawFn) -> Directive:
        state = draw(fields.get("state", st.sampled_from(DirectiveState)))
        consumed_default = timestamps() if state is DirectiveState.CONSUMED else st.none()
        values: dict[str, Any] = {
            "kind": draw(fields.get("kind", st.sampled_from(["Dream", "Wrap", "Review"]))),
            "state": state,
            "consumed_at": draw(fields.get("consumed_at", consumed_default)),
            "items": draw(
                fields.get(
                    "items",
                    st.lists(
                        st.builds(
                            "{}: {}".format,
                            st.sampled_from(["Scope", "Trigger", "Action"]),
                            words(40),
                        ),
                        max_size=3,
                    ).map(tuple),
                )
            ),
            "status": draw(fields.get("status", st.none() | st.sampled_from(["unconsumed"]))),
        }
        return Directive(**values)

    return build()


def checkpoints(**fields: st.SearchStrategy[Any]) -> st.SearchStrategy[Checkpoint]:
    """A :class:`Checkpoint` with up to two directives."""
    defaults: dict[str, st.SearchStrategy[Any]] = {
        "event": st.sampled_from(["PreCompact", "Dream", "Wrap", "SessionEnd"]),
        "at": timestamps(),
        "body": blocks(),
        "directives": st.lists(directives(), max_size=2).map(tuple),
    }
    return st.builds(Checkpoint, **{**defaults, **fields})


def extra_sections(**fields: st.SearchStrategy[Any]) -> st.SearchStrategy[ExtraSection]:
    """An :class:`ExtraSection` (a section the model has no field for)."""
    defaults: dict[str, st.SearchStrategy[Any]] = {"title": words(30), "body": blocks()}
    return st.builds(ExtraSection, **{**defaults, **fields})


def json_values(max_leaves: int = 6) -> st.SearchStrategy[Any]:
    """JSON-like values as a strict YAML loader gives them (lists, not tuples)."""
    scalars = st.none() | st.booleans() | st.integers(-(10**9), 10**9) | lines(20)
    return st.recursive(
        scalars,
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(lines(10), inner, max_size=3),
        max_leaves=max_leaves,
    )


def extras() -> st.SearchStrategy[dict[str, Any]]:
    """Unknown frontmatter keys and their values."""
    return st.dictionaries(_slugs(16, "_"), json_values())


def _bullets(size: int = 3) -> st.SearchStrategy[tuple[str, ...]]:
    return st.lists(words(60), max_size=size).map(tuple)


def sessions(**fields: st.SearchStrategy[Any]) -> st.SearchStrategy[Session]:
    """A :class:`Session` using every field; override any field's strategy by name."""
    optional_line = st.none() | words()
    defaults: dict[str, st.SearchStrategy[Any]] = {
        "id": st.none() | session_ids(),
        "status": statuses(),
        "focus": optional_line,
        "title": optional_line,
        "summary": optional_line,
        "started": st.none() | dates() | timestamps(),
        "ended": st.none() | dates() | timestamps(),
        "last_commit": st.none() | shas(),
        "project": st.none() | _slugs(16),
        "cwd": st.none() | _paths().map(lambda p: "/" + p),
        "checkpoints": st.lists(checkpoints(), max_size=3).map(tuple),
        "files_touched": st.lists(citations(), max_size=3).map(tuple),
        "decisions": _bullets(),
        "gotchas": _bullets(),
        "questions": _bullets(),
        "next_steps": _bullets(),
        "context": _bullets(),
        "tags": st.lists(_slugs(12), max_size=3).map(tuple),
        "observations": st.lists(observations(), max_size=3).map(tuple),
        "relations": st.lists(links(), max_size=3).map(tuple),
        "extra": extras(),
        "sections": st.lists(extra_sections(), max_size=2).map(tuple),
    }
    return st.builds(Session, **{**defaults, **fields})
