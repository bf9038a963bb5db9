"""The pre-compact hook's light lane writes the bytes the store's way writes.

``sessionkit hook pre-compact`` on an existing page of a local aiwiki folder
splices its checkpoint entry without the model or the store
(``sessionkit/ops/checkpoint.py``, lane ``pre-compact``); with the fast lanes
off (:func:`sessionkit._fastpaths.general_paths`) the same hook goes through
:func:`sessionkit.ops.lifecycle.record_checkpoint`.  Every case here runs the
hook both ways on two copies of the same wiki at the same (frozen) time and
compares everything: the note's bytes and mode, the folder's names, stdout
and stderr.  Pages: the v1 and v2 corpus, pages rendered from generated
sessions and then hand-edited (CRLF, a BOM, no final line end, blank lines,
a secret), and the cases the lane leaves to the store.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import stat
from pathlib import Path
from typing import Any

import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import sessionkit
from sessionkit.hooks import main
from sessionkit.model import Checkpoint, Directive, Session
from tests import lanes as fastpaths
from tests.adapters._aiwiki_helpers import sessions
from tests.hook_env import isolated

ROOT = Path(__file__).resolve().parents[2]
CORPUS = sorted((ROOT / "tests" / "corpus" / "aiwiki-v2").glob("*.md")) + sorted(
    (ROOT / "tests" / "corpus" / "aiwiki-v1").glob("*.md")
)
AWS = "AKIA" + "IOSFODNN7EXAMPLE"  # a fake access key (the documentation's own)


def _wiki(base: Path, name: str, data: bytes, *, forge: bool = False) -> Path:
    root = base / "wiki"
    folder = root / "aiwiki" / "sessions"
    folder.mkdir(parents=True)
    (root / ".git").mkdir()
    (folder / name).write_bytes(data)
    (folder / "2020-01-01-0ld0ld0.md").write_bytes(data)  # another note, never touched
    (folder / ".sessionkit.lock").write_bytes(b"")  # as a store write before left it
    if forge:
        manifest = root / ".forge" / "work" / "feature" / "lane" / "manifest.yaml"
        manifest.parent.mkdir(parents=True)
        manifest.write_text(
            "status: in-progress\nartifacts:\n  prototype:\n    locked_at: 2026-05-17T11:00:00Z\n",
            encoding="utf-8",
        )
    return root


def _state(root: Path) -> dict[str, Any]:
    folder = root / "aiwiki" / "sessions"
    return {
        p.name: (p.read_bytes(), stat.S_IMODE(p.stat().st_mode))
        for p in sorted(folder.iterdir())
        if p.name != ".sessionkit.lock"
    }


def _hook(root: Path, payload: Any) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["pre-compact", "--store", str(root)], stdin=io.BytesIO(data))
    return code, out.getvalue(), err.getvalue()


def both_ways(
    tmp: Path, name: str, data: bytes, payload: Any, *, forge: bool = False, mode: int = 0o644
) -> bool:
    """Run the hook with the lanes on and off on copies of one wiki; assert the same
    outcome; return whether the light lane answered."""
    fast, general = tmp / "fast", tmp / "general"
    for base in (fast, general):
        shutil.rmtree(base, ignore_errors=True)
        base.mkdir(parents=True)
        root = _wiki(base, name, data, forge=forge)
        os.chmod(root / "aiwiki" / "sessions" / name, mode)
    if isinstance(payload, dict):
        payload = {**payload, "cwd": str(fast / "wiki")}
    with isolated(tmp, frozen=True):
        before = fastpaths.taken()["pre-compact"]
        got_fast = _hook(fast / "wiki", payload)
        taken = fastpaths.taken()["pre-compact"] - before
        if isinstance(payload, dict):
            payload = {**payload, "cwd": str(general / "wiki")}
        with fastpaths.general_paths():
            got_general = _hook(general / "wiki", payload)
        assert fastpaths.taken()["pre-compact"] - before == taken  # (off: not taken)
    assert _state(fast / "wiki") == _state(general / "wiki")
    clean = [(code, out, err.replace(str(fast), "")) for code, out, err in [got_fast]]
    assert clean == [(code, out, err.replace(str(general), "")) for code, out, err in [got_general]]
    return taken == 1


def _payload(page_id: str | None) -> dict[str, Any]:
    return {"session_id": page_id or "c0ffee1-0000", "trigger": "auto"}


# -- the corpus ---------------------------------------------------------------------------


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_corpus_pages_get_the_same_bytes(tmp_path: Path, path: Path) -> None:
    data = path.read_bytes()
    id7 = path.stem.rsplit("-", 1)[-1]
    text = data.decode("utf-8")
    # the page's own session_id when it has one, else one with its short id
    sid = next(
        (
            line.split(":", 1)[1].strip().strip("'\"")
            for line in text.splitlines()
            if line.startswith("session_id:") and line.split(":", 1)[1].strip() not in ("", "~")
        ),
        f"{id7}-0000-4000-8000-000000000000",
    )
    if not sid.startswith(id7):
        sid = f"{id7}-0000-4000-8000-000000000000"
    taken = both_ways(tmp_path, path.name, data, {"session_id": sid, "trigger": "auto"})
    page = sessionkit.loads(text)
    plain_v2 = "schema_version: 2" in text and page.checkpoints and page.id is not None
    plain_v2 = plain_v2 and id7 != "0000000"  # (that short id: today's page, a new one)
    if plain_v2 and "\r" not in text[: text.find("\n") + 1]:
        assert taken, "a plain v2 page with checkpoints takes the lane"
    if "schema_version: 1" in text:
        assert not taken  # migrated to v2 first: the store's way


def test_the_example_wiki_page_takes_the_lane(tmp_path: Path) -> None:
    page = ROOT / "examples" / "wiki" / "aiwiki" / "sessions" / "2026-05-18-7e8a3f2.md"
    payload = {"session_id": "7e8a3f21-9a4b-4c8d-b1e2-f5a6c7d8e9f0", "trigger": "manual"}
    assert both_ways(tmp_path, page.name, page.read_bytes(), payload, forge=True)


# -- generated pages -------------------------------------------------------------------------


def _v2_sessions() -> st.SearchStrategy[Session]:
    return sessions(version=2).filter(lambda s: bool(s.checkpoints))


_EDITS = st.sampled_from(["none", "crlf", "bom", "no-final-eol", "blank-lines", "secret"])


def _edited(text: str, edit: str) -> str:
    if edit == "crlf":
        return text.replace("\n", "\r\n")
    if edit == "bom":
        return "\ufeff" + text
    if edit == "no-final-eol":
        return text.rstrip("\n")
    if edit == "blank-lines":
        return text.replace("\n---\n", "\n---\n\n\n", 3)
    if edit == "secret":
        return text + f"\n## Notes\n\nkey {AWS} here\n"
    return text


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(session=_v2_sessions(), edit=_EDITS, forge=st.booleans(), ours=st.booleans())
def test_generated_pages_get_the_same_bytes(
    tmp_path: Path, session: Session, edit: str, forge: bool, ours: bool
) -> None:
    if ours:  # a checkpoint as the hook writes them, so the new one may equal an old one
        cp = Checkpoint(
            event="PreCompact",
            at="2026-12-02T09:30:05Z",
            body="Active work: none found",
            directives=(
                Directive(
                    kind="Dream",
                    items=(
                        "Scope: `aiwiki/raw/`, recently-touched typed pages",
                        "Trigger: pre-compact (auto)",
                        "Action: invoke `support-dream` skill before resuming other work",
                    ),
                ),
            ),
        )
        session = attrs.evolve(session, checkpoints=(*session.checkpoints, cp))
    text = _edited(sessionkit.dumps(session, format="aiwiki-v2"), edit)
    sid = session.id or "abcdef0-1"
    name = f"2026-05-18-{sid[:7]}.md"
    if any(c not in "0123456789abcdefABCDEF-_" for c in sid[:7]):
        name = "2026-05-18-abcdef0.md"
        sid = "abcdef0-1"
    taken = both_ways(
        tmp_path, name, text.encode("utf-8"), {"session_id": sid, "trigger": "auto"}, forge=forge
    )
    if session.id is not None and sid == session.id:  # a page the lane is for: it answered
        assert taken


# -- what the lane leaves to the store -----------------------------------------------------


def _plain_page(checkpoints: int = 1, session_id: str | None = "abcdef0-1") -> str:
    cp = Checkpoint(event="PreCompact", at="2026-05-18T10:00:00Z", body="Active work: none found")
    session = Session(
        id=session_id,
        started="2026-05-18",
        focus="lanes",
        checkpoints=tuple(
            attrs.evolve(cp, at=f"2026-05-18T10:{i // 60:02d}:{i % 60:02d}Z")
            for i in range(checkpoints)
        ),
        next_steps=("one",),
    )
    return sessionkit.dumps(session, format="aiwiki-v2")


@pytest.mark.parametrize(
    ("case", "taken"),
    [
        ("plain", True),
        ("no-session-id", False),  # the store's way also writes session_id
        ("no-checkpoints", False),
        ("read-only", False),  # refused by the store, which says so
        ("not-utf8", False),
        ("bad-frontmatter", False),
        ("bad-payload", False),  # 0000000: a new page of the day
        ("new-note", False),
    ],
)
def test_cases_left_to_the_store_end_the_same(tmp_path: Path, case: str, taken: bool) -> None:
    text = _plain_page(session_id=None if case == "no-session-id" else "abcdef0-1")
    if case == "no-checkpoints":
        text = _plain_page(checkpoints=0)
    data = text.encode("utf-8")
    if case == "not-utf8":
        data = data.replace(b"lanes", b"lan\xffes")
    if case == "bad-frontmatter":
        data = data.replace(b"focus: lanes", b"focus: [lanes")
    payload: Any = _payload("abcdef0-1")
    if case == "bad-payload":
        payload = b"not json"
    if case == "new-note":
        payload = _payload("1234567-1")
    mode = 0o444 if case == "read-only" else 0o644
    assert both_ways(tmp_path, "2026-05-18-abcdef0.md", data, payload, mode=mode) is taken


def test_popular_entries_of_a_long_log_are_left_to_the_store(tmp_path: Path) -> None:
    # from 200 entries on, difflib's matcher drops entries repeated more than 1% of times
    text = _plain_page(checkpoints=210)
    same = "\n### PreCompact at 2026-05-18T12:00:00Z\n\nActive work: none found\n\n---\n"
    at = text.index("## Files touched")
    repeated = text[:at].rstrip("\n") + "\n" + same * 4 + "\n" + text[at:]
    assert not both_ways(
        tmp_path, "2026-05-18-abcdef0.md", repeated.encode(), _payload("abcdef0-1")
    )
    # the same length without repeats takes the lane, and writes the same
    assert both_ways(tmp_path, "2026-05-18-abcdef0.md", text.encode(), _payload("abcdef0-1"))


def test_a_subfolder_or_a_symlink_is_left_to_the_store(tmp_path: Path) -> None:
    data = _plain_page().encode()
    for kind in ("folder", "symlink"):
        base = tmp_path / kind
        fast = _wiki(base / "fast", "2026-05-18-abcdef0.md", data)
        general = _wiki(base / "general", "2026-05-18-abcdef0.md", data)
        for root in (fast, general):
            folder = root / "aiwiki" / "sessions"
            if kind == "folder":
                (folder / "archive").mkdir()
                (folder / "archive" / "2026-06-01-abcdef0.md").write_bytes(data)
            else:
                (folder / "link.md").symlink_to(folder / "2020-01-01-0ld0ld0.md")
        with isolated(tmp_path, frozen=True):
            before = fastpaths.taken()["pre-compact"]
            a = _hook(fast, {**_payload("abcdef0-1"), "cwd": str(fast)})
            with fastpaths.general_paths():
                b = _hook(general, {**_payload("abcdef0-1"), "cwd": str(general)})
            assert fastpaths.taken()["pre-compact"] == before
        assert a == b
        for rel in ("2026-05-18-abcdef0.md", "archive/2026-06-01-abcdef0.md"):
            one, two = (r / "aiwiki" / "sessions" / rel for r in (fast, general))
            if one.exists():
                assert one.read_bytes() == two.read_bytes()


def test_the_lane_waits_for_the_stores_lock(tmp_path: Path) -> None:
    """The lane holds the lock file the store holds (filelock's flock on the same file)."""
    from filelock import FileLock

    root = _wiki(tmp_path, "2026-05-18-abcdef0.md", _plain_page().encode())
    lock = FileLock(str(root / "aiwiki" / "sessions" / ".sessionkit.lock"))
    page = root / "aiwiki" / "sessions" / "2026-05-18-abcdef0.md"
    before = page.read_bytes()
    with isolated(tmp_path, frozen=True), lock:
        os.environ["SESSIONKIT_HOOK_DEADLINE_MS"] = "1500"
        code, _, err = _hook(root, {**_payload("abcdef0-1"), "cwd": str(root)})
    assert code == 0 and page.read_bytes() == before  # nothing written while the store held it
    assert "timed out" in err or "deadline" in err, err
