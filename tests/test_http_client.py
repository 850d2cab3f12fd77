"""The alert channels' HTTP client against a local server that answers badly: slowly, hugely,
or with escape sequences (an audit's cases), and a gzip answer read as GitHub sends it."""

from __future__ import annotations

import gzip
import http.server
import json
import threading
import time

import pytest
from fake_http import QuietServer

from perfgate import http_client
from perfgate.http_client import DeliveryUnreachable, Http
from perfgate.retry import RetryPolicy


class _Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass

    def _answer(self, status: int, body: bytes, **headers: str) -> None:
        self.send_response(status)
        for key, value in {"Content-Length": str(len(body)), **headers}.items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        if self.path == "/gzip":
            self._answer(200, gzip.compress(json.dumps({"ok": [1, 2, 3]}).encode()), **{"Content-Encoding": "gzip"})
        elif self.path == "/drip":      # headers at once, then a byte every 0.2 s
            self.send_response(200)
            self.send_header("Content-Length", "100000")
            self.end_headers()
            for _ in range(200):
                self.wfile.write(b"x")
                self.wfile.flush()
                time.sleep(0.2)
        elif self.path == "/escapes":
            self._answer(500, b"\x1b[31mred\x1b]8;;http://x\x07")
        elif self.path == "/huge":
            self._answer(200, b"x" * (2 * 2 ** 20))
        elif self.path == "/slow":      # takes the request at once, answers 0.5 s later
            ARRIVED.append(self.command)
            time.sleep(0.5)
            try:
                self._answer(200, b"{}")
            except ConnectionError:     # the client gave up
                pass

    do_POST = do_GET


ARRIVED: list[str] = []


@pytest.fixture(scope="module")
def server():
    srv = QuietServer(("127.0.0.1", 0), _Handler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{srv.server_port}"
    srv.shutdown()


def _client(url: str) -> Http:
    return Http("test", base_url=url, policy=RetryPolicy(attempts=1, timeout=1.0), sleep=lambda s: None)


def test_a_gzip_answer_is_read_whole(server):
    assert _client(server).request("GET", "/gzip").json() == {"ok": [1, 2, 3]}


def test_an_answer_sent_a_byte_at_a_time_ends_at_the_deadline(server):
    # httpx's read timeout restarts with each chunk: notify waited over 200 s on such a webhook.
    began = time.monotonic()
    with pytest.raises(DeliveryUnreachable, match="ReadTimeout: the answer took over 3 s"):
        _client(server).request("GET", "/drip")
    assert time.monotonic() - began < 6


def test_an_answer_over_the_size_bound_is_not_kept(server, monkeypatch):
    monkeypatch.setattr(http_client, "MAX_BODY", 2 ** 20)
    with pytest.raises(DeliveryUnreachable, match="larger than 1 MiB"):
        _client(server).request("GET", "/huge")


def test_a_servers_escape_sequences_are_written_out_in_the_error(server):
    with pytest.raises(DeliveryUnreachable) as info:
        _client(server).request("GET", "/escapes")
    assert "\x1b" not in str(info.value) and "\x07" not in str(info.value)
    assert "HTTP 500: \\x1b[31mred\\x1b]8;;http://x\\x07" in str(info.value)


def test_a_server_that_answered_5xx_is_not_said_to_have_given_no_answer(server):
    with pytest.raises(DeliveryUnreachable, match=r"gave up after 1 attempt\(s\); last: HTTP 500") as info:
        _client(server).request("GET", "/escapes")
    assert "no answer" not in str(info.value)


def test_a_proxy_in_the_environment_keeps_httpx_default_transport(monkeypatch):
    """A client given a transport ignores HTTP(S)_PROXY: the deadline's transport is used only
    where no proxy is configured, so a CI behind a proxy still reaches Bencher and its webhooks."""
    import httpx

    from perfgate import http_deadline

    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    assert isinstance(http_deadline.transport(), httpx.HTTPTransport)
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.invalid:3128")
    assert http_deadline.transport() is None
    client = httpx.Client(transport=http_deadline.transport())
    assert any(m is not None and getattr(m, "_pool", None) is not None and type(m._pool).__name__ == "HTTPProxy"
               for m in client._mounts.values()), "the environment's proxy is used"


def test_a_slow_answer_is_waited_for_when_the_request_is_acted_on_arrival(server):
    """A read (the default) is retried at each timeout; a chat post is waited for instead: each
    attempt the receiver takes is a message people see."""
    policy = RetryPolicy(attempts=3, backoff=0.0, max_backoff=0.0, timeout=0.2, answer_timeout=2.0)
    ARRIVED.clear()
    with pytest.raises(DeliveryUnreachable, match="ReadTimeout"):
        Http("test", base_url=server, policy=policy, sleep=lambda s: None).request("GET", "/slow")
    assert ARRIVED == ["GET"] * 3
    ARRIVED.clear()
    answer = Http("test", base_url=server, policy=policy, sleep=lambda s: None).request(
        "POST", "/slow", json={"text": "x"}, acted_on_arrival=True)
    assert answer.status_code == 200 and ARRIVED == ["POST"]


def test_a_post_acted_on_arrival_is_not_sent_again_after_its_answer_timed_out(server):
    policy = RetryPolicy(attempts=3, backoff=0.0, max_backoff=0.0, timeout=0.2, answer_timeout=0.3)
    ARRIVED.clear()
    began = time.monotonic()
    with pytest.raises(DeliveryUnreachable, match=r"after 1 attempt\(s\).*not sent again now"):
        Http("test", base_url=server, policy=policy, sleep=lambda s: None).request(
            "POST", "/slow", json={"text": "x"}, acted_on_arrival=True)
    assert ARRIVED == ["POST"] and time.monotonic() - began < policy.timeout + policy.answer_timeout + 0.2


def test_the_answer_timeout_is_tunable_and_checked(monkeypatch):
    from perfgate.errors import PerfgateError

    monkeypatch.setenv("PERFGATE_NOTIFY_ANSWER_TIMEOUT", "7.5")
    assert RetryPolicy.from_env("PERFGATE_NOTIFY").answer_timeout == 7.5
    assert RetryPolicy.from_env("PERFGATE_BENCHER").answer_timeout == RetryPolicy().answer_timeout
    monkeypatch.setenv("PERFGATE_NOTIFY_ANSWER_TIMEOUT", "soon")
    with pytest.raises(PerfgateError, match="PERFGATE_NOTIFY_ANSWER_TIMEOUT='soon': not a number"):
        RetryPolicy.from_env("PERFGATE_NOTIFY")
