"""Where a pull request's perfgate verdict is written, decided without trusting its artifact.

The artifact of a pull-request run is written by the pull request's code, so it may say anything.
Only its *text* is used: the pull request is the single open one whose head is the triggering
run's head SHA from the head repository GitHub reported, the comment updated is one the bot wrote
carrying this job's marker, and any marker inside the text is removed first.
"""

from __future__ import annotations

import re

from perfgate.github.client import GitHub
from perfgate.report.markdown import MAX_CHARS, marker

_MARKER_LINE = re.compile(r"^<!-- perfgate-comment[^\n]*-->\n?", re.MULTILINE)
# The check run's conclusion for each outcome of the action; anything else is an error
# (action_required).  A no verdict is neutral: no pass (never success), no failure of the code.
CONCLUSIONS = {"ok": "success", "regression": "failure", "no-verdict": "neutral"}


def find_pull(gh: GitHub, head_sha: str, head_repo: str) -> int | None:
    matches = [p["number"] for p in gh.open_pulls()
               if p["head"]["sha"] == head_sha and ((p["head"].get("repo") or {}).get("full_name") == head_repo)]
    return matches[0] if len(matches) == 1 else None


def comment_body(job: str, text: str, run_url: str = "") -> str:
    head = marker(job) + "\n"
    tail = f"\n\n[workflow run]({run_url})\n" if run_url else "\n"
    room = MAX_CHARS - len(head) - len(tail)
    text = _MARKER_LINE.sub("", text).rstrip("\n")
    if len(text) > room:
        text = text[:room - 80].rsplit("\n", 1)[0] + "\n\n*(cut to stay under GitHub's comment size limit)*"
    return head + text + tail


def upsert_comment(gh: GitHub, number: int, job: str, body: str, bot: str) -> tuple[str, int]:
    """Update the bot's comment for ``job``, or create it: once, even when a create's answer is lost."""
    mark = marker(job)

    def ours() -> dict | None:
        return next((c for c in gh.comments(number)
                     if (c.get("user") or {}).get("login") == bot and (c.get("body") or "").startswith(mark)), None)

    existing = ours()
    if existing is not None:
        return "updated", gh.update_comment(existing["id"], body)["id"]
    return "created", gh.ensure(ours, lambda: gh.comment(number, body))["id"]
