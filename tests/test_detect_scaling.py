"""Near-linear change point search: chunked search across seams, heap-based elimination."""

from __future__ import annotations

import time

import numpy as np
import pytest

from perfgate.detect import changepoint
from perfgate.detect.changepoint import detect_change_points
from perfgate.detect.elimination import eliminate
from perfgate.thresholds import ChangePointSettings

SETTINGS = ChangePointSettings(min_effect=0.005, confidence=0.99)


def _naive_eliminate(positions, n, judge):
    """The O(k²) list version the heap replaces: drop the weakest failing, re-judge neighbours."""
    cps = list(positions)

    def verdict(i):
        return judge(cps[i - 1] if i > 0 else 0, cps[i], cps[i + 1] if i + 1 < len(cps) else n)

    verdicts = [verdict(i) for i in range(len(cps))]
    while True:
        failing = [i for i, v in enumerate(verdicts) if not v[0]]
        if not failing:
            return cps
        worst = min(failing, key=lambda i: verdicts[i][1])
        del cps[worst], verdicts[worst]
        for j in (worst - 1, worst):
            if 0 <= j < len(cps):
                verdicts[j] = verdict(j)


@pytest.mark.parametrize("seed", range(20))
def test_heap_elimination_matches_the_list_version(seed):
    rng = np.random.default_rng(seed)
    n = 400
    positions = sorted(rng.choice(np.arange(1, n), size=int(rng.integers(0, 60)), replace=False).tolist())
    weight = {t: float(rng.uniform(0, 3)) for t in positions}

    def judge(lo, t, hi):      # depends on both neighbours, with ties, like the real tests
        score = round(weight[t] * (hi - lo) / 40, 1)
        return score >= 2.0, score

    assert eliminate(positions, n, judge) == _naive_eliminate(positions, n, judge)


def test_steps_at_chunk_seams_are_found_exactly():
    own = changepoint.CHUNK - 2 * changepoint.CHUNK_OVERLAP
    n = 12 * own
    truth = [own - 1, own, 3 * own + 1, 5 * own - changepoint.CHUNK_OVERLAP, 8 * own + 7]
    truth = sorted(set(truth))[1:]                  # one step per seam neighbourhood
    rng = np.random.default_rng(4)
    level = np.ones(n)
    for k, t in enumerate(truth):
        level[t:] *= 1.05 if k % 2 == 0 else 0.97
    x = 100 * level * np.exp(0.01 * rng.standard_normal(n))
    assert [cp.index for cp in detect_change_points(x, SETTINGS)] == truth


def test_long_series_cost_is_near_linear():
    rng = np.random.default_rng(5)

    def cost(n):
        x = 100 * np.exp(0.02 * rng.standard_normal(n))
        x[n // 2:] *= 1.1
        start = time.process_time()
        found = detect_change_points(x, SETTINGS)
        assert [cp.index for cp in found] == [n // 2]
        return time.process_time() - start

    cost(20_000)                                      # warm up imports and caches
    small, large = cost(20_000), cost(80_000)
    assert large < 8 * small + 0.5, (small, large)    # quadratic would be 16×
