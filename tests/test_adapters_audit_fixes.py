"""Defects an ingest audit found in the adapters, each from a real fixture changed the way the
tester's input was: a result merged with another, lost, misnamed or misread is refused, told apart
or kept; and each refusal names the file and the place (``perfgate ingest`` exits 2)."""

from __future__ import annotations

import copy
import json
import os
import shutil
from pathlib import Path

import pytest

from perfgate.adapters import parse_file, scaling_tsv
from perfgate.errors import InputError
from test_adapters_bad_input import assert_refused

FIX = Path(__file__).resolve().parent / "fixtures"
GB = FIX / "google-benchmark" / "sort-accumulate.json"
ASV = FIX / "asv" / "results" / "fixture-machine" / "49e99810-virtualenv-py3.11.json"
BDN = FIX / "benchmarkdotnet" / "collection-bench-report-full.json"
CRITERION = FIX / "criterion" / "target" / "criterion"
GO_TAIL = "PASS\nok  \tx\t0.1s\n"


def _write_json(path: Path, doc) -> Path:
    path.write_text(json.dumps(doc, indent=1))
    return path


# --- google-benchmark: one run_name, one benchmark --------------------------------------------

def _gb_rows():
    doc = json.loads(GB.read_text())
    fill = next(r for r in doc["benchmarks"] if r["name"] == "BM_Fill")
    return doc, fill


def test_google_benchmark_two_benchmarks_registered_under_one_name_are_refused(tmp_path, store_path, capsys):
    doc, fill = _gb_rows()
    other = dict(fill, family_index=12, real_time=fill["real_time"] * 10)
    doc["benchmarks"].append(other)
    bad = _write_json(tmp_path / "gb.json", doc)
    place = f"benchmarks[{len(doc['benchmarks']) - 1}].family_index"
    assert_refused(bad, "google-benchmark", place, "another family_index", store_path, capsys)


def test_google_benchmark_two_instances_of_a_family_under_one_name_are_refused(tmp_path, store_path, capsys):
    doc, _ = _gb_rows()
    rows = doc["benchmarks"]
    # BM_Sort/1024 renamed as BM_Sort/256 (a Name() given twice): same family, another instance.
    second = next(i for i, r in enumerate(rows) if r["name"] == "BM_Sort/1024")
    rows[second].update(name="BM_Sort/256", run_name="BM_Sort/256")
    bad = _write_json(tmp_path / "gb.json", doc)
    assert_refused(bad, "google-benchmark", f"benchmarks[{second}].per_family_instance_index",
                   "another per_family_instance_index", store_path, capsys)


def test_google_benchmark_more_rows_than_repetitions_or_a_repetition_twice_are_refused(tmp_path, store_path,
                                                                                      capsys):
    doc, fill = _gb_rows()
    doc["benchmarks"].append(dict(fill))  # repetitions: 1, and a second row
    bad = _write_json(tmp_path / "gb.json", doc)
    assert_refused(bad, "google-benchmark", f"benchmarks[{len(doc['benchmarks']) - 1}]",
                   "more repetition rows than its repetitions (1) say", store_path, capsys)
    doc, _ = _gb_rows()
    rows = doc["benchmarks"]
    reps = [i for i, r in enumerate(rows)
            if r["run_name"] == "BM_Accumulate/repeats:5" and r["run_type"] == "iteration"]
    rows[reps[3]]["repetition_index"] = 1
    _write_json(bad, doc)
    assert_refused(bad, "google-benchmark", f"benchmarks[{reps[3]}].repetition_index", "repetition 1 of benchmark",
                   store_path, capsys)
    doc, _ = _gb_rows()
    mean = next(r for r in doc["benchmarks"] if r.get("aggregate_name") == "mean")
    doc["benchmarks"].append(dict(mean))
    _write_json(bad, doc)
    assert_refused(bad, "google-benchmark", f"benchmarks[{len(doc['benchmarks']) - 1}]", "the mean row of benchmark",
                   store_path, capsys)


def test_google_benchmark_fixtures_still_read():
    for path in (GB, FIX / "google-benchmark" / "aggregates-only.json"):
        _, parsed = parse_file(str(path), "google-benchmark")
        assert parsed.metrics


# --- go test -bench ----------------------------------------------------------------------------

def test_go_a_benchmark_reporting_only_mb_per_s_is_kept_as_bytes_per_second(tmp_path):
    path = tmp_path / "go.txt"
    path.write_text("pkg: x\nBenchmarkA-8\t100\t50 ns/op\t20.00 MB/s\n"
                    "BenchmarkOnlyRate-8\t100\t500 MB/s\nBenchmarkOnlyRate-8\t100\t400 MB/s\n" + GO_TAIL)
    _, parsed = parse_file(str(path), "go-bench")
    got = {(m.benchmark, m.measure): m for m in parsed.metrics}
    # Beside ns/op, MB/s repeats the latency and is left out, as before.
    assert set(got) == {("BenchmarkA-8", "latency"), ("BenchmarkOnlyRate-8", "bytes-per-second")}
    rate = got[("BenchmarkOnlyRate-8", "bytes-per-second")]
    assert rate.samples == (500e6, 400e6) and rate.value == 450e6   # Go's MB is 10**6 bytes
    path.write_text("pkg: x\nBenchmarkOnlyRate-8\t100\t-5 MB/s\n" + GO_TAIL)
    with pytest.raises(InputError, match=r"line 2 \(MB/s\): negative"):
        parse_file(str(path), "go-bench")


@pytest.mark.parametrize("unit", ["latency", "allocations", "allocated-bytes", "throughput", "bytes-per-second"])
def test_go_a_custom_unit_named_as_a_perfgate_measure_is_refused(unit, tmp_path, store_path, capsys):
    bad = tmp_path / "go.txt"
    bad.write_text(f"pkg: x\nBenchmarkA-8\t100\t50 ns/op\t7 {unit}\n" + GO_TAIL)
    assert_refused(bad, "go-bench", f"line 2 ({unit})", f"custom unit {unit!r} has the name of perfgate's measure",
                   store_path, capsys)


def test_go_a_unit_twice_on_one_line_is_refused(tmp_path, store_path, capsys):
    bad = tmp_path / "go.txt"
    bad.write_text("pkg: x\nBenchmarkA-8\t100\t50 ns/op\t60 ns/op\n" + GO_TAIL)
    assert_refused(bad, "go-bench", "line 2", "appears twice on one result line", store_path, capsys)


# --- asv: every benchmark type asv_runner knows -------------------------------------------------

@pytest.mark.parametrize("last,measure", [
    ("timeraw_import", "latency"), ("TimeSortCamel", "latency"), ("Time_sort", "latency"),
    ("TimerawImport", "latency"), ("MemList", "object-size"), ("PeakMemBytes", "peak-rss"),
    ("TrackCount", "track"),
])
def test_asv_accepts_timeraw_and_camel_case_benchmark_types(last, measure, tmp_path):
    doc = json.loads(ASV.read_text())
    row = copy.deepcopy(doc["results"]["bench_strings.time_sorted_range"])
    doc["results"] = {f"bench_strings.Suite.{last}": row}
    _, parsed = parse_file(str(_write_json(tmp_path / "asv.json", doc)), "asv")
    assert [(m.benchmark, m.measure) for m in parsed.metrics] == [(f"bench_strings.Suite.{last}", measure)]


@pytest.mark.parametrize("last", ["Timer", "timex", "Timesort", "time_", "Memo", "peakmemory", "tracking", "sample_x"])
def test_asv_refuses_what_asv_would_not_run_as_a_benchmark(last, tmp_path, store_path, capsys):
    doc = json.loads(ASV.read_text())
    doc["results"] = {f"bench.{last}": doc["results"]["bench_strings.time_sorted_range"]}
    bad = _write_json(tmp_path / "asv.json", doc)
    assert_refused(bad, "asv", f"results.bench.{last}", "unknown benchmark type", store_path, capsys)


# --- BenchmarkDotNet: one benchmark in several jobs -----------------------------------------------

def _two_jobs() -> dict:
    doc = json.loads(BDN.read_text())
    first = doc["Benchmarks"][0]
    second = copy.deepcopy(first)
    for bench, runtime in ((first, ".NET 8.0"), (second, ".NET 9.0")):
        bench["DisplayInfo"] = f"CollectionBench.SortList: {runtime}(Runtime={runtime}) [N=100]"
    second["Statistics"]["Mean"] *= 0.5
    second["Statistics"]["ConfidenceInterval"]["Lower"] *= 0.5
    second["Statistics"]["ConfidenceInterval"]["Upper"] *= 0.5
    second["Measurements"] = []
    second["Statistics"]["OriginalValues"] = [v * 0.5 for v in second["Statistics"]["OriginalValues"]]
    doc["Benchmarks"].insert(1, second)
    return doc


def test_benchmarkdotnet_a_benchmark_in_two_jobs_is_named_by_its_job(tmp_path):
    path = _write_json(tmp_path / "bdn.json", _two_jobs())
    _, parsed = parse_file(str(path), "benchmarkdotnet")
    latency = {m.benchmark: m for m in parsed.metrics if m.measure == "latency"}
    full = "Perfgate.Fixture.CollectionBench.SortList(N: 100)"
    net8, net9 = latency[f"{full} [.NET 8.0(Runtime=.NET 8.0)]"], latency[f"{full} [.NET 9.0(Runtime=.NET 9.0)]"]
    assert net9.value == pytest.approx(net8.value * 0.5)
    # A benchmark run in one job keeps its name: its series goes on.
    assert "Perfgate.Fixture.CollectionBench.SortList(N: 10000)" in latency


def test_benchmarkdotnet_one_benchmark_twice_in_one_job_is_still_refused(tmp_path, store_path, capsys):
    doc = _two_jobs()
    doc["Benchmarks"][1]["DisplayInfo"] = doc["Benchmarks"][0]["DisplayInfo"]
    bad = _write_json(tmp_path / "bdn.json", doc)
    assert_refused(bad, "benchmarkdotnet", "Benchmarks[1]", "appears twice (first at Benchmarks[0])",
                   store_path, capsys)


# --- scaling-tsv: exact point names -------------------------------------------------------------

@pytest.mark.parametrize("value,text", [
    (1234567.0, "1234567"), (1234568.0, "1234568"), (100.0, "100"), (0.5, "0.5"), (1e6, "1e+06"),
    (123456.0, "123456"), (0.1, "0.1"), (1.0000001, "1.0000001"), (2.0 ** 60, str(2 ** 60)), (-0.0, "0"),
])
def test_scaling_point_names_are_exact_and_keep_the_old_text_where_it_was(value, text):
    assert scaling_tsv.point_name("s", {"objects": value}) == f"s/objects={text}"
    assert float(text) == value


def test_scaling_points_that_the_old_names_merged_are_apart(tmp_path):
    path = tmp_path / "s.tsv"
    path.write_text("# scal --objects=big\n#\n# values objects total(ns)\n"
                    "1\t1234567\t100\n1\t1234568\t200\n1.0000001\t1e6\t300\n")
    _, parsed = parse_file(str(path), "scaling-tsv")
    assert [(m.benchmark, m.value) for m in parsed.metrics] == [
        ("scal/values=1,objects=1234567", 100.0), ("scal/values=1,objects=1234568", 200.0),
        ("scal/values=1.0000001,objects=1e+06", 300.0)]


def test_scaling_two_points_of_one_name_are_refused_naming_the_line(tmp_path, monkeypatch, store_path, capsys):
    # Names are exact now, so only a rounding name (as {v:g} was) can merge two points.
    monkeypatch.setattr(scaling_tsv, "_exact", lambda v: f"{v:g}")
    bad = tmp_path / "s.tsv"
    bad.write_text("# scal\n#\n# values objects total(ns)\n1\t1234567\t100\n1\t5\t100\n1\t1234568\t200\n")
    assert_refused(bad, "scaling-tsv", "line 6", "appears twice (first at line 4)", store_path, capsys)


# --- criterion: linked directories ---------------------------------------------------------------

def _criterion_copy(tmp_path: Path) -> Path:
    root = tmp_path / "target" / "criterion"
    shutil.copytree(CRITERION, root)
    return root


def test_criterion_a_linked_new_directory_is_read(tmp_path):
    root = _criterion_copy(tmp_path)
    cache = tmp_path / "cache" / "fib_recursive_15-new"
    cache.parent.mkdir()
    shutil.move(root / "fib_recursive_15" / "new", cache)
    (root / "fib_recursive_15" / "new").symlink_to(cache, target_is_directory=True)
    _, parsed = parse_file(str(root), "criterion")
    _, expected = parse_file(str(CRITERION), "criterion")
    assert sorted(m.benchmark for m in parsed.metrics) == sorted(m.benchmark for m in expected.metrics)
    assert "fib_recursive_15" in [m.benchmark for m in parsed.metrics]


def test_criterion_a_link_back_up_the_tree_is_not_walked_forever(tmp_path):
    root = _criterion_copy(tmp_path)
    (root / "fib_iterative" / "loop").symlink_to(root, target_is_directory=True)
    _, parsed = parse_file(str(root), "criterion")
    assert sorted(m.benchmark for m in parsed.metrics) == ["fib_iterative/10", "fib_iterative/80", "fib_recursive_15"]


def test_criterion_a_broken_new_link_is_refused(tmp_path, store_path, capsys):
    root = _criterion_copy(tmp_path)
    shutil.rmtree(root / "fib_recursive_15" / "new")
    (root / "fib_recursive_15" / "new").symlink_to(tmp_path / "gone", target_is_directory=True)
    assert_refused(root, "criterion", "", "a broken symbolic link", store_path, capsys,
                   named=root / "fib_recursive_15" / "new")


def test_criterion_one_benchmark_in_two_directories_is_refused_naming_both(tmp_path, store_path, capsys):
    root = _criterion_copy(tmp_path)
    os.symlink(root / "fib_iterative" / "10" / "new", root / "fib_iterative" / "80" / "new.tmp")
    shutil.rmtree(root / "fib_iterative" / "80" / "new")
    os.rename(root / "fib_iterative" / "80" / "new.tmp", root / "fib_iterative" / "80" / "new")
    assert_refused(root, "criterion", "fib_iterative/80/new", "first at fib_iterative/10/new", store_path, capsys)


# --- small ones ----------------------------------------------------------------------------------

@pytest.mark.parametrize("number", ["1,,2,3", "12,34", ",123", "1234,567", "1,234,", "1,234.5,6"])
def test_rust_libtest_refuses_misplaced_thousands_separators(number, tmp_path, store_path, capsys):
    bad = tmp_path / "bench.txt"
    bad.write_text(f"test a ... bench:       {number} ns/iter (+/- 5)\n\ntest result: ok.\n")
    with pytest.raises(InputError, match="line 1"):
        parse_file(str(bad), "rust-libtest")


@pytest.mark.parametrize("number,value", [("1,234", 1234.0), ("12,345,678.5", 12345678.5), ("1234", 1234.0),
                                          ("999", 999.0)])
def test_rust_libtest_reads_grouped_numbers(number, value, tmp_path):
    path = tmp_path / "bench.txt"
    path.write_text(f"test a ... bench:       {number} ns/iter (+/- 5)\n\ntest result: ok.\n")
    assert parse_file(str(path), "rust-libtest")[1].metrics[0].value == value


@pytest.mark.parametrize("text", ["[1, 2, 3]\n", "{\"a\": 1}\n", "# notes\n\tindented\n"])
def test_an_unknown_file_is_not_told_it_is_closest_to_a_format_by_punctuation_alone(text, tmp_path):
    path = tmp_path / "unknown.txt"
    path.write_text(text)
    with pytest.raises(InputError) as info:
        parse_file(str(path))
    assert "format not recognised" in str(info.value) and "Closest" not in str(info.value)
