"""Basic Memory's permalinks and file names, computed the same way on every platform.

Basic Memory derives a note's permalink from its project-relative file path and
its file name from its title.  These functions reproduce both rules (verified
against basic-memory 0.24.1, see ``tests/interop``) without importing it:

* :func:`generate_permalink` — ``docs/My Feature.md`` → ``docs/my-feature``;
  with ``project="demo"`` → ``demo/docs/my-feature`` (Basic Memory prefixes new
  notes with the project slug by default).
* :func:`filename_for_title` — ``Alias test: a/b`` → ``Alias test- a-b``.

Transliteration to ASCII uses ``unidecode`` when it is installed (as Basic
Memory does) and a Unicode-decomposition fallback otherwise, which agrees on
accented Latin letters and the common ligatures.  Only a ``.md`` /
``.markdown`` extension is dropped; Basic Memory asks the platform's MIME table
instead, which agrees for Markdown notes.

Permalinks and project slugs are remembered, and the slug takes shortcuts (one
pattern finds CJK text, only non-ASCII characters are transliterated, each
once): the ``permalink`` fast lane, off with :mod:`sessionkit._fastpaths`, which
then looks at every character on its own and remembers nothing.
"""

from __future__ import annotations

import functools
import importlib
import re
import unicodedata
from collections.abc import Callable

from .. import _fastpaths

__all__ = ["filename_for_title", "generate_permalink", "normalize_project_name"]

_CJK = "\u4e00-\u9fff\u3000-\u303f\u3400-\u4dbf"
_FULLWIDTH = ("\uff00", "\uffef")
_EXTRA_ASCII = {
    "ß": "ss",
    "ẞ": "SS",
    "æ": "ae",
    "Æ": "AE",
    "ø": "o",
    "Ø": "O",
    "œ": "oe",
    "Œ": "OE",
    "đ": "d",
    "Đ": "D",
    "ł": "l",
    "Ł": "L",
    "þ": "th",
    "Þ": "Th",
    "ð": "d",
    "Ð": "D",
    "ı": "i",
    "‘": "'",
    "’": "'",
    "“": '"',
    "”": '"',
    "–": "-",
    "—": "--",
    "…": "...",
}


def _fallback_ascii(text: str) -> str:
    """``text`` in ASCII: each non-ASCII character on its own (:func:`_ascii_char`).

    Characters are transliterated one at a time, so an ASCII text is itself
    and a mixed one needs only its non-ASCII characters replaced.
    """
    if text.isascii():
        return text
    return _NON_ASCII.sub(_ascii_of_match, text)


_NON_ASCII = re.compile(r"[^\x00-\x7f]")


@functools.lru_cache(maxsize=1024)
def _ascii_char(ch: str) -> str:
    """One non-ASCII character in ASCII: a known replacement, else what remains of
    its compatibility decomposition after dropping the non-ASCII parts."""
    if ch in _EXTRA_ASCII:
        return _EXTRA_ASCII[ch]
    decomposed = unicodedata.normalize("NFKD", ch)
    return "".join(c for c in decomposed if c.isascii())


def _ascii_of_match(m: re.Match[str]) -> str:
    return _ascii_char(m.group())


def _ascii_plain(text: str) -> str:
    """:func:`_fallback_ascii` the long way: every character on its own, nothing remembered."""
    return "".join(ch if ch.isascii() else _ascii_char.__wrapped__(ch) for ch in text)


def _load_transliterator() -> Callable[[str], str]:
    try:
        module = importlib.import_module("unidecode")
    except ImportError:
        return _fallback_ascii
    func: Callable[[str], str] = module.unidecode
    return func


_to_ascii = _load_transliterator()


def _is_cjk(ch: str) -> bool:
    return (
        "\u4e00" <= ch <= "\u9fff"
        or "\u3000" <= ch <= "\u303f"
        or "\u3400" <= ch <= "\u4dbf"
        or _FULLWIDTH[0] <= ch <= _FULLWIDTH[1]
    )


def _strip_extension(path: str) -> str:
    lower = path.lower()
    for ext in (".md", ".markdown"):
        if lower.endswith(ext) and "/" not in path[len(path) - len(ext) :]:
            return path[: len(path) - len(ext)]
    return path


#: a character :func:`_is_cjk` holds for
_CJK_CHAR = re.compile(f"[{_CJK}{_FULLWIDTH[0]}-{_FULLWIDTH[1]}]")
_CAMEL = re.compile(r"([a-z0-9])([A-Z])")
_NOT_SLUG = re.compile(r"[^a-z0-9/\-.]")
_DASHES = re.compile(r"-+")


def _slug(base: str, plain: bool = False) -> str:
    """The slug of ``base``; ``plain``: the general path of the ``permalink`` lane (each
    character asked whether it is CJK, the fallback transliteration remembering nothing)."""
    to_ascii = _ascii_plain if plain and _to_ascii is _fallback_ascii else _to_ascii
    cjk = any(map(_is_cjk, base)) if plain else (not base.isascii() and _CJK_CHAR.search(base))
    if cjk:
        kept: list[str] = []
        for ch in base:
            if _FULLWIDTH[0] <= ch <= _FULLWIDTH[1]:
                continue  # full-width punctuation is dropped
            kept.append(ch if _is_cjk(ch) else to_ascii(ch))
        text = "".join(kept)
        text = re.sub(rf"([{_CJK}])([a-zA-Z0-9])", r"\1-\2", text)
        text = re.sub(rf"([a-zA-Z0-9])([{_CJK}])", r"\1-\2", text)
        text = _CAMEL.sub(r"\1-\2", text)
        text = "".join(c.lower() if c.isascii() and c.isalpha() else c for c in text)
        text = text.replace("_", "-").replace("'", "")
        text = re.sub(rf"[^a-z0-9{_CJK}/\-.]", "-", text)
    else:
        text = to_ascii(base)
        text = _CAMEL.sub(r"\1-\2", text)
        text = text.lower().replace("_", "-").replace("'", "")
        text = _NOT_SLUG.sub("-", text)
    text = _DASHES.sub("-", text)
    return "/".join(segment.strip("-") for segment in text.split("/"))


def generate_permalink(path: str, project: str | None = None) -> str:
    """The permalink Basic Memory gives the note at ``path`` (project-relative).

    Args:
        path: the note's path inside the project, e.g. ``sessions/Session 1.md``
            (backslashes are treated as separators).
        project: the project name; when given, the permalink is prefixed with
            the project's slug (Basic Memory's default for new notes) unless it
            already starts with it.

    Examples:
        >>> generate_permalink("specs/API (v2).md")
        'specs/api-v2'
        >>> generate_permalink("sessions/Alias test- a-b.md", project="demo")
        'demo/sessions/alias-test-a-b'
    """
    if _fastpaths.enabled("permalink"):
        _fastpaths.answered("permalink")
        return _permalink(path, project or None)
    return _permalink_of(path, project or None, plain=True)


@functools.lru_cache(maxsize=512)
def _permalink(path: str, project: str | None) -> str:
    """:func:`generate_permalink`, memoised: a pure function of its two strings
    (a conversion asks for a note's permalink when it writes the note and again
    when it reads the note back)."""
    return _permalink_of(path, project)


def _permalink_of(path: str, project: str | None, plain: bool = False) -> str:
    posix = unicodedata.normalize("NFC", path.replace("\\", "/"))
    slug = _slug(_strip_extension(posix), plain)
    if not project:
        return slug
    prefix = _slug(unicodedata.normalize("NFC", project), True) if plain else _project_slug(project)
    if not prefix or slug == prefix or slug.startswith(prefix + "/"):
        return slug
    return f"{prefix}/{slug}"


def normalize_project_name(name: str) -> str:
    """The key Basic Memory compares project names by (their permalink slug)."""
    if _fastpaths.enabled("permalink"):
        _fastpaths.answered("permalink")
        return _slug(unicodedata.normalize("NFC", name))
    return _slug(unicodedata.normalize("NFC", name), True)


@functools.lru_cache(maxsize=64)
def _project_slug(project: str) -> str:
    """:func:`normalize_project_name`, memoised: the prefix of every permalink of a
    project (a conversion writes many notes of one project)."""
    return normalize_project_name(project)


def filename_for_title(title: str) -> str:
    """The file name (without ``.md``) Basic Memory's ``write_note`` uses for ``title``.

    Path separators and ``< > : " | ? *`` become ``-``, runs of ``-`` collapse,
    and leading/trailing dots and dashes are stripped.

    Example:
        >>> filename_for_title("Alias test: a/b")
        'Alias test- a-b'
    """
    return _filename_for_title(title)


@functools.lru_cache(maxsize=512)
def _filename_for_title(title: str) -> str:
    """:func:`filename_for_title`, memoised (a pure function of ``title``)."""
    text = re.sub(r"[/\\]", "-", title)
    text = re.sub(r'[<>:"|?*]', "-", text)
    text = re.sub(r"-+", "-", text)
    return text.strip(".").strip("-")
