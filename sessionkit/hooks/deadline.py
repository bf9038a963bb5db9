"""The time budget of one hook run (``hooks.deadline_ms``, default 5000 ms)."""

from __future__ import annotations

import os
import sys
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["DEADLINE_ENV", "DEADLINE_MS", "Deadline", "DeadlineExceeded", "deadline_ms"]

#: default time budget of one hook run, in milliseconds (``hooks.deadline_ms``)
DEADLINE_MS = 5000
DEADLINE_ENV = "SESSIONKIT_HOOK_DEADLINE_MS"
#: seconds kept back from the budget for the interpreter's exit
EXIT_RESERVE = 0.15


class DeadlineExceeded(BaseException):
    """A hook ran out of its time budget.

    A ``BaseException`` (like ``KeyboardInterrupt``), so no library's
    ``except Exception`` retry loop swallows it; ``finally`` blocks still run,
    which is how a store write in flight removes its temp file.

    Attributes:
        stage: what the hook was doing (``reading stdin``, ``writing the store``).
        seconds: the budget, in seconds.
        kept: the outbox entry the checkpoint went to instead (``""``: writing it
            failed; ``None``: there was none to keep).
    """

    def __init__(self, stage: str, seconds: float) -> None:
        super().__init__(stage, seconds)
        self.stage = stage
        self.seconds = seconds
        self.kept: str | None = None


class Deadline:
    """The budget of one hook run from its start (monotonic clock).

    :meth:`arm` sets a ``SIGALRM`` timer (main thread, POSIX) that raises
    :class:`DeadlineExceeded` wherever the hook is; the hook's own blocking
    reads (stdin) are bounded by :meth:`remaining` as well.  ``clock`` is the
    monotonic clock (tests inject their own).
    """

    def __init__(self, seconds: float, *, since_start: float = 0.0, clock: Any = None) -> None:
        self.clock = clock or time.monotonic
        self.start = self.clock() - since_start - EXIT_RESERVE
        self.seconds = seconds
        self.end = self.start + seconds
        self.stage = "starting"
        self.process_entry = False  # the hook is the whole process (the console script)
        self._armed = False
        self._previous: Any = None

    def remaining(self) -> float:
        return max(0.0, self.end - self.clock())

    def enter(self, stage: str) -> None:
        """Say what the hook does next; raise at once when no time is left."""
        self.stage = stage
        if self.remaining() <= 0:
            self.disarm()  # said now: the timer must not fire again while the hook says it
            raise DeadlineExceeded(stage, self.seconds)

    def reset(self, seconds: float) -> None:
        """Change the budget (the configuration may set another one), still from the start."""
        self.seconds = seconds
        self.end = self.start + seconds
        if self._armed:
            self._set_timer()

    def _fire(self, signum: int, frame: Any) -> None:
        self.disarm()
        raise DeadlineExceeded(self.stage, self.seconds)

    def _set_timer(self) -> None:
        _signal().setitimer(_signal().ITIMER_REAL, max(self.remaining(), 0.001))

    def arm(self) -> None:
        signal = _signal()
        if self._armed or not hasattr(signal, "setitimer"):
            return
        try:
            self._previous = signal.signal(signal.SIGALRM, self._fire)
        except ValueError:  # not the main thread (the bounded reads still hold)
            return
        self._armed = True
        self._set_timer()

    def disarm(self) -> None:
        if not self._armed:
            return
        signal = _signal()
        self._armed = False
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, self._previous or signal.SIG_DFL)


def _signal() -> Any:
    """``_signal`` (loaded at start-up; :mod:`signal` builds enums on import), else ``signal``."""
    module = sys.modules.get("signal") or sys.modules.get("_signal")
    if module is None:  # pragma: no cover - not CPython
        import signal as module
    return module


def process_age() -> float:
    """Seconds since this process started (Linux ``/proc``), else ``0.0``: the agent's
    budget covers the interpreter's start-up too."""
    try:
        with open("/proc/self/stat", "rb") as fh:
            stat = fh.read().rsplit(b")", 1)[1].split()
        with open("/proc/uptime", "rb") as fh:
            uptime = float(fh.read().split()[0])
        age = uptime - int(stat[19]) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, AttributeError):
        return 0.0
    return age if 0.0 <= age < 60.0 else 0.0


def deadline_ms(raw: object) -> int | None:
    """A positive number of milliseconds from ``raw`` (a string or an int), else ``None``."""
    if isinstance(raw, bool):
        return None
    if isinstance(raw, int):
        return raw if raw > 0 else None
    text = str(raw or "").strip().replace("_", "")
    return int(text) if text.isdigit() and int(text) > 0 else None
