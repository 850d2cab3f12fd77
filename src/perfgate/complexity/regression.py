"""Least-squares cost models with confidence intervals, robust to outliers and to noise that grows
with the cost.

Model: ``y_i = Σ_j β_j X_ij + ε_i`` where the columns of X are the terms (see :mod:`.terms`).

Timing noise on a scaling benchmark is multiplicative: a run 10× longer has about 10× the
spread, ``sd(ε_i) ≈ σ·μ_i``.  Ordinary least squares then lets the few largest points decide
everything.  With ``weighting="relative"`` each row is divided by its fitted cost ``μ̂_i``
(floored at 1% of the median so near-zero predictions cannot take all the weight), which makes
the noise homoscedastic; the weights are re-estimated from the fit twice (feasible GLS).

Outliers (a run hit by a context switch) are down-weighted with Huber's M-estimator
(statsmodels RLM, tuning constant 1.345: 95% efficient on Gaussian noise).  Coefficient intervals
are ``β̂_j ± t_{0.975, n-p} · se_j`` with RLM's sandwich-free standard errors.

R² is reported as the seeds did, on the original scale and centred:
``R² = 1 − Σ(y − ŷ)² / Σ(y − ȳ)²`` (negative when the model is worse than a constant), and
``adjusted R² = 1 − (1 − R²)(n − 1)/(n − p)``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import statsmodels.api as sm
from scipy import stats

from perfgate.complexity.terms import Term, design_matrix
from perfgate.units import interval, number, quantity, unit_of

WEIGHTINGS = ("relative", "none")
WEIGHT_FLOOR = 0.01  # fraction of the median |ŷ| below which a prediction gets no extra weight
REWEIGHT_ROUNDS = 2


class FitError(ValueError):
    """The data cannot support the requested model (too few points, constant columns...)."""


@dataclass
class Fit:
    terms: list[Term]
    coef: np.ndarray
    stderr: np.ndarray
    cov: np.ndarray  # covariance matrix of the coefficients
    ci_low: np.ndarray
    ci_high: np.ndarray
    r2: float
    adj_r2: float
    n: int
    fitted: np.ndarray
    y: np.ndarray
    # Total weight of each row (variance weight × Huber weight); used to compare sub-models.
    weights: np.ndarray
    # The Huber part of those weights alone (1 = a typical point, < 1 = an outlier).
    robust_weights: np.ndarray
    weighting: str = "relative"
    robust: bool = True
    confidence: float = 0.95
    extra: dict = field(default_factory=dict)

    @property
    def r2_weighted(self) -> float:
        """R² in the fit's own metric: ``1 − Σw(y − ŷ)² / Σw(y − ȳ_w)²`` with the fit's weights
        (relative noise, outliers down-weighted).  Unlike the seeds' R², a handful of huge
        outliers cannot drive it below zero."""
        return weighted_r2(self.y, self.fitted, self.weights)

    @property
    def below_zero(self) -> int:
        """How many measured points the model puts below zero.  A cost cannot be negative: there
        the model does not describe it (a weak quadratic on a noisy table; a polynomial where the
        cost has a knee)."""
        # (a Δ column's noise may dip below zero; its typical value is still a positive cost)
        return int(np.sum(self.fitted < 0)) if np.median(self.y) > 0 else 0

    def below_zero_text(self) -> str:
        """A warning for :attr:`below_zero` ('' when there is none)."""
        if not self.below_zero:
            return ""
        return (f"this model is below zero at {self.below_zero} of {self.n} measured points, which no cost "
                f"can be: it does not describe the cost there (R² {self.r2:.2f}); read its terms with care")

    def coefficient(self, term: Term) -> float:
        return float(self.coef[self.terms.index(term)]) if term in self.terms else 0.0

    def predict(self, params: dict[str, np.ndarray]) -> np.ndarray:
        return design_matrix(self.terms, params) @ self.coef

    def p_values(self) -> np.ndarray:
        """Two-sided p-value of each coefficient being zero (t test, n − p degrees of freedom)."""
        with np.errstate(divide="ignore", invalid="ignore"):
            t = np.abs(self.coef / self.stderr)
        return 2 * stats.t.sf(np.nan_to_num(t, nan=0.0, posinf=1e300), max(self.n - len(self.terms), 1))

    def formula(self, digits: int = 0, measure: str = "") -> str:
        """``32⋅v⋅o + 486⋅o`` — the seeds' notation, the constant printed without a term; in the
        unit of a ``measure`` that has one, ``32.0 ns⋅v⋅o + 486 ns⋅o``."""
        return format_formula([t.label for t in self.terms], self.coef, digits, measure)

    def summary(self, digits: int = 0, measure: str = "") -> str:
        return f"{self.formula(digits, measure)}, R² = {self.r2:.4f}, Adjusted R² = {self.adj_r2:.4f}"

    def intervals(self, measure: str = "") -> str:
        """Each coefficient with its interval, in the measure's unit: ``o 26.92 ns [26.64, 27.20]``."""
        return "  ".join(f"{t.label} {interval(c, lo, hi, measure)}"
                         for t, c, lo, hi in zip(self.terms, self.coef, self.ci_low, self.ci_high))

    def as_dict(self, measure: str = "") -> dict:
        pv = self.p_values()
        return {
            "model": ",".join(t.spec for t in self.terms),
            "formula": self.formula(measure=measure),
            "terms": [
                {"term": t.spec, "label": t.label, "coef": float(c), "stderr": float(s),
                 "ci_low": float(lo), "ci_high": float(hi), "p_value": float(p)}
                for t, c, s, lo, hi, p in zip(self.terms, self.coef, self.stderr, self.ci_low, self.ci_high, pv)
            ],
            "r2": self.r2, "adj_r2": self.adj_r2, "r2_weighted": self.r2_weighted, "n": self.n, "confidence": self.confidence,
            "below_zero": self.below_zero,
            "weighting": self.weighting, "robust": self.robust, **self.extra,
        }


def format_formula(labels: list[str], coefs, digits: int = 0, measure: str = "") -> str:
    """``45.2 ns⋅o - 7.00 µs`` where ``measure`` names a unit (``total-ns``), else the seeds'
    ``45⋅o - 7,004``; ``digits``: that many decimals, as plain numbers."""
    parts = []
    for label, c in zip(labels, coefs):
        number = quantity(abs(c), measure) if unit_of(measure) and not digits else _number(abs(c), digits)
        parts.append(("-" if c < 0 else "+", number if label == "1" else f"{number}⋅{label}"))
    if not parts:
        return "0"
    text = ("-" if parts[0][0] == "-" else "") + parts[0][1]
    return text + "".join(f" {sign} {body}" for sign, body in parts[1:])


def _number(x: float, digits: int) -> str:
    if digits:
        return f"{x:.{digits}f}"
    # the seeds' notation: whole numbers from 10 up, three digits below (scientific past 15 digits)
    return number(x, 3 if abs(x) < 10 else 1)


def weighted_lstsq(X: np.ndarray, y: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, float]:
    """β minimising ``Σ w_i (y_i − X_i β)²`` and that weighted residual sum of squares.

    Columns are scaled to unit maximum first: o² and v·o² span 10+ orders of magnitude, which
    would otherwise make the problem numerically singular."""
    scale = np.max(np.abs(X), axis=0)
    scale[scale == 0] = 1.0
    sw = np.sqrt(w)
    beta, *_ = np.linalg.lstsq(X / scale * sw[:, None], y * sw, rcond=None)
    beta = beta / scale
    resid = y - X @ beta
    return beta, float(np.sum(w * resid ** 2))


def variance_weights(mu: np.ndarray, weighting: str) -> np.ndarray:
    """1/μ̂² for multiplicative noise (floored), or ones."""
    if weighting == "none":
        return np.ones_like(mu)
    scale = np.abs(mu)
    floor = WEIGHT_FLOOR * float(np.median(scale)) if np.any(scale > 0) else 1.0
    return 1.0 / np.maximum(scale, max(floor, 1e-300)) ** 2


def r_squared(y: np.ndarray, fitted: np.ndarray, n_params: int) -> tuple[float, float]:
    n = len(y)
    sst = float(np.sum((y - y.mean()) ** 2))
    sse = float(np.sum((y - fitted) ** 2))
    r2 = 1.0 - sse / sst if sst > 0 else (1.0 if sse == 0 else 0.0)
    adj = 1.0 - (1.0 - r2) * (n - 1) / (n - n_params) if n > n_params else float("nan")
    return r2, adj


def weighted_r2(y: np.ndarray, fitted: np.ndarray, w: np.ndarray) -> float:
    mean = float(np.sum(w * y) / np.sum(w))
    sst = float(np.sum(w * (y - mean) ** 2))
    return 1.0 - float(np.sum(w * (y - fitted) ** 2)) / sst if sst > 0 else 1.0


def fit_terms(terms: list[Term], params: dict[str, np.ndarray], y: np.ndarray, *,
              weighting: str = "relative", robust: bool = True, confidence: float = 0.95,
              noise_scale: np.ndarray | None = None) -> Fit:
    """Fit ``y`` on ``terms``: OLS start, then re-weighted (and Huber-robust) rounds.

    ``noise_scale``: a known per-row scale of the noise to weight by (``w = 1/scale²``) instead of
    the fitted cost — for a difference of two runs, whose noise follows the runs, not the
    difference."""
    if weighting not in WEIGHTINGS:
        raise FitError(f"unknown weighting {weighting!r}; choose one of {', '.join(WEIGHTINGS)}")
    X = design_matrix(terms, params)
    y = np.asarray(y, dtype=float)
    n, p = X.shape
    if p == 0:
        raise FitError("no terms to fit")
    if n <= p:
        raise FitError(f"{n} data points cannot determine {p} coefficients")
    if np.linalg.matrix_rank(X / np.maximum(np.max(np.abs(X), axis=0), 1e-300)) < p:
        raise FitError("the terms are linearly dependent on this data (e.g. a parameter never varies); "
                       "drop one with -p")
    def weights_for(beta: np.ndarray) -> np.ndarray:
        return variance_weights(X @ beta if noise_scale is None else np.asarray(noise_scale, dtype=float), weighting)

    beta, _ = weighted_lstsq(X, y, np.ones(n))
    rounds = REWEIGHT_ROUNDS if weighting != "none" and noise_scale is None else 1
    for _ in range(rounds):
        beta, _ = weighted_lstsq(X, y, weights_for(beta))
    w_var = weights_for(beta)
    beta, cov, huber = _final(X, y, w_var, robust)
    if robust and weighting != "none" and noise_scale is None:
        # One more round: the robust fit's predictions are better weights than the OLS ones.
        w_var = weights_for(beta)
        beta, cov, huber = _final(X, y, w_var, robust)
    stderr = np.sqrt(np.diag(cov))
    t = stats.t.ppf(0.5 + confidence / 2, n - p)
    fitted = X @ beta
    r2, adj = r_squared(y, fitted, p)
    return Fit(list(terms), beta, stderr, cov, beta - t * stderr, beta + t * stderr, r2, adj, n, fitted, y,
               w_var * huber, huber, weighting, robust, confidence)


def _final(X: np.ndarray, y: np.ndarray, w_var: np.ndarray, robust: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    # Returns (β, its covariance, Huber weights).
    """The estimate on rows scaled by √w: Huber RLM when robust, else weighted least squares."""
    scale = np.max(np.abs(X), axis=0)
    scale[scale == 0] = 1.0
    sw = np.sqrt(w_var)
    Xs, ys = X / scale * sw[:, None], y * sw
    result = sm.WLS(ys, Xs).fit()
    huber = np.ones(len(y))
    # Huber needs a residual scale; on exact data (MAD = 0) there is nothing to be robust against.
    exact = np.median(np.abs(result.resid)) <= 1e-12 * np.median(np.abs(ys))
    if robust and not exact:
        result = sm.RLM(ys, Xs, M=sm.robust.norms.HuberT()).fit()
        huber = np.asarray(result.weights)
    beta = np.asarray(result.params) / scale
    cov = np.asarray(result.cov_params()) / np.outer(scale, scale)
    return beta, cov, huber


def bic(rss_w: float, n: int, k: int) -> float:
    """Bayesian information criterion of a Gaussian model with ``k`` free mean parameters whose
    weighted residual sum of squares is ``rss_w``: ``n·ln(RSS/n) + k·ln n``."""
    return n * math.log(max(rss_w, 1e-300) / n) + k * math.log(n)
