"""The commit status follows an alert that moves to another commit (bisect narrows its range, a
change point takes over a threshold alert, a change is placed at its siblings' commit).  An
audit: issues and commit comments heard of the move, but the old commit's status stayed
"failure" for ever (GitHub shows it as current) and the new commit got none until the alert
closed.  Now the old commit turns "success", saying where the alert went, and the new one fails."""

from __future__ import annotations

import random

from fake_github.fixtures import FAST, REPO, TOKEN, fake_github, make_alert, sha  # noqa: F401
from test_notify import threshold_alert

from perfgate.notify.base import Links
from perfgate.notify.deliver import deliver_all
from perfgate.notify.events import derive_events
from perfgate.notify.github_status import GitHubStatusChannel
from perfgate.notify.ledger import Ledger
from perfgate.store.sqlite import SqliteStore

LINKS = Links("https://acme.github.io/widget", "https://github.com/acme/widget")
CONTEXT = "perfgate/sort 1e6 [latency]"


def status_channel(fake):
    return GitHubStatusChannel(REPO, LINKS, token=TOKEN, api_url=fake.url, policy=FAST, sleep=lambda s: None,
                               rng=random.Random(1))


def shown(fake, commit):
    """(state, description) of each status on ``commit``, newest (the one GitHub shows) first."""
    return [(s["state"], s["description"]) for s in fake.statuses.get(commit, [])]


def bisect_to(store, alert_id, commit):
    """What `perfgate bisect` writes: the alert's one commit, and the commit it was at before."""
    (alert,) = [x for x in store.alerts() if x.id == alert_id]
    alert.details = {**alert.details, "bisect": {"commit_before": alert.commit, "steps": []}}
    alert.commit, alert.commit_range = commit, (commit,)
    store.update_alert(alert)


def test_bisect_moving_an_alert_clears_the_old_commits_failure_and_fails_the_new_one(tmp_path, fake_github):
    with SqliteStore(tmp_path / "history.db") as store, Ledger(tmp_path / "notify.db") as ledger:
        (a,) = store.record_alerts([make_alert(20, span=4)])
        deliver_all(store.alerts(), [status_channel(fake_github)], ledger)
        failing = ("failure", "regression: latency +12.00%, p = 0.0001 on main")
        assert shown(fake_github, sha(20)) == [failing]
        bisect_to(store, a.id, sha(22))
        (report,) = deliver_all(store.alerts(), [status_channel(fake_github)], ledger)
        assert report.delivered == [f"{a.id}:updated:change_point@{sha(22)}"] and not report.rejected
        assert shown(fake_github, sha(20)) == [("success", f"regression latency +12.00% moved to {sha(22)[:10]}"),
                                               failing]
        assert shown(fake_github, sha(22)) == [failing]
        assert all(s["context"] == CONTEXT for c in (sha(20), sha(22)) for s in fake_github.statuses[c])
        # a lost ledger sends nothing again: each commit shows what it should already
        writes = len(fake_github.writes())
        with Ledger(tmp_path / "fresh.db") as fresh:
            deliver_all(store.alerts(), [status_channel(fake_github)], fresh)
        assert len(fake_github.writes()) == writes
        store.acknowledge(a.id)
        (report,) = deliver_all(store.alerts(), [status_channel(fake_github)], ledger)
        assert report.delivered == [f"{a.id}:closed"]
    assert shown(fake_github, sha(22))[0] == ("success", "regression latency +12.00% acknowledged")
    assert len(shown(fake_github, sha(20))) == 2                      # the old commit is left alone


def test_a_change_point_taking_over_a_threshold_alert_at_another_commit_moves_its_status(tmp_path, fake_github):
    with SqliteStore(tmp_path / "history.db") as store, Ledger(tmp_path / "notify.db") as ledger:
        (a,) = store.record_alerts([threshold_alert(10)])
        deliver_all(store.alerts(), [status_channel(fake_github)], ledger)
        assert shown(fake_github, sha(10)) == [("failure", "regression: latency +26.75% on main")]
        store.record_alerts([make_alert(11, magnitude=0.2777)])        # placed at the next commit
        (update,) = [e for e in derive_events(store.alerts()) if e.kind == "updated"]
        (report,) = deliver_all(store.alerts(), [status_channel(fake_github)], ledger)
        assert report.delivered == [update.id] and not report.rejected
    assert shown(fake_github, sha(10))[0] == ("success", f"regression latency +27.77% moved to {sha(11)[:10]}")
    assert shown(fake_github, sha(11)) == [("failure", "regression: latency +27.77%, p = 0.0001 on main")]


def test_two_moves_told_in_one_update_clear_the_first_commit_too(tmp_path, fake_github):
    """Taken over at the next commit, then bisected further before notify ran again: the update
    says bisect moved it from the second commit, but the failure is on the first."""
    with SqliteStore(tmp_path / "history.db") as store, Ledger(tmp_path / "notify.db") as ledger:
        (a,) = store.record_alerts([threshold_alert(10)])
        deliver_all(store.alerts(), [status_channel(fake_github)], ledger)
        store.record_alerts([make_alert(11, magnitude=0.2777, span=3)])
        bisect_to(store, a.id, sha(12))
        (report,) = deliver_all(store.alerts(), [status_channel(fake_github)], ledger)
        assert len(report.delivered) == 1 and not report.rejected
    assert shown(fake_github, sha(10))[0] == ("success", f"regression latency +27.77% moved to {sha(12)[:10]}")
    assert sha(11) not in fake_github.statuses                         # never failed there: nothing to clear
    assert shown(fake_github, sha(12)) == [("failure", "regression: latency +27.77%, p = 0.0001 on main")]


def test_an_update_at_the_same_commit_sets_no_status(tmp_path, fake_github):
    with SqliteStore(tmp_path / "history.db") as store, Ledger(tmp_path / "notify.db") as ledger:
        (a,) = store.record_alerts([threshold_alert(10)])
        deliver_all(store.alerts(), [status_channel(fake_github)], ledger)
        store.record_alerts([make_alert(10, magnitude=0.3)])           # confirmed where it was
        assert [e.kind for e in derive_events(store.alerts())] == ["raised", "updated"]
        (report,) = deliver_all(store.alerts(), [status_channel(fake_github)], ledger)
    assert report.delivered == [] and len(fake_github.statuses[sha(10)]) == 1
