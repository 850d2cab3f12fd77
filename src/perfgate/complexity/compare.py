"""Complexity in a pull-request check: each side's scaling tables fitted as ``perfgate fit`` fits
them (terms chosen by BIC, a knee searched), and the complexity expectations judged on both.

Judged point by point, a knee that moved from 2,070 to 608 objects is hundreds of rows flagged;
here it is one row per table and measure: each side's model and knee, and what became of each
expectation.  A head that breaks an expectation its base keeps fails the check; one its base
already broke is said, and left to the per-point rows (the pull request did not cause it),
unless the rounds show the head breaking it further (its share beyond the expected order rose
past the tolerance: a base bent by load hid a head turning quadratic) or earlier (its knee moved).

A sweep's points are measured one after another, so load on a noisy machine bends a whole
stretch of a run's curve, and the fit's p-values (which take the points' noise as independent)
call the bend a quadratic term: A/A sweeps of a linear loop on a loaded host were "violated" on
one side in 4 of 15 pairs.  A check runs every round as a full sweep of both sides, back to
back, so the rounds are the replicates, as they are for the per-point rows: a violation counts
only when the rounds' fit together shows it and so do more than half of the rounds' own fits,
and the head breaks an expectation only when, round by round, the share of its cost beyond the
expected order exceeds the base's by more than the tolerance (a one-sided paired t at 5%).
Without rounds (two stored runs, each one sweep) nothing bears a violation out, so none fails or passes:
it reads "inconclusive" (an audit's compare of runs of one commit failed 4 of 8 pairs before).

A cost that grows in the same shape but more steeply (the head's 4.02⋅o against the base's
3.34⋅o) keeps every expectation, and its hundreds of points are each too noisy, among hundreds of
hypotheses, to be flagged: a seeds' audit saw 593 of 602 rows inconclusive.  Each row therefore
also gives the change of the sweep's total cost (the sum over the points both sides measured),
round by round: a paired t on the rounds' log ratios, or, where a Δ column's total is at or
below zero in a round, on their differences, said in the column's units.  It is said, with its
interval and p, and does not fail the check on its own: its points are already hypotheses of the
per-point rows (``bench/calibration.py sweep``: A/A p < 0.05 in 0.046–0.057 of checks).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import numpy as np
from scipy import stats

from perfgate.adapters.scaling_tsv import ScalingTable, table_from_metrics
from perfgate.complexity.analysis import analyse, knee_letter
from perfgate.complexity.expectations import Expectation, Verdict, check, for_benchmark
from perfgate.complexity.regression import FitError
from perfgate.complexity.terms import TermError, default_terms
from perfgate.errors import InputError
from perfgate.model import Metric, Run
from perfgate.units import interval, p_text, pct, quantity

MIN_POINTS = 4   # fewer parameter combinations than this cannot show a shape
ALPHA = 0.05     # the paired test's level, as the expectations' own
NONPOSITIVE_SHARE = 0.1   # from this share of values at or below zero, a column is fitted unweighted
SHARE_CAP = 10.0  # a share past 1,000% (a fit whose cost nears zero) counts as 1,000%
FLAT_BIC = 2.0    # a model must beat a constant by this much BIC for its terms' shares to be judged


@dataclass
class SideFit:
    """One side's fit of one table's measure, and its verdict on each expectation."""
    model: str                       # "knee at objects ≈ 2,070 (95% …), then quadratic" or "27⋅o, no knee"
    knee: dict | None = None         # the knee found (location, low, high, degree, …), None if none
    verdicts: list[Verdict] = field(default_factory=list)
    error: str = ""                  # why no fit could be made (then model is "")
    # each round's own fit, in round order (None: that round could not be fitted); empty when
    # there were no rounds, or neither side had a violation to bear out or a knee to place
    rounds: list[SideFit | None] = field(default_factory=list)

    def round_count(self, i: int) -> tuple[int, int]:
        """(rounds whose own fit violates expectation i, rounds fitted)."""
        fitted = [r.verdicts[i] for r in self.rounds if r is not None]
        return sum(not v.ok for v in fitted), len(fitted)

    def round_knees(self) -> list[float]:
        """Where the rounds' own fits put the knee, in the rounds that found one."""
        return [r.knee["location"] for r in self.rounds if r is not None and r.knee]

    def round_knee_degrees(self) -> list[int]:
        """Those knees' shapes (1: the slope steps up; 2: the cost turns quadratic)."""
        return [r.knee["degree"] for r in self.rounds if r is not None and r.knee]

    def knee_degree(self) -> int:
        """The knee's shape (1: steeper, 2: quadratic) as most of the rounds' own knees have it:
        load that slowed two rounds of three past some size bends the pooled medians there too,
        and the pooled fit read a quadratic head "steeper" and a linear base "quadratic" once
        each in 10 checks of the grow suite.  The pooled knee's where the rounds tie or have none."""
        steeper, quadratic = self._round_shapes()
        if steeper != quadratic:
            return 1 if steeper > quadratic else 2
        return (self.knee or {}).get("degree") or 1

    def _round_shapes(self) -> tuple[int, int]:
        """(rounds whose knee steepens, rounds whose knee turns quadratic)."""
        degrees = [d or 1 for d in self.round_knee_degrees()]
        return degrees.count(1), len(degrees) - degrees.count(1)

    def violated(self) -> list[Verdict]:
        """The violations that count: the pooled fit's, each also in more than half of the
        rounds when there were rounds."""
        return [v for i, v in enumerate(self.verdicts)
                if not v.ok and (not self.rounds or 2 * self.round_count(i)[0] > self.round_count(i)[1])]

    def notes(self) -> list[str]:
        """What the rounds say against the pooled fit, shown beside its model: its violations they
        did not bear out, and a knee whose shape most of their own knees do not share (the
        verdicts take theirs, :meth:`knee_degree`)."""
        pooled = (self.knee or {}).get("degree") or 1
        shape = self.knee_degree()
        if not self.knee or shape == pooled:
            return self.unconfirmed()
        steeper, quadratic = self._round_shapes()
        return self.unconfirmed() + [f"the rounds' own knees turn {'quadratic' if shape == 2 else 'steeper'} "
                                     f"in {quadratic if shape == 2 else steeper} of {steeper + quadratic} (counted)"]

    def unconfirmed(self) -> list[str]:
        """``"linear in objects: violated in the rounds together, in 1 of 8 rounds alone"``
        for each pooled violation the rounds did not bear out."""
        counted = self.violated()
        return [f"{v.expectation.text}: violated in the rounds together, in {self.round_count(i)[0]} of "
                f"{self.round_count(i)[1]} rounds alone (not counted)"
                for i, v in enumerate(self.verdicts) if not v.ok and v not in counted]


@dataclass(frozen=True)
class SweepChange:
    """The change of a sweep's total cost, head over base, judged over the rounds: relative where
    every total is a cost (above zero), else in the column's own units (a Δ column's totals can
    sit near zero, where a relative change read −115% [−587%, +357%] in an audit)."""
    points: int              # points both sides measured in every round
    rounds: int
    relative: bool           # effect, low and high are relative changes; else in the measure's units
    effect: float            # the change of the total (mean over rounds)
    low: float               # its (1 - ALPHA) interval
    high: float
    p_value: float           # two-sided paired t
    base_total: float        # the base's median total, in the measure's units
    measure: str = ""

    def text(self) -> str:
        about = f"paired t over {self.rounds} rounds"
        over = f"sweep total over {self.points} point{'s' if self.points != 1 else ''}"
        if self.relative:
            return (f"{over} {pct(self.effect)} [{pct(self.low)}, {pct(self.high)}], "
                    f"{p_text(self.p_value)} ({about})")
        change = interval(self.effect, self.low, self.high, self.measure, 3, sign=True)   # one unit: +942 ns [-4, +1,889]
        return (f"{over} {change} "
                f"on a base total of {quantity(self.base_total, self.measure)}, {p_text(self.p_value)} "
                f"({about}, on differences: a total at or below zero has no ratio)")

    def as_dict(self) -> dict:
        return dict(self.__dict__)


def sweep_change(base_rounds: Sequence[Sequence[Metric]], head_rounds: Sequence[Sequence[Metric]],
                 measure: str = "") -> SweepChange | None:
    """The sweep's total cost, head over base, from each round's points of one table's measure;
    None without two rounds on each side, equal round counts, or points common to every round."""
    if len(base_rounds) != len(head_rounds) or len(base_rounds) < 2:
        return None
    common = set.intersection(*({m.benchmark for m in r} for r in (*base_rounds, *head_rounds)))
    if not common:
        return None
    totals = np.array([[sum(m.value for m in r if m.benchmark in common) for r in side]
                       for side in (base_rounds, head_rounds)])
    b, h = totals
    relative = bool(np.all(b > 0) and np.all(h > 0))
    d = np.log(h / b) if relative else h - b      # log ratios of costs; else differences in the units
    n = d.size
    sd = float(d.std(ddof=1))
    if sd == 0:
        p, half = (0.0 if d.mean() != 0 else 1.0), 0.0
    else:
        se = sd / np.sqrt(n)
        p = float(2 * stats.t.sf(abs(d.mean()) / se, n - 1))
        half = float(stats.t.ppf(1 - ALPHA / 2, n - 1)) * se
    as_change = np.expm1 if relative else (lambda x: x)
    mean = float(d.mean())
    return SweepChange(len(common), n, relative, float(as_change(mean)), float(as_change(mean - half)),
                       float(as_change(mean + half)), p, float(np.median(b)), measure)


@dataclass
class ComplexityRow:
    """A scaling table's measure on both sides."""
    table: str                       # "async-deinit/quadratic-queue/async_array"
    measure: str                     # "total-ns"
    base: SideFit
    head: SideFit
    sweep: SweepChange | None = None  # the sweep's total cost, head over base, round by round

    @property
    def broken(self) -> list[Verdict]:
        """The head's violations of expectations the base keeps (with rounds on both sides,
        only those whose share beyond the expected order rose, round by round, past the
        tolerance: :meth:`paired`); and of those the base also breaks, when the rounds show that
        rise.  Load bends a quarter of a linear loop's sweeps in a pinned container on this
        machine (shares of 8–57% beyond linear), so a base read "violated" in two rounds of three
        hid a head turning quadratic (shares of 88–100%) as "violated on both sides"."""
        if self.base.error or not self.head.rounds:
            return []   # without rounds no violation is borne out: noise bends a single sweep
        base_bad = {v.expectation for v in self.base.violated()}
        violated = self.head.violated()
        broken = []
        for i, v in enumerate(self.head.verdicts):
            if v in violated:
                rise = self.paired(i)
                shown = rise is not None and rise[1] < ALPHA
                if shown or (rise is None and v.expectation not in base_bad):
                    broken.append(v)
        return broken

    def _base_also_broke(self, i: int) -> str:
        """For broken expectation i when the base's fit breaks it too: how far the head's share rose."""
        v = self.head.verdicts[i]
        if v.expectation not in {b.expectation for b in self.base.violated()}:
            return ""
        rise, p = self.paired(i)
        return (f" (the base's fit breaks it too, but round by round the head's share beyond that order rose "
                f"{rise:+.0%} over the base's, more than the tolerance of {v.expectation.tolerance:.0%}: one-sided "
                f"{p_text(p)})")

    @property
    def fixed(self) -> list[Verdict]:
        """The base's violations the head removes, borne out as :attr:`broken`'s are: with rounds
        on both sides, only those whose share beyond the expected order fell, round by round, past
        the tolerance — also where the head's fit still breaks the expectation (the mirror of a
        broken one the base breaks too: load bends some of the head's rounds as well, and a head
        that took most of a quadratic cost away read "violated on both sides").  An A/A check
        whose base sweep bent by noise read "fixed by head" on the pooled fit alone."""
        if self.head.error or not self.base.rounds:
            return []
        head_bad = {v.expectation for v in self.head.violated()}
        kept = {v.expectation for v in self.head.verdicts} - head_bad
        violated = self.base.violated()
        fixed = []
        for i, v in enumerate(self.base.verdicts):
            if v in violated and (v.expectation in kept or v.expectation in head_bad):
                fall = self.paired(i, falling=True)
                if (fall is None and v.expectation in kept) or (fall is not None and fall[1] < ALPHA):
                    fixed.append(v)
        return fixed

    def _head_still_breaks(self, i: int) -> str:
        """For fixed expectation i when the head's fit still breaks it: how far its share fell."""
        v = self.base.verdicts[i]
        if v.expectation not in {h.expectation for h in self.head.violated()}:
            return ""
        fall, p = self.paired(i, falling=True)
        return (f"the head's fit still breaks {v.expectation.text}, but round by round its share beyond that order "
                f"fell {fall:.0%} below the base's, more than the tolerance of {v.expectation.tolerance:.0%} "
                f"(one-sided {p_text(p)})")

    def paired(self, i: int, falling: bool = False) -> tuple[float, float] | None:
        """(mean rise of expectation i's share, head over base, round by round; the one-sided
        p-value that it exceeds the tolerance), or None without two rounds fitted on both sides.
        ``falling``: the mean fall, base over head, and the p-value that it exceeds it."""
        pairs = [(h.verdicts[i].share, b.verdicts[i].share) for h, b in zip(self.head.rounds, self.base.rounds)
                 if h is not None and b is not None]
        if len(pairs) < 2:
            return None
        rise = np.array([min(h, SHARE_CAP) - min(b, SHARE_CAP) for h, b in pairs]) * (-1 if falling else 1)
        excess = rise.mean() - self.head.verdicts[i].expectation.tolerance
        spread = rise.std(ddof=1) / np.sqrt(len(rise))
        if spread == 0:
            return float(rise.mean()), 0.0 if excess > 0 else 1.0
        return float(rise.mean()), float(stats.t.sf(excess / spread, len(rise) - 1))

    @property
    def worsened(self) -> bool:
        """Whether an expectation both sides break, the head breaks earlier: the rounds' own knees
        moved down (:meth:`breaks_earlier`) and the head's cost past its knee is at least as
        steep.  A cost that turned quadratic past 2,000 objects and now turns past 600 is a
        regression of the pull request, though the base broke "linear" already."""
        return self.breaks_earlier() and self.head.knee_degree() >= self.base.knee_degree()

    def breaks_earlier(self) -> bool:
        """Whether an expectation both sides break (the head not newly) has its knee earlier in
        head: both sides have a knee and the rounds' own knees moved down (:meth:`_knees_test`)."""
        if self.broken or not (self.head.violated() and self.base.violated()):
            return False
        moved = self._knees_test()
        return bool(self.base.knee and self.head.knee) and moved is not None and moved[0] < ALPHA and moved[1] < 0

    def _knees_test(self) -> tuple[float, float] | None:
        """(exact two-sided Mann–Whitney p of the rounds' knees, head against base; the head's
        median knee minus the base's), or None with fewer than two rounds' knees a side."""
        base, head = self.base.round_knees(), self.head.round_knees()
        if len(base) < 2 or len(head) < 2:
            return None
        p = float(stats.mannwhitneyu(base, head, alternative="two-sided", method="exact").pvalue)
        return p, float(np.median(head) - np.median(base))

    @property
    def judged(self) -> bool:
        """Whether the row is a verdict (kept, broken, worsened, fixed, or broken on both sides),
        not a fit with no expectation, expectations the data cannot judge, or an inconclusive one."""
        return self.status in ("broken", "worsened", "violated on both", "fixed", "ok")

    @property
    def status(self) -> str:
        """broken; worsened (violated on both, the head's knee earlier); violated on both;
        inconclusive (the head's violation did not stand out from the base round by round, or
        there were no rounds); fixed; ok (every expectation kept); not checked (expectations
        match, the data cannot judge them); fitted (none matches)."""
        if self.broken:
            return "broken"
        if self.worsened:
            return "worsened"
        head_bad, base_bad = self.head.violated(), self.base.violated()
        if head_bad and base_bad and {v.expectation for v in head_bad} <= {v.expectation for v in self.fixed}:
            return "fixed"
        if head_bad:
            return "violated on both" if base_bad or self.base.error else "inconclusive"
        if base_bad:
            return "fixed" if self.fixed else "inconclusive"
        if not self.head.verdicts:
            return "fitted"
        return "ok" if any(v.checked for v in self.head.verdicts) else "not checked"

    def knee_text(self) -> str:
        """``"knee 2,070 → 608 objects"``, or a knee that only one side has; "" when neither has
        one.  A knee's own 95% interval is the fit's precision, and knees of runs of one commit
        fall outside each other's intervals (README, "Complexity"), so whether it moved is judged
        on the rounds' own knees (:meth:`knee_moved`)."""
        b, h = self.base.knee, self.head.knee
        if b and h:
            return f"knee {b['location']:,.0f} → {h['location']:,.0f} {h['param']}" + self.knee_moved()
        if h:
            return f"a knee at {h['location']:,.0f} {h['param']} in head only"
        if b:
            return f"the base's knee at {b['location']:,.0f} {b['param']} is not in head"
        return ""

    def knee_moved(self) -> str:
        """Whether the rounds' own knees moved, head against base (Mann–Whitney, two-sided, exact:
        the rounds are few, at 5%): ``" (moved: rounds' knees 2,041–2,102 → 598–631, p = 0.0002)"``; "" without rounds."""
        moved = self._knees_test()
        if moved is None:
            return ""
        p, base, head = moved[0], self.base.round_knees(), self.head.round_knees()
        spans = f"rounds' knees {min(base):,.0f}–{max(base):,.0f} → {min(head):,.0f}–{max(head):,.0f}"
        return f" (moved: {spans}, {p_text(p)})" if p < ALPHA else f" (not shown to move: {spans}, {p_text(p)})"

    def unchecked(self) -> list[str]:
        """Why each expectation the data cannot judge was not checked (a parameter it names that
        the table lacks: often a typo, which must not read as kept)."""
        return sorted({v.reason.removesuffix("; not checked") for v in self.head.verdicts if not v.checked})

    def detail(self) -> str:
        """Why: a broken expectation's reason, else the knees; then what was not checked; "" when
        there is nothing to say."""
        if self.broken:
            why = [v.reason + self._base_also_broke(i) for i, v in enumerate(self.head.verdicts) if v in self.broken]
        elif self.status == "fixed" and self.head.violated():
            why = [t for i, v in enumerate(self.base.verdicts) if v in self.fixed and (t := self._head_still_breaks(i))]
            why += [self.knee_text()] if self.knee_text() else []
        elif self.worsened:
            why = [f"{', '.join(v.expectation.text for v in self.head.violated())} breaks earlier: "
                   f"{self.knee_text()}"]
        elif self.status == "inconclusive" and not self.head.violated():    # the base's, not shown fixed
            why = self._not_shown_fixed()
        elif self.status == "inconclusive" and not self.head.rounds:
            why = [f"the head's fit breaks {v.expectation.text}: {v.reason}; but these runs have no rounds to bear "
                   f"it out, and noise can bend a single sweep" for v in self.head.violated()]
        elif self.status == "inconclusive":
            rises = [(v, self.paired(i)) for i, v in enumerate(self.head.verdicts) if v in self.head.violated()]
            why = [f"the head's fit breaks {v.expectation.text}, but round by round its share beyond that order rose "
                   f"{rise:+.0%} over the base's, not clearly more than the tolerance of "
                   f"{v.expectation.tolerance:.0%} (one-sided {p_text(p)})" for v, (rise, p) in rises]
        else:
            why = [self.knee_text()] if self.knee_text() else []
        if self.status == "not checked":
            return "; ".join(self.unchecked() + why)
        return "; ".join(why + [f"not checked: {u}" for u in self.unchecked()])

    def _not_shown_fixed(self) -> list[str]:
        """Why the base's violations the head keeps are not called fixed."""
        if not self.base.rounds:
            return [f"the base's fit breaks {v.expectation.text}: {v.reason}; the head's keeps it, but these runs "
                    f"have no rounds to bear a fix out, and noise can bend a single sweep" for v in self.base.violated()]
        falls = [(v, self.paired(i, falling=True)) for i, v in enumerate(self.base.verdicts) if v in self.base.violated()]
        return [f"the base's fit breaks {v.expectation.text} and the head's keeps it, but round by round its share "
                f"beyond that order changed {-fall:+.0%}, not clearly a fall of more than the tolerance of "
                f"{v.expectation.tolerance:.0%} (one-sided {p_text(p)})" for v, (fall, p) in falls]

    def notable(self) -> bool:
        """Whether a comment shows the row in sight: an expectation broken, violated, fixed,
        inconclusive or not checked, a knee that moved, or a steeper-than-linear knee on one side."""
        if self.status in ("broken", "worsened", "violated on both", "inconclusive", "fixed", "not checked") or self.unchecked():
            return True
        one_sided = [s for s in (self.base, self.head) if s.knee] if not (self.base.knee and self.head.knee) else []
        moved = self.sweep is not None and self.sweep.p_value < ALPHA
        return moved or self.knee_moved().startswith(" (moved") or any(s.knee_degree() > 1 for s in one_sided)

    def verdict_text(self) -> str:
        """The status in words, then the detail."""
        text = {"broken": "BROKEN by head", "worsened": "WORSENED by head (already broken at base)",
                "violated on both": "violated on both sides (already at base)",
                "fixed": "fixed by head (the base broke an expectation the head keeps)" if not self.head.violated()
                else "fixed by head (the base broke an expectation far more than the head does)",
                "inconclusive": "inconclusive",
                "ok": "expectations kept on both sides", "not checked": "not checked",
                "fitted": "no expectation matches"}[self.status]
        detail = self.detail()
        return f"{text}: {detail}" if detail else text

    def lines(self) -> list[str]:
        """The row for a terminal: its verdict, then each side's model."""
        return [f"{self.table} {self.measure}: {self.verdict_text()}",
                *(f"  {side}: {fit.model or 'no fit: ' + fit.error}" + "".join(f"; {u}" for u in fit.notes())
                  for side, fit in (("base", self.base), ("head", self.head))),
                *([f"  {self.sweep.text()}"] if self.sweep else [])]

    def as_dict(self) -> dict:
        return {"table": self.table, "measure": self.measure, "status": self.status,
                "base": _side_dict(self.base), "head": _side_dict(self.head),
                "broken": [v.as_dict() for v in self.broken], "worsened": self.worsened, "knees": self.knee_text() or None,
                "round_knees": {"base": self.base.round_knees(), "head": self.head.round_knees()},
                "round_knee_degrees": {"base": self.base.round_knee_degrees(), "head": self.head.round_knee_degrees()},
                "sweep": self.sweep.as_dict() if self.sweep else None}


def compare_complexity(base: Sequence[Metric], head: Sequence[Metric], expectations: Sequence[Expectation],
                       base_rounds: Sequence[Sequence[Metric]] = (),
                       head_rounds: Sequence[Sequence[Metric]] = ()) -> list[ComplexityRow]:
    """One row per scaling table and measure both sides measured.  Points are metrics with
    ``attrs["parameters"]`` named ``TABLE/param=value,…``; each point is one row of its side's
    table (its value: a check gives the median over its rounds).  ``*_rounds``: each round's
    own points, in round order, which bear a violation out (none: the pooled fit alone decides)."""
    sides = {"base": _tables(base), "head": _tables(head)}
    rounds = {"base": [_tables(r) for r in base_rounds], "head": [_tables(r) for r in head_rounds]}
    rows = []
    for table in sorted(set(sides["base"]) & set(sides["head"])):
        wanted = for_benchmark(list(expectations), table)
        fitted = {side: _fit_side(sides[side][table], wanted) for side in sides}
        by_round: dict[str, list[dict[str, SideFit]]] = {}   # each round's table fitted once, if a row needs it
        for measure in sorted(set(fitted["base"]) & set(fitted["head"])):
            row = ComplexityRow(table, measure, fitted["base"][measure], fitted["head"][measure],
                                sweep_change(*([[m for m in r.get(table, ()) if m.measure == measure] for r in rounds[side]]
                                               for side in ("base", "head")), measure))
            if any(not v.ok for v in row.base.verdicts + row.head.verdicts) or row.base.knee or row.head.knee:
                for side, fit in (("base", row.base), ("head", row.head)):
                    if side not in by_round:
                        by_round[side] = [_fit_side(r[table], wanted) if table in r else {} for r in rounds[side]]
                    each = [r.get(measure) for r in by_round[side]]
                    fit.rounds = [r if r is not None and not r.error else None for r in each]
            rows.append(row)
    return rows


def unmatched_note(expectations: Sequence[Expectation], rows: Sequence[ComplexityRow]) -> str:
    """A note naming the expectations' patterns that match none of the tables compared (a typo
    checks nothing, as ``fit --check`` refuses to), or "" when every pattern matched one."""
    tables = sorted({r.table for r in rows})
    missed = sorted({e.pattern for e in expectations if not any(e.matches(t) for t in tables)})
    if not tables or not missed:
        return ""
    return (f"complexity: pattern(s) {', '.join(repr(p) for p in missed)} match none of the {len(tables)} scaling "
            f"table(s) compared ({', '.join(tables)}); an expectation there checks nothing")


def run_points(run: Run) -> tuple[list[Metric], list[list[Metric]]]:
    """A recorded run's scaling points, named with its suite first when it ran one suite (as
    ``complexity.toml``'s patterns name them), each point's value one row; and, for a check's
    side (each point's ``round_samples``), each round's points (the median of its samples)."""
    suites = run.context.get("suites") or [run.context.get("suite")]
    prefix = f"{suites[0]}/" if len(suites) == 1 and isinstance(suites[0], str) else ""
    scaling = [m for m in run.metrics if m.is_scaling_point()]
    pooled = [Metric(prefix + m.benchmark, m.measure, m.value, attrs={"parameters": m.attrs["parameters"]})
              for m in scaling]
    counts = {len(m.attrs.get("round_samples") or ()) for m in scaling}
    if len(counts) != 1 or counts == {0}:
        return pooled, []
    return pooled, [[Metric(p.benchmark, p.measure, float(np.median(m.attrs["round_samples"][i])), attrs=p.attrs)
                     for p, m in zip(pooled, scaling)] for i in range(counts.pop())]


def _tables(metrics: Sequence[Metric]) -> dict[str, list[Metric]]:
    tables: dict[str, list[Metric]] = {}
    for m in metrics:
        if m.is_scaling_point() and "/" in m.benchmark:
            tables.setdefault(m.benchmark.rsplit("/", 1)[0], []).append(m)
    return tables


def _fit_side(points: list[Metric], expectations: list[Expectation]) -> dict[str, SideFit]:
    """Each measure of one side's table fitted, by its measure name."""
    name = points[0].benchmark.rsplit("/", 1)[0]
    try:
        table = table_from_metrics(name, points, name)
    except InputError as e:
        return {m.measure: SideFit("", error=e.reason) for m in points}
    units = {m.measure.rsplit("-", 1)[0]: m.measure for m in points}
    return {units[phase]: _fit_measure(table, y, phase, expectations, units[phase]) for phase, y in table.phases.items()}


def _fit_measure(table: ScalingTable, y: np.ndarray, phase: str, expectations: list[Expectation],
                 measure: str = "") -> SideFit:
    """``measure``: the column's measure name (``total-ns``), whose unit the model is written in."""
    if len(table) < MIN_POINTS:
        return SideFit("", error=f"{len(table)} point(s), too few to fit")
    try:
        params = table.letters()
        names = table.names()
        # Relative weights (1/cost²) take costs for positive: a Δ column whose trend crosses zero
        # got its largest weights where the fitted cost nears zero, and a knee there.  A few values
        # at or below zero are the noise of small sizes (2–4% of async-deinit's quick Δ columns).
        weighting = "relative" if np.mean(y <= 0) < NONPOSITIVE_SHARE else "none"
        found = analyse(default_terms(params), params, y, auto=True, knee=knee_letter(names, params),
                        weighting=weighting)
    except (FitError, TermError, InputError, np.linalg.LinAlgError) as e:
        return SideFit("", error=str(e))
    knee = found.knee if found.knee is not None and found.knee.found else None
    knee_dict = None
    if knee is not None:
        param = names.get(knee.param, knee.param)
        knee_dict = {**knee.as_dict(), "param": param}
        shape = "quadratic" if knee.degree == 2 else "steeper"
        model = (f"knee at {param} ≈ {knee.location:,.0f} (95% {knee.low:,.0f} … {knee.high:,.0f}), "
                 f"then {shape}; {knee.effect_text(param)}")
    else:
        model = found.fit.formula(measure=measure) + (", no knee" if found.knee is not None else "")
    flat = _flat_margin(found.selection)
    if flat is not None and flat < FLAT_BIC and knee is None:
        # No cost grows with the parameters here (a Δ column of noise about zero): a term's share
        # of a cost that is not there is noise too, and read "violated" in most rounds of a
        # linear queue's scheduling Δ in the demo.
        why = f"a constant fits this column about as well as any cost model (ΔBIC {flat:.1f}); not checked"
        verdicts = [Verdict(e, phase, True, why, checked=False) for e in expectations]
    else:
        verdicts = [check(e, phase, found.fit, found.knee, params, names) for e in expectations]
    if knee is not None and any(not v.ok and not v.reason.startswith("the cost turns") for v in verdicts):
        model += f"; without a knee {found.fit.formula(measure=measure)}"   # the model the verdict's terms are of
    return SideFit(model, knee_dict, verdicts)


def _flat_margin(selection) -> float | None:
    """How much better by BIC the chosen model is than a constant alone (None: not compared)."""
    if selection is None:
        return None
    flat = next((c.bic for c in selection.ranking if c.spec == "1"), None)
    return None if flat is None else flat - selection.ranking[0].bic


def _side_dict(side: SideFit) -> dict:
    return {"model": side.model or None, "knee": side.knee, "error": side.error or None,
            "verdicts": [v.as_dict() | ({"rounds_violated": side.round_count(i)[0],
                                         "rounds_fitted": side.round_count(i)[1]} if side.rounds else {})
                         for i, v in enumerate(side.verdicts)],
            "violated": [v.expectation.text for v in side.violated()],
            "knee_degree": side.knee_degree() if side.knee else None}     # the rounds' shape, as the verdicts take it
