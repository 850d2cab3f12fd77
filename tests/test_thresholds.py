"""thresholds/ files and the Bencher-compatible threshold tests' boundary maths."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import norm, t as student_t

from perfgate.detect.threshold_tests import evaluate_series, judge, limits
from perfgate.errors import InputError
from perfgate.thresholds import ChangePointSettings, ThresholdTest, load_thresholds

from conftest import ROOT

H = [100.0, 102.0, 98.0, 101.0, 99.0, 100.0]


def test_repository_defaults_load_and_layer():
    th = load_thresholds(ROOT / "thresholds")
    lat = th.for_series("anything", "latency")
    assert lat.test == ThresholdTest("t_test", 10, 64, None, None, 0.99, consecutive=2)
    assert th.for_series("x", "instructions").test.consecutive == 1
    assert lat.change_point.min_effect == 0.02 and lat.change_point.confidence == 0.99
    assert th.for_series("x", "unknown-measure").test is None
    assert th.for_series("x", "unknown-measure").change_point.min_effect == 0.005   # file-wide [change_point]
    assert set(th.measure_tests()) >= {"latency", "instructions", "throughput"}


def test_benchmark_overrides_measure(tmp_path):
    f = tmp_path / "t.toml"
    f.write_text('[measure.latency]\ntest = "z_score"\nupper_boundary = 0.95\n'
                 '[measure.latency.change_point]\nmin_effect = 0.03\n'
                 '[benchmark."sort 1e6".latency]\ntest = "percentage"\nupper_boundary = 0.1\n'
                 '[benchmark."sort 1e6".latency.change_point]\nconfidence = 0.999\n')
    th = load_thresholds(f)
    s = th.for_series("sort 1e6", "latency")
    assert s.test == ThresholdTest("percentage", upper_boundary=0.1)
    assert s.change_point == ChangePointSettings(min_effect=0.03, confidence=0.999)
    assert th.for_series("other", "latency").test.test == "z_score"


def test_yaml_and_directory_order(tmp_path):
    (tmp_path / "default.toml").write_text('[measure.latency]\ntest = "iqr"\nupper_boundary = 1.5\n')
    (tmp_path / "zz.yaml").write_text("measure:\n  latency:\n    test: static\n    upper_boundary: 5.0\n")
    assert load_thresholds(tmp_path).for_series("b", "latency").test == ThresholdTest("static", upper_boundary=5.0)


@pytest.mark.parametrize("text, place, reason", [
    ('[measure.latency]\ntest = "median"\nupper_boundary = 1\n', "measure.latency.test", "not a threshold test"),
    ('[measure.latency]\nconsecutive = 2\n', "measure.latency", "missing key `test`: name the threshold test"),
    ('[measure.latency]\ntest = "t_test"\nupper_boundary = 1.5\n', "measure.latency.upper_boundary", "[0.5, 1)"),
    ('[measure.latency]\ntest = "t_test"\n', "measure.latency", "needs lower_boundary"),
    ('[measure.latency]\ntest = "percentage"\nupper_boundary = -1\n', "upper_boundary", "negative"),
    ('[measure.latency]\ntest = "t_test"\nupper_boundary = 0.9\nmax_sample_size = 1\n', "max_sample_size", "from 2 to"),
    ('[measure.latency]\ntest = "t_test"\nupper_boundary = 0.9\nconsecutive = 0\n', "consecutive", "from 1 to"),
    # an audit: 10^8 took detect 10 GB on a 12-run series, 10^20 a traceback (a PR can set it)
    ('[measure.latency]\ntest = "t_test"\nupper_boundary = 0.9\nmax_sample_size = 100000000\n', "max_sample_size",
     "from 2 to 1,000,000, got 100000000"),
    ('[measure.latency]\ntest = "t_test"\nupper_boundary = 0.9\nmax_sample_size = 99999999999999999999\n',
     "max_sample_size", "from 2 to 1,000,000"),
    ('[change_point]\nmin_segment = 10000000\n', "change_point.min_segment", "from 2 to 1,000,000"),
    ('[change_point]\nmin_efect = 0.1\n', "change_point", "unknown key 'min_efect'"),
    ('[change_point]\nconfidence = 1.0\n', "change_point.confidence", "confidence level"),
    ('[measure.latency\n', "", "not valid TOML"),
])
def test_bad_files_name_file_place_and_reason(tmp_path, text, place, reason):
    f = tmp_path / "bad.toml"
    f.write_text(text)
    with pytest.raises(InputError) as e:
        load_thresholds(f)
    assert str(f) in str(e.value) and place in str(e.value) and reason in str(e.value)


def test_missing_path():
    with pytest.raises(InputError, match="no such thresholds"):
        load_thresholds("/nonexistent/thresholds.toml")


@pytest.mark.parametrize("target", ["/dev/zero", "/nonexistent"])
def test_a_thresholds_path_that_is_there_but_no_file_is_not_called_missing(target, tmp_path):
    # A link to /dev/zero (or a broken one) was "no such thresholds file or directory".
    link = tmp_path / "thresholds.toml"
    link.symlink_to(target)
    with pytest.raises(InputError, match=r"thresholds.toml: not a thresholds file or directory \(a device"):
        load_thresholds(link)


# --- boundary maths -----------------------------------------------------------------------------

def test_a_thresholds_folder_that_sets_nothing_leaves_the_defaults(tmp_path, monkeypatch):
    """An adopter's empty thresholds/ (or one with only complexity.toml) turned every threshold
    test off without a word: detect raised no threshold alert and the pages drew no band."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "thresholds").mkdir()
    assert load_thresholds().for_series("b", "latency").test.test == "t_test"
    (tmp_path / "thresholds" / "complexity.toml").write_text("[complexity]\n")
    assert load_thresholds().for_series("b", "latency").test.test == "t_test"
    # a folder that sets something is the project's own, whole
    (tmp_path / "thresholds" / "default.toml").write_text("[measure.latency]\ntest = 'static'\nupper_boundary = 5.0\n")
    assert load_thresholds().for_series("b", "latency").test.test == "static"
    assert load_thresholds().for_series("b", "instructions").test is None


def test_static_and_percentage():
    static = limits(ThresholdTest("static", lower_boundary=1, upper_boundary=9), [])
    assert (static.baseline, static.lower, static.upper) == (None, 1, 9)
    assert judge(ThresholdTest("static", upper_boundary=9), [], 9.5).alert == "upper"
    lim = limits(ThresholdTest("percentage", lower_boundary=0.1, upper_boundary=0.2), H)
    assert lim.baseline == pytest.approx(100.0)
    assert (lim.lower, lim.upper) == pytest.approx((90.0, 120.0))


def test_z_score_and_t_test():
    m, s = np.mean(H), np.std(H, ddof=1)
    z = limits(ThresholdTest("z_score", lower_boundary=0.9, upper_boundary=0.99), H)
    assert (z.lower, z.upper) == pytest.approx((m - norm.ppf(0.9) * s, m + norm.ppf(0.99) * s))
    t = limits(ThresholdTest("t_test", upper_boundary=0.99), H)
    # Bencher's t-test is a prediction interval for one new value: widened by sqrt(1 + 1/n).
    widen = math.sqrt(1 + 1 / len(H))
    assert t.upper == pytest.approx(m + student_t.ppf(0.99, len(H) - 1) * s * widen) and t.lower is None
    assert t.upper > z.upper                         # fat tails for a small baseline


def test_log_normal():
    logs = np.log(H)
    lim = limits(ThresholdTest("log_normal", upper_boundary=0.95), H)
    assert lim.upper == pytest.approx(math.exp(logs.mean() + norm.ppf(0.95) * logs.std(ddof=1)))
    assert limits(ThresholdTest("log_normal", upper_boundary=0.95), [1.0, -1.0, 2.0]) is None


def test_iqr_and_delta_iqr():
    # Bencher's limits sit around the median (not Tukey's fences around Q1 and Q3).
    q1, q2, q3 = np.percentile(H, [25, 50, 75])
    lim = limits(ThresholdTest("iqr", lower_boundary=1.5, upper_boundary=3), H)
    assert (lim.lower, lim.upper) == pytest.approx((q2 - 1.5 * (q3 - q1), q2 + 3 * (q3 - q1)))
    d = np.abs(np.diff(H) / np.array(H[:-1]))
    d1, d3 = np.percentile(d, [25, 75])
    lim = limits(ThresholdTest("delta_iqr", upper_boundary=1.0), H)
    assert lim.upper == pytest.approx(q2 * (1 + (d3 - d1)))


def test_sample_sizes():
    t = ThresholdTest("t_test", upper_boundary=0.99, min_sample_size=5)
    assert limits(t, H[:4]) is None and limits(t, H[:5]) is not None
    assert judge(t, H[:4], 1e9).alert is None          # too little history: no verdict
    t = ThresholdTest("percentage", upper_boundary=0.05, max_sample_size=2)
    res = evaluate_series(t, [100.0, 100.0, 100.0, 200.0, 200.0, 104.0, 106.0])
    assert [r.baseline_size for r in res] == [0, 1, 2, 2, 2, 2, 2]


def test_window_in_seconds():
    t = ThresholdTest("percentage", upper_boundary=0.05, window=100)
    res = evaluate_series(t, [100.0, 200.0, 201.0], times=[0.0, 50.0, 300.0])
    assert res[1].alert == "upper" and res[2].limits is None     # the old baseline fell out of the window


def test_alerted_values_never_widen_their_own_baseline():
    """Bencher would include 130 in the baseline after it alerted; its t-test limit then rises
    and the next 130s pass.  perfgate keeps judging them against the clean history."""
    t = ThresholdTest("t_test", upper_boundary=0.99)
    values = [100.0, 101.0, 99.0, 100.0, 102.0, 98.0, 100.0, 130.0, 130.0, 130.0, 130.0]
    res = evaluate_series(t, values)
    assert [r.alert for r in res[7:]] == ["upper"] * 4
    assert all(r.baseline_size == 7 for r in res[7:])
    # What including them would have done (Bencher's behaviour): the fourth 130 passes.
    assert judge(t, values[:10], 130.0).alert is None


def test_a_project_without_thresholds_is_judged_by_perfgates_defaults(tmp_path, monkeypatch):
    """Installed or run from a checkout, a project with no thresholds/ gets perfgate's own
    thresholds/default.toml: its check judged instructions, latency and peak RSS all at 2% (the
    dataclass's default), and its compare by perfgate's checkout's files, when there was one."""
    from pathlib import Path

    from perfgate.thresholds import BUILT_IN, BUILT_IN_SOURCE

    monkeypatch.chdir(tmp_path)
    got = load_thresholds()
    shipped = load_thresholds(Path(__file__).resolve().parents[1] / "thresholds" / "default.toml")
    assert got.source == BUILT_IN_SOURCE and BUILT_IN.read_bytes() == Path(shipped.source).read_bytes()
    for measure, effect in (("instructions", 0.001), ("latency", 0.02), ("peak-rss", 0.05)):
        assert got.for_series("b", measure) == shipped.for_series("b", measure)
        assert got.for_series("b", measure).change_point.min_effect == effect
