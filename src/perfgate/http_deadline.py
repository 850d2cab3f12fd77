"""A total deadline for one HTTP exchange, connect to last byte, headers included.

httpx's timeouts apply to each socket operation, so a server trickling its headers or body a byte
at a time never times out.  :func:`transport` gives an httpx transport whose sockets cap every
connect, read and write at the time left before the deadline that :func:`deadline` sets for the
calling thread; outside :func:`deadline` they behave as usual.
"""

from __future__ import annotations

import os
import threading
import time
from contextlib import contextmanager
from typing import Any, Iterator

import httpcore
import httpx

_local = threading.local()
PROXY_VARIABLES = ("http_proxy", "https_proxy", "all_proxy")


@contextmanager
def deadline(seconds: float) -> Iterator[None]:
    """Socket operations of this thread's requests end by ``seconds`` from now."""
    before = getattr(_local, "at", None)
    _local.at = time.monotonic() + seconds
    try:
        yield
    finally:
        _local.at = before


def expired() -> bool:
    at = getattr(_local, "at", None)
    return at is not None and time.monotonic() >= at


def _cap(timeout: float | None, error: type[Exception]) -> float | None:
    at = getattr(_local, "at", None)
    if at is None:
        return timeout
    left = at - time.monotonic()
    if left <= 0:
        raise error("the request's deadline passed")
    return left if timeout is None else min(timeout, left)


class _Stream(httpcore.NetworkStream):
    def __init__(self, inner: httpcore.NetworkStream):
        self._inner = inner

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._inner.read(max_bytes, _cap(timeout, httpcore.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._inner.write(buffer, _cap(timeout, httpcore.WriteTimeout))

    def close(self) -> None:
        self._inner.close()

    def start_tls(self, ssl_context: Any, server_hostname: str | None = None,
                  timeout: float | None = None) -> httpcore.NetworkStream:
        return _Stream(self._inner.start_tls(ssl_context, server_hostname, _cap(timeout, httpcore.ConnectTimeout)))

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class _Backend(httpcore.NetworkBackend):
    def __init__(self, inner: httpcore.NetworkBackend):
        self._inner = inner

    def connect_tcp(self, host: str, port: int, timeout: float | None = None, local_address: str | None = None,
                    socket_options: Any = None) -> httpcore.NetworkStream:
        return _Stream(self._inner.connect_tcp(host, port, _cap(timeout, httpcore.ConnectTimeout), local_address,
                                               socket_options))

    def connect_unix_socket(self, path: str, timeout: float | None = None,
                            socket_options: Any = None) -> httpcore.NetworkStream:
        return _Stream(self._inner.connect_unix_socket(path, _cap(timeout, httpcore.ConnectTimeout), socket_options))

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


def transport() -> httpx.HTTPTransport | None:
    """httpx's own transport, its sockets under the thread's deadline.  (httpx has no public way
    to give its pool a network backend: requirements.lock pins the versions this was tested on,
    and every client made here fails at once, in every test, if the pool changes shape.)

    None (httpx's default transport) where the environment names a proxy: a client given a
    transport ignores HTTP(S)_PROXY, and a CI behind a proxy would lose Bencher and its webhooks.
    There only the body's deadline holds (:func:`perfgate.http_client.read_whole`)."""
    if any(v for k, v in os.environ.items() if k.lower() in PROXY_VARIABLES):
        return None
    t = httpx.HTTPTransport()
    pool = t._pool
    pool._network_backend = _Backend(pool._network_backend)
    return t
