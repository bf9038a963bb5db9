"""Fixtures shared across the test folders."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture
def crash_dir() -> Iterator[Path]:
    """A scratch folder for kill -9 trials, on /dev/shm when it is writable (fast fsync)."""
    shm = Path("/dev/shm")
    parent = str(shm) if shm.is_dir() and os.access(shm, os.W_OK) else None
    folder = Path(tempfile.mkdtemp(prefix="sk-crash-", dir=parent))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)
