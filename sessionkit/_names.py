"""File names as messages show them: bytes that were not UTF-8 (lone surrogates) and
control characters escaped (``\xff``, ``\n``), in a name (:func:`shown`) and in
anything written to stdout and stderr (:func:`escape_streams`)."""

from __future__ import annotations

import codecs
import contextlib
import sys

__all__ = ["ERRORS", "escape_streams", "shown"]

#: the codec error handler that writes a lone surrogate as ``\xNN`` (the byte it stands for)
ERRORS = "sessionkit.names"


def _char(ch: str) -> str:
    code = ord(ch)
    if 0xDC80 <= code <= 0xDCFF:  # a byte that was not UTF-8, kept by surrogateescape
        return f"\\x{code - 0xDC00:02x}"
    if ch.isprintable():
        return ch
    return (
        ch.encode("unicode_escape").decode("ascii")
        if code > 0xFF or code < 0x7F
        else f"\\x{code:02x}"
    )


def shown(name: str) -> str:
    """``name`` with every byte that was not UTF-8 as ``\\xNN`` and every control or
    other unprintable character escaped (``\\n``, ``\\t``, ``\\u2028``); a plain
    name comes back as it is."""
    if name.isprintable():
        return name
    return "".join(map(_char, name))


def _handler(exc: UnicodeError) -> tuple[str, int]:
    if not isinstance(exc, UnicodeEncodeError):
        raise exc
    return "".join(map(_char, exc.object[exc.start : exc.end])), exc.end


def escape_streams() -> None:
    """Make ``sys.stdout`` and ``sys.stderr`` write text they cannot encode (a name
    that is not UTF-8) with :func:`shown`'s escapes instead of raising."""
    try:
        codecs.lookup_error(ERRORS)
    except LookupError:
        codecs.register_error(ERRORS, _handler)
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            with contextlib.suppress(ValueError, OSError):  # (closed, or not a text stream)
                reconfigure(errors=ERRORS)
