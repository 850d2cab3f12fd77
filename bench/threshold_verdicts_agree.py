#!/usr/bin/env python3
"""Do the threshold verdicts that ``perfgate detect`` uses (``threshold_verdicts.verdicts``: the
compiled walk, or numpy's passes where it was not built) equal those judged one value at a time
(``evaluate_series``)?  Random series of four kinds — log-normal noise, integer counts with a few
levels, values drawn from a few levels (equal baselines), and steps with spikes (runs of alerts)
— each judged by eight tests, both ways; prints the number of series-test pairs that differ and
how long each way took; then each way's time on the case detect meets most, a 1,000-value series
of 2% noise (median of 20), under the default t-test and under log_normal with as long a baseline.

    .venv/bin/python bench/threshold_verdicts_agree.py                  # 3,000 series, 24,000 pairs
    .venv/bin/python bench/threshold_verdicts_agree.py --series 300
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from perfgate.detect import threshold_verdicts
from perfgate.detect.threshold_tests import evaluate_series
from perfgate.detect.threshold_verdicts import verdicts
from perfgate.thresholds import ThresholdTest

TESTS = [
    ThresholdTest("t_test", upper_boundary=0.99, min_sample_size=5, max_sample_size=64),
    ThresholdTest("t_test", lower_boundary=0.9, upper_boundary=0.95, max_sample_size=8),
    ThresholdTest("z_score", lower_boundary=0.975, upper_boundary=0.975, min_sample_size=2, max_sample_size=30),
    ThresholdTest("z_score", upper_boundary=0.6, max_sample_size=2),
    ThresholdTest("percentage", upper_boundary=0.005, max_sample_size=16),
    ThresholdTest("percentage", upper_boundary=0.1, min_sample_size=3, max_sample_size=16),
    ThresholdTest("percentage", lower_boundary=0.05, upper_boundary=0.05, min_sample_size=3, max_sample_size=3),
    ThresholdTest("log_normal", lower_boundary=0.95, upper_boundary=0.99, max_sample_size=20),
]


def series(rng: np.random.Generator, kind: int) -> np.ndarray:
    n = int(rng.integers(1, 700))
    if kind == 0:
        return 1e6 * np.exp(rng.uniform(0.001, 0.2) * rng.standard_normal(n))
    if kind == 1:
        return np.round(1e7 * (1 + 1e-5 * rng.integers(-3, 4, n)))
    if kind == 2:
        return rng.choice([3.3, 3.3, 3.31, 2.9], n) * 10 ** rng.uniform(-9, 9)
    v = 1e-6 * np.exp(0.05 * rng.standard_normal(n))
    v[n // 3:] *= 1.3
    v[rng.random(n) < 0.05] *= 3
    return v


# the compiled walk, and numpy's passes as where the walk was not built
WAYS = {"walk": threshold_verdicts._own_walk, "passes": lambda: None}


def timed(way: str, test: ThresholdTest, values: list[float]):
    """``verdicts(test, values)`` judged the ``way`` named, and the seconds it took."""
    threshold_verdicts._own_walk = WAYS[way]
    try:
        a = time.perf_counter()
        return verdicts(test, values), time.perf_counter() - a
    finally:
        threshold_verdicts._own_walk = WAYS["walk"]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--series", type=int, default=3000)
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args()
    if WAYS["walk"]() is None:
        print("(the compiled walk is not built here: both ways below are numpy's passes)")
    rng = np.random.default_rng(args.seed)
    differ = {"walk": 0, "passes": 0}
    spent = {"one": 0.0, "walk": 0.0, "passes": 0.0}
    pairs = values = 0
    for k in range(args.series):
        v = series(rng, k % 4).tolist()
        for test in TESTS:
            a = time.perf_counter()
            reference = evaluate_series(test, v)
            spent["one"] += time.perf_counter() - a
            want = [r.alert for r in reference]
            for way in WAYS:
                got, seconds = timed(way, test, v)
                spent[way] += seconds
                differ[way] += got.alerts != want or got.last != reference[-1]
            pairs += 1
            values += len(v)
    print(f"{pairs:,} series-test pairs ({values:,} values) differ: by the compiled walk {differ['walk']}, by "
          f"numpy's passes {differ['passes']}; one value at a time {spent['one']:.1f} s, the walk "
          f"{spent['walk']:.1f} s, the passes {spent['passes']:.1f} s")
    quiet = (1e6 * np.exp(0.02 * rng.standard_normal(1000))).tolist()
    log_normal = ThresholdTest("log_normal", upper_boundary=0.99, max_sample_size=64)   # its logarithms cost most
    for test in (TESTS[0], log_normal):
        took = {"one": [], "walk": [], "passes": []}
        for _ in range(20):
            a = time.perf_counter()
            evaluate_series(test, quiet)
            took["one"].append(time.perf_counter() - a)
            for way in WAYS:
                took[way].append(timed(way, test, quiet)[1])
        ms = {k: np.median(t) * 1e3 for k, t in took.items()}
        print(f"a 1,000-value series of 2% noise ({test.test} of {test.max_sample_size}): one value at a time "
              f"{ms['one']:.1f} ms, the walk {ms['walk']:.2f} ms, numpy's passes {ms['passes']:.2f} ms (median of 20)")


if __name__ == "__main__":
    main()
