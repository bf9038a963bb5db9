"""One isolated environment for tests that run the hooks in this process.

The hooks read configuration from the environment (``SESSIONKIT_*``,
``CLAUDE_*``, ``XDG_CONFIG_HOME``): :func:`isolated` hides the test machine's
values, points the user configuration at an empty folder, lifts the hooks'
deadline (a loaded machine must not cut a run short) and, when asked, freezes
the clock a checkpoint is stamped with.  Everything is restored on exit.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterator
from pathlib import Path
from unittest import mock

__all__ = ["FROZEN", "isolated"]

#: the time a frozen checkpoint is stamped with (2026-12-02T09:30:05Z)
FROZEN = time.struct_time((2026, 12, 2, 9, 30, 5, 2, 336, 0))

_NAMES = ("SESSIONKIT_", "CLAUDE_", "XDG_CONFIG_HOME")


@contextlib.contextmanager
def isolated(tmp: Path, *, frozen: bool = False) -> Iterator[None]:
    """No configuration from the test machine (no user file under ``tmp / "xdg"``);
    with ``frozen``, ``time.gmtime`` gives :data:`FROZEN`."""
    saved = {k: v for k, v in os.environ.items() if k.startswith(_NAMES)}
    for name in saved:
        del os.environ[name]
    os.environ["XDG_CONFIG_HOME"] = str(tmp / "xdg")
    os.environ["SESSIONKIT_STATE_DIR"] = str(tmp / "state")  # (the outbox: never the user's)
    os.environ["SESSIONKIT_HOOK_DEADLINE_MS"] = "600000"
    try:
        with mock.patch("time.gmtime", lambda *_: FROZEN) if frozen else contextlib.nullcontext():
            yield
    finally:
        for name in [k for k in os.environ if k.startswith(_NAMES)]:
            del os.environ[name]
        os.environ.update(saved)
