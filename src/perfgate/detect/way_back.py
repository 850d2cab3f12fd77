"""Whether a series went back after a regression: the test ``detect`` makes before it marks an
alert's change unfound.

A regression reverted some runs later is a bump, and a search of the whole history can judge a bump
a smooth hump and find neither of its edges; the alert would then be withdrawn as a weak change
point, the revert never named.  Here only the runs from the alert's first commit on are split in
two — the regressed level, then the way back — at the split whose rank test leans furthest back,
its one-sided p-value priced (Bonferroni) for every split searched; each side has the detector's
``min_segment`` runs at least.  Pure numpy; the values are taken as logs, as the detector's noise
model takes positive measures."""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from perfgate.detect.distributions import normal_cdf
from perfgate.detect.location import locate
from perfgate.detect.stats import hodges_lehmann, normal_quantile, pooled_sd, relative_change


class WayBack(NamedTuple):
    """The way back found: the first run of the level after it (``index``, and the runs it could be,
    ``index_low``..``index_high``, positions in the values given), its size as a relative change
    with a ``confidence`` interval, and its p-value for the splits searched."""

    index: int
    index_low: int
    index_high: int
    magnitude: float
    ci_low: float
    ci_high: float
    p_value: float


def split_rank_z(y: np.ndarray, inflation: float = 1.0) -> np.ndarray:
    """:func:`perfgate.detect.stats.rank_test`'s z of ``y[:t]`` against ``y[t:]`` for each split
    ``t`` = 1 … ``y.size - 1`` (entry ``t - 1``), the same numbers, from one ranking: the pooled
    sample is ``y`` at every split, so its midranks and ties are too, and the later side's rank sum
    is the total less a running sum.  A rank test at each split was O(n² log n): 0.1 s for an
    alert 500 runs back, at every detect while its streak stays over (``alert_history.withdrawals``)."""
    n = y.size
    order = np.argsort(y, kind="stable")
    x = y[order]
    edges = np.flatnonzero(np.concatenate([[True], x[1:] != x[:-1], [True]]))
    sizes = np.diff(edges)
    ranks = np.empty(n)
    ranks[order] = np.repeat((edges[:-1] + edges[1:] + 1) / 2.0, sizes)   # midranks, 1-based
    ties = float(np.sum(sizes.astype(float) ** 3 - sizes)) if sizes.size < n else 0.0
    na = np.arange(1, n, dtype=float)
    nb = n - na
    u = (ranks.sum() - np.cumsum(ranks)[:-1]) - nb * (nb + 1) / 2.0   # R_b - n_b (n_b + 1) / 2
    var = na * nb / 12.0 * ((n + 1) - ties / (n * (n - 1))) * inflation
    d = u - na * nb / 2.0
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where((np.abs(d) > 0.5) & (var > 0), (np.abs(d) - 0.5) / np.sqrt(np.where(var > 0, var, 1.0)), 0.0)
    return np.copysign(z, d)


def way_back(values, start: int, regression: float, min_segment: int, confidence: float,
             inflation: float = 1.0) -> WayBack | None:
    """The split after ``start`` (the alert's first run) where ``values`` went back the other way
    from ``regression`` (the alert's relative change), when its p-value for the splits searched is
    at most ``1 - confidence``; else None (also for values not all positive and finite, which have
    no relative change).  ``inflation`` widens the noise for serially correlated runs, as the
    detector's analysis of the series estimated it.  Whether the way back is large enough to undo
    the regression is the caller's rule (:func:`perfgate.alert_history.wins_back`)."""
    raw = np.asarray(values, dtype=float)[start:]
    m = max(min_segment, 1)
    if regression == 0 or raw.size < 2 * m or not np.all(np.isfinite(raw) & (raw > 0)):
        return None
    y = np.log(raw)
    back = -1.0 if regression > 0 else 1.0      # a rank z leaning this way is a way back
    splits = range(m, y.size - m + 1)
    z = back * split_rank_z(y, inflation)[m - 1:y.size - m]
    best = int(np.argmax(z))
    t = splits[best]
    p = min(1.0, normal_cdf(-float(z[best])) * len(splits))
    if p > 1.0 - confidence:
        return None
    left, right = y[:t], y[t:]
    shift = hodges_lehmann(left, right)
    spread = pooled_sd(left, right)
    half = normal_quantile(0.5 + confidence / 2) * spread * math.sqrt((1 / left.size + 1 / right.size) * inflation)
    # the runs it could be: the location range the detector gives a change, searched among the same splits
    _, low, high, _, _ = locate(y, 0, y.size, t, m, max(spread, 1e-12), inflation, within=(m, y.size - m))
    return WayBack(start + t, start + min(low, t), start + max(high, t), relative_change(shift),
                   relative_change(shift - half), relative_change(shift + half), p)
