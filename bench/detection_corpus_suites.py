"""Labelled synthetic corpus of benchmark *suites*: K benchmarks run by one CI job at each commit.

All benchmarks of a suite share the commit axis (same length n, index i = the i-th commit), so one
commit can shift several of them at once (a *shared* event) while other changes touch a single
benchmark (a *single* event).  Written apart from the detector: the parameters below come from how
CI benchmark histories look, not from what any detector finds easy.

``generate(count, seed) -> list[dict]`` returns ``count`` suites, drawn in order from one
``numpy.random.default_rng(seed)`` (deterministic; ``generate(k, s)`` is a prefix of
``generate(m, s)`` for k <= m)::

    {"suite": "suite-017", "length": n, "common_cv": float (0.0 if no machine component),
     "events": [{"index": i, "members": ["suite-017/bench-03", ...], "kind": "shared" | "single"}],
     "series": [{"benchmark": "suite-017/bench-03", "values": [n floats],
                 "change_points": [first index of each new regime, increasing],
                 "steps": [relative step per change point, e.g. 0.05 = +5 %],
                 "noise_cv": float, "kind": str,
                 "own_kind": str, "own_cv": float, "base": float, "outliers": [indices]}, ...]}

Each series entry is usable on its own like a single-series corpus entry ("values",
"change_points", "steps", "noise_cv", "kind"); the other keys are extra detail.

Parameters (every range is inclusive; "log-U" = uniform in log):

* suite size K ~ U{4..16}; length n ~ U{60..500} commits, the same for every benchmark of a suite.
* base level per benchmark ~ 10**U(-6, 1) seconds (1 us .. 10 s), independent per benchmark.
  A value is  base * level_factor(t) * noise(t), level_factor = prod(1 + step) over the change
  points <= t, so a step is relative to the level just before it and the noise is multiplicative
  with mean 1 (the mean level moves by exactly ``step``).
* a benchmark's own noise, CV ~ log-U(1 %, 12 %), of one kind:
  - "gauss" (30 %):   1 + cv*z.
  - "lognorm" (20 %): exp(sigma*z - sigma^2/2), sigma^2 = log(1 + cv^2)  (right-skewed).
  - "ar<phi>" (30 %): AR(1) with phi in {0.2, 0.3, 0.4, 0.5, 0.6} and unit stationary variance,
    1 + cv*e_t;  the label carries phi, e.g. "ar0.4".
  - "bimodal" (20 %): a two-state Markov chain (fast/slow mode), slow-mode share p ~ U(0.1, 0.4),
    mean slow-mode dwell ~ U(1.5, 6) runs (so mode switches are occasional and short); the mode
    gap carries a share f ~ U(0.6, 0.9) of the variance, Gaussian jitter the rest; centred so the
    stationary mean is 1 and the stationary CV is cv.  Mode runs are noise, never labelled.
* common-mode machine component in 35 % of suites: a per-commit factor m_t (log-normal, mean 1,
  CV c ~ U(1 %, 5 %), independent across commits, no persistence) multiplies every benchmark of
  that run (a slow or fast machine for that CI run).  Those suites' series get kind "common"
  ("own_kind" keeps the benchmark's own kind); their total CV T ~ log-U(max(1 %, 1.1 c), 12 %),
  the own CV is set so that (1 + own^2)(1 + c^2) = 1 + T^2, and ``noise_cv`` = T.  Since m_t is
  i.i.d. with mean 1 it never moves a level: change points label only the true level shifts.
* outlier spikes (single-run, upward, not part of ``noise_cv``): half of the benchmarks have them,
  at a rate ~ U(0.2 %, 2 %) of runs, each multiplying that run by 1 + U(0.15, 1.0); in common-mode
  suites also suite-wide hiccups (every benchmark of one run, same factor 1 + U(0.1, 0.6)) at a
  rate ~ U(0, 1 %).  Indices in each series' "outliers".
* changes: 25 % of suites have none.  The others get  #shared ~ {0,1,2,3} w.p. (.2,.4,.25,.15)
  and  #single ~ {0,1,2} w.p. (.35,.4,.25), redrawn while both are 0.
  - shared event: one commit; members = a random subset of >= 2 benchmarks: w.p. 0.25 "most"
    (U{ceil(0.6 K)..K}), else U{2..max(2, K//2)}.  The event has a main sign (+ w.p. 0.7) that
    every member follows, except in a quarter of the events, where each member independently
    takes the other sign w.p. 0.25 (mixed-sign events: a change that speeds some paths up).
  - single event: one random benchmark, sign + w.p. 0.6.
  - size of each hit, in that benchmark's noise units |step|/noise_cv: w.p. 0.8 moderate
    ~ log-U(0.5, 4), w.p. 0.2 large ~ log-U(4, 12); steps rounded to 4 decimals, improvements
    capped at -60 %.  The labelled step is the one applied.
  - placement: every change point i has 15 <= i <= n - 15 (>= 15 commits of each regime at the
    ends); the shared events of a suite are >= 20 commits apart from each other, and every series'
    change points are >= 20 apart.  An event that finds no place in 200 draws is dropped.

Command line: ``--suites N --seed S`` -> the suites as JSON on stdout; ``--flat`` instead writes
the list of series entries (each with its "suite" added), the single-series corpus format that
bench/corpus_cli.py's generators write.  (corpus_cli.write_corpus is not used: its ``--series``
count and output are single-series entries, while ``generate`` here returns suites.)
"""

from __future__ import annotations

import argparse
import json
import math
import sys

import numpy as np

DEFAULT_SEED = 41616

EDGE = 15  # change points at least this far from either end
GAP = 20  # change points of one series at least this far apart
AR_PHIS = (0.2, 0.3, 0.4, 0.5, 0.6)
OWN_KINDS = ("gauss", "lognorm", "ar", "bimodal")
OWN_KIND_P = (0.3, 0.2, 0.3, 0.2)
CV_MIN, CV_MAX = 0.01, 0.12


def _log_uniform(rng: np.random.Generator, lo: float, hi: float) -> float:
    return float(math.exp(rng.uniform(math.log(lo), math.log(hi))))


def _own_noise(rng: np.random.Generator, n: int, cv: float) -> tuple[np.ndarray, str]:
    """Multiplicative noise factor, mean 1 and CV ``cv`` (stationary), and its kind label."""
    kind = OWN_KINDS[int(rng.choice(len(OWN_KINDS), p=OWN_KIND_P))]
    if kind == "gauss":
        return 1.0 + cv * rng.standard_normal(n), "gauss"
    if kind == "lognorm":
        sigma = math.sqrt(math.log1p(cv * cv))
        return np.exp(sigma * rng.standard_normal(n) - sigma * sigma / 2), "lognorm"
    if kind == "ar":
        phi = AR_PHIS[int(rng.integers(len(AR_PHIS)))]
        z = rng.standard_normal(n)
        e = np.empty(n)
        e[0] = z[0]
        scale = math.sqrt(1 - phi * phi)
        for t in range(1, n):
            e[t] = phi * e[t - 1] + scale * z[t]
        return 1.0 + cv * e, f"ar{phi:.1f}"
    # bimodal: Markov fast/slow mode, stationary slow share p
    p = rng.uniform(0.1, 0.4)
    dwell = rng.uniform(1.5, 6.0)
    leave_slow = 1.0 / dwell
    enter_slow = leave_slow * p / (1 - p)
    f = rng.uniform(0.6, 0.9)
    gap = math.sqrt(f) * cv / math.sqrt(p * (1 - p))
    jitter = math.sqrt(1 - f) * cv
    u = rng.random(n)
    mode = np.empty(n)
    state = rng.random() < p
    for t in range(n):
        if t > 0:
            state = (u[t] >= leave_slow) if state else (u[t] < enter_slow)
        mode[t] = 1.0 if state else 0.0
    return 1.0 + gap * (mode - p) + jitter * rng.standard_normal(n), "bimodal"


def _step(rng: np.random.Generator, sign: int, cv: float) -> float:
    units = _log_uniform(rng, 0.5, 4.0) if rng.random() < 0.8 else _log_uniform(rng, 4.0, 12.0)
    return round(max(sign * units * cv, -0.6), 4)


def _place(rng: np.random.Generator, n: int, taken: list[int]) -> int | None:
    for _ in range(200):
        i = int(rng.integers(EDGE, n - EDGE + 1))
        if all(abs(i - j) >= GAP for j in taken):
            return i
    return None


def _suite(rng: np.random.Generator, number: int) -> dict:
    name = f"suite-{number:03d}"
    k = int(rng.integers(4, 17))
    n = int(rng.integers(60, 501))
    names = [f"{name}/bench-{j:02d}" for j in range(k)]

    # -- noise --------------------------------------------------------------------------------
    common = rng.random() < 0.35
    common_cv = float(rng.uniform(0.01, 0.05)) if common else 0.0
    if common:
        s = math.sqrt(math.log1p(common_cv**2))
        machine = np.exp(s * rng.standard_normal(n) - s * s / 2)
        hiccups = np.flatnonzero(rng.random(n) < rng.uniform(0.0, 0.01))
        machine_spike = np.ones(n)
        machine_spike[hiccups] = 1.0 + rng.uniform(0.1, 0.6, len(hiccups))
    else:
        machine = np.ones(n)
        hiccups = np.array([], dtype=int)
        machine_spike = np.ones(n)

    bases, noise_cvs, own_cvs, noises, own_kinds, spikes, outliers = [], [], [], [], [], [], []
    for _ in range(k):
        bases.append(10 ** rng.uniform(-6, 1))
        if common:
            total = _log_uniform(rng, max(CV_MIN, 1.1 * common_cv), CV_MAX)
            own = math.sqrt((1 + total * total) / (1 + common_cv**2) - 1)
        else:
            total = own = _log_uniform(rng, CV_MIN, CV_MAX)
        noise, kind = _own_noise(rng, n, own)
        spike = machine_spike.copy()
        if rng.random() < 0.5:
            own_spikes = np.flatnonzero(rng.random(n) < rng.uniform(0.002, 0.02))
            spike[own_spikes] *= 1.0 + rng.uniform(0.15, 1.0, len(own_spikes))
        noise_cvs.append(total)
        own_cvs.append(own)
        noises.append(noise)
        own_kinds.append(kind)
        spikes.append(spike)
        outliers.append(sorted(int(i) for i in np.flatnonzero(spike != 1.0)))

    # -- changes ------------------------------------------------------------------------------
    changes: list[dict[int, float]] = [{} for _ in range(k)]  # per benchmark: index -> step
    events: list[dict] = []
    if rng.random() >= 0.25:
        while True:
            n_shared = int(rng.choice(4, p=(0.2, 0.4, 0.25, 0.15)))
            n_single = int(rng.choice(3, p=(0.35, 0.4, 0.25)))
            if n_shared + n_single:
                break
        shared_at: list[int] = []
        for _ in range(n_shared):
            i = _place(rng, n, shared_at)
            if i is None:
                continue
            shared_at.append(i)
            if rng.random() < 0.25:
                m = int(rng.integers(math.ceil(0.6 * k), k + 1))
            else:
                m = int(rng.integers(2, max(2, k // 2) + 1))
            members = sorted(int(j) for j in rng.choice(k, size=m, replace=False))
            sign = 1 if rng.random() < 0.7 else -1
            flip = 0.25 if rng.random() < 0.25 else 0.0
            for j in members:
                s_j = -sign if rng.random() < flip else sign
                changes[j][i] = _step(rng, s_j, noise_cvs[j])
            events.append({"index": i, "members": [names[j] for j in members], "kind": "shared"})
        for _ in range(n_single):
            j = int(rng.integers(k))
            i = _place(rng, n, list(changes[j]))
            if i is None:
                continue
            changes[j][i] = _step(rng, 1 if rng.random() < 0.6 else -1, noise_cvs[j])
            events.append({"index": i, "members": [names[j]], "kind": "single"})
    events.sort(key=lambda e: (e["index"], e["kind"], e["members"]))

    # -- values -------------------------------------------------------------------------------
    series = []
    for j in range(k):
        cps = sorted(changes[j])
        steps = [changes[j][i] for i in cps]
        level = np.ones(n)
        for i, st in zip(cps, steps):
            level[i:] *= 1.0 + st
        values = bases[j] * level * np.maximum(noises[j], 0.05) * machine * spikes[j]
        series.append(
            {
                "benchmark": names[j],
                "values": [float(v) for v in values],
                "change_points": cps,
                "steps": steps,
                "noise_cv": round(noise_cvs[j], 6),
                "kind": "common" if common else own_kinds[j],
                "own_kind": own_kinds[j],
                "own_cv": round(own_cvs[j], 6),
                "base": float(bases[j]),
                "outliers": outliers[j],
            }
        )
    return {
        "suite": name,
        "length": n,
        "common_cv": round(common_cv, 6),
        "events": events,
        "series": series,
    }


def generate(count: int, seed: int) -> list[dict]:
    """``count`` labelled suites from ``numpy.random.default_rng(seed)`` (see the module doc)."""
    rng = np.random.default_rng(seed)
    return [_suite(rng, number) for number in range(count)]


def flatten(suites: list[dict]) -> list[dict]:
    """The suites' series as single-series corpus entries, each with its "suite" added."""
    return [{**entry, "suite": s["suite"]} for s in suites for entry in s["series"]]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--suites", type=int, default=100)
    p.add_argument("--seed", type=int, default=DEFAULT_SEED)
    p.add_argument("--flat", action="store_true", help="write the series entries, not the suites")
    args = p.parse_args()
    suites = generate(args.suites, args.seed)
    json.dump(flatten(suites) if args.flat else suites, sys.stdout)


if __name__ == "__main__":
    main()
