"""The A/B comparison of a pull request: head run against base run, benchmark by benchmark.

Signature other code relies on (``perfgate compare``, ``perfgate check``)::

    compare_runs(base: perfgate.model.Run, head: perfgate.model.Run,
                 thresholds: perfgate.thresholds.Thresholds | None = None,
                 alpha: float = 0.05, paired: bool = False) -> Comparison

    compare_rounds(base: {(benchmark, measure): [[round 1 samples], ...]}, head: same,
                   thresholds=None, alpha=0.05) -> Comparison

``paired=True`` says sample k of base and sample k of head were measured back to back: the test
then works on the per-pair log ratios, which cancels the slow machine-state noise both shared.
:func:`compare_rounds` is ``perfgate check``'s judgement: every raw sample of every interleaved
round, the round as the pairing unit, a paired t across rounds (:mod:`perfgate.detect.rounds`
has the maths and why), and an MDE that knows how many comparisons Benjamini–Hochberg spreads
its level over; :attr:`Comparison.notes` says plainly what the configuration cannot detect.

Tied measures: a benchmark's latency and a throughput that is its reciprocal (the same timings,
round by round) answer one question, so they are one hypothesis in Benjamini–Hochberg and one
finding (:meth:`Comparison.findings`, :func:`tied_to`).  A throughput timed otherwise (Google
Benchmark's items/s from CPU time beside a wall-time latency; a suite's own rate) is a question
of its own.

``Comparison.verdicts`` holds one :class:`Verdict` per (benchmark, measure) present in either
run; ``Comparison.regressions`` the significant regressions above threshold and
``Comparison.exit_code`` is 1 when there is any, else 0.  ``Comparison.render()`` is a plain-text
table.  :func:`compare_samples` does the same from ``{(benchmark, measure): samples}`` dicts.

The maths, per (benchmark, measure), on the log of the raw samples (so effects are relative):

* effect: the Hodges–Lehmann shift ``HL = median_{i,j}(log h_j - log b_i)``, reported as
  ``exp(HL) - 1``, with the distribution-free confidence interval of Lehmann: the k-th smallest
  and k-th largest pairwise difference, ``k = ⌊n_b n_h / 2 - z_{1-α/2} · sqrt(n_b n_h (n_b + n_h + 1) / 12)⌋``;
  the ratio of medians is reported too;
* test: two-sided Mann–Whitney U (scipy; exact for small samples without ties);
* paired (same number of samples, ≥ ``MIN_SAMPLES``): on ``d_k = log h_k - log b_k`` the
  Wilcoxon signed-rank test, the one-sample Hodges–Lehmann estimate (median of the Walsh
  averages ``(d_i + d_j) / 2, i ≤ j``) and its interval from the k-th smallest / largest Walsh
  average, ``k = ⌊n(n+1)/4 - z_{1-α/2} · sqrt(n(n+1)(2n+1)/24)⌋``; MDE with ``s / sqrt(n)``, s the
  MAD deviation of d;
* false discovery rate: Benjamini–Hochberg q-values over ALL (benchmark, measure) pairs of the
  comparison — 50 benchmarks at α = 0.05 would otherwise raise 2–3 false alarms per PR;
* verdict: ``regression`` / ``improvement`` when ``q ≤ α`` and ``|effect| ≥ min_effect`` (the
  series' change point threshold from ``thresholds/``), in the measure's bad / good direction;
  otherwise ``no-change`` when the effect's interval stays short of ``min_effect`` on the
  measure's bad side (a regression of the threshold's size is ruled out), and ``inconclusive``
  when it reaches it (too noisy, or too few rounds, to tell: a regression that size could be
  there);
  ``insufficient-data`` when a side has fewer than ``MIN_SAMPLES`` samples (unless the measure
  is deterministic, below);
* minimum detectable effect: the shift this pair could detect with 80% power as the verdict
  judges it — alone among the comparison's m hypotheses, so at Benjamini–Hochberg's strictest bar
  α/m, and past ``min_effect``: ``exp(max((z_{1-α/(2m)} + z_{0.8}) · se, log(1 + min_effect) +
  z_{0.8} · se)) - 1`` with ``se = s · sqrt(1/n_b + 1/n_h)``, ``s`` the pooled robust (MAD) standard
  deviation of the log samples (never below what the effect's interval implies).  At level α
  alone it read "smallest detectable 7.3%" where a 7.3% change among 50 benchmarks was caught in
  8% of pull requests (an audit's simulation).  The spread is taken at its 90% upper confidence
  bound (chi-square on the MAD's effective degrees of freedom, :func:`perfgate.detect.rounds.noise_bound`),
  so that the MDE is at least the change caught 80% of the time in 0.85–0.99 of runs for Gaussian
  and log-normal noise, less under heavy tails, spikes and two modes (``bench/calibration.py
  compare-mde``); at the estimate it was below it in about half.  A rank test on few samples has a smallest p it can
  give at all (two-sided Mann–Whitney ``2 / C(n_b + n_h, n_b)``, Wilcoxon ``2 / 2^n``); a row whose
  smallest p is above α/m cannot be flagged on its own, whatever the change: its MDE is none and
  a note says so.
* deterministic measures (instruction counts and iai-callgrind's cache events under valgrind;
  or both sides with ≥ 2 samples and no spread at all): the values are exact, so any relative
  difference larger than
  ``DETERMINISTIC_TOLERANCE`` is certain (p = 0) and the MDE is that tolerance.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Mapping, Sequence

import numpy as np
from scipy.stats import mannwhitneyu, wilcoxon

from perfgate.detect import rounds as rounds_test
from perfgate.detect.stats import benjamini_hochberg, hodges_lehmann, normal_quantile, raw_median, relative_change
from perfgate.model import Measure, Run
from perfgate.thresholds import Thresholds, load_thresholds
from perfgate.units import human, p_cell, pct

MIN_SAMPLES = 3
# Counts under valgrind's simulation are exact for one binary and input: instructions, and the
# cache events iai-callgrind reports beside them (one value a side, which no rank test can judge).
DETERMINISTIC_MEASURES = ("instructions", "l1-hits", "ll-hits", "ram-hits", "total-read-write", "estimated-cycles")
DETERMINISTIC_TOLERANCE = 1e-4   # 0.01%: a handful of instructions in a million
POWER = 0.8
RANK_EFFICIENCY = 3 / math.pi   # Mann–Whitney's and Wilcoxon's against the t-test, normal noise
MAD_EFFICIENCY = 0.37            # the MAD deviation's against the standard deviation, normal noise
# A latency and a throughput that is its reciprocal (work / time per item, from the same timings)
# answer one question: one hypothesis, one finding.  Their effects and interval ends cancel to
# rounding: within 0.1% tied Google Benchmark's CPU-time rate to its wall time on a quiet run
# and not on a loaded one, so the counts changed from run to run and between check and compare.
RECIPROCAL = 1e-9
# check's two tests across rounds: of log ratios, and of differences (a measure that dips to 0)
ROUNDS, DIFFERENCES = "paired-t-rounds", "paired-t-rounds-differences"
ROUND_METHODS = (ROUNDS, DIFFERENCES)
# compare's tests of two runs' raw samples (unpaired, paired): wall-time-like rows
RANK_METHODS = ("mann-whitney", "wilcoxon-paired")


# The smallest --alpha a check or compare takes: below it the t quantiles the MDE needs pass float
# precision (1e-15 took 98 s a row, 1e-17 never ended), and no rounds could flag anything anyway.
MIN_ALPHA = 1e-6


@dataclass
class Verdict:
    benchmark: str
    measure: str
    verdict: str               # regression | improvement | no-change | inconclusive | insufficient-data
    n_base: int
    n_head: int
    base_median: float | None
    head_median: float | None
    ratio: float | None        # head median / base median
    effect: float | None       # exp(HL) - 1: relative shift of head over base
    ci_low: float | None       # confidence interval of effect at 1 - alpha
    ci_high: float | None
    p_value: float | None
    q_value: float | None      # Benjamini–Hochberg over every pair of the comparison
    mde: float | None          # smallest relative change this pair could detect (80% power; the spread at its bound)
    threshold: float           # min_effect a change must reach to count
    lower_is_better: bool
    method: str = ""           # mann-whitney | wilcoxon-paired | paired-t-rounds | deterministic | —
    rounds: int | None = None  # interleaved rounds judged (compare_rounds)
    round_sd: float | None = None  # sd of the per-round log ratios (compare_rounds)
    note: str = ""
    # the sides' medians and the paired change differ by more than APART (a check row on a
    # drifting machine; set by compare_rounds): such rows are marked †
    medians_apart: bool = False

    def verdict_cell(self) -> str:
        """The verdict and the row's note."""
        return self.verdict + (f" ({self.note})" if self.note else "")

    def change_cell(self) -> str:
        """The change, :meth:`marked_interval` and :meth:`in_units`."""
        return pct(self.effect) + self.marked_interval() + self.in_units()

    def in_units(self) -> str:
        """A Δ column's change in its own units: judged relative to a base median near zero it read
        −513.91% [−1102.88%, +75.06%] in a seeds' audit, which says little without the base."""
        if self.method != DIFFERENCES or self.effect is None or not self.base_median:
            return ""
        d = self.effect * self.base_median
        return f" ({'+' if d >= 0 else ''}{human(d, self.measure)} on a base of {human(self.base_median, self.measure)})"

    def marked_interval(self) -> str:
        """:meth:`interval`, and ``†`` when the medians beside the change tell another story."""
        return self.interval() + (" †" if self.medians_apart else "")

    def interval(self) -> str:
        """`` [low, high]`` of the effect for a table, ``""`` without one; an interval the samples
        cannot bound (too few of them for the confidence level: −100% … ∞) says so instead."""
        if self.ci_low is None or self.ci_high is None:
            return ""
        # a change of differences (a Δ column's) may pass −100%; a ratio's cannot
        if not math.isfinite(self.ci_high) or (self.ci_low <= -1.0 and self.method != DIFFERENCES):
            return " [unbounded: too few samples]"
        return f" [{pct(self.ci_low)}, {pct(self.ci_high)}]"


# How far (in points) a check row's medians may tell another story than its paired change unmarked.
APART = 0.05
# The note of a benchmark only one side has: not a comparison, and said apart (one_sided_notes).
MISSING_IN_BASE, MISSING_IN_HEAD = "missing in base", "missing in head"
# The intervals are each row's own; the verdicts are adjusted for the number of comparisons.
INTERVALS_NOTE = ("each interval is its row's own, not adjusted for the others: an interval clear of 0 with "
                  "q above the level is no finding; no-change means the interval stays short of the threshold on "
                  "the bad side, inconclusive that it reaches it")
ONE_SIDED = (MISSING_IN_BASE, MISSING_IN_HEAD)
# Unflagged rows (inconclusive, then no-change) a terminal table shows by default; the findings
# and the rows that could not be judged are always all shown.
QUIET_ROWS = 30


@dataclass(frozen=True)
class NothingJudged:
    """Why a comparison judged nothing, in one line, and whether that may pass: only when every
    benchmark is new in head (the pull request adding the first ones), since nothing of the base
    could have been compared; a benchmark gone in head, or rows none of which could be judged, is
    no pass (a gate that judged nothing read as one that judged and passed)."""
    reason: str
    passes: bool


@dataclass
class Comparison:
    verdicts: list[Verdict]
    alpha: float                               # the level the q-values (and intervals) are judged at
    base: dict = field(default_factory=dict)   # branch, commit, testbed of each side
    head: dict = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)   # what this configuration can and cannot detect
    # A sequential check spends its false discovery rate over several looks, each judged at a
    # smaller level (``alpha``); the rate the whole check controls is this one.
    spent_over_looks: float | None = None

    def rate_text(self) -> str:
        """The false discovery rate the verdicts control, and at what level this look judged."""
        if self.spent_over_looks is None:
            return f"false discovery rate controlled at {self.alpha:g}"
        return (f"false discovery rate controlled at {self.spent_over_looks:g} over the sequential looks "
                f"(this look's level {self.alpha:.2g})")

    @property
    def compared(self) -> int:
        """Comparisons made, a tied pair counted once (as the findings and inconclusive rows are):
        a benchmark only one side has is listed, not compared."""
        return sum(1 for v in self.verdicts if v.note not in ONE_SIDED and tied_to(self.verdicts, v) is None)

    @property
    def regressions(self) -> list[Verdict]:
        return [v for v in self.verdicts if v.verdict == "regression"]

    @property
    def improvements(self) -> list[Verdict]:
        return [v for v in self.verdicts if v.verdict == "improvement"]

    def counts(self) -> dict[str, int]:
        """The comparison in numbers, as the headline gives them (for ``--json``)."""
        return {"compared": self.compared, "regressions": len(self.findings("regression")),
                "improvements": len(self.findings("improvement")), "inconclusive": len(self.inconclusive),
                "not_judged": len(self.unjudged)}

    @property
    def has_tied_pairs(self) -> bool:
        """Whether any benchmark has both a latency and a throughput (one finding between them)."""
        return any(tied_to(self.verdicts, v) is not None for v in self.verdicts)

    @property
    def inconclusive(self) -> list[Verdict]:
        """Rows whose interval reaches their threshold on the bad side, each tied pair counted once."""
        return [v for v in self.verdicts if v.verdict == "inconclusive" and tied_to(self.verdicts, v) is None]

    @property
    def unjudged(self) -> list[Verdict]:
        """Comparisons that could not be judged at all (too few samples or rounds, unequal round
        counts, non-positive values); a benchmark only one side has is not a comparison."""
        return [v for v in self.verdicts if v.verdict == "insufficient-data" and v.note not in ONE_SIDED]

    def undecided_text(self) -> str:
        """``"4 of 16 comparison(s) inconclusive, 1 not judged"`` for the headlines; "" when none."""
        parts = [f"{len(self.inconclusive)} of {self.compared} comparison(s) inconclusive"] if self.inconclusive else []
        if self.unjudged:
            parts.append(f"{len(self.unjudged)} {'' if parts else f'of {self.compared} comparison(s) '}not judged")
        return ", ".join(parts)

    def nothing_judged(self, complexity: Sequence = ()) -> NothingJudged | None:
        """Why nothing was judged, or None when something was: a row judged, or a scaling table's
        expectations judged (``complexity``: its rows; a fit with no expectation, or one whose
        violation no rounds bear out, is no verdict)."""
        if any(row.judged for row in complexity):
            return None
        if not self.compared:
            gone = {v.benchmark for v in self.verdicts if v.note == MISSING_IN_HEAD}
            new = {v.benchmark for v in self.verdicts if v.note == MISSING_IN_BASE}
            if gone:
                return NothingJudged(f"nothing compared: no benchmark was measured on both sides ({len(gone)} gone "
                                     f"in head, {len(new)} new in head)", False)
            if new:
                return NothingJudged(f"nothing compared: all {len(new)} benchmark(s) are new in head, its base has "
                                     "none to compare with", True)
            return NothingJudged("nothing compared: neither side measured a benchmark", False)
        if len(self.unjudged) == self.compared:
            tables = (f"; nor could any of the {len(complexity)} scaling table(s)' expectations (their fits are "
                      "shown)" if complexity else "")
            return NothingJudged(f"nothing judged: none of the {self.compared} comparison(s) could be judged "
                                 f"(each row's note says why){tables}", False)
        return None

    def inconclusive_text(self) -> str:
        """What the inconclusive rows mean, counted; "" when there are none."""
        n = len(self.inconclusive)
        if not n:
            return ""
        return (f"{n} of {self.compared} comparison(s) inconclusive: their interval reaches their threshold on the "
                f"bad side, so a regression that size could be there unseen (more samples or rounds would decide "
                f"them)")

    def findings(self, verdict: str) -> list[tuple[Verdict, list[Verdict]]]:
        """Verdicts of one kind grouped so measures tied by construction make one finding:
        ``(primary, [tied verdicts folded into it])``."""
        chosen = [v for v in self.verdicts if v.verdict == verdict]
        folded = {id(v) for v in chosen if (p := tied_to(self.verdicts, v)) is not None and p.verdict == verdict}
        return [(v, [t for t in chosen if id(t) in folded and tied_to(self.verdicts, t) is v])
                for v in chosen if id(v) not in folded]

    @property
    def exit_code(self) -> int:
        return 1 if self.regressions else 0

    def render(self, quiet_rows: int | None = QUIET_ROWS) -> str:
        """A plain-text table, worst first: every finding and every row that could not be judged,
        and at most ``quiet_rows`` unflagged rows (inconclusive first, each kind nearest to a
        finding first; ``None``: all) — a suite of thousands of benchmarks would otherwise bury
        its findings in a CI log."""
        ordered = sorted(self.verdicts, key=severity)
        quiet = [v for v in ordered if v.verdict in ("inconclusive", "no-change")]
        hidden = {id(v) for v in quiet[quiet_rows:]} if quiet_rows is not None else set()
        rows = [("benchmark", "measure", "base", "head", "change [CI]", "q", "MDE", "verdict")]
        for v in (v for v in ordered if id(v) not in hidden):
            rows.append((v.benchmark, v.measure, human(v.base_median, v.measure), human(v.head_median, v.measure),
                         v.change_cell(),
                         "—" if v.q_value is None else p_cell(v.q_value), pct(v.mde, sign=False),
                         v.verdict_cell()))
        widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
        lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
        lines.insert(1, "  ".join("-" * w for w in widths))
        tied = " (a throughput tied to its latency is one finding)" if self.has_tied_pairs else ""
        # rows not judged (too few samples) are counted here too, as the comment's headline counts
        # them: "0 regression(s) … among 5 comparison(s)" read as a pass with none judged
        unjudged = f", {len(self.unjudged)} not judged" if self.unjudged else ""
        summary = (f"{len(self.findings('regression'))} regression(s), {len(self.findings('improvement'))} "
                   f"improvement(s), {len(self.inconclusive)} inconclusive{unjudged} among {self.compared} "
                   f"comparison(s){tied}; {self.rate_text()}; effects with {(1 - self.alpha) * 100:.4g}% "
                   f"intervals, {INTERVALS_NOTE}")
        if hidden:
            unsure = sum(1 for v in quiet if id(v) in hidden and v.verdict == "inconclusive")
            kinds = f"{unsure} inconclusive, {len(hidden) - unsure} no-change" if unsure else "no-change"
            lines.append(f"… {len(hidden)} more row(s) not shown ({kinds}; --all-rows lists them; --json has every row)")
        meaning = self.inconclusive_text()
        return "\n".join([*self.warnings, *lines, summary, *([meaning] if meaning else []), *self.notes])


def severity(v: Verdict) -> tuple:
    """Tables' order: findings, rows not judged, inconclusive, no-change; by q within each."""
    order = {"regression": 0, "improvement": 1, "insufficient-data": 2, "inconclusive": 3, "no-change": 4}
    return order[v.verdict], v.q_value if v.q_value is not None else 2.0, v.benchmark, v.measure


def compare_runs(base: Run, head: Run, thresholds: Thresholds | None = None, alpha: float = 0.05,
                 paired: bool = False) -> Comparison:
    """Compare ``head`` against ``base`` from their raw samples (a metric without samples counts
    as one sample, its value)."""
    def samples(run: Run) -> dict[tuple[str, str], tuple[float, ...]]:
        return {(m.benchmark, m.measure): (m.samples or (m.value,)) for m in run.metrics}

    comparison = compare_samples(samples(base), samples(head), thresholds, alpha, paired)
    comparison.base = {"branch": base.branch, "commit": base.commit, "testbed": base.testbed.name}
    comparison.head = {"branch": head.branch, "commit": head.commit, "testbed": head.testbed.name}
    if base.testbed.name != head.testbed.name:
        comparison.warnings.append(f"warning: base ran on testbed {base.testbed.name!r} and head on "
                                   f"{head.testbed.name!r}; differences may be the machines'")
    return comparison


def compare_samples(base: Mapping[tuple[str, str], Sequence[float]], head: Mapping[tuple[str, str], Sequence[float]],
                    thresholds: Thresholds | None = None, alpha: float = 0.05, paired: bool = False) -> Comparison:
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}")
    thresholds = thresholds if thresholds is not None else load_thresholds()
    verdicts = []
    for key in sorted(set(base) | set(head)):
        benchmark, measure = key
        threshold = thresholds.for_series(benchmark, measure).change_point.min_effect
        verdicts.append(_judge(benchmark, measure, np.asarray(base.get(key, ()), float),
                               np.asarray(head.get(key, ()), float), threshold, alpha, paired))
    hypotheses = _hypotheses(verdicts)
    blind = _mde_at_the_bar(verdicts, base, head, alpha, hypotheses)
    decide(verdicts, alpha)
    comparison = Comparison(verdicts, alpha)
    comparison.notes.extend(one_sided_notes(verdicts) + rank_test_notes(verdicts, blind, alpha, hypotheses)
                            + threshold_notes(verdicts))
    return comparison


def _mde_at_the_bar(verdicts: list[Verdict], base, head, alpha: float, hypotheses: int) -> list[Verdict]:
    """Each rank-tested row's MDE where its verdict is decided: at α/m and past its threshold.
    Returns the rows that cannot be flagged on their own (their smallest attainable p is above α/m)."""
    level = alpha / max(hypotheses, 1)
    blind = []
    for v in verdicts:
        if v.method not in RANK_METHODS or v.p_value is None:
            continue
        lb, lh = np.log(np.asarray(base[(v.benchmark, v.measure)], float)), \
            np.log(np.asarray(head[(v.benchmark, v.measure)], float))
        # The rank tests' efficiency against the t-test on normal noise is 3/π: their standard error
        # is the t-test's over its square root.
        # (Past 60 samples in all the smallest p is below any bar: the count is not worth computing.)
        if v.method == "mann-whitney":
            smallest_p = 2 / math.comb(lb.size + lh.size, lb.size) if lb.size + lh.size <= 60 else 0.0
            df = lb.size + lh.size - 2
            se = _pooled_sd(lb, lh) * math.sqrt(1 / lb.size + 1 / lh.size) / RANK_EFFICIENCY ** 0.5
        else:
            smallest_p, df = (2 / 2 ** lb.size if lb.size <= 60 else 0.0), lb.size - 1
            d = lh - lb
            se = _mad_sd(d) / math.sqrt(d.size) / RANK_EFFICIENCY ** 0.5
        if smallest_p > level:
            v.mde = None
            blind.append(v)
            continue
        lo, hi = (math.log1p(v.ci_low), math.log1p(v.ci_high)) if v.ci_low is not None and v.ci_low > -1 \
            and v.ci_high is not None and math.isfinite(v.ci_high) else (-math.inf, math.inf)
        from_interval = (hi - lo) / (2 * normal_quantile(1 - alpha / 2)) if math.isfinite(hi - lo) else math.inf
        # The spread at its 90% upper bound, as check's rounds (a MAD deviation holds the
        # information of about 37% as many normal samples as a standard deviation, its efficiency);
        # the bound stands for the spread's uncertainty, so the quantiles are then normal ones
        # (Student's as well made the MDE 1.5–3× the one caught 80% of the time at 5–10 samples a
        # side; the bound on the MAD part alone left it below that in half the runs at 10).
        bound = rounds_test.noise_bound(1.0, MAD_EFFICIENCY * df)
        v.mde = _mde_at(bound * max(se, from_interval), level, v.threshold)
    return blind


def _mde_at(se: float, level: float, min_effect: float) -> float | None:
    """The relative change found with 80% power by a two-sided test at ``level`` whose estimate
    must also pass ``min_effect`` (log-scale standard error ``se``, taken as known: its
    uncertainty is in the bound it was taken at); None: unbounded."""
    if not math.isfinite(se):
        return None
    z_power = normal_quantile(POWER)
    delta = max((normal_quantile(1 - level / 2) + z_power) * se, math.log1p(min_effect) + z_power * se)
    return relative_change(delta)


def rank_test_notes(verdicts: Sequence[Verdict], blind: Sequence[Verdict], alpha: float, hypotheses: int) -> list[str]:
    """What a comparison of runs' raw samples could not detect, said plainly (as
    :func:`capability_notes` does for a check's rounds)."""
    ranked = [v for v in verdicts if v.method in RANK_METHODS and v.p_value is not None]
    if not ranked:
        return []
    level = alpha / max(hypotheses, 1)
    notes = [f"a change is flagged from p ≤ {level:.2g} ({alpha:.3g}/{hypotheses}: the strictest Benjamini–Hochberg "
             f"bar among {hypotheses} comparisons; each further change found lowers the bar for the next); the MDE "
             f"column is the change found with 80% probability at that bar and past the threshold, with each row's "
             f"spread at its 90% upper confidence bound (heavy tails can still make it optimistic)"]
    if blind:
        sizes = sorted({(v.n_base, v.n_head) for v in blind})
        notes.append(f"{len(blind)} row(s) cannot be flagged on their own whatever the change: with "
                     + ", ".join(f"{b} and {h}" for b, h in sizes[:3])
                     + f" sample(s) a side the rank test's smallest p is above {level:.2g} (more samples a side, "
                     f"or 'perfgate check', which measures in rounds): {_named(blind)}")
    return notes


def _hypotheses(verdicts: Sequence[Verdict]) -> int:
    """The comparisons Benjamini–Hochberg counts: rows tested, a throughput tied to its latency once."""
    return sum(1 for v in verdicts if v.p_value is not None and tied_to(verdicts, v) is None)


def _named(rows: Sequence[Verdict], most: int = 5) -> str:
    """``"a latency, b latency, and 3 more"``: the first ``most`` rows by benchmark and measure."""
    more = f", and {len(rows) - most} more" if len(rows) > most else ""
    return ", ".join(f"{v.benchmark} {v.measure}" for v in rows[:most]) + more


def tied_to(verdicts: Sequence[Verdict], v: Verdict) -> Verdict | None:
    """The latency that stands for ``v``'s benchmark when ``v`` is a throughput that is its
    reciprocal (:func:`reciprocal`), else ``None``.

    Only a reciprocal pair is one question.  Google Benchmark's items/s comes from CPU time and
    its latency from wall time: on a loaded machine they moved +23% and -8% for one change, and
    a wall-time regression (waiting, not computing) would not show in CPU time at all; a suite's
    own rate (executor-latency's iterations per second, set by its sleeps) is no reciprocal of
    its delay.  Tied, the more precise of such a pair decided both, and a delay whose own
    interval reached +49% read "no-change"."""
    if v.measure != "throughput" or v.p_value is None:
        return None
    latency = next((o for o in verdicts if o.benchmark == v.benchmark and o.measure == "latency"
                    and o.p_value is not None), None)
    return latency if latency is not None and reciprocal(latency, v) else None


def reciprocal(a: Verdict, b: Verdict) -> bool:
    """Whether ``a`` and ``b`` are one timing seen two ways (time per item, items per time): their
    log ratios cancel, so their effects do and their intervals mirror each other."""
    ends = (a.effect, b.effect, a.ci_low, a.ci_high, b.ci_low, b.ci_high)
    if None in ends or min(ends) <= -1:
        return False
    pairs = ((a.effect, b.effect), (a.ci_low, b.ci_high), (a.ci_high, b.ci_low))
    return all(abs(math.log1p(x) + math.log1p(y)) <= RECIPROCAL for x, y in pairs)


def decide(verdicts: list[Verdict], alpha: float) -> None:
    """Benjamini–Hochberg over every tested comparison, then each verdict.  Of measures tied by
    construction (a benchmark's latency and throughput) only the primary (see :func:`tied_to`)
    is a hypothesis; the other is not counted twice and shares its q-value and verdict."""
    secondary = {id(v): p for v in verdicts if (p := tied_to(verdicts, v)) is not None}
    tested = [i for i, v in enumerate(verdicts) if v.p_value is not None and id(v) not in secondary]
    q = benjamini_hochberg([verdicts[i].p_value for i in tested])
    for i, qi in zip(tested, q):
        v = verdicts[i]
        v.q_value = float(qi)
        if qi <= alpha and v.effect is not None and abs(v.effect) >= v.threshold:
            worse = v.effect > 0 if v.lower_is_better else v.effect < 0
            v.verdict = "regression" if worse else "improvement"
        else:
            v.verdict = "no-change" if _rules_out_regression(v) else "inconclusive"
            if qi <= alpha:
                v.note = f"significant but below the {v.threshold:.1%} threshold"
    for v in verdicts:
        if id(v) in secondary:
            primary = secondary[id(v)]
            v.q_value, v.verdict = primary.q_value, primary.verdict
            v.note = f"the reciprocal of its {primary.measure}: one finding"


def _rules_out_regression(v: Verdict) -> bool:
    """Whether ``v``'s interval rules out a regression of its threshold's size (a one-sided
    non-inferiority test at the interval's level): only then is an unflagged row "no-change".
    A gate asks whether a regression could be there; an improvement that could be larger than
    the threshold is no reason to warn."""
    if v.ci_low is None or v.ci_high is None:
        return False
    return v.ci_high < v.threshold if v.lower_is_better else v.ci_low > -v.threshold


def _judge(benchmark: str, measure: str, b: np.ndarray, h: np.ndarray, threshold: float, alpha: float,
           paired: bool = False) -> Verdict:
    lower = Measure.named(measure).lower_is_better
    v = Verdict(benchmark, measure, "insufficient-data", b.size, h.size,
                raw_median(b) if b.size else None, raw_median(h) if h.size else None,
                None, None, None, None, None, None, None, threshold, lower)
    if b.size == 0 or h.size == 0:
        v.note = MISSING_IN_BASE if b.size == 0 else MISSING_IN_HEAD
        return v
    if v.base_median and v.base_median != 0:
        v.ratio = v.head_median / v.base_median
    if np.any(b <= 0) or np.any(h <= 0):
        v.note = "non-positive values; cannot compare relative changes"
        return v
    lb, lh = np.log(b), np.log(h)
    deterministic = (measure in DETERMINISTIC_MEASURES
                     or (b.size >= 2 and h.size >= 2 and np.ptp(lb) == 0 and np.ptp(lh) == 0))
    if deterministic and np.ptp(lb) <= DETERMINISTIC_TOLERANCE and np.ptp(lh) <= DETERMINISTIC_TOLERANCE:
        shift = float(np.median(lh) - np.median(lb))
        v.effect = v.ci_low = v.ci_high = relative_change(shift)
        v.p_value = 0.0 if abs(v.effect) > DETERMINISTIC_TOLERANCE else 1.0
        v.mde = DETERMINISTIC_TOLERANCE
        v.method = "deterministic"
        return v
    if b.size < MIN_SAMPLES or h.size < MIN_SAMPLES:
        v.note = f"needs ≥ {MIN_SAMPLES} samples a side"
        return v
    if paired and b.size == h.size:
        return _judge_paired(v, lh - lb, alpha)
    if paired:
        v.note = "unequal sample counts: compared unpaired"
    v.method = "mann-whitney"
    v.p_value = float(mannwhitneyu(lh, lb, alternative="two-sided").pvalue)
    shift = hodges_lehmann(lb, lh)
    v.effect = relative_change(shift)
    lo, hi = _lehmann_interval(lb, lh, alpha)
    v.ci_low, v.ci_high = relative_change(lo), relative_change(hi)
    return v   # its MDE is set once every row is tested (_mde_at_the_bar: it depends on how many)


def _judge_paired(v: Verdict, d: np.ndarray, alpha: float) -> Verdict:
    v.method = "wilcoxon-paired"
    v.p_value = 1.0 if not np.any(d) else float(wilcoxon(d, alternative="two-sided").pvalue)
    i, j = np.triu_indices(d.size)
    walsh = np.sort((d[i] + d[j]) / 2)
    v.effect = relative_change(float(np.median(walsh)))
    n = d.size
    k = int(math.floor(n * (n + 1) / 4 - normal_quantile(1 - alpha / 2) * math.sqrt(n * (n + 1) * (2 * n + 1) / 24)))
    lo, hi = (walsh[k - 1], walsh[walsh.size - k]) if k >= 1 else (-math.inf, math.inf)
    v.ci_low, v.ci_high = relative_change(lo), relative_change(hi)
    return v


def _lehmann_interval(a: np.ndarray, b: np.ndarray, alpha: float) -> tuple[float, float]:
    """Distribution-free interval for the shift of b over a from the sorted pairwise differences."""
    d = np.sort(np.subtract.outer(b, a).ravel())
    n, m = a.size, b.size
    k = int(math.floor(n * m / 2 - normal_quantile(1 - alpha / 2) * math.sqrt(n * m * (n + m + 1) / 12)))
    if k < 1:
        return -math.inf, math.inf
    return float(d[k - 1]), float(d[d.size - k])


def _pooled_sd(a: np.ndarray, b: np.ndarray) -> float:
    """The pooled robust (MAD) standard deviation of two samples."""
    return math.sqrt(((a.size - 1) * _mad_sd(a) ** 2 + (b.size - 1) * _mad_sd(b) ** 2) / max(a.size + b.size - 2, 1))


def _mad_sd(x: np.ndarray) -> float:
    """The standard deviation a normal sample would have, from its median absolute deviation."""
    return 1.4826 * float(np.median(np.abs(x - np.median(x))))


def compare_rounds(base: Mapping[tuple[str, str], Sequence[Sequence[float]]],
                   head: Mapping[tuple[str, str], Sequence[Sequence[float]]],
                   thresholds: Thresholds | None = None, alpha: float = 0.05) -> Comparison:
    """``perfgate check``'s judgement: ``{(benchmark, measure): [round 1 samples, round 2 …]}``
    per side, round r of base and head measured back to back.  Wall-time-like measures get the
    paired t on per-round log ratios of :mod:`perfgate.detect.rounds` (every raw sample counts)
    with its MDE at ``alpha`` over this comparison's hypotheses; exact measures are compared
    exactly; Benjamini–Hochberg at ``alpha`` across all."""
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}")
    thresholds = thresholds if thresholds is not None else load_thresholds()
    verdicts: list[Verdict] = []
    spread: dict[int, tuple[float, int]] = {}   # verdict index -> (sd of round ratios, rounds)
    for key in sorted(set(base) | set(head)):
        benchmark, measure = key
        threshold = thresholds.for_series(benchmark, measure).change_point.min_effect
        b_rounds = [np.asarray(r, float) for r in base.get(key, ()) if len(r)]
        h_rounds = [np.asarray(r, float) for r in head.get(key, ()) if len(r)]
        flat_b = np.concatenate(b_rounds) if b_rounds else np.array([])
        flat_h = np.concatenate(h_rounds) if h_rounds else np.array([])
        both = bool(flat_b.size and flat_h.size)
        nonpositive = both and bool(np.any(flat_b <= 0) or np.any(flat_h <= 0))
        # Values at or below zero (a Δ column) have no log ratio: their rounds' differences are
        # judged instead, relative to the base's level (a 9× jump went "not judged" before).
        signed = nonpositive and measure not in DETERMINISTIC_MEASURES and raw_median(flat_b) > 0
        exact = not signed and (measure in DETERMINISTIC_MEASURES or not both or nonpositive
                                or (flat_b.size >= 2 and flat_h.size >= 2 and np.ptp(flat_b) == 0
                                    and np.ptp(flat_h) == 0))
        if exact:  # missing, non-positive or exact values: the cheap paths of the sample comparison
            v = _judge(benchmark, measure, flat_b, flat_h, threshold, alpha)
            v.rounds = min(len(b_rounds), len(h_rounds))
            if v.method == "deterministic" or v.note:
                verdicts.append(v)
                continue
        lower = Measure.named(measure).lower_is_better
        v = Verdict(benchmark, measure, "insufficient-data", flat_b.size, flat_h.size, raw_median(flat_b),
                    raw_median(flat_h), None, None, None, None, None, None, None, threshold, lower,
                    rounds=min(len(b_rounds), len(h_rounds)))
        if v.base_median:
            v.ratio = v.head_median / v.base_median
        if len(b_rounds) != len(h_rounds):
            v.note = f"{len(b_rounds)} base rounds but {len(h_rounds)} head rounds: not judged"
            verdicts.append(v)
            continue
        v.method = DIFFERENCES if signed else ROUNDS
        d = (rounds_test.round_differences(b_rounds, h_rounds, raw_median(flat_b)) if signed
             else rounds_test.round_shifts(b_rounds, h_rounds))
        test = rounds_test.paired_t(d, alpha)
        if test is None:
            v.verdict, v.p_value, v.effect, v.ci_low, v.ci_high = "insufficient-data", None, None, None, None
            v.mde = None
            v.note = f"cannot flag anything with {v.rounds} round(s): a paired t needs ≥ {rounds_test.MIN_ROUNDS}"
        else:
            v.p_value = test.p_value
            as_change = (lambda x: x) if signed else relative_change     # differences are relative already
            v.effect = as_change(test.shift)
            v.ci_low, v.ci_high = as_change(test.ci_low), as_change(test.ci_high)
            spread[len(verdicts)] = (test.sd, test.rounds)
            v.round_sd = test.sd
        verdicts.append(v)
    hypotheses = _hypotheses(verdicts)
    for i, (sd, n) in spread.items():
        verdicts[i].mde = _rounds_mde(verdicts[i], rounds_test.noise_bound(sd, n - 1), alpha, hypotheses)
    decide(verdicts, alpha)
    comparison = Comparison(verdicts, alpha)
    comparison.notes.extend(one_sided_notes(verdicts) + threshold_notes(verdicts))
    comparison.notes.extend(capability_notes(verdicts, alpha, hypotheses))
    for v in verdicts:
        v.medians_apart = (v.method in ROUND_METHODS and bool(v.ratio) and v.effect is not None
                           and abs((v.ratio - 1) - v.effect) > APART)
    apart = [v for v in verdicts if v.medians_apart]
    if apart:
        comparison.notes.append(
            f"† {len(apart)} row(s) where the base and head medians and the change differ by more than 5 points: the "
            f"medians pool every sample of a side, the change pairs each round's base with its head, so the "
            f"machine's drift between rounds cancels in it; the change is the verdict's")
    return comparison


def _rounds_mde(v: Verdict, sd: float, alpha: float, hypotheses: int) -> float | None:
    """A rounds-judged row's MDE with the noise taken as ``sd``."""
    x = rounds_test.mde(sd, v.rounds or 0, alpha, hypotheses, v.threshold)
    return math.log1p(x) if x is not None and v.method == DIFFERENCES else x   # a shift of the differences


def one_sided_notes(verdicts: Sequence[Verdict]) -> list[str]:
    """Benchmarks only one side has, said in a line each way: as rows they read
    "insufficient-data" among the collapsed comparisons, where a removed benchmark went unseen."""
    notes = []
    for note, words in ((MISSING_IN_BASE, "new in head (nothing to compare with)"),
                        (MISSING_IN_HEAD, "gone in head (no longer measured)")):
        names = sorted({v.benchmark for v in verdicts if v.note == note})
        if names:
            shown = ", ".join(names[:10]) + (f" and {len(names) - 10} more" if len(names) > 10 else "")
            notes.append(f"{len(names)} benchmark(s) {words}: {shown}")
    return notes


def threshold_notes(verdicts: Sequence[Verdict]) -> list[str]:
    """Each measure's threshold, which the table does not show: the rule "no-change: the interval
    stays short of the threshold" could not be checked by the reader (an audit's +4.60%
    [-1.22%, +10.76%] no-change read wrong without knowing latency's 2%)."""
    by: dict[str, set[float]] = {}
    for v in verdicts:
        if v.note not in ONE_SIDED and v.threshold is not None:
            by.setdefault(v.measure, set()).add(v.threshold)
    if not by:
        return []
    shown = [f"{m} {pct(min(t), sign=False)}" + (f"–{pct(max(t), sign=False)}" if len(t) > 1 else "")
             for m, t in sorted(by.items())]
    return ["thresholds (the smallest change flagged; no-change: the interval stays short of it on the bad side): "
            + ", ".join(shown)]


def capability_notes(verdicts: Sequence[Verdict], alpha: float, hypotheses: int) -> list[str]:
    """Plain statements of what the configuration could not detect."""
    timed = [v for v in verdicts if v.method in ROUND_METHODS]
    if not timed:
        return []
    counts = sorted({v.rounds or 0 for v in timed})
    if counts[-1] < rounds_test.MIN_ROUNDS:
        return [f"this check cannot flag any wall-time change: {counts[-1]} round(s), and the paired t across "
                f"rounds needs at least {rounds_test.MIN_ROUNDS} (use --rounds or --budget)"]
    # Probes (peak RSS) run in fewer rounds than the timings: each measure's rounds are named.
    by_measure: dict[str, list[int]] = {}
    for v in timed:
        if (v.rounds or 0) >= rounds_test.MIN_ROUNDS:
            by_measure.setdefault(v.measure, []).append(v.rounds)

    def span(ns: list[int]) -> str:
        return f"{min(ns)}" if min(ns) == max(ns) else f"{min(ns)}–{max(ns)}"

    spans = {m: span(ns) for m, ns in by_measure.items()}
    rounds = (f"{next(iter(spans.values()))} rounds" if len(set(spans.values())) == 1 else
              "rounds " + ", ".join(f"{m} {r}" for m, r in sorted(spans.items())))
    notes = [f"with {rounds}, a change is flagged from p ≤ {alpha / max(hypotheses, 1):.2g} "
             f"({alpha:.3g}/{hypotheses}: the strictest Benjamini–Hochberg bar among {hypotheses} comparisons; "
             f"each further change found lowers the bar for the next, so q ≤ {alpha:.3g} is the rule); the MDE "
             f"(smallest detectable) is the change caught 4 times in 5 at that bar, with each row's spread at its "
             f"90% upper confidence bound"]
    short = [v for v in timed if (v.rounds or 0) < rounds_test.MIN_ROUNDS]
    if short:
        notes.append(f"{len(short)} measure(s) had fewer than {rounds_test.MIN_ROUNDS} rounds and cannot be flagged: "
                     + ", ".join(f"{v.benchmark} {v.measure}" for v in short[:5]))
    # a row flagged all the same is no blind spot (an audit's note named five flagged rows of 89);
    # "not even a doubling" is said at the noise's lower bound, so that it holds too
    blind = [v for v in timed if v.round_sd is not None and tied_to(verdicts, v) is None
             and v.verdict not in ("regression", "improvement")
             and (_rounds_mde(v, rounds_test.noise_bound(v.round_sd, (v.rounds or 0) - 1, upper=False), alpha,
                              hypotheses) or 0.0) >= 1.0]
    if blind:
        notes.append(f"{len(blind)} benchmark(s) could not detect even a doubling at this noise and round "
                     f"count (an MDE ≥ 100% even at the noise's 90% lower bound): {_named(blind)}")
    return notes
