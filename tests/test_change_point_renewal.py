"""A change point alert found again by a later, surer analysis takes that analysis's figures: an
audit found an alert kept the size and eleven suspects of the detect that first found it for good,
while every later detect printed the change, "known", at +32% with a range of two commits.  Same
id, status and time; an acknowledged or bisected alert keeps what it has; a narrowed range is told
once, a re-estimate of the size not at all."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from types import SimpleNamespace

import numpy as np
import pytest
from fake_github.fixtures import FAST, REPO, TOKEN, fake_github, receiver  # noqa: F401 - fixtures

from perfgate.bencher.alert_memory import AlertMemory
from perfgate.commands.bisect import _update
from perfgate.model import Alert, Metric, Run
from perfgate.model import Testbed as Bed
from perfgate.notify.base import Links
from perfgate.notify.deliver import deliver_all
from perfgate.notify.github_issues import GitHubIssuesChannel
from perfgate.notify.ledger import Ledger
from perfgate.notify.webhook import WebhookChannel
from perfgate.store.sqlite import SqliteStore

LINKS = Links("https://acme.github.io/widget", "https://github.com/acme/widget")
# No threshold alert: the change point is the only finding.
NO_LIMIT = '[measure.latency]\ntest = "static"\nupper_boundary = 1e12\n'
FIRST, LAST = 34, 41        # the detect that raises the alert, and the last of those after each run
# A +8% step at run 30 in 4% noise: found at run 34 as +11.55% on commits 29-33; the analysis of
# the runs to 41 gives +7.47% on commits 28-30 with a smaller p-value (the detects between find it
# no surer, or tell nothing new).
VALUES = 1e6 * (1 + 0.04 * np.random.default_rng(1).standard_normal(LAST + 1))
VALUES[30:] *= 1.08
BEDS = ("plain", "acked", "bisected")       # one series each, no siblings of one another


def commits(*ids: int) -> list[str]:
    return [f"c{i:04d}" for i in ids]


@pytest.fixture(scope="module")
def story(tmp_path_factory):
    """Runs recorded one at a time on three testbeds, a detect and a notify after each from run
    FIRST on; after the first, the 'acked' alert is acknowledged and the 'bisected' one bisected."""
    tmp = tmp_path_factory.mktemp("renewal")
    db, rule = tmp / "history.db", tmp / "rule.toml"
    rule.write_text(NO_LIMIT)
    env = {**os.environ, "PERFGATE_STORE": f"sqlite:{db}"}

    def cli(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "perfgate", *args], capture_output=True, text=True, env=env)

    def add(i: int) -> None:
        with SqliteStore(db) as store:
            store.add_runs([Run("default", "main", f"c{i:04d}", Bed(bed), [Metric("b", "latency", VALUES[i])],
                                start_time=1_700_000_000.0 + i) for bed in BEDS])

    def alerts() -> dict[str, dict]:
        listed = json.loads(cli("alerts", "--status", "all", "--json").stdout)
        return {a["testbed"]: a for a in listed}

    for i in range(FIRST + 1):
        add(i)
    first = json.loads(cli("detect", "--json", "--thresholds", str(rule)).stdout)
    raised = alerts()
    cli("alerts", "--ack", raised["acked"]["id"])
    with SqliteStore(db) as store:
        bisected = next(a for a in store.alerts() if a.testbed == "bisected")
        search = SimpleNamespace(steps=[], first_bad="c0030", last_good=lambda good: "c0029")
        _update(store, bisected, search, "latency", [SimpleNamespace(sha=c) for c in commits(30, 31, 32, 33)],
                "interleaved", "c0029")
    raised = alerts()
    detects = []
    yield SimpleNamespace(tmp=tmp, db=db, first=first, raised=raised, cli=cli, add=add, alerts=alerts,
                          rule=rule, detects=detects)


def run_on(story, notify) -> dict:
    """The detects after each run to LAST, ``notify`` after the first; the alerts then."""
    notify()
    for i in range(FIRST + 1, LAST + 1):
        story.add(i)
        story.detects.append(json.loads(story.cli("detect", "--json", "--thresholds", str(story.rule)).stdout))
    return story.alerts()


@pytest.fixture(scope="module")
def told(story):
    """What a webhook and GitHub issues were told: after the first detect, after the last, and
    at a notify after that."""
    from fake_github.server import FakeGitHub
    from webhook_receiver import Receiver

    github, hook = FakeGitHub(TOKEN, REPO).start(), Receiver().start()
    channels = [WebhookChannel(hook.url, LINKS, policy=FAST),
                GitHubIssuesChannel(REPO, LINKS, token=TOKEN, api_url=github.url, policy=FAST)]

    def notify() -> list[list[str]]:
        with SqliteStore(story.db) as store, Ledger(story.tmp / "notify.db") as ledger:
            return [r.delivered for r in deliver_all(store.alerts(), channels, ledger)]

    try:
        first = []
        now = run_on(story, lambda: first.append(notify()))
        yield SimpleNamespace(first=first[0], then=notify(), again=notify(), now=now, github=github, hook=hook)
    finally:
        github.stop()
        hook.stop()
    assert not github.problems and not hook.problems


def found_at_last(story, bed: str) -> dict:
    [series] = [s for s in story.detects[-1]["series"] if s["testbed"] == bed]
    [cp] = series["change_points"]
    return cp


def test_a_later_detect_that_narrows_the_range_gives_the_alert_its_figures(story, told):
    raised, now, found = story.raised["plain"], told.now["plain"], found_at_last(story, "plain")
    assert raised["commit_range"] == commits(29, 30, 31, 32, 33) and raised["magnitude"] == pytest.approx(0.1155,
                                                                                                         abs=5e-5)
    assert all(d["new_alerts"] == [] for d in story.detects)           # found again, never a second alert
    assert (now["id"], now["created"], now["status"]) == (raised["id"], raised["created"], "active")
    assert now["commit_range"] == found["commit_range"] == commits(28, 29, 30) and now["commit"] == "c0030"
    assert (now["magnitude"], now["ci_low"], now["ci_high"], now["p_value"]) == \
        (found["magnitude"], found["ci_low"], found["ci_high"], found["p_value"])
    assert now["p_value"] < raised["p_value"] and now["magnitude"] == pytest.approx(0.0747, abs=5e-5)
    assert (now["details"]["before"], now["details"]["after"]) == (found["before"], found["after"])
    assert now["details"]["narrowed_from"] == {"commit": "c0030", "magnitude": raised["magnitude"],
                                             "commit_range": raised["commit_range"]}
    shown = story.cli("alerts", "--json").stdout
    assert "0.1155" not in shown


def test_the_narrowing_is_told_once_and_the_issue_shows_the_current_figures(story, told):
    alert = told.now["plain"]
    update = f"{alert['id']}:updated:change_point@c0030:narrowed-3"
    assert all(f"{alert['id']}:raised" in delivered for delivered in told.first)
    assert told.then == [[update], [update]] and told.again == [[], []]
    [sent] = [r for r in told.hook.processed.values() if r["event"] == "updated"]
    assert "the analysis of the runs since narrowed its range to 3 commits; it is now +7.47%" in sent["text"]
    assert "(was +11.55%, a range of 5 commits)" in sent["text"]
    [issue] = [i for i in told.github.issues.values() if alert["id"] in i["body"]]
    assert "+7.47%" in issue["title"] and "+7.47%" in issue["body"] and "+11.55%" not in issue["body"]
    assert "c0028^..c0030" in issue["body"]
    [comment] = told.github.comments[issue["number"]]
    assert comment["body"].startswith("Updated: the analysis of the runs since narrowed its range to 3 commits")


def test_an_acknowledged_alert_keeps_what_it_was_accepted_on(story, told):
    assert told.now["acked"] == story.raised["acked"] and story.raised["acked"]["status"] == "acknowledged"
    assert told.now["plain"]["commit_range"] != story.raised["plain"]["commit_range"]    # the same step renewed


def test_a_bisected_alerts_exact_range_is_never_widened_or_moved(story, told):
    bisected, now = story.raised["bisected"], told.now["bisected"]
    assert bisected["commit_range"] == ["c0030"] and bisected["details"]["bisect"]["commit_range_before"] == \
        commits(29, 30, 31, 32, 33)
    assert found_at_last(story, "bisected")["commit_range"] == commits(28, 29, 30)   # a surer finding elsewhere
    assert now == bisected
    assert told.now["plain"]["commit_range"] == commits(28, 29, 30)                 # the same step renewed


# --- the rule, alert by alert ------------------------------------------------------------------------

def cp(first: int, span: int, magnitude: float, p: float, **details) -> Alert:
    rng = tuple(f"c{i:04d}" for i in range(first, first + span))
    return Alert("main", "tb", "b", "latency", rng[0], "regression", magnitude, magnitude - 0.03, magnitude + 0.03,
                 p, "change_point", f"c{first - 1:04d}", rng, {"index": first, "before": 1.0,
                                                                 "after": 1 + magnitude, **details},
                 id="a1", status="active", created=1.0)


def test_a_finding_less_sure_or_locating_it_worse_renews_nothing():
    recorded = cp(10, 4, 0.20, 1e-5)
    assert not recorded.renewed_by(cp(9, 6, 0.10, 1e-9), False)         # a wider range
    assert not recorded.renewed_by(cp(11, 2, 0.10, 1e-3), False)        # a larger p-value
    assert not recorded.renewed_by(cp(10, 4, 0.21, 1e-6), False)        # within its interval, "> 99.99%" both
    assert recorded == cp(10, 4, 0.20, 1e-5)
    assert recorded.renewed_by(cp(10, 4, 0.10, 1e-6), False)            # its size outside the surer interval
    assert recorded.magnitude == 0.10 and recorded.commit_range == cp(10, 4, 0, 1).commit_range
    assert "narrowed_from" not in recorded.details                        # nothing to tell


def test_a_placed_alert_keeps_its_siblings_placement_and_a_bisected_one_its_commit():
    placed = cp(10, 3, 0.20, 1e-4, placed_with=["other [latency]"])
    assert not placed.renewed_by(cp(11, 1, 0.10, 1e-9), False)
    assert placed.renewed_by(cp(11, 1, 0.10, 1e-9, placed_with=["other [latency]"]), False)
    assert placed.commit_range == ("c0011",) and placed.placed_with == ["other [latency]"]
    bisected = cp(12, 1, 0.20, 1e-4, bisect={"steps": []})
    bisected.previous_commit = "c0011b"                                 # the last good commit bisect found
    assert bisected.renewed_by(cp(12, 1, 0.10, 1e-9), False)           # the same commit, pinned: its size
    assert (bisected.magnitude, bisected.p_value, bisected.previous_commit) == (0.10, 1e-9, "c0011b")
    assert bisected.details["bisect"] == {"steps": []}


def test_the_bencher_alert_memory_keeps_the_surer_finding(tmp_path):
    memory = AlertMemory(tmp_path / "alerts.json")
    [raised] = memory.record([cp(10, 5, 0.20, 1e-4)])
    assert memory.record([cp(11, 2, 0.12, 1e-8)]) == []
    [kept] = memory.load()
    assert (kept.id, kept.created, kept.status) == (raised.id, raised.created, "active")
    assert (kept.commit_range, kept.magnitude, kept.p_value) == (("c0011", "c0012"), 0.12, 1e-8)
    assert kept.details["narrowed_from"]["commit_range"] == [f"c{i:04d}" for i in range(10, 15)]


def bisected_threshold(first_bad: int) -> Alert:
    """A threshold alert raised at c0021 after c0017, which bisect narrowed to ``first_bad``."""
    alert = Alert("main", "tb", "b", "latency", f"c{first_bad:04d}", "regression", 0.15, kind="threshold",
                  previous_commit=f"c{first_bad - 1:04d}", commit_range=(f"c{first_bad:04d}",),
                  details={"test": "t_test", "bisect": {"commit_before": "c0021", "steps": []}},
                  id="t1", status="active", created=1.0)
    return alert


def test_a_takeover_keeps_the_commit_bisect_found_when_its_range_holds_it():
    from perfgate.notify.events import Event, derive_events
    from perfgate.notify.render import plain_text

    threshold = bisected_threshold(20)
    same, takes_over = cp(19, 3, 0.09, 1e-9).recorded_as([threshold])
    assert same is threshold and takes_over and threshold.renewed_by(cp(19, 3, 0.09, 1e-9), True)
    assert (threshold.kind, threshold.magnitude, threshold.p_value) == ("change_point", 0.09, 1e-9)
    assert (threshold.commit, threshold.previous_commit, threshold.commit_range) == ("c0020", "c0019", ("c0020",))
    assert threshold.details["bisect"]["commit_before"] == "c0021" and threshold.last_good() == "c0019"
    assert threshold.details["superseded_from"] == {"commit": "c0020", "magnitude": 0.15, "bisected": True}
    # renewed from then on only by a finding of that very commit (``refined_by``), never widened
    assert not threshold.renewed_by(cp(19, 2, 0.09, 1e-12), False) and threshold.commit_range == ("c0020",)
    (update,) = [e for e in derive_events([threshold]) if e.kind == "updated"]
    assert update.id == "t1:updated:change_point@c0020"
    assert ("bisect narrowed it to one commit, and a change point confirmed the threshold alert; it is now +9.00%"
            in plain_text(update, LINKS)) and "(was +15.00% at `c0021`)" in plain_text(update, LINKS)
    # a change found alone and bisected, then placed at its siblings' commit: the same
    alone = cp(18, 1, 0.20, 1e-4, bisect={"commit_before": "c0019", "steps": []})
    alone.commit_range = ("c0018",)
    placed = cp(17, 3, 0.18, 1e-6, placed_with=["other [latency]"])
    assert alone.superseded_by(placed) and alone.renewed_by(placed, True)
    assert (alone.commit, alone.commit_range, alone.placed_with) == ("c0018", ("c0018",), ["other [latency]"])
    assert "and the change was found there with other benchmarks' changes" in plain_text(Event("updated", alone),
                                                                                         LINKS)


def test_a_change_placed_before_the_commit_bisect_found_is_another_change():
    """A change point placed before a bisected alert's first bad commit (whose first runs at the new
    level hold it, so that it takes an unbisected threshold alert over) contradicts what bisect
    measured: it took the alert over and moved it off that commit."""
    from perfgate.model import REGIME_HEAD

    head = {REGIME_HEAD: [f"c{i:04d}" for i in range(17, 30)]}
    assert cp(17, 2, 0.09, 1e-9, **head).recorded_as([bisected_threshold(20)]) == (None, False)   # its own alert
    unbisected = bisected_threshold(20)
    del unbisected.details["bisect"]
    assert cp(17, 2, 0.09, 1e-9, **head).recorded_as([unbisected]) == (unbisected, True)          # as before
