#!/usr/bin/env python3
"""What testing a series where its siblings changed costs a drifting benchmark, and buys a quiet one.

``perfgate detect`` tests each series again where another series of its branch and testbed changed
(``ChangePointDetector.corroborate``).  There a step needs to stand out from a smooth trend through
its two windows (the drift guard) by a lower bar when the regime about the place shows no trend.
The suite corpus (``bench/detection_corpus_suites.py``) has no drifting benchmark, so it cannot
show what that costs; this does.  Each case is a suite of six series of 120-400 runs, 3% noise:
five siblings step up by three noise deviations at one commit, and the sixth is

* ``drift-*``: drifting through the whole series, by ``--drift`` noise deviations in all
  (default 1-4, a drift too slow to see run to run; ``3,15`` for a plain one), in one of four
  shapes — linear, accelerating (quadratic), a slow S-curve centred on the siblings' commit, or a
  ramp over half the series through it — with no step of its own: a step found at the siblings'
  commit is false;
* ``quiet``: no change at all (a step found there is false);
* ``weak step``: stepping up at that commit by 1-2 noise deviations, no drift (found there: true).

Its noise is AR(1) with phi 0, 0.3 or 0.6 (unit variance), case by case.  Printed for each kind:
the cases, how many changes the series shows alone, and how many steps the siblings' places add
in it within 5 runs of their commit.  Deterministic (seed per case).

    .venv/bin/python bench/sibling_drift.py                 # 200 cases per kind, about 15 s
    .venv/bin/python bench/sibling_drift.py --drift 3,15
"""

from __future__ import annotations

import argparse

import numpy as np
from evaluate_detection import PERFGATE_SETTINGS
from evaluate_suites import with_siblings

from perfgate.detect.changepoint import ChangePointDetector
from perfgate.parallel import default_workers, map_in_processes

CV = 0.03
KINDS = ("drift-linear", "drift-accelerating", "drift-S-curve", "drift-half-ramp", "quiet", "weak step")


def suite(kind: str, seed: int, low: float, high: float) -> tuple[list[np.ndarray], np.ndarray, int]:
    """The six series of one case, the sixth's level (its drift or step, relative) and the
    siblings' commit."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(120, 401))
    at = int(rng.integers(40, n - 40))
    series = []
    for _ in range(5):
        v = 1 + CV * rng.standard_normal(n)
        v[at:] *= 1 + 3 * CV
        series.append(v)
    u = np.arange(n) / n
    total = float(rng.uniform(low, high)) * CV
    level = {"drift-linear": total * u, "drift-accelerating": total * u * u,
             "drift-S-curve": total / (1 + np.exp(-(u - at / n) * 12)),
             "drift-half-ramp": total * np.clip((u - at / n + 0.25) / 0.5, 0, 1)}.get(kind, np.zeros(n))
    if kind == "weak step":
        level = np.where(np.arange(n) >= at, float(rng.uniform(1, 2)) * CV, 0.0)
    phi = (0.0, 0.3, 0.6)[seed % 3]
    e = np.empty(n)
    e[0] = rng.standard_normal()
    for i in range(1, n):
        e[i] = phi * e[i - 1] + np.sqrt(1 - phi * phi) * rng.standard_normal()
    series.append((1 + level) * (1 + CV * e))
    return series, level, at


def case(job: tuple[str, int, float, float]) -> tuple[int, int]:
    """(changes the sixth series shows alone, steps the siblings' places add there near their commit)."""
    series, _, at = suite(*job)
    detectors = [ChangePointDetector(PERFGATE_SETTINGS).fit(s) for s in series]
    alone = [d.predict() for d in detectors]
    _, _, added = with_siblings(detectors, alone)[-1]
    return len(alone[-1]), sum(1 for i in added if abs(i - at) <= 5)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--cases", type=int, default=200, help="cases per kind")
    p.add_argument("--drift", default="1,4", help="a drift's whole rise, in noise deviations: LOW,HIGH")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()
    low, high = map(float, args.drift.split(","))
    jobs = [(kind, args.seed + k * 100_000 + i, low, high) for k, kind in enumerate(KINDS) for i in range(args.cases)]
    results = map_in_processes(case, jobs, default_workers())
    print(f"{'sixth series':<20} {'cases':>6} {'own changes':>12} {'added at the siblings commit':>29}")
    for k, kind in enumerate(KINDS):
        rows = results[k * args.cases:(k + 1) * args.cases]
        print(f"{kind:<20} {len(rows):>6} {sum(r[0] for r in rows):>12} {sum(r[1] for r in rows):>29}")


if __name__ == "__main__":
    main()
