"""The rolling median in perfgate's own C gives scipy.ndimage.median_filter's values exactly."""

from __future__ import annotations

import numpy as np
import pytest
from sanitized_c import checked_count, needs_cc
from scipy.ndimage import median_filter

from perfgate.detect import rolling
from perfgate.detect.rolling import rolling_median


def _series(rng: np.random.Generator, kind: int, n: int) -> np.ndarray:
    if kind == 0:
        return rng.normal(size=n)
    if kind == 1:                           # a few levels: windows full of exact ties
        return rng.integers(0, 4, size=n).astype(float)
    return np.round(1e6 * np.exp(0.05 * rng.normal(size=n)), -3)


def test_the_same_values_as_scipys_median_filter_for_every_window_size():
    assert rolling._own_filter() is not None          # built here
    rng = np.random.default_rng(28)
    for trial in range(1500):
        n = int(rng.integers(1, 300))
        size = int(rng.integers(1, n + 1))           # odd and even: an even window takes its upper middle
        y = _series(rng, trial % 3, n)
        assert np.array_equal(rolling_median(y, size), median_filter(y, size=size, mode="reflect")), (n, size)


def test_the_edges_are_mirrored_with_their_last_value_repeated():
    y = np.array([5.0, 1.0, 9.0, 2.0, 7.0])
    # window of 3 at the first value: (5, 5, 1) -> 5; at the last: (2, 7, 7) -> 7
    assert rolling_median(y, 3).tolist() == [5.0, 5.0, 2.0, 7.0, 7.0]
    assert rolling_median(y, 1).tolist() == y.tolist()


def test_without_the_extension_or_with_values_not_finite_scipy_filters(monkeypatch):
    y = np.r_[np.arange(20.0), np.nan, np.arange(20.0)]
    assert np.array_equal(rolling_median(y, 5), median_filter(y, size=5, mode="reflect"), equal_nan=True)
    monkeypatch.setattr(rolling, "_own_filter", lambda: None)
    z = np.random.default_rng(1).normal(size=200)
    assert np.array_equal(rolling_median(z, 121), median_filter(z, size=121, mode="reflect"))


def test_a_window_longer_than_the_series_is_refused():
    with pytest.raises(ValueError, match="rolling median of 6 values over a series of 5"):
        rolling_median(np.ones(5), 6)


@needs_cc
def test_the_c_median_is_clean_under_address_and_undefined_behaviour_sanitizers(tmp_path):
    # each window's median checked against the window sorted afresh
    assert checked_count("rolling_median_driver.c", "_rolling_median.c", tmp_path) > 500_000
