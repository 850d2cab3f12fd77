"""How perfgate's HTTP clients (Bencher, alert channels) retry: a bounded number of attempts,
exponential backoff with full jitter, and the server's ``Retry-After`` when it gives one (capped).
A request the target acts on when it arrives (a chat post) waits longer for its answer instead
(``answer_timeout``; :meth:`perfgate.http_client.Http.request` says when it is sent again)."""

from __future__ import annotations

import email.utils
import os
import random
import time
from dataclasses import dataclass

from perfgate.errors import PerfgateError


@dataclass(frozen=True)
class RetryPolicy:
    attempts: int = 5            # total tries, first one included
    backoff: float = 0.5         # seconds, base of the exponential
    max_backoff: float = 8.0
    max_retry_after: float = 60.0
    timeout: float = 10.0        # per request: connect, read, write and pool
    # A request acted on when it arrives: how long its answer may take once it is sent.  Long,
    # since a second copy is a second message (a receiver answering after 30 s got 4 at 10 s).
    answer_timeout: float = 60.0

    @classmethod
    def from_env(cls, prefix: str, attempts: int | None = None) -> "RetryPolicy":
        """Tunable without code: ``{prefix}_{ATTEMPTS,BACKOFF,MAX_BACKOFF,TIMEOUT,ANSWER_TIMEOUT}``; ``attempts``
        is the caller's default when the environment does not say."""
        def num(name: str, default: float) -> float:
            raw = os.environ.get(f"{prefix}_{name}")
            if raw is None:
                return default
            try:
                value = float(raw)
            except ValueError:
                raise PerfgateError(f"{prefix}_{name}={raw!r}: not a number") from None
            if value < 0:
                raise PerfgateError(f"{prefix}_{name}={raw!r}: must not be negative")
            return value

        d = cls()
        return cls(attempts=max(1, int(num("ATTEMPTS", d.attempts if attempts is None else attempts))),
                   backoff=num("BACKOFF", d.backoff), max_backoff=num("MAX_BACKOFF", d.max_backoff),
                   timeout=num("TIMEOUT", d.timeout), answer_timeout=num("ANSWER_TIMEOUT", d.answer_timeout))

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
