"""Every reader and linter does work linear in its input, for the worst inputs we know.

The cases are :mod:`tests.hostile.worst`: the Basic Memory grammar (one line
of 100,000 ``> ``, list markers, brackets, ``[[`` without ``]]``, backticks,
emphasis runs, parentheses, tags), the Markdown block scan (every block kind
nested as deep as the size allows), YAML frontmatter and the aiwiki lint rules.
Each goes through the public ``sessionkit.loads`` and ``sessionkit.lint`` at
10 KB and 100 KB; under the ``stress`` marker (``nox -s stress``), ``lint`` once
more at 1 MB where that is cheap (100 KB in under :data:`CHEAP_100KB` of CPU:
the one-line inputs, where a quadratic scan hides best); ``benchmarks/linear.py``
runs every case at 1 MB.

No absolute timing: the test compares the CPU time of one size with the next
inside one run (best of a few, garbage collector off), and asks that ten
times the input costs at most :data:`FACTOR` times the work, plus a little for
the fixed part.  Linear work grows about 10x, quadratic 100x.  (A step may
legitimately cost more than 10x where a memo stops fitting, so the factor is
generous.)  A case already quadratic at 100 KB fails before its 1 MB run,
which would take minutes.  The times themselves are printed by
``benchmarks/linear.py``.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from typing import Any

import pytest

import sessionkit
from tests.hostile.worst import CASES, note

#: the most ten times the input may cost, in CPU time (linear: about 10; quadratic: 100)
FACTOR = 45.0
#: seconds of slack for the fixed part of a call at the smaller size
SLACK = (0.004, 0.03)
#: a 100 KB input taking longer than this is not linear on any machine we run on
GIVE_UP = 3.0
#: the stress 1 MB lint runs when the 100 KB one took less CPU than this (the benchmark
#: times every case at 1 MB)
CHEAP_100KB = 0.03


def _cpu(fn: Callable[..., Any], text: str, fmt: str, runs: int) -> float:
    """Best CPU time of ``runs`` calls (garbage collector off meanwhile; no full collection
    before: in a worker that ran other tests it costs more than the calls timed)."""
    best = float("inf")
    for _ in range(runs):
        gc.disable()
        start = time.process_time()
        try:
            fn(text, path="x.md", format=fmt)
        except sessionkit.SessionKitError:
            pass  # a clean refusal is work done too
        finally:
            took = time.process_time() - start
            gc.enable()
        best = min(best, took)
    return best


def _grows_linearly(small: float, big: float, slack: float) -> bool:
    return big <= FACTOR * small + slack


def _warm(name: str, fmt: str) -> None:
    # warm the compiled patterns on a smaller note of the same shape, and time each size on
    # its first call: a memo that holds the whole 10 KB note but not the 100 KB one (the YAML
    # line memo) would otherwise make the small size look free and the step look quadratic
    sessionkit.lint(note(name, 1_000), path="x.md", format=fmt)


@pytest.mark.parametrize("name", list(CASES))
def test_work_grows_linearly_to_100_kb(name: str) -> None:
    fmt = CASES[name][0]
    texts = {size: note(name, size) for size in (10_000, 100_000)}
    _warm(name, fmt)
    for label, fn in (("loads", sessionkit.loads), ("lint", sessionkit.lint)):
        small = _cpu(fn, texts[10_000], fmt, runs=1)
        big = _cpu(fn, texts[100_000], fmt, runs=1)
        assert big < GIVE_UP, f"{name}: {label} of 100 KB took {big:.2f} s CPU"
        assert _grows_linearly(small, big, SLACK[0]), (
            f"{name}: {label} 10 KB {small * 1000:.2f} ms -> 100 KB {big * 1000:.2f} ms"
        )


@pytest.mark.stress
@pytest.mark.parametrize("name", list(CASES))
def test_lint_work_grows_linearly_to_1_mb(name: str) -> None:
    """The next step, 100 KB -> 1 MB, where the 100 KB lint is cheap (stress only: the
    10 KB -> 100 KB step above already tells linear from quadratic by the same ratio)."""
    fmt = CASES[name][0]
    _warm(name, fmt)
    big = _cpu(sessionkit.lint, note(name, 100_000), fmt, runs=1)
    if big >= CHEAP_100KB:
        pytest.skip(f"lint of 100 KB took {big * 1000:.0f} ms CPU; the benchmark times 1 MB")
    huge = _cpu(sessionkit.lint, note(name, 1_000_000), fmt, runs=1)
    assert _grows_linearly(big, huge, SLACK[1]), (
        f"{name}: lint 100 KB {big * 1000:.2f} ms -> 1 MB {huge * 1000:.2f} ms"
    )


def test_the_cases_are_the_sizes_they_say() -> None:
    """Each case makes a note of about the size asked for (so the ratios mean something)."""
    for name in CASES:
        for size in (10_000, 100_000):
            got = len(note(name, size).encode())
            assert size * 0.5 <= got <= size * 2 + 200, (name, size, got)


# -- the hooks on a Basic Memory note of one long line of '> ' ----------------------------

SID = "7e8a3f21-9a4b-4c8d-b1e2-f5a6c7d8e9f0"


def _hook_cpu(event: str, project: Any, size: int) -> float:
    import io
    import json

    from sessionkit import hooks

    note_text = (
        "---\ntitle: Session\ntype: session\nstatus: open\n"
        f"claude_session_id: {SID}\n---\n\n" + "> " * (size // 2) + "\n"
    )
    best = float("inf")
    for _ in range(2):
        (project / "sessions" / "session.md").write_text(note_text, encoding="utf-8")
        stdin = io.BytesIO(json.dumps({"session_id": SID, "cwd": str(project)}).encode())
        start = time.process_time()
        assert hooks.main([event, "--store", f"bm://{project}"], stdin=stdin) == 0
        best = min(best, time.process_time() - start)
    return best


@pytest.mark.parametrize("event", ["session-start", "pre-compact"])
def test_hooks_on_one_long_quote_line_grow_linearly(
    event: str, tmp_path: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Regression (#22): 200 KB of '> ' took session-start 36 s and pre-compact 120 s."""
    monkeypatch.setenv("SESSIONKIT_HOOK_DEADLINE_MS", "600000")  # the work, not the deadline
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    project = tmp_path / "project"
    (project / "sessions").mkdir(parents=True)
    (project / ".basic-memory").mkdir()
    small = _hook_cpu(event, project, 20_000)
    big = _hook_cpu(event, project, 200_000)
    out, err = capsys.readouterr()
    assert "deadline" not in err and "failed" not in err, err
    if event == "session-start":
        assert "Latest session note" in out
    else:
        assert "PreCompact at" in (project / "sessions" / "session.md").read_text("utf-8")
    assert _grows_linearly(small, big, 0.05), (event, small, big)


# -- edits: add and directive consume on big pages (#46) ----------------------------------
#
# Counted, not timed: how many documents the writer builds (each one a copy of the page)
# and how many element pairs difflib is given to match (quadratic in what it is given)
# must not grow with the page.  Before #46 `add` on 8,000 equal bullets gave difflib
# 8,000 x 8,001 pairs, and `directive consume --all` built two documents a directive.

_HEAD = (
    "---\nschema_id: session\nschema_version: 2\nstatus: active\ndate_start: 2026-05-18\n"
    'session_id: "7e8a3f21-9a4b-4c8d-b1e2-f5a6c7d8e9f0"\nfocus: x\n---\n\n'
)


def _bullets(n: int) -> str:
    return _HEAD + "## Next steps\n\n" + "- same item\n" * n


def _directives(n: int) -> str:
    one = (
        "### PreCompact at 2026-05-18T11:47:{s:02d}Z\n\n**Dream directive (unconsumed):**\n\n"
        "- Scope: x\n- Trigger: pre-compact\n- Action: invoke dream\n- Status: unconsumed\n\n"
        "---\n\n"
    )
    return _HEAD + "## Checkpoints\n\n" + "".join(one.format(s=i % 60) for i in range(n))


def _counted_edit(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch, text: str, args: list[str]
) -> tuple[int, int, str]:
    """(documents built, pairs difflib matched, the page after) of one CLI edit."""
    import difflib
    import os

    from click.testing import CliRunner

    from sessionkit.cli import cli
    from sessionkit.document import Document

    repo = tmp_path / f"r{len(text)}"
    (repo / ".git").mkdir(parents=True)
    page = repo / "aiwiki" / "sessions" / "2026-05-18-7e8a3f2.md"
    page.parent.mkdir(parents=True)
    page.write_text(text, encoding="utf-8")
    counts = {"docs": 0, "pairs": 0}
    real_init = Document.__init__
    real_seqs = difflib.SequenceMatcher.set_seqs

    def init(self: Any, *a: Any, **k: Any) -> None:
        counts["docs"] += 1
        real_init(self, *a, **k)

    def set_seqs(self: Any, a: Any, b: Any) -> None:
        counts["pairs"] += len(a) * len(b)
        real_seqs(self, a, b)

    monkeypatch.setattr(Document, "__init__", init)
    monkeypatch.setattr(difflib.SequenceMatcher, "set_seqs", set_seqs)
    monkeypatch.chdir(repo)
    for name in [k for k in os.environ if k.startswith("SESSIONKIT_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "home"))
    result = CliRunner().invoke(cli, args)
    monkeypatch.undo()
    assert result.exit_code == 0, (result.output, result.exception)
    return counts["docs"], counts["pairs"], page.read_text("utf-8")


def test_add_to_a_long_list_of_equal_items_does_work_independent_of_its_length(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    small = _counted_edit(tmp_path, monkeypatch, _bullets(50), ["add", "next-step", "hello"])
    big = _counted_edit(tmp_path, monkeypatch, _bullets(8000), ["add", "next-step", "hello"])
    assert big[2] == _bullets(8000) + "- hello\n"  # (the one line added, nothing else)
    assert big[0] == small[0], (small[:2], big[:2])
    assert big[1] <= max(small[1], 16), (small[:2], big[:2])


def test_consume_all_builds_the_page_once_whatever_the_number_of_directives(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    args = ["directive", "consume", "--all"]
    small = _counted_edit(tmp_path, monkeypatch, _directives(5), args)
    big = _counted_edit(tmp_path, monkeypatch, _directives(2000), args)
    assert big[2].count("(consumed at ") == 2000 and "(unconsumed)" not in big[2]
    assert big[0] == small[0], (small[:2], big[:2])
