"""Which test should ``perfgate check`` use across interleaved rounds?  Power and A/A false-alarm
rate of the candidates, simulated from recorded A/A check rounds of the real suites.

    .venv/bin/python bench/check_test_choice.py tests/fixtures/check-rounds/tree-alloc-aa.json \
        [--rounds 6 10] [--effects 0 0.05 0.10] [--trials 400] [--target BM_Copy/buffer/65536]

Each trial draws ``R`` recorded rounds (without replacement when enough were recorded), swaps base
and head inside each round at random (under no change the two sides are exchangeable, so this is
still an A/A round), and plants a relative slowdown ``effect`` on one benchmark chosen at random
(its latency samples × (1 + effect), its throughput ÷ (1 + effect)).  Every candidate gives one
p-value per benchmark, on the more precise of its latency and throughput, as check chose when this
was written (check now ties a throughput to its latency only when it is the latency's exact
reciprocal, ``tied_to`` in ``src/perfgate/detect/compare.py``, and judges any other throughput as a
hypothesis of its own); every other measure — instruction counts, heap bytes, peak RSS — counts as
a hypothesis with p = 1, as it would in check when unchanged; Benjamini–Hochberg at 0.05 over them, and we count how often the
planted benchmark is flagged (power) and how often anything is flagged when nothing was planted
(A/A false-alarm rate, target ≤ 0.05).

Candidates: ``wilcoxon``: signed-rank on per-round log ratios of round medians (check's old test:
smallest p = 2 / 2^R); ``signflip``: exact sign-flip permutation test of the mean per-round ratio
(same floor); ``t-mean``, ``t-trim``, ``t-median``: paired t on per-round ratios from the mean,
20%-trimmed mean or median of each round's log samples; ``yuen``: Yuen's trimmed t across the
rounds (a fifth of the rounds' ratios cut each side, ``t-trim``'s ratios); ``pooled-mw``: Mann–Whitney on all raw
samples of all rounds, ignoring the rounds (``compare``'s test, for contrast).
"""

from __future__ import annotations

import argparse
import itertools
import math
import sys
from pathlib import Path

import numpy as np
from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from check_rounds import load  # noqa: E402
from perfgate.detect.stats import benjamini_hochberg  # noqa: E402


def _diffs(b_rounds, h_rounds, how) -> np.ndarray:
    f = {"mean": np.mean, "trim": lambda x: stats.trim_mean(x, 0.2), "median": np.median}[how]
    return np.array([f(np.log(h)) - f(np.log(b)) for b, h in zip(b_rounds, h_rounds)])


def _t(d: np.ndarray) -> float:
    sd = d.std(ddof=1)
    return 1.0 if sd == 0 else float(2 * stats.t.sf(abs(d.mean()) / (sd / math.sqrt(d.size)), d.size - 1))


def _yuen(d: np.ndarray, trim: float = 0.2) -> float:
    """Yuen's one-sample trimmed t: the 20%-trimmed mean of the rounds' ratios over its standard
    error from their winsorized variance, on n - 2g - 1 degrees of freedom (g rounds cut a side)."""
    n = d.size
    g = int(math.floor(trim * n))
    if n - 2 * g < 2:
        return 1.0
    s = np.sort(d)
    w = np.clip(s, s[g], s[n - 1 - g])
    sd = w.std(ddof=1)
    if sd == 0:
        return 1.0
    se = sd / ((1 - 2 * g / n) * math.sqrt(n))
    return float(2 * stats.t.sf(abs(s[g:n - g].mean()) / se, n - 2 * g - 1))


def _signflip(d: np.ndarray) -> float:
    signs = np.array(list(itertools.product((-1, 1), repeat=d.size)))
    means = np.abs(signs @ d)
    return float(np.mean(means >= abs(d.sum()) - 1e-12))


def _wilcoxon(d: np.ndarray) -> float:
    return 1.0 if not np.any(d) else float(stats.wilcoxon(d).pvalue)


CANDIDATES = {
    "wilcoxon": lambda b, h: _wilcoxon(np.array([np.log(np.median(y)) - np.log(np.median(x)) for x, y in zip(b, h)])),
    "signflip": lambda b, h: _signflip(_diffs(b, h, "trim")),
    "t-mean": lambda b, h: _t(_diffs(b, h, "mean")),
    "t-trim": lambda b, h: _t(_diffs(b, h, "trim")),
    "t-median": lambda b, h: _t(_diffs(b, h, "median")),
    "yuen": lambda b, h: _yuen(_diffs(b, h, "trim")),
    "pooled-mw": lambda b, h: float(stats.mannwhitneyu(np.concatenate(h), np.concatenate(b)).pvalue),
}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("recorded", type=Path, nargs="+")
    p.add_argument("--rounds", type=int, nargs="+", default=[6, 10])
    p.add_argument("--effects", type=float, nargs="+", default=[0.0, 0.05, 0.10])
    p.add_argument("--trials", type=int, default=400)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--target", help="plant only in this benchmark (default: one chosen at random per trial)")
    args = p.parse_args()
    rng = np.random.default_rng(args.seed)
    for path in args.recorded:
        checks = load(path)
        keys = sorted(set.intersection(*(set(c["base"]) for c in checks)))
        exact = [k for k in keys if k[1] not in ("latency", "throughput")]  # counted as p = 1
        keys = [k for k in keys if k not in exact]   # probes may have run in fewer rounds
        pool = []  # one entry per recorded round: {key: (base samples, head samples)}
        for c in checks:
            for r in range(min(len(c["base"][k]) for k in keys)):
                pool.append({k: (np.asarray(c["base"][k][r], float), np.asarray(c["head"][k][r], float)) for k in keys})
        timed = sorted({k[0] for k in keys if k[1] in ("latency", "throughput")})
        print(f"{path.name}: {len(pool)} recorded rounds, {len(timed)} timed benchmarks, {len(exact)} exact")
        print(f"{'rounds':>6} {'effect':>7} " + " ".join(f"{c:>10}" for c in CANDIDATES))
        for n_rounds, effect in itertools.product(args.rounds, args.effects):
            hits = dict.fromkeys(CANDIDATES, 0)
            for _ in range(args.trials):
                idx = rng.choice(len(pool), n_rounds, replace=len(pool) < n_rounds)
                swap = rng.random(n_rounds) < 0.5
                target = args.target or timed[rng.integers(len(timed))]
                sides = {}
                for bench in timed:
                    for measure in ("latency", "throughput"):
                        k = (bench, measure)
                        if k not in pool[0]:
                            continue
                        b = [pool[i][k][1] if s else pool[i][k][0] for i, s in zip(idx, swap)]
                        h = [pool[i][k][0] if s else pool[i][k][1] for i, s in zip(idx, swap)]
                        if bench == target:
                            h = [x * (1 + effect) if measure == "latency" else x / (1 + effect) for x in h]
                        sides[k] = (b, h)
                # one hypothesis per benchmark: the more precise of its latency and throughput
                # (chosen by the spread of per-round ratios, never by effect; check's rule when this
                # was written, see the module doc)
                primary = {bench: min((k for k in sides if k[0] == bench),
                                      key=lambda k: _diffs(*sides[k], "trim").std(ddof=1)) for bench in timed}
                for name, test in CANDIDATES.items():
                    ps = [test(*sides[primary[bench]]) for bench in timed]
                    q = benjamini_hochberg(ps + [1.0] * len(exact))[:len(timed)]
                    flagged = q <= 0.05
                    hits[name] += bool(flagged[timed.index(target)]) if effect else bool(flagged.any())
            print(f"{n_rounds:>6} {effect:>7.0%} " + " ".join(f"{hits[c] / args.trials:>10.3f}" for c in CANDIDATES),
                  flush=True)
        print("effect 0%: share of A/A trials with any flag (false alarms); otherwise: share catching the plant")


if __name__ == "__main__":
    main()
