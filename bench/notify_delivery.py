#!/usr/bin/env python3
"""Exactly-once alert delivery under a hostile network: every event to three channels, counted.

A history of alerts over many series (regressions, some recurring, some fixed by a later
improvement, some acknowledged) is delivered to the tests' webhook receiver and fake GitHub
(real HTTP servers on 127.0.0.1; the fake validates every request and response against
contracts/github/openapi.json) while a share of all requests fails at random: connections dropped
before or after the server did the work, 500s, 429s.  Deliveries run again, as successive CI jobs
would, until nothing is spooled.  Then every channel is audited: each event exactly once (one
issue per regression, one comment per recurrence/closing, one status per event, one processed
webhook per event, in order).  Exit 1 on any duplicate, loss or contract problem.  Usage::

    .venv/bin/python bench/notify_delivery.py                    # 40 series, 20% of requests fail
    .venv/bin/python bench/notify_delivery.py --series 100 --fail 0.3
"""

from __future__ import annotations

import argparse
import hashlib
import logging
import random
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from fake_github.server import FakeGitHub  # noqa: E402
from webhook_receiver import Receiver  # noqa: E402

from perfgate.model import Alert  # noqa: E402
from perfgate.notify.base import Links  # noqa: E402
from perfgate.notify.deliver import deliver_all  # noqa: E402
from perfgate.notify.events import derive_events  # noqa: E402
from perfgate.notify.github_issues import GitHubIssuesChannel  # noqa: E402
from perfgate.notify.github_status import GitHubStatusChannel, context  # noqa: E402
from perfgate.http_client import RetryPolicy  # noqa: E402
from perfgate.notify.ledger import Ledger  # noqa: E402
from perfgate.notify.render import ALERT_MARKER, EVENT_MARKER  # noqa: E402
from perfgate.notify.webhook import WebhookChannel  # noqa: E402
from perfgate.store.sqlite import SqliteStore  # noqa: E402

TOKEN = "ghp_benchTOKENbench0000000000000000000"
REPO = "acme/widget"
POLICY = RetryPolicy(attempts=4, backoff=0.005, max_backoff=0.02, timeout=5.0)


def sha(text: str) -> str:
    return hashlib.sha1(text.encode()).hexdigest()


def history(store: SqliteStore, series: int, rng: random.Random) -> None:
    """Alerts in the order detect would raise them, with acknowledgements along the way."""
    for s in range(series):
        bench = f"bench-{s:03d}"

        def alert(step: int, direction: str, magnitude: float) -> Alert:
            c = sha(f"{bench}-{step}")
            return Alert("main", "ci", bench, "instructions", c, direction, magnitude, magnitude * 0.9,
                         magnitude * 1.1, 1e-6, "change_point", sha(f"{bench}-{step - 1}"), (c,))

        (first,) = store.record_alerts([alert(10, "regression", rng.uniform(0.02, 0.3))])
        if rng.random() < 0.5:
            store.record_alerts([alert(20, "regression", rng.uniform(0.02, 0.3))])
        roll = rng.random()
        if roll < 0.3:
            store.record_alerts([alert(30, "improvement", -rng.uniform(0.05, 0.3))])
        elif roll < 0.6:
            store.acknowledge(first.id)


def audit(alerts: list[Alert], fake: FakeGitHub, receiver: Receiver) -> list[str]:
    problems = list(fake.problems) + list(receiver.problems)
    events = derive_events(alerts)
    hook_expected = [e.id for e in events if e.kind != "again"]
    if receiver.order != hook_expected:
        problems.append(f"webhook: {len(receiver.order)} processed, {len(hook_expected)} expected (or out of order)")
    regressions = [a for a in alerts if a.direction == "regression"]
    bodies = Counter(m for i in fake.issues.values() for m in [i["body"]])
    for a in regressions:
        n = sum(ALERT_MARKER.format(a.id) in body for body in bodies)
        if n != 1:
            problems.append(f"alert {a.id}: {n} issues")
    if len(fake.issues) != len(regressions):
        problems.append(f"{len(fake.issues)} issues for {len(regressions)} regressions")
    comments = [c["body"] for cs in fake.comments.values() for c in cs]
    for e in events:
        if e.kind != "raised" and e.alert.direction == "regression":
            n = sum(EVENT_MARKER.format(e.id) in body for body in comments)
            if n != 1:
                problems.append(f"event {e.id}: {n} comments")
    expected_comments = sum(e.kind != "raised" and e.alert.direction == "regression" for e in events)
    if len(comments) != expected_comments:
        problems.append(f"{len(comments)} comments, {expected_comments} expected")
    for e in events:
        if e.kind == "closed" and fake.issues and not any(
                i["state"] == "closed" and ALERT_MARKER.format(e.alert.id) in i["body"] for i in fake.issues.values()):
            problems.append(f"issue of {e.alert.id} not closed")
    per_status = Counter((e.alert.commit, context(e)) for e in events if e.kind in ("raised", "closed"))
    got = Counter((s, st["context"]) for s, sts in fake.statuses.items() for st in sts)
    if got != per_status:
        problems.append(f"statuses: {sum(got.values())} posted, {sum(per_status.values())} expected")
    return problems


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--series", type=int, default=40)
    ap.add_argument("--fail", type=float, default=0.2, help="share of requests that fail (default 0.2)")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    logging.getLogger("perfgate.notify").setLevel(logging.ERROR)  # hundreds of retry notes
    rng = random.Random(args.seed)
    fake, receiver = FakeGitHub(TOKEN, REPO).start(), Receiver().start()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            store = SqliteStore(Path(tmp) / "history.db")
            history(store, args.series, rng)
            alerts = store.alerts()
            fake.chaos(args.fail, args.seed)
            receiver.chaos(args.fail, args.seed + 1)
            links = Links("https://acme.github.io/widget", "https://github.com/acme/widget")
            kw = dict(policy=POLICY, rng=random.Random(args.seed))
            start, runs, spooled_total = time.perf_counter(), 0, 0
            with Ledger(Path(tmp) / "notify.db") as ledger:
                while True:
                    runs += 1
                    channels = [WebhookChannel(receiver.url, links, **kw),
                                GitHubIssuesChannel(REPO, links, token=TOKEN, api_url=fake.url, **kw),
                                GitHubStatusChannel(REPO, links, token=TOKEN, api_url=fake.url, **kw)]
                    reports = deliver_all(alerts, channels, ledger)
                    for c in channels:
                        c.close()
                    spooled = sum(len(r.spooled) for r in reports)
                    spooled_total += spooled
                    if any(r.rejected for r in reports):
                        print("rejected:", [r.rejected for r in reports])
                        return 1
                    if not spooled or runs >= 50:
                        break
                delivered = ledger.count()
            elapsed = time.perf_counter() - start
            requests = len(fake.requests) + len(receiver.requests)
            events = derive_events(alerts)
            problems = audit(alerts, fake, receiver)
    finally:
        fake.stop()
        receiver.stop()
    print(f"{len(alerts)} alerts over {args.series} series -> {len(events)} events, {delivered} deliveries "
          f"on 3 channels in {elapsed:.1f} s ({runs} notify runs; {spooled_total} spoolings; "
          f"{requests} requests reached a server, {args.fail:.0%} failing at random)")
    print(f"issues {len(fake.issues)}, comments {sum(map(len, fake.comments.values()))}, "
          f"statuses {sum(map(len, fake.statuses.values()))}, webhooks processed {len(receiver.processed)} "
          f"(received {len(receiver.requests)})")
    if problems:
        print("NOT exactly once:\n  " + "\n  ".join(problems[:20]))
        return 1
    print("every event exactly once on every channel, in order")
    return 0


if __name__ == "__main__":
    sys.exit(main())
