"""Deliver the store's alerts to people: GitHub issues, a commit status, a comment on the culprit
commit, a webhook (Slack-ready).

Each alert event (raised, regressed again, closed) reaches each channel exactly once: a ledger
remembers what was delivered, and the channels find their own earlier work (a marker in the
issue, an idempotency key) when a run died between sending and recording.  A target that stays
down gets its events spooled and sent, in order, by a later run.
"""

from __future__ import annotations

import argparse
import functools
import os
from pathlib import Path

from perfgate.escape import terminal

from perfgate.commands._common import store_from
from perfgate.errors import EXIT_OK, EXIT_USAGE, PerfgateError
from perfgate.gitinfo import commit_subject, commits_after
from perfgate.output import actions_warning, emit_json, err, out

NAME = "notify"
HELP = "deliver alerts (new, again, closed) to GitHub issues, commit statuses, commit comments and webhooks, exactly once"
ORDER = 46
EPILOG = """channels (repeat --channel):
  webhook:URL                  POST JSON with a Slack-compatible "text" field (the URL is kept secret)
  webhook:env:NAME             the same, URL read from $NAME (kept off the command line; skipped when unset)
  github-issues:OWNER/REPO     one issue per regression; comments when it recurs; closed when resolved
  github-status:OWNER/REPO     a commit status on the culprit commit
  github-commit-comment:OWNER/REPO
                               a comment on the culprit commit (its author is notified) for each regression
                               raised or found again, and one when it closes (github-action-benchmark's
                               comment-on-alert); improvements get none

environment:
  GITHUB_TOKEN                 token for the github channels (never printed, logged or spooled)
  GITHUB_API_URL               API base (default https://api.github.com)
  PERFGATE_NOTIFY_LEDGER       default for --ledger
  PERFGATE_NOTIFY_TIMEOUT      seconds to connect, send, and for a GitHub answer (default 10)
  PERFGATE_NOTIFY_ANSWER_TIMEOUT
                               seconds a webhook's answer may take once sent (default 60). A chat
                               posts every copy: a webhook is sent again where it cannot have arrived,
                               once after a dropped connection, never after this wait (its event
                               waits for the next run)
  PERFGATE_NOTIFY_ATTEMPTS     tries per request (default 4); _BACKOFF, _MAX_BACKOFF: their waits
  PERFGATE_NOTIFY_BUDGET       seconds a channel may take in one run (default 300); its later
                               events wait, in order, for the next run

examples:
  perfgate notify --channel webhook:env:SLACK_WEBHOOK_URL
  perfgate notify --channel github-issues:me/proj --channel github-status:me/proj \\
      --pages-url https://me.github.io/proj --repo-url https://github.com/me/proj --json"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--channel", metavar="SPEC", action="append", default=[],
                   help="where to deliver: webhook:URL, github-issues:OWNER/REPO, github-status:OWNER/REPO, "
                        "github-commit-comment:OWNER/REPO")
    p.add_argument("--pages-url", default=os.environ.get("PERFGATE_PAGES_URL", ""),
                   help="base URL of the trend pages, for links to a series (default: $PERFGATE_PAGES_URL)")
    p.add_argument("--repo-url", default="", help="repository URL, for commit and range links "
                   "(e.g. https://github.com/OWNER/REPO)")
    p.add_argument("--skip-closed", action="store_true",
                   help="record the events of alerts closed already (acknowledged, undone or no longer found) "
                        "as delivered without sending them: a new or rotated channel (a new webhook URL) starts from the regressions "
                        "still open instead of replaying the whole history")
    p.add_argument("--ledger", default=os.environ.get("PERFGATE_NOTIFY_LEDGER"),
                   help="delivery ledger and spool (SQLite; default: notify.db beside a SQLite history, "
                        "else .perfgate/notify.db)")


def ledger_path(args: argparse.Namespace) -> Path:
    if args.ledger:
        return Path(args.ledger)
    if args.store.startswith("sqlite:"):
        return Path(args.store.removeprefix("sqlite:")).parent / "notify.db"
    return Path(".perfgate/notify.db")


def channel_budget() -> float:
    """``PERFGATE_NOTIFY_BUDGET``: a slow target (a webhook answering each message after 30 s)
    must not hold the CI job for the whole backlog; what is left is spooled, in order."""
    raw = os.environ.get("PERFGATE_NOTIFY_BUDGET", "300")
    try:
        value = float(raw)
    except ValueError:
        raise PerfgateError(f"PERFGATE_NOTIFY_BUDGET={raw!r}: not a number of seconds") from None
    if not value > 0:
        raise PerfgateError(f"PERFGATE_NOTIFY_BUDGET={raw!r}: must be more than 0")
    return value


def run(args: argparse.Namespace) -> int:
    from perfgate.notify.base import Links
    from perfgate.notify.channels import parse_channel
    from perfgate.notify.deliver import deliver_all
    from perfgate.notify.ledger import Ledger

    if not args.channel:
        raise PerfgateError("notify: give at least one --channel (see perfgate notify --help)")
    budget = channel_budget()
    # A commit's subject, looked up in this checkout only for the messages sent, once each
    links = Links(args.pages_url, args.repo_url, functools.lru_cache(maxsize=None)(commit_subject),
                  functools.lru_cache(maxsize=None)(commits_after))
    channels = []
    try:
        for spec in args.channel:
            channel = parse_channel(spec, links)
            if channel is None:
                err.print(f"{terminal(spec)}: the variable is not set; that channel is skipped")
            else:
                channels.append(channel)
        with store_from(args) as store:
            alerts = store.alerts()
        with Ledger(ledger_path(args)) as ledger:
            reports = deliver_all(alerts, channels, ledger, skip_closed=args.skip_closed, budget=budget)
    finally:
        for channel in channels:
            channel.close()
    # a part refused (a locked issue's comment) is said once, by the run that recorded the event
    rejected = any(r.rejected or r.partly for r in reports)
    if args.json:
        emit_json({"alerts": len(alerts), "channels": [r.to_json() for r in reports]})
    else:
        for r in reports:
            # Messages sent now, events told before: a second run read "8 already delivered" after
            # "5 delivered", the 3 updates told inside raised messages counted only the second time.
            line = f"{r.channel}: {len(r.delivered)} message(s) sent"
            if r.folded:
                line += f" (telling {len(r.folded)} update(s) in the raised message sent with them)"
            line += f", {r.already} event(s) told before"
            if r.spooled:
                line += f", {len(r.spooled)} spooled (target down or slow; sent by the next run)"
            if r.skipped:
                line += (f", {len(r.skipped)} event(s) of {len(r.skipped_alerts)} alert(s) closed before this channel heard "
                         f"of them recorded without sending (--skip-closed)")
            out.print(terminal(line))
            for event_id, reason in r.rejected:
                err.print(f"[red]refused[/red] {terminal(event_id)}: {terminal(reason)}")
            for event_id, reason in r.partly:
                err.print(f"[red]refused part of[/red] {terminal(event_id)}: {terminal(reason)}")
    # A target down is not the job's fault (exit 0: the next run sends them), but nobody has been
    # told yet: say so where the run's summary shows it.
    for r in reports:
        if r.spooled:
            actions_warning("perfgate notify", f"{len(r.spooled)} alert message(s) to {r.channel} not delivered "
                            "(target down or slow); spooled, the next run sends them", args.json)
    # Refused events (a wrong token or repository) are a usage error; the next run retries them.
    return EXIT_USAGE if rejected else EXIT_OK

