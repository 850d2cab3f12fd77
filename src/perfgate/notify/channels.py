"""``--channel SPEC`` → a channel: ``webhook:URL``, ``github-issues:OWNER/REPO``,
``github-status:OWNER/REPO``, ``github-commit-comment:OWNER/REPO``.

``webhook:env:NAME`` reads the URL from the environment variable ``NAME``: a webhook URL is a
secret, and a command line is visible to every process on the machine.  When ``NAME`` is unset or
empty the channel is skipped (with a note), so one workflow line serves repositories with and
without a webhook configured.
"""

from __future__ import annotations

import os
from typing import Any

from perfgate.errors import InputError
from perfgate.notify.base import Channel, Links

KINDS = ("webhook", "github-issues", "github-status", "github-commit-comment")


def parse_channel(spec: str, links: Links, **kw: Any) -> Channel | None:
    """The channel, or None for a ``webhook:env:NAME`` whose variable is not set."""
    kind, sep, target = spec.partition(":")
    if not sep or not target or kind not in KINDS:
        # The spec may be a secret webhook URL: name only the part before the colon.
        raise InputError("--channel", kind or "?", f"expected one of {', '.join(k + ':...' for k in KINDS)}")
    if kind == "webhook":
        from perfgate.notify.webhook import WebhookChannel

        if target.startswith("env:"):
            target = os.environ.get(target.removeprefix("env:"), "").strip()
            if not target:
                return None
        return WebhookChannel(target, links, **{k: v for k, v in kw.items() if k in ("policy", "sleep", "rng")})
    if kind == "github-issues":
        from perfgate.notify.github_issues import GitHubIssuesChannel

        return GitHubIssuesChannel(target, links, **kw)
    if kind == "github-commit-comment":
        from perfgate.notify.github_commit_comment import GitHubCommitCommentChannel

        return GitHubCommitCommentChannel(target, links, **kw)
    from perfgate.notify.github_status import GitHubStatusChannel

    return GitHubStatusChannel(target, links, **kw)
