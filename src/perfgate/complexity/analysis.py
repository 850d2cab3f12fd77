"""The whole analysis of one phase, as ``perfgate fit`` runs it: fit (or choose) the terms, then
look for a knee on top of the linear part.  Shared by the CLI and ``bench/complexity_eval.py`` so
the benchmark measures exactly what users get."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from perfgate.complexity.knee import Knee, find_knee, linear_base
from perfgate.complexity.regression import Fit, FitError, fit_terms
from perfgate.complexity.selection import Selection, select_terms
from perfgate.complexity.terms import Term


@dataclass
class Analysis:
    fit: Fit
    selection: Selection | None  # None when the terms were given, not chosen
    knee: Knee | None  # None when no knee search was asked for


def analyse(terms: list[Term], params: dict[str, np.ndarray], y: np.ndarray, *, auto: bool = True,
            knee: str | None = None, weighting: str = "relative", robust: bool = True,
            noise_scale: np.ndarray | None = None) -> Analysis:
    """``auto``: choose among subsets of ``terms`` by BIC, else fit them as given.
    ``knee``: the parameter letter to search for a knee in (None: no search).
    ``noise_scale``: known per-row noise scale (see :func:`.regression.fit_terms`)."""
    opts = {"weighting": weighting, "robust": robust, "noise_scale": noise_scale}
    if auto:
        selection = select_terms(terms, params, y, **opts)
        fit = selection.fit
    else:
        selection, fit = None, fit_terms(terms, params, y, **opts)
    found = None
    if knee is not None:
        if knee not in params:
            raise FitError(f"no parameter {knee!r} to look for a knee in")
        found = find_knee(linear_base(fit.terms, knee), params, y, knee, start=fit.fitted,
                          robust_weights=fit.robust_weights, weighting=weighting, noise_scale=noise_scale)
    return Analysis(fit, selection, found)


def knee_letter(names: dict[str, str], params: dict[str, np.ndarray]) -> str | None:
    """The knee is searched in objects when the sweep has them (the seeds' question), else in
    the parameter spanning most orders of magnitude."""
    if "o" in names and names["o"] == "objects":
        return "o"
    spans = {k: np.ptp(np.log10(np.maximum(v, 1e-300))) for k, v in params.items() if np.all(v > 0)}
    return max(spans, key=spans.get) if spans else None
