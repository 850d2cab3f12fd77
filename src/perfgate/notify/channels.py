"""``--channel SPEC`` → a channel: ``webhook:URL``, ``github-issues:OWNER/REPO``,
``github-status:OWNER/REPO``."""

from __future__ import annotations

from typing import Any

from perfgate.errors import InputError
from perfgate.notify.base import Channel, Links

KINDS = ("webhook", "github-issues", "github-status")


def parse_channel(spec: str, links: Links, **kw: Any) -> Channel:
    kind, sep, target = spec.partition(":")
    if not sep or not target or kind not in KINDS:
        # The spec may be a secret webhook URL: name only the part before the colon.
        raise InputError("--channel", kind or "?", f"expected one of {', '.join(k + ':...' for k in KINDS)}")
    if kind == "webhook":
        from perfgate.notify.webhook import WebhookChannel

        return WebhookChannel(target, links, **{k: v for k, v in kw.items() if k in ("policy", "sleep", "rng")})
    if kind == "github-issues":
        from perfgate.notify.github_issues import GitHubIssuesChannel

        return GitHubIssuesChannel(target, links, **kw)
    from perfgate.notify.github_status import GitHubStatusChannel

    return GitHubStatusChannel(target, links, **kw)
