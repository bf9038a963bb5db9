"""Starting from nothing: a new store (``sessionkit init``), a new session page
(``sessionkit new``) and a field set by hand (``sessionkit set focus``).

``init`` never overwrites: a file that is there already is kept and reported as
such, so running it twice changes nothing.
"""

from __future__ import annotations

import os
import uuid
from datetime import datetime
from importlib import resources
from typing import Any

import attrs

from .._atomic import write_atomic
from ..errors import ValidationError
from ..model import Session, Status
from .checkpoint import iso_now, safe_short_id

__all__ = [
    "InitReport",
    "NewReport",
    "PluginReport",
    "SetReport",
    "build_plugin",
    "init_store",
    "new_session",
    "set_field",
]

LAYOUTS = ("aiwiki", "basic-memory")
#: the fields ``sessionkit set`` changes, by the name the command line gives them
SETTABLE = {"focus": "focus", "last-commit": "last_commit"}


@attrs.frozen(kw_only=True)
class InitReport:
    """What :func:`init_store` did: the store's folder and layout, the paths made (folders
    end with ``/``), those kept as they were, and the commands to run next."""

    root: str
    layout: str
    made: tuple[str, ...]
    kept: tuple[str, ...]
    next: tuple[str, ...]


def init_store(
    root: str | os.PathLike[str],
    layout: str = "aiwiki",
    *,
    config_root: str | os.PathLike[str] | None = None,
    program: str = "sessionkit",
) -> InitReport:
    """Make a store a new user can start from, in ``root``.

    aiwiki: ``aiwiki/sessions/`` with an empty ``INDEX.md``, and the schema page
    ``aiwiki/schemas/session.md`` (the schema v2 page sessionkit ships; a
    wiki's own copy is what ``lint`` checks against).  Basic Memory: the
    ``sessions/`` folder of a project.  A ``.sessionkit.toml`` is written in
    ``config_root`` (the repository root) only when the store is not that
    folder, naming it as ``store.url``.

    Raises:
        ValidationError: an unknown layout, or ``root`` is a file.
    """
    if layout not in LAYOUTS:
        raise ValidationError(f"unknown layout {layout!r} (one of {', '.join(LAYOUTS)})")
    base = os.path.abspath(os.fspath(root))
    if os.path.exists(base) and not os.path.isdir(base):
        raise ValidationError(f"{root}: not a folder", path=os.fspath(root))
    top = os.path.abspath(os.fspath(config_root)) if config_root is not None else base
    rel = os.path.relpath(base, top)
    if rel == ".." or rel.startswith(".." + os.sep):
        raise ValidationError(f"{root}: outside the repository at {top}", path=os.fspath(root))
    made: list[str] = []
    kept: list[str] = []

    def folder(rel: str) -> None:
        path = os.path.join(base, rel)
        if os.path.isdir(path):
            kept.append(rel + "/")
        else:
            os.makedirs(path, exist_ok=True)
            made.append(rel + "/")

    def file(rel: str, text: str) -> None:
        path = os.path.join(base, rel)
        if os.path.lexists(path):
            kept.append(rel)
            return
        write_atomic(path, text)
        made.append(rel)

    if layout == "aiwiki":
        folder("aiwiki/sessions")
        folder("aiwiki/schemas")
        schema = resources.files("sessionkit.adapters") / "schemas/aiwiki-session-v2.md"
        file("aiwiki/schemas/session.md", schema.read_text(encoding="utf-8"))
        from ..backends import open_store
        from ..backends.aiwiki import AiwikiStore

        store = open_store(base, layout="aiwiki")
        assert isinstance(store, AiwikiStore)
        file("aiwiki/sessions/INDEX.md", store.index_text())
    else:
        folder("sessions")
    if top != base:
        lines = ["# sessionkit's settings for this repository (sessionkit init)", "[store]"]
        lines.append(f'url = "{rel}"')
        if layout == "basic-memory":
            lines.append('layout = "basic-memory"')
        path = os.path.join(top, ".sessionkit.toml")
        if os.path.lexists(path):
            kept.append(os.path.relpath(path, base))
        else:
            write_atomic(path, "\n".join(lines) + "\n")
            made.append(os.path.relpath(path, base))
    steps = (
        f"{program} install-hooks            # Claude Code: checkpoints and handoffs",
        f"{program} new --focus 'what this session is about'",
        f"{program} lint && {program} ls",
    )
    return InitReport(root=base, layout=layout, made=tuple(made), kept=tuple(kept), next=steps)


@attrs.frozen(kw_only=True)
class NewReport:
    """What :func:`new_session` did: the new note's key and its session id."""

    key: str
    id: str


def new_session(
    store: Any,
    *,
    focus: str | None = None,
    session_id: str | None = None,
    now: datetime | None = None,
) -> NewReport:
    """Start a session note by hand: status active, started now, ``focus`` (or ``unset``).

    aiwiki: ``aiwiki/sessions/{date}-{id7}.md``; Basic Memory: a ``type: session``
    note in ``sessions/`` titled like the plugin's.  ``session_id`` defaults to
    a new random UUID.

    Raises:
        ValidationError: a focus over one line.
        ConflictError: a note with that key exists already.
    """
    clean = (focus or "").strip()
    if "\n" in clean or "\r" in clean:
        raise ValidationError("the focus must be one line")
    sid = session_id or str(uuid.uuid4())
    stamp = iso_now(now)
    if str(getattr(store, "layout", "")) == "basic-memory":
        title = f"Session {stamp[:10]} {stamp[11:19]} — {clean or safe_short_id(sid)}"
        session = Session(
            id=sid,
            status=Status.ACTIVE,
            title=title,
            focus=clean or None,
            started=stamp,
            tags=("session",),
            extra={"type": "session"},
        )
    else:
        session = Session(id=sid, status=Status.ACTIVE, started=stamp[:10], focus=clean or "unset")
    key = store.put(session, create=True)
    return NewReport(key=key, id=sid)


@attrs.frozen(kw_only=True)
class SetReport:
    """What :func:`set_field` did: the note, the field, its value before and after."""

    key: str
    field: str
    old: str | None
    new: str


def set_field(store: Any, name: str, value: str, session: str | None = None) -> SetReport:
    """Set one field of a session (``focus`` or ``last-commit``) as a minimal edit.

    Raises:
        ValidationError: an unknown field, or a value over one line or empty.
        NotFoundError: no such session.
    """
    from .lifecycle import find_session

    field = SETTABLE.get(name)
    if field is None:
        raise ValidationError(f"cannot set {name!r} (one of {', '.join(SETTABLE)})")
    clean = value.strip()
    if not clean or "\n" in clean or "\r" in clean:
        raise ValidationError(f"the {name} must be one non-empty line")
    key = find_session(store, session)
    old: list[str | None] = [None]

    def edit(s: Session) -> Session:
        old[0] = getattr(s, field)
        changes: dict[str, Any] = {field: clean}
        return s if old[0] == clean else attrs.evolve(s, **changes)

    store.update(key, edit)
    return SetReport(key=key, field=name, old=old[0], new=clean)


@attrs.frozen(kw_only=True)
class PluginReport:
    """What :func:`build_plugin` wrote: the plugin folder and its files."""

    root: str
    files: tuple[str, ...]
    command: str


def build_plugin(
    directory: str | os.PathLike[str],
    *,
    program: str | None = None,
    events: dict[str, str] | None = None,
    version: str | None = None,
) -> PluginReport:
    """Write a Claude Code plugin for sessionkit into ``directory``.

    ``.claude-plugin/plugin.json`` (the manifest), ``hooks/hooks.json`` (each hook event
    running ``PROGRAM hook EVENT``) and ``.mcp.json`` (``sessionkit mcp``), PROGRAM being
    this sessionkit's absolute command (:func:`~sessionkit.ops.install.hook_program`).
    The plugin holds no copy of sessionkit and no state (the hooks write to the
    repository's store); building again writes the same bytes.
    """
    import json
    import shlex

    from .. import __version__
    from .install import HOOK_COMMANDS, hook_program

    if program is None:
        program = hook_program()[0]
    root = os.path.abspath(os.fspath(directory))
    if os.path.exists(root) and not os.path.isdir(root):
        raise ValidationError(f"{directory}: not a folder", path=os.fspath(directory))
    argv = shlex.split(program)
    hooks: dict[str, Any] = {}
    for event, command in (events or HOOK_COMMANDS).items():
        words = " ".join(command.split()[1:])
        entry = {"type": "command", "command": f"{program} {words}"}
        hooks[event] = [{"matcher": "", "hooks": [entry]}]
    files = {
        ".claude-plugin/plugin.json": {
            "name": "sessionkit",
            "version": version or __version__,
            "description": (
                "Session handoff notes: a checkpoint before every compaction, the latest "
                "handoff at every session start, and past sessions searchable over MCP."
            ),
            "license": "MIT",
            "keywords": ["handoff", "session", "aiwiki", "basic-memory", "memory"],
        },
        "hooks/hooks.json": {
            "description": "sessionkit: checkpoints and handoffs",
            "hooks": hooks,
        },
        ".mcp.json": {
            "mcpServers": {"sessionkit": {"command": argv[0], "args": [*argv[1:], "mcp"]}}
        },
    }
    for rel, data in files.items():
        write_atomic(os.path.join(root, rel), json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    return PluginReport(root=root, files=tuple(files), command=program)
