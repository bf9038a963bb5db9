"""What a hook needs from the configuration, and the store it opens."""

from __future__ import annotations

import os
import time

from .._config_sources import config_sources_exist, repository_root
from .payload import say

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from .deadline import Deadline

__all__ = [
    "HookDefaults",
    "Settings",
    "bounded_options",
    "configured_deadline",
    "deliver",
    "kept_line",
]


class HookDefaults:
    """Built-in hook behaviour, when no configuration source exists."""

    directive_kind = "Dream"
    directive_scope = "`aiwiki/raw/`, recently-touched typed pages"
    directive_action = "invoke `support-dream` skill before resuming other work"
    session_start_output = "json"
    store = None
    context_budget = 9000
    context_unit = "chars"
    deadline_ms: int | None = None  # then $SESSIONKIT_HOOK_DEADLINE_MS, else DEADLINE_MS


class Settings:
    """The store and hook settings for a run started in ``start``.

    The configuration module is imported only when a configuration source
    exists (:func:`~sessionkit._config_sources.config_sources_exist`); otherwise
    the built-in defaults apply, which is what ``load_config`` would return.
    """

    def __init__(self, start: str, store: str | None, options: Sequence[str] = ()) -> None:
        self.start = start
        self.repo_root = repository_root(start)
        self.options: dict[str, Any] = {}
        self.layout: str | None = None
        self.format: str | None = None
        self.bm_project: str | None = None
        self.hooks: Any = HookDefaults()
        self.secrets: Any = None  # the configuration's secrets settings (None: redact)
        self.max_note_bytes = 8 * 1024 * 1024
        from_config = False
        if config_sources_exist(start):
            from ..config import hook_store_url, load_config, storage_options_for

            # a bad value must not stop the hook: that key's default applies, one line says so
            config = load_config(start, on_problem=_config_problem)
            self.hooks = config.hooks
            self.secrets = config.secrets
            self.max_note_bytes = config.limits.max_note_bytes
            self.layout, self.format = config.layout, config.format
            self.bm_project = config.bm_project
            from_config = bool(config.hooks.store) or config.source("store.url").kind != "default"
            url = store or hook_store_url(config, start)
            self.options = storage_options_for(config, url)
        else:
            url = store or self.repo_root
        self.url = url
        self.options.update(_option(item) for item in options)
        if store is None and not from_config:
            self.layout = "aiwiki"  # the repository root: never guess Basic Memory there

    def open(self, deadline: Deadline | None = None) -> Any:
        from ..backends import open_store

        options = dict(self.options)
        if deadline is not None:
            options = bounded_options(
                self.url, options, deadline.remaining(), process_wide=deadline.process_entry
            )
        # a relative store URL means a folder inside the start folder (never above it)
        store = open_store(
            self.url, layout=self.layout, format=self.format, base=self.start, **options
        )
        if self.secrets is not None and hasattr(store, "redaction"):
            store.redaction = self.policy()
        return store

    def policy(self) -> Any:
        """The configured :class:`~sessionkit.redaction.Policy` (``None``: the default, redact)."""
        if self.secrets is None:
            return None
        from ..redaction import Policy

        return Policy(mode=self.secrets.redact, allow=self.secrets.allow_values())

    def local_aiwiki_root(self) -> str | None:
        """The repository root when the store is a plain local aiwiki folder, else ``None``."""
        url = self.url
        if self.options or self.format not in (None, "aiwiki-v2", "aiwiki-v1"):
            return None
        if url.startswith("file://"):
            url = url[len("file://") :]
        if "://" in url or not url or "\x00" in url:
            return None
        root = os.path.normpath(os.path.join(self.start, url)).rstrip("/") or "/"
        real, real_start = os.path.realpath(root), os.path.realpath(self.start)
        if not os.path.isabs(url) and not (
            real == real_start or real.startswith(real_start.rstrip("/") + "/")
        ):
            return None  # leads outside the start folder: the store refuses it, and says so
        for tail in ("/aiwiki/sessions", "/aiwiki"):
            if root.endswith(tail):
                root = root[: -len(tail)] or "/"
                break
        if self.layout not in (None, "aiwiki"):
            return None
        if self.layout is None and not os.path.isdir(os.path.join(root, "aiwiki")):
            return None  # let the store detect its layout
        return root

    def project(self) -> str | None:
        if self.bm_project:
            return str(self.bm_project)
        if self.url.startswith("bm://"):
            rest = self.url[len("bm://") :].strip("/")
            return os.path.basename(rest) or None
        return None


def configured_deadline(deadline: Deadline, settings: Settings) -> None:
    """Apply ``hooks.deadline_ms`` once the configuration is known (it may differ from the env)."""
    from .deadline import deadline_ms

    ms = deadline_ms(getattr(settings.hooks, "deadline_ms", None))
    if ms is not None and ms / 1000 != deadline.seconds:
        deadline.reset(ms / 1000)


def _config_problem(problem: Exception) -> None:
    """Say one bad configuration value that the hook leaves out, and what it does instead."""
    key = getattr(problem, "key", None)
    instead = f"the default for {key}" if key else "the defaults for this file's values"
    say(f"configuration: {problem}; using {instead}")


def bounded_options(
    url: str, options: dict[str, Any], seconds: float, *, process_wide: bool = False
) -> dict[str, Any]:
    """Storage options that keep one store's waits inside ``seconds``: a local store's
    lock wait; on S3, botocore's connect and read timeouts (less a margin, so the store's
    "cannot reach" comes first) and no retries (``process_wide``: s3fs's class too).
    """
    from ..backends._storage import split_url

    protocol, _ = split_url(url)
    if protocol in (None, "file", "local"):
        left = max(0.2, seconds - 0.3)
        current = options.get("lock_timeout")
        wait = left if not isinstance(current, (int, float)) else min(float(current), left)
        return {**options, "lock_timeout": wait}
    if protocol not in ("s3", "s3a"):
        return options
    start = time.monotonic()
    try:
        import fsspec

        fsspec.get_filesystem_class(protocol)  # the import of s3fs counts before the timeouts
    except Exception:  # the store reports a missing package itself
        return options
    left = max(0.3, seconds - (time.monotonic() - start) - 0.3)
    # a silent endpoint costs about two read timeouts, and a listing may follow a layout probe
    wanted = {"connect_timeout": left / 2, "read_timeout": left / 4}
    config = dict(options.get("config_kwargs") or {})
    for key, value in wanted.items():
        current = config.get(key)
        config[key] = value if not isinstance(current, (int, float)) else min(current, value)
    config["retries"] = {"max_attempts": 1, "mode": "standard"}
    if process_wide:
        import contextlib

        with contextlib.suppress(Exception):
            fsspec.get_filesystem_class(protocol).retries = 1
    return {**options, "config_kwargs": config}


def _option(item: str) -> tuple[str, Any]:
    """``KEY=VALUE`` as ``sessionkit -o`` reads it (VALUE a TOML literal, else a string)."""
    name, _, raw = item.partition("=")
    import tomllib

    try:
        value = tomllib.loads(f"v = {raw}")["v"]
    except tomllib.TOMLDecodeError:
        value = raw
    if not isinstance(value, str | int | float | bool):
        value = raw
    return name.strip(), value


def deliver(outbox: Any, store: Any, identity: str, settings: Settings) -> None:
    """Deliver the store's outbox; raises only when the store is busy or unreachable (an
    entry the store refuses waits, and is named in one line)."""
    from .payload import describe

    done = outbox.deliver(store, identity, project=settings.project())
    if done.failed:
        path, exc = done.failed[0]
        say(f"the outbox entry {path} waits: {describe(exc)}")


def kept_line(path: str | None) -> str:
    """The end of the one line a hook says when the store did not take its checkpoint."""
    if path is None:
        return "nothing recorded: the outbox could not be written either"
    return (
        f"the checkpoint waits in the outbox ({path}) for the next hook, "
        "`sessionkit outbox --deliver` or any command on that store"
    )
