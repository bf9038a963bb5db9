"""Bulk lint: many notes, in order, over worker processes, a few chunks in memory at a time.

Each work item is one note: a local file (read in the worker) or bytes
already fetched from a store.  :func:`lint_many` yields each note's findings
in input order, as they arrive, so a caller can print while linting.

A note inside a wiki is linted with the wiki's own schema page
(``<root>/aiwiki/schemas/session.md``) when it has one: :class:`WikiSchemas`
finds and reads it once per root, and the schema travels with the work item.
"""

from __future__ import annotations

import errno
import os
import stat
from typing import overload

from .._api import decode, lint_text
from .._safe_read import file_kind
from ..diagnostics import Diagnostic, Severity
from ..document import MAX_NOTE_BYTES
from ..errors import ParseError

TYPE_CHECKING = False  # (typing and pathlib are not imported at run time: lint's start-up)
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator
    from pathlib import Path
    from typing import Any, TypeVar

    from ..adapters.aiwiki import Schema

__all__ = [
    "MAX_NOTE_BYTES",
    "SCHEMA_PAGE",
    "LintItem",
    "WikiSchemas",
    "lint_data",
    "lint_file",
    "lint_item",
    "lint_many",
    "note_runs",
    "notes_under",
    "outside_wiki",
    "spelled",
    "wiki_root",
]

#: one note to lint: ``("file", path, None)``, ``("data", shown path, bytes)``
#: or ``("error", shown path, (message, line))`` for a note a store could not read;
#: a fourth element, when present, is the :class:`Schema` to lint an aiwiki page
#: with (the wiki's own schema page) or ``None`` for the built-in one
if TYPE_CHECKING:
    LintItem = tuple[Any, ...]
else:
    LintItem = tuple

#: (``O_NONBLOCK``: a FIFO without a writer never holds the open; a regular file ignores it)
_READ_FLAGS = os.O_RDONLY | getattr(os, "O_BINARY", 0) | getattr(os, "O_NONBLOCK", 0)

#: where a wiki keeps its own session schema page, relative to its root
SCHEMA_PAGE = "aiwiki/schemas/session.md"


def too_big(path: str, size: int, limit: int) -> Diagnostic:
    """The finding for a note over the size limit (SK002)."""
    return Diagnostic(
        code="SK002",
        severity=Severity.ERROR,
        line=None,
        message=f"note is {size} bytes, over the limit of {limit} (limits.max_note_bytes)",
        path=path,
    )


def unreadable(message: str, line: int | None, path: str) -> Diagnostic:
    """The finding for a note whose bytes cannot be read as text (AW001)."""
    return Diagnostic(code="AW001", severity=Severity.ERROR, line=line, message=message, path=path)


def lint_data(data: bytes, path: str, limit: int, schema: Schema | None = None) -> list[Diagnostic]:
    """Findings for a note's bytes (size limit, UTF-8, then its format's lint).

    ``schema`` is the aiwiki schema to lint with (see :func:`sessionkit.lint`).
    """
    if len(data) > limit:
        return [too_big(path, len(data), limit)]
    try:
        text = decode(data, path)
    except ParseError as exc:
        return [unreadable(exc.message, exc.line, path)]
    found = lint_text(text, path, None, limit, schema, data)
    if any(not d.path for d in found):
        found = [d if d.path else d.replace(path=path) for d in found]
    return found


#: the first read of a local note: most notes fit, and a note that fits needs no fstat
_FIRST_READ = 1 << 16


def lint_file(path: str, limit: int, schema: Schema | None = None) -> list[Diagnostic]:
    """Findings for a local file (a file over the limit is not read past its first 64 KiB).

    Raises:
        OSError: the file cannot be read.
    """
    try:
        fd = os.open(path, _READ_FLAGS)
    except OSError as exc:
        if exc.errno != errno.ELOOP:
            raise
        return [unreadable(f"cannot read it: {exc.strerror}", None, path)]
    try:
        data = os.read(fd, _FIRST_READ)
        if len(data) == _FIRST_READ or not data:  # maybe more (or not a file): look at it
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):  # a FIFO (never waited on), a device
                kind = file_kind(info.st_mode)
                return [unreadable(f"cannot read it: it is {kind}, not a regular file", None, path)]
            if len(data) < _FIRST_READ:
                return lint_data(data, path, limit, schema)
            size = info.st_size
            if size > limit:
                return [too_big(path, size, limit)]
            parts, total = [data], len(data)
            while total <= limit:  # (up to just past the limit, should it grow meanwhile)
                chunk = os.read(fd, max(size + 1 - total, 1 << 20))
                if not chunk:
                    break
                parts.append(chunk)
                total += len(chunk)
            data = b"".join(parts)
    finally:
        os.close(fd)
    return lint_data(data, path, limit, schema)


def lint_item(item: LintItem, limit: int) -> list[Diagnostic]:
    """Findings for one work item (see :data:`LintItem`)."""
    kind, path, payload = item[0], item[1], item[2]
    schema = item[3] if len(item) > 3 else None
    if kind == "file":
        return lint_file(path, limit, schema)
    if kind == "data":
        assert isinstance(payload, bytes)
        return lint_data(payload, path, limit, schema)
    message, line = payload
    return [unreadable(str(message), line, path)]


class _Job:
    """A picklable ``item -> findings`` function with the size limit bound (and, given
    ``render``, ``item -> what render makes of its findings``)."""

    def __init__(self, limit: int, render: Callable[[list[Diagnostic]], Any] | None) -> None:
        self.limit, self.render = limit, render

    def __call__(self, item: LintItem) -> Any:
        if item[0] == "file" and len(item) == 4:  # (the usual item: no dispatch)
            found = lint_file(item[1], self.limit, item[3])
        else:
            found = lint_item(item, self.limit)
        return found if self.render is None else self.render(found)


if TYPE_CHECKING:
    _R = TypeVar("_R")


@overload
def lint_many(
    items: Iterable[LintItem], *, limit: int, jobs: int | None = None, render: None = None
) -> Iterator[list[Diagnostic]]: ...


@overload
def lint_many(
    items: Iterable[LintItem],
    *,
    limit: int,
    jobs: int | None = None,
    render: Callable[[list[Diagnostic]], _R],
) -> Iterator[_R]: ...


def lint_many(
    items: Iterable[LintItem],
    *,
    limit: int,
    jobs: int | None = None,
    render: Callable[[list[Diagnostic]], Any] | None = None,
) -> Iterator[Any]:
    """Each item's findings, in input order, linted over ``jobs`` processes.

    Items are read lazily; only a few chunks are in memory at once.  The one
    process pool of sessionkit does the work
    (:func:`~sessionkit.ops._parallel.ordered_map`).

    ``render``, when given, is applied to each item's findings in the process
    that linted them, and what it returns is yielded instead: a caller that
    prints the findings has the workers format them, so that this process
    sends and receives text, not findings.  It must be picklable (a function
    defined at a module's top level) and must not depend on state of this
    process that a worker lacks.

    Raises:
        OSError: a local file cannot be read (at its place in the order).
        ValueError: ``jobs`` is below 1.
    """
    from ._parallel import default_jobs, ordered_map

    workers = default_jobs() if jobs is None else jobs
    if workers < 1:
        raise ValueError(f"jobs must be at least 1, not {workers}")
    job = _Job(limit, render)
    if workers == 1:  # (map raises the input's own error at its place too)
        return map(job, items)
    # (512 pages a task: the pool's own cost per task is about half a millisecond of
    # the parent's time, which on two cores is taken from the workers)
    return ordered_map(job, items, jobs=workers, chunk_size=512)


def notes_under(folder: str | os.PathLike[str], refused: list[str] | None = None) -> Iterator[str]:
    """Every ``*.md`` note under ``folder/aiwiki/sessions`` (or ``folder``), lazily, in order.

    ``INDEX.md`` and names starting with ``.`` (and all under such a folder)
    are left out; folders reached through a symbolic link are not entered.
    The order is that of the paths sorted part by part (a folder's entries by
    name, a subfolder's notes at the subfolder's place), the order
    ``sorted(Path(folder).rglob("*.md"))`` gives, and the paths are spelled as
    :class:`~pathlib.Path` spells them.  The walk is one ``os.scandir`` per
    folder on plain strings: no stat per note.

    Nothing behind a link that leads outside ``folder`` is read: a notes
    folder, or a note, that is a symbolic link resolving outside it is left
    out and its path appended to ``refused`` (when given).
    """
    for prefix, names in note_runs(folder, refused):
        yield from map(prefix.__add__, names)


def note_runs(
    folder: str | os.PathLike[str], refused: list[str] | None = None
) -> Iterator[tuple[str, list[str]]]:
    """:func:`notes_under` a run at a time: ``(prefix, names)``, the notes of one folder
    that follow each other in the order (a folder's notes up to a subfolder's place,
    then that subfolder's runs, then the rest), each path ``prefix + name``.

    For a caller that does the same for every note of a folder: it can do it once a
    run, and make the paths (and its work items) with C-level maps.
    """
    top = spelled(folder)
    sessions = os.path.join(top, "aiwiki", "sessions") if top != "." else "aiwiki/sessions"
    base = sessions if os.path.isdir(sessions) else top
    root = os.path.realpath(folder)
    if base is sessions and not _inside(os.path.realpath(base), root):
        if refused is not None:
            refused.append(base)
        return
    yield from _walk(base, root, refused)


def spelled(path: str | os.PathLike[str]) -> str:
    """``str(pathlib.Path(path))``: the path as :class:`~pathlib.Path` spells it (no
    ``.`` part, no doubled or trailing separator), worked out here for a path that is
    spelled so already (pathlib is imported for the others)."""
    text = os.fspath(path)
    parts = text.split("/")
    if (
        os.sep == "/"
        and text
        and "//" not in text
        and (text == "/" or not text.endswith("/"))
        and "." not in parts[1:]
        and (parts[0] != "." or text == ".")
    ):
        return text
    from pathlib import Path

    return str(Path(text))


def _inside(real: str, root: str) -> bool:
    return real == root or real.startswith(root.rstrip(os.sep) + os.sep)


def _walk(top: str, root: str, refused: list[str] | None) -> Iterator[tuple[str, list[str]]]:
    # names only (not the DirEntry objects, each with its own path string): a folder
    # of 100,000 notes is held as 100,000 short strings while it is walked
    notes: list[str] = []
    folders: list[str] = []
    links: set[str] = set()  # notes that are symbolic links (checked when their run comes)
    with os.scandir(top) as it:
        for entry in it:
            name = entry.name
            # (a regular file, the usual entry, needs one look at its type)
            if name.endswith(".md") and entry.is_file(follow_symlinks=False):
                if name[0] != "." and name != "INDEX.md":
                    notes.append(name)
            elif name[0] == ".":
                continue
            elif entry.is_dir(follow_symlinks=False):
                folders.append(name)
            elif name.endswith(".md") and name != "INDEX.md" and _note_like(entry):
                notes.append(name)  # a symbolic link to a file, a FIFO, a looping link: read
                if entry.is_symlink():  # (and reported) at its turn
                    links.add(name)
    notes.sort()
    folders.sort()
    prefix = top if top.endswith(os.sep) else top + os.sep
    at = 0
    for folder in [*folders, None]:  # each subfolder's notes at its place among the names
        end = len(notes)
        if folder is not None:
            end = at
            while end < len(notes) and notes[end] < folder:
                end += 1
        run = notes[at:end]
        if links:  # a link to a file outside: not read, not fixed
            run = [name for name in run if name not in links or _kept(prefix + name, root, refused)]
        if run:
            yield prefix, run
        at = end
        if folder is not None:
            yield from _walk(prefix + folder, root, refused)


def _note_like(entry: os.DirEntry[str]) -> bool:
    """Whether ``entry`` (no regular file, no folder itself) is read as a note: a link to
    a file, a FIFO, a device, a looping link (each read says what it is); not a link to a
    folder, nor one that leads nowhere."""
    try:
        return not stat.S_ISDIR(entry.stat().st_mode)
    except FileNotFoundError:
        return False
    except OSError:  # (ELOOP)
        return True


def _kept(path: str, root: str, refused: list[str] | None) -> bool:
    """Whether a note that is a symbolic link resolves inside ``root`` (else it is refused)."""
    if _inside(os.path.realpath(path), root):
        return True
    if refused is not None:
        refused.append(path)
    return False


# -- a wiki's own schema page -------------------------------------------------------


def wiki_root(path: str | os.PathLike[str]) -> Path | None:
    """The root of the wiki holding a note under ``<root>/aiwiki/sessions/``, else ``None``."""
    root = _wiki_root(os.fspath(path))
    if root is None:
        return None
    from pathlib import Path

    return Path(root)


def outside_wiki(path: str | os.PathLike[str]) -> tuple[str, str] | None:
    """``(where it leads, the wiki's root)`` when ``path``, a note under
    ``<root>/aiwiki/sessions/``, resolves (through a link) outside that root; else
    ``None``.  The store's root rule, for a command given one note's path."""
    text = os.fspath(path)
    root = _wiki_root(text)
    if root is None:
        return None
    real, real_root = os.path.realpath(text), os.path.realpath(root)
    return None if _inside(real, real_root) else (real, root)


def _wiki_root(path: str) -> str | None:
    """:func:`wiki_root` as a string (no pathlib: lint asks once per folder)."""
    here = os.path.dirname(os.path.abspath(path))
    while True:
        up = os.path.dirname(here)
        if os.path.basename(here) == "sessions" and os.path.basename(up) == "aiwiki":
            return os.path.dirname(up)
        if up == here:
            return None
        here = up


class WikiSchemas:
    """Each wiki's own schema page (:data:`SCHEMA_PAGE`), read once per wiki.

    The schema applies to aiwiki pages of the version it describes and only
    when its ``schema_id`` is ``session`` (as
    :func:`sessionkit.adapters.aiwiki.schema_for_root`); ``None`` means the
    built-in page.
    """

    def __init__(self) -> None:
        self._roots: dict[str, Schema | None] = {}
        self._folders: dict[str, Schema | None] = {}

    @staticmethod
    def _usable(schema: Schema) -> Schema | None:
        return schema if schema.schema_id == "session" else None

    def for_root(self, root: str | os.PathLike[str]) -> Schema | None:
        """The own schema of the wiki at ``root`` (local), if it has one.

        Raises:
            ParseError, FormatError: the schema page is broken (with its path
                and line).
        """
        key = os.path.abspath(root)
        if key not in self._roots:
            page = os.path.join(key, SCHEMA_PAGE)
            own = None
            if os.path.isfile(page):  # (the reader is imported only for a wiki that has one)
                from ..adapters.aiwiki import load_schema

                own = self._usable(load_schema(page))
            self._roots[key] = own
        return self._roots[key]

    def for_note(self, path: str | os.PathLike[str]) -> Schema | None:
        """The own schema of the wiki a local note belongs to, if any (see :meth:`for_root`).

        Looked up once per folder: the notes of one folder share their wiki.
        """
        folder = os.path.dirname(os.fspath(path))
        try:
            return self._folders[folder]
        except KeyError:
            pass
        root = _wiki_root(os.fspath(path))
        found = None if root is None else self.for_root(root)
        self._folders[folder] = found
        return found

    def for_store(self, store: Any) -> Schema | None:
        """The own schema of an aiwiki store (read through its storage), if it has one.

        Raises:
            ParseError, FormatError: the schema page is broken (with its path
                and line).
        """
        storage = getattr(store, "storage", None)
        if getattr(store, "layout", None) != "aiwiki" or storage is None:
            return None
        from .._api import decode
        from ..adapters.aiwiki import load_schema
        from ..errors import FormatError, NotFoundError

        source = f"{str(storage.url).rstrip('/')}/{SCHEMA_PAGE}"
        try:
            data = storage.read(SCHEMA_PAGE)
        except NotFoundError:
            return None
        text = decode(bytes(data), source)
        if "\n" not in text:  # load_schema would take a one-line text for a path
            raise FormatError("schema page has no frontmatter", path=source, line=1)
        return self._usable(load_schema(text, source=source))
