"""The pure complexity package: terms, fits, intervals, model selection, knees, expectations.

Data are synthetic with a known truth (bench/complexity_synth.py), seeded so results repeat.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
from complexity_synth import knee_cost, noisy, points  # noqa: E402

from perfgate.complexity.analysis import analyse  # noqa: E402
from perfgate.complexity.expectations import check, parse_expectations  # noqa: E402
from perfgate.complexity.regression import FitError, fit_terms  # noqa: E402
from perfgate.complexity.selection import select_terms  # noqa: E402
from perfgate.complexity.terms import DEFAULT_SPEC, Term, TermError, design_matrix, parse_terms  # noqa: E402
from perfgate.errors import InputError  # noqa: E402


def data(seed: int, n: int = 400, sigma: float = 0.1, truth=lambda v, o: 32 * v * o + 486 * o, **kw):
    rng = np.random.default_rng(seed)
    v, o = points(rng, n, **kw)
    return {"v": v, "o": o}, noisy(rng, truth(v, o), sigma)


# --- terms -------------------------------------------------------------------------------------

def test_term_specs_parse_to_products_with_exponents():
    terms = parse_terms("vo2,vo,v,o2,o,1")
    assert [t.spec for t in terms] == ["vo2", "vo", "v", "o2", "o", "1"]
    assert [t.label for t in terms] == ["v⋅o²", "v⋅o", "v", "o²", "o", "1"]
    assert terms[0].power("o") == 2 and terms[0].power("v") == 1 and terms[0].degree == 3
    assert parse_terms("ov") == parse_terms("vo")  # same monomial, however written
    params = {"v": np.array([2.0, 3.0]), "o": np.array([10.0, 100.0])}
    assert design_matrix(terms, params).tolist() == [[200, 20, 2, 100, 10, 1], [30000, 300, 3, 10000, 100, 1]]


@pytest.mark.parametrize("spec, message", [("vo,,o", "not a product"), ("v0", "exponent 0"), ("o,o", "twice"),
                                           ("o-1", "not a product")])
def test_bad_term_specs(spec, message):
    with pytest.raises(TermError, match=message):
        parse_terms(spec)


def test_terms_need_parameters_the_data_has():
    with pytest.raises(TermError, match="parameter\\(s\\) x"):
        design_matrix(parse_terms("x,o"), {"o": np.ones(3)})


# --- fits --------------------------------------------------------------------------------------

def test_noiseless_data_are_recovered_exactly():
    params, _ = data(1)
    y = 32 * params["v"] * params["o"] + 486 * params["o"] + 7000
    for weighting in ("relative", "none"):
        fit = fit_terms(parse_terms("vo,o,1"), params, y, weighting=weighting)
        assert fit.coef == pytest.approx([32, 486, 7000], rel=1e-6)
        assert fit.r2 == pytest.approx(1.0) and fit.adj_r2 == pytest.approx(1.0)


def test_seeds_style_summary():
    params, _ = data(1)
    fit = fit_terms(parse_terms("vo,o"), params, 32 * params["v"] * params["o"] + 486 * params["o"])
    assert fit.summary() == "32⋅v⋅o + 486⋅o, R² = 1.0000, Adjusted R² = 1.0000"
    negative = fit_terms(parse_terms("o,1"), params, -62 * params["o"] + 1320)
    assert negative.formula() == "-62⋅o + 1,320"                  # thousands separated, as knees are


def test_a_model_of_a_measure_with_a_unit_reads_in_it():
    """A sweep's total-ns model read "0.418⋅o² - 1484⋅o + 1125794" and its intervals
    "1.126e+06 [9.397e+05, 1.312e+06]": costs in nanoseconds, written as bare counts."""
    params, _ = data(1)
    fit = fit_terms(parse_terms("o2,o,1"), params, 0.418 * params["o"] ** 2 - 1484 * params["o"] + 1_125_794)
    assert fit.formula(measure="total-ns") == "0.418 ns⋅o² - 1.48 µs⋅o + 1.13 ms"
    assert fit.formula(measure="total-ms") == "418 µs⋅o² - 1.48 s⋅o + 1126 s"
    assert fit.intervals("total-ns").startswith("o² 0.4180 ns [0.4180, 0.4180]  o -1.484 µs [-1.484, -1.484]  1 1.126 ms [")
    assert fit.formula() == "0.418⋅o² - 1,484⋅o + 1,125,794"     # no unit: plain numbers, not 1.13e+06
    knee = analyse(parse_terms("o"), params, 30 * params["o"] + 0.25 * np.maximum(params["o"] - 2000, 0) ** 2,
                   knee="o").knee
    assert knee.found and re.fullmatch(r"30\.\d ns⋅o \+ 0\.2\d\d ns⋅\(o − 2,0\d\d\)₊²", knee.model("total-ns"))
    assert re.search(r"cost per unit of objects 30\.\d\d ns below it", knee.describe("objects", "total-ns"))
    assert re.fullmatch(r"30⋅o \+ 0\.2\d\d⋅\(o − 2,0\d\d\)₊²", knee.model()) and knee.formula == knee.model()


def test_intervals_cover_the_truth_at_their_nominal_rate():
    hits = total = 0
    for seed in range(40):
        params, y = data(seed, sigma=0.15)
        fit = fit_terms(parse_terms("vo,o"), params, y)
        hits += sum(lo <= t <= hi for t, lo, hi in zip((32, 486), fit.ci_low, fit.ci_high))
        total += 2
    assert 0.85 <= hits / total <= 1.0  # nominal 95%; 80 intervals


def test_relative_weighting_and_huber_beat_plain_least_squares_with_outliers():
    params, y = data(3, sigma=0.1)
    y = y.copy()
    worst = np.argsort(params["o"] * params["v"])[-5:]
    y[worst] *= 3  # five runs hit by a context switch, at the largest sizes
    robust = fit_terms(parse_terms("vo,o"), params, y)
    plain = fit_terms(parse_terms("vo,o"), params, y, weighting="none", robust=False)
    assert abs(robust.coefficient(Term((("o", 1), ("v", 1)))) / 32 - 1) < 0.03
    assert abs(plain.coef[0] / 32 - 1) > 0.05
    assert robust.robust_weights[worst].max() < 0.5  # the outliers were down-weighted


def test_unidentifiable_models_are_refused():
    params = {"v": np.ones(50), "o": np.linspace(100, 5000, 50)}
    with pytest.raises(FitError, match="linearly dependent"):
        fit_terms(parse_terms("v,1"), params, params["o"])
    with pytest.raises(FitError, match="cannot determine"):
        fit_terms(parse_terms("o,1"), {"o": np.array([1.0, 2.0])}, np.array([1.0, 2.0]))


# --- selection ---------------------------------------------------------------------------------

def test_selection_drops_unneeded_terms():
    for seed in range(5):
        params, y = data(seed, n=600)
        selection = select_terms(parse_terms(DEFAULT_SPEC), params, y)
        assert [t.spec for t in selection.fit.terms] == ["vo", "o"], selection.as_dict()["ranking"]
    # and keeps a real constant
    params, y = data(9, n=600, truth=lambda v, o: 32 * v * o + 486 * o + 3e6)
    assert sorted(t.spec for t in select_terms(parse_terms(DEFAULT_SPEC), params, y).fit.terms) == ["1", "o", "vo"]


def test_selection_ignores_a_parameter_that_never_varies():
    rng = np.random.default_rng(4)
    o = rng.uniform(100, 50000, 300)
    params = {"v": np.ones(300), "o": o}
    selection = select_terms(parse_terms(DEFAULT_SPEC), params, noisy(rng, 500 * o, 0.1))
    assert [t.spec for t in selection.fit.terms] == ["o"]


# --- knees -------------------------------------------------------------------------------------

@pytest.mark.parametrize("seed, design", [(1, "linear"), (2, "linear"), (3, "logarithmic")])
def test_knee_found_where_linear_turns_quadratic(seed, design):
    rng = np.random.default_rng(seed)
    _, o = points(rng, 800, design=design)
    knee = analyse(parse_terms("o2,o,1"), {"o": o}, noisy(rng, knee_cost(o), 0.1), knee="o").knee
    assert knee.found and knee.degree == 2
    assert 1800 <= knee.location <= 2200 and knee.low < knee.location < knee.high
    assert knee.delta_bic > 10 and knee.p_value < 1e-6
    if design == "logarithmic":  # enough points below the knee to pin the per-object cost there
        assert knee.slope_below == pytest.approx(500, rel=0.1)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_no_knee_in_a_linear_cost(seed):
    params, y = data(seed, n=800, truth=lambda v, o: 500 * o)
    knee = analyse(parse_terms("o2,o,1"), {"o": params["o"]}, y, knee="o").knee
    assert not knee.found and knee.delta_bic < 0


# --- expectations ------------------------------------------------------------------------------

EXPECT = """
[complexity."async-deinit/*"]
objects = "linear"
up_to = { objects = 50000 }
"""


def test_expectations_parse_and_match():
    [exp] = parse_expectations(EXPECT, "complexity.toml")
    assert exp.matches("async-deinit/async_tree") and not exp.matches("other/async_tree")
    assert exp.text == "linear in objects up to 50,000"


@pytest.mark.parametrize("text, place", [
    ('[complexity."x"]\nobjects = "exponential"\n', 'complexity."x".objects'),
    ('[complexity."x"]\nup_to = 5\n', 'complexity."x"'),
    ('[complexity."x"]\nobjects = "linear"\nup_to = "big"\n', 'complexity."x".up_to'),
])
def test_bad_expectations_name_the_place(text, place):
    with pytest.raises(InputError) as e:
        parse_expectations(text, "complexity.toml")
    assert e.value.place == place


def test_quadratic_knee_violates_linear_expectation_and_linear_cost_passes():
    [exp] = parse_expectations(EXPECT, "complexity.toml")
    rng = np.random.default_rng(5)
    _, o = points(rng, 800)
    bad = analyse(parse_terms("o2,o,1"), {"o": o}, noisy(rng, knee_cost(o), 0.1), knee="o")
    verdict = check(exp, "Total", bad.fit, bad.knee, {"o": o})
    assert not verdict.ok and "turns quadratic above objects" in verdict.reason
    assert verdict.effect > 0.5 and verdict.confidence > 0.99
    good = analyse(parse_terms("o2,o,1"), {"o": o}, noisy(rng, 500 * o, 0.1), knee="o")
    assert check(exp, "Total", good.fit, good.knee, {"o": o}).ok


def test_significant_quadratic_term_violates_without_a_knee():
    [exp] = parse_expectations(EXPECT, "complexity.toml")
    rng = np.random.default_rng(6)
    o = rng.uniform(100, 50000, 500)
    fit = fit_terms(parse_terms("o2,o"), {"o": o}, noisy(rng, 500 * o + 0.01 * o ** 2, 0.05))
    verdict = check(exp, "Total", fit, None, {"o": o})
    assert not verdict.ok and verdict.reason.startswith("o² adds") and verdict.effect == pytest.approx(0.5, rel=0.2)
    tiny = fit_terms(parse_terms("o2,o"), {"o": o}, noisy(rng, 500 * o + 1e-4 * o ** 2, 0.05))
    assert check(exp, "Total", tiny, None, {"o": o}).ok  # below the 5% tolerance (or not significant)


def test_expectation_is_judged_inside_the_data_and_extrapolation_is_only_reported():
    [exp] = parse_expectations(EXPECT, "complexity.toml")   # linear up to 50,000 objects
    rng = np.random.default_rng(7)
    o = rng.uniform(100, 8000, 800)                         # data reach 8,000 only
    fit = fit_terms(parse_terms("o2,o"), {"o": o}, noisy(rng, 500 * o + 0.0015 * o ** 2, 0.02))
    verdict = check(exp, "Total", fit, None, {"o": o})
    # 2% of the cost at 8,000 objects: within the 5% tolerance where it was measured …
    assert verdict.ok and verdict.judged_up_to == pytest.approx(o.max())
    assert "untested beyond objects = 7,9" in verdict.reason or "untested beyond objects = 8,0" in verdict.reason
    # … while the same fit extrapolated to 50,000 would claim ~13%: said, labelled, not judged
    assert verdict.extrapolation.startswith("extrapolation, not judged: the fit's o² would add 1")
    assert "at objects = 50,000" in verdict.extrapolation
    assert verdict.as_dict()["extrapolation"] == verdict.extrapolation
