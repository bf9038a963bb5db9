"""One listing of a notes folder, searched as one string: the newest-note rule every
aiwiki store and the hooks share."""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

__all__ = [
    "NO_ID",
    "folder_latest",
    "is_day",
    "is_note_name",
    "is_unknown",
    "joined",
    "latest_note",
    "names_with",
    "note_day",
    "note_names",
    "unknown_notes",
]

#: the short id of a checkpoint whose payload named no usable session (one note a day)
NO_ID = "0000000"


def note_names(folder: str) -> list[str] | None:
    """Every name in ``folder`` when each is a regular file (dotfiles too), else ``None``
    (a missing folder, a subfolder or a symlink: the store's walk decides)."""
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | os.O_CLOEXEC)
    except OSError:
        return None
    odd: list[os.DirEntry[str]] = []  # (listed by its descriptor: no path joined; d_type, no stat)
    try:
        with os.scandir(fd) as it:
            names = [e.name for e in it if e.is_file(follow_symlinks=False) or odd.append(e)]  # type: ignore[func-returns-value]
    except OSError:
        return None
    finally:
        os.close(fd)
    return None if odd else names


def joined(names: Sequence[str]) -> str:
    """``names`` as one string, each between NUL characters (no file name holds one),
    for :func:`names_with` to search in C rather than name by name."""
    return "\0" + "\0".join(names) + "\0"


def names_with(text: str, part: str) -> list[str]:
    """The names in ``text`` (:func:`joined`) that hold ``part``: a name's start is
    ``"\0" + prefix``, its end ``suffix + "\0"``."""
    out = []
    at = text.find(part)
    while at >= 0:
        start = text.rfind("\0", 0, at + 1 if part[0] == "\0" else at) + 1
        end = text.find("\0", at + len(part) - 1 if part[-1] == "\0" else at + len(part))
        out.append(text[start:end])
        at = text.find(part, end)
    return out


def is_day(text: str) -> bool:
    r"""Whether ``text`` is ``YYYY-MM-DD`` (decimal digits, as ``re``'s ``\d``)."""
    return (
        len(text) == 10
        and text[4] == "-"
        and text[7] == "-"
        and (text[:4] + text[5:7] + text[8:]).isdecimal()
    )


def note_day(name: str) -> str | None:
    """The date a note's file name starts with (``YYYY-MM-DD[-rest].md``), else ``None``."""
    day = name[:10]
    if not name.endswith(".md") or not is_day(day):
        return None
    rest = name[10:]
    if rest == ".md" or (len(rest) > 4 and rest[0] == "-" and "\n" not in rest):
        return day
    return None


def is_unknown(key: str) -> bool:
    """Whether ``key`` is the note of checkpoints without a session id,
    ``YYYY-MM-DD-0000000.md``: never anyone's latest session."""
    name = key.rpartition("/")[2]
    return len(name) == 21 and name.endswith("-" + NO_ID + ".md") and note_day(name) is not None


def _undated(keys: Sequence[str]) -> list[str]:
    return [k for k in keys if note_day(k.rpartition("/")[2]) is None and is_note_name(k)]


def is_note_name(key: str) -> bool:
    """Whether a listed name can be a note: ``.md``, no dotfile, not ``INDEX.md``."""
    name = key.rpartition("/")[2]
    return name.endswith(".md") and name[:1] != "." and name != "INDEX.md"


def _newest_day_keys(keys: Sequence[str]) -> list[str]:
    """The keys :func:`latest_note` chooses between: the newest date's, else every undated one."""
    text = joined(keys)
    if "/" in text:  # (notes in subfolders)
        return _by_days(keys)
    # flat names: the newest dated name is the greatest, found in C; a few undated
    # names may sort above it, and the newest day may hold only unknown notes
    rest = list(keys)
    skipped = 0
    while rest:
        top = max(rest)
        day = note_day(top)
        if day is None:
            skipped += 1
            if skipped > 8:  # many undated names: only the dated ones, then
                rest = [k for k in rest if note_day(k) is not None]
            else:
                rest.remove(top)
            continue
        pool = [n for n in names_with(text, "\0" + day) if note_day(n) is not None]
        known = [n for n in pool if not is_unknown(n)]
        return known or _by_days(keys)  # (that day has only unknown notes: one pass)
    return _undated(keys)


def _by_days(keys: Sequence[str]) -> list[str]:
    """:func:`_newest_day_keys` in one pass over every key (notes in subfolders)."""
    days = {k: note_day(k.rpartition("/")[2]) for k in keys}
    dated = [k for k, d in days.items() if d is not None and not is_unknown(k)]
    if not dated:
        return _undated(keys)
    top = max(str(days[k]) for k in dated)
    return [k for k in dated if days[k] == top]


def latest_note(keys: Sequence[str], mtime: Callable[[str], float | None]) -> str | None:
    """The newest session note among ``keys`` (paths below ``aiwiki/sessions``), or ``None``.

    The rule of every aiwiki store and the hooks: the newest date in the file names,
    then the newest ``mtime(key)`` (asked only of that date's notes), then the greatest
    key; undated names count only when none is dated; dotfiles, ``INDEX.md`` and the
    note of checkpoints without a session id (:func:`is_unknown`) never count.
    """
    pool = _newest_day_keys(keys)
    if not pool:
        return None
    if len(pool) == 1:
        return pool[0]
    return max(pool, key=lambda k: (mtime(k) or 0.0, k))


def unknown_notes(keys: Sequence[str], since: str | None = None) -> list[str]:
    """The notes of checkpoints without a session id among ``keys`` (:func:`is_unknown`),
    newest first; with ``since`` (a key), only those dated on or after its date."""
    found = names_with(joined(keys), "-" + NO_ID + ".md\0")
    day = note_day(since.rpartition("/")[2]) if since is not None else None
    return sorted(
        (k for k in found if is_unknown(k) and (day is None or k.rpartition("/")[2] >= day)),
        reverse=True,
    )


def folder_latest(folder: str) -> tuple[str | None, list[str]] | None:
    """:func:`latest_note` over one listing of a local sessions folder (only the newest
    date's notes stat-ed), and the :func:`unknown_notes` dated on or after it;
    ``None`` when the folder or its parent is a symlink, or it holds anything but
    plain files (the store's own walk decides then)."""
    if not os.path.isdir(folder):
        return None, []
    if os.path.islink(folder) or os.path.islink(os.path.dirname(folder)):
        return None
    names = note_names(folder)
    if names is None:
        return None

    def when(name: str) -> float:
        try:
            return os.stat(os.path.join(folder, name)).st_mtime
        except OSError:
            return 0.0

    chosen = latest_note(names, when)
    return chosen, unknown_notes(names, chosen)
