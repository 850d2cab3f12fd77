"""A secret URL (a webhook) is hidden by its secret-bearing parts, never by pieces of its scheme,
host or port that any other URL shares (they once masked the Bencher server's address)."""

from __future__ import annotations

import pytest

from perfgate import redact as redact_mod
from perfgate.redact import Secret, redact, register


@pytest.fixture(autouse=True)
def no_known_secrets(monkeypatch):
    monkeypatch.setattr(redact_mod, "_KNOWN", set())


def test_webhook_url_does_not_mask_other_urls_scheme_host_or_port():
    register(Secret("https://hooks.slack.com/services/T0/B0/abcSECRET"))
    assert redact("GET https://127.0.0.1:8099/v0/projects/p/alerts: refused") == \
        "GET https://127.0.0.1:8099/v0/projects/p/alerts: refused"
    register(Secret("http://127.0.0.1:8071/hook/xyzTOKEN123"))
    assert redact("GET http://127.0.0.1:8099/v0/projects/p") == "GET http://127.0.0.1:8099/v0/projects/p"


def test_webhook_url_secret_parts_are_still_hidden_in_every_form():
    url = "https://hooks.slack.com/services/T0/B0/abcSECRET"
    register(Secret(url))
    for shown in (url, url.upper(), "services/T0/B0/abcSECRET", "T0/B0/abcSEC", "%2Fservices%2FT0%2FB0%2FabcSECRET"):
        assert "SECRET" not in redact(f"x {shown} y").upper() and "T0/B0" not in redact(f"x {shown} y")
    assert redact(f"POST {url} failed") == "POST https://hooks.slack.com*** failed"


def test_url_userinfo_and_query_are_secret_a_bare_slash_is_not():
    register(Secret("https://user:pa55word@h.example/?token=abcdefgh123"))
    out = redact("https://user:pa55word@h.example/?token=abcdefgh123 then http://127.0.0.1:8099/v0")
    assert "pa55word" not in out and "abcdefgh123" not in out
    assert out.endswith("then http://127.0.0.1:8099/v0")


def test_a_plain_token_is_still_hidden_whole_and_by_pieces():
    register(Secret("s3cr3t-t0ken-value"))
    assert redact("failed on http://host/s3cr3t-t0ken-value") == "failed on http://host/***"
    assert redact("cut s3cr3t-t0k") == "cut ***"


def test_a_short_path_of_a_secret_url_is_not_masked_everywhere():
    """A webhook registered at http://127.0.0.1:PORT/x (a test's) made "/x" a secret: a later
    server's "http://x" in an error read "http:/***".  Its userinfo stays secret at any length."""
    assert redact("HTTP 500: see http://x", "http://127.0.0.1:8071/x") == "HTTP 500: see http://x"
    assert "pw" not in redact("failed: https://u:pw@127.0.0.1:8071/x", "https://u:pw@127.0.0.1:8071/x")
