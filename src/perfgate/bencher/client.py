"""HTTP to a Bencher server: timeouts, retries with backoff and jitter, errors a user can act on.

Retried: connection errors, timeouts, dropped connections, 5xx and 429 (honouring
``Retry-After``).  Never retried: other 4xx — the request itself is wrong, so the server's own
message is reported instead.  The wait before retry *n* (0-based) is "full jitter" backoff,

    wait_n ~ Uniform(0, min(max_backoff, backoff * 2**n)),

which spreads many CI jobs hitting a recovering server over time instead of in waves.  A
``Retry-After`` from the server replaces the drawn wait (capped at ``max_retry_after``).
"""

from __future__ import annotations

import email.utils
import functools
import json
import math
import os
import random
import re
import time
from typing import Any, Callable, Iterator, TypeVar

import httpx

from perfgate import __version__, http_deadline
from perfgate.bencher.redact import Secret, log, redact, register
from perfgate.errors import PerfgateError
from perfgate.http_client import TOTAL_TIMEOUTS, AnswerTooLarge, gave_up, read_whole, transport_error
from perfgate.retry import RetryPolicy, parse_retry_after  # noqa: F401  (re-exported: the client's policy)

DEFAULT_MAX_ANSWER_MIB = 64
# uint8 in the API: the largest page a list endpoint serves.
MAX_PER_PAGE = 255
UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
_F = TypeVar("_F", bound=Callable[..., Any])


class BencherError(PerfgateError):
    """Any failure talking to Bencher.  Messages are always redacted."""

    def __init__(self, message: str):
        super().__init__(redact(message))


class BencherRejected(BencherError):
    """The server answered 4xx (not 429): the request is wrong, retrying will not help."""

    def __init__(self, method: str, path: str, status: int, server_message: str):
        self.method, self.path = method, path
        self.status, self.server_message = status, redact(server_message)
        super().__init__(f"Bencher refused {method} {path} (HTTP {status}): {server_message}")


class BencherShapeError(BencherError):
    """A 2xx answer that is not what Bencher's API promises (a list for an object, a field
    missing or of the wrong type): the server is not a Bencher server, or a proxy mangled it."""


def shaped(what: str) -> Callable[[_F], _F]:
    """Turn the KeyError/TypeError/... that reading an unexpected answer raises into a
    :class:`BencherShapeError` naming ``what`` was being read."""
    def wrap(fn: _F) -> _F:
        @functools.wraps(fn)
        def inner(*args: Any, **kw: Any) -> Any:
            try:
                return fn(*args, **kw)
            except (KeyError, TypeError, AttributeError, IndexError, ValueError) as e:
                detail = f"field {e}" if isinstance(e, KeyError) else type(e).__name__
                raise BencherShapeError(f"Bencher's answer while reading {what} is not shaped as its API "
                                        f"says ({detail}); is the URL a Bencher API server?") from None
        return inner  # type: ignore[return-value]
    return wrap


def require_uuid(value: Any, what: str) -> str:
    """``value`` when it is a UUID; never echoes it otherwise (it may hold anything)."""
    if not isinstance(value, str) or not UUID.match(value):
        raise BencherShapeError(f"Bencher's answer gives {what} that is not a UUID")
    return value


class BencherUnreachable(BencherError):
    """Every attempt failed on the network or with 5xx/429: the outcome of the last attempt is
    unknown (it may have been applied), so only an idempotent resend is safe."""


def max_answer_bytes() -> int:
    """The largest answer read (``PERFGATE_BENCHER_MAX_ANSWER_MIB``, default 64 MiB).  The largest
    answers perfgate asks for are ``/perf`` queries of at most 255 series of one branch and
    testbed, about 0.7 KB a point: 64 MiB is some 90,000 points in one answer, and a list
    page (255 items) is well under 1 MiB.  A server sending more was read whole (a 200 MB answer
    held 634 MB)."""
    raw = os.environ.get("PERFGATE_BENCHER_MAX_ANSWER_MIB")
    try:
        mib = float(raw) if raw is not None else DEFAULT_MAX_ANSWER_MIB
    except ValueError:
        mib = -1.0
    if not mib > 0:
        raise PerfgateError(f"PERFGATE_BENCHER_MAX_ANSWER_MIB={raw!r}: expected a positive number of MiB")
    return int(mib * 2 ** 20)


class BencherClient:
    """JSON over HTTP to one Bencher server.  ``token`` may be empty for public reads."""

    def __init__(self, base_url: str, token: Secret | str | None = None, *, policy: RetryPolicy | None = None,
                 sleep: Callable[[float], None] = time.sleep, rng: random.Random | None = None):
        self.base_url = base_url.rstrip("/")
        self.token = token if isinstance(token, Secret) else Secret(token)
        # checked first: its errors name the variable only, and a refused placeholder ("1") left
        # registered would hide every "1" of the process's later messages
        self.token.check_header_safe("BENCHER_API_TOKEN")   # empty (public reads) passes
        register(self.token)
        self.policy = policy or RetryPolicy.from_env("PERFGATE_BENCHER")
        self.max_answer = max_answer_bytes()
        self._sleep, self._rng = sleep, rng or random.Random()
        headers = {"Accept": "application/json", "User-Agent": f"perfgate/{__version__}"}
        if self.token:
            headers["Authorization"] = f"Bearer {self.token.reveal()}"
        self._http = httpx.Client(base_url=self.base_url, headers=headers, transport=http_deadline.transport(),
                                  timeout=httpx.Timeout(self.policy.timeout), follow_redirects=False)

    def __repr__(self) -> str:
        return f"BencherClient({self.base_url!r}, token={self.token!r})"

    def close(self) -> None:
        self._http.close()

    # --- one call ------------------------------------------------------------------------------

    def request(self, method: str, path: str, *, json: Any = None, params: dict[str, Any] | None = None,
                expect: type | None = None) -> Any:
        """The decoded JSON body of a 2xx answer, after retries; raises a :class:`BencherError`
        (a :class:`BencherShapeError` when ``expect`` is given and the body is not of that type)."""
        body = self._send(method, path, json, params)[0]
        if expect is not None and not isinstance(body, expect):
            raise BencherShapeError(f"{method} {path}: Bencher answered HTTP 2xx with a JSON "
                                    f"{_json_kind(body)} where its API gives a JSON {_json_kind(expect())}")
        return body

    def request_dated(self, method: str, path: str, *, json: Any = None) -> tuple[dict, float | None]:
        """A JSON object answer and the server's own clock (its ``Date`` header, epoch seconds)."""
        body, response = self._send(method, path, json, None)
        if not isinstance(body, dict):
            raise BencherShapeError(f"{method} {path}: Bencher answered HTTP 2xx with a JSON {_json_kind(body)} "
                                    "where its API gives a JSON object")
        try:
            date = email.utils.parsedate_to_datetime(response.headers.get("date", "")).timestamp()
        except (TypeError, ValueError):
            date = None
        return body, date

    def _send(self, method: str, path: str, body: Any, params: dict[str, Any] | None) -> tuple[Any, httpx.Response]:
        policy, last = self.policy, ""
        for attempt in range(policy.attempts):
            retry_after = None
            try:
                response = read_whole(self._http, method, path, seconds=TOTAL_TIMEOUTS * policy.timeout,
                                      max_body=self.max_answer, json=body, params=params)
            except AnswerTooLarge as e:   # not retried: the same question gets the same answer
                raise BencherError(f"{method} {path}: {e}, more than any Bencher answer perfgate asks for; "
                                   f"is the URL a Bencher API server? (PERFGATE_BENCHER_MAX_ANSWER_MIB raises "
                                   "the bound)") from None
            except httpx.TransportError as e:
                last = transport_error(e)
            else:
                status = response.status_code
                if status < 300:
                    return _decode(response, method, path), response
                if status < 400:  # redirects are not followed: the Authorization header would go along
                    raise BencherError(f"{method} {path}: the server redirects (HTTP {status}) to "
                                       f"{response.headers.get('location', '?')}; use that URL in --store/--to")
                message = _server_message(response)
                if status == 429 or status >= 500:
                    last = f"HTTP {status}: {message}"
                    retry_after = parse_retry_after(response.headers.get("Retry-After"))
                else:
                    if status == 401 and not self.token:
                        message += " (no token given: set BENCHER_API_TOKEN)"
                    raise BencherRejected(method, path, status, message)
            if attempt + 1 < policy.attempts:
                wait = policy.wait(attempt, retry_after, self._rng)
                log.warning("%s %s failed (%s); retry %d/%d in %.2fs", method, path, redact(last),
                            attempt + 1, policy.attempts - 1, wait)
                self._sleep(wait)
        raise BencherUnreachable(f"{method} {self.base_url}{path}: {gave_up(policy.attempts, last)}")

    # --- lists ---------------------------------------------------------------------------------

    def list_all(self, path: str, params: dict[str, Any] | None = None) -> list[dict]:
        """Every item of a paged list endpoint (pages of 255, the API's largest)."""
        return list(self.iter_pages(path, params))

    def iter_pages(self, path: str, params: dict[str, Any] | None = None,
                   per_page: int = MAX_PER_PAGE) -> Iterator[dict]:
        """Items of a paged list endpoint, page by page (pages are numbered from 1), until a short
        page or ``X-Total-Count`` says there are no more."""
        per_page = max(1, min(per_page, MAX_PER_PAGE))
        page = 1
        while True:
            items, response = self._send("GET", path, None, {**(params or {}), "per_page": per_page, "page": page})
            if not isinstance(items, list) or not all(isinstance(i, dict) for i in items):
                raise BencherShapeError(f"GET {path}: Bencher answered HTTP 2xx with a JSON {_json_kind(items)} "
                                        "where its API gives a list of objects")
            yield from items
            total = response.headers.get("X-Total-Count")
            seen = (page - 1) * per_page + len(items)
            if len(items) < per_page or (total and total.isdigit() and seen >= int(total)):
                return
            page += 1


def _json_kind(value: Any) -> str:
    return {dict: "object", list: "list", str: "string", bool: "boolean", int: "number", float: "number",
            type(None): "null"}.get(type(value), type(value).__name__)


class _NotFinite(ValueError):
    pass


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):     # 1e999 reads as inf
        raise _NotFinite(text)
    return value


def _finite_int(text: str) -> int:
    value = int(text)
    if len(text) > 300:
        try:
            float(value)
        except OverflowError:        # no float holds it: every use of it as a value would fail
            raise _NotFinite(text) from None
    return value


def _refuse_constant(text: str) -> float:
    raise _NotFinite(text)           # NaN, Infinity, -Infinity: Python's json takes them, the API never sends them


def _decode(response: httpx.Response, method: str, path: str) -> Any:
    if not response.content:
        return None
    try:
        return json.loads(response.content, parse_float=_finite_float, parse_int=_finite_int,
                          parse_constant=_refuse_constant)
    except _NotFinite as e:
        # A NaN reached detection as a value and ended it with an AttributeError (exit 3).
        raise BencherShapeError(f"{method} {path}: Bencher's answer holds a number that is not finite "
                                f"({str(e)[:20]}); is the URL a Bencher API server?") from None
    except ValueError:
        raise BencherError(f"{method} {path}: answer is not JSON "
                           f"(HTTP {response.status_code}, {response.headers.get('content-type', '?')})") from None


def _server_message(response: httpx.Response) -> str:
    """Bencher's ``Error.message`` when the body is one, else the start of the body."""
    try:
        body = response.json()
    except ValueError:
        body = None
    if isinstance(body, dict) and isinstance(body.get("message"), str):
        code = body.get("error_code")
        return f"{body['message']}" + (f" [{code}]" if code else "")
    text = response.text.strip()
    return (text[:300] or response.reason_phrase or "no message")
