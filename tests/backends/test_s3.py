"""The S3 backend against moto's server over HTTP: request counts and conditional writes."""

from __future__ import annotations

from typing import Any

import pytest

import sessionkit
from sessionkit.errors import ConflictError, NotFoundError
from sessionkit.testing.s3 import MotoS3

pytestmark = pytest.mark.s3

N = 12


def _note(i: int, status: str = "done") -> str:
    return (
        f"---\nschema_id: session\nschema_version: 2\nstatus: {status}\n"
        f"date_start: 2026-05-{i + 1:02d}\nfocus: note {i}\n---\n\n## Next steps\n\n- {i}\n"
    )


@pytest.fixture
def filled(s3_server: MotoS3, s3_url: str, s3_options: dict[str, Any]) -> Any:
    store = sessionkit.open_store(f"{s3_url}/wiki", layout="aiwiki", **s3_options)
    for i in range(N):
        store.write_text(f"2026-05-{i + 1:02d}-{i:07d}.md", _note(i, "done" if i % 2 else "active"))
    store.write_text("INDEX.md", "# index\n")  # never a note
    s3_server.reset_counts()
    return store


def test_keys_is_one_listing_request(s3_server: MotoS3, filled: Any) -> None:
    keys = filled.keys()
    assert len(keys) == N and "INDEX.md" not in keys
    assert s3_server.count() == 1
    assert s3_server.count("GET", query="list-type=2") == 1


def test_read_many_is_one_get_per_note_and_no_head(s3_server: MotoS3, filled: Any) -> None:
    keys = filled.keys()
    s3_server.reset_counts()
    got = dict(filled.read_many(keys))
    assert all(isinstance(v, str) for v in got.values())
    assert s3_server.count("GET") == N
    assert s3_server.count("HEAD") == 0
    assert s3_server.count() == N


def test_list_by_date_reads_only_the_heads_it_returns(s3_server: MotoS3, filled: Any) -> None:
    notes = filled.list(since="2026-05-03", until="2026-05-05")
    assert [n.date for n in notes] == ["2026-05-03", "2026-05-04", "2026-05-05"]
    assert all(n.status is not None for n in notes)  # every row filled (#19)
    assert s3_server.count() == 1 + 3  # the listing, then one ranged GET per note kept
    assert s3_server.count("HEAD") == 0


def test_list_by_status_reads_heads_only(s3_server: MotoS3, filled: Any) -> None:
    notes = filled.list(status="done")
    assert len(notes) == N // 2 and all(n.status == "done" for n in notes)
    assert s3_server.count("GET", query="list-type=2") == 1
    assert s3_server.count("GET") == N + 1  # one ranged GET per note
    assert s3_server.count("HEAD") == 0


def test_latest_is_one_listing(s3_server: MotoS3, filled: Any) -> None:
    assert filled.latest() == f"2026-05-{N:02d}-{N - 1:07d}.md"
    assert s3_server.count() == 1


def test_create_uses_if_none_match(s3_server: MotoS3, filled: Any) -> None:
    key = "2026-05-01-0000000.md"
    with pytest.raises(ConflictError):
        filled.write_text(key, "other", create=True)
    assert filled.read_text(key) == _note(0, "active")
    assert s3_server.count("PUT") == 1  # the refused conditional PUT, nothing else written


def test_update_is_compare_and_swap(
    s3_server: MotoS3, s3_url: str, s3_options: dict[str, Any], filled: Any
) -> None:
    """A writer that changes the object between our read and our PUT makes us retry."""
    key = "2026-05-01-0000000.md"
    rival = sessionkit.open_store(f"{s3_url}/wiki", layout="aiwiki", **s3_options)
    calls: list[str | None] = []

    def edit(text: str | None) -> str:
        calls.append(text)
        if len(calls) == 1:  # someone else writes after our read
            rival.write_text(key, (text or "") + "rival\n")
        return (text or "") + "mine\n"

    out = filled.update_text(key, edit)
    assert out is not None and out.endswith("rival\nmine\n")
    assert filled.read_text(key) == out
    assert len(calls) == 2  # the first swap failed on If-Match, the retry won


def test_update_missing_creates_with_if_none_match(filled: Any) -> None:
    assert filled.update_text("new.md", lambda t: (t or "") + "x") == "x"
    assert filled.read_text("new.md") == "x"


def test_cas_gives_up_after_max_attempts(s3_url: str, s3_options: dict[str, Any]) -> None:
    store = sessionkit.open_store(f"{s3_url}/wiki", layout="aiwiki", max_attempts=2, **s3_options)
    assert store.describe()["guarantee"] == "cas"
    store.write_text("n.md", "0")
    rival = sessionkit.open_store(f"{s3_url}/wiki", layout="aiwiki", **s3_options)

    def always_lose(text: str | None) -> str:
        rival.write_text("n.md", (text or "") + "r")
        return (text or "") + "m"

    with pytest.raises(ConflictError):
        store.update_text("n.md", always_lose)


def test_delete_missing_is_not_found(filled: Any) -> None:
    with pytest.raises(NotFoundError):
        filled.delete("nope.md")


def test_layout_detected_from_bucket(s3_url: str, s3_options: dict[str, Any]) -> None:
    bm = sessionkit.open_store(f"{s3_url}/proj", layout="basic-memory", **s3_options)
    bm.write_text("Session one.md", "---\ntype: session\n---\n")
    aw = sessionkit.open_store(f"{s3_url}/repo", layout="aiwiki", **s3_options)
    aw.write_text("2026-05-18-0000000.md", "x")
    assert sessionkit.open_store(f"{s3_url}/proj", **s3_options).layout == "basic-memory"
    assert sessionkit.open_store(f"{s3_url}/repo", **s3_options).layout == "aiwiki"
    again = sessionkit.open_store(f"{s3_url}/repo/aiwiki/sessions", **s3_options)
    assert again.keys() == ["2026-05-18-0000000.md"]


def test_example_wiki_copied_to_s3_reads_back_identically(
    s3_url: str, s3_options: dict[str, Any], tmp_path: Any
) -> None:
    from pathlib import Path

    examples = Path(__file__).resolve().parents[2] / "examples" / "wiki"
    if not (examples / "aiwiki" / "sessions").is_dir():
        pytest.skip("examples/wiki not present")
    local = sessionkit.open_store(examples)
    remote = sessionkit.open_store(f"{s3_url}/wiki", layout="aiwiki", **s3_options)
    for key, text in local.read_many(local.keys()):
        assert isinstance(text, str)
        remote.write_text(key, text, create=True)
    assert remote.keys() == local.keys()
    assert dict(remote.read_many(remote.keys())) == dict(local.read_many(local.keys()))
    assert [(n.key, n.date, n.status) for n in remote.list(status="active")] == [
        (n.key, n.date, n.status) for n in local.list(status="active")
    ]


def test_example_wiki_converted_through_s3_comes_back_equal(
    s3_url: str, s3_options: dict[str, Any]
) -> None:
    """aiwiki (local) -> Basic Memory on S3 -> aiwiki on S3: the same sessions."""
    from pathlib import Path

    from sessionkit.serialize import to_json

    examples = Path(__file__).resolve().parents[2] / "examples" / "wiki"
    local = sessionkit.open_store(examples)
    bm = sessionkit.open_store(f"{s3_url}/bm", layout="basic-memory", **s3_options)
    back = sessionkit.open_store(f"{s3_url}/back", layout="aiwiki", **s3_options)
    there = sessionkit.convert(local, bm, to="basic-memory", project="demo")
    again = sessionkit.convert(bm, back, to="aiwiki-v2")
    assert there.ok and again.ok
    keys = local.keys()
    assert len(bm.keys()) == len(keys) == len(back.keys())
    assert back.keys() == keys  # session ids map back to the same file names
    for key in keys:
        original, returned = local.get(key), back.get(key)
        if original.origin is not None and original.origin.format == "aiwiki-v2":
            assert to_json(returned) == to_json(original), key
        assert sessionkit.lint(back.read_text(key), path=f"aiwiki/sessions/{key}") == []
    # a second run over the same source writes nothing
    assert not sessionkit.convert(local, bm, to="basic-memory", project="demo").written
