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

import numpy as np
from scipy.ndimage import median_filter

SIGMA_FLOOR = 1e-4   # relative: 0.01%, well under any effect worth reporting
FENCE = 2.0
SMOOTH = 9           # rolling median width: wider than a spike, narrower than a regime
MAX_RHO = 0.9
LOCAL = 121          # points of a local noise estimate: the two judging windows about a point


class NoiseModel:
    """``NoiseModel().fit(values)`` exposes ``y``, ``sigma``, ``winsorized`` and ``log_scale``."""

    def fit(self, values: np.ndarray) -> "NoiseModel":
        x = np.asarray(values, dtype=float)
        self.log_scale = bool(x.size and np.all(x > 0))
        if self.log_scale:
            self.y = np.log(x)
        else:
            scale = abs(float(np.median(x))) if x.size else 0.0
            self.y = x / scale if scale > 0 else x.copy()
        self.level = float(np.median(x)) if x.size else 0.0
        if x.size < 3:
            self.sigma, self.winsorized = SIGMA_FLOOR, self.y.copy()
            self.local_sigma = np.full(x.size, SIGMA_FLOOR)
            return self
        smooth = median_filter(self.y, size=min(SMOOTH, x.size), mode="nearest")
        resid = self.y - smooth
        dev = np.abs(resid - np.median(resid))
        self.sigma = max(1.4826 * float(np.median(dev)), SIGMA_FLOOR)
        # The same scale about each point, from its LOCAL neighbours only: a series whose noise
        # changes (a noisy stretch, then a quiet one) is judged by the noise where a step is,
        # not by its noisiest stretch.  Residuals about the rolling median ignore steps.
        self.local_sigma = np.maximum(1.4826 * median_filter(dev, size=min(LOCAL, x.size), mode="nearest"),
                                      SIGMA_FLOOR)
        q1, q3 = np.percentile(resid, [25, 75])
        iqr = max(float(q3 - q1), 1.349 * self.sigma)
        self.winsorized = smooth + np.clip(resid, q1 - FENCE * iqr, q3 + FENCE * iqr)
        return self

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
