"""What the local HTTP fakes (Bencher, GitHub, a webhook receiver) share: a real server on
127.0.0.1 in a daemon thread, faults injected on demand or at random, and a handler base that
drops or hangs a connection before the fake's own logic runs.  Each fake keeps its state, its
contract checks and its answers to itself."""

from __future__ import annotations

import json
import random
import socket
import sys
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable


@dataclass
class Fault:
    kind: str                      # pass | drop | drop_after | late | status | hang | reply
    method: str | None = None
    path: str | None = None        # part of the request path (see FakeServer.matches)
    times: int = 1
    status: int = 500
    retry_after: str | None = None
    after: float = 0.0             # status: answered this many seconds late (where the fake supports it)
    seconds: float = 30.0          # hang, late: how long
    hook: Callable[[], None] | None = None   # drop_after: called once the work is done
    echo: bool = False             # status: put the request's Authorization header in the message
    body: Any = None               # reply: this JSON, unchecked (a hostile or broken server)


class FakeServer:
    """Lifecycle and faults.  Subclasses set ``handler`` (a :class:`FakeHandler`) and may set
    ``url_path`` (a webhook's secret path) and ``fault_path_is_prefix``."""

    handler: type["FakeHandler"]
    url_path = ""
    fault_path_is_prefix = False   # else a substring of the path

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.stopping = threading.Event()
        self.problems: list[str] = []      # contract mismatches: each one fails the test
        self.requests: list[dict[str, Any]] = []
        self.faults: list[Fault] = []
        self.down = False                  # drop every connection (server "unreachable")
        self.httpd: _Server | None = None
        self._chaos, self._chaos_rng = 0.0, random.Random(1)

    def start(self, port: int = 0):
        self.httpd = _Server(("127.0.0.1", port), self.handler)
        self.httpd.fake = self
        threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        return self

    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}{self.url_path}"

    def stop(self) -> None:
        self.stopping.set()
        if self.httpd:
            self.httpd.shutdown()
            self.httpd.server_close()

    def inject(self, kind: str, **kw: Any) -> None:
        self.faults.append(Fault(kind, **kw))

    def chaos(self, rate: float, seed: int = 1) -> None:
        """From now on, a random fault (drop before or after the work, 500, 429) on ``rate`` of the
        requests that have no injected fault."""
        self._chaos, self._chaos_rng = rate, random.Random(seed)

    def take_fault(self, method: str, path: str) -> Fault | None:
        """The first injected fault for this request, else perhaps a random one."""
        with self.lock:
            for f in self.faults:
                if f.method in (None, method) and (f.path is None or self._matches(f.path, path)):
                    f.times -= 1
                    if f.times <= 0:
                        self.faults.remove(f)
                    return f
        return self._random_fault()

    def _matches(self, pattern: str, path: str) -> bool:
        return path.startswith(pattern) if self.fault_path_is_prefix else pattern in path

    def _random_fault(self) -> Fault | None:
        with self.lock:
            if self._chaos <= 0 or self._chaos_rng.random() >= self._chaos:
                return None
            kind = self._chaos_rng.choice(["drop", "drop_after", "500", "429"])
        if kind == "500":
            return Fault("status", status=500)
        if kind == "429":
            return Fault("status", status=429, retry_after="0")
        return Fault(kind)


class QuietServer(ThreadingHTTPServer):
    """A test server that prints no traceback for a client that hung up before its answer."""

    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        # a late answer to a client that gave up finds the connection closed: expected, not news
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class _Server(QuietServer):
    fake: FakeServer


class FakeHandler(BaseHTTPRequestHandler):
    """Moves bytes for a fake: every method goes to ``_handle``; ``_dropped`` carries out a
    connection-level fault."""

    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body go out as separate writes
    content_type = "application/json"
    server: _Server

    def log_message(self, *args: Any) -> None:  # keep test output quiet
        pass

    def do_GET(self) -> None:
        self._handle()

    do_POST = do_PATCH = do_PUT = do_DELETE = do_GET

    def _handle(self) -> None:
        raise NotImplementedError

    def _drop(self) -> None:
        self.close_connection = True
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def _dropped(self, fault: Fault | None) -> bool:
        """Carry out ``down``, ``drop`` and ``hang`` (the connection closes unanswered)."""
        fake = self.server.fake
        if fake.down or (fault and fault.kind == "drop"):
            self._drop()
            return True
        if fault and fault.kind == "hang":
            fake.stopping.wait(fault.seconds)
            self._drop()
            return True
        return False

    def _after_work(self, fault: Fault | None) -> bool:
        """``drop_after``: the work is done, the answer is lost (the hook runs first).  ``late``:
        the work is done, the answer comes ``seconds`` later (a slow chat server: it has posted
        the message already)."""
        if fault and fault.kind == "late":
            if self.server.fake.stopping.wait(fault.seconds):
                self._drop()
                return True
            return False
        if fault and fault.kind == "drop_after":
            if fault.hook:
                fault.hook()
            self._drop()
            return True
        return False

    def _send(self, status: int, body: Any, headers: dict[str, str]) -> None:
        """``body`` as JSON (a text answer when it is a str and the content type says text)."""
        data = (b"" if status == 204 else  # No Content: no body at all
                (body if isinstance(body, str) and self.content_type.startswith("text/") else json.dumps(body)).encode())
        self.send_response(status)
        self.send_header("Content-Type", self.content_type)
        self.send_header("Content-Length", str(len(data)))
        for k, v in headers.items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)
