"""Wall-time threshold streaks measured on a loaded machine are held (``perfgate.detect.load_hold``),
and the change point search leaves such runs out (``perfgate.detect.load_search``): through the
CLI on a SQLite store whose runs carry the load they were measured under (``host_load`` in their
context, as ``perfgate run`` records it), imported with ``sync --import``."""

from __future__ import annotations

import json
import os
import shutil
import time

import numpy as np
import pytest

from perfgate import history_files, host_load
from perfgate.containers import cpu_time
from perfgate.detect.load_hold import left_out, load_check, unloaded, wall_time
from perfgate.model import Metric, Run
from perfgate.model import Testbed as Bed

# the share of the CPU the benchmark needed that others took: 0.6 slows it 2.5x (1 / (1 - 0.6));
# a quiet host's runs read 0 (others used under half of its 2 CPUs)
QUIET, LOADED = 0.0, 0.6


def _runs(loads: list[float | None], factors: list[float], first: int = 0, seed: int = 3) -> list[Run]:
    """One run a commit: latency ~100 ms in 2% noise times ``factors``; instructions exact."""
    noise = 1 + 0.02 * np.random.default_rng(seed + first).standard_normal(len(loads))
    runs = []
    for i, (load, factor, e) in enumerate(zip(loads, factors, noise), start=first):
        context = {} if load is None else {host_load.KEY: {host_load.CONTENDED: load, "cpus": 2}}
        runs.append(Run("default", "main", f"{i:040x}", Bed("tb"),
                        [Metric("bench", "latency", float(1e8 * factor * e)),
                         Metric("bench", "instructions", 1e9 * factor)],
                        start_time=1.7e9 + 3600 * i, end_time=1.7e9 + 3600 * i + 60, context=context))
    return runs


def _add(cli, tmp_path, runs: list[Run]) -> None:
    folder = tmp_path / "data"
    for run in runs:
        history_files.export_run(folder, run)
    cli("sync", "--import", str(folder), check=True)


def _latency(report: dict) -> dict:
    [series] = [s for s in report["series"] if s["measure"] == "latency"]
    return series


def test_a_loaded_streak_is_held_until_runs_past_the_limit_at_their_unloaded_speed_make_an_alert(cli, tmp_path):
    _add(cli, tmp_path, _runs([QUIET] * 30 + [LOADED] * 2, [1.0] * 30 + [2.5] * 2))
    report = json.loads(cli("detect", "--no-record", "--json").stdout)
    held = _latency(report)["threshold"]["held"]
    assert held["load"] == LOADED and held["baseline_load"] == QUIET and "the next runs decide" in held["why"]
    # the instruction count measured in the same runs is not wall time: its streak alerts
    assert [a["measure"] for a in report["new_alerts"]] == ["instructions"]
    proc = cli("detect")
    assert proc.returncode == 1, proc.stderr        # the instruction count's alert
    assert "bench [latency] main@tb: the newest value is past its t_test limit; measured while the machine was " \
           "loaded: other processes took 60% of the CPU it needed against 0% in its baseline, and at the speed it " \
           "would have had without them it is within the limit; the next runs decide" in " ".join(proc.stdout.split())

    # a quiet run past the limit: one value at its unloaded speed, as a t_test of two in a row
    # does not alert on one
    _add(cli, tmp_path, _runs([QUIET], [2.5], first=32))
    proc = cli("detect", "--json")
    assert proc.returncode == 0 and "held" in _latency(json.loads(proc.stdout))["threshold"], proc.stderr
    _add(cli, tmp_path, _runs([QUIET], [2.5], first=33))
    proc = cli("detect", "--json")
    assert proc.returncode == 1, proc.stderr
    [alert] = [a for a in json.loads(proc.stdout)["new_alerts"] if a["measure"] == "latency"]
    assert alert["direction"] == "regression" and alert["magnitude"] > 1.2
    # named by the first run past the limit at its unloaded speed: the two before it were 2.5x
    # slower only by the load (at their unloaded speed, the baseline's)
    assert alert["commit"] == _commit(32) and alert["commit_range"] == [_commit(32), _commit(33)]
    # and its load check is of those runs, measured quiet
    assert alert["details"]["load_check"] == {"held": False, "load": QUIET, "baseline_load": QUIET}


def test_a_streak_that_began_under_load_but_was_slower_code_is_named_by_its_loaded_first_run(cli, tmp_path):
    # 1.5x slower code from run 30, measured under load at 30 and 31: at their unloaded speed those
    # are past the limit too, so the regression began at 30, as the alert says
    _add(cli, tmp_path, _runs([QUIET] * 30 + [LOADED] * 2 + [QUIET] * 2, [1.0] * 30 + [3.75] * 2 + [1.5] * 2))
    [alert] = [a for a in json.loads(cli("detect", "--json").stdout)["new_alerts"] if a["measure"] == "latency"]
    assert alert["commit"] == _commit(30)


def test_a_streak_ended_in_one_batch_is_named_past_the_runs_the_load_alone_slowed(cli, tmp_path):
    # runs recorded many at a time: the streak a later run ended alerts as after each run, from run 32
    _add(cli, tmp_path, _runs([QUIET] * 30 + [LOADED] * 2 + [QUIET] * 6, [1.0] * 30 + [2.5] * 2 + [2.5] * 3 + [1.0] * 3))
    [alert] = [a for a in json.loads(cli("detect", "--json").stdout)["new_alerts"] if a["measure"] == "latency"]
    assert alert["commit"] == _commit(32) and alert["details"]["ended_at"] == _commit(35)


def test_a_quiet_run_back_within_the_limit_ends_a_held_streak_without_an_alert(cli, tmp_path):
    # all at once: a detect that sees the streak only after the run that ended it raises nothing either
    _add(cli, tmp_path, _runs([QUIET] * 30 + [LOADED] * 2 + [QUIET] * 3, [1.0] * 30 + [2.5] * 2 + [1.0] * 3))
    new = json.loads(cli("detect", "--json").stdout)["new_alerts"]
    assert [a["measure"] for a in new] == ["instructions"]     # the same runs' exact count is not held



def test_a_regression_larger_than_the_load_is_alerted_at_once(cli, tmp_path):
    # 1.5x slower code measured under a load that slows it 2.5x more: at its unloaded speed it is
    # still 50% past the baseline, so no quiet run is waited for
    _add(cli, tmp_path, _runs([QUIET] * 30 + [LOADED] * 2, [1.0] * 30 + [3.75] * 2))
    proc = cli("detect", "--json")
    assert proc.returncode == 1, proc.stderr
    report = json.loads(proc.stdout)
    [alert] = [a for a in report["new_alerts"] if a["measure"] == "latency"]
    assert alert["commit"] == _commit(30) and "held" not in _latency(report)["threshold"]
    assert alert["details"]["load_check"] == {"held": False, "load": pytest.approx(LOADED),
                                              "baseline_load": QUIET, "larger_than_the_load": True}


def test_one_value_past_the_limit_at_its_unloaded_speed_does_not_outweigh_the_load(cli, tmp_path):
    # an alert needs two values in a row past the limit: so does the load's failing to explain them
    _add(cli, tmp_path, _runs([QUIET] * 30 + [LOADED] * 2, [1.0] * 30 + [3.75, 2.5]))
    report = json.loads(cli("detect", "--no-record", "--json").stdout)
    assert _latency(report)["threshold"]["held"]["load"] == LOADED
    assert [a["measure"] for a in report["new_alerts"]] == ["instructions"]

@pytest.mark.parametrize("loads", [[LOADED] * 32, [None] * 32], ids=["every run loaded", "no load recorded"])
def test_a_history_measured_under_the_same_load_or_none_alerts_as_before(cli, tmp_path, loads):
    _add(cli, tmp_path, _runs(loads, [1.0] * 30 + [2.5] * 2))
    proc = cli("detect", "--json")
    assert proc.returncode == 1, proc.stderr
    report = json.loads(proc.stdout)
    [alert] = [a for a in report["new_alerts"] if a["measure"] == "latency"]
    assert alert["commit"] == f"{30:040x}"
    assert "held" not in _latency(report)["threshold"]
    assert ("load_check" in alert["details"]) == (loads[0] is not None)


def _commit(i: int) -> str:
    return f"{i:040x}"


def test_a_load_episode_in_a_quiet_history_raises_no_change_point(cli, tmp_path):
    # six runs 2.5x slower under load: without the loads, a +150% change at run 30 and its revert
    _add(cli, tmp_path, _runs([QUIET] * 30 + [LOADED] * 6 + [QUIET] * 20, [1.0] * 30 + [2.5] * 6 + [1.0] * 20))
    report = json.loads(cli("detect", "--no-record", "--json").stdout)
    latency = _latency(report)
    assert [e for e in latency["change_points"] if e["kind"] == "change_point"] == []
    assert latency["left_out_for_load"] == 6 and latency["points"] == 56     # every run still in the series
    assert [a["measure"] for a in report["new_alerts"]] == ["instructions"] * 2    # not wall time: its bump stays
    assert [a["commit"] for a in report["new_alerts"]] == [_commit(30), _commit(36)]


def test_a_step_begun_under_load_is_alerted_with_a_range_over_the_loaded_runs(cli, tmp_path):
    # +30% from run 30 on; runs 30-32 measured under load (2.5x slower on top)
    _add(cli, tmp_path, _runs([QUIET] * 30 + [LOADED] * 3 + [QUIET] * 20, [1.0] * 30 + [3.25] * 3 + [1.3] * 20))
    proc = cli("detect", "--json")
    assert proc.returncode == 1, proc.stderr
    report = json.loads(proc.stdout)
    [alert] = [a for a in report["new_alerts"] if a["measure"] == "latency"]
    assert alert["kind"] == "change_point" and alert["direction"] == "regression"
    assert alert["magnitude"] == pytest.approx(0.3, abs=0.05)     # the quiet runs' step, not the load's
    # it could be at any loaded run or the first quiet one after them: the search did not see the loaded
    assert alert["commit"] == _commit(33) and alert["commit_range"] == [_commit(i) for i in range(30, 34)]
    assert alert["details"]["last_measured"] == _commit(29) and alert["details"]["left_out_for_load"] == 3
    [entry] = [e for e in _latency(report)["change_points"] if e["kind"] == "change_point"]
    assert entry["left_out_for_load"] == 3 and entry["likeliest_range"][0] == _commit(30)
    text = " ".join(cli("detect", "--no-record").stdout.split())
    assert "could be at any of the 3 run(s) in its range measured under load, left out of the search" in text


@pytest.mark.parametrize("loads", [[LOADED] * 20 + [QUIET] * 16, [QUIET] * 16 + [None] * 20],
                         ids=["mostly loaded", "no load in the loaded runs"])
def test_the_change_point_search_is_as_before_unless_the_series_is_mostly_quiet(loads):
    from perfgate.commands import detect
    from perfgate.store import Point, SeriesKey
    from perfgate.thresholds import load_thresholds

    key = SeriesKey("main", "tb", "bench", "latency")
    settings = load_thresholds(None).for_series(key.benchmark, key.measure)
    factors = [1.0] * 16 + [2.5] * 20
    noise = 1 + 0.02 * np.random.default_rng(5).standard_normal(len(factors))
    points = [Point(f"r{i}", _commit(i), 1.7e9 + 3600 * i, 1e8 * f * e, load=load)
              for i, (f, e, load) in enumerate(zip(factors, noise, loads))]
    bare = [Point(p.run_id, p.commit, p.time, p.value) for p in points]
    detect._import_detectors()
    with_loads, before = detect._analyse(key, points, settings), detect._analyse(key, bare, settings)
    assert [e["index"] for e in before["change_points"] if e["kind"] == "change_point"] == [16]
    assert with_loads["change_points"] == before["change_points"] and "left_out_for_load" not in with_loads


def test_the_pages_search_leaves_loaded_runs_out_as_detect_does():
    from perfgate.report.series_data import findings
    from perfgate.store import Point, SeriesKey
    from perfgate.thresholds import load_thresholds

    key = SeriesKey("main", "tb", "bench", "latency")
    settings = load_thresholds(None).for_series(key.benchmark, key.measure)
    loads = [QUIET] * 30 + [LOADED] * 6 + [QUIET] * 20
    factors = [1.0] * 30 + [2.5] * 6 + [1.0] * 20
    noise = 1 + 0.02 * np.random.default_rng(3).standard_normal(len(factors))
    points = [Point(f"r{i}", _commit(i), 1.7e9 + 3600 * i, 1e8 * f * e, load=load)
              for i, (f, e, load) in enumerate(zip(factors, noise, loads))]
    assert findings(key, points, settings)[0] == []
    assert len(findings(key, [Point(p.run_id, p.commit, p.time, p.value) for p in points], settings)[0]) == 2


def test_the_search_without_loaded_runs_speaks_the_whole_series_indices():
    from perfgate.detect.changepoint import ChangePointDetector, Likelihood
    from perfgate.detect.load_search import WithoutLoaded

    factors = [1.0] * 30 + [3.25] * 3 + [1.3] * 20
    noise = 1 + 0.02 * np.random.default_rng(3).standard_normal(len(factors))
    d = WithoutLoaded(ChangePointDetector(), [1e8 * f * e for f, e in zip(factors, noise)], None, [30, 31, 32])
    [cp] = d.predict()
    assert (cp.index, cp.index_low, cp.index_high) == (33, 30, 33) and cp.magnitude == pytest.approx(0.3, abs=0.05)
    [s] = d.likelihoods([cp])
    # a change at any loaded run is as likely as at the first quiet run after them: the best place
    assert s.values[30 - s.start:34 - s.start] == (0.0,) * 4 and max(s.values) == 0.0
    assert d.align([cp], [])[0][0] is cp            # not moved: the same change
    # a sibling's change at loaded run 31 is where this one already is (kept run 30 stands for runs
    # 30-33), not a place to move it to
    sibling = Likelihood(25, tuple(0.0 if i == 31 else -20.0 for i in range(25, 40)))
    assert d._likelihood_in(sibling) == Likelihood(25, (-20.0,) * 5 + (0.0,) + (-20.0,) * 6)
    placed, _ = d.align([cp], [sibling])
    assert placed[0] is cp
    assert d.corroborate([cp], [(31, 31)]) == []    # within min_segment of its own change: that change
    assert d.warm_up == 0 and d.values_.size == len(factors)


def test_load_check_rule():
    assert load_check([0.9, 0.8], [0.1] * 10)["held"] is True
    assert load_check([0.9, 0.2], [0.1] * 10)["held"] is False     # a quiet value past the limit decides
    # ... unless the values at their unloaded speed show it past the limit too few times to alert
    assert load_check([0.9, 0.2], [0.1] * 10, explained=True)["held"] is True
    assert load_check([0.2, 0.1], [0.1] * 10, explained=True)["held"] is False     # nothing loaded
    # the values at their unloaded speed still past the limit: the load does not explain the streak
    assert load_check([0.9, 0.8], [0.1] * 10, explained=False) == {
        "held": False, "load": pytest.approx(0.85), "baseline_load": 0.1, "larger_than_the_load": True}
    assert "larger_than_the_load" not in load_check([0.2, 0.1], [0.1] * 10, explained=False)
    # a time at 2x the speed it had under half of its CPU taken; a rate at half; none recorded: as is
    assert (unloaded(10.0, 0.5, True), unloaded(10.0, 0.5, False), unloaded(10.0, None, True)) == (5.0, 20.0, 10.0)
    assert unloaded(10.0, 1.0, True) == pytest.approx(0.5)         # all of it read: a little was left
    assert load_check([0.9, 0.9], [0.6] * 10)["held"] is False     # the baseline was loaded too
    assert load_check([0.9, None], [0.1] * 10) is None             # unknown: judged as before
    assert load_check([0.9, 0.9], [0.1] * 4 + [None] * 6) is None
    assert [m for m in ("latency", "throughput", "instructions", "peak-rss", "total-ms") if wall_time(m)] == \
        ["latency", "throughput", "total-ms"]



def test_left_out_rule():
    slowed = [1.0, 9.0, 1.0, 1.0, 4.0, 1.0]     # runs 1 and 4 as slow as their loads predict, or slower
    assert left_out("latency", [0.1, 0.9, 0.2, None, 0.8, 0.0], slowed) == [1, 4]     # 3 of the 5 recorded quiet
    assert left_out("instructions", [0.1, 0.9, 0.2], slowed[:3]) == []        # not wall time
    assert left_out("latency", [0.9, 0.9, 0.1], slowed[:3]) == []             # mostly loaded: the series' normal
    assert left_out("latency", [0.6, 0.6, 0.9, 0.1], slowed[:4]) == []        # not mostly quiet (0.6 is not quiet)
    assert left_out("latency", [None, None, 0.1], slowed[:3]) == []           # nothing loaded
    # a loaded run at its neighbours' level was not slowed (under half the 1.5x that 0.33 predicts): kept
    assert left_out("latency", [0.0, 0.33, 0.0, 0.0, 0.33, 0.0], [1.0, 1.2, 1.0, 1.0, 1.3, 1.0]) == [4]
    # a rate is slowed by falling
    assert left_out("throughput", [0.0, 0.5, 0.0, 0.0], [10.0, 4.0, 10.0, 10.0]) == [1]
    assert left_out("throughput", [0.0, 0.5, 0.0, 0.0], [10.0, 9.0, 10.0, 10.0]) == []


def test_a_step_with_loaded_runs_at_both_levels_is_found(cli, tmp_path):
    # An adopter's pytest-benchmark series, 12 runs: ~200 us, then ~150x slower from run 6; runs
    # 4, 5, 7, 9 and 11 measured under load (contended 0.30-0.59) but at their level.  All five
    # were left out, which left 4 runs before the step and 3 after: no change point, exit 0.
    loads = [0.2, 0.07, 0.08, 0.17, 0.30, 0.34, 0.08, 0.59, 0.19, 0.33, 0.10, 0.36]
    factors = [1.0] * 6 + [150.0] * 6
    _add(cli, tmp_path, _runs(loads, factors))
    proc = cli("detect", "--json")
    assert proc.returncode == 1, proc.stderr
    [alert] = [a for a in json.loads(proc.stdout)["new_alerts"] if a["measure"] == "latency"]
    assert alert["kind"] == "change_point" and alert["commit"] == _commit(6)


def test_container_cpu_time_from_its_cgroup(tmp_path):
    cid = "ab" * 32
    v2, v1 = tmp_path / "v2", tmp_path / "v1"
    (v2 / "docker" / cid).mkdir(parents=True)
    (v2 / "docker" / cid / "cpu.stat").write_text("usage_usec 2500000\nuser_usec 2000000\nsystem_usec 500000\n")
    (v1 / "cpu,cpuacct" / "system.slice" / f"docker-{cid}.scope").mkdir(parents=True)
    (v1 / "cpu,cpuacct" / "system.slice" / f"docker-{cid}.scope" / "cpuacct.usage").write_text("1250000000\n")
    assert cpu_time.usage(cid, str(v2)) == 2.5
    assert cpu_time.usage(cid, str(v1)) == 1.25
    assert cpu_time.usage("cd" * 32, str(v2)) is None      # gone, or another layout: nothing, never an error

    # the watch reads the id the CLI writes, then the counter until stopped, keeping the last value
    cidfile = tmp_path / "cid"
    cidfile.write_text("")                              # created before the id is known
    watch = cpu_time.Watch(cidfile, str(v2))
    time.sleep(3 * cpu_time.INTERVAL)
    cidfile.write_text(cid)
    deadline = time.monotonic() + 5
    while watch.seconds is None and time.monotonic() < deadline:
        time.sleep(cpu_time.INTERVAL)
    shutil.rmtree(v2 / "docker" / cid)                  # the container exited: its cgroup is gone
    time.sleep(3 * cpu_time.INTERVAL)
    assert watch.stop() == 2.5
    (v2 / "docker" / "not an id").mkdir()
    (v2 / "docker" / "not an id" / "cpu.stat").write_text("usage_usec 1\n")
    cidfile.write_text("not an id")                     # never a path it did not expect
    watch = cpu_time.Watch(cidfile, str(v2))
    time.sleep(3 * cpu_time.INTERVAL)
    assert watch.stop() is None


def test_host_load_from_proc_files(tmp_path):
    stat, loadavg = tmp_path / "stat", tmp_path / "loadavg"
    paths = {"stat": str(stat), "loadavg": str(loadavg)}

    def write(cpu0: tuple[int, int], cpu1: tuple[int, int], load: str) -> None:
        # user nice system idle iowait irq softirq steal: busy in user, idle in idle
        stat.write_text("cpu  0 0 0 0 0 0 0 0\n" + "".join(f"cpu{i} {b} 0 0 {t - b} 0 0 0 0 0 0\n"
                                                          for i, (b, t) in enumerate([cpu0, cpu1])))
        loadavg.write_text(f"{load} 1.00 1.00 2/100 123\n")

    write((100, 1000), (200, 1000), "0.50")
    start = host_load.reading(**paths)
    write((190, 1100), (270, 1100), "2.50")      # CPU 0 busy 90 of 100 ticks, CPU 1 70 of 100
    own = 30 / os.sysconf("SC_CLK_TCK")          # the container's CPU time: 30 ticks
    # pinned to CPU 1: the others' share is CPU 1's less the container's own (CPU 0's work
    # leaves it undisturbed)
    assert host_load.during(start, "1", own=own, **paths)[host_load.KEY] | {"seconds": 0} == \
        {"cpus": 2, "loadavg": [0.5, 2.5], "seconds": 0, host_load.OTHERS: 0.4, host_load.CONTENDED: 0.4,
         host_load.PINNED: 1}
    # over two CPUs, others' 65% left the benchmark 0.7 of one CPU: 30% of it taken
    both = host_load.during(start, "0-1", own=own, **paths)[host_load.KEY]
    assert (both[host_load.OTHERS], both[host_load.CONTENDED], both[host_load.PINNED]) == (0.65, 0.3, 2)
    # on the host: the machine's busy share less the benchmark's (no child of this test ended)
    host = host_load.during(start, **paths)[host_load.KEY]
    assert (host[host_load.OTHERS], host[host_load.CONTENDED]) == (0.8, 0.6) and host_load.PINNED not in host
    # the container's CPU time unread: no figure, never a guess
    assert host_load.OTHERS not in host_load.during(start, "1", own=None, **paths)[host_load.KEY]
    assert host_load.during(None, **paths) == {}
    assert host_load.reading(stat=str(tmp_path / "absent")) is None     # not Linux: nothing, never an error
    assert host_load.figure(True) is None and host_load.figure(1.5) is None and host_load.figure(0.25) == 0.25


@pytest.mark.parametrize("window", [None, "command"], ids=["read from outside", "over the command"])
def test_a_container_run_read_from_outside_its_command_is_judged_without_a_load(window, cli, tmp_path):
    # before stop 57 a container's load was read around docker run, its start and stop in it: a
    # second's quiet suite run read 0.15-0.31, so such figures are not taken
    runs = _runs([QUIET] * 30 + [LOADED] * 2, [1.0] * 30 + [2.5] * 2)
    for run in runs:
        run.context[host_load.KEY] |= {host_load.PINNED: 1, **({host_load.WINDOW: window} if window else {})}
    _add(cli, tmp_path, runs)
    report = json.loads(cli("detect", "--no-record", "--json").stdout)
    latency = [a for a in report["new_alerts"] if a["measure"] == "latency"]
    assert ("held" in _latency(report)["threshold"]) == (window is not None)
    assert len(latency) == (0 if window else 1)
    assert host_load.taken(runs[-1].context[host_load.KEY]) == (LOADED if window else None)


def test_a_containers_snapshots_read_as_the_proc_files_do(tmp_path):
    stat = "cpu  10 0 10 80 0 0 0 0 0 0\ncpu0 5 0 5 40 0 0 0 0 0 0\ncpu1 5 0 5 40 0 0 0 0 0 0\nctxt 99\n"
    reading = host_load.snapshot(stat + "0.52 0.58 0.59 1/123 4567\n12345.67 23456.78\n")
    assert reading == host_load.Reading(12345.67, 0.52, {0: (10, 50), 1: (10, 50)}, 0.0)
    assert host_load.snapshot("") is None and host_load.snapshot("cpu0 1 2\n") is None
    later = host_load.snapshot(stat.replace("cpu1 5 0 5 40", "cpu1 45 0 5 50") + "1.0 1 1 1/1 1\n12355.67 0\n")
    load = host_load.during(reading, "1", own=0.1, end=later)[host_load.KEY]
    # CPU 1: 50 ticks, 40 busy, 10 of them the container's own (0.1 s): others took 30 of 50
    assert load[host_load.OTHERS] == pytest.approx(0.6) and load["seconds"] == 10.0
    assert load[host_load.WINDOW] == "command" and host_load.taken(load) == load[host_load.CONTENDED]


def test_contended_is_the_share_of_the_one_cpu_a_benchmark_needs_that_others_took():
    # others at half of 2 CPUs left the benchmark a CPU of its own; at half of its one pinned CPU,
    # half of it (a 2x slowdown); at 3/4 of 2 CPUs, half of one as well
    assert host_load.contended(0.5, 2) == 0.0 and host_load.contended(0.5, 1) == 0.5
    assert host_load.contended(0.75, 2) == 0.5 and host_load.contended(1.0, 2) == 1.0
    assert host_load.contended(0.0, 1) == 0.0


def test_a_run_recorded_before_the_contended_figure_is_judged_without_a_load(cli, tmp_path):
    runs = _runs([QUIET] * 30 + [LOADED] * 2, [1.0] * 30 + [2.5] * 2)
    for run in runs:
        run.context = {host_load.KEY: {host_load.OTHERS: run.context[host_load.KEY][host_load.CONTENDED], "cpus": 2}}
    _add(cli, tmp_path, runs)
    report = json.loads(cli("detect", "--no-record", "--json").stdout)
    assert "held" not in _latency(report)["threshold"]
    assert sorted(a["measure"] for a in report["new_alerts"]) == ["instructions", "latency"]


def test_a_series_with_a_quarter_of_its_runs_left_out_for_load_says_so(cli, tmp_path):
    # "no change points" is said of the runs kept: with 4 of 12 left out, the user is told
    _add(cli, tmp_path, _runs([QUIET] * 4 + [LOADED] * 4 + [QUIET] * 4, [1.0] * 4 + [2.5] * 4 + [1.0] * 4))
    proc = cli("detect")
    said = " ".join(proc.stderr.split())
    assert "bench [latency] main@tb: 4 of its 12 runs were measured under load and left out" in said, said
    assert "bench [instructions]" not in said
