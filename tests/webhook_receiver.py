"""A real HTTP server on 127.0.0.1 that receives perfgate's webhook POSTs, as a Slack-style
endpoint would: it checks each is JSON with a ``text`` field and an ``Idempotency-Key``, keeps
every request, and processes each key once (what a de-duplicating receiver does).  Faults:
dropped connections (before or after processing, optionally calling a hook first — the tests kill
the notifier there), any status with Retry-After (answered late if asked), hangs, late answers
(processed, answered seconds later) and "down" (every connection dropped)."""

from __future__ import annotations

import json
from typing import Any

from fake_http import FakeHandler, FakeServer


class Receiver(FakeServer):
    path = url_path = "/services/T000/B000/XXXXsecretXXXX"   # shaped like a Slack webhook: the path is the secret

    def __init__(self):
        super().__init__()                            # requests: every POST that arrived whole
        self.processed: dict[str, dict[str, Any]] = {}  # idempotency key -> body, first arrival
        self.order: list[str] = []                    # event ids in the order first processed

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


class _Handler(FakeHandler):
    content_type = "text/plain"

    def _handle(self) -> None:
        rec = self.server.fake
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        fault = None if rec.down else rec.take_fault(self.command, self.path)
        if self._dropped(fault):
            return
        if fault and fault.kind == "status":
            rec.stopping.wait(fault.after)
            return self._send(fault.status, f"injected {fault.status}",
                              {"Retry-After": fault.retry_after} if fault.retry_after else {})
        status, text = rec.receive(self.path, {k.lower(): v for k, v in self.headers.items()}, raw)
        if self._after_work(fault):
            return
        self._send(status, text, {})


Receiver.handler = _Handler
