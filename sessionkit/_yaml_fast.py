"""A fast reader for the common, flat shape of frontmatter (a hot path of lint and read).

:func:`fast_mapping` handles only text made of:

* top-level ``key: value`` lines with a simple plain key
  (``[A-Za-z_][A-Za-z0-9_-]*`` that does not resolve to a bool or null);
* values that are a plain scalar without any character that could mean
  something else to YAML (comments, flow or block indicators at the start,
  ``: ``, tabs, trailing blanks, line breaks other than ``\\n``), a
  single-quoted scalar (``''`` for a quote) or a double-quoted scalar without
  escapes, or nothing;
* a key with nothing after it followed by a block list of such scalars
  (``- item`` at one indent, 0 or 2 spaces);
* empty lines.

It returns exactly what :func:`sessionkit._yaml.load_mapping` returns for
such text (the same resolution: ``~``/``null``/empty to None, ``true``/
``false``, decimal ints without leading zeros, plain decimal floats, every
other scalar a string), and ``None`` for anything else, which then goes to
the full strict loader.  ``tests/test_yaml_fastpath.py`` checks the two
against each other with Hypothesis.

Lines are remembered (``_pairs``: the simple ``key: value`` lines; ``_odd_pairs``:
the others), as frontmatter repeats them page after page.  The lines of a page
not yet remembered are read together by one regex (``_NEW_LINES``) when they are
plainly ``key: string`` (ids, titles, dates, quoted hashes), else line by line
(``tests/test_yaml_fast_newlines.py`` checks the one against the other); the first
few hundred new lines of a process go line by line (the pattern is not compiled for
them).
"""

from __future__ import annotations

import re
from operator import itemgetter

from ._lazyre import lazy

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["fast_mapping"]

_ITEM = lazy(r"( {0,2})- (.*)\Z")
# characters allowed here: printable and \n; no other YAML line break (CR, NEL, LS, PS), no BOM
_UNSAFE = lazy(
    "[^\n\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff]"
)
_FLOAT = lazy(r"[-+]?(?:[0-9]+\.[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?\Z")
_BOOLS = {"true": True, "True": True, "TRUE": True, "false": False, "False": False, "FALSE": False}
_NULLS = frozenset({"~", "null", "Null", "NULL"})
_NOT_KEYS = frozenset(_BOOLS) | _NULLS
_BAD_START = frozenset(" -?:,[]{}#&*!|>'\"%@`")
_MISSING = object()


def _scalar(text: str) -> Any:
    """A non-empty scalar's value (plain or quoted), or ``_MISSING`` when it is
    not a simple one."""
    first = text[0]
    if first == "'":
        inner = text[1:-1]
        if len(text) < 2 or text[-1] != "'" or "'" in inner.replace("''", ""):
            return _MISSING
        return inner.replace("''", "'")
    if first == '"':
        inner = text[1:-1]
        if len(text) < 2 or text[-1] != '"' or '"' in inner or "\\" in inner:
            return _MISSING
        return inner
    # a plain scalar
    if text in _NULLS:
        return None
    if first in _BAD_START and not (first == "-" and text[1:2] in _DIGIT_OR_DOT):
        return _MISSING
    if "#" in text or ": " in text or text[-1] in " :" or "\t" in text:
        return _MISSING
    if first in _BOOLS_FIRST and text in _BOOLS:
        return _BOOLS[text]
    if first in _NUM_FIRST:
        digits = text[1:] if first in "+-" else text
        # an int as the strict loader resolves it, [-+]?(?:0|[1-9][0-9]*): no leading zero
        if digits.isascii() and digits.isdigit() and (digits[0] != "0" or digits == "0"):
            # past Python's int-string cap (4300 digits) int() raises: the full loader reports it
            return int(text) if len(text) <= 4000 else _MISSING
        if "." in text and _FLOAT.match(text):
            sign = -1 if first == "-" else 1
            return sign * float(text[1:] if first in "+-" else text)
    return text


_BOOLS_FIRST = frozenset("tTfF")
_NUM_FIRST = frozenset("-+.0123456789")
_DIGIT_OR_DOT = frozenset("0123456789.")


#: memo of simple keys, scalar texts and lines (frontmatter repeats them page after
#: page); bounded (see _remember), and holding only immutable values
_MEMO_LIMIT = 8192
_keys_ok: dict[str, bool] = {}
_scalars: dict[str, Any] = {}


def _remember(memo: dict[Any, Any], key: Any, value: Any) -> None:
    """Keep ``key -> value``; a full memo starts again, so that lines seen once (ids,
    titles) cannot crowd out the ones every page repeats."""
    if len(memo) >= _MEMO_LIMIT:
        memo.clear()
    memo[key] = value


def _simple_key(key: str) -> bool:
    ok = _keys_ok.get(key)
    if ok is None:
        ok = _key_text(key) and key not in _NOT_KEYS
        _remember(_keys_ok, key, ok)
    return ok


def _scalar_memo(text: str) -> Any:
    value = _scalars.get(text, _UNSEEN)
    if value is _UNSEEN:
        value = _scalar(text)
        _remember(_scalars, text, value)
    return value


def _key_text(key: str) -> bool:
    """``re.fullmatch(r"[A-Za-z_][A-Za-z0-9_-]*", key)``, without compiling it (ASCII letters
    and digits are what :meth:`str.isalnum` takes of an ASCII text)."""
    if not key.isascii() or not (key[:1].isalpha() or key[:1] == "_"):
        return False
    rest = key[1:].replace("_", "").replace("-", "")
    return not rest or rest.isalnum()


_UNSEEN = object()


def _safe(text: str) -> bool:
    """No character :func:`fast_mapping` leaves to the full loader (see ``_UNSAFE``)."""
    if text.isascii():  # printable ASCII is exactly \x20-\x7e
        return text.replace("\n", "").isprintable()
    return _UNSAFE.search(text) is None


_NO_PAIR: tuple[str, Any] = ("", None)
_LIST = object()  # the value of "key:" (a block list or null follows)
#: line -> (key, value) of the lines that are a simple "key: value" (all of them safe)
_pairs: dict[str, tuple[str, Any]] = {}
#: line -> _NO_PAIR or (key, _LIST) of the other safe lines
_odd_pairs: dict[str, tuple[str, Any]] = {}


def _pair(line: str) -> tuple[str, Any]:
    """(key, value) of a ``key: value`` line; ``_LIST`` for ``key:``; ``_NO_PAIR`` for others."""
    colon = line.find(":")
    if colon <= 0:
        return _NO_PAIR
    key = line[:colon]
    if not (_keys_ok.get(key) or _simple_key(key)):
        return _NO_PAIR
    if colon + 1 == len(line):
        return key, _LIST
    if line[colon + 1] != " " or colon + 2 == len(line):
        return _NO_PAIR  # "key:x", or "key: " with a trailing blank
    # (no scalar memo: the line memo holds the pair, and lines seen once, such as
    # ids and titles, are most of what reaches here)
    value = _scalar(line[colon + 2 :])
    return _NO_PAIR if value is _MISSING else (key, value)


def _memo_pair(line: str) -> tuple[str, Any]:
    """:func:`_pair` of a line already known to be safe, through the memos."""
    pair = _pairs.get(line) or _odd_pairs.get(line)
    if pair is None:
        pair = _pair(line)
        _keep(line, pair)
    return pair


def _keep(line: str, pair: tuple[str, Any]) -> None:
    """Remember the pair of a safe line in the memo it belongs to."""
    if pair is _NO_PAIR or pair[1] is _LIST:
        _remember(_odd_pairs, line, pair)
    else:
        _remember(_pairs, line, pair)


def _new_pair(line: str) -> tuple[str, Any] | None:
    """:func:`_pair` of a line the memo has not seen (``None`` when it is not safe)."""
    return _pair(line) if _safe(line) else None


# A line whose pair is plainly a key and a string, matched in one pass for all the
# new lines of a page (a superset of the bool and null words is left to _pair)
_NOT_WORD = "(?![tTfFnN](?:rue|RUE|alse|ALSE|ull|ULL)"
_TEXT = "[A-Za-z0-9 _./,()+-]"
_NEW_LINES = lazy(
    # a simple key that is not a bool or null word
    rf"^{_NOT_WORD}:)([A-Za-z_][A-Za-z0-9_-]*): '?("
    # a single-quoted scalar without quotes inside: its inner text
    rf"(?<='){_TEXT}*(?=')"
    # or a plain scalar that is a string: starting with a letter (not a bool or null
    # word) or with digits then a letter, "_" or "-" (never an int or a float),
    # no character that could mean anything else, no trailing blank
    rf"|(?<= ){_NOT_WORD}$)(?:[A-Za-z]|[0-9]+[A-Za-z_-]){_TEXT}*(?<! )$"
    r")'?$",
    re.MULTILINE,
)


#: new lines a process reads line by line before it reads them with ``_NEW_LINES``:
#: compiling that pattern costs about what reading a few hundred lines one by one does,
#: which a hook (one page) or a short lint never reads
_ONE_PASS_AFTER = 256
_by_line = 0


def fast_mapping(text: str) -> dict[str, Any] | None:
    """The mapping of simple flat frontmatter, or ``None`` to use the full loader."""
    lines = text.split("\n")
    if not lines[-1]:
        del lines[-1]
    # the most common shape, every line "key: value": looked up in C; a line in the
    # memo passed _safe before; the new ones are read here, all in one regex pass
    new = set(lines).difference(_pairs)
    if new:
        global _by_line
        if _by_line < _ONE_PASS_AFTER:  # (see _ONE_PASS_AFTER)
            _by_line += len(new)
            return _read_new(text, lines)
        found = _NEW_LINES.findall("\n".join(new))
        if len(found) != len(new) or len(_pairs) + len(new) > _MEMO_LIMIT:
            return _read_new(text, lines)
        _pairs.update(zip(new, found, strict=True))
    # (itemgetter of one key gives the pair itself, not a tuple of pairs)
    pairs: Any = itemgetter(*lines)(_pairs) if len(lines) > 1 else list(map(_pairs.get, lines))
    result = dict(pairs)
    return result if len(result) == len(lines) else None  # (a key twice: the full loader)


def _read_new(text: str, lines: list[str]) -> dict[str, Any] | None:
    """:func:`fast_mapping` for pages with lines the one-pass reader leaves: line by line."""
    pairs: list[Any] = list(map(_pairs.get, lines))
    missed = pairs.count(None)
    if len(_pairs) + missed > _MEMO_LIMIT:  # (a full memo starts again: see _remember)
        _pairs.clear()
    memo = _pairs if missed <= _MEMO_LIMIT else {}  # (the memo stays bounded)
    at = 0
    for _ in range(missed):
        at = pairs.index(None, at)
        line = lines[at]
        pair = _odd_pairs.get(line)
        if pair is None:
            pair = _new_pair(line)
            if pair is None:
                return None
            if pair is _NO_PAIR or pair[1] is _LIST:
                _remember(_odd_pairs, line, pair)
                return _general_mapping(text)
            pairs[at] = memo[line] = pair
        else:
            return _general_mapping(text)
    result = dict(pairs)
    return result if len(result) == len(pairs) else None


def _general_mapping(text: str) -> dict[str, Any] | None:
    """:func:`fast_mapping` for block lists and empty lines."""
    if not _safe(text):
        return None
    result: dict[str, Any] = {}
    lines = text.split("\n")
    n = len(lines)
    i = 0
    while i < n:
        line = lines[i]
        i += 1
        if not line:
            continue
        pair = _memo_pair(line)
        if pair is _NO_PAIR:
            return None
        key, value = pair
        if key in result:
            return None
        if value is not _LIST:
            result[key] = value
            continue
        # "key:" — a block list may follow
        items: list[Any] = []
        indent: str | None = None
        while i < n:
            im = _ITEM.match(lines[i])
            if im is None:
                break
            if indent is None:
                indent = im.group(1)
            elif im.group(1) != indent:
                return None
            body = im.group(2)
            if not body:
                return None
            value = _scalar_memo(body)
            if value is _MISSING:
                return None
            items.append(value)
            i += 1
        if indent is None:
            if i < n and lines[i][:1] in (" ", "-"):
                return None  # something nested we do not read here
            result[key] = None
        else:
            if i < n and lines[i][:1] == " ":
                return None
            result[key] = items
    return result
