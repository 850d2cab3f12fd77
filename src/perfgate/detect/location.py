"""Where a change starts: the best split near a candidate, and the range of runs it could be.

For each split ``t`` of a stretch, the two-sample likelihood ratio of a change in mean there,
``LR(t) = n_L n_R / (n_L + n_R) · (ȳ_L − ȳ_R)² / (s² · inflation)``.  The change is placed at its
maximum; its range is every split within :func:`location_level` of it, a level calibrated for a
change's location (not the chi-square 3.84, which holds a weak step's run far less than 95% of
the time); and the runs next to the best within 3.84 are its likeliest, where sibling series
look for it.
"""

from __future__ import annotations

import math

import numpy as np

LOCATE_MIN_SIDE = 2     # fewest points a side when refining a found change's location
LOCATION_LEVEL = 3.84  # chi-square(1) 95% quantile: the likeliest runs, where siblings look
LOCATION_COVERAGE = 0.95  # how often a change's reported range should hold its first run
SIEGMUND_RHO = 0.5826  # -zeta(1/2) / sqrt(2 pi): a Gaussian walk's overshoot, in its steps' deviations


def locate(yw: np.ndarray, lo: int, hi: int, t0: int, m: int, sigma: float,
            inflation: float, within: tuple[int, int] | None = None,
            spikes: np.ndarray | None = None, raw: np.ndarray | None = None) -> tuple[int, int, int, int, int]:
    """``(t, low, high, likeliest_low, likeliest_high)``: the best split of ``yw[lo:hi]`` near
    ``t0`` by the two-sample likelihood ratio; the first and last splits whose ratio is within
    :func:`location_level` of the best (a 95% set for the location, taken whole: a weak step's
    likelihood is ragged, and the runs next to the best alone held its true run 0.8 of the time);
    and the splits next to the best within ``LOCATION_LEVEL`` of it.  With ``within = (a, b)``,
    splits at a..b only.  A run marked in ``spikes`` next to the best split could be on either
    side of it: a spike on the run before a step looks like the new level and draws the split
    (the range was that run alone), one on the run after a step draws it the other way.  The
    range then also holds the split on the spike's other side (the likeliest runs, where siblings
    look, stay as the likelihood has them: widened too, they cost the suite corpus a change).  With
    ``raw`` (the unclipped series) a marked run counts as a spike only when it is far from both
    levels: the edge run of a large step is clipped too (the rolling median straddles the step),
    and a +30% step in 1% noise read "could be 23..24" with run 23 plainly on the old level."""
    n = hi - lo
    ts, lr = split_scores(yw, lo, hi, sigma, inflation)
    ts = ts - lo
    # The search needs min_segment points a side to see a change, but once it has seen one the
    # best split may sit closer to an end: a regime 4 points old at the series' end is still
    # located exactly (clamping it to min_segment would name the wrong commit).
    edge = min(m, LOCATE_MIN_SIDE)
    allowed = (ts >= edge) & (ts <= n - edge)
    if within is not None:
        allowed &= (lo + ts >= within[0]) & (lo + ts <= within[1])
    if not allowed.any():
        return t0, t0, t0, t0, t0
    lr = np.where(allowed, lr, -np.inf)
    best = int(np.argmax(lr))
    a = b = best
    while a > 0 and lr[a - 1] >= lr[best] - LOCATION_LEVEL:
        a -= 1
    while b < n - 2 and lr[b + 1] >= lr[best] - LOCATION_LEVEL:
        b += 1
    # the step in (inflated) noise deviations, from the best split's ratio and its two sides' sizes
    step = math.sqrt(lr[best] * n / (ts[best] * (n - ts[best])))
    inside = np.flatnonzero(lr >= lr[best] - location_level(step))
    t = lo + int(ts[best])
    low, high, l_low, l_high = lo + int(ts[inside[0]]), lo + int(ts[inside[-1]]), lo + int(ts[a]), lo + int(ts[b])
    if spikes is not None:
        if spikes[t - 1] and t - 1 > lo and _far_from_both(raw, t - 1, lo, t, hi, sigma):
            low = min(low, t - 1)
        if spikes[t] and t + 1 < hi and _far_from_both(raw, t, lo, t, hi, sigma):
            high = max(high, t + 1)
    return t, low, high, l_low, l_high


SPIKE_SIDE = 10     # runs each side whose median is a level a spike stands apart from
SPIKE_APART = 3.0   # deviations from both levels that make a clipped run a spike, not a level's run


def _far_from_both(raw: np.ndarray | None, r: int, lo: int, t: int, hi: int, sigma: float) -> bool:
    """Whether run ``r`` (next to the split ``t``) is far from the levels on both sides of it,
    as a spike is and a step's edge run is not (True without ``raw``: the old rule)."""
    if raw is None:
        return True
    # the runs each side of the split, ``r`` itself left out (it is the split's last or first run)
    if r < t:
        left, right = raw[max(lo, r - SPIKE_SIDE):r], raw[t:min(hi, t + SPIKE_SIDE)]
    else:
        left, right = raw[max(lo, t - SPIKE_SIDE):t], raw[r + 1:min(hi, r + 1 + SPIKE_SIDE)]
    if not (left.size and right.size):
        return True
    return bool(min(abs(raw[r] - np.median(left)), abs(raw[r] - np.median(right))) > SPIKE_APART * sigma)


def location_level(step: float, coverage: float = LOCATION_COVERAGE) -> float:
    """How far below the best split's likelihood ratio a split may score and still be in a
    change's location range, for a step of ``step`` noise deviations.  A change's location is not
    a regular parameter, so the chi-square(1) quantile (3.84 at 95%) does not hold.  To either
    side of the true run, twice the log likelihood of a split walks with drift ``-step^2`` and
    deviation ``2 step`` per run; half its maximum has ``P(max > x) ~ exp(-(x + 0.583 step))``
    (Siegmund's corrected diffusion approximation: close up to 2 deviations, conservative above).
    The two sides are independent, so the range holds the true run with probability
    ``coverage`` at twice the ``sqrt(coverage)`` quantile of one side: ``7.35 - 1.17 step`` at
    95%.  With 3.84 the range held a 1-deviation step's true run 0.70 of the time, a 2-deviation
    step's 0.88 (``bench/location_coverage.py``)."""
    one_side = -math.log(1.0 - math.sqrt(coverage))
    return 2.0 * max(one_side - SIEGMUND_RHO * step, 0.0)


def split_scores(yw: np.ndarray, lo: int, hi: int, sigma: float, inflation: float) -> tuple[np.ndarray, np.ndarray]:
    """``(t, LR(t))`` for every split t of ``yw[lo:hi]`` (``lo < t < hi``): the two-sample
    likelihood ratio of a change in mean there, in noise variances inflated by ``inflation``."""
    seg = yw[lo:hi]
    n = seg.size
    ts = np.arange(1, n)
    csum = np.cumsum(seg)
    nl = ts.astype(float)
    nr = n - nl
    mean_l = csum[:-1] / nl
    mean_r = (csum[-1] - csum[:-1]) / nr
    return lo + ts, nl * nr / n * (mean_l - mean_r) ** 2 / (sigma ** 2 * inflation)
