"""The threshold band of many series at once: what
:func:`perfgate.detect.threshold_tests.evaluate_series` computes one series and one point at a
time (≈ 15 ms a series, minutes for 10,000), done for every series of the same test and length
together with numpy, one time step for all of them at each step (pure; no I/O).

Same rules: each value is judged against the ``max_sample_size`` most recent earlier values that
raised no alert, since the last change point (as ``detect`` judges a regime: a change point
starts a new normal); too small a baseline gives no limits.  Tests not batched here
(``iqr``, ``delta_iqr``), a ``window`` in seconds and series holding non-finite
values, or values whose sums and squares could overflow, go through ``evaluate_series`` itself;
``tests/test_pages.py`` checks both paths agree.  Each step's limits are those ``perfgate detect``
computes for one series a block at a time (:func:`perfgate.detect.threshold_verdicts.window_limits`).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Sequence

import numpy as np

from perfgate.detect.threshold_tests import evaluate_series
from perfgate.detect.threshold_verdicts import MOMENT_TESTS, window_limits
from perfgate.thresholds import ThresholdTest

BATCHED = ("static", *MOMENT_TESTS)     # the tests window_limits computes, and static
BATCH_LIMIT = 1e150     # the batched sums of squares stay finite under this magnitude


Job = tuple[ThresholdTest, Sequence[float], Sequence[float | None], Sequence[int]]


def bands(jobs: Sequence[Job]) -> list[dict]:
    """For each (test, values, times, change point indices): ``{"lower": [...], "upper": [...],
    "breach": [indices]}``, the limits each value was judged against (None, or NaN in the arrays
    of the batched path, where there were none) and the values beyond them."""
    out: list[dict | None] = [None] * len(jobs)
    groups: dict[tuple[ThresholdTest, int], list[int]] = defaultdict(list)
    for j, (test, values, times, starts) in enumerate(jobs):
        v = np.asarray(values, dtype=float)
        if (test.test in BATCHED and test.window is None and v.size and np.all(np.isfinite(v))
                and np.max(np.abs(v)) < BATCH_LIMIT):
            groups[(test, v.size)].append(j)
        else:
            out[j] = _one(test, values, times, starts)
    for (test, n), members in groups.items():
        V = np.array([jobs[j][1] for j in members], dtype=float)
        resets = np.zeros(V.shape, dtype=bool)
        for r, j in enumerate(members):
            resets[r, [i for i in jobs[j][3] if 0 < i < n]] = True
        lower, upper, breach = _batch(test, V, resets)
        for r, j in enumerate(members):
            out[j] = {"lower": lower[r], "upper": upper[r], "breach": np.flatnonzero(breach[r]).tolist()}
    return out  # type: ignore[return-value]


def _one(test: ThresholdTest, values: Sequence[float], times: Sequence[float | None] | None = None,
         starts: Sequence[int] = ()) -> dict:
    out: dict = {"lower": [], "upper": [], "breach": []}
    n = len(values)
    edges = [0, *sorted({i for i in starts if 0 < i < n}), n]
    for a, b in zip(edges, edges[1:]):
        results = evaluate_series(test, values[a:b], None if times is None else times[a:b])
        out["lower"] += [_f(r.limits.lower) if r.limits else None for r in results]
        out["upper"] += [_f(r.limits.upper) if r.limits else None for r in results]
        out["breach"] += [a + r.index for r in results if r.alert]
    return out


def _f(x: float | None) -> float | None:
    return float(x) if x is not None and np.isfinite(x) else None


def _batch(test: ThresholdTest, V: np.ndarray, resets: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``resets[s, i]``: series ``s``'s baseline starts again at value ``i`` (a change point)."""
    S, n = V.shape
    lb, ub = test.lower_boundary, test.upper_boundary
    width = test.max_sample_size or n
    clean = np.full((S, n), np.nan)       # each series' clean values, in order, packed to the left
    count = np.zeros(S, dtype=int)
    rows = np.arange(S)[:, None]
    back = np.arange(width)[None, :] - width        # a baseline: the last `width` clean values
    lower, upper = np.full((S, n), np.nan), np.full((S, n), np.nan)
    breach = np.zeros((S, n), dtype=bool)
    for i in range(n):
        count[resets[:, i]] = 0           # earlier values are packed over as the new regime's come
        size = np.minimum(count, width)
        if test.test == "static":       # as threshold_tests.limits: no baseline needed
            have = size >= (test.min_sample_size or 0)
            lo = np.where(have, np.nan if lb is None else lb, np.nan)
            hi = np.where(have, np.nan if ub is None else ub, np.nan)
        else:
            idx = count[:, None] + back
            lo, hi = window_limits(test, np.where(idx >= 0, clean[rows, np.maximum(idx, 0)], np.nan), size)
        x = V[:, i]
        bad = (x < lo) | (x > hi)
        lower[:, i], upper[:, i], breach[:, i] = lo, hi, bad
        ok = ~bad
        clean[ok, count[ok]] = x[ok]
        count[ok] += 1
    return lower, upper, breach
