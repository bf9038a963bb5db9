"""Find past sessions: an embedded full-text index (SQLite FTS5) per store.

One row per searchable item of a note: the session itself (focus, title,
summary), each checkpoint, directive, decision, gotcha, open question, next
step, file touched, context line, observation and relation, with its kind,
the note's session id, date, status and project, and the line it is on.

The index is a cache: it lives outside the repository (the user's cache
folder, :func:`cache_dir`), one SQLite file per store, and every search first
brings it up to date from the store's listing (modification time and size of
each note, or what the object store reports), re-reading only the notes that
changed and dropping the ones that are gone.  A missing or corrupt index is
rebuilt, never an error.  Nothing is indexed that the notes do not hold, and a
secret a note still holds is indexed redacted, as every file sessionkit
writes.

Ranking is SQLite's bm25 with the session row's title weighted above item
text, ties broken by the newer session.  A query is first run with every word
required; when nothing matches, with any word.  ``"two words"`` is a phrase
and ``retr*`` a prefix.
"""

from __future__ import annotations

import array
import contextlib
import hashlib
import os
import re
from collections.abc import Iterable, Iterator, Sequence
from functools import partial
from itertools import chain
from operator import attrgetter
from stat import S_IFMT, S_IFREG, S_ISDIR, S_ISREG
from typing import TYPE_CHECKING, Any

import attrs

from ..errors import SessionKitError, ValidationError

if TYPE_CHECKING:
    import sqlite3

__all__ = ["KINDS", "IndexStats", "SearchHit", "cache_dir", "index_path", "refresh", "search"]

#: the kinds of rows, as ``--kind`` takes them
KINDS = (
    "session",
    "checkpoint",
    "directive",
    "decision",
    "gotcha",
    "question",
    "next-step",
    "file",
    "context",
    "observation",
    "relation",
)

_SCHEMA_VERSION = "1"
_BATCH = 256
#: bm25 column weights: (text, title); the title column is filled on session rows only
_WEIGHTS = (1.0, 2.0)
_CATEGORY = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+\[([^\[\]()]+)\]\s")
_WORD = re.compile(r'"([^"]*)"|(\S+)')


@attrs.frozen(kw_only=True)
class SearchHit:
    """One search result.

    Attributes:
        store: the store's URL as opened.
        key: the note's key in that store.
        path: where the note is (the store's URL joined with the key).
        line: the 1-based line of the item in the note (``None``: not found).
        kind: one of :data:`KINDS`.
        session: the note's session id (``None`` when it has none).
        date: the day the session started (``YYYY-MM-DD``) or ``None``.
        status: the session's status word.
        project: the note's project (Basic Memory) or ``None``.
        category: the observation category the line carries, if any.
        state: ``unconsumed`` / ``consumed`` for directives, else ``None``.
        snippet: the matching text with the matched words in ``[...]``.
        score: bm25 (lower is better).
    """

    store: str
    key: str
    path: str
    line: int | None
    kind: str
    session: str | None
    date: str | None
    status: str | None
    project: str | None
    category: str | None
    state: str | None
    snippet: str
    score: float

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able mapping (what ``search --json`` prints per row)."""
        return attrs.asdict(self)


@attrs.frozen(kw_only=True)
class IndexStats:
    """What bringing one store's index up to date did.

    Attributes:
        path: the index file.
        notes: notes in the index after the update.
        read: notes (re)read and indexed by this update.
        removed: notes dropped because they are gone.
        failed: notes that could not be read or parsed (indexed as nothing).
        rebuilt: the index was made anew (missing, corrupt, or asked for).
    """

    path: str
    notes: int
    read: int
    removed: int
    failed: int
    rebuilt: bool


# -- where the index lives -----------------------------------------------------------------


def cache_dir() -> str:
    """The folder of the search indexes: ``$SESSIONKIT_CACHE_DIR``, else the user's
    cache folder (``platformdirs.user_cache_dir("sessionkit")``), never the repository."""
    env = os.environ.get("SESSIONKIT_CACHE_DIR")
    if env:
        return os.path.abspath(env)
    import platformdirs

    return platformdirs.user_cache_dir("sessionkit", appauthor=False)


def _identity(store: Any) -> str:
    storage = getattr(store, "storage", None)
    root = getattr(storage, "root", None) or getattr(store, "url", "")
    return "\n".join(
        [str(root), str(getattr(store, "folder", "")), str(getattr(store, "layout", ""))]
    )


def index_path(store: Any) -> str:
    """The index file of ``store`` (keyed by the store's location, layout and folder)."""
    digest = hashlib.sha256(_identity(store).encode("utf-8", "surrogateescape")).hexdigest()
    return os.path.join(cache_dir(), "search", f"{digest[:24]}.sqlite3")


# -- the index -----------------------------------------------------------------------------

_DDL = """
CREATE TABLE meta(k TEXT PRIMARY KEY, v TEXT);
CREATE TABLE notes(
    key TEXT PRIMARY KEY, version TEXT NOT NULL, session TEXT, date TEXT,
    status TEXT, project TEXT, error TEXT);
CREATE TABLE items(
    id INTEGER PRIMARY KEY, key TEXT NOT NULL, kind TEXT NOT NULL, line INTEGER,
    category TEXT, state TEXT);
CREATE INDEX items_key ON items(key);
CREATE VIRTUAL TABLE fts USING fts5(text, title, tokenize='unicode61 remove_diacritics 2');
"""


def _connect(path: str, *, rebuild: bool) -> tuple[sqlite3.Connection, bool]:
    """An open index with the current schema; ``True`` when it was made anew."""
    import sqlite3

    os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
    if rebuild:
        _remove(path)
    for attempt in (0, 1):
        fresh = not os.path.exists(path)
        db = sqlite3.connect(path, timeout=30, isolation_level=None)
        try:
            db.execute("PRAGMA synchronous = OFF")  # a cache: lost on a crash, it is rebuilt
            if fresh:
                with contextlib.suppress(OSError):
                    os.chmod(path, 0o600)
                db.executescript("BEGIN;" + _DDL + "COMMIT;")
                db.execute("INSERT INTO meta VALUES ('schema', ?)", (_SCHEMA_VERSION,))
            row = db.execute("SELECT v FROM meta WHERE k = 'schema'").fetchone()
            if row is None or row[0] != _SCHEMA_VERSION:
                raise sqlite3.DatabaseError("index of another schema")
            return db, fresh or rebuild
        except sqlite3.DatabaseError:
            db.close()
            if attempt:
                raise
            _remove(path)  # corrupt, truncated or of another version: make it anew
    raise AssertionError("unreachable")


def _remove(path: str) -> None:
    for suffix in ("", "-journal", "-wal", "-shm"):
        with contextlib.suppress(FileNotFoundError):
            os.remove(path + suffix)


def _fingerprint(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def refresh(store: Any, *, rebuild: bool = False, jobs: int | None = None) -> IndexStats:
    """Bring ``store``'s index up to date with its notes (see the module docs).

    ``jobs``: processes that parse changed notes (``None``: one per core when
    there are many; 1: this process only).
    """
    import sqlite3

    path = index_path(store)
    db, fresh = _connect(path, rebuild=rebuild)
    try:
        return _refresh(db, store, path, fresh, jobs)
    except sqlite3.DatabaseError:
        db.close()
        db, _ = _connect(path, rebuild=True)
        return _refresh(db, store, path, True, jobs)
    finally:
        db.close()


def _scan(folder: str) -> tuple[list[str], array.array[int]] | None:
    """Every file below ``folder``, by relative path, with its ``mtime_ns``, size and
    inode (three numbers each, in one array): one ``stat`` per entry, relative to the
    open folder and mapped in C (no Python statement per note); dot names skipped, as
    the listing skips them.  ``None`` when a link or a FIFO is met, or a file goes
    meanwhile (the store's own listing decides then)."""
    if os.stat not in os.supports_dir_fd:
        return None
    names: list[str] = []
    nums = array.array("q")
    todo = [("", folder)]
    while todo:
        rel, top = todo.pop()
        try:
            fd = os.open(top, os.O_RDONLY | _NOFOLLOW_DIR)
        except FileNotFoundError:
            continue  # (no folder: no notes)
        except OSError:
            return None
        try:
            here = os.listdir(fd)
            if "\0." in "\0".join(["", *here]):  # (rare: dot names, never notes)
                here = [name for name in here if name[0] != "."]
            stats = list(map(partial(os.stat, dir_fd=fd, follow_symlinks=False), here))
        except OSError:
            return None
        finally:
            os.close(fd)
        if set(map(S_IFMT, map(_MODE, stats))) - {S_IFREG}:  # (rare: folders, links, FIFOs)
            if not all(S_ISDIR(st.st_mode) or S_ISREG(st.st_mode) for st in stats):
                return None
            todo += [
                (f"{rel}{n}/", f"{top}/{n}")
                for n, st in zip(here, stats, strict=True)
                if S_ISDIR(st.st_mode)
            ]
            keep = [i for i, st in enumerate(stats) if S_ISREG(st.st_mode)]
            here, stats = [here[i] for i in keep], [stats[i] for i in keep]
        names += [rel + name for name in here] if rel else here
        nums.extend(chain.from_iterable(map(_NUMS, stats)))
    return names, nums


_MODE = attrgetter("st_mode")
#: a folder opened as itself, never through a link (a linked folder: the listing decides)
_NOFOLLOW_DIR = getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0)
_NUMS = attrgetter("st_mtime_ns", "st_size", "st_ino")


#: a note as a worker reads it: (key, version, session, day, status, project, error, rows);
#: a row is (kind, line, category, state, text, title)
_Row = tuple[str, int | None, str | None, str | None, str, str]
_Note = tuple[str, str, str | None, str | None, str | None, str | None, str | None, list[_Row]]


def _refresh(
    db: sqlite3.Connection, store: Any, path: str, fresh: bool, jobs: int | None
) -> IndexStats:
    # the listing's digest: when it is the one stored, no note changed (nothing to load);
    # on a local disk from one stat per entry, with no other work per note
    from ..backends._local import LocalStorage

    storage: Any = getattr(store, "storage", None)
    folder = str(getattr(store, "folder", ""))
    local = isinstance(storage, LocalStorage)
    scan = _scan(storage.resolve(folder) if folder else storage.root) if local else None
    stamp: str | None = None
    names_blob = nums_blob = b""  # (none: the listing is the store's)
    versions: dict[str, str] = {}
    known: dict[str, str] | None = None if not fresh else {}
    gone: list[str] = []
    if scan is not None:  # the listing as two blobs: compared, and diffed, in bulk
        names, nums = scan
        names_blob = "\0".join(names).encode("utf-8", "surrogateescape")
        nums_blob = nums.tobytes()
        stamp = hashlib.blake2b(names_blob + nums_blob, digest_size=16).hexdigest()
    else:
        versions = store.versions()
        if "" not in versions.values():
            stamp = _fingerprint("\0".join(versions) + "\1" + "\0".join(versions.values()))
    if stamp is not None and not fresh:
        row = db.execute("SELECT v FROM meta WHERE k = 'listing'").fetchone()
        if row is not None and row[0] == stamp:
            (count,) = db.execute("SELECT count(*) FROM notes").fetchone()
            return IndexStats(path=path, notes=count, read=0, removed=0, failed=0, rebuilt=False)
    if scan is not None:  # (a note's version: its mtime_ns:size:inode)
        names, nums = scan
        is_note = store.is_note
        old = None
        if not fresh:
            was_names, old = db.execute(
                "SELECT (SELECT v FROM meta WHERE k='names'), (SELECT v FROM meta WHERE k='nums')"
            ).fetchone()
            old = old if was_names == names_blob else None
        changed: Iterable[int] = range(len(names))
        if old is not None and len(old) == len(nums_blob):  # the same names: edits in place
            was, known = array.array("q", old), {}
            changed = _differing(old, nums_blob, 3 * was.itemsize)
            for i in changed:
                if is_note(names[i]):
                    known[names[i]] = f"{was[3 * i]}:{was[3 * i + 1]}:{was[3 * i + 2]}"
        for i in changed:
            if is_note(names[i]):
                versions[names[i]] = f"{nums[3 * i]}:{nums[3 * i + 1]}:{nums[3 * i + 2]}"
    if known is None:
        known = dict(db.execute("SELECT key, version FROM notes"))
        gone = [key for key in known if key not in versions]
    stale = [key for key, v in versions.items() if not v or known.get(key) != v]
    from ._parallel import ordered_map

    def texts() -> Iterator[tuple[str, str, str, str | None]]:
        for start in range(0, len(stale), _BATCH):
            for key, text in store.read_many(stale[start : start + _BATCH]):
                if isinstance(text, SessionKitError):  # indexed as nothing, until it changes
                    yield key, versions[key] or "?", "", type(text).__name__
                else:
                    yield key, versions[key], text, None

    read = failed = 0
    db.execute("BEGIN IMMEDIATE")
    try:
        for key in gone:
            _drop(db, key)
        (top,) = db.execute("SELECT coalesce(max(id), 0) FROM items").fetchone()
        batch: tuple[list[tuple[Any, ...]], ...] = ([], [], [])  # notes, items, words
        notes, items, words = batch
        for note in ordered_map(_extract, texts(), jobs=jobs if len(stale) > 1 else 1):
            key, version, session, day, status, project, error, rows = note
            if known.get(key) == version:  # (a versionless note whose text did not change)
                continue
            if key in known:
                _drop(db, key)
            read += 1
            failed += error is not None
            notes.append((key, version, session, day, status, project, error))
            for kind, line, category, state, text, title in rows:
                top += 1
                items.append((top, key, kind, line, category, state))
                words.append((top, text, title))
            if len(items) >= 4096:
                _insert(db, batch)
        _insert(db, batch)
        db.executemany(
            "INSERT OR REPLACE INTO meta VALUES (?, ?)",
            [("listing", stamp), ("names", names_blob or None), ("nums", nums_blob or None)],
        )
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise
    (count,) = db.execute("SELECT count(*) FROM notes").fetchone()
    return IndexStats(
        path=path, notes=count, read=read, removed=len(gone), failed=failed, rebuilt=fresh
    )


def _differing(old: bytes, new: bytes, width: int) -> list[int]:
    """The indices of the ``width``-byte records that differ between two equally long
    blobs: halves compared whole (in C), only the unequal ones split further."""
    out: list[int] = []
    todo = [(0, len(new) // width)]
    while todo:
        lo, hi = todo.pop()
        if old[lo * width : hi * width] != new[lo * width : hi * width]:
            mid = (lo + hi) // 2
            todo += ((mid, hi), (lo, mid)) if hi - lo > 1 else ()
            out += [lo] if hi - lo == 1 else []
    return sorted(out)


def _insert(db: sqlite3.Connection, batch: tuple[list[tuple[Any, ...]], ...]) -> None:
    """Insert the rows gathered (notes, items, words), in one statement a table."""
    for sql, rows in zip(
        (
            "INSERT INTO notes(key, version, session, date, status, project, error)"
            " VALUES (?,?,?,?,?,?,?)",
            "INSERT INTO items VALUES (?,?,?,?,?,?)",
            "INSERT INTO fts(rowid, text, title) VALUES (?,?,?)",
        ),
        batch,
        strict=True,
    ):
        db.executemany(sql, rows)
        rows.clear()


def _drop(db: sqlite3.Connection, key: str) -> None:
    db.execute("DELETE FROM fts WHERE rowid IN (SELECT id FROM items WHERE key = ?)", (key,))
    db.execute("DELETE FROM items WHERE key = ?", (key,))
    db.execute("DELETE FROM notes WHERE key = ?", (key,))


def _extract(item: tuple[str, str, str, str | None]) -> _Note:
    """One note's rows (in a worker process when there are many): redacted, parsed,
    each item with the line it is on."""
    from .._api import loads
    from ..redaction import redact

    key, version, text, error = item
    if error is not None:
        return key, version, None, None, None, None, error, []
    if not version:
        version = "=" + _fingerprint(text)
    text = redact(text, path=key).text  # the index holds no secret a note still holds
    try:
        session = loads(text, path=key)
    except SessionKitError as exc:
        return key, version, None, None, None, None, type(exc).__name__, []
    day = (session.started or "")[:10] or None
    status = session.status_word or str(session.status)
    lines = text.removeprefix("\ufeff").splitlines()
    after: dict[str, int] = {}  # kind -> the line after its last item (items come in order)
    rows: list[_Row] = []
    for kind, body, title, needle, state in _items(session):
        needle, start, line = needle.strip(), after.get(kind, 0), None
        for i in chain(range(start, len(lines)), range(start)) if needle else ():
            if needle in lines[i]:
                line = i
                break
        category = None
        if line is not None:
            after[kind] = line + 1
            m = _CATEGORY.match(lines[line])
            category = m.group(1).strip() if m else None
        rows.append((kind, None if line is None else line + 1, category, state, body, title))
    return key, version, session.id, day, status, session.project, None, rows


def _first_line(text: str) -> str:
    line = text.strip().split("\n", 1)[0]
    return line[:80]


def _items(session: Any) -> Iterator[tuple[str, str, str, str, str | None]]:
    """(kind, text, title, needle to find its line, directive state) for every item."""
    title = session.focus or session.title or ""
    summary = session.summary or ""
    for section in session.sections:
        if section.title.strip().lower() == "summary":
            summary = "\n".join(x for x in (summary, section.body) if x)
    if title or summary:
        needle = title if title else _first_line(summary)
        yield "session", summary, title, needle, None
    for cp in session.checkpoints:
        yield "checkpoint", f"{cp.event} {cp.at}\n{cp.body}", "", cp.at, None
        for directive in cp.directives:
            body = "\n".join((f"{directive.kind} directive", *directive.items))
            yield "directive", body, "", "directive (", str(directive.state)
    for kind, field in (
        ("decision", "decisions"),
        ("gotcha", "gotchas"),
        ("question", "questions"),
        ("next-step", "next_steps"),
        ("context", "context"),
    ):
        for item in getattr(session, field):
            yield kind, item, "", _first_line(item), None
    for cite in session.files_touched:
        body = " ".join(x for x in (cite.path, cite.note) if x)
        yield "file", body, "", cite.path, None
    # Basic Memory keeps directives as observations: their states as directives_of reads them
    states: Iterator[str] = iter(())
    if any(obs.category == "directive" for obs in session.observations):
        from .lifecycle import directives_of

        in_checkpoints = sum(len(cp.directives) for cp in session.checkpoints)
        states = iter([str(d.state) for d in directives_of(session)][in_checkpoints:])
    for obs in session.observations:
        needle = _first_line(obs.content)
        if obs.category == "directive":
            yield "directive", obs.content, "", needle, next(states, None)
        else:
            yield "observation", obs.content, "", needle, None
    for link in session.relations:
        body = " ".join(x for x in (link.relation, link.target, link.context or "") if x)
        yield "relation", body, "", link.target, None


# -- queries -------------------------------------------------------------------------------


def _match(query: str, *, every: bool) -> str | None:
    """The FTS5 expression for ``query``: words quoted (no FTS syntax leaks in),
    ``"…"`` phrases, a trailing ``*`` a prefix; ``every``: AND, else OR."""
    parts: list[str] = []
    for m in _WORD.finditer(query):
        phrase, word = m.group(1), m.group(2)
        raw = phrase if phrase is not None else word
        prefix = phrase is None and raw.endswith("*")
        raw = raw.rstrip("*") if prefix else raw
        if not re.search(r"\w", raw):
            continue
        quoted = '"' + raw.replace('"', '""') + '"'
        parts.append(quoted + ("*" if prefix else ""))
    if not parts:
        return None
    return (" AND " if every else " OR ").join(parts)


def _check(kinds: Sequence[str]) -> None:
    for kind in kinds:
        if kind not in KINDS:
            raise ValidationError(f"unknown kind {kind!r} (one of {', '.join(KINDS)})")


def _shown_path(store: Any, key: str) -> str:
    path_of = getattr(store, "path_of", None)
    url = str(getattr(store, "url", ""))
    rel = path_of(key) if callable(path_of) else key
    return f"{url.rstrip('/')}/{rel}" if url else rel


def _query(
    db: sqlite3.Connection, store: Any, match: str, filters: tuple[list[str], list[Any]], limit: int
) -> list[SearchHit]:
    where, args = ["fts MATCH ?", *filters[0]], [match, *filters[1]]
    # the best scores first, from the full-text index alone (items and notes joined only
    # to filter): then the details of those rows, and the snippets of the ones kept
    joined = " JOIN items i ON i.id = fts.rowid JOIN notes n ON n.key = i.key"

    def ranked(joins: str, then: str, n: int) -> list[Any]:
        return db.execute(
            f"SELECT fts.rowid, bm25(fts, {_WEIGHTS[0]}, {_WEIGHTS[1]}) AS score FROM fts{joins}"
            f" WHERE {' AND '.join(where)} ORDER BY score{then} LIMIT ?",
            [*args, n],
        ).fetchall()

    wide = 4 * limit  # (beyond the limit: the rows tied with the last one kept)
    top = ranked(joined if len(where) > 1 else "", "", wide)
    if len(top) == wide and top[-1][1] <= top[limit - 1][1]:  # ties past it: broken in SQL,
        where.append(f"bm25(fts, {_WEIGHTS[0]}, {_WEIGHTS[1]}) <= ?")  # among those alone
        args.append(top[limit - 1][1])
        top = ranked(joined, ", n.date DESC, i.key, i.line", limit)
    cut = top[min(limit, len(top)) - 1][1] if top else 0.0
    scores = {rowid: score for rowid, score in top if score <= cut}
    found = db.execute(
        "SELECT i.id, i.key, i.line, i.kind, n.session, n.date, n.status, n.project,"
        " i.category, i.state FROM items i JOIN notes n ON n.key = i.key"
        f" WHERE i.id IN ({', '.join('?' for _ in scores)})",
        list(scores),
    ).fetchall()
    found.sort(key=lambda r: (scores[r[0]], _newest_first(r[5]), r[1], r[2] or 0))
    out = []
    for rowid, key, line, kind, session, date, status_, proj, cat, state in found[:limit]:
        (snip,) = db.execute(
            "SELECT snippet(fts, -1, '[', ']', '…', 12) FROM fts WHERE fts MATCH ? AND rowid = ?",
            (match, rowid),
        ).fetchone()
        out.append(
            SearchHit(
                store=str(getattr(store, "url", "")),
                key=key,
                path=_shown_path(store, key),
                line=line,
                kind=kind,
                session=session,
                date=date,
                status=status_,
                project=proj,
                category=cat,
                state=state,
                snippet=" ".join(snip.split()),
                score=round(scores[rowid], 6),
            )
        )
    return out


def search(
    query: str,
    stores: Any | Iterable[Any],
    *,
    kind: str | Sequence[str] | None = None,
    status: str | None = None,
    since: str | None = None,
    project: str | None = None,
    unconsumed: bool = False,
    category: str | None = None,
    limit: int = 20,
    rebuild: bool = False,
) -> list[SearchHit]:
    """Search the notes of one or more stores, best first.

    Args:
        query: words (all required; any, when no note has all), ``"a phrase"``,
            ``prefix*``.
        stores: a :class:`~sessionkit.backends.Store` or several (aiwiki wikis and
            Basic Memory projects alike).
        kind: keep rows of this kind or kinds (:data:`KINDS`).
        status: keep sessions with this status word (``active``, ``done``, …).
        since: keep sessions started on or after this ISO day.
        project: keep notes of this project.
        unconsumed: keep only directives still to act on.
        category: keep observation lines of this category.
        limit: at most this many rows.
        rebuild: make each index anew before searching.

    Each store's index is first brought up to date (:func:`refresh`).

    Raises:
        ValidationError: an unknown kind, or a limit below 1.
    """
    from ..backends import Store

    kinds = [kind] if isinstance(kind, str) else list(kind or ())
    _check(kinds)
    if limit < 1:
        raise ValidationError(f"limit must be at least 1, not {limit}")
    many = [stores] if isinstance(stores, Store) else list(stores)
    if _match(query, every=True) is None:
        return []
    filters: tuple[list[str], list[Any]] = ([], [])
    if kinds:
        filters[0].append(f"i.kind IN ({', '.join('?' for _ in kinds)})")
        filters[1].extend(kinds)
    for test, value in (
        ("n.status = ?", status),
        ("n.date >= ?", since),
        ("n.project = ?", project),
        ("i.category = ?", category),
    ):
        if value:
            filters[0].append(test)
            filters[1].append(value)
    if unconsumed:
        filters[0].append("i.kind = 'directive' AND i.state = 'unconsumed'")
    dbs: list[tuple[Any, sqlite3.Connection]] = []
    try:
        for store in many:
            refresh(store, rebuild=rebuild)
            dbs.append((store, _connect(index_path(store), rebuild=False)[0]))
        for every in (True, False):
            match = _match(query, every=every) or ""
            hits = [h for store, db in dbs for h in _query(db, store, match, filters, limit)]
            if hits:
                break
    finally:
        for _, db in dbs:
            db.close()
    hits.sort(key=lambda h: (h.score, _newest_first(h.date), h.path, h.line or 0))
    return hits[:limit]


def _newest_first(date: str | None) -> tuple[int, ...]:
    return tuple(-ord(c) for c in date) if date else (1,)  # undated last
