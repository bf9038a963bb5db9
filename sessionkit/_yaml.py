"""Strict, string-keeping YAML for frontmatter.

* safe only: no Python tags, no custom tags (an error, not a silent string);
* libyaml's C parser when present (several times faster), the pure one otherwise;
* scalars resolve as YAML 1.2's core schema would *except* that anything that
  could be an id, a SHA or a date stays the string that was written:
  ``0123456`` is ``"0123456"``, ``2026-05-18`` is ``"2026-05-18"``, ``NO`` is
  ``"NO"``; only ``~``/``null``/empty, ``true``/``false``, decimal integers
  without leading zeros and plain decimal floats are typed;
* duplicate keys, aliases past a small budget and nesting past a depth limit are
  errors with the line they are on.

Writing goes the other way through :func:`scalar`, which quotes whatever
would not read back as the same value.
"""

from __future__ import annotations

import functools
from operator import itemgetter

from ._lazyre import lazy
from .errors import LimitExceededError, ParseError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, ClassVar

    import yaml

__all__ = ["MAX_ALIASES", "MAX_DEPTH", "load_mapping", "load_value", "scalar"]

MAX_ALIASES = 64
MAX_DEPTH = 64

_INT = lazy(r"^[-+]?(?:0|[1-9][0-9]*)$")
_FLOAT = lazy(r"^[-+]?(?:[0-9]+\.[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?$")
_BOOL = lazy(r"^(?:true|True|TRUE|false|False|FALSE)$")
_NULL = lazy(r"^(?:~|null|Null|NULL|)$")


def _construct_bool(loader: Any, node: yaml.Node) -> bool:
    return str(loader.construct_scalar(node)).lower() == "true"


def _construct_int(loader: Any, node: yaml.Node) -> int:
    text = str(loader.construct_scalar(node))
    try:
        return int(text)
    except ValueError:
        line = node.start_mark.line + 1
        if _INT.match(text):  # more digits than Python converts (4300)
            raise LimitExceededError(
                f"integer of {len(text)} digits is too long", line=line
            ) from None
        raise ParseError(f"invalid YAML: {text[:40]!r} is not an integer", line=line) from None


def _construct_float(loader: Any, node: yaml.Node) -> float:
    """PyYAML's float, with an error and its line for a value that is not one
    (PyYAML's own constructor fails on an empty ``!!float`` with ``IndexError``)."""
    import yaml

    try:
        if not isinstance(node, yaml.ScalarNode):
            raise ValueError
        value: float = yaml.constructor.SafeConstructor.construct_yaml_float(loader, node)
    except (ValueError, IndexError):
        what = repr(str(node.value)[:40]) if isinstance(node, yaml.ScalarNode) else "a collection"
        raise ParseError(
            f"invalid YAML: {what} is not a float", line=node.start_mark.line + 1
        ) from None
    return value


_TIMESTAMP = lazy(
    r"^[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}"
    r"(?:(?:[Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]*)?"
    r"(?:[ \t]*(?:Z|[-+][0-9]{1,2}(?::[0-9]{2})?))?)?$"
)


def _construct_timestamp(loader: Any, node: yaml.Node) -> str:
    """An explicit ``!!timestamp`` stays the string written, like every date (checked)."""
    text = str(loader.construct_scalar(node))
    if not _TIMESTAMP.match(text):
        raise ParseError(
            f"invalid YAML: {text[:40]!r} is not a timestamp", line=node.start_mark.line + 1
        )
    return text


def _construct_mapping(loader: Any, node: yaml.Node) -> dict[Any, Any]:
    import yaml

    if not isinstance(node, yaml.MappingNode):  # pragma: no cover - tag mismatch
        raise ParseError("expected a mapping", line=node.start_mark.line + 1)
    result: dict[Any, Any] = {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        try:
            hash(key)
        except TypeError:
            raise ParseError(
                "a mapping key must be a scalar", line=key_node.start_mark.line + 1
            ) from None
        if key in result:
            raise ParseError(f"duplicate key {key!r}", line=key_node.start_mark.line + 1)
        result[key] = loader.construct_object(value_node, deep=True)
    return result


def _refuse(loader: Any, node: yaml.Node) -> Any:
    """Tags whose values are not JSON data (bytes, sets, ordered pairs) are refused."""
    raise ParseError(
        f"invalid YAML: YAML tag {node.tag!r} is not allowed (only plain YAML data)",
        line=node.start_mark.line + 1,
    )


@functools.cache
def _loader_class() -> Any:
    """The strict loader class, built on first use: PyYAML is imported only when a
    text needs the full parser (flat frontmatter takes the fast lane, and the agent
    hooks then never import it)."""
    import yaml

    base: Any = getattr(yaml, "CSafeLoader", None) or yaml.SafeLoader  # libyaml if built

    class _Loader(base):  # type: ignore[misc]
        """Safe loader with a reduced set of implicit resolvers (see module doc)."""

        yaml_implicit_resolvers: ClassVar[dict[Any, Any]] = {}

        def __init__(self, stream: str) -> None:
            super().__init__(stream)
            self._aliases = 0

    _Loader.add_implicit_resolver("tag:yaml.org,2002:bool", _BOOL, list("tTfF"))
    _Loader.add_implicit_resolver("tag:yaml.org,2002:int", _INT, list("-+0123456789"))
    _Loader.add_implicit_resolver("tag:yaml.org,2002:float", _FLOAT, list("-+.0123456789"))
    _Loader.add_implicit_resolver("tag:yaml.org,2002:null", _NULL, ["~", "n", "N", ""])
    _Loader.add_constructor("tag:yaml.org,2002:bool", _construct_bool)
    _Loader.add_constructor("tag:yaml.org,2002:int", _construct_int)
    _Loader.add_constructor("tag:yaml.org,2002:float", _construct_float)
    _Loader.add_constructor("tag:yaml.org,2002:map", _construct_mapping)
    _Loader.add_constructor("tag:yaml.org,2002:timestamp", _construct_timestamp)
    for tag in ("binary", "set", "omap", "pairs"):
        _Loader.add_constructor(f"tag:yaml.org,2002:{tag}", _refuse)
    return _Loader


def _check_node(node: yaml.Node, depth: int, seen: dict[int, int], budget: list[int]) -> None:
    """Bound depth and the expanded size of the node graph (alias bombs)."""
    import yaml

    if depth > MAX_DEPTH:
        raise LimitExceededError(
            f"YAML nested deeper than {MAX_DEPTH} levels", line=node.start_mark.line + 1
        )
    budget[0] -= 1
    if budget[0] < 0:
        raise LimitExceededError(
            "YAML expands to too many values (alias bomb?)", line=node.start_mark.line + 1
        )
    if isinstance(node, yaml.ScalarNode):
        return
    key = id(node)
    count = seen.get(key, 0)
    # the same node reached again is an alias
    if count:
        if budget[1] > MAX_ALIASES:
            raise LimitExceededError(
                f"YAML uses more than {MAX_ALIASES} aliases", line=node.start_mark.line + 1
            )
        if count == 1:
            budget[1] += 1
    seen[key] = count + 1
    children: list[yaml.Node]
    if isinstance(node, yaml.MappingNode):
        children = [n for pair in node.value for n in pair]
    else:
        children = list(node.value)
    for child in children:
        _check_node(child, depth + 1, seen, budget)


def _error_line(exc: yaml.YAMLError) -> int | None:
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    return None if mark is None else int(mark.line) + 1


def _check_depth(text: str, max_values: int | None = None) -> None:
    """Refuse nesting deeper than MAX_DEPTH before composing (libyaml's composer recurses)."""
    big = max_values is not None and len(text) > max_values
    if not big and (
        text.count("[") + text.count("{") + text.count("- ") + text.count(":") <= MAX_DEPTH
    ):
        return
    import yaml

    #: the events that are one value each (a collection, a scalar, an alias)
    value_events = (
        yaml.ScalarEvent,
        yaml.AliasEvent,
        yaml.SequenceStartEvent,
        yaml.MappingStartEvent,
    )
    depth = 0
    values = 0
    loader = _loader_class()(text)
    try:
        while True:
            event = loader.get_event()
            if event is None or isinstance(event, yaml.StreamEndEvent):
                return
            if big and isinstance(event, value_events):
                values += 1
                if max_values is not None and values > max_values:
                    raise LimitExceededError(
                        f"YAML holds more than {max_values} values",
                        line=None if event.start_mark is None else event.start_mark.line + 1,
                    )
            if isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
                depth += 1
                if depth > MAX_DEPTH:
                    raise LimitExceededError(
                        f"YAML nested deeper than {MAX_DEPTH} levels",
                        line=None if event.start_mark is None else event.start_mark.line + 1,
                    )
            elif isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
                depth -= 1
    finally:
        loader.dispose()


def load_value(text: str, *, line_offset: int = 0, max_values: int = 100_000) -> Any:
    """Load one YAML document strictly; errors carry ``line + line_offset``.

    ``max_values`` bounds the number of values after alias expansion.
    """
    import yaml

    loader = _loader_class()(text)
    try:
        try:
            _check_depth(text, max_values)
            node = loader.get_single_node()
            if node is None:
                return None
            _check_node(node, 0, {}, [max_values, 0])
            return loader.construct_document(node)
        finally:
            loader.dispose()
    except ParseError as exc:
        if exc.line is not None:
            exc.line += line_offset
        raise
    except yaml.constructor.ConstructorError as exc:
        line = _error_line(exc)
        problem = exc.problem or "cannot construct value"
        if "could not determine a constructor" in problem:
            tag = problem.split("tag", 1)[-1].strip()
            problem = f"YAML tag {tag} is not allowed (only plain YAML data)"
        raise ParseError(
            f"invalid YAML: {problem}", line=None if line is None else line + line_offset
        ) from None
    except yaml.YAMLError as exc:
        line = _error_line(exc)
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        where = None if line is None else line + line_offset
        if "nesting depth" in problem:  # PyYAML >= 6.0.4's libyaml has its own depth cap
            raise LimitExceededError(
                f"YAML nested deeper than {MAX_DEPTH} levels", line=where
            ) from None
        raise ParseError(f"invalid YAML: {problem}", line=where) from None
    except RecursionError:
        raise LimitExceededError("YAML nested too deeply", line=line_offset + 1) from None
    except (ValueError, TypeError) as exc:  # e.g. NUL in the C reader
        raise ParseError(f"invalid YAML: {exc}", line=line_offset + 1) from None


# -- the flat-mapping branch: frontmatter of simple ``key: value`` lines (and block
# lists of such scalars), read without the YAML parser; what load_mapping gives, or None
# for anything else (tests/test_yaml_fastpath.py holds it to the full loader)

_ITEM = lazy(r"( {0,2})- (.*)\Z")
# characters allowed here: printable and \n; no other YAML line break (CR, NEL, LS, PS), no BOM
_UNSAFE = lazy(
    "[^\n\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff]"
)
_FLOAT_END = lazy(r"[-+]?(?:[0-9]+\.[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?\Z")
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
        if "." in text and _FLOAT_END.match(text):
            sign = -1 if first == "-" else 1
            return sign * float(text[1:] if first in "+-" else text)
    return text


_BOOLS_FIRST = frozenset("tTfF")
_NUM_FIRST = frozenset("-+.0123456789")
_DIGIT_OR_DOT = frozenset("0123456789.")


def _key_text(key: str) -> bool:
    """``re.fullmatch(r"[A-Za-z_][A-Za-z0-9_-]*", key)``, without compiling it (ASCII letters
    and digits are what :meth:`str.isalnum` takes of an ASCII text)."""
    if not key.isascii() or not (key[:1].isalpha() or key[:1] == "_"):
        return False
    rest = key[1:].replace("_", "").replace("-", "")
    return not rest or rest.isalnum()


def _safe(text: str) -> bool:
    """No character :func:`flat_mapping` leaves to the full loader (see ``_UNSAFE``)."""
    if text.isascii():  # printable ASCII is exactly \x20-\x7e
        return text.replace("\n", "").isprintable()
    return _UNSAFE.search(text) is None


#: line -> (key, value) of the simple "key: value" lines seen (frontmatter repeats them
#: page after page); bounded: a full memo starts again
_pairs: dict[str, tuple[str, Any]] = {}
_MEMO_LIMIT = 8192
_NO_PAIR: tuple[str, Any] = ("", None)
_LIST = object()  # the value of "key:" (a block list or null follows)
_keys_ok: dict[str, bool] = {}


def _pair(line: str) -> tuple[str, Any]:
    """(key, value) of a ``key: value`` line; ``_LIST`` for ``key:``; ``_NO_PAIR`` for others."""
    pair = _pairs.get(line)
    if pair is not None:
        return pair
    colon = line.find(":")
    if colon <= 0:
        return _NO_PAIR
    key = line[:colon]
    ok = _keys_ok.get(key)
    if ok is None:
        ok = _key_text(key) and key not in _NOT_KEYS
        if len(_keys_ok) >= _MEMO_LIMIT:
            _keys_ok.clear()
        _keys_ok[key] = ok
    if not ok:
        return _NO_PAIR
    if colon + 1 == len(line):
        return key, _LIST
    if line[colon + 1] != " " or colon + 2 == len(line):
        return _NO_PAIR  # "key:x", or "key: " with a trailing blank
    value = _scalar(line[colon + 2 :])
    if value is _MISSING:
        return _NO_PAIR
    if len(_pairs) >= _MEMO_LIMIT:
        _pairs.clear()
    pair = _pairs[line] = (key, value)
    return pair


def flat_mapping(text: str) -> dict[str, Any] | None:
    """The mapping of simple flat frontmatter, or ``None`` to use the full loader."""
    lines = text.split("\n")
    if not lines[-1]:
        del lines[-1]
    try:  # (the usual page: every line seen before, looked up in C)
        pairs: Any = itemgetter(*lines)(_pairs) if len(lines) > 1 else [_pairs[lines[0]]]
    except (KeyError, IndexError):
        pass
    else:
        result = dict(pairs)
        return result if len(result) == len(lines) else None  # (a key twice: the full loader)
    if not _safe(text):
        return None
    result = {}
    n, i = len(lines), 0
    while i < n:
        line = lines[i]
        i += 1
        if not line:
            continue
        key, value = _pair(line)
        if not key or key in result:
            return None
        if value is not _LIST:
            result[key] = value
            continue
        items: list[Any] = []  # "key:": a block list may follow
        indent: str | None = None
        while i < n:
            im = _ITEM.match(lines[i])
            if im is None:
                break
            if indent is None:
                indent = im.group(1)
            elif im.group(1) != indent:
                return None
            value = _scalar(im.group(2)) if im.group(2) else _MISSING
            if value is _MISSING:
                return None
            items.append(value)
            i += 1
        if i < n and lines[i][:1] in ((" ", "-") if indent is None else (" ",)):
            return None  # something nested, not read here
        result[key] = None if indent is None else items
    return result


#: ``key: [a, b]``: a flow list of plain items with no character that means
#: something in a flow (``,[]{}``), a quote, a comment mark, ``:`` or a tab
_FLOW_LINE = lazy(
    r"([A-Za-z_][A-Za-z0-9_-]*): \[([^\[\]{},'\"#:\t\n]+(?:, [^\[\]{},'\"#:\t\n]+)*)\]"
)


def _flow_as_block(text: str) -> str | None:
    """``text`` with each one-line flow list of plain items written as a block list."""
    out: list[str] = []
    changed = False
    lines = text.split("\n")
    for at, line in enumerate(lines):
        if line.endswith("]") and ": [" in line:
            if at + 1 < len(lines) and lines[at + 1][:1] in ("-", " ", "\t"):
                return None  # what follows would join the block list, or is nested
            m = _FLOW_LINE.fullmatch(line)
            if m is not None:
                items = m.group(2).split(", ")
                if all(item and item[0] != " " and item[-1] != " " for item in items):
                    out.append(m.group(1) + ":")
                    out.extend("- " + item for item in items)
                    changed = True
                    continue
        out.append(line)
    return "\n".join(out) if changed else None


def load_mapping(text: str, *, line_offset: int = 0) -> dict[str, Any]:
    """Load frontmatter text: empty is ``{}``, anything but a mapping is an error."""
    # flat frontmatter with one-line flow lists, as aiwiki's writer spells them: such a
    # line ("key: [a, b]") is never read by flat_mapping (its value starts with "[" and
    # flat_mapping takes no "key: value" line whose value contains ": " either), so when
    # _flow_as_block rewrote one, flat_mapping(text) would give None: only the block is tried
    block = _flow_as_block(text) if ": [" in text else None
    # (flat, simple frontmatter: flat_mapping gives the same result without the YAML parser)
    fast = flat_mapping(text) if block is None else flat_mapping(block)
    if fast is not None:
        return fast
    value = load_value(text, line_offset=line_offset)
    if value is None:
        return {}
    if not isinstance(value, dict):
        kind = type(value).__name__
        kind = {"list": "a list", "str": "a string", "int": "a number", "float": "a number"}.get(
            kind, kind
        )
        raise ParseError(f"frontmatter must be a YAML mapping, not {kind}", line=line_offset + 1)
    for key in value:
        if not isinstance(key, str):
            raise ParseError(f"frontmatter key {key!r} is not a string", line=line_offset + 1)
    return value


_PLAIN_SAFE = lazy(r"^[A-Za-z_][A-Za-z0-9_ ./()+-]*$")


def scalar(value: Any) -> str:
    """Render ``value`` as a one-line YAML scalar that loads back to the same value.

    Strings that would resolve to another type under *any* common YAML
    reader (ids, SHAs, dates, ``yes``/``no``) are single-quoted.
    """
    if value is None:
        return "~"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(scalar(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{scalar(k)}: {scalar(v)}" for k, v in value.items()) + "}"
    text = str(value)
    if (
        _PLAIN_SAFE.match(text)
        and not text.endswith(" ")
        and text.lower()
        not in {"yes", "no", "on", "off", "y", "n", "true", "false", "null", "nan", "inf"}
    ):
        return text
    return "'" + text.replace("'", "''") + "'"
