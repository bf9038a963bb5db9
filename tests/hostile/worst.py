"""Worst cases for every parser, at any size: the inputs a naive reader re-reads.

Each case is ``name -> (format, make)`` where ``make(size)`` returns a note of
about ``size`` bytes (a valid head, then the hostile body or frontmatter).
Used by ``tests/test_linear.py`` (the work grows linearly with the size) and
``benchmarks/linear.py`` (the times at 10 KB, 100 KB and 1 MB).

The constructs: the Basic Memory grammar (quote runs, nested lists of every
marker, brackets, ``[[`` without ``]]``, backticks, emphasis runs,
parentheses, tags), the Markdown block scan (deep nesting of every block kind,
unclosed fences and HTML, lazy lines), the YAML frontmatter (long flow
sequences, many keys, long quoted and block scalars, deep block nesting within
the limit), and the aiwiki lint rules (citations, checkpoint headings,
directive lines, sections).
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["CASES", "note"]

BM_HEAD = "---\ntitle: Session 2026-05-18 14:23:00 — worst\ntype: session\nstatus: open\n---\n\n"
AW_HEAD = (
    "---\nschema_id: session\nschema_version: 2\nstatus: active\ndate_start: 2026-05-18\n"
    "session_id: 7e8a3f2-9a4b-4c8d-b1e2-f5a6c7d8e9f0\nfocus: worst\nlast_commit: ~\n---\n\n"
)
BM, AW = "basic-memory", "aiwiki-v2"

Make = Callable[[int], str]


def _times(unit: str, size: int) -> str:
    return unit * max(1, size // len(unit))


def _line(unit: str, head: str = "", tail: str = "\n") -> Make:
    """One line: ``head`` then ``unit`` repeated to the size."""
    return lambda size: head + _times(unit, size) + tail


def _lines(unit: str, head: str = "") -> Make:
    """``unit`` (whole lines) repeated to the size."""
    return lambda size: head + _times(unit, size)


def _staircase(line: Callable[[int], str], head: str = "") -> Make:
    """Lines nested one level deeper each, as deep as the size allows (depth ~ sqrt(size))."""

    def make(size: int) -> str:
        out, total, depth = [head], len(head), 0
        while total < size:
            text = line(depth)
            out.append(text)
            total += len(text)
            depth += 1
        return "".join(out)

    return make


def _deep_blocks(step: str, inner: str) -> Make:
    """Lines of ``step`` nested 40 deep around ``inner``, repeated to the size."""
    return _lines(step * 40 + inner + "\n" + "\n")


def _frontmatter(body: Callable[[int], str], head: str) -> Make:
    return lambda size: "---\ntitle: x\ntype: session\n" + body(size) + "---\n\n" + head


#: name -> (format, make)
CASES: dict[str, tuple[str, Make]] = {
    # -- Basic Memory grammar: one long line ---------------------------------------------
    "bm: one line of '> '": (BM, _line("> ")),
    "bm: one line of '- '": (BM, _line("- ", tail="x\n")),
    "bm: one line of '> - '": (BM, _line("> - ", tail="x\n")),
    "bm: one line of '1. '": (BM, _line("1. ", tail="x\n")),
    "bm: one line of '- [ ] '": (BM, _line("- [ ] ", tail="x\n")),
    "bm: observation of '['": (BM, _line("[", head="- [c] ")),
    "bm: category of '['": (BM, _line("[", head="- [")),
    "bm: relation of '[[' without ']]'": (BM, _line("[[", head="- rel ")),
    "bm: prose of '[[' without ']]'": (BM, _line("[[", head="text ")),
    "bm: '[[' then ']]' runs": (
        BM,
        lambda size: "- rel " + "[[" * (size // 4) + "]]" * (size // 4),
    ),
    "bm: backtick run": (BM, _line("`", head="- [c] ")),
    "bm: backtick pairs": (BM, _line("`a", head="- [c] ")),
    "bm: emphasis run '*_'": (BM, _line("*_", head="- [c] ")),
    "bm: emphasis run '**'": (BM, _line("**", head="- [c] x ")),
    "bm: open parentheses": (BM, _line("(", head="- [c] x ")),
    "bm: parentheses nested": (
        BM,
        lambda size: "- [c] x " + "(" * (size // 2) + ")" * (size // 2) + "\n",
    ),
    "bm: tag run": (BM, _line("#a", head="- [c] x ")),
    "bm: hash run": (BM, _line("#", head="- [c] x ")),
    # -- Basic Memory: many lines ---------------------------------------------------------
    "bm: many observations": (BM, _lines("- [c] observation #t (ctx)\n", "## Observations\n\n")),
    "bm: many relations": (BM, _lines("- relates_to [[Other Note]]\n", "## Relations\n\n")),
    "bm: many headings": (BM, _lines("## h\n")),
    # -- Markdown block scan: deep nesting of every block kind ---------------------------
    "md: staircase of bullet lists": (BM, _staircase(lambda d: "  " * d + "- x\n")),
    "md: staircase of ordered lists": (BM, _staircase(lambda d: "   " * d + "1. x\n")),
    "md: staircase of quotes": (BM, _staircase(lambda d: "> " * d + "x\n")),
    "md: staircase of quoted lists": (BM, _staircase(lambda d: "> " * d + "- x\n")),
    "md: deep quotes repeated": (BM, _deep_blocks("> ", "x")),
    "md: deep lists repeated": (BM, _deep_blocks("- ", "x")),
    "md: deep quoted lists repeated": (BM, _deep_blocks("> - ", "x")),
    "md: deep quotes then lazy lines": (
        BM,
        lambda size: "> " * 40 + "x\n" + _times("lazy\n", size),
    ),
    "md: items with lazy lines": (BM, _lines("- a\nlazy\n")),
    "md: fence in deep quotes": (BM, _lines("> " * 20 + "```\n")),
    "md: unclosed fence of fence lines": (BM, lambda size: "````\n" + _times("```\n", size)),
    "md: unclosed html comment": (BM, lambda size: "<!--\n" + _times("## x\n", size)),
    "md: indented code lines": (BM, _lines("    code\n")),
    "md: setext candidates": (BM, _lines("a\n-\n")),
    "md: wide table": (
        BM,
        lambda size: "| a " * (size // 8) + "|\n" + "|---" * (size // 8) + "|\n",
    ),
    "md: tabs": (BM, _lines("\t-\t>\tx\n")),
    # -- YAML frontmatter ------------------------------------------------------------------
    "yaml: long flow sequence": (
        BM,
        _frontmatter(lambda size: "tags: [" + _times("a, ", size) + "b]\n", ""),
    ),
    "yaml: many keys": (
        BM,
        _frontmatter(
            lambda size: _times("k: v\n", 1) + "".join(f"k{i}: v\n" for i in range(size // 9)), ""
        ),
    ),
    "yaml: many block items": (
        BM,
        _frontmatter(lambda size: "tags:\n" + _times("- a\n", size), ""),
    ),
    "yaml: long double-quoted escapes": (
        BM,
        _frontmatter(lambda size: 'focus: "' + _times('\\"', size) + '"\n', ""),
    ),
    "yaml: long single-quoted": (
        BM,
        _frontmatter(lambda size: "focus: '" + _times("''", size) + "'\n", ""),
    ),
    "yaml: long block scalar": (
        BM,
        _frontmatter(lambda size: "focus: |\n" + _times("  line\n", size), ""),
    ),
    "yaml: long plain multi-line": (
        BM,
        _frontmatter(lambda size: "focus: a\n" + _times("  b\n", size), ""),
    ),
    "yaml: nested block mappings": (
        BM,
        _frontmatter(lambda size: _times("a:\n  b:\n    c:\n      d: e\n", size), ""),
    ),
    "yaml: many collections, many aliases": (
        BM,
        _frontmatter(
            lambda size: (
                "a: &a [1]\nl:\n" + _times("- [2]\n", size // 2) + _times("- *a\n", size // 2)
            ),
            "",
        ),
    ),
    # -- aiwiki lint rules -----------------------------------------------------------------
    "aiwiki: one line of '> '": (AW, _line("> ", head="## Next steps\n\n")),
    "aiwiki: staircase of lists": (
        AW,
        _staircase(lambda d: "  " * d + "- x\n", "## Next steps\n\n"),
    ),
    "aiwiki: many citations": (
        AW,
        _lines("- `src/a.py:12@abc1234` — why\n", "## Files touched\n\n"),
    ),
    "aiwiki: citation of ':'": (AW, _line("a:", head="## Files touched\n\n- `", tail="1@\n")),
    "aiwiki: citation of '@'": (AW, _line("@", head="## Files touched\n\n- `a.py:1", tail="`\n")),
    "aiwiki: citation of backticks": (AW, _line("`", head="## Files touched\n\n- ")),
    "aiwiki: many checkpoints": (
        AW,
        _lines(
            "### PreCompact at 2026-05-18T14:23:00Z\n\nwork\n\n"
            "**Dream directive (unconsumed):**\n- Action: dream\n- Status: unconsumed\n\n",
            "## Checkpoints\n\n",
        ),
    ),
    "aiwiki: checkpoint heading of digits": (
        AW,
        _line("2026-", head="## Checkpoints\n\n### PreCompact at "),
    ),
    "aiwiki: directive header of '('": (
        AW,
        _line(
            "(",
            head="## Checkpoints\n\n### PreCompact at 2026-05-18T14:23:00Z\n\n**Dream directive ",
        ),
    ),
    "aiwiki: many sections": (AW, _lines("## Section\n\ntext\n\n")),
}


def note(name: str, size: int) -> str:
    """The note of case ``name`` at about ``size`` bytes (with its format's head)."""
    fmt, make = CASES[name]
    body = make(size)
    if body.startswith("---\n"):
        return body
    return (BM_HEAD if fmt == BM else AW_HEAD) + body
