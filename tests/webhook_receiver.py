"""A real HTTP server on 127.0.0.1 that receives perfgate's webhook POSTs, as a Slack-style
endpoint would: it checks each is JSON with a ``text`` field and an ``Idempotency-Key``, keeps
every request, and processes each key once (what a de-duplicating receiver does).  Faults:
dropped connections (before or after processing, optionally calling a hook first — the tests kill
the notifier there), any status with Retry-After, hangs, and "down" (every connection dropped)."""

from __future__ import annotations

import json
import random
import socket
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable


@dataclass
class Fault:
    kind: str                   # pass (let one through) | drop | drop_after | status | hang
    times: int = 1
    status: int = 500
    retry_after: str | None = None
    seconds: float = 30.0
    hook: Callable[[], None] | None = None


class Receiver:
    path = "/services/T000/B000/XXXXsecretXXXX"   # shaped like a Slack webhook: the path is the secret

    def __init__(self):
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self.requests: list[dict[str, Any]] = []      # every POST that arrived whole
        self.processed: dict[str, dict[str, Any]] = {}  # idempotency key -> body, first arrival
        self.order: list[str] = []                    # event ids in the order first processed
        self.problems: list[str] = []
        self.faults: list[Fault] = []
        self.down = False
        self.httpd: ThreadingHTTPServer | None = None

    def start(self) -> "Receiver":
        self.httpd = _Server(("127.0.0.1", 0), _Handler)
        self.httpd.receiver = self
        threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        return self

    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}{self.path}"

    def stop(self) -> None:
        self.stopping.set()
        if self.httpd:
            self.httpd.shutdown()
            self.httpd.server_close()

    def chaos(self, rate: float, seed: int = 1) -> None:
        """From now on, a random fault (drop before or after the work, 500, 429) on ``rate`` of the
        requests that have no injected fault."""
        self._chaos, self._chaos_rng = rate, random.Random(seed)

    def _random_fault(self) -> Fault | None:
        rate = getattr(self, "_chaos", 0.0)
        if rate <= 0:
            return None
        with self.lock:
            if self._chaos_rng.random() >= rate:
                return None
            kind = self._chaos_rng.choice(["drop", "drop_after", "500", "429"])
        if kind == "500":
            return Fault("status", status=500)
        if kind == "429":
            return Fault("status", status=429, retry_after="0")
        return Fault(kind)

    def inject(self, kind: str, **kw: Any) -> None:
        self.faults.append(Fault(kind, **kw))

    def take_fault(self) -> Fault | None:
        with self.lock:
            if not self.faults:
                return None
            f = self.faults[0]
            f.times -= 1
            if f.times <= 0:
                self.faults.pop(0)
            return f

    def receive(self, path: str, headers: dict[str, str], raw: bytes) -> tuple[int, str]:
        with self.lock:
            if path != self.path:
                return 404, "no such hook"
            try:
                body = json.loads(raw, parse_constant=_reject_constant)
            except ValueError:
                self.problems.append("body is not JSON")
                return 400, "invalid_payload"
            key = headers.get("idempotency-key")
            if not isinstance(body, dict) or not isinstance(body.get("text"), str) or not body["text"]:
                self.problems.append(f"no text field: {raw[:200]!r}")
                return 400, "no_text"
            if not key or headers.get("content-type", "").split(";")[0] != "application/json":
                self.problems.append(f"missing Idempotency-Key or JSON content type: {headers}")
                return 400, "invalid_headers"
            self.requests.append({"key": key, "body": body, "headers": headers})
            if key in self.processed:
                if self.processed[key] != body:
                    self.problems.append(f"key {key} resent with a different body")
                return 200, "ok"
            self.processed[key] = body
            self.order.append(body["event_id"])
            return 200, "ok"


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    receiver: Receiver


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, *args: Any) -> None:
        pass

    def _drop(self) -> None:
        self.close_connection = True
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def do_POST(self) -> None:
        rec = self.server.receiver
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if rec.down:
            return self._drop()
        fault = rec.take_fault() or rec._random_fault()
        if fault and fault.kind == "drop":
            return self._drop()
        if fault and fault.kind == "hang":
            rec.stopping.wait(fault.seconds)
            return self._drop()
        if fault and fault.kind == "status":
            return self._send(fault.status, f"injected {fault.status}",
                              {"Retry-After": fault.retry_after} if fault.retry_after else {})
        status, text = rec.receive(self.path, {k.lower(): v for k, v in self.headers.items()}, raw)
        if fault and fault.kind == "drop_after":
            if fault.hook:
                fault.hook()
            return self._drop()
        self._send(status, text, {})

    def _send(self, status: int, text: str, headers: dict[str, str]) -> None:
        data = text.encode()
        self.send_response(status)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(data)))
        for k, v in headers.items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)
