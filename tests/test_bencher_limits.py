"""The seven threshold tests against limits derived by hand from Bencher v0.6.12's formulas.

Source read: bencherdev/bencher ``lib/bencher_boundary`` (``boundary.rs``, ``mean.rs``, ``ln.rs``,
``quartiles.rs``, ``limits/mod.rs``, ``limits/limit.rs``).  The facts taken from it: the lower
limit of the log-normal test is the upper-tail quantile mirrored about the baseline
(``2·baseline − q``), quartiles interpolate at rank p·(n−1), IQR limits sit around the median
(not Tukey's fences), delta-IQR scales the median by the IQR of the *absolute* relative changes,
no limits without spread.  Two facts come from a real v0.6.12 server built from source (issue 15's
campaign) because the source snapshot available here is older: the t-test is the prediction
interval widened by √(1 + 1/n), and the deviation divides by n − 1 (z-score limits agreed with a
divisor of n − 1 there; the older snapshot divides by n).

The fixed history H = [100, 102, 98, 101, 99] (n = 5):
  mean m = 100; deviations 0, 2, −2, 1, −1; Σd² = 10; s = √(10/4) = √2.5 = 1.58113883
  sorted H = 98, 99, 100, 101, 102 → Q1 = 99 (rank 1), Q2 = 100, Q3 = 101 (rank 3)
  |relative changes| = 2/100, 4/102, 3/98, 2/101 = .02, .0392157, .0306122, .0198020
    sorted .0198020, .02, .0306122, .0392157 → D1 at rank .75 = .0199505, D3 at rank 2.25 = .0327631
  ln H: μ = 4.6050702, s (divisor n − 1) = 0.0158135, baseline e^μ = 99.98999880
Quantiles from tables: Φ⁻¹(.975) = 1.95996398, Φ⁻¹(.95) = 1.64485363, Φ⁻¹(.99) = 2.32634787,
t₄⁻¹(.975) = 2.77644511.
"""

from __future__ import annotations

import pytest
from fake_bencher.thresholds import boundary

from perfgate.detect.threshold_tests import judge, limits
from perfgate.thresholds import ThresholdTest

H = [100.0, 102.0, 98.0, 101.0, 99.0]

CASES = [
    # static: the boundaries themselves
    (ThresholdTest("static", lower_boundary=90, upper_boundary=110), None, 90.0, 110.0),
    # percentage: 100 − 100·0.1, 100 + 100·0.2
    (ThresholdTest("percentage", lower_boundary=0.1, upper_boundary=0.2), 100.0, 90.0, 120.0),
    # z: 100 ∓ 1.95996398·√2.5 = 100 ∓ 3.09897516
    (ThresholdTest("z_score", lower_boundary=0.975, upper_boundary=0.975), 100.0, 96.90102484, 103.09897516),
    # t: 100 ∓ 2.77644511·√2.5·√(1 + 1/5) = 100 ∓ 2.77644511·√3 = 100 ∓ 4.80894399
    (ThresholdTest("t_test", lower_boundary=0.975, upper_boundary=0.975), 100.0, 95.19105601, 104.80894399),
    # log-normal: upper e^(μ + 2.32634787·s) = 103.73688818;
    #             lower 2·99.98999880 − e^(μ + 1.64485363·s) = 199.97999760 − 102.62494090 = 97.35505670
    #             (not the symmetric e^(μ − 1.64485363·s) = 97.42271004)
    (ThresholdTest("log_normal", lower_boundary=0.95, upper_boundary=0.99), 99.98999880, 97.35505670, 103.73688818),
    # iqr: 100 ∓ 1.5·(101 − 99) = 97, 103  (not Tukey's fences Q1 − 1.5·IQR = 96, Q3 + 1.5·IQR = 104)
    (ThresholdTest("iqr", lower_boundary=1.5, upper_boundary=1.5), 100.0, 97.0, 103.0),
    # delta-iqr: 100 ∓ 100·1·(.0327631 − .0199505) = 100 ∓ 1.28126102
    (ThresholdTest("delta_iqr", lower_boundary=1.0, upper_boundary=1.0), 100.0, 98.71873898, 101.28126102),
]


@pytest.mark.parametrize("test, baseline, lower, upper", CASES, ids=[c[0].test for c in CASES])
def test_limits_equal_bencher_formulas(test, baseline, lower, upper):
    lim = limits(test, H)
    assert lim is not None
    assert lim.baseline == (None if baseline is None else pytest.approx(baseline, abs=1e-7))
    assert (lim.lower, lim.upper) == pytest.approx((lower, upper), abs=1e-7)
    # The fake server, written apart from perfgate's code, computes the same limits.
    fake = boundary({"test": test.test, "lower_boundary": test.lower_boundary,
                     "upper_boundary": test.upper_boundary}, H)
    assert (fake["lower_limit"], fake["upper_limit"]) == pytest.approx((lower, upper), abs=1e-7)


def test_t_test_history_bencher_accepts_is_no_regression():
    # 104.6 lies inside Bencher's widened t-interval (upper 104.81) but beyond the plain one,
    # 100 + 2.77644511·√2.5 = 104.39, which perfgate used before.
    t = ThresholdTest("t_test", upper_boundary=0.975)
    assert judge(t, H, 104.6).alert is None
    assert judge(t, H, 104.9).alert == "upper"


def test_lower_limit_is_checked_first_and_nothing_without_spread():
    assert limits(ThresholdTest("z_score", upper_boundary=0.99), [5.0, 5.0, 5.0]) is None
    # Equal values whose summed mean rounds an ulp away from them: still no spread, no limits
    # (it once gave limits an ulp wide, and every other value alerted).
    equal = [127063.95746701502] * 30
    assert sum(equal) / 30 != equal[0]
    assert limits(ThresholdTest("t_test", upper_boundary=0.99), equal) is None
    assert limits(ThresholdTest("log_normal", upper_boundary=0.99), equal) is None
    assert limits(ThresholdTest("t_test", upper_boundary=0.99), [5.0]) is None
    assert limits(ThresholdTest("log_normal", upper_boundary=0.99), [1.0, -1.0, 2.0]) is None
    assert limits(ThresholdTest("delta_iqr", upper_boundary=1.0), [5.0]) is None
    # A single value is enough for iqr (Q1 = Q2 = Q3) and percentage, as in Bencher.
    assert limits(ThresholdTest("iqr", upper_boundary=1.0), [5.0]).upper == 5.0
    static = ThresholdTest("static", lower_boundary=10, upper_boundary=5)  # crossed: lower wins
    assert judge(static, [], 7.0).alert == "lower"
