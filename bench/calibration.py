"""Calibration of perfgate's statistics, by simulation through its own code.

Each question draws noise of known shape, plants (or not) a known change, and asks perfgate's
real functions what they see: ``compare_samples`` (``perfgate compare``), ``compare_rounds`` and
``judge`` with its sequential plan (``perfgate check``), and ``detect_change_points`` (``perfgate
detect``), all with the repository's thresholds (latency: FDR 0.05 and a 2% threshold).

Noise (log scale, one factor per sample): gauss (5% CV), lognormal (σ 0.1), heavy (t₂ × 3%),
spiky (2% Gaussian + 10% of samples preempted, ×1.3–2.5), bimodal (30% of samples +20%, 2%
each).  Check's rounds (``rounds``, ``rounds-mde``, ``sequential``) add a drifting machine (a 5%
random walk a round), a 1% pair offset a round and a 0.5% order effect (the second side runs
faster; base and head alternate who goes first); "disturbed" adds a +10–30% shift to 10% of
rounds per side; "quiet" is 1% Gaussian noise, 0.5% pair offsets and a 0.2% order effect.

Questions (each prints one table: the figure, its trials, its setting):

    compare      compare_samples A/A among 50 benchmarks: share of comparisons with any flag,
                 rows flagged, 95% intervals covering 0, and rows read "no-change" with every
                 benchmark moved by exactly the threshold (+2%; the claim: at most 0.025)
    compare-mde  compare's reported MDE of one benchmark among 50 against the effect caught 80% of
                 the time there on noise drawn afresh (found on a grid about the median MDE): the
                 share of runs whose MDE is at least it (the claim: about 9 in 10), and how far
    runlevel     compare A/A of two runs recorded apart: each run's machine offset (σ 0–5%,
                 shared by its 50 benchmarks) is in neither run's samples
    rounds       compare_rounds A/A among 20 benchmarks: any flag, coverage, no-change at +2%
    rounds-mde   check's reported MDE (b0's among 20) against the effect caught 80% of the time
                 on noise drawn afresh, as compare-mde; the lowest tenth of the MDEs planted
                 afresh (the audit's question); rows named "could not detect even a doubling"
                 (their MDE ≥ 100% at the spread's lower bound) and how often a doubling is caught
                 afresh
    sequential   judge with check's sequential plan (--max-rounds 20, looks from round 3, the
                 spending levels): any false flag, false discovery rate, rounds run, power; and a
                 fixed 8-round check on the same data for contrast
    sweep        a check's sweep total change (complexity rows, ``sweep_change``): A/A share with
                 p < 0.05 and the planted change's interval coverage, for costs (log ratios) and
                 a Δ column about zero (differences, in its units)
    detect       detect_change_points on 200-point series (min_effect 2%, confidence 0.99): series
                 with a false change under no change, and for a step of 0.5–2× the noise in the
                 middle, the share found (±5 runs) and its change-size interval's coverage

    .venv/bin/python bench/calibration.py compare --trials 100 --seed 1
    .venv/bin/python bench/calibration.py all              # every question at its default trials

Defaults (trials a cell: compare 200, compare-mde 100, runlevel 200, rounds 100, rounds-mde 100,
sequential 100, sweep 2,000, detect 2,000) keep each question under ~2 minutes on 2 idle cores,
except compare-mde (~5 min) and rounds-mde (~6–7 min), which find the true MDE on a grid; --jobs
sets the worker processes.  The audit behind the README's calibration figures (2026-11-27) used, a cell:
compare 200 (n 5–100), rounds 200, rounds-mde 200, sequential 100 (A/A Gaussian 100 + 2 × 50),
detect 300 (1,000 for spiky, heavy and the 0.5× step), runlevel 100; compare's MDE has changed
since (it is now at Benjamini–Hochberg's strictest bar α/m), so compare-mde measures the new one;
and both MDEs are now at the spread's 90% upper bound (``rounds.noise_bound``).

The sequential question's stopping and verdicts do not read the MDE, so its computation is
skipped there (``mde_skipped``, as the audit did), and each round's log ratio is computed once,
not again at every look (``shifts_remembered``): the same values, faster.  The intervals move
with the data (a +5% change is covered exactly when 0 is in the A/A), so coverage is asked at 0.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import sys
import time
from multiprocessing import Pool
from pathlib import Path

import numpy as np

from perfgate.commands.check import FIRST_LOOK, Plan, judge
from perfgate.complexity.compare import sweep_change
from perfgate.detect import compare as compare_module
from perfgate.detect import rounds as rounds_test
from perfgate.detect.changepoint import detect_change_points
from perfgate.detect.compare import compare_rounds, compare_samples
from perfgate.model import Metric
from perfgate.thresholds import ChangePointSettings, load_thresholds

ROOT = Path(__file__).resolve().parents[1]
TH = load_thresholds(ROOT / "thresholds")
ALPHA = 0.05
DISTS = ("gauss", "lognormal", "heavy", "spiky", "bimodal")
SIGMA = {"gauss": 0.05, "lognormal": 0.1, "heavy": 0.03, "spiky": 0.02, "bimodal": 0.02, "quiet": 0.01}
FLAGS = ("regression", "improvement")


# --- shared: noise, data, tables ---------------------------------------------------------------

def noise(dist: str, rng: np.random.Generator, size) -> np.ndarray:
    """Log-scale multiplicative noise of ``size`` samples."""
    if dist == "gauss":       # 5% CV, Gaussian in raw scale
        return np.log(np.clip(1 + 0.05 * rng.standard_normal(size), 0.05, None))
    if dist == "lognormal":
        return 0.1 * rng.standard_normal(size)
    if dist == "heavy":       # Student's t with 2 df, scale 3%
        return 0.03 * rng.standard_t(2, size)
    if dist == "spiky":       # 2% Gaussian + 10% preempted samples ×1.3–2.5
        return 0.02 * rng.standard_normal(size) + (rng.random(size) < 0.1) * np.log(1.3 + 1.2 * rng.random(size))
    if dist == "bimodal":     # 70% at 1.0, 30% at 1.2, each 2% noise
        return 0.02 * rng.standard_normal(size) + (rng.random(size) < 0.3) * np.log(1.2)
    if dist == "quiet":
        return 0.01 * rng.standard_normal(size)
    raise ValueError(dist)


def samples(dist: str, rng, m: int, n: int, offset: float = 0.0) -> dict:
    """``m`` benchmarks' latency samples (``n`` each) around 1 ms."""
    return {(f"b{i}", "latency"): 1e6 * np.exp(offset + noise(dist, rng, n)) for i in range(m)}


def rounds(dist: str, R: int, k: int, rng, effects, disturbed: bool = False) -> tuple[dict, dict]:
    """Base and head rounds (``R`` rounds of ``k`` samples a side) of ``len(effects)`` benchmarks on
    a drifting machine, head moved by ``effects[i]``."""
    pair_sd, order, walk = (0.005, 0.002, 0.05) if dist == "quiet" else (0.01, 0.005, 0.05)
    base, head = {}, {}
    for i, effect in enumerate(effects):
        machine = np.cumsum(walk * rng.standard_normal(R))
        b_r, h_r = [], []
        for r in range(R):
            ub, uh = pair_sd * rng.standard_normal(2)
            ob, oh = (0.0, -order) if r % 2 == 0 else (-order, 0.0)     # the second side runs faster
            lb = machine[r] + ub + ob + noise(dist, rng, k)
            lh = machine[r] + uh + oh + noise(dist, rng, k) + math.log1p(effect)
            if disturbed:
                if rng.random() < 0.1:
                    lb = lb + math.log(1.1 + 0.2 * rng.random())
                if rng.random() < 0.1:
                    lh = lh + math.log(1.1 + 0.2 * rng.random())
            b_r.append(list(1e6 * np.exp(lb)))
            h_r.append(list(1e6 * np.exp(lh)))
        base[(f"b{i}", "latency")], head[(f"b{i}", "latency")] = b_r, h_r
    return base, head


def moved(data: dict, factor: float, only=None) -> dict:
    """``data`` with every benchmark (or ``only`` that one) scaled by ``factor``; samples or rounds."""
    def scale(v):
        return [[x * factor for x in r] for r in v] if isinstance(v, list) else v * factor
    return {key: scale(v) if only is None or key == only else v for key, v in data.items()}


def verdict_of(comparison, benchmark: str = "b0"):
    return next(v for v in comparison.verdicts if v.benchmark == benchmark)


def share(a: float, b: float) -> str:
    return f"{a / b:.3f}" if b else "-"


@contextlib.contextmanager
def shifts_remembered():
    """rounds_test.round_shift remembered by its round's samples: a sequential check's every look
    recomputes each earlier round's log ratio (scipy's trim_mean, 0.4 ms a call) to the same value."""
    real, memo = rounds_test.round_shift, {}

    def remembered(base, head):
        key = (np.asarray(base, float).tobytes(), np.asarray(head, float).tobytes())
        if key not in memo:
            memo[key] = real(base, head)
        return memo[key]
    rounds_test.round_shift = remembered
    try:
        yield
    finally:
        rounds_test.round_shift = real


@contextlib.contextmanager
def mde_skipped():
    """compare_rounds without its MDE (a root search a row), for questions that use only verdicts."""
    real = compare_module.rounds_test.mde
    compare_module.rounds_test.mde = lambda *a, **kw: None
    try:
        yield
    finally:
        compare_module.rounds_test.mde = real


def table(title: str, columns: list[str], rows: list[dict]) -> None:
    cells = [[str(r.get(c, "")) for c in columns] for r in rows]
    widths = [max(len(c), *(len(x[i]) for x in cells)) for i, c in enumerate(columns)]
    print(title)
    print("  ".join(c.rjust(w) for c, w in zip(columns, widths)))
    for x in cells:
        print("  ".join(v.rjust(w) for v, w in zip(x, widths)))


# --- the questions: each cell(args) returns one table row --------------------------------------

M_COMPARE, M_ROUNDS = 50, 20


def compare_cell(dist, n, trials, seed):
    rng = np.random.default_rng(seed)
    any_flag = flagged = rows = cover = rows_t = nochange_t = 0
    for _ in range(trials):
        base, head = samples(dist, rng, M_COMPARE, n), samples(dist, rng, M_COMPARE, n)
        c = compare_samples(base, head, TH, ALPHA)
        f = sum(v.verdict in FLAGS for v in c.verdicts)
        any_flag += f > 0
        flagged += f
        judged = [v for v in c.verdicts if v.ci_low is not None]
        rows += len(judged)
        cover += sum(v.ci_low <= 0 <= v.ci_high for v in judged)
        for v in compare_samples(base, moved(head, 1.02), TH, ALPHA).verdicts:
            if v.ci_low is not None:
                rows_t += 1
                nochange_t += v.verdict == "no-change"
    return dict(noise=dist, n=n, trials=trials, any_flag=share(any_flag, trials),
                rows_flagged=share(flagged, trials * M_COMPARE), cover_0=share(cover, rows),
                nochange_at_2pct=share(nochange_t, rows_t))


def true_80(power, around: float) -> float:
    """The effect caught 80% of the time, by ``power(effect)`` on a grid of multiples of
    ``around`` (interpolated; NaN when the grid does not bracket 0.8)."""
    grid = [around * f for f in (0.1, 0.17, 0.25, 0.4, 0.55, 0.7, 0.85, 1.0, 1.2, 1.5, 2.0, 3.0)]
    caught = [power(e) for e in grid]
    if not min(caught) <= 0.8 <= max(caught):
        return math.nan
    return float(np.interp(0.8, np.maximum.accumulate(caught), grid))


def covers(mdes: list[float], true: float) -> dict:
    """How the reported MDEs stand to the true one: the claim is that they are at least it in
    about 9 runs of 10."""
    if not math.isfinite(true):
        return dict(true_80="-", mde_ge_true="-", median_over_true="-")
    return dict(true_80=f"{true:.3f}", mde_ge_true=share(sum(x >= true for x in mdes), len(mdes)),
                median_over_true=f"{np.median(mdes) / true:.2f}")


def compare_mde_cell(dist, n, trials, seed):
    rng = np.random.default_rng(seed)
    key = ("b0", "latency")
    mdes, blind = [], 0
    for _ in range(trials):
        x = verdict_of(compare_samples(samples(dist, rng, M_COMPARE, n), samples(dist, rng, M_COMPARE, n),
                                       TH, ALPHA)).mde                    # b0's MDE among 50
        if x is None or not math.isfinite(x):
            blind += 1
        else:
            mdes.append(x)

    def power(effect):
        """b0 moved by ``effect`` among 50, in noise drawn afresh: the share flagged."""
        return np.mean([verdict_of(compare_samples(samples(dist, rng, M_COMPARE, n),
                                                   moved(samples(dist, rng, M_COMPARE, n), 1 + effect, key),
                                                   TH, ALPHA)).verdict == "regression" for _ in range(trials)])
    median = float(np.median(mdes)) if mdes else math.nan
    return dict(noise=dist, n=n, trials=trials, no_mde=share(blind, trials),
                mde_median=f"{median:.3f}" if mdes else "-",
                **covers(mdes, true_80(power, median) if mdes else math.nan))


def runlevel_cell(offset, n, trials, seed):
    rng = np.random.default_rng(seed)
    any_flag = flagged = rows = 0
    for _ in range(trials):
        ob, oh = offset * rng.standard_normal(2)          # each run's machine state, shared by its benchmarks
        c = compare_samples(samples("gauss", rng, M_COMPARE, n, ob), samples("gauss", rng, M_COMPARE, n, oh), TH, ALPHA)
        f = sum(v.verdict in FLAGS for v in c.verdicts)
        any_flag += f > 0
        flagged += f
        rows += len(c.verdicts)
    return dict(run_offset_sd=f"{offset:.0%}", n=n, trials=trials, any_flag=share(any_flag, trials),
                rows_flagged=share(flagged, rows))


def rounds_cell(dist, R, k, disturbed, trials, seed):
    rng = np.random.default_rng(seed)
    any_flag = rows = cover = rows_t = nochange_t = 0
    for _ in range(trials):
        base, head = rounds(dist, R, k, rng, [0.0] * M_ROUNDS, disturbed)
        c = compare_rounds(base, head, TH, ALPHA)
        any_flag += any(v.verdict in FLAGS for v in c.verdicts)
        rows += len(c.verdicts)
        cover += sum(v.ci_low <= 0 <= v.ci_high for v in c.verdicts)
        with mde_skipped():          # below, only the verdicts are read
            for v in compare_rounds(base, moved(head, 1.02), TH, ALPHA).verdicts:
                rows_t += 1
                nochange_t += v.verdict == "no-change"
    return dict(noise=dist + (" disturbed" if disturbed else ""), rounds=R, samples=k, trials=trials,
                any_flag=share(any_flag, trials), cover_0=share(cover, rows),
                nochange_at_2pct=share(nochange_t, rows_t))


def rounds_mde_cell(dist, R, k, disturbed, trials, seed):
    rng = np.random.default_rng(seed)
    blind = rows = 0
    mdes = []
    for _ in range(trials):
        c = compare_rounds(*rounds(dist, R, k, rng, [0.0] * M_ROUNDS, disturbed), TH, ALPHA)
        rows += len(c.verdicts)
        said = next((n for n in c.notes if "could not detect even a doubling" in n), "")
        blind += int(said.split(" ", 1)[0]) if said else 0
        x = verdict_of(c).mde
        if x is not None and math.isfinite(x):
            mdes.append(x)

    def caught_afresh(effect):
        """b0 moved by ``effect`` among 20, in noise drawn afresh: the share flagged."""
        with mde_skipped():
            return float(np.mean([verdict_of(compare_rounds(*rounds(dist, R, k, rng, [effect] + [0.0] * (M_ROUNDS - 1),
                                                                    disturbed), TH, ALPHA)).verdict == "regression"
                                  for _ in range(trials)]))
    median, p10 = float(np.median(mdes)), float(np.percentile(mdes, 10))
    return dict(noise=dist + (" disturbed" if disturbed else ""), rounds=R, samples=k, trials=trials,
                mde_p10=f"{p10:.3f}", mde_median=f"{median:.3f}", **covers(mdes, true_80(caught_afresh, median)),
                afresh_at_p10=f"{caught_afresh(p10):.3f}",
                not_even_doubling=share(blind, rows), afresh_doubling=f"{caught_afresh(1.0):.3f}" if blind else "-")


SCENARIOS = {"aa": [0.0] * M_ROUNDS, "threshold": [0.02] * M_ROUNDS, "mixed": [0.10] * 5 + [0.0] * 15,
             "one10": [0.10] + [0.0] * 19}
MOST = 20


def sequential_cell(scenario, dist, k, trials, seed):
    rng = np.random.default_rng(seed)
    eff = SCENARIOS[scenario]
    plan = Plan(MOST, ALPHA, None, True, rounds_test.spending_levels(ALPHA, MOST - FIRST_LOOK + 1))
    any_false = fdp = rounds_run = nochange = nrows = tp = fixed_false = fixed_tp = 0

    def truly(v):
        return eff[int(v.benchmark[1:])]

    with mde_skipped(), shifts_remembered():     # stopping and verdicts do not read the MDE
        for _ in range(trials):
            base, head = rounds(dist, MOST, k, rng, eff)
            flagged, settled = {}, {}
            for n in range(FIRST_LOOK, MOST + 1):
                comp, decided, _ = judge({"base": {q: v[:n] for q, v in base.items()},
                                          "head": {q: v[:n] for q, v in head.items()}}, TH, plan, flagged, settled)
                if decided:
                    break
            rounds_run += n
            flags = [v for v in comp.verdicts if v.verdict in FLAGS]
            false = [v for v in flags if truly(v) == 0]
            any_false += bool(false)
            fdp += len(false) / len(flags) if flags else 0
            tp += sum(truly(v) > 0 and v.verdict == "regression" for v in flags)
            nochange += sum(v.verdict == "no-change" for v in comp.verdicts)
            nrows += len(comp.verdicts)
            c8 = compare_rounds({q: v[:8] for q, v in base.items()}, {q: v[:8] for q, v in head.items()}, TH, ALPHA)
            f8 = [v for v in c8.verdicts if v.verdict in FLAGS]
            fixed_false += any(truly(v) == 0 for v in f8)
            fixed_tp += sum(truly(v) > 0 and v.verdict == "regression" for v in f8)
    positives = trials * sum(e > 0 for e in eff)
    return dict(scenario=scenario, noise=dist, samples=k, trials=trials, any_false=share(any_false, trials),
                fdr=share(fdp, trials), mean_rounds=f"{rounds_run / trials:.1f}", nochange=share(nochange, nrows),
                power=share(tp, positives), fixed8_any_false=share(fixed_false, trials),
                fixed8_power=share(fixed_tp, positives))


DETECT = ChangePointSettings(min_effect=0.02, confidence=0.99)


def detect_cell(dist, n, step_x_noise, trials, seed):
    rng = np.random.default_rng(seed)
    step, tau = step_x_noise * SIGMA[dist], n // 2
    false = found = cover = 0
    for _ in range(trials):
        y = noise(dist, rng, n)
        if step:
            y[tau:] += math.log1p(step)
        cps = detect_change_points(np.exp(y) * 100.0, DETECT)
        if not step:
            false += bool(cps)
            continue
        near = [c for c in cps if abs(c.index - tau) <= 5]
        if near:
            found += 1
            cover += near[0].ci_low <= step <= near[0].ci_high
    row = dict(noise=dist, points=n, step=f"{step_x_noise:g}x noise" if step else "none", trials=trials)
    if step:
        row.update(found=share(found, trials), ci99_covers=share(cover, found))
    else:
        row.update(false_change=share(false, trials))
    return row


def sweep_cell(kind, R, trials, seed):
    """sweep_change on a 50-point sweep measured in R interleaved rounds: a machine drifting 5% a
    round (shared by base and head within it), a 1% pair offset and 3% point noise for costs
    ("cost": 1..50 µs); a Δ column about zero ("delta": level 0 ± 2, noise 40) in its units."""
    rng = np.random.default_rng(seed)
    P = 50
    cost = kind == "cost"
    level = np.arange(1, P + 1) * 1000.0 if cost else rng.uniform(-2, 2, P)
    shift = 0.2 if cost else 5.0        # planted: +20%, or +5 a point (+250 a sweep)

    def sweep(effect):
        base, head = [], []
        machine = 0.0
        for _ in range(R):
            machine += 0.05 * rng.standard_normal()
            sides = []
            for planted in (0.0, effect):
                if cost:
                    v = level * np.exp(machine + 0.01 * rng.standard_normal() + 0.03 * rng.standard_normal(P)) \
                        * (1 + planted)
                else:
                    v = level + planted + 40 * rng.standard_normal(P)
                sides.append([Metric(f"t/x={i}", "ns", float(x)) for i, x in enumerate(v)])
            base.append(sides[0])
            head.append(sides[1])
        return sweep_change(base, head, "ns")
    aa = [sweep(0.0) for _ in range(trials)]
    planted = [sweep(shift) for _ in range(trials)]
    truth = shift if cost else shift * P
    judged = [c for c in planted if c.relative == cost]   # a Δ sweep whose totals all came out above zero is a ratio
    return dict(kind=kind, rounds=R, trials=trials, aa_p_below_05=share(sum(c.p_value < 0.05 for c in aa), trials),
                cover_planted=share(sum(c.low <= truth <= c.high for c in judged), len(judged)),
                found_planted=share(sum(c.p_value < 0.05 for c in planted), trials),
                relative=share(sum(c.relative for c in aa), trials))


def compare_jobs(trials, seed):
    return [(d, n, trials, seed + 100 * i + n) for i, d in enumerate(DISTS) for n in (10, 30)]


def rounds_grid(trials, seed):
    grid = [(d, R, k, False) for d in DISTS for R, k in ((3, 5), (8, 5), (8, 20))]
    grid += [("gauss", R, 5, True) for R in (3, 8)]
    return [g + (trials, seed + i) for i, g in enumerate(grid)]


QUESTIONS = {
    # name: (cell, jobs(trials, seed), default trials, title, columns)
    "compare": (compare_cell, compare_jobs, 200,
                "compare_samples A/A, 50 benchmarks, n samples a side",
                ["noise", "n", "trials", "any_flag", "rows_flagged", "cover_0", "nochange_at_2pct"]),
    "compare-mde": (compare_mde_cell, compare_jobs, 100,
                    "compare's reported MDE of b0 among 50 against the effect caught 80% of the time on fresh "
                    "noise (the claim: the MDE is at least that in about 9 runs of 10)",
                    ["noise", "n", "trials", "no_mde", "mde_median", "true_80", "mde_ge_true", "median_over_true"]),
    "runlevel": (runlevel_cell,
                 lambda trials, seed: [(o, n, trials, seed + int(o * 1000) + n)
                                       for o in (0.0, 0.01, 0.02, 0.05) for n in (10, 30)], 200,
                 "compare_samples A/A of two runs recorded apart, 50 benchmarks (gauss), a machine offset a run",
                 ["run_offset_sd", "n", "trials", "any_flag", "rows_flagged"]),
    "rounds": (rounds_cell, rounds_grid, 100,
               "compare_rounds A/A, 20 benchmarks, drifting machine",
               ["noise", "rounds", "samples", "trials", "any_flag", "cover_0", "nochange_at_2pct"]),
    "rounds-mde": (rounds_mde_cell,
                   lambda trials, seed: [g + (trials, seed + i) for i, g in enumerate(
                       [("gauss", 3, 5, False), ("gauss", 8, 5, False), ("lognormal", 8, 20, False),
                        ("heavy", 3, 5, False), ("heavy", 8, 5, False), ("spiky", 8, 5, False),
                        ("bimodal", 8, 20, False), ("gauss", 8, 5, True), ("lognormal", 3, 5, True)])], 100,
                   "check's reported MDE (b0's, among 20) against the effect caught 80% of the time on fresh "
                   "noise (the claim: the MDE is at least that in about 9 runs of 10)",
                   ["noise", "rounds", "samples", "trials", "mde_p10", "mde_median", "true_80", "mde_ge_true",
                    "median_over_true", "afresh_at_p10", "not_even_doubling", "afresh_doubling"]),
    "sequential": (sequential_cell,
                   lambda trials, seed: [(s, d, 5, trials, seed + i) for i, (s, d) in enumerate(
                       [("aa", "gauss"), ("aa", "heavy"), ("aa", "spiky"), ("threshold", "gauss"),
                        ("mixed", "gauss"), ("one10", "gauss"), ("aa", "quiet"), ("threshold", "quiet"),
                        ("one10", "quiet")])], 100,
                   "check --max-rounds 20 through judge (looks from round 3), 20 benchmarks, 5 samples a round",
                   ["scenario", "noise", "samples", "trials", "any_false", "fdr", "mean_rounds", "nochange", "power",
                    "fixed8_any_false", "fixed8_power"]),
    "sweep": (sweep_cell,
              lambda trials, seed: [(k, R, trials, seed + i) for i, (k, R) in enumerate(
                  [("cost", 3), ("cost", 4), ("delta", 3), ("delta", 4)])], 2000,
              "a check's sweep total change (50 points), A/A and +20% (costs) or +5 a point (Δ about zero)",
              ["kind", "rounds", "trials", "aa_p_below_05", "cover_planted", "found_planted", "relative"]),
    "detect": (detect_cell,
               lambda trials, seed: [(d, 200, 0, trials, seed + i) for i, d in enumerate(DISTS)]
               + [("gauss", 200, s, trials, seed + 10 + j) for j, s in enumerate((0.5, 0.75, 1.0, 2.0))], 2000,
               "detect_change_points, one series (min_effect 2%, confidence 0.99)",
               ["noise", "points", "step", "trials", "false_change", "found", "ci99_covers"]),
}


def _call(job):
    name, args = job
    return QUESTIONS[name][0](*args)


def ask(name: str, trials: int | None, seed: int, jobs: int) -> None:
    cell, make_jobs, default, title, columns = QUESTIONS[name]
    trials = trials or default
    started = time.perf_counter()
    work = [(name, args) for args in make_jobs(trials, seed)]
    if jobs > 1:
        with Pool(jobs) as pool:
            rows = pool.map(_call, work)
    else:
        rows = [_call(w) for w in work]
    table(f"{name}: {title} (seed {seed}, {time.perf_counter() - started:.0f} s)", columns, rows)


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("question", choices=[*QUESTIONS, "all"])
    p.add_argument("--trials", type=int, default=None, help="trials a cell (default: the question's own)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1), help="worker processes")
    args = p.parse_args(argv)
    if args.trials is not None and args.trials < 1:
        p.error("--trials must be at least 1")
    for i, name in enumerate(QUESTIONS if args.question == "all" else [args.question]):
        if i:
            print()
        ask(name, args.trials, args.seed, args.jobs)
        sys.stdout.flush()


if __name__ == "__main__":
    main()
