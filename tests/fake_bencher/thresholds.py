"""Boundary limits the way a Bencher threshold model computes them, for the fake's alerts.

``history`` is the series' earlier values, most recent last.  With mean m and sample standard
deviation s of the last ``max_sample_size`` values:

* static:      limits are the boundaries themselves
* percentage:  m * (1 - lower), m * (1 + upper)
* z_score:     m -/+ Phi^-1(boundary) * s
* t_test:      m -/+ t^-1_{n-1}(boundary) * s
* log_normal:  exp(mu -/+ Phi^-1(boundary) * sigma) of the log values
* iqr:         Q1 - lower * IQR, Q3 + upper * IQR (baseline: the median)
* delta_iqr:   the same on relative step sizes, applied around the median
"""

from __future__ import annotations

import math
import statistics

from scipy import stats


def boundary(model: dict, history: list[float]) -> dict | None:
    """``JsonBoundary`` for the model and history, or None when the test cannot run yet."""
    test, lo_b, up_b = model["test"], model.get("lower_boundary"), model.get("upper_boundary")
    if test == "static":
        return {"baseline": None, "lower_limit": lo_b, "upper_limit": up_b}
    if model.get("max_sample_size"):
        history = history[-model["max_sample_size"]:]
    if len(history) < max(model.get("min_sample_size") or 0, 2 if test != "percentage" else 1):
        return None
    mean = statistics.fmean(history)
    sd = statistics.stdev(history) if len(history) > 1 else 0.0
    out = {"baseline": mean, "lower_limit": None, "upper_limit": None}
    if test == "percentage":
        spread = lambda b: mean * b  # noqa: E731
    elif test == "z_score":
        spread = lambda b: stats.norm.ppf(b) * sd  # noqa: E731
    elif test == "t_test":
        spread = lambda b: stats.t.ppf(b, len(history) - 1) * sd  # noqa: E731
    elif test == "log_normal":
        logs = [math.log(v) for v in history if v > 0]
        mu, sigma = statistics.fmean(logs), statistics.stdev(logs)
        out["baseline"] = math.exp(mu)
        if lo_b is not None:
            out["lower_limit"] = math.exp(mu - stats.norm.ppf(lo_b) * sigma)
        if up_b is not None:
            out["upper_limit"] = math.exp(mu + stats.norm.ppf(up_b) * sigma)
        return out
    else:  # iqr, delta_iqr
        values = history if test == "iqr" else [b / a - 1 for a, b in zip(history, history[1:]) if a]
        q1, median, q3 = statistics.quantiles(values, n=4, method="inclusive") if len(values) > 1 else [values[0]] * 3
        iqr = q3 - q1
        centre = statistics.median(history)
        out["baseline"] = centre
        if test == "iqr":
            if lo_b is not None:
                out["lower_limit"] = q1 - lo_b * iqr
            if up_b is not None:
                out["upper_limit"] = q3 + up_b * iqr
        else:
            if lo_b is not None:
                out["lower_limit"] = centre * (1 + q1 - lo_b * iqr)
            if up_b is not None:
                out["upper_limit"] = centre * (1 + q3 + up_b * iqr)
        return out
    if lo_b is not None:
        out["lower_limit"] = mean - spread(lo_b)
    if up_b is not None:
        out["upper_limit"] = mean + spread(up_b)
    return out
