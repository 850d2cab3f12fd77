"""Complexity expectations ("linear in objects up to 50,000") and their verdict against a fit.

Expectations live in ``thresholds/complexity.toml``::

    [complexity."async-deinit/*"]      # benchmark name pattern (fnmatch)
    objects = "linear"                 # constant | linear | quadratic | cubic, per parameter
    up_to = 50000                      # checked at this size (default: the largest measured);
                                       # or per parameter: up_to = { objects = 50000 }
    tolerance = 0.05                   # ignore super-linear effects below 5% of the cost

Verdicts stay inside the data: an expectation is judged at ``x_judged = min(up_to, x_max)``, the
largest size both asked for and measured.  A fit says nothing reliable about sizes it never saw
(a small curvature within the data, extrapolated six-fold, can look like a 27% quadratic term),
so when ``up_to`` lies beyond the data the verdict says the expectation is untested there, and
the fit's extrapolation to ``up_to`` is reported on its own labelled line, never judged.

An expectation of order m in parameter x is violated when, with 95% confidence, the cost grows
faster than x^m within the range, by more than ``tolerance`` of the cost at ``x_judged``:

- a knee below ``x_judged`` after which the cost grows as (x − k)^d with d > m (its effect is the
  knee term's share of the cost at the largest x, its confidence the knee's likelihood-ratio test);
- a fitted term with x-exponent > m: its share of the predicted cost at x = x_judged (other
  parameters at their medians), ``effect = Σ_t β_t X_t(P) / ŷ(P)``, must exceed the tolerance and
  its contribution must be significant: ``z = c / se(c)`` with ``se(c)² = gᵀ Σ_β g``.  (The
  share can exceed 100% when lower-order terms are negative.)

This module is pure: :func:`parse_expectations` takes the file's text, the caller reads it.
"""

from __future__ import annotations

import fnmatch
import tomllib
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy import stats

from perfgate.complexity.knee import Knee
from perfgate.complexity.regression import Fit
from perfgate.errors import InputError
from perfgate.inputs import parse_toml, read_text
from perfgate.units import p_text

ORDERS = {"constant": 0, "linear": 1, "quadratic": 2, "cubic": 3}
ORDER_NAMES = {v: k for k, v in ORDERS.items()}
ALPHA = 0.05
DEFAULT_TOLERANCE = 0.05


@dataclass(frozen=True)
class Expectation:
    pattern: str
    param: str  # full parameter name, e.g. "objects"
    order: int
    up_to: float | None = None
    tolerance: float = DEFAULT_TOLERANCE

    @property
    def text(self) -> str:
        limit = f" up to {self.up_to:,.0f}" if self.up_to is not None else ""
        return f"{ORDER_NAMES[self.order]} in {self.param}{limit}"

    def matches(self, benchmark: str) -> bool:
        return fnmatch.fnmatchcase(benchmark, self.pattern)


@dataclass
class Verdict:
    expectation: Expectation
    phase: str
    ok: bool
    reason: str
    effect: float = 0.0  # share of the cost at the judged size that breaks the expectation
    confidence: float = 0.0  # 1 − p of that excess being real
    judged_up_to: float | None = None    # the largest size judged: min(up_to, largest measured)
    extrapolation: str = ""              # what the fit says beyond the data (not judged)
    # the share of the cost that would break the expectation, as estimated whether significant
    # or not (0 when the fit has no term or knee beyond the expected order): what the rounds of a
    # check compare, head against base
    share: float = 0.0
    checked: bool = True                 # False: the data cannot judge it (no such parameter, or fixed)

    def as_dict(self) -> dict:
        return {"pattern": self.expectation.pattern, "expected": self.expectation.text, "phase": self.phase,
                "ok": self.ok, "reason": self.reason, "effect": self.effect, "confidence": self.confidence,
                "judged_up_to": self.judged_up_to, "extrapolation": self.extrapolation or None,
                "share": self.share, "checked": self.checked}


def parse_expectations(text: str, source: str) -> list[Expectation]:
    try:
        doc = parse_toml(text)
    except tomllib.TOMLDecodeError as e:
        raise InputError(source, "", f"invalid TOML: {e}") from None
    section = doc.get("complexity", {})
    if not isinstance(section, dict):
        raise InputError(source, "complexity", "expected a table of benchmark patterns")
    found = []
    for pattern, body in section.items():
        place = f'complexity."{pattern}"'
        if not isinstance(body, dict):
            raise InputError(source, place, "expected a table such as { objects = \"linear\", up_to = 50000 }")
        up_to = body.get("up_to")
        limits = up_to if isinstance(up_to, dict) else {}
        tolerance = _number(body.get("tolerance", DEFAULT_TOLERANCE), source, place + ".tolerance")
        params = {k: v for k, v in body.items() if k not in ("up_to", "tolerance")}
        if not params:
            raise InputError(source, place, "names no parameter (e.g. objects = \"linear\")")
        for param, order in params.items():
            if order not in ORDERS:
                raise InputError(source, f"{place}.{param}", f"{order!r} is not one of {', '.join(ORDERS)}")
            limit = limits.get(param) if limits else up_to
            found.append(Expectation(pattern, param, ORDERS[order], _number(limit, source, place + ".up_to"), tolerance))
    return found


def _number(value: object, source: str, place: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        raise InputError(source, place, f"expected a non-negative number, got {value!r}")
    return float(value)


def check(exp: Expectation, phase: str, fit: Fit, knee: Knee | None, params: dict[str, np.ndarray],
          names: dict[str, str] | None = None) -> Verdict:
    """The verdict of one expectation on one phase's fit (``params`` keyed by letter; ``names``:
    each letter's column, so that ``opcount`` is not judged on ``objects`` for sharing its letter)."""
    letter = exp.param[0].lower()
    if letter not in params or (names is not None and names.get(letter) != exp.param):
        return Verdict(exp, phase, True, f"the data has no parameter {exp.param!r}; not checked", checked=False)
    if np.ptp(params[letter]) == 0:
        return Verdict(exp, phase, True, f"{exp.param} is fixed at {params[letter][0]:g} in this data; not checked",
                       checked=False)
    x_max = float(np.max(params[letter]))
    at_x = min(exp.up_to, x_max) if exp.up_to is not None else x_max
    beyond = exp.up_to is not None and exp.up_to > 1.05 * x_max
    note = f"; untested beyond {exp.param} = {x_max:,.0f}, the largest measured" if beyond else ""
    judged = ORDER_NAMES[exp.order] + f" in {exp.param} up to {at_x:,.0f}"
    point = {p: np.array([float(np.median(v))]) for p, v in params.items()}

    def excess_share(x: float) -> tuple[float, float, str] | None:
        """(share of the cost at x from terms above the expected order, its p-value, their names)."""
        excess = [i for i, t in enumerate(fit.terms) if t.power(letter) > exp.order]
        if not excess:
            return None
        at = {**point, letter: np.array([x])}
        g = np.zeros(len(fit.terms))
        for i in excess:
            g[i] = fit.terms[i].column(at, 1)[0]
        contribution = float(g @ fit.coef)
        se = float(np.sqrt(max(g @ fit.cov @ g, 0.0)))
        total = float(np.array([t.column(at, 1)[0] for t in fit.terms]) @ fit.coef)
        effect = contribution / total if total > 0 else float("inf")
        p = float(2 * stats.norm.sf(abs(contribution) / se)) if se > 0 else 0.0
        return (effect if contribution > 0 else 0.0), p, " + ".join(fit.terms[i].label for i in excess)

    extrapolation = ""
    if beyond:
        far = excess_share(exp.up_to)
        if far is not None and far[0] > 0:
            extrapolation = (f"extrapolation, not judged: the fit's {far[2]} would add {far[0]:.0%} at "
                             f"{exp.param} = {exp.up_to:,.0f}, {exp.up_to / x_max:.1f}× the largest measured")
    near = excess_share(at_x)
    steeper = knee is not None and knee.found and knee.param == letter and (knee.degree or 0) > exp.order \
        and knee.location < at_x
    # as the verdict reads it: a knee beyond the order first, else the polynomial's excess terms
    share = knee.effect if steeper else near[0] if near is not None else 0.0
    verdict = dict(judged_up_to=at_x, extrapolation=extrapolation, share=share)

    if steeper and knee.effect > exp.tolerance:
        return Verdict(exp, phase, False,
                       f"the cost turns {ORDER_NAMES.get(knee.degree, knee.degree)} above {exp.param} ≈ "
                       f"{knee.location:,.0f} (the fit's 95% interval {knee.low:,.0f} … {knee.high:,.0f}), adding "
                       f"{knee.effect:.0%} at {x_max:,.0f} ({p_text(knee.p_value)}); expected {exp.text}{note}",
                       knee.effect, 1 - knee.p_value, **verdict)
    if near is not None:
        effect, p, terms = near
        if effect > exp.tolerance and p < ALPHA:
            return Verdict(exp, phase, False,
                           f"{terms} adds {effect:.0%} to the cost at {exp.param} = {at_x:,.0f} "
                           f"({p_text(p)}); expected {exp.text}{note}", effect, 1 - p, **verdict)
    asked = f" (expected up to {exp.up_to:,.0f}{note})" if beyond else ""
    return Verdict(exp, phase, True, f"consistent with {judged}{asked}", **verdict)


def expectations_of(thresholds: Path | None) -> list[Expectation]:
    """The expectations beside a check's thresholds: ``complexity.toml`` of a thresholds folder,
    or the ``[complexity]`` tables of a thresholds file; none without either."""
    if thresholds is None:
        return []
    path = thresholds / "complexity.toml" if thresholds.is_dir() else thresholds
    if not path.is_file():
        return []
    return parse_expectations(read_text(str(path)), str(path))


def for_benchmark(expectations: list[Expectation], benchmark: str) -> list[Expectation]:
    return [e for e in expectations if e.matches(benchmark)]
