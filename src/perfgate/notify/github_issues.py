"""GitHub issues: one issue per regression alert, a comment when its series regresses again, a
comment and its title and body rewritten to the alert's current figures when a later finding
updates it, a comment and a close when it is acknowledged, undone, or no longer found (withdrawn), and a comment
and a reopening when a withdrawn one is found again.

Exactly once without trusting the ledger alone: each issue body carries a hidden marker with the
alert id, each comment a marker with the event id, and the channel looks for them before
creating anything, so a notifier killed between GitHub's answer and the ledger write finds its
own issue on the next run instead of opening a second one.
"""

from __future__ import annotations

from perfgate.notify import render
from perfgate.notify.base import RefLookup
from perfgate.notify.events import Event
from perfgate.notify.github_channel import GitHubChannel


class GitHubIssuesChannel(GitHubChannel):
    kind = "github-issues"

    def handles(self, event: Event) -> bool:
        return event.alert.direction == "regression"

    def deliver(self, event: Event, refs: RefLookup) -> str | None:
        if event.kind == "raised":
            return str(self._issue_of(event.alert.id, refs, create=event))
        number = self._issue_of(event.alert.id, refs)
        if number is None:  # nothing was ever opened for it (e.g. the channel was added later)
            return None
        marker = render.EVENT_MARKER.format(event.id)
        comment = {"again": render.again_comment, "updated": render.updated_comment,
                   "reopened": render.reopened_comment}.get(event.kind, render.closed_comment)
        body = comment(event, self.links)
        self.gh.ensure(lambda: True if self.gh.has_comment(number, marker) else None,
                       lambda: self.gh.comment(number, body))
        if event.kind == "updated":
            # the issue's title and body say what the alert says now (idempotent): its first figures
            # were kept there, the update only in a comment further down
            self.gh.edit_issue(number, render.title(event.alert), render.issue_body(event.alert, self.links))
        elif event.kind == "closed":
            self.gh.close_issue(number)  # idempotent
        elif event.kind == "reopened":
            self.gh.reopen_issue(number)  # idempotent
        return str(number)

    def _issue_of(self, alert_id: str, refs: RefLookup, create: Event | None = None) -> int | None:
        known = refs(f"{alert_id}:raised")
        if known:
            return int(known)
        marker = render.ALERT_MARKER.format(alert_id)
        if create is None:
            found = self.gh.find_issue(marker)
            return int(found["number"]) if found is not None else None
        alert = create.alert
        issue = self.gh.ensure(lambda: self.gh.find_issue(marker),
                               lambda: self.gh.create_issue(render.title(alert), render.issue_body(alert, self.links)))
        return int(issue["number"])
