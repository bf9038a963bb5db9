"""The block tokenizer's work grows linearly with its input.

For the worst cases of each construct (deep quotes and lists, a 1 MB line of
``> > >``, long runs of backticks and brackets, unclosed fences and HTML,
lazy continuation, wide tables) the tokenizer's work counter
(:func:`sessionkit.markdown.steps`, line visits) and the number of blocks are
measured at 10 KB, 100 KB and 1 MB: each step up of ten in size may cost at
most a step up of ten in work (with slack for the constant part).  No timing.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

import pytest

from sessionkit import markdown
from sessionkit.document import split_lines


def _repeat(unit: str) -> Callable[[int], str]:
    return lambda size: unit * max(1, size // len(unit))


#: the constructs a naive block scanner re-reads per nesting level or per line,
#: measured up to 1 MB
CASES: dict[str, Callable[[int], str]] = {
    "one line of '> '": lambda size: "> " * (size // 2) + "x\n",
    "lines of deep quotes": _repeat("> " * 30 + "x\n"),
    "deep quotes, lazy lines": lambda size: "> " * 30 + "x\n" + _repeat("lazy\n")(size),
    "deep lists": _repeat("".join("  " * k + "- x\n" for k in range(25))),
    "one line of '- + * 1. '": lambda size: "- + * 1. " * (size // 9) + "x\n",
    "backtick run": lambda size: "`" * size + "\n",
    "unclosed fence of fence-like lines": lambda size: "````\n" + _repeat("```\n")(size),
    "bracket run": lambda size: "[" * size + "\n",
    "unclosed comment": lambda size: "<!--\n" + _repeat("x\n")(size),
    "wide table": lambda size: "| a " * (size // 8) + "|\n" + "|---" * (size // 8) + "|\n",
    "tabs": _repeat("\t-\t>\tx\n"),
}

#: pages of many small blocks: linear too, measured up to 100 KB here (their
#: 1 MB figures are in ``benchmarks/``; a block costs some microseconds)
MANY_BLOCKS: dict[str, Callable[[int], str]] = {
    "fence lines": _repeat("```\n"),
    "bracket lines": _repeat("[a\n"),
    "references": _repeat("[a]: /u\n"),
    "html lines": _repeat("<div>\n"),
    "table rows": lambda size: "| a | b |\n|---|---|\n" + _repeat("| 1 | 2 |\n")(size),
    "items with lazy lines": _repeat("- a\nlazy\n"),
    "numbered items, nested": _repeat("1. a\n   - b\n     1. c\n"),
    "setext candidates": _repeat("a\n-\n"),
}


def _work(text: str) -> int:
    lines = split_lines(text)
    before = markdown.steps()
    blocks = markdown.tokenize(lines)
    count = sum(1 for _ in markdown.walk(blocks))
    return markdown.steps() - before + count + len(lines)


def _linear(work: list[int]) -> bool:
    return all(b <= 12 * a + 100 for a, b in itertools.pairwise(work))


@pytest.mark.parametrize("name", sorted(CASES))
def test_work_grows_linearly_up_to_1_mb(name: str) -> None:
    make = CASES[name]
    work = [_work(make(size)) for size in (10_000, 100_000, 1_000_000)]
    assert _linear(work), (name, work)


@pytest.mark.parametrize("name", sorted(MANY_BLOCKS))
def test_work_grows_linearly_with_many_blocks(name: str) -> None:
    make = MANY_BLOCKS[name]
    work = [_work(make(size)) for size in (1_000, 10_000, 100_000)]
    assert _linear(work), (name, work)
