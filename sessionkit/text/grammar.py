"""The one place each text rule is written (private).

Every reader, linter, redactor, hook and converter asks these functions: the
frontmatter fence, line ends, the ATX heading, a fenced code block's opening
and closing lines, the ``path:line@sha`` citation and the dated note key.
Lines are split on ``\\n`` only; a line's end is one ``\\n`` and one ``\\r``
before it (a lone ``\\r`` is content, as ``str.split("\\n")`` keeps it).
Functions taking ``str | bytes`` read bytes as their ASCII characters.
"""

from __future__ import annotations

import re

from .._lazyre import lazy

__all__ = [
    "CITATION_BARE",
    "CITATION_CODE",
    "DATE",
    "DATED_KEY",
    "FENCE",
    "TRIM",
    "atx_heading",
    "dated_key",
    "fence_closes",
    "fence_open",
    "frontmatter_end",
    "is_bullet_item_start",
    "is_fence",
    "is_thematic_break",
    "may_open_block",
    "split_lines",
    "strip_eol",
    "thematic_break",
]

#: the frontmatter fence
FENCE = "---"

# ---------------------------------------------------------------- line ends


def split_lines(text: str) -> list[str]:
    """``text`` split after each ``\\n``, line ends kept: ``"".join(split_lines(t)) == t``.

    Never splits on a lone ``\\r``, a form feed or a Unicode line separator
    (unlike :meth:`str.splitlines`).
    """
    if not text:
        return []
    parts = text.split("\n")
    lines = [p + "\n" for p in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def strip_eol(line: str) -> str:
    """``line`` without its end: one ``\\n``, then one ``\\r`` before it."""
    if line[-1:] == "\n":
        line = line[:-1]
        if line[-1:] == "\r":
            line = line[:-1]
    return line


# ---------------------------------------------------------------- frontmatter


def is_fence(line: str | bytes) -> bool:
    """Whether ``line`` (with or without its end) is a frontmatter fence.

    ``---``, then only spaces and tabs: ``----`` or ``--- x`` is no fence.
    """
    if isinstance(line, bytes):
        line = line.decode("latin-1")
    if not line.startswith(FENCE):
        return False
    return not strip_eol(line)[3:].strip(" \t")


def frontmatter_end(lines: list[str] | tuple[str, ...]) -> int | None:
    """The index of the closing fence when ``lines[0]`` opens frontmatter, else ``None``.

    A note has frontmatter when its first line (BOM excluded by the caller) is
    a fence and a later line is one.
    """
    if not lines or not is_fence(lines[0]):
        return None
    for i in range(1, len(lines)):
        line = lines[i]
        if line[:3] == FENCE and is_fence(line):
            return i
    return None


# ---------------------------------------------------------------- headings

#: what markdown-it's mdTrim strips (JavaScript's trim, less U+FEFF)
TRIM = "".join(
    chr(c)
    for c in sorted(
        {0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x20, 0xA0, 0x1680, 0x202F, 0x205F, 0x3000, 0x2028, 0x2029}
        | set(range(0x2000, 0x200B))
    )
)


def thematic_break(rest: str) -> bool:
    """Whether ``rest`` (a line from its first non-blank, no line end) is a thematic
    break: three or more of one of ``*``, ``-``, ``_``, only spaces and tabs besides."""
    mark = rest[:1]
    return (
        (mark == "-" or mark == "*" or mark == "_")
        and rest.count(mark) >= 3
        and not rest.strip(" \t" + mark)
    )


def atx_heading(line: str) -> tuple[int, str] | None:
    """(level, title) of ``line`` (no line end) when it is an ATX heading at column 0.

    One to six ``#`` then a blank or the end; the title is stripped and a
    closing run of ``#`` after a blank goes (``## Title ##`` is ``Title``), as
    markdown-it reads it.
    """
    rest = line.lstrip("#")
    level = len(line) - len(rest)
    if level == 0 or level > 6 or (rest and rest[0] not in " \t"):
        return None
    if "#" not in rest:
        return level, rest.strip(TRIM)
    end = rest.rstrip(" \t")
    body = end.rstrip("#")
    if body and body[-1] in " \t":
        end = body
    return level, end.strip(TRIM)


# ---------------------------------------------------------------- fenced code


def fence_open(line: str) -> tuple[int, str, str] | None:
    """(indent, mark run, info string) when ``line`` (no line end) opens fenced code.

    Up to three spaces, then three or more of one backtick or tilde; a backtick
    fence's info string holds no backtick.
    """
    body = line.lstrip(" ")
    indent = len(line) - len(body)
    if indent > 3:
        return None
    mark = body[:1]
    if mark != "`" and mark != "~":
        return None
    rest = body.lstrip(mark)
    run = len(body) - len(rest)
    if run < 3 or (mark == "`" and "`" in rest):
        return None
    return indent, body[:run], rest


def fence_closes(line: str, run: str) -> bool:
    """Whether ``line`` (no line end) closes fenced code opened by the mark run ``run``.

    Up to three spaces, at least as many of the same mark, then only blanks.
    """
    body = line.lstrip(" ")
    if len(line) - len(body) > 3 or not body.startswith(run):
        return False
    return not body.lstrip(run[0]).strip(" \t")


# ---------------------------------------------------------------- citations

#: a citation's reference ``path:start-end@sha``: the path is one word, or, between
#: backticks, any text of one line that starts and ends with a non-blank
_REF_PATH = r"(?P<path>[^\s`]+?)"
_REF_CODE_PATH = r"(?P<path>[^\s`](?:[^`\n]*?[^\s`])??)"
_REF_TAIL = (
    r"(?::(?P<start>0|[1-9][0-9]*)(?:-(?P<end>0|[1-9][0-9]*))?)?"
    r"(?:@(?P<sha>[0-9a-fA-F]{4,40}))?"
)
#: a list item's text that is a backticked citation, an optional note after a space
CITATION_CODE = lazy(rf"^`{_REF_CODE_PATH}{_REF_TAIL}`(?: (?P<note>.*))?$", re.DOTALL)
#: a list item's text that is a bare citation, an optional note after a space
CITATION_BARE = lazy(rf"^{_REF_PATH}{_REF_TAIL}(?: (?P<note>.*))?$", re.DOTALL)

# ---------------------------------------------------------------- note keys

#: a dated note's key, ``[folder/]YYYY-MM-DD-<id>.md``: groups date and id
DATED_KEY = re.compile(r"^(?:.*/)?([0-9]{4}-[0-9]{2}-[0-9]{2})-([0-9A-Za-z_-]+)\.md$")


def dated_key(date: str, session_id: str) -> str:
    """The file name of a session's dated note: ``YYYY-MM-DD-<first 7 of the id>.md``."""
    return f"{date}-{session_id[:7]}.md"


# ---------------------------------------------------------------- dates

#: a calendar date as the formats write it, ``YYYY-MM-DD`` (ASCII digits)
DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


# ---------------------------------------------------------------- block openers

#: a line start followed by what may open a fence, an HTML block or indented code (a
#: blank; a CR that ends the line is none)
_MAY_OPEN = re.compile(r"\n(?:[`~<]|[^\S\n\r]|\r(?!\n))")


def may_open_block(text: str, start: int = 0, end: int | None = None) -> bool:
    """Whether a line of ``text[start:end]`` (split at ``\\n``) may open indented code, a
    code fence or an HTML block: it starts with a backtick, a tilde, ``<`` or whitespace
    (an empty line does not count, nor does the CR of a CRLF line end).  When False, no
    such block opens at the top level there, so a line starting with ``#`` is a heading
    by itself."""
    if end is None:
        end = len(text)
    first = text[start : start + 1] if start < end else ""
    lead = first and (first in "`~<" or first.isspace())
    if lead and not text.startswith(("\n", "\r\n"), start, end):
        return True
    return _MAY_OPEN.search(text, start, end) is not None


def is_thematic_break(line: str | bytes) -> bool:
    """Whether ``line`` (no line end) is a thematic break outside any container: at most
    three spaces, then :func:`thematic_break`.  Under a paragraph ``---`` is a setext
    underline instead, which this does not judge.  Bytes read as ASCII."""
    text = line.decode("latin-1") if isinstance(line, bytes) else line
    rest = text.lstrip(" ")
    return len(text) - len(rest) < 4 and thematic_break(rest)


def is_bullet_item_start(line: str | bytes, *, after_paragraph: bool = False) -> bool:
    """Whether ``line`` (no line end) opens a bullet item outside any container: at most
    three spaces, ``-``, ``*`` or ``+``, then a blank or the end, and no thematic break.
    ``after_paragraph``: an empty item does not interrupt a paragraph."""
    text = line.decode("latin-1") if isinstance(line, bytes) else line
    rest = text.lstrip(" ")
    mark = rest[:1]
    if len(text) - len(rest) > 3 or (mark != "-" and mark != "*" and mark != "+"):
        return False
    if rest[1:2] not in ("", " ", "\t"):
        return False
    if after_paragraph and not rest[1:].strip(" \t"):
        return False
    return not thematic_break(rest)
