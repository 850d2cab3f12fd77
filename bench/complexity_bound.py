#!/usr/bin/env python3
"""The best any unbiased fit can do on issue 5's synthetic design (Cramér–Rao bound).

T = a⋅v⋅o + b⋅o with multiplicative noise σ: T = o⋅(a⋅v + b)⋅(1 + ε).  The objects factor out,
so the Fisher information of (a, b) from n points is (1/σ²) Σ [v², v; v, 1] / (a⋅v + b)².  Its
inverse bounds the coefficients' variances; the chance that both land within 5% follows.  This
tells how close ``bench/complexity_eval.py``'s figures are to the possible.

    .venv/bin/python bench/complexity_bound.py
"""

from __future__ import annotations

import argparse

import numpy as np
from scipy.stats import multivariate_normal

A, B, N, TRIALS = 32.0, 486.0, 1000, 200


def main() -> None:
    argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter).parse_args()
    rng = np.random.default_rng(20261121)
    for sigma in (0.05, 0.10, 0.20):
        chances, se = [], None
        for _ in range(TRIALS):
            v = rng.integers(1, 201, N).astype(float)
            x = np.stack([v, np.ones_like(v)], axis=1) / ((A * v + B) * sigma)[:, None]
            cov = np.linalg.inv(x.T @ x) / np.array([[A * A, A * B], [A * B, B * B]])  # relative
            se = np.sqrt(np.diag(cov))
            box = multivariate_normal(mean=[0, 0], cov=cov)
            lo, hi = -0.05, 0.05
            chances.append(box.cdf([hi, hi]) - box.cdf([lo, hi]) - box.cdf([hi, lo]) + box.cdf([lo, lo]))
        print(f"noise {sigma:.0%}: best possible standard error a {se[0]:.2%}, b {se[1]:.2%}; "
              f"both within 5% in at most {np.mean(chances):.1%} of trials")


if __name__ == "__main__":
    main()
