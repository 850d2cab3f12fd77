"""A regression reverted some runs later: recorded run by run with a detect (and a notify) after
each, as CI does, its alert is closed as undone at the revert with the way back's evidence, not
withdrawn as a weak change point the whole history no longer shows."""

from __future__ import annotations

import contextlib
import io
import json
import random

import numpy as np
import pytest
from fake_github.fixtures import FAST, REPO, TOKEN, fake_github, receiver  # noqa: F401

from perfgate.alert_history import WAY_BACK, still_open, undone_by
from perfgate.cli import main
from perfgate.detect.way_back import way_back
from perfgate.model import Metric, Run
from perfgate.model import Testbed as Bed
from perfgate.notify.base import Links
from perfgate.notify.deliver import deliver_all
from perfgate.notify.github_issues import GitHubIssuesChannel
from perfgate.notify.ledger import Ledger
from perfgate.notify.webhook import WebhookChannel
from perfgate.store.sqlite import SqliteStore

LINKS = Links("https://acme.github.io/widget", "https://github.com/acme/widget")
REVERT = 32     # the first run back at the old level


def bump(seed: int = 26, noise: float = 0.07, reverted: bool = True, after: int = 13) -> np.ndarray:
    """The audit's shape: 15 runs at 1.37, a +32% regression for 17 runs, then ``after`` (13) runs
    back at 1.34 (or, not ``reverted``, still at the regressed level).  Seed 26: the whole history
    of 45 runs shows no change point (a bump judged a smooth hump), though the rise was found for 13
    runs."""
    level = np.r_[np.full(15, 1.37), np.full(17, 1.81), np.full(after, 1.34 if reverted else 1.81)]
    return level * (1 + noise * np.random.default_rng(seed).standard_normal(level.size))


def detect(store_path, *args: str) -> dict:
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        code = main(["detect", "--branch", "main", "--json", "--store", f"sqlite:{store_path}", *args])
    assert code in (0, 1)
    return json.loads(buf.getvalue())


def alerts_json(store_path) -> list[dict]:
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        assert main(["alerts", "--status", "all", "--json", "--store", f"sqlite:{store_path}"]) == 0
    return json.loads(buf.getvalue())


def record_run_by_run(store_path, values, notify=None) -> list[dict]:
    """Each run recorded, then detected (and notified, when given), as CI does; each detect's JSON."""
    seen = []
    for i, v in enumerate(values):
        with SqliteStore(store_path) as store:
            store.add_runs([Run("default", "main", f"c{i:04d}", Bed("tb"), [Metric("count_words", "latency", float(v))],
                                start_time=1_700_000_000.0 + i)])
        seen.append(detect(store_path))
        if notify:
            notify()
    return seen


def test_a_reverted_regression_is_closed_as_undone_at_the_revert_once(store_path, tmp_path, receiver, fake_github):
    values = bump()
    channels = [WebhookChannel(receiver.url, LINKS, policy=FAST, sleep=lambda s: None, rng=random.Random(1)),
                GitHubIssuesChannel(REPO, LINKS, token=TOKEN, api_url=fake_github.url, policy=FAST,
                                    sleep=lambda s: None, rng=random.Random(1))]
    with Ledger(tmp_path / "notify.db") as ledger:
        def notify():
            with SqliteStore(store_path) as store:
                deliver_all(store.alerts(), channels, ledger)

        seen = record_run_by_run(store_path, values, notify)
        # the whole history no longer shows the change: what withdrew its alert before
        assert not [c for c in seen[-1]["series"][0]["change_points"] if c["kind"] == "change_point"]
        [cp] = [a for a in alerts_json(store_path) if a["kind"] == "change_point"]
        assert cp["direction"] == "regression" and cp["magnitude"] > 0.15
        undone = [(i, d["undone_alerts"]) for i, d in enumerate(seen) if d["undone_alerts"]]
        assert [ids for _, ids in undone] == [[cp["id"]]]                 # closed once, never again
        assert all(d["withdrawn_alerts"] == [] for d in seen)
        back = cp["details"]["went_back"]
        # the revert's run, or within the range of runs the way back could be
        assert back["commit"] in back["commit_range"] and f"c{REVERT:04d}" in back["commit_range"]
        assert abs(int(back["commit"][1:]) - REVERT) <= 1
        assert back["ci_low"] <= back["magnitude"] <= back["ci_high"] < 0 and back["p_value"] <= 0.01
        assert (1 + cp["magnitude"]) * (1 + back["magnitude"]) - 1 <= cp["magnitude"] / 2   # wins back half
        assert cp["undone_at"] == back["commit"] and cp["undone_by"] is None and cp["withdrawn_at"] is None
        assert "unfound_since" not in cp["details"]
        # more runs at the old level, and a full analysis, neither reopen nor resend it
        again = detect(store_path, "--full")
        assert again["undone_alerts"] == again["withdrawn_alerts"] == []
        notify()
    closes = [m for m in receiver.processed.values() if m["event"] == "closed"]
    assert [(m["alert"]["id"], m["reason"]) for m in closes] == [(cp["id"], "undone")]
    [close] = closes
    assert close["related"]["kind"] == WAY_BACK and close["related"]["commit"] == back["commit"]
    assert close["related"]["p_value"] == pytest.approx(back["p_value"])
    assert f"by {back['magnitude'] * 100:+.2f}% at " in close["text"] and "went back" in close["text"]
    # its interval named at its level, the series' change point confidence (it read "interval [a, b]")
    assert back["confidence"] == 0.99 and "99% CI [" in close["text"]
    assert not [m for m in receiver.processed.values() if m["event"] == "reopened"]
    [issue] = [i for i in fake_github.issues.values() if cp["id"] in i["body"]]
    assert issue["state"] == "closed"
    body = fake_github.comments[issue["number"]][-1]["body"]
    assert body.startswith(f"Closing: A later change undid it: {back['magnitude'] * 100:+.2f}% at ")
    assert back["commit"] in body and "went back to the level before it" in body and "p = " in body
    assert "99% CI [" in body


def test_a_regression_that_stays_is_not_closed(store_path):
    seen = record_run_by_run(store_path, bump(reverted=False))
    assert all(d["undone_alerts"] == [] and d["withdrawn_alerts"] == [] for d in seen)
    with SqliteStore(store_path) as store:
        alerts = store.alerts()
    [cp] = [a for a in alerts if a.kind == "change_point"]
    assert cp.direction == "regression" and still_open(cp, undone_by(alerts)) and "went_back" not in cp.details


def test_the_way_back_is_found_only_where_the_runs_went_back():
    values = bump()
    back = way_back(values, 15, 0.32, 5, 0.99)
    assert back is not None and back.index_low <= REVERT <= back.index_high and back.p_value <= 0.01
    assert back.ci_low <= back.magnitude <= back.ci_high < -0.15
    assert way_back(bump(reverted=False), 15, 0.32, 5, 0.99) is None          # it stayed
    assert way_back(values[:REVERT + 4], 15, 0.32, 5, 0.99) is None            # 4 runs back: too few to tell
    # no change at all: no split of its noise is a way back, in 50 series of 45 runs
    rng = np.random.default_rng(3)
    found = sum(way_back(1.37 * (1 + 0.07 * rng.standard_normal(45)), 15, 0.32, 5, 0.99) is not None
                for _ in range(50))
    assert found <= 2
    # a throughput regresses downwards: its way back is a rise
    assert way_back(1 / values, 15, -0.24, 5, 0.99).magnitude > 0.15
    assert way_back(np.r_[values[:40], 0.0, values[41:]], 15, 0.32, 5, 0.99) is None   # no relative change


def test_a_reverted_regressions_threshold_alert_is_closed_as_undone_too(store_path, tmp_path, receiver):
    # 30 runs back, not 13: the threshold alert's regressed level, from its own first commit, is 9
    # runs long (the change point's is 17), and the way back needs more runs to pass the same bar
    values = bump(after=30)
    channel = WebhookChannel(receiver.url, LINKS, policy=FAST, sleep=lambda s: None, rng=random.Random(1))
    with Ledger(tmp_path / "notify.db") as ledger:
        def notify():
            with SqliteStore(store_path) as store:
                deliver_all(store.alerts(), [channel], ledger)

        seen = record_run_by_run(store_path, values, notify)
    raised = [a for d in seen[:REVERT] for a in d["new_alerts"] if a["kind"] == "threshold"]
    assert raised and all(a["direction"] == "regression" for a in raised)
    with SqliteStore(store_path) as store:
        alerts = store.alerts()
    assert [a for a in alerts if still_open(a, undone_by(alerts))] == []       # nothing left open
    [th] = [a for a in alerts_json(store_path) if a["kind"] == "threshold"]
    back = th["details"]["went_back"]
    assert th["status"] == "active" and th["undone_by"] is None and th["undone_at"] == back["commit"]
    assert abs(int(back["commit"][1:]) - REVERT) <= 1 and f"c{REVERT:04d}" in back["commit_range"]
    assert back["ci_low"] <= back["magnitude"] <= back["ci_high"] < 0 and back["p_value"] <= 0.01
    assert (1 + th["magnitude"]) * (1 + back["magnitude"]) - 1 <= th["magnitude"] / 2    # its own size, half back
    # closed once, after the revert (its streak over, the runs back), never again
    undone = [i for i, d in enumerate(seen) if th["id"] in d["undone_alerts"]]
    assert len(undone) == 1 and undone[0] > REVERT
    closes = [m for m in receiver.processed.values() if m["event"] == "closed" and m["alert"]["id"] == th["id"]]
    assert [m["reason"] for m in closes] == ["undone"]
    assert closes[0]["related"]["kind"] == WAY_BACK and closes[0]["related"]["commit"] == back["commit"]
    assert "went back" in closes[0]["text"] and "99% CI [" in closes[0]["text"]


def _threshold_alerts_after(store_path, values) -> tuple[list[dict], list]:
    seen = record_run_by_run(store_path, values)
    with SqliteStore(store_path) as store:
        alerts = store.alerts()
    return seen, alerts


def test_a_threshold_streak_over_without_a_way_back_is_not_closed(store_path):
    # the regression stays: its newest value dips back within the limit now and then (the streak
    # over for a run), then is past it again
    seen, alerts = _threshold_alerts_after(store_path, bump(reverted=False, after=30))
    [th] = [a for a in alerts if a.kind == "threshold"]
    raised_at = next(i for i, d in enumerate(seen) if any(a["id"] == th.id for a in d["new_alerts"]))
    assert any(not d["series"][0]["threshold"]["alert"] for d in seen[raised_at + 1:])   # it was tested
    assert all(d["undone_alerts"] == [] for d in seen)
    assert still_open(th, undone_by(alerts)) and "went_back" not in th.details


def test_a_noise_streak_that_ended_is_not_closed(store_path):
    # two runs +35% in a quiet series: a streak, then the level it never left; not a way back
    values = 1.37 * (1 + 0.07 * np.random.default_rng(1).standard_normal(60))
    values[25:27] *= 1.35
    seen, alerts = _threshold_alerts_after(store_path, values)
    [th] = [a for a in alerts if a.kind == "threshold"]
    assert th.direction == "regression" and th.commit == "c0025"
    assert all(d["undone_alerts"] == [] for d in seen)
    assert still_open(th, undone_by(alerts)) and "went_back" not in th.details


def test_a_way_back_over_thousands_of_runs_takes_well_under_a_second():
    # a rank test at each split took seconds here (7 s on a shared 2-core machine); one ranking: ms
    import time

    long = np.r_[bump(), 1.34 * (1 + 0.07 * np.random.default_rng(7).standard_normal(4000))]
    start = time.perf_counter()
    back = way_back(long, 15, 0.32, 5, 0.99)
    assert time.perf_counter() - start < 0.5
    assert back is not None and back.index_low <= REVERT <= back.index_high


def test_the_split_search_gives_each_splits_rank_test_from_one_ranking():
    # every split's z as rank_test gives it, to the bit (ties, a constant series, inflation)
    from perfgate.detect.stats import rank_test
    from perfgate.detect.way_back import split_rank_z

    rng = np.random.default_rng(7)
    for trial in range(120):
        y = rng.standard_normal(int(rng.integers(2, 90)))
        if trial % 3 == 0:
            y = np.round(2 * y) / 2
        if trial % 10 == 0:
            y[:] = 0.25
        inflation = (1.0, 1.8)[trial % 2]
        assert split_rank_z(y, inflation).tolist() == [rank_test(y[:t], y[t:], inflation)[0] for t in range(1, y.size)]


def test_an_open_streak_over_is_tested_on_the_points_its_analysis_read(store_path, monkeypatch):
    # a threshold alert whose streak is over is tested for a way back at every detect until it
    # closes; its series was read again in the parent for it (30 ms or more for 1,000 runs, and a
    # rank test at each split: 1,000 such alerts took longer than the detect itself)
    from perfgate.commands import detect as command
    from perfgate.store.base import SeriesKey

    values = 1.37 * (1 + 0.07 * np.random.default_rng(1).standard_normal(60))
    values[25:27] *= 1.35
    _, alerts = _threshold_alerts_after(store_path, values)
    [th] = [a for a in alerts if a.kind == "threshold"]
    reads = []
    for name in ("series", "series_of"):
        def counted(self, arg, _real=getattr(SqliteStore, name)):
            reads.extend([arg] if isinstance(arg, SeriesKey) else list(arg))
            return _real(self, arg)
        monkeypatch.setattr(SqliteStore, name, counted)
    import perfgate.detect.way_back as module

    tested = []
    real = module.way_back
    monkeypatch.setattr(module, "way_back", lambda values, start, *a: tested.append(start) or real(values, start, *a))
    with SqliteStore(store_path) as store:
        store.add_runs([Run("default", "main", "c0060", Bed("tb"), [Metric("count_words", "latency", 1.37)],
                            start_time=1_700_000_060.0)])
    seen = detect(store_path)
    assert not seen["series"][0]["threshold"]["alert"] and seen["undone_alerts"] == []   # over, not gone back
    assert tested == [25] and reads == [SeriesKey("main", "tb", "count_words", "latency")]   # read once
    # the parent uses the way back the analysis found, and reads nothing for it
    report = {"branch": "main", "testbed": "tb", "benchmark": "count_words", "measure": "latency", "points": 61,
              "newest_commit": "c0060", "threshold": {"alert": None}, "inflation": 1.0, "way_backs": {th.id: None}}

    class NoReads:
        def load(self, keys):
            raise AssertionError(f"read {keys}")

    from perfgate.thresholds import load_thresholds
    with SqliteStore(store_path) as store:
        assert command._withdraw(store, [report], [], load_thresholds(None), NoReads()) == []
