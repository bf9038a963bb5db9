"""Whether any configuration source exists, and the repository root, found without the
configuration module (which asks these too): the hooks and ``lint`` import it only when
a source exists."""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator

__all__ = [
    "MIN_BUDGET",
    "PROJECT_FILE",
    "UNITS",
    "check_budget",
    "config_sources_exist",
    "project_file",
    "repository_above",
    "repository_root",
    "scalar",
]

#: name of the project configuration file (:data:`sessionkit.config.PROJECT_FILE`)
PROJECT_FILE = ".sessionkit.toml"
#: variables of that prefix that are no configuration setting (read where they are used:
#: the hook reads its deadline's variable itself, and hooks.deadline_ms is for it alone)
_NOT_CONFIG = frozenset(
    {"SESSIONKIT_DEBUG", "SESSIONKIT_FAST_PATHS", "SESSIONKIT_HOOK_DEADLINE_MS"}
)


def config_sources_exist(start: str) -> bool:
    """Whether any configuration source exists for a command started in ``start``: a
    ``SESSIONKIT_*`` variable, a project file at or above ``start``, the user file."""
    if any(k.startswith("SESSIONKIT_") and k not in _NOT_CONFIG for k in os.environ):
        return True
    if project_file(os.path.abspath(start)) is not None:
        return True
    from ._userconfig import user_config_file

    return os.path.isfile(user_config_file())


def project_file(start: str) -> str | None:
    """The nearest ``.sessionkit.toml`` at or above the absolute path ``start``, if any."""
    for folder in _up(start):
        candidate = os.path.join(folder, PROJECT_FILE)
        if os.path.isfile(candidate):
            return candidate
    return None


def repository_root(start: str) -> str:
    """The nearest ancestor of the absolute path ``start`` (itself included) holding
    ``aiwiki/`` or ``.git``, else ``start`` (the rule of
    :func:`sessionkit.config.repository_root`, which asks this, as the hooks do)."""
    found = repository_above(start)
    return start if found is None else found


def repository_above(start: str) -> str | None:
    """The nearest ancestor of ``start`` (itself included) holding ``aiwiki/`` or
    ``.git``, or ``None`` when there is none."""
    for folder in _up(start):
        if os.path.isdir(os.path.join(folder, "aiwiki")) or os.path.exists(
            os.path.join(folder, ".git")
        ):
            return folder
    return None


def _up(here: str) -> Iterator[str]:
    """``here`` and each of its parents, nearest first."""
    while True:
        yield here
        parent = os.path.dirname(here)
        if parent == here:
            return
        here = parent


# -- the context budget (hooks.context_budget, context_unit): checked by the
# configuration and by sessionkit.context, which re-exports these names

#: the smallest usable budget, by unit (the parts that are never left out fit in it)
MIN_BUDGET = {"chars": 1000, "tokens": 350}
#: budget units: characters, or tokens estimated as one per three UTF-8 bytes
UNITS = ("chars", "tokens")


def check_budget(budget: int, unit: str = "chars") -> str | None:
    """Why ``budget`` is unusable in ``unit`` (``None`` when it is fine; 0 means no limit)."""
    if unit not in UNITS:
        return f"unit must be one of {', '.join(UNITS)}, not {unit!r}"
    if budget == 0:
        return None
    if budget < MIN_BUDGET[unit]:
        return f"must be 0 (no limit) or at least {MIN_BUDGET[unit]} {unit}, not {budget}"
    return None


def scalar(raw: str) -> str | int | float | bool:
    """A ``--storage-option``/``config set`` value: a TOML scalar literal, else ``raw`` itself."""
    import tomllib

    try:
        value = tomllib.loads(f"v = {raw}")["v"]
    except tomllib.TOMLDecodeError:
        return raw
    return value if isinstance(value, str | int | float | bool) else raw
