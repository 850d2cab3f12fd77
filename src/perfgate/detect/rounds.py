"""Interleaved rounds as the pairing unit: a paired t on per-round log ratios, its MDE, and
alpha spending for checks that add rounds until every benchmark is decided.

``perfgate check`` runs base and head back to back, round after round.  Each round r gives, per
benchmark, the raw samples of both sides; samples inside a round share the machine's state of
that moment (they are autocorrelated), so they narrow that round's estimate but are not
independent evidence.  The judgement therefore has two levels:

* inside a round: ``d_r = trimmed_mean(log h_r) - trimmed_mean(log b_r)`` (20% cut from each
  end), the round's log ratio head/base — every raw sample counts, a stray slow sample does not;
* across rounds: a paired t-test on ``d_1 … d_R`` (df = R - 1), ``t = mean(d) / (sd(d) / √R)``.

Why this test: ``bench/check_test_choice.py`` on 10 recorded A/A rounds of the real tree-alloc
suite (``tests/fixtures/check-rounds/tree-alloc-aa.json``; rounds resampled, sides swapped at
random, a slowdown planted in one benchmark chosen at random, Benjamini–Hochberg at 0.05 over the
check's 20 hypotheses, 200 trials per cell):

=================  ==========  ========  ========  ========  ========  =========
share flagged      signed-rank sign-flip t (mean)  t (trim)  t (median) Mann–Whitney, pooled
=================  ==========  ========  ========  ========  ========  =========
A/A, 6 rounds      0.000       0.000     0.015     0.005     0.000     0.350
A/A, 8 rounds      0.000       0.000     0.015     0.005     0.005     0.265
+5%, 8 rounds      0.000       0.000     0.065     0.075     0.035     0.570
+10%, 6 rounds     0.000       0.000     0.120     0.120     0.100     0.615
+10%, 8 rounds     0.000       0.000     0.320     0.350     0.295     0.730
+10% in BM_Copy/   0.000       0.000     0.780     1.000     1.000     1.000
buffer, 8 rounds
=================  ==========  ========  ========  ========  ========  =========

The signed-rank test on round medians (what check used before) and a sign-flip permutation
test cannot go below ``p = 2 / 2^R``: with 6–8 rounds and 20 hypotheses they never flag anything.
Pooling every raw sample and ignoring the rounds (Mann–Whitney) flags something in 27–35% of A/A
checks: samples of one round share the machine's state.  The paired t on per-round ratios keeps
A/A well under 5%; the 20%-trimmed mean inside a round had the fewest false alarms and as much
power as the plain mean or more (all of 200 planted 10% slowdowns of ``BM_Copy/buffer``, the
issue's case, against 78% for the mean), the median less power elsewhere.  (The power figures average over every
benchmark as the planted one; on this loaded machine half of them move 20–30% between rounds.)

MDE (:func:`mde`): the smallest relative change flagged with 80% probability by this test with
these rounds, this noise (``sd(d)``) and this level.  A first rejection under Benjamini–Hochberg
among ``m`` comparisons needs ``p ≤ level / m``, so the closed form is that of a two-sided t at
``level / m``: the non-centrality ``λ`` with ``P(|T_{R-1,λ}| > t_{1-level/2m, R-1}) = 0.8``,
``δ = λ · sd / √R``; the verdict also needs the estimate past ``min_effect``, which at 80% needs
``δ ≥ log(1 + min_effect) + z_0.8 · sd / √R``.  The MDE is the larger of the two.  With fewer
than 2 rounds there is no test at all, and the MDE is ``None``.  ``check`` reports it with the noise
at its 90% upper confidence bound (:func:`noise_bound`), so that "a change of this size would have
been caught 4 times in 5" is true of about 9 checks in 10, not of half of them (0.84–0.98 for
Gaussian, log-normal, t₂ and two-mode rounds, ``bench/calibration.py rounds-mde``; less where a
few rounds run far off).

Sequential checks (:func:`spending_levels`): looking after every round and stopping at the first
significant result would inflate false alarms.  Look k of at most K gets the level
``α_k = α(k/K) - α((k-1)/K)`` of the Lan–DeMets Pocock-type spending function
``α(t) = α · ln(1 + (e - 1) t)`` (alpha spending; O'Brien–Fleming's shape spends almost nothing
early, so a clear regression could not end a check after a few rounds); Benjamini–Hochberg runs
at ``α_k`` over all comparisons at look k.  The levels sum to α, and the false discovery rate of
everything flagged at any look is at most ``Σ α_k = α``: a union bound over looks, each look's
false discoveries divided by a rejection set at least as large as that look's own.  It needs no
assumption about how the looks are correlated, so it is conservative; stopping before look K (a
budget ran out) spends less, never more.

Pure numpy/scipy; no I/O.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np
from scipy import optimize, stats

from perfgate.detect.stats import relative_change

TRIM = 0.2        # share cut from each end of a round's log samples
POWER = 0.8
MIN_ROUNDS = 2    # a t on R - 1 degrees of freedom needs R ≥ 2
NOISE_CONFIDENCE = 0.9   # the MDE is computed at this one-sided bound of the noise, not its estimate


@dataclass(frozen=True)
class RoundTest:
    rounds: int
    shift: float           # mean of the per-round log ratios
    sd: float              # their standard deviation (ddof = 1)
    p_value: float
    ci_low: float          # (1 - alpha) t interval of the log shift
    ci_high: float


def round_shift(base: Sequence[float], head: Sequence[float]) -> float:
    """One round's log ratio head/base from all its raw samples (trimmed means of the logs)."""
    lb, lh = np.log(np.asarray(base, float)), np.log(np.asarray(head, float))
    return float(stats.trim_mean(lh, TRIM) - stats.trim_mean(lb, TRIM))


def round_shifts(base_rounds: Sequence[Sequence[float]], head_rounds: Sequence[Sequence[float]]) -> np.ndarray:
    if len(base_rounds) != len(head_rounds):
        raise ValueError(f"{len(base_rounds)} base rounds but {len(head_rounds)} head rounds")
    return np.array([round_shift(b, h) for b, h in zip(base_rounds, head_rounds)])


def round_differences(base_rounds: Sequence[Sequence[float]], head_rounds: Sequence[Sequence[float]],
                      scale: float) -> np.ndarray:
    """Each round's head − base (trimmed means of the raw samples) over ``scale``: the shift of a
    measure that is not positive throughout (a scaling table's Δ columns, cost minus a baseline,
    can dip to or below zero), which no log ratio can take, relative to the base's level."""
    if len(base_rounds) != len(head_rounds):
        raise ValueError(f"{len(base_rounds)} base rounds but {len(head_rounds)} head rounds")
    # Scaled before any sum: values near the largest float overflowed a mean, and a level 1e-300
    # under them a quotient (the floor keeps every scaled value within 1e100).
    largest = max((float(np.max(np.abs(r))) for r in (*base_rounds, *head_rounds) if len(r)), default=0.0)
    scale = max(scale, largest * 1e-100)
    return np.array([stats.trim_mean(np.asarray(h, float) / scale, TRIM) - stats.trim_mean(np.asarray(b, float) / scale, TRIM)
                     for b, h in zip(base_rounds, head_rounds)])


def paired_t(d: np.ndarray, alpha: float) -> RoundTest | None:
    """The paired t on per-round log ratios; ``None`` with fewer than :data:`MIN_ROUNDS` rounds."""
    n = d.size
    if n < MIN_ROUNDS:
        return None
    mean, sd = float(d.mean()), float(d.std(ddof=1))
    if sd == 0:  # every round moved by exactly the same amount: only possible for exact measures
        p = 0.0 if mean != 0 else 1.0
        return RoundTest(n, mean, 0.0, p, mean, mean)
    se = sd / math.sqrt(n)
    t = mean / se
    p = float(2 * stats.t.sf(abs(t), n - 1))
    half = float(stats.t.ppf(1 - alpha / 2, n - 1)) * se
    return RoundTest(n, mean, sd, p, mean - half, mean + half)


def mde(sd: float, rounds: int, level: float, comparisons: int, min_effect: float | None = 0.0,
        power: float = POWER) -> float | None:
    """Smallest relative change (``exp(δ) - 1``) flagged with probability ``power``; see the
    module docstring.  ``None`` when the test cannot flag anything (fewer than 2 rounds)."""
    if rounds < MIN_ROUNDS:
        return None
    df = rounds - 1
    crit = float(stats.t.ppf(1 - level / (2 * max(comparisons, 1)), df))
    if not math.isfinite(crit):     # a level past float precision: nothing can be flagged
        return math.inf

    def shortfall(ncp: float) -> float:
        # the far tail P(T < -crit) is below 1e-6 wherever it matters, and scipy returns NaN for it
        # at large ncp: count it only when finite
        far = float(stats.nct.cdf(-crit, df, ncp))
        return float(stats.nct.sf(crit, df, ncp)) + (far if math.isfinite(far) else 0.0) - power

    hi = crit + 10.0
    while shortfall(hi) < 0:
        if hi > 1e6:                # (a noncentrality past this is no change a run can show)
            return math.inf
        hi *= 2
    ncp = optimize.brentq(shortfall, 0.0, hi, xtol=1e-6)
    se = sd / math.sqrt(rounds)
    delta = ncp * se
    if min_effect is not None:
        delta = max(delta, math.log1p(min_effect) + float(stats.norm.ppf(power)) * se)
    return relative_change(delta)


def noise_bound(sd: float, df: float, upper: bool = True, confidence: float = NOISE_CONFIDENCE) -> float:
    """A one-sided ``confidence`` bound of the noise's standard deviation from an estimate ``sd``
    on ``df`` degrees of freedom (chi-square: ``sd · √(df / χ²)``).  A few rounds' spread is itself
    noisy; an MDE at the estimate was below the true one in half the checks (on fresh noise the
    lowest tenth of reported MDEs was caught 6–39% of the time, not 80%).  At the upper bound, "a
    change of MDE would have been caught" holds in ``confidence`` of checks; at the lower bound,
    "not even a doubling could have been" does."""
    if df <= 0 or not math.isfinite(sd):
        return sd
    q = stats.chi2.ppf(1 - confidence if upper else confidence, df)
    return sd * math.sqrt(df / q)


def spending_levels(alpha: float, looks: int) -> list[float]:
    """Per-look levels of the Pocock-type spending function over ``looks`` equally spaced
    looks; they sum to ``alpha``."""
    spent = [alpha * math.log1p((math.e - 1) * k / looks) for k in range(looks + 1)]
    return [spent[k] - spent[k - 1] for k in range(1, looks + 1)]
