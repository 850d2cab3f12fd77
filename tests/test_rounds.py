"""check's judgement across interleaved rounds: the paired t on per-round log ratios, its MDE,
Benjamini–Hochberg with tied measures counted once, and alpha spending for sequential checks."""

from __future__ import annotations

import math

import numpy as np
import pytest

from perfgate.detect import rounds
from perfgate.detect.compare import compare_rounds, tied_to
from perfgate.thresholds import load_thresholds
from perfgate.units import human

from conftest import ROOT

TH = load_thresholds(ROOT / "thresholds")


def synthetic(rng, n_rounds: int, effect: float = 0.0, machine: float = 0.04, pair: float = 0.02,
              within: float = 0.08, samples: int = 5) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Rounds with a machine state both sides share, a pair-level wobble and per-sample noise."""
    state = rng.normal(0, machine, n_rounds)
    base = [np.exp(s + rng.normal(0, within, samples)) * 1e6 for s in state]
    head = [np.exp(s + math.log1p(effect) + rng.normal(0, pair) + rng.normal(0, within, samples)) * 1e6
            for s in state]
    return base, head


def suite(rng, n_rounds: int, benchmarks: int = 14, target_effect: float = 0.0, **noise):
    """A comparison like tree-alloc's: latency, throughput (tied) and instructions per benchmark."""
    base, head = {}, {}
    for i in range(benchmarks):
        b, h = synthetic(rng, n_rounds, target_effect if i == 0 else 0.0, **noise)
        base[(f"bm{i}", "latency")], head[(f"bm{i}", "latency")] = b, h
        base[(f"bm{i}", "throughput")] = [1e15 / x for x in b]
        head[(f"bm{i}", "throughput")] = [1e15 / x for x in h]
        base[(f"bm{i}", "instructions")] = [[1e9]] * n_rounds
        head[(f"bm{i}", "instructions")] = [[1e9]] * n_rounds
    return base, head


def test_six_rounds_flag_a_clear_ten_percent_slowdown_among_42_comparisons():
    # The signed-rank test on 6 round medians could not go below p = 1/32 here; the t can.
    base, head = suite(np.random.default_rng(3), 6, target_effect=0.10, pair=0.01, within=0.03)
    c = compare_rounds(base, head, TH)
    flagged = {(v.benchmark, v.measure): v for v in c.regressions}
    assert set(flagged) == {("bm0", "latency"), ("bm0", "throughput")}
    lat = flagged[("bm0", "latency")]
    assert lat.method == "paired-t-rounds" and lat.rounds == 6 and lat.ci_low < 0.10 < lat.ci_high
    assert flagged[("bm0", "throughput")].q_value == lat.q_value   # tied: one hypothesis
    # 14 latency + 14 instructions hypotheses; throughput is not counted again
    assert any("0.05/28" in n for n in c.notes)


def test_a_a_false_alarms_stay_below_the_level():
    rng = np.random.default_rng(11)
    trials, false = 80, 0
    for _ in range(trials):
        base, head = suite(rng, 6, benchmarks=5, within=0.15)
        false += compare_rounds(base, head, TH).exit_code
    # FDR 0.05 under the complete null is the chance of any flag: about 4 of 80 (sd ≈ 2)
    assert false <= 10, false


def test_instructions_stay_exact():
    base, head = suite(np.random.default_rng(4), 6, benchmarks=2)
    head[("bm1", "instructions")] = [[1.01e9]] * 6
    c = compare_rounds(base, head, TH)
    [v] = c.regressions
    assert (v.benchmark, v.measure, v.method) == ("bm1", "instructions", "deterministic")
    assert v.effect == pytest.approx(0.01)


def test_one_round_cannot_flag_and_says_so():
    base, head = suite(np.random.default_rng(5), 1, benchmarks=2, target_effect=0.5)
    c = compare_rounds(base, head, TH)
    lat = next(v for v in c.verdicts if v.measure == "latency")
    assert lat.verdict == "insufficient-data" and lat.mde is None and "cannot flag" in lat.note
    assert any("cannot flag any wall-time change" in n for n in c.notes)
    assert "cannot flag any wall-time change" in c.render()


def test_measures_with_fewer_rounds_are_named_and_the_rest_still_judged():
    # Probes run in fewer rounds than the harness: the note gives the span of rounds the flagged
    # measures had and names the measures too short to flag, instead of calling the whole check blind.
    base, head = suite(np.random.default_rng(6), 8, benchmarks=2)
    base[("bm0", "peak-rss")] = [np.array([5e6, 5.1e6])]
    head[("bm0", "peak-rss")] = [np.array([5e6, 5.2e6])]
    c = compare_rounds(base, head, TH)
    assert not any("cannot flag any wall-time change" in n for n in c.notes)
    assert any("with 8 rounds" in n for n in c.notes)
    assert any("fewer than" in n and "bm0 peak-rss" in n for n in c.notes)


def test_mde_matches_the_effect_simulation_catches_80_percent_of_the_time():
    rng = np.random.default_rng(8)
    sd, n, m, thr = 0.03, 8, 28, 0.02
    reported = rounds.mde(sd, n, 0.05, m, thr)
    crit_p = 0.05 / m

    def caught(effect: float) -> float:
        d = rng.normal(math.log1p(effect), sd, (4000, n))
        t = d.mean(1) / (d.std(1, ddof=1) / math.sqrt(n))
        from scipy import stats
        p = 2 * stats.t.sf(np.abs(t), n - 1)
        return float(np.mean((p <= crit_p) & (np.expm1(d.mean(1)) >= thr)))

    assert caught(reported) == pytest.approx(0.8, abs=0.03)
    assert caught(reported / 1.5) < 0.8 < caught(reported * 1.5)


def test_the_mde_at_the_noise_bound_is_at_least_the_true_one_in_nine_checks_of_ten():
    """At the spread's estimate the MDE was below the true one in half the checks (on fresh noise the
    lowest tenth of reported MDEs was caught 6–39% of the time).  At the 90% upper bound it is below
    in about 1 check of 10; at the lower bound (used for "not even a doubling") above in about 1."""
    rng = np.random.default_rng(3)
    sigma, n = 0.03, 6
    true = rounds.mde(sigma, n, 0.05, 20, 0.02)
    sds = rng.normal(0, sigma, (2000, n)).std(1, ddof=1)
    upper = np.array([rounds.mde(rounds.noise_bound(s, n - 1), n, 0.05, 20, 0.02) for s in sds[:400]])
    lower = np.array([rounds.mde(rounds.noise_bound(s, n - 1, upper=False), n, 0.05, 20, 0.02) for s in sds[:400]])
    assert 0.85 <= np.mean(upper >= true) <= 0.95
    assert 0.85 <= np.mean(lower <= true) <= 0.95
    assert np.mean([rounds.noise_bound(s, n - 1) >= sigma for s in sds]) == pytest.approx(0.9, abs=0.02)


def test_mde_grows_with_comparisons_and_shrinks_with_rounds():
    assert rounds.mde(0.03, 6, 0.05, 28) > rounds.mde(0.03, 6, 0.05, 1)
    assert rounds.mde(0.03, 12, 0.05, 28) < rounds.mde(0.03, 6, 0.05, 28)
    assert rounds.mde(0.03, 1, 0.05, 28) is None


def test_spending_levels_sum_to_alpha_and_decrease():
    levels = rounds.spending_levels(0.05, 18)
    assert sum(levels) == pytest.approx(0.05)
    assert all(a > b > 0 for a, b in zip(levels, levels[1:]))


def test_round_shift_uses_every_sample_but_not_a_stray_one():
    base = [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]
    head = [1.1] * 9 + [50.0]
    assert rounds.round_shift(base, head) == pytest.approx(math.log(1.1))
    with pytest.raises(ValueError):
        rounds.round_shifts([base], [head, head])


def test_a_throughput_timed_otherwise_than_its_latency_is_a_question_of_its_own():
    # Google Benchmark: latency is wall time, items/s comes from CPU time; on a loaded machine the
    # wall time of the same repetitions swings while the CPU-time rate stays put.  Tied, the rate
    # decided both, and a wall-time regression (waiting, not computing) could never show.
    rng = np.random.default_rng(9)
    base, head = suite(rng, 8, benchmarks=4, target_effect=0.10, pair=0.01, within=0.02)
    for k in [k for k in base if k[1] == "latency"]:
        base[k] = [x * np.exp(rng.normal(0, 0.6)) for x in base[k]]      # preemption: whole rounds 2x off
        head[k] = [x * np.exp(rng.normal(0, 0.6)) for x in head[k]]
    c = compare_rounds(base, head, TH)
    thr = next(v for v in c.verdicts if (v.benchmark, v.measure) == ("bm0", "throughput"))
    lat = next(v for v in c.verdicts if (v.benchmark, v.measure) == ("bm0", "latency"))
    assert thr.verdict == "regression" and thr.effect < -0.05
    assert lat.verdict == "inconclusive" and lat.q_value != thr.q_value and not lat.note
    assert [p for p, _ in c.findings("regression")] == [thr] and not c.has_tied_pairs
    # 4 latencies, 4 throughputs and 4 instruction counts are 12 hypotheses
    assert any("0.05/12" in n for n in c.notes)


def test_a_delay_beside_a_rate_of_its_own_is_not_called_no_change():
    # executor-latency: a delay and the iterations per second its sleeps set.  The precise rate
    # stood for the delay, whose own interval reached +49%, and the delay read "no-change".
    rng = np.random.default_rng(5)
    base, head = suite(rng, 8, benchmarks=2, pair=0.01, within=0.02)
    for side in (base, head):        # whole rounds off by the machine: a delay too noisy to decide
        side[("bm0", "latency")] = [[x * m for x in r] for r, m in
                                    zip(side[("bm0", "latency")], np.exp(rng.normal(0, 0.3, 8)))]
        side[("bm0", "throughput")] = [[1140.0 * (1 + 1e-5 * rng.normal())] for _ in range(8)]
    c = compare_rounds(base, head, TH)
    lat = next(v for v in c.verdicts if (v.benchmark, v.measure) == ("bm0", "latency"))
    assert lat.ci_high > 0.05 and lat.verdict == "inconclusive", (lat.ci_low, lat.ci_high, lat.verdict)
    # a throughput that is the latency's reciprocal is still one finding with it
    assert c.has_tied_pairs and len(c.findings("no-change")) + len(c.findings("inconclusive")) < len(c.verdicts)


def _recorded(name: str):
    import json

    doc = json.loads((ROOT / "tests" / "fixtures" / "check-rounds" / name).read_text())
    [check] = doc["checks"]
    return ({tuple(k.split("\t")): v for k, v in check["base"].items()},
            {tuple(k.split("\t")): v for k, v in check["head"].items()})


def test_reported_mde_is_what_simulation_on_the_runs_own_noise_at_its_bound_catches_80_percent_of_the_time():
    """Recorded A/A rounds of tree-alloc: for every benchmark's judged measure, plant effects in
    simulated checks drawn from that run's own rounds (rounds resampled, sides swapped at random),
    scaled to the noise's 90% upper bound, and find the effect caught 80% of the time at the
    level check uses; the reported MDE must be within a factor 1.5 of it."""
    from scipy import stats

    base, head = _recorded("tree-alloc-aa.json")
    c = compare_rounds(base, head, TH)
    judged = [v for v in c.verdicts if v.method == "paired-t-rounds" and not v.note.startswith("judged with")]
    hypotheses = sum(1 for v in c.verdicts if v.p_value is not None and not v.note.startswith("judged with"))
    assert len(judged) >= 8
    rng = np.random.default_rng(12)
    checked = 0
    for v in judged:
        key = (v.benchmark, v.measure)
        d = rounds.round_shifts(base[key], head[key])          # this run's own per-round noise
        n = d.size
        crit = 0.05 / hypotheses
        idx = rng.integers(0, n, (3000, n))
        signs = rng.choice((-1.0, 1.0), (3000, n))
        draws = signs * d[idx] * rounds.noise_bound(1.0, n - 1)

        def caught(effect: float) -> float:
            x = draws + math.log1p(effect)
            t = x.mean(1) / (x.std(1, ddof=1) / math.sqrt(n))
            p = 2 * stats.t.sf(np.abs(t), n - 1)
            return float(np.mean((p <= crit) & (np.expm1(x.mean(1)) >= v.threshold)))

        lo, hi = 0.0, 20.0
        for _ in range(40):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if caught(mid) < 0.8 else (lo, mid)
        simulated = hi
        assert simulated / 1.5 <= v.mde <= simulated * 1.5, (key, v.mde, simulated)
        checked += 1
    assert checked == len(judged)


def test_a_row_whose_medians_tell_another_story_than_its_paired_change_is_marked():
    """An audit read `squares 94.6 ms → 93.5 ms` beside a change of -5.48%, and a note under the
    table that did not say which rows it meant.  The machine slowed for the head's rounds in
    between; the paired change cancels that drift, the pooled medians do not."""
    from perfgate.report.markdown import comparison_markdown

    rng = np.random.default_rng(8)
    drift = [1.0, 1.0, 1.3, 1.3, 1.3, 1.0]          # both sides of rounds 3-5 ran on a slower machine
    base = {("drifting", "latency"): [list(1e6 * f * (1 + 0.01 * rng.standard_normal(10))) for f in drift],
            ("steady", "latency"): [list(1e6 * (1 + 0.01 * rng.standard_normal(10))) for _ in drift]}
    # head 1% faster in the same machine states, but its first round ran slow as well
    head = {("drifting", "latency"): [list(1e6 * f * (1.3 if r == 0 else 1.0) * 0.99 * (1 + 0.01 * rng.standard_normal(10)))
                                      for r, f in enumerate(drift)],
            ("steady", "latency"): [list(1e6 * (1 + 0.01 * rng.standard_normal(10))) for _ in drift]}
    c = compare_rounds(base, head, TH)
    by = {v.benchmark: v for v in c.verdicts}
    assert by["drifting"].medians_apart and not by["steady"].medians_apart
    text = c.render()
    [row] = [line for line in text.splitlines() if line.startswith("drifting")]
    assert "] †" in row and "†" not in next(line for line in text.splitlines() if line.startswith("steady"))
    assert any(n.startswith("† 1 row(s) where the base and head medians") for n in c.notes)
    assert "] †" in comparison_markdown(c)


def test_the_notes_name_each_measures_rounds_and_tie_only_measures_that_are_tied():
    """An audit's check: "with 3–8 rounds, a wall-time change is flagged …" — the 3 was peak RSS,
    measured in the probe rounds only — and "a throughput tied to its latency is one finding"
    with no throughput measured."""
    rng = np.random.default_rng(9)
    b, h = synthetic(rng, 8)
    rb, rh = synthetic(rng, 3)
    c = compare_rounds({("w", "latency"): b, ("w", "peak-rss"): rb}, {("w", "latency"): h, ("w", "peak-rss"): rh}, TH)
    assert any(n.startswith("with rounds latency 8, peak-rss 3, a change is flagged from p ≤") for n in c.notes)
    assert "throughput" not in c.render()
    tied = compare_rounds(*suite(rng, 6, benchmarks=2), TH)
    assert any(n.startswith("with 6 rounds, a change is flagged") for n in tied.notes)
    assert "a throughput tied to its latency is one finding" in tied.render()


def test_a_measure_that_dips_to_zero_is_judged_on_its_differences():
    # async-deinit's Δ columns (cost minus a baseline) go to or below zero: every such row read
    # "non-positive values; cannot compare relative changes", a 9× jump among them.
    rng = np.random.default_rng(8)
    base = {("pt", "total-ns"): [list(50_000 + 30_000 * rng.standard_normal(9)) for _ in range(8)],
            ("flat", "total-ns"): [list(50_000 + 30_000 * rng.standard_normal(9)) for _ in range(8)]}
    head = {("pt", "total-ns"): [list(450_000 + 30_000 * rng.standard_normal(9)) for _ in range(8)],
            ("flat", "total-ns"): [list(50_000 + 30_000 * rng.standard_normal(9)) for _ in range(8)]}
    base[("pt", "total-ns")][0][0] = -1_000.0                     # one sample below zero
    c = compare_rounds(base, head, TH)
    jump = next(v for v in c.verdicts if v.benchmark == "pt")
    assert jump.method == "paired-t-rounds-differences" and jump.verdict == "regression"
    assert 7 < jump.effect < 9 and jump.ci_low < jump.effect < jump.ci_high     # 400k over a 50k level
    # and in the column's own units, which a relative change of a Δ near zero does not convey
    absolute = jump.effect * jump.base_median
    assert 3.8e5 < absolute < 4.2e5 and jump.change_cell().endswith(
        f" (+{human(absolute, 'total-ns')} on a base of {human(jump.base_median, 'total-ns')})")
    assert jump.change_cell().endswith(" (+404 µs on a base of 47.1 µs)")   # total-ns: read "+404k on a base of 47.1k"
    flat = next(v for v in c.verdicts if v.benchmark == "flat")
    assert flat.verdict in ("no-change", "inconclusive") and flat.ci_low < 0 < flat.ci_high
    # a difference may pass −100% (50k to −20k): an interval all the same, not "unbounded"
    head[("flat", "total-ns")] = [list(-20_000 + 30_000 * rng.standard_normal(9)) for _ in range(8)]
    drop = next(v for v in compare_rounds(base, head, TH).verdicts if v.benchmark == "flat")
    assert drop.effect < -1 and drop.interval().startswith(" [-1") and "unbounded" not in drop.interval()


def test_a_rate_that_nearly_mirrors_its_latency_is_not_tied_and_counts_are_in_one_unit():
    # An audit: Google Benchmark's CPU-time rate mirrored its wall-time latency within 0.1% on a
    # quiet run (tied: 22 hypotheses) and not on a loaded one (28), and check and compare
    # disagreed on one pair; "8 of 28 inconclusive" counted tied pairs once above, twice below.
    rng = np.random.default_rng(12)
    base, head = suite(rng, 8, benchmarks=3, pair=0.01, within=0.02)
    for side in (base, head):
        for k in [k for k in side if k[1] == "throughput" and k[0] != "bm2"]:
            side[k] = [[x * (1 + 1e-4 * rng.standard_normal()) for x in r] for r in side[k]]
    c = compare_rounds(base, head, TH)
    tied = [v for v in c.verdicts if tied_to(c.verdicts, v) is not None]
    assert [(v.benchmark, v.measure) for v in tied] == [("bm2", "throughput")]     # the exact mirror only
    assert c.compared == len(c.verdicts) - 1 and len(c.inconclusive) <= c.compared
    assert f"among {c.compared} comparison(s)" in c.render()
