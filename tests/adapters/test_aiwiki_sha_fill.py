"""``lint --fix``: filling missing ``@sha7`` in Files touched from git."""

from __future__ import annotations

import difflib
import shutil
import subprocess
from pathlib import Path

import pytest

from sessionkit.adapters.aiwiki import AIWIKI_V2
from sessionkit.document import parse
from sessionkit.ops.sha_fill import fill_shas, git_resolver

PAGE = (
    "---\r\nschema_id: session\r\nschema_version: 2\r\nstatus: active\r\n"
    "date_start: 2026-05-18\r\nfocus: fix\r\n---\r\n\r\n## Files touched\r\n\r\n"
    "- `src/a.py:3-9` — rewrite\r\n"
    "- src/b.py:12\r\n"
    "- `src/c.py@1234567`\r\n"
    "- not a citation at all\r\n"
    "- docs/readme.md\r\n"
    "\r\n## Next steps\r\n\r\n- `src/a.py` is not in Files touched\r\n"
)


def _changed(a: str, b: str) -> list[tuple[str, str]]:
    pairs = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(
        a=a.splitlines(True), b=b.splitlines(True)
    ).get_opcodes():
        if tag != "equal":
            assert tag == "replace" and i2 - i1 == j2 - j1
            pairs += list(zip(a.splitlines(True)[i1:i2], b.splitlines(True)[j1:j2], strict=True))
    return pairs


def test_fill_with_a_resolver_changes_only_the_citation_lines() -> None:
    doc = parse(PAGE)
    shas = {"src/a.py": "aaaaaaa", "src/b.py": "bbbbbbb", "docs/readme.md": None}
    new = fill_shas(doc, resolve=lambda p: shas.get(p, "ccccccc"))
    assert _changed(PAGE, new.text) == [
        ("- `src/a.py:3-9` — rewrite\r\n", "- `src/a.py:3-9@aaaaaaa` — rewrite\r\n"),
        ("- src/b.py:12\r\n", "- src/b.py:12@bbbbbbb\r\n"),
    ]
    assert [d.code for d in AIWIKI_V2.lint(new)] == ["AW011", "AW012"]
    # nothing left to fill: the same text comes back
    again = fill_shas(new, resolve=lambda p: "fffffff")
    assert _changed(new.text, again.text) == [
        ("- docs/readme.md\r\n", "- docs/readme.md@fffffff\r\n")
    ]
    assert fill_shas(again, resolve=lambda p: "0000000").text == again.text


def test_no_repo_root_and_no_resolver_is_a_no_op() -> None:
    doc = parse(PAGE)
    assert fill_shas(doc) is doc


def test_bad_resolver_answers_are_ignored() -> None:
    doc = parse(PAGE)
    assert fill_shas(doc, resolve=lambda p: "not a sha").text == PAGE


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_git_resolver_uses_last_commit_of_the_file_else_head(tmp_path: Path) -> None:
    def git(*args: str) -> str:
        return subprocess.run(
            ["git", "-C", str(tmp_path), *args],
            check=True,
            capture_output=True,
            text=True,
            env={
                "GIT_AUTHOR_NAME": "t",
                "GIT_AUTHOR_EMAIL": "t@example.invalid",
                "GIT_COMMITTER_NAME": "t",
                "GIT_COMMITTER_EMAIL": "t@example.invalid",
                "HOME": str(tmp_path),
                "PATH": "/usr/bin:/bin:/usr/local/bin",
            },
        ).stdout.strip()

    git("init", "-q")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("a\n")
    git("add", "src/a.py")
    git("commit", "-qm", "a")
    first = git("rev-parse", "--short=7", "HEAD")
    (tmp_path / "other.txt").write_text("o\n")
    git("add", "other.txt")
    git("commit", "-qm", "other")
    head = git("rev-parse", "--short=7", "HEAD")
    assert first != head
    resolve = git_resolver(tmp_path)
    assert resolve("src/a.py") == first
    assert resolve("src/missing.py") == head
    page = "---\nschema_id: session\n---\n\n## Files touched\n\n- `src/a.py:1`\n- src/new.py\n"
    new = fill_shas(parse(page), tmp_path)
    assert f"- `src/a.py:1@{first}`\n" in new.text
    assert f"- src/new.py@{head}\n" in new.text
    assert git_resolver(tmp_path / "nowhere")("x") is None
