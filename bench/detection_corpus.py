"""A labelled corpus of performance-like series for judging change point detectors.

Each series is ``level · regime(t) · noise(t)``: piecewise-constant regimes (steps of ±1–40%,
log-uniform in size; some regressions fixed again a few to a hundred points later; a third of
the series have no change at all) times one of these noise kinds, each seen on real runners:

  gaussian       plain run-to-run jitter, CV 0.3–8%
  heavy_tail     log-normal body with a Pareto right tail (run time cannot be faster than the
                 work, but can be much slower)
  spikes         jitter plus single-run outliers 1.3–4× the level in 1–3% of runs
  bimodal        two modes 3–12% apart (e.g. code alignment, turbo states), mixed per run
  autocorrelated AR(1) machine-state noise, rho 0.3–0.8
  drift          jitter plus a slow drift of up to ±5% over the series (thermal, OS updates)
  deterministic  instruction counts: a constant, or a constant ± a few instructions

The label of a change is the index of the first point of the new regime.  ``noise_cv`` is the
marginal coefficient of variation of the noise (the yardstick for "effect relative to noise").

    python bench/detection_corpus.py --series 300 --seed 1 > corpus.json
"""

from __future__ import annotations

import argparse
import json
import sys

import numpy as np

KINDS = ("gaussian", "heavy_tail", "spikes", "bimodal", "autocorrelated", "drift", "deterministic")


def _noise(kind: str, n: int, rng: np.random.Generator) -> tuple[np.ndarray, float]:
    """Multiplicative noise (mean about 1) and its CV."""
    cv = float(np.exp(rng.uniform(np.log(0.003), np.log(0.08))))
    if kind == "gaussian":
        e = 1 + cv * rng.standard_normal(n)
    elif kind == "heavy_tail":
        body = rng.lognormal(0, cv * 0.7, n)
        tail = (rng.pareto(3.0, n) * cv * 0.5) * (rng.random(n) < 0.2)
        e = body + tail
    elif kind == "spikes":
        e = 1 + cv * rng.standard_normal(n)
        hits = rng.random(n) < rng.uniform(0.01, 0.03)
        e[hits] *= rng.uniform(1.3, 4.0, hits.sum())
    elif kind == "bimodal":
        gap = rng.uniform(0.03, 0.12)
        share = rng.uniform(0.1, 0.5)
        e = 1 + cv * 0.5 * rng.standard_normal(n) + gap * (rng.random(n) < share)
    elif kind == "autocorrelated":
        rho = rng.uniform(0.3, 0.8)
        shocks = cv * np.sqrt(1 - rho ** 2) * rng.standard_normal(n)
        e = np.empty(n)
        prev = cv * rng.standard_normal()
        for i in range(n):
            prev = rho * prev + shocks[i]
            e[i] = prev
        e = 1 + e
    elif kind == "drift":
        total = rng.uniform(-0.05, 0.05)
        shape = np.linspace(0, 1, n) if rng.random() < 0.5 else np.sin(np.linspace(0, np.pi, n))
        e = (1 + cv * rng.standard_normal(n)) * (1 + total * shape)
    elif kind == "deterministic":
        if rng.random() < 0.5:
            return np.ones(n), 0.0
        wobble = rng.integers(-3, 4, n) / 1e6    # a few instructions in a million
        return 1 + wobble, float(np.std(wobble))
    else:
        raise ValueError(kind)
    return e, float(np.std(e) / np.mean(e))


def _regimes(n: int, rng: np.random.Generator) -> tuple[np.ndarray, list[int], list[float]]:
    level = np.ones(n)
    if rng.random() < 1 / 3:
        return level, [], []
    cps: list[int] = []
    steps: list[float] = []
    wanted = int(rng.integers(1, 4))
    margin = 20
    for _ in range(wanted * 4):
        if len(cps) >= wanted:
            break
        t = int(rng.integers(margin, n - margin))
        if any(abs(t - c) < 30 for c in cps):
            continue
        size = float(np.exp(rng.uniform(np.log(0.01), np.log(0.40)))) * rng.choice([-1, 1])
        fixed_after = int(rng.integers(5, 100)) if rng.random() < 0.3 else None
        if fixed_after and (t + fixed_after >= n - margin or any(abs(t + fixed_after - c) < 30 for c in cps)):
            fixed_after = None
        cps.append(t)
        steps.append(size)
        if fixed_after:
            cps.append(t + fixed_after)
            steps.append(-size / (1 + size))   # back to the old level
    order = np.argsort(cps)
    cps = [cps[i] for i in order]
    steps = [steps[i] for i in order]
    for t, s in zip(cps, steps):
        level[t:] *= 1 + s
    return level, cps, steps


def generate(count: int, seed: int, length: tuple[int, int] = (150, 600)) -> list[dict]:
    rng = np.random.default_rng(seed)
    out = []
    for i in range(count):
        kind = KINDS[i % len(KINDS)]
        n = int(rng.integers(*length))
        base = float(10 ** rng.uniform(3, 8))
        regime, cps, steps = _regimes(n, rng)
        noise, cv = _noise(kind, n, rng)
        values = base * regime * noise
        if kind == "deterministic":
            values = np.round(values)
        out.append({"kind": kind, "noise_cv": cv, "change_points": cps, "steps": steps,
                    "values": [float(v) for v in values]})
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--series", type=int, default=350)
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args()
    json.dump(generate(args.series, args.seed), sys.stdout)


if __name__ == "__main__":
    main()
