"""A noise model for performance series.

Performance data is not Gaussian: run times have heavy right tails and single-run spikes (a
neighbour process, a page-cache miss), some benchmarks are bimodal, machine state makes
consecutive runs correlated, and instruction counts under valgrind are near-deterministic.
:class:`NoiseModel` turns a raw series into what the change point search and the tests need:

* ``y``: the series on a relative scale, ``log(x)`` when every value is positive (a step of
  r percent is then the additive shift ``log(1 + r)`` whatever the level), else ``x / |median|``
  (``x`` itself when the median is 0; the scale floored at :data:`WIDEST` times the largest
  value, so that values spanning more than floats can divide, or squares of values near the
  largest float, stay finite);
* ``sigma``: the robust noise scale of ``y``, ``1.4826 · MAD(y - rolling_median(y))`` — the
  rolling median follows steps but not spikes, so neither inflates the scale — floored at
  :data:`SIGMA_FLOOR` so that a zero-variance series still has a finite scale (a 1% step in a
  constant series is then 100 sigma);
* ``winsorized``: ``y`` with residuals ``r`` about a rolling median (narrowed to ``2m - 1`` points
  when the shortest reported regime ``m`` is under 5, so that such a regime is not taken for a
  spike) clipped to the far-out fences ``[Q1(r) - FENCE·IQR, Q3(r) + FENCE·IQR]`` (IQR floored
  at ``1.349·sigma``, so about ``±3.4 sigma`` for Gaussian noise): a spike or a tail value then
  weighs no more than a few sigma in least-squares costs, while both modes of a bimodal benchmark
  lie inside the fences and are kept as they are (clipping one mode would turn mode switches into
  fake regimes);
* ``local_sigma``: the same robust scale about each point from its :data:`LOCAL` neighbours, so
  that a step in a quiet stretch is judged against the noise there;
* :func:`lag1_autocorrelation` of residuals, from which the variance of a mean (or a rank sum)
  of m correlated points is inflated by ``(1 + rho) / (1 - rho)`` (AR(1) approximation), and
  :func:`wander_autocorrelation`, the same persistence measured about a rolling median.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache
from itertools import chain

import numpy as np

from perfgate.detect.distributions import chi2_upper_quantile
from perfgate.detect.rolling import rolling_median
from perfgate.detect.stats import far_out_fences, quartiles, raw_median, relative_change

SIGMA_FLOOR = 1e-4   # relative: 0.01%, well under any effect worth reporting
FENCE = 2.0
# A relative change off the log scale from a level of 0 has no finite size: it is given as this
# bound (+10,000%, as ``perfgate.units.pct`` writes "> +10,000%"), never as a shift over the
# series' median, which read 0 → 1 as +200%.
RELATIVE_CEILING = 100.0
SMOOTH = 9           # rolling median width: wider than a spike, narrower than a regime
MAX_RHO = 0.9
WANDER = 31          # rolling median width for the noise's persistence: wider than a sticky mode's stays
WANDER_LAG = 5       # ... whose correlation has mostly decayed this many runs apart
LOCAL = 121          # points of a local noise estimate: the two judging windows about a point
DISTURBED = 0.2      # a run whose samples' variance is over 5× (spread over √5 ≈ 2.2×) its neighbours' typical one
CHANCE = 1e-3        # ... and more than its few samples scatter by chance once in this many runs
WIDEST = 1e-100      # |y| at most 1e100: its squares and their sums over any series stay finite


@lru_cache(maxsize=1024)
def _chance_ratio(df: int) -> float:
    """How far above its expectation a variance of ``df`` degrees of freedom strays by chance once
    in 1 / CHANCE runs: the chi-square quantile over ``df``."""
    return chi2_upper_quantile(df, CHANCE) / df


class NoiseModel:
    """``NoiseModel(min_segment).fit(values, samples=None)`` exposes ``y``, ``sigma``, ``winsorized``,
    ``local_sigma``, ``log_scale``, ``set_aside`` (the runs :meth:`_weigh` and
    :meth:`_set_aside_warm_up` set aside) and ``warm_up`` (how many first runs the latter covers,
    which threshold tests leave out of their baseline too).
    ``pending`` (how many newest runs :meth:`_pending_level` finds at a level too new to be a
    regime) too.
    ``min_segment``: the shortest regime the detector reports, which winsorizing must keep."""

    def __init__(self, min_segment: int = 5):
        # A rolling median of 2m - 1 points follows a regime of m points (it is the majority of
        # every window centred in it); the default regime of 5 points gives SMOOTH itself.
        self.follow_width = max(3, min(SMOOTH, 2 * min_segment - 1))
        self.min_segment = min_segment

    def fit(self, values: np.ndarray, samples: Sequence[Sequence[float]] | None = None) -> "NoiseModel":
        x = np.asarray(values, dtype=float)
        self.set_aside = np.zeros(x.size, dtype=bool)   # runs whose samples show a disturbance
        self.warm_up = 0    # the first runs, up to the last cold one set aside (_set_aside_warm_up)
        self.pending = 0    # the newest runs at a level too new to be a regime (_pending_level)
        self.log_scale = bool(x.size and np.all(x > 0))
        self.level = raw_median(x) if x.size else 0.0
        # A median of 0 leaves the values in their own units.
        scale = max(abs(self.level) or 1.0, float(np.max(np.abs(x), initial=0.0)) * WIDEST)
        self.y = np.log(x) if self.log_scale else x / scale
        if x.size < 3:
            self.sigma, self.winsorized = SIGMA_FLOOR, self.y.copy()
            self.local_sigma = np.full(x.size, SIGMA_FLOOR)
            return self
        self._fit_noise()
        if samples is not None and len(samples) == x.size:
            if self._weigh(*within_run_spread(samples, self.log_scale, scale)):
                self._fit_noise()
        if self._set_aside_warm_up():
            self._fit_noise()
        self.pending = self._pending_level()
        return self

    def _fit_noise(self) -> None:
        # Windows at the ends mirror the series ("nearest" would repeat the end value over half a
        # window: the local scale then collapsed to its floor over the first and last points).
        smooth = rolling_median(self.y, min(SMOOTH, self.y.size))
        resid = self.y - smooth
        dev = np.abs(resid - np.median(resid))
        self.sigma = max(1.4826 * float(np.median(dev)), SIGMA_FLOOR)
        # The same scale about each point, from its LOCAL neighbours only: a series whose noise
        # changes (a noisy stretch, then a quiet one) is judged by the noise where a step is,
        # not by its noisiest stretch.  Residuals about the rolling median ignore steps.
        self.local_sigma = np.maximum(1.4826 * rolling_median(dev, min(LOCAL, self.y.size)),
                                      SIGMA_FLOOR)
        # Spikes are clipped about a rolling median that follows the shortest regime reported: a
        # regime of 2 runs (min_segment = 2, for instruction counts) at the start of a series was
        # clipped into its neighbour's level by the SMOOTH-wide median, and its change lost.
        if self.follow_width < SMOOTH:
            smooth = rolling_median(self.y, min(self.follow_width, self.y.size))
            resid = self.y - smooth
        q1, q3 = np.percentile(resid, [25, 75])
        iqr = max(float(q3 - q1), 1.349 * self.sigma)
        self.winsorized = smooth + np.clip(resid, q1 - FENCE * iqr, q3 + FENCE * iqr)

    def _weigh(self, spread: np.ndarray, counts: np.ndarray) -> bool:
        """Set aside the runs whose raw samples show they were disturbed.

        A neighbour process preempting some of a run's repetitions scatters its samples and
        pulls its mean (contention only slows): such a run's value is biased, not merely less
        precise, so it is judged by its samples' variance ``s²`` against the typical one of the
        runs about it — per sample, so a run of few samples is not suspect for that alone.  A run
        with ``w = typical / s² < DISTURBED`` (and ``s²`` beyond what ``k`` samples' variance
        reaches by chance in one run of ``1 / CHANCE``: ``χ²_{k-1}/(k-1)``, which matters for
        runs of 3 or 4 samples) keeps only the share ``w`` of its deviation from where its
        steady neighbours put it: a stretch of disturbed runs cannot pose as a new regime, which
        the values alone cannot tell (a rolling median follows a long enough stretch).  Every
        other run keeps its value.  (Weighing by the precision of each run's mean instead,
        ``(τ² + se_typ²) / (τ² + se²)`` with the run-to-run wander ``τ²``, left most bursts at
        full weight where the wander is large and their bias still was.)  The threshold was
        chosen on the real history (``bench/detect_real_history.py``: every
        noisier run weighed down blurs where real steps are); typical spreads are local (a
        noisy stretch is judged against itself).  Returns whether any run was set aside."""
        known = np.isfinite(spread)
        if known.sum() < 3:
            return False
        s2 = np.where(known, spread, np.median(spread[known])) ** 2
        typical = rolling_median(s2, min(LOCAL, s2.size))
        w = np.minimum(1.0, typical / np.maximum(s2, 1e-300))
        df = np.maximum(counts - 1, 1)
        sizes, which = np.unique(df, return_inverse=True)
        chance = np.array([_chance_ratio(int(k)) for k in sizes])[which]
        disturbed = (w < DISTURBED) & (s2 > chance * typical)
        steady = np.flatnonzero(~disturbed)
        if not disturbed.any() or steady.size < SMOOTH:
            return False
        # Where a run would sit were it undisturbed: the median of the SMOOTH steady runs
        # nearest to it (by position).
        pos = np.clip(np.searchsorted(steady, np.arange(w.size)) - SMOOTH // 2, 0, steady.size - SMOOTH)
        reference = np.median(self.y[steady[pos[:, None] + np.arange(SMOOTH)]], axis=1)
        self.y = np.where(disturbed, reference + (self.y - reference) * w, self.y)
        self.set_aside = disturbed
        return True

    def _set_aside_warm_up(self) -> bool:
        """Set aside the cold runs that open a history (a cold cache, a first build): up to
        ``min_segment - 1`` first runs, each either on one side beyond the far-out fences of the
        ``min_segment`` runs after them (a cold run) or inside them (a warm one, kept), the first
        and the last of them cold (warm runs then a slow one are a spike, not a warm-up: set
        aside, one in the suite corpus's autocorrelated noise changed its persistence estimate
        and raised two false changes).  No change can be reported among them, yet their level
        weighed in every test of the first real regime: two in a row read as persistence and
        inflated every variance about threefold, and four hid a clean +26% step.  Each takes the level of the
        runs after them.  The cold runs must also lie that far beyond every later run (a bimodal
        benchmark's first runs in a mode it visits again are no warm-up), and the first run after
        them inside the fences, so that a regime of ``min_segment`` runs is never cut short.
        Returns whether any run was set aside."""
        m, y = self.min_segment, self.y
        if m < 4 or y.size < 3 * m:      # fences need 4 values
            return False
        gap = 3 * 1.349 * self.sigma     # the fences' half-width at their floor
        # every later run's extremes, from each of the first runs on: most series stop here, with
        # no first run clear of the runs after it
        later_max = np.maximum.accumulate(y[:0:-1])[::-1][:m]
        later_min = np.minimum.accumulate(y[:0:-1])[::-1][:m]
        head = y[:m - 1]
        if not np.any((head > later_max[:m - 1] + gap) | (head < later_min[:m - 1] - gap)):
            return False
        for k in range(m - 1, 0, -1):
            low, high = far_out_fences(y[k:k + m], self.sigma)
            if not low <= y[k] <= high:
                continue
            warm = (y[:k] >= low) & (y[:k] <= high)
            for cold in (y[:k] > max(high, later_max[k - 1] + gap), y[:k] < min(low, later_min[k - 1] - gap)):
                if cold[0] and cold[-1] and np.all(cold | warm):
                    self.y = np.where(np.r_[cold, np.zeros(y.size - k, bool)], np.median(y[k:k + m]), y)
                    self.set_aside = self.set_aside.copy()
                    self.set_aside[:k] |= cold
                    self.warm_up = k
                    return True
        return False

    def _pending_level(self) -> int:
        """How many of the newest runs (1 to ``min_segment - 1``, the most that qualify) sit at a
        level the series moved to too recently to be a regime (a revert one to four runs old):
        all beyond the quartiles of the ``min_segment`` runs before them, on one side, by the
        far-out fences' half-width at their floor (``3 · 1.349 · sigma``; five runs' own IQR is
        too unsteady a yardstick: in 1% noise a 7.5% revert fell inside it in 2 of 20 seeds), the
        last of those runs inside.  The search cannot cut a regime that short, so those runs fell
        in the right window of the change before them and, left in the residuals, read as
        persistence: an instruction count +7.8% for 8 runs, then reverted for 2 or 3, had every
        variance inflated threefold and failed the rank agreement — no change point.  One newest
        run that far out is a spike or a revert's first run, evidence for neither side: counted in
        the right window, at the old level, it failed the same step's rank agreement in 9 of 100
        seeds of 1% noise.  The runs keep their values (winsorizing still clips a lone one, and the
        mode rule still counts them as visits); the detector ends the last regime's evidence before
        them (``ChangePointDetector._evidence_end``)."""
        m, y = self.min_segment, self.y
        if y.size < 3 * m:
            return 0
        gap = 3 * 1.349 * self.sigma
        for j in range(m - 1, 0, -1):
            q1, q3 = quartiles(y[-j - m:-j])
            low, high = q1 - gap, q3 + gap
            tail = y[-j:]
            if low <= y[-j - 1] <= high and (np.all(tail > high) or np.all(tail < low)):
                return j
        return 0

    @property
    def clipped(self) -> np.ndarray:
        """The runs winsorizing clipped: spikes and tail values beyond the far-out fences."""
        return self.winsorized != self.y

    def relative(self, shift: float, before: float) -> float:
        """A shift of ``y`` from the level ``before`` (on ``y``'s scale) as a relative change of the
        raw values (new / old - 1); infinite for a ratio past the largest float.  Off the log scale
        a change from a level of 0, or over :data:`RELATIVE_CEILING` times it, is that bound."""
        if self.log_scale:
            return relative_change(shift)
        level = abs(float(before))
        if abs(shift) >= RELATIVE_CEILING * level:
            return math.copysign(RELATIVE_CEILING, shift) if shift else 0.0
        return float(shift) / level


def lag1_autocorrelation(resid: np.ndarray) -> float:
    """Lag-1 autocorrelation of residuals, clipped to [0, MAX_RHO] (negative values would only
    shrink variances, which a cautious test should not rely on)."""
    r = resid - resid.mean()
    denom = float(r @ r)
    if resid.size < 4 or denom == 0:
        return 0.0
    return float(np.clip((r[1:] @ r[:-1]) / denom, 0.0, MAX_RHO))


def wander_autocorrelation(y: np.ndarray, changes: Sequence[int] = ()) -> float:
    """The noise's short-range persistence measured about a rolling median of :data:`WANDER`
    points (a third of a short series) instead of a segmentation: lag-1 autocorrelation less the
    lag-:data:`WANDER_LAG` one, leaving out half the width about each of ``changes``, clipped as
    :func:`lag1_autocorrelation`.  Residuals about a segmentation lose the persistence wherever
    a false change cut a long stay of a sticky mode, or a stretch of wander, into a regime of its
    own; a rolling median is cut by nothing and follows no short stay.  It lags behind a step,
    though, leaving a smooth ramp of residuals, correlated at lag 5 nearly as at lag 1, while the
    noise's own correlation has mostly decayed by then: hence the difference, and the known
    changes left out."""
    n = y.size
    width = max(5, min(WANDER, (n // 3) | 1))
    r = y - rolling_median(y, width)
    keep = np.ones(n, dtype=bool)
    for t in changes:
        keep[max(0, t - width // 2):t + width // 2 + 1] = False
    near, far = keep[1:] & keep[:-1], keep[WANDER_LAG:] & keep[:-WANDER_LAG]
    if keep.sum() < 20 or not near.any() or not far.any():
        return 0.0
    r = r - r[keep].mean()
    var = float(r[keep] @ r[keep]) / keep.sum()
    if var == 0:
        return 0.0
    rho_near = (r[1:] * r[:-1])[near].mean() / var
    rho_far = (r[WANDER_LAG:] * r[:-WANDER_LAG])[far].mean() / var
    return float(np.clip(rho_near - max(0.0, rho_far), 0.0, MAX_RHO))


def variance_inflation(rho: float) -> float:
    """Variance of a mean of AR(1) points relative to independent ones: (1 + rho) / (1 - rho)."""
    return (1.0 + rho) / (1.0 - rho)


def within_run_spread(samples: Sequence[Sequence[float]], log_scale: bool,
                      scale: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """``(spread, counts)``: the standard deviation of each run's raw samples on the detector's
    scale (``sd(log s)`` when the series is on a log scale, else ``sd(s) / scale``; NaN for a run
    with fewer than two samples, or a non-positive one on a log scale), and each run's number of
    samples.  Vectorised over all samples at once: a store's series can hold millions."""
    counts = np.fromiter((len(s) for s in samples), dtype=np.int64, count=len(samples))
    out = np.full(counts.size, np.nan)
    if counts.sum() == 0:
        return out, counts
    flat = np.fromiter(chain.from_iterable(samples), dtype=float, count=int(counts.sum()))
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    has = counts > 0
    if log_scale:
        bad = np.add.reduceat((~(flat > 0)).astype(np.int64), starts[has])   # also NaN
        flat = np.log(np.where(flat > 0, flat, 1.0))
    else:
        bad = np.zeros(int(has.sum()), dtype=np.int64)
        flat = flat / scale
    k = counts[has].astype(float)
    # A NaN or infinite sample makes its run's spread NaN: unknown, like a run without samples.
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        mean = np.add.reduceat(flat, starts[has]) / k
        # squares about each run's own mean (not Σs² - k·mean², which cancels badly on a log scale)
        dev2 = np.add.reduceat((flat - np.repeat(mean, counts[has])) ** 2, starts[has])
        sd = np.sqrt(dev2 / (k - 1))
    sd[(k < 2) | (bad > 0) | ~np.isfinite(sd)] = np.nan
    out[has] = sd
    return out, counts
