"""Name a remote store's network failures plainly: ``cannot reach s3://bucket: connection refused``.

botocore, aiohttp and fsspec raise their own types for an endpoint that refuses,
never answers or cannot be resolved; they are recognised here by class name and
errno along the exception chain (nothing here imports botocore or aiohttp).
"""

from __future__ import annotations

import errno
import functools
from collections.abc import Callable
from typing import Any, TypeVar

from ..errors import SessionKitError, StoreError

__all__ = ["error_code", "http_error", "name_network_failures", "reach_error", "unreachable"]

F = TypeVar("F", bound=Callable[..., Any])

_REFUSED = {errno.ECONNREFUSED}
_RESET = {errno.ECONNRESET, errno.EPIPE, errno.ECONNABORTED}
_UNREACHABLE = {errno.ENETUNREACH, errno.EHOSTUNREACH, errno.EHOSTDOWN, errno.ENETDOWN}
#: what a failure is called, by the exception class names along its chain (first wins)
_SOFT = (
    ("ReadTimeoutError ServerTimeoutError SocketTimeoutError", "no answer (read timed out)"),
    ("ConnectTimeoutError ConnectionTimeoutError", "connection timed out"),
    ("ConnectionResetError", "connection reset"),
    ("ConnectionClosedError ServerDisconnectedError", "the endpoint closed the connection"),
    ("FSTimeoutError TimeoutError", "timed out"),
    (
        "EndpointConnectionError ClientConnectorError ClientOSError ProxyConnectionError",
        "cannot connect",
    ),
)


def _names(exc: BaseException) -> set[str]:
    return {cls.__name__ for cls in type(exc).__mro__}


def _chain(exc: BaseException) -> list[BaseException]:
    seen: set[int] = set()
    out: list[BaseException] = []
    todo: list[BaseException | None] = [exc]
    while todo:
        cur = todo.pop(0)
        if cur is None or id(cur) in seen or len(out) > 32:
            continue
        seen.add(id(cur))
        out.append(cur)
        todo += [cur.__cause__, cur.__context__]
        todo += [a for a in getattr(cur, "args", ()) if isinstance(a, BaseException)]
        inner = getattr(cur, "kwargs", None)  # botocore keeps the cause in kwargs["error"]
        if isinstance(inner, dict) and isinstance(inner.get("error"), BaseException):
            todo.append(inner["error"])
    return out


def _responses(exc: BaseException) -> list[dict[str, Any]]:
    """The server answers along ``exc``'s chain (botocore keeps them in ``response``)."""
    found = (getattr(cur, "response", None) for cur in _chain(exc))
    return [r for r in found if isinstance(r, dict)]


def error_code(exc: BaseException) -> str | None:
    """The S3 error code (``PreconditionFailed``) behind ``exc``, if any."""
    for response in _responses(exc):
        error = response.get("Error")
        if isinstance(error, dict) and error.get("Code"):
            return str(error["Code"])
    return None


def http_error(exc: BaseException) -> str | None:
    """``the server answered HTTP 500 (InternalError: message)``, else ``None``."""
    for response in _responses(exc):
        meta = response.get("ResponseMetadata") or {}
        status = meta.get("HTTPStatusCode") if isinstance(meta, dict) else None
        if not isinstance(status, int):
            continue
        error = response.get("Error") or {}
        code = error.get("Code") if isinstance(error, dict) else None
        message = error.get("Message") if isinstance(error, dict) else None
        said = ": ".join(str(x) for x in (code, message) if x)
        return f"the server answered HTTP {status}" + (f" ({said})" if said else "")
    return None


def unreachable(exc: BaseException) -> str | None:
    """Why the network failed in a few words (``connection refused``, ``no answer
    (read timed out)``, ``host not found``…) when ``exc`` is a network failure."""
    if isinstance(exc, SessionKitError):
        return None
    chain = _chain(exc)
    found: str | None = None
    for cur in chain:
        names = _names(cur)
        code = getattr(cur, "errno", None)
        text = str(cur).lower()
        refused = code in _REFUSED or "connection refused" in text
        if isinstance(cur, ConnectionRefusedError) or refused:
            return "connection refused"
        if "gaierror" in names or "name or service not known" in text or "nodename" in text:
            return "host not found"
        if code in _UNREACHABLE:
            return "network unreachable"
        if code in _RESET:
            names.add("ConnectionResetError")
        found = found or next((why for kinds, why in _SOFT if names & set(kinds.split())), None)
    return found


def reach_error(exc: BaseException, url: str) -> StoreError | None:
    """``StoreError("cannot reach s3://bucket: <why>")`` for a network failure, else ``None``."""
    why = unreachable(exc)
    if why is None:
        return None
    scheme, sep, rest = url.partition("://")
    host = f"{scheme}://{rest.split('/', 1)[0]}" if sep else url
    return StoreError(f"cannot reach {host}: {why}")


def _plain_network_errors(method: F) -> F:
    """A storage method whose network failures become :func:`reach_error`'s StoreError."""

    @functools.wraps(method)
    def wrapped(self: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return method(self, *args, **kwargs)
        except Exception as exc:
            cause: BaseException | None = exc
            if isinstance(exc, SessionKitError):
                # "cannot read 'x': <botocore text>" for a timeout: named plainly instead
                cause = exc.__cause__ or exc.__context__ if type(exc) is StoreError else None
            url = str(getattr(self, "url", "") or "the store")
            plain = None if cause is None else reach_error(cause, url)
            if plain is None:
                raise
            raise plain from None

    return wrapped  # type: ignore[return-value]


#: the storage methods that talk to the network
_METHODS = "names exists list read read_many read_heads read_versioned mtime write update delete"

C = TypeVar("C", bound=type)


def name_network_failures(cls: C) -> C:
    """Class decorator: network failures named plainly by each storage method ``cls`` defines."""
    for name in _METHODS.split():
        method = cls.__dict__.get(name)
        if callable(method):
            setattr(cls, name, _plain_network_errors(method))
    return cls
