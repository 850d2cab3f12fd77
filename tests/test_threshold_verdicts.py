"""The verdicts judged a block at a time (``threshold_verdicts.verdicts``) are those judged one
value at a time (``threshold_tests.evaluate_series``), the reference."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from sanitized_c import checked_count, needs_cc

from perfgate.detect import threshold_verdicts
from perfgate.detect.threshold_tests import evaluate_series
from perfgate.detect.threshold_verdicts import BLOCK, _windowed, running_limits, verdicts, window_limits
from perfgate.thresholds import ThresholdTest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
from threshold_verdicts_agree import TESTS  # noqa: E402  (the tests the bench script compares on 24,000 series)


def _series(rng: np.random.Generator, n: int) -> list[float]:
    """Noise with a step the regime does not know of (a run of alerts), spikes and repeated
    values (no spread): everything that makes one value's baseline differ from the next's."""
    v = 100 * np.exp(0.03 * rng.standard_normal(n))
    v[n // 2:] *= 1.2
    v[rng.random(n) < 0.03] *= 1.5
    if n > 40:
        v[10:30] = 100.0
    return v.tolist()


@pytest.fixture(params=["walk", "passes"])
def way(request, monkeypatch):
    """Each test below runs twice: by the compiled walk (``_threshold_walk.c``, built here) and by
    numpy's passes, which an install without a C compiler uses."""
    assert threshold_verdicts._own_walk() is not None
    if request.param == "passes":
        monkeypatch.setattr(threshold_verdicts, "_own_walk", lambda: None)
    return request.param


@pytest.mark.parametrize("test", TESTS, ids=lambda t: f"{t.test}-{t.max_sample_size}")
def test_block_verdicts_are_those_judged_one_at_a_time(test, way):
    assert _windowed(test)
    rng = np.random.default_rng(16)
    alerts = 0
    for n in (1, 3, 40, BLOCK + 70, 3 * BLOCK):
        values = _series(rng, n)
        reference = evaluate_series(test, values)
        got = verdicts(test, values)
        assert got.alerts == [r.alert for r in reference]
        assert got.last == reference[-1]
        alerts += sum(a is not None for a in got.alerts)
        # resumed from saved verdicts, as detect does
        half = len(reference) // 2
        resumed = verdicts(test, values, judged=[r.alert for r in reference[:half]])
        assert resumed.alerts == [r.alert for r in reference[half:]]
    assert alerts > 20      # the windows were recomputed after alerts, many times


@pytest.mark.parametrize("kind", ["percentage", "z_score", "t_test", "log_normal"])
def test_values_that_set_no_limits_are_judged_as_one_at_a_time(kind, way):
    # zeros and negatives (no logarithm), equal values (no spread), sums past the largest double,
    # a boundary so wide that its limit is not finite, and a baseline too small for the test
    rng = np.random.default_rng(3)
    series = [rng.integers(-2, 4, 200).astype(float).tolist(),
              np.r_[np.full(30, 5.0), 5.0 + rng.integers(0, 2, 60)].tolist(),
              (1e308 * rng.random(120)).tolist(),
              (1e150 * np.exp(rng.standard_normal(120))).tolist()]
    for test in (ThresholdTest(kind, lower_boundary=0.9, upper_boundary=0.95, max_sample_size=20),
                 ThresholdTest(kind, upper_boundary=1e300 if kind == "percentage" else 0.999999, max_sample_size=7),
                 ThresholdTest(kind, lower_boundary=0.5, min_sample_size=50, max_sample_size=40)):
        for values in series:
            reference = evaluate_series(test, values)
            got = verdicts(test, values)
            assert got.alerts == [r.alert for r in reference] and got.last == reference[-1], (test, values[:5])


def test_baselines_past_the_walks_bound_go_by_numpys_passes(monkeypatch):
    # the walk costs m operations a value: a baseline of thousands is judged by running sums
    def refused():
        raise AssertionError("the walk was used")
    monkeypatch.setattr(threshold_verdicts, "_own_walk", lambda: refused)
    monkeypatch.setattr(threshold_verdicts, "WALK_MAX", 63)
    values = _series(np.random.default_rng(5), 300)
    test = ThresholdTest("t_test", upper_boundary=0.99, max_sample_size=64)
    assert verdicts(test, values).alerts == [r.alert for r in evaluate_series(test, values)]


@needs_cc
def test_the_c_walk_is_clean_under_address_and_undefined_behaviour_sanitizers(tmp_path):
    # every kind and side, baselines given or not, values with no logarithm, no spread or no finite sum
    assert checked_count("threshold_walk_driver.c", "_threshold_walk.c", tmp_path) > 400_000


def test_tests_it_does_not_compute_are_judged_one_at_a_time():
    values = [100.0, 101.0, 99.0, 150.0, 100.5, 100.0]
    for test in (ThresholdTest("iqr", upper_boundary=1.5, max_sample_size=4),
                 ThresholdTest("t_test", upper_boundary=0.99, max_sample_size=4, window=60),
                 ThresholdTest("t_test", upper_boundary=0.99)):
        assert not _windowed(test)
        reference = evaluate_series(test, values, [float(i) for i in range(6)])
        got = verdicts(test, values, [float(i) for i in range(6)])
        assert got.alerts == [r.alert for r in reference] and got.last == reference[-1]
    assert verdicts(TESTS[0], []) == ([], None)


def test_a_baseline_larger_than_the_series_is_sized_by_the_series(way):
    # Arrays were sized by max_sample_size alone: 10^8 took 10 GB on a 12-run series.
    values = [100.0, 101.0, 99.0, 100.5, 99.5, 100.0, 100.2, 99.8, 130.0, 131.0, 100.0, 100.3]
    huge = verdicts(ThresholdTest("t_test", upper_boundary=0.99, max_sample_size=10 ** 8), values)
    fitting = verdicts(ThresholdTest("t_test", upper_boundary=0.99, max_sample_size=len(values)), values)
    assert huge.alerts == fitting.alerts and "upper" in huge.alerts


@pytest.mark.parametrize("test", TESTS, ids=lambda t: f"{t.test}-{t.max_sample_size}")
def test_limits_from_running_sums_are_those_of_the_windows(test):
    # running_limits sums about the first value; window_limits about each window's own first
    # value, exactly, which the running sums hand equal values and far-off baselines to
    rng = np.random.default_rng(7)
    m = test.max_sample_size
    for values in (100 * np.exp(0.03 * rng.standard_normal(300)),
                   np.r_[np.full(40, 7.0), 7.0 + rng.integers(0, 3, 60)],      # equal values: no spread
                   np.r_[1.0, 1e9 + rng.standard_normal(150)],                 # a baseline far from the first value
                   np.r_[-1.0, 5.0 + rng.standard_normal(50)]):                # log_normal: a value it cannot take
        for first in (0, 1, min(m, values.size // 2)):
            lower, upper = running_limits(test, values, first, m)
            ends = first + np.arange(values.size - first + 1)
            padded = np.r_[np.full(m, np.nan), values]
            windows = np.stack([padded[e:e + m] for e in ends])
            want_lower, want_upper = window_limits(test, windows, np.minimum(ends, m))
            np.testing.assert_allclose(lower, want_lower, rtol=1e-9, equal_nan=True)
            np.testing.assert_allclose(upper, want_upper, rtol=1e-9, equal_nan=True)
            # equal values set no limits of a spread at all (and a mean of exactly their value)
            assert np.array_equal(np.isnan(lower), np.isnan(want_lower))
            assert np.array_equal(np.isnan(upper), np.isnan(want_upper))
