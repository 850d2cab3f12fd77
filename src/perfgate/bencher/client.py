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
import os
import random
import time
from dataclasses import dataclass
from typing import Any, Callable, Iterator

import httpx

from perfgate import __version__
from perfgate.bencher.redact import Secret, log, redact, register
from perfgate.errors import PerfgateError

# uint8 in the API: the largest page a list endpoint serves.
MAX_PER_PAGE = 255


class BencherError(PerfgateError):
    """Any failure talking to Bencher.  Messages are always redacted."""

    def __init__(self, message: str):
        super().__init__(redact(message))


class BencherRejected(BencherError):
    """The server answered 4xx (not 429): the request is wrong, retrying will not help."""

    def __init__(self, method: str, path: str, status: int, server_message: str):
        self.status, self.server_message = status, redact(server_message)
        super().__init__(f"Bencher refused {method} {path} (HTTP {status}): {server_message}")


class BencherUnreachable(BencherError):
    """Every attempt failed on the network or with 5xx/429: the outcome of the last attempt is
    unknown (it may have been applied), so only an idempotent resend is safe."""


@dataclass(frozen=True)
class RetryPolicy:
    attempts: int = 5            # total tries, first one included
    backoff: float = 0.5         # seconds, base of the exponential
    max_backoff: float = 8.0
    max_retry_after: float = 60.0
    timeout: float = 10.0        # per request: connect, read, write and pool

    @classmethod
    def from_env(cls) -> "RetryPolicy":
        """Tunable without code: PERFGATE_BENCHER_{TIMEOUT,ATTEMPTS,BACKOFF,MAX_BACKOFF}."""
        def num(name: str, default: float) -> float:
            raw = os.environ.get(f"PERFGATE_BENCHER_{name}")
            if raw is None:
                return default
            try:
                value = float(raw)
            except ValueError:
                raise PerfgateError(f"PERFGATE_BENCHER_{name}={raw!r}: not a number") from None
            if value < 0:
                raise PerfgateError(f"PERFGATE_BENCHER_{name}={raw!r}: must not be negative")
            return value

        d = cls()
        return cls(attempts=max(1, int(num("ATTEMPTS", d.attempts))), backoff=num("BACKOFF", d.backoff),
                   max_backoff=num("MAX_BACKOFF", d.max_backoff), timeout=num("TIMEOUT", d.timeout))

    def wait(self, attempt: int, retry_after: float | None, rng: random.Random) -> float:
        if retry_after is not None:
            return min(max(retry_after, 0.0), self.max_retry_after)
        return rng.uniform(0, min(self.max_backoff, self.backoff * 2 ** attempt))


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (delta-seconds or an HTTP date)."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


class BencherClient:
    """JSON over HTTP to one Bencher server.  ``token`` may be empty for public reads."""

    def __init__(self, base_url: str, token: Secret | str | None = None, *, policy: RetryPolicy | None = None,
                 sleep: Callable[[float], None] = time.sleep, rng: random.Random | None = None):
        self.base_url = base_url.rstrip("/")
        self.token = token if isinstance(token, Secret) else Secret(token)
        register(self.token)
        self.policy = policy or RetryPolicy.from_env()
        self._sleep, self._rng = sleep, rng or random.Random()
        headers = {"Accept": "application/json", "User-Agent": f"perfgate/{__version__}"}
        if self.token:
            headers["Authorization"] = f"Bearer {self.token.reveal()}"
        self._http = httpx.Client(base_url=self.base_url, headers=headers,
                                  timeout=httpx.Timeout(self.policy.timeout), follow_redirects=False)

    def __repr__(self) -> str:
        return f"BencherClient({self.base_url!r}, token={self.token!r})"

    def close(self) -> None:
        self._http.close()

    # --- one call ------------------------------------------------------------------------------

    def request(self, method: str, path: str, *, json: Any = None, params: dict[str, Any] | None = None) -> Any:
        """The decoded JSON body of a 2xx answer, after retries; raises a :class:`BencherError`."""
        return self._send(method, path, json, params)[0]

    def _send(self, method: str, path: str, body: Any, params: dict[str, Any] | None) -> tuple[Any, httpx.Response]:
        policy, last = self.policy, ""
        for attempt in range(policy.attempts):
            retry_after = None
            try:
                response = self._http.request(method, path, json=body, params=params)
            except httpx.TransportError as e:
                # Only the exception's class and text: its chain holds the request, headers included.
                last = f"{type(e).__name__}: {e}" if str(e) else type(e).__name__
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
        raise BencherUnreachable(f"{method} {self.base_url}{path}: no answer after {policy.attempts} "
                                 f"attempt(s); last error: {last}")

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
            if not isinstance(items, list):
                raise BencherError(f"GET {path}: expected a list, got {type(items).__name__}")
            yield from items
            total = response.headers.get("X-Total-Count")
            seen = (page - 1) * per_page + len(items)
            if len(items) < per_page or (total and total.isdigit() and seen >= int(total)):
                return
            page += 1


def _decode(response: httpx.Response, method: str, path: str) -> Any:
    if not response.content:
        return None
    try:
        return response.json()
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
