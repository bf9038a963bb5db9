"""Keep sessionkit's lock and state files (``.sessionkit.lock``, ``.sessionkit-*``) out
of ``git status``: the first time one is made in a folder of a git work tree, the
folder's names go into the repository's ``info/exclude`` (never committed; no
``.gitignore`` appears).  Never raises."""

from __future__ import annotations

import os

__all__ = ["PATTERNS", "exclude_in_git"]

#: sessionkit's own names in a notes folder (``.sessionkit.toml`` is not one of them)
PATTERNS = (".sessionkit.lock", ".sessionkit-*")
_MARK = "# sessionkit: lock and state files (added by sessionkit; see docs/reliability.md)"
_done: set[str] = set()


def _git_dirs(folder: str) -> tuple[str, str] | None:
    """``(work tree root, the common git dir)`` for ``folder``, or ``None`` outside git."""
    here = folder
    while True:
        dot_git = os.path.join(here, ".git")
        if os.path.isdir(dot_git):
            git_dir = dot_git
            break
        if os.path.isfile(dot_git):  # a worktree or submodule: "gitdir: PATH"
            try:
                with open(dot_git, encoding="utf-8") as fh:
                    line = fh.readline().strip()
            except (OSError, UnicodeDecodeError):
                return None
            if not line.startswith("gitdir:"):
                return None
            git_dir = os.path.join(here, line[len("gitdir:") :].strip())
            break
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent
    common = os.path.join(git_dir, "commondir")
    if os.path.isfile(common):
        try:
            with open(common, encoding="utf-8") as fh:
                git_dir = os.path.join(git_dir, fh.read().strip())
        except (OSError, UnicodeDecodeError):
            return None
    return here, os.path.normpath(git_dir)


def exclude_in_git(folder: str) -> None:
    """Make git ignore sessionkit's lock and state files in ``folder`` (once per process)."""
    try:
        real = os.path.realpath(folder)
        if real in _done:
            return
        _done.add(real)
        found = _git_dirs(real)
        if found is None:
            return
        root, git_dir = found
        rel = os.path.relpath(real, os.path.realpath(root)).replace(os.sep, "/")
        if rel == ".." or rel.startswith("../"):
            return
        prefix = "/" if rel == "." else f"/{rel}/"
        wanted = [f"{prefix}{name}" for name in PATTERNS]
        exclude = os.path.join(git_dir, "info", "exclude")
        try:
            with open(exclude, encoding="utf-8") as fh:
                have = fh.read()
        except FileNotFoundError:
            have = ""
        lines = set(have.splitlines())
        missing = [w for w in wanted if w not in lines]
        if not missing:
            return
        os.makedirs(os.path.dirname(exclude), exist_ok=True)
        block = ("" if not have or have.endswith("\n") else "\n") + (
            "" if _MARK in lines else _MARK + "\n"
        )
        with open(exclude, "a", encoding="utf-8") as fh:
            fh.write(block + "".join(f"{w}\n" for w in missing))
    except (OSError, ValueError, UnicodeDecodeError):
        return
