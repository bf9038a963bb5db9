"""Fixtures for the store tests: a moto S3 server (one per session), fresh buckets, counters."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from sessionkit.testing.s3 import MotoS3, moto_s3


@pytest.fixture(scope="session")
def s3_server() -> Iterator[MotoS3]:
    """moto's S3 server on 127.0.0.1 (free port), shared by the session's tests."""
    pytest.importorskip("moto.server", reason="needs moto[server]")
    pytest.importorskip("s3fs", reason="needs s3fs")
    with moto_s3() as server:
        yield server


@pytest.fixture
def s3_url(s3_server: MotoS3) -> str:
    """A fresh, empty bucket for this test (``s3://<bucket>``)."""
    return s3_server.make_bucket(f"t-{uuid.uuid4().hex[:16]}")


@pytest.fixture
def s3_options(s3_server: MotoS3) -> dict[str, Any]:
    """Storage options reaching the moto server."""
    return s3_server.storage_options


@pytest.fixture
def memory_url() -> Iterator[str]:
    """A fresh ``memory://`` folder, removed afterwards."""
    import fsspec

    name = f"memory://sk-{uuid.uuid4().hex[:12]}"
    yield name
    fs = fsspec.filesystem("memory")
    path = name[len("memory://") :]
    if fs.exists(path):
        fs.rm(path, recursive=True)


class CallCounter:
    """Counts calls to chosen methods of an object (an fsspec filesystem)."""

    def __init__(self, target: Any, names: tuple[str, ...]) -> None:
        self.calls: list[str] = []
        self._target = target
        self._saved: dict[str, Any] = {}
        for name in names:
            original = getattr(target, name)
            self._saved[name] = original
            setattr(target, name, self._wrap(name, original))

    def _wrap(self, name: str, original: Callable[..., Any]) -> Callable[..., Any]:
        def counted(*args: Any, **kwargs: Any) -> Any:
            self.calls.append(name)
            return original(*args, **kwargs)

        return counted

    def count(self, name: str) -> int:
        return self.calls.count(name)

    def restore(self) -> None:
        for name, original in self._saved.items():
            delattr(self._target, name) if name not in type(self._target).__dict__ else None
            setattr(self._target, name, original)
        for name in self._saved:
            self._target.__dict__.pop(name, None)
