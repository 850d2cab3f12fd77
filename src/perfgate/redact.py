"""Keep tokens (and secret URLs such as Slack webhooks) out of everything a user or a log can see.

The one redaction helper of perfgate, shared by the Bencher client and alert delivery.  A secret
lives in a :class:`Secret`, whose ``repr``/``str`` never show it; every message that leaves a
client passes through :func:`redact`, and the ``perfgate.bencher`` and ``perfgate.notify`` loggers
carry a filter that redacts records too (belt and braces: a server may echo the header back).
"""

from __future__ import annotations

import logging

MASK = "***"


class Secret:
    """A string that only :meth:`reveal` gives back."""

    __slots__ = ("_value",)

    def __init__(self, value: str | None):
        self._value = (value or "").strip()  # a token read from a file often ends in a newline

    def reveal(self) -> str:
        return self._value

    def __bool__(self) -> bool:
        return bool(self._value)

    def __repr__(self) -> str:
        return "Secret('***')" if self._value else "Secret('')"

    __str__ = __repr__

    def __reduce__(self):  # refuse to be pickled with the value inside
        raise TypeError("a Secret cannot be pickled")


_KNOWN: set[str] = set()


def register(secret: Secret) -> None:
    """Remember a secret so :func:`redact` hides it from every message, wherever it was built."""
    if secret.reveal():
        _KNOWN.add(secret.reveal())


def redact(text: object, *secrets: Secret | str) -> str:
    """``text`` as a string with every registered or given secret replaced by ``***``."""
    out = str(text)
    values = {s.reveal() if isinstance(s, Secret) else s for s in secrets} | _KNOWN
    # Longest first, so a secret that contains another is hidden whole.
    for value in sorted(filter(None, values), key=len, reverse=True):
        out = out.replace(value, MASK)
    return out


class RedactingFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        cleaned = redact(message)
        if cleaned != message:
            record.msg, record.args = cleaned, None
        return True


def redacting_logger(name: str) -> logging.Logger:
    """The logger ``name`` with a :class:`RedactingFilter` (added once)."""
    logger = logging.getLogger(name)
    if not any(isinstance(f, RedactingFilter) for f in logger.filters):
        logger.addFilter(RedactingFilter())
    return logger
