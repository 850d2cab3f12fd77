"""A commit status on the culprit commit: ``failure`` for a regression, ``success`` for an
improvement, turned to ``success`` when a regression is acknowledged, undone, or no longer found,
and back to ``failure`` when a regression no longer found is found again.  An update that moves an
alert to another commit (bisect, a takeover, siblings) fails the new commit and turns ``success``
the earlier commits it left failing, saying where it went: GitHub shows a commit's latest status
as current, so the old one would fail for ever.

A status per (commit, context) is replaced by the next one GitHub receives, so a resend is
harmless; the channel still reads the commit's statuses first and skips one already there, so
each event leaves exactly one status.
"""

from __future__ import annotations

from typing import Callable

from perfgate.alert_history import withdrawn_at
from perfgate.model import NARROWED_FROM, Alert
from perfgate.notify import render
from perfgate.notify.base import RefLookup
from perfgate.notify.events import Event, moved
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
    if event.kind in ("raised", "updated"):
        if a.direction == "regression":
            return "failure", f"regression: {change}{p} on {a.branch}"
        return "success", f"improvement: {change}{p} on {a.branch}"
    how = (f"undone at {render.short(event.related.commit)}" if event.reason == "undone"
           else f"no longer found at {render.short(withdrawn_at(a))}" if event.reason == "withdrawn" else "acknowledged")
    return "success", f"regression {change} {how}"


class GitHubStatusChannel(GitHubChannel):
    kind = "github-status"

    def handles(self, event: Event) -> bool:
        if not event.alert.commit:
            return False
        return event.kind in ("raised", "closed", "reopened") or (event.kind == "updated" and moved(event))

    def deliver(self, event: Event, refs: RefLookup) -> str | None:
        a, ctx = event.alert, context(event)
        state, description = state_and_description(event)
        description, url = description[:140], render.trend_url(self.links, a) or None
        self._set(a.commit, ctx, state, description, url,
                  done=lambda shown: shown is not None and (shown.get("state"), shown.get("description")) ==
                  (state, description))
        if event.kind == "updated":
            left = f"{a.direction} {a.measure} {render.pct(a.magnitude)} moved to {render.short(a.commit)}"[:140]
            for old in earlier_commits(a):
                # only a failure it may have left there: a commit it never failed keeps what it shows
                self._set(old, ctx, "success", left, url,
                          done=lambda shown: shown is None or shown.get("state") != "failure")
        return ctx

    def _set(self, sha: str, ctx: str, state: str, description: str, url: str | None,
             done: Callable[[dict | None], bool]) -> None:
        """Set the status unless ``done(the status GitHub shows for ctx there)``; once, even when an
        answer is lost (the statuses are read again before another try)."""
        def shown() -> dict | None:
            # newest first: the first of the context is the one GitHub shows
            return next((s for s in self.gh.statuses(sha) if s.get("context") == ctx), None)

        self.gh.ensure(lambda: True if done(shown()) else None,
                       lambda: self.gh.set_status(sha, state, ctx, description, url))


def earlier_commits(alert: Alert) -> list[str]:
    """Every commit the alert was placed at before its current one (a takeover's, bisect's and a
    narrowing's record): two moves may be told in one update, which names only the last."""
    out: list[str] = []
    for key, field in (("superseded_from", "commit"), ("bisect", "commit_before"), (NARROWED_FROM, "commit")):
        record = alert.details.get(key)
        commit = record.get(field) if isinstance(record, dict) else None
        if isinstance(commit, str) and commit and commit != alert.commit and commit not in out:
            out.append(commit)
    return out
