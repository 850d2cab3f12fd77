"""Keep tokens (and secret URLs such as Slack webhooks) out of everything a user or a log can see.

The one redaction helper of perfgate, shared by the Bencher client and alert delivery.  A secret
lives in a :class:`Secret`, whose ``repr``/``str`` never show it; every message that leaves a
client passes through :func:`redact`, and the ``perfgate.bencher`` and ``perfgate.notify`` loggers
carry a filter that redacts records too (belt and braces: a server may echo the header back).

:func:`redact` hides more than the exact secret, because servers and proxies transform what they
echo: any case, percent-encoded, hex, base64 (standard or URL-safe, at any byte offset, as inside
an encoded ``Authorization`` header), any ``Bearer``/``Basic`` credential whoever's it is, and any
run of at least :data:`MIN_PIECE` characters of the secret — a message cut in the middle of the
secret still shows none of it.  A secret URL (a webhook) is hidden by its secret-bearing parts
only — userinfo, path, query, fragment — never its scheme, host or port: the pieces of
``https://127.0.0.1:80`` it shares with any other URL once masked the Bencher server's address.
"""

from __future__ import annotations

import base64
import functools
import logging
import re
from urllib.parse import quote, urlsplit

from perfgate.errors import PerfgateError

MASK = "***"
_ADJACENT_MASKS = re.compile(f"(?:{re.escape(MASK)}){{2,}}")
# The shortest piece of a secret that is hidden on its own: long enough that ordinary words do
# not trip it, short enough that a cut secret leaves nothing useful.
MIN_PIECE = 8
# Any credential after an HTTP auth scheme, whoever's it is (6+ characters: not "bearer token").
_BEARER = re.compile(r"(?i)\b(bearer|basic)(\s+)[^\s\"',;]{6,}")


class Secret:
    """A string that only :meth:`reveal` gives back."""

    __slots__ = ("_value",)

    def __init__(self, value: str | None):
        self._value = (value or "").strip()  # a token read from a file often ends in a newline

    def reveal(self) -> str:
        return self._value

    def __bool__(self) -> bool:
        return bool(self._value)

    def check_header_safe(self, variable: str) -> None:
        """Refuse a token no HTTP header can carry (not printable ASCII), naming the variable it
        came from, never the token: one pasted with an accented or control character ended
        notify and comment with a traceback from the HTTP client."""
        if not (self._value.isascii() and self._value.isprintable()):
            raise PerfgateError(f"{variable} holds characters no token has (not printable ASCII); set it to the "
                                "token itself")
        # A placeholder ("x", "1", "test"): every message hides the secret wherever it occurs, so
        # GITHUB_TOKEN=1 made a refusal read "HTTP 40***" and every 1 in it "***".  No GitHub or
        # Bencher token is this short (GitHub's are 40 characters and more, Bencher's are JWTs).
        if 0 < len(self._value) < MIN_PIECE:
            raise PerfgateError(f"{variable} holds {len(self._value)} character(s), fewer than any token has (a "
                                "placeholder?); set it to the token itself")

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
    """``text`` as a string with every registered or given secret, in any of the forms above,
    replaced by ``***``."""
    out = _BEARER.sub(lambda m: m.group(1) + m.group(2) + MASK, str(text))
    given = {s.reveal() if isinstance(s, Secret) else s for s in secrets} | _KNOWN
    values = {part for value in given for part in _secret_parts(value)}
    # Longest first, so a secret that contains another is hidden whole.
    for value in sorted(filter(None, values), key=len, reverse=True):
        for pattern in _encodings(value):
            out = pattern.sub(MASK, out)
        out = _mask_pieces(out, value)
    # Two secrets sharing a piece (two tokens with one suffix) mask one secret in two runs:
    # adjacent masks are one hidden value.
    return _ADJACENT_MASKS.sub(MASK, out)


@functools.lru_cache(maxsize=64)
def _secret_parts(value: str) -> tuple[str, ...]:
    """What of ``value`` is secret: all of it, or for an http(s) URL its userinfo and everything
    from the path on (and path and query apart, as messages may quote either alone)."""
    try:
        parts = urlsplit(value)
        parts.port     # a malformed port: not a URL we can split safely
    except ValueError:
        return (value,)
    if parts.scheme.lower() not in ("http", "https") or not parts.netloc or any(c.isspace() for c in value):
        return (value,)
    userinfo = parts.netloc.rpartition("@")[0]
    rest = value[value.index(parts.netloc) + len(parts.netloc):]    # path, query and fragment as written
    # The userinfo is a password whatever its length.  A path or query shorter than MIN_PIECE is
    # no secret worth the cost: masked wherever it occurs, a webhook at ".../x" hid every "/x"
    # (a server's "http://x" in an error read "http:/***"), and a bare "/" every slash.
    found = [p for p in (rest, parts.path, parts.query, parts.fragment) if len(p) >= MIN_PIECE]
    return tuple(p for p in [userinfo, *found] if p)


@functools.lru_cache(maxsize=64)
def _encodings(value: str) -> tuple[re.Pattern[str], ...]:
    """Case-insensitive patterns of the exact, percent-encoded, hex and base64 forms of ``value``."""
    raw = value.encode()
    # hex too: a server echoed a token as hex (an audit), and hex is no encoding a word takes
    forms = {value, quote(value, safe=""), quote(value), raw.hex()}
    for offset in range(3):  # base64 of the secret preceded by 0, 1 or 2 other bytes
        for enc in (base64.b64encode, base64.urlsafe_b64encode):
            text = enc(b"\0" * offset + raw).decode().rstrip("=")
            skip = 4 if offset else 0                           # the group shared with the prefix
            keep = len(text) - len(text) % 4 if (offset + len(raw)) % 3 else len(text)  # partial tail
            piece = text[skip:keep]
            if len(piece) >= MIN_PIECE:
                forms.add(piece)
    # base64 is case-sensitive, but a lower-cased echo of it must go too
    return tuple(re.compile(re.escape(f), re.IGNORECASE) for f in sorted(forms, key=len, reverse=True))


def _mask_pieces(text: str, value: str) -> str:
    """Hide every run of at least MIN_PIECE characters that also occurs in ``value`` (any case)."""
    need = min(MIN_PIECE, len(value))
    low_text, low_value = text.lower(), value.lower()
    spans: list[tuple[int, int]] = []
    i = 0
    while i <= len(text) - need:
        best = 0
        if low_text[i:i + need] in low_value:
            best = need
            while i + best < len(text) and low_text[i:i + best + 1] in low_value:
                best += 1
        if best:
            spans.append((i, i + best))
            i += best
        else:
            i += 1
    for start, end in reversed(spans):
        text = text[:start] + MASK + text[end:]
    return text


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
