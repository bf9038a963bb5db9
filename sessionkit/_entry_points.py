"""Plugin registries: names mapped to objects or ``"module:attr"`` strings imported on first
use, with the entry points of one group read (by :mod:`importlib.metadata`) on first need.
Light to import: no :mod:`typing` at run time (the adapters' registry is on the lint path)."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

__all__ = ["Registry", "entry_points"]


def entry_points(group: str) -> list[tuple[str, str]]:
    """``(name, value)`` of every entry point in ``group``."""
    from importlib.metadata import entry_points as read

    return [(ep.name, ep.value) for ep in read(group=group)]


class Registry:
    """The plugins of one kind: built-in ones, registered ones and the ``group``'s entry points.

    ``make`` turns what a target names (or a registered object) into the plugin; ``error``
    is raised for an unknown name or a target naming nothing; ``or_package`` adds "or the
    package providing it" to the install hint.
    """

    def __init__(
        self,
        group: str,
        kind: str,
        builtin: dict[str, str],
        make: Callable[[Any], Any],
        error: type[Exception],
        *,
        long_kind: str | None = None,
        or_package: bool = False,
    ) -> None:
        self.group, self.kind, self.long_kind = group, kind, long_kind or kind
        self.make, self.error, self.or_package = make, error, or_package
        self.builtin = builtin
        self.targets: dict[str, Any] = dict(builtin)
        self.loaded: dict[str, Any] = {}
        self.read = False

    def register(self, name: str, target: Any, replace: bool) -> None:
        """Register ``target`` as ``name``; ``ValueError`` if taken and not ``replace``."""
        if name in self.targets and not replace:
            raise ValueError(f"{self.kind} {name!r} is already registered")
        self.targets[name] = target
        self.loaded.pop(name, None)

    def __contains__(self, name: str) -> bool:
        if name not in self.targets:
            self.read_entry_points()
        return name in self.targets

    def read_entry_points(self) -> None:
        """Add the group's entry points (once; a registered name wins)."""
        if not self.read:
            self.read = True
            for name, value in entry_points(self.group):
                self.targets.setdefault(name, value)

    def names(self) -> list[str]:
        """Every name, sorted."""
        self.read_entry_points()
        return sorted(self.targets)

    def get(self, name: str) -> Any:
        """The plugin ``name``, imported and made on first use."""
        if name in self.loaded:
            return self.loaded[name]
        if name not in self:
            known = ", ".join(self.names())
            raise self.error(f"unknown {self.long_kind} {name!r} (known: {known})")
        target = named = self.targets[name]
        if isinstance(target, str):
            from importlib import import_module

            from .errors import MissingDependencyError

            module_name, _, attr = target.partition(":")
            try:
                target = import_module(module_name)
            except ImportError as exc:
                missing = exc.name or "a missing module"
                hint = f" (or the package providing {missing})" if self.or_package else ""
                raise MissingDependencyError(
                    f"{self.long_kind} {name!r} needs {missing}: pip install 'sessionkit[{name}]'"
                    + hint
                ) from exc
            try:
                for part in attr.split("."):
                    target = getattr(target, part)
            except AttributeError:
                raise self.error(f"{self.kind} {name!r}: {named!r} does not exist") from None
        plugin = self.loaded[name] = self.make(target)
        return plugin
