"""The few distribution functions the detector needs, from Python's ``math`` alone: the normal
tail and quantile, Student's t tail and quantile, the chi-square quantile of an upper tail and the
fair binomial's upper tail.

Why not scipy: importing any scipy subpackage (``scipy.special``, ``scipy.ndimage``) loads its
array-API layer, 0.23–0.30 s of a ``perfgate detect`` that otherwise imports in 0.2 s; an
incremental detect's target is 2 s in all.  These are the textbook forms (the regularized
incomplete beta and gamma functions by their continued fractions, quantiles by a bracketed Newton
iteration on the log of the tail), and ``tests/test_distributions.py`` holds each to scipy's
to within 10⁻¹⁰ relative over the ranges the detector uses.  scipy stays a dependency of the
verbs that fit and compare (``compare``, ``complexity``)."""

from __future__ import annotations

import math
from statistics import NormalDist
from typing import Callable

_STANDARD = NormalDist()
_TINY = 1e-300          # keeps the continued fractions' denominators off zero (Lentz's method)
_EPS = 1e-16
_MAX_TERMS = 100_000    # the fractions converge in about sqrt(max(a, b)) terms


def normal_two_sided(z: float) -> float:
    """P(|Z| ≥ |z|) for a standard normal Z."""
    return math.erfc(abs(z) / math.sqrt(2.0))


def normal_cdf(z: float) -> float:
    """P(Z ≤ z); accurate in both tails (erfc, not 1 − erf)."""
    return 0.5 * math.erfc(-z / math.sqrt(2.0))


def normal_quantile(p: float) -> float:
    """The z with P(Z ≤ z) = p; −inf at 0 and inf at 1, as scipy's ndtri."""
    if p <= 0.0 or p >= 1.0:
        if math.isnan(p) or p < 0.0 or p > 1.0:
            return math.nan
        return -math.inf if p == 0.0 else math.inf
    return _STANDARD.inv_cdf(p)


def _continued_fraction(term: Callable[[int], float], first: float) -> float:
    """1 / (1 + d1 / (1 + d2 / (1 + …))) with ``first`` = d1 and ``term(i)`` = d_i from i = 2,
    evaluated by the modified Lentz method."""
    c, d = 1.0, 1.0 / (1.0 + first if abs(1.0 + first) > _TINY else _TINY)
    f = d
    for i in range(2, _MAX_TERMS):
        a = term(i)
        d = 1.0 + a * d
        d = 1.0 / (d if abs(d) > _TINY else _TINY)
        c = 1.0 + a / c
        c = c if abs(c) > _TINY else _TINY
        step = c * d
        f *= step
        if abs(step - 1.0) < _EPS:
            return f
    raise ArithmeticError("a continued fraction did not converge")


def _beta_fraction(a: float, b: float, x: float) -> float:
    """The continued fraction of I_x(a, b) · a · B(a, b) / (x^a (1 − x)^b); converges fast for
    x < (a + 1) / (a + b + 2)."""
    def term(i: int) -> float:
        m = i // 2
        if i % 2:       # d_{2m+1}
            return -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))
        return m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m))     # d_{2m}
    return _continued_fraction(term, -(a + b) * x / (a + 1))


def _stirling_rest(x: float) -> float:
    """log Γ(x) − ((x − ½) log x − x + ½ log 2π), to double precision for x ≥ 30."""
    r = 1.0 / (x * x)
    return (1.0 / 12 - r * (1.0 / 360 - r * (1.0 / 1260 - r / 1680))) / x


def _log_beta(a: float, b: float) -> float:
    """log B(a, b).  With a large argument, log Γ(big) − log Γ(big + small) is taken from
    Stirling's series, not as the difference of two large numbers (lgamma(5·10⁵) ≈ 6·10⁶ would
    leave 10⁻⁹ of it)."""
    small, big = min(a, b), max(a, b)
    if big < 30:
        return math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b)
    ratio = (-(big - 0.5) * math.log1p(small / big) - small * math.log(big + small) + small
             + _stirling_rest(big) - _stirling_rest(big + small))
    return math.lgamma(small) + ratio


def regularized_beta(a: float, b: float, x: float, y: float | None = None) -> float:
    """I_x(a, b), the regularized incomplete beta function; ``y`` is 1 − x when the caller has it
    more exactly than 1 − x rounds (a tail close to 1)."""
    y = 1.0 - x if y is None else y
    if x <= 0.0:
        return 0.0
    if y <= 0.0:
        return 1.0
    # log x and log(1 − x) from whichever of x and y is the more exact where it is near 1
    log_x = math.log(x) if x < 0.5 else math.log1p(-y)
    log_y = math.log(y) if y < 0.5 else math.log1p(-x)
    log_front = a * log_x + b * log_y - _log_beta(a, b)
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _beta_fraction(a, b, x) / a
    return 1.0 - math.exp(log_front) * _beta_fraction(b, a, y) / b


def student_cdf(t: float, df: float) -> float:
    """P(T ≤ t) for Student's t with ``df`` degrees of freedom (scipy's stdtr)."""
    if math.isinf(t):
        return 0.0 if t < 0 else 1.0
    t2 = t * t
    tail = 0.5 * regularized_beta(df / 2.0, 0.5, df / (df + t2), t2 / (df + t2))   # P(T ≥ |t|)
    return tail if t < 0 else 1.0 - tail


def _upper_quantile(tail: Callable[[float], float], log_density: Callable[[float], float], q: float,
                    start: float) -> float:
    """The x ≥ 0 where a decreasing tail equals ``q``: Newton's method on the log of the tail
    (whose slope is −density / tail), kept inside a bracket and bisecting when a step would
    leave it."""
    target = math.log(q)
    lo, hi, x = 0.0, math.inf, start
    for _ in range(200):
        above = tail(x)
        g = math.log(above) if above > 0 else -math.inf
        if g > target:
            lo = x
        else:
            hi = x
        if g == -math.inf:              # the tail underflowed: far past the root
            x = 0.5 * (lo + hi)
            continue
        step = (g - target) / math.exp(log_density(x) - g)
        nxt = x + step
        if abs(step) <= 1e-10 * x and lo <= nxt <= hi:    # Newton's error squares each step: the last
            return nxt
        x = nxt if lo < nxt < hi else 0.5 * (lo + hi)       # past lo, with hi known: the step overshot
    return x


def student_quantile(p: float, df: float) -> float:
    """The t with P(T ≤ t) = p (scipy's stdtrit)."""
    if not 0.0 < p < 1.0:
        return normal_quantile(p)
    if p == 0.5:
        return 0.0
    q = min(p, 1.0 - p)
    log_norm = math.lgamma((df + 1) / 2) - math.lgamma(df / 2) - 0.5 * math.log(df * math.pi)

    def log_density(t: float) -> float:
        return log_norm - (df + 1) / 2 * math.log1p(t * t / df)

    z = -normal_quantile(q)
    start = z + (z ** 3 + z) / (4 * df)     # the Cornish–Fisher start
    t = _upper_quantile(lambda t: student_cdf(-t, df), log_density, q, start)
    return t if p > 0.5 else -t


def _gamma_upper(a: float, x: float) -> float:
    """Q(a, x), the regularized upper incomplete gamma function: its continued fraction where
    x ≥ a + 1 (the tail, kept exact relative to itself), 1 − the series of P(a, x) below."""
    if x <= 0.0:
        return 1.0
    log_front = a * math.log(x) - x - math.lgamma(a)
    if x < a + 1.0:
        total = term = 1.0 / a
        n = 0
        while abs(term) > _EPS * abs(total):
            n += 1
            term *= x / (a + n)
            total += term
            if n > _MAX_TERMS:
                raise ArithmeticError("the incomplete gamma series did not converge")
        return 1.0 - math.exp(log_front) * total
    # Q = front / (x + 1 − a − 1(1 − a) / (x + 3 − a − 2(2 − a) / …)), written for Lentz's method
    b0 = x + 1.0 - a

    def term(i: int) -> float:
        return -i * (i - a) / ((b0 + 2 * (i - 1)) * (b0 + 2 * i))
    return math.exp(log_front) / b0 * _continued_fraction(term, -(1.0 - a) / (b0 * (b0 + 2)))


def chi2_upper_quantile(df: float, q: float) -> float:
    """The x with P(χ²_df ≥ x) = q (scipy's chdtri)."""
    a = df / 2.0

    def log_density(x: float) -> float:
        return (a - 1.0) * math.log(x / 2.0) - x / 2.0 - math.lgamma(a) - math.log(2.0)

    z = -normal_quantile(q)
    h = 2.0 / (9.0 * df)
    start = df * max(1.0 - h + z * math.sqrt(h), 0.1) ** 3      # Wilson–Hilferty
    return _upper_quantile(lambda x: _gamma_upper(a, x / 2.0), log_density, q, start)


def fair_binomial_at_least(k: int, n: int) -> float:
    """P(X ≥ k) for X ~ Binomial(n, 1/2) (scipy's ``bdtrc(k - 1, n, 0.5)``)."""
    if k <= 0:
        return 1.0
    if k > n:
        return 0.0
    return regularized_beta(float(k), float(n - k + 1), 0.5, 0.5)
