"""A Basic Memory note over the size limit: skipped when it is no session, a failure when
it is one (the size is checked after the note is known to be a session)."""

from __future__ import annotations

import json
from pathlib import Path

import sessionkit


def _convert_folder(tmp_path: Path, name: str, text: str) -> dict[str, object]:
    """``sessionkit.convert`` of a project holding one note: what it did with it."""
    src = tmp_path / name / "src"
    folder = src / "sessions"
    folder.mkdir(parents=True)
    (folder / "a.md").write_bytes(text.encode("utf-8", "surrogatepass"))
    report = sessionkit.convert(src, tmp_path / name / "out", to="aiwiki")
    found = report.to_dict()
    found.pop("target", None)
    found.pop("source", None)
    return found


def test_session_check_skips_a_note_too_big_before_its_size_matters(tmp_path: Path) -> None:
    big = "---\ntype: note\n---\n" + "x" * (9 << 20) + "\n"
    skipped = _convert_folder(tmp_path, "note", big)
    assert not skipped["created"] and not skipped["failures"]
    failed = _convert_folder(tmp_path, "session", big.replace("note", "session"))
    assert "over the limit" in json.dumps(failed["failures"])
