"""bench/calibration.py: the data it draws, the helpers that speed it up, and each question's table."""

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
import calibration  # noqa: E402

from perfgate.detect import rounds as rounds_test  # noqa: E402
from perfgate.detect.compare import compare_rounds  # noqa: E402


def test_its_noise_has_the_spread_it_says():
    rng = np.random.default_rng(0)
    for dist, sd in (("gauss", 0.05), ("lognormal", 0.1), ("quiet", 0.01)):
        assert abs(calibration.noise(dist, rng, 20000).std() - sd) < 0.1 * sd
    spiky = calibration.noise("spiky", rng, 20000)
    assert 0.08 < np.mean(spiky > np.log(1.2)) < 0.12          # the preempted tenth
    bimodal = calibration.noise("bimodal", rng, 20000)
    assert 0.27 < np.mean(bimodal > np.log(1.1)) < 0.33
    with pytest.raises(ValueError):
        calibration.noise("uniform", rng, 3)


def test_rounds_move_only_the_head_and_only_by_the_effect_asked():
    base, head = calibration.rounds("gauss", 4, 3, np.random.default_rng(1), [0.10, 0.0])
    assert list(base) == [("b0", "latency"), ("b1", "latency")]
    assert all(len(base[k]) == len(head[k]) == 4 and all(len(r) == 3 for r in base[k]) for k in base)
    same = calibration.rounds("gauss", 4, 3, np.random.default_rng(1), [0.0, 0.0])
    assert same[0] == base                                       # the same draws: the effect is on the head alone
    ratio = np.array(head[("b0", "latency")]) / np.array(same[1][("b0", "latency")])
    assert np.allclose(ratio, 1.10) and same[1][("b1", "latency")] == head[("b1", "latency")]
    moved = calibration.moved(head, 2.0, ("b1", "latency"))
    assert moved[("b0", "latency")] is head[("b0", "latency")]
    assert np.allclose(np.array(moved[("b1", "latency")]) / np.array(head[("b1", "latency")]), 2.0)


def test_its_shortcuts_change_no_verdict_and_are_undone():
    base, head = calibration.rounds("quiet", 12, 5, np.random.default_rng(2), [0.05] + [0.0] * 5)
    plain = compare_rounds(base, head, calibration.TH, 0.01)
    real_shift, real_mde = rounds_test.round_shift, rounds_test.mde
    with calibration.mde_skipped(), calibration.shifts_remembered():
        quick = [compare_rounds({k: v[:n] for k, v in base.items()}, {k: v[:n] for k, v in head.items()},
                                calibration.TH, 0.01) for n in (10, 11, 12)][-1]
    assert rounds_test.round_shift is real_shift and rounds_test.mde is real_mde
    assert [(v.verdict, v.effect, v.ci_low, v.ci_high, v.p_value) for v in quick.verdicts] == \
        [(v.verdict, v.effect, v.ci_low, v.ci_high, v.p_value) for v in plain.verdicts]
    assert all(v.mde is None for v in quick.verdicts) and all(v.mde is not None for v in plain.verdicts)
    assert plain.verdicts[0].verdict == "regression"


@pytest.mark.parametrize("question", list(calibration.QUESTIONS))
def test_each_question_prints_its_table(question):
    out = subprocess.run([sys.executable, "bench/calibration.py", question, "--trials", "1", "--seed", "3"], cwd=ROOT,
                         capture_output=True, text=True, check=True, timeout=120).stdout
    _, make_jobs, _, title, columns = calibration.QUESTIONS[question]
    lines = out.splitlines()
    assert lines[0].startswith(f"{question}: {title} (seed 3, ")
    assert lines[1].split() == columns
    rows = lines[2:]
    assert len(rows) == len(make_jobs(1, 3))
    ends = [m.end() for m in re.finditer(r"\S+", lines[1])]      # cells are right-aligned under their names
    for row in rows:
        cells = dict(zip(columns, (row[start:end].strip() for start, end in zip([0] + [e + 2 for e in ends], ends))))
        assert cells["trials"] == "1"
        for column, cell in cells.items():
            if column in SHARES and cell not in ("", "-"):
                assert 0 <= float(cell) <= 1, (column, cell)
            elif column.startswith(("mde_median", "mde_p10")) and cell != "-":
                assert float(cell) > 0


SHARES = {"any_flag", "rows_flagged", "cover_0", "nochange_at_2pct", "no_mde",
          "mde_ge_true", "afresh_at_p10", "not_even_doubling", "afresh_doubling", "any_false", "fdr",
          "nochange", "power", "fixed8_any_false", "fixed8_power", "false_change", "found", "ci99_covers"}
