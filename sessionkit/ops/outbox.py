"""The outbox: checkpoints a store could not take in time, kept until it can (docs/hooks.md).

One JSON file per checkpoint (crash-safe, redacted, without credentials) in one folder per
store under :func:`state_dir`; delivered oldest first, exactly once (each entry's random id
is written with its checkpoint).
"""

from __future__ import annotations

import os
import sys
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

__all__ = [
    "STATE_ENV",
    "Delivered",
    "deliver",
    "entries",
    "folder_for",
    "keep",
    "new_id",
    "pending",
    "state_dir",
    "store_identity",
    "summary",
    "unavailable",
]

#: the environment variable naming the state folder (tests, sandboxes)
STATE_ENV = "SESSIONKIT_STATE_DIR"
_APP = "sessionkit"
_STORE_FILE = "store.json"


def state_dir() -> str:
    """``$SESSIONKIT_STATE_DIR``, else platformdirs' ``user_state_dir("sessionkit")``."""
    explicit = os.environ.get(STATE_ENV, "")
    if explicit:
        return os.path.abspath(os.path.expanduser(explicit))
    home = os.environ.get("HOME", "")
    if sys.platform == "darwin" and home.startswith("/"):
        return os.path.join(home, "Library", "Application Support", _APP)
    if sys.platform.startswith(("linux", "freebsd", "openbsd", "netbsd")):
        xdg = os.environ.get("XDG_STATE_HOME", "")
        if xdg.startswith("/"):
            return os.path.join(xdg, _APP)
        if home.startswith("/"):
            return os.path.join(home.rstrip("/") or "/", ".local", "state", _APP)
    try:
        import platformdirs
    except ImportError:  # (a declared dependency; an odd install may lack it)
        return os.path.join(os.path.expanduser("~"), ".local", "state", _APP)
    return str(platformdirs.user_state_dir(_APP))


def store_identity(url: str, base: str | None = None) -> str:
    """The store a URL names, spelled one way: ``file://<real path of the root>`` for a
    local store (``…/aiwiki`` and ``…/aiwiki/sessions`` name their repository), else
    ``scheme://host/path`` without credentials, query or trailing ``/``."""
    rest = url[len("file://") :] if url.startswith("file://") else url
    if "://" not in rest:
        path = os.path.expanduser(rest) if rest.startswith("~") else rest
        real = os.path.realpath(os.path.join(base or os.getcwd(), path))
        for tail in ("/aiwiki/sessions", "/aiwiki"):
            if real.endswith(tail):
                real = real[: -len(tail)] or "/"
                break
        return "file://" + real
    scheme, _, tail = rest.partition("://")
    tail = tail.split("?", 1)[0].split("#", 1)[0]
    host, _, path = tail.partition("/")
    host = host.rpartition("@")[2]  # never a user or a password
    return f"{scheme.lower()}://{host}/{path.strip('/')}".rstrip("/")


def folder_for(identity: str) -> str:
    """The outbox folder of a store: its identity made a file name (its last 60
    characters) and 64 bits of checksums of the whole.
    """
    import zlib  # (hashlib costs a hook run tens of milliseconds to import)

    data = identity.encode("utf-8", "surrogateescape")
    plain = "".join(c if c.isascii() and (c.isalnum() or c in "._-") else "_" for c in identity)
    name = f"{plain[-60:].lstrip('._')}-{zlib.crc32(data):08x}{zlib.adler32(data):08x}"
    return os.path.join(state_dir(), "outbox", name)


def pending(identity: str) -> list[str]:
    """The entries waiting for a store, oldest first (one listing; ``[]`` when none)."""
    try:
        names = os.listdir(folder_for(identity))
    except (OSError, ValueError):  # (no folder; or no home folder to find it in)
        return []
    return sorted(n for n in names if n.endswith(".json") and n[:1] != "." and n != _STORE_FILE)


def new_id() -> str:
    """A fresh checkpoint id (16 hex digits)."""
    return os.urandom(8).hex()


def _redacted(value: Any) -> Any:
    """``value`` with every secret in its strings replaced by its placeholder."""
    if isinstance(value, str):
        from ..redaction import redact

        return redact(value).text
    if isinstance(value, dict):
        return {k: _redacted(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_redacted(v) for v in value]
    return value


def _write(folder: str, name: str, data: bytes) -> str:
    """``data`` as ``folder/name``: a synced temp file renamed into place, the folder synced."""
    os.makedirs(folder, mode=0o700, exist_ok=True)
    final = os.path.join(folder, name)
    tmp = os.path.join(folder, f".{name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    try:
        os.replace(tmp, final)
    except OSError:
        os.unlink(tmp)
        raise
    from .._atomic import fsync_dir

    fsync_dir(folder)
    return final


def keep(identity: str, entry: Mapping[str, Any]) -> str:
    """Write one checkpoint (its texts redacted) to a store's outbox; its path.

    ``entry``: ``id``, ``at`` (UTC ISO), ``session_id``, ``trigger``, ``transcript_path``,
    ``work`` (``name``, ``manifest``, ``status``, ``phases``; or ``None``), ``directive``
    (``kind``, ``scope``, ``action``), ``layout``, ``format``, ``project``.
    """
    import json

    folder = folder_for(identity)
    store_file = os.path.join(folder, _STORE_FILE)
    if not os.path.exists(store_file):
        _write(folder, _STORE_FILE, json.dumps({"store": identity}).encode())
    data = dict(_redacted(dict(entry)))
    data["store"] = identity
    short = str(data.get("short_id") or "0000000")
    name = f"{time.time_ns():020d}-{short}-{data['id']}.json"
    text = json.dumps(data, ensure_ascii=False, indent=1, sort_keys=True)
    return _write(folder, name, text.encode("utf-8"))


def entries(identity: str) -> list[tuple[str, dict[str, Any] | None]]:
    """``(path, entry)`` of each waiting checkpoint, oldest first (``None``: unreadable)."""
    import json

    folder = folder_for(identity)
    out: list[tuple[str, dict[str, Any] | None]] = []
    for name in pending(identity):
        path = os.path.join(folder, name)
        try:
            with open(path, "rb") as fh:
                value = json.loads(fh.read().decode("utf-8"))
        except FileNotFoundError:  # delivered meanwhile by another run
            continue
        except (OSError, ValueError):
            value = None
        out.append((path, value if isinstance(value, dict) and value.get("id") else None))
    return out


class Delivered:
    """What :func:`deliver` did: keys written, entries found written already, entries
    unreadable and those the store refused (both left in place).
    """

    def __init__(self) -> None:
        self.written: list[str] = []
        self.already: int = 0
        self.unreadable: list[str] = []
        self.failed: list[tuple[str, Exception]] = []

    @property
    def count(self) -> int:
        """Entries delivered (written now or found delivered)."""
        return len(self.written) + self.already


def _when(at: object) -> Any:
    from datetime import UTC, datetime

    try:
        return datetime.strptime(str(at), "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
    except ValueError:
        return None


def _arguments(entry: Mapping[str, Any], project: str | None) -> dict[str, Any] | None:
    """:func:`~sessionkit.ops.lifecycle.record_checkpoint`'s arguments for an entry
    (``None``: an entry that does not read as one, say edited by hand)."""
    from .lifecycle import DirectiveSpec, WorkItem

    try:
        work = entry.get("work")
        item = None
        if work is not None:
            item = WorkItem(
                name=str(work["name"]),
                manifest=str(work["manifest"]),
                status=str(work["status"]),
                phases=tuple((str(k), str(v)) for k, v in work.get("phases") or ()),
            )
        spec = entry.get("directive") or {}
        directive = DirectiveSpec(
            **{k: str(spec[k]) for k in ("kind", "scope", "action") if k in spec}
        )
        payload = {
            k: entry[k]
            for k in ("session_id", "trigger", "transcript_path")
            if isinstance(entry.get(k), str)
        }
        return {
            "payload": payload,
            "now": _when(entry.get("at")),
            "directive": directive,
            "project": project or entry.get("project"),
            "work": item,
            "checkpoint_id": str(entry["id"]),
        }
    except (AttributeError, KeyError, TypeError, ValueError):
        return None


def unavailable(exc: BaseException) -> str | None:
    """Why the store could not take a checkpoint when it was busy or unreachable (a lock
    not free in time, lost write races, no answer), else ``None``."""
    from ..errors import ConflictError

    if isinstance(exc, ConflictError) or "cannot reach" in str(exc):
        return str(exc)
    from ..backends._netfail import unreachable

    why = unreachable(exc)
    return None if why is None else f"cannot reach the store: {why}"


def deliver(store: Any, identity: str, *, project: str | None = None) -> Delivered:
    """Record every checkpoint waiting for ``store`` in it, oldest first, exactly once.

    Each entry is removed once the store took it.  A busy or unreachable store stops
    the delivery (raised; the rest waits); an entry refused for another reason waits
    with the later ones of its session (:attr:`Delivered.failed`), the others go on.
    """
    done = Delivered()
    waiting = entries(identity)
    if not waiting:
        return done
    from .lifecycle import record_checkpoint

    stuck: set[object] = set()  # sessions whose entries wait behind a failed one
    for path, entry in waiting:
        args = (
            None if entry is None or entry.get("store") != identity else _arguments(entry, project)
        )
        if entry is None or args is None:  # (never another store's)
            done.unreadable.append(path)
            continue
        session = entry.get("session_id") or entry.get("short_id")
        if session in stuck:
            continue
        try:
            report = record_checkpoint(store, **args)
        except Exception as exc:
            if unavailable(exc) is not None:
                raise
            stuck.add(session)
            done.failed.append((path, exc))
            continue
        if report.at:
            done.written.append(report.key)
        else:
            done.already += 1
        try:  # noqa: SIM105 (contextlib is not imported on the hook path)
            os.unlink(path)
        except FileNotFoundError:  # another run delivered it too (and wrote it once)
            pass
    folder = folder_for(identity)
    from .._atomic import fsync_dir

    fsync_dir(folder)
    _sweep(folder)
    return done


def _sweep(folder: str, age: float = 3600.0) -> None:
    """Remove the temp files a writer killed mid-write left (older than ``age`` seconds)."""
    now = time.time()
    try:
        names = [n for n in os.listdir(folder) if n[:1] == "." and n.endswith(".tmp")]
    except OSError:
        return
    for name in names:
        path = os.path.join(folder, name)
        try:
            if now - os.stat(path).st_mtime > age:
                os.unlink(path)
        except OSError:
            pass


def summary() -> list[dict[str, Any]]:
    """Every store with checkpoints waiting: ``store``, ``folder``, ``count`` and one
    ``{"file", "id", "at", "session_id"}`` per entry, oldest first."""
    import json

    base = os.path.join(state_dir(), "outbox")
    try:
        folders = sorted(os.listdir(base))
    except OSError:
        return []
    out = []
    for name in folders:
        folder = os.path.join(base, name)
        try:
            with open(os.path.join(folder, _STORE_FILE), "rb") as fh:
                identity = str(json.loads(fh.read().decode("utf-8"))["store"])
        except (OSError, ValueError, KeyError, TypeError):
            continue
        items = [
            {"file": path, **{k: (entry or {}).get(k) for k in ("id", "at", "session_id")}}
            for path, entry in entries(identity)
        ]
        if items:
            out.append({"store": identity, "folder": folder, "count": len(items), "entries": items})
    return out
