"""Path safety at the entry points other than store keys (tests/backends/test_paths.py).

Hook payloads (``session_id``, ``cwd``, ``transcript_path``), Basic Memory
titles, notes-folder names, URLs, ``migrate --backup`` and convert targets:
``../``, absolute paths, NUL, ``\\``, Windows reserved names, over-long names
and symlinks leading out are refused (with a :class:`PathSafetyError` or
another :class:`SessionKitError`) or made harmless (unsafe id characters are
dropped).  Every test snapshots a sandbox parent folder before and after and
counts the writes outside the store root: there must be none.
"""

from __future__ import annotations

import io
import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

import sessionkit
from sessionkit import hooks
from sessionkit.backends import check_key
from sessionkit.errors import PathSafetyError, SessionKitError, StoreError
from sessionkit.model import Session
from sessionkit.ops.lifecycle import record_checkpoint

HOSTILE = [
    "../../../escape",
    "/etc/passwd",
    "a\x00b",
    "..\\..\\windows",
    "C:\\x",
    "CON",
    "aux.txt",
    "x" * 5000,
    "a/b/../../c",
    "~/x",
    "%2e%2e%2f",
    "\u202eevil",
    "..",
    "",
]
#: what a file name built from an id may contain
SAFE_ID_NAME = re.compile(r"^\d{4}-\d{2}-\d{2}-[0-9A-Za-z_-]{1,7}\.md$")
#: Basic Memory file names: never a separator, a reserved character or a leading dot
BM_UNSAFE = re.compile(r'[/\\<>:"|?*\x00-\x1f]')


def snapshot(folder: Path) -> dict[str, Any]:
    """Every path below ``folder``: file bytes, symlink targets, folders."""
    out: dict[str, Any] = {}
    for dirpath, dirnames, filenames in os.walk(folder):
        for name in dirnames + filenames:
            p = Path(dirpath) / name
            rel = str(p.relative_to(folder))
            if "/.git/info" in "/" + rel:
                continue  # sessionkit names its lock files in git's exclude list on purpose
            if p.is_symlink():
                out[rel] = ("link", os.readlink(p))
            elif p.is_dir():
                out[rel] = ("dir",)
            else:
                out[rel] = ("file", p.read_bytes())
    return out


def writes_outside(before: dict[str, Any], after: dict[str, Any], *roots: str) -> list[str]:
    """Paths created, changed or removed outside the given roots (relative to the sandbox)."""
    changed = {k for k in before.keys() | after.keys() if before.get(k) != after.get(k)}

    def inside(rel: str) -> bool:
        return any(rel == r or rel.startswith(r.rstrip("/") + "/") for r in roots)

    return sorted(k for k in changed if not inside(k))


@pytest.fixture
def sandbox(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in list(os.environ):
        if name.startswith("SESSIONKIT_") or name == "CLAUDE_PROJECT_DIR":
            monkeypatch.delenv(name)
    box = tmp_path / "sandbox"
    monkeypatch.setenv("HOME", str(box / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(box / "home" / ".config"))
    repo = box / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "aiwiki" / "sessions").mkdir(parents=True)
    outside = box / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("---\nstatus: done\n---\nsecret\n")
    monkeypatch.chdir(repo)
    return box


def _hook(payload: Any) -> int:
    data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    return hooks.main(["pre-compact"], stdin=io.BytesIO(data))


# -- hook payloads -------------------------------------------------------------------------------


def test_hostile_session_ids_stay_in_the_sessions_folder(sandbox: Path) -> None:
    repo = sandbox / "repo"
    before = snapshot(sandbox)
    for sid in HOSTILE:
        assert _hook({"session_id": sid, "cwd": str(repo)}) == 0
    after = snapshot(sandbox)
    assert writes_outside(before, after, "repo/aiwiki/sessions") == []
    names = [n for n in os.listdir(repo / "aiwiki" / "sessions") if not n.startswith(".")]
    assert names and all(SAFE_ID_NAME.match(n) for n in names), names
    # ids with characters outside [0-9A-Za-z_-] are not ids: they record under 0000000
    assert {n[11:-3] for n in names} <= {"0000000", "CON", "x" * 7}


@pytest.mark.parametrize(
    "cwd", ["../", "../outside", "relative/dir", "/nonexistent/x", "a\x00b", 42, ["/"]]
)
def test_hostile_cwd_falls_back_to_the_working_directory(sandbox: Path, cwd: Any) -> None:
    before = snapshot(sandbox)
    assert _hook({"session_id": "7e8a3f2-abc", "cwd": cwd}) == 0
    after = snapshot(sandbox)
    assert writes_outside(before, after, "repo/aiwiki/sessions") == []
    assert any(n.endswith("-7e8a3f2.md") for n in os.listdir(sandbox / "repo/aiwiki/sessions"))


def test_transcript_path_is_only_read_and_titles_stay_inside(sandbox: Path) -> None:
    transcript = sandbox / "outside" / "t.jsonl"
    line = {"type": "user", "message": {"content": "../../../../etc/cron.d/x\\..\\CON:*?"}}
    transcript.write_text(json.dumps(line) + "\n")
    project = sandbox / "bm"
    store = sessionkit.open_store(project, layout="basic-memory")
    before = snapshot(sandbox)
    for path in (str(transcript), "/etc/passwd", "../outside/t.jsonl", "\x00.jsonl"):
        report = record_checkpoint(
            store,
            {"session_id": "c0ffee1-x", "transcript_path": path},
            repo_root=str(sandbox / "repo"),
        )
        assert check_key(report.key) == report.key and "/" not in report.key
    after = snapshot(sandbox)
    assert writes_outside(before, after, "bm") == []
    for name in os.listdir(project / "sessions"):
        assert name.startswith(".") or not BM_UNSAFE.search(name), name


# -- titles, folders, URLs -------------------------------------------------------------------------


def test_basic_memory_titles_make_safe_file_names(sandbox: Path) -> None:
    store = sessionkit.open_store(sandbox / "bm", layout="basic-memory")
    before = snapshot(sandbox)
    for n, title in enumerate([*HOSTILE, "...", ". hidden", "a" * 400, "nul", "COM1.md"]):
        session = Session(id=f"s{n}", started="2026-05-18T10:00:00Z", title=title or None)
        try:
            key = store.key_for(session)
        except PathSafetyError:
            continue  # refused outright is fine too
        assert not BM_UNSAFE.search(key) and not key.startswith(".")
        assert len(key.encode()) <= 255
        store.write_text(key, f"---\ntitle: t{n}\ntype: session\n---\n")
    after = snapshot(sandbox)
    assert writes_outside(before, after, "bm") == []
    assert sorted(store.keys()) == sorted(
        n for n in os.listdir(sandbox / "bm/sessions") if n[0] != "."
    )


@pytest.mark.parametrize("folder", ["../escape", "a/../../b", "a\\b", "x\x00", "CON", "..", "/abs"])
def test_notes_folder_names_are_refused(sandbox: Path, folder: str) -> None:
    before = snapshot(sandbox)
    try:
        store = sessionkit.open_store(str(sandbox / "bm"), layout="basic-memory", folder=folder)
    except PathSafetyError:
        refused = True
    else:  # only "/abs": the leading "/" is dropped, the folder is "abs" inside the root
        refused = False
        assert store.folder == folder.strip("/")
        store.write_text("note.md", "x")
    assert refused or folder == "/abs"
    assert writes_outside(before, snapshot(sandbox), "bm") == []


def test_symlinked_sessions_folder_to_outside_is_refused(sandbox: Path) -> None:
    project = sandbox / "bm"
    project.mkdir()
    (project / "sessions").symlink_to(sandbox / "outside")
    store = sessionkit.open_store(project, layout="basic-memory")
    before = snapshot(sandbox)
    with pytest.raises(PathSafetyError):
        store.write_text("note.md", "x")
    with pytest.raises(PathSafetyError):
        store.read_text("secret.md")
    assert writes_outside(before, snapshot(sandbox), "bm") == []


@pytest.mark.parametrize("url", ["file://\x00/x", "bm://../../etc", "memory://a/\x00"])
def test_hostile_urls_fail_cleanly(sandbox: Path, url: str) -> None:
    before = snapshot(sandbox)
    try:
        store = sessionkit.open_store(url)
        store.write_text("2026-05-18-abc1234.md", "x")
    except (SessionKitError, ValueError, OSError):
        pass
    assert writes_outside(before, snapshot(sandbox), "repo") == []


# -- migrate --backup, convert targets -------------------------------------------------------------

V1 = (
    "---\nschema_id: session\nschema_version: 1\nstatus: done\ndate_start: 2026-01-05\n"
    "focus: backup test\n---\n\n## Next steps\n\n- go\n"
)


def test_migrate_backup_goes_where_asked_and_never_into_the_notes(sandbox: Path) -> None:
    from sessionkit.ops.migrate import migrate

    notes = sandbox / "repo" / "aiwiki" / "sessions"
    (notes / "2026-01-05-setup.md").write_text(V1)
    before = snapshot(sandbox)
    for inside in (notes, notes / "sub", notes / ".." / "sessions" / "x"):
        with pytest.raises(StoreError):
            migrate(str(sandbox / "repo"), backup=str(inside))
    (sandbox / "link").symlink_to(notes)
    with pytest.raises(StoreError):
        migrate(str(sandbox / "repo"), backup=str(sandbox / "link" / "bak"))
    (sandbox / "link").unlink()
    assert snapshot(sandbox) == before  # a refused backup changes nothing
    report = migrate(str(sandbox / "repo"), backup=str(sandbox / "backup"))
    assert report.ok
    assert writes_outside(before, snapshot(sandbox), "repo/aiwiki/sessions", "backup") == []
    backups = [p for p in (sandbox / "backup").rglob("*") if p.is_file()]
    assert [p.read_text() for p in backups] == [V1]


def test_convert_targets_stay_inside_the_target(sandbox: Path) -> None:
    from sessionkit.ops.convert import convert

    source = sandbox / "bmsrc"
    (source / "sessions").mkdir(parents=True)
    for n, title in enumerate(["../../../x", "/etc/y", "a\\b", "CON", "z" * 300]):
        text = (
            f"---\ntitle: {json.dumps(title)}\ntype: session\npermalink: p/{n}\n"
            f"claude_session_id: '../../{n}/\\\\x'\n"
            f"started: '2026-05-1{n}T10:00:00Z'\n---\n\nbody\n"
        )
        (source / "sessions" / f"note{n}.md").write_text(text)
    before = snapshot(sandbox)
    convert(str(source), str(sandbox / "wiki"), to="aiwiki-v2", from_="basic-memory")
    convert(str(sandbox / "wiki"), str(sandbox / "bmout"), to="basic-memory")
    after = snapshot(sandbox)
    assert writes_outside(before, after, "wiki", "bmout") == []
    made = [p for p in (sandbox / "wiki").rglob("*.md")]
    assert made and all(SAFE_ID_NAME.match(p.name) for p in made), made
    for p in (sandbox / "bmout").rglob("*.md"):
        assert not BM_UNSAFE.search(p.name) and not p.name.startswith(".")
