#!/usr/bin/env python3
"""How often a change point's location range holds the run where the change began, as an alert
reader meets it: the range is "the commits it could be", nominally 95%.

Each series has 60 quiet runs, then a step of 1, 1.5, 2, 3 or 5 times its noise (log-normal,
``--cv``, AR(1) with ``--phi``) and 60 more runs.  The detector analyses it at every length from
60 to 120 runs, as ``perfgate detect`` does after each new run.  A change found within 15 runs of
the step is the step found; printed per step size, for the first analysis that found it (when its
alert is raised) and for the last (60 runs after the step):

* how often its range holds the step's first run, and the range's median width in runs;
* the same for its likeliest runs alone (``likeliest_low..likeliest_high``: those within the
  chi-square 3.84 of the best split, next to it; the range perfgate reported before it was
  calibrated, and where sibling series look for the change).

As in the second figure of ``bench/evaluate_detection.py`` (its first counts only the detections
within 5 runs of a true change), a change found 6-15 runs off counts too: its range is what the
reader sees.

    .venv/bin/python bench/location_coverage.py                # 400 series a step size, about 1 minute
    .venv/bin/python bench/location_coverage.py --phi 0.5
"""

from __future__ import annotations

import argparse
import os
import statistics
from concurrent.futures import ProcessPoolExecutor

import numpy as np

from ar1_noise import ar1_noise
from perfgate.detect.changepoint import ChangePointDetector

STEPS = (1.0, 1.5, 2.0, 3.0, 5.0)    # in noise units
AT, LENGTH, NEAR = 60, 120, 15


def series(seed: int, step: float, cv: float, phi: float) -> np.ndarray:
    e = ar1_noise(np.random.default_rng(seed), LENGTH, cv, phi)
    return 1e6 * np.where(np.arange(LENGTH) >= AT, np.exp(step * cv), 1.0) * np.exp(e)


def sightings(job: tuple[int, float, float, float]) -> list[tuple[int, tuple[int, int], tuple[int, int]]]:
    """``(length, range, likeliest runs)`` of the change found near the step, at each length."""
    y = series(*job)
    out = []
    for n in range(AT, LENGTH + 1):
        near = [c for c in ChangePointDetector().fit(y[:n]).predict() if abs(c.index - AT) <= NEAR]
        if near:
            c = near[0]
            out.append((n, (c.index_low, c.index_high), (c.likeliest_low, c.likeliest_high)))
    return out


def held(ranges: list[tuple[int, int]]) -> str:
    if not ranges:
        return "—"
    share = sum(a <= AT <= b for a, b in ranges) / len(ranges)
    return f"{share:.2f} (width {statistics.median(b - a + 1 for a, b in ranges):g})"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--series", type=int, default=400, help="series a step size (default: %(default)s)")
    p.add_argument("--cv", type=float, default=0.05)
    p.add_argument("--phi", type=float, default=0.0, help="the noise's lag-1 autocorrelation")
    p.add_argument("--seed", type=int, default=3000, help="first series' seed (default: %(default)s)")
    args = p.parse_args()
    print(f"{args.series} series a step size, step at run {AT} of {LENGTH}, noise CV {args.cv:.0%}, "
          f"lag-1 autocorrelation {args.phi}; range: share holding the step's first run (median width)")
    print(f"{'step (x noise)':>14}  {'found':>9}  {'first alert: range':>20}  {'likeliest runs':>16}  "
          f"{'runs after':>10}  {'60 runs after: range':>20}  {'likeliest runs':>16}")
    with ProcessPoolExecutor(min(2, os.cpu_count() or 1)) as pool:
        for step in STEPS:
            jobs = [(args.seed + k, step, args.cv, args.phi) for k in range(args.series)]
            found = [s for s in pool.map(sightings, jobs, chunksize=8) if s]
            first = [s[0] for s in found]
            last = [s[-1] for s in found if s[-1][0] == LENGTH]
            after = statistics.median(f[0] - AT for f in first) if first else "—"
            print(f"{step:>14g}  {len(found):>4}/{args.series:<4}  {held([f[1] for f in first]):>20}  "
                  f"{held([f[2] for f in first]):>16}  {after:>10}  "
                  f"{held([f[1] for f in last]):>20}  {held([f[2] for f in last]):>16}")


if __name__ == "__main__":
    main()
