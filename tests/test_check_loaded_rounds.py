"""``perfgate check`` leaves out the wall time of rounds measured under load (either side), the
same rounds of both sides so they stay paired, while most rounds were quiet: one head run slowed
2.5x by other jobs among eight otherwise equal rounds left the row undecided.  Judged on the
suite results the command collects (``SuiteResult`` with the load ``run_suite`` records)."""

from __future__ import annotations

import argparse

import numpy as np

from perfgate import host_load
from perfgate.commands.check import FIRST_LOOK, Plan, _load_note, _rounds, judge
from perfgate.containers.runner import SuiteResult
from perfgate.detect.compare import compare_rounds
from perfgate.detect.load_hold import rounds_left_out
from perfgate.model import Metric
from perfgate.thresholds import load_thresholds


def _results(loads: list[float], slow: list[float], seed: int) -> list[SuiteResult]:
    """One suite's rounds: latency ~1 ms in 1% noise (5 samples a round) times ``slow``, an exact
    instruction count, each round with its load as run_suite records it."""
    rng = np.random.default_rng(seed)
    out = []
    for load, factor in zip(loads, slow):
        samples = tuple(float(x) for x in 1e6 * factor * np.exp(0.01 * rng.standard_normal(5)))
        out.append(SuiteResult([Metric("b", "latency", float(np.median(samples)), samples=samples),
                                Metric("b", "instructions", 1e9)],
                               {"suite": "spin", "variant": "", host_load.KEY: {host_load.CONTENDED: load, "cpus": 1}}))
    return out


QUIET8 = [0.02] * 8


def test_a_head_round_slowed_by_load_is_left_out_and_the_row_is_decided():
    head_loads = QUIET8[:3] + [0.6] + QUIET8[4:]
    results = {"base": _results(QUIET8, [1.0] * 8, 1),
               "head": _results(head_loads, [1.0] * 3 + [2.5] + [1.0] * 4, 2)}
    rounds = _rounds(results)
    assert len(rounds["base"][("b", "latency")]) == len(rounds["head"][("b", "latency")]) == 7
    assert len(rounds["head"][("b", "instructions")]) == 8       # not wall time: every round counts
    verdict = {v.measure: v for v in compare_rounds(rounds["base"], rounds["head"], load_thresholds(None)).verdicts}
    assert verdict["latency"].verdict == "no-change"
    # as measured, the loaded round alone leaves it undecided: a PR check that cannot say, and a
    # sequential one that runs to its last round
    from perfgate.commands.check import per_round
    measured = compare_rounds(per_round(results["base"]), per_round(results["head"]), load_thresholds(None))
    assert {v.measure: v.verdict for v in measured.verdicts}["latency"] == "inconclusive"
    note = _load_note(results)
    assert note.startswith("measured under load (other processes took that share of the CPU the suite needed): "
                           "spin round 4 head (60%); the wall time of those rounds is left out on both sides")


def test_a_regression_is_still_read_on_the_quiet_rounds():
    results = {"base": _results([0.5] + QUIET8[1:], [1.0] * 8, 3), "head": _results(QUIET8, [1.2] * 8, 4)}
    rounds = _rounds(results)
    assert len(rounds["base"][("b", "latency")]) == 7
    verdict = {v.measure: v for v in compare_rounds(rounds["base"], rounds["head"], load_thresholds(None)).verdicts}
    assert verdict["latency"].verdict == "regression"


def test_rounds_are_judged_as_measured_when_most_were_loaded_or_none_was():
    assert rounds_left_out("latency", [0.6] * 5 + [0.0] * 3, [0.0] * 8) == []         # the machine's normal
    assert rounds_left_out("latency", [0.6, 0.6, 0.0], [0.0, 0.0, 0.0]) == []          # one quiet round left
    assert rounds_left_out("latency", [0.6, 0.0, 0.0], [0.0, 0.0, 0.3]) == []          # one quiet round left
    assert rounds_left_out("latency", [0.6, 0.0, 0.0, 0.0], [0.0, 0.0, 0.3, 0.0]) == []  # 2 quiet, 2 loaded
    assert rounds_left_out("latency", [0.6, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.3, 0.0, None]) == [0, 2]
    assert rounds_left_out("instructions", [0.6] + [0.0] * 7, [0.0] * 8) == []
    assert rounds_left_out("latency", [None] * 8, [None] * 8) == []
    results = {"base": _results([0.6] * 6 + [0.0] * 2, [1.0] * 8, 5), "head": _results(QUIET8, [1.0] * 8, 6)}
    assert len(_rounds(results)["base"][("b", "latency")]) == 8
    assert "most rounds were, or too few quiet ones are left: wall time is judged as measured" in _load_note(results)
    assert _load_note({"base": _results(QUIET8, [1.0] * 8, 7), "head": _results(QUIET8, [1.0] * 8, 8)}) == ""


def test_a_sequential_check_keeps_measuring_a_row_whose_newest_round_was_left_out():
    """The look after a loaded round: the latency row has no new judged round, but it was measured
    in it, so it is still a row the next round is for (not a decided one, nor one that stopped
    being measured, as an instruction count after its probe rounds)."""
    plan = Plan.from_args(argparse.Namespace(alpha=0.05, budget=None, max_rounds=8, rounds=None))
    loads = QUIET8[:FIRST_LOOK - 1] + [0.7]
    # a 3% difference in 5% round-to-round noise: inconclusive after three rounds
    results = {"base": _results(QUIET8[:FIRST_LOOK], [1.0, 1.05, 0.95], 9),
               "head": _results(loads, [1.03, 0.98, 2.0], 10)}
    measured = {("b", "latency"): FIRST_LOOK, ("b", "instructions"): FIRST_LOOK}
    comparison, decided, look = judge(_rounds(results), load_thresholds(None), plan, {}, {}, measured)
    latency = {v.measure: v for v in comparison.verdicts}["latency"]
    assert latency.rounds == FIRST_LOOK - 1 and latency.verdict == "inconclusive"
    assert not decided and look["undecided"] == 1 and look["round"] == FIRST_LOOK


def test_rounds_past_a_thousand_and_cpus_this_machine_has_not_are_refused(cli, tmp_path):
    # `--rounds 99999999999999999999999` ran 343 rounds before it was killed; `--cpuset 7` on a
    # 2-CPU machine, or an empty one, failed only at `docker run`, after the images were built
    import os

    proc = cli("check", "--base", "HEAD", "--head", "HEAD", "--rounds", "99999999999999999999999", cwd=tmp_path)
    assert proc.returncode == 2 and "--rounds must be at most 1,000" in proc.stderr, proc.stderr
    proc = cli("check", "--base", "HEAD", "--head", "HEAD", "--max-rounds", "5000", cwd=tmp_path)
    assert proc.returncode == 2 and "--max-rounds must be at most 1,000" in proc.stderr, proc.stderr
    beyond = max(os.sched_getaffinity(0)) + 1
    for bad, said in ((str(beyond), f"CPU {beyond} is not one this machine lets perfgate use"),
                      ("", "'' is no CPU list"), ("3-1", "'3-1' is no CPU list")):
        proc = cli("run", "--cpuset", bad, cwd=tmp_path)
        assert proc.returncode == 2 and said in proc.stderr, proc.stderr
