"""The scaling-benchmark TSV adapter: the seeds' format, the two-file layout, bad input.

The fixtures are synthetic (bench/complexity_synth.py; see tests/fixtures/scaling-tsv/README.md).
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from perfgate.adapters import parse_file, sniff
from perfgate.adapters import scaling_tsv as tsv
from perfgate.errors import InputError

HEADER = "# async_copy_array --values=1:200:linear --objects=100:50000:linear --points=3\n#\n"


def test_rows_with_parameters(fixtures):
    path = fixtures / "scaling-tsv" / "synthetic-vo.tsv"
    table = tsv.parse_table(path.read_text(), str(path))
    assert table.name == "synthetic_copy_array"
    assert list(table.params) == ["values", "objects"] and list(table.phases) == ["schedule", "total"]
    assert len(table) == 200 and table.unit == "ns" and not table.delta
    assert table.params["values"].min() >= 1 and table.params["values"].max() <= 200
    assert set(table.letters()) == {"v", "o"}
    assert table.lines[0] == 4  # data start after three comment lines


def test_seed_format_with_deltas_and_negative_times():
    text = HEADER + "# values objects Δschedule(ns) Δtotal(ns)\n103\t13917\t-161251\t161251\n8\t19278\t870707\t869083\n"
    table = tsv.parse_table(text, "d.tsv")
    assert table.delta and table.args.startswith("--values=1:200")
    assert table.phases["schedule"].tolist() == [-161251, 870707]
    assert sniff(text, "d.tsv").NAME == "scaling-tsv"


def test_inputs_file_plus_results_file(fixtures):
    d = fixtures / "scaling-tsv"
    inputs = tsv.parse_inputs((d / "synthetic-inputs.txt").read_text(), "inputs")
    results = tsv.parse_table((d / "synthetic-results-only.tsv").read_text(), "results")
    assert results.params == {}
    joined = tsv.combine(inputs, results, "inputs")
    whole = tsv.parse_table((d / "synthetic-vo.tsv").read_text(), "whole")
    assert np.array_equal(joined.params["objects"], whole.params["objects"])
    assert np.array_equal(joined.phases["total"], whole.phases["total"])


def test_inputs_and_results_of_different_lengths_are_refused():
    inputs = tsv.parse_inputs("1\t100\n2\t200\n", "in.txt")
    results = tsv.parse_table("# x\n#\n# total(ns)\n5\n", "res.tsv")
    with pytest.raises(InputError, match="1 result rows but in.txt has 2 input rows"):
        tsv.combine(inputs, results, "in.txt")


@pytest.mark.parametrize("body, place, reason", [
    ("# values objects total(ns)\n1\t100\t5\n2\t200\tfast\n", "line 5", "'fast' is not a number"),
    ("# values objects total(ns)\n1\t100\n", "line 4", "2 fields, expected 3"),
    ("# values objects total(ns)\n-1\t100\t5\n", "line 4", "parameter value -1 is negative"),
    ("# values objects total(ns)\n1\t100\tnan\n", "line 4", "not finite"),
    ("# values objects\n1\t100\n", "line 3", "no measurement column"),
    ("# values total(ns) total(us)\n1\t2\t3\n", "line 3", "mix units"),
    ("# values objects to/tal(ns)\n1\t2\t3\n", "line 3", "neither a parameter"),
])
def test_bad_rows_name_the_line_and_reason(body, place, reason):
    with pytest.raises(InputError) as e:
        tsv.parse_table(HEADER + body, "bad.tsv")
    assert e.value.source == "bad.tsv" and e.value.place == place and reason in e.value.reason


def test_no_data_and_no_column_line():
    with pytest.raises(InputError, match="no data rows"):
        tsv.parse_table(HEADER + "# total(ns)\n", "empty.tsv")
    with pytest.raises(InputError, match="column names"):
        tsv.parse_table("5\n6\n", "bare.tsv")


def test_ingest_metrics_group_repeated_points_as_samples(tmp_path):
    path = tmp_path / "r.tsv"
    path.write_text(HEADER + "# values objects Δschedule(ns) Δtotal(ns)\n"
                    "1\t100\t10\t20\n1\t100\t12\t24\n2\t300\t-5\t60\n")
    name, parsed = parse_file(str(path))
    assert name == "scaling-tsv"
    by = {(m.benchmark, m.measure): m for m in parsed.metrics}
    repeated = by[("async_copy_array/values=1,objects=100", "total-ns")]
    assert repeated.value == 22 and repeated.samples == (20.0, 24.0) and (repeated.lower, repeated.upper) == (20, 24)
    single = by[("async_copy_array/values=2,objects=300", "schedule-ns")]
    assert single.value == -5 and single.samples == () and single.attrs["parameters"] == {"values": 2, "objects": 300}
    assert parsed.context["delta"] is True


def test_ingest_refuses_a_results_file_without_parameters(fixtures):
    with pytest.raises(InputError, match="perfgate fit INPUTS RESULTS"):
        parse_file(str(fixtures / "scaling-tsv" / "synthetic-results-only.tsv"))


def test_ingest_cli_records_every_point(cli, fixtures):
    proc = cli("ingest", str(fixtures / "scaling-tsv" / "synthetic-vo.tsv"), "--branch", "main", "--commit", "a1",
               "--json", check=True)
    assert json.loads(proc.stdout)["metrics"] == 2 * 200  # no repeated points in this file
