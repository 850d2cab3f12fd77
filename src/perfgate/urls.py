"""Splitting a URL a user gave (a webhook, a Bencher server) into its parts, or an error they can
act on: ``urlsplit`` raises ``ValueError`` for an unclosed IPv6 bracket, and a port past 65535
only shows when it is read, which ended notify and the Bencher store with a traceback (exit 1, the
code for "regression found"), or spooled the messages as if the target were down.  The URL itself
is never repeated: it may hold a secret."""

from __future__ import annotations

from urllib.parse import SplitResult, urlsplit

from perfgate.errors import PerfgateError


def split_url(url: str, option: str) -> SplitResult:
    """``url``'s parts, its port checked; ``option`` names where it came from in errors."""
    try:
        parts = urlsplit(url)
        parts.port
    except ValueError as e:
        raise PerfgateError(f"{option}: not a usable URL: {e}") from None
    return parts
