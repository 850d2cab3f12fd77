#!/usr/bin/env python3
"""How well does ``perfgate fit`` recover known cost models?  Synthetic data with known truth.

Runs exactly the analysis ``perfgate fit`` runs (automatic term choice among vo2,vo,v,o2,o,1 by
BIC, relative weighting, Huber-robust; knee search in objects) on many independent datasets and
prints, for each scenario, how often the answer is right:

1. Recovery — T = 32⋅v⋅o + 486⋅o, v uniform in 1..200, o uniform in 100..50,000, 1,000 points,
   multiplicative noise σ ∈ {5%, 10%, 20%}: share of trials with both coefficients within 5% of
   the truth, share choosing exactly {v⋅o, o}, coverage of the 95% intervals.  For contrast, the
   seeds' method (plain least squares on all six terms) on the same data.
2. Knee — T = 500⋅o + 500⋅(o − 2,000)₊²/2,000 (linear, then quadratic above 2,000 objects), 10%
   noise: share of trials finding a knee within ±10% of 2,000, and coverage of its interval; for
   objects drawn uniformly (the seeds' default) and log-uniformly (the driver's ``logarithmic``).
3. No knee — purely linear costs (500⋅o; 32⋅v⋅o + 486⋅o), 10% noise: share reporting no knee.

    python bench/complexity_eval.py            # 200 trials per scenario, a few minutes on 2 cores
    python bench/complexity_eval.py --trials 50
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from complexity_synth import KNEE_AT, knee_cost, noisy, points  # noqa: E402

from perfgate.complexity.analysis import analyse  # noqa: E402
from perfgate.complexity.regression import fit_terms  # noqa: E402
from perfgate.complexity.terms import DEFAULT_SPEC, parse_terms  # noqa: E402

N = 1000
TRUTH = {"vo": 32.0, "o": 486.0}


def recovery(rng: np.random.Generator, sigma: float, trials: int) -> dict:
    candidates = parse_terms(DEFAULT_SPEC)
    true_set = {"vo", "o"}
    within = chosen = covered = covered_n = ols_within = 0
    errors = []
    for _ in range(trials):
        v, o = points(rng, N)
        y = noisy(rng, TRUTH["vo"] * v * o + TRUTH["o"] * o, sigma)
        fit = analyse(candidates, {"v": v, "o": o}, y).fit
        got = {t.spec: (c, lo, hi) for t, c, lo, hi in zip(fit.terms, fit.coef, fit.ci_low, fit.ci_high)}
        rel = [abs(got.get(k, (0.0,))[0] / TRUTH[k] - 1) for k in TRUTH]
        errors.append(max(rel))
        within += max(rel) <= 0.05
        if set(got) == true_set:
            chosen += 1
            for k, truth in TRUTH.items():
                covered += got[k][1] <= truth <= got[k][2]
                covered_n += 1
        ols = fit_terms(candidates, {"v": v, "o": o}, y, weighting="none", robust=False)
        ols_got = {t.spec: c for t, c in zip(ols.terms, ols.coef)}
        ols_within += max(abs(ols_got[k] / TRUTH[k] - 1) for k in TRUTH) <= 0.05
    return {"sigma": sigma, "within_5pct": within / trials, "true_terms": chosen / trials,
            "ci_coverage": covered / covered_n if covered_n else float("nan"),
            "median_max_rel_error": float(np.median(errors)), "seeds_ols_within_5pct": ols_within / trials}


def knee_trials(rng: np.random.Generator, sigma: float, trials: int, design: str) -> dict:
    candidates = parse_terms("o2,o,1")
    hits = found = covered = 0
    for _ in range(trials):
        _, o = points(rng, N, design=design)
        y = noisy(rng, knee_cost(o), sigma)
        knee = analyse(candidates, {"o": o}, y, knee="o").knee
        if knee.found:
            found += 1
            hits += abs(knee.location / KNEE_AT - 1) <= 0.10
            covered += knee.low <= KNEE_AT <= knee.high
    return {"design": design, "found": found / trials, "within_10pct": hits / trials,
            "interval_coverage": covered / found if found else float("nan")}


def no_knee_trials(rng: np.random.Generator, sigma: float, trials: int, truth: str) -> dict:
    false_knees = 0
    for _ in range(trials):
        v, o = points(rng, N)
        if truth == "500⋅o":
            params, mu, spec = {"o": o}, 500.0 * o, "o2,o,1"
        else:
            params, mu, spec = {"v": v, "o": o}, TRUTH["vo"] * v * o + TRUTH["o"] * o, DEFAULT_SPEC
        knee = analyse(parse_terms(spec), params, noisy(rng, mu, sigma), knee="o").knee
        false_knees += knee.found
    return {"truth": truth, "no_knee": 1 - false_knees / trials}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--trials", type=int, default=200)
    ap.add_argument("--seed", type=int, default=20261121)
    a = ap.parse_args()
    rng = np.random.default_rng(a.seed)
    start = time.perf_counter()
    print(f"perfgate fit on synthetic data: {N} points per trial, {a.trials} trials per scenario, seed {a.seed}")
    print("\n1. T = 32⋅v⋅o + 486⋅o, v ∈ 1..200, o ∈ 100..50,000 (uniform), candidates vo2,vo,v,o2,o,1")
    print(f"   {'noise':>6} {'both coefs ±5%':>15} {'true terms':>11} {'95% CI cover':>13} {'median err':>11}"
          f" {'seeds OLS ±5%':>14}")
    for sigma in (0.05, 0.10, 0.20):
        r = recovery(rng, sigma, a.trials)
        print(f"   {sigma:>6.0%} {r['within_5pct']:>15.1%} {r['true_terms']:>11.1%} {r['ci_coverage']:>13.1%}"
              f" {r['median_max_rel_error']:>11.2%} {r['seeds_ols_within_5pct']:>14.1%}")
    print("\n2. T = 500⋅o + 500⋅(o − 2,000)₊²/2,000 (linear, quadratic above 2,000), 10% noise")
    print(f"   {'objects drawn':>14} {'knee found':>11} {'within ±10%':>12} {'interval covers':>16}")
    for design in ("linear", "logarithmic"):
        r = knee_trials(rng, 0.10, a.trials, design)
        print(f"   {design:>14} {r['found']:>11.1%} {r['within_10pct']:>12.1%} {r['interval_coverage']:>16.1%}")
    print("\n3. Purely linear cost, 10% noise, o uniform in 100..50,000")
    print(f"   {'truth':>16} {'no knee':>8}")
    for truth in ("500⋅o", "32⋅v⋅o + 486⋅o"):
        r = no_knee_trials(rng, 0.10, a.trials, truth)
        print(f"   {truth:>16} {r['no_knee']:>8.1%}")
    print(f"\n({time.perf_counter() - start:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
