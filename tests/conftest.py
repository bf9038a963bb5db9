"""Fixtures shared across the test folders."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# Hypothesis: the default run tries fewer examples of the tests that name no count
# (``nox -s tests`` and ``nox -s stress`` load "ci", Hypothesis's own 100), and no
# example is failed for the time it took on a loaded machine (no deadline, no too_slow).
_LOAD_PROOF = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow]}
settings.register_profile("quick", max_examples=25, **_LOAD_PROOF)
settings.register_profile("ci", max_examples=100, **_LOAD_PROOF)
settings.load_profile("quick")


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
