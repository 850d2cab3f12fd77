"""Small, dependable statistics used by the detectors: a rank test with ties, the Hodges–Lehmann
shift, the Benjamini–Hochberg adjustment, and what raw values near the largest float need: a
median, a relative change from a log shift and a coefficient of variation that do not overflow.
All pure numpy, and Python's math (perfgate.detect.distributions)."""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
import numpy.ma  # noqa: F401  np.median's first call imports it (30 ms): here, once, before detect's workers fork

from perfgate.detect import distributions


def rank_test(a: np.ndarray, b: np.ndarray, inflation: float = 1.0) -> tuple[float, float]:
    """Mann–Whitney (Wilcoxon rank-sum) test of ``a`` against ``b``: ``(z, two_sided_p)``.

    ``U = R_b - n_b (n_b + 1) / 2`` with ``R_b`` the rank sum of ``b`` in the pooled sample;
    under no change ``E[U] = n_a n_b / 2`` and, with tie groups of sizes ``t``,
    ``Var[U] = n_a n_b / 12 · (N + 1 - Σ(t³ - t) / (N (N - 1)))``.  ``inflation`` multiplies the
    variance for serially correlated points.  ``z > 0`` means ``b`` tends to be larger.  Normal
    approximation with continuity correction; exact enough from about 5 points a side.
    """
    na, nb = a.size, b.size
    if na == 0 or nb == 0:
        return 0.0, 1.0
    sa = np.sort(a)
    below = np.searchsorted(sa, b, "left")
    u = float(below.sum() + 0.5 * (np.searchsorted(sa, b, "right") - below).sum())  # = R_b - n_b(n_b+1)/2
    n = na + nb
    var = na * nb / 12.0 * ((n + 1) - _tie_term(np.concatenate([sa, b])) / (n * (n - 1))) * inflation
    if var <= 0:
        return 0.0, 1.0
    d = u - na * nb / 2.0
    z = (abs(d) - 0.5) / math.sqrt(var) if abs(d) > 0.5 else 0.0
    z = math.copysign(z, d)
    return z, distributions.normal_two_sided(z)


def _tie_term(pooled: np.ndarray) -> float:
    """Σ (t³ - t) over the groups of tied values."""
    x = np.sort(pooled)
    same = x[1:] == x[:-1]
    if not same.any():
        return 0.0
    edges = np.flatnonzero(np.concatenate([[True], ~same, [True]]))
    t = np.diff(edges).astype(float)
    return float(np.sum(t ** 3 - t))


def mean_test(a: np.ndarray, b: np.ndarray, floor: float = 0.0, inflation: float = 1.0) -> tuple[float, float]:
    """Two-sample test of means with a pooled standard deviation (floored at ``floor``, the noise
    model's scale, so a constant series still gives a finite statistic):
    ``z = (b̄ - ā) / (s · sqrt((1/n_a + 1/n_b) · inflation))``, two-sided normal p-value.
    Meant for winsorized data, where no single point can dominate the means."""
    na, nb = a.size, b.size
    if na < 2 or nb < 2:
        return 0.0, 1.0
    s = max(pooled_sd(a, b), floor)
    if s == 0:
        return 0.0, 1.0
    z = (b.mean() - a.mean()) / (s * math.sqrt((1 / na + 1 / nb) * inflation))
    return float(z), distributions.normal_two_sided(float(z))


def pooled_sd(a: np.ndarray, b: np.ndarray) -> float:
    """The pooled standard deviation of two samples, ``sqrt(((n_a-1)·s_a² + (n_b-1)·s_b²) / (n_a+n_b-2))``
    (a one-point sample adds no spread; 0 when there are fewer than two degrees of freedom)."""
    dof = a.size + b.size - 2
    if dof < 1:
        return 0.0
    return math.sqrt(((a.var(ddof=1) * (a.size - 1) if a.size > 1 else 0.0)
                      + (b.var(ddof=1) * (b.size - 1) if b.size > 1 else 0.0)) / dof)


def raw_median(a: np.ndarray) -> float:
    """``np.median`` of raw values that may lie near the largest float: the two middle values of an
    even count are halved before they are added (exact for normal floats, so the same result),
    where numpy adds first and two values over 9e307 overflowed to infinity."""
    if a.size % 2:
        return float(np.median(a))
    lower, upper = np.partition(a, [a.size // 2 - 1, a.size // 2])[a.size // 2 - 1:a.size // 2 + 1]
    return float(lower / 2 + upper / 2)


def relative_change(log_shift: float) -> float:
    """The relative change ``new / old − 1`` a shift of log values stands for; infinite past the
    largest float (values hundreds of orders of magnitude apart) instead of numpy's overflow
    warning or Python's OverflowError."""
    with np.errstate(over="ignore"):
        return float(np.expm1(log_shift))


def _scale_free(values, fewest: int) -> np.ndarray | None:
    """``values`` as floats for a ratio that does not depend on their scale (a CV), or None with
    fewer than ``fewest`` values or a non-finite one.  Values over 1e150 are divided by the
    largest first: their squares would overflow."""
    a = np.asarray(values, dtype=float)
    if a.size < fewest or not np.all(np.isfinite(a)):
        return None
    top = float(np.max(np.abs(a)))
    return a / top if top > 1e150 else a


def coefficient_of_variation(values) -> float | None:
    """Sample standard deviation over |mean| of raw values; None with fewer than two values, a
    non-finite one, or a zero mean."""
    a = _scale_free(values, 2)
    if a is None:
        return None
    mean = float(a.mean())
    return float(a.std(ddof=1)) / abs(mean) if mean else None


def run_to_run_cv(values) -> float | None:
    """The noise from one run to the next over the level: ``1.4826 · median |x_t − x_{t−1}| / √2``
    (the standard deviation, for normal noise) over ``|median|``.  A step in the values is one
    large difference among many, so it does not count as noise, where a CV over every value
    took a +74% regression for 31% noise.  None with fewer than three values, a non-finite one,
    or a zero median."""
    a = _scale_free(values, 3)
    if a is None:
        return None
    level = float(np.median(a))
    return 1.4826 * float(np.median(np.abs(np.diff(a)))) / math.sqrt(2) / abs(level) if level else None


def hodges_lehmann(a: np.ndarray, b: np.ndarray) -> float:
    """Hodges–Lehmann shift of ``b`` over ``a``: the median of all pairwise differences
    ``b_j - a_i`` (robust to outliers, efficient for normal data)."""
    return float(np.median(np.subtract.outer(b, a)))


# Cached for the threshold tests, which ask for the same few quantiles at every point of every
# series (see student_quantile in perfgate.detect.threshold_tests).
@lru_cache(maxsize=4096)
def normal_quantile(p: float) -> float:
    return distributions.normal_quantile(p)


def benjamini_hochberg(pvalues: list[float] | np.ndarray) -> np.ndarray:
    """Benjamini–Hochberg adjusted p-values (q-values) controlling the false discovery rate.

    With the m p-values sorted ascending, ``q_(i) = min_{j ≥ i} min(1, m · p_(j) / j)``;
    rejecting every hypothesis with ``q ≤ α`` keeps the expected share of false discoveries
    among the rejections at or below α (independent or positively dependent tests).
    """
    p = np.asarray(pvalues, dtype=float)
    m = p.size
    if m == 0:
        return p
    order = np.argsort(p)
    scaled = p[order] * m / np.arange(1, m + 1)
    q_sorted = np.minimum.accumulate(scaled[::-1])[::-1]
    q = np.empty(m)
    q[order] = np.minimum(q_sorted, 1.0)
    return q


def quartiles(a: np.ndarray) -> tuple[float, float]:
    """First and third quartiles (linear interpolation, as numpy's default), from one sort."""
    x = np.sort(a)
    out = []
    for q in (0.25, 0.75):
        h = (x.size - 1) * q
        k = int(h)
        out.append(float(x[k] + (h - k) * (x[min(k + 1, x.size - 1)] - x[k])))
    return out[0], out[1]


def far_out_fences(a: np.ndarray, sigma: float, fence: float = 3.0) -> tuple[float, float]:
    """Tukey's far-out fences ``[Q1 - 3·IQR, Q3 + 3·IQR]`` of ``a``'s own quartiles, the IQR
    floored at ``1.349·sigma``; no fences (infinite) under 4 values."""
    if a.size < 4:
        return -math.inf, math.inf
    q1, q3 = quartiles(a)
    iqr = max(float(q3 - q1), 1.349 * sigma)
    return q1 - fence * iqr, q3 + fence * iqr
