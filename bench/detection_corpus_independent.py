#!/usr/bin/env python3
"""A second labelled corpus, written apart from ``detection_corpus.py`` to check that detection
was not tuned to one generator: AR(1) machine noise (φ ∈ {0, 0.3, 0.6}) on a log scale with CV
2–12%, 1% single-run spikes of +50–200%, 0–3 steps of ±2–30% at least 30 points apart, 30% of
series without change, lengths 100–800.

    .venv/bin/python bench/detection_corpus_independent.py > /tmp/independent.json
    .venv/bin/python bench/evaluate_detection.py --corpus /tmp/independent.json
"""

from __future__ import annotations


import numpy as np

from corpus_cli import write_corpus


def generate(count: int, seed: int) -> list[dict]:
    rng = np.random.default_rng(seed)
    corpus = []
    for _ in range(count):
        n = int(rng.integers(100, 800))
        cv = float(rng.choice([0.02, 0.04, 0.08, 0.12]))
        phi = float(rng.choice([0.0, 0.0, 0.3, 0.6]))
        shocks = rng.standard_normal(n)
        e = np.zeros(n)
        for i in range(n):
            e[i] = phi * (e[i - 1] if i else 0.0) + np.sqrt(1 - phi ** 2) * shocks[i]
        k = 0 if rng.random() < 0.3 else int(rng.integers(1, 4))
        cps = sorted(rng.choice(np.arange(30, n - 30), size=k, replace=False).tolist()) if k else []
        cps = [c for i, c in enumerate(cps) if i == 0 or c - cps[i - 1] >= 30]
        level, steps = np.ones(n), []
        for c in cps:
            step = float(rng.choice([-1, 1]) * rng.uniform(0.02, 0.3))
            level[c:] *= 1 + step
            steps.append(step)
        y = 1000 * level * np.exp(cv * e)
        spikes = rng.random(n) < 0.01
        y[spikes] *= 1 + rng.uniform(0.5, 2.0, spikes.sum())
        corpus.append({"values": y.tolist(), "change_points": cps, "steps": steps, "noise_cv": cv,
                       "kind": f"ar{phi}"})
    return corpus


if __name__ == "__main__":
    write_corpus(generate, __doc__, 777)
