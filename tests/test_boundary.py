"""#19: values checked at the boundary, one reading path, advice in the caller's spelling.

Each test names the defect it guards; every one failed before its fix.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import sessionkit
from sessionkit.cli import main

PAGE = """\
---
schema_id: session
schema_version: 2
status: active
date_start: 2026-05-19
session_id: "bad00001-0000-0000-0000-000000000000"
last_commit: "9c03b7f"
{focus}
---

## Next steps

- write the docs
"""
BROKEN = PAGE.format(focus="focus: [retry budget metrics")  # a YAML error on line 9/10


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in list(os.environ):
        if name.startswith("SESSIONKIT_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / "aiwiki" / "sessions").mkdir(parents=True)
    monkeypatch.chdir(root)
    return root


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["sessionkit", *args])
    out, err = capsys.readouterr()
    return code, out, err


def _yaml_error() -> tuple[int, str]:
    with pytest.raises(sessionkit.ParseError) as info:
        sessionkit.loads(BROKEN, path="note.md", format="aiwiki-v2")
    assert info.value.line is not None
    return info.value.line, info.value.message


# -- one reading path -------------------------------------------------------------------


def test_loads_reports_the_yaml_error_not_cannot_tell_the_format() -> None:
    line, message = _yaml_error()
    for path in ("note.md", "aiwiki/sessions/2026-05-19-bad0000.md", None):
        with pytest.raises(sessionkit.ParseError) as info:
            sessionkit.loads(BROKEN, path=path)
        assert (info.value.line, info.value.message) == (line, message)
        assert "cannot tell the format" not in str(info.value)


def test_every_command_gives_the_same_cause_and_line(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    line, message = _yaml_error()
    note = repo / "aiwiki" / "sessions" / "2026-05-19-bad0000.md"
    note.write_text(BROKEN)
    seen = {}
    for args in (
        ["ls"],
        ["show", str(note)],
        ["lint", str(note)],
        ["add", "next-step", "x", "--session", "bad0000"],
        ["status", "done", "--session", "bad0000"],
        ["convert", ".", str(repo.parent / "out")],
    ):
        code, out, err = run(capsys, *args)
        text = out + err
        assert f":{line}: " in text and message in text, (args, text)
        assert "cannot tell the format" not in text and "Traceback" not in text
        seen[args[0]] = code
    assert seen == {"ls": 1, "show": 2, "lint": 1, "add": 2, "status": 2, "convert": 1}


def test_convert_names_a_failed_note_once(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (repo / "aiwiki" / "sessions" / "2026-05-19-bad0000.md").write_text(BROKEN)
    code, _, err = run(capsys, "convert", ".", str(repo.parent / "out"))
    assert code == 1
    [failure] = [ln for ln in err.splitlines() if "invalid YAML" in ln]
    assert failure.count("2026-05-19-bad0000.md") == 1, failure


@pytest.mark.parametrize(
    ("name", "text", "words"),
    [
        ("python-tag", "---\nschema_id: session\nx: !!python/object:os.system ls\n---\n", ":3:"),
        ("duplicate", "---\nfocus: a\nstatus: active\nstatus: done\n---\n", ":4: duplicate key"),
        ("deep", "---\nfocus: " + "[" * 200 + "]" * 200 + "\n---\n", ":2: YAML nested deeper"),
        (
            "alias-bomb",
            "---\na: &a [x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\n"
            "c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\n"
            "e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: [*e,*e,*e,*e,*e,*e,*e,*e,*e]\n---\n",
            "alias",
        ),
    ],
)
def test_hostile_yaml_under_detection_is_its_own_error(name: str, text: str, words: str) -> None:
    with pytest.raises(sessionkit.ParseError) as info:
        sessionkit.loads(text, path="note.md")
    assert words in str(info.value), str(info.value)
    assert "cannot tell the format" not in str(info.value)


def test_cr_only_notes_are_one_clear_error_everywhere(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # docs/reliability.md: CR-only line ends are a ParseError on line 1, the same
    # everywhere (before: "cannot tell the format", or a page read as one line)
    text = PAGE.format(focus="focus: cr only").replace("\n", "\r")
    for path in ("note.md", "aiwiki/sessions/2026-05-19-bad0000.md"):
        with pytest.raises(sessionkit.ParseError, match="CR alone") as info:
            sessionkit.loads(text, path=path)
        assert info.value.line == 1
        [diag] = sessionkit.lint(text, path=path)
        assert (diag.code, diag.line) == ("AW001", 1) and "CR alone" in diag.message
    note = repo / "aiwiki" / "sessions" / "2026-05-19-bad0000.md"
    note.write_bytes(text.encode())
    for args in (["show", str(note)], ["lint", str(note)], ["ls"]):
        _, out, err = run(capsys, *args)
        assert ":1: " in out + err and "CR alone" in out + err, (args, out, err)
    assert note.read_bytes() == text.encode()


# -- advice in the caller's spelling ----------------------------------------------------


def test_advice_is_a_keyword_in_python_and_a_flag_on_the_command_line(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(sessionkit.UnsupportedFormatError) as info:
        sessionkit.loads("just words\n", path="notes.txt")
    assert str(info.value).endswith("; pass format=...")
    (repo / "notes.txt").write_text("just words\n")
    code, _, err = run(capsys, "show", "notes.txt")
    assert code == 2 and err.rstrip().endswith("; use --format"), err
    assert "pass format" not in err
    code, _, err = run(capsys, "show", "notes.txt", "--format", "aiwiki-v2")
    assert "use --format" not in err
    wiki, other = repo / "w1", repo / "w2"
    for w in (wiki, other):
        (w / "aiwiki" / "sessions").mkdir(parents=True)
    code, _, err = run(capsys, "convert", str(wiki), str(other), "--to", "aiwiki")
    assert code == 2 and "use --to" in err and "pass to=" not in err, err
    with pytest.raises(sessionkit.UnsupportedFormatError, match=r"pass to=\.\.\."):
        sessionkit.convert(str(wiki), str(other), to="aiwiki-v2")


# -- values nobody checked --------------------------------------------------------------


def test_show_of_a_page_without_frontmatter_is_not_a_session(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    index = repo / "aiwiki" / "sessions" / "INDEX.md"
    index.write_text("# Sessions\n\n- [[2026-05-18-7e8a3f2]]\n")
    code, out, err = run(capsys, "show", str(index))
    assert code == 2 and out == "" and ":1: no frontmatter" in err, (out, err)
    code, out, _ = run(capsys, "lint", str(index))
    assert "AW001" in out


def test_a_page_of_another_schema_in_the_sessions_folder_is_aw004() -> None:
    text = PAGE.format(focus="focus: x").replace("schema_id: session", "schema_id: adr")
    found = sessionkit.lint(text, path="aiwiki/sessions/2026-05-19-bad0000.md")
    assert [(d.code, d.line) for d in found] == [("AW004", 2)], found


def test_a_nul_byte_is_a_finding(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = PAGE.format(focus="focus: x").replace("- write the docs", "- write\x00 the docs")
    path = "aiwiki/sessions/2026-05-19-bad0000.md"
    assert [(d.code, d.line) for d in sessionkit.lint(text, path=path)] == [("SK003", 13)]
    note = repo / path
    note.write_text(text)
    code, out, _ = run(capsys, "lint", str(note))
    assert code == 1 and ":13: SK003 error: NUL byte" in out, out


def test_convert_to_aiwiki_v1_is_not_offered(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # before: --to aiwiki-v1 wrote v2 pages and reported "(to aiwiki-v2)"
    bm = repo / "bm"
    (bm / "sessions").mkdir(parents=True)
    code, out, err = run(capsys, "convert", str(bm), str(repo / "w"), "--to", "aiwiki-v1")
    assert code == 2 and "aiwiki-v1" in err and out == ""
    assert not (repo / "w").exists()
    with pytest.raises(sessionkit.UnsupportedFormatError, match="migrate"):
        sessionkit.convert(str(bm), str(repo / "w"), to="aiwiki-v1")
    with pytest.raises(sessionkit.UnsupportedFormatError, match="aiwiki-v2 pages"):
        sessionkit.convert_text("---\ntitle: x\ntype: session\n---\n", to="aiwiki-v1")
    assert not (repo / "w").exists()


@pytest.mark.parametrize(
    "args",
    [
        ["lint", "--format", "nonsense"],
        ["ls", "--format", "nonsense"],
        ["show", "x.md", "--format", "nonsense"],
        ["ls", "--layout", "nonsense"],
    ],
)
def test_format_and_layout_values_are_checked(
    repo: Path, capsys: pytest.CaptureFixture[str], args: list[str]
) -> None:
    code, out, err = run(capsys, *args)
    assert code == 2 and out == "" and "nonsense" in err and "choose from" in err, err
    assert "aiwiki-v2" in err or "basic-memory" in err


def test_store_list_with_a_bad_status_is_a_sessionkit_error(repo: Path) -> None:
    store = sessionkit.open_store(str(repo), layout="aiwiki")
    with pytest.raises(sessionkit.ValidationError, match="'bogus' is not one of active"):
        store.list(status="bogus")


def _without_s3fs(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib
    import sys

    registry = importlib.import_module("fsspec.registry")  # the module, not fsspec.registry
    monkeypatch.setitem(sys.modules, "s3fs", None)  # import s3fs -> ImportError
    monkeypatch.delitem(registry._registry, "s3", raising=False)


@pytest.mark.parametrize(
    "args",
    [["show", "s3://bucket/aiwiki/sessions/2026-05-18-7e8a3f2.md"], ["ls", "s3://bucket/wiki"]],
)
def test_a_missing_s3fs_says_what_to_install_everywhere(
    repo: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    args: list[str],
) -> None:
    # before: show said "internal error: ImportError: Install s3fs..."
    _without_s3fs(monkeypatch)
    code, out, err = run(capsys, *args)
    assert code == 2 and out == "", err
    assert "pip install 'sessionkit[s3]'" in err and "internal error" not in err, err


def test_store_sessions_streams_parsed_sessions(repo: Path) -> None:
    import shutil

    shutil.copytree(Path(__file__).resolve().parent.parent / "examples" / "wiki", repo / "w")
    store = sessionkit.open_store(str(repo / "w"), layout="aiwiki")
    pairs = list(store.sessions())
    keys = store.keys()
    assert [k for k, _ in pairs] == keys
    assert all(isinstance(s, sessionkit.Session) for _, s in pairs)
    assert pairs == [(k, store.get(k)) for k in keys]
    done = list(store.sessions(status="done"))
    assert done and all(s.status is sessionkit.Status.DONE for _, s in done)
    with pytest.raises(sessionkit.ValidationError):
        next(store.sessions(status="bogus"))


def test_one_numbering_of_directives_and_one_call_to_consume() -> None:
    # before: unconsumed() numbered checkpoints from 0, the CLI and hooks directives from 1
    path = Path(__file__).resolve().parent.parent / "examples/wiki/aiwiki/sessions"
    text = (path / "2026-05-18-7e8a3f2.md").read_text(encoding="utf-8")
    session = sessionkit.loads(text, path="2026-05-18-7e8a3f2.md")
    infos = sessionkit.directives_of(session)
    assert (
        [n for n, _, _ in session.unconsumed()]
        == [d.index for d in infos if d.state is sessionkit.DirectiveState.UNCONSUMED]
        == [2]
    )
    done = sessionkit.consume(session, 2, at="2026-05-20T09:00:00Z")
    assert done.unconsumed() == [] and sessionkit.consume(done) == done
    assert sessionkit.consume(session, all=True, at="2026-05-20T09:00:00Z") == done
    assert sessionkit.consume(session, at="2026-05-20T09:00:00Z") == done  # the newest
    with pytest.raises(sessionkit.ValidationError, match="no directive number 9"):
        sessionkit.consume(session, 9)
    with pytest.raises(sessionkit.ValidationError):
        sessionkit.consume(session, 2, all=True)


@pytest.mark.parametrize("layout", ["aiwiki", "basic-memory"])
def test_list_rows_are_filled_the_same_way_whatever_the_filter(
    repo: Path, capsys: pytest.CaptureFixture[str], layout: str
) -> None:
    # before: status and title None without a status filter, filled with one; id the short id
    import json
    import shutil

    example = "wiki" if layout == "aiwiki" else "bm-project"
    shutil.copytree(Path(__file__).resolve().parent.parent / "examples" / example, repo / "s")
    store = sessionkit.open_store(str(repo / "s"), layout=layout)
    plain = {n.key: n for n in store.list()}
    assert plain and all(n.status is not None for n in plain.values())
    filtered = store.list(status="active")
    assert filtered and all(plain[n.key] == n for n in filtered)
    assert all(plain[n.key] == n for n in store.list(since="2000-01-01"))
    assert main(["sessionkit", "ls", str(repo / "s"), "--layout", layout, "--json"]) == 0
    rows = {r["key"]: r for r in json.loads(capsys.readouterr().out)}
    assert {k: n.id for k, n in plain.items() if k in rows} == {k: r["id"] for k, r in rows.items()}
