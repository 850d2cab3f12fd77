"""Stationary AR(1) noise for the benchmark scripts that simulate a main branch run after run:
``e[i] = φ·e[i-1] + sqrt(1-φ²)·shock``, standard deviation ``cv`` at every run (the first run drawn
from the stationary law).  The corpus generators keep their own, written apart on purpose."""

from __future__ import annotations

import numpy as np


def ar1_noise(rng: np.random.Generator, length: int, cv: float, phi: float, shape: tuple[int, ...] = ()) -> np.ndarray:
    """``length`` runs of noise, each of ``shape`` independent series (drawn run by run)."""
    e = np.zeros((length, *shape))
    for i in range(length):
        shock = cv * rng.standard_normal(shape)
        e[i] = shock if i == 0 else phi * e[i - 1] + np.sqrt(1 - phi * phi) * shock
    return e
