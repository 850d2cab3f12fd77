"""Bencher-compatible threshold tests: is a new value outside the limits its history allows?

Each test turns a baseline (the recent history) into a lower and/or an upper *limit*; a value
beyond a limit raises an alert.  With ``m`` the mean and ``s`` the sample standard deviation
(n - 1) of the baseline:

==============  ==============================================================================
static          limits are the boundaries themselves
percentage      ``m · (1 - lower_boundary)`` and ``m · (1 + upper_boundary)``
z_score         ``m ± Φ⁻¹(boundary) · s`` (boundary: a confidence level in [0.5, 1))
t_test          ``m ± t⁻¹_{n-1}(boundary) · s`` (Student's t with n - 1 degrees of freedom)
log_normal      ``exp(μ ± Φ⁻¹(boundary) · σ)`` with μ, σ the mean and deviation of ``log`` values
iqr             Tukey fences ``Q1 - lower_boundary · IQR`` and ``Q3 + upper_boundary · IQR``
delta_iqr       the same fences on the relative changes between consecutive baseline values
                ``d_i = x_i / x_{i-1} - 1``, applied to the median: ``median · (1 + fence(d))``
==============  ==============================================================================

The baseline is the ``max_sample_size`` most recent values within ``window`` seconds of the new
one, and the test is skipped below ``min_sample_size`` (default: 1 value for percentage, 2 for
the statistical tests).  Unlike Bencher, values that raised an alert are EXCLUDED from later
baselines: a regression must not widen the very limits it is judged by (after three slow runs
Bencher's t-test would accept the fourth).

Pure numpy/scipy; no store access.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Sequence

import numpy as np
from scipy.stats import norm, t as student_t

from perfgate.thresholds import ThresholdTest

_DEFAULT_MIN = {"static": 0, "percentage": 1}


# Quantiles depend only on the boundary and the baseline size, which repeat along a series; scipy's
# ppf costs ~0.3 ms a call, which made judging every point of 10,000 series take minutes.
@lru_cache(maxsize=4096)
def _normal_q(p: float) -> float:
    return float(norm.ppf(p))


@lru_cache(maxsize=4096)
def _student_q(p: float, df: int) -> float:
    return float(student_t.ppf(p, df))


@dataclass(frozen=True)
class Limits:
    baseline: float | None
    lower: float | None
    upper: float | None


@dataclass(frozen=True)
class ThresholdResult:
    index: int
    value: float
    limits: Limits | None      # None: too little history to judge
    alert: str | None          # "lower" | "upper" | None
    baseline_size: int


def limits(test: ThresholdTest, history: Sequence[float]) -> Limits | None:
    """The boundary limits a baseline implies, or None when it is too small for the test."""
    h = np.asarray(history, dtype=float)
    needed = test.min_sample_size if test.min_sample_size is not None else _DEFAULT_MIN.get(test.test, 2)
    if h.size < needed:
        return None
    lb, ub = test.lower_boundary, test.upper_boundary
    kind = test.test
    if kind == "static":
        return Limits(None, lb, ub)
    if kind == "percentage":
        m = float(h.mean())
        return Limits(m, None if lb is None else m * (1 - lb), None if ub is None else m * (1 + ub))
    if h.size < 2:
        return None
    if kind in ("z_score", "t_test"):
        m, s = float(h.mean()), float(h.std(ddof=1))
        q = _normal_q if kind == "z_score" else (lambda p: _student_q(p, h.size - 1))
        return Limits(m, None if lb is None else m - q(lb) * s, None if ub is None else m + q(ub) * s)
    if kind == "log_normal":
        if np.any(h <= 0):
            return None
        logs = np.log(h)
        mu, sd = float(logs.mean()), float(logs.std(ddof=1))
        return Limits(math.exp(mu), None if lb is None else math.exp(mu - _normal_q(lb) * sd),
                      None if ub is None else math.exp(mu + _normal_q(ub) * sd))
    if kind == "iqr":
        q1, med, q3 = (float(v) for v in np.percentile(h, [25, 50, 75]))
        iqr = q3 - q1
        return Limits(med, None if lb is None else q1 - lb * iqr, None if ub is None else q3 + ub * iqr)
    if kind == "delta_iqr":
        if h.size < 3 or np.any(h[:-1] == 0):
            return None
        d = h[1:] / h[:-1] - 1
        q1, q3 = (float(v) for v in np.percentile(d, [25, 75]))
        iqr = q3 - q1
        med = float(np.median(h))
        return Limits(med, None if lb is None else med * (1 + q1 - lb * iqr),
                      None if ub is None else med * (1 + q3 + ub * iqr))
    raise ValueError(f"unknown threshold test {kind!r}")


def judge(test: ThresholdTest, history: Sequence[float], value: float, index: int = 0) -> ThresholdResult:
    lim = limits(test, history)
    alert = None
    if lim is not None:
        if lim.upper is not None and value > lim.upper:
            alert = "upper"
        elif lim.lower is not None and value < lim.lower:
            alert = "lower"
    return ThresholdResult(index, float(value), lim, alert, len(history))


def evaluate_series(test: ThresholdTest, values: Sequence[float],
                    times: Sequence[float | None] | None = None) -> list[ThresholdResult]:
    """Judge every value of a series against the values before it that did not alert (at most
    ``max_sample_size`` of them, the most recent, and only those within ``window`` seconds)."""
    results: list[ThresholdResult] = []
    clean: list[int] = []                 # indices of values that raised no alert
    for i, value in enumerate(values):
        base = clean
        if test.window is not None and times is not None and times[i] is not None:
            base = [j for j in base if times[j] is not None and times[i] - times[j] <= test.window]
        if test.max_sample_size is not None:
            base = base[-test.max_sample_size:]
        result = judge(test, [values[j] for j in base], value, i)
        results.append(result)
        if result.alert is None:
            clean.append(i)
    return results
