"""Automatic model selection: which of the candidate terms does the data actually need?

Fitting every candidate term at once (what the seeds' script did by default) over-fits: noise
buys spurious ``v`` and ``o²`` terms and moves the real coefficients.  Here every non-empty
subset S of the candidates is scored by the Bayesian information criterion

    BIC(S) = n · ln(RSS_w(S) / n) + |S| · ln n

where RSS_w is the weighted residual sum of squares with the *same* row weights for all subsets
(the variance and Huber weights of the full model), so the scores are comparable.  ln n ≈ 6.9 per
term at n = 1000: a term must cut the residual variance by ~0.7% to be kept, which a null term
does with probability ≈ P(χ²₁ > 6.9) ≈ 0.9%.  The chosen subset is then refitted on its own
(re-weighted, robust) to give coefficients and intervals.

Up to 10 candidates are searched exhaustively (1023 subsets, each a small least-squares solve).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

import numpy as np

from perfgate.complexity.regression import Fit, FitError, bic, fit_terms, weighted_lstsq
from perfgate.complexity.terms import Term, design_matrix

MAX_EXHAUSTIVE = 10


@dataclass
class Candidate:
    terms: tuple[Term, ...]
    bic: float

    @property
    def spec(self) -> str:
        return ",".join(t.spec for t in self.terms)


@dataclass
class Selection:
    fit: Fit
    ranking: list[Candidate]  # best first

    @property
    def delta_bic(self) -> float:
        """How much better the chosen model scored than the runner-up (≥ 10: very strong)."""
        return self.ranking[1].bic - self.ranking[0].bic if len(self.ranking) > 1 else float("inf")

    def as_dict(self) -> dict:
        return {"chosen": self.ranking[0].spec, "delta_bic_to_runner_up": self.delta_bic,
                "ranking": [{"model": c.spec, "bic": c.bic} for c in self.ranking[:5]]}


def select_terms(candidates: list[Term], params: dict[str, np.ndarray], y: np.ndarray, *,
                 weighting: str = "relative", robust: bool = True, confidence: float = 0.95) -> Selection:
    if len(candidates) > MAX_EXHAUSTIVE:
        raise FitError(f"automatic selection searches at most {MAX_EXHAUSTIVE} candidate terms, got {len(candidates)}")
    y = np.asarray(y, dtype=float)
    # A parameter that never varies (values pinned to 1) makes v⋅o and o the same column: keep
    # only the terms without it, so ties cannot put a meaningless letter in the answer.
    fixed = {p for p, x in params.items() if np.ptp(np.asarray(x, dtype=float)) == 0}
    candidates = [t for t in candidates if not {p for p, _ in t.powers} & fixed] or candidates
    full = _fit_full(candidates, params, y, weighting, robust, confidence)
    X = design_matrix(candidates, params)
    n = len(y)
    w = full.weights / np.mean(full.weights)
    scored = []
    for size in range(1, len(candidates) + 1):
        for idx in combinations(range(len(candidates)), size):
            if n <= size:
                continue
            _, rss = weighted_lstsq(X[:, idx], y, w)
            scored.append(Candidate(tuple(candidates[i] for i in idx), bic(rss, n, size)))
    scored.sort(key=lambda c: c.bic)
    for cand in scored:  # the best subset that is identifiable on its own
        try:
            chosen = fit_terms(list(cand.terms), params, y, weighting=weighting, robust=robust, confidence=confidence)
        except FitError:
            continue
        ranking = [cand] + [c for c in scored if c is not cand]
        return Selection(chosen, ranking)
    raise FitError("no candidate model could be fitted to this data")


def _fit_full(candidates: list[Term], params: dict[str, np.ndarray], y: np.ndarray,
              weighting: str, robust: bool, confidence: float) -> Fit:
    """The full model supplies the common weights.  Terms that are linearly dependent on lower
    ones on this data (``v`` and ``1`` when v never varies) are left out of it."""
    kept: list[Term] = []
    for term in sorted(candidates, key=lambda t: t.degree):
        X = design_matrix(kept + [term], params)
        X = X / np.maximum(np.max(np.abs(X), axis=0), 1e-300)
        if np.linalg.matrix_rank(X) == len(kept) + 1:
            kept.append(term)
    if not kept:
        raise FitError("none of the candidate terms can be fitted to this data")
    return fit_terms(kept, params, y, weighting=weighting, robust=robust, confidence=confidence)
