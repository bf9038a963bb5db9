"""``sessionkit ls`` reads an aiwiki page's frontmatter fields, not its body.

The lane must list exactly what the whole read lists, and refuse exactly the
notes the whole read refuses, with the same message: these tests run ``ls``
(``--json`` and the table) with the lane on and off over pages of every kind,
and check that the lane answered where it should.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sessionkit.cli import cli

REPO = Path(__file__).resolve().parent.parent
EXAMPLE = REPO / "examples" / "wiki" / "aiwiki" / "sessions" / "2026-05-18-7e8a3f2.md"

BODY = "\n## Next steps\n\n- write the docs\n"


def _page(front: str, body: str = BODY) -> str:
    return f"---\n{front}---\n{body}"


#: file name -> bytes: the notes of the folder the tests list
PAGES: dict[str, bytes] = {
    "2026-05-18-7e8a3f2.md": EXAMPLE.read_bytes(),
    "2026-05-19-aaaaaaa.md": _page(
        "schema_id: session\nschema_version: 2\nsession_id: aaaaaaa-1\nstatus: done\n"
        "date_start: 2026-05-19T10:00:00Z\nfocus: 'quoted: focus'\n"
    ).encode(),
    "2026-05-20-bbbbbbb.md": _page(
        "schema_id: session\nschema_version: 1\nstatus: abandoned\ndate_start: 2026-05-20\n"
        "focus: a v1 page\n"
    ).encode(),
    "2026-05-21-ccccccc.md": _page(
        "schema_id: session\nschema_version: 2\nsession_id: ccccccc-2\ndate_start: 2026-05-21\n"
        "focus: CRLF\n"
    )
    .replace("\n", "\r\n")
    .encode(),
    "2026-05-22-ddddddd.md": b"\xef\xbb\xbf"
    + _page("schema_id: session\nschema_version: 2\nstatus: active\nfocus: a BOM\n").encode(),
    "2026-05-23-eeeeeee.md": _page("schema_id: session\nfocus: [not, text]\n").encode(),
    "2026-05-24-fffffff.md": _page("schema_id: session\nstatus: paused\n").encode(),
    "2026-05-25-ggggggg.md": _page("schema_id: decision\nstatus: done\n").encode(),
    "2026-05-26-hhhhhhh.md": _page("schema_id: session\nfocus: [unclosed\n").encode(),
    "2026-05-27-iiiiiii.md": b"no frontmatter at all\n",
    "2026-05-28-jjjjjjj.md": _page("schema_id: session\nfocus: 12\nsession_id: 0x1f\n").encode(),
    "2026-05-29-kkkkkkk.md": _page(
        "title: a Basic Memory note\ntype: session\npermalink: notes/a-note\nstatus: done\n",
        "\n## Observations\n\n- [focus] the body holds this #tag\n",
    ).encode(),
    "2026-05-30-lllllll.md": _page('schema_id: session\nfocus: "a\x00b"\n').encode(),
    "2026-05-31-mmmmmmm.md": b"---\nschema_id: session\nfocus: unclosed frontmatter\n",
    "2026-06-01-nnnnnnn.md": _page(
        "schema_id: session\nschema_version: 2\nstatus:\ndate_end: 2026-06-02\n"
        "last_commit: abc1234\nextra_key: kept\n"
    ).encode(),
}


def _ls(folder: Path, *args: str) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of ``ls --jobs 1 FOLDER ARGS``."""
    done = CliRunner().invoke(cli, ["ls", str(folder), "--jobs", "1", *args])
    return done.exit_code, done.stdout, done.stderr


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in list(os.environ):
        if name.startswith("SESSIONKIT_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.chdir(tmp_path)
    sessions = tmp_path / "wiki" / "aiwiki" / "sessions"
    sessions.mkdir(parents=True)
    for name, data in PAGES.items():
        (sessions / name).write_bytes(data)
    return tmp_path / "wiki"


@pytest.mark.parametrize("args", [(), ("--json",), ("--status", "done"), ("--since", "2026-05-21")])
def test_ls_lists_and_refuses(folder: Path, args: tuple[str, ...]) -> None:
    code, _, err = _ls(folder, *args)
    assert code == 1  # the notes that do not read are reported, as before
    assert err.count("sessionkit: ") == 7, err


def test_the_listing_holds_the_frontmatter_fields(folder: Path) -> None:
    import json

    _, out, _ = _ls(folder, "--json")
    rows = {row["key"]: row for row in json.loads(out)}
    assert rows["2026-05-19-aaaaaaa.md"] == {
        "key": "2026-05-19-aaaaaaa.md",
        "date": "2026-05-19",
        "id": "aaaaaaa-1",
        "status": "done",
        "focus": "quoted: focus",
        "title": None,
    }
    assert rows["2026-06-01-nnnnnnn.md"]["status"] == "active"  # (no status: active)
    assert rows["2026-06-01-nnnnnnn.md"]["date"] == "2026-06-01"  # (from the name)
    assert rows["2026-05-28-jjjjjjj.md"]["focus"] == "12"
    assert rows["2026-05-29-kkkkkkk.md"]["title"] == "a Basic Memory note"


VALUES = st.one_of(
    st.sampled_from(["done", "active", "abandoned", "paused", "~", "''", "[a, b]", "{a: 1}"]),
    st.sampled_from(["2026-05-18", "2026-05-18T10:00:00Z", "12", "1.5", "true", "'x: y'"]),
    st.text(st.characters(codec="utf-8", exclude_characters="\r\x85\u2028\u2029"), max_size=12),
)
KEYS = st.sampled_from(
    ["status", "session_id", "date_start", "date_end", "focus", "last_commit", "schema_id", "x"]
)


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(st.lists(st.tuples(KEYS, VALUES), max_size=6))
def test_any_frontmatter_lists_as_the_whole_read_lists_it(
    tmp_path_factory: pytest.TempPathFactory, pairs: list[tuple[str, str]]
) -> None:
    import json

    import sessionkit

    folder = tmp_path_factory.mktemp("wiki")
    sessions = folder / "aiwiki" / "sessions"
    sessions.mkdir(parents=True)
    front = "schema_id: session\n" + "".join(f"{key}: {value}\n" for key, value in pairs)
    page = sessions / "2026-05-18-7e8a3f2.md"
    page.write_text(_page(front), "utf-8", newline="")
    code, out, err = _ls(folder, "--json")
    try:
        session = sessionkit.loads(_page(front), "aiwiki/sessions/2026-05-18-7e8a3f2.md")
    except sessionkit.SessionKitError:
        assert code == 1 and "sessionkit: " in err
        return
    assert code == 0, err
    (row,) = json.loads(out)
    assert row["id"] == session.id and row["focus"] == session.focus
    assert row["status"] == session.status.value and row["title"] == session.title
