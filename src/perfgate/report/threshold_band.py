"""The threshold band of many series at once: what
:func:`perfgate.detect.threshold_tests.evaluate_series` computes one series and one point at a
time (≈ 15 ms a series, minutes for 10,000), done for every series of the same test and length
together with numpy, one time step for all of them at each step (pure; no I/O).

Same rules: each value is judged against the ``max_sample_size`` most recent earlier values that
raised no alert; too small a baseline gives no limits.  Tests without a closed form here
(``log_normal``, ``iqr``, ``delta_iqr``), a ``window`` in seconds and series holding non-finite
values, or values whose sums and squares could overflow, go through ``evaluate_series`` itself;
``tests/test_pages.py`` checks both paths agree.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Sequence

import numpy as np
from scipy.stats import norm, t as student_t

from perfgate.detect.threshold_tests import evaluate_series
from perfgate.thresholds import ThresholdTest

BATCHED = ("static", "percentage", "z_score", "t_test")
BATCH_LIMIT = 1e150     # the batched sums of squares stay finite under this magnitude


def bands(jobs: Sequence[tuple[ThresholdTest, Sequence[float], Sequence[float | None]]]) -> list[dict]:
    """For each (test, values, times): ``{"lower": [...], "upper": [...], "breach": [indices]}``, the
    limits each value was judged against (None, or NaN in the arrays of the batched path, where
    there were none) and the values beyond them."""
    out: list[dict | None] = [None] * len(jobs)
    groups: dict[tuple[ThresholdTest, int], list[int]] = defaultdict(list)
    for j, (test, values, times) in enumerate(jobs):
        v = np.asarray(values, dtype=float)
        if (test.test in BATCHED and test.window is None and v.size and np.all(np.isfinite(v))
                and np.max(np.abs(v)) < BATCH_LIMIT):
            groups[(test, v.size)].append(j)
        else:
            out[j] = _one(test, values, times)
    for (test, n), members in groups.items():
        V = np.array([jobs[j][1] for j in members], dtype=float)
        lower, upper, breach = _batch(test, V)
        for r, j in enumerate(members):
            out[j] = {"lower": lower[r], "upper": upper[r], "breach": np.flatnonzero(breach[r]).tolist()}
    return out  # type: ignore[return-value]


def _one(test: ThresholdTest, values: Sequence[float], times: Sequence[float | None] | None = None) -> dict:
    results = evaluate_series(test, values, times)
    return {"lower": [_f(r.limits.lower) if r.limits else None for r in results],
            "upper": [_f(r.limits.upper) if r.limits else None for r in results],
            "breach": [r.index for r in results if r.alert]}


def _f(x: float | None) -> float | None:
    return float(x) if x is not None and np.isfinite(x) else None


def _batch(test: ThresholdTest, V: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    S, n = V.shape
    kind, lb, ub = test.test, test.lower_boundary, test.upper_boundary
    # As threshold_tests.limits: static needs no baseline, percentage a mean, z/t a spread.
    needed = max(test.min_sample_size or 0, {"static": 0, "percentage": 1}.get(kind, 2))
    width = test.max_sample_size or n
    clean = np.zeros((S, n + 1))          # each series' clean values, in order, packed to the left
    count = np.zeros(S, dtype=int)
    rows = np.arange(S)[:, None]
    offsets = np.arange(width)[None, :]
    lower, upper = np.full((S, n), np.nan), np.full((S, n), np.nan)
    breach = np.zeros((S, n), dtype=bool)
    if kind == "t_test":
        df = np.arange(1, n + 1)
        q_lo = student_t.ppf(lb, df) if lb is not None else None
        q_hi = student_t.ppf(ub, df) if ub is not None else None
    elif kind == "z_score":
        q_lo = float(norm.ppf(lb)) if lb is not None else None
        q_hi = float(norm.ppf(ub)) if ub is not None else None
    for i in range(n):
        size = np.minimum(count, width)
        have = size >= needed
        lo = np.full(S, np.nan)
        hi = np.full(S, np.nan)
        if kind == "static":
            lo[have] = np.nan if lb is None else lb
            hi[have] = np.nan if ub is None else ub
        elif have.any():
            idx = count[:, None] - size[:, None] + offsets       # the last `size` clean values
            valid = offsets < size[:, None]
            window = np.where(valid, clean[rows, np.clip(idx, 0, n)], 0.0)
            k = np.maximum(size, 1)
            mean = window.sum(axis=1) / k
            if kind == "percentage":
                if lb is not None:
                    lo = np.where(have, mean * (1 - lb), np.nan)
                if ub is not None:
                    hi = np.where(have, mean * (1 + ub), np.nan)
            else:
                dev = np.where(valid, window - mean[:, None], 0.0)
                sd = np.sqrt((dev * dev).sum(axis=1) / np.maximum(size - 1, 1))
                have = have & (sd > 0)          # no spread: Bencher sets no limits
                if kind == "t_test":
                    sd = sd * np.sqrt(1 + 1 / k)  # a prediction interval for the next value
                    dfi = np.maximum(size - 1, 1) - 1
                    qa = q_lo[dfi] if q_lo is not None else None
                    qb = q_hi[dfi] if q_hi is not None else None
                else:
                    qa, qb = q_lo, q_hi
                if qa is not None:
                    lo = np.where(have, mean - qa * sd, np.nan)
                if qb is not None:
                    hi = np.where(have, mean + qb * sd, np.nan)
        x = V[:, i]
        bad = (~np.isnan(hi) & (x > np.nan_to_num(hi, nan=np.inf))) | (~np.isnan(lo) & (x < np.nan_to_num(lo, nan=-np.inf)))
        lower[:, i], upper[:, i], breach[:, i] = lo, hi, bad
        ok = ~bad
        clean[ok, count[ok]] = x[ok]
        count[ok] += 1
    return lower, upper, breach
