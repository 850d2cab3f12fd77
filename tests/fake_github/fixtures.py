"""pytest fixtures around the fake GitHub and the webhook receiver; tests import from here."""

from __future__ import annotations

import hashlib

import pytest

from perfgate.model import Alert
from perfgate.http_client import RetryPolicy

from webhook_receiver import Receiver

from .server import FakeGitHub

TOKEN = "ghp_notifyTESTtoken0123456789abcdefXYZ"
REPO = "acme/widget"
# Fast retries: the waits are real, just short.
FAST = RetryPolicy(attempts=4, backoff=0.01, max_backoff=0.05, timeout=2.0, answer_timeout=2.0)
FAST_ENV = {"PERFGATE_NOTIFY_BACKOFF": "0.01", "PERFGATE_NOTIFY_MAX_BACKOFF": "0.05",
            "PERFGATE_NOTIFY_TIMEOUT": "2", "PERFGATE_NOTIFY_ANSWER_TIMEOUT": "2", "PERFGATE_NOTIFY_ATTEMPTS": "4"}


@pytest.fixture
def fake_github():
    server = FakeGitHub(TOKEN, REPO).start()
    yield server
    server.stop()
    assert not server.problems, "requests/responses that break GitHub's contract:\n" + "\n".join(server.problems)


@pytest.fixture
def receiver():
    server = Receiver().start()
    yield server
    server.stop()
    assert not server.problems, "\n".join(server.problems)


def sha(i: int, salt: str = "") -> str:
    return hashlib.sha1(f"{salt}{i}".encode()).hexdigest()


def make_alert(i: int, *, direction: str = "regression", benchmark: str = "sort 1e6", measure: str = "latency",
               magnitude: float = 0.12, span: int = 1) -> Alert:
    """A change point alert as ``detect`` records one: its interval at the default 99% (``ci_level``)."""
    commits = tuple(sha(i + k) for k in range(span))
    return Alert("main", "ci-x86", benchmark, measure, commits[0], direction, magnitude,
                 magnitude * 0.8, magnitude * 1.2, 1e-4, "change_point", sha(i - 1), commits,
                 {"index": i, "before": 100.0, "after": 100.0 * (1 + magnitude), "ci_level": 0.99})


def withdraw_refind_and_bisect(store, moved_id: str) -> Alert:
    """The lifecycle the channels' update tests replay: the first alert (``make_alert(10)``'s
    series) withdrawn at run 40 and found again at 50, and alert ``moved_id`` narrowed by a bisect
    to ``sha(22)``; returns that alert as stored."""
    from perfgate.alert_history import Analysed, withdrawals

    key = ("main", "ci-x86", "sort 1e6", "latency")
    for runs, found in ((30, []), (40, []), (50, [make_alert(10)])):
        for changed in withdrawals(store.alerts(), found, {key: Analysed(sha(runs), runs)}):
            store.update_alert(changed)
    (moved,) = [x for x in store.alerts() if x.id == moved_id]
    moved.details = {**moved.details, "bisect": {"commit_before": moved.commit, "steps": []}}
    moved.commit, moved.commit_range = sha(22), (sha(22),)
    store.update_alert(moved)
    return moved
