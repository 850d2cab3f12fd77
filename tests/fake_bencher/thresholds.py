"""Boundary limits the way Bencher v0.6.12 computes them (``lib/bencher_boundary``), for the
fake's alerts.  Written apart from perfgate's own ``detect/threshold_tests.py`` so that the
tests compare two implementations of the same published algorithm.

``history`` is the series' earlier values, most recent last (Bencher keeps alerted values in).
With mean m and sample standard deviation sd (divisor n - 1):

* static:      the boundaries
* percentage:  m -/+ m * boundary
* z_score:     m -/+ Phi^-1(boundary) * sd
* t_test:      m -/+ t^-1_{n-1}(boundary) * sd * sqrt(1 + 1/n)
* log_normal:  upper exp(mu + Phi^-1(ub) * s); lower 2 exp(mu) - exp(mu + Phi^-1(lb) * s)
* iqr:         median -/+ boundary * (Q3 - Q1)
* delta_iqr:   median -/+ median * boundary * (D3 - D1), D the |relative changes|
"""

from __future__ import annotations

import math
import statistics

import numpy as np
from scipy import stats


def boundary(model: dict, history: list[float]) -> dict | None:
    """``JsonBoundary`` for the model and history, or None when the test cannot run yet."""
    test, lo_b, up_b = model["test"], model.get("lower_boundary"), model.get("upper_boundary")
    if model.get("max_sample_size"):
        history = history[-model["max_sample_size"]:]
    if model.get("min_sample_size") and len(history) < model["min_sample_size"]:
        return None
    if test == "static":
        return {"baseline": None, "lower_limit": lo_b, "upper_limit": up_b}
    if not history:
        return None
    n = len(history)
    centre = spread = None
    if test == "percentage":
        centre = statistics.fmean(history)
        lower = None if lo_b is None else centre - centre * lo_b
        upper = None if up_b is None else centre + centre * up_b
    elif test in ("z_score", "t_test"):
        if n < 2 or statistics.stdev(history) == 0:
            return None
        centre, sd = statistics.fmean(history), statistics.stdev(history)
        if test == "z_score":
            q = stats.norm.ppf
        else:
            sd *= math.sqrt(1 + 1 / n)
            q = lambda p: stats.t.ppf(p, n - 1)  # noqa: E731
        lower = None if lo_b is None else centre - q(lo_b) * sd
        upper = None if up_b is None else centre + q(up_b) * sd
    elif test == "log_normal":
        if n < 2 or min(history) <= 0:
            return None
        logs = [math.log(v) for v in history]
        mu, s = statistics.fmean(logs), statistics.stdev(logs)
        if s == 0:
            return None
        centre = math.exp(mu)
        lower = None if lo_b is None else 2 * centre - math.exp(mu + stats.norm.ppf(lo_b) * s)
        upper = None if up_b is None else math.exp(mu + stats.norm.ppf(up_b) * s)
    else:  # iqr, delta_iqr: numpy's default percentile interpolates at rank p * (n - 1)
        q1, centre, q3 = np.percentile(history, [25, 50, 75])
        if test == "iqr":
            spread = q3 - q1
        else:
            if n < 2:
                return None
            d1, d3 = np.percentile(np.abs(np.diff(history) / np.asarray(history[:-1])), [25, 75])
            spread = centre * (d3 - d1)
        lower = None if lo_b is None else centre - lo_b * spread
        upper = None if up_b is None else centre + up_b * spread
    return {"baseline": float(centre), "lower_limit": None if lower is None else float(lower),
            "upper_limit": None if upper is None else float(upper)}
