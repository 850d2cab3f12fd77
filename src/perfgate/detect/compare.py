"""The A/B comparison of a pull request: head run against base run, benchmark by benchmark.

Signature other code relies on (``perfgate compare``, ``perfgate check``)::

    compare_runs(base: perfgate.model.Run, head: perfgate.model.Run,
                 thresholds: perfgate.thresholds.Thresholds | None = None,
                 alpha: float = 0.05, paired: bool = False) -> Comparison

``paired=True`` says sample k of base and sample k of head were measured back to back (the
interleaved rounds of ``perfgate check``): the test then works on the per-pair log ratios, which
cancels the slow machine-state noise both shared — on a loaded runner that is most of the noise.

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
  ``no-change`` otherwise; ``insufficient-data`` when a side has fewer than ``MIN_SAMPLES``
  samples (unless the measure is deterministic, below);
* minimum detectable effect: the shift this pair could detect with 80% power at level α,
  ``exp((z_{1-α/2} + z_{0.8}) · s · sqrt(1/n_b + 1/n_h)) - 1`` with ``s`` the pooled robust
  (MAD) standard deviation of the log samples — Mann–Whitney has ≥ 86% of the t-test's
  efficiency, so this is a slightly optimistic but honest yardstick.
* deterministic measures (instruction counts under valgrind; or both sides with ≥ 2 samples and
  no spread at all): the values are exact, so any relative difference larger than
  ``DETERMINISTIC_TOLERANCE`` is certain (p = 0) and the MDE is that tolerance.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Mapping, Sequence

import numpy as np
from scipy.stats import mannwhitneyu, wilcoxon

from perfgate.detect.stats import benjamini_hochberg, hodges_lehmann, normal_quantile
from perfgate.model import Measure, Run
from perfgate.thresholds import Thresholds, load_thresholds

MIN_SAMPLES = 3
DETERMINISTIC_MEASURES = ("instructions",)
DETERMINISTIC_TOLERANCE = 1e-4   # 0.01%: a handful of instructions in a million
POWER = 0.8


@dataclass
class Verdict:
    benchmark: str
    measure: str
    verdict: str               # regression | improvement | no-change | insufficient-data
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
    mde: float | None          # smallest relative change this pair could detect (80% power)
    threshold: float           # min_effect a change must reach to count
    lower_is_better: bool
    method: str = ""           # mann-whitney | deterministic | —
    note: str = ""


@dataclass
class Comparison:
    verdicts: list[Verdict]
    alpha: float
    base: dict = field(default_factory=dict)   # branch, commit, testbed of each side
    head: dict = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)

    @property
    def regressions(self) -> list[Verdict]:
        return [v for v in self.verdicts if v.verdict == "regression"]

    @property
    def improvements(self) -> list[Verdict]:
        return [v for v in self.verdicts if v.verdict == "improvement"]

    @property
    def exit_code(self) -> int:
        return 1 if self.regressions else 0

    def render(self) -> str:
        """A plain-text table, worst first."""
        rows = [("benchmark", "measure", "base", "head", "change [CI]", "q", "MDE", "verdict")]
        for v in sorted(self.verdicts, key=_severity):
            rows.append((v.benchmark, v.measure, _num(v.base_median), _num(v.head_median),
                         _pct(v.effect) + (f" [{_pct(v.ci_low)}, {_pct(v.ci_high)}]" if v.ci_low is not None else ""),
                         "—" if v.q_value is None else f"{v.q_value:.3g}", _pct(v.mde, sign=False),
                         v.verdict + (f" ({v.note})" if v.note else "")))
        widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
        lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
        lines.insert(1, "  ".join("-" * w for w in widths))
        summary = (f"{len(self.regressions)} regression(s), {len(self.improvements)} improvement(s) among "
                   f"{len(self.verdicts)} comparison(s); false discovery rate controlled at {self.alpha:g}")
        return "\n".join([*self.warnings, *lines, summary])


def _severity(v: Verdict) -> tuple:
    order = {"regression": 0, "improvement": 1, "no-change": 2, "insufficient-data": 3}
    return order[v.verdict], v.q_value if v.q_value is not None else 2.0, v.benchmark, v.measure


def _num(x: float | None) -> str:
    if x is None:
        return "—"
    return f"{x:.4g}"


def _pct(x: float | None, sign: bool = True) -> str:
    if x is None or not math.isfinite(x):
        return "—"
    return f"{x * 100:+.2f}%" if sign else f"{x * 100:.2f}%"


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
    tested = [i for i, v in enumerate(verdicts) if v.p_value is not None]
    q = benjamini_hochberg([verdicts[i].p_value for i in tested])
    for i, qi in zip(tested, q):
        v = verdicts[i]
        v.q_value = float(qi)
        if qi <= alpha and v.effect is not None and abs(v.effect) >= v.threshold:
            worse = v.effect > 0 if v.lower_is_better else v.effect < 0
            v.verdict = "regression" if worse else "improvement"
        else:
            v.verdict = "no-change"
            if qi <= alpha:
                v.note = f"significant but below the {v.threshold:.1%} threshold"
    return Comparison(verdicts, alpha)


def _judge(benchmark: str, measure: str, b: np.ndarray, h: np.ndarray, threshold: float, alpha: float,
           paired: bool = False) -> Verdict:
    lower = Measure.named(measure).lower_is_better
    v = Verdict(benchmark, measure, "insufficient-data", b.size, h.size,
                float(np.median(b)) if b.size else None, float(np.median(h)) if h.size else None,
                None, None, None, None, None, None, None, threshold, lower)
    if b.size == 0 or h.size == 0:
        v.note = "missing in base" if b.size == 0 else "missing in head"
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
        v.effect = v.ci_low = v.ci_high = float(np.expm1(shift))
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
    v.effect = float(np.expm1(shift))
    lo, hi = _lehmann_interval(lb, lh, alpha)
    v.ci_low, v.ci_high = float(np.expm1(lo)), float(np.expm1(hi))
    v.mde = _mde(lb, lh, alpha)
    return v


def _judge_paired(v: Verdict, d: np.ndarray, alpha: float) -> Verdict:
    v.method = "wilcoxon-paired"
    v.p_value = 1.0 if not np.any(d) else float(wilcoxon(d, alternative="two-sided").pvalue)
    i, j = np.triu_indices(d.size)
    walsh = np.sort((d[i] + d[j]) / 2)
    v.effect = float(np.expm1(np.median(walsh)))
    n = d.size
    k = int(math.floor(n * (n + 1) / 4 - normal_quantile(1 - alpha / 2) * math.sqrt(n * (n + 1) * (2 * n + 1) / 24)))
    lo, hi = (walsh[k - 1], walsh[walsh.size - k]) if k >= 1 else (-math.inf, math.inf)
    v.ci_low, v.ci_high = float(np.expm1(lo)), float(np.expm1(hi))
    s = 1.4826 * float(np.median(np.abs(d - np.median(d))))
    v.mde = float(np.expm1((normal_quantile(1 - alpha / 2) + normal_quantile(POWER)) * s / math.sqrt(n)))
    return v


def _lehmann_interval(a: np.ndarray, b: np.ndarray, alpha: float) -> tuple[float, float]:
    """Distribution-free interval for the shift of b over a from the sorted pairwise differences."""
    d = np.sort(np.subtract.outer(b, a).ravel())
    n, m = a.size, b.size
    k = int(math.floor(n * m / 2 - normal_quantile(1 - alpha / 2) * math.sqrt(n * m * (n + m + 1) / 12)))
    if k < 1:
        return -math.inf, math.inf
    return float(d[k - 1]), float(d[d.size - k])


def _mde(a: np.ndarray, b: np.ndarray, alpha: float) -> float:
    def mad(x: np.ndarray) -> float:
        return 1.4826 * float(np.median(np.abs(x - np.median(x))))

    s = math.sqrt(((a.size - 1) * mad(a) ** 2 + (b.size - 1) * mad(b) ** 2) / max(a.size + b.size - 2, 1))
    z = normal_quantile(1 - alpha / 2) + normal_quantile(POWER)
    return float(np.expm1(z * s * math.sqrt(1 / a.size + 1 / b.size)))
