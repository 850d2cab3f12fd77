"""Summaries shared by adapters whose harness leaves the statistics to us (go test, Google
Benchmark without aggregates).  Kept consistent with the hyperfine adapter:

    value = mean(x),  lower = mean - s,  upper = mean + s,
    s = sqrt( sum (x_i - mean)^2 / (n - 1) )      (sample standard deviation)

With one sample there is no spread to report, so lower and upper stay None.  For a cost
(``nonnegative``) the lower bound is clamped at 0, as a negative time is meaningless.
"""

from __future__ import annotations

import math
from typing import Sequence


def mean_bounds(samples: Sequence[float], *, nonnegative: bool = True) -> tuple[float, float | None, float | None]:
    n = len(samples)
    if n == 0:
        raise ValueError("mean_bounds needs at least one sample")
    # Work on x / max|x| so that squaring huge (but finite) numbers cannot overflow.
    scale = max(abs(x) for x in samples) or 1.0
    unit = [x / scale for x in samples]
    m = math.fsum(unit) / n
    mean = m * scale
    if n == 1:
        return mean, None, None
    s = math.sqrt(math.fsum((x - m) ** 2 for x in unit) / (n - 1)) * scale
    lower = mean - s
    return mean, max(lower, 0.0) if nonnegative else lower, mean + s
