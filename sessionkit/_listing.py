"""One listing of a notes folder, searched as one string (the hooks' light lanes).

The hooks look at one folder of up to tens of thousands of notes on every run:
:func:`note_names` lists it once (by its descriptor, no stat) and says when it
holds anything but plain files, and :func:`names_with` finds names by a part
of them in the names joined by NUL (:func:`joined`), searched in C rather
than name by name.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["is_day", "joined", "names_with", "note_names"]


def note_names(folder: str) -> list[str] | None:
    """Every name in ``folder`` when each is a regular file (dotfiles too), else ``None``.

    ``None`` also for a missing folder: a subfolder or a symlink is a case for
    the store's own walk.  One directory listing, no stat.
    """
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | os.O_CLOEXEC)
    except OSError:
        return None
    try:  # (listed by its descriptor: the entries do not each join a path)
        with os.scandir(fd) as it:
            entries = list(it)
        # regular files, no symlinks: the entries' own methods mapped in C (a call with
        # a keyword costs more), while the folder is open (where a listing gives no
        # types, they stat by its descriptor)
        plain = not any(map(_IS_SYMLINK, entries)) and all(map(_IS_FILE, entries))
    except OSError:
        return None
    finally:
        os.close(fd)
    return [e.name for e in entries] if plain else None


_IS_SYMLINK = os.DirEntry.is_symlink
_IS_FILE = os.DirEntry.is_file  # (of an entry that is no symlink: whether it is a regular file)


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
    r"""Whether ``text`` is a date as note names spell it: ``re.fullmatch(r"\d{4}-\d{2}-\d{2}",
    text)`` (a digit being any decimal digit, as ``re`` reads ``\d``), without compiling it."""
    return (
        len(text) == 10
        and text[4] == "-"
        and text[7] == "-"
        and (text[:4] + text[5:7] + text[8:]).isdecimal()
    )
