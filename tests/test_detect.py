"""Change point detection on synthetic arrays: steps found where they are, spikes and noise not."""

from __future__ import annotations

import math

import numpy as np
import pytest

from perfgate.detect import changepoint, modes
from perfgate.detect.changepoint import ChangePointDetector, Likelihood, _residuals, align_all, detect_change_points
from perfgate.detect.location import location_level
from perfgate.detect.noise import RELATIVE_CEILING, NoiseModel, lag1_autocorrelation, wander_autocorrelation
from perfgate.thresholds import ChangePointSettings

SETTINGS = ChangePointSettings(min_effect=0.005, confidence=0.99)


def noisy(n: int, cv: float, seed: int, level: float = 1e6) -> np.ndarray:
    return level * (1 + cv * np.random.default_rng(seed).standard_normal(n))


def fitted_step(n: int, cv: float, seed: int, at: int, factor: float) -> tuple[ChangePointDetector, list]:
    """A detector fitted to :func:`noisy` runs whose level is multiplied by ``factor`` from run ``at``,
    and the changes it finds alone."""
    x = noisy(n, cv, seed)
    x[at:] *= factor
    det = ChangePointDetector(SETTINGS).fit(x)
    return det, det.predict()


@pytest.mark.parametrize("seed", range(5))
def test_step_found_at_its_first_index_with_magnitude_and_direction(seed):
    x = noisy(300, 0.02, seed)
    x[173:] *= 1.08
    [cp] = detect_change_points(x, SETTINGS)
    assert cp.index == 173
    assert cp.index_low <= 173 <= cp.index_high
    assert cp.ci_low < 0.08 < cp.ci_high and abs(cp.magnitude - 0.08) < 0.015
    assert cp.direction == "regression" and cp.p_value < 0.01 and cp.confidence == pytest.approx(1 - cp.p_value)


def test_direction_follows_the_measure():
    x = noisy(200, 0.01, 1)
    x[100:] *= 1.05
    [cp] = detect_change_points(x, SETTINGS, lower_is_better=False)   # e.g. throughput went up
    assert cp.direction == "improvement"
    [cp] = detect_change_points(x[::-1].copy(), SETTINGS, lower_is_better=True)
    assert cp.direction == "improvement" and cp.magnitude < 0


@pytest.mark.parametrize("seed", range(5))
def test_single_run_spikes_are_not_change_points(seed):
    x = noisy(300, 0.01, seed)
    rng = np.random.default_rng(100 + seed)
    for i in rng.choice(np.arange(10, 290), 6, replace=False):
        x[i] *= rng.uniform(1.5, 4.0)
    assert detect_change_points(x, SETTINGS) == []


@pytest.mark.parametrize("seed", range(10))
def test_no_change_noisy_series_gives_nothing(seed):
    rng = np.random.default_rng(seed)
    heavy = 1e6 * rng.lognormal(0, 0.05, 500) * (1 + (rng.random(500) < 0.2) * rng.pareto(3, 500) * 0.05)
    assert detect_change_points(heavy, SETTINGS) == []


def test_zero_variance_series_still_detects_a_one_percent_step():
    x = np.full(120, 2_000_000.0)
    x[60:] *= 1.01
    [cp] = detect_change_points(x, SETTINGS)
    assert (cp.index, cp.index_low, cp.index_high) == (60, 60, 60)
    assert cp.magnitude == pytest.approx(0.01, rel=1e-6)
    assert detect_change_points(np.full(120, 5.0), SETTINGS) == []


def test_change_below_min_effect_is_not_reported():
    x = np.full(100, 1000.0)
    x[50:] = 1003.0                                      # 0.3%: certain but below 0.5%
    assert detect_change_points(x, SETTINGS) == []
    assert len(detect_change_points(x, ChangePointSettings(min_effect=0.001))) == 1


def test_regression_later_fixed_gives_both_change_points():
    x = noisy(300, 0.01, 3)
    x[120:140] *= 1.2
    cps = detect_change_points(x, SETTINGS)
    assert [c.index for c in cps] == [120, 140]
    assert [c.direction for c in cps] == ["regression", "improvement"]


def test_not_snapped_to_a_grid():
    for t in (101, 103, 107, 149):
        x = noisy(250, 0.005, t)
        x[t:] *= 1.03
        assert [c.index for c in detect_change_points(x, SETTINGS)] == [t]


def test_autocorrelated_noise_is_not_a_change():
    rng = np.random.default_rng(4)
    e = np.zeros(600)
    for i in range(1, 600):
        e[i] = 0.7 * e[i - 1] + 0.01 * rng.standard_normal()
    x = 1e6 * (1 + e)
    assert detect_change_points(x, SETTINGS) == []
    x[300:] *= 1.15
    assert [c.index for c in detect_change_points(x, SETTINGS)] == [300]


def test_slow_drift_is_not_a_step():
    x = noisy(600, 0.005, 8) * np.linspace(1.0, 1.04, 600)
    assert detect_change_points(x, SETTINGS) == []


def test_a_drift_on_a_short_series_is_not_a_staircase_of_steps():
    # 80-200 runs drifting 8% with 1% noise: the search cuts the drift into steps, each of which
    # passes the local drift guard between its neighbours; 6 of these 40 series were reported with
    # 23 changes before a staircase had to beat a smooth trend over its whole span.
    flagged = []
    for seed in range(40):
        rng = np.random.default_rng(seed)
        n = int(rng.integers(80, 200))
        x = 100 * (1 + 0.01 * rng.standard_normal(n)) * (1 - 0.08 * np.linspace(0, 1, n))
        if detect_change_points(x, SETTINGS):
            flagged.append(seed)
    assert len(flagged) <= 2, flagged


@pytest.mark.parametrize("seed", range(6))
def test_a_staircase_of_real_regressions_is_not_taken_for_a_drift(seed):
    # three +1% regressions (2x the noise) at even spacing: a trend fits them worse than steps
    rng = np.random.default_rng(seed)
    level = np.ones(150)
    for at in (37, 75, 112):
        level[at:] *= 1.01
    found = [cp.index for cp in detect_change_points(100 * level * (1 + 0.005 * rng.standard_normal(150)), SETTINGS)]
    assert all(any(abs(i - at) <= 3 for i in found) for at in (37, 75, 112)), found


def test_bimodal_runs_are_not_changes():
    rng = np.random.default_rng(9)
    x = 1e6 * (1 + 0.003 * rng.standard_normal(400) + 0.08 * (rng.random(400) < 0.45))
    assert detect_change_points(x, SETTINGS) == []


def test_a_rare_mode_clustering_by_chance_is_not_a_change():
    # 100 runs, 15% of them in a second mode 8% slower: by chance a few of those fall together.
    # The fenced t-test alone called 9 of these 40 series changed; the rank test sees no change.
    flagged = []
    for seed in range(40):
        rng = np.random.default_rng(seed)
        x = 100 * (1 + 0.004 * rng.standard_normal(100) + 0.08 * (rng.random(100) < 0.15))
        if detect_change_points(x, SETTINGS):
            flagged.append(seed)
    assert not flagged, flagged


def test_short_series_and_non_positive_values():
    assert detect_change_points([1.0, 2.0, 3.0], SETTINGS) == []
    x = np.r_[np.zeros(40), np.full(40, 5.0)] + np.random.default_rng(0).normal(0, 0.1, 80)
    [cp] = detect_change_points(x, SETTINGS)       # no log scale possible: still found
    assert cp.index == 40


def test_a_change_in_a_series_not_all_positive_is_sized_against_the_level_before_it():
    """Without a log scale the size was the shift over the series' median: a +10% step read
    +9.4% (its interval excluding 10%) once a single run read 0, 0 → 1 read +200% and 1 → 0
    −200%.  ``after / before − 1`` is what a magnitude says; from a level of 0 it has no finite
    value and is given as the bound the pages and alerts write as "> +10,000%"."""
    rng = np.random.default_rng(1)
    x = 100 * (1 + 0.005 * rng.standard_normal(60))
    x[30:] *= 1.10
    x[5] = 0.0
    [cp] = detect_change_points(x, SETTINGS)
    assert cp.index == 30 and cp.ci_low <= 0.10 <= cp.ci_high and abs(cp.magnitude - 0.10) < 0.005
    ones = 1 + 0.01 * rng.standard_normal(25)
    [up] = detect_change_points(np.r_[np.zeros(25), ones], SETTINGS)
    assert up.index == 25 and up.magnitude == RELATIVE_CEILING and up.direction == "regression"
    [down] = detect_change_points(np.r_[ones, np.zeros(25)], SETTINGS)
    assert -1.03 < down.ci_low <= down.magnitude <= down.ci_high < -0.97 and down.direction == "improvement"


@pytest.mark.parametrize("x", [
    np.r_[np.full(30, 1e-300), np.full(30, 1e308), [-1e308]],     # over 1e308 times its median
    np.r_[np.zeros(31), np.full(30, 1e300), [-1e300]],            # median 0: raw units squared
    np.r_[np.full(30, 1.2e308), np.full(30, 1.5e308)],            # two middle values sum past the largest float
], ids=["span", "median-0", "near-max"])
def test_values_near_the_largest_float_are_analysed_without_overflow(x):
    """Values a few orders under the largest float: the median of an even count, the values over
    a tiny median, or their squares overflowed to infinities (a RuntimeWarning on stderr, and an
    analysis of inf and nan)."""
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        m = NoiseModel().fit(x)
        [cp] = detect_change_points(x, SETTINGS)
    assert np.all(np.isfinite(m.y)) and math.isfinite(m.level)
    assert cp.index == (31 if x[0] == 0 else 30) and cp.direction == "regression"
    assert math.isfinite(cp.before) and math.isfinite(cp.after) and cp.after > cp.before


def test_noise_model_pieces():
    x = noisy(400, 0.02, 2)
    m = NoiseModel().fit(x)
    assert m.log_scale and 0.015 < m.sigma < 0.025
    spiky = x.copy()
    spiky[200] *= 10
    w = NoiseModel().fit(spiky).winsorized
    assert abs(w[200] - np.log(x[200])) < 5 * m.sigma     # the spike is clipped to the fences
    assert lag1_autocorrelation(np.random.default_rng(0).standard_normal(2000)) < 0.1
    ar = np.zeros(3000)
    rng = np.random.default_rng(1)
    for i in range(1, 3000):
        ar[i] = 0.8 * ar[i - 1] + rng.standard_normal()
    assert 0.7 < lag1_autocorrelation(ar) < 0.9


def sticky_modes(n: int, seed: int, dwell: float = 5.0, share: float = 0.3, gap: float = 3.0):
    """Unit jitter plus a slow mode ``gap`` higher, entered and left as a two-state Markov chain
    (stays of ``dwell`` runs on average, ``share`` of the runs in it); and the mode of each run."""
    rng = np.random.default_rng(seed)
    slow, state = np.zeros(n, dtype=bool), False
    for i in range(n):
        state = rng.random() >= 1 / dwell if state else rng.random() < share / (1 - share) / dwell
        slow[i] = state
    return gap * slow + rng.standard_normal(n), slow


def test_the_persistence_a_false_cut_hides_is_measured_about_a_rolling_median():
    # Cutting every stay of 6 runs or more in the slow mode into a regime of its own (what false
    # changes do) leaves residuals that look far less correlated than the noise is; about a
    # rolling median, which no change cuts, the persistence shows.
    hidden = []
    for seed in range(6):
        y, slow = sticky_modes(400, seed)
        edges = [0, *(np.flatnonzero(np.diff(slow.astype(int))) + 1), slow.size]
        cut = sorted({t for a, b in zip(edges, edges[1:]) if slow[a] and b - a >= 6 for t in (a, b)} - {0, slow.size})
        assert cut
        wander = wander_autocorrelation(y)
        assert 0.25 < wander < 0.6, (seed, wander)
        hidden.append(wander - lag1_autocorrelation(_residuals(y, cut)))
    assert min(hidden) > 0 and np.mean(hidden) > 0.08, hidden


def test_the_persistence_about_a_rolling_median_is_that_of_the_noise():
    for seed in range(6):
        rng = np.random.default_rng(seed)
        assert wander_autocorrelation(rng.standard_normal(400)) < 0.1
        ar, e = np.zeros(1000), rng.standard_normal(1000)
        for i in range(1, 1000):
            ar[i] = 0.5 * ar[i - 1] + e[i]
        assert 0.35 < wander_autocorrelation(ar) < 0.6
        # a step the rolling median follows poorly is left out when it is known
        steps = rng.standard_normal(300) + 1.5 * (np.arange(300) >= 150)
        assert wander_autocorrelation(steps, [150]) < 0.1


@pytest.mark.parametrize("seed", range(5))
def test_the_local_noise_scale_holds_at_the_series_ends(seed):
    # Windows padded by repeating the end value made the local scale collapse to its floor over
    # the first and last points, and a spike on the first run escaped the fences.
    x = noisy(300, 0.02, seed)
    m = NoiseModel().fit(x)
    assert 0.012 < m.local_sigma.min() and m.local_sigma.max() < 0.03, (m.local_sigma[:3], m.local_sigma[-3:])
    first = x.copy()
    first[0] *= 10
    assert abs(NoiseModel().fit(first).winsorized[0] - np.log(x[0])) < 5 * m.sigma


@pytest.mark.parametrize("levels", [[2, 5, 3], [4, 2, 4], [2, 8]])
def test_two_run_regimes_of_an_instruction_count_are_kept(levels):
    # With min_segment = 2 (the demo's instruction counts), a regime of 2 runs was clipped into
    # its neighbour's level by the 9-run rolling median the spike fences are set about: the demo's
    # +10.6% / -9.6% pointer-copy history (2 runs, 5, 3) showed no change point on its pages.
    settings = ChangePointSettings(min_effect=0.001, confidence=0.99, min_segment=2)
    values = [v for i, k in enumerate(levels) for v in [(62.9e6, 69.6e6)[i % 2]] * k]
    found = detect_change_points(values, settings)
    assert [c.index for c in found] == list(np.cumsum(levels)[:-1])
    assert abs(found[0].magnitude - (69.6 / 62.9 - 1)) < 1e-3
    spiked = [62.9e6] * 5 + [80e6] + [62.9e6] * 5      # one run is a spike, not a regime
    assert detect_change_points(spiked, settings) == []


def test_detector_is_fit_predict():
    x = noisy(200, 0.01, 5)
    x[90:] *= 0.9
    det = ChangePointDetector(SETTINGS).fit(x)
    assert det.noise_.sigma > 0
    assert [c.index for c in det.predict()] == [90]


def test_passes_at_judges_given_changes_with_the_detectors_own_tests():
    # The evaluation's ceiling: a clear step passes at its true index, a step far under the noise
    # and a point in the middle of a flat regime do not.
    x = noisy(300, 0.02, 7)
    x[100:] *= 1.10      # 5x the noise
    x[200:] *= 1.002     # a tenth of it
    det = ChangePointDetector(SETTINGS).fit(x)
    assert det.passes_at([100, 200]) == [True, False]
    assert det.passes_at([50, 100]) == [False, True]


def test_a_young_regime_at_the_end_is_located_on_its_first_point():
    # Found with 10 runs of a complexity fit: 4 points of the new regime are enough to see the
    # step, and the report must name its first point, not the last point of the old regime.
    rng = np.random.default_rng(0)
    y = np.r_[35 * np.ones(6), 80 * np.ones(4)] * (1 + 0.01 * rng.standard_normal(10))
    [cp] = detect_change_points(y)
    assert cp.index == 6 and cp.index_low <= 6 <= cp.index_high


def _many_steps(k: int) -> np.ndarray:
    """The k-th of a stream of short series with many close steps of 1-30% (deterministic)."""
    rng = np.random.default_rng(1)
    for _ in range(k + 1):
        n = int(rng.integers(30, 120))
        level = np.ones(n)
        for t in sorted(rng.choice(np.arange(3, n - 3), size=int(rng.integers(3, 12)), replace=False)):
            level[t:] *= 1 + rng.choice([-1, 1]) * rng.uniform(0.01, 0.3)
        noise = rng.choice([0.001, 0.01, 0.03])
        values = 100 * level * (1 + noise * rng.standard_normal(n))
    return values


@pytest.mark.parametrize("k", [1271, *range(40)])
def test_never_two_change_points_at_one_index(k):
    # series 1271 once gave [9, 9, 39, 43, 70]: two neighbours refined onto one index
    idx = [cp.index for cp in detect_change_points(_many_steps(k), ChangePointSettings(min_effect=0.005))]
    assert all(a < b for a, b in zip(idx, idx[1:])), idx


@pytest.mark.parametrize("noisy_cv", [0.02, 0.06, 0.15])
@pytest.mark.parametrize("seed", range(6))
def test_a_step_in_a_quiet_stretch_is_found_whatever_the_noise_elsewhere(noisy_cv, seed):
    # 150 noisy points, then 150 quiet ones (CV 0.5%) with a 2% step (4x the quiet noise) at 230:
    # the noise level is judged where the step is, not set by the noisiest stretch
    rng = np.random.default_rng(100 + seed)
    n, cut, at = 300, 150, 230
    cv = np.where(np.arange(n) < cut, noisy_cv, 0.005)
    x = 100 * np.exp(cv * rng.standard_normal(n))
    x[at:] *= 1.02
    found = detect_change_points(x, ChangePointSettings(min_effect=0.005))
    assert [cp.index for cp in found if abs(cp.index - at) <= 2], [cp.index for cp in found]
    assert all(cp.index >= cut - 5 for cp in found), "no change point in the noisy stretch"
    # a reported location passes its own test (the refinement once moved one onto the burst of
    # noise beside the step and reported it with p = 1)
    assert all(cp.p_value <= 0.01 for cp in found), [(cp.index, cp.p_value) for cp in found]


@pytest.mark.parametrize("seed", range(8))
def test_a_slow_hump_is_not_a_step(seed):
    # a machine warming up and cooling down: the level rises 4% and falls back over 120 runs
    rng = np.random.default_rng(300 + seed)
    n = 120
    hump = 1 + 0.04 * np.sin(np.linspace(0, np.pi, n))
    x = 100 * hump * np.exp(0.005 * rng.standard_normal(n))
    assert detect_change_points(x, ChangePointSettings(min_effect=0.005)) == []


def test_quiet_then_noisy_is_not_a_change():
    # the noise level changing is not a step in the level
    for seed in range(10):
        rng = np.random.default_rng(300 + seed)
        cv = np.where(np.arange(400) < 200, 0.003, 0.05)
        assert detect_change_points(100 * np.exp(cv * rng.standard_normal(400)),
                                    ChangePointSettings(min_effect=0.005)) == []


def test_the_location_range_holds_a_weak_steps_true_run_about_as_often_as_it_says():
    # 200 steps of 1.5-3 sigma in 1% Gaussian noise, every detection within 15 runs counted: the
    # range is a 95% set, its level calibrated for a change's location (``location_level``); the
    # chi-square 3.84 set next to the best split (``likeliest_low..likeliest_high``, the range
    # before) held 0.89, and the local robust scale alone 0.83
    inside = likeliest = count = 0
    for seed in range(200):
        rng = np.random.default_rng(500 + seed)
        at = int(rng.integers(40, 80))
        x = 100 * np.exp(0.01 * rng.standard_normal(120))
        x[at:] *= 1 + rng.uniform(0.015, 0.03)
        for cp in detect_change_points(x, ChangePointSettings(min_effect=0.005)):
            if abs(cp.index - at) <= 15:
                count += 1
                inside += cp.index_low <= at <= cp.index_high
                likeliest += cp.likeliest_low <= at <= cp.likeliest_high
                assert cp.index_low <= cp.likeliest_low <= cp.index <= cp.likeliest_high <= cp.index_high
    assert count >= 190 and inside / count >= 0.93 and likeliest < inside, (inside, likeliest, count)


@pytest.mark.parametrize("step", [0.5, 1.0, 2.0])
def test_the_location_level_is_the_quantile_of_a_walks_maximum_on_either_side(step):
    # Twice the log likelihood of a split k runs past a step of ``step`` deviations, against the
    # true split, walks with drift -step^2 and deviation 2 step; the range is the splits within
    # the level of the best, so the level is the 95% quantile of the larger of the two sides'
    # maxima (20,000 simulated pairs: within 0.35 of it, and never under it by more)
    rng = np.random.default_rng(7)
    k = int(max(60, 40 / step ** 2))
    walks = np.cumsum(2 * step * rng.standard_normal((2, 20_000, k)) - step * step, axis=2)
    largest = np.maximum(walks.max(axis=2), 0).max(axis=0)
    q = float(np.quantile(largest, 0.95))
    assert -0.2 <= location_level(step) - q <= 0.35, (location_level(step), q)


def sticky_mode(n: int, visits: list[tuple[int, int]], seed: int, gap: float = 0.06) -> np.ndarray:
    """A quiet benchmark that spends the given stretches in a slower second mode."""
    x = noisy(n, 0.005, seed)
    for a, b in visits:
        x[a:b] *= 1 + gap
    return x


@pytest.mark.parametrize("seed", range(3))
def test_a_mode_visited_again_and_again_is_not_a_change(seed):
    # A sticky second mode (a code layout, a machine state lasting a few runs): each visit is a
    # clean pair of opposite steps of one size, which every test passes; visited twice or more,
    # it is a mode and nothing is reported.  Other changes of the series are kept.
    visits = [(40, 48), (120, 130), (200, 207)]
    assert detect_change_points(sticky_mode(300, visits, seed), SETTINGS) == []
    stepped = sticky_mode(300, visits, seed)
    stepped[250:] *= 1.04
    assert [c.index for c in detect_change_points(stepped, SETTINGS)] == [250]


@pytest.mark.parametrize("seed", range(3))
def test_a_regression_and_its_revert_are_both_reported(seed):
    # One excursion is not a mode: a regression reverted ten runs later is two changes.
    found = detect_change_points(sticky_mode(300, [(120, 130)], seed), SETTINGS)
    assert [c.index for c in found] == [120, 130]
    assert [c.direction for c in found] == ["regression", "improvement"]


def test_excursions_of_different_sizes_or_not_returning_are_kept():
    # Two visits to different levels (+6% and +15%) are two regressions each reverted, not a mode;
    # nor is a staircase that goes up and does not come back.
    x = noisy(300, 0.005, 4)
    x[60:70] *= 1.06
    x[180:190] *= 1.15
    assert [c.index for c in detect_change_points(x, SETTINGS)] == [60, 70, 180, 190]
    y = noisy(300, 0.005, 5)
    y[60:] *= 1.06
    y[70:] *= 0.98
    y[180:] *= 1.06
    y[190:] *= 0.98
    assert [c.index for c in detect_change_points(y, SETTINGS)] == [60, 70, 180, 190]


def visited_mode(n: int, seed: int, stay: tuple[int, int], mean_stay: float, share: float = 0.15,
                 gap: float = 0.06, longest: int = 4) -> np.ndarray:
    """A quiet benchmark that visits a slower mode now and then (stays of ``mean_stay`` runs on
    average, at most ``longest``; ``share`` of the runs outside ``stay``), and stays in it over
    ``stay``."""
    rng = np.random.default_rng(seed)
    x = noisy(n, 0.005, seed)
    slow, t = np.zeros(n, bool), 0
    while t < n:
        t += int(rng.geometric(share / mean_stay / (1 - share)))
        k = min(int(rng.geometric(1 / mean_stay)), longest)
        slow[t:t + k] = True
        t += k
    slow[stay[0] - 3:stay[0]] = slow[stay[1]:stay[1] + 3] = False    # the stay has clear edges
    slow[stay[0]:stay[1]] = True
    x[slow] *= 1 + gap
    return x


@pytest.mark.parametrize("seed", [0, 7])
def test_one_stay_in_a_mode_visited_for_a_few_runs_at_a_time_is_not_a_change(seed, monkeypatch):
    # The series visits the slow level for 1-4 runs at a time; one stay of 10 runs is one more
    # visit, not a regression and its revert — though it passes every test, and is found when
    # visits to a mode are not looked for.  (In other seeds, 2 among them, the stays' persistence
    # measured about a rolling median already keeps the pair from passing.)
    x = visited_mode(300, seed, (140, 150), mean_stay=2.5, share=0.1)
    assert ChangePointDetector(SETTINGS).fit(x).passes_at([140, 150]) == [True, True]
    assert detect_change_points(x, SETTINGS) == []
    monkeypatch.setattr(changepoint, "without_mode_visits", lambda found, y, log_scale: found)
    assert [c.index for c in detect_change_points(x, SETTINGS)] == [140, 150]


@pytest.mark.parametrize("seed", [17, 52, 57])
def test_one_stay_in_a_mode_whose_jitter_overlaps_the_other_is_not_a_change(seed, monkeypatch):
    # The slow mode is 2.5 jitter deviations away and holds 30% of the runs: its visits pull the
    # median of the series toward them, and the fast mode's jitter then reaches as far below that
    # median as the visits reach above it; the same jitter splits stays into pieces.  Seen about
    # the level the series sits at most, with stays bridged over one run, the 12-run stay is one
    # more visit.  (Of 60 seeds these three are those whose stay the search finds and the tests
    # pass; the mode rule before this measure kept it in all three.)
    x = visited_mode(300, seed, (140, 152), mean_stay=2, share=0.3, gap=0.0125, longest=6)
    assert ChangePointDetector(SETTINGS).fit(x).passes_at([140, 152]) == [True, True]
    assert detect_change_points(x, SETTINGS) == []
    monkeypatch.setattr(changepoint, "without_mode_visits", lambda found, y, log_scale: found)
    found = [c.index for c in detect_change_points(x, SETTINGS)]
    assert any(abs(t - 140) <= 2 for t in found) and any(abs(t - 152) <= 2 for t in found), found


@pytest.mark.parametrize("seed", [0, 32, 45])
def test_one_stay_in_a_mode_visited_rarely_is_not_a_change(seed, monkeypatch):
    # Only 3% of the runs visit the slow mode: a handful of runs at its level beside the 10-run
    # stay, one or two as far on the other side — binomial p between 0.001 and 0.01, which the
    # mode rule takes for a mode since round 17 (before it, these stays were reported as pairs).
    x = visited_mode(300, seed, (140, 150), mean_stay=2.5, share=0.03)
    assert detect_change_points(x, SETTINGS) == []
    monkeypatch.setattr(modes, "MODE_P", 0.001)
    assert [c.index for c in detect_change_points(x, SETTINGS)] == [140, 150]


@pytest.mark.parametrize("seed", [0, 2, 3])
def test_a_regression_to_the_level_of_a_mode_visited_a_run_or_two_at_a_time_is_kept(seed, monkeypatch):
    # The series visits the slow level a run or two at a time, which cannot explain 28 slow runs
    # in a row: that stay is a regression and its revert, though at the mode's level — only its
    # length tells it from a visit.
    x = visited_mode(300, seed, (129, 157), mean_stay=1.3, share=0.2, gap=0.16)
    found = [c.index for c in detect_change_points(x, SETTINGS)]
    assert len(found) == 2 and abs(found[0] - 129) <= 1 and abs(found[1] - 157) <= 1, found
    monkeypatch.setattr(modes, "DWELL_P", 0.0)
    assert detect_change_points(x, SETTINGS) == []


def test_corroborate_tests_only_the_places_siblings_name_and_pays_for_them():
    # A +3.5% step in 6% noise over 300 runs: too weak for the search over every position, found
    # in some seeds when a sibling names its commit, and only there.
    hits = 0
    for seed in range(6):
        x = noisy(300, 0.06, seed)
        x[150:] *= 1.035
        det = ChangePointDetector(SETTINGS).fit(x)
        own = det.predict()
        assert own == []
        assert det.corroborate(own, [(60, 62)]) == []                 # no step there
        assert det.corroborate(own, [(0, 299)]) == []                 # every place named: no gain
        found = det.corroborate(own, [(148, 152)])
        for cp in found:
            assert 148 <= cp.index <= 152 and cp.index_low >= 148 and cp.index_high <= 152
            assert cp.p_value <= 0.01 and cp.magnitude > 0
        hits += len(found)
    assert hits >= 2
    x = noisy(300, 0.01, 1)
    x[150:] *= 1.1
    det = ChangePointDetector(SETTINGS).fit(x)
    own = det.predict()
    assert [c.index for c in own] == [150]
    assert det.corroborate(own, [(147, 149)]) == []                   # that change already


def test_a_weak_step_at_a_siblings_place_needs_less_of_the_drift_guard_where_the_series_has_no_trend(monkeypatch):
    # A 1-deviation step in 120 quiet runs, where 5 siblings found a change: the step passes its
    # p-value there, and in some seeds stands out from a trend through its windows by |z| 1-2 only.
    def found(guard_z: float) -> list[int]:
        monkeypatch.setattr(changepoint, "SIBLING_GUARD_Z", guard_z)
        seeds = []
        for seed in range(40):
            det, own = fitted_step(120, 0.03, seed, 60, 1.03)
            if not own and any(58 <= c.index <= 62 for c in det.corroborate(own, [(58, 62)], 5)):
                seeds.append(seed)
        return seeds

    full = found(changepoint.DRIFT_GUARD_Z)
    lower = found(1.0)
    assert set(full) < set(lower) and len(lower) - len(full) >= 5, (full, lower)


def test_a_drifting_series_keeps_the_full_drift_guard_at_its_siblings_places(monkeypatch):
    # A 15% linear drift over 300 runs in 3% noise, no step: at a place where 5 siblings changed,
    # the lower bar alone took the drift for a step in 10 of 60 seeds; with the regime's trend seen,
    # 1, as with the full bar.
    def added() -> int:
        count = 0
        for seed in range(60):
            x = noisy(300, 0.03, seed) * (1 + 0.15 * np.arange(300) / 300)
            det = ChangePointDetector(SETTINGS).fit(x)
            own = det.predict()
            count += not own and bool(det.corroborate(own, [(148, 152)], 5))
        return count

    assert added() <= 1
    monkeypatch.setattr(changepoint, "REGIME_TREND_Z", math.inf)       # no series seen as drifting
    assert added() >= 5


def test_a_place_most_siblings_found_is_tested_though_all_the_places_cost_more_than_the_series():
    # 12 siblings, 10 of them changed at run 60, 3 others elsewhere: the four places together, each
    # priced for all 12, cost more than the 120 positions (the re-test was skipped), but the one
    # that 10 found costs 20 x 13 / 11 = 24 and finds a 1-deviation step there.
    ranges = [(58, 62)] * 10 + [(20, 24), (90, 94), (100, 104)]
    sources = [f"found-{i}" for i in range(10)] + ["a", "b", "c"]
    assert 4 * 5 * 12 >= 120
    tried = found = 0
    for seed in range(30):
        det, own = fitted_step(120, 0.03, seed, 60, 1.03)
        if own:
            continue
        tried += 1
        added = det.corroborate(own, ranges, 12, sources)
        assert all(55 <= c.index <= 65 for c in added), added
        found += bool(added)
    assert tried >= 5 and found >= tried - 2, (tried, found)


def test_a_place_where_more_siblings_changed_costs_less():
    # Of 31 series tested where 3 siblings found the change alone, a p-value pays for 31 / 4, not
    # 31 / 2 as where one did (the Benjamini-Hochberg step-up bound); one sibling's change counts
    # once however many of its ranges fall there.
    gained = 0
    for seed in (1, 7, 8):
        x = noisy(300, 0.06, seed)
        x[150:] *= 1.035
        det = ChangePointDetector(SETTINGS).fit(x)
        own = det.predict()
        assert own == []
        one = det.corroborate(own, [(148, 152)], 30)
        three = det.corroborate(own, [(148, 152)] * 3, 30, ["a", "b", "c"])
        assert det.corroborate(own, [(148, 152)] * 3, 30, ["a", "a", "a"]) == one
        assert len(three) == 1 and three[0].p_value <= 0.01
        if one:
            assert three[0].index == one[0].index and three[0].p_value == pytest.approx(one[0].p_value / 2)
        gained += not one
    assert gained == 1


def test_changes_found_where_siblings_changed_must_pass_together(monkeypatch):
    # A +2.5% step in 5% noise, named by siblings at its commit and 10 runs later.  Without the
    # drift guard each place passes alone (the later one's windows still straddle the step); side
    # by side, the 10 runs between them make neither a change.  One is kept, and it passes.
    monkeypatch.setattr(changepoint, "DRIFT_GUARD_Z", 0.0)
    monkeypatch.setattr(changepoint, "SIBLING_GUARD_Z", 0.0)
    for seed in (7, 23, 34):
        x = noisy(300, 0.05, seed)
        x[100:] *= 1.025
        det = ChangePointDetector(SETTINGS).fit(x)
        assert det.predict() == []
        assert det.corroborate([], [(100, 100)], 1) and det.corroborate([], [(110, 110)], 1)
        found = det.corroborate([], [(100, 100), (110, 110)], 1)
        assert [c.index for c in found] == [100] and found[0].p_value <= 0.01


def test_corroborate_all_tests_each_series_where_the_others_changed():
    # The bench scripts' way to the siblings' re-test, on series sharing their commits.
    from test_detect_siblings import suite

    a, b = suite()
    detectors = [ChangePointDetector(SETTINGS).fit(v) for v in (a, b)]
    alone = [d.predict() for d in detectors]
    assert [[c.index for c in f] for f in alone] == [[100], []]
    added = changepoint.corroborate_all(detectors, alone)
    assert added[0] == [] and [c.index for c in added[1]] == [100]
    assert added[1] == detectors[1].corroborate([], [(alone[0][0].index_low, alone[0][0].index_high)], 1, [0])


def test_a_change_is_placed_where_a_sibling_changed_when_that_explains_it_as_well():
    # A +2.5% step in 2% noise at run 100, found alone by the search, often a few runs off; a
    # sibling's change could only be at run 100.  A change is moved there only when run 100 is in
    # its location's profile-likelihood set and it still passes its series-wide tests there;
    # nothing is added or removed, and its range still holds where it was found.
    sibling = Likelihood(100, (0.0,))
    moved = stayed = 0
    errors_before = errors_after = 0
    for seed in range(60):
        x = noisy(200, 0.02, seed)
        x[100:] *= 1.025
        det = ChangePointDetector(SETTINGS).fit(x)
        found = det.predict()
        placed, members = det.align(found, [sibling])
        assert len(placed) == len(found) == len(members)
        for before, after, with_ in zip(found, placed, members):
            if after == before:
                assert with_ == []
                stayed += 1
                continue
            moved += 1
            assert after.index == 100 and before.index != 100 and with_ == [0]
            assert after.index_low <= min(before.index_low, 100) and after.index_high >= max(before.index_high, 100)
            assert after.p_value <= 0.01 and after.direction == before.direction
            errors_before += abs(before.index - 100)
            errors_after += abs(after.index - 100)
    assert moved >= 10 and stayed >= 10
    assert errors_after == 0 < errors_before


def test_a_clean_step_stays_where_it_is_beside_a_siblings_change():
    x = noisy(200, 0.01, 4)
    x[100:] *= 1.10
    det = ChangePointDetector(SETTINGS).fit(x)
    found = det.predict()
    assert [c.index for c in found] == [100]
    assert det.align(found, [Likelihood(108, (0.0,))]) == (found, [[]])          # far outside its likelihood set
    assert det.align(found, [Likelihood(95, (0.0,) * 11)]) == (found, [[]])      # its own best within the sibling's
    assert det.align(found, []) == (found, [[]])


def test_a_change_several_benchmarks_show_is_located_by_all_of_them():
    # Four benchmarks each step +2% in 2% noise at run 100; alone, each names a commit a few runs
    # off, each its own way.  Placed where their likelihoods are largest together, more of them
    # name run 100 exactly and they stray less; every change moved still passes where it is.
    before = after = exact_before = exact_after = moved = 0
    for seed in range(20):
        detectors = [ChangePointDetector(SETTINGS).fit(np.concatenate([x[:100], x[100:] * 1.02]))
                     for x in (noisy(200, 0.02, 1000 * seed + k) for k in range(4))]
        found = [d.predict() for d in detectors]
        for d, alone, placed in zip(detectors, found, align_all(detectors, found)):
            assert len(placed) == len(alone)
            passes = d.passes_at([c.index for c in placed])
            assert all(ok for ok, c in zip(passes, placed) if c not in alone)
            for b, a in zip(alone, placed):
                if abs(b.index - 100) <= 30:
                    before, after = before + abs(b.index - 100), after + abs(a.index - 100)
                    exact_before, exact_after = exact_before + (b.index == 100), exact_after + (a.index == 100)
                    moved += a != b
    assert moved >= 20
    assert exact_after >= exact_before + 5 and after < 0.8 * before


def test_a_cold_first_run_does_not_hide_a_clean_step_in_a_short_history():
    # A consumer's criterion history (an audit): 8 runs at 6.1 µs, then 10 at 7.77 µs, +26% with
    # 1% noise, and its first run cold at 11.8 µs.  The rank test counted that run, far above
    # both levels, against the step and vetoed it: no change point.
    low = [6129.0, 6237.0, 6597.0, 6121.0, 6113.0, 6116.0, 6137.0, 6171.0]
    high = [7771.0, 7768.0, 7803.0, 7738.0, 7763.0, 7770.0, 7790.0, 7750.0, 7760.0, 7780.0]
    [cp] = detect_change_points([11803.0, *low, *high])
    assert cp.index == 9 and 0.2 < cp.magnitude < 0.33
    [cp] = detect_change_points([*low, 12300.0, *high])        # a spike on the run before the step
    assert cp.index in (8, 9) and cp.index_low <= 8 and cp.index_high >= 9


@pytest.mark.parametrize("seed", range(6))
def test_a_spike_next_to_a_step_leaves_the_change_in_its_range(seed):
    # The spike may be the run before the step or the new regime's first run: the likelihood
    # cannot tell, and the range used to be the spike's run alone (the wrong commit, "exact").
    rng = np.random.default_rng(seed)
    base = np.r_[100 + rng.normal(0, 1, 60), 110 + rng.normal(0, 1, 60)]
    for run, value in ((59, 125.0), (59, 90.0), (60, 95.0), (60, 125.0)):
        x = base.copy()
        x[run] = value
        [cp] = detect_change_points(x)
        assert cp.index_low <= 60 <= cp.index_high and cp.index_high - cp.index_low <= 2, (run, value, cp)


def test_a_large_steps_edge_run_is_no_spike_that_widens_its_range():
    # An audit: +30% for ten runs in 1% noise read "could be 14..15" and "23..24", run 23 plainly
    # on the higher level: the edge run of a large step is clipped too (the rolling median
    # straddles the step), and round 27's spike rule widened the range to it.
    levels = np.r_[np.full(14, 100.0), np.full(10, 130.0), np.full(12, 100.0)]
    for seed in range(6):
        rng = np.random.default_rng(seed)
        cps = detect_change_points(levels * (1 + 0.01 * rng.standard_normal(levels.size)))
        assert [(c.index_low, c.index, c.index_high) for c in cps] == [(14, 14, 14), (24, 24, 24)], (seed, cps)


def test_cold_runs_that_open_a_history_are_set_aside_and_hide_no_step():
    # The same consumer's history as recorded: four runs before the quiet ones, three of them cold
    # (11.8, 9.9 and 16.2 µs) and one warm (6.3), then 8 runs at 6.1 µs and 5 at 7.77.  Two cold
    # runs in a row read as persistence (variances inflated about threefold): no change point.
    low = [6129.0, 6237.0, 6597.0, 6121.0, 6113.0, 6116.0, 6137.0, 6171.0]
    high = [7771.0, 7768.0, 7803.0, 7738.0, 7763.0]
    detector = ChangePointDetector().fit([11803.0, 9912.0, 6310.0, 16204.0, *low, *high])
    [cp] = detector.predict()
    assert cp.index == 12 and 0.2 < cp.magnitude < 0.33
    assert detector.noise_.set_aside[:5].tolist() == [True, True, False, True, False]
    # Five runs at a level of their own are a regime, not a warm-up: their change is reported.
    first = [11803.0, 11650.0, 11900.0, 11700.0, 11750.0]
    assert [c.index for c in detect_change_points([*first, *low, *high])] == [5, 13]
    # A bimodal benchmark that opens in the mode it visits again keeps that run.
    rng = np.random.default_rng(5)
    modes = np.where(rng.random(60) < 0.3, 4430.0, 4250.0) * (1 + 0.002 * rng.standard_normal(60))
    modes[0] = 4440.0
    assert not ChangePointDetector().fit(modes).noise_.set_aside.any()


def test_a_spike_after_ordinary_first_runs_is_no_warm_up():
    # Round 28: the suite corpus's series opened with three ordinary runs, then a spike at twice
    # the level; round 26 set the spike aside as a cold run, and two false changes followed.
    rng = np.random.default_rng(3)
    values = 100.0 * np.exp(0.05 * rng.standard_normal(80))
    values[3] = 200.0
    assert not ChangePointDetector().fit(values).noise_.set_aside.any()
    values[0] = 200.0                                     # a history that opens cold is a warm-up
    assert ChangePointDetector().fit(values).noise_.set_aside[:4].tolist() == [True, False, False, True]


def _reverted_step(back: int, cv: float = 0.0, seed: int = 0) -> np.ndarray:
    # A user's instruction count: 19 runs creeping up 1,000 a run, +7.8% for 8 runs, then back
    # for `back` runs (the newest).
    x = np.r_[591853834.0 + 1000.0 * np.arange(19), np.full(8, 637976740.0), np.full(back, 591860623.0)]
    return x * (1 + cv * np.random.default_rng(seed).standard_normal(x.size))


@pytest.mark.parametrize("cv, seeds", [(0.0, range(1)), (0.01, range(10))])
def test_a_step_reverted_for_its_newest_runs_is_still_found(cv, seeds):
    # With the revert 2 or 3 runs old (fewer than min_segment: no change can be cut there), its
    # runs fell in the step's right window and, left in the residuals, read as persistence (ρ ≈ 0.5,
    # variances inflated threefold): the rank agreement failed and nothing was reported; in 1%
    # noise also with 4 runs back, and with 1 in 9 of 100 seeds (the revert's first run in the right
    # window, at the old level).  In these seeds the step is found whatever the newest runs do (in
    # 100 seeds of 1% noise it is still lost in 3-9 with 2-4 runs back: README), the revert once
    # it is a regime, and a level 1-4 runs old is never a change of its own below min_segment.
    m = ChangePointSettings().min_segment
    for back in (0, 1, 2, 3, 4, m, m + 1, 8):
        for seed in seeds:
            x = _reverted_step(back, cv, seed)
            detector = ChangePointDetector().fit(x)
            found = [(c.index, c.direction) for c in detector.predict()]
            assert found[:1] == [(19, "regression")], (back, seed, found)
            if back >= m:
                assert found == [(19, "regression"), (27, "improvement")], (back, seed, found)
            elif back < m - 1:
                assert found == [(19, "regression")], (back, seed, found)
            if 1 <= back < m:
                assert detector.noise_.pending == back, (back, seed)


def test_only_a_level_of_its_newest_runs_beyond_the_fences_is_pending():
    rng = np.random.default_rng(4)
    quiet = 100.0 * (1 + 0.01 * rng.standard_normal(60))
    assert NoiseModel().fit(quiet).pending == 0
    spike = quiet.copy()
    spike[-1] = 130.0                                    # a spike or a revert's first run: evidence of neither side
    assert NoiseModel().fit(spike).pending == 1
    inside = quiet.copy()
    inside[-1] = 102.0                                   # within the fences: a run of the regime
    assert NoiseModel().fit(inside).pending == 0
    split = quiet.copy()
    split[-3:] = [130.0, 100.0, 130.0]                   # not all three beyond: the newest alone
    assert NoiseModel().fit(split).pending == 1
    both = quiet.copy()
    both[-2:] = [130.0, 70.0]                            # beyond on both sides: no level
    assert NoiseModel().fit(both).pending == 0
    for k in (2, 3, 4):
        moved = quiet.copy()
        moved[-k:] *= 0.9
        assert NoiseModel().fit(moved).pending == k
    moved = quiet.copy()
    moved[-5:] *= 0.9                                    # a regime: the search can cut it
    assert NoiseModel().fit(moved).pending == 0
