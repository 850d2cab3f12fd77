"""Alert delivery, in process: events, the webhook against a local receiver, GitHub issues and
statuses against the contract-checking fake, retries, spooling and exactly-once."""

from __future__ import annotations

import logging
import random
import time

import httpx
import pytest
from fake_github.fixtures import FAST, REPO, TOKEN, fake_github, make_alert, receiver, sha  # noqa: F401

from perfgate.http_client import RetryPolicy
from perfgate.model import Alert
from perfgate.notify.base import Channel, Links
from perfgate.notify.deliver import deliver_all
from perfgate.notify.events import Event, derive_events
from perfgate.notify.github_issues import GitHubIssuesChannel
from perfgate.notify.github_status import GitHubStatusChannel
from perfgate.notify.ledger import Ledger
from perfgate.notify.webhook import WebhookChannel, idempotency_key
from perfgate.store.sqlite import SqliteStore

LINKS = Links("https://acme.github.io/widget", "https://github.com/acme/widget")


class Sleeps(list):
    def __call__(self, seconds: float) -> None:
        self.append(seconds)


def stored(tmp_path, alerts):
    """Alerts as a real store keeps them (ids, created times, statuses)."""
    store = SqliteStore(tmp_path / "history.db")
    recorded = store.record_alerts(alerts)
    return store, recorded


def webhook(receiver, sleeps=None, policy=FAST):
    return WebhookChannel(receiver.url, LINKS, policy=policy, sleep=Sleeps() if sleeps is None else sleeps, rng=random.Random(1))


def github(cls, fake, sleeps=None, token=TOKEN):
    return cls(REPO, LINKS, token=token, api_url=fake.url, policy=FAST, sleep=Sleeps() if sleeps is None else sleeps,
               rng=random.Random(1))


# --- events (pure) ------------------------------------------------------------------------------

def test_events_raise_each_alert_once_and_close_what_a_later_improvement_undoes(tmp_path):
    store, (a, b, c, other) = stored(tmp_path, [make_alert(10), make_alert(20, magnitude=0.05),
                                                make_alert(30, direction="improvement", magnitude=-0.15),
                                                make_alert(40, benchmark="parse")])
    ids = [e.id for e in derive_events(store.alerts())]
    assert ids == [f"{a.id}:raised", f"{b.id}:raised", f"{a.id}:again:{b.id}", f"{c.id}:raised",
                   f"{a.id}:closed", f"{b.id}:closed", f"{other.id}:raised"]
    closed = [e for e in derive_events(store.alerts()) if e.kind == "closed"]
    assert {e.reason for e in closed} == {"undone"} and closed[0].related.id == c.id


def test_an_improvement_closes_a_regression_only_when_it_wins_back_half_of_it(tmp_path):
    store, (a, small, big) = stored(tmp_path, [make_alert(10, magnitude=0.20),
                                               make_alert(20, direction="improvement", magnitude=-0.05),
                                               make_alert(30, direction="improvement", magnitude=-0.10)])
    closed = [e for e in derive_events(store.alerts()) if e.kind == "closed"]
    assert [(e.alert.id, e.related.id) for e in closed] == [(a.id, big.id)]   # 1.2 * 0.9 = +8% left: < half
    # Throughput-like measures regress downwards; the same rule holds.
    store2, (t, fix) = stored(tmp_path / "t", [make_alert(10, measure="throughput", magnitude=-0.3),
                                               make_alert(20, measure="throughput", direction="improvement",
                                                          magnitude=0.4)])
    assert [e.kind for e in derive_events(store2.alerts())] == ["raised", "raised", "closed"]


def test_an_acknowledged_alert_is_closed_once_and_gets_no_again(tmp_path):
    store, (a,) = stored(tmp_path, [make_alert(10)])
    store.acknowledge(a.id)
    (b,) = store.record_alerts([make_alert(50, magnitude=0.3)])
    events = derive_events(store.alerts())
    assert [(e.kind, e.alert.id, e.reason) for e in events] == [
        ("raised", a.id, ""), ("raised", b.id, ""), ("closed", a.id, "acknowledged")]


# --- webhook ------------------------------------------------------------------------------------

def test_webhook_delivers_each_event_once_with_text_and_structured_fields(tmp_path, receiver):
    store, (a, b) = stored(tmp_path, [make_alert(10, span=3), make_alert(20, benchmark="parse")])
    with Ledger(tmp_path / "notify.db") as ledger:
        (report,) = deliver_all(store.alerts(), [webhook(receiver)], ledger)
        assert report.delivered == [f"{a.id}:raised", f"{b.id}:raised"] and not report.spooled
        (again,) = deliver_all(store.alerts(), [webhook(receiver)], ledger)
    assert again.delivered == [] and again.already == 2
    assert len(receiver.requests) == 2
    first = receiver.processed[idempotency_key(derive_events(store.alerts())[0])]
    assert first["event"] == "raised" and first["alert"]["id"] == a.id
    assert first["alert"]["commit_range"] == [sha(10), sha(11), sha(12)]
    assert "+12.00%" in first["text"] and "`sort 1e6` [`latency`] on `main@ci-x86`" in first["text"] and "one of 3 commits" in first["text"]
    assert first["links"]["commit"] == f"https://github.com/acme/widget/commit/{sha(10)}"
    assert first["links"]["trend"].startswith("https://acme.github.io/widget/index.html#sort%201e6%7Clatency")



def test_webhook_closing_events_carry_the_status_they_close_with(tmp_path, receiver):
    """An undone regression is kept "active" in the store; its closing webhook said so
    ("Undone" in the text, status "active" in the JSON), so a receiver mirroring alerts kept it open."""
    store, (a, fix, acked, gone) = stored(tmp_path, [
        make_alert(10), make_alert(30, direction="improvement", magnitude=-0.15),
        make_alert(10, benchmark="parse"), make_alert(10, benchmark="scan")])
    store.acknowledge(acked.id)
    gone.details["withdrawn_at"] = sha(40)
    store.update_alert(gone)
    with Ledger(tmp_path / "notify.db") as ledger:
        deliver_all(store.alerts(), [webhook(receiver)], ledger)
    sent = {(m["event"], m["alert"]["id"]): m for m in receiver.processed.values()}
    assert sent[("closed", a.id)]["alert"]["status"] == "undone" and sent[("closed", a.id)]["reason"] == "undone"
    assert sent[("closed", acked.id)]["alert"]["status"] == "acknowledged"
    assert sent[("closed", gone.id)]["alert"]["status"] == "withdrawn"
    assert sent[("raised", a.id)]["alert"]["status"] == "active"       # what the store says until it closes


@pytest.mark.parametrize("fault", [dict(kind="drop"), dict(kind="status", status=503),
                                   dict(kind="drop_after"), dict(kind="status", status=502, times=2)])
def test_webhook_retries_failures_and_the_receiver_sees_each_event_once(tmp_path, receiver, fault):
    store, alerts = stored(tmp_path, [make_alert(10), make_alert(20, benchmark="parse")])
    receiver.inject(**fault)
    sleeps = Sleeps()
    with Ledger(tmp_path / "notify.db") as ledger:
        (report,) = deliver_all(store.alerts(), [webhook(receiver, sleeps)], ledger)
        assert len(report.delivered) == 2 and ledger.count() == 2
    assert len(receiver.processed) == 2 and receiver.order == [f"{a.id}:raised" for a in alerts]
    assert len(sleeps) == fault.get("times", 1) and all(0 <= s <= FAST.max_backoff for s in sleeps)
    if fault["kind"] == "drop_after":  # delivered, answer lost: resent with the same key, kept once
        assert len(receiver.requests) == 3 and receiver.requests[0]["key"] == receiver.requests[1]["key"]


def test_a_threshold_alert_without_magnitude_is_sent_as_strict_json(tmp_path, receiver):
    import math

    alert = make_alert(10)
    alert.kind, alert.magnitude, alert.ci_low, alert.ci_high, alert.p_value = "threshold", math.nan, None, None, None
    alert.id, alert.created = "0b7c3d1e-threshold", 1.0  # (the SQLite store cannot hold a NaN magnitude)
    with Ledger(tmp_path / "notify.db") as ledger:
        (report,) = deliver_all([alert], [webhook(receiver)], ledger)
    assert len(report.delivered) == 1
    (body,) = receiver.processed.values()
    assert body["alert"]["magnitude"] is None and "—" in body["text"]


def test_a_deterministic_change_is_not_sent_as_a_certainty(tmp_path, receiver):
    alert = make_alert(10)
    alert.p_value = 0.0                     # an instruction count's step: the p-value underflows
    store, _ = stored(tmp_path, [alert])
    with Ledger(tmp_path / "notify.db") as ledger:
        deliver_all(store.alerts(), [webhook(receiver)], ledger)
    (body,) = receiver.processed.values()
    assert "p < 1e-15 (confidence > 99.99%)" in body["text"]
    assert "p = 0 " not in body["text"] and "100.00%" not in body["text"]


def test_webhook_honours_retry_after_on_429(tmp_path, receiver):
    store, _ = stored(tmp_path, [make_alert(10)])
    receiver.inject("status", status=429, retry_after="7")
    sleeps = Sleeps()
    with Ledger(tmp_path / "notify.db") as ledger:
        (report,) = deliver_all(store.alerts(), [webhook(receiver, sleeps)], ledger)
    assert len(report.delivered) == 1 and sleeps == [7.0]


def test_webhook_4xx_is_reported_not_retried_and_retried_by_the_next_run(tmp_path, receiver):
    store, (a,) = stored(tmp_path, [make_alert(10)])
    receiver.inject("status", status=404)
    sleeps = Sleeps()
    with Ledger(tmp_path / "notify.db") as ledger:
        (report,) = deliver_all(store.alerts(), [webhook(receiver, sleeps)], ledger)
        assert report.delivered == [] and report.rejected[0][0] == f"{a.id}:raised"
        assert "HTTP 404" in report.rejected[0][1] and sleeps == [] and receiver.requests == []
        (later,) = deliver_all(store.alerts(), [webhook(receiver)], ledger)
    assert later.delivered == [f"{a.id}:raised"] and len(receiver.processed) == 1


def test_a_target_that_stays_down_is_spooled_and_sent_later_in_order(tmp_path, receiver):
    store, (a, b) = stored(tmp_path, [make_alert(10), make_alert(20, benchmark="parse")])
    receiver.down = True
    with Ledger(tmp_path / "notify.db") as ledger:
        (report,) = deliver_all(store.alerts(), [webhook(receiver)], ledger)
        assert report.spooled == [f"{a.id}:raised", f"{b.id}:raised"] and report.delivered == []
        # Still down, and meanwhile a new alert and an acknowledgement: queued behind, not before.
        (c,) = store.record_alerts([make_alert(30, benchmark="hash")])
        store.acknowledge(a.id)
        (report,) = deliver_all(store.alerts(), [webhook(receiver)], ledger)
        assert report.spooled == [f"{a.id}:raised", f"{b.id}:raised", f"{c.id}:raised", f"{a.id}:closed"]
        assert len(ledger.spooled(webhook(receiver).key)) == 4
        receiver.down = False
        (report,) = deliver_all(store.alerts(), [webhook(receiver)], ledger)
        assert ledger.spooled(webhook(receiver).key) == [] and ledger.count() == 4
    assert receiver.order == [f"{a.id}:raised", f"{b.id}:raised", f"{c.id}:raised", f"{a.id}:closed"]
    assert len(receiver.requests) == 4


# Short times for the slow receivers below: connect and send within 0.3 s, the answer within 1 s.
QUICK = RetryPolicy(attempts=4, backoff=0.01, max_backoff=0.01, timeout=0.3, answer_timeout=1.0)


def test_a_hanging_target_times_out_and_is_spooled(tmp_path, receiver):
    store, _ = stored(tmp_path, [make_alert(10)])
    receiver.inject("hang", seconds=5)                 # the first request; a timeout is not resent
    with Ledger(tmp_path / "notify.db") as ledger:
        (report,) = deliver_all(store.alerts(), [webhook(receiver, policy=QUICK)], ledger)
        assert len(report.spooled) == 1
        (report,) = deliver_all(store.alerts(), [webhook(receiver, policy=QUICK)], ledger)
    assert len(report.delivered) == 1 and len(receiver.processed) == 1


def test_a_receiver_answering_after_the_timeout_gets_one_copy_not_one_per_attempt(tmp_path, receiver):
    """An audit: a receiver that posts the message and answers after 30 s (past the 10 s timeout)
    got it 4 times in the run and a 5th in the next, and Slack posts every copy."""
    store, alerts = stored(tmp_path, [make_alert(10), make_alert(20, benchmark="parse")])
    receiver.inject("late", seconds=0.6, times=10)     # past QUICK.timeout, within its answer_timeout
    with Ledger(tmp_path / "notify.db") as ledger:
        (report,) = deliver_all(store.alerts(), [webhook(receiver, policy=QUICK)], ledger)
        assert report.delivered == [f"{a.id}:raised" for a in alerts] and not report.spooled
    assert [r["body"]["event_id"] for r in receiver.requests] == [f"{a.id}:raised" for a in alerts]


def test_a_receiver_slower_than_the_answer_timeout_gets_one_copy_and_the_event_is_kept(tmp_path, receiver):
    """Not sent again in the run (it may have been posted); spooled, so the next run sends it,
    and the events behind it wait rather than each waiting out the same receiver."""
    store, (a, b) = stored(tmp_path, [make_alert(10), make_alert(20, benchmark="parse")])
    receiver.inject("late", seconds=30, times=10)     # stopped with the receiver: never answers
    sleeps = Sleeps()
    with Ledger(tmp_path / "notify.db") as ledger:
        start = time.monotonic()
        (report,) = deliver_all(store.alerts(), [webhook(receiver, sleeps, policy=QUICK)], ledger)
        took = time.monotonic() - start
        assert report.spooled == [f"{a.id}:raised", f"{b.id}:raised"] and report.delivered == []
        assert len(receiver.requests) == 1 and sleeps == []
        assert QUICK.answer_timeout <= took < QUICK.timeout + QUICK.answer_timeout + 1
        assert "not sent again now" in ledger.spooled(webhook(receiver).key)[0].last_error
        receiver.faults.clear()
        (report,) = deliver_all(store.alerts(), [webhook(receiver, policy=QUICK)], ledger)
        assert report.delivered == [f"{a.id}:raised", f"{b.id}:raised"] and ledger.spooled(webhook(receiver).key) == []
    assert [r["body"]["event_id"] for r in receiver.requests] == [f"{a.id}:raised"] * 2 + [f"{b.id}:raised"]


@pytest.mark.parametrize("fault", [dict(kind="drop_after", times=5), dict(kind="drop", times=5),
                                   dict(kind="status", status=504, times=5)])
def test_a_request_that_may_have_arrived_is_sent_once_more_then_kept(tmp_path, receiver, fault):
    """A connection dropped unanswered, or a gateway that gave up on the receiver: one resend
    (the first copy may be lost), not one per attempt; then the spool."""
    store, (a,) = stored(tmp_path, [make_alert(10)])
    receiver.inject(**fault)
    sleeps = Sleeps()
    with Ledger(tmp_path / "notify.db") as ledger:
        (report,) = deliver_all(store.alerts(), [webhook(receiver, sleeps, policy=QUICK)], ledger)
        assert report.spooled == [f"{a.id}:raised"] and len(sleeps) == 1
    assert receiver.faults[0].times == 3                # two requests reached it
    assert len(receiver.requests) == (2 if fault["kind"] == "drop_after" else 0)


@pytest.mark.parametrize("after", [0.0, 0.5])
def test_a_slow_5xx_counts_as_may_have_arrived_a_quick_one_does_not(tmp_path, receiver, after):
    """A quick 500 is a receiver that refused: retried as often as the policy says.  One that
    came after QUICK.timeout is a receiver that was busy with it: sent once more, then kept."""
    store, (a,) = stored(tmp_path, [make_alert(10)])
    receiver.inject("status", status=500, times=3, after=after)
    sleeps = Sleeps()
    with Ledger(tmp_path / "notify.db") as ledger:
        (report,) = deliver_all(store.alerts(), [webhook(receiver, sleeps, policy=QUICK)], ledger)
    if after:
        assert report.spooled == [f"{a.id}:raised"] and len(sleeps) == 1 and receiver.faults[0].times == 1
    else:
        assert report.delivered == [f"{a.id}:raised"] and len(sleeps) == 3 and len(receiver.requests) == 1


def test_a_slow_channel_stops_at_its_budget_and_the_rest_waits_in_order(tmp_path, receiver):
    """Each message answered after 0.4 s (30 s in life, within the answer timeout): one run
    would take the backlog times that.  Past its budget the channel's events are spooled."""
    store, alerts = stored(tmp_path, [make_alert(10), make_alert(20, benchmark="parse"), make_alert(30, benchmark="hash")])
    ids = [f"{a.id}:raised" for a in alerts]
    receiver.inject("late", seconds=0.4, times=10)
    with Ledger(tmp_path / "notify.db") as ledger:
        (report,) = deliver_all(store.alerts(), [webhook(receiver, policy=QUICK)], ledger, budget=0.1)
        assert report.delivered == ids[:1] and report.spooled == ids[1:]
        assert "took over 0.1 s in this run" in ledger.spooled(webhook(receiver).key)[0].last_error
        (report,) = deliver_all(store.alerts(), [webhook(receiver, policy=QUICK)], ledger, budget=60)
        assert report.delivered == ids[1:3] and report.spooled == []
    assert [r["body"]["event_id"] for r in receiver.requests] == ids


def test_a_receiver_refusing_connections_is_tried_every_attempt_then_spooled(tmp_path):
    import socket

    store, (a,) = stored(tmp_path, [make_alert(10)])
    with socket.socket() as bound:          # bound, not listening: connections are refused
        bound.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{bound.getsockname()[1]}/hook/secret-path"
        sleeps = Sleeps()
        channel = WebhookChannel(url, LINKS, policy=QUICK, sleep=sleeps, rng=random.Random(1))
        with Ledger(tmp_path / "notify.db") as ledger:
            (report,) = deliver_all(store.alerts(), [channel], ledger)
    assert report.spooled == [f"{a.id}:raised"] and len(sleeps) == QUICK.attempts - 1


def test_the_webhook_url_and_tokens_stay_out_of_messages_logs_and_the_spool(tmp_path, receiver, caplog):
    store, _ = stored(tmp_path, [make_alert(10)])
    receiver.down = True
    caplog.set_level(logging.DEBUG)
    with Ledger(tmp_path / "notify.db") as ledger:
        (report,) = deliver_all(store.alerts(), [webhook(receiver)], ledger)
    assert report.spooled
    channel = webhook(receiver)
    assert receiver.path not in channel.label and receiver.path not in repr(channel.label)
    assert caplog.records and all(receiver.path not in r.getMessage() for r in caplog.records)
    for f in tmp_path.iterdir():
        assert receiver.path.encode() not in f.read_bytes(), f


# --- GitHub -------------------------------------------------------------------------------------

def test_one_issue_per_regression_with_evidence_a_comment_when_it_recurs_and_closed_when_undone(tmp_path, fake_github):
    store, (a,) = stored(tmp_path, [make_alert(10, span=3)])
    with Ledger(tmp_path / "notify.db") as ledger:
        deliver_all(store.alerts(), [github(GitHubIssuesChannel, fake_github)], ledger)
        assert list(fake_github.issues) == [1]
        issue = fake_github.issues[1]
        assert issue["title"] == f"Performance regression: sort 1e6 [latency] +12.00% at {sha(10)[:10]} on main"
        body = issue["body"]
        assert f"<!-- perfgate-alert:{a.id} -->" in body and "| benchmark | `sort 1e6` |" in body
        assert "99% CI [+9.60%, +14.40%]" in body and "p = 0.0001" in body and "commit range" in body
        assert f"https://github.com/acme/widget/compare/{sha(9)}...{sha(12)}" in body
        assert "https://acme.github.io/widget/index.html#sort%201e6%7Clatency%7Cmain%7Cci-x86" in body
        assert [label["name"] for label in issue["labels"]] == ["perfgate"]

        (b,) = store.record_alerts([make_alert(20, magnitude=0.08)])
        deliver_all(store.alerts(), [github(GitHubIssuesChannel, fake_github)], ledger)
        assert sorted(fake_github.issues) == [1, 2]
        (again,) = fake_github.comments[1]
        assert "regressed again: +8.00%" in again["body"] and b.id in again["body"]

        (fix,) = store.record_alerts([make_alert(30, direction="improvement", magnitude=-0.2)])
        deliver_all(store.alerts(), [github(GitHubIssuesChannel, fake_github)], ledger)
        for number in (1, 2):
            assert fake_github.issues[number]["state"] == "closed"
            assert "A later change undid it: -20.00%" in fake_github.comments[number][-1]["body"]
        writes = len(fake_github.writes())
        deliver_all(store.alerts(), [github(GitHubIssuesChannel, fake_github)], ledger)
    assert len(fake_github.writes()) == writes  # nothing more to do
    assert len(fake_github.issues) == 2  # the improvement opened no issue


def test_acknowledging_closes_the_issue_with_a_comment(tmp_path, fake_github):
    store, (a,) = stored(tmp_path, [make_alert(10)])
    with Ledger(tmp_path / "notify.db") as ledger:
        deliver_all(store.alerts(), [github(GitHubIssuesChannel, fake_github)], ledger)
        store.acknowledge(a.id)
        deliver_all(store.alerts(), [github(GitHubIssuesChannel, fake_github)], ledger)
    assert fake_github.issues[1]["state"] == "closed" and fake_github.issues[1]["state_reason"] == "completed"
    assert fake_github.comments[1][0]["body"].startswith("Closing: The alert was acknowledged: the change was "
                                                         "accepted, not undone")


def test_a_commit_status_on_the_culprit_commit(tmp_path, fake_github):
    store, (a, imp) = stored(tmp_path, [make_alert(10), make_alert(40, benchmark="parse", direction="improvement",
                                                                  magnitude=-0.1)])
    with Ledger(tmp_path / "notify.db") as ledger:
        deliver_all(store.alerts(), [github(GitHubStatusChannel, fake_github)], ledger)
        (status,) = fake_github.statuses[sha(10)]
        assert (status["state"], status["context"]) == ("failure", "perfgate/sort 1e6 [latency]")
        assert status["description"] == "regression: latency +12.00%, p = 0.0001 on main"
        assert status["target_url"].startswith("https://acme.github.io/widget/index.html#")
        assert fake_github.statuses[sha(40)][0]["state"] == "success"
        store.acknowledge(a.id)
        deliver_all(store.alerts(), [github(GitHubStatusChannel, fake_github)], ledger)
    newest = fake_github.statuses[sha(10)][0]
    assert newest["state"] == "success" and "acknowledged" in newest["description"]
    assert len(fake_github.statuses[sha(10)]) == 2


@pytest.mark.parametrize("fault", [dict(kind="drop_after", method="POST", path="/issues"),
                                   dict(kind="status", status=502, method="POST", path="/issues"),
                                   dict(kind="status", status=429, retry_after="2", method="POST"),
                                   dict(kind="drop", method="GET", times=2),
                                   dict(kind="status", status=403, retry_after="3", method="POST"),  # rate limit
                                   dict(kind="drop_after", method="POST", path="/statuses")])
def test_github_faults_never_duplicate_an_issue_comment_or_status(tmp_path, fake_github, fault):
    store, (a,) = stored(tmp_path, [make_alert(10)])
    store.acknowledge(a.id)
    fake_github.inject(**fault)
    sleeps = Sleeps()
    channels = [github(GitHubIssuesChannel, fake_github, sleeps), github(GitHubStatusChannel, fake_github, sleeps)]
    with Ledger(tmp_path / "notify.db") as ledger:
        reports = deliver_all(store.alerts(), channels, ledger)
    assert [len(r.delivered) for r in reports] == [2, 2] and not any(r.spooled or r.rejected for r in reports)
    assert len(fake_github.issues) == 1 and len(fake_github.comments[1]) == 1
    assert fake_github.issues[1]["state"] == "closed"
    assert [s["state"] for s in fake_github.statuses[sha(10)]] == ["success", "failure"]
    assert sleeps, "the fault was not hit"
    if fault.get("retry_after"):
        assert float(fault["retry_after"]) in sleeps


def test_a_bad_token_is_refused_not_retried_and_never_shown(tmp_path, fake_github, caplog):
    store, _ = stored(tmp_path, [make_alert(10)])
    bad = "ghp_wrongTOKENwrong0000000000000000"
    caplog.set_level(logging.DEBUG)
    channel = github(GitHubIssuesChannel, fake_github, token=bad)
    with Ledger(tmp_path / "notify.db") as ledger:
        (report,) = deliver_all(store.alerts(), [channel], ledger)
    assert len(report.rejected) == 1 and "HTTP 401" in report.rejected[0][1] and "Bad credentials" in report.rejected[0][1]
    assert len(fake_github.requests) == 1
    assert bad not in repr(channel.gh) and all(bad not in r.getMessage() for r in caplog.records)


def test_events_of_an_alert_whose_issue_was_refused_wait_for_it(tmp_path, fake_github):
    store, (a,) = stored(tmp_path, [make_alert(10)])
    store.acknowledge(a.id)
    fake_github.inject("status", status=422, method="POST", path="/issues")
    with Ledger(tmp_path / "notify.db") as ledger:
        (report,) = deliver_all(store.alerts(), [github(GitHubIssuesChannel, fake_github)], ledger)
        assert report.delivered == [] and [e for e, _ in report.rejected] == [f"{a.id}:raised", f"{a.id}:closed"]
        assert "HTTP 422" in report.rejected[0][1] and "waits for" in report.rejected[1][1]
        assert ledger.count() == 0 and not fake_github.issues
        (report,) = deliver_all(store.alerts(), [github(GitHubIssuesChannel, fake_github)], ledger)
    assert report.delivered == [f"{a.id}:raised", f"{a.id}:closed"]
    assert fake_github.issues[1]["state"] == "closed" and len(fake_github.comments[1]) == 1


# --- the fake holds the line ----------------------------------------------------------------------

def test_the_fake_rejects_requests_that_break_the_contract(fake_github):
    headers = {"Authorization": f"Bearer {TOKEN}", "Accept": "application/vnd.github+json"}
    base = f"{fake_github.url}/repos/{REPO}"
    bad = [("POST", "/issues", {"titel": "typo"}),                       # misspelt, and title missing
           ("POST", "/issues", {"title": "x", "labels": "perfgate"}),    # labels must be a list
           ("PATCH", "/issues/1", {"state": "resolved"}),                # not in the enum
           ("POST", f"/statuses/{sha(1)}", {"state": "red"}),
           ("GET", "/issues?state=all&per_page=many", None),             # not an integer
           ("GET", "/issues?colour=red", None)]                          # undeclared parameter
    for method, path, body in bad:
        r = httpx.request(method, base + path, json=body, headers=headers)
        assert r.status_code == 422, (method, path, r.text)
    assert len(fake_github.problems) >= len(bad)
    assert not fake_github.issues and not fake_github.statuses
    fake_github.problems.clear()


def test_the_fake_refuses_to_send_a_response_that_breaks_the_contract(fake_github, monkeypatch):
    from fake_github.server import FakeGitHub

    original = FakeGitHub._new_issue
    monkeypatch.setattr(FakeGitHub, "_new_issue", lambda self, body: {**original(self, body), "number": "one"})
    r = httpx.post(f"{fake_github.url}/repos/{REPO}/issues", json={"title": "x"},
                   headers={"Authorization": f"Bearer {TOKEN}", "Accept": "application/vnd.github+json"})
    assert r.status_code == 500 and any("number" in p for p in fake_github.problems)
    fake_github.problems.clear()


def test_a_second_notifier_waits_for_the_first_and_finds_everything_delivered(tmp_path, receiver):
    import threading

    store, _ = stored(tmp_path, [make_alert(10), make_alert(20, benchmark="parse")])
    alerts, results = store.alerts(), []
    first = Ledger(tmp_path / "notify.db")

    def second():
        with Ledger(tmp_path / "notify.db") as ledger:
            results.append(deliver_all(alerts, [webhook(receiver)], ledger)[0])

    t = threading.Thread(target=second)
    t.start()
    t.join(0.5)
    assert t.is_alive() and results == []   # blocked on the lock
    (report,) = deliver_all(alerts, [webhook(receiver)], first)
    first.close()
    t.join(10)
    assert len(report.delivered) == 2 and results[0].delivered == [] and results[0].already == 2
    assert len(receiver.requests) == 2


def test_a_lost_ledger_finds_every_issue_again_across_pages(tmp_path, fake_github, monkeypatch):
    import perfgate.github.client as gh

    monkeypatch.setattr(gh, "PER_PAGE", 2)  # five issues over three pages of the Link-paged list
    store, alerts = stored(tmp_path, [make_alert(10 * i, benchmark=f"b{i}") for i in range(5)])
    with Ledger(tmp_path / "first.db") as ledger:
        deliver_all(store.alerts(), [github(GitHubIssuesChannel, fake_github)], ledger)
    assert len(fake_github.issues) == 5
    store.acknowledge(alerts[-1].id)
    with Ledger(tmp_path / "second.db") as ledger:   # the cache was lost: nothing recorded
        (report,) = deliver_all(store.alerts(), [github(GitHubIssuesChannel, fake_github)], ledger)
    assert len(report.delivered) == 6 and len(fake_github.issues) == 5
    assert fake_github.issues[5]["state"] == "closed" and len(fake_github.comments[5]) == 1
    pages = {r["query"].get("page", ["1"])[0] for r in fake_github.requests if r["op"] == "issues/list-for-repo"}
    assert pages == {"1", "2", "3"}


def test_the_range_link_covers_every_candidate_commit():
    from perfgate.notify import render

    one = make_alert(10)
    assert render.range_url(LINKS, one) == f"https://github.com/acme/widget/compare/{sha(9)}...{sha(10)}"
    # The likeliest commit in the middle of its candidate range: the view spans the whole range.
    wide = make_alert(10, span=3)
    wide.commit_range = (sha(8), sha(9), sha(10))
    assert render.range_url(LINKS, wide) == f"https://github.com/acme/widget/compare/{sha(8)}^...{sha(10)}"
    assert wide.last_good() == "" and "| last good commit | — |" in render.evidence_table(wide, LINKS)
    assert render.range_url(Links(), wide) == ""


def test_the_levels_are_written_in_the_measures_unit():
    from perfgate.notify import render

    slow = make_alert(10)
    slow.details = {"before": 1.52e6, "after": 1.7024e6}          # latency is kept in nanoseconds
    assert "| level before → after | 1.520 ms → 1.702 ms |" in render.evidence_table(slow, LINKS)
    count = make_alert(10, measure="instructions")
    count.details = {"before": 47_596_000.0, "after": 70_927_400.0}
    assert "| level before → after | 47.60M → 70.93M |" in render.evidence_table(count, LINKS)


def test_an_alert_found_where_siblings_changed_names_them():
    from perfgate.notify import render
    from perfgate.notify.events import Event

    alert = make_alert(10)
    alert.details["siblings"] = ["copy|1 [latency]", "copy2 [instructions]", "c3 [latency]", "c4 [latency]"]
    table = render.evidence_table(alert, LINKS)
    assert ("tested at this commit because `copy\\|1 [latency]`, `copy2 [instructions]`, `c3 [latency]` "
            "and 1 more changed here |") in table
    text = render.plain_text(Event("raised", alert), LINKS)
    assert "tested here because `copy|1 [latency]`, `copy2 [instructions]`, `c3 [latency]` and 1 more changed here" in text
    assert "because" not in render.evidence_table(make_alert(10), LINKS)


def test_an_alert_placed_where_siblings_changed_names_them():
    from perfgate.notify import render
    from perfgate.notify.events import Event

    alert = make_alert(10)
    alert.details["placed_with"] = ["a [latency]"]
    assert "placed at this commit because `a [latency]` changed here |" in render.evidence_table(alert, LINKS)
    assert "placed here because `a [latency]` changed here" in render.plain_text(Event("raised", alert), LINKS)
    assert "tested" not in render.evidence_table(alert, LINKS)


def test_a_threshold_alerts_later_values_past_the_limit_are_not_suspects():
    """Wall time alerts after two values in a row past its limit: the alert names the first, and
    its ``commit_range`` holds both.  The second run is slow too, not a commit the regression
    could have started at: the messages name one first bad commit and say how many were past."""
    from perfgate.notify import render

    streak = make_alert(10, span=3)
    streak.kind, streak.ci_low, streak.ci_high = "threshold", None, None
    table = render.evidence_table(streak, LINKS)
    assert "| first bad commit |" in table and "commit range" not in table and "another of" not in table
    assert f"| past the limit | 3 values in a row (`{sha(10)[:10]}..{sha(12)[:10]}`) |" in table
    assert f"| last good commit | [`{sha(9)[:10]}`]" in table
    assert render.range_url(LINKS, streak) == f"https://github.com/acme/widget/compare/{sha(9)}...{sha(10)}"
    text = render.plain_text(Event("raised", streak), LINKS)
    assert "(3 values in a row past its limit)" in text and "one of 3 commits" not in text
    # a change point's range is its candidates, as before
    wide = make_alert(10, span=3)
    assert "one of 3 commits" in render.plain_text(Event("raised", wide), LINKS)
    assert "past the limit" not in render.evidence_table(wide, LINKS)


def test_the_chat_message_says_what_an_issue_says_and_copies_cleanly():
    """Before and after levels, how to acknowledge, names as inline code (a pasted testbed is the
    testbed: no invisible word joiners), and an acknowledgement is not announced as a fix."""
    from perfgate.notify import render
    from perfgate.notify.events import Event

    alert = make_alert(10)
    alert = Alert(**{**alert.__dict__, "testbed": "linux-x86_64", "benchmark": "BM_Sort<int>", "id": "a1b2"})
    text = render.plain_text(Event("raised", alert), LINKS)
    assert "`BM_Sort&lt;int&gt;` [`latency`] on `main@linux-x86_64`" in text and "\u2060" not in text
    assert "(100 ns → 112.0 ns)" in text and "once understood: `perfgate alerts --ack a1b2`" in text
    acked = render.plain_text(Event("closed", alert, reason="acknowledged"), LINKS)
    assert acked.startswith(":ballot_box_with_check: Acknowledged: ") and "not undone" in acked
    assert "white_check_mark" not in acked and "Resolved" not in acked
    fix = make_alert(20, direction="improvement", magnitude=-0.1)
    undone = render.plain_text(Event("closed", alert, fix, reason="undone"), LINKS)
    assert undone.startswith(":white_check_mark: Undone: ") and "by -10.00% at" in undone


def test_an_issue_title_stays_within_githubs_256_characters():
    """A benchmark name may hold 1,024 characters; GitHub refuses an issue title past 256 (422),
    so such an alert's issue was never opened."""
    from perfgate.notify import render

    alert = make_alert(10)
    short_one = render.title(alert)
    assert short_one == f"Performance regression: sort 1e6 [latency] +12.00% at {alert.commit[:10]} on main"
    long = Alert(**{**alert.__dict__, "benchmark": "BM_Parse/" + "x" * 1000})
    cut = render.title(long)
    assert len(cut) == render.TITLE_MAX and cut.startswith("Performance regression: BM_Parse/xxx")
    assert cut.endswith(f"… [latency] +12.00% at {alert.commit[:10]} on main"), cut
    wide = Alert(**{**long.__dict__, "branch": "b" * 256})
    assert len(render.title(wide)) == render.TITLE_MAX


def test_a_threshold_alert_gives_its_numbers_not_a_dash():
    from perfgate.notify import render
    from perfgate.notify.events import Event

    alert = make_alert(10)
    alert = Alert(**{**alert.__dict__, "kind": "threshold", "ci_low": None, "ci_high": None, "p_value": None,
                     "magnitude": 0.2709, "details": {"test": "t_test", "value": 29.27e6, "baseline": 23.03e6,
                                                      "baseline_size": 20, "upper_limit": 23.55e6,
                                                      "lower_limit": None}})
    numbers = "newest 29.27 ms against a baseline of 20 runs of 23.03 ms, past its t_test limit 23.55 ms"
    text = render.plain_text(Event("raised", alert), LINKS)
    assert "+27.09% over its baseline" in text and numbers in text and "; —" not in text
    table = render.evidence_table(alert, LINKS)
    assert f"| evidence | {numbers}; found by the threshold test |" in table


def test_a_threshold_streak_that_ended_says_so():
    from perfgate.notify import render

    alert = make_alert(10)
    alert = Alert(**{**alert.__dict__, "kind": "threshold", "ci_low": None, "ci_high": None, "p_value": None,
                     "details": {"test": "t_test", "value": 29.27e6, "baseline": 23.03e6, "baseline_size": 20,
                                 "upper_limit": 23.55e6, "ended_at": "c0043"}})
    assert render.threshold_numbers(alert) == ("streak 29.27 ms against a baseline of 20 runs of 23.03 ms, past its "
                                               "t_test limit 23.55 ms; a later run ended it")


def test_a_threshold_alert_a_change_point_takes_over_is_sent_again_as_an_update(tmp_path, receiver, fake_github):
    """An audit: a webhook got "+28.80% over its baseline" from a threshold alert; the change
    point found two runs later took that alert over (same id, +30.41% with its interval) and no
    one was told.  Each channel that heard of the first finding now hears of the better one; a
    channel that first hears of the alert after the update gets the raised message alone."""
    first = make_alert(10, span=2)
    first = Alert(**{**first.__dict__, "kind": "threshold", "magnitude": 0.288, "ci_low": None, "ci_high": None,
                     "p_value": None, "details": {"test": "t_test", "value": 128.8, "baseline": 100.0,
                                                  "baseline_size": 20, "upper_limit": 110.0, "lower_limit": None}})
    store, (threshold,) = stored(tmp_path, [first])
    with Ledger(tmp_path / "notify.db") as ledger:
        channels = [webhook(receiver), github(GitHubIssuesChannel, fake_github)]
        deliver_all(store.alerts(), channels, ledger)
        store.record_alerts([make_alert(10, magnitude=0.3041)])
        (took_over,) = store.alerts()
        assert took_over.id == threshold.id and took_over.details["superseded"] == "threshold"
        hook, issues = deliver_all(store.alerts(), channels, ledger)
        update = f"{threshold.id}:updated:change_point@{sha(10)}"
        assert hook.delivered == [update] and issues.delivered == [update]
        assert [e.kind for e in derive_events(store.alerts())] == ["raised", "updated"]
        sent = receiver.processed[idempotency_key(derive_events(store.alerts())[1])]
        assert sent["event"] == "updated" and sent["alert"]["magnitude"] == pytest.approx(0.3041)
        assert "Updated: `sort 1e6` [`latency`] on `main@ci-x86`: the threshold alert was confirmed by a change " \
               "point" in sent["text"] and "+30.41% (99% CI [+24.33%, +36.49%])" in sent["text"]
        assert "(was +28.80%)" in sent["text"] and f"`{ack_hint_of(threshold)}`" in sent["text"]
        (comment,) = fake_github.comments[1]
        assert comment["body"].startswith("Updated: the threshold alert was confirmed by a change point") \
            and "+30.41%" in comment["body"] and fake_github.issues[1]["state"] == "open"
        assert deliver_all(store.alerts(), channels, ledger)[0].delivered == []

    class Late(Channel):                               # a channel added after the update
        kind, sent = "late", []

        def handles(self, event):
            return True

        def deliver(self, event, refs):
            self.sent.append(event)

    with Ledger(tmp_path / "new.db") as fresh:
        late = Late("x")
        (report,) = deliver_all(store.alerts(), [late], fresh)
        assert report.delivered == [f"{threshold.id}:raised"] and late.sent[0].alert.magnitude == pytest.approx(0.3041)
        assert report.folded == [update]
        assert fresh.delivered(late.key, update)


def ack_hint_of(alert):
    return f"perfgate alerts --ack {alert.id}"


def threshold_alert(i: int, magnitude: float = 0.2675) -> Alert:
    a = make_alert(i, span=2)
    return Alert(**{**a.__dict__, "kind": "threshold", "magnitude": magnitude, "ci_low": None, "ci_high": None,
                    "p_value": None, "details": {"test": "t_test", "value": 126.75, "baseline": 100.0,
                                                 "baseline_size": 20, "upper_limit": 110.0, "lower_limit": None}})


def test_an_update_follows_a_raised_message_that_waited_in_the_spool(tmp_path, receiver):
    """An audit: the webhook was down when the threshold alert was raised; once it was back, the
    spooled (out of date) threshold message went out, and the update was recorded as sent."""
    store, (a,) = stored(tmp_path, [threshold_alert(10)])
    receiver.down = True
    with Ledger(tmp_path / "notify.db") as ledger:
        assert deliver_all(store.alerts(), [webhook(receiver)], ledger)[0].spooled == [f"{a.id}:raised"]
        store.record_alerts([make_alert(11, magnitude=0.2777)])           # a change point takes it over
        receiver.down = False
        (report,) = deliver_all(store.alerts(), [webhook(receiver)], ledger)
    assert report.delivered == [f"{a.id}:raised", f"{a.id}:updated:change_point@{sha(11)}"]
    assert "(was +26.75% at " in receiver.processed[idempotency_key(derive_events(store.alerts())[1])]["text"]


def test_a_closed_alert_gets_no_update_and_bisect_updates_an_open_one(tmp_path, receiver):
    store, (a, b) = stored(tmp_path, [threshold_alert(10), make_alert(20, benchmark="parse", span=4)])
    ledger = Ledger(tmp_path / "notify.db")
    deliver_all(store.alerts(), [webhook(receiver)], ledger)
    store.acknowledge(a.id)
    store.record_alerts([make_alert(10, magnitude=0.3)])                  # takes over the acknowledged one
    assert [e.kind for e in derive_events(store.alerts()) if e.alert.id == a.id] == ["raised", "closed"]
    # bisect narrows b's four commits to one (what `perfgate bisect` writes)
    (b,) = [x for x in store.alerts() if x.id == b.id]
    b.details = {**b.details, "bisect": {"commit_before": b.commit, "steps": []}}
    b.commit, b.commit_range = sha(22), (sha(22),)
    store.update_alert(b)
    (update,) = [e for e in derive_events(store.alerts()) if e.kind == "updated"]
    with ledger:
        (report,) = deliver_all(store.alerts(), [webhook(receiver)], ledger)
    assert report.delivered == [update.id, f"{a.id}:closed"]
    text = receiver.processed[idempotency_key(update)]["text"]
    assert update.id == f"{b.id}:updated:change_point@{sha(22)}"
    assert "Updated: `parse` [`latency`] on `main@ci-x86`: bisect narrowed it to one commit" in text
    assert f"(was at `{sha(20)[:10]}`)" in text


def test_a_change_at_the_end_of_a_thinned_backfills_gap_is_not_named_the_culprit():
    """Before bisect, the demo's messages named the changelog commit at the end of each gap as the
    change, with nothing to say it could be any of the unmeasured commits before it."""
    from perfgate.notify.render import evidence_table, plain_text

    alert = Alert("main", "tb", "copy", "instructions", "b" * 40, "regression", 0.0148, kind="change_point",
                  previous_commit="a" * 40, commit_range=("b" * 40,), id="4952cc8a-0000")
    links = Links(repo_url="https://github.com/o/r", commits_after=lambda older, newer: 3)
    text = plain_text(Event("raised", alert), links)
    assert "(one of 3 commits, some not measured" in text and "`perfgate bisect 4952cc8a-0000`" in text
    assert "compare/" + "a" * 40 + "..." + "b" * 40 in text
    table = evidence_table(alert, links)
    assert "| commit range |" in table and "another of the 3 commits after the last one measured" in table
    assert "perfgate bisect" in table
    # measured commit by commit (or the gap unknown): the commit is the culprit, as before
    for exact in (Links(commits_after=lambda older, newer: 1), Links()):
        assert "not measured" not in plain_text(Event("raised", alert), exact)
        assert "| first bad commit |" in evidence_table(alert, exact)


def test_a_range_of_measured_commits_after_a_thinned_backfill_counts_the_unmeasured_ones_before_it():
    """A change that could be at c21 or c25 (measured every 4th commit) could be any of c18..c25:
    the message said "one of 2 commits" and its compare link began at c21's parent."""
    from perfgate.notify.render import evidence_table, plain_text

    c17, c21, c25 = "1" * 40, "2" * 40, "3" * 40
    alert = Alert("main", "tb", "copy", "latency", c25, "regression", 0.2, kind="change_point",
                  previous_commit=c21, commit_range=(c21, c25), details={"last_measured": c17}, id="77aa")
    links = Links(repo_url="https://github.com/o/r", commits_after=lambda older, newer: 8)
    assert alert.last_good() == c17
    text = plain_text(Event("raised", alert), links)
    assert "(one of 8 commits, some not measured" in text and f"compare/{c17}...{c25}" in text, text
    assert "another of the 8 commits after the last one measured" in evidence_table(alert, links)
    # measured commit by commit: the two measured commits are the whole range, as before
    assert "(one of 2 commits:" in plain_text(Event("raised", alert), Links(commits_after=lambda older, newer: 2))


def test_a_range_of_suspects_is_written_as_a_git_range_holding_the_first_of_them():
    """`c1..c3` is c2 and c3 to git: the issue said "another of 3 commits (`c1..c3`)", and a
    reader pasting that range into `git log` never saw c1.  Written `c1^..c3`, as `perfgate alerts`
    writes it; after a thinned backfill it starts at the last measured commit, which it excludes."""
    from perfgate.notify.render import evidence_table

    c0, c1, c2, c3 = "0" * 40, "1" * 40, "2" * 40, "3" * 40
    alert = Alert("main", "tb", "copy", "latency", c2, "regression", 0.2, kind="change_point",
                  previous_commit=c0, commit_range=(c1, c2, c3), details={"last_measured": c0}, id="88bb")
    links = Links(repo_url="https://github.com/o/r", commits_after=lambda older, newer: 3)
    table = evidence_table(alert, links)
    assert f"another of 3 commits ([`{c1[:10]}^..{c3[:10]}`](https://github.com/o/r/compare/{c0}...{c3}))" in table, table
    assert f"`{c1[:10]}..{c3[:10]}`" not in table
    thinned = Links(repo_url="https://github.com/o/r", commits_after=lambda older, newer: 9)
    assert f"[`{c0[:10]}..{c3[:10]}`](https://github.com/o/r/compare/{c0}...{c3})" in evidence_table(alert, thinned)


def test_a_range_alert_tells_its_reader_to_bisect():
    """A regression that could be any of 11 commits told a chat only "once understood: ack": the
    next step, `perfgate bisect ID`, was in the commit comment alone."""
    from perfgate.notify.render import issue_body, plain_text

    c0, c1, c2, c3 = "0" * 40, "1" * 40, "2" * 40, "3" * 40
    alert = Alert("main", "tb", "copy", "latency", c2, "regression", 0.2, kind="change_point",
                  previous_commit=c0, commit_range=(c1, c2, c3), details={"last_measured": c0}, id="77cc")
    links = Links(repo_url="https://github.com/o/r", commits_after=lambda older, newer: 3)
    assert "(one of 3 commits: <https://github.com/o/r/compare/" in plain_text(Event("raised", alert), links)
    assert "; `perfgate bisect 77cc` finds which)" in plain_text(Event("raised", alert), links)
    assert "Narrow the range to its first bad commit with `perfgate bisect 77cc`." in issue_body(alert, links)
    one = Alert("main", "tb", "copy", "latency", c2, "regression", 0.2, kind="change_point",
                previous_commit=c1, commit_range=(c2,), details={"last_measured": c1}, id="77cd")
    exact = Links(repo_url="https://github.com/o/r", commits_after=lambda older, newer: 1)
    assert "bisect" not in plain_text(Event("raised", one), exact) and "bisect" not in issue_body(one, exact)


def test_the_likeliest_commits_subject_stands_beside_it_not_after_the_range():
    """The evidence table's "commit range" cell ended "…another of 11 commits (`a^..b`) `docs: note
    16`": the subject of the likeliest commit read as the range's."""
    from perfgate.notify.render import evidence_table

    c0, c1, c2, c3 = "0" * 40, "1" * 40, "2" * 40, "3" * 40
    alert = Alert("main", "tb", "copy", "latency", c2, "regression", 0.2, kind="change_point",
                  previous_commit=c0, commit_range=(c1, c2, c3), details={"last_measured": c0}, id="99cc")
    links = Links(repo_url="https://github.com/o/r", commits_after=lambda older, newer: 3,
                  subject_of=lambda sha: "docs: note 16 (Ada)" if sha == c2 else None)
    row = next(r for r in evidence_table(alert, links).splitlines() if r.startswith("| commit range |"))
    assert row.startswith(f"| commit range | [`{c2[:10]}`](https://github.com/o/r/commit/{c2}) `docs: note 16 (Ada)` "
                          "(likeliest) or another of 3 commits ("), row
    assert row.endswith(")) |"), row
    # one commit: the subject follows it as before
    one = Alert("main", "tb", "copy", "latency", c2, "regression", 0.2, kind="change_point",
                previous_commit=c1, commit_range=(c2,), details={"last_measured": c1}, id="99cd")
    one_links = Links(repo_url="https://github.com/o/r", commits_after=lambda older, newer: 1,
                      subject_of=links.subject_of)
    assert f"(https://github.com/o/r/commit/{c2}) `docs: note 16 (Ada)` |" in evidence_table(one, one_links)


def test_a_change_point_later_runs_no_longer_show_is_closed_as_withdrawn(tmp_path, receiver, fake_github):
    """A change point the analysis of later runs no longer finds (``detect`` marks it withdrawn):
    its issue closes, its commit status turns to success, a chat hears it; the ids stay those of a
    closed alert, and a withdrawn regression hears of no later regression of its series."""
    from perfgate.notify import render

    store, (a,) = stored(tmp_path, [make_alert(10)])
    channels = [webhook(receiver), github(GitHubIssuesChannel, fake_github), github(GitHubStatusChannel, fake_github)]
    with Ledger(tmp_path / "notify.db") as ledger:
        deliver_all(store.alerts(), channels, ledger)
        a.details["withdrawn_at"] = sha(40)
        store.update_alert(a)
        (b,) = store.record_alerts([make_alert(50, magnitude=0.3)])
        events = derive_events(store.alerts())
        assert [(e.kind, e.alert.id, e.reason) for e in events] == [
            ("raised", a.id, ""), ("raised", b.id, ""), ("closed", a.id, "withdrawn")]
        assert events[-1].id == f"{a.id}:closed"
        deliver_all(store.alerts(), channels, ledger)
    assert fake_github.issues[1]["state"] == "closed"
    assert fake_github.comments[1][-1]["body"].startswith(
        f"Closing: No longer found: the analysis of the runs up to `{sha(40)[:10]}` does not find this change any "
        "more; the runs since do not show it")
    [sent] = [m for m in receiver.processed.values() if m["event"] == "closed"]
    assert sent["reason"] == "withdrawn" and sent["text"].startswith(":heavy_minus_sign: No longer found: ")
    assert "the runs since do not show it" in sent["text"]
    assert render.plain_text(events[-1], LINKS) == sent["text"]
    from perfgate.notify.github_status import state_and_description
    assert state_and_description(events[-1]) == ("success", f"regression latency +12.00% no longer found at "
                                                            f"{sha(40)[:10]}")


def test_a_withdrawn_regression_found_again_is_reopened_on_every_channel(tmp_path, receiver, fake_github):
    """A change point closed as no longer found that a later analysis finds again was left closed:
    its issue, status and chat said it was gone while the regression was back.  Told as the
    withdrawal was (issue, status, chat), once per time; a second withdrawal closes it again."""
    from perfgate.alert_history import WITHDRAW_AFTER_RUNS, Analysed, withdrawals
    from perfgate.notify.github_status import state_and_description

    store, (a,) = stored(tmp_path, [make_alert(10)])
    channels = [webhook(receiver), github(GitHubIssuesChannel, fake_github), github(GitHubStatusChannel, fake_github)]
    def detect(newest: int, found: bool) -> None:
        # the analysis of the runs up to sha(newest); one not finding the change is the second of
        # two, 10 runs apart, that do not (a change is withdrawn once 10 runs have not shown it)
        for runs in ([newest] if found else [newest - WITHDRAW_AFTER_RUNS, newest]):
            key = ("main", "ci-x86", "sort 1e6", "latency")
            for changed in withdrawals(store.alerts(), [make_alert(10)] if found else [], {key: Analysed(sha(runs), runs)}):
                store.update_alert(changed)

    with Ledger(tmp_path / "notify.db") as ledger:
        deliver_all(store.alerts(), channels, ledger)
        detect(40, found=False)
        deliver_all(store.alerts(), channels, ledger)
        assert fake_github.issues[1]["state"] == "closed"
        detect(50, found=True)
        events = derive_events(store.alerts())
        assert [e.id for e in events] == [f"{a.id}:raised", f"{a.id}:closed", f"{a.id}:reopened"]
        (hook, issues, status) = deliver_all(store.alerts(), channels, ledger)
        assert hook.delivered == issues.delivered == status.delivered == [f"{a.id}:reopened"]
        assert fake_github.issues[1]["state"] == "open"
        assert fake_github.comments[1][-1]["body"].startswith(
            f"Reopening: found again: the analysis of the runs up to `{sha(50)[:10]}` finds this change again "
            f"(it was no longer found at `{sha(40)[:10]}`)")
        assert fake_github.statuses[sha(10)][0]["state"] == "failure"
        assert state_and_description(events[-1])[1] == "regression: latency +12.00%, p = 0.0001 on main, found again"
        [sent] = [m for m in receiver.processed.values() if m["event"] == "reopened"]
        assert sent["text"].startswith(":rotating_light: Found again: ") and sent["alert"]["status"] == "active"
        # withdrawn a second time: closed again, under an id of its own (the first close was delivered)
        detect(60, found=False)
        (hook, issues, status) = deliver_all(store.alerts(), channels, ledger)
        assert issues.delivered == [f"{a.id}:closed:2"] and fake_github.issues[1]["state"] == "closed"
        assert (f"no analysis of the runs from `{sha(50)[:10]}` up to `{sha(60)[:10]}` finds this change"
                in fake_github.comments[1][-1]["body"])
        assert fake_github.statuses[sha(10)][0]["state"] == "success"
        assert deliver_all(store.alerts(), channels, ledger)[0].delivered == []     # each told once
        # a new channel that skips closed history skips it all: the alert is closed now
        with Ledger(tmp_path / "other.db") as other:
            (fresh,) = deliver_all(store.alerts(), [webhook(receiver)], other, skip_closed=True)
        assert fresh.delivered == [] and fresh.skipped_alerts == {a.id}


def test_a_weak_change_found_and_lost_by_turns_does_not_close_and_reopen_its_issue(tmp_path, receiver, fake_github):
    """A weak change's p-value hovers about the bar as runs arrive: withdrawn at its first miss, it
    closed and reopened its issue (and pinged its chat) every few runs.  Withdrawn only once 10
    runs have not shown it, a change lost for less than that and found again is told nothing."""
    from perfgate.alert_history import Analysed, withdrawals

    store, (a,) = stored(tmp_path, [make_alert(10)])
    channels = [webhook(receiver), github(GitHubIssuesChannel, fake_github)]
    key = ("main", "ci-x86", "sort 1e6", "latency")
    with Ledger(tmp_path / "notify.db") as ledger:
        deliver_all(store.alerts(), channels, ledger)
        for runs, found in ((41, False), (43, False), (45, True), (47, False), (50, False), (56, False),
                            (57, True), (60, False), (69, False)):
            for changed in withdrawals(store.alerts(), [make_alert(10)] if found else [], {key: Analysed(sha(runs), runs)}):
                store.update_alert(changed)
            (hook, issues) = deliver_all(store.alerts(), channels, ledger)
            assert hook.delivered == issues.delivered == [], runs
        assert fake_github.issues[1]["state"] == "open"
        [now] = store.alerts()
        assert now.details["unfound_since"] == {"commit": sha(60), "runs": 60} and "reopened" not in now.details
        for changed in withdrawals(store.alerts(), [], {key: Analysed(sha(70), 70)}):   # the 10th run since
            store.update_alert(changed)
        (hook, issues) = deliver_all(store.alerts(), channels, ledger)
        assert hook.delivered == issues.delivered == [f"{a.id}:closed"]
        assert fake_github.issues[1]["state"] == "closed"
        assert (f"No longer found: no analysis of the runs from `{sha(60)[:10]}` up to `{sha(70)[:10]}` finds this "
                "change any more") in fake_github.comments[1][-1]["body"]


def test_a_reopened_regression_is_not_skipped_as_closed_history(tmp_path, receiver):
    from perfgate.alert_history import Analysed, withdrawals

    store, (a,) = stored(tmp_path, [make_alert(10)])
    key = ("main", "ci-x86", "sort 1e6", "latency")
    for runs, found in ((30, []), (40, []), (50, [make_alert(10)])):       # withdrawn at 40, found again
        for changed in withdrawals(store.alerts(), found, {key: Analysed(sha(runs), runs)}):
            store.update_alert(changed)
    with Ledger(tmp_path / "notify.db") as ledger:
        (report,) = deliver_all(store.alerts(), [webhook(receiver)], ledger, skip_closed=True)
    assert report.delivered == [f"{a.id}:raised", f"{a.id}:closed", f"{a.id}:reopened"] and not report.skipped
