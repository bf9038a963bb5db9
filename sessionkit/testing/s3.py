"""A real S3 endpoint for tests: moto's server on loopback, spoken to by s3fs over HTTP.

::

    with moto_s3() as server:
        store = sessionkit.open_store("s3://notes/wiki", layout="aiwiki",
                                      **server.storage_options)

Requests are served one at a time (moto checks a conditional PUT's
precondition and stores the object in two steps; real S3 never lets a second
PUT in between) and recorded in :attr:`MotoS3.requests`.
:func:`silent_endpoint` (never answers) and :func:`refused_endpoint` are
broken endpoints for deadline tests.  Needs ``moto[server]`` and ``s3fs``.
"""

from __future__ import annotations

import contextlib
import os
import socket
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any
from unittest import mock

__all__ = ["MotoS3", "moto_s3", "refused_endpoint", "silent_endpoint"]

#: dummy credentials for the moto server (never real ones)
_FAKE_ENV = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_SESSION_TOKEN": "testing",
    "AWS_DEFAULT_REGION": "us-east-1",
}


class MotoS3:
    """A started moto S3 server.

    Attributes:
        endpoint_url: ``http://127.0.0.1:<port>``.
        requests: ``(method, path, query)`` of every request served, in order.
        fail: ``{path: HTTP status}``: a GET of one of these paths
            (``/bucket/key``) is answered with that status and an S3 error
            body instead (an unreadable object, a failing server).
    """

    def __init__(self, *, serialize: bool = True, latency: float = 0.0) -> None:
        from moto.server import ThreadedMotoServer

        self.serialize = serialize
        self.latency = latency
        self.requests: list[tuple[str, str, str]] = []
        self.fail: dict[str, int] = {}
        self._lock = threading.Lock()
        self._server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
        self.endpoint_url = ""

    def _wrap(self, app: Callable[..., Iterable[bytes]]) -> Callable[..., Iterable[bytes]]:
        def wrapped(environ: dict[str, Any], start_response: Callable[..., Any]) -> list[bytes]:
            entry = (
                str(environ.get("REQUEST_METHOD", "")),
                str(environ.get("PATH_INFO", "")),
                str(environ.get("QUERY_STRING", "")),
            )
            if self.latency:  # an emulated network round trip (overlaps across requests)
                time.sleep(self.latency)
            status = self.fail.get(entry[1]) if entry[0] == "GET" else None
            if status is not None:
                self.requests.append(entry)
                body = (
                    f"<?xml version='1.0' encoding='UTF-8'?><Error><Code>Injected{status}</Code>"
                    f"<Message>injected</Message></Error>"
                ).encode()
                start_response(f"{status} Injected", [("Content-Type", "application/xml")])
                return [body]
            with self._lock if self.serialize else contextlib.nullcontext():
                self.requests.append(entry)
                return list(app(environ, start_response))

        return wrapped

    def start(self) -> MotoS3:
        """Start the server on a free loopback port (returns ``self``)."""
        import importlib
        import logging

        tms: Any = importlib.import_module("moto.moto_server.threaded_moto_server")

        logging.getLogger("werkzeug").setLevel(logging.ERROR)  # no line per request
        original = tms.make_server

        def make_server(host: str, port: int, app: Any, *args: Any, **kwargs: Any) -> Any:
            return original(host, port, self._wrap(app), *args, **kwargs)

        tms.make_server = make_server  # only while this server is created
        try:
            self._server.start()
        finally:
            tms.make_server = original
        host, port = self._server.get_host_and_port()
        self.endpoint_url = f"http://{host}:{port}"
        return self

    def stop(self) -> None:
        """Stop the server."""
        self._server.stop()

    @property
    def storage_options(self) -> dict[str, Any]:
        """fsspec options reaching this server (dummy credentials, no listings cache)."""
        return {
            "endpoint_url": self.endpoint_url,
            "key": _FAKE_ENV["AWS_ACCESS_KEY_ID"],
            "secret": _FAKE_ENV["AWS_SECRET_ACCESS_KEY"],
            "use_listings_cache": False,
        }

    def filesystem(self) -> Any:
        """A fresh ``s3fs.S3FileSystem`` talking to this server."""
        import s3fs

        return s3fs.S3FileSystem(**self.storage_options)

    def make_bucket(self, name: str) -> str:
        """Create a bucket (if missing); returns ``s3://name``."""
        fs = self.filesystem()
        if not fs.exists(name):
            fs.mkdir(name)
        return f"s3://{name}"

    def reset_counts(self) -> None:
        """Forget the recorded requests."""
        self.requests.clear()

    def count(self, method: str | None = None, *, query: str | None = None) -> int:
        """Requests recorded so far, by method and/or a query-string fragment."""
        return sum(
            1
            for m, _, q in self.requests
            if (method is None or m == method) and (query is None or query in q)
        )


@contextmanager
def moto_s3(*, serialize: bool = True, latency: float = 0.0) -> Iterator[MotoS3]:
    """A moto S3 server on 127.0.0.1 for the block, with dummy AWS credentials in the
    environment (never real ones).  ``serialize``: one request at a time (atomic
    conditional PUTs); ``latency``: seconds each request waits (benchmarks)."""
    with mock.patch.dict(os.environ, _FAKE_ENV):
        server = MotoS3(serialize=serialize, latency=latency).start()
        try:
            yield server
        finally:
            server.stop()


@contextmanager
def silent_endpoint() -> Iterator[str]:
    """An endpoint URL on 127.0.0.1 that accepts every connection and never answers."""
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.bind(("127.0.0.1", 0))
    server.listen(128)
    server.settimeout(0.1)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except (TimeoutError, OSError):
                continue
            held.append(conn)

    thread = threading.Thread(target=accept, name="silent-endpoint", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.getsockname()[1]}"
    finally:
        stop.set()
        thread.join(5)
        for conn in held:
            conn.close()
        server.close()


@contextmanager
def refused_endpoint() -> Iterator[str]:
    """An endpoint URL on 127.0.0.1 whose port is bound, never listened on: refused."""
    holder = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    holder.bind(("127.0.0.1", 0))
    try:
        yield f"http://127.0.0.1:{holder.getsockname()[1]}"
    finally:
        holder.close()
