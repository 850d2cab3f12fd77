"""Bencher's threshold tests: is a new value outside the limits its history allows?

Each test turns a baseline (the recent history) into a lower and/or an upper *limit*; a value
below the lower or above the upper limit raises an alert.  The limits are computed the way
Bencher v0.6.12 computes them (``lib/bencher_boundary``), so the same history gives the same
verdict on either store.  With ``n`` values, ``m`` their mean and ``σ`` their sample standard
deviation (divisor n − 1):

==============  ==============================================================================
static          the boundaries themselves
percentage      ``m - m·lower_boundary`` and ``m + m·upper_boundary``
z_score         ``m ∓ Φ⁻¹(boundary)·σ``
t_test          ``m ∓ t⁻¹_{n-1}(boundary)·σ·√(1 + 1/n)`` (a prediction interval for one new value)
log_normal      with μ, s the mean and sample deviation of ``ln x`` and ``b = exp(μ)``:
                upper ``exp(μ + Φ⁻¹(ub)·s)``; lower mirrored about b: ``2b - exp(μ + Φ⁻¹(lb)·s)``
iqr             ``Q2 ∓ boundary·(Q3 - Q1)`` (the median ± a multiple of the IQR)
delta_iqr       ``Q2 ∓ Q2·boundary·(D3 - D1)`` where D are the quartiles of the absolute relative
                changes ``|x_i - x_{i-1}| / |x_{i-1}|`` between consecutive baseline values
==============  ==============================================================================

Quartiles interpolate linearly between order statistics (rank ``p·(n-1)``).  A statistic that
cannot be formed gives no limits, as in Bencher: an empty baseline, a single value for the
deviation-based tests, zero spread for z/t/log-normal, a non-positive value for log_normal.

The baseline is the ``max_sample_size`` most recent values within ``window`` seconds of the new
one, and the test is skipped below ``min_sample_size``.  One policy differs from Bencher and is
kept on purpose: values that raised an alert are left out of later baselines, so a regression
cannot widen the very limits it is judged by (Bencher's t-test accepts the fourth slow run after
three).  The limits themselves are Bencher's for the baseline given.

Pure (perfgate.detect.distributions for the quantiles); no store access.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from functools import lru_cache
from typing import Sequence

# Not scipy: scipy.special's values (to 10⁻¹⁰) without 0.25 s of imports in every detect.
from perfgate.detect.distributions import student_cdf, student_quantile as _student_quantile

from perfgate.detect.stats import normal_quantile, relative_change
from perfgate.thresholds import ThresholdTest
from perfgate.units import STREAK_LEVEL


# Quantiles depend only on the boundary and the baseline size, which repeat along a series (so
# this and stats.normal_quantile are cached).
# scipy.stats' ppf cost ~0.3 ms a call, which made judging every point of 10,000 series take
# minutes; a Student quantile computed here costs about 0.1 ms, a normal one 1 µs.
@lru_cache(maxsize=4096)
def student_quantile(p: float, df: int) -> float:
    return _student_quantile(p, df)


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
    """The boundary limits a baseline implies, or None when the test cannot judge yet."""
    return _limits(test, [float(v) for v in history])


def _limits(test: ThresholdTest, h: list[float]) -> Limits | None:
    """:func:`limits` of a baseline already a list of floats."""
    if test.min_sample_size is not None and len(h) < test.min_sample_size:
        return None
    lb, ub = test.lower_boundary, test.upper_boundary
    if lb is None and ub is None:
        return None
    kind = test.test
    if kind == "static":
        return Limits(None, lb, ub)
    if kind == "percentage":
        m = _mean(h)
        if m is None:
            return None
        return _finite(Limits(m, None if lb is None else m - m * lb, None if ub is None else m + m * ub))
    if kind in ("z_score", "t_test"):
        m = _mean(h)
        s = _sample_sd(h, m)
        if m is None or s is None:
            return None
        if kind == "z_score":
            q = normal_quantile
        else:
            s *= math.sqrt(1 + 1 / len(h))
            q = lambda p: student_quantile(p, len(h) - 1)  # noqa: E731
        return _finite(Limits(m, None if lb is None else m - q(lb) * s, None if ub is None else m + q(ub) * s))
    if kind == "log_normal":
        if any(v <= 0 for v in h):
            return None
        logs = [math.log(v) for v in h]
        mu = _mean(logs)
        s = _sample_sd(logs, mu)
        if mu is None or s is None:
            return None
        base = _exp(mu)
        return _finite(Limits(base, None if lb is None else 2 * base - _exp(mu + normal_quantile(lb) * s),
                              None if ub is None else _exp(mu + normal_quantile(ub) * s)))
    if kind in ("iqr", "delta_iqr"):
        q = quartiles(h)
        if q is None:
            return None
        q1, q2, q3 = q
        if kind == "iqr":
            spread = q3 - q1
        else:
            d = quartiles(relative_changes(h)) if len(h) >= 2 else None
            if d is None:
                return None
            spread = q2 * (d[2] - d[0])
        return _finite(Limits(q2, None if lb is None else q2 - lb * spread, None if ub is None else q2 + ub * spread))
    raise ValueError(f"unknown threshold test {kind!r}")


def _mean(values: Sequence[float]) -> float | None:
    """The mean; None for no values, or values whose sum passes the largest float (no limits)."""
    if not values:
        return None
    try:
        m = math.fsum(values) / len(values)
    except OverflowError:       # Python's math raises where numpy would give inf
        return None
    return m if math.isfinite(m) else None


def _sample_sd(values: Sequence[float], mean: float | None) -> float | None:
    """σ with divisor n − 1; None below two values or with no spread (Bencher then sets no limits),
    or with a spread whose square passes the largest float.  Equal values have no spread even
    where their rounded mean is an ulp away from them (it was, and set limits an ulp wide)."""
    if mean is None or len(values) < 2 or min(values) == max(values):
        return None
    try:
        var = math.fsum([(v - mean) ** 2 for v in values]) / (len(values) - 1)
    except OverflowError:
        return None
    if not math.isfinite(var) or var == 0:
        return None
    return math.sqrt(var)


def _exp(x: float) -> float:
    """``math.exp``, infinite past the largest float instead of raising (a limit there is none)."""
    try:
        return math.exp(x)
    except OverflowError:
        return math.inf


def percentile_of_sorted(data: Sequence[float], p: float) -> float:
    """Linear interpolation between order statistics at rank ``p·(n-1)``."""
    if len(data) == 1 or p >= 1:
        return data[-1] if p >= 1 else data[0]
    rank = p * (len(data) - 1)
    i = math.floor(rank)
    return data[i] + (data[i + 1] - data[i]) * (rank - i)


def quartiles(values: Sequence[float]) -> tuple[float, float, float] | None:
    if not values:
        return None
    data = sorted(values)
    q = tuple(percentile_of_sorted(data, p) for p in (0.25, 0.5, 0.75))
    return q if all(math.isfinite(v) for v in q) else None  # type: ignore[return-value]


def relative_changes(values: Sequence[float]) -> list[float]:
    """``|x_i - x_{i-1}| / |x_{i-1}|`` for consecutive values (always positive)."""
    return [abs((b - a) / a) if a else math.inf for a, b in zip(values, values[1:])]


def _finite(lim: Limits) -> Limits | None:
    bad = [v for v in (lim.baseline, lim.lower, lim.upper) if v is not None and not math.isfinite(v)]
    return None if bad else lim


def judge(test: ThresholdTest, history: Sequence[float], value: float, index: int = 0) -> ThresholdResult:
    return _judge(test, [float(v) for v in history], float(value), index)


def _judge(test: ThresholdTest, history: list[float], value: float, index: int) -> ThresholdResult:
    lim = _limits(test, history)
    alert = None
    if lim is not None:  # the lower limit first, as Bencher checks it
        if lim.lower is not None and value < lim.lower:
            alert = "lower"
        elif lim.upper is not None and value > lim.upper:
            alert = "upper"
    return ThresholdResult(index, value, lim, alert, len(history))


def evaluate_series(test: ThresholdTest, values: Sequence[float], times: Sequence[float | None] | None = None,
                    judged: Sequence[str | None] = ()) -> list[ThresholdResult]:
    """Judge every value of a series against the values before it that did not alert (at most
    ``max_sample_size`` of them, the most recent, and only those within ``window`` seconds).

    ``judged``: the alerts an earlier evaluation gave a prefix of these same values; they stand
    (a verdict depends only on the values before it) and only the values after them are judged
    and returned."""
    results: list[ThresholdResult] = []
    values = [float(v) for v in values]
    clean = [i for i, alert in enumerate(judged) if alert is None]   # indices of values that raised no alert
    clean_values = [values[i] for i in clean]   # ... and those values: the usual baseline is a slice of them
    for i in range(len(judged), len(values)):
        value = values[i]
        if test.window is not None and times is not None and times[i] is not None:
            base = [j for j in clean if times[j] is not None and times[i] - times[j] <= test.window]
            if test.max_sample_size is not None:
                base = base[-test.max_sample_size:]
            history = [values[j] for j in base]
        else:
            history = clean_values[-test.max_sample_size:] if test.max_sample_size is not None else clean_values[:]
        result = _judge(test, history, value, i)
        results.append(result)
        if result.alert is None:
            clean.append(i)
            clean_values.append(value)
    return results


def baseline_at(test: ThresholdTest | None, values: Sequence[float], times: Sequence[float | None] | None,
                flags: Sequence[str | None], i: int) -> list[float]:
    """The baseline :func:`evaluate_series` judged value ``i`` against, given the verdicts
    ``flags`` of the values before it: those that raised no alert, the most recent
    ``max_sample_size`` within ``window`` seconds of it (no test, as for Bencher's own alerts:
    every one of them)."""
    return [float(values[j]) for j in baseline_indices(test, times, flags, i)]


def baseline_indices(test: ThresholdTest | None, times: Sequence[float | None] | None,
                     flags: Sequence[str | None], i: int) -> list[int]:
    """The indices of :func:`baseline_at`'s values."""
    clean = [j for j in range(i) if flags[j] is None]
    if test is None:
        return clean
    if test.window is not None and times is not None and times[i] is not None:
        clean = [j for j in clean if times[j] is not None and times[i] - times[j] <= test.window]
    if test.max_sample_size is not None:
        clean = clean[-test.max_sample_size:]      # as evaluate_series slices it
    return clean


EVIDENCE_LEVEL = STREAK_LEVEL   # a threshold alert's interval; recorded with it (``ci_level``)


@dataclass(frozen=True)
class Evidence:
    """A streak of values past a limit against the baseline the test judged it by: the relative
    change of the streak's mean over the baseline's, its ``EVIDENCE_LEVEL`` interval and the
    one-sided p-value in the streak's direction; ``why`` says why they are None."""
    change: float | None
    ci_low: float | None
    ci_high: float | None
    p_value: float | None
    why: str = ""


def streak_evidence(baseline: Sequence[float], streak: Sequence[float], upper: bool) -> Evidence:
    """The :class:`Evidence` of ``streak`` (above the baseline when ``upper``).  Welch's t on the
    logs of positive values (noise is multiplicative, and compare and the change points report
    relative changes of logs), on the values otherwise; a single value is the new value a t_test
    limit predicts, its t with ``n - 1`` degrees of freedom and a spread of ``s·√(1 + 1/n)``."""
    b, s = [float(v) for v in baseline], [float(v) for v in streak]
    if len(b) < 2:
        return Evidence(None, None, None, None, f"a baseline of {len(b)} value(s) is too short for an interval")
    if not s or not all(math.isfinite(v) for v in b + s):
        return Evidence(None, None, None, None, "values that are not finite")
    logs = min(b + s) > 0
    if logs:
        b, s = [math.log(v) for v in b], [math.log(v) for v in s]
    mb, ms = math.fsum(b) / len(b), math.fsum(s) / len(s)
    if not logs and mb == 0:
        return Evidence(None, None, None, None, "a baseline mean of 0 has no relative change")
    shift, se, df = ms - mb, *_welch(b, s)

    def relative(x: float) -> float:
        return relative_change(x) if logs else x / abs(mb)

    if se == 0:     # no spread either side: the shift is exact (as compare's deterministic rows)
        exact = relative(shift)
        return Evidence(exact, exact, exact, 0.0 if shift and (shift > 0) == upper else 1.0)
    half = _student_quantile(0.5 + EVIDENCE_LEVEL / 2, df) * se
    t = shift / se if upper else -shift / se
    return Evidence(relative(shift), relative(shift - half), relative(shift + half), student_cdf(-t, df))


def _welch(b: list[float], s: list[float]) -> tuple[float, float]:
    """The standard error of the difference of means and its Welch–Satterthwaite degrees of
    freedom; for one value, the t_test limit's prediction error (``n - 1`` degrees)."""
    vb = statistics.variance(b)
    if len(s) == 1:
        return math.sqrt(vb * (1 + 1 / len(b))), len(b) - 1
    eb, es = vb / len(b), statistics.variance(s) / len(s)
    if eb + es == 0:
        return 0.0, 1.0
    df = (eb + es) ** 2 / ((eb ** 2 / (len(b) - 1) if eb else 0.0) + (es ** 2 / (len(s) - 1) if es else 0.0))
    return math.sqrt(eb + es), df
