"""Every value of one series judged by its threshold test at once, for ``perfgate detect``.

``detect`` judges every value of a series' current regime: a million values for 1,000 series ×
1,000 runs, which one at a time (:func:`threshold_tests.evaluate_series`, about 20 µs a value)
took most of a full detect.  The tests whose limits come from the mean and deviation of the last
``max_sample_size`` values (percentage, z_score, t_test, log_normal) are computed here.  A value
that alerts stays out of later baselines, which makes the rule sequential:

- perfgate's compiled walk (``_threshold_walk.c``, an optional extension loaded with ctypes)
  judges the values in turn, each baseline's mean and deviation computed afresh from its values:
  about 0.45 ms for 1,000 values of 2% noise under the default t-test of 64 values, where numpy's
  passes take 2 ms (``bench/threshold_verdicts_agree.py`` times both);
- where it was not built, or the baseline is longer than :data:`WALK_MAX`, numpy computes the
  limits from running sums, a block of values at a time (baselines still filling too), and
  recomputes the sums after each alert from the next value on; where alerts come close
  together, values are judged one at a time until they thin out.

Same verdicts as ``evaluate_series`` either way (``tests/test_threshold_verdicts.py``; none of
24,000 series-test pairs differs, ``bench/threshold_verdicts_agree.py``); the limits agree to
within 10⁻⁹ (sums in floating point instead of ``math.fsum``), and the newest value's result,
which the report shows, is computed by ``evaluate_series``' own code.  Other tests, baselines
bounded by a ``window`` in seconds and series holding a value that is not finite, or so large
that a baseline's sum could pass the largest double, go through that code too.

Pure; no store access.
"""

from __future__ import annotations

import ctypes
import math
import sys
from functools import cache, lru_cache
from typing import Callable, NamedTuple, Sequence

import numpy as np

from perfgate.detect.compiled import c_function
from perfgate.detect.stats import normal_quantile
from perfgate.detect.threshold_tests import ThresholdResult, evaluate_series, judge, student_quantile
from perfgate.thresholds import ThresholdTest

MOMENT_TESTS = ("percentage", "z_score", "t_test", "log_normal")
BLOCK = 256     # values judged per pass (a pass costs m + BLOCK values' sums): an alert recomputes at most
                # this many; on 1,000 values of 2% noise, t_test at 0.99 of 64 values (1.6% alert): 9.4M
                # instructions, 9.6M with 128, 10.2M with 512; percentage at 10% of 16 (none): 2.0M, 3.2M, 1.4M
DENSE = 4       # fewer values than this between alerts: judged one at a time (a pass costs 3-10 of them)


class Verdicts(NamedTuple):
    alerts: list[str | None]        # "lower" | "upper" | None, for each value judged
    last: ThresholdResult | None    # the newest value's result; None when no value was judged


def verdicts(test: ThresholdTest, values: Sequence[float], times: Sequence[float | None] | None = None,
             judged: Sequence[str | None] = ()) -> Verdicts:
    """The verdicts :func:`threshold_tests.evaluate_series` gives the values after ``judged``."""
    v = np.asarray(values, dtype=float)
    # A baseline holds at most every value: arrays sized by the setting alone took 10 GB for a
    # thresholds file's max_sample_size of 10^8 on a 12-run series.
    m = min(test.max_sample_size, v.size) if _windowed(test) else 0
    # Values so large that a baseline's sum could pass the largest double go one at a time too:
    # such a sum sets no limits (as in Bencher), and sums about the first value would not overflow.
    if not m or not np.all(np.isfinite(v)) or np.abs(v).max() > sys.float_info.max / m:
        results = evaluate_series(test, values, times, judged)
        return Verdicts([r.alert for r in results], results[-1] if results else None)
    clean = _last_clean(v, judged, m)
    walk = _own_walk() if m <= WALK_MAX else None
    if walk is not None:
        return _walked(walk, test, v, clean, len(judged), m)
    alerts: list[str | None] = []
    i = len(judged)
    gap = BLOCK     # values judged since the last alert
    while i < v.size:
        if gap < DENSE:     # alerts come thick (a step not yet a change point): a pass would end at once
            alert = judge(test, clean[-m:], v[i], i).alert
            alerts.append(alert)
            if alert is None:
                clean.append(float(v[i]))
            gap = 0 if alert else gap + 1
            i += 1
            continue
        stop = min(v.size, i + BLOCK)
        # value i + k's baseline, while none of values i .. i + k - 1 alerts, is the last m of
        # the clean values and those k
        base = clean[-m:]
        lower, upper = running_limits(test, np.concatenate([base, v[i:stop - 1]]), len(base), m)
        x = v[i:stop]
        low = x < lower
        high = x > upper
        hit = np.flatnonzero(low | high)
        k = int(hit[0]) if hit.size else x.size     # values i .. i + k - 1 raise nothing
        alerts.extend([None] * k)
        clean.extend(x[:k].tolist())
        if hit.size:
            alerts.append("lower" if low[k] else "upper")
        gap = k if hit.size else BLOCK
        i += k + (1 if hit.size else 0)
    if not alerts:
        return Verdicts([], None)
    before = clean if alerts[-1] else clean[:-1]    # the newest value's baseline
    return Verdicts(alerts, judge(test, before[-m:], v[-1], v.size - 1))


def _last_clean(v: np.ndarray, judged: Sequence[str | None], m: int) -> list[float]:
    """The last ``m`` of the judged values that raised no alert, in order: the only ones a later
    baseline reads (an incremental detect judges a few new values after a thousand judged)."""
    clean: list[float] = []
    for i in range(len(judged) - 1, -1, -1):
        if len(clean) == m:
            break
        if judged[i] is None:
            clean.append(float(v[i]))
    clean.reverse()
    return clean


def _walked(walk, test: ThresholdTest, v: np.ndarray, clean: list[float], first: int, m: int) -> Verdicts:
    """:func:`verdicts` by perfgate's compiled walk (``_threshold_walk.c``): the values from
    ``first`` judged in turn, each against the last ``m`` of ``clean`` (the judged values that
    raised no alert, at most ``m``: :func:`_last_clean`) and of those after it that raise none."""
    todo = np.ascontiguousarray(v[first:])
    if not todo.size:
        return Verdicts([], None)
    room = np.empty(len(clean) + todo.size)
    room[:len(clean)] = clean
    logs = np.empty(room.size) if test.test == "log_normal" else None   # their logarithms, for that test only
    flags = np.empty(todo.size, dtype=np.int8)
    low, high = _quantiles(test, m)
    sides = (test.lower_boundary is not None) * _LOWER | (test.upper_boundary is not None) * _UPPER
    count = walk(todo.ctypes.data, todo.size, room.ctypes.data, len(clean), m, _least(test), _KINDS[test.test],
                 sides, low.ctypes.data, high.ctypes.data, flags.ctypes.data, None if logs is None else logs.ctypes.data)
    alerts: list[str | None] = [None] * todo.size      # the list made from the few alerts: a third of the time
    for i in np.flatnonzero(flags).tolist():
        alerts[i] = _ALERTS[flags[i]]
    before = room[:count] if alerts[-1] else room[:count - 1]     # the newest value's baseline
    return Verdicts(alerts, judge(test, before[max(0, before.size - m):].tolist(), v[-1], v.size - 1))


WALK_MAX = 1024     # larger baselines go by numpy's passes: the walk costs m operations a value
_KINDS = {"percentage": 0, "z_score": 1, "t_test": 2, "log_normal": 3}   # as _threshold_walk.c numbers them
_LOWER, _UPPER = 1, 2
_ALERTS = (None, "lower", "upper")


@cache
def _own_walk() -> Callable | None:
    """perfgate's compiled walk, or None where the optional extension was not built."""
    return c_function("perfgate.detect._threshold_walk", "threshold_walk", ctypes.c_int,
                      [ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                       ctypes.c_int, ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p])


@lru_cache(maxsize=256)
def _quantiles(test: ThresholdTest, m: int) -> tuple[np.ndarray, np.ndarray]:
    """What each side's limit multiplies the spread by (the mean, for percentage), for df = 0..m
    (0 unused), in the walk (``_threshold_walk.c``) and in numpy's passes alike: the Student
    quantiles of t_test, the normal one of z_score and log_normal, percentage's boundary; NaN for
    a side without a boundary."""
    def side(p: float | None) -> np.ndarray:
        if p is None:
            return np.full(m + 1, np.nan)
        if test.test == "t_test":
            return _student_quantiles(p, m)
        return np.full(m + 1, p if test.test == "percentage" else normal_quantile(p))
    return side(test.lower_boundary), side(test.upper_boundary)


def _windows(a: np.ndarray, m: int) -> np.ndarray:
    """The ``m``-value windows of the contiguous 1-D ``a``, one a row, as a view: what numpy's
    ``sliding_window_view`` gives, without its checks (a third of a pass's fixed cost)."""
    return np.ndarray((a.size - m + 1, m), dtype=a.dtype, buffer=a, strides=(a.itemsize, a.itemsize))


def _windowed(test: ThresholdTest) -> bool:
    """Whether the test's limits are computed here: a mean-and-deviation test with a bounded
    baseline of values, not of seconds."""
    m = test.max_sample_size
    return (test.test in MOMENT_TESTS and test.window is None and m is not None and m >= 2
            and (test.lower_boundary is not None or test.upper_boundary is not None))


@lru_cache(maxsize=256)
def _student_quantiles(p: float, m: int) -> np.ndarray:
    """The Student quantile at ``p`` for each degrees of freedom 0..m (0 unused)."""
    return np.array([math.nan] + [student_quantile(p, df) for df in range(1, m + 1)])


def window_limits(test: ThresholdTest, windows: np.ndarray, sizes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each window's lower and upper limit as ``threshold_tests.limits`` computes them from its
    last ``sizes`` values (the others are padding); NaN where there is none (a side without a
    boundary, or a window that sets no limits).  For the tests of :data:`MOMENT_TESTS`; the
    trend pages' band uses it too (``perfgate.report.threshold_band``)."""
    m = windows.shape[1]
    full = bool(sizes.min() == m)
    valid = True if full else np.arange(m) >= (m - sizes)[:, None]
    n = np.maximum(sizes, 1)

    def kept(a: np.ndarray) -> np.ndarray:      # the padding zeroed
        return a if full else np.where(valid, a, 0.0)

    with np.errstate(all="ignore"):
        ok = sizes >= _least(test)
        if test.test == "log_normal":
            ok &= np.all(windows > 0, axis=1, where=valid)
            data = np.log(np.where(valid & (windows > 0), windows, 1.0))
        else:
            data = windows
        # about each window's first value, so that equal values have exactly no spread
        ref = data[:, 0] if full else data[np.arange(n.size), m - n]
        mean = ref + kept(data - ref[:, None]).sum(axis=1) / n
        var = None
        if test.test != "percentage":     # its limits need no spread
            dev = kept(data - mean[:, None])
            var = (dev * dev).sum(axis=1) / np.maximum(n - 1, 1)
        return _limits(test, mean, var, n, ok, m)


def running_limits(test: ThresholdTest, values: np.ndarray, first: int, m: int) -> tuple[np.ndarray, np.ndarray]:
    """What :func:`window_limits` gives for the baselines ``values[max(0, e - m):e]``, ``e`` =
    ``first``, ``first + 1``, ... ``values.size``, from running sums: a pass over ``m + k``
    values, not ``m · k`` (``bench/detect_instructions.py``: a fifth fewer instructions with 64
    values, nearly three quarters fewer with 500).  The sums are taken about the first value; where they cancel
    to within six digits of a baseline's spread (equal values, which must have exactly none, or
    a baseline far from that value), its limits are computed by :func:`window_limits`."""
    ends = first + np.arange(values.size - first + 1)
    starts = np.maximum(ends - m, 0)
    n = ends - starts
    size = np.maximum(n, 1)
    with np.errstate(all="ignore"):
        ok = n >= _least(test)
        if test.test == "log_normal":
            nonpositive = np.concatenate([[0], np.cumsum(values <= 0)])
            ok &= nonpositive[ends] == nonpositive[starts]
            data = np.log(np.where(values > 0, values, 1.0))
        else:
            data = values
        ref = data[0] if data.size else 0.0
        d = data - ref
        s1 = np.concatenate([[0.0], np.cumsum(d)])
        s2 = np.concatenate([[0.0], np.cumsum(d * d)])
        sum1, sum2 = s1[ends] - s1[starts], s2[ends] - s2[starts]
        mean = ref + sum1 / size
        # (percentage's limits need no spread, but its cancelling sums tell equal values too)
        var = (sum2 - sum1 * sum1 / size) / np.maximum(n - 1, 1)
        lower, upper = _limits(test, mean, var, size, ok, m)
        again = np.flatnonzero(ok & ~(var > 1e-6 * sum2 / size))
    if again.size:
        windows = _windows(np.concatenate([np.full(m, np.nan), values]), m)[ends[again]]
        lower[again], upper[again] = window_limits(test, windows, n[again])
    return lower, upper


def _least(test: ThresholdTest) -> int:
    """The fewest values a baseline sets limits with: one, two for the tests of a spread, or
    ``min_sample_size``."""
    return max(test.min_sample_size or 1, 1 if test.test == "percentage" else 2)


def _limits(test: ThresholdTest, mean: np.ndarray, var: np.ndarray | None, n: np.ndarray, ok: np.ndarray,
            m: int) -> tuple[np.ndarray, np.ndarray]:
    """The lower and upper limits of baselines of ``n`` values (at least 1, at most ``m``) with
    these means and variances (of the values' logarithms for log_normal; None for percentage),
    NaN where ``ok`` is false or a limit is not finite (as ``threshold_tests._finite``), or on a
    side without a boundary."""
    has_lower, has_upper = test.lower_boundary is not None, test.upper_boundary is not None
    df = np.maximum(n - 1, 1)
    low, high = (q[df] for q in _quantiles(test, m))    # the walk's multipliers, for each baseline
    with np.errstate(all="ignore"):
        ok = ok & np.isfinite(mean)
        if test.test == "percentage":
            lower = mean - mean * low if has_lower else None
            upper = mean + mean * high if has_upper else None
        else:
            ok &= np.isfinite(var) & (var > 0)     # no spread: no limits, as in Bencher
            s = np.sqrt(var)
            if test.test == "log_normal":
                base = np.exp(mean)
                ok &= np.isfinite(base)
                lower = 2 * base - np.exp(mean + low * s) if has_lower else None
                upper = np.exp(mean + high * s) if has_upper else None
            else:
                if test.test == "t_test":
                    s = s * np.sqrt(1 + 1 / n)
                lower = mean - low * s if has_lower else None
                upper = mean + high * s if has_upper else None
        for side in (lower, upper):
            if side is not None:
                ok &= np.isfinite(side)
        none = np.full(mean.shape, np.nan)
        return (np.where(ok, lower, np.nan) if lower is not None else none,
                np.where(ok, upper, np.nan) if upper is not None else none)
