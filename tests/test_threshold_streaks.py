"""`perfgate detect` raises a threshold streak that completed at any run it judges for the first
time, also one a later run ended: runs recorded many at a time (a backfill, an ingest of a batch)
alert as they would have had detect run after each of them."""

from __future__ import annotations

import json

import numpy as np
import pytest

from perfgate.commands._threshold_alerts import _ended_streaks, _through_dips
from perfgate.model import Metric, Run
from perfgate.model import Testbed as Bed
from perfgate.store.sqlite import SqliteStore

# The adopter's backfill: wall times at their level, three at +50% (past the t-test's limit; two in
# a row alert), then one back under it.
LEVEL = 1e6 * (1 + 0.01 * np.random.default_rng(1).standard_normal(46))
LEVEL[40:43] *= 1.5


def add(store_path, start: int, stop: int) -> None:
    """Runs ``start`` .. ``stop - 1`` of :data:`LEVEL`, commit i named ``c{i:04d}``."""
    with SqliteStore(store_path) as store:
        store.add_runs([Run("default", "main", f"c{i:04d}", Bed("tb"), [Metric("b", "latency", float(LEVEL[i]))],
                            start_time=1_700_000_000.0 + i) for i in range(start, stop)])


def detect(cli, *args: str) -> tuple[int, dict]:
    proc = cli("detect", "--json", *args)
    assert proc.returncode in (0, 1), proc.stderr
    return proc.returncode, json.loads(proc.stdout)


def alerts(cli) -> list[dict]:
    return json.loads(cli("alerts", "--status", "all", "--json", check=True).stdout)


def test_a_streak_a_later_run_ended_alerts_when_its_runs_come_in_one_batch(cli, store_path):
    add(store_path, 0, 44)
    code, data = detect(cli)
    assert code == 1
    [alert] = data["new_alerts"]
    assert (alert["kind"], alert["direction"], alert["commit"]) == ("threshold", "regression", "c0040")
    assert alert["commit_range"] == ["c0040", "c0041", "c0042"]
    assert alert["details"]["ended_at"] == "c0043" and alert["magnitude"] > 0.4
    [entry] = data["series"][0]["change_points"]
    assert entry["kind"] == "threshold" and entry["ended_at"] == "c0043" and entry["alert"]["new"]
    # the newest value is back within its limit: nothing pending, and the streak's end is said
    text = cli("detect", "--no-record").stdout
    assert "ended at c0043" in text and "newest value is past" not in text
    listed = cli("alerts", check=True, env={"COLUMNS": "200"}).stdout
    assert "ended at c0043" in listed


def test_a_streak_of_a_batch_added_since_the_last_detect_alerts(cli, store_path):
    add(store_path, 0, 40)
    assert detect(cli)[0] == 0
    add(store_path, 40, 44)
    code, data = detect(cli)
    assert code == 1 and [(a["commit"], a["details"]["ended_at"]) for a in data["new_alerts"]] == [("c0040", "c0043")]


def test_detect_again_raises_the_ended_streak_no_second_time(cli, store_path):
    add(store_path, 0, 44)
    assert detect(cli)[0] == 1
    [first] = alerts(cli)
    assert detect(cli)[0] == 0                  # nothing new
    add(store_path, 44, 46)
    code, data = detect(cli)
    assert (code, data["new_alerts"], data["series"][0]["change_points"]) == (0, [], [])
    code, data = detect(cli, "--full")      # judged again from the start: the same alert, known
    assert code == 0 and data["new_alerts"] == []
    assert [e["alert"]["new"] for e in data["series"][0]["change_points"]] == [False]
    assert [a["id"] for a in alerts(cli)] == [first["id"]]


def test_one_run_at_a_time_alerts_the_streak_as_before(cli, store_path):
    """detect after each run: the second value in a row past the limit raises the alert, which
    names the run so far; the runs after it raise nothing new.  The third value past the limit
    grows the alert's streak (and its evidence) to three; the run that ended it is not said (as
    before: a detect after each run saw no streak end)."""
    add(store_path, 0, 40)
    assert detect(cli)[0] == 0
    raised = []
    for i in range(40, 46):
        add(store_path, i, i + 1)
        code, data = detect(cli)
        raised += [(i, code, a["commit"], a["commit_range"]) for a in data["new_alerts"]]
    assert raised == [(41, 1, "c0040", ["c0040", "c0041"])]
    [alert] = alerts(cli)
    assert "ended_at" not in alert["details"] and alert["commit_range"] == ["c0040", "c0041", "c0042"]
    assert alert["details"]["streak_size"] == 3


@pytest.mark.parametrize("scope", [(), ("--branch", "main")])
def test_a_streak_judged_before_is_not_raised_when_the_thresholds_change(cli, store_path, tmp_path, scope):
    """Runs an earlier detect judged are not judged anew for alerts: a streak too short for the
    old thresholds does not alert when they are tightened, only streaks in later runs do.  Also
    for a detect of some series (the shipped workflow runs `detect --branch main`): an audit's
    store upgraded from a perfgate that raised no ended streaks got three old ones at once."""
    loose, tight = tmp_path / "loose.toml", tmp_path / "tight.toml"
    rule = '[measure.latency]\ntest = "t_test"\nupper_boundary = 0.99\nmin_sample_size = 10\nconsecutive = {}\n'
    loose.write_text(rule.format(4))
    tight.write_text(rule.format(2))
    add(store_path, 0, 44)
    assert detect(cli, "--thresholds", str(loose), *scope)[0] == 0
    code, data = detect(cli, "--thresholds", str(tight), *scope)
    assert (code, data["new_alerts"]) == (0, [])
    # a detect of every series after one of some series keeps to the same runs
    code, data = detect(cli, "--thresholds", str(tight))
    assert (code, data["new_alerts"]) == (0, [])


U, L = "upper", "lower"


@pytest.mark.parametrize("flags, since, streaks", [
    ([None, U, U, U, None], 0, [(1, 4)]),
    ([None, U, U, U, None], 2, [(1, 4)]),         # completed at the first new value
    ([None, U, U, U, None], 3, []),               # completed at a value judged before
    ([None, U, U, U, U, None], 4, []),            # ... however long it ran on after
    ([U, U, L, L, None], 0, [(0, 2), (2, 4)]),    # a streak past the other limit ends one too
    ([None, U, None, U, U], 0, []),               # one value is no streak; the newest values' own alert
    ([U, U, U], 0, []),
    ([U, U, None, U, U, None, None], 0, [(0, 5)]),     # a one-value dip ends no streak
    ([U, U, None, U, U], 0, []),                       # ... so this one goes on at the newest value
    ([U, U, None, None, U, U, None], 0, [(0, 2), (4, 6)]),   # two values back within it end it
    ([U, U, None, U, None], 0, [(0, 2)]),              # a single value after a dip is no streak
    ([U, None, U, U, None], 0, [(2, 4)]),              # nor one before it
])
def test_ended_streaks_completed_at_a_new_value(flags, since, streaks):
    assert _ended_streaks(flags, 2, since) == streaks


@pytest.mark.parametrize("flags, first, named", [
    ([None, U, U, None, U, U], 4, 1),          # the streak after a dip is the one before it
    ([U, U, None, U, U, None, U, U], 6, 0),    # through every one-value dip
    ([None, U, None, U, U], 3, 3),             # a value alone before the dip raised nothing
    ([U, U, None, None, U, U], 4, 4),          # two values back within the limit end a streak
    ([L, L, None, U, U], 3, 3),                # past the other limit: another regression
])
def test_a_streak_is_counted_through_one_value_dips(flags, first, named):
    assert _through_dips(flags, first, 2) == named


def test_a_backfill_of_quiet_series_raises_no_ended_streak_that_chance_explains(cli, store_path):
    """Judged one by one, two wall times in a row past a 99% limit come up by chance (0.3 per
    1,000 values): 200 quiet series of 300 runs in one batch raised 20 such ended streaks, each a
    false alert about the past.  After the fact, a streak must stand out beyond what chance gives
    over the batch's runs (`_stands_out`); the adopter's +50% streak above still does."""
    rng = np.random.default_rng(5)
    values = 1e6 * np.exp(0.02 * rng.standard_normal((300, 40)))
    with SqliteStore(store_path) as store:
        store.add_runs([Run("default", "main", f"c{i:05d}", Bed("tb"),
                            [Metric(f"bench{b:02d}", "latency", float(v)) for b, v in enumerate(row)],
                            start_time=1_700_000_000.0 + i) for i, row in enumerate(values)])
    _, data = detect(cli)
    passed = [(s["benchmark"], e["first_commit"]) for s in data["series"] for e in s["change_points"]
              if "ended_at" in e]
    assert passed == []


def test_an_ended_streak_before_a_step_of_the_same_batch_alerts(cli, store_path):
    """The step's change point closes the regime the streak was judged in: a detect after each run
    raised the streak when it came, so the batch does too, judged in that regime."""
    values = 1e6 * (1 + 0.01 * np.random.default_rng(2).standard_normal(90))
    values[30:33] *= 1.5
    values[60:] *= 1.3
    with SqliteStore(store_path) as store:
        store.add_runs([Run("default", "main", f"c{i:04d}", Bed("tb"), [Metric("b", "latency", float(v))],
                            start_time=1_700_000_000.0 + i) for i, v in enumerate(values)])
    code, data = detect(cli)
    assert code == 1
    raised = sorted((a["kind"], a["commit"], a["details"].get("ended_at")) for a in data["new_alerts"])
    assert raised == [("change_point", "c0060", None), ("threshold", "c0030", "c0033")]
    assert detect(cli)[1]["new_alerts"] == []       # raised once


def test_an_ended_streak_is_judged_without_importing_scipy_stats(store_path):
    """scipy.stats cost each worker of a backfill's detect 45 MiB and 0.5 s of CPU; the detectors
    do without it (round 15), and so does the ended streaks' t quantile."""
    import subprocess
    import sys

    add(store_path, 0, 44)
    probe = ("import sys, json; from perfgate.cli import main\n"
             f"code = main(['detect', '--json', '--jobs', '1', '--store', 'sqlite:{store_path}'])\n"
             "print(json.dumps('scipy.stats' in sys.modules), file=sys.stderr)\n"
             "sys.exit(code)")
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert proc.returncode == 1, proc.stderr
    assert [a["details"].get("ended_at") for a in json.loads(proc.stdout)["new_alerts"]] == ["c0043"]
    assert json.loads(proc.stderr.strip().splitlines()[-1]) is False


def test_a_step_with_a_one_value_dip_raises_one_alert_run_by_run(cli, store_path):
    """A value back within the limit two runs into a regression raised a second threshold alert
    when the next two were past it again; a change point found later took over one, and two stayed
    active for one step."""
    values = 1e6 * (1 + 0.01 * np.random.default_rng(3).standard_normal(46))
    values[40:] *= 1.5
    values[42] = values[:40].mean()          # the dip
    with SqliteStore(store_path) as store:
        store.add_runs([Run("default", "main", f"c{i:04d}", Bed("tb"), [Metric("b", "latency", float(v))],
                            start_time=1_700_000_000.0 + i) for i, v in enumerate(values[:40])])
    assert detect(cli)[0] == 0
    raised = []
    for i in range(40, 46):
        with SqliteStore(store_path) as store:
            store.add_runs([Run("default", "main", f"c{i:04d}", Bed("tb"), [Metric("b", "latency", float(values[i]))],
                                start_time=1_700_000_000.0 + i)])
        raised += [(i, a["kind"], a["commit"]) for a in detect(cli)[1]["new_alerts"]]
    assert raised == [(41, "threshold", "c0040")]
    [alert] = [a for a in alerts(cli) if a["status"] == "active"]
    assert alert["commit"] == "c0040"
