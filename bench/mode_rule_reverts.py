#!/usr/bin/env python3
"""What the mode rule costs: true regressions reverted a few runs later, in noise with no second
mode, that it takes for a mode's visit.

A regression reverted after a few runs is an excursion, like a stay in a sticky second mode, and
the mode rule (``src/perfgate/detect/modes.py``) drops it when the runs beside it visit its level
clearly more often than the other side (one-sided binomial test at ``MODE_P``).  In unimodal noise
that happens only by chance.  Each case here is a quiet series of 300 runs with noise of CV 5% —
Gaussian, log-normal (right-skewed) or Student's t with 3 degrees of freedom (heavy tails) — that
regresses by ``--step`` noise deviations at run 140 and reverts 6–28 runs later; a case is kept
when both changes are found within 2 runs.  Printed for each noise and each binomial level: the
cases kept, and of those found at 0.001, how many the level drops as a mode's visit.

    .venv/bin/python bench/mode_rule_reverts.py               # 300 cases per noise, about 40 s
    .venv/bin/python bench/mode_rule_reverts.py --step 2 --cases 500
"""

from __future__ import annotations

import argparse

import numpy as np
from evaluate_detection import PERFGATE_SETTINGS

from perfgate.detect import modes
from perfgate.detect.changepoint import detect_change_points
from perfgate.parallel import default_workers, map_in_processes

NOISES = ("gauss", "lognorm", "t3")
LEVELS = (0.001, 0.01)
CV = 0.05
START = 140


def case(noise: str, seed: int, step: float) -> tuple[np.ndarray, int]:
    """One series and the length of its excursion."""
    rng = np.random.default_rng(seed)
    n = 300
    if noise == "lognorm":
        s2 = np.log1p(CV * CV)
        e = np.exp(np.sqrt(s2) * rng.standard_normal(n) - s2 / 2)
    elif noise == "t3":
        e = 1 + CV * rng.standard_t(3, n) / np.sqrt(3)     # t(3) has variance 3
    else:
        e = 1 + CV * rng.standard_normal(n)
    x = 100 * e
    length = int(rng.integers(6, 29))
    x[START:START + length] *= 1 + step * CV
    return x, length


def kept(job: tuple[str, int, float]) -> tuple[str, list[bool]]:
    """Whether the regression and its revert are both found, at each binomial level."""
    noise, seed, step = job
    x, length = case(noise, seed, step)
    out, level_now = [], modes.MODE_P
    try:
        for level in LEVELS:
            modes.MODE_P = level
            found = [c.index for c in detect_change_points(x, PERFGATE_SETTINGS)]
            out.append(any(abs(t - START) <= 2 for t in found) and any(abs(t - START - length) <= 2 for t in found))
    finally:
        modes.MODE_P = level_now
    return noise, out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--cases", type=int, default=300)
    p.add_argument("--step", type=float, default=3.0, help="the regression, in noise deviations")
    p.add_argument("--jobs", type=int, default=default_workers())
    args = p.parse_args()
    jobs = [(noise, seed, args.step) for noise in NOISES for seed in range(args.cases)]
    results = map_in_processes(kept, jobs, args.jobs)
    print(f"regressions of {args.step:g} noise deviations reverted after 6-28 runs, {args.cases} cases per noise")
    print("| noise | " + " | ".join(f"kept at MODE_P {level:g}" for level in LEVELS) + " | dropped as a mode's visit |")
    print("| --- |" + " --- |" * (len(LEVELS) + 1))
    for noise in NOISES:
        rows = [r for n, r in results if n == noise]
        counts = [sum(r[i] for r in rows) for i in range(len(LEVELS))]
        dropped = sum(r[0] and not r[-1] for r in rows)
        print(f"| {noise} | " + " | ".join(str(c) for c in counts) + f" | {dropped} of {counts[0]} |")


if __name__ == "__main__":
    main()
