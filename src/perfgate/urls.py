"""Splitting a URL a user gave (a webhook, a Bencher server, ``GITHUB_API_URL``) into its parts, or
an error they can act on: ``urlsplit`` raises ``ValueError`` for an unclosed IPv6 bracket, and a
port past 65535 only shows when it is read, which ended notify and the Bencher store with a
traceback (exit 1, the code for "regression found"), or spooled the messages as if the target
were down; a control character reached httpx, whose ``InvalidURL`` was a traceback too.  Neither
the URL nor the parser's message about it is ever repeated: ``http://user:PASSWORD/x`` (the host
forgotten) reads the password as a port, and the parser's message quoted it."""

from __future__ import annotations

import re
from urllib.parse import SplitResult, urlsplit

from perfgate.errors import PerfgateError

_UNSAFE = re.compile(r"[\x00-\x20\x7f]")      # control characters, DEL, spaces: never in a URL


def split_url(url: str, option: str) -> SplitResult:
    """``url``'s parts, an http(s) URL with a host and a usable port; ``option`` names where it
    came from in errors, which never quote it."""
    if _UNSAFE.search(url):
        raise PerfgateError(f"{option}: not a usable URL: it holds a space or a control character")
    try:
        parts = urlsplit(url)
        parts.port
    except ValueError:
        raise PerfgateError(f"{option}: not a usable URL: an unclosed '[', or a port that is not a number "
                            f"from 0 to 65535 (is the host missing before it?)") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise PerfgateError(f"{option}: not a usable URL: expected http(s)://HOST[:PORT]/...")
    return parts


def quoted(spec: str) -> str:
    """``spec`` (a ``--store`` or ``--to``) quoted for an error message, without what of it may be
    secret once it is a URL: its userinfo, path, query and fragment are shown as ``…``, its scheme,
    host and a numeric port kept.  ``--store benchr+https://user:PASSWORD@host/p`` (a typo in the
    scheme) was quoted whole in "unknown store", and a token in a query string with it."""
    scheme, sep, rest = spec.partition("://")
    if not sep:
        return repr(spec)
    authority = re.split(r"[/?#]", rest, maxsplit=1)[0]
    user, at, hostport = authority.rpartition("@")
    if hostport.startswith("["):                    # an IPv6 literal: up to its bracket
        host, close, port = hostport.partition("]")
        host += close
        port = port.removeprefix(":")
    else:
        host, _, port = hostport.partition(":")
    # a port that is no number is no port: in http://user:PASSWORD/x (the host forgotten) it is the password
    shown = f"{scheme}://{'…@' if at else ''}{host}{':' + port if port.isdigit() else ':…' if port else ''}"
    return repr(shown + ("/…" if len(rest) > len(authority) else ""))
