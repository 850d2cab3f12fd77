"""What bench/evaluate_suites.py --ceiling reports (a z-test that knows each series' noise, and the
drift guard's share of a step's z) and what --misses counts."""

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
from evaluate_suites import known_noise_passes  # noqa: E402


def _series(steps: list[float], phi: float = 0.0, n: int = 200, seed: int = 5) -> dict:
    rng = np.random.default_rng(seed)
    e = np.empty(n)
    e[0] = rng.normal()
    for t in range(1, n):
        e[t] = phi * e[t - 1] + np.sqrt(1 - phi * phi) * rng.normal()
    cps = [n * (i + 1) // (len(steps) + 1) for i in range(len(steps))]
    level = np.ones(n)
    for c, s in zip(cps, steps):
        level[c:] *= 1 + s
    values = 2.0 * level * (1 + 0.01 * e)
    values[7] *= 3     # an outlier run the test leaves out
    return {"values": values.tolist(), "change_points": cps, "steps": steps, "base": 2.0, "outliers": [7]}


def test_a_step_well_over_the_noise_passes_and_one_under_it_does_not():
    assert known_noise_passes(_series([0.05, -0.001])) == [True, False]


def test_correlated_noise_needs_a_larger_step():
    # 1% over 1% noise and two 100-run regimes: z ≈ 7 in independent noise, over the 3.9 that
    # Bonferroni over 200 positions asks at 99%; AR(1) noise with phi 0.9 inflates the variance of
    # a mean about 19-fold (z ≈ 1.6)
    assert known_noise_passes(_series([0.01], phi=0.0)) == [True]
    assert known_noise_passes(_series([0.01], phi=0.9)) == [False]


def test_the_guards_share_of_a_steps_z_is_what_the_detector_computes():
    from evaluate_suites import guard_z_share

    from perfgate.detect.changepoint import step_beyond_trend

    sigma, step = 0.01, 0.03
    for before, after in ((16, 90), (30, 90), (90, 90), (20, 20)):
        plain = step / (sigma * np.sqrt(1 / before + 1 / after))
        guard = step_beyond_trend(np.zeros(before), np.full(after, step), sigma, 1.0)
        assert guard / plain == pytest.approx(guard_z_share(before, after), rel=1e-9)
        assert 0.4 < guard_z_share(before, after) < 0.6


def test_the_misses_are_counted_by_step_size_and_the_false_reports_by_noise_kind(capsys):
    from evaluate_suites import print_misses

    def entry(kind: str, cps: list[int], steps: list[float]) -> dict:
        return {"kind": "common", "own_kind": kind, "change_points": cps, "steps": steps, "noise_cv": 0.02}

    suites = [{"series": [entry("ar0.4", [50, 120], [0.01, 0.05]), entry("gauss", [80], [0.1])],
               "events": [{"index": 50, "kind": "single"}, {"index": 120, "kind": "shared"},
                          {"index": 80, "kind": "single"}]}]
    # series 1: the 0.5x step missed, the 2.5x one found 10 runs off alone and placed 3 runs off,
    # and a false report; series 2: its 5x step found only by the siblings' re-test
    results = [[([130, 170], [123, 170], []), ([], [], [81])]]
    print_misses(suites, results, with_siblings=True, margin=5)
    assert capsys.readouterr().out.strip().splitlines() == [
        "missed by step size over the noise: under 1x 1 of 1, 1-2x 0 of 0, 2-3x 0 of 1, 3x or more 0 of 1; "
        "false reports by noise: ar 1, gauss 0",
        "  F1 if every change of 1x the noise or more were found, the false reports as they are: 0.667",
        "  missed by event: shared, found in 2+ others 0, in 1 other 0, in none 0, single 1"]
    print_misses(suites, results, with_siblings=False, margin=5)
    assert capsys.readouterr().out.strip().splitlines() == [
        "missed by step size over the noise: under 1x 1 of 1, 1-2x 0 of 0, 2-3x 1 of 1, 3x or more 1 of 1; "
        "false reports by noise: ar 2, gauss 0",
        "  F1 if every change of 1x the noise or more were found, the false reports as they are: 0.571",
        "  missed by event: shared, found in 2+ others 0, in 1 other 0, in none 1, single 2"]


def test_a_shared_events_misses_are_counted_by_how_many_other_members_found_it():
    from evaluate_suites import misses_by_event

    def entry(cps: list[int]) -> dict:
        return {"change_points": cps}

    suite = {"series": [entry([60]), entry([60]), entry([60]), entry([60, 140])],
             "events": [{"index": 60, "kind": "shared"}, {"index": 140, "kind": "single"}]}
    # 60: found by two members, missed by two (each found in 2+ others); 140 missed
    findings = [[60], [62], [], [100]]
    assert misses_by_event([suite], findings, 5) == {"shared, found in 2+ others": 2, "in 1 other": 0,
                                                    "in none": 0, "single": 1}
    findings = [[60], [], [], []]
    assert misses_by_event([suite], findings, 5) == {"shared, found in 2+ others": 0, "in 1 other": 3,
                                                    "in none": 0, "single": 1}


def test_a_shared_event_counts_as_named_at_its_commit_when_two_members_flag_that_very_commit():
    from evaluate_suites import score

    def entry(cps: list[int]) -> dict:
        return {"kind": "gauss", "values": [1.0] * 200, "change_points": cps, "steps": [0.05] * len(cps),
                "noise_cv": 0.02}

    suite = {"length": 200, "series": [entry([50, 120]), entry([50, 120]), entry([120])],
             "events": [{"index": 50, "kind": "shared", "members": []}, {"index": 120, "kind": "shared", "members": []}]}
    # both events found; 50 flagged by two members, but one of them 2 runs off; 120 by one only
    results = [[([48], [48], []), ([50], [50], []), ([], [], [120])]]
    r = score([suite], results, with_siblings=True, margin=5)
    assert r["events_found"] == 1.0 and r["events_exact"] == 0.0
    # 50 placed at its commit, 120 found by the re-test too: both named at their very commit
    results = [[([48], [50], [120]), ([50], [50], []), ([], [], [120])]]
    r = score([suite], results, with_siblings=True, margin=5)
    assert r["events_found"] == 1.0 and r["events_exact"] == 1.0
    assert score([suite], results, with_siblings=False, margin=5)["events_exact"] == 0.0


def test_the_oracles_persistence_is_the_noises_long_run_variance_ratio():
    from evaluate_suites import long_run_ratio

    # AR(1) with phi 0.5: (1 + phi) / (1 - phi) = 3; independent noise: 1 (never below it)
    assert long_run_ratio(_series([0.05], phi=0.5, n=4000)) == pytest.approx(3.0, rel=0.15)
    assert long_run_ratio(_series([0.05], phi=0.0, n=4000)) == pytest.approx(1.0, abs=0.15)
