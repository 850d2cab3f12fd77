"""perfgate.detect.distributions gives scipy.special's values over the ranges the detector uses."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import special

from perfgate.detect import distributions as d


def _close(got: float, want: float, rel: float = 1e-10) -> bool:
    return got == want or abs(got - want) <= rel * abs(want)


@pytest.mark.parametrize("df", [1, 1.5, 2, 3, 4.7, 9, 29.9, 30, 30.1, 63, 255.5, 1000, 4095, 1e5, 1e6])
def test_student_cdf_and_quantile_are_scipys(df):
    for t in [-1e3, -50, -12, -6, -3, -1.7, -0.5, -1e-3, 0.0, 0.3, 2, 7, 40]:
        want = float(special.stdtr(df, t))
        if want > 1e-300:                           # scipy underflows to 0 a little sooner
            assert _close(d.student_cdf(t, df), want), (t, want)
    for p in [1e-12, 1e-6, 1e-3, 0.005, 0.025, 0.1, 0.3, 0.5, 0.7, 0.95, 0.975, 0.995, 0.9995, 1 - 1e-9]:
        assert _close(d.student_quantile(p, df), float(special.stdtrit(df, p))), p


def test_chi_square_quantile_is_scipys():
    for df in list(range(1, 200)) + [333, 1000, 2999]:
        for q in (1e-6, 1e-3, 0.05, 0.5, 0.9):
            assert _close(d.chi2_upper_quantile(df, q), float(special.chdtri(df, q))), (df, q)


def test_fair_binomial_tail_is_scipys_and_the_exact_sum():
    for n in list(range(1, 60)) + [100, 333, 1000, 2500]:
        for k in range(0, n + 2):
            want = float(special.bdtrc(k - 1, n, 0.5)) if k > 0 else 1.0
            assert _close(d.fair_binomial_at_least(k, n), want), (k, n)
    for n, k in [(10, 7), (31, 20), (64, 64)]:        # against the sum of binomial coefficients
        assert _close(d.fair_binomial_at_least(k, n), sum(math.comb(n, j) for j in range(k, n + 1)) / 2 ** n, 1e-13)


def test_normal_tail_and_quantile_are_scipys():
    for z in np.linspace(-37, 37, 741):     # z / √2 rounds: 2·10⁻¹³ of erfc at z = 37, either way
        assert _close(d.normal_cdf(z), float(special.ndtr(z)), 1e-12), z
        assert _close(d.normal_two_sided(z), float(2 * special.ndtr(-abs(z))), 1e-12), z
    for p in np.concatenate([np.geomspace(1e-300, 0.5, 300), 1 - np.geomspace(1e-16, 0.5, 100)]):
        assert _close(d.normal_quantile(p), float(special.ndtri(p)), 1e-14), p
    assert d.normal_quantile(0.0) == -math.inf and d.normal_quantile(1.0) == math.inf
    assert math.isnan(d.normal_quantile(1.5))
    assert d.student_quantile(0.5, 7) == 0.0 and d.student_quantile(1.0, 7) == math.inf
