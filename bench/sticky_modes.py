"""Noise with a sticky second mode, for the benchmark scripts that simulate a main branch run after
run: a benchmark that now and then runs slow for a few runs in a row (a CPU frequency step, a
cache or page layout that holds for a while), as a two-state Markov chain.  The corpus generators
keep their own, written apart on purpose."""

from __future__ import annotations

import numpy as np


def sticky_modes(rng: np.random.Generator, length: int, cv: float, gap: float, share: float,
                 dwell: float) -> np.ndarray:
    """``length`` runs of relative noise: Gaussian jitter of deviation ``cv``, plus ``gap`` (a
    fraction, e.g. 0.06 = 6% slower) in the runs of the slow mode, which holds ``share`` of the runs
    in the long run and stays ``dwell`` runs on average once entered."""
    leave = 1.0 / dwell
    enter = leave * share / (1.0 - share)      # so that the slow mode's stationary share is `share`
    slow = np.empty(length, dtype=bool)
    state = rng.random() < share
    for i in range(length):
        if i:
            state = rng.random() >= leave if state else rng.random() < enter
        slow[i] = state
    return cv * rng.standard_normal(length) + gap * slow
