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
"""

from __future__ import annotations

import importlib
import re
import unicodedata
from collections.abc import Callable

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
    """``text`` in ASCII, each non-ASCII character on its own: a known replacement,
    else what remains of its compatibility decomposition less the non-ASCII parts."""
    if text.isascii():
        return text
    return _NON_ASCII.sub(_ascii_of_match, text)


_NON_ASCII = re.compile(r"[^\x00-\x7f]")


def _ascii_of_match(m: re.Match[str]) -> str:
    ch = m.group()
    if ch in _EXTRA_ASCII:
        return _EXTRA_ASCII[ch]
    return "".join(c for c in unicodedata.normalize("NFKD", ch) if c.isascii())


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


def _slug(base: str) -> str:
    """The slug of ``base`` (a path without its extension, or a project name)."""
    to_ascii = _to_ascii
    cjk = not base.isascii() and _CJK_CHAR.search(base)
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
    posix = unicodedata.normalize("NFC", path.replace("\\", "/"))
    slug = _slug(_strip_extension(posix))
    if not project:
        return slug
    prefix = normalize_project_name(project)
    if not prefix or slug == prefix or slug.startswith(prefix + "/"):
        return slug
    return f"{prefix}/{slug}"


def normalize_project_name(name: str) -> str:
    """The key Basic Memory compares project names by (their permalink slug)."""
    return _slug(unicodedata.normalize("NFC", name))


def filename_for_title(title: str) -> str:
    """The file name (without ``.md``) Basic Memory's ``write_note`` uses for ``title``.

    Path separators and ``< > : " | ? *`` become ``-``, runs of ``-`` collapse,
    and leading/trailing dots and dashes are stripped.

    Example:
        >>> filename_for_title("Alias test: a/b")
        'Alias test- a-b'
    """
    text = re.sub(r"[/\\]", "-", title)
    text = re.sub(r'[<>:"|?*]', "-", text)
    text = re.sub(r"-+", "-", text)
    return text.strip(".").strip("-")
