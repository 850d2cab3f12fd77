"""bench/detect_family.py: the history it builds."""

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
import detect_family  # noqa: E402


def test_every_benchmark_steps_at_the_middle_commit():
    runs = detect_family.history(benchmarks=4, runs=40, noise=0.0, step=0.03, seed=1)
    assert [r.commit for r in runs[:2]] == ["c00000", "c00001"] and {r.testbed.name for r in runs} == {"tb"}
    values = np.array([[m.value for m in r.metrics] for r in runs])
    assert values.shape == (40, 4)
    assert np.all(values[:20] == 1e6) and values[20:] == pytest.approx(1.03e6)
