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
