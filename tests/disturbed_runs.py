"""Runs with raw samples, some of them disturbed (a neighbour process for a while), for the tests
of the change point detector's use of samples (library and `detect --series`)."""

from __future__ import annotations

import numpy as np


def runs(seed: int, n: int = 150, burst: tuple[int, int] | None = (70, 80), step_at: int | None = None,
         k: int = 10, slower: float = 0.06) -> list[list[float]]:
    """Each run's samples: run-to-run wander 1%, samples scattered 3% about the run's level; in the
    burst the samples scatter 8x wider and the run is ``slower`` (6%) slower."""
    rng = np.random.default_rng(seed)
    level = np.exp(0.01 * rng.standard_normal(n))
    if step_at is not None:
        level[step_at:] *= 1.04
    spread, pull = np.full(n, 0.03), np.ones(n)
    if burst:
        spread[burst[0]:burst[1]] *= 8
        pull[burst[0]:burst[1]] = 1 + slower
    return [(100 * level[i] * pull[i] * np.exp(spread[i] * rng.standard_normal(k))).tolist() for i in range(n)]


def means(samples: list[list[float]]) -> list[float]:
    return [float(np.mean(s)) for s in samples]
