"""A noise model for performance series.

Performance data is not Gaussian: run times have heavy right tails and single-run spikes (a
neighbour process, a page-cache miss), some benchmarks are bimodal, machine state makes
consecutive runs correlated, and instruction counts under valgrind are near-deterministic.
:class:`NoiseModel` turns a raw series into what the change point search and the tests need:

* ``y``: the series on a relative scale, ``log(x)`` when every value is positive (a step of
  r percent is then the additive shift ``log(1 + r)`` whatever the level), else ``x / |median|``;
* ``sigma``: the robust noise scale of ``y``, ``1.4826 · MAD(y - rolling_median(y))`` — the
  rolling median follows steps but not spikes, so neither inflates the scale — floored at
  :data:`SIGMA_FLOOR` so that a zero-variance series still has a finite scale (a 1% step in a
  constant series is then 100 sigma);
* ``winsorized``: ``y`` with residuals ``r`` about the rolling median clipped to the far-out
  fences ``[Q1(r) - FENCE·IQR, Q3(r) + FENCE·IQR]`` (IQR floored at ``1.349·sigma``, so about
  ``±3.4 sigma`` for Gaussian noise): a spike or a tail value then weighs no more than a few
  sigma in least-squares costs, while both modes of a bimodal benchmark lie inside the fences
  and are kept as they are (clipping one mode would turn mode switches into fake regimes);
* ``local_sigma``: the same robust scale about each point from its :data:`LOCAL` neighbours, so
  that a step in a quiet stretch is judged against the noise there;
* :func:`lag1_autocorrelation` of residuals, from which the variance of a mean (or a rank sum)
  of m correlated points is inflated by ``(1 + rho) / (1 - rho)`` (AR(1) approximation).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import chain

import numpy as np
from scipy.ndimage import median_filter

SIGMA_FLOOR = 1e-4   # relative: 0.01%, well under any effect worth reporting
FENCE = 2.0
SMOOTH = 9           # rolling median width: wider than a spike, narrower than a regime
MAX_RHO = 0.9
LOCAL = 121          # points of a local noise estimate: the two judging windows about a point
DISTURBED = 0.25     # a run whose precision is under a quarter of its neighbours' typical one


class NoiseModel:
    """``NoiseModel().fit(values, samples=None)`` exposes ``y``, ``sigma``, ``winsorized``,
    ``local_sigma`` and ``log_scale``."""

    def fit(self, values: np.ndarray, samples: Sequence[Sequence[float]] | None = None) -> "NoiseModel":
        x = np.asarray(values, dtype=float)
        self.log_scale = bool(x.size and np.all(x > 0))
        self.level = float(np.median(x)) if x.size else 0.0
        scale = abs(self.level)
        if self.log_scale:
            self.y = np.log(x)
        else:
            self.y = x / scale if scale > 0 else x.copy()
        if x.size < 3:
            self.sigma, self.winsorized = SIGMA_FLOOR, self.y.copy()
            self.local_sigma = np.full(x.size, SIGMA_FLOOR)
            return self
        self._fit_noise()
        if samples is not None and len(samples) == x.size:
            errors = within_run_errors(samples, self.log_scale, scale or 1.0)
            if self._weigh(errors):
                self._fit_noise()
        return self

    def _fit_noise(self) -> None:
        smooth = median_filter(self.y, size=min(SMOOTH, self.y.size), mode="nearest")
        resid = self.y - smooth
        dev = np.abs(resid - np.median(resid))
        self.sigma = max(1.4826 * float(np.median(dev)), SIGMA_FLOOR)
        # The same scale about each point, from its LOCAL neighbours only: a series whose noise
        # changes (a noisy stretch, then a quiet one) is judged by the noise where a step is,
        # not by its noisiest stretch.  Residuals about the rolling median ignore steps.
        self.local_sigma = np.maximum(1.4826 * median_filter(dev, size=min(LOCAL, self.y.size), mode="nearest"),
                                      SIGMA_FLOOR)
        q1, q3 = np.percentile(resid, [25, 75])
        iqr = max(float(q3 - q1), 1.349 * self.sigma)
        self.winsorized = smooth + np.clip(resid, q1 - FENCE * iqr, q3 + FENCE * iqr)

    def _weigh(self, errors: np.ndarray) -> bool:
        """Weigh down the runs whose raw samples show they were disturbed.

        A run's variance is ``τ² + se²``: the run-to-run wander ``τ²`` (what the local noise
        ``σ²`` has beyond the typical within-run error ``se_typ²`` of the runs about it) plus
        its own within-run error ``se²`` (the standard error of its samples' mean).  Its
        precision relative to its neighbours is ``w = (τ² + se_typ²) / (τ² + se²)``.  A run
        with ``w < DISTURBED`` — a neighbour process preempted some of its repetitions, say —
        keeps only the share ``w`` of its deviation from where its undisturbed neighbours put
        it, its pull on any mean being then what it has in a precision-weighted mean: a stretch
        of disturbed runs cannot pose as a new regime, which the values alone cannot tell (a
        rolling median follows a long enough stretch).  Every other run keeps its value:
        moderately noisier runs are left alone, because pulling runs beside a real step towards
        neighbours on both sides of it blurs where the step is (measured on a real history,
        ``bench/detect_real_history.py``).  Typical spreads are local (a noisy stretch is judged
        against itself).  Returns whether any run was weighed down."""
        known = np.isfinite(errors)
        if known.sum() < 3:
            return False
        se2 = np.where(known, errors, np.median(errors[known])) ** 2
        typical = median_filter(se2, size=min(LOCAL, se2.size), mode="nearest")
        wander = np.maximum(self.local_sigma ** 2 - typical, 0.0)
        w = np.minimum(1.0, (wander + typical) / np.maximum(wander + se2, 1e-300))
        disturbed = w < DISTURBED
        steady = np.flatnonzero(~disturbed)
        if not disturbed.any() or steady.size < SMOOTH:
            return False
        # Where a run would sit were it undisturbed: the median of the SMOOTH steady runs
        # nearest to it (by position).
        pos = np.clip(np.searchsorted(steady, np.arange(w.size)) - SMOOTH // 2, 0, steady.size - SMOOTH)
        reference = np.median(self.y[steady[pos[:, None] + np.arange(SMOOTH)]], axis=1)
        self.y = np.where(disturbed, reference + (self.y - reference) * w, self.y)
        return True

    def relative(self, shift: float) -> float:
        """A shift of ``y`` as a relative change of the raw values (new / old - 1)."""
        return float(np.expm1(shift)) if self.log_scale else float(shift)


def lag1_autocorrelation(resid: np.ndarray) -> float:
    """Lag-1 autocorrelation of residuals, clipped to [0, MAX_RHO] (negative values would only
    shrink variances, which a cautious test should not rely on)."""
    r = resid - resid.mean()
    denom = float(r @ r)
    if resid.size < 4 or denom == 0:
        return 0.0
    return float(np.clip((r[1:] @ r[:-1]) / denom, 0.0, MAX_RHO))


def variance_inflation(rho: float) -> float:
    """Variance of a mean of AR(1) points relative to independent ones: (1 + rho) / (1 - rho)."""
    return (1.0 + rho) / (1.0 - rho)


def within_run_errors(samples: Sequence[Sequence[float]], log_scale: bool, scale: float = 1.0) -> np.ndarray:
    """The standard error of each run's mean from its raw samples, on the detector's scale
    (``sd(log s) / √k`` when the series is on a log scale, else ``sd(s) / √k / scale``); NaN for
    a run with fewer than two samples (or a non-positive one on a log scale).  Vectorised over
    all samples at once: a store's series can hold millions."""
    counts = np.fromiter((len(s) for s in samples), dtype=np.int64, count=len(samples))
    out = np.full(counts.size, np.nan)
    if counts.sum() == 0:
        return out
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
        se = np.sqrt(dev2 / (k - 1) / k)
    se[(k < 2) | (bad > 0) | ~np.isfinite(se)] = np.nan
    out[has] = se
    return out
