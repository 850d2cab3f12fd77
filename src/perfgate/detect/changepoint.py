"""Change points in a performance history: a ruptures search, then two tests per candidate.

Pipeline (``ChangePointDetector(settings).fit(values).predict()``):

1. :class:`~perfgate.detect.noise.NoiseModel` puts the series on a relative (log) scale, measures
   its robust noise ``sigma`` and winsorizes spikes and tail values (far-out fences about a
   rolling median).  Where runs carry raw samples, a run whose samples scatter more than
   typical is weighed down (its deviation from its reliable neighbours shrunk).
2. **Search** (over-generating on purpose): exact PELT with the L2 cost — the change points of
   ruptures' ``KernelCPD(kernel="linear")``, computed in C by :mod:`perfgate.detect.pelt` — minimising
   ``Σ_segments Σ (y_t - ȳ_seg)² / s² + β · #changes`` with the low penalty
   ``β = 2 log n`` on the winsorized series, ``s`` its first-difference spread; ``jump=1`` so
   change points are not snapped to a grid.
3. **Screen**: candidates whose mean shift is far from significant (``z < 3`` from cumulative
   sums, O(1) each) are dropped, weakest first.
4. **Test and prune**: each candidate τ is judged on local windows (at most ``WINDOW`` points,
   never crossing a neighbouring candidate) ``L = y[τ-w:τ]`` and ``R = y[τ:τ+w]`` by
   a Mann–Whitney rank test on the raw values — distribution-free, so tails, spikes and bimodal
   noise cannot fake significance — and a t-test on each window clipped to its own far-out
   fences (a rank test alone saturates on short windows), both with their variance inflated by
   ``(1+ρ)/(1-ρ)`` for the series' lag-1 autocorrelation ρ (the larger of that about the
   candidates and the persistence about a rolling median, which no false candidate cuts),
   Bonferroni-combined ``p = 2 · min(p_rank, p_t)``.  The location was chosen by a search, so the p-value is
   scan-adjusted (Bonferroni over the n possible positions): ``p_adj = min(1, n · p)``.  A
   candidate survives when ``p_adj ≤ 1 - confidence``, its relative size ``|Δ| ≥ min_effect``,
   the rank test agrees on its own (``|z| ≥ 3``, or 90% of the most its windows allow: the
   fenced t-test assumes one mode, and bimodal noise fooled it), and the step stands out from
   a smooth trend through both windows (``|z| ≥ 2`` for the step term of
   ``y = α + β t + γ t² + c [t ≥ τ]``: a slow drift or a hump is not a step).  The failing
   candidate with the smallest test statistic is dropped and its neighbours re-judged, until all
   survivors pass (the newest runs at a level too new to be a regime, ``NoiseModel.pending``, are
   left out of the last change's right window and are a segment of their own in the residuals:
   a revert 1–4 runs old is no evidence against the step before it); ρ is then re-estimated on the survivors' segmentation and, when larger,
   the pruning repeated once.  Last, two or more consecutive survivors in one direction must
   beat a quadratic trend over their whole span (a slow drift cut into a staircase of steps
   passes each step's local guard).
5. **Report** each survivor: τ (the first index of the new regime, refined to maximise the
   two-sample likelihood ratio ``LR(t) = n_L n_R / (n_L + n_R) · (ȳ_L - ȳ_R)² / s²`` near the
   candidate, ``s`` the pooled deviation of the fenced judging windows about it), the first and
   last t with ``LR(τ) - LR(t) ≤ L(δ)·inflation`` (a 95% set for the location, δ the step in
   inflated noise deviations: a change's location is not a regular parameter, and ``L`` is the
   95% quantile of the larger of two random walks' maxima, 7.35 − 1.17 δ (:func:`~perfgate.detect.location.location_level`),
   not the chi-square 3.84; it holds the true run 0.95–0.99 of the time for steps of 1–5
   deviations, ``bench/location_coverage.py``), the runs next to τ within 3.84 (the likeliest,
   where sibling series look for the change), the relative magnitude ``exp(HL) - 1`` with HL the Hodges–Lehmann
   shift, its confidence interval ``HL ± z · s_w · sqrt((1/n_L + 1/n_R) · inflation)`` (s_w the
   pooled deviation of the fenced windows, z at the settings' confidence), the scan-adjusted
   p-value, and the direction for the measure.

6. **Modes**: a short excursion — a pair of opposite changes that returns where it began — into a
   level the series keeps visiting is a sticky second mode, not two changes, and is dropped
   (:mod:`perfgate.detect.modes`); a regression and its revert stay.

Where sibling series (benchmarks run on the same machine along the same commits) changed, a series
can be tested again at those places (:meth:`ChangePointDetector.corroborate`): fixed in advance by
another series, they cost the scan adjustment only their own number of locations, times the
series tested there over one more than those that found the change alone (a Benjamini–Hochberg
bound); there the drift guard asks less of a step where the regime about it shows no trend
(:meth:`ChangePointDetector._guard_at_place`).  A change the series found alone is first placed
at the commit where its likelihood and its siblings' nearby are largest together, when the change
still passes its own, series-wide tests there (:meth:`ChangePointDetector.align`): a small step's
best split strays several runs in the noise, each benchmark's its own way, and a commit that moved
several is located by all.

A single-run spike is never a change point: regimes have at least ``min_segment`` points, a
rank test cannot be moved by one point's size, and the t-test sees the spike clipped.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from collections.abc import Callable, Sequence
from itertools import groupby

import numpy as np

from perfgate.detect.elimination import eliminate
from perfgate.detect.location import LOCATION_LEVEL, locate, split_scores
from perfgate.detect.modes import without_mode_visits
from perfgate.detect.noise import NoiseModel, lag1_autocorrelation, variance_inflation, wander_autocorrelation
from perfgate.detect.pelt import pelt_l2
from perfgate.detect.stats import (far_out_fences, hodges_lehmann, mean_test, normal_quantile, pooled_sd, rank_test,
                                  raw_median)
from perfgate.thresholds import ChangePointSettings

WINDOW = 90          # points each side used to judge a candidate (bounds the effect of slow drift)
LOCATE_WINDOW = 60     # points each side of a candidate searched when refining its location
LIKELIHOOD_FLOOR = 20.0  # a commit this far below a change's best split (twice the log-likelihood) is ruled out
SCREEN_Z = 3.0         # first-pass cut, far below the final (scan-adjusted) significance
CHUNK = 1000          # longest stretch one exact search sees (its cost is quadratic in it)
CHUNK_OVERLAP = 100   # context each side of the part of a chunk whose candidates are kept
DRIFT_GUARD_Z = 2.0    # a step must stand out from a smooth (quadratic) trend through both windows
SIBLING_GUARD_Z = 1.0  # ... by this much at a place a sibling's change fixed, where the regime
REGIME_TREND_Z = 1.5   # about it shows no trend (its linear and quadratic terms' |z| under this),
PLACE_SHARE = 0.5      # and the place costs at most this share of the series' positions
RANK_Z = 3.0           # ... and the rank test must agree on its own (|z| ≥ 3, unadjusted),
RANK_SATURATION = 0.9  # or come within 90% of the most its windows allow (a 5-run regime)
MOSTLY_SET_ASIDE = 0.5  # a regime whose runs were mostly set aside for their samples has no level of its own


@dataclass(frozen=True)
class ChangePoint:
    index: int             # first point of the new regime
    index_low: int         # the new regime's first point lies in [index_low, index_high]
    index_high: int
    magnitude: float       # relative change of the level: after / before - 1
    ci_low: float          # confidence interval of magnitude, at the settings' confidence
    ci_high: float
    p_value: float         # scan-adjusted two-sided p-value (rank and fenced t-test combined)
    confidence: float      # 1 - p_value
    direction: str         # "regression" | "improvement"
    before: float          # median of the raw values in the window before / after
    after: float
    # The runs whose split scores within LOCATION_LEVEL of the best, next to it: where the change
    # likeliest is, and where a sibling series looks for it (a wider place costs its re-test more
    # of its p-value: over 4 seeds of the suite corpus, 3-7 true changes fewer with the range).
    likeliest_low: int = -1
    likeliest_high: int = -1
    # The level of ci_low..ci_high (the settings' confidence), which every text of it names: a
    # threshold streak's interval beside it is 95%.  None: not known.
    ci_level: float | None = None

    def to_json(self) -> dict:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


@dataclass(frozen=True)
class Likelihood:
    """Where a found change could be: twice the log-likelihood ratio of a change at run ``start``,
    ``start + 1``, ... against where it was found, over ``LOCATE_WINDOW`` runs either side of it;
    ``-LIKELIHOOD_FLOOR`` at the runs beyond (rounded to hundredths, so that a saved one is the
    same)."""
    start: int
    values: Sequence[float]

    @property
    def end(self) -> int:
        return self.start + len(self.values)


def _likelihoods_over(siblings: list[Likelihood], a: int, b: int) -> np.ndarray:
    """The siblings' ratios at runs a..b, a row each."""
    out = np.full((len(siblings), b - a + 1), -LIKELIHOOD_FLOOR)
    for row, s in zip(out, siblings):
        lo, hi = max(s.start, a), min(s.end, b + 1)
        if lo < hi:
            row[lo - a:hi - a] = s.values[lo - s.start:hi - s.start]
    return out


def direction_of(magnitude: float, lower_is_better: bool) -> str:
    worse = magnitude > 0 if lower_is_better else magnitude < 0
    return "regression" if worse else "improvement"


class ChangePointDetector:
    """``ChangePointDetector(settings, lower_is_better).fit(values).predict() -> [ChangePoint]``."""

    def __init__(self, settings: ChangePointSettings | None = None, lower_is_better: bool = True,
                 window: int = WINDOW):
        self.settings = settings or ChangePointSettings()
        self.lower_is_better = lower_is_better
        self.window = window

    def fit(self, values, samples=None) -> "ChangePointDetector":
        """``samples``, when given, holds each run's raw samples (empty for a run without): runs
        whose samples scatter more than typical weigh less (:meth:`NoiseModel._weigh`)."""
        self.values_ = np.asarray(values, dtype=float)
        self.noise_ = NoiseModel(self.settings.min_segment).fit(self.values_, samples)
        self.inflation_ = 1.0    # the noise's variance inflation, once predict has estimated it
        return self

    @property
    def warm_up(self) -> int:
        """How many first runs were set aside as cold (``NoiseModel.warm_up``)."""
        return self.noise_.warm_up

    def predict(self) -> list[ChangePoint]:
        n = self.values_.size
        m = self.settings.min_segment
        if n < 2 * m:
            return []
        y, yw = self.noise_.y, self.noise_.winsorized
        candidates = self._search(yw, n, m)
        if not candidates:
            return []
        # The newest runs at a level too new to be a regime (NoiseModel.pending) are a segment of
        # their own in every residual: left in the last regime, a revert two runs old read as
        # persistence (ρ ≈ 0.5) and hid the step before it.
        tail = self._pending_start()
        rho = lag1_autocorrelation(_residuals(yw, candidates + tail))
        # (A block-means estimate of the correlation used to inflate the screen further; on series
        # under ~300 points it has too few blocks and dropped true steps in independent noise.
        # Lag-1 correlation is not taken in units of the local noise: AR(1) wander is then partly
        # absorbed by the local scale, and false alarms rose.)
        # The correlation about a segmentation is lost where false changes cut the noise's long
        # stays into regimes of their own; about a rolling median it is not
        # (wander_autocorrelation), but there steps can show as correlation too, so it is measured
        # first over the whole series, then away from the changes that pass under it.
        wander = wander_autocorrelation(yw, tail)
        candidates = self._screen(yw, candidates, variance_inflation(max(rho, wander)))
        # Residuals about the many raw candidates soak up correlated wander; about the screened
        # ones they show it.
        rho = max(rho, lag1_autocorrelation(_residuals(yw, candidates + tail)))
        first = max(rho, wander)
        passing = self._prune(y, candidates, variance_inflation(first))
        wander = wander_autocorrelation(yw, passing + tail)
        # The same correlation prunes to the same changes: only a new one is pruned again.
        kept = passing if max(rho, wander) == first else self._prune(y, candidates, variance_inflation(max(rho, wander)))
        if kept:
            refit = lag1_autocorrelation(_residuals(yw, kept + tail))
            if refit > rho:          # more correlated than the candidates suggested: re-judge
                rho = refit
                kept = self._prune(y, kept, variance_inflation(max(rho, wander)))
        inflation = self.inflation_ = variance_inflation(max(rho, wander))
        kept = self._drop_smooth_staircases(yw, kept, inflation)
        kept, bursts = self._merge_across_set_aside(yw, kept)
        # Each change is located between its left neighbour's refined index and its right
        # neighbour's candidate, so the reported indices strictly increase: one series never
        # reports two change points at one index.
        found: list[ChangePoint] = []
        for i in range(len(kept)):
            found.append(self._report(y, yw, kept, i, inflation, across_burst=i in bursts))
            kept[i] = found[-1].index
        return without_mode_visits(found, self.noise_.y, self.noise_.log_scale)

    def passes_at(self, changes: list[int]) -> list[bool]:
        """Whether each of ``changes`` (the first index of each new regime, increasing) passes
        this detector's tests, judged between its neighbours with the correlation of the noise
        about them: what the detector would find had its search and pruning placed every change
        exactly.  Given the true changes of a labelled series, it is the detector's ceiling
        (``bench/evaluate_detection.py``)."""
        y, yw = self.noise_.y, self.noise_.winsorized
        bounds = [*changes, *(t for t in self._pending_start() if not changes or t > changes[-1])]
        rho = max(lag1_autocorrelation(_residuals(yw, bounds)), wander_autocorrelation(yw, bounds))
        inflation = variance_inflation(rho)
        bounds = [0, *changes, y.size]
        return [self._judge(y, bounds[i], bounds[i + 1], bounds[i + 2], inflation)[0]
                for i in range(len(changes))]

    def corroborate(self, found: list[ChangePoint], ranges: list[tuple[int, int]], siblings: int = 1,
                    sources: list | None = None) -> list[ChangePoint]:
        """Changes this series shows where sibling series changed (benchmarks run on the same
        machine along the same commits): each of ``ranges`` (first index low..high of a change a
        sibling found, already in this series' indices; ``sources[i]`` names that sibling, each
        range its own by default) is a place fixed in advance, not picked from this series'
        noise, so its p-value pays for the places tested instead of every position of the
        series.  It also pays for the series tested there — this one and its ``siblings``, each
        one more chance of a false report (one commit's change must not raise one in some
        benchmark of every large suite) — as the Benjamini–Hochberg step-up procedure over those
        ``K = siblings + 1`` series would: where ``k`` of them found the change alone (their own
        p-values far smaller: they paid for every position of their series, more than the ``K``
        places a re-test may cost), any p-value under ``(k + 1) / K`` of the level is one it
        rejects, so the price is ``K / (k + 1)``.  The other tests of :meth:`_judge` (size, drift
        guard, rank agreement) hold, the drift guard's bar lower where the regime shows no trend
        (:meth:`_guard_at_place`), and the changes kept must pass together (each
        judged between its neighbours, the weakest failing one dropped until all pass).
        ``found``: this series' own changes (from :meth:`predict`), which bound the windows and
        are kept; a range within ``min_segment`` of one of them is that change.  Returns the new
        changes."""
        y, yw = self.noise_.y, self.noise_.winsorized
        n, m = y.size, self.settings.min_segment
        own = [cp.index for cp in found]
        named = [((max(a, m), min(b, n - m)), who)
                 for (a, b), who in zip(ranges, sources if sources is not None else range(len(ranges)))]
        spans = _merged([r for r, _ in named])
        spans = [(a, b) for a, b in spans if a <= b and all(b < t - m or a > t + m for t in own)]
        width = sum(b - a + 1 for a, b in spans)
        if not spans:
            return []
        inflation = self.inflation_
        bounds = [0, *own, n]
        chosen: dict[int, tuple[tuple[int, int], float]] = {}     # index -> (its range, its scan)
        last = -m

        def passes(lo: int, t: int, hi: int, scan: float) -> tuple[bool, float, float]:
            # the bar's regime fit asked only of a place whose p-value and effect pass (most do not)
            return self._judge(y, lo, t, hi, inflation, scan, lambda: self._guard_at_place(lo, t, hi, inflation, scan))

        for a, b in spans:
            changed_here = len({who for (u, v), who in named if u <= b and a <= v})
            scan = width * (max(siblings, 1) + 1) / (changed_here + 1)
            if scan >= n:     # no cheaper than the search of every position, which found nothing here
                continue
            k = int(np.searchsorted(own, a))
            lo, hi = bounds[k], bounds[k + 1]
            t = locate(yw, lo, hi, a, m, self._sigma_at(a), inflation, (a, b))[0]
            if passes(lo, t, hi, scan)[0] and t - last >= m:
                chosen[t] = ((a, b), scan)
                last = t

        def judge(lo: int, t: int, hi: int) -> tuple[bool, float]:
            # the series' own changes stay; each new one is judged between its neighbours
            return (True, math.inf) if t not in chosen else passes(lo, t, hi, chosen[t][1])[:2]

        cps = eliminate(sorted(own + list(chosen)), n, judge)
        return [self._report(y, yw, cps, i, inflation, within=chosen[t][0], scan=chosen[t][1])
                for i, t in enumerate(cps) if t in chosen]

    def likelihoods(self, found: list[ChangePoint]) -> list[Likelihood]:
        """For each of ``found`` (this series' changes, from :meth:`predict`), where it could be
        (:class:`Likelihood`), over the regime between its neighbours: what a sibling series
        weighs its own changes' places by (:meth:`align`)."""
        y, yw = self.noise_.y, self.noise_.winsorized
        out = []
        for i, cp in enumerate(found):
            profile = self._profile(y, yw, found[i - 1].index if i > 0 else 0,
                                    found[i + 1].index if i + 1 < len(found) else y.size, cp.index)
            a, b = max(cp.index - LOCATE_WINDOW, 0), min(cp.index + LOCATE_WINDOW, y.size)
            kept = np.flatnonzero(profile[a:b + 1] > -LIKELIHOOD_FLOOR) + a
            a, b = int(kept.min()), int(kept.max())
            out.append(Likelihood(a, tuple(float(v) for v in np.round(profile[a:b + 1], 2))))
        return out

    def align(self, found: list[ChangePoint], siblings: list[Likelihood]) -> tuple[list[ChangePoint], list[list[int]]]:
        """``found`` (this series' own changes, from :meth:`predict`) with each change moved to the
        commit its siblings' changes nearby and its own likelihood support best together, and for
        each change the siblings (indices in ``siblings``, their :meth:`likelihoods` in this
        series' indices) whose change could be at its new place (empty where it stays).  A
        sibling's change counts when the two changes' 95% profile-likelihood sets share a commit
        within ``LOCATE_WINDOW`` runs of this one; the place is the commit of the change's own set
        with the largest sum of their likelihood ratios (each floored at ``-LIKELIHOOD_FLOOR``, so
        that no one sibling rules a place out for the rest), and the change moves there when it
        still passes its tests, scan-adjusted over the whole series as when it was found.  A small
        step's best split strays several runs in the noise, each benchmark's its own way; a commit
        that moved several benchmarks is located by all of them together.  Nothing is added or
        removed."""
        members_of: list[list[int]] = [[] for _ in found]
        if not siblings or not found:
            return found, members_of
        y, yw = self.noise_.y, self.noise_.winsorized
        n, m = y.size, self.settings.min_segment
        out = list(found)
        for i, cp in enumerate(found):
            t0 = cp.index
            lo = out[i - 1].index if i > 0 else 0
            hi = found[i + 1].index if i + 1 < len(found) else n
            own = self._profile(y, yw, lo, hi, t0)
            a, b = max(lo + m, t0 - LOCATE_WINDOW), min(hi - m, t0 + LOCATE_WINDOW)
            if a > b:
                continue
            inside = own[a:b + 1] >= -LOCATION_LEVEL
            near = [j for j, s in enumerate(siblings) if s.start <= b and s.end > a]
            theirs = _likelihoods_over([siblings[j] for j in near], a, b)
            counted = ((theirs >= -LOCATION_LEVEL) & inside).any(axis=1)
            if not counted.any():
                continue
            joint = np.where(inside, own[a:b + 1], -np.inf) + theirs[counted].sum(axis=0)
            k = int(np.argmax(joint))
            t = a + k
            here = [near[r] for r in np.flatnonzero(counted) if theirs[r, k] >= -LOCATION_LEVEL]
            if t == t0 or not here or not self._judge(y, lo, t, hi, self.inflation_)[0]:
                continue
            moved = [c.index for c in out]
            moved[i] = t
            placed = self._report(y, yw, moved, i, self.inflation_, within=(t, t))
            # the commits it could be still include those its own location named
            out[i] = replace(placed, index_low=min(placed.index_low, cp.index_low),
                             index_high=max(placed.index_high, cp.index_high))
            members_of[i] = here
        return out, members_of

    def _profile(self, y: np.ndarray, yw: np.ndarray, lo: int, hi: int, t0: int) -> np.ndarray:
        """Twice the log-likelihood ratio of a change at each run of ``lo + 1 .. hi - 1`` against
        one at ``t0``, over the regime ``lo..hi`` (``-inf`` at the other runs, 0..n)."""
        ts, lr = split_scores(yw, lo, hi, self._location_sigma(y, lo, t0, hi), self.inflation_)
        out = np.full(y.size + 1, -np.inf)
        out[ts] = lr - lr[t0 - lo - 1]
        return out

    # --- search --------------------------------------------------------------------------------

    def _search(self, yw: np.ndarray, n: int, m: int) -> list[int]:
        if np.ptp(yw) == 0:
            return []
        # Spread of the series from its first differences clipped to their far-out fences: steps
        # are a handful of outlying differences and drop out, while mode switches of a bimodal
        # benchmark are a large share of them and count (sigma, the within-mode MAD, would not).
        self.spread_ = max(float(np.std(fenced(np.diff(yw), self.noise_.sigma))) / math.sqrt(2), self.noise_.sigma)
        signal = ((yw - np.median(yw)) / self.spread_).reshape(-1, 1)
        # The same spread about each point (over the two judging windows), for the screen.
        d2 = np.concatenate([[0.0], np.cumsum(fenced(np.diff(yw), self.noise_.sigma) ** 2)])
        a = np.clip(np.arange(n) - self.window, 0, n - 1)
        b = np.clip(np.arange(n) + self.window, 1, n - 1)
        self.local_spread_ = np.maximum(np.sqrt((d2[b] - d2[a]) / (b - a) / 2), self.noise_.local_sigma)
        return chunked_search(signal, m, 2.0 * math.log(n))

    # --- test and prune ------------------------------------------------------------------------

    def _windows(self, y: np.ndarray, lo: int, t: int, hi: int) -> tuple[np.ndarray, np.ndarray]:
        hi = self._evidence_end(t, hi)
        return y[max(lo, t - self.window):t], y[t:min(hi, t + self.window)]

    def newest_level(self) -> tuple[int, float] | None:
        """The newest runs at a level too new to be a regime (``NoiseModel.pending``): how many, and
        their level against the ``min_segment`` runs before them as a relative change; None when
        there are none."""
        k, m, y = self.noise_.pending, self.settings.min_segment, self.noise_.y
        if not k:
            return None
        before = y[-k - m:-k]
        return k, self.noise_.relative(float(np.median(y[-k:]) - np.median(before)), self._level_of(before))

    def _pending_start(self) -> list[int]:
        """The first of the newest runs at a level too new to be a regime (``NoiseModel.pending``),
        as a list of none or one."""
        n = self.values_.size
        return [n - self.noise_.pending] if self.noise_.pending else []

    def _evidence_end(self, t: int, hi: int) -> int:
        """Where the right window of change ``t`` (its right neighbour ``hi``) may reach: ``hi``,
        but for the last change, when it leaves ``min_segment`` runs before them, the newest runs
        at a level too new to be a regime are left out — a revert one to four runs old is no
        evidence against the step before it (in its right window it split the rank test).  A
        candidate nearer to them is the search's own cut of that level, judged as before."""
        n = self.values_.size
        end = n - self.noise_.pending
        return end if hi == n and t + self.settings.min_segment <= end else hi

    def _screen(self, yw: np.ndarray, cps: list[int], inflation: float) -> list[int]:
        """Cheap first pass (O(1) per candidate from cumulative sums): drop candidates whose
        winsorized mean shift is far from significant, ``z² < SCREEN_Z²``, weakest first.  The
        first-difference spread of :meth:`_search` hardly overstates the noise, so this pass errs
        on keeping."""
        csum = np.concatenate([[0.0], np.cumsum(yw)])
        scale = self.local_spread_ ** 2 * inflation

        def z2(lo: int, t: int, hi: int) -> tuple[bool, float]:
            lo, hi = max(lo, t - self.window), min(self._evidence_end(t, hi), t + self.window)
            d = (csum[hi] - csum[t]) / (hi - t) - (csum[t] - csum[lo]) / (t - lo)
            score = d * d / (scale[t] * (1 / (hi - t) + 1 / (t - lo)))
            return score >= SCREEN_Z * SCREEN_Z, score

        return eliminate(cps, yw.size, z2)

    def _judge(self, y: np.ndarray, lo: int, t: int, hi: int, inflation: float,
               scan: float | None = None, guard_z: Callable[[], float] | None = None) -> tuple[bool, float, float]:
        """``(passes, score, p)`` of the candidate t between neighbours lo and hi: two tests on the
        local windows — the rank test on the raw series and a t-test on each window clipped to
        its own far-out fences (the rank test alone saturates on short windows with big steps) —
        Bonferroni-combined as ``p = 2 · min(p_rank, p_t)`` and scan-adjusted; ``score`` (the
        larger z²) orders pruning.  Whichever test carried ``p``, the rank test must agree on
        its own: the fenced t-test assumes one mode, and a short window of a bimodal benchmark's
        other mode (clipped in a window where it is rare, kept where it is common) gave it
        z of 5–50 where the rank test saw 1–3 — most false alarms on short series came from that.
        ``scan``: the number of locations the candidate was chosen among (default every one);
        ``guard_z``: how far the step must stand out from a trend through its windows, asked only
        once the other tests pass (default :data:`DRIFT_GUARD_Z`)."""
        left, right = self._windows(y, lo, t, hi)
        sigma = self._sigma_at(t)
        fences = far_out_fences(left, sigma), far_out_fences(right, sigma)
        # A value far out from both windows (a cold first run) says nothing about which side it
        # is on, yet one such run beside a short regime outweighed a clean 26% step in the ranks.
        ranked_left, ranked_right = inside_either(left, right, *fences)
        z_rank, p_rank = rank_test(ranked_left, ranked_right, inflation)
        lw, rw = np.clip(left, *fences[0]), np.clip(right, *fences[1])     # as fenced() clips
        z_t, p_t = mean_test(lw, rw, sigma, inflation)
        p = min(1.0, 2.0 * min(p_rank, p_t) * (scan or y.size))
        score = max(z_rank * z_rank, z_t * z_t)
        if p > 1 - self.settings.confidence:
            return False, score, p
        effect = self.noise_.relative(hodges_lehmann(left, right), self._level_of(left))
        ok = (abs(effect) >= self.settings.min_effect
              and abs(step_beyond_trend(lw, rw, sigma, inflation)) >= (DRIFT_GUARD_Z if guard_z is None else guard_z())
              and abs(z_rank) >= min(RANK_Z, RANK_SATURATION * extreme_rank_z(ranked_left.size, ranked_right.size,
                                                                              inflation)))
        return ok, score, p

    def _guard_at_place(self, lo: int, t: int, hi: int, inflation: float, scan: float) -> float:
        """The drift guard's bar for a step at ``t``, a place a sibling's change fixed (``scan``:
        what it costs, :meth:`corroborate`), between neighbours ``lo`` and ``hi``.  The guard
        tells a step from a trend through its two windows alone, and there it cost a weak step more
        than the place's few locations spared it.  So where the whole regime about the place shows
        no trend (a quadratic trend with the step in it, fitted to the winsorized runs), the step
        need stand out from one through its windows by :data:`SIBLING_GUARD_Z` only; a drifting
        series keeps the full bar, as it reported a step at most commits where a sibling changed
        without one (``bench/sibling_drift.py``)."""
        if scan > PLACE_SHARE * self.values_.size:     # hardly a place: as good as searching everywhere
            return DRIFT_GUARD_Z
        trend = step_and_trend(self.noise_.winsorized[lo:hi], t - lo, self._sigma_at(t), inflation)[1]
        return SIBLING_GUARD_Z if trend < REGIME_TREND_Z else DRIFT_GUARD_Z

    def _location_sigma(self, y: np.ndarray, lo: int, t: int, hi: int) -> float:
        """The scale of the location's likelihood ratio about t: the judging windows' own spread.
        The local robust scale alone (a MAD about a rolling median) is smaller, and made the
        location range hold the true run 0.83 of the time for weak steps instead of about 0.95."""
        sigma = self._sigma_at(t)
        left, right = self._windows(y, lo, t, hi)
        return max(pooled_sd(fenced(left, sigma), fenced(right, sigma)), sigma)

    def _sigma_at(self, t: int) -> float:
        """The noise scale where candidate t is judged: the local estimate about it, so that the
        noisiest stretch of a series does not set the bar for its quiet ones."""
        return float(self.noise_.local_sigma[min(t, self.values_.size - 1)])

    def _prune(self, y: np.ndarray, cps: list[int], inflation: float) -> list[int]:
        """Drop the weakest failing candidate (smallest score: a true change hemmed in by
        spurious neighbours has short windows and a poor p-value, but a large score) and
        re-judge its neighbours, until every survivor passes."""
        return eliminate(cps, y.size, lambda lo, t, hi: self._judge(y, lo, t, hi, inflation)[:2])

    def _drop_smooth_staircases(self, yw: np.ndarray, kept: list[int], inflation: float) -> list[int]:
        """Drop every run of two or more consecutive changes in one direction that a smooth trend
        explains about as well: a slow drift (a machine warming up, a cache filling) passes the
        per-change drift guard once the search has cut it into a staircase, each step judged
        between its neighbours where the drift is short and nearly straight.  Over the span of
        the ``g`` steps (from the change before them to the change after), their ``g + 1`` levels
        are compared with a quadratic trend; when the trend's sum of squares exceeds the levels'
        by at most ``(g - 1) · log k`` noise variances (k points: half the BIC price of the
        levels' extra parameters), the staircase is a drift.  Over 8 seeds of short series it cut
        the false reports on drifting ones from 26 to 17, at the price of a few true steps riding
        on a drift (``bench/detection_seeds.py``)."""
        bounds = [0, *kept, yw.size]
        # each change's direction: the sign of the step between the medians of its two regimes
        sign = np.sign(np.diff([np.median(yw[a:b]) for a, b in zip(bounds, bounds[1:])]))
        out = []
        for _, run in groupby(range(len(kept)), key=lambda j: sign[j]):
            g = list(run)
            if len(g) >= 2 and self._trend_explains(yw, bounds[g[0]], [kept[j] for j in g], bounds[g[-1] + 2], inflation):
                continue
            out.extend(kept[j] for j in g)
        return out

    def _merge_across_set_aside(self, yw: np.ndarray, kept: list[int]) -> tuple[list[int], set[int]]:
        """One change where two in the same direction enclose a regime made mostly of runs set
        aside for their samples: those runs took the level of their steady neighbours on both
        sides — between the old level and the new — so a step inside a burst of disturbed runs
        looked like two half steps either side of it.  A regime of borrowed values is no evidence
        of a level of its own.  Returns the changes and the positions (in them) of the merged
        ones, each placed at its burst's first run: the report spans that burst."""
        aside = self.noise_.set_aside
        merged: set[int] = set()
        if not aside.any() or len(kept) < 2:
            return kept, merged
        bounds = [0, *kept, yw.size]
        level = [float(np.median(yw[a:b])) for a, b in zip(bounds, bounds[1:])]
        out: list[int] = []
        i = 0
        while i < len(kept):
            if i + 1 < len(kept):
                a, b = kept[i], kept[i + 1]
                same_way = (level[i + 1] - level[i]) * (level[i + 2] - level[i + 1]) > 0
                if same_way and aside[a:b].mean() >= MOSTLY_SET_ASIDE:
                    merged.add(len(out))
                    out.append(a + int(np.argmax(aside[a:b])))
                    i += 2
                    continue
            out.append(kept[i])
            i += 1
        return out, merged

    def _trend_explains(self, yw: np.ndarray, a: int, steps: list[int], b: int, inflation: float) -> bool:
        seg = yw[a:b]
        k = seg.size
        levels = np.empty(k)
        for u, v in zip([a, *steps], [*steps, b]):
            levels[u - a:v - a] = seg[u - a:v - a].mean()
        t = (np.arange(k) - (k - 1) / 2) / k
        X = np.column_stack([np.ones(k), t, t * t])
        trend = X @ np.linalg.lstsq(X, seg, rcond=None)[0]
        noise = max(self.noise_.sigma ** 2 * inflation, 1e-300)
        worse = (float(((seg - trend) ** 2).sum()) - float(((seg - levels) ** 2).sum())) / noise
        return worse <= (len(steps) - 1) * math.log(k)

    # --- report --------------------------------------------------------------------------------

    def _across_set_aside(self, t: int, lo: int, hi: int,
                          *ranges: tuple[int, int]) -> tuple[int, list[tuple[int, int]]]:
        """The index and each of ``ranges`` (``(low, high)``) once the runs set aside for their
        samples are counted: their values were replaced by their steady neighbours' level, so a
        change located beside a stretch of them could have started at any of them.  Each range
        then spans the stretch, and a stretch of two or more runs puts the index in its middle
        (the split the likelihood picks sits at either end of it, by chance: the samples
        corpus's steps inside bursts were reported up to 11 runs off at their start)."""
        aside = self.noise_.set_aside
        a = b = t
        while a - 1 > lo and aside[a - 1]:
            a -= 1
        while b < hi - 1 and aside[b]:
            b += 1
        if a == b:
            return t, list(ranges)
        return ((a + b + 1) // 2 if b - a >= 2 else t), [(min(low, a), max(high, b)) for low, high in ranges]

    def _report(self, y: np.ndarray, yw: np.ndarray, cps: list[int], i: int, inflation: float,
                across_burst: bool = False, within: tuple[int, int] | None = None,
                scan: float | None = None) -> ChangePoint:
        """The report of change ``cps[i]``; ``within`` (with ``scan``, the number of locations
        tested, with the price of the siblings tested there) for a change looked for only where
        a sibling series changed: located inside that range, its p-value adjusted for those
        locations only."""
        lo = cps[i - 1] if i > 0 else 0
        hi = self._evidence_end(cps[i], cps[i + 1] if i + 1 < len(cps) else y.size)
        sigma = self._sigma_at(cps[i])
        loc_sigma = self._location_sigma(y, lo, cps[i], hi)
        if within is not None:
            t, t_low, t_high, l_low, l_high = locate(yw, lo, hi, cps[i], self.settings.min_segment, loc_sigma,
                                                      inflation, within, self.noise_.clipped, y)
            p_adj = self._judge(y, lo, t, hi, inflation, scan)[2]
        else:
            t, t_low, t_high, l_low, l_high, p_adj = self._refine(y, yw, lo, hi, cps[i], loc_sigma, inflation)
        # A change merged across a burst (:meth:`_merge_across_set_aside`) spans that burst
        # wherever the likelihood put its split.
        index, ((t_low, t_high), (l_low, l_high)) = self._across_set_aside(
            cps[i] if across_burst else t, lo, hi, (t_low, t_high), (l_low, l_high))
        left, right = self._windows(y, lo, t, hi)
        shift = hodges_lehmann(left, right)
        lw, rw = fenced(left, sigma), fenced(right, sigma)
        spread = max(pooled_sd(lw, rw), sigma)
        half = normal_quantile(0.5 + self.settings.confidence / 2) * spread * math.sqrt(
            (1 / lw.size + 1 / rw.size) * inflation)
        level = self._level_of(left)
        magnitude = self.noise_.relative(shift, level)
        raw = self.values_
        return ChangePoint(
            index=index, index_low=t_low, index_high=t_high, magnitude=magnitude,
            ci_low=self.noise_.relative(shift - half, level), ci_high=self.noise_.relative(shift + half, level),
            p_value=p_adj, confidence=1.0 - p_adj, direction=direction_of(magnitude, self.lower_is_better),
            before=raw_median(raw[max(lo, t - self.window):t]),
            after=raw_median(raw[t:min(hi, t + self.window)]), likeliest_low=l_low, likeliest_high=l_high,
            ci_level=self.settings.confidence)

    def _level_of(self, window: np.ndarray) -> float:
        """The level a change starts from, on the noise model's scale: needed off the log scale
        only (a log shift is a relative change whatever the level), so not computed there."""
        return 0.0 if self.noise_.log_scale else float(np.median(window))

    def _refine(self, y: np.ndarray, yw: np.ndarray, lo: int, hi: int, t0: int, loc_sigma: float,
                inflation: float) -> tuple[int, int, int, int, int, float]:
        """``(index, low, high, likeliest_low, likeliest_high, p)`` of a found change refined near
        its candidate ``t0`` (:func:`~perfgate.detect.location.locate`): over a whole long regime, a stretch of other noise
        (or a drift) can out-score the step that was found and judged there.  Should the best
        split still be one that fails its own test (a burst of noise beside a quiet step), the
        search narrows until it finds one that passes, or keeps the candidate."""
        half_width = LOCATE_WINDOW
        while True:
            t, t_low, t_high, l_low, l_high = locate(yw, max(lo, t0 - half_width), min(hi, t0 + half_width), t0,
                                                      self.settings.min_segment, loc_sigma, inflation,
                                                      spikes=self.noise_.clipped, raw=y)
            ok, _, p_adj = self._judge(y, lo, t, hi, inflation)
            if ok or t == t0:
                break
            if half_width <= self.settings.min_segment:
                t = t_low = t_high = l_low = l_high = t0
                _, _, p_adj = self._judge(y, lo, t, hi, inflation)
                break
            half_width //= 2
        return t, t_low, t_high, l_low, l_high, p_adj


def align_all(detectors: list[ChangePointDetector], found: list[list[ChangePoint]]) -> list[list[ChangePoint]]:
    """Each series' own changes (``found``) placed where the others' changes nearby and its own
    support best together (:meth:`ChangePointDetector.align`), as ``perfgate detect`` places them."""
    likely = [d.likelihoods(own) for d, own in zip(detectors, found)]
    return [d.align(own, [s for j, theirs in enumerate(likely) if j != i for s in theirs])[0]
            for i, (d, own) in enumerate(zip(detectors, found))]


def corroborate_all(detectors: list[ChangePointDetector], found: list[list[ChangePoint]],
                    placed: list[list[ChangePoint]] | None = None) -> list[list[ChangePoint]]:
    """What each of several fitted series (index i the same commit in all) shows where the others
    changed — ``found``, each one's own changes, as found alone — tested as ``perfgate detect``
    tests the series of a branch and testbed: every other series' change is a place, priced in
    all the others.  ``placed``: each series' own changes as :func:`align_all` placed them (they
    bound the windows; the places stay those found alone, so nothing feeds on itself)."""
    out = []
    for i, (d, own) in enumerate(zip(detectors, placed if placed is not None else found)):
        named = [((c.likeliest_low, c.likeliest_high), j) for j, other in enumerate(found) if j != i for c in other]
        out.append(d.corroborate(own, [r for r, _ in named], len(detectors) - 1, [j for _, j in named]))
    return out


def chunked_search(signal: np.ndarray, m: int, pen: float) -> list[int]:
    """Candidates of the exact penalised search, bounded in cost: the search is quadratic in the
    length it sees when changes are rare, so a long series is searched in overlapping chunks of
    :data:`CHUNK` points, each keeping the candidates of its middle (the overlap lets a change
    near a chunk's edge be seen with context on both sides), and candidates closer than ``m``
    across a seam are merged.  Series up to ``CHUNK`` points get the one exact search."""
    n = signal.shape[0]
    if n <= CHUNK:
        return pelt_l2(signal, pen, m)
    own = CHUNK - 2 * CHUNK_OVERLAP
    found: list[int] = []
    for start in range(0, n, own):
        a, b = max(0, start - CHUNK_OVERLAP), min(n, start + own + CHUNK_OVERLAP)
        for t in pelt_l2(signal[a:b], pen, m):
            t = a + t
            if start <= t < start + own and (not found or t - found[-1] >= m) and n - t >= m:
                found.append(t)
    return found


def step_beyond_trend(a: np.ndarray, b: np.ndarray, sigma: float, inflation: float) -> float:
    """z of the step ``c`` in ``y_t = α + β·t + γ·t² + c·[t ≥ τ] + ε`` fitted by least squares over
    the two windows: a slow drift shows up in β and γ, not in c, so neither a ramp nor a hump (a
    machine warming up and cooling down) is mistaken for a step.  The curvature term costs a step
    little power — about the middle of the windows a step is odd and γ·t² even — and it removed
    every false alarm that humps raised on short series."""
    return step_and_trend(np.concatenate([a, b]), a.size, sigma, inflation)[0]


def step_and_trend(y: np.ndarray, split: int, sigma: float, inflation: float) -> tuple[float, float]:
    """``(z of c, the larger |z| of β and γ)`` in :func:`step_beyond_trend`'s model fitted to ``y``
    with the step at ``split``: ``(inf, 0)`` where ``y`` is too short to tell them apart."""
    n = y.size
    if split < 2 or n - split < 2 or n < 6:
        return math.inf, 0.0
    t = (np.arange(n, dtype=float) - (n - 1) / 2) / n
    X = np.column_stack([np.ones(n), t, (np.arange(n) >= split).astype(float), t * t])
    xtx_inv = np.linalg.inv(X.T @ X)
    coef = xtx_inv @ (X.T @ y)
    resid = y - X @ coef
    s2 = max(float(resid @ resid) / (n - 4), sigma * sigma)
    var = np.diag(xtx_inv) * s2 * inflation
    if var[2] <= 0:
        return math.inf, 0.0
    return float(coef[2] / math.sqrt(var[2])), float(max(abs(coef[j]) / math.sqrt(var[j]) for j in (1, 3)))


def extreme_rank_z(na: int, nb: int, inflation: float) -> float:
    """The rank test's |z| when the two windows do not overlap at all (no ties): the most that
    windows of these sizes can show."""
    u = na * nb / 2.0 - 0.5
    return u / math.sqrt(na * nb * (na + nb + 1) / 12.0 * inflation)


def fenced(a: np.ndarray, sigma: float, fence: float = 3.0) -> np.ndarray:
    """``a`` clipped to its far-out fences: spikes and tail values are tamed, both modes of a
    bimodal window are kept (its IQR spans them), and nothing depends on neighbouring data."""
    if a.size < 4:
        return a
    return np.clip(a, *far_out_fences(a, sigma, fence))


def inside_either(a: np.ndarray, b: np.ndarray, fences_a: tuple[float, float],
                  fences_b: tuple[float, float]) -> tuple[np.ndarray, np.ndarray]:
    """``a`` and ``b`` without the values beyond the far-out fences of both (each window's
    :func:`far_out_fences`).  A sticky second mode is kept: where it is common, its window's IQR
    spans it."""
    (la, ha), (lb, hb) = fences_a, fences_b

    def kept(x: np.ndarray) -> np.ndarray:
        return x[((x >= la) & (x <= ha)) | ((x >= lb) & (x <= hb))]

    return kept(a), kept(b)


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Overlapping or touching index ranges joined, sorted."""
    out: list[tuple[int, int]] = []
    for a, b in sorted(spans):
        if out and a <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


def _piecewise_median(y: np.ndarray, cps: list[int]) -> np.ndarray:
    fit = np.empty_like(y)
    for a, b in zip([0, *cps], [*cps, y.size]):
        fit[a:b] = np.median(y[a:b])
    return fit


def _residuals(y: np.ndarray, cps: list[int]) -> np.ndarray:
    return y - _piecewise_median(y, cps)


def detect_change_points(values, settings: ChangePointSettings | None = None,
                         lower_is_better: bool = True, samples=None) -> list[ChangePoint]:
    """Change points of one series of raw values, oldest first (``samples``: each run's raw
    samples, or None)."""
    return ChangePointDetector(settings, lower_is_better).fit(values, samples).predict()
