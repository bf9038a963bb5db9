"""Configuration: where sessions live by default, set once for hooks, scripts and the CLI.

A :class:`Config` is a frozen value; building one reads nothing.  :func:`load_config`
reads, most specific first: ``overrides`` (the CLI's flags), the environment (see
:data:`SETTINGS`), the project file ``.sessionkit.toml`` (walking up from ``start_dir``),
the user file (``$SESSIONKIT_CONFIG`` or ``platformdirs.user_config_dir``), then the
defaults.  Each value remembers its :class:`Source`.  Credentials never belong here:
:func:`set_value` refuses secret-looking keys and :func:`describe` masks them.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

from ._config_sources import PROJECT_FILE, check_budget, project_file, scalar
from ._config_sources import repository_root as _root
from ._lazyre import lazy
from ._plain import Frozen
from .errors import SessionKitError

if TYPE_CHECKING:
    import tomllib
    from pathlib import Path  # (imported where returned: hooks read a file without it)

__all__ = [
    "PROJECT_FILE", "SETTINGS", "Config", "ConfigError", "HookConfig", "Limits", "SecretsConfig",
    "Setting", "Source", "config_file", "default_store", "describe", "effective_store_url",
    "find_project_file", "format_config", "hook_store_url", "is_secret_key", "load_config",
    "mask_url", "parse_key", "read_config_text", "repository_root", "set_value",
    "storage_options_for", "user_config_path",
]  # fmt: skip

_CREDENTIAL_HINT = (
    "keep credentials with fsspec and the cloud SDKs (environment variables such as "
    "AWS_ACCESS_KEY_ID, ~/.aws/credentials and a 'profile' storage option, "
    "gcloud application-default credentials)"
)


class ConfigError(SessionKitError):
    """A configuration file or value is unusable (bad TOML, unknown key, wrong type).

    Attributes:
        key: the dotted key concerned (``hooks.context_budget``), when it is one key's value.
    """

    def __init__(self, message: str, *, path: str | None = None, line: int | None = None,
                 key: str | None = None) -> None:  # fmt: skip
        super().__init__(message, path=path, line=line)
        self.key = key


def _fields(values: dict[str, Any]) -> dict[str, Any]:
    return {name: value for name, value in values.items() if name != "self"}


class Source(Frozen):
    """Where an effective configuration value came from (a frozen value).

    Attributes:
        kind: ``"flag"``, ``"env"``, ``"project"``, ``"user"`` or ``"default"``.
        file: the file it was read from (project and user files).
        line: 1-based line in that file.
        name: the flag or environment variable, for those kinds.
    """

    kind: str
    file: str | None
    line: int | None
    name: str | None
    __slots__ = tuple(__annotations__)  # (in this order: repr, equality and hash take it)

    def __init__(self, *, kind: str, file: str | None = None, line: int | None = None,
                 name: str | None = None) -> None:  # fmt: skip
        self._set(**_fields(locals()))

    def __str__(self) -> str:
        if self.file is not None:
            return f"{self.kind} {self.file if self.line is None else f'{self.file}:{self.line}'}"
        return self.kind if self.name is None else f"{self.kind} {self.name}"

    def to_dict(self) -> dict[str, Any]:
        """JSON shape: ``{"kind", "file", "line", "name"}``."""
        return {"kind": self.kind, "file": self.file, "line": self.line, "name": self.name}


_DEFAULT = Source(kind="default")


class HookConfig(Frozen):
    """How the agent hooks behave (a frozen value): the ``hooks.*`` keys of :data:`SETTINGS`.

    Attributes:
        store: the store the hooks write to; ``None`` means the default store.
        directive_kind: kind of the directive a pre-compact checkpoint carries (``"Dream"``).
        directive_scope: its ``Scope:`` item.
        directive_action: its ``Action:`` item.
        session_start_output: ``"json"`` (Claude Code's ``hookSpecificOutput``) or ``"plain"``.
        deadline_ms: time budget of one hook run, in ms (5000; see ``docs/hooks.md``).
        context_budget: the most the session-start context may measure (9000; 0: no limit).
        context_unit: ``"chars"`` (the default) or ``"tokens"`` (an estimate).

    Raises:
        ConfigError: ``session_start_output`` or the context budget is unusable.
    """

    store: str | None
    directive_kind: str
    directive_scope: str
    directive_action: str
    session_start_output: str
    deadline_ms: int
    context_budget: int
    context_unit: str
    __slots__ = tuple(__annotations__)

    def __init__(self, *, store: str | None = None, directive_kind: str = "Dream",
                 directive_scope: str = "`aiwiki/raw/`, recently-touched typed pages",
                 directive_action: str = "invoke `support-dream` skill before resuming other work",
                 session_start_output: str = "json", deadline_ms: int = 5000,
                 context_budget: int = 9000, context_unit: str = "chars") -> None:  # fmt: skip
        self._set(**_fields(locals()))
        for key in ("hooks.session_start_output", "hooks.context_budget"):
            problem = _check_scalar(_BY_KEY[key], getattr(self, key[6:]))
            if problem is None and key == "hooks.context_budget":
                problem = check_budget(context_budget, context_unit)
            if problem is not None:
                raise ConfigError(f"{key} {problem}", key=key)


class SecretsConfig(Frozen):
    """What writes do with secret-shaped values (see docs/secrets.md; a frozen value).

    Attributes:
        redact: ``"on"`` (replace each by ``[REDACTED:kind]``, the default), ``"warn"``
            (write as is, report) or ``"off"`` (do not look); under ``warn``
            and ``off`` remote stores and conversions refuse such a note.
        allow: known-safe values never redacted, separated by commas or blanks.
    """

    redact: str
    allow: str
    __slots__ = tuple(__annotations__)

    def __init__(self, *, redact: str = "on", allow: str = "") -> None:
        self._set(redact=redact, allow=allow)

    def allow_values(self) -> frozenset[str]:
        """The allowlist as a set of values."""
        return frozenset(v for v in re.split(r"[\s,]+", self.allow) if v)


class Limits(Frozen):
    """Size limits for input (a frozen value).

    Attributes:
        max_note_bytes: largest note read, in bytes (8 MiB).
        max_payload_bytes: largest hook payload read from stdin, in bytes (1 MiB).
    """

    max_note_bytes: int
    max_payload_bytes: int
    __slots__ = tuple(__annotations__)

    def __init__(
        self, *, max_note_bytes: int = 8 * 1024 * 1024, max_payload_bytes: int = 1024 * 1024
    ) -> None:
        self._set(max_note_bytes=max_note_bytes, max_payload_bytes=max_payload_bytes)


class Config(Frozen):
    """The effective configuration (a frozen value; building one reads nothing;
    :meth:`~sessionkit._plain.Frozen.replace` makes a changed copy).

    Attributes:
        store: default store URL or path; ``None``: the repository root (see
            :func:`effective_store_url`).
        layout: store layout (``aiwiki``, ``basic-memory``); ``None``: the store decides.
        format: note format new notes are written in; ``None``: the layout's default.
        storage_options: fsspec options per URL prefix (``{"s3://team-notes":
            {"endpoint_url": ..., "profile": ...}}``; not hashed).
        bm_project: Basic Memory project name; ``None``: its default project.
        hooks: hook behaviour.
        secrets: secret redaction on write.
        limits: input size limits.
        sources: where each value came from, by dotted key (not compared, hashed or shown).
    """

    store: str | None
    layout: str | None
    format: str | None
    storage_options: Mapping[str, Mapping[str, Any]]
    bm_project: str | None
    hooks: HookConfig
    secrets: SecretsConfig
    limits: Limits
    sources: Mapping[str, Source]
    __slots__ = tuple(__annotations__)

    def __init__(self, *, store: str | None = None, layout: str | None = None,
                 format: str | None = None,
                 storage_options: Mapping[str, Mapping[str, Any]] | None = None,
                 bm_project: str | None = None, hooks: HookConfig | None = None,
                 secrets: SecretsConfig | None = None, limits: Limits | None = None,
                 sources: Mapping[str, Source] | None = None) -> None:  # fmt: skip
        self._set(**_fields(locals()))
        self._set(
            storage_options={
                prefix: dict(opts) for prefix, opts in (storage_options or {}).items()
            },
            hooks=hooks or HookConfig(),
            secrets=secrets or SecretsConfig(),
            limits=limits or Limits(),
            sources=sources or {},
        )

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._values()[:-1] == other._values()[:-1]  # (all but sources)

    def __hash__(self) -> int:
        values = self._values()
        return hash(values[:3] + values[4:-1])  # (nor storage_options: a dict)

    def __repr__(self) -> str:
        inner = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__[:-1])
        return f"Config({inner})"

    def source(self, key: str) -> Source:
        """Where the value of dotted ``key`` came from (``default`` when not recorded)."""
        return self.sources.get(key, _DEFAULT)


class Setting(NamedTuple):
    """One configuration key: the one place its value is checked (every source's).

    Attributes:
        key: dotted key as written in TOML (``store.url``).
        attr: where it lives on :class:`Config` (``store``, ``hooks.store``).
        type: ``str`` or ``int``.
        env: the environment variable that sets it, if any.
        help: one line for the docs.
        choices: allowed values, if restricted.
        path_like: a store location (relative paths in a file are relative to that file).
        minimum: the least value of an integer.
        registry: ``"layout"`` or ``"format"``: a registered store backend or note format.
        one_line: a string without line breaks or other control characters.
    """

    key: str
    attr: str
    type: type
    env: str | None
    help: str
    choices: tuple[str, ...] | None = None
    path_like: bool = False
    minimum: int = 1
    registry: str | None = None
    one_line: bool = True


def _setting(
    key: str, env: str, help: str, attr: str = "", kind: type = str, **more: Any
) -> Setting:
    return Setting(key, attr or key, kind, env, help, **more)


#: every scalar configuration key (storage options are free-form, per URL prefix)
SETTINGS: tuple[Setting, ...] = (
    _setting("store.url", "SESSIONKIT_STORE", "default store: a path or fsspec URL "
             "(default: the repository root)", "store", path_like=True),
    _setting("store.layout", "SESSIONKIT_LAYOUT", "store layout: aiwiki or basic-memory",
             "layout", registry="layout"),
    _setting("store.format", "SESSIONKIT_FORMAT",
             "format of new notes: aiwiki-v2, aiwiki-v1, basic-memory", "format",
             registry="format"),
    _setting("basic_memory.project", "SESSIONKIT_BM_PROJECT",
             "Basic Memory project name (default: Basic Memory's default project)", "bm_project"),
    _setting("hooks.store", "SESSIONKIT_HOOK_STORE",
             "store the hooks write to (default: the default store)", path_like=True),
    _setting("hooks.directive_kind", "SESSIONKIT_DIRECTIVE_KIND",
             "kind of the directive a pre-compact checkpoint carries"),
    _setting("hooks.directive_scope", "SESSIONKIT_DIRECTIVE_SCOPE",
             "Scope: item of that directive"),
    _setting("hooks.directive_action", "SESSIONKIT_DIRECTIVE_ACTION",
             "Action: item of that directive"),
    _setting("hooks.session_start_output", "SESSIONKIT_HOOK_OUTPUT",
             "session-start prints Claude Code JSON or plain text", choices=("json", "plain")),
    _setting("hooks.context_budget", "SESSIONKIT_CONTEXT_BUDGET", "most the session-start "
             "context may measure (default 9000; 0: no limit; else at least 1000 chars or 350 "
             "tokens)", kind=int, minimum=0),  # (the least besides 0 is checked with the unit)
    _setting("hooks.context_unit", "SESSIONKIT_CONTEXT_UNIT", "unit of hooks.context_budget: "
             "chars, or tokens (one per three UTF-8 bytes)", choices=("chars", "tokens")),
    _setting("hooks.deadline_ms", "SESSIONKIT_HOOK_DEADLINE_MS",
             "time budget of one hook run, in milliseconds (default 5000)", kind=int),
    _setting("secrets.redact", "SESSIONKIT_REDACT", "secrets in what is written: on (redact), "
             "warn (report), off (do not look)", choices=("on", "warn", "off")),
    _setting("secrets.allow", "SESSIONKIT_REDACT_ALLOW",
             "known-safe values never redacted (separated by commas or blanks)", one_line=False),
    _setting("limits.max_note_bytes", "SESSIONKIT_MAX_NOTE_BYTES", "largest note read, in bytes",
             kind=int),
    _setting("limits.max_payload_bytes", "SESSIONKIT_MAX_PAYLOAD_BYTES",
             "largest hook payload read from stdin, in bytes", kind=int),
)  # fmt: skip
_BY_KEY = {s.key: s for s in SETTINGS}
_TABLES = {s.key.partition(".")[0] for s in SETTINGS} | {"storage_options"}
_SO = "storage_options"


_SECRET_WORDS = ("secret", "password", "passwd", "token", "credential", "apikey", "passphrase")
_SECRET_PARTS = {"key", "pwd", "auth", "private", "pass", "sig", "signature"}


def is_secret_key(name: str) -> bool:
    """Whether a key name looks like it holds a secret: ``secret``, ``password``, ``token``,
    ``credential`` anywhere, or a word ``key`` / ``auth`` / ``pwd`` (``api-key``, ``key``)."""
    low = name.lower()
    if any(word in low for word in _SECRET_WORDS):
        return True
    return bool(_SECRET_PARTS.intersection(re.split(r"[^a-z0-9]+", low)))


_USERINFO = lazy(r"^([A-Za-z][A-Za-z0-9+.-]*://)([^/@:]*):([^/@]*)@")


def mask_url(url: str) -> str:
    """``url`` with a password in its user-info replaced by ``***``."""
    return _USERINFO.sub(lambda m: f"{m.group(1)}{m.group(2)}:***@", url)


def _start(start_dir: str | os.PathLike[str] | None) -> str:
    return os.path.abspath(os.fspath(start_dir) if start_dir is not None else os.getcwd())


def find_project_file(start_dir: str | os.PathLike[str] | None = None) -> Path | None:
    """The nearest ``.sessionkit.toml`` at or above ``start_dir`` (default: cwd), if any."""
    from pathlib import Path

    found = project_file(_start(start_dir))
    return None if found is None else Path(found)


def repository_root(start_dir: str | os.PathLike[str] | None = None) -> Path:
    """The nearest ancestor of ``start_dir`` holding ``aiwiki/`` or ``.git``, else ``start_dir``."""
    from pathlib import Path

    return Path(_root(_start(start_dir)))


def user_config_path(env: Mapping[str, str] | None = None) -> Path:
    """The user file: ``$SESSIONKIT_CONFIG``, else ``<user config dir>/sessionkit/config.toml``."""
    from pathlib import Path

    from ._userconfig import user_config_file

    return Path(user_config_file(env))


# -- where each key is: line numbers for messages and sources (tomllib reads the values) --

_BARE_KEY = lazy(r"[A-Za-z0-9_-]+")


def _render_key(parts: tuple[str, ...]) -> str:
    """A TOML dotted key (a part that is not bare as a basic string that reads back)."""
    import json

    quoted = (json.dumps(p, ensure_ascii=False).replace("\x7f", "\\u007f") for p in parts)
    return ".".join(p if _BARE_KEY.fullmatch(p) else q for p, q in zip(parts, quoted, strict=True))


def _key_path(fragment: str) -> tuple[str, ...] | None:
    """The dotted key a one-key TOML ``fragment`` (``a."b" = 0``, ``[a.b]``) sets, if it is one."""
    import tomllib

    try:
        node: Any = tomllib.loads(fragment)
    except tomllib.TOMLDecodeError:
        return None
    parts: list[str] = []
    while isinstance(node, dict) and len(node) == 1:
        name, node = next(iter(node.items()))
        parts.append(name)
        node = node[-1] if isinstance(node, list) and node else node  # ([[array]] of tables)
    return tuple(parts) or None


def _key_lines(text: str) -> dict[tuple[str, ...], int]:
    """The 1-based line of each table header and ``key = value`` of a TOML text that
    tomllib accepts, by full path (the first one's, lines split on ``\\n`` as TOML does)."""
    found: dict[tuple[str, ...], int] = {}
    table: tuple[str, ...] = ()
    rows = text.split("\n")
    i = 0
    while i < len(rows):
        raw = rows[i].rstrip("\r")
        i += 1
        stripped = raw.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if stripped.startswith("["):
            header = _key_path(stripped)
            if header is not None:
                table = header
                found.setdefault(header, i)
            continue
        # the key: the shortest part before an "=" that reads as one (a quoted key may hold "=")
        for eq in (k for k, ch in enumerate(raw) if ch == "="):
            path = _key_path(raw[:eq] + "= 0")
            if path is not None:
                found.setdefault(table + path, i)
                value = raw[eq + 1 :]
                while not _key_path("v = " + value) and i < len(rows):  # (a multi-line value)
                    value += "\n" + rows[i].rstrip("\r")
                    i += 1
                break
    return found


_TOML_ERROR_LINE = lazy(r"\(at line (\d+), column \d+\)")


def _toml_error(exc: tomllib.TOMLDecodeError, text: str, file: str) -> ConfigError:
    msg = str(exc)
    m = _TOML_ERROR_LINE.search(msg)
    line: int | None = None
    if m:
        line, msg = int(m.group(1)), msg[: m.start()].rstrip()
    elif "end of document" in msg:
        line = max(1, text.count("\n") + (0 if text.endswith("\n") else 1))
    return ConfigError(f"bad TOML: {msg}", path=file, line=line)


def _is_plain(value: Any, depth: int = 0) -> bool:
    if isinstance(value, str | int | float | bool):
        return True
    if isinstance(value, list) and depth <= 4:
        return all(_is_plain(v, depth + 1) for v in value)
    if isinstance(value, dict) and depth <= 4:
        return all(isinstance(k, str) and _is_plain(v, depth + 1) for k, v in value.items())
    return False


def _type_name(value: Any) -> str:
    """``value``'s TOML type with its article: ``a string``, ``an integer``."""
    names = {bool: "boolean", int: "integer", float: "float", str: "string", list: "array"}
    name = names.get(type(value), "table" if isinstance(value, dict) else type(value).__name__)
    return f"an {name}" if name[0] in "aeiou" else f"a {name}"


#: the built-in names a ``registry`` setting takes without asking for plugins
_BUILTIN_NAMES = {
    "layout": ("aiwiki", "basic-memory"),
    "format": ("aiwiki-v2", "aiwiki-v1", "basic-memory"),
}


def _registered(registry: str) -> list[str]:
    """Every registered store backend (``layout``) or note format (``format``) name."""
    if registry == "format":
        from .adapters import available_formats  # (light: formats load on first use)

        return available_formats()
    import sys

    backends = sys.modules.get("sessionkit.backends")  # (loaded: it knows runtime additions)
    if backends is not None:
        return list(backends.available_backends())
    from ._entry_points import entry_points

    return ["aiwiki", "basic-memory", "bm", *(n for n, _ in entry_points("sessionkit.backends"))]


def _check_scalar(setting: Setting, value: Any) -> str | None:
    """A problem with ``value`` for ``setting`` (its type and range), or ``None``: the one
    check of every value, from a file, a variable, a flag, ``config set`` or Python."""
    if setting.type is int and (isinstance(value, bool) or not isinstance(value, int)):
        return f"must be an integer, not {_type_name(value)}"
    if setting.type is str and not isinstance(value, str):
        return f"must be a string, not {_type_name(value)}"
    if setting.type is int and value < setting.minimum:  # (the budget's: with its unit)
        if setting.minimum == 1:
            return f"must be a positive integer, not {value}"
        return f"must be at least {setting.minimum}, not {value}"
    if setting.choices is not None and value not in setting.choices:
        return f"must be one of {', '.join(setting.choices)}, not {value!r}"
    if setting.type is str and setting.one_line and any(c < " " or c == "\x7f" for c in value):
        return "must be one line (no line break or other control character)"
    if setting.registry is not None and value not in _BUILTIN_NAMES[setting.registry]:
        known = _registered(setting.registry)
        if value not in known:
            return f"must be one of {', '.join(known)}, not {value!r}"
    return None


def _from_text(setting: Setting, raw: Any, origin: str) -> Any:
    """A value given as text (a variable, a flag, ``config set``): converted, checked."""
    value = raw
    if setting.type is int and isinstance(raw, str):
        try:
            value = int(raw.strip().replace("_", ""))
        except ValueError:
            raise ConfigError(
                f"{origin}: {setting.key} must be an integer, not {raw!r}", key=setting.key
            ) from None
    problem = _check_scalar(setting, value)
    if problem is not None:
        raise ConfigError(f"{origin}: {setting.key} {problem}", key=setting.key)
    return value


def _resolve_path(value: str, base: str) -> str:
    """A store location from a file by ``--store``'s rule (without importing the stores): a
    URL or absolute path kept, a relative one joined to ``base`` and kept inside it."""
    if "://" in value:
        return value
    expanded = os.path.expanduser(value)
    if os.path.isabs(expanded):
        return expanded
    start = os.path.abspath(base or os.curdir)
    joined = os.path.normpath(os.path.join(start, expanded))
    real, real_start = os.path.realpath(joined), os.path.realpath(start)
    rel = os.path.normpath(expanded).replace(os.sep, "/")
    from ._atomic import inside

    if rel == ".." or rel.startswith("../") or not inside(real, real_start):
        raise ConfigError(
            f"refused store {value!r}: relative to {start} it leads to {real}, outside that "
            "folder (give an absolute path to mean a folder elsewhere)"
        )
    return joined


_Layer = dict[str, tuple[Any, Source]]
#: what a lenient reader is told of each value it leaves out (see :func:`load_config`)
OnProblem = Callable[[ConfigError], None]


def _strict(problem: ConfigError) -> None:
    raise problem


def read_config_text(
    text: str, file: str, kind: str = "project", *, on_problem: OnProblem | None = None
) -> _Layer:
    """Validate a config file's text; return ``{dotted key: (value, Source)}``. With
    ``on_problem``, each bad value is handed to it and left out instead of raised.

    Raises:
        ConfigError: bad TOML, unknown table or key, wrong type or range (file, line,
            key named), or a relative store path leading outside the file's folder.
    """
    import tomllib

    report = on_problem or _strict
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        report(_toml_error(exc, text, file))
        return {}
    lines = _key_lines(text)
    layer: _Layer = {}

    def line_of(path: tuple[str, ...]) -> int | None:  # (of the key, or of its nearest table)
        return next((lines[path[:n]] for n in range(len(path), 0, -1) if path[:n] in lines), None)

    def fail(path: tuple[str, ...], message: str) -> None:
        key = ".".join(path) if len(path) == 2 and path[0] != _SO else None
        where = line_of(path)
        report(ConfigError(f"{_render_key(path)}: {message}", path=file, line=where, key=key))

    def add(path: tuple[str, ...], value: Any) -> None:
        if path[0] == _SO:
            if not _is_plain(value):
                return fail(path, f"{_type_name(value)} cannot be a storage option")
            key = f"{_SO}.{_render_key(path[1:])}"
        else:
            key = ".".join(path)
            setting = _BY_KEY.get(key)
            if setting is None:
                known = ", ".join(s.key for s in SETTINGS if s.key.startswith(path[0] + "."))
                return fail(path, f"unknown key (known in [{path[0]}]: {known})")
            problem = _check_scalar(setting, value)
            if problem is None and setting.path_like:
                try:  # ("" for a bare file name: the working directory)
                    value = _resolve_path(value, os.path.dirname(file))
                except ConfigError as exc:
                    problem = exc.message
            if problem is not None:
                return fail(path, problem)
        layer[key] = (value, Source(kind=kind, file=file, line=line_of(path)))

    for table, content in data.items():
        if table not in _TABLES:
            fail((table,), f"unknown key (known tables: {', '.join(sorted(_TABLES))})")
            continue
        if not isinstance(content, dict):
            fail((table,), f"must be a table, not {_type_name(content)}")
            continue
        for name, value in content.items():
            if table != _SO:
                add((table, name), value)
            elif not isinstance(value, dict):
                fail(
                    (table, name),
                    "must be a table of options for the URL prefix "
                    f'(write [storage_options."{name}"]), not {_type_name(value)}',
                )
            else:
                for option, v in value.items():
                    add((table, name, option), v)
    return layer


def _read_file(file: str, kind: str, on_problem: OnProblem | None = None) -> _Layer:
    report = on_problem or _strict
    try:
        with open(file, "rb") as handle:
            data = handle.read()
    except FileNotFoundError:
        return {}
    except OSError as exc:
        report(ConfigError(f"cannot read: {exc.strerror or exc}", path=file))
        return {}
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        report(ConfigError("not valid UTF-8", path=file, line=line))
        return {}
    return read_config_text(text, file, kind, on_problem=on_problem)


def _text_layer(given: dict[str, tuple[Any, Source]], on_problem: OnProblem) -> _Layer:
    """Values given as text, by dotted key (variables, flags), checked by the table."""
    layer: _Layer = {}
    for key, (raw, source) in given.items():
        try:
            if key.startswith(_SO + "."):
                layer[f"{_SO}.{_render_key(_split_option_key(key))}"] = (raw, source)
            elif key not in _BY_KEY:
                raise ConfigError(f"unknown configuration key {key!r}")
            else:
                origin = f"${source.name}" if source.kind == "env" else f"override {key}"
                layer[key] = (_from_text(_BY_KEY[key], raw, origin), source)
        except ConfigError as exc:
            on_problem(exc)
    return layer


def _merged(
    start_dir: str | os.PathLike[str] | None,
    env: Mapping[str, str],
    overrides: Mapping[str, Any] | None,
    on_problem: OnProblem | None = None,
    text_of: tuple[str, str, str] | None = None,
) -> _Layer:
    """Every source's values, most specific last; ``text_of`` = (file, text, scope) reads
    that text as the scope's file (what ``config set`` is about to write there)."""
    from ._userconfig import user_config_file

    merged: _Layer = {}
    files = {"user": user_config_file(env), "project": project_file(_start(start_dir))}
    if text_of is not None:
        files[text_of[2]] = text_of[0]
    for kind, file in files.items():
        if text_of is not None and file == text_of[0]:
            merged.update(read_config_text(text_of[1], file, kind, on_problem=on_problem))
        elif file is not None:
            merged.update(_read_file(file, kind, on_problem))
    variables = {s.key: (env.get(s.env or ""), Source(kind="env", name=s.env)) for s in SETTINGS}
    merged.update(_text_layer({k: v for k, v in variables.items() if v[0]}, on_problem or _strict))
    flags = {k: (v, Source(kind="flag", name=k)) for k, v in (overrides or {}).items()}
    merged.update(_text_layer({k: v for k, v in flags.items() if v[0] is not None}, _strict))
    # the values that depend on each other, the context budget and its unit: a bad budget
    # is reported (by its source) and left out, so its default applies
    budget, unit = merged.get("hooks.context_budget"), merged.get("hooks.context_unit")
    problem = check_budget(budget[0] if budget else 9000, unit[0] if unit else "chars")
    if problem is not None:
        source = (budget or unit or (None, _DEFAULT))[1]
        where = f"${source.name}: " if source.kind == "env" else f"{source}: "
        where = "" if source.file is not None or source.name is None else where
        (on_problem or _strict)(
            ConfigError(f"{where}hooks.context_budget {problem}", path=source.file,
                        line=source.line, key="hooks.context_budget")
        )  # fmt: skip
        merged.pop("hooks.context_budget", None)
    return merged


def load_config(
    start_dir: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
    overrides: Mapping[str, Any] | None = None,
    *,
    on_problem: OnProblem | None = None,
) -> Config:
    """Read the effective configuration from every source.

    Args:
        start_dir: where to look for ``.sessionkit.toml`` and the repository root
            (default: the working directory; hooks pass the payload's ``cwd``).
        env: environment variables (default: ``os.environ``).
        overrides: dotted keys set by the caller (the CLI's flags), most specific of
            all; ``None`` values are ignored.
        on_problem: lenient reading (the hooks'): each bad value, file or variable is
            handed to it as a :class:`ConfigError` (file and line, or the variable,
            named; ``key`` set for one key's value) and left out, so a less specific
            source or the default applies.  Without it the first problem is raised.

    The result has :attr:`Config.store` filled in (the repository root when nothing
    sets it) and :attr:`Config.sources` telling where each value came from.

    Raises:
        ConfigError: a file or variable is malformed or out of range (no ``on_problem``).
    """
    env = os.environ if env is None else env
    merged = _merged(start_dir, env, overrides, on_problem)
    groups: dict[str, dict[str, Any]] = {"": {}, "hooks": {}, "secrets": {}, "limits": {}}
    options: dict[str, dict[str, Any]] = {}
    for key, (value, _) in merged.items():
        if key.startswith(_SO + "."):
            prefix, name = _split_option_key(key)
            options.setdefault(prefix, {})[name] = value
        else:
            group, _, name = _BY_KEY[key].attr.rpartition(".")
            groups[group][name] = value
    config = Config(
        **groups[""],
        storage_options=options,
        hooks=HookConfig(**groups["hooks"]),
        secrets=SecretsConfig(**groups["secrets"]),
        limits=Limits(**groups["limits"]),
        sources={key: source for key, (_, source) in merged.items()},
    )
    url = effective_store_url(config, start_dir)
    if url != config.store:
        sources = dict(config.sources)
        if "store.url" not in merged:
            why = "Basic Memory project" if url.startswith("bm://") else "repository root"
            sources["store.url"] = Source(kind="default", name=why)
        config = config.replace(store=url, sources=sources)
    return config


def effective_store_url(config: Config, start_dir: str | os.PathLike[str] | None = None) -> str:
    """The store URL ``config`` points at: its :attr:`~Config.store` (a bare ``bm://``
    completed with :attr:`~Config.bm_project`); else ``bm://<basic_memory.project>`` for
    the ``basic-memory`` layout; else the repository root of ``start_dir`` (default: cwd)."""
    if config.store:
        if config.store == "bm://" and config.bm_project:
            return f"bm://{config.bm_project}"
        return config.store
    if config.layout == "basic-memory":
        return f"bm://{config.bm_project or ''}"
    return _root(_start(start_dir))


def hook_store_url(config: Config, start_dir: str | os.PathLike[str] | None = None) -> str:
    """The store the hooks write to: :attr:`HookConfig.store`, else :func:`effective_store_url`."""
    return config.hooks.store if config.hooks.store else effective_store_url(config, start_dir)


def storage_options_for(config: Config, url: str) -> dict[str, Any]:
    """The fsspec options configured for ``url``: every matching prefix, longest last."""
    merged: dict[str, Any] = {}
    for prefix in sorted(config.storage_options, key=len):
        if url.startswith(prefix) and (
            len(url) == len(prefix) or prefix.endswith(("/", ":")) or url[len(prefix)] in "/?#"
        ):
            merged.update(config.storage_options[prefix])
    return merged


def default_store(start_dir: str | os.PathLike[str] | None = None) -> tuple[str, dict[str, Any]]:
    """The default store URL and its storage options, from :func:`load_config` (what
    ``sessionkit.open_store()`` with no argument uses)."""
    config = load_config(start_dir)
    url = effective_store_url(config, start_dir)
    return url, storage_options_for(config, url)


def _split_option_key(key: str) -> tuple[str, str]:
    """``storage_options.<prefix>.<name>`` (TOML quoting optional) -> (prefix, name)."""
    rest = key[len(_SO) + 1 :]
    if rest.startswith(('"', "'")):
        parts = _key_path(rest + " = 0")
        if parts is not None and len(parts) == 2:
            return parts[0], parts[1]
    prefix, _, name = rest.rpartition(".")
    if not prefix or not name:
        raise ConfigError(
            f"storage option key {key!r} must be storage_options.<url prefix>.<option>"
        )
    return prefix, name


def parse_key(key: str) -> tuple[str, ...]:
    """A dotted key as the CLI takes it -> TOML path: ``store.url`` -> ``("store", "url")``;
    a storage option's URL prefix as is or quoted (``storage_options."s3://b".profile``).

    Raises:
        ConfigError: not a known key.
    """
    if key.startswith(_SO + "."):
        prefix, name = _split_option_key(key)
        return (_SO, prefix, name)
    if key not in _BY_KEY:
        raise ConfigError(
            f"unknown configuration key {key!r} (known: {', '.join(s.key for s in SETTINGS)}, "
            "storage_options.<url prefix>.<option>)"
        )
    return tuple(key.split("."))


def _shown(key: str, value: Any) -> Any:
    name = key.rpartition(".")[2].strip("\"'")
    if key.startswith(_SO + ".") and is_secret_key(name):
        return "***"
    if isinstance(value, str):
        return mask_url(value)
    if isinstance(value, dict):
        return {k: "***" if is_secret_key(k) else _shown(k, v) for k, v in value.items()}
    return value


def describe(config: Config) -> list[dict[str, Any]]:
    """Every effective value with its source, secrets masked.

    Returns a list of ``{"key", "value", "source": {"kind", "file", "line", "name"}}``
    (the ``sessionkit config show --json`` shape), settings first, then
    storage options by URL prefix.
    """
    from operator import attrgetter

    values = [(setting.key, attrgetter(setting.attr)(config)) for setting in SETTINGS]
    for prefix in sorted(config.storage_options):
        for name, value in config.storage_options[prefix].items():
            values.append((f"{_SO}.{_render_key((prefix, name))}", value))
    return [
        {"key": key, "value": _shown(key, value), "source": config.source(key).to_dict()}
        for key, value in values
    ]


def format_config(config: Config) -> str:
    """``config show`` text: ``key = value  # source`` per line, secrets masked."""
    import json

    return "".join(
        f"{row['key']} = "
        f"{'(unset)' if row['value'] is None else json.dumps(row['value'], ensure_ascii=False)}"
        f"  # {Source(**row['source'])}\n"
        for row in describe(config)
    )


def config_file(
    scope: str,
    start_dir: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
) -> Path:
    """The file ``config set`` writes for ``scope``: ``"user"``, or ``"project"`` (the nearest
    ``.sessionkit.toml``, else a new one at the repository root)."""
    if scope == "user":
        return user_config_path(env)
    if scope != "project":
        raise ConfigError(f"scope must be 'project' or 'user', not {scope!r}")
    found = find_project_file(start_dir)
    return found if found is not None else repository_root(start_dir) / PROJECT_FILE


def set_value(
    key: str,
    value: str,
    *,
    scope: str = "project",
    start_dir: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
) -> Path:
    """Set ``key`` to ``value`` in the project or user file as a minimal edit; returns it.

    ``value`` is converted and checked as the key's (a storage option: a TOML literal
    such as ``true`` or ``42``, else a string).  tomlkit edits the file: only the key's
    line changes or one is added; comments, order and line ends survive.  A refused
    value writes nothing.

    Raises:
        ConfigError: unknown key, bad value, a secret-looking key or URL password
            (credentials belong to fsspec and the cloud SDKs), or a malformed file.
    """

    path = parse_key(key)
    if is_secret_key(path[-1]):
        raise ConfigError(f"refusing to store {key!r}: it looks like a secret; {_CREDENTIAL_HINT}")
    if path[0] != _SO:
        converted: Any = _from_text(_BY_KEY[key], value, "config set")
    else:
        converted = scalar(value)
    if isinstance(converted, str) and _USERINFO.match(converted):
        raise ConfigError(
            f"refusing to store a password inside a URL for {key!r}; {_CREDENTIAL_HINT}"
        )
    target = config_file(scope, start_dir, env)
    file = str(target)
    try:
        text = target.read_bytes().decode("utf-8") if target.exists() else ""
    except UnicodeDecodeError as exc:
        raise ConfigError("not valid UTF-8", path=file, line=None) from exc
    dotted = ".".join(path) if path[0] != _SO else None
    found: list[ConfigError] = []
    read_config_text(text, file, scope, on_problem=found.append)
    for problem in found:  # the existing file must be valid, but for the value replaced
        if problem.key is None or problem.key != dotted:
            raise problem
    new_text = _edited(text, path, converted, file)
    # the new text as every source will give it, with the values that depend on each other
    # (the context budget and its unit); a bad value elsewhere is that file's to fix,
    # unless this one now clashes with it
    found.clear()
    _merged(
        start_dir, os.environ if env is None else env, None, found.append, (file, new_text, scope)
    )
    budget = dotted in ("hooks.context_budget", "hooks.context_unit")
    for problem in found:
        if problem.path == file or (budget and problem.key == "hooks.context_budget"):
            where = f"{problem.path}:{problem.line}: " if problem.path not in (None, file) else ""
            raise ConfigError(
                f"config set: {where}{problem.message}; nothing written to {file}", key=problem.key
            )
    from ._atomic import write_atomic  # (tempfile, shutil: only when a file is written)

    write_atomic(target, new_text)
    return target


def _edited(text: str, path: tuple[str, ...], value: Any, file: str) -> str:
    """``text`` with ``path`` set to ``value``: tomlkit keeps every other byte (comments,
    order, blank lines), and CRLF files stay CRLF."""
    import tomllib

    import tomlkit  # (only here: config set is the one writer of TOML)
    from tomlkit.exceptions import TOMLKitError

    try:
        doc = tomlkit.parse(text)
        node: Any = doc
        for part in path[:-1]:
            if part not in node:
                node[part] = tomlkit.table()
            node = node[part]
        body = node.value.body if isinstance(node, tomlkit.items.Table) else None
        trailing: list[Any] = []
        if path[-1] not in node and body is not None:
            # a new key goes after the table's last key, not after the blank lines and
            # comments that lead to the next table (tomlkit counts them in this one's body)
            trivia = (tomlkit.items.Whitespace, tomlkit.items.Comment)
            while body and body[-1][0] is None and isinstance(body[-1][1], trivia):
                trailing.insert(0, body.pop())
        node[path[-1]] = value
        if body is not None:
            body.extend(trailing)
        new_text = tomlkit.dumps(doc)
    except (TOMLKitError, TypeError, ValueError) as exc:
        raise ConfigError(
            f"cannot set {_render_key(path)}: {exc}; edit the file by hand", path=file
        ) from None
    if "\r\n" in text and "\n" not in text.replace("\r\n", ""):
        new_text = re.sub(r"(?<!\r)\n", "\r\n", new_text)  # (tomlkit adds LF lines)
    data: Any = tomllib.loads(new_text)
    for part in path:
        data = data.get(part) if isinstance(data, dict) else None
    if data != value or type(data) is not type(value):  # (never written: says why)
        raise ConfigError(f"cannot set {_render_key(path)}; edit the file by hand", path=file)
    return new_text
