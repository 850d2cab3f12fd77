"""bench/sibling_drift.py: the suites it builds."""

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
import sibling_drift  # noqa: E402


@pytest.mark.parametrize("kind", sibling_drift.KINDS)
def test_five_siblings_step_together_and_the_sixth_is_what_its_kind_says(kind):
    series, level, at = sibling_drift.suite(kind, 3, 1, 4)
    n = series[0].size
    assert len(series) == 6 and all(s.size == n for s in series) and 40 <= at <= n - 40
    for s in series[:5]:     # +3 deviations of 3% noise at the commit
        assert np.mean(s[at:]) / np.mean(s[:at]) == pytest.approx(1.09, abs=0.02)
    steps = np.diff(level)
    if kind == "quiet":
        assert not level.any()
    elif kind == "weak step":
        assert np.flatnonzero(steps).tolist() == [at - 1] and 0.03 <= level[-1] <= 0.06
    else:                     # a drift: rising, never by more than a small part of its whole rise at once
        assert (steps >= 0).all() and 0.03 <= level.max() <= 0.12 and steps.max() < level.max() / 10
