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


@pytest.fixture(autouse=True, scope="session")
def _outbox_in_a_scratch_folder() -> Iterator[None]:
    """Checkpoints a hook keeps (the outbox) go to a scratch state folder, never the user's.

    For the processes a test starts with this environment; tests that build their own
    set ``HOME`` and ``XDG_STATE_HOME`` (or ``SESSIONKIT_STATE_DIR``) themselves.
    """
    folder = tempfile.mkdtemp(prefix="sk-state-")
    saved = os.environ.get("SESSIONKIT_STATE_DIR")
    os.environ["SESSIONKIT_STATE_DIR"] = folder
    try:
        yield
    finally:
        if saved is None:
            os.environ.pop("SESSIONKIT_STATE_DIR", None)
        else:
            os.environ["SESSIONKIT_STATE_DIR"] = saved
        shutil.rmtree(folder, ignore_errors=True)
