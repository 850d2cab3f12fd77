"""`perfgate detect --series FILE`: CSV and JSON forms, the batch form's order, bad input."""

from __future__ import annotations

import json

import numpy as np
import pytest

from disturbed_runs import means, runs
from perfgate.series_files import read_series_file
from perfgate.errors import InputError


def stepped(n: int, at: int, factor: float, seed: int) -> list[float]:
    x = 100 * (1 + 0.01 * np.random.default_rng(seed).standard_normal(n))
    x[at:] *= factor
    return [float(v) for v in x]


def test_csv_value_column(cli, tmp_path):
    f = tmp_path / "s.csv"
    f.write_text("value\n" + "\n".join(map(str, stepped(100, 64, 1.1, 1))) + "\n")
    proc = cli("detect", "--series", str(f), "--json")
    assert proc.returncode == 1, proc.stderr          # a regression (lower is better by default)
    out = json.loads(proc.stdout)
    assert [c["index"] for c in out["change_points"]] == [64] and out["points"] == 100
    text = cli("detect", "--series", str(f))
    assert "change at index 64" in text.stdout and "regression" in text.stdout
    # its interval at the change point settings' confidence, named so (a threshold streak's is 95%)
    [cp] = out["change_points"]
    assert cp["ci_level"] == 0.99
    assert f"(99% CI [{cp['ci_low'] * 100:+.2f}%, {cp['ci_high'] * 100:+.2f}%])" in text.stdout


def test_csv_index_column_is_reported_and_sorted(cli, tmp_path):
    values = stepped(80, 30, 0.9, 2)
    rows = [f"{1000 + i},{v}" for i, v in enumerate(values)]
    f = tmp_path / "s.csv"
    f.write_text("index,value\n" + "\n".join(reversed(rows)) + "\n")     # out of order on purpose
    proc = cli("detect", "--series", str(f), "--json")
    assert proc.returncode == 0, proc.stderr          # an improvement
    [cp] = json.loads(proc.stdout)["change_points"]
    assert cp["index"] == 1030 and cp["direction"] == "improvement"


def test_csv_commit_column_names_the_change_and_the_commit_before_it(cli, tmp_path):
    """An audit: a CSV with a `commit` column reported its change as "index 25" only."""
    values = stepped(60, 25, 1.1, 1)
    sha = [f"{i:02d}" + "ab" * 19 for i in range(60)]
    rows = [f"{100 + i},{sha[i]},2026-11-{1 + i % 28:02d},{v}" for i, v in enumerate(values)]
    f = tmp_path / "s.csv"
    f.write_text("index,commit,date,value\n" + "\n".join(reversed(rows)) + "\n")   # the index orders them
    proc = cli("detect", "--series", str(f), "--json")
    assert proc.returncode == 1, proc.stderr
    [cp] = json.loads(proc.stdout)["change_points"]
    assert cp["index"] == 125 and cp["first_commit"] == sha[25] and cp["previous_commit"] == sha[24]
    assert cp["commit_range"] == sha[cp["index_low"] - 100:cp["index_high"] - 99]
    assert cp["first_time"] == "2026-11-26" and cp["previous_time"] == "2026-11-25"
    text = cli("detect", "--series", str(f)).stdout
    assert f"commit {sha[25][:12]} (2026-11-26), after {sha[24][:12]} (2026-11-25)" in text, text
    f.write_text("commit,value\n" + "\n".join(f"{c},{v}" for c, v in zip(sha, values)) + "\n")   # no index
    [cp] = json.loads(cli("detect", "--series", str(f), "--json").stdout)["change_points"]
    assert cp["index"] == 25 and cp["first_commit"] == sha[25] and "first_time" not in cp
    f.write_text("commit,value\nabc,1\n ,2\n")
    bad = cli("detect", "--series", str(f))
    assert bad.returncode == 2 and "line 3" in bad.stderr and "empty `commit`" in bad.stderr


def test_measure_direction(cli, tmp_path):
    f = tmp_path / "s.json"
    f.write_text(json.dumps(stepped(80, 40, 0.85, 3)))
    proc = cli("detect", "--series", str(f), "--measure", "throughput", "--json")
    assert proc.returncode == 1 and json.loads(proc.stdout)["change_points"][0]["direction"] == "regression"


def test_batch_keeps_order(cli, tmp_path):
    batch = [stepped(60, 20, 1.2, 4), [5.0] * 40, stepped(90, 70, 1.3, 5), stepped(50, 10, 1.0, 6)]
    f = tmp_path / "batch.json"
    f.write_text(json.dumps(batch))
    proc = cli("detect", "--series", str(f), "--json")
    out = json.loads(proc.stdout)
    assert isinstance(out, list) and [r["points"] for r in out] == [60, 40, 90, 50]
    assert [[c["index"] for c in r["change_points"]] for r in out] == [[20], [], [70], []]
    assert proc.returncode == 1


@pytest.mark.parametrize("name, text, place, reason", [
    ("a.csv", "time,val\n1,2\n", "line 1", "no `value` column"),
    ("b.csv", "value\n1.0\nfast\n", "line 3", "not a number"),
    ("c.json", "[1, 2, \"x\"]", "[2]", "finite number"),
    ("d.json", "[[1, 2], [3, NaN]]", "[1][1]", "finite number"),
    ("e.json", "{\"values\": [1]}", "", "JSON list"),
    ("f.json", "[1, 2", "line 1", "not valid JSON"),
    ("g.csv", "index,value\n1,2\n1,3\n", "", "appears twice"),
    ("h.csv", "value\n", "", "no values"),
    ("i.json", "[1, {\"value\": 2, \"sample\": [1]}]", "[1]", "unknown key 'sample'"),
    ("j.json", "[1, {\"samples\": [1]}]", "[1].value", "finite number"),
    ("k.json", "[[1], [{\"value\": 2, \"samples\": [1, \"x\"]}]]", "[1][0].samples[1]", "finite number"),
    ("l.json", "[{\"value\": 2, \"samples\": 3}]", "[0].samples", "list of numbers"),
])
def test_bad_series_files_name_file_place_reason(tmp_path, name, text, place, reason):
    f = tmp_path / name
    f.write_text(text)
    with pytest.raises(InputError) as e:
        read_series_file(f)
    assert str(f) in str(e.value) and place in str(e.value) and reason in str(e.value)


def test_bad_series_file_through_the_cli(cli, tmp_path):
    f = tmp_path / "b.csv"
    f.write_text("value\n1.0\nfast\n")
    proc = cli("detect", "--series", str(f))
    assert proc.returncode == 2 and proc.stdout == ""
    assert f"{f}:line 3: value 'fast' is not a number" in proc.stderr
    missing = cli("detect", "--series", str(tmp_path / "nope.csv"))
    assert missing.returncode == 2 and "no such file" in missing.stderr


def test_higher_is_better_makes_a_throughput_collapse_a_regression(cli, tmp_path):
    f = tmp_path / "ops.json"
    f.write_text(json.dumps(stepped(120, 70, 0.6, 7)))        # ops/s fall by 40%
    default = cli("detect", "--series", str(f), "--json")
    assert default.returncode == 0 and json.loads(default.stdout)["change_points"][0]["direction"] == "improvement"
    higher = cli("detect", "--series", str(f), "--higher-is-better", "--json")
    assert higher.returncode == 1, higher.stderr
    [cp] = json.loads(higher.stdout)["change_points"]
    assert cp["index"] == 70 and cp["direction"] == "regression" and cp["magnitude"] < -0.3
    # an explicit direction overrides the measure's
    lower = cli("detect", "--series", str(f), "--measure", "throughput", "--lower-is-better", "--json")
    assert lower.returncode == 0 and json.loads(lower.stdout)["change_points"][0]["direction"] == "improvement"
    both = cli("detect", "--series", str(f), "--higher-is-better", "--lower-is-better")
    assert both.returncode == 2


@pytest.mark.parametrize("name, text, reason", [
    ("big.json", "[1, 2, " + "9" * 400 + "]", "finite number"),
    ("deep.json", "[" * 100_000 + "]" * 100_000, "nested too deeply"),
    ("deepobj.json", "[1, " + "{\"a\": " * 100_000 + "1" + "}" * 100_000 + "]", "nested too deeply"),
    ("longint.json", "[1, " + "9" * 5000 + "]", "not valid JSON"),
    ("bigcsv.csv", "value\n1\n" + "9" * 400 + "\n", "not finite"),
    ("longfield.csv", "value\n1\n" + "9" * 200_000 + "\n", "not a readable CSV"),
])
def test_hostile_series_files_are_a_clear_exit_2(cli, tmp_path, name, text, reason):
    f = tmp_path / name
    f.write_text(text)
    with pytest.raises(InputError) as e:
        read_series_file(f)
    assert str(f) in str(e.value) and reason in str(e.value) and len(str(e.value)) < 300
    proc = cli("detect", "--series", str(f))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr and reason in proc.stderr


def test_csv_duplicate_index_check_is_linear(tmp_path):
    import time

    f = tmp_path / "s.csv"
    rows = [f"{i},{100 + i % 7}" for i in range(20_000)] + ["7,100"]
    f.write_text("index,value\n" + "\n".join(rows) + "\n")
    start = time.perf_counter()
    with pytest.raises(InputError) as e:
        read_series_file(f)
    assert time.perf_counter() - start < 2.0
    assert "line 20002" in str(e.value) and "index 7 appears twice (first on line 9)" in str(e.value)
    f.write_text("index,value\n" + "\n".join(rows[:-1]) + "\n")
    start = time.perf_counter()
    _, [(labels, values, samples, _, _)] = read_series_file(f)
    assert time.perf_counter() - start < 2.0 and len(values) == 20_000 and labels[:3] == [0, 1, 2] and samples is None


def test_small_instruction_count_step_policy(cli, tmp_path):
    # a 0.3% step in a near-deterministic series: reported for instruction counts (min_effect 0.1%),
    # not for a series of unknown measure (the file-wide 0.5%)
    rng = np.random.default_rng(21)
    x = np.round(2_000_000 * (1 + rng.integers(-3, 4, 200) / 1e6))
    x[120:] = np.round(x[120:] * 1.003)
    f = tmp_path / "instr.json"
    f.write_text(json.dumps(x.tolist()))
    instr = cli("detect", "--series", str(f), "--measure", "instructions", "--json")
    assert instr.returncode == 1, instr.stderr
    assert [c["index"] for c in json.loads(instr.stdout)["change_points"]] == [120]
    plain = cli("detect", "--series", str(f), "--json")
    assert plain.returncode == 0 and json.loads(plain.stdout)["change_points"] == []


def test_points_with_raw_samples(cli, tmp_path):
    # 150 runs, runs 70-79 disturbed: samples 8x wider and 6% slower; no change in the code
    samples_of_runs = runs(2)
    plain = tmp_path / "plain.json"
    plain.write_text(json.dumps(means(samples_of_runs)))
    with_samples = tmp_path / "samples.json"
    with_samples.write_text(json.dumps([{"value": v, "samples": r} for v, r in zip(means(samples_of_runs), samples_of_runs)]))
    blind = json.loads(cli("detect", "--series", str(plain), "--json").stdout)
    assert [c["index"] for c in blind["change_points"] if 65 <= c["index"] <= 85]
    seen = cli("detect", "--series", str(with_samples), "--json")
    assert seen.returncode == 0, seen.stderr
    assert json.loads(seen.stdout)["change_points"] == []
    _, [(_, values, samples, _, _)] = read_series_file(with_samples)
    assert len(values) == len(samples) == 150 and list(samples[0]) == samples_of_runs[0]


def test_csv_points_with_raw_samples(cli, tmp_path):
    # the same disturbed runs as a CSV with a `samples` column (rows shuffled: the index orders them)
    samples_of_runs = runs(2)
    order = np.random.default_rng(0).permutation(len(samples_of_runs))
    rows = [f"{i},{float(np.mean(samples_of_runs[i]))!r},{' '.join(map(repr, samples_of_runs[i]))}" for i in order]
    f = tmp_path / "samples.csv"
    f.write_text("index,value,samples\n" + "\n".join(rows) + "\n")
    _, [(labels, values, samples, _, _)] = read_series_file(f)
    assert labels == list(range(150)) and list(samples[5]) == samples_of_runs[5] and values[5] == np.mean(samples_of_runs[5])
    seen = cli("detect", "--series", str(f), "--json")
    assert seen.returncode == 0 and json.loads(seen.stdout)["change_points"] == [], seen.stdout
    f.write_text("value,samples\n1.0,1.0;1.1 0.9\n2.0,\n")          # `;` or spaces; empty: none
    assert [list(s) for s in read_series_file(f)[1][0][2]] == [[1.0, 1.1, 0.9], []]
    f.write_text("value,samples\n1.0,1.0 1.1\n1.0,1.0 fast\n")
    bad = cli("detect", "--series", str(f))
    assert bad.returncode == 2 and "line 3" in bad.stderr and "sample 2 'fast' is not a number" in bad.stderr
    f.write_text("value,samples\n1.0,1.0 inf\n")
    assert "sample 2 'inf' is not finite" in cli("detect", "--series", str(f)).stderr


def test_thresholds_naming_no_series_are_warned_of_with_the_likely_name(cli, tmp_path):
    # An adopter's [measure.latncy] left latency without its test, and detect said nothing.
    (tmp_path / "b.json").write_text('{"fib": {"latency": {"value": 100.0}, "throughput": {"value": 5.0}}}')
    cli("ingest", str(tmp_path / "b.json"), "--branch", "main", "--commit", "abc1234", "--testbed", "t", check=True)
    (tmp_path / "t.toml").write_text('[measure.latncy]\ntest = "t_test"\nupper_boundary = 0.99\n'
                                     '[measure.peak-rss]\ntest = "t_test"\nupper_boundary = 0.99\n'
                                     '[benchmark."fibb".latency]\ntest = "t_test"\nupper_boundary = 0.99\n'
                                     '[benchmark."fib".throughput]\ntest = "t_test"\nlower_boundary = 0.99\n')
    proc = cli("detect", "--thresholds", str(tmp_path / "t.toml"))
    assert proc.returncode == 0, proc.stderr
    assert "[measure.latncy] matches no series in the store; did you mean 'latency'?" in proc.stderr
    assert "[benchmark.\"fibb\".latency] matches no series in the store; did you mean 'fib'?" in proc.stderr
    # a measure perfgate knows but this store does not measure yet, and a table that matches: no word
    assert "peak-rss" not in proc.stderr and "throughput" not in proc.stderr


def test_a_csv_series_with_a_bom_is_read_and_a_column_given_twice_is_refused(cli, tmp_path):
    # An audit: Excel's "CSV UTF-8" (a BOM first) read "no `value` column in header ['\\ufeffvalue']",
    # and `value,value` was taken silently.
    bom = tmp_path / "bom.csv"
    bom.write_bytes("\ufeffvalue\n".encode() + b"".join(b"%d\n" % v for v in [10] * 20 + [20] * 20))
    proc = cli("detect", "--series", str(bom), "--json")
    assert proc.returncode == 1 and json.loads(proc.stdout)["change_points"][0]["index"] == 20, proc.stderr
    twice = tmp_path / "twice.csv"
    twice.write_text("value,value\n10,11\n10,11\n")
    proc = cli("detect", "--series", str(twice))
    assert proc.returncode == 2 and "twice.csv:line 1: column `value` appears twice in the header" in proc.stderr
