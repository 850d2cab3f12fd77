"""The statistics under the detectors, checked against scipy and by hand."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import mannwhitneyu

from perfgate.detect.stats import benjamini_hochberg, hodges_lehmann, mean_test, rank_test


def test_rank_test_matches_scipy_with_ties():
    rng = np.random.default_rng(0)
    for _ in range(20):
        a = rng.integers(0, 15, rng.integers(5, 40)).astype(float)
        b = rng.integers(2, 18, rng.integers(5, 40)).astype(float)
        z, p = rank_test(a, b)
        ref = mannwhitneyu(b, a, method="asymptotic", use_continuity=True).pvalue
        assert p == pytest.approx(ref, rel=1e-9, abs=1e-12)
        assert (z > 0) == (np.median(b) >= np.median(a)) or abs(z) < 1


def test_inflation_weakens_the_rank_test():
    a, b = np.arange(20.0), np.arange(5.0, 25.0)
    assert rank_test(a, b, inflation=4.0)[1] > rank_test(a, b)[1]


def test_mean_test_and_floor():
    z, p = mean_test(np.full(10, 1.0), np.full(10, 1.01), floor=0.001)
    assert z == pytest.approx(0.01 / (0.001 * np.sqrt(0.2))) and p < 1e-10
    assert mean_test(np.ones(5), np.ones(5)) == (0.0, 1.0)


def test_hodges_lehmann():
    assert hodges_lehmann(np.array([1.0, 2.0, 3.0]), np.array([11.0, 12.0, 13.0])) == 10.0
    assert hodges_lehmann(np.array([0.0, 0.0, 0.0]), np.array([1.0, 1.0, 100.0])) == 1.0   # robust


def test_benjamini_hochberg_by_hand():
    p = [0.01, 0.04, 0.03, 0.005, 0.5]
    # sorted 0.005, 0.01, 0.03, 0.04, 0.5 -> m·p/rank = 0.025, 0.025, 0.05, 0.05, 0.5
    q = benjamini_hochberg(p)
    assert q == pytest.approx([0.025, 0.05, 0.05, 0.025, 0.5])
    assert benjamini_hochberg([0.9, 0.9]) == pytest.approx([0.9, 0.9])
    assert list(benjamini_hochberg([])) == []
    assert benjamini_hochberg([0.001] * 3 + [0.8]).max() <= 1
