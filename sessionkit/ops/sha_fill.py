"""``lint --fix``: fill the missing ``@sha7`` of Files touched citations from git.

:func:`fill_shas` is pure apart from asking git (or the ``resolve`` callable
it is given) for SHAs: it returns a new :class:`~sessionkit.document.Document`
in which only the citation lines that lacked a SHA differ, each by the
inserted ``@sha7``.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path

from ..adapters.aiwiki_page import parse_citation_lenient, scan
from ..document import Document
from ..text.grammar import CITATION_BARE

__all__ = ["fill_shas", "git_resolver"]

Resolver = Callable[[str], "str | None"]


def _git(root: Path, *args: str) -> str | None:
    try:
        out = subprocess.run(
            ["git", "-C", str(root), "-c", "core.abbrev=7", *args],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    value = out.stdout.strip()
    return value if out.returncode == 0 and value else None


def git_resolver(repo_root: str | os.PathLike[str]) -> Resolver:
    """A resolver: path → short SHA of the last commit touching it, else of HEAD.

    Results are cached per path; ``None`` when ``repo_root`` is not in a git
    repository or it has no commit.
    """
    root = Path(repo_root)
    cache: dict[str, str | None] = {}
    head: list[str | None] = []

    def resolve(path: str) -> str | None:
        if path not in cache:
            sha = _git(root, "log", "-1", "--format=%h", "--", path)
            if sha is None:
                if not head:
                    head.append(_git(root, "rev-parse", "--short=7", "HEAD"))
                sha = head[0]
            cache[path] = sha
        return cache[path]

    return resolve


def _sha_of(sha: str) -> str | None:
    """``sha`` as the citation rule reads it after ``@`` (``None``: not a SHA)."""
    m = CITATION_BARE.fullmatch(f"x@{sha}")
    return None if m is None else m["sha"]


def _insert_sha(line: str, ref_end_hint: str, sha: str) -> str | None:
    """``line`` with ``@sha`` inserted right after the citation reference ``ref_end_hint``."""
    idx = line.find(ref_end_hint)
    if idx < 0:
        return None
    at = idx + len(ref_end_hint)
    return line[:at] + "@" + sha + line[at:]


def fill_shas(
    doc: Document,
    repo_root: str | os.PathLike[str] | None = None,
    *,
    resolve: Resolver | None = None,
) -> Document:
    """Return ``doc`` with ``@sha7`` added to Files touched citations that lack one.

    Args:
        doc: an aiwiki session page.
        repo_root: the git work tree holding the wiki (used by the default resolver).
        resolve: path → short SHA (or None to leave the citation as it is);
            defaults to :func:`git_resolver` on ``repo_root``.

    Only the lines of the changed bullets differ; a page without Files
    touched, or whose citations all carry a SHA, comes back unchanged.
    """
    if resolve is None:
        if repo_root is None:
            return doc
        resolve = git_resolver(repo_root)
    _, layout = scan(doc)
    new = doc
    for item in layout.items.get("Files touched", ()):
        c = parse_citation_lenient(item.text)
        if c is None or c.sha:
            continue
        sha = resolve(c.path)
        if not sha or _sha_of(sha) != sha:
            continue
        line = doc.line_text(item.start)
        ref = c.ref + ("`" if c.code else "")
        if c.code:
            ref = "`" + ref
            fixed = _insert_sha(line, ref[:-1], sha)
        else:
            fixed = _insert_sha(line, ref, sha)
        if fixed is not None and fixed != line:
            new = new.replace_line(item.start, fixed)
    return new
