"""A comment GitHub refuses on an alert's issue (a locked issue: 403 "Issue is locked") must not
hold the issue open for ever.  An audit: with the issue locked, `alerts --ack` then notify twice
exited 2 each time, the issue stayed open, and nothing let the user past that event.  The close
(or reopening, or the rewritten title and body) is what matters: it is done, the event recorded,
and the refused comment reported once."""

from __future__ import annotations

import json
import random

from fake_github.fixtures import FAST, REPO, TOKEN, fake_github, make_alert, sha, withdraw_refind_and_bisect  # noqa: F401
from test_notify_cli import env_for, seed

from perfgate.notify.base import Links
from perfgate.notify.deliver import deliver_all
from perfgate.notify.github_issues import GitHubIssuesChannel
from perfgate.notify.ledger import Ledger
from perfgate.store.sqlite import SqliteStore

LINKS = Links("https://acme.github.io/widget", "https://github.com/acme/widget")
LOCKED = f"POST github /repos/{REPO}/issues/1/comments: refused (HTTP 403): Issue is locked"


def issues(fake):
    return GitHubIssuesChannel(REPO, LINKS, token=TOKEN, api_url=fake.url, policy=FAST, sleep=lambda s: None,
                               rng=random.Random(1))


def lock(fake, number):
    fake.issues[number]["locked"], fake.issues[number]["active_lock_reason"] = True, "resolved"


def test_a_locked_issue_is_closed_without_its_comment_and_told_once(cli, store_path, fake_github):
    (a,) = seed(store_path, make_alert(10))
    args = ["notify", "--channel", f"github-issues:{REPO}", "--json"]
    assert cli(*args, env=env_for(fake_github)).returncode == 0
    lock(fake_github, 1)
    with SqliteStore(store_path) as store:
        store.acknowledge(a.id)
    proc = cli(*args[:-1], env=env_for(fake_github))
    assert proc.returncode == 2, proc.stderr                   # something was refused: said, once
    assert "1 message(s) sent" in proc.stdout
    assert proc.stderr.strip() == (f"refused part of {a.id}:closed: {LOCKED}; the issue was closed without "
                                   "that comment")
    assert fake_github.issues[1]["state"] == "closed" and fake_github.comments[1] == []
    proc = cli(*args, env=env_for(fake_github))
    assert proc.returncode == 0, proc.stderr
    [report] = json.loads(proc.stdout)["channels"]
    assert report["delivered"] == [] and report["partly"] == [] and report["already_delivered"] == 2


def test_a_locked_issue_is_reopened_and_rewritten_without_their_comments(tmp_path, fake_github):
    with SqliteStore(tmp_path / "history.db") as store, Ledger(tmp_path / "notify.db") as ledger:
        a, b = store.record_alerts([make_alert(10), make_alert(20, benchmark="parse", span=4)])
        deliver_all(store.alerts(), [issues(fake_github)], ledger)
        lock(fake_github, 1)
        lock(fake_github, 2)
        withdraw_refind_and_bisect(store, b.id)
        (report,) = deliver_all(store.alerts(), [issues(fake_github)], ledger)
        update = f"{b.id}:updated:change_point@{sha(22)}"
        assert report.delivered == [f"{a.id}:closed", f"{a.id}:reopened", update] and report.rejected == []
        assert [(e, r.rsplit("; ", 1)[1]) for e, r in report.partly] == [
            (f"{a.id}:closed", "the issue was closed without that comment"),
            (f"{a.id}:reopened", "the issue was reopened without that comment"),
            (update, "the issue's title and body were rewritten without that comment")]
        assert fake_github.issues[1]["state"] == "open" and fake_github.issues[1]["state_reason"] == "reopened"
        assert sha(22)[:10] in fake_github.issues[2]["title"] and fake_github.comments == {1: [], 2: []}
        (report,) = deliver_all(store.alerts(), [issues(fake_github)], ledger)
    assert report.delivered == report.partly == report.rejected == []


def test_a_regression_found_again_is_not_held_back_by_a_locked_issue(tmp_path, fake_github):
    with SqliteStore(tmp_path / "history.db") as store, Ledger(tmp_path / "notify.db") as ledger:
        (a,) = store.record_alerts([make_alert(10)])
        deliver_all(store.alerts(), [issues(fake_github)], ledger)
        lock(fake_github, 1)
        (b,) = store.record_alerts([make_alert(20, magnitude=0.08)])
        (report,) = deliver_all(store.alerts(), [issues(fake_github)], ledger)
        assert report.delivered == [f"{b.id}:raised", f"{a.id}:again:{b.id}"] and not report.rejected
        assert report.partly == [(f"{a.id}:again:{b.id}", f"{LOCKED}; the issue is locked, so it was not told")]
        assert report.to_json()["partly"] == [{"event": f"{a.id}:again:{b.id}", "reason": report.partly[0][1]}]
        store.acknowledge(a.id)
        (report,) = deliver_all(store.alerts(), [issues(fake_github)], ledger)
        assert report.delivered == [f"{a.id}:closed"] and [e for e, _ in report.partly] == [f"{a.id}:closed"]
    assert fake_github.issues[1]["state"] == "closed" and fake_github.issues[2]["state"] == "open"
    assert fake_github.comments[1] == []


def test_a_refused_comment_whose_close_is_refused_too_records_nothing(tmp_path, fake_github):
    """Exactly once holds: with no right to close either, nothing is recorded; the next run tries again."""
    with SqliteStore(tmp_path / "history.db") as store, Ledger(tmp_path / "notify.db") as ledger:
        (a,) = store.record_alerts([make_alert(10)])
        deliver_all(store.alerts(), [issues(fake_github)], ledger)
        store.acknowledge(a.id)
        fake_github.inject("status", method="POST", path="/issues/1/comments", status=422)
        fake_github.inject("status", method="PATCH", path="/issues/1", status=403)
        (report,) = deliver_all(store.alerts(), [issues(fake_github)], ledger)
        assert fake_github.faults == []
        assert report.delivered == report.partly == [] and [e for e, _ in report.rejected] == [f"{a.id}:closed"]
        assert "HTTP 403" in report.rejected[0][1] and fake_github.issues[1]["state"] == "open"
        (report,) = deliver_all(store.alerts(), [issues(fake_github)], ledger)
        assert report.delivered == [f"{a.id}:closed"] and not report.partly
    assert fake_github.issues[1]["state"] == "closed" and len(fake_github.comments[1]) == 1


def test_a_comment_found_again_refused_on_an_open_issue_waits_for_the_next_run(tmp_path, fake_github):
    """Its comment is all a regression found again has to deliver: refused on an issue that is not
    locked, it is not recorded, and the next run tries again."""
    with SqliteStore(tmp_path / "history.db") as store, Ledger(tmp_path / "notify.db") as ledger:
        (a,) = store.record_alerts([make_alert(10)])
        deliver_all(store.alerts(), [issues(fake_github)], ledger)
        (b,) = store.record_alerts([make_alert(20, magnitude=0.08)])
        fake_github.inject("status", method="POST", path="/issues/1/comments", status=422)
        (report,) = deliver_all(store.alerts(), [issues(fake_github)], ledger)
        assert report.delivered == [f"{b.id}:raised"] and report.partly == []
        assert [e for e, _ in report.rejected] == [f"{a.id}:again:{b.id}"] and "HTTP 422" in report.rejected[0][1]
        (report,) = deliver_all(store.alerts(), [issues(fake_github)], ledger)
        assert report.delivered == [f"{a.id}:again:{b.id}"] and not report.partly
    assert len(fake_github.comments[1]) == 1
