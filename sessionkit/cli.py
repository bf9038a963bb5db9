"""The ``sessionkit`` command: a thin entry point.

:func:`console` is the console script (the whole process); :func:`main` runs
the command line for a program that calls it and returns the exit code.
Neither imports anything heavy itself: the agent hooks (``sessionkit hook
...``) run on every compaction and session start, so they are dispatched to
:mod:`sessionkit.hooks` before click is imported.  Every other command lives
in :mod:`sessionkit._cli` (click).

Exit codes: 0 ok, 1 findings of error severity, 2 unusable input or usage.
Errors are one line on stderr, ``sessionkit: path:line: message``; no
traceback reaches a user.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

__all__ = ["console", "main"]


def _hook_main() -> Any:
    """``sessionkit.hooks.main`` when that module exists, else ``None``."""
    try:
        from . import hooks
    except ModuleNotFoundError as exc:  # (ImportError: a name the module lacks)
        if exc.name != "sessionkit.hooks":
            raise
        return None
    return hooks.main


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line and return its exit code.

    Args:
        argv: the full argument vector, program name first (default: ``sys.argv``).
    """
    args = list(sys.argv if argv is None else argv)
    if args[1:2] == ["hook"]:
        try:
            hook_main = _hook_main()
        except Exception as exc:  # a hook must never break the agent: report, exit 0
            print(f"sessionkit: hook: {type(exc).__name__}: {exc}", file=sys.stderr)
            return 0
        if hook_main is not None:
            return int(hook_main(args[2:]))
    from ._names import escape_streams

    escape_streams()  # (a file name that is not UTF-8 is printed escaped, never an error)
    from ._cli import run

    return run(args[1:])


def console() -> int:
    """The ``sessionkit`` console script (and ``python -m sessionkit``): :func:`main`
    for this process's arguments, run as the whole of this process.

    A hook run is a short process that makes many small objects (its modules'
    functions, a folder's names) and no garbage worth a collector's pass over
    them: the garbage collector stays off.
    """
    command = sys.argv[1:2]
    if command == ["hook"]:
        import gc

        gc.disable()
    return main()


def __getattr__(name: str) -> Any:
    # ``sessionkit.cli.cli`` is the click group (imported on first use)
    if name == "cli":
        from ._cli import cli

        return cli
    raise AttributeError(f"module 'sessionkit.cli' has no attribute {name!r}")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(console())
