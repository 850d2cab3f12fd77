"""Automatic model selection: which of the candidate terms does the data actually need?

Fitting every candidate term at once (what the seeds' script did by default) over-fits: noise
buys spurious ``v`` and ``o²`` terms and moves the real coefficients.  Here every non-empty
subset S of the candidates is scored by the Bayesian information criterion

    BIC(S) = n · ln(RSS_w(S) / n) + |S| · ln n

where RSS_w is the weighted residual sum of squares with the *same* row weights for all subsets
(the variance and Huber weights of the full model), so the scores are comparable.  ln n ≈ 6.9 per
term at n = 1000: a term must cut the residual variance by ~0.7% to be kept, which a null term
does with probability ≈ P(χ²₁ > 6.9) ≈ 0.9%.  With several null candidates those chances add
up, so among the models within ΔBIC < 2 of the best ("not worth more than a bare mention",
Kass & Raftery 1995) the one with the fewest terms is chosen: a term must then cut the residual
variance by ~0.9% (p ≈ 0.3% for a null term).  The chosen subset is refitted on its own
(re-weighted, robust) to give coefficients and intervals, the subsets are re-scored with its
weights until the choice is stable, and finally a term is dropped while the model without it,
judged with its own weights, is not worse by ΔBIC ≥ 2 (see :func:`_prune`).

Up to 10 candidates are searched exhaustively (1023 subsets, each a small least-squares solve),
subsets of fewer terms than half the points only (see :func:`max_terms`): on a few points the
choice is among the models they can determine, not an error.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

import numpy as np

from perfgate.complexity.regression import Fit, FitError, bic, fit_terms, weighted_lstsq
from perfgate.complexity.terms import Term, design_matrix

MAX_EXHAUSTIVE = 10
SELECTION_ROUNDS = 3
BARE_MENTION = 2.0  # ΔBIC below which a bigger model is not preferred to a smaller one


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
        """BIC of the runner-up minus the chosen model's (≥ 10: very strong; may be slightly
        negative when a bigger model scored a little better but not by ``BARE_MENTION``)."""
        return self.ranking[1].bic - self.ranking[0].bic if len(self.ranking) > 1 else float("inf")

    def as_dict(self) -> dict:
        return {"chosen": self.ranking[0].spec, "delta_bic_to_runner_up": self.delta_bic,
                "ranking": [{"model": c.spec, "bic": c.bic} for c in self.ranking[:5]]}


def select_terms(candidates: list[Term], params: dict[str, np.ndarray], y: np.ndarray, *,
                 weighting: str = "relative", robust: bool = True, confidence: float = 0.95,
                 noise_scale: np.ndarray | None = None) -> Selection:
    opts = {"weighting": weighting, "robust": robust, "confidence": confidence, "noise_scale": noise_scale}
    if len(candidates) > MAX_EXHAUSTIVE:
        raise FitError(f"automatic selection searches at most {MAX_EXHAUSTIVE} candidate terms, got {len(candidates)}")
    y = np.asarray(y, dtype=float)
    most = max_terms(len(y))
    if most < 1:
        raise FitError(f"{len(y)} point{'s are' if len(y) != 1 else ' is'} too few to choose a model automatically "
                       "(it needs at least 3); give -p TERMS")
    # A parameter that never varies (values pinned to 1) makes v⋅o and o the same column: keep
    # only the terms without it, so ties cannot put a meaningless letter in the answer.
    fixed = {p for p, x in params.items() if np.ptp(np.asarray(x, dtype=float)) == 0}
    candidates = [t for t in candidates if not {p for p, _ in t.powers} & fixed] or candidates
    full = _fit_full(candidates, params, y, opts, most)
    X = design_matrix(candidates, params)
    # Score with the full model's weights, then again with the chosen model's: weights from the
    # full model carry its fit to the noise along the null terms, which would favour them.
    scored = _score(candidates, X, y, full.weights, most)
    for _ in range(SELECTION_ROUNDS):
        chosen = _refit(scored, params, y, opts)
        rescored = _score(candidates, X, y, chosen.weights, most)
        if rescored[0].terms == scored[0].terms:
            break
        scored = rescored
    else:
        chosen = _refit(scored, params, y, opts)
    return _prune(chosen, candidates, X, params, y, opts, most)


def max_terms(n: int) -> int:
    """The most terms a model chosen among others on ``n`` points may have: fewer than half of n.
    With p ≥ n/2 terms, p points can be fitted exactly, which makes the median absolute residual
    (the robust scale) and with it every interval about zero; and BIC, n·ln(RSS/n), rewards such
    a fit without bound.  On 6 points a 5-term model was chosen with intervals of zero width."""
    return (n - 1) // 2


def _prune(chosen: Fit, candidates: list[Term], X: np.ndarray, params, y: np.ndarray, opts: dict,
           most: int) -> Selection:
    """Drop a term while the smaller model, judged with its *own* weights, is not beaten by
    ΔBIC ≥ BARE_MENTION.  Weights depend on the model they come from, so a model with a spurious
    term can look best under its own weights while the true model also looks best under its own;
    of two such self-consistent answers the simpler one is reported."""
    n = len(y)
    terms = list(chosen.terms)
    pruned = True
    while pruned and len(terms) > 1:
        pruned = False
        for t in terms:
            smaller = [u for u in terms if u != t]
            try:
                fit = fit_terms(smaller, params, y, **opts)
            except FitError:
                continue
            w = fit.weights / np.mean(fit.weights)
            _, rss_small = weighted_lstsq(design_matrix(smaller, params), y, w)
            _, rss_big = weighted_lstsq(design_matrix(terms, params), y, w)
            if bic(rss_small, n, len(smaller)) < bic(rss_big, n, len(terms)) + BARE_MENTION:
                terms, chosen, pruned = smaller, fit, True
                break
    scored = _score(candidates, X, y, chosen.weights, most)
    first = next((c for c in scored if set(c.terms) == set(terms)), Candidate(tuple(terms), float("nan")))
    return Selection(chosen, [first] + [c for c in scored if c is not first])


def _score(candidates: list[Term], X: np.ndarray, y: np.ndarray, weights: np.ndarray, most: int) -> list[Candidate]:
    """Every subset of at most ``most`` terms with its BIC under common row weights, the
    preferred one first."""
    n = len(y)
    w = weights / np.mean(weights)
    scored = []
    for size in range(1, min(len(candidates), most) + 1):
        for idx in combinations(range(len(candidates)), size):
            _, rss = weighted_lstsq(X[:, idx], y, w)
            scored.append(Candidate(tuple(candidates[i] for i in idx), bic(rss, n, size)))
    scored.sort(key=lambda c: c.bic)
    # Parsimony: the smallest model whose BIC is within BARE_MENTION of the best goes first.
    near = [c for c in scored if c.bic < scored[0].bic + BARE_MENTION]
    simplest = min(near, key=lambda c: (len(c.terms), c.bic))
    return [simplest] + [c for c in scored if c is not simplest]


def _refit(scored: list[Candidate], params, y, opts: dict) -> Fit:
    for i, cand in enumerate(scored):  # the best subset that is identifiable on its own
        try:
            fit = fit_terms(list(cand.terms), params, y, **opts)
        except FitError:
            continue
        scored.insert(0, scored.pop(i))
        return fit
    raise FitError("no candidate model could be fitted to this data")


def _fit_full(candidates: list[Term], params: dict[str, np.ndarray], y: np.ndarray, opts: dict, most: int) -> Fit:
    """The full model supplies the common weights.  Terms that are linearly dependent on lower
    ones on this data (``v`` and ``1`` when v never varies) are left out of it, and so are the
    highest ones past ``most`` terms (6 candidates on 3 points once made the full model
    unfittable: "3 data points cannot determine 3 coefficients")."""
    kept: list[Term] = []
    for term in sorted(candidates, key=lambda t: t.degree):
        if len(kept) == most:
            break
        X = design_matrix(kept + [term], params)
        X = X / np.maximum(np.max(np.abs(X), axis=0), 1e-300)
        if np.linalg.matrix_rank(X) == len(kept) + 1:
            kept.append(term)
    if not kept:
        raise FitError("none of the candidate terms can be fitted to this data")
    return fit_terms(kept, params, y, **opts)
