"""The conformance suite on every built-in backend: local disk, memory:// and S3 (moto)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import sessionkit
from sessionkit.backends import Store
from sessionkit.testing.conformance import StoreConformance


class TestLocalAiwiki(StoreConformance):
    @pytest.fixture
    def store(self, tmp_path: Path) -> Iterator[Store]:
        (tmp_path / "aiwiki").mkdir()
        yield sessionkit.open_store(tmp_path)


class TestLocalBasicMemory(StoreConformance):
    @pytest.fixture
    def store(self, tmp_path: Path) -> Iterator[Store]:
        yield sessionkit.open_store(f"bm://{tmp_path}")


class TestMemoryAiwiki(StoreConformance):
    @pytest.fixture
    def store(self, memory_url: str) -> Iterator[Store]:
        yield sessionkit.open_store(memory_url, layout="aiwiki")


class TestMemoryBasicMemory(StoreConformance):
    @pytest.fixture
    def store(self, memory_url: str) -> Iterator[Store]:
        yield sessionkit.open_store(memory_url, layout="basic-memory")


@pytest.mark.s3
class TestS3Aiwiki(StoreConformance):
    @pytest.fixture
    def store(self, s3_url: str, s3_options: dict[str, Any]) -> Iterator[Store]:
        yield sessionkit.open_store(f"{s3_url}/team/wiki", layout="aiwiki", **s3_options)
