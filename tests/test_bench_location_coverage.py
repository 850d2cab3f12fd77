"""bench/location_coverage.py and bench/online_false_changes.py: the series they build and what
they count."""

import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
import location_coverage  # noqa: E402


def test_its_series_step_at_run_60_by_the_size_asked_and_keep_their_noise():
    quiet = location_coverage.series(5, 0.0, 0.05, 0.0)
    stepped = location_coverage.series(5, 3.0, 0.05, 0.0)
    assert quiet.size == stepped.size == 120
    ratio = stepped / quiet        # the same noise: only the step differs
    assert np.allclose(ratio[:60], 1) and np.allclose(ratio[60:], np.exp(0.15))
    e = np.log(location_coverage.series(9, 0.0, 0.05, 0.6) / 1e6)
    assert 0.3 < np.corrcoef(e[1:], e[:-1])[0, 1] < 0.85     # AR(1) at 0.6
    assert 0.03 < e.std() < 0.07


def test_a_large_step_is_found_and_held_by_its_range():
    out = subprocess.run([sys.executable, "bench/location_coverage.py", "--series", "4", "--cv", "0.01"], cwd=ROOT,
                         capture_output=True, text=True, check=True).stdout
    rows = {line.split()[0]: line.split() for line in out.splitlines()[2:]}
    assert list(rows) == ["1", "1.5", "2", "3", "5"]
    assert rows["5"][1:4] == ["4/4", "1.00", "(width"]    # found in all 4, its range holding the step


def test_quiet_and_stepped_series_are_counted_at_each_level():
    out = subprocess.run([sys.executable, "bench/online_false_changes.py", "--series", "3", "--phi", "0",
                          "--step", "0", "5"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    lines = out.splitlines()
    assert sum("quiet" in line and "false change at some length: " in line for line in lines) == 3
    assert sum("step 5x" in line and "step found: 3/3" in line for line in lines) == 3
    assert lines[-1].startswith("real wall time (tree-alloc.json, 8 series): lag-1 autocorrelation noisy stretch")
