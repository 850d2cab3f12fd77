"""Knee detection: where does the per-unit cost change regime?

A *knee* at ``k`` in parameter ``x`` (objects, say) is a segmented model

    y = Σ_j β_j X_j + γ · (x − k)₊^d ,     d ∈ {1, 2}

continuous at k: below k the base terms alone (e.g. linear in x); above it the marginal cost
steps up (d = 1) or starts to grow linearly, i.e. the cost turns quadratic (d = 2).

For each d the knee is located by profiling the weighted residual sum of squares RSS_w(k) over a
grid of k (log-spaced over the 2nd–98th percentiles of x, refined around the minimum); k̂ is the
minimiser.  Its interval is the profile-likelihood set ``{k : n·ln(RSS_w(k)/RSS_w(k̂)) ≤ χ²₁,₀.₉₅}``
(3.84), reported as its hull.

"No knee" is a real answer: the knee model (base + γ + k, two more parameters) must beat by BIC
both the base model and the base model with a global x² term.  BIC charges ln n per parameter,
which also pays for searching over k (sup-of-χ² inflation) in practice — measured by
``bench/complexity_eval.py``.  A knee is also required to lie inside the data and have γ > 0.

Rows are weighted as in :mod:`.regression` (multiplicative noise and Huber weights).  Both
weights are re-estimated once from the best knee model and the profile repeated: Huber weights
from the global fit would down-weight the very points near the knee that the global model misfits
(measured: interval coverage 85% → 95%).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy import stats

from perfgate.complexity.regression import bic, format_formula, r_squared, variance_weights, weighted_lstsq
from perfgate.complexity.terms import Term, design_matrix
from perfgate.units import p_text, quantity

GRID = 120
REFINE = 60
CHI2_95 = float(stats.chi2.ppf(0.95, 1))


@dataclass
class Knee:
    param: str
    found: bool
    location: float | None = None
    low: float | None = None
    high: float | None = None
    degree: int | None = None  # 1: slope steps up; 2: cost turns quadratic
    gamma: float | None = None
    slope_below: float | None = None  # marginal cost ∂y/∂x just below the knee
    delta_bic: float = 0.0  # BIC(best no-knee model) − BIC(knee model); > 0 favours the knee
    p_value: float = 1.0  # likelihood-ratio test, knee vs no knee (χ² with 2 df; approximate)
    effect: float = 0.0  # share of the predicted cost at max x due to the knee term
    formula: str = ""  # the knee model without a unit, e.g. 500⋅o + 0.250⋅(o − 2,000)₊² (see model())
    fitted: np.ndarray | None = field(default=None, repr=False)  # the knee model's predictions
    base: list[Term] = field(default_factory=list, repr=False)    # the knee model: base terms ...
    beta: np.ndarray | None = field(default=None, repr=False)     # ... their coefficients, then gamma
    r2: float | None = None  # the knee model's R² (unweighted, as the fit summary's); None: no search

    def predict(self, params: dict[str, np.ndarray]) -> np.ndarray:
        """The knee model's cost at other parameter values (a curve to draw)."""
        X = np.column_stack([design_matrix(self.base, params), hinge(np.asarray(params[self.param], dtype=float),
                                                                     self.location, self.degree)])
        return X @ self.beta

    def model(self, measure: str = "") -> str:
        """The knee model, ``500⋅o + 0.250⋅(o − 2,000)₊²``; in the unit of a ``measure`` that has
        one, ``500 ns⋅o + 0.250 ns⋅(o − 2,000)₊²`` ("" when no knee model was fitted)."""
        if self.beta is None:
            return self.formula
        labels = [t.label for t in self.base] + [f"({self.param} − {self.location:,.0f})₊" + ("²" if self.degree == 2 else "")]
        return format_formula(labels, self.beta, measure=measure)

    def describe(self, name: str | None = None, measure: str = "") -> str:
        """The knee in words; its model and the cost per unit below it in ``measure``'s unit."""
        name = name or self.param
        if not self.found:
            return f"no knee in {name} (ΔBIC {self.delta_bic:+.1f} for the best knee model)"
        shape = "grows quadratically" if self.degree == 2 else "steps up"
        return (f"knee model {self.model(measure)}: knee at {name} ≈ {self.location:,.0f} (the fit's 95% interval {self.low:,.0f} … {self.high:,.0f}; "
                f"runs of one commit vary more): cost per unit of {name} {quantity(self.slope_below, measure, 4)} below it, then {shape}; "
                f"{self.effect_text(name)}, ΔBIC {self.delta_bic:.1f}, {p_text(self.p_value)}")

    def effect_text(self, name: str) -> str:
        """What the knee costs at the largest ``name``: its term's share of the cost there, and the
        cost as a multiple of what the terms below the knee give ("adds 97%" read as 1.97x where
        the cost was 33x)."""
        share = f"the knee's term is {self.effect:.0%} of the cost at the largest {name}"
        if 0 < self.effect < 0.999:
            return f"{share} ({1 / (1 - self.effect):,.1f}× what the cost below the knee extends to)"
        return share

    def as_dict(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if k not in ("fitted", "base", "beta")}


def huber_weights(resid: np.ndarray, c: float = 1.345) -> np.ndarray:
    """Huber's weights ``min(1, c/|u|)`` for residuals standardised by their MAD scale."""
    scale = float(np.median(np.abs(resid - np.median(resid)))) / 0.6745
    if scale <= 0:
        return np.ones_like(resid)
    return np.minimum(1.0, c / np.maximum(np.abs(resid) / scale, 1e-300))


def hinge(x: np.ndarray, k: float, degree: int) -> np.ndarray:
    return np.maximum(x - k, 0.0) ** degree


def linear_base(terms: list[Term], letter: str) -> list[Term]:
    """The base model for a knee search: the given terms at most linear in ``letter``, plus the
    plain linear term when it is missing (a knee is a departure *from* linear cost)."""
    base = [t for t in terms if t.power(letter) <= 1]
    linear = Term(((letter, 1),), letter)
    return base if linear in base else base + [linear]


def find_knee(base: list[Term], params: dict[str, np.ndarray], y: np.ndarray, letter: str, *,
              start: np.ndarray, robust_weights: np.ndarray | None = None, weighting: str = "relative",
              noise_scale: np.ndarray | None = None, edge: float = 0.02) -> Knee:
    """Search for a knee in parameter ``letter`` on top of the ``base`` terms.

    ``start`` is a first estimate of the cost of each row (the fitted values of an ordinary fit
    that may include x² terms) from which the variance weights start; ``robust_weights`` are that
    fit's Huber weights; ``noise_scale`` a known noise scale per row that replaces both."""
    y = np.asarray(y, dtype=float)
    x = np.asarray(params[letter], dtype=float)
    n = len(y)
    X0 = design_matrix(base, params)
    lo, hi = np.quantile(x, [edge, 1 - edge])
    if not hi > lo:
        return Knee(letter, False)
    huber = np.ones(n) if robust_weights is None else np.asarray(robust_weights, dtype=float)
    scale_of = (lambda mu: mu) if noise_scale is None else (lambda mu: np.asarray(noise_scale, dtype=float))
    w = variance_weights(scale_of(np.asarray(start, dtype=float)), weighting) * huber
    w = w / np.mean(w)
    best = _search(X0, x, y, w, lo, hi)
    if best is None:
        return Knee(letter, False)
    # Re-weight from the knee model itself (its predictions are the better variance model), keeping
    # the Huber part of the incoming weights, and search again.
    k, d = best["k"], best["d"]
    Xk = np.column_stack([X0, hinge(x, k, d)])
    beta, _ = weighted_lstsq(Xk, y, w)
    w_var = variance_weights(scale_of(Xk @ beta), weighting)
    if robust_weights is not None:
        # Outliers judged against the knee model, not the global fit: near the knee the global
        # fit's misfit would otherwise down-weight exactly the points that locate it.
        huber = huber_weights((y - Xk @ beta) * np.sqrt(w_var))
    w = w_var * huber
    w = w / np.mean(w)
    best = _search(X0, x, y, w, lo, hi) or best

    p0 = X0.shape[1]
    _, rss_base = weighted_lstsq(X0, y, w)
    Xq = np.column_stack([X0, x ** 2])
    _, rss_quad = weighted_lstsq(Xq, y, w)
    bic_none = min(bic(rss_base, n, p0), bic(rss_quad, n, p0 + 1))
    bic_knee = bic(best["rss"], n, p0 + 2)
    delta = bic_none - bic_knee
    lr = n * np.log(rss_base / best["rss"])
    p_value = float(stats.chi2.sf(max(lr, 0.0), 2))

    k, d = best["k"], best["d"]
    Xk = np.column_stack([X0, hinge(x, k, d)])
    beta, _ = weighted_lstsq(Xk, y, w)
    gamma = float(beta[-1])
    slope = _slope_below(base, beta[:-1], params, letter, k)
    i_max = int(np.argmax(x))
    pred = float(Xk[i_max] @ beta)
    effect = gamma * hinge(x[i_max], k, d) / pred if pred > 0 else 0.0
    found = delta > 0 and gamma > 0 and lo < k < hi
    fitted = Xk @ beta
    r2, _ = r_squared(y, fitted, Xk.shape[1])
    knee = Knee(letter, bool(found), float(k), float(best["low"]), float(best["high"]), d, gamma, slope,
                float(delta), p_value, float(effect), "", fitted, list(base), beta, r2)
    knee.formula = knee.model()
    return knee


def _search(X0: np.ndarray, x: np.ndarray, y: np.ndarray, w: np.ndarray, lo: float, hi: float) -> dict | None:
    """Best (k, d) by profiled RSS, with the profile-likelihood interval for k."""
    n = len(y)
    grid = np.geomspace(lo, hi, GRID) if lo > 0 else np.linspace(lo, hi, GRID)
    best = None
    for d in (1, 2):
        ks, rss = _profile(X0, x, y, w, grid, d)
        i = int(np.argmin(rss))
        fine = np.linspace(grid[max(i - 1, 0)], grid[min(i + 1, GRID - 1)], REFINE)
        ks2, rss2 = _profile(X0, x, y, w, fine, d)
        ks, rss = np.concatenate([ks, ks2]), np.concatenate([rss, rss2])
        j = int(np.argmin(rss))
        if best is None or rss[j] < best["rss"]:
            inside = ks[n * np.log(rss / rss[j]) <= CHI2_95]
            best = {"k": ks[j], "d": d, "rss": rss[j], "low": inside.min(), "high": inside.max()}
    return best


def _profile(X0: np.ndarray, x: np.ndarray, y: np.ndarray, w: np.ndarray, ks: np.ndarray, d: int):
    """RSS_w of base + hinge(k) for every k at once.

    With Q an orthonormal basis of the weighted base columns, r the base model's weighted
    residual and h̃_k the weighted hinge column with the base projected out,
    ``RSS(k) = RSS_base − (rᵀh̃_k)² / ‖h̃_k‖²`` (adding one column to a least-squares fit)."""
    sw = np.sqrt(w)
    A = X0 / np.maximum(np.max(np.abs(X0), axis=0), 1e-300) * sw[:, None]
    Q, _ = np.linalg.qr(A)
    yw = y * sw
    r = yw - Q @ (Q.T @ yw)
    H = np.maximum(x[:, None] - ks[None, :], 0.0) ** d
    H = H / np.maximum(H.max(axis=0), 1e-300) * sw[:, None]
    H = H - Q @ (Q.T @ H)
    norms = np.einsum("ij,ij->j", H, H)
    gain = np.where(norms > 1e-12 * norms.max(), (r @ H) ** 2 / np.maximum(norms, 1e-300), 0.0)
    return ks, float(r @ r) - gain


def _slope_below(base: list[Term], beta: np.ndarray, params: dict[str, np.ndarray], letter: str, k: float) -> float:
    """∂y/∂x of the base model at x = k, other parameters at their medians."""
    at = {p: np.array([float(np.median(v))]) for p, v in params.items()}
    slope = 0.0
    for term, b in zip(base, beta):
        e = term.power(letter)
        if e == 0:
            continue
        rest = Term(tuple((p, q) for p, q in term.powers if p != letter))
        slope += b * e * k ** (e - 1) * float(rest.column(at, 1)[0])
    return slope
