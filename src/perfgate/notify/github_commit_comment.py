"""A comment on the culprit commit (github-action-benchmark's ``comment-on-alert``): GitHub shows
it on the commit's page and notifies the commit's author, the person most likely to know why
it got slower.  A regression raised (or found again) gets the issue's evidence; its close gets a
short comment saying how it closed.

Exactly once without trusting the ledger alone: each comment carries a hidden marker with the
event id, and the channel lists the commit's comments for it before posting, so a notifier killed
between GitHub's answer and the ledger write finds its comment instead of posting a second one.
"""

from __future__ import annotations

from perfgate.notify import render
from perfgate.notify.base import RefLookup
from perfgate.notify.events import Event, moved
from perfgate.notify.github_channel import GitHubChannel

TOLD = ("raised", "reopened", "closed")


class GitHubCommitCommentChannel(GitHubChannel):
    kind = "github-commit-comment"

    def handles(self, event: Event) -> bool:
        # Improvements get no comment: it would notify an author who has nothing to do, and
        # comments that ask nothing teach people to skip perfgate's.  The regression an
        # improvement undoes hears of it on its own commit ("A later change undid it").
        # "again" neither: the new regression is raised on its own commit, and the earlier
        # commit's author has nothing new to act on (the watchers hear of it).
        a = event.alert
        if a.direction != "regression" or not a.commit:
            return False
        return event.kind in TOLD or (event.kind == "updated" and moved(event))

    def deliver(self, event: Event, refs: RefLookup) -> str | None:
        sha, marker = event.alert.commit, render.EVENT_MARKER.format(event.id)
        comment = render.commit_closed_comment if event.kind == "closed" else render.commit_comment
        body = comment(event, self.links)
        posted = self.gh.ensure(lambda: self.gh.find_commit_comment(sha, marker),
                                lambda: self.gh.comment_on_commit(sha, body))
        return str(posted["id"])


