"""The session-start context: a hard budget, most important first, one "left out" line.

Renders real stores (aiwiki and Basic Memory, written through the lifecycle
operations the hooks use) and generated sessions; checks the budget is never
exceeded, the directive count and the closing instruction are always there,
and the last line names what was left out and the command that shows it.
"""

from __future__ import annotations

import datetime as dt
import io
import json
import shutil
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sessionkit import context
from sessionkit.backends import open_store
from sessionkit.hooks import main as hook
from sessionkit.model import Checkpoint, Directive, DirectiveState, Session
from sessionkit.ops import lifecycle
from sessionkit.ops.lifecycle import directives_of
from tests import strategies as sst
from tests.budget import examples

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "wiki"
T0 = dt.datetime(2026, 5, 20, 9, 0, tzinfo=dt.UTC)
LEFT_OUT = "[Left out to fit "


def _wiki(tmp_path: Path) -> Path:
    root = tmp_path / "wiki"
    shutil.copytree(EXAMPLE, root)
    return root


def _long_session(store: Any, directives: int, steps: int = 40) -> None:
    """Hundreds of checkpoints (each with a directive), long next steps and questions."""
    payload = {"session_id": "7e8a3f21-9a4b-4c8d-b1e2-f5a6c7d8e9f0", "trigger": "auto"}
    with store.batch():
        for i in range(directives):
            spec = lifecycle.DirectiveSpec(action=f"re-read plan part {i % 7} " + "x" * 60)
            lifecycle.record_checkpoint(
                store, payload, directive=spec, now=T0 + dt.timedelta(minutes=i)
            )
    for i in range(steps):
        lifecycle.add_item(store, "next-step", f"step {i}: " + "move the readings " * 8)
        lifecycle.add_item(store, "question", f"question {i}: " + "why is it slow " * 8)


@pytest.fixture(scope="session")
def long_wiki(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example wiki with a session of 120 directives and 40 long next steps and
    questions recorded in it (built once a process; tests take a copy)."""
    root = _wiki(tmp_path_factory.mktemp("context"))
    _long_session(open_store(str(root), layout="aiwiki"), 120)
    return root


def _copy(root: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(root, tmp_path / "wiki"))


def _hook_context(root: Path, payload: dict[str, Any], *extra: str) -> str:
    out = io.StringIO()
    data = json.dumps({**payload, "cwd": str(root)}).encode()
    with redirect_stdout(out):
        assert hook(["session-start", "--store", str(root), *extra], stdin=io.BytesIO(data)) == 0
    return str(json.loads(out.getvalue())["hookSpecificOutput"]["additionalContext"])


def test_a_small_note_renders_whole_with_no_left_out_line(tmp_path: Path) -> None:
    store = open_store(str(_wiki(tmp_path)), layout="aiwiki")
    got = context.for_store(store)
    assert got is not None and got.complete
    assert LEFT_OUT not in got.text
    lines = got.text.splitlines()
    assert lines[0].startswith("Latest session note 2026-05-18-7e8a3f2.md: 2026-05-18")
    assert lines[1] == "Unconsumed directives (1) - act on them before other work:"
    assert lines[2].startswith("[2] Dream directive (from checkpoint at 2026-05-18T14:23:00Z)")
    assert lines[3].startswith("When done, mark them consumed: sessionkit directive consume")
    assert lines[4:] == [
        "Next steps:",
        "- Finish `PostgresStore.readings_between()` and its tests",
        "- Run the 90-day backfill against Postgres",
        "Open questions:",
        "- Keep SQLite for tests only, or as a supported store? [[adr-0003-sqlite-first]]",
    ]
    assert got.size == len(got.text) and (got.unconsumed, got.shown) == (1, 1)


def test_over_a_hundred_directives_fit_the_hook_budget_directives_first(
    tmp_path: Path, long_wiki: Path
) -> None:
    root = _copy(long_wiki, tmp_path)
    store = open_store(str(root), layout="aiwiki")
    full = context.for_store(store, budget=0)
    assert full is not None and full.size > 20_000 and full.unconsumed == 121
    for source in ("startup", "resume", "clear", "compact"):
        text = _hook_context(root, {"hook_event_name": "SessionStart", "source": source})
        assert len(text) <= context.DEFAULT_BUDGET
        lines = text.splitlines()
        assert lines[1] == "Unconsumed directives (121) - act on them before other work:"
        consume = next(i for i, line in enumerate(lines) if line.startswith("When done, mark"))
        assert all(line.startswith("[") for line in lines[2:consume])  # directives right away
        last = lines[-1]
        assert last.startswith(LEFT_OUT) and last.endswith("]")
        assert f"--store {root}" in last and "sessionkit context --budget 0" in last
        assert ("--source compact" in last) == (source == "compact")
        assert ("Checkpoint just recorded: PreCompact at" in text) == (source == "compact")
    # the repeated actions fold into one line per distinct action, oldest first
    text = _hook_context(root, {"source": "startup"})
    assert "Dream directive ×18" in text and "re-read plan part 0" in text
    assert text.index("re-read plan part 0") < text.index("re-read plan part 6")


def test_the_command_shows_what_the_hook_left_out(tmp_path: Path, long_wiki: Path) -> None:
    root = _copy(long_wiki, tmp_path)
    from sessionkit.cli import cli

    runner = CliRunner()
    cut = runner.invoke(cli, ["context", "--store", str(root), "--budget", "2000", "--json"])
    assert cut.exit_code == 0, cut.output
    data = json.loads(cut.output)
    assert data["size"] <= 2000 and not data["complete"] and data["left_out"]["next_steps"] > 0
    assert data["shown"] == data["unconsumed"] == 121  # folded: 8 lines name them all
    assert data["text"].splitlines()[-1].startswith(LEFT_OUT)
    whole = runner.invoke(cli, ["context", "--store", str(root), "--budget", "0"])
    assert whole.exit_code == 0 and LEFT_OUT not in whole.output
    assert whole.output.count("Dream directive") == 121  # one line each when nothing is cut
    assert "step 39: move the readings" in whole.output
    # the hook and the command give the same text for the same budget
    hooked = _hook_context(root, {"source": "resume"})
    shown = runner.invoke(cli, ["context", "--store", str(root), "--source", "resume"])
    assert hooked.splitlines()[:-1] == shown.output.rstrip("\n").splitlines()[:-1]
    bad = runner.invoke(cli, ["context", "--store", str(root), "--budget", "10"])
    assert bad.exit_code == 2 and "at least 1000 chars" in bad.output


def test_tokens_budget_and_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _wiki(tmp_path)
    store = open_store(str(root), layout="aiwiki")
    _long_session(store, 80, steps=5)
    (root / ".sessionkit.toml").write_text(
        '[hooks]\ncontext_budget = 700\ncontext_unit = "tokens"\n', encoding="utf-8"
    )
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    text = _hook_context(root, {"source": "startup"})
    assert context.measure(text, "tokens") <= 700 < context.measure(text + "x" * 400, "tokens")
    assert "Left out to fit 700 tokens" in text.splitlines()[-1]


def test_basic_memory_store_context_has_its_directives(tmp_path: Path) -> None:
    project = tmp_path / "bm"
    (project / "sessions").mkdir(parents=True)
    store = open_store(f"bm:///{project}", layout="basic-memory")
    payload = {"session_id": "abc-123", "trigger": "manual"}
    with store.batch():  # (one lock for the lot: the context is under test, not the lock)
        for i in range(60):
            lifecycle.record_checkpoint(
                store,
                payload,
                directive=lifecycle.DirectiveSpec(action=f"check item {i}"),
                now=T0 + dt.timedelta(minutes=i),
            )
    got = context.for_store(store, source="compact", budget=1500)
    assert got is not None and got.size <= 1500 and got.unconsumed == 60
    assert "Unconsumed directives (60)" in got.text and "check item 0" in got.text
    assert "Checkpoint just recorded: PreCompact at 2026-05-20T09:59:00Z" in got.text
    assert got.text.splitlines()[-1].startswith(LEFT_OUT)


def test_one_huge_item_is_clipped_not_dropped() -> None:
    huge = Directive(items=("Action: " + "very long " * 3000,))
    session = Session(
        focus="f" * 5000, checkpoints=(Checkpoint(event="PreCompact", at="t", directives=(huge,)),)
    )
    got = context.render("k.md", session, directives_of(session), budget=1000)
    assert got.size <= 1000 and got.shown == 1 and got.left_out_size > 0
    assert "[1] Dream directive (from checkpoint at t): very long" in got.text
    assert got.text.splitlines()[-1].startswith(LEFT_OUT + "1,000 characters: parts of long")


def test_budget_rules() -> None:
    assert context.check_budget(0) is None and context.check_budget(1000) is None
    assert context.check_budget(999) is not None and context.check_budget(349, "tokens")
    assert context.check_budget(9000, "words") is not None
    with pytest.raises(ValueError, match="at least 1000"):
        context.render("k.md", Session(), [], budget=10)
    assert context.measure("abcd", "tokens") == 2 and context.measure("日本", "tokens") == 2


def _numbered(session: Session) -> list[Any]:
    return directives_of(session)


long_text = st.text(min_size=0, max_size=400) | st.builds(
    lambda w, n: w * n, sst.words(12), st.integers(1, 300)
)


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    session=sst.sessions(
        focus=st.none() | long_text,
        next_steps=st.lists(long_text, max_size=30).map(tuple),
        questions=st.lists(long_text, max_size=30).map(tuple),
        checkpoints=st.lists(
            sst.checkpoints(
                body=long_text,
                directives=st.lists(
                    sst.directives(
                        state=st.just(DirectiveState.UNCONSUMED) | st.sampled_from(DirectiveState),
                        items=st.lists(long_text.map(lambda t: "Action: " + t), max_size=2).map(
                            tuple
                        ),
                    ),
                    max_size=8,
                ).map(tuple),
            ),
            max_size=15,
        ).map(tuple),
    ),
    key=st.text(min_size=1, max_size=300),
    source=st.sampled_from([*context.SOURCES, "other"]),
    unit=st.sampled_from(context.UNITS),
    budget=st.integers(1000, 12_000),
    rest=st.none() | st.text(max_size=400),
)
def test_never_over_budget_and_the_count_and_left_out_line_survive(
    session: Session, key: str, source: str, unit: str, budget: int, rest: str | None
) -> None:
    directives = _numbered(session)
    got = context.render(
        key, session, directives, source=source, budget=budget, unit=unit, rest=rest
    )
    assert got.size == context.measure(got.text, unit) <= budget
    whole = context.render(key, session, directives, source=source, budget=0, unit=unit)
    unconsumed = sum(1 for d in directives if str(d.state) == "unconsumed")
    lines = got.text.split("\n")
    if whole.size <= budget:
        assert got.text == whole.text and got.complete and LEFT_OUT not in lines[-1]
        return
    assert lines[0].startswith("Latest session note ")
    if got.complete:  # folding identical directives made it fit
        assert LEFT_OUT not in lines[-1] and got.shown == unconsumed
    else:
        assert lines[-1].startswith(LEFT_OUT) and "All of it: " in lines[-1]
        assert lines[-1].count("\n") == 0 and sum(LEFT_OUT in line for line in lines) == 1
    if unconsumed:
        assert lines[1] == f"Unconsumed directives ({unconsumed}) - act on them before other work:"
        assert any(line.startswith("When done, mark them consumed") for line in lines)
    # what is shown is a prefix of each part: the first directive shown is the oldest
    if got.shown:
        first = next(d for d in directives if str(d.state) == "unconsumed")
        assert lines[2].startswith(f"[{first.index}")
