"""The conformance suite every store backend should pass.

Inherit :class:`StoreConformance` and provide one fixture, ``store``, yielding a
fresh *empty* store::

    class TestMyStore(StoreConformance):
        @pytest.fixture
        def store(self, tmp_path):
            yield MyStore(tmp_path)

It checks the :class:`sessionkit.backends.Store` contract: exact bytes, create-only
writes, read-modify-write without lost updates, errors from :mod:`sessionkit.errors`,
refused unsafe keys, ``read_many`` order, and model-level ``put``/``get``/``update``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest

from ..backends import Store
from ..errors import ConflictError, NotFoundError, PathSafetyError, SessionKitError
from ..model import Session, Status

__all__ = ["UNSAFE_KEYS", "StoreConformance"]

#: keys every store must refuse with PathSafetyError
UNSAFE_KEYS = [
    "../escape.md",
    "a/../../escape.md",
    "/etc/passwd",
    "C:/Windows/x.md",
    "s3://elsewhere/x.md",
    "bad\x00name.md",
    "back\\slash.md",
    "con.md",
    "nul",
    "LPT1.txt",
    "x" * 300 + ".md",
    "",
    " padded.md",
    "a//b.md",
    "./a.md",
    "tab\there.md",
]

NOTE = (
    "---\nschema_id: session\nschema_version: 2\nstatus: active\n"
    "date_start: 2026-05-18\nfocus: conformance\n---\n\n## Next steps\n\n- one\n"
)


def _append(line: str) -> Callable[[str | None], str]:
    def fn(text: str | None) -> str:
        return (text or "") + line

    return fn


class StoreConformance:
    """Tests a store backend inherits; provide a ``store`` fixture yielding an empty store."""

    # -- bytes ----------------------------------------------------------------
    def test_empty_store_lists_nothing(self, store: Store) -> None:
        assert store.keys() == []
        assert store.latest() is None
        assert store.list() == []

    def test_write_then_read_exact_text(self, store: Store) -> None:
        quirky = "\ufeff---\r\nfocus: café ☕\r\n---\r\nline without end"
        store.write_text("2026-05-18-aaaaaaa.md", quirky)
        assert store.read_text("2026-05-18-aaaaaaa.md") == quirky

    def test_keys_sorted_and_only_notes(self, store: Store) -> None:
        for key in ("2026-05-19-b.md", "2026-05-18-a.md", "sub/2026-05-20-c.md"):
            store.write_text(key, NOTE)
        keys = store.keys()
        assert keys == sorted(keys)
        assert set(keys) == {"2026-05-19-b.md", "2026-05-18-a.md", "sub/2026-05-20-c.md"}
        assert store.exists("2026-05-18-a.md")
        assert not store.exists("2026-05-18-zzz.md")

    def test_overwrite_replaces(self, store: Store) -> None:
        store.write_text("n.md", "old")
        store.write_text("n.md", "new")
        assert store.read_text("n.md") == "new"

    def test_create_only_refuses_existing(self, store: Store) -> None:
        store.write_text("n.md", "first", create=True)
        with pytest.raises(ConflictError):
            store.write_text("n.md", "second", create=True)
        assert store.read_text("n.md") == "first"

    def test_read_missing_is_not_found(self, store: Store) -> None:
        with pytest.raises(NotFoundError):
            store.read_text("missing.md")

    def test_delete(self, store: Store) -> None:
        store.write_text("n.md", "x")
        store.delete("n.md")
        assert store.keys() == []
        with pytest.raises(NotFoundError):
            store.delete("n.md")

    def test_read_many_keeps_order_and_yields_errors(self, store: Store) -> None:
        for i in range(5):
            store.write_text(f"{i}.md", f"note {i}")
        wanted = ["3.md", "missing.md", "0.md", "4.md"]
        got = list(store.read_many(wanted))
        assert [k for k, _ in got] == wanted
        assert got[0][1] == "note 3" and got[2][1] == "note 0" and got[3][1] == "note 4"
        assert isinstance(got[1][1], NotFoundError)

    # -- read-modify-write ----------------------------------------------------
    def test_update_text_creates_and_appends(self, store: Store) -> None:
        assert store.update_text("n.md", _append("a\n")) == "a\n"
        assert store.update_text("n.md", _append("b\n")) == "a\nb\n"
        assert store.read_text("n.md") == "a\nb\n"

    def test_update_text_none_leaves_note(self, store: Store) -> None:
        store.write_text("n.md", "keep")
        assert store.update_text("n.md", lambda text: None) == "keep"
        assert store.update_text("absent.md", lambda text: None) is None
        assert not store.exists("absent.md")

    def test_update_text_error_writes_nothing(self, store: Store) -> None:
        store.write_text("n.md", "keep")

        def boom(text: str | None) -> str:
            raise NotFoundError("refused by the callback")

        with pytest.raises(NotFoundError):
            store.update_text("n.md", boom)
        assert store.read_text("n.md") == "keep"

    def test_concurrent_updates_lose_nothing(self, store: Store) -> None:
        threads, per_thread = 4, 5
        errors: list[BaseException] = []

        def work(t: int) -> None:
            try:
                for i in range(per_thread):
                    store.update_text("shared.md", _append(f"t{t}-{i}\n"))
            except BaseException as exc:  # pragma: no cover - reported below
                errors.append(exc)

        pool = [threading.Thread(target=work, args=(t,)) for t in range(threads)]
        for th in pool:
            th.start()
        for th in pool:
            th.join()
        assert not errors
        lines = store.read_text("shared.md").splitlines()
        assert sorted(lines) == sorted(
            f"t{t}-{i}" for t in range(threads) for i in range(per_thread)
        )

    # -- safety ---------------------------------------------------------------
    @pytest.mark.parametrize("key", UNSAFE_KEYS)
    def test_unsafe_keys_refused(self, store: Store, key: str) -> None:
        with pytest.raises(PathSafetyError):
            store.write_text(key, "x")
        with pytest.raises(PathSafetyError):
            store.read_text(key)
        with pytest.raises(PathSafetyError):
            store.update_text(key, _append("x"))
        with pytest.raises(PathSafetyError):
            store.delete(key)
        assert store.keys() == []

    def test_errors_are_sessionkit_errors(self, store: Store) -> None:
        with pytest.raises(SessionKitError):
            store.read_text("nope.md")

    # -- layout ---------------------------------------------------------------
    def test_key_for_is_safe(self, store: Store) -> None:
        hostile = Session(
            id="../../etc/passwd\x00", started="2026-05-18", title="a/b\\c:..", focus="x"
        )
        key = store.key_for(hostile)
        assert ".." not in key.split("/") and "\x00" not in key and "\\" not in key
        store.write_text(key, NOTE)
        assert store.exists(key)

    def test_describe(self, store: Store) -> None:
        info = store.describe()
        assert {"url", "layout", "format"} <= set(info)

    # -- model level (needs a format adapter) ---------------------------------
    def _adapter(self, store: Store) -> None:
        from ..adapters import get_adapter

        try:
            get_adapter(store.format)
        except SessionKitError as exc:
            pytest.skip(f"format {store.format!r} not available: {exc}")

    def test_put_get_round_trip(self, store: Store) -> None:
        self._adapter(store)
        session = Session(
            id="7e8a3f2c-0000-4000-8000-000000000000",
            status=Status.ACTIVE,
            focus="conformance",
            title="Session 2026-05-18 conformance",
            started="2026-05-18",
            next_steps=("one",),
        )
        key = store.put(session)
        assert store.exists(key)
        back = store.get(key)
        assert back.next_steps == ("one",)
        with pytest.raises(ConflictError):
            store.put(session, key)

    def test_update_model(self, store: Store) -> None:
        self._adapter(store)
        import attrs

        session = Session(id="abcdef0123", focus="f", title="Session update", started="2026-05-18")
        key = store.put(session)
        store.update(key, lambda s: attrs.evolve(s, next_steps=(*s.next_steps, "added")))
        assert "added" in store.get(key).next_steps
