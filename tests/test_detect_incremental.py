"""`perfgate detect` analyses only the series with new runs and keeps the others' results."""

from __future__ import annotations

import json

import numpy as np
import pytest

from perfgate.commands import _threshold_alerts, detect
from perfgate.model import Metric, Run
from perfgate.model import Testbed as Bed
from perfgate.store.sqlite import SqliteStore


def add(store_path, start: int, count: int, values: dict[str, np.ndarray], testbed: str = "tb",
        commits: str = "{testbed}-{i:04d}") -> None:
    """Runs ``start`` .. ``start + count - 1`` of ``values`` (one latency series per benchmark) on
    ``testbed``; commit i is named by ``commits`` (each testbed its own commits by default)."""
    with SqliteStore(store_path) as store:
        store.add_runs([Run("default", "main", commits.format(testbed=testbed, i=start + i), Bed(testbed),
                            [Metric(name, "latency", float(v[start + i])) for name, v in values.items()],
                            start_time=1_700_000_000.0 + start + i) for i in range(count)])


def without_alert_state(data: dict) -> list[dict]:
    """``detect --json``'s series without whether each change's alert is new: what a kept report
    and a full analysis must agree on."""
    return [s | {"change_points": [{k: v for k, v in c.items() if k != "alert"} for c in s["change_points"]]}
            for s in data["series"]]


def apart_from_ended_streaks(series: list[dict]) -> tuple[list[dict], list[dict]]:
    """The series without their threshold streaks that a later run ended, and those streaks: a
    full analysis raises every one of the current regime, a resumed one those of its new runs."""
    ended = [c for s in series for c in s["change_points"] if "ended_at" in c]
    return [s | {"change_points": [c for c in s["change_points"] if "ended_at" not in c]} for s in series], ended


def two_testbeds(store_path, seed: int) -> dict[str, np.ndarray]:
    """80 runs of three series on testbed a and three on b (b0 steps +20% at run 60); a's values
    for 40 runs more."""
    rng = np.random.default_rng(seed)
    a = {f"a{k}": 1e6 * (1 + 0.01 * rng.standard_normal(120)) for k in range(3)}
    b = {f"b{k}": 1e6 * (1 + 0.01 * rng.standard_normal(120)) for k in range(3)}
    b["b0"][60:] *= 1.2
    add(store_path, 0, 80, a, "tba")
    add(store_path, 0, 80, b, "tbb")
    return a


def test_only_series_with_new_runs_are_analysed(cli, store_path, monkeypatch):
    a = two_testbeds(store_path, 3)
    first = json.loads(cli("detect", "--json").stdout)
    assert len(first["series"]) == 6
    assert [c["first_commit"] for s in first["series"] for c in s["change_points"]] == ["tbb-0060"]

    with SqliteStore(store_path) as store:
        mark, saved = store.detect_state()
        assert mark == store.run_watermark() and len(saved) == 6
        assert store.series_keys_since(mark) == []
    add(store_path, 80, 1, a, "tba")                  # one new run on testbed a
    with SqliteStore(store_path) as store:
        assert {k.benchmark for k in store.series_keys_since(mark)} == {"a0", "a1", "a2"}

    second = cli("detect", "--json")
    assert second.returncode == 0, second.stderr
    data = json.loads(second.stdout)
    points = {s["benchmark"]: s["points"] for s in data["series"]}
    assert points == {"a0": 81, "a1": 81, "a2": 81, "b0": 80, "b1": 80, "b2": 80}
    [kept] = [c for s in data["series"] for c in s["change_points"]]
    assert kept["first_commit"] == "tbb-0060" and kept["alert"]["new"] is False and kept["alert"]["id"]
    assert data["new_alerts"] == []
    # the same as a full analysis
    full = json.loads(cli("detect", "--json", "--full", "--no-record").stdout)
    assert without_alert_state(full) == without_alert_state(data)


def test_skipped_series_keep_their_report_and_a_new_step_still_alerts(cli, store_path):
    rng = np.random.default_rng(4)
    v = {"x": 1e6 * (1 + 0.01 * rng.standard_normal(200)), "y": 1e6 * (1 + 0.01 * rng.standard_normal(200))}
    v["x"][100:] *= 1.3
    add(store_path, 0, 90, v)
    assert cli("detect").returncode == 0
    add(store_path, 90, 30, v)                          # the step arrives in new runs
    proc = cli("detect", "--json")
    assert proc.returncode == 1, proc.stderr
    assert [a["commit"] for a in json.loads(proc.stdout)["new_alerts"] if a["kind"] == "change_point"] == ["tb-0100"]


def test_no_record_saves_no_state_and_a_filter_keeps_a_watermark_of_its_own(cli, store_path):
    rng = np.random.default_rng(5)
    add(store_path, 0, 40, {"x": 1e6 * (1 + 0.01 * rng.standard_normal(40))})
    cli("detect", "--no-record", check=True)
    with SqliteStore(store_path) as store:
        assert store.detect_state() == (None, {})
    # which runs a detect of some series judged is kept (a later one judges only newer runs), and
    # a watermark for its filter alone: the one of every series says each was analysed up to it
    cli("detect", "--benchmark", "x", check=True)
    with SqliteStore(store_path) as store:
        mark, saved = store.detect_state()
        scoped, _ = store.detect_state(detect._scope(detect_args(benchmark="x")))
        newest = store.run_watermark()
    assert mark is None and [(k.benchmark, r["points"]) for k, (_, r) in saved.items()] == [("x", 40)]
    assert scoped == newest


def detect_args(**given):
    return type("Args", (), {k: given.get(k) for k in detect.FILTERS})()


def test_a_detect_of_some_series_analyses_only_those_with_new_runs(cli, store_path, monkeypatch):
    """The shipped workflow runs ``detect --branch main``: each one analysed every series of the
    branch, however few had new runs (at 10,000 series × 1,000 runs about a minute a push)."""
    a = two_testbeds(store_path, 7)
    first = json.loads(cli("detect", "--branch", "main", "--json").stdout)
    assert len(first["series"]) == 6
    add(store_path, 80, 1, a, "tba")                  # one new run on testbed a
    analysed = []
    real = detect._analysed
    monkeypatch.setattr(detect, "_analysed", lambda keys, *rest: analysed.append(list(keys)) or real(keys, *rest))
    from perfgate.cli import main
    monkeypatch.setenv("PERFGATE_STORE", f"sqlite:{store_path}")
    assert main(["detect", "--branch", "main", "--json"]) == 0
    assert [{k.benchmark for k in keys} for keys in analysed] == [{"a0", "a1", "a2"}]
    # the same as a full analysis of the branch, every series shown, the step kept
    second = json.loads(cli("detect", "--branch", "main", "--json", "--no-record").stdout)
    full = json.loads(cli("detect", "--branch", "main", "--json", "--full", "--no-record").stdout)
    assert without_alert_state(second) == without_alert_state(full) and len(second["series"]) == 6
    # a detect of every series keeps its own watermark: the first one analyses all six
    analysed.clear()
    assert main(["detect", "--json"]) == 0
    assert [len(keys) for keys in analysed] == [6]
    # with nothing new, neither analyses a series, and a filter that matches nothing is still named
    analysed.clear()
    assert main(["detect", "--branch", "main"]) == 0 and main(["detect"]) == 0
    assert analysed == [[], []]
    assert cli("detect", "--branch", "mian").returncode == 2


def test_reports_kept_from_an_older_analysis_are_recomputed(cli, store_path):
    """Each kept report carries the analysis version it was made by: after an upgrade that
    changed the analysis, every series is analysed again, not only those with new runs."""
    from perfgate.commands import detect

    rng = np.random.default_rng(5)
    add(store_path, 0, 60, {f"s{k}": 1e6 * (1 + 0.01 * rng.standard_normal(60)) for k in range(3)})
    assert cli("detect").returncode == 0
    with SqliteStore(store_path) as store:
        mark, saved = store.detect_state()
        assert all(settings.startswith(detect.ANALYSIS_VERSION + " ") for settings, _ in saved.values())
        older = str(int(detect.ANALYSIS_VERSION) - 1)
        store.save_detect_state(mark, {k: (older + settings[len(detect.ANALYSIS_VERSION):], report)
                                       for k, (settings, report) in saved.items()})
    proc = cli("detect", "--json")
    assert proc.returncode == 0, proc.stderr
    with SqliteStore(store_path) as store:
        _, again = store.detect_state()
    assert sorted(again) == sorted(saved)
    assert all(settings.startswith(detect.ANALYSIS_VERSION + " ") for settings, _ in again.values())


@pytest.mark.parametrize("window", [None, 30])
def test_resumed_threshold_verdicts_equal_a_full_analysis(cli, store_path, tmp_path, window):
    """A series with new runs resumes its threshold test from the verdicts saved by the last
    detect (only its new values are judged): what it reports, alerts included, is what judging
    every value again gives — also with a window in seconds, and after a run lands in the past."""
    rules = tmp_path / "thresholds.toml"
    rules.write_text('[measure.latency]\ntest = "t_test"\nupper_boundary = 0.99\nmin_sample_size = 5\n'
                     f'max_sample_size = 20\n{"window = %d" % window if window else ""}\n')
    rng = np.random.default_rng(8)
    v = {f"s{k}": 1e6 * (1 + 0.01 * rng.standard_normal(130)) for k in range(3)}
    for i in (20, 41, 42, 85, 101, 102, 103):
        v["s0"][i] *= 1.25                              # lone slow runs the t-test flags
    v["s1"][126:] *= 1.3                                # a regression at the newest runs
    add(store_path, 0, 90, v)
    cli("detect", "--thresholds", str(rules))
    for start, count in ((90, 1), (91, 12), (103, 27)):
        add(store_path, start, count, v)
        again = cli("detect", "--json", "--thresholds", str(rules))
        full = cli("detect", "--json", "--full", "--no-record", "--thresholds", str(rules))
        resumed, new_ended = apart_from_ended_streaks(without_alert_state(json.loads(again.stdout)))
        whole, every_ended = apart_from_ended_streaks(without_alert_state(json.loads(full.stdout)))
        assert resumed == whole and all(e in every_ended for e in new_ended)
    with SqliteStore(store_path) as store:
        _, saved = store.detect_state()
    key, report = next((k, r) for k, (_, r) in saved.items() if k.benchmark == "s0")
    memo = report["threshold_memo"]
    assert memo["judged"] == 130 and {20, 41, 42, 85, 101, 102, 103} <= {i for i, _ in memo["alerts"]}
    with SqliteStore(store_path) as store:
        points = store.series(key)
    regime = [p.value for p in points] + [1e6]
    times = [p.time for p in points] + [points[-1].time + 1]
    resumed = _threshold_alerts._judged(memo, 0, regime, times)          # what the next detect takes as judged
    assert len(resumed) == 130 and [(i, f) for i, f in enumerate(resumed) if f] == [tuple(a) for a in memo["alerts"]]
    assert _threshold_alerts._judged(memo, 0, [regime[1]] + regime[1:], times) == []     # another first value
    # the very values it judged (the siblings' re-test after this detect): all but the newest stand
    assert _threshold_alerts._judged(memo, 0, regime[:-1], times[:-1]) == resumed[:-1]
    assert json.loads(again.stdout)["series"][1]["threshold"]["alert"] == "upper"
    # a run landing between saved ones (an older start time) changes the values judged: all judged again
    with SqliteStore(store_path) as store:
        store.add_runs([Run("default", "main", "late", Bed("tb"), [Metric("s0", "latency", 1.3e6)],
                            start_time=1_700_000_000.0 + 50.5)])
    again = cli("detect", "--json", "--thresholds", str(rules))
    full = cli("detect", "--json", "--full", "--no-record", "--thresholds", str(rules))
    resumed, new_ended = apart_from_ended_streaks(without_alert_state(json.loads(again.stdout)))
    whole, every_ended = apart_from_ended_streaks(without_alert_state(json.loads(full.stdout)))
    assert resumed == whole and all(e in every_ended for e in new_ended)


@pytest.mark.parametrize("memo", [
    {"start": 0, "judged": 10**9, "digest": "x", "alerts": []},
    {"start": "0", "judged": 5, "digest": None, "alerts": [[-1, "upper"]]},
    {"judged": 5},
    {"start": 0, "judged": 5.5, "digest": "", "alerts": "upper"},
    ["not", "a", "memo"],
    "junk",
])
def test_a_saved_threshold_memo_of_another_shape_is_ignored(cli, store_path, memo):
    """The memo is read back from the store: one not written by this module (edited, or from
    another version) costs a full threshold test, never a wrong verdict nor a traceback."""
    rng = np.random.default_rng(6)
    v = {"s": 1e6 * (1 + 0.01 * rng.standard_normal(60))}
    v["s"][[10, 30]] *= 1.3
    add(store_path, 0, 50, v)
    assert cli("detect").returncode in (0, 1)
    with SqliteStore(store_path) as store:
        mark, saved = store.detect_state()
        store.save_detect_state(mark, {k: (settings, report | {"threshold_memo": memo})
                                       for k, (settings, report) in saved.items()})
    add(store_path, 50, 10, v)
    again = cli("detect", "--json")
    assert again.returncode in (0, 1) and "Traceback" not in again.stderr, again.stderr
    full = cli("detect", "--json", "--full", "--no-record")
    assert without_alert_state(json.loads(again.stdout)) == without_alert_state(json.loads(full.stdout))


def test_a_detect_with_nothing_new_writes_nothing_and_loads_no_detector(cli, store_path):
    """No run since the last detect: the saved reports are the answer, so nothing is analysed,
    nothing is written (the store's bytes stay as they were) and the detectors are not loaded."""
    rng = np.random.default_rng(7)
    v = {f"s{k}": 1e6 * (1 + 0.01 * rng.standard_normal(81)) for k in range(3)}
    v["s1"][50:] *= 1.2
    add(store_path, 0, 80, v)
    first = cli("detect", "--json")
    assert first.returncode == 1, first.stderr
    before = store_path.read_bytes()
    probe = ("import sys, json; from perfgate.cli import main\n"
             f"code = main(['detect', '--json', '--store', 'sqlite:{store_path}'])\n"
             "print(json.dumps(sorted(m for m in sys.modules if m.startswith(('ruptures', 'perfgate.detect.changepoint')))),"
             " file=sys.stderr)\n"
             "sys.exit(code)")
    import subprocess
    import sys

    again = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stderr.strip().splitlines()[-1]) == []
    assert store_path.read_bytes() == before
    assert without_alert_state(json.loads(again.stdout)) == without_alert_state(json.loads(first.stdout))
    assert json.loads(again.stdout)["new_alerts"] == []
    add(store_path, 80, 1, v)                            # one more run: analysed and saved again
    with SqliteStore(store_path) as store:
        mark = store.detect_state()[0]
    assert cli("detect").returncode == 0
    with SqliteStore(store_path) as store:
        assert store.detect_state()[0] == store.run_watermark() > mark


def test_a_new_benchmark_beside_a_kept_series_leaves_its_alert_found(cli, store_path):
    """A run of another benchmark on the same branch and testbed re-marks the kept series for the
    family's changes without analysing it again: its alerts stay found (its report says nothing
    new about them), and no "not found" is printed."""
    rng = np.random.default_rng(6)
    v = {f"s{k}": 1e6 * (1 + 0.01 * rng.standard_normal(60)) for k in range(3)}
    for name in v:
        v[name][40:] *= 1.15
    add(store_path, 0, 60, v)
    first = json.loads(cli("detect", "--json").stdout)
    assert len([a for a in first["new_alerts"] if a["kind"] == "change_point"]) == 3
    add(store_path, 59, 1, {"unrelated": np.full(60, 1e4)})    # at the newest commit
    second = cli("detect")
    assert second.returncode == 0, second.stderr
    assert "not found" not in second.stdout + second.stderr
    listed = cli("alerts", "--json", check=True).stdout
    assert "unfound_since" not in listed
