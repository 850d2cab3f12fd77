"""bench/alerts_on_main.py: the thresholds it runs with and what it counts."""

import subprocess
import sys
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
import alerts_on_main  # noqa: E402

from perfgate.thresholds import load_thresholds  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def test_its_thresholds_are_perfgates_with_latencys_test_alone_changed(tmp_path):
    ours = load_thresholds(ROOT / "thresholds")
    theirs = load_thresholds(alerts_on_main.thresholds_with({"consecutive": 1, "min_sample_size": 5}, tmp_path / "t"))
    assert (ours.for_series("b", "latency").test.consecutive, ours.for_series("b", "latency").test.min_sample_size) == (2, 10)
    assert theirs.for_series("b", "latency").test == replace(ours.for_series("b", "latency").test, consecutive=1,
                                                              min_sample_size=5)
    for measure in ("latency", "throughput", "instructions", "peak-rss"):
        a, b = ours.for_series("b", measure), theirs.for_series("b", measure)
        assert a.change_point == b.change_point
        if measure != "latency":
            assert a.test == b.test


def test_a_clear_regression_is_alerted_and_quiet_benchmarks_counted():
    out = subprocess.run([sys.executable, "bench/alerts_on_main.py", "--benchmarks", "5", "--history", "30",
                          "--runs", "4", "--cv", "0.02"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    lines = out.splitlines()
    assert lines[0].startswith("5 benchmarks a testbed, 30 runs then 4 one at a time, noise CV 2%")
    assert any(line.startswith("quiet testbed, false alerts raised by the threshold: ") for line in lines)
    assert any(line.startswith("quiet testbed, runs with a false alert: ") and line.endswith("of 5 detected")
               for line in lines)
    # the fifth benchmark regressed by 10x its noise: alerted within the 4 new runs
    tenfold = next(line for line in lines if line.split()[:1] == ["10"])
    assert tenfold.split()[1] == "1/1"
