#!/usr/bin/env python3
"""How many copies of one alert a chat channel shows, for receivers that answer late, never,
with errors, or not at all: Slack and Mattermost post every POST they take and ignore
``Idempotency-Key``, so each request the receiver took whole is a message people see.

Each case delivers one event through the real webhook channel and ledger (the notifier's default
retry policy, from ``PERFGATE_NOTIFY_*``) to the tests' receiver on 127.0.0.1, which posts a
message on arrival and then answers as the case says.  A case whose event was spooled gets a
second run against a healthy receiver: nothing may be lost.  ``--scale 0.1`` runs every delay,
timeout and wait at a tenth (the figures should not change).  Usage::

    .venv/bin/python bench/webhook_copies.py               # real times, cases in parallel (~2 min)
    .venv/bin/python bench/webhook_copies.py --scale 0.05
"""

from __future__ import annotations

import argparse
import dataclasses
import logging
import random
import socket
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from webhook_receiver import Receiver  # noqa: E402

from perfgate.model import Alert  # noqa: E402
from perfgate.notify.base import Links  # noqa: E402
from perfgate.notify.deliver import deliver_all  # noqa: E402
from perfgate.notify.ledger import Ledger  # noqa: E402
from perfgate.notify.webhook import WebhookChannel  # noqa: E402
from perfgate.retry import RetryPolicy  # noqa: E402
from perfgate.store.sqlite import SqliteStore  # noqa: E402

FOREVER = 10 ** 6
# name -> faults injected on every request (seconds at scale 1)
CASES = {
    "answers after 0.1 s": [dict(kind="late", seconds=0.1, times=FOREVER)],
    "answers after 12 s": [dict(kind="late", seconds=12, times=FOREVER)],
    "answers after 30 s": [dict(kind="late", seconds=30, times=FOREVER)],
    "answers after 90 s": [dict(kind="late", seconds=90, times=FOREVER)],
    "posts, never answers": [dict(kind="late", seconds=FOREVER, times=FOREVER)],
    "500 twice, then 200": [dict(kind="status", status=500, times=2)],
    "429 (Retry-After: 2) twice, then 200": [dict(kind="status", status=429, retry_after="2", times=2)],
    "refuses connections": "refused",
}


def scaled_policy(scale: float) -> RetryPolicy:
    """The notifier's policy with every timeout scaled (waits are scaled by the sleep)."""
    policy = RetryPolicy.from_env("PERFGATE_NOTIFY", attempts=4)
    return dataclasses.replace(policy, **{f.name: getattr(policy, f.name) * scale
                                          for f in dataclasses.fields(policy) if f.name.endswith("timeout")})


def alert_store(tmp: Path) -> SqliteStore:
    store = SqliteStore(tmp / "history.db")
    store.record_alerts([Alert("main", "ci", "sort", "instructions", "c" * 40, "regression", 0.2, 0.18, 0.22,
                               1e-6, "change_point", "b" * 40, ("c" * 40,))])
    return store


def refused_url() -> tuple[str, socket.socket]:
    """A port bound but not listening: every connection is refused (kept bound, so no one takes it)."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    return f"http://127.0.0.1:{s.getsockname()[1]}{Receiver.path}", s


def run_case(name: str, faults, scale: float) -> dict:
    receiver, held = Receiver().start(), None
    sleep = lambda s: time.sleep(s * scale)  # noqa: E731 - backoff and Retry-After, scaled
    links = Links("https://acme.github.io/widget", "https://github.com/acme/widget")
    try:
        if faults == "refused":
            url, held = refused_url()
        else:
            url = receiver.url
            for f in faults:
                receiver.inject(**{**f, "seconds": f.get("seconds", 0) * scale} if "seconds" in f else f)
        with tempfile.TemporaryDirectory() as tmp:
            store = alert_store(Path(tmp))
            with Ledger(Path(tmp) / "notify.db") as ledger:
                channel = WebhookChannel(url, links, policy=scaled_policy(scale), sleep=sleep, rng=random.Random(1))
                start = time.monotonic()
                (report,) = deliver_all(store.alerts(), [channel], ledger)
                seconds = (time.monotonic() - start) / scale
                channel.close()
                posted = len(receiver.requests)
                later = None
                if report.spooled:      # the next run, the receiver healthy again
                    receiver.faults.clear()
                    channel = WebhookChannel(receiver.url, links, policy=scaled_policy(scale), sleep=sleep)
                    (again,) = deliver_all(store.alerts(), [channel], ledger)
                    channel.close()
                    later = dict(delivered=len(again.delivered), posted=len(receiver.requests))
        return dict(case=name, outcome="delivered" if report.delivered else "spooled", posted=posted,
                    seconds=seconds, later=later)
    finally:
        receiver.stop()
        if held:
            held.close()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scale", type=float, default=1.0, help="time scale (default 1: real times)")
    args = ap.parse_args(argv)
    logging.getLogger("perfgate.notify").setLevel(logging.ERROR)
    with ThreadPoolExecutor(len(CASES)) as pool:
        results = list(pool.map(lambda kv: run_case(*kv, args.scale), CASES.items()))
    print(f"{'receiver':40} {'copies':>6}  {'this run':10} {'s':>6}  next run (healthy receiver)")
    for r in results:
        later = (f"delivered; {r['later']['posted']} copies in all" if r["later"] and r["later"]["delivered"]
                 else "-" if r["later"] is None else "still undelivered")
        print(f"{r['case']:40} {r['posted']:>6}  {r['outcome']:10} {r['seconds']:>6.1f}  {later}")
    lost = [r["case"] for r in results if r["outcome"] == "spooled" and not (r["later"] and r["later"]["delivered"])]
    if lost:
        print("LOST:", ", ".join(lost))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
