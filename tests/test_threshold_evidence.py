"""A threshold alert carries its effect's interval and its confidence, as a change point does: its
streak of values against the baseline its test judged it by (Welch's t on the logs), and every
place a user reads alerts shows them; an alert recorded without them still loads and prints."""

from __future__ import annotations

import json

import numpy as np
import pytest
from fake_github.fixtures import receiver  # noqa: F401 - fixture

from perfgate.detect.threshold_tests import baseline_at, evaluate_series, limits, streak_evidence
from perfgate.model import Alert, Metric, Run
from perfgate.model import Testbed as Bed
from perfgate.notify import render
from perfgate.notify.base import Links
from perfgate.notify.events import Event
from perfgate.store.sqlite import SqliteStore
from perfgate.thresholds import ThresholdTest

LINKS = Links("https://acme.github.io/widget", "https://github.com/acme/widget")


def add(store_path, values) -> None:
    """One latency run a value, commit i named ``c{i:04d}``."""
    with SqliteStore(store_path) as store:
        store.add_runs([Run("default", "main", f"c{i:04d}", Bed("tb"), [Metric("b", "latency", float(v))],
                            start_time=1_700_000_000.0 + i) for i, v in enumerate(values)])


def stepped(seed: int, quiet: int = 40, slow: int = 3, step: float = 0.20) -> np.ndarray:
    """A quiet series (1% noise) whose last ``slow`` values are ``step`` above it."""
    level = 1e6 * (1 + 0.01 * np.random.default_rng(seed).standard_normal(quiet + slow))
    level[quiet:] *= 1 + step
    return level


def detect(cli, *args: str) -> dict:
    proc = cli("detect", "--json", *args)
    assert proc.returncode in (0, 1), proc.stderr
    return json.loads(proc.stdout)


def listed(cli) -> list[dict]:
    return json.loads(cli("alerts", "--status", "all", "--json", check=True).stdout)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_planted_step_past_a_t_test_limit_alerts_with_an_interval_holding_it(cli, store_path, seed):
    add(store_path, stepped(seed))
    [alert] = detect(cli)["new_alerts"]
    assert (alert["kind"], alert["details"]["test"]) == ("threshold", "t_test")
    assert 0 < alert["ci_low"] < 0.20 < alert["ci_high"]
    assert alert["p_value"] < 0.01      # Welch's t on three values: about 2 degrees of freedom
    details = alert["details"]
    assert details["streak_size"] == 3 and details["evidence_baseline_size"] == details["baseline_size"] >= 30
    [kept] = listed(cli)        # as recorded, and as `alerts --json` gives it
    assert (kept["ci_low"], kept["ci_high"], kept["p_value"]) == (alert["ci_low"], alert["ci_high"], alert["p_value"])


def test_an_ended_streak_gets_its_interval_from_every_value_of_it(cli, store_path):
    values = stepped(1, slow=4, step=0.5)
    values[-1] /= 1.5           # back under the limit: the streak of three ended
    add(store_path, values)
    [alert] = detect(cli)["new_alerts"]
    assert alert["details"]["ended_at"] == "c0043" and alert["details"]["streak_size"] == 3
    assert 0 < alert["ci_low"] < 0.5 < alert["ci_high"] and alert["p_value"] < 1e-4


def test_a_static_limit_alert_gets_them_too(cli, store_path, tmp_path):
    rule = tmp_path / "static.toml"
    rule.write_text('[measure.latency]\ntest = "static"\nupper_boundary = 1.1e6\nconsecutive = 2\n')
    add(store_path, stepped(4))
    data = detect(cli, "--thresholds", str(rule))
    [alert] = data["new_alerts"]
    assert alert["details"]["test"] == "static"
    assert 0 < alert["ci_low"] < 0.20 < alert["ci_high"] and alert["p_value"] < 0.01
    text = cli("detect", "--no-record", "--thresholds", str(rule), env={"COLUMNS": "250"}).stdout
    assert "static limit" in text and "streak mean" in text


def test_the_detect_report_and_the_alerts_listing_show_them(cli, store_path):
    add(store_path, stepped(1))
    text = cli("detect", env={"COLUMNS": "250"}).stdout
    assert "> 99.99% (p < 1e-15), t_test limit" in text or "(p = " in text
    [alert] = listed(cli)
    assert alert["details"]["ci_level"] == 0.95        # recorded with it, as a change point's own level
    # the streak's interval is 95%, a change point's beside it 99%: each says which
    evidence = (f"streak mean {alert['details']['streak_change'] * 100:+.2f}%, "
                f"95% CI [{alert['ci_low'] * 100:+.2f}%, {alert['ci_high'] * 100:+.2f}%]")
    assert evidence in text
    table = cli("alerts", check=True, env={"COLUMNS": "250"}).stdout
    assert evidence in table


def _threshold_alert(**fields) -> Alert:
    details = {"test": "t_test", "value": 1.2e6, "baseline": 1e6, "baseline_size": 40, "upper_limit": 1.03e6,
               "consecutive": 2}
    return Alert("main", "tb", "b", "latency", "c0040", "regression", 0.2, kind="threshold",
                 previous_commit="c0039", commit_range=("c0040", "c0041"), details=details | fields.pop("details", {}),
                 **fields)


def test_a_threshold_alerts_message_gives_its_interval_and_confidence_with_its_limit():
    alert = _threshold_alert(ci_low=0.18, ci_high=0.22, p_value=1e-6, details={"streak_change": 0.2})
    text = render.plain_text(Event("raised", alert), LINKS)
    assert "(streak mean +20.00%, 95% CI [+18.00%, +22.00%])" in text
    assert "past its t_test limit" in text and "p = 1e-06 (confidence > 99.99%)" in text
    assert "p = 1e-06" in render.evidence_table(alert, LINKS)


def test_an_old_threshold_alert_without_them_still_loads_and_prints_beside_a_new_one(cli, store_path):
    with SqliteStore(store_path) as store:      # recorded before threshold alerts had them
        store.record_alerts([Alert(**vars(_threshold_alert()) | {"benchmark": "old"})])
    add(store_path, stepped(1))
    [new] = detect(cli)["new_alerts"]
    old = next(a for a in listed(cli) if a["benchmark"] == "old")
    assert (old["ci_low"], old["ci_high"], old["p_value"]) == (None, None, None)
    table = cli("alerts", check=True, env={"COLUMNS": "250"}).stdout
    assert "+20.00%" in table and f"[{new['ci_low'] * 100:+.2f}%, {new['ci_high'] * 100:+.2f}%]" in table
    fields = {k: v for k, v in old.items() if k not in ("undone_by", "undone_at", "withdrawn_at")}
    text = render.plain_text(Event("raised", Alert(**fields | {"commit_range": tuple(fields["commit_range"])})), LINKS)
    assert "95% CI" not in text and "p = " not in text and "past its t_test limit" in text


def test_a_baseline_too_short_for_an_interval_says_why():
    ev = streak_evidence([1e6], [1.2e6, 1.21e6], upper=True)
    assert (ev.change, ev.ci_low, ev.ci_high, ev.p_value) == (None, None, None, None)
    assert "baseline of 1 value" in ev.why
    alert = _threshold_alert(details={"no_interval": ev.why})
    assert f"no p-value: {ev.why}" in render.confidence(alert)


def test_a_single_value_is_weighed_as_the_t_test_limit_predicts_it():
    rng = np.random.default_rng(5)
    base = list(1e6 * (1 + 0.01 * rng.standard_normal(30)))
    test = ThresholdTest(test="t_test", upper_boundary=0.99, min_sample_size=10, max_sample_size=64)
    upper = limits(test, base).upper
    # a value just past the 99% limit: one-sided p of about 1% (the limit's t, on the logs)
    ev = streak_evidence(base, [upper * 1.0001], upper=True)
    assert 0.009 < ev.p_value < 0.011 and ev.ci_low < ev.change < ev.ci_high


def test_an_improvement_is_weighed_in_its_own_direction():
    base = [100.0, 101.0, 99.0, 100.5, 99.5]
    down = streak_evidence(base, [80.0, 80.5], upper=False)
    up = streak_evidence(base, [80.0, 80.5], upper=True)
    assert down.p_value < 1e-3 < 0.999 < up.p_value and down.ci_high < 0


@pytest.mark.parametrize("kind, extra", [("t_test", {"max_sample_size": 8}), ("percentage", {"max_sample_size": 5}),
                                         ("iqr", {}), ("static", {})])
def test_the_baseline_is_the_one_the_test_judged_by(kind, extra):
    rng = np.random.default_rng(7)
    values = list(100 + rng.standard_normal(60))
    values[20:23] = [130.0] * 3
    boundary = {"static": 103.0, "iqr": 3.0, "percentage": 0.1}.get(kind, 0.99)
    test = ThresholdTest(test=kind, upper_boundary=boundary, **extra)
    results = evaluate_series(test, values)
    flags = [r.alert for r in results]
    assert "upper" in flags
    for i, r in enumerate(results):
        assert limits(test, baseline_at(test, values, None, flags, i)) == r.limits


def test_the_pages_give_a_threshold_alerts_interval_of_its_streak_mean():
    from perfgate.report.series_data import chart_data
    from perfgate.store import Point, SeriesKey

    key = SeriesKey("main", "tb", "b", "latency")
    pts = [Point(f"r{i}", f"c{i:04d}", 1000.0 + i, 10.0) for i in range(42)]
    kept = _threshold_alert(ci_low=0.18, ci_high=0.22, p_value=1e-6, details={"streak_change": 0.2})
    old = _threshold_alert()
    data = chart_data(key, pts, None, [], [kept, old], {f"r{i}": i for i in range(42)})
    assert [(a["ci_low"], a["ci_high"], a["p_value"], a["streak_change"], a["ci_level"]) for a in data["alerts"]] == \
        [(0.18, 0.22, 1e-6, 0.2, 0.95), (None, None, None, None, 0.95)]


def test_sync_files_keep_them(cli, store_path, tmp_path):
    add(store_path, stepped(2))
    [alert] = detect(cli)["new_alerts"]
    data = tmp_path / "data"
    cli("sync", "--export", str(data), check=True)
    fresh = {"PERFGATE_STORE": f"sqlite:{tmp_path / 'fresh.db'}"}
    cli("sync", "--import", str(data), env=fresh, check=True)
    [kept] = json.loads(cli("alerts", "--status", "all", "--json", env=fresh, check=True).stdout)
    assert (kept["ci_low"], kept["ci_high"], kept["p_value"]) == (alert["ci_low"], alert["ci_high"], alert["p_value"])
    assert kept["details"]["streak_change"] == alert["details"]["streak_change"]


# --- a streak that grows: the recorded alert's evidence follows it ---------------------------------

# The default latency test, with change points needing 10 runs a side: a streak of 6 stays a
# threshold alert (by default a change point found at its 4th value takes it over).
GROWING = """[measure.latency]
test = "t_test"
upper_boundary = 0.99
min_sample_size = 10
max_sample_size = 64
consecutive = 2
[measure.latency.change_point]
min_effect = 0.02
min_segment = 10
"""


def grow(cli, store_path, tmp_path, values, first: int, raised_hook=None) -> tuple[dict, list[dict]]:
    """The alert raised by a detect after run ``first`` (``raised_hook`` then runs), then a detect
    after each later run: the alert as `alerts --json` lists it after the first, and at the end."""
    rule = tmp_path / "growing.toml"
    rule.write_text(GROWING)
    add(store_path, values[:first])
    assert cli("detect", "--thresholds", str(rule)).returncode == 1
    [raised] = listed(cli)
    if raised_hook is not None:
        raised_hook(raised)
    for i in range(first, len(values)):
        with SqliteStore(store_path) as store:
            store.add_runs([Run("default", "main", f"c{i:04d}", Bed("tb"), [Metric("b", "latency", float(values[i]))],
                                start_time=1_700_000_000.0 + i)])
        data = detect(cli, "--thresholds", str(rule))
        assert data["new_alerts"] == [] and data["exit_code"] == 0        # no second alert
    return raised, listed(cli)


def test_a_streak_that_grows_gives_its_alert_the_longer_streaks_narrower_interval(cli, store_path, tmp_path):
    raised, [now] = grow(cli, store_path, tmp_path, stepped(1, slow=6), 42)
    assert raised["details"]["streak_size"] == 2 and now["details"]["streak_size"] == 6
    assert (now["id"], now["created"], now["status"], now["kind"]) == (raised["id"], raised["created"], "active",
                                                                      "threshold")
    assert now["commit_range"] == [f"c{i:04d}" for i in range(40, 46)]
    assert now["ci_high"] - now["ci_low"] < (raised["ci_high"] - raised["ci_low"]) / 2
    assert now["ci_low"] < 0.20 < now["ci_high"] and now["p_value"] < raised["p_value"]
    # what it alerted at stays as raised: its size, value and limit
    assert now["magnitude"] == raised["magnitude"] and now["details"]["value"] == raised["details"]["value"]
    table = cli("alerts", check=True, env={"COLUMNS": "250"}).stdout
    assert f"streak mean {now['details']['streak_change'] * 100:+.2f}%, " \
           f"95% CI [{now['ci_low'] * 100:+.2f}%, {now['ci_high'] * 100:+.2f}%]" in table


def test_an_acknowledged_alert_keeps_its_status_and_what_it_was_accepted_on(cli, store_path, tmp_path):
    raised, [now] = grow(cli, store_path, tmp_path, stepped(2, slow=5), 42,
                         lambda a: cli("alerts", "--ack", a["id"], check=True))
    assert now == raised | {"status": "acknowledged"}


def test_notify_tells_a_grown_streak_once(cli, store_path, tmp_path, receiver):
    from test_notify import webhook

    from perfgate.notify.deliver import deliver_all
    from perfgate.notify.ledger import Ledger

    def notify() -> list[str]:
        with SqliteStore(store_path) as store, Ledger(tmp_path / "notify.db") as ledger:
            [report] = deliver_all(store.alerts(), [webhook(receiver)], ledger)
        return report.delivered

    told: list[list[str]] = []
    raised, [now] = grow(cli, store_path, tmp_path, stepped(3, slow=6), 42, lambda a: told.append(notify()))
    assert now["details"]["streak_size"] == 6 and now["ci_low"] != raised["ci_low"]
    assert told == [[f"{raised['id']}:raised"]] and notify() == [] and len(receiver.requests) == 1
