#!/usr/bin/env python3
"""A labelled corpus whose runs carry their raw samples, to judge whether the within-run spread
helps the change point detector (seed fixed before the detector read samples).

Each point is one CI run of a wall-time benchmark: ``k`` (5–20) timed samples whose mean is the
point's value.  Between runs the level wanders (CV 0.5–5%); within a run the samples scatter
(CV 1–10%).  What the series of means alone cannot tell apart:

  bursts      a noisy neighbour for a while: stretches of 3–12 consecutive runs whose samples
              scatter 4–10× wider and whose mean is pulled 1–4× the between-run noise upwards
              (contention slows some samples a lot), 1–3 stretches per series
  clean       no disturbed runs

Steps are 1–3× or 3–10× the between-run noise (drawn equally), a third of the series have no
change, lengths 60–400 points.  ``noise_cv`` is the noise a step must stand out from: a run's
mean wanders between runs *and* carries its own samples' sampling error, so it is
``sqrt(between² + within² / k)`` for the median ``k`` (``between_cv`` is the wander alone; until
the third round of issue 16 ``noise_cv`` was that, which put steps under the run-to-run noise
in the "1–3×" bin).  Each entry holds ``samples`` (one list per point) besides ``values``.

    .venv/bin/python bench/detection_corpus_samples.py > /tmp/samples.json
    .venv/bin/python bench/evaluate_detection.py --corpus /tmp/samples.json --only perfgate
    .venv/bin/python bench/evaluate_detection.py --corpus /tmp/samples.json --only perfgate --ignore-samples
"""

from __future__ import annotations


import numpy as np

from corpus_cli import write_corpus

SEED = 1616016      # fixed before the detector read raw samples (issue 16)
KINDS = ("bursts", "clean")


def _series(kind: str, rng: np.random.Generator) -> dict:
    n = int(rng.integers(60, 401))
    between = float(np.exp(rng.uniform(np.log(0.005), np.log(0.05))))
    within = float(np.exp(rng.uniform(np.log(0.01), np.log(0.10))))
    k = rng.integers(5, 21, n)
    level = np.ones(n)
    cps: list[int] = []
    steps: list[float] = []
    if rng.random() >= 1 / 3:
        for _ in range(int(rng.integers(1, 4)) * 4):
            if len(cps) >= 3:
                break
            t = int(rng.integers(20, n - 20))
            if any(abs(t - c) < 25 for c in cps):
                continue
            scale = rng.uniform(1, 3) if rng.random() < 0.5 else rng.uniform(3, 10)
            cps.append(t)
            steps.append(float(rng.choice([-1, 1]) * scale * between))
        order = np.argsort(cps)
        cps, steps = [cps[i] for i in order], [steps[i] for i in order]
        for t, s in zip(cps, steps):
            level[t:] *= 1 + s
    run_level = level * np.exp(between * rng.standard_normal(n))
    spread = np.full(n, within)
    pull = np.zeros(n)
    if kind == "bursts":
        for _ in range(int(rng.integers(1, 4))):
            length = int(rng.integers(3, 13))
            a = int(rng.integers(0, n - length))
            spread[a:a + length] *= rng.uniform(4, 10)
            pull[a:a + length] = rng.uniform(1, 4) * between
    samples = []
    for i in range(n):
        s = run_level[i] * (1 + pull[i]) * np.exp(spread[i] * rng.standard_normal(int(k[i])))
        samples.append((1000 * s).round(4).tolist())
    return {"values": [float(np.mean(s)) for s in samples], "samples": samples, "change_points": cps,
            "steps": steps, "noise_cv": float(np.sqrt(between ** 2 + within ** 2 / np.median(k))),
            "between_cv": between, "kind": kind}


def generate(count: int, seed: int = SEED) -> list[dict]:
    rng = np.random.default_rng(seed)
    return [_series(KINDS[i % len(KINDS)], rng) for i in range(count)]


if __name__ == "__main__":
    write_corpus(generate, __doc__, SEED)
