"""A planted secret never reaches disk or S3 in clear, on every write path.

Local aiwiki and Basic Memory stores on real files, S3 through moto's server
(``sessionkit.testing.s3``) and s3fs; the paths are the Store API, ``add``,
``status``, ``directive consume``, the pre-compact hook (a transcript's first
request), ``convert`` and ``migrate``.
"""

from __future__ import annotations

import datetime as dt
import io
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from sessionkit.backends import open_store
from sessionkit.cli import cli
from sessionkit.hooks import main as hook
from sessionkit.model import Session
from sessionkit.ops import lifecycle
from sessionkit.ops.convert import convert
from sessionkit.redaction import Policy, SecretError, collect

ROOT = Path(__file__).resolve().parents[2]
AWS_KEY = "AKIA" + "IOSFODNN7EXAMPLE"
GH = "ghp_" + "16C7e42F292c6912E7710c838347Ae178B4a"
T0 = dt.datetime(2026, 5, 20, 9, 0, tzinfo=dt.UTC)


def _all_bytes(root: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file())


def _wiki(tmp_path: Path) -> Path:
    root = tmp_path / "wiki"
    shutil.copytree(ROOT / "examples" / "wiki", root)
    return root


def test_store_api_redacts_body_and_frontmatter(tmp_path: Path) -> None:
    store = open_store(str(_wiki(tmp_path)), layout="aiwiki")
    with collect() as found:
        key = store.put(
            Session(id="abc1234-x", focus=f"deploy with {AWS_KEY}", started="2026-05-21")
        )
        store.update_text(key, lambda t: (t or "") + f"\nnote: {GH}\n")
    text = store.read_text(key)
    assert AWS_KEY not in text and GH not in text
    assert "focus: deploy with [REDACTED:aws-access-key]" in text
    assert text.endswith("\nnote: [REDACTED:github-token]\n")
    assert [f.kind for f in found] == ["aws-access-key", "github-token"]
    assert [f.path for f in store.redactions] == [f"aiwiki/sessions/{key}"] * 2
    assert store.get(key).focus == "deploy with [REDACTED:aws-access-key]"


def test_cli_add_status_consume_never_write_a_secret(tmp_path: Path) -> None:
    root = _wiki(tmp_path)
    page = root / "aiwiki" / "sessions" / "2026-05-18-7e8a3f2.md"
    runner = CliRunner()
    res = runner.invoke(cli, ["add", "next-step", "--store", str(root), f"rotate {AWS_KEY}"])
    assert res.exit_code == 0, res.output
    assert AWS_KEY not in res.output  # neither the report nor the note carries it
    assert "redacted 1 secret(s) before writing:" in res.stderr
    assert "aiwiki/sessions/2026-05-18-7e8a3f2.md:" in res.stderr and "aws-access-key" in res.stderr
    assert "- rotate [REDACTED:aws-access-key]" in page.read_text(encoding="utf-8")
    # a secret written by hand is redacted by the next edit of the note, nothing else changes
    before = page.read_text(encoding="utf-8").replace(
        "Run the 90-day backfill", f"Run the 90-day backfill (token={GH})"
    )
    page.write_text(before, encoding="utf-8")
    res = runner.invoke(cli, ["directive", "consume", "--store", str(root)])
    assert res.exit_code == 0, res.output
    after = page.read_text(encoding="utf-8")
    assert GH not in after and "(token=[REDACTED:github-token])" in after
    changed = [a for a, b in zip(before.splitlines(), after.splitlines(), strict=True) if a != b]
    assert len(changed) == 3  # the token's line, the directive header, its status line
    res = runner.invoke(cli, ["status", "done", "--store", str(root)])
    assert res.exit_code == 0 and AWS_KEY.encode() not in _all_bytes(root)


def test_warn_writes_as_is_and_reports_off_does_not_look(tmp_path: Path) -> None:
    root = _wiki(tmp_path)
    runner = CliRunner()
    res = runner.invoke(
        cli,
        ["add", "gotcha", "--store", str(root), f"key {AWS_KEY}"],
        env={"SESSIONKIT_REDACT": "warn"},
    )
    assert res.exit_code == 0 and "wrote 1 secret(s) in clear (secrets.redact = warn)" in res.stderr
    assert AWS_KEY.encode() in _all_bytes(root)
    res = runner.invoke(
        cli, ["add", "gotcha", "--store", str(root), f"k2 {GH}"], env={"SESSIONKIT_REDACT": "off"}
    )
    assert res.exit_code == 0 and "secret" not in res.stderr
    res = runner.invoke(
        cli,
        ["add", "gotcha", "--store", str(root), f"k3 {GH}"],
        env={"SESSIONKIT_REDACT_ALLOW": f"x,{GH}"},
    )
    # the allowed token stays; the key the warn run left in clear goes with this edit
    assert (
        res.exit_code == 0 and "github-token" not in res.stderr and "aws-access-key" in res.stderr
    )
    assert GH.encode() in _all_bytes(root) and AWS_KEY.encode() not in _all_bytes(root)


def test_pre_compact_transcript_request_is_redacted_in_title_and_name(tmp_path: Path) -> None:
    project = tmp_path / "bm"
    (project / "sessions").mkdir(parents=True)
    transcript = tmp_path / "t.jsonl"
    line = {
        "type": "user",
        "timestamp": "2026-05-20T09:00:00Z",
        "message": {"content": f"use {AWS_KEY} to deploy the stack please"},
    }
    transcript.write_text(json.dumps(line) + "\n", encoding="utf-8")
    payload = {"session_id": "s-1", "transcript_path": str(transcript), "cwd": str(tmp_path)}
    code = hook(
        ["pre-compact", "--store", f"bm:///{project}"],
        stdin=io.BytesIO(json.dumps(payload).encode()),
    )
    assert code == 0
    (note,) = (project / "sessions").glob("*.md")
    assert AWS_KEY not in note.name and AWS_KEY.lower() not in note.name.lower()
    data = note.read_text(encoding="utf-8")
    assert AWS_KEY not in data and AWS_KEY.lower() not in data
    assert "use [REDACTED:aws-access-key] to deploy" in data


def test_convert_redacts_and_a_second_run_writes_nothing(tmp_path: Path) -> None:
    root = _wiki(tmp_path)
    page = root / "aiwiki" / "sessions" / "2026-05-18-7e8a3f2.md"
    text = page.read_text(encoding="utf-8")
    page.write_text(text.replace("focus: ", f"focus: {AWS_KEY} ", 1), encoding="utf-8")
    target = tmp_path / "bm"
    with collect() as found:
        first = convert(str(root), str(target))
    assert first.ok and first.created and [f.kind for f in found] == ["aws-access-key"]
    blob = _all_bytes(target)
    assert AWS_KEY.encode() not in blob and AWS_KEY.lower().encode() not in blob
    again = convert(str(root), str(target))
    assert again.ok and not again.created and not again.updated


def test_convert_refuses_a_secret_when_redaction_is_off(tmp_path: Path) -> None:
    root = _wiki(tmp_path)
    page = root / "aiwiki" / "sessions" / "2026-05-18-7e8a3f2.md"
    page.write_text(page.read_text(encoding="utf-8") + f"\n{GH}\n", encoding="utf-8")
    target = tmp_path / "bm"
    res = CliRunner().invoke(
        cli, ["convert", str(root), str(target)], env={"SESSIONKIT_REDACT": "off"}
    )
    assert res.exit_code == 1, res.output
    assert "refused" in res.output + res.stderr and "github-token" in res.output + res.stderr
    names = [p.name for p in (target / "sessions").glob("*.md")]
    assert len(names) == 5 and not any("7e8a3f2" in n for n in names)
    assert GH.encode() not in _all_bytes(target)


def test_migrate_redacts(tmp_path: Path) -> None:
    from sessionkit.ops.migrate import migrate

    root = _wiki(tmp_path)
    v1 = next(p for p in (root / "aiwiki" / "sessions").glob("2026-04-28-*.md"))
    v1.write_text(
        v1.read_text(encoding="utf-8") + f"\npassword: {'q7#Lm2$Xv9!pR4wZ'}\n", encoding="utf-8"
    )
    report = migrate(str(root))
    assert report.ok
    assert b"q7#Lm2$Xv9!pR4wZ" not in _all_bytes(root / "aiwiki")


def test_s3_store_redacts_and_refuses_in_clear(
    s3_url: str, s3_options: dict[str, Any], s3_server: Any
) -> None:
    store = open_store(f"{s3_url}/wiki", layout="aiwiki", **s3_options)
    key = store.put(Session(id="abc1234-x", focus=f"ship {GH}", started="2026-05-21"))
    lifecycle.add_item(store, "next-step", f"then {AWS_KEY}", session=key)
    import s3fs

    fs = s3fs.S3FileSystem(**s3_options)
    stored = b"".join(fs.cat(p) for p in fs.find(s3_url))
    assert GH.encode() not in stored and AWS_KEY.encode() not in stored
    assert b"[REDACTED:github-token]" in stored and b"[REDACTED:aws-access-key]" in stored
    for mode in ("warn", "off"):
        store.redaction = Policy(mode=mode)
        with pytest.raises(SecretError, match="refused"):
            store.write_text("2026-05-22-bbbbbbb.md", f"---\nfocus: x\n---\n{GH}\n")
        with pytest.raises(SecretError):
            lifecycle.add_item(store, "gotcha", f"again {AWS_KEY}", session=key)
    assert not store.exists("2026-05-22-bbbbbbb.md")
    assert b"".join(fs.cat(p) for p in fs.find(s3_url)) == stored  # nothing written


# -- #45 / #46: reports say what was written; state files, backups and messages -------------

PASSWORD = "q7#Lm2$Xv9!pR4wZ"


def test_warn_add_says_in_clear_never_redacted_and_never_the_value(tmp_path: Path) -> None:
    """Under ``warn`` the note holds the token as typed: the report must not claim it was
    redacted, and it names the kind, never the value (#45 "False redaction report")."""
    root = _wiki(tmp_path)
    page = root / "aiwiki" / "sessions" / "2026-05-18-7e8a3f2.md"
    warn = {"SESSIONKIT_REDACT": "warn"}
    res = CliRunner().invoke(cli, ["add", "next-step", "--store", str(root), f"use {GH}"], env=warn)
    assert res.exit_code == 0, res.output
    assert GH in page.read_text(encoding="utf-8")
    assert "use [IN CLEAR:github-token]" in res.stdout and "[REDACTED:" not in res.stdout
    assert GH not in res.output + res.stderr
    res = CliRunner().invoke(cli, ["add", "gotcha", "--json", "--store", str(root), GH], env=warn)
    assert json.loads(res.stdout)["text"] == "[IN CLEAR:github-token]"
    res = CliRunner().invoke(cli, ["add", "next-step", "--store", str(root), f"use {AWS_KEY}"])
    assert "use [REDACTED:aws-access-key]" in res.stdout and AWS_KEY not in res.output


@pytest.mark.parametrize("target", ["local", "memory"])
def test_warn_convert_refuses_the_note_on_every_target(tmp_path: Path, target: str) -> None:
    """``convert`` under ``warn`` refuses a note with a secret, a local target and a
    ``memory://`` one alike (the memory target was redacted and written)."""
    import uuid

    from sessionkit.backends import open_store

    root = _wiki(tmp_path)
    page = root / "aiwiki" / "sessions" / "2026-05-18-7e8a3f2.md"
    page.write_text(page.read_text(encoding="utf-8") + f"\n{GH}\n", encoding="utf-8")
    dst = str(tmp_path / "bm") if target == "local" else f"memory://{uuid.uuid4().hex}/bm"
    res = CliRunner().invoke(cli, ["convert", str(root), dst], env={"SESSIONKIT_REDACT": "warn"})
    assert res.exit_code == 1, res.output
    assert "refused" in res.stderr and "github-token" in res.stderr and GH not in res.output
    store = open_store(dst, layout="basic-memory")
    keys = store.keys()
    assert len(keys) == 5 and not any("move readings" in k for k in keys)
    assert all(GH not in store.read_text(k) for k in keys)


def test_add_file_refusal_names_the_kind_not_the_value(tmp_path: Path) -> None:
    root = _wiki(tmp_path)
    for text in (f"deploy {GH}", f"-----BEGIN RSA PRIVATE KEY-----{AWS_KEY}"):
        res = CliRunner().invoke(cli, ["add", "file", "--store", str(root), text])
        assert res.exit_code == 2
        assert GH not in res.output + res.stderr and AWS_KEY not in res.output + res.stderr
    assert (
        "[REDACTED:github-token]"
        in CliRunner().invoke(cli, ["add", "file", "--store", str(root), f"deploy {GH}"]).stderr
    )


def test_migrate_backup_says_so_and_is_no_wider_than_the_note(tmp_path: Path) -> None:
    """The backup keeps the original (secret included) because --backup asked for it:
    one line says so, and a 0600 note's backup is 0600."""
    import os
    import stat

    root = _wiki(tmp_path)
    v1 = root / "aiwiki" / "sessions" / "2026-04-28-e19b2c4.md"
    v1.write_text(v1.read_text(encoding="utf-8") + f"\npassword: {PASSWORD}\n", "utf-8")
    os.chmod(v1, 0o600)
    backup = tmp_path / "backup"
    res = CliRunner().invoke(cli, ["migrate", "--backup", str(backup), str(root)])
    assert res.exit_code == 0, res.output
    lines = [line for line in res.stderr.splitlines() if "--backup" in line]
    assert lines == [
        f"sessionkit: the originals, secrets included, are kept in {backup} (--backup)"
    ]
    kept = backup / "aiwiki" / "sessions" / v1.name
    assert PASSWORD in kept.read_text(encoding="utf-8")
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600
    assert PASSWORD not in v1.read_text(encoding="utf-8")
    assert PASSWORD not in res.output + res.stderr


def test_sync_state_keeps_no_secret_and_still_merges_a_secret_line(tmp_path: Path) -> None:
    """``.sessionkit-sync.json`` keeps each pair's base redacted; a secret line the page
    still holds unchanged is put back before the three-way merge, so edits of both sides
    around it merge cleanly, and so does a side that changed that very line.  (Stores
    that write as is, ``secrets.redact = off``: both sides hold the line in clear.)"""
    from sessionkit.ops.sync import sync

    root = _wiki(tmp_path)
    bm = tmp_path / "bm"
    bm.mkdir()
    page = root / "aiwiki" / "sessions" / "2026-05-18-7e8a3f2.md"
    line = f"- Rotate the deploy password: {PASSWORD} after the move"
    text = page.read_text(encoding="utf-8")
    page.write_text(text.replace("- Run the 90", f"{line}\n- Run the 90"), "utf-8")

    def run() -> list[str]:
        aw_store = open_store(str(root), layout="aiwiki")
        bm_store = open_store(str(bm), layout="basic-memory")
        for store in (aw_store, bm_store):
            store.redaction = Policy(mode="off")
        report = sync(aw_store, bm_store)
        assert PASSWORD not in state.read_text(encoding="utf-8")
        return [a.action for a in report.actions if a.action not in ("pair", "unchanged")]

    def edit(path: Path, old: str, new: str) -> None:
        body = path.read_text(encoding="utf-8")
        assert old in body
        path.write_text(body.replace(old, new), "utf-8")

    state = root / "aiwiki" / "sessions" / ".sessionkit-sync.json"
    assert run().count("create-basic-memory") == 6
    assert "[REDACTED:secret-assignment]" in state.read_text(encoding="utf-8")
    (note,) = [p for p in (bm / "sessions").glob("*.md") if "Postgres" in p.name]
    assert PASSWORD in note.read_text(encoding="utf-8")
    # both sides edited elsewhere: a clean merge, the secret line as both hold it
    edit(page, "- Run the 90", "- Run the 30")
    edit(note, "Finish `PostgresStore", "Finish `PgStore")
    assert run() == ["merge"]
    merged = page.read_text(encoding="utf-8")
    assert line in merged and "- Run the 30" in merged and "Finish `PgStore" in merged
    # one side changes the secret line itself, the other edits elsewhere: still clean
    edit(page, "- Run the 30", "- Run the 7")
    edit(note, " after the move", " today")
    assert run() == ["merge"]
    merged = page.read_text(encoding="utf-8")
    assert f"- Rotate the deploy password: {PASSWORD} today" in merged
    assert "- Run the 7" in merged
