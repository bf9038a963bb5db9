"""One fast lane can be turned off alone (``SESSIONKIT_FAST_PATHS=-lane,-lane``).

``benchmarks/lanes.py`` times each command with one lane off to see what that
lane saves; these tests check that the switch turns off the lane named, and
only it, through the public seams: ``fastpaths.enabled``, ``taken()`` and the
findings or texts the commands give (the same either way).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest

import sessionkit
from sessionkit.fastpaths import LANES, enabled, general_paths, lanes_off, taken
from sessionkit.ops.convert import convert_text

REPO = Path(__file__).resolve().parent.parent
PAGE = REPO / "examples" / "wiki" / "aiwiki" / "sessions" / "2026-05-18-7e8a3f2.md"


def _lint(text: str, path: str = str(PAGE)) -> tuple[list[sessionkit.Diagnostic], dict[str, int]]:
    before = taken()
    found = sessionkit.lint(text, path)
    after = taken()
    return found, {lane: after[lane] - before[lane] for lane in LANES}


def test_one_lane_off_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    text = PAGE.read_text("utf-8")
    found, counts = _lint(text)
    assert counts["quick-lint"] == 1
    monkeypatch.setenv("SESSIONKIT_FAST_PATHS", "-quick-lint")
    assert not enabled("quick-lint")
    assert enabled("headings") and enabled("flat-leaves") and enabled()
    off_found, off_counts = _lint(text)
    assert off_found == found
    assert off_counts["quick-lint"] == 0
    # the general path ran with the other lanes on (its frontmatter and blocks)
    assert off_counts["flat-frontmatter"] == 1
    assert off_counts["flat-leaves"] > 0


@pytest.mark.parametrize(
    ("value", "off"),
    [
        ("-quick-lint,-same-note", {"quick-lint", "same-note"}),
        (" -Quick-Lint , -same-note ", {"quick-lint", "same-note"}),
        ("-no-such-lane", set()),
        ("quick-lint", set()),  # (a name without its "-" turns nothing off)
        ("1", set()),
        ("", set()),
        ("off", set(LANES)),
        ("0", set(LANES)),
    ],
)
def test_what_the_variable_turns_off(
    value: str, off: set[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SESSIONKIT_FAST_PATHS", value)
    assert {lane for lane in LANES if not enabled(lane)} == off
    assert lanes_off() == off  # (what a caller asking about several lanes at once sees)
    assert enabled() is (off != set(LANES))
    monkeypatch.delenv("SESSIONKIT_FAST_PATHS")
    assert all(enabled(lane) for lane in LANES)
    assert not lanes_off()
    with general_paths():
        assert not any(enabled(lane) for lane in LANES)
        assert lanes_off() == set(LANES)


def test_a_conversion_lane_off_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    """A conversion with its check's shortcut (facts compared by value) off gives the
    same note and does not take the shortcut, while the other lanes still answer."""
    text = PAGE.read_text("utf-8")
    before = taken()
    want = convert_text(text, "basic-memory", path=str(PAGE))
    assert taken()["same-facts"] > before["same-facts"]
    monkeypatch.setenv("SESSIONKIT_FAST_PATHS", "-same-facts")
    before = taken()
    assert convert_text(text, "basic-memory", path=str(PAGE)) == want
    after = taken()
    assert after["same-facts"] == before["same-facts"]
    assert after["bm-lists-first"] > before["bm-lists-first"]


@pytest.mark.parametrize("off", ["clean-verdict", "verdict-findings"])
def test_the_verdicts_two_lanes_apart(off: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The clean-page verdict and the verdict with findings each turn off alone: the
    pages of that kind go by their facts (the same findings), the others still take
    the verdict."""
    sys.path.insert(0, str(REPO / "benchmarks"))
    from _corpus import cli_page

    (name, clean), (_, finding) = (cli_page(kind, 0) for kind in ("clean", "finding"))
    pages = [(data.decode("utf-8"), f"aiwiki/sessions/{name}") for data in (clean, finding)]
    want = [_lint(*page)[0] for page in pages]
    assert want[0] == [] and [d.code for d in want[1]] == ["AW012"]
    monkeypatch.setenv("SESSIONKIT_FAST_PATHS", f"-{off}")
    (found_clean, counts_clean), (found_finding, counts_finding) = (_lint(*p) for p in pages)
    assert [found_clean, found_finding] == want
    assert counts_clean["clean-verdict"] == (off != "clean-verdict")
    assert counts_finding["verdict-findings"] == (off != "verdict-findings")
    assert counts_clean["quick-lint"] == counts_finding["quick-lint"] == 1


def _loads() -> object:
    from sessionkit.serialize import to_json

    return to_json(sessionkit.loads(PAGE.read_text("utf-8"), str(PAGE)))


def _lint_v1() -> object:
    v1 = REPO / "examples" / "wiki" / "aiwiki" / "sessions" / "2026-04-28-e19b2c4.md"
    return sessionkit.lint(v1.read_text("utf-8"), str(v1))


def _convert_bm(tmp: Path) -> object:
    out = tmp / f"out-{len(list(tmp.iterdir()))}"
    report = sessionkit.convert(REPO / "examples" / "bm-project", out, jobs=1)
    return report.to_dict()["ok"], sorted(
        (str(p.relative_to(out)), p.read_bytes()) for p in out.rglob("*.md")
    )


def _session_start(tmp: Path) -> object:
    import contextlib
    import io
    import json
    import shutil

    from sessionkit.hooks import main
    from tests.hook_env import isolated

    root = tmp / "wiki"
    if not root.exists():
        shutil.copytree(REPO / "examples" / "wiki", root)
    out = io.StringIO()
    payload = json.dumps({"cwd": str(root), "source": "startup"}).encode()
    switch = os.environ.get("SESSIONKIT_FAST_PATHS")  # (isolated() clears SESSIONKIT_*)
    with isolated(tmp), contextlib.redirect_stdout(out):
        if switch is not None:
            os.environ["SESSIONKIT_FAST_PATHS"] = switch
        code = main(["session-start"], stdin=io.BytesIO(payload))
    return code, out.getvalue()


@pytest.mark.parametrize(
    ("lane", "work"),
    [
        ("quick-citation", lambda tmp: _loads()),
        ("clean-keys", lambda tmp: _lint_v1()),
        ("session-meta", _convert_bm),
        ("hook-root", _session_start),
    ],
)
def test_the_shortcuts_named_as_lanes(
    lane: str, work: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each shortcut has a lane of its own: it answers in the work it is for, and that
    work gives the same result with it off alone (and then it does not answer)."""
    before = taken()[lane]
    want = work(tmp_path)
    assert taken()[lane] > before
    monkeypatch.setenv("SESSIONKIT_FAST_PATHS", f"-{lane}")
    before = taken()[lane]
    assert work(tmp_path) == want
    assert taken()[lane] == before
