"""Scaling sweeps for the trend pages: a sweep records one series per parameter combination
(``async_array/values=3,objects=900``); here those series are put back together per commit and
fitted with :mod:`perfgate.complexity` exactly as ``perfgate fit`` does (terms chosen by BIC,
knee searched in one parameter), giving the curve of each commit and the history of the
fitted coefficients and of the knee.  Pure: takes points, returns JSON-ready dicts."""

from __future__ import annotations

import math
import re
from collections import defaultdict
from dataclasses import dataclass, field

import numpy as np

from perfgate.complexity.terms import TermError, default_terms, design_matrix
from perfgate.model import scaling_parameters
from perfgate.report.series_data import suffix_scale
from perfgate.store import Point, SeriesKey
from perfgate.units import number

# "NAME/objects=100", "NAME/values=3,objects=900": a NAME=VALUE pair per parameter after the last
# slash, as the scaling-tsv adapter names its points (adapters/scaling_tsv.py:point_name).
SWEEP_POINT = re.compile(r"/([A-Za-z_][\w-]*=[^/,=]+(?:,[A-Za-z_][\w-]*=[^/,=]+)*)$")
# Commits fitted per sweep: the coefficient history stays readable and the build fast.
MAX_COMMITS = 40
CURVE_POINTS = 60
MAX_CURVES = 8
Z95 = 1.959963984540054


def split_name(benchmark: str, recorded: dict | None = None) -> tuple[str, dict[str, float]] | None:
    """``("async_array", {"values": 3.0, "objects": 900.0})``, or None when not a sweep point.
    ``recorded``: the parameters its points recorded (``attrs["parameters"]``), which decide: they
    must be numbers (:func:`perfgate.model.scaling_parameters`: pytest's ``test_x[a=b]`` keeps text) and the
    name's, and are taken over the name's text (``objects=1.23457e+06`` for 1,234,567).  A name
    alone (a store that keeps no parameters) needs two pairs: ``BenchmarkSort/size=10`` is a Go
    sub-benchmark, not a sweep."""
    m = SWEEP_POINT.search(benchmark)
    if not m:
        return None
    pairs = dict(pair.partition("=")[::2] for pair in m.group(1).split(","))
    if recorded is not None:
        if not scaling_parameters(recorded) or set(recorded) != set(pairs):
            return None
        params = {k: float(recorded[k]) for k in pairs}
    elif len(pairs) < 2:
        return None
    else:
        params = {k: _number(v) for k, v in pairs.items()}
    if not all(math.isfinite(v) for v in params.values()):
        return None
    return benchmark[:m.start()], params


def _number(text: str) -> float:
    """Any number the adapter writes (``900``, ``1234567``, ``1.23457e+06``); NaN when not one."""
    try:
        return float(text)
    except ValueError:
        return math.nan


def sweep_point(key: SeriesKey, pts: list[Point]) -> tuple[str, dict[str, float]] | None:
    """The sweep a series is a point of and its parameters, or None: by what its points recorded
    (each must be a scaling point), else by its name."""
    if not SWEEP_POINT.search(key.benchmark):   # most series: their points need not be read
        return None
    recorded = [p.attrs["parameters"] for p in pts if isinstance(p.attrs, dict) and "parameters" in p.attrs]
    if any(split_name(key.benchmark, r) is None for r in recorded):
        return None
    return split_name(key.benchmark, recorded[-1] if recorded else None)


@dataclass
class Sweep:
    """Every point of one sweep on one branch and testbed, by commit then measure (phase)."""

    name: str
    branch: str
    testbed: str
    rows: dict[str, dict[str, list[tuple[dict[str, float], list[float]]]]] = field(
        default_factory=lambda: defaultdict(lambda: defaultdict(list)))
    times: dict[str, float] = field(default_factory=dict)
    keys: list[SeriesKey] = field(default_factory=list)   # its points' series

    def add(self, key: SeriesKey, params: dict[str, float], pts: list[Point]) -> None:
        self.keys.append(key)
        for p in pts:
            attrs = p.attrs.get("parameters") if isinstance(p.attrs, dict) else None
            values = list(p.samples) or [p.value]
            own = {k: float(v) for k, v in attrs.items()} if attrs else params
            self.rows[p.commit][key.measure].append((own, values))
            if p.time is not None:
                self.times[p.commit] = min(self.times.get(p.commit, p.time), p.time)


def collect(series: dict[SeriesKey, list[Point]]) -> list[Sweep]:
    sweeps: dict[tuple[str, str, str], Sweep] = {}
    for key, pts in series.items():
        parsed = sweep_point(key, pts)
        if parsed is None:
            continue
        name, params = parsed
        sweep = sweeps.setdefault((name, key.branch, key.testbed), Sweep(name, key.branch, key.testbed))
        sweep.add(key, params, pts)
    return [sweeps[k] for k in sorted(sweeps)]


def _table(rows: list[tuple[dict[str, float], list[float]]]) -> tuple[dict[str, str], dict[str, np.ndarray], np.ndarray]:
    names = sorted({k for params, _ in rows for k in params})
    letter_of = {n: n[0].lower() for n in names}
    xs: dict[str, list[float]] = {n: [] for n in names}
    ys: list[float] = []
    for params, values in rows:
        for n in names:
            xs[n].extend([float(params.get(n, math.nan))] * len(values))
        ys.extend(values)
    return ({letter_of[n]: n for n in names}, {letter_of[n]: np.array(v) for n, v in xs.items()}, np.array(ys))


def fit_commit(rows, measure: str) -> dict | None:
    """The fit of one commit's points of one measure: model, coefficients with their intervals,
    knee, and the points and model curve to draw.  None when the data cannot support a fit.
    Its texts (models, the knee's) are in the unit the measure's name ends in, as the page's axes."""
    # Imported here: the fitting code pulls in statsmodels (~2 s to import), and most builds have
    # no sweep at all.
    from perfgate.complexity.analysis import analyse, knee_letter
    from perfgate.complexity.regression import FitError

    names, params, y = _table(rows)
    if len(y) < 4 or any(np.isnan(v).any() for v in params.values()) or not np.all(np.isfinite(y)):
        return None
    terms = default_terms(params)
    knee_in = knee_letter(names, params)
    try:
        found = analyse(terms, params, y, auto=True, knee=knee_in)
    except (FitError, TermError, np.linalg.LinAlgError):
        return None
    fit, knee = found.fit, found.knee
    x_letter = knee_in or next(iter(params))
    others = [k for k in params if k != x_letter]
    return {
        "formula": fit.formula(measure=measure), "r2": fit.r2, "adj_r2": fit.adj_r2, "r2_weighted": fit.r2_weighted, "n": fit.n,
        "warning": fit.below_zero_text(),
        "terms": _terms(fit),
        "knee": _knee(knee, names, measure),
        "lead": _lead(fit, knee, measure),
        "x": names[x_letter], "group": names[others[0]] if others else None,
        "points": _points(params, y, x_letter, others),
        "curves": _curves(fit, params, x_letter, others, knee if knee is not None and knee.found else None),
    }


def _knee(knee, names: dict[str, str], measure: str) -> dict | None:
    if knee is None:
        return None
    d = {"param": names.get(knee.param, knee.param), "found": bool(knee.found), "delta_bic": float(knee.delta_bic)}
    if knee.found:
        d |= {"location": float(knee.location), "low": float(knee.low), "high": float(knee.high),
              "degree": knee.degree, "slope_below": float(knee.slope_below), "formula": knee.model(measure),
              "p_value": float(knee.p_value), "effect": float(knee.effect), "r2": float(knee.r2),
              "text": knee.describe(names.get(knee.param, knee.param), measure)}
    return d


def _lead(fit, knee, measure: str) -> dict:
    """The model the fit leads with, as ``perfgate fit`` does: the knee model when it beat every
    model without a knee, else the best of those — one model for the page's headline, its table of
    fits and its coefficient history (they gave the polynomial the knee model beat, whose
    coefficients jumped at each knee commit).  A knee model's coefficients have no interval (its
    knee is searched, not fitted with them); the hinge's is named ``(o − knee)₊²`` at every commit."""
    if knee is None or not knee.found:
        return {"model": "polynomial", "formula": fit.formula(measure=measure), "r2": fit.r2, "terms": _terms(fit)}
    hinge = f"({knee.param} − knee)₊" + ("²" if knee.degree == 2 else "")
    return {"model": "knee", "formula": knee.model(measure), "r2": float(knee.r2),
            "terms": [{"term": t.spec, "label": t.label, "coef": float(b)} for t, b in zip(knee.base, knee.beta)]
            + [{"term": "hinge", "label": hinge, "coef": float(knee.beta[-1])}]}


def _terms(fit) -> list[dict]:
    """The polynomial fit's terms with their coefficients and 95% intervals."""
    return [{"term": t.spec, "label": t.label, "coef": float(c), "ci_low": float(lo), "ci_high": float(hi)}
            for t, c, lo, hi in zip(fit.terms, fit.coef, fit.ci_low, fit.ci_high)]


def _points(params, y, x_letter, others) -> list[list[float]]:
    """[x, group value, y] per measured row (group: the first other parameter, or 0)."""
    g = params[others[0]] if others else np.zeros_like(y)
    return [[float(a), float(b), float(c)] for a, b, c in zip(params[x_letter], g, y)]


def _curves(fit, params, x_letter, others, knee=None) -> list[dict]:
    """The model and its 95% confidence band along x, one curve per value of the first other
    parameter (the rest held at their median); with a knee found, the knee model along x too
    (``knee_y``): past the knee the chosen model can miss the points the knee model follows."""
    x = params[x_letter]
    lo, hi = float(x.min()), float(x.max())
    grid = np.geomspace(lo, hi, CURVE_POINTS) if lo > 0 else np.linspace(lo, hi, CURVE_POINTS)
    groups = sorted(set(params[others[0]].tolist())) if others else [None]
    if len(groups) > MAX_CURVES:  # e.g. a random value count per row: draw five representatives
        groups = sorted(set(np.quantile(params[others[0]], [0, 0.25, 0.5, 0.75, 1], method="nearest").tolist()))
    curves = []
    for g in groups:
        at = {k: np.full(len(grid), float(np.median(v))) for k, v in params.items()}
        at[x_letter] = grid
        if g is not None:
            at[others[0]] = np.full(len(grid), g)
        X = design_matrix(fit.terms, at)
        mean = X @ fit.coef
        se = np.sqrt(np.maximum(np.einsum("ij,jk,ik->i", X, fit.cov, X), 0))
        curves.append({"group": g, "x": grid.tolist(), "y": mean.tolist(),
                       "lower": (mean - Z95 * se).tolist(), "upper": (mean + Z95 * se).tolist()}
                      | ({"knee_y": knee.predict(at).tolist()} if knee is not None else {}))
    return curves


def sweep_page(sweep: Sweep) -> dict:
    """Per measure: one fit per commit (oldest first, the last MAX_COMMITS) — the curves to draw
    and the history of each coefficient and of the knee."""
    commits = sorted(sweep.rows, key=lambda c: (sweep.times.get(c, 0.0), c))[-MAX_COMMITS:]
    measures = sorted({m for c in commits for m in sweep.rows[c]})
    out = []
    for measure in measures:
        fits = []
        for c in commits:
            rows = sweep.rows[c].get(measure)
            fitted = fit_commit(rows, measure) if rows else None
            if fitted:
                fits.append({"commit": c, "time": sweep.times.get(c), **fitted})
        if fits:
            # the unit its name ends in ("total-ns"), for the page to write values as the benchmark pages do
            out.append({"measure": measure, "fits": fits} | suffix_scale(measure))
    return {"name": sweep.name, "branch": sweep.branch, "testbed": sweep.testbed, "measures": out}


def leading_formula(fit: dict) -> str:
    """The model a fit leads with (:func:`_lead`; the index showed the polynomial the knee model
    beat by ΔBIC 173: 0.107·o² − 249·o + 164476, a negative per-object cost)."""
    return fit["lead"]["formula"]


def sweep_summary(page: dict) -> dict:
    """The index's line for a sweep: its latest model and knee."""
    # each knee with its measure: the page opens on another measure, whose knee may differ
    knees = [(m["measure"], m["fits"][-1]["knee"]) for m in page["measures"]
             if m["fits"][-1]["knee"] and m["fits"][-1]["knee"]["found"]]
    return {"name": page["name"], "branch": page["branch"], "testbed": page["testbed"],
            "commits": max((len(m["fits"]) for m in page["measures"]), default=0),
            "models": [{"measure": m["measure"], "formula": leading_formula(m["fits"][-1])} for m in page["measures"]],
            "knee": "; ".join(f"{measure}: {k['param']} ≈ {number(k['location'])}" for measure, k in knees)}
