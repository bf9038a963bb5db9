"""A PreCompact checkpoint: its pieces, and the ``pre-compact`` lane into a local aiwiki note.

The pieces are written here once (:func:`payload_ids`, :func:`find_work`,
:func:`checkpoint_body`, :func:`directive_items`, :func:`key_for_id7`) and used by
both ways of recording: :func:`sessionkit.ops.lifecycle.record_checkpoint` (any
store) and :func:`record_local`, the lane ``sessionkit hook pre-compact`` takes
for an existing plain v2 page of a local aiwiki folder (kept: about 3x on the
hook; ``tests/ops/test_checkpoint_lane.py`` holds it to the store's bytes).
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping

from .._lazyre import lazy
from .._listing import NO_ID, joined, names_with, note_names
from .._plain import Frozen, Plain

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from datetime import datetime
    from typing import Any

__all__ = [
    "NO_ID",
    "UNSAFE_ID",
    "Recorded",
    "WorkItem",
    "checkpoint_body",
    "directive_items",
    "find_work",
    "head_commit",
    "iso_now",
    "key_for_id7",
    "manifest_status",
    "one_line",
    "payload_ids",
    "record_local",
    "safe_short_id",
    "text_field",
]

#: a character that may not be in a session id (ids are UUIDs)
UNSAFE_ID = lazy(r"[^0-9A-Za-z_-]")
#: the characters a session id may hold (:data:`UNSAFE_ID` is any other)
SAFE_ID_CHARS = frozenset("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_-")
#: a manifest's ``status`` line, when the manifest is not YAML the loader reads
_STATUS_LINE = lazy(r"(?m)^status:[ \t]*['\"]?([^'\"#\n]*?)['\"]?[ \t]*(?:#.*)?$")
#: the most manifests looked at
_MANIFESTS = 1000
_MANIFEST_BYTES = 256 * 1024


def iso_now(now: datetime | None = None) -> str:
    """``now`` (default: the current time) as a UTC ISO timestamp ``YYYY-MM-DDTHH:MM:SSZ``."""
    if now is None:
        return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    from datetime import UTC

    when = now if now.tzinfo is not None else now.replace(tzinfo=UTC)
    return when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def safe_short_id(session_id: object) -> str:
    """The filename id part: the first 7 characters of ``[0-9A-Za-z_-]`` in the id (any
    other dropped first: a payload never steers a path); :data:`NO_ID` when none."""
    if not isinstance(session_id, str):
        return NO_ID
    if SAFE_ID_CHARS.issuperset(session_id):  # (the usual id: nothing to drop)
        return session_id[:7] or NO_ID
    return UNSAFE_ID.sub("", session_id)[:7] or NO_ID


def text_field(payload: Mapping[str, Any], name: str, limit: int = 4096) -> str | None:
    """A payload's string field (clipped to ``limit``), or ``None`` (missing, empty, NUL)."""
    value = payload.get(name)
    if not isinstance(value, str) or not value or "\x00" in value:
        return None
    return value[:limit]


def one_line(text: str) -> str:
    """``text`` with every run of blanks and line breaks one space."""
    return " ".join(text.split())


def payload_ids(payload: Any) -> tuple[str | None, str, bool, str | None]:
    """``(session_id, short id, payload_ok, trigger)`` of a PreCompact payload; an id
    missing or with characters outside ``[0-9A-Za-z_-]`` is ``None`` (short id
    :data:`NO_ID`); ``payload_ok``: an object with a usable id."""
    data: Mapping[str, Any] = payload if isinstance(payload, Mapping) else {}
    session_id = text_field(data, "session_id", 256)
    if session_id is not None and not SAFE_ID_CHARS.issuperset(session_id):
        session_id = None  # not an id (ids are UUIDs): never let it near a path
    id7 = safe_short_id(session_id)
    if id7 == NO_ID:
        session_id = None
    payload_ok = isinstance(payload, Mapping) and session_id is not None
    trigger = text_field(data, "trigger", 64)
    if trigger is not None:
        trigger = one_line(trigger)
    return session_id, id7, payload_ok, trigger


class WorkItem(Frozen):
    """The single in-progress ``.forge/work/<type>/<name>/manifest.yaml``: its ``name``
    (``<type>/<name>``), ``manifest`` path (from the repository root), ``status``, and
    ``phases`` (``artifacts.<phase>.locked_at`` values, in manifest order); a frozen value."""

    name: str
    manifest: str
    status: str
    phases: tuple[tuple[str, str], ...]
    __slots__ = tuple(__annotations__)

    def __init__(
        self, *, name: str, manifest: str, status: str, phases: tuple[tuple[str, str], ...] = ()
    ) -> None:
        self._set(name=name, manifest=manifest, status=status, phases=phases)


def manifest_status(text: str) -> tuple[str | None, tuple[tuple[str, str], ...]]:
    """A work manifest's ``status`` and its ``artifacts.<phase>.locked_at`` values."""
    from .._yaml import load_mapping
    from ..errors import SessionKitError

    try:
        data: Any = load_mapping(text)
    except (SessionKitError, ValueError, TypeError):
        m = _STATUS_LINE.search(text)
        return (m.group(1).strip() if m else None), ()
    status = data.get("status")
    phases: list[tuple[str, str]] = []
    artifacts = data.get("artifacts")
    if isinstance(artifacts, dict):
        for phase, value in artifacts.items():
            if isinstance(value, dict) and "locked_at" in value:
                locked = value["locked_at"]
                phases.append(
                    (f"artifacts.{phase}.locked_at", "~" if locked is None else str(locked))
                )
    return (None if status is None else str(status).strip()), tuple(phases)


_SKIPPED = (2, 20, 9, 40)  # ENOENT, ENOTDIR, EBADF, ELOOP: what a glob passes over


def _folders(path: str) -> list[str]:
    """The folders in ``path`` (symlinks to folders too), as a glob's ``*/`` sees them."""
    try:
        with os.scandir(path) as it:
            entries = list(it)
    except (FileNotFoundError, NotADirectoryError, PermissionError):
        return []
    out = []
    for entry in entries:
        try:
            if entry.is_dir():
                out.append(entry.name)
        except OSError as exc:
            if exc.errno not in _SKIPPED:
                raise
    return out


def find_work(repo_root: str | os.PathLike[str] | None) -> WorkItem | None:
    """The in-progress work item under ``repo_root``, when there is exactly one.

    Looks at the first 1,000 ``.forge/work/<type>/<name>/manifest.yaml`` (sorted) for
    ``status: in-progress``; unreadable ones, those over 256 KB and non-regular files
    are skipped.
    """
    if repo_root is None:
        return None
    base = os.path.join(os.fspath(repo_root), ".forge", "work")
    found: list[tuple[str, str, str]] = []
    try:
        if not os.path.isdir(base):
            return None
        for kind in _folders(base):
            for name in _folders(os.path.join(base, kind)):
                path = os.path.join(base, kind, name, "manifest.yaml")
                if os.path.exists(path):
                    found.append((kind, name, path))
    except OSError:
        return None
    found.sort(key=lambda item: (item[0], item[1]))
    from .._safe_read import read_regular

    items: list[WorkItem] = []
    for kind, name, path in found[:_MANIFESTS]:
        # regular files only, never a FIFO or a device (those would block the hook)
        data = read_regular(path, _MANIFEST_BYTES + 1)
        if data is None or len(data) > _MANIFEST_BYTES:
            continue
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            continue
        status, phases = manifest_status(text)
        if status != "in-progress":
            continue
        manifest = f".forge/work/{kind}/{name}/manifest.yaml"
        items.append(
            WorkItem(name=f"{kind}/{name}", manifest=manifest, status=status, phases=phases)
        )
    return items[0] if len(items) == 1 else None


def checkpoint_body(work: Any) -> str:
    """A checkpoint entry's text before its directive: the active work item, or none."""
    lines: list[str] = []
    if work is not None:
        lines += [f"Active work: {work.name}", f"Manifest: {work.manifest}", ""]
        lines += ["Phase status (from manifest):", "```yaml", f"status: {work.status}"]
        lines += [f"{k}: {v}" for k, v in work.phases]
        lines += ["```"]
    else:
        lines += ["Active work: none found"]
    return "\n".join(lines)


def directive_items(scope: str, trigger: str | None, action: str) -> tuple[str, ...]:
    """A checkpoint directive's items: ``Scope:`` (unless empty), ``Trigger:``, ``Action:``."""
    items = []
    if scope:
        items.append(f"Scope: {one_line(scope)}")
    items.append(f"Trigger: pre-compact ({trigger or 'unknown'})")
    items.append(f"Action: {one_line(action)}")
    return tuple(items)


def key_for_id7(keys: Sequence[str], id7: str, today: str | None = None) -> str | None:
    """The note of short id ``id7`` among ``keys``: the newest date, then the greatest key
    (``today``: only a note of that date, as the short id ``0000000`` has one a day)."""
    from ..text.grammar import DATED_KEY

    best: tuple[str, str] | None = None
    tail = f"-{id7}.md"
    for key in keys:
        m = DATED_KEY.match(key) if key.endswith(tail) else None  # (one of 10,000 keys)
        if m is None or m.group(2) != id7 or (today is not None and m.group(1) != today):
            continue
        if best is None or (m.group(1), key) > best:
            best = (m.group(1), key)
    return None if best is None else best[1]


class Recorded(Plain):
    """What :func:`record_local` did: the note, the short id, whether the payload was
    usable, the secrets redacted (or warned about)."""

    __slots__ = ("findings", "key", "payload_ok", "short_id")

    def __init__(self, key: str, short_id: str, payload_ok: bool, findings: list[Any]) -> None:
        self.key = key
        self.short_id = short_id
        self.payload_ok = payload_ok
        self.findings = findings


def record_local(
    root: str,
    payload: Any,
    *,
    repo_root: str | None,
    kind: str,
    scope: str,
    action: str,
    lock_timeout: float,
    redaction: Any = None,
) -> Recorded | None:
    """Record a checkpoint in an existing plain v2 page of the local aiwiki store at
    ``root`` (the folder holding ``aiwiki/``), as
    :func:`sessionkit.ops.lifecycle.record_checkpoint` would (same note, same bytes),
    under the store's lock; ``None`` when the lane does not apply (nothing written).

    Raises:
        ConflictError: the lock was not free within ``lock_timeout`` seconds.
    """
    from .. import _fastpaths as fastpaths

    if not fastpaths.enabled("pre-compact"):
        return None
    session_id, id7, payload_ok, trigger = payload_ids(payload)
    work = find_work(repo_root)
    head = head_commit(repo_root)
    day = iso_now()[:10]
    real_root = os.path.realpath(os.path.abspath(root))
    folder = os.path.join(real_root, "aiwiki", "sessions")
    from .._atomic import inside

    if not inside(os.path.realpath(folder), real_root):
        return None
    names = note_names(folder)
    if names is None:
        return None
    listing = joined(names)
    keys = [n for n in names_with(listing, f"-{id7}.md\0") if n[:1] != "."]
    key = key_for_id7(keys, id7, today=day if id7 == NO_ID else None)
    if key is None:
        return None  # a new note: the store makes it
    if ".tmp\0" in listing:
        from .._atomic import sweep_temps

        sweep_temps(folder)  # what a killed writer left (as the store does before its lock)
    from .._gitignore import exclude_in_git

    exclude_in_git(folder)
    shown = f"aiwiki/sessions/{key}"
    full = os.path.join(folder, key)
    from .._atomic import LOCK_NAME, lock_file, lock_timeout_text

    try:  # the store's own lock file, held the way the store holds it
        release = lock_file(os.path.join(folder, LOCK_NAME), lock_timeout)
    except TimeoutError:
        from ..errors import ConflictError

        raise ConflictError(lock_timeout_text(lock_timeout, shown), path=shown) from None
    except OSError:
        return None  # the store's way meets it again and names it
    try:
        written = _splice(
            full, key, session_id, work, trigger, kind, scope, action, redaction, head
        )
    finally:
        release()
    if written is None:
        return None
    fastpaths.answered("pre-compact")
    return Recorded(key, id7, payload_ok, written)


def _splice(
    full: str,
    key: str,
    session_id: str | None,
    work: Any,
    trigger: str | None,
    kind: str,
    scope: str,
    action: str,
    redaction: Any,
    head: str | None = None,
) -> list[Any] | None:
    """Under the lock: the entry spliced in and written; the findings, or ``None`` (nothing
    written) for a page the lane does not take (one whose ``last_commit`` is not ``head``)."""
    import stat as _stat

    from .._atomic import fsync_dir, make_temp
    from ..adapters.aiwiki_page import (
        CHECKPOINTS,
        CheckpointParts,
        DirectiveParts,
        checkpoint_lines,
        read_parts,
    )
    from ..document import MAX_NOTE_BYTES, parse
    from ..errors import SessionKitError

    try:
        st = os.stat(full)
        if not _stat.S_ISREG(st.st_mode) or not st.st_mode & 0o222:
            return None  # (a read-only note: the store refuses it, and says so)
        if st.st_size > MAX_NOTE_BYTES:
            return None
        with open(full, "rb") as fh:
            current = fh.read()
    except OSError:
        return None
    try:
        text = current.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if "\r" in text and "\n" not in text:
        return None
    doc = parse(text, key)
    try:
        meta = doc.meta
        version = meta.get("schema_version")
        if meta.get("schema_id") != "session" or version != 2 or isinstance(version, bool):
            return None
        if head is not None and meta.get("last_commit") != head:
            return None
        parts, layout = read_parts(doc)
    except SessionKitError:
        return None
    if parts.id is None and session_id is not None:
        return None  # the store's way also sets session_id
    spans = layout.checkpoints
    if not spans or CHECKPOINTS not in layout.known:
        return None
    stamp = iso_now()
    directive = DirectiveParts(
        kind=one_line(kind) or "Dream",
        state="unconsumed",
        items=directive_items(scope, trigger, action),
    )
    entry = CheckpointParts(
        event="PreCompact", at=stamp, body=checkpoint_body(work), directives=(directive,)
    )
    if not _appended_at_end(parts.checkpoints, entry):
        return None
    new = doc.insert_lines(spans[-1].content_end, ["", *checkpoint_lines(entry)]).text
    findings: list[Any] = []
    new = _guarded(new, f"aiwiki/sessions/{key}", redaction, findings)
    data = new.encode("utf-8")
    if data == current:
        return findings
    folder = os.path.dirname(full)
    try:
        tmp, fd = make_temp(full, data, like=st)
    except OSError:
        return None  # nothing written: the store's way meets it again and names it
    try:
        os.replace(tmp, full)
    except OSError:
        return None
    finally:
        try:  # noqa: SIM105 (contextlib is not imported on the hook path)
            os.unlink(tmp)
        except FileNotFoundError:  # (moved into place)
            pass
        os.close(fd)
    fsync_dir(folder)
    return findings


def _appended_at_end(old: Sequence[Any], entry: Any) -> bool:
    """Whether the store's diff (:class:`difflib.SequenceMatcher`) adds ``entry`` after the
    last entry, as the lane does: not when its heuristic for long lists (200 entries on)
    drops an entry repeated more than 1% of times."""
    n = len(old) + 1
    if n < 200:
        return True
    counts: dict[Any, int] = {}
    for cp in (*old, entry):
        counts[cp] = counts.get(cp, 0) + 1
    return max(counts.values()) <= n // 100 + 1


def _guarded(text: str, path: str, redaction: Any, findings: list[Any]) -> str:
    """What the store would write for ``text``: its secrets redacted under the policy."""
    from .. import redaction as _redaction

    class _Sink:  # the store's side of guard(): its policy and its findings
        def __init__(self) -> None:
            self.redaction = redaction
            self.redactions = findings

    return _redaction.guard(_Sink(), path, text, remote=False)


def head_commit(repo_root: str | None) -> str | None:
    """The short sha of ``HEAD`` in ``repo_root``'s ``.git``, read from its files (never
    runs git); ``None`` when it cannot tell."""
    if repo_root is None:
        return None
    git = os.path.join(os.fspath(repo_root), ".git")
    try:
        if os.path.isfile(git):  # a worktree or submodule: "gitdir: <path>"
            with open(git, encoding="utf-8") as f:
                line = f.read(4096).strip()
            if not line.startswith("gitdir:"):
                return None
            git = os.path.join(os.fspath(repo_root), line[len("gitdir:") :].strip())
        with open(os.path.join(git, "HEAD"), encoding="utf-8") as f:
            head = f.read(4096).strip()
        if not head.startswith("ref:"):
            return _sha7(head)
        ref = head[4:].strip()
        if ".." in ref.split("/"):
            return None
        for base in (git, _common_dir(git)):
            path = os.path.join(base, ref)
            if os.path.isfile(path):
                with open(path, encoding="utf-8") as f:
                    return _sha7(f.read(4096).strip())
            packed = os.path.join(base, "packed-refs")
            if os.path.isfile(packed):
                with open(packed, encoding="utf-8") as f:
                    for line in f:
                        sha, _, name = line.strip().partition(" ")
                        if name == ref:
                            return _sha7(sha)
    except (OSError, UnicodeDecodeError):
        return None
    return None


def _common_dir(git: str) -> str:
    try:
        with open(os.path.join(git, "commondir"), encoding="utf-8") as f:
            return os.path.normpath(os.path.join(git, f.read(4096).strip()))
    except OSError:
        return git


def _sha7(text: str) -> str | None:
    sha = text.strip().lower()
    if len(sha) >= 7 and all(c in "0123456789abcdef" for c in sha[:40]) and len(sha) in (40, 64):
        return sha[:7]
    return None
