#!/usr/bin/env python3
"""Synthetic scaling-benchmark data with a known truth — for tests and bench/complexity_eval.py.

This is *not* a harness: nothing here was measured.  Files it writes say "synthetic" in their
header.  Points are drawn like the seeds' benchmark driver draws them (values and objects uniform,
or log-uniform, over closed ranges); costs are a known function times multiplicative noise
``1 + σ·ε``, ε ~ N(0, 1) (unbiased, spread ∝ cost, as timings are).

    python bench/complexity_synth.py --truth "32*v*o + 486*o" --noise 0.1 --points 1000 > out.tsv
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

KNEE_AT = 2000.0


def points(rng: np.random.Generator, n: int, values: tuple[int, int] = (1, 200),
           objects: tuple[int, int] = (100, 50000), design: str = "linear") -> tuple[np.ndarray, np.ndarray]:
    v = rng.integers(values[0], values[1] + 1, n).astype(float)
    if design == "logarithmic":
        o = np.round(np.exp(rng.uniform(np.log(objects[0]), np.log(objects[1]), n)))
    else:
        o = rng.integers(objects[0], objects[1] + 1, n).astype(float)
    return v, o


def knee_cost(o: np.ndarray, per_object: float = 500.0, knee: float = KNEE_AT) -> np.ndarray:
    """Linear up to ``knee`` objects, then quadratic: ``500·o + 500·(o − k)₊² / k`` — the
    marginal cost doubles 500 objects past the knee (the seeds' async-deinit shape)."""
    return per_object * o + per_object * np.maximum(o - knee, 0.0) ** 2 / knee


def noisy(rng: np.random.Generator, mu: np.ndarray, sigma: float) -> np.ndarray:
    return mu * (1.0 + sigma * rng.standard_normal(len(mu)))


def tsv(name: str, args: str, v: np.ndarray, o: np.ndarray, schedule: np.ndarray, total: np.ndarray) -> str:
    lines = [f"# {name} {args}", "#", "# values objects schedule(ns) total(ns)"]
    lines += [f"{int(a)}\t{int(b)}\t{s:.0f}\t{t:.0f}" for a, b, s, t in zip(v, o, schedule, total)]
    return "\n".join(lines) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--truth", default="32*v*o + 486*o",
                    help="total cost as a Python expression in v, o (and knee(o)); default: %(default)s")
    ap.add_argument("--schedule-share", type=float, default=0.6, help="scheduling = this share of the total")
    ap.add_argument("--noise", type=float, default=0.1, help="multiplicative noise σ")
    ap.add_argument("--points", type=int, default=1000)
    ap.add_argument("--values", default="1:200")
    ap.add_argument("--objects", default="100:50000")
    ap.add_argument("--design", choices=("linear", "logarithmic"), default="linear")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--name", default="synthetic")
    a = ap.parse_args()
    rng = np.random.default_rng(a.seed)
    vr = tuple(int(x) for x in a.values.split(":"))
    orr = tuple(int(x) for x in a.objects.split(":"))
    v, o = points(rng, a.points, vr, orr, a.design)
    mu = eval(a.truth, {"__builtins__": {}}, {"v": v, "o": o, "knee": knee_cost, "np": np})  # trusted CLI input
    mu = np.broadcast_to(np.asarray(mu, dtype=float), v.shape)
    total = noisy(rng, mu, a.noise)
    schedule = noisy(rng, a.schedule_share * mu, a.noise)
    args = (f"--truth='{a.truth}' --noise={a.noise} --values={a.values} --objects={a.objects}:{a.design} "
            f"--points={a.points} --seed={a.seed} (synthetic data, not a measurement)")
    sys.stdout.write(tsv(a.name, args, v, o, schedule, total))
    return 0


if __name__ == "__main__":
    sys.exit(main())
