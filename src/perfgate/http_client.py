"""HTTP with retries for alert channels and the pull-request comment: backoff with full jitter,
``Retry-After``, errors a user can act on, and nothing secret in any message.

Retried: connection errors, timeouts, dropped connections, 5xx and 429 (the wait is the server's
``Retry-After`` when it gives one).  Not retried: other 4xx, reported with the server's message.
A request the target acts on when it arrives and does not de-duplicate (a chat webhook: Slack
posts every copy whatever its ``Idempotency-Key``) is retried only where it cannot have arrived;
see :meth:`Http.request`.  After the last attempt the caller gets :class:`DeliveryUnreachable`
(notify spools the event).
:func:`read_whole` (a total deadline and a size bound on each answer) and :func:`transport_error`
serve the Bencher client too.
"""

from __future__ import annotations

import random
import time
from typing import Any, Callable

import httpx

from perfgate import __version__, http_deadline
from perfgate.errors import PerfgateError
from perfgate.escape import visible
from perfgate.retry import RetryPolicy, parse_retry_after
from perfgate.redact import redact, redacting_logger

log = redacting_logger("perfgate.notify")
TOTAL_TIMEOUTS = 3          # a request and its whole answer: at most this many request timeouts
MAX_BODY = 32 * 2 ** 20     # GitHub's largest answers here (a page of 100 issues) are well under 1 MiB


class DeliveryError(PerfgateError):
    """A request failed.  Messages are always redacted."""

    def __init__(self, message: str):
        super().__init__(redact(message))


class DeliveryRejected(DeliveryError):
    """The target answered 4xx (not 429): this request is wrong and retrying will not help."""


class DeliveryUnreachable(DeliveryError):
    """Every attempt failed on the network or with 5xx/429.  The last attempt may have reached
    the target; ``retry_after`` is the server's wish, if it said one."""

    def __init__(self, message: str, retry_after: float | None = None):
        super().__init__(message)
        self.retry_after = retry_after


def gave_up(attempts: int, last: str) -> str:
    """How retries ended: a server that answered 429/5xx did answer, so it is not "no answer"."""
    if last.startswith("HTTP "):
        return f"gave up after {attempts} attempt(s); last: {last}"
    return f"no answer after {attempts} attempt(s); last error: {last}"


def transport_error(e: httpx.TransportError) -> str:
    """A network failure as a message: only its class and text, since the exception's chain
    holds the request and its headers."""
    return f"{type(e).__name__}: {e}" if str(e) else type(e).__name__


class AnswerTooLarge(httpx.ReadError):
    """An answer over the reader's size bound (a transport error: alert channels retry it)."""


# Failures before the request was sent whole: the target cannot have acted on it.  Any other
# (a read timeout, a connection dropped after sending) leaves it unknown.
NOT_SENT = (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout, httpx.WriteError, httpx.WriteTimeout,
            httpx.LocalProtocolError, httpx.UnsupportedProtocol, httpx.ProxyError)


def read_whole(client: httpx.Client, method: str, url: str, *, seconds: float, max_body: int,
               **kw: Any) -> httpx.Response:
    """One request, its whole answer read within ``seconds`` and ``max_body`` bytes (raising
    ``httpx.ReadTimeout`` / :class:`AnswerTooLarge`): httpx's read timeout restarts with every
    chunk, so a server sending a byte every half second held a command for ever, and an answer
    of any size was held whole in memory."""
    with http_deadline.deadline(seconds):   # headers too, on a client made with http_deadline.transport()
        try:
            with client.stream(method, url, **kw) as streamed:
                body = bytearray()
                for chunk in streamed.iter_bytes():     # decoded (gzip): the answer below is plain
                    body += chunk
                    if len(body) > max_body:
                        raise AnswerTooLarge(f"the answer is larger than {max_body / 2 ** 20:g} MiB")
                    if http_deadline.expired():
                        raise httpx.ReadTimeout(f"the answer took over {seconds:g} s")
        except httpx.TimeoutException:
            if http_deadline.expired():
                raise httpx.ReadTimeout(f"the answer took over {seconds:g} s") from None
            raise
    headers = [(k, v) for k, v in streamed.headers.multi_items()
               if k.lower() not in ("content-encoding", "content-length", "transfer-encoding")]
    return httpx.Response(streamed.status_code, headers=headers, content=bytes(body), request=streamed.request)


class Http:
    """One target's HTTP client.  ``what`` names it in messages (never with a secret in it)."""

    def __init__(self, what: str, *, base_url: str = "", headers: dict[str, str] | None = None,
                 policy: RetryPolicy | None = None, sleep: Callable[[float], None] = time.sleep,
                 rng: random.Random | None = None):
        self.what = what
        self.policy = policy or RetryPolicy.from_env("PERFGATE_NOTIFY", attempts=4)
        self._sleep, self._rng = sleep, rng or random.Random()
        self._http = httpx.Client(base_url=base_url, timeout=httpx.Timeout(self.policy.timeout),
                                  transport=http_deadline.transport(),
                                  headers={"User-Agent": f"perfgate/{__version__}", **(headers or {})},
                                  follow_redirects=False)

    def close(self) -> None:
        self._http.close()

    def request(self, method: str, url: str, *, json: Any = None, params: dict[str, Any] | None = None,
                headers: dict[str, str] | None = None, retry: bool = True,
                acted_on_arrival: bool = False) -> httpx.Response:
        """The 2xx response, after retries; raises DeliveryRejected / DeliveryUnreachable.
        ``retry=False`` makes one attempt: for a request that must not be repeated blindly
        (creating an issue), whose caller checks what the lost attempt did before trying again.

        ``acted_on_arrival``: the target acts on the request as it arrives and keeps every copy
        (a chat post), and the caller cannot look up what a lost attempt did.  Its answer may take
        ``policy.answer_timeout`` once sent (a slow receiver has usually posted already: sending
        again at a short timeout made one message per attempt).  It is sent again when it cannot
        have been taken (no connection; 429 or 5xx within ``policy.timeout``), once after a
        connection dropped unanswered, a 504 or an error that took longer, and never after its
        answer timed out: the caller keeps it for later.  So at most two attempts are slow, and
        the whole call ends within 2 x (timeout + answer_timeout) + 2 x timeout + the waits."""
        policy, last = self.policy, ""
        attempts = policy.attempts if retry else 1
        where = f"{method} {self.what}" + (f" {url}" if url.startswith("/") else "")
        retry_after, doubted = None, False
        for attempt in range(attempts):
            retry_after, doubt = None, None  # doubt: why the target may have taken this attempt
            started = time.monotonic()
            try:
                response = self._exchange(method, url, acted_on_arrival, json=json, params=params, headers=headers)
            except httpx.TransportError as e:
                last = transport_error(e)
                if not isinstance(e, NOT_SENT):
                    doubt = "timeout" if isinstance(e, httpx.TimeoutException) else "dropped"
            else:
                status = response.status_code
                if status < 300:
                    return response
                message = _message(response)
                if status < 400:  # not followed: an Authorization header would go along
                    raise DeliveryRejected(f"{where}: redirected (HTTP {status}) to "
                                           f"{response.headers.get('location', '?')}; use that URL")
                if status == 429 or status >= 500 or _rate_limited(response):
                    last = f"HTTP {status}: {message}"
                    retry_after = parse_retry_after(response.headers.get("Retry-After"))
                    # a gateway that gave up on the target, or a target that was busy with it (a
                    # slow 429 is not, but counting it keeps the slow attempts, and the time, bounded)
                    if status == 504 or time.monotonic() - started > policy.timeout:
                        doubt = "slow error"
                else:
                    raise DeliveryRejected(f"{where}: refused (HTTP {status}): {message}")
            if acted_on_arrival and doubt is not None:
                if doubt == "timeout" or doubted:
                    raise DeliveryUnreachable(
                        f"{where}: {gave_up(attempt + 1, last)}; not sent again now, since it may have "
                        f"arrived (the target may show every copy)", retry_after)
                doubted = True
            if attempt + 1 < attempts:
                wait = policy.wait(attempt, retry_after, self._rng)
                log.warning("%s failed (%s); retry %d/%d in %.2fs", where, redact(last), attempt + 1,
                            policy.attempts - 1, wait)
                self._sleep(wait)
        raise DeliveryUnreachable(f"{where}: {gave_up(attempts, last)}", retry_after)

    def _exchange(self, method: str, url: str, acted_on_arrival: bool, **kw: Any) -> httpx.Response:
        p = self.policy
        if acted_on_arrival:    # connect and send as usual, then the answer's own wait
            return read_whole(self._http, method, url, seconds=p.timeout + p.answer_timeout, max_body=MAX_BODY,
                              timeout=httpx.Timeout(p.timeout, read=p.answer_timeout), **kw)
        return read_whole(self._http, method, url, seconds=TOTAL_TIMEOUTS * p.timeout, max_body=MAX_BODY, **kw)

    def pause(self, attempt: int, retry_after: float | None = None) -> None:
        """The wait before retry ``attempt`` of a caller's own loop (same policy, same jitter)."""
        self._sleep(self.policy.wait(attempt, retry_after, self._rng))


def _rate_limited(response: httpx.Response) -> bool:
    """GitHub's secondary rate limit answers 403 with Retry-After (or no requests left)."""
    return response.status_code == 403 and (
        "retry-after" in response.headers or response.headers.get("x-ratelimit-remaining") == "0")


def _message(response: httpx.Response) -> str:
    try:
        body = response.json()
    except ValueError:
        body = None
    # Shown in errors and warnings: a server's escape sequences are written out, not sent to the terminal.
    if isinstance(body, dict) and isinstance(body.get("message"), str):
        return visible(redact(body["message"][:300]))
    return visible(redact(response.text.strip()[:300] or response.reason_phrase or "no message"))
