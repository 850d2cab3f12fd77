"""Wall-time threshold streaks measured on a loaded machine are held (``perfgate.detect.load_hold``):
through the CLI on a SQLite store whose runs carry the load they were measured under
(``host_load`` in their context, as ``perfgate run`` records it), imported with ``sync --import``."""

from __future__ import annotations

import json

import numpy as np
import pytest

from perfgate import history_files, host_load
from perfgate.detect.load_hold import load_check, wall_time
from perfgate.model import Metric, Run
from perfgate.model import Testbed as Bed

QUIET, LOADED = 0.1, 0.95      # others' share of the CPU time


def _runs(loads: list[float | None], factors: list[float], first: int = 0, seed: int = 3) -> list[Run]:
    """One run a commit: latency ~100 ms in 2% noise times ``factors``; instructions exact."""
    noise = 1 + 0.02 * np.random.default_rng(seed + first).standard_normal(len(loads))
    runs = []
    for i, (load, factor, e) in enumerate(zip(loads, factors, noise), start=first):
        context = {} if load is None else {host_load.KEY: {host_load.OTHERS: load, "cpus": 2}}
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


def test_a_loaded_streak_is_held_until_a_quiet_run_is_past_the_limit_too(cli, tmp_path):
    _add(cli, tmp_path, _runs([QUIET] * 30 + [LOADED] * 2, [1.0] * 30 + [2.5] * 2))
    report = json.loads(cli("detect", "--no-record", "--json").stdout)
    held = _latency(report)["threshold"]["held"]
    assert held["load"] == LOADED and held["baseline_load"] == QUIET and "quiet machine decides" in held["why"]
    # the instruction count measured in the same runs is not wall time: its streak alerts
    assert [a["measure"] for a in report["new_alerts"]] == ["instructions"]
    proc = cli("detect")
    assert proc.returncode == 1, proc.stderr        # the instruction count's alert
    assert "bench [latency] main@tb: the newest value is past its t_test limit; measured while the machine was " \
           "loaded: other processes used 95% of its CPU time against 10% in its baseline; the next run on a quiet " \
           "machine decides" in " ".join(proc.stdout.split())

    _add(cli, tmp_path, _runs([QUIET], [2.5], first=32))
    proc = cli("detect", "--json")
    assert proc.returncode == 1, proc.stderr
    [alert] = [a for a in json.loads(proc.stdout)["new_alerts"] if a["measure"] == "latency"]
    assert alert["direction"] == "regression" and alert["magnitude"] > 1.2
    assert alert["commit"] == f"{30:040x}"      # the streak's first run: the regression began there
    assert alert["details"]["load_check"] == {"held": False, "load": pytest.approx(LOADED), "baseline_load": QUIET}


def test_a_quiet_run_back_within_the_limit_ends_a_held_streak_without_an_alert(cli, tmp_path):
    # all at once: a detect that sees the streak only after the run that ended it raises nothing either
    _add(cli, tmp_path, _runs([QUIET] * 30 + [LOADED] * 2 + [QUIET] * 3, [1.0] * 30 + [2.5] * 2 + [1.0] * 3))
    new = json.loads(cli("detect", "--json").stdout)["new_alerts"]
    assert [a["measure"] for a in new] == ["instructions"]     # the same runs' exact count is not held


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


def test_load_check_rule():
    assert load_check([0.9, 0.8], [0.1] * 10)["held"] is True
    assert load_check([0.9, 0.3], [0.1] * 10)["held"] is False     # a quiet value past the limit decides
    assert load_check([0.9, 0.9], [0.6] * 10)["held"] is False     # the baseline was loaded too
    assert load_check([0.9, None], [0.1] * 10) is None             # unknown: judged as before
    assert load_check([0.9, 0.9], [0.1] * 4 + [None] * 6) is None
    assert [m for m in ("latency", "throughput", "instructions", "peak-rss", "total-ms") if wall_time(m)] == \
        ["latency", "throughput", "total-ms"]


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
    write((190, 1100), (210, 1100), "2.50")      # CPU 0 busy 90 of 100 ticks, CPU 1 10 of 100
    # pinned to CPU 1: the others' share is CPU 0's
    assert host_load.during(start, "1", **paths)[host_load.KEY] | {"seconds": 0} == \
        {"cpus": 2, "loadavg": [0.5, 2.5], "seconds": 0, host_load.OTHERS: 0.9}
    assert host_load.during(start, "0-1", **paths)[host_load.KEY].get(host_load.OTHERS) is None   # no CPU left
    assert host_load.during(None, **paths) == {}
    assert host_load.reading(stat=str(tmp_path / "absent")) is None     # not Linux: nothing, never an error
    assert host_load.figure(True) is None and host_load.figure(1.5) is None and host_load.figure(0.25) == 0.25
