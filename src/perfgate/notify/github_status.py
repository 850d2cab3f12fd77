"""A commit status on the culprit commit: ``failure`` for a regression, ``success`` for an
improvement, turned to ``success`` when a regression is acknowledged, undone, or no longer found,
and back to ``failure`` when a regression no longer found is found again.

A status per (commit, context) is replaced by the next one GitHub receives, so a resend is
harmless; the channel still reads the commit's statuses first and skips one already there, so
each event leaves exactly one status.
"""

from __future__ import annotations

from perfgate.alert_history import withdrawn_at
from perfgate.notify import render
from perfgate.notify.base import RefLookup
from perfgate.notify.events import Event
from perfgate.notify.github_channel import GitHubChannel
from perfgate.units import p_text


def context(event: Event) -> str:
    a = event.alert
    return f"perfgate/{a.benchmark} [{a.measure}]"[:255]


def state_and_description(event: Event) -> tuple[str, str]:
    a = event.alert
    change = f"{a.measure} {render.pct(a.magnitude)}"
    p = f", {p_text(a.p_value)}" if a.p_value is not None else ""
    if event.kind == "reopened":
        return "failure", f"regression: {change}{p} on {a.branch}, found again"
    if event.kind == "raised":
        if a.direction == "regression":
            return "failure", f"regression: {change}{p} on {a.branch}"
        return "success", f"improvement: {change}{p} on {a.branch}"
    how = (f"undone at {render.short(event.related.commit)}" if event.reason == "undone"
           else f"no longer found at {render.short(withdrawn_at(a))}" if event.reason == "withdrawn" else "acknowledged")
    return "success", f"regression {change} {how}"


class GitHubStatusChannel(GitHubChannel):
    kind = "github-status"

    def handles(self, event: Event) -> bool:
        return event.kind in ("raised", "closed", "reopened") and bool(event.alert.commit)

    def deliver(self, event: Event, refs: RefLookup) -> str | None:
        sha, ctx = event.alert.commit, context(event)
        state, description = state_and_description(event)
        description = description[:140]

        def current() -> str | None:
            for status in self.gh.statuses(sha):
                if status.get("context") == ctx:  # newest first: this is the one GitHub shows
                    return ctx if (status.get("state"), status.get("description")) == (state, description) else None
            return None

        self.gh.ensure(current, lambda: self.gh.set_status(sha, state, ctx, description,
                                                           render.trend_url(self.links, event.alert) or None))
        return ctx
