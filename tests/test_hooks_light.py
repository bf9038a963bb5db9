"""The hooks' light lanes give what the general paths give.

* ``session-start`` on a local aiwiki folder: one listing of the folder and the
  light page reader (:func:`sessionkit.adapters.aiwiki_page.read_parts`)
  instead of the store and the model (lane ``session-start``);
* the user configuration file found without platformdirs.

Each is checked against its general path through :mod:`sessionkit._fastpaths`
(the pre-compact lane has its own file, ``tests/ops/test_checkpoint_lane.py``).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import sessionkit
from sessionkit.adapters.aiwiki_page import read_page, read_parts
from sessionkit.context import render
from sessionkit.document import parse
from sessionkit.hooks import main, read_payload
from sessionkit.model import Session
from sessionkit.ops.lifecycle import directives_of
from tests import lanes as fastpaths
from tests.adapters._aiwiki_helpers import CORPUS_V1, CORPUS_V2, sessions
from tests.hook_env import isolated

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples" / "wiki" / "aiwiki" / "sessions"


def _start(root: Path, *args: str, source: str = "startup") -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    payload = json.dumps({"cwd": str(root), "source": source}).encode()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["session-start", *args], stdin=io.BytesIO(payload))
    return code, out.getvalue(), err.getvalue()


def both_ways(root: Path, *args: str, source: str = "startup") -> tuple[str, bool]:
    """session-start with the lanes on and off: the same reply; (reply, lane answered)."""
    with isolated(root.parent):
        before = fastpaths.taken()["session-start"]
        fast = _start(root, *args, source=source)
        taken = fastpaths.taken()["session-start"] - before
        with fastpaths.general_paths():
            general = _start(root, *args, source=source)
        assert fastpaths.taken()["session-start"] - before == taken
    assert fast == general
    return fast[1], taken == 1


def _folder(tmp: Path) -> Path:
    folder = tmp / "wiki" / "aiwiki" / "sessions"
    folder.mkdir(parents=True)
    (tmp / "wiki" / ".git").mkdir()
    return folder


# -- session-start: which note ---------------------------------------------------------------


def test_the_newest_dated_note_among_undated_names_above_it(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    page = (EXAMPLES / "2026-05-18-7e8a3f2.md").read_bytes()
    older = next(p for p in sorted(EXAMPLES.glob("2026-*.md")) if p.name < "2026-05-18")
    for name in ("2026-05-18-7e8a3f2.md", "2026-05-18.md"):
        (folder / name).write_bytes(page)
    (folder / older.name).write_bytes(older.read_bytes())
    # names that sort above every date but hold none, a dotfile, a temp file, the index
    for name in ("INDEX.md", "README", "notes.md", "zz.md", ".hidden.md", "2026-05-19x.md"):
        (folder / name).write_bytes(page)
    (folder / ".2027-01-01-aaaaaaa.md.0123456789ab.tmp").write_bytes(page)
    os.utime(folder / "2026-05-18.md", (1_000_000_000, 1_000_000_000))
    out, taken = both_ways(tmp_path / "wiki", "--plain")
    assert taken and out.startswith("Latest session note 2026-05-18-7e8a3f2.md")
    # the same date: the newest modification time
    os.utime(folder / "2026-05-18.md", (2_000_000_000, 2_000_000_000))
    out, taken = both_ways(tmp_path / "wiki", "--plain")
    assert taken and out.startswith("Latest session note 2026-05-18.md")


def test_many_undated_names_above_the_dates(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    page = (EXAMPLES / "2026-05-18-7e8a3f2.md").read_bytes()
    for i in range(30):
        (folder / f"notes-{i:02d}.md").write_bytes(page)
    (folder / "2026-01-02-abcdef0.md").write_bytes(page)
    out, taken = both_ways(tmp_path / "wiki", "--plain")
    assert taken and out.startswith("Latest session note 2026-01-02-abcdef0.md")


def test_only_undated_notes(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    page = (EXAMPLES / "2026-05-18-7e8a3f2.md").read_bytes()
    for i, name in enumerate(("a.md", "b.md", "INDEX.md", ".c.md")):
        (folder / name).write_bytes(page)
        os.utime(folder / name, (1_000_000_000 + i, 1_000_000_000 + i))
    out, taken = both_ways(tmp_path / "wiki", "--plain")
    assert taken and out.startswith("Latest session note b.md")


@pytest.mark.parametrize("shape", ["folder", "symlink", "empty", "none"])
def test_other_folder_shapes(tmp_path: Path, shape: str) -> None:
    folder = _folder(tmp_path)
    page = (EXAMPLES / "2026-05-18-7e8a3f2.md").read_bytes()
    (folder / "2026-05-18-7e8a3f2.md").write_bytes(page)
    if shape == "folder":  # a newer note in a subfolder: the store's walk finds it
        (folder / "archive").mkdir()
        (folder / "archive" / "2026-06-01-abcdef0.md").write_bytes(page)
    elif shape == "symlink":
        (folder / "2026-07-01-abcdef0.md").symlink_to(folder / "2026-05-18-7e8a3f2.md")
    elif shape == "empty":
        (folder / "2026-05-18-7e8a3f2.md").unlink()
    else:
        shutil.rmtree(folder)
    out, taken = both_ways(tmp_path / "wiki", "--plain")
    assert taken is (shape in ("empty", "none"))
    if shape == "folder":
        assert out.startswith("Latest session note archive/2026-06-01-abcdef0.md")
    if shape in ("empty", "none"):
        assert out == ""


@pytest.mark.parametrize("source", ["startup", "compact", "resume"])
@pytest.mark.parametrize("args", [(), ("--plain",), ("--json",)])
def test_the_example_wiki_both_ways(tmp_path: Path, source: str, args: tuple[str, ...]) -> None:
    shutil.copytree(ROOT / "examples" / "wiki", tmp_path / "wiki")
    out, taken = both_ways(tmp_path / "wiki", *args, source=source)
    assert taken and "Dream directive" in out


# -- session-start: what the light reader gives -----------------------------------------------


def _context(key: str, session: object, directives: list[object], source: str) -> str:
    return render(key, session, directives, source=source, budget=1000).text


class _Numbered:
    def __init__(self, index: int, cp: object, d: object) -> None:
        self.index, self.kind, self.action = index, d.kind, d.action  # type: ignore[attr-defined]
        self.state, self.checkpoint_at = d.state, cp.at  # type: ignore[attr-defined]


def _numbered(page: object) -> list[object]:
    """The page's directives numbered over the whole note (as the hook numbers them)."""
    found = [(cp, d) for cp in page.checkpoints for d in cp.directives]  # type: ignore[attr-defined]
    return [_Numbered(n, cp, d) for n, (cp, d) in enumerate(found, 1)]


@pytest.mark.parametrize("path", [*CORPUS_V2, *CORPUS_V1], ids=lambda p: p.name)
def test_corpus_pages_render_the_same_context(path: Path) -> None:
    text = path.read_bytes().decode("utf-8")
    doc = parse(text, path.name)
    try:
        session, layout = read_page(doc)
    except sessionkit.SessionKitError as exc:
        with pytest.raises(type(exc)):
            read_parts(parse(text, path.name))
        return
    parts, light_layout = read_parts(parse(text, path.name))
    assert light_layout == layout  # the same reader: the same parts, in the same places
    for source in ("startup", "compact"):
        assert _context(path.name, parts, _numbered(parts), source) == _context(
            path.name, session, list(directives_of(session)), source
        )


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(session=sessions(version=2), source=st.sampled_from(["startup", "compact"]))
def test_generated_pages_render_the_same_context(session: Session, source: str) -> None:
    text = sessionkit.dumps(session, format="aiwiki-v2")
    model, layout = read_page(parse(text))
    parts, light_layout = read_parts(parse(text))
    assert light_layout == layout
    assert [cp.at for cp in parts.checkpoints] == [cp.at for cp in model.checkpoints]
    assert (parts.next_steps, parts.questions, str(parts.status)) == (
        model.next_steps,
        model.questions,
        str(model.status),
    )
    assert _context("k.md", parts, _numbered(parts), source) == _context(
        "k.md", model, list(directives_of(model)), source
    )


# -- arguments ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "usage_error"),
    [
        (["session-start"], False),
        (["session-start", "--plain"], False),
        (["session-start", "--json"], False),
        (["session-start", "--plain", "--plain"], False),
        (["session-start", "--plain", "--json"], True),
        (["session-start", "--store", "{root}"], False),
        (["session-start", "--store={root}", "--plain"], False),
        (["session-start", "-o", "lock_timeout=3", "--store", "{root}"], False),
        (["session-start", "--storage-option=lock_timeout=3", "--store", "{root}"], False),
        (["session-start", "-o", "novalue"], True),
        (["session-start", "-o", "=x"], True),
        (["session-start", "-olock_timeout=3"], False),
        (["session-start", "--store"], True),
        (["session-start", "--store", "-x"], True),
        (["session-start", "--pl"], False),  # an abbreviation
        (["session-start", "--help"], False),
        (["pre-compact", "--plain"], True),
        (["pre-compact", "--store", "{root}"], False),
        (["bogus"], True),
        ([], True),
    ],
)
def test_arguments(tmp_path: Path, argv: list[str], usage_error: bool) -> None:
    """A usage error exits 1 (never 2: Claude Code would block the agent); the rest 0."""
    shutil.copytree(ROOT / "examples" / "wiki", tmp_path / "wiki")
    root = tmp_path / "wiki"
    args = [a.replace("{root}", str(root)) for a in argv]
    payload = json.dumps({"cwd": str(root)}).encode()

    def run() -> tuple[int, str, str]:
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(list(args), stdin=io.BytesIO(payload))
        return code, out.getvalue(), err.getvalue()

    with isolated(tmp_path):
        code, _, err = run()
    assert code == (1 if usage_error else 0), err
    assert "Traceback" not in err


# -- JSON in and out -----------------------------------------------------------------------------


def test_a_payload_nested_too_deep_is_named() -> None:
    data = b"[" * 100_000 + b"]" * 100_000
    assert read_payload(io.BytesIO(data)) == ({}, "payload is nested too deep to decode")


# -- the user configuration file ---------------------------------------------------------------


@pytest.mark.parametrize(
    "env",
    [
        {},
        {"XDG_CONFIG_HOME": "/x/conf"},
        {"XDG_CONFIG_HOME": "/x/conf/"},
        {"XDG_CONFIG_HOME": "relative/conf"},
        {"XDG_CONFIG_HOME": ""},
        {"HOME": "/home/someone/"},
        {"HOME": "/"},
        {"HOME": "relative-home"},
        {"SESSIONKIT_CONFIG": "~/my/sk.toml"},
    ],
)
def test_user_config_file_is_where_platformdirs_says(
    env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import platformdirs

    from sessionkit.config import user_config_path

    for name in ("XDG_CONFIG_HOME", "SESSIONKIT_CONFIG"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    if "SESSIONKIT_CONFIG" in env:
        expected = Path(os.path.expanduser(env["SESSIONKIT_CONFIG"]))
    else:
        expected = Path(platformdirs.user_config_dir("sessionkit")) / "config.toml"
    assert user_config_path() == expected
