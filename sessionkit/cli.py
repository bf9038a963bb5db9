"""The ``sessionkit`` command: a thin entry point.

:func:`console` is the console script; :func:`main` runs a command line and returns
its exit code (0 ok, 1 findings, 2 unusable input or usage).  ``sessionkit hook ...``
goes to :mod:`sessionkit.hooks` before click is imported; every other command lives
in :mod:`sessionkit._cli` (click).
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

__all__ = ["console", "main"]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line ``argv`` (program name first; default ``sys.argv``) and
    return its exit code."""
    args = list(sys.argv if argv is None else argv)
    if args[1:2] == ["hook"]:
        try:
            from .hooks import main as hook_main
        except Exception as exc:  # a hook must never break the agent: report, exit 0
            print(f"sessionkit: hook: {type(exc).__name__}: {exc}", file=sys.stderr)
            return 0
        return int(hook_main(args[2:]))
    from ._names import escape_streams

    escape_streams()  # (a file name that is not UTF-8 is printed escaped, never an error)
    from ._cli import run

    return run(args[1:])


def console() -> int:
    """The ``sessionkit`` console script (and ``python -m sessionkit``); a hook run, a
    short process with no garbage worth collecting, runs with the collector off."""
    if sys.argv[1:2] == ["hook"]:
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
