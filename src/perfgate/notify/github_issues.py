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
from perfgate.http_client import DeliveryRejected
from perfgate.notify.base import PartlyDelivered, RefLookup
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
        refused: list[DeliveryRejected] = []

        def post() -> bool:
            # Only the comment's own refusal (a locked issue: 403) is kept; a refused look-up is the
            # delivery's, as before.
            try:
                self.gh.comment(number, body)
            except DeliveryRejected as e:
                refused.append(e)
            return True

        self.gh.ensure(lambda: True if self.gh.has_comment(number, marker) else None, post)
        if event.kind == "updated":
            # the issue's title and body say what the alert says now (idempotent): its first figures
            # were kept there, the update only in a comment further down
            self.gh.edit_issue(number, render.title(event.alert), render.issue_body(event.alert, self.links))
            done = "the issue's title and body were rewritten"
        elif event.kind == "closed":
            self.gh.close_issue(number)  # idempotent
            done = "the issue was closed"
        elif event.kind == "reopened":
            self.gh.reopen_issue(number)  # idempotent
            done = "the issue was reopened"
        elif refused and self._locked(event.alert.id):
            raise PartlyDelivered(str(number), f"{refused[0]}; the issue is locked, so it was not told")
        elif refused:
            raise refused[0]   # the comment is all a regression found again delivers: the next run tries again
        if refused:
            # the state change above is what matters: a locked issue must not stay open for ever
            raise PartlyDelivered(str(number), f"{refused[0]}; {done} without that comment")
        return str(number)

    def _locked(self, alert_id: str) -> bool:
        found = self.gh.find_issue(render.ALERT_MARKER.format(alert_id))
        return found is not None and found.get("locked") is True

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
