#!/usr/bin/env python3
"""A third labelled corpus, held out: written apart from ``detection_corpus.py`` and
``detection_corpus_independent.py`` and its seed fixed before the detector was changed, so the
detector is never tuned on it.  Its noise is what the first two lack:

  regime_noise   the noise level changes along the series (CV × 0.25–4 per stretch)
  quiet_after    a noisy first stretch (CV 4–10%) then a quiet one (CV 0.3–1%)
  switching      bimodal, two modes 2–8% apart whose mixing rate switches along the series
  student_t      heavy two-sided tails (Student t, 2.5 degrees of freedom)
  lognormal      plain log-normal jitter

Lengths are 60, 200 or 400 points; steps are 1–3× or 3–10× the local noise (drawn equally), a
third of the regressions are fixed again 15–60 points later, a quarter of the series have no
change.  ``noise_cv`` is the noise CV where the step happens (the local yardstick), so recall by
effect size is measured against the noise a step must stand out from.

    .venv/bin/python bench/detection_corpus_heldout.py > /tmp/heldout.json
    .venv/bin/python bench/evaluate_detection.py --corpus /tmp/heldout.json --only perfgate
"""

from __future__ import annotations


import numpy as np

from corpus_cli import write_corpus

SEED = 16016        # fixed before the detector was changed (issue 16)
KINDS = ("regime_noise", "quiet_after", "switching", "student_t", "lognormal")
LENGTHS = (60, 200, 400)


def _cv_profile(kind: str, n: int, rng: np.random.Generator) -> np.ndarray:
    """Noise CV at each point."""
    if kind == "quiet_after":
        cut = int(rng.uniform(0.3, 0.6) * n)
        return np.where(np.arange(n) < cut, rng.uniform(0.04, 0.10), rng.uniform(0.003, 0.01))
    base = float(np.exp(rng.uniform(np.log(0.005), np.log(0.05))))
    if kind != "regime_noise":
        return np.full(n, base)
    cv = np.empty(n)
    edges = np.sort(rng.choice(np.arange(10, n - 10), size=int(rng.integers(1, 4)), replace=False))
    for a, b in zip([0, *edges], [*edges, n]):
        cv[a:b] = base * float(np.exp(rng.uniform(np.log(0.25), np.log(4.0))))
    return cv


def _noise(kind: str, cv: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Multiplicative noise with about the given CV per point."""
    n = cv.size
    if kind == "student_t":
        t = rng.standard_t(2.5, n) / np.sqrt(2.5 / 0.5)        # unit variance
        return np.maximum(1 + cv * t, 0.2)
    if kind == "switching":
        gap = rng.uniform(0.02, 0.08)
        rates = np.empty(n)
        cut = int(rng.uniform(0.2, 0.8) * n)
        rates[:cut], rates[cut:] = rng.uniform(0.05, 0.5), rng.uniform(0.05, 0.5)
        high = rng.random(n) < rates
        return (1 + cv * 0.4 * rng.standard_normal(n)) * (1 + gap * high)
    return np.exp(cv * rng.standard_normal(n))                  # lognormal, regime_noise, quiet_after


def _marginal_cv(kind: str, cv: float, rng: np.random.Generator) -> float:
    """The CV of the noise at one level, for steps sized against it (bimodal: the mixture's)."""
    return float(np.std(_noise(kind, np.full(4000, cv), rng)))


def generate(count: int, seed: int = SEED) -> list[dict]:
    rng = np.random.default_rng(seed)
    out = []
    for i in range(count):
        kind = KINDS[i % len(KINDS)]
        n = int(LENGTHS[(i // len(KINDS)) % len(LENGTHS)])
        cv = _cv_profile(kind, n, rng)
        level = np.ones(n)
        cps: list[int] = []
        steps: list[float] = []
        local: list[float] = []
        if rng.random() >= 0.25:
            wanted = 1 if n == 60 else int(rng.integers(1, 4))
            for _ in range(wanted * 5):
                if len(cps) >= wanted:
                    break
                t = int(rng.integers(12, n - 12))
                if any(abs(t - c) < 25 for c in cps):
                    continue
                noise_here = _marginal_cv(kind, float(cv[t]), rng)
                ratio = rng.uniform(1, 3) if rng.random() < 0.5 else rng.uniform(3, 10)
                size = float(ratio * noise_here * rng.choice([-1, 1]))
                size = max(size, -0.6)
                cps.append(t)
                steps.append(size)
                local.append(noise_here)
                back = t + int(rng.integers(15, 61))
                if rng.random() < 1 / 3 and back < n - 12 and all(abs(back - c) >= 25 for c in cps):
                    cps.append(back)
                    steps.append(-size / (1 + size))
                    local.append(_marginal_cv(kind, float(cv[back]), rng))
        order = np.argsort(cps)
        cps = [int(cps[j]) for j in order]
        steps = [steps[j] for j in order]
        local = [local[j] for j in order]
        for t, s in zip(cps, steps):
            level[t:] *= 1 + s
        values = float(10 ** rng.uniform(2, 7)) * level * _noise(kind, cv, rng)
        # effect sizes per step against the local noise: evaluate_detection reads one noise_cv per
        # series, so each step's ratio is stored as step / noise_cv with noise_cv the first's
        # local noise and the steps rescaled to keep every step's own ratio
        ref = local[0] if local else float(np.median(cv))
        out.append({"kind": kind, "length": n, "noise_cv": ref,
                    "steps": [s / lc * ref for s, lc in zip(steps, local)],
                    "relative_steps": steps, "change_points": cps, "values": [float(v) for v in values]})
    return out


if __name__ == "__main__":
    write_corpus(generate, __doc__, SEED)
