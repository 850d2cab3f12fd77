"""The Bencher HTTP client against the fake server: retries, backoff, 4xx handling, redaction."""

from __future__ import annotations

import logging
import random
import time

import pytest
from fake_bencher.fixtures import FAST, TOKEN, fake  # noqa: F401 - fixture
from fake_bencher.fixtures import make_run, make_store
from fake_http import QuietServer

from perfgate.bencher.client import (BencherClient, BencherError, BencherRejected, BencherUnreachable,
                                     RetryPolicy, parse_retry_after)
from perfgate.errors import PerfgateError
from perfgate.bencher.redact import Secret, redact


def runs_posted(fake) -> int:
    return sum(r["op"] == "run_post" for r in fake.requests)


def test_publish_retries_through_500_then_succeeds(fake, tmp_path):
    store = make_store(fake, tmp_path)
    fake.inject("status", method="POST", path="/v0/run", status=503, times=2)
    store.add_runs([make_run(0, 100.0)])
    assert [o.status for o in store.last_outcomes] == ["published"]
    assert runs_posted(fake) == 1  # the two 503s were answered before the route was reached
    assert len(fake.reports_of("demo")) == 1


def test_429_honours_retry_after(fake):
    waits: list[float] = []
    client = BencherClient(fake.url, TOKEN, policy=FAST, sleep=waits.append)
    fake.inject("status", path="/v0/organizations", status=429, retry_after="2")
    assert client.request("GET", "/v0/organizations")[0]["slug"] == "perfgate-org"
    assert waits == [2.0]  # the server's wait, not the drawn backoff


def test_dropped_connection_after_the_work_is_not_duplicated(fake, tmp_path):
    """The server stores the run, then the answer is lost: the resend carries the same
    idempotency key and gets the stored report back instead of a second one."""
    store = make_store(fake, tmp_path)
    fake.inject("drop_after", method="POST", path="/v0/run")
    store.add_runs([make_run(0, 100.0)])
    assert runs_posted(fake) == 2
    assert len(fake.reports_of("demo")) == 1
    assert store.last_outcomes[0].report == fake.reports_of("demo")[0]["uuid"]


def test_hang_past_timeout_is_retried(fake):
    policy = RetryPolicy(attempts=3, backoff=0.01, max_backoff=0.01, timeout=0.3)
    client = BencherClient(fake.url, TOKEN, policy=policy)
    fake.inject("hang", path="/v0/organizations", seconds=5)
    started = time.monotonic()
    assert client.request("GET", "/v0/organizations")
    assert 0.3 <= time.monotonic() - started < 3


def test_gives_up_after_all_attempts_with_unknown_outcome(fake):
    client = BencherClient(fake.url, TOKEN, policy=FAST)
    fake.down = True
    with pytest.raises(BencherUnreachable, match="no answer after 4 attempt"):
        client.request("GET", "/v0/organizations")


def test_4xx_is_not_retried_and_shows_the_server_message(fake, tmp_path):
    store = make_store(fake, tmp_path)
    bad = make_run(0, 100.0)
    bad.commit = "not-a-git-hash"
    store.add_runs([bad])
    (outcome,) = store.last_outcomes
    assert outcome.status == "rejected"
    assert "HTTP 400" in outcome.reason and "Failed to parse git hash" in outcome.reason
    assert "not-a-git-hash" in outcome.reason
    assert runs_posted(fake) == 1
    assert not list((tmp_path / "spool").glob("*.json"))  # a refused run is not spooled for a resend
    assert list((tmp_path / "spool" / "rejected").glob("*.reason.txt"))  # but set aside with its reason


def test_backoff_is_exponential_with_full_jitter():
    policy = RetryPolicy(backoff=0.5, max_backoff=8.0)
    rng = random.Random(7)
    for attempt in range(8):
        cap = min(8.0, 0.5 * 2 ** attempt)
        draws = [policy.wait(attempt, None, rng) for _ in range(200)]
        assert all(0 <= d <= cap for d in draws)
        assert max(draws) > 0.8 * cap and min(draws) < 0.2 * cap  # spread over the whole range
    assert policy.wait(3, 120.0, rng) == policy.max_retry_after


def test_parse_retry_after():
    assert parse_retry_after("5") == 5.0
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT", now=1445412470.0) == pytest.approx(10.0)
    assert parse_retry_after("soon") is None and parse_retry_after(None) is None


def test_token_never_leaks(fake, caplog):
    """A wrong token: the server echoes the Authorization header in its 401 message (some
    proxies do); the exception, its repr and the retry logs still hide it."""
    wrong = "bencher-wrong-token-0123456789abcdef"
    client = BencherClient(fake.url, Secret(wrong), policy=FAST)
    assert wrong not in repr(client) and wrong not in repr(client.token) and wrong not in str(client.token)
    caplog.set_level(logging.DEBUG)
    with pytest.raises(BencherRejected) as e:
        client.request("GET", "/v0/organizations")
    assert e.value.status == 401
    assert "Invalid token" in str(e.value) and "***" in str(e.value)
    for text in (str(e.value), repr(e.value), e.value.server_message, *map(str, e.value.args)):
        assert wrong not in text
    assert e.value.__cause__ is None and e.value.__context__ is None or wrong not in repr(e.value.__context__)
    fake.inject("status", path="/v0/organizations", status=500, times=2)
    ok = BencherClient(fake.url, Secret(TOKEN), policy=FAST)
    ok.request("GET", "/v0/organizations")
    assert any("retry" in r.getMessage() for r in caplog.records)
    assert all(wrong not in r.getMessage() and TOKEN not in r.getMessage() for r in caplog.records)
    assert redact(f"x {wrong} y") == "x *** y"


def test_the_fake_validates_against_openapi(fake):
    """The fake is only worth something if it refuses what the real API would not accept, and
    notices when its own answers drift from the schema."""
    from fake_bencher.server import api

    client = BencherClient(fake.url, TOKEN, policy=FAST)
    with pytest.raises(BencherRejected) as e:
        client.request("POST", "/v0/run", json={"results": ["{}"], "start_time": "2025-01-01T00:00:00Z",
                                                "end_time": "yesterday", "idempotency_key": "abc", "hashh": "x"})
    assert e.value.status == 400
    problems, fake.problems[:] = list(fake.problems), []
    assert any("end_time" in p for p in problems) and any("idempotency_key" in p for p in problems)
    assert any("'hashh' was unexpected" in p for p in problems)
    op, _ = api().match("GET", "/v0/projects/x/perf")
    assert api().check_response(op, 200, {"project": {}, "results": []}, {})  # missing fields and headers
    assert api().check_response(op, 404, {"message": "gone", "request_id": "r"}, {
        "access-control-allow-headers": "", "access-control-allow-methods": "", "access-control-allow-origin": "",
        "access-control-expose-headers": "", "x-total-count": "1"}) == []


def test_connection_refused_spools_the_run(tmp_path):
    import socket

    from perfgate.bencher.spool import Spool
    from perfgate.store.bencher import BencherStore

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}"
    store = BencherStore(url, "demo", client=BencherClient(url, TOKEN, policy=FAST), spool=Spool(tmp_path),
                         thresholds=None)
    store.add_runs([make_run(0, 100.0)])
    assert store.last_outcomes[0].status == "spooled"
    assert "ConnectError" in store.last_flush.error and TOKEN not in store.last_flush.error
    (entry,) = Spool(tmp_path).pending(f"{url}/demo")
    assert entry.body["hash"] == make_run(0, 100.0).commit


def test_missing_token_says_how_to_give_one(fake):
    with pytest.raises(BencherRejected, match="set BENCHER_API_TOKEN"):
        BencherClient(fake.url, None, policy=FAST).request("GET", "/v0/organizations")
    assert BencherClient(fake.url, Secret(TOKEN + "\n"), policy=FAST).request("GET", "/v0/organizations")


class _Bad(__import__("http.server").server.BaseHTTPRequestHandler):
    """A server that answers slowly or hugely (an audit's cases)."""

    def log_message(self, *args) -> None:
        pass

    def do_GET(self) -> None:
        if self.path.startswith("/header-drip"):    # the status line, then a header byte every 0.1 s
            self.wfile.write(b"HTTP/1.1 200 OK\r\nX-Pad: ")
            for _ in range(400):
                self.wfile.write(b"a")
                self.wfile.flush()
                time.sleep(0.1)
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        if self.path.startswith("/drip"):       # headers at once, then a byte every 0.1 s
            self.send_header("Content-Length", "100000")
            self.end_headers()
            for _ in range(400):
                self.wfile.write(b" ")
                self.wfile.flush()
                time.sleep(0.1)
        else:                                   # 3 MiB of a JSON list
            body = b"[" + b"0," * (3 * 2 ** 19) + b"0]"
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)


@pytest.fixture(scope="module")
def bad_server():
    import threading

    srv = QuietServer(("127.0.0.1", 0), _Bad)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{srv.server_port}"
    srv.shutdown()


@pytest.mark.parametrize("path", ["/drip", "/header-drip"])
def test_an_answer_trickling_in_ends_at_a_total_deadline(bad_server, path):
    # The timeout applied between bytes only: a byte every 0.1 s held a command 61 s.
    client = BencherClient(bad_server, TOKEN, policy=RetryPolicy(attempts=2, backoff=0, timeout=0.5))
    began = time.monotonic()
    with pytest.raises(BencherUnreachable, match=rf"GET .*{path}: .*ReadTimeout: the answer took over 1.5 s"):
        client.request("GET", path)
    assert time.monotonic() - began < 5      # 2 attempts of 3 timeouts each, not 40 s


def test_an_answer_over_the_size_bound_is_refused_naming_the_request(bad_server, monkeypatch):
    monkeypatch.setenv("PERFGATE_BENCHER_MAX_ANSWER_MIB", "2")
    client = BencherClient(bad_server, TOKEN, policy=FAST)
    with pytest.raises(BencherError, match=r"GET /v0/huge: the answer is larger than 2 MiB") as info:
        client.request("GET", "/v0/huge")
    assert not isinstance(info.value, BencherUnreachable)     # not retried: it would be as large again
    monkeypatch.setenv("PERFGATE_BENCHER_MAX_ANSWER_MIB", "4")
    assert len(BencherClient(bad_server, TOKEN, policy=FAST).request("GET", "/v0/huge")) == 3 * 2 ** 19 + 1
    monkeypatch.setenv("PERFGATE_BENCHER_MAX_ANSWER_MIB", "lots")
    with pytest.raises(PerfgateError, match="PERFGATE_BENCHER_MAX_ANSWER_MIB='lots'"):
        BencherClient(bad_server, TOKEN, policy=FAST)


def test_a_server_that_answered_5xx_is_not_said_to_have_given_no_answer(fake):
    client = BencherClient(fake.url, TOKEN, policy=FAST)
    fake.inject("status", path="/v0/organizations", status=500, times=4)
    with pytest.raises(BencherUnreachable, match=r"gave up after 4 attempt\(s\); last: HTTP 500: injected HTTP 500") \
            as info:
        client.request("GET", "/v0/organizations")
    assert "no answer" not in str(info.value)
