#!/usr/bin/env python3
"""Change points of a growing series, analysed after every new run as ``perfgate detect`` does
in CI: how many quiet series get a false change at one of those analyses, and what alerting
only on stronger changes would cost.

Each series has 120 runs of log-normal noise (``--cv``) with a lag-1 autocorrelation of each
``--phi``; with ``--step`` it changes by that many times its noise at run 60.  The detector runs
at every length from 60 to 120.  Printed per noise and step: the series where a change was found
at some length (quiet: a false one; stepped: the step, within 15 runs of it, and how many runs
after it it was first found), for the detector's own level and for an alert raised only at a
p-value at most 1e-3 or 1e-4; stepped series also count those with a change elsewhere; quiet
ones, the variance inflation the detector estimated, at every analysis and where it found a false
change, against the noise's true ``(1 + phi) / (1 - phi)``.  Last,
how autocorrelated real wall time is on this machine: the lag-1 autocorrelation of each series
of ``tests/fixtures/history/tree-alloc.json`` (its noisy and its quiet stretch).

    .venv/bin/python bench/online_false_changes.py                 # 300 series each, about 1.5 minutes
    .venv/bin/python bench/online_false_changes.py --phi 0 --step 0 1 2
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
from concurrent.futures import ProcessPoolExecutor

from pathlib import Path

import numpy as np
from location_coverage import AT, LENGTH, NEAR, series

from perfgate.detect.changepoint import ChangePointDetector

LEVELS = (None, 1e-3, 1e-4)      # None: the detector's own
REAL = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "history" / "tree-alloc.json"


def analyses(job: tuple[int, float, float, float]) -> tuple[list[list[tuple[int, float]]], list[float]]:
    """``(index, p-value)`` of every change found at each length from AT to LENGTH, and the
    variance inflation the detector estimated there."""
    y = series(*job)
    found, inflation = [], []
    for n in range(AT, LENGTH + 1):
        detector = ChangePointDetector().fit(y[:n])
        found.append([(c.index, c.p_value) for c in detector.predict()])
        inflation.append(detector.inflation_)
    return found, inflation


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--series", type=int, default=300)
    p.add_argument("--cv", type=float, default=0.05)
    p.add_argument("--phi", type=float, nargs="+", default=[0.0, 0.5])
    p.add_argument("--step", type=float, nargs="+", default=[0.0, 2.0], help="in noise units; 0: quiet")
    p.add_argument("--seed", type=int, default=3000)
    args = p.parse_args()
    print(f"{args.series} series of {LENGTH} runs, analysed at every length from {AT}; noise CV {args.cv:.0%}")
    with ProcessPoolExecutor(min(2, os.cpu_count() or 1)) as pool:
        for phi in args.phi:
            for step in args.step:
                jobs = [(args.seed + k, step, args.cv, phi) for k in range(args.series)]
                runs, inflations = zip(*pool.map(analyses, jobs, chunksize=8))
                if step == 0:
                    every = [v for r in inflations for v in r]
                    at_false = [v for r, inf in zip(runs, inflations) for f, v in zip(r, inf) if f]
                    print(f"lag-1 {phi}, quiet: variance inflation estimated, median {statistics.median(every):.2f}"
                          f" (true {(1 + phi) / (1 - phi):.2f}); where a false change was found "
                          + (f"{min(at_false):.2f}-{max(at_false):.2f}, median {statistics.median(at_false):.2f}"
                             if at_false else "—"))
                for level in LEVELS:
                    kept = [[[(i, q) for i, q in found if level is None or q <= level] for found in r] for r in runs]
                    name = f"lag-1 {phi}, {'quiet' if step == 0 else f'step {step:g}x'}, " \
                           f"{'detector' if level is None else f'alert at p <= {level:g}'}"
                    if step == 0:
                        hit = sum(any(r) for r in kept)
                        print(f"{name:48} false change at some length: {hit}/{args.series}")
                        continue
                    firsts = [next((n for n, found in enumerate(r) if any(abs(i - AT) <= NEAR for i, _ in found)), None)
                              for r in kept]
                    found = [n for n in firsts if n is not None]
                    elsewhere = sum(any(abs(i - AT) > NEAR for f in r for i, _ in f) for r in kept)
                    print(f"{name:48} step found: {len(found)}/{args.series}, median "
                          f"{statistics.median(found) if found else '—'} runs after; "
                          f"a change elsewhere: {elsewhere}")
    real = json.loads(REAL.read_text(encoding="utf-8"))
    noisy = real["noisy_runs"]
    rhos = {"noisy": [], "quiet": []}
    for s in real["series"]:
        v = np.log(np.asarray(s["values"], dtype=float))
        for name, part in (("noisy", v[:noisy]), ("quiet", v[noisy:])):
            r = part - part.mean()
            rhos[name].append(float(r[1:] @ r[:-1] / (r @ r)))
    print(f"real wall time ({REAL.name}, {len(real['series'])} series): lag-1 autocorrelation "
          + "; ".join(f"{k} stretch {min(v):.2f} to {max(v):.2f}, median {statistics.median(v):.2f}"
                      for k, v in rhos.items()))


if __name__ == "__main__":
    main()
