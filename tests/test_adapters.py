"""The harness adapters against real output of each harness (tests/fixtures/<harness>/).

Expected values are recomputed here from the fixture files with plain json / numpy, never copied
from the adapter's output, so a conversion or grouping mistake in an adapter fails a test.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import numpy as np
import pytest

from perfgate.adapters import get_adapter, parse_file
from perfgate.errors import InputError

FIX = Path(__file__).resolve().parent / "fixtures"
PYTEST_BENCH = FIX / "pytest-benchmark" / "strings.json"
GBENCH = FIX / "google-benchmark" / "sort-accumulate.json"
CRITERION = FIX / "criterion" / "target" / "criterion"
GO = FIX / "go-bench" / "strings.txt"
JMH = FIX / "jmh" / "string-bench.json"
BDN = FIX / "benchmarkdotnet" / "collection-bench-report-full.json"


def by_key(parsed):
    return {(m.benchmark, m.measure): m for m in parsed.metrics}


def close(a, b):
    return a == pytest.approx(b, rel=1e-9, abs=1e-9)


# --- each fixture parses to what the file says --------------------------------------------------

def test_pytest_benchmark_fixture():
    doc = json.loads(PYTEST_BENCH.read_text())
    name, parsed = parse_file(str(PYTEST_BENCH), "pytest-benchmark")
    metrics = by_key(parsed)
    assert len(doc["benchmarks"]) == 4
    extras = {(b["fullname"], "allocated-bytes"): b["extra_info"]["allocated_bytes"]
              for b in doc["benchmarks"] if "allocated_bytes" in b["extra_info"]}
    assert len(extras) == 1 and len(metrics) == 5
    for key, allocated in extras.items():
        assert metrics[key].value == allocated
    for bench in doc["benchmarks"]:
        m = metrics[(bench["fullname"], "latency")]
        data = np.array(bench["stats"]["data"])
        assert len(m.samples) == len(data) == bench["stats"]["rounds"]
        assert np.allclose(m.samples, data * 1e9)
        # pytest-benchmark's own mean is the mean of the per-round data it saved.
        assert close(m.value, data.mean() * 1e9)
        assert close(m.upper - m.value, np.std(data, ddof=1) * 1e9)
        assert m.lower == pytest.approx(max(data.mean() - np.std(data, ddof=1), 0) * 1e9)
    pedantic = metrics[("bench_strings.py::test_sorted_pedantic", "latency")]
    assert len(pedantic.samples) == 15 and pedantic.attrs["iterations"] == 4
    assert metrics[("bench_strings.py::test_concat[1000]", "latency")].attrs["parameters"] == {"n": "1000"}


def test_google_benchmark_fixture():
    doc = json.loads(GBENCH.read_text())
    rows = doc["benchmarks"]
    _, parsed = parse_file(str(GBENCH), "google-benchmark")
    metrics = by_key(parsed)
    scale = {"ns": 1, "us": 1e3, "ms": 1e6}
    # Aggregates and complexity rows never become benchmarks of their own.
    assert not any(re.search(r"_(mean|median|stddev|cv|BigO|RMS)$", m.benchmark) for m in parsed.metrics)

    reps = [r for r in rows if r["run_type"] == "iteration" and r["repetitions"] > 1]
    run_name = reps[0]["run_name"]
    assert len(reps) == 5
    latency = metrics[(run_name, "latency")]
    expected = [r["real_time"] * scale[r["time_unit"]] for r in reps]
    assert np.allclose(latency.samples, expected)
    mean_row = next(r for r in rows if r.get("aggregate_name") == "mean")
    sd_row = next(r for r in rows if r.get("aggregate_name") == "stddev")
    assert close(latency.value, np.mean(expected))  # the library's mean aggregate is the mean of reps
    assert close(latency.upper - latency.value, sd_row["real_time"] * scale[sd_row["time_unit"]])
    assert close(latency.value, mean_row["real_time"] * scale[mean_row["time_unit"]])

    throughput = metrics[(run_name, "throughput")]
    assert np.allclose(throughput.samples, [r["items_per_second"] for r in reps])
    counter = metrics[(run_name, "checksum_mod")]
    assert counter.samples == tuple(float(r["checksum_mod"]) for r in reps)

    singles = [r for r in rows if r["run_type"] == "iteration" and r["repetitions"] == 1]
    for r in singles:
        m = metrics[(r["run_name"], "latency")]
        assert m.samples == (r["real_time"] * scale[r["time_unit"]],) and close(m.value, m.samples[0])
    assert any(r["time_unit"] == "ms" for r in singles)  # unit conversion is exercised

    bigo = next(r for r in rows if r.get("aggregate_name") == "BigO")
    rms = next(r for r in rows if r.get("aggregate_name") == "RMS")
    complexity = metrics[(bigo["run_name"], "bigo-coefficient")]
    assert close(complexity.value, bigo["real_coefficient"] * scale[bigo["time_unit"]])
    assert complexity.attrs["big_o"] == bigo["big_o"] == "NlgN"
    assert close(complexity.attrs["rms"], rms["rms"])


def test_criterion_directory_and_single_benchmark():
    _, parsed = parse_file(str(CRITERION), "criterion")
    metrics = by_key(parsed)
    new_dirs = sorted(CRITERION.rglob("new"))
    assert len(metrics) == len(new_dirs) == 3
    for new in new_dirs:
        full_id = json.loads((new / "benchmark.json").read_text())["full_id"]
        sample = json.loads((new / "sample.json").read_text())
        est = json.loads((new / "estimates.json").read_text())["mean"]
        per_iter = np.array(sample["times"]) / np.array(sample["iters"])
        m = metrics[(full_id, "latency")]
        assert np.allclose(m.samples, per_iter) and len(m.samples) == 20
        # criterion's mean point estimate is the mean of the per-iteration sample times.
        assert close(m.value, per_iter.mean())
        assert (m.lower, m.upper) == (est["confidence_interval"]["lower_bound"], est["confidence_interval"]["upper_bound"])
        assert m.lower <= m.value <= m.upper
    one = CRITERION / "fib_iterative" / "80" / "new"
    name, single = parse_file(str(one))  # auto-detected from a directory
    assert name == "criterion" and [m.benchmark for m in single.metrics] == ["fib_iterative/80"]


def test_go_bench_fixture():
    lines = [l.split() for l in GO.read_text().splitlines() if l.startswith("Benchmark")]
    _, parsed = parse_file(str(GO), "go-bench")
    metrics = by_key(parsed)
    names = list(dict.fromkeys(fields[0] for fields in lines))
    assert names == ["BenchmarkConcat-2", "BenchmarkBuilder-2", "BenchmarkRepeat/n=16-2", "BenchmarkRepeat/n=1024-2"]
    units = {"ns/op": "latency", "B/op": "allocated-bytes", "allocs/op": "allocations"}
    for name in names:
        rows = [fields for fields in lines if fields[0] == name]
        assert len(rows) == 5  # -count 5
        pairs = {}
        for fields in rows:
            for value, unit in zip(fields[2::2], fields[3::2]):
                if unit != "MB/s":  # derived from ns/op, left out
                    pairs.setdefault(units.get(unit, unit), []).append(float(value))
        assert {measure for (bench, measure) in metrics if bench == name} == set(pairs)
        for measure, values in pairs.items():
            m = metrics[(name, measure)]
            assert m.samples == tuple(values)
            assert close(m.value, np.mean(values))
            assert close(m.upper - m.value, np.std(values, ddof=1))
    assert ("BenchmarkRepeat/n=16-2", "chars/op") in metrics  # a b.ReportMetric custom metric
    assert "MB/s" in GO.read_text() and not any(measure == "MB/s" for _, measure in metrics)


def test_jmh_fixture():
    doc = json.loads(JMH.read_text())
    _, parsed = parse_file(str(JMH), "jmh")
    metrics = by_key(parsed)
    to_ns = {"ns/op": 1, "us/op": 1e3, "ms/op": 1e6}
    modes = set()
    for entry in doc:
        name = entry["benchmark"] + "[" + ", ".join(f"{k}={v}" for k, v in entry["params"].items()) + "]"
        pm = entry["primaryMetric"]
        modes.add(entry["mode"])
        if pm["scoreUnit"].startswith("ops/"):
            m, factor = metrics[(name, "throughput")], {"ops/ms": 1e3, "ops/s": 1, "ops/us": 1e6}[pm["scoreUnit"]]
        else:
            m, factor = metrics[(name, "latency")], to_ns[pm["scoreUnit"]]
        assert close(m.value, pm["score"] * factor)
        assert close(m.upper, pm["scoreConfidence"][1] * factor)
        assert m.lower == pytest.approx(max(pm["scoreConfidence"][0], 0) * factor)
        if "rawData" in pm:
            raw = np.concatenate([np.array(fork, dtype=float) for fork in pm["rawData"]])
            assert np.allclose(m.samples, raw * factor)
            assert close(m.value, raw.mean() * factor)  # the score is the mean of the iterations
        else:  # sample mode: one sample per iteration, the mean of that iteration's histogram
            hist = [np.array(it, dtype=float) for fork in pm["rawDataHistogram"] for it in fork]
            assert np.allclose(m.samples, [(h[:, 0] * h[:, 1]).sum() / h[:, 1].sum() * factor for h in hist])
            everything = np.concatenate(hist)
            assert close(m.value, (everything[:, 0] * everything[:, 1]).sum() / everything[:, 1].sum() * factor)
        alloc = metrics[(name, "allocated-bytes")]
        assert close(alloc.value, entry["secondaryMetrics"]["gc.alloc.rate.norm"]["score"])
    assert modes == {"avgt", "thrpt", "sample", "ss"}
    # Collector figures and sample-mode percentiles are not measures of their own.
    assert not any(m.measure.startswith(("gc.", "p0", "p1")) for m in parsed.metrics)


def test_benchmarkdotnet_fixture():
    doc = json.loads(BDN.read_text())
    _, parsed = parse_file(str(BDN), "benchmarkdotnet")
    metrics = by_key(parsed)
    assert len(metrics) == 2 * len(doc["Benchmarks"])
    for bench in doc["Benchmarks"]:
        m = metrics[(bench["FullName"], "latency")]
        result = [r["Nanoseconds"] / r["Operations"] for r in bench["Measurements"]
                  if (r["IterationMode"], r["IterationStage"]) == ("Workload", "Result")]
        assert m.samples == pytest.approx(result) and len(result) >= 10
        assert close(m.value, np.mean(result))  # Statistics were computed from the Result stage
        ci = bench["Statistics"]["ConfidenceInterval"]
        assert m.upper == ci["Upper"] and m.lower == max(ci["Lower"], 0)
        assert metrics[(bench["FullName"], "allocated-bytes")].value == bench["Memory"]["BytesAllocatedPerOperation"]


# --- --adapter auto picks the right adapter for every fixture -----------------------------------

AUTO = [
    (PYTEST_BENCH, "pytest-benchmark"), (GBENCH, "google-benchmark"), (CRITERION, "criterion"),
    (GO, "go-bench"), (JMH, "jmh"), (BDN, "benchmarkdotnet"),
    *[(p, "hyperfine") for p in sorted((FIX / "hyperfine").glob("*.json"))],
    (FIX / "rust-libtest" / "criterion-bencher.txt", "rust-libtest"),
    (FIX / "catch2" / "console.txt", "catch2"), (FIX / "catch2" / "benchmarks.xml", "catch2"),
    (FIX / "iai-callgrind" / "first-run.txt", "iai-callgrind"), (FIX / "iai-callgrind" / "second-run.txt", "iai-callgrind"),
    (FIX / "benchmark-js" / "suite.txt", "benchmark-js"), (FIX / "benchmark-js" / "suite.json", "benchmark-js"),
    (FIX / "asv" / "results" / "fixture-machine" / "49e99810-virtualenv-py3.11.json", "asv"),
    (FIX / "github-action-benchmark" / "smaller-is-better.json", "github-action-benchmark"),
    (FIX / "github-action-benchmark" / "bigger-is-better.json", "github-action-benchmark"),
]


@pytest.mark.parametrize("path,expected", AUTO, ids=[f"{e}-{p.name}" for p, e in AUTO])
def test_auto_detects_every_fixture(path, expected):
    name, parsed = parse_file(str(path))
    assert name == expected and parsed.metrics


def test_auto_detects_perfgate_bmf_export(cli, tmp_path):
    cli("ingest", str(GBENCH), "--branch", "main", "--commit", "a" * 40, check=True)
    out = tmp_path / "export.json"
    cli("export", "--format", "bmf", "-o", str(out), check=True)
    name, parsed = parse_file(str(out))
    assert name == "bmf"
    _, original = parse_file(str(GBENCH))
    assert {(m.benchmark, m.measure) for m in parsed.metrics} == {(m.benchmark, m.measure) for m in original.metrics}


def test_ingest_cli_accepts_a_criterion_directory(cli):
    proc = cli("ingest", str(CRITERION), "--branch", "main", "--commit", "b" * 40, "--json", check=True)
    assert json.loads(proc.stdout)["metrics"] == 3


def test_a_file_from_inside_criterion_output_says_to_pass_the_directory():
    est = CRITERION / "fib_recursive_15" / "new" / "estimates.json"
    with pytest.raises(InputError, match="directory"):
        parse_file(str(est))


@pytest.mark.parametrize("path,expected", AUTO, ids=[f"{e}-{p.name}" for p, e in AUTO])
def test_exactly_one_sniffer_claims_each_fixture(path, expected):
    """Detection must not depend on the order sniffers are tried in."""
    from perfgate.adapters import adapter_names, get_adapter

    modules = [get_adapter(n) for n in adapter_names()]
    if path.is_dir():
        claims = [m.NAME for m in modules if getattr(m, "ACCEPTS_DIRECTORY", False) and m.sniff_path(path)]
    else:
        text = path.read_text()
        claims = []
        for m in modules:
            try:
                if m.sniff(text):
                    claims.append(m.NAME)
            except InputError:
                pass
    assert claims == [expected]


# --- variants of the harness outputs --------------------------------------------------------------

def test_google_benchmark_aggregates_only():
    """--benchmark_report_aggregates_only: no repetition rows, value and bounds from the aggregates."""
    path = FIX / "google-benchmark" / "aggregates-only.json"
    rows = json.loads(path.read_text())["benchmarks"]
    _, parsed = parse_file(str(path))
    metrics = by_key(parsed)
    scale = {"ns": 1, "us": 1e3, "ms": 1e6}
    for run_name in {r["run_name"] for r in rows if r["aggregate_name"] == "mean"}:
        mean = next(r for r in rows if r["run_name"] == run_name and r["aggregate_name"] == "mean")
        sd = next(r for r in rows if r["run_name"] == run_name and r["aggregate_name"] == "stddev")
        m = metrics[(run_name, "latency")]
        assert close(m.value, mean["real_time"] * scale[mean["time_unit"]]) and m.samples == ()
        assert close(m.upper - m.value, sd["real_time"] * scale[sd["time_unit"]])
    assert all(not m.benchmark.endswith(("_mean", "_median", "_stddev", "_cv")) for m in parsed.metrics)


def test_google_benchmark_aggregates_only_warns_that_there_are_no_samples():
    """compare said 'insufficient-data (needs ≥ 3 samples a side)' although 3 repetitions ran:
    ingest now says the file holds their aggregates only."""
    path = FIX / "google-benchmark" / "aggregates-only.json"
    rows = json.loads(path.read_text())["benchmarks"]
    reps = {r["repetitions"] for r in rows}
    _, parsed = parse_file(str(path))
    assert len(parsed.warnings) == 1 and "aggregates only" in parsed.warnings[0]
    assert f"{reps.pop()} repetitions" in parsed.warnings[0] and "report_aggregates_only" in parsed.warnings[0]
    assert all(repr(r["run_name"]) in parsed.warnings[0] for r in rows if r["aggregate_name"] == "mean")
    _, full = parse_file(str(GBENCH))  # repetitions present: no warning
    assert full.warnings == []


def test_google_benchmark_failed_benchmark_is_refused():
    path = FIX / "google-benchmark" / "with-error.json"
    broken = next(i for i, r in enumerate(json.loads(path.read_text())["benchmarks"]) if r.get("error_occurred"))
    with pytest.raises(InputError) as info:
        parse_file(str(path))
    assert info.value.place == f"benchmarks[{broken}]" and "input file not found" in str(info.value)
    assert str(path) in str(info.value)


def test_jmh_method_measured_in_two_modes_gets_the_mode_in_its_name(tmp_path):
    doc = json.loads(JMH.read_text())
    twin = json.loads(json.dumps(doc[0]))
    twin["mode"], twin["primaryMetric"]["scoreUnit"] = "avgt", "ns/op"
    path = tmp_path / "two-modes.json"
    path.write_text(json.dumps([doc[0], twin]))
    _, parsed = parse_file(str(path))
    base = doc[0]["benchmark"] + "[length=" + doc[0]["params"]["length"] + "]"
    assert {(m.benchmark, m.measure) for m in parsed.metrics} >= {
        (base + ":thrpt", "throughput"), (base + ":avgt", "latency")}


def test_go_bench_same_benchmark_in_two_packages(tmp_path):
    text = GO.read_text()
    path = tmp_path / "two-packages.txt"
    path.write_text(text + text.replace("pkg: example.com/perfgatefixture", "pkg: example.com/other"))
    _, parsed = parse_file(str(path))
    names = {m.benchmark for m in parsed.metrics}
    assert "example.com/perfgatefixture.BenchmarkConcat-2" in names and "example.com/other.BenchmarkConcat-2" in names
    assert all(len(m.samples) == 5 for m in parsed.metrics)  # the packages' lines are not mixed


def test_google_benchmark_skip_with_message_rows_are_left_out(tmp_path):
    """Library 1.8+ marks SkipWithMessage rows ``"skipped": true``: deliberately not run, not failed."""
    doc = json.loads(GBENCH.read_text())
    skipped = dict(doc["benchmarks"][0], name="BM_NeedsAVX512", run_name="BM_NeedsAVX512", skipped=True,
                   skip_message="no AVX-512 on this CPU", iterations=0, real_time=0.0)
    doc["benchmarks"].append(skipped)
    path = tmp_path / "skipped.json"
    path.write_text(json.dumps(doc))
    _, parsed = parse_file(str(path))
    _, original = parse_file(str(GBENCH))
    assert len(parsed.metrics) == len(original.metrics)
    assert "BM_NeedsAVX512" not in {m.benchmark for m in parsed.metrics}


def test_pytest_benchmark_saved_without_data_has_no_samples(tmp_path):
    """Files pytest-benchmark autosaves (.benchmarks/) lack stats.data unless --benchmark-save-data."""
    doc = json.loads(PYTEST_BENCH.read_text())
    for bench in doc["benchmarks"]:
        del bench["stats"]["data"]
    path = tmp_path / "0001_saved.json"
    path.write_text(json.dumps(doc))
    name, parsed = parse_file(str(path))
    assert name == "pytest-benchmark" and all(m.samples == () for m in parsed.metrics)
    latencies = [m.value for m in parsed.metrics if m.measure == "latency"]
    assert latencies == pytest.approx([b["stats"]["mean"] * 1e9 for b in doc["benchmarks"]])


def test_jmh_aux_counters_per_operation_are_kept_rates_are_not(tmp_path):
    doc = json.loads(JMH.read_text())
    entry = doc[0]
    template = entry["secondaryMetrics"]["gc.alloc.rate.norm"]
    entry["secondaryMetrics"]["cacheMisses"] = dict(template, score=12.5, scoreUnit="#/op", scoreConfidence=[12.0, 13.0],
                                                    rawData=[[12.0, 12.5, 13.0]])
    entry["secondaryMetrics"]["eventsProcessed"] = dict(template, score=900.0, scoreUnit="ops/s",
                                                        scoreConfidence=[800.0, 1000.0], rawData=[[800.0, 900.0, 1000.0]])
    path = tmp_path / "aux.json"
    path.write_text(json.dumps([entry]))
    _, parsed = parse_file(str(path))
    measures = {m.measure: m.value for m in parsed.metrics}
    assert measures["cacheMisses"] == 12.5 and "eventsProcessed" not in measures


def test_benchmarkdotnet_before_iteration_stages(tmp_path):
    """BenchmarkDotNet < 0.11 wrote IterationMode "MainTarget"/"Result" and no IterationStage."""
    doc = json.loads(BDN.read_text())
    legacy = {("Workload", "Result"): "Result", ("Workload", "Actual"): "MainTarget",
              ("Workload", "Warmup"): "MainWarmup", ("Overhead", "Actual"): "IdleTarget"}
    for bench in doc["Benchmarks"]:
        for row in bench["Measurements"]:
            row["IterationMode"] = legacy.get((row["IterationMode"], row.pop("IterationStage")), "Pilot")
    path = tmp_path / "old-report-full.json"
    path.write_text(json.dumps(doc))
    _, old = parse_file(str(path))
    _, new = parse_file(str(BDN))
    assert [m.samples for m in old.metrics] == [m.samples for m in new.metrics]


# --- harnesses added for issue 9 -------------------------------------------------------------------

LIBTEST = FIX / "rust-libtest" / "criterion-bencher.txt"
CATCH2_CONSOLE = FIX / "catch2" / "console.txt"
CATCH2_XML = FIX / "catch2" / "benchmarks.xml"
IAI_FIRST = FIX / "iai-callgrind" / "first-run.txt"
IAI_SECOND = FIX / "iai-callgrind" / "second-run.txt"
BJS_TEXT = FIX / "benchmark-js" / "suite.txt"
BJS_JSON = FIX / "benchmark-js" / "suite.json"
ASV = FIX / "asv" / "results" / "fixture-machine" / "49e99810-virtualenv-py3.11.json"
GAB_SMALLER = FIX / "github-action-benchmark" / "smaller-is-better.json"
GAB_BIGGER = FIX / "github-action-benchmark" / "bigger-is-better.json"


def test_rust_libtest_fixture_from_criterion_bencher_output():
    rows = [line.split() for line in LIBTEST.read_text().splitlines() if line.startswith("test ")]
    _, parsed = parse_file(str(LIBTEST), "rust-libtest")
    assert [m.benchmark for m in parsed.metrics] == [r[1] for r in rows] == \
        ["fib_recursive_15", "fib_iterative/10", "fib_iterative/80"]
    for m, row in zip(parsed.metrics, rows):
        # test NAME ... bench: VALUE ns/iter (+/- SPREAD)
        value, spread = float(row[4]), float(row[7].rstrip(")"))
        assert m.measure == "latency" and m.value == value
        assert m.lower == max(value - spread, 0) and m.upper == value + spread and m.samples == ()


def test_rust_libtest_text_as_libtest_prints_it():
    """libtest's own format (nightly #[bench], not runnable here): thousands separators,
    decimals on newer toolchains, '= N MB/s' when b.bytes is set, ignored tests."""
    text = ("running 3 tests\ntest tests::ignored ... ignored\n"
            "test tests::bench_add ... bench:       1,234 ns/iter (+/- 56)\n"
            "test tests::bench_copy ... bench:   12,345.67 ns/iter (+/- 1,008.5) = 830 MB/s\n\n"
            "test result: ok. 0 passed; 0 failed; 1 ignored; 2 measured; 0 filtered out\n")
    parsed = get_adapter("rust-libtest").parse(text, "libtest.txt")
    got = {m.benchmark: (m.value, m.lower, m.upper) for m in parsed.metrics}
    assert got == {"tests::bench_add": (1234.0, 1178.0, 1290.0),
                   "tests::bench_copy": (12345.67, 12345.67 - 1008.5, 12345.67 + 1008.5)}


def _catch2_console_rows():
    """(test case, name, [mean, low, high] in ns) read from the console table by column."""
    scale = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}
    lines = CATCH2_CONSOLE.read_text().splitlines()
    rows = []
    for k, line in enumerate(lines):
        fields = line.split()
        if len(fields) >= 5 and fields[-1] in scale and fields[-3].isdigit() and fields[-4].isdigit():
            nums = lines[k + 1].split()
            rows.append((" ".join(fields[:-4]), [float(v) * scale[u] for v, u in zip(nums[::2], nums[1::2])]))
    return rows


def test_catch2_console_fixture():
    rows = _catch2_console_rows()
    _, parsed = parse_file(str(CATCH2_CONSOLE), "catch2")
    assert [m.benchmark for m in parsed.metrics] == [name for name, _ in rows] == \
        ["fib 15", "fib 20", "sort 1000 ints", "string concat <std::string>"]
    for m, (_, (mean, low, high)) in zip(parsed.metrics, rows):
        assert m.measure == "latency" and close(m.value, mean) and close(m.lower, low) and close(m.upper, high)
    assert [m.attrs["test_case"] for m in parsed.metrics] == ["Fibonacci", "Fibonacci", "Containers", "Containers"]
    assert all(m.attrs["samples"] == 20 for m in parsed.metrics)


def test_catch2_xml_fixture():
    import xml.etree.ElementTree as ET

    results = list(ET.parse(CATCH2_XML).getroot().iter("BenchmarkResults"))
    _, parsed = parse_file(str(CATCH2_XML), "catch2")
    assert len(parsed.metrics) == len(results) == 4
    for m, r in zip(parsed.metrics, results):
        mean = r.find("mean")
        assert m.benchmark == r.get("name")
        assert (m.value, m.lower, m.upper) == tuple(float(mean.get(k)) for k in ("value", "lowerBound", "upperBound"))
        assert m.attrs["std_dev"] == float(r.find("standardDeviation").get("value"))
        assert m.attrs["iterations"] == int(r.get("iterations"))
    assert parsed.metrics[3].benchmark == "string concat <std::string>"  # XML-escaped in the file


@pytest.mark.parametrize("declared", ["UF-8", "ISO-8859-1", "utf-16"])
def test_catch2_xml_read_as_the_utf8_text_it_is_whatever_its_declaration_names(tmp_path, declared):
    """The file is read as UTF-8 text; a declaration naming an unknown encoding (the fuzzer's
    "UF-8" raised LookupError, a traceback) or another one changes nothing."""
    text = CATCH2_XML.read_text(encoding="utf-8").replace('encoding="UTF-8"', f'encoding="{declared}"')
    text = text.replace('name="fib 15"', 'name="fib 15 é"')
    f = tmp_path / "b.xml"
    f.write_text(text, encoding="utf-8")
    _, parsed = parse_file(str(f), "catch2")
    _, expected = parse_file(str(CATCH2_XML), "catch2")
    assert [m.value for m in parsed.metrics] == [m.value for m in expected.metrics]
    assert "fib 15 é" in [m.benchmark for m in parsed.metrics]


def test_catch2_same_benchmark_name_in_two_test_cases_is_qualified(tmp_path):
    text = CATCH2_XML.read_text().replace('name="sort 1000 ints"', 'name="fib 15"')
    path = tmp_path / "dup.xml"
    path.write_text(text)
    _, parsed = parse_file(str(path))
    assert {m.benchmark for m in parsed.metrics} == {"Fibonacci/fib 15", "Containers/fib 15", "fib 20",
                                                     "string concat <std::string>"}


@pytest.mark.parametrize("path", [IAI_FIRST, IAI_SECOND], ids=["first-run", "second-run"])
def test_iai_callgrind_fixture(path):
    expected, bench = {}, None
    for line in path.read_text().splitlines():
        if "::" in line and not line.startswith(" "):
            bench = line.strip()
        elif bench and ":" in line and "|" in line:
            event, rest = line.split(":", 1)
            expected[(bench, event.strip())] = float(rest.split("|")[0])
    _, parsed = parse_file(str(path), "iai-callgrind")
    measures = {"Instructions": "instructions", "L1 Hits": "l1-hits", "LL Hits": "ll-hits", "RAM Hits": "ram-hits",
                "Total read+write": "total-read-write", "Estimated Cycles": "estimated-cycles"}
    got = {(m.benchmark, m.attrs["event"]): (m.measure, m.value) for m in parsed.metrics}
    assert len(expected) == 18 and got == {k: (measures[k[1]], v) for k, v in expected.items()}
    assert ("fib::fib_group::bench_fib_recursive short:10", "Instructions") in got
    assert all(m.samples == () and m.lower is None for m in parsed.metrics)


def test_iai_callgrind_old_format_with_ir_and_tool_sections():
    """Older releases print 'Ir' and no '|old' column; tool sections add their own events."""
    text = ("lib::group::bench_a id:1\n  Ir:                    512 (No change)\n"
            "  L1 Hits:               700\n  ======= DHAT =======\n  Total bytes:  4096|N/A  (*********)\n"
            "Iai-Callgrind result: Ok. 1 without regressions\n")
    parsed = get_adapter("iai-callgrind").parse(text, "iai.txt")
    assert {(m.measure, m.value) for m in parsed.metrics} == {("instructions", 512.0), ("l1-hits", 700.0),
                                                               ("total-bytes", 4096.0)}


def test_benchmark_js_text_fixture():
    lines = [l for l in BJS_TEXT.read_text().splitlines() if " ops/sec " in l]
    _, parsed = parse_file(str(BJS_TEXT), "benchmark-js")
    assert len(parsed.metrics) == len(lines) == 3
    for m, line in zip(parsed.metrics, lines):
        name, rest = line.split(" x ", 1)
        hz = float(rest.split()[0].replace(",", ""))
        rme = float(rest.split()[2].strip("±%"))
        assert (m.benchmark, m.measure, m.value) == (name, "throughput", hz)
        assert close(m.lower, hz * (1 - rme / 100)) and close(m.upper, hz * (1 + rme / 100))
    assert parsed.metrics[2].benchmark == "RegExp#test on 'onHeap=true'"


def test_benchmark_js_json_fixture_keeps_raw_samples():
    doc = json.loads(BJS_JSON.read_text())
    _, parsed = parse_file(str(BJS_JSON), "benchmark-js")
    metrics = by_key(parsed)
    assert len(metrics) == 2 * len(doc) == 6
    for bench in doc:
        sample = np.array(bench["stats"]["sample"])
        latency = metrics[(bench["name"], "latency")]
        assert np.allclose(latency.samples, sample * 1e9) and len(latency.samples) == len(sample) > 5
        assert close(latency.value, sample.mean() * 1e9)  # benchmark.js's mean is the mean of its sample
        assert close(latency.upper - latency.value, np.std(sample, ddof=1) * 1e9)
        assert metrics[(bench["name"], "throughput")].value == bench["hz"]
    # The text and the JSON of the same run agree on ops/sec (the text rounds it).
    _, text = parse_file(str(BJS_TEXT))
    for m in text.metrics:
        assert abs(metrics[(m.benchmark, "throughput")].value - m.value) <= 0.5


def test_asv_results_fixture():
    doc = json.loads(ASV.read_text())
    cols = doc["result_columns"]
    _, parsed = parse_file(str(ASV), "asv")
    metrics = by_key(parsed)
    assert doc["version"] == 2 and parsed.context["asv_schema_version"] == 2
    row = dict(zip(cols, doc["results"]["bench_strings.TimeJoin.time_join"]))
    combos = [(n, s) for n in row["params"][0] for s in row["params"][1]]
    assert len(combos) == 4
    for k, (n, sep) in enumerate(combos):
        m = metrics[(f"bench_strings.TimeJoin.time_join({n}, {sep})", "latency")]
        assert close(m.value, row["result"][k] * 1e9)
        assert np.allclose(m.samples, np.array(row["samples"][k]) * 1e9) and len(m.samples) == 5
        assert close(m.upper, row["stats_ci_99_b"][k] * 1e9)
        assert close(m.lower, max(row["stats_ci_99_a"][k], 0) * 1e9)
        assert m.attrs["parameters"] == [n, sep]
    assert metrics[("bench_strings.peakmem_bytearray", "peak-rss")].value == doc["results"]["bench_strings.peakmem_bytearray"][0][0]
    assert metrics[("bench_strings.mem_list", "object-size")].value == 8056
    assert metrics[("bench_strings.track_word_count", "track")].value == 4
    assert len(parsed.metrics) == 8 and parsed.warnings == []


def test_asv_failed_combination_is_left_out_with_a_warning(tmp_path):
    doc = json.loads(ASV.read_text())
    doc["results"]["bench_strings.TimeJoin.time_join"][0][1] = None
    path = tmp_path / "r.json"
    path.write_text(json.dumps(doc))
    _, parsed = parse_file(str(path))
    names = {m.benchmark for m in parsed.metrics}
    assert "bench_strings.TimeJoin.time_join(10, 'space')" not in names and len(parsed.metrics) == 7
    assert len(parsed.warnings) == 1 and "time_join(10, 'space')" in parsed.warnings[0]


def test_github_action_benchmark_custom_json_direction():
    from perfgate.model import Measure

    doc = json.loads(GAB_SMALLER.read_text())
    _, parsed = parse_file(str(GAB_SMALLER))  # auto: direction from the unit
    assert [(m.benchmark, m.measure, m.value) for m in parsed.metrics] == [
        (doc[0]["name"], "Percent", 50), (doc[1]["name"], "Megabytes", 100), ("Decapsulation", "latency", 44601)]
    assert (parsed.metrics[1].lower, parsed.metrics[1].upper) == (97, 103)
    assert (parsed.metrics[2].lower, parsed.metrics[2].upper) == (44601 - 329, 44601 + 329)
    assert parsed.metrics[1].attrs["extra"] == doc[1]["extra"]

    _, bigger = parse_file(str(GAB_BIGGER), "custom-bigger-is-better")
    assert [m.measure for m in bigger.metrics] == ["req/s", "Megabytes (bigger is better)", "throughput"]
    assert not any(Measure.named(m.measure).lower_is_better for m in bigger.metrics)
    hz = bigger.metrics[2]
    assert close(hz.lower, 1234567.5 * (1 - 0.012)) and close(hz.upper, 1234567.5 * (1 + 0.012))
    _, smaller = parse_file(str(GAB_SMALLER), "custom-smaller-is-better")
    assert all(Measure.named(m.measure).lower_is_better for m in smaller.metrics)
    with pytest.raises(InputError, match=r"\[2\]\.unit.*latency"):
        parse_file(str(GAB_SMALLER), "custom-bigger-is-better")


# --- fixes of issue 9 -------------------------------------------------------------------------------

def test_names_with_on_attribute_lookalikes_are_read(tmp_path):
    """JMH @Param onHeap=true and Go BenchmarkDecode/one=1-8 used to fail the whole file."""
    doc = json.loads(JMH.read_text())
    doc[0]["params"] = {"onHeap": "true"}
    jmh = tmp_path / "jmh.json"
    jmh.write_text(json.dumps(doc))
    _, parsed = parse_file(str(jmh))
    assert any("onHeap=true" in m.benchmark for m in parsed.metrics)
    go = tmp_path / "go.txt"
    # A complete go test output ends with PASS / ok (a cut one is refused: see go_bench.py).
    go.write_text("BenchmarkDecode/one=1-8   \t 1000\t  1234 ns/op\nPASS\nok  \texample.com/codec\t0.1s\n")
    _, parsed = parse_file(str(go))
    assert parsed.metrics[0].benchmark == "BenchmarkDecode/one=1-8"


def test_bmf_bounds_not_around_the_value_are_kept_aside_with_a_warning(cli, tmp_path):
    path = tmp_path / "odd.json"
    path.write_text(json.dumps({"bench": {"latency": {"value": 10.0, "lower_value": 12.0, "upper_value": 15.0},
                                          "instructions": {"value": 5.0, "lower_value": 4.0, "upper_value": 6.0}}}))
    _, parsed = parse_file(str(path))
    odd, fine = parsed.metrics
    assert (odd.value, odd.lower, odd.upper, odd.attrs["bmf_bounds"]) == (10.0, None, None, [12.0, 15.0])
    assert (fine.lower, fine.upper) == (4.0, 6.0)
    assert len(parsed.warnings) == 1 and "bench.latency" in parsed.warnings[0] and "[12.0, 15.0]" in parsed.warnings[0]
    proc = cli("ingest", str(path), "--branch", "main", "--commit", "d" * 40, "--json")
    assert proc.returncode == 0 and json.loads(proc.stdout)["metrics"] == 2
    assert "warning:" in proc.stderr and "do not contain the value 10.0" in proc.stderr


def _old_benchmarkdotnet(doc):
    """As BenchmarkDotNet before 0.11 exported it: no FullName, no DisplayInfo."""
    for bench in doc["Benchmarks"]:
        del bench["FullName"], bench["DisplayInfo"]
    return doc


def test_benchmarkdotnet_old_names_from_namespace_type_method(tmp_path):
    doc = _old_benchmarkdotnet(json.loads(BDN.read_text()))
    path = tmp_path / "old.json"
    path.write_text(json.dumps(doc))
    _, parsed = parse_file(str(path))
    names = [m.benchmark for m in parsed.metrics if m.measure == "latency"]
    assert names == [f"{b['Namespace']}.{b['Type']}.{b['Method']}({b['Parameters']})" for b in doc["Benchmarks"]]
    assert names[0] == "Perfgate.Fixture.CollectionBench.SortList(N=100)"
    del doc["Benchmarks"][1]["Method"]
    path.write_text(json.dumps(doc))
    with pytest.raises(InputError) as info:
        parse_file(str(path))
    assert info.value.place == "Benchmarks[1]" and "'Method'" in str(info.value)


def test_benchmarkdotnet_without_result_rows_keeps_original_values(tmp_path):
    doc = json.loads(BDN.read_text())
    for bench in doc["Benchmarks"]:
        bench["Measurements"] = [r for r in bench["Measurements"] if r["IterationStage"] != "Result"]
    del doc["Benchmarks"][2]["Measurements"]  # the brief exporter leaves them all out
    path = tmp_path / "no-result.json"
    path.write_text(json.dumps(doc))
    _, parsed = parse_file(str(path))
    latency = [m for m in parsed.metrics if m.measure == "latency"]
    for m, bench in zip(latency, doc["Benchmarks"]):
        assert m.samples == tuple(bench["Statistics"]["OriginalValues"]) and len(m.samples) == 15
    # With Result rows present they are the samples, and agree with OriginalValues.
    _, full = parse_file(str(BDN))
    for a, b in zip((m for m in full.metrics if m.measure == "latency"), latency):
        assert np.allclose(a.samples, b.samples)


def test_go_bench_without_ns_per_op_is_auto_detected(tmp_path):
    path = tmp_path / "go.txt"
    path.write_text("goos: linux\nBenchmarkScan-8   \t     500\t   310.5 MB/s\t  12.0 rows/s\nPASS\n")
    name, parsed = parse_file(str(path))
    # Without ns/op, MB/s repeats nothing: it is kept, in bytes per second (Go's MB is 10**6 bytes).
    assert name == "go-bench" and [(m.measure, m.value) for m in parsed.metrics] == [
        ("rows/s", 12.0), ("bytes-per-second", 310.5e6)]


def test_criterion_console_text_gets_a_hint_to_read_target_criterion(cli):
    path = FIX / "criterion" / "console.txt"
    assert "time:   [" in path.read_text()
    with pytest.raises(InputError, match="target/criterion"):
        parse_file(str(path))
    proc = cli("ingest", str(path), "--branch", "main", "--commit", "e" * 40)
    assert proc.returncode == 2 and "target/criterion" in proc.stderr and "rust-libtest" in proc.stderr


def test_auto_names_what_it_tried_and_what_the_closest_adapter_expected(tmp_path):
    path = tmp_path / "almost-hyperfine.json"
    path.write_text(json.dumps({"results": [{"name": "sleep 0.1", "mean": 0.1, "times": [0.1]}]}))
    with pytest.raises(InputError) as info:
        parse_file(str(path))
    message = str(info.value)
    assert "tried" in message and all(n in message for n in ("hyperfine", "catch2", "asv", "bmf", "rust-libtest"))
    assert "Closest: hyperfine, which expects" in message and '"command"' in message
    nothing = tmp_path / "prose.txt"
    nothing.write_text("hello world\n")
    with pytest.raises(InputError) as info:
        parse_file(str(nothing))
    assert "tried" in str(info.value) and "Closest" not in str(info.value)


LIBTEST_NIGHTLY = FIX / "rust-libtest" / "nightly"


def test_rust_libtest_names_lose_libtests_padding():
    """libtest pads names to the longest one; a longer-named bench added later widens the padding,
    which must not rename the other benches (every series would look gone and new)."""
    parse = get_adapter("rust-libtest").parse
    runs = {}
    for path in (LIBTEST_NIGHTLY / "four-benches.txt", LIBTEST_NIGHTLY / "five-benches.txt"):
        rows = {line.split()[1]: float(line.split()[4].replace(",", ""))
                for line in path.read_text().splitlines() if " ... bench:" in line}
        parsed = parse(path.read_text(), path.name)
        runs[path.name] = {m.benchmark: m.value for m in parsed.metrics}
        assert runs[path.name] == rows
    assert set(runs["four-benches.txt"]) < set(runs["five-benches.txt"])
    assert "tests::short" in runs["four-benches.txt"]


GO_PRINTS = FIX / "go-bench" / "prints" / "prints.txt"


def test_go_bench_result_of_a_benchmark_that_prints():
    """Go puts a printing benchmark's numbers on a continuation line after its output; they are
    its result, not a line to skip."""
    lines = GO_PRINTS.read_text().splitlines()
    numbers = [line.split() for line in lines if re.match(r"^\s+\d+\t", line)]
    assert len(numbers) == 3
    _, parsed = parse_file(str(GO_PRINTS), "go-bench")
    metrics = by_key(parsed)
    assert metrics[("BenchmarkPrints-2", "latency")].samples == tuple(float(r[1]) for r in numbers)
    assert metrics[("BenchmarkPrints-2", "allocated-bytes")].samples == tuple(float(r[3]) for r in numbers)
    assert metrics[("BenchmarkPrints-2", "allocations")].samples == (1.0, 1.0, 1.0)
    assert len(metrics[("BenchmarkShared-2", "latency")].samples) == 3


GBENCH_BYTES = FIX / "google-benchmark" / "bytes-template" / "bytes.json"


def test_google_benchmark_bytes_per_second_is_recorded():
    """SetBytesProcessed's bytes_per_second was dropped while items_per_second was kept."""
    from perfgate.model import Measure
    rows = json.loads(GBENCH_BYTES.read_text())["benchmarks"]
    _, parsed = parse_file(str(GBENCH_BYTES), "google-benchmark")
    m = by_key(parsed)[("BM_Copy/4096", "bytes-per-second")]
    reps = [r["bytes_per_second"] for r in rows if r["run_type"] == "iteration"]
    mean = next(r for r in rows if r.get("aggregate_name") == "mean")["bytes_per_second"]
    sd = next(r for r in rows if r.get("aggregate_name") == "stddev")["bytes_per_second"]
    assert len(reps) == 3 and np.allclose(m.samples, reps)
    assert close(m.value, mean) and close(m.upper - m.value, sd)
    assert not Measure.named("bytes-per-second").lower_is_better
    assert ("BM_Copy/4096", "throughput") in by_key(parsed)


def test_names_with_html_and_body_tags_are_accepted_and_escaped():
    """A template argument named Html and a pytest param holding an HTML document are benchmark
    names, not an attack: <html>/<body> run nothing, and every output escapes names."""
    from perfgate.escape import html_text, markdown_text
    template = FIX / "google-benchmark" / "bytes-template" / "template.json"
    html_param = FIX / "pytest-benchmark" / "html-param" / "html.json"
    _, parsed = parse_file(str(template), "google-benchmark")
    assert {m.benchmark for m in parsed.metrics} == {"BM_Render<Html>"}
    _, parsed = parse_file(str(html_param), "pytest-benchmark")
    names = {m.benchmark for m in parsed.metrics}
    assert names == {b["fullname"] for b in json.loads(html_param.read_text())["benchmarks"]}
    name = "bench_html.py::test_parse[<html><body>hi</body></html>]"
    assert name in names
    assert "<" not in html_text(name) and "<" not in markdown_text(name).replace("\\<", "")


ASV_QUICK = FIX / "asv" / "quick" / "quick-with-failure.json"


def test_asv_quick_run_with_a_failed_plain_benchmark():
    """--quick writes an infinite CI for its single sample: the value is kept without bounds.
    A failed unparameterised benchmark (result null) is left out with a warning, as documented."""
    text = ASV_QUICK.read_text()
    assert "-Infinity" in text
    doc = json.loads(text)  # Python's json reads the literals
    _, parsed = parse_file(str(ASV_QUICK), "asv")
    metrics = by_key(parsed)
    assert set(metrics) == {("bench.time_sleep", "latency"), ("bench.track_value", "track")}
    sleep = metrics[("bench.time_sleep", "latency")]
    assert close(sleep.value, doc["results"]["bench.time_sleep"][0][0] * 1e9)
    assert sleep.lower is None and sleep.upper is None
    assert metrics[("bench.track_value", "track")].value == 42
    assert len(parsed.warnings) == 1 and "bench.time_fails" in parsed.warnings[0]


CRITERION_STALE = FIX / "criterion" / "stale-run"


def test_criterion_leaves_out_results_of_an_earlier_run(tmp_path):
    """A full cargo bench, then 75 s later one benchmark by filter: target/criterion still holds
    the other six results of the first run; recorded, they passed for new measurements."""
    import shutil
    root = tmp_path / "criterion"
    shutil.copytree(CRITERION_STALE / "target" / "criterion", root)
    mtimes = json.loads((CRITERION_STALE / "mtimes.json").read_text())  # git does not keep them
    for rel, mtime in mtimes.items():
        os.utime(root / rel, (mtime, mtime))
    newest = max(mtimes, key=mtimes.get).split("/new/")[0]
    _, parsed = parse_file(str(root), "criterion")
    assert [m.benchmark for m in parsed.metrics] == [newest] == ["fib 10"]
    estimates = json.loads((root / "fib 10" / "new" / "estimates.json").read_text())
    assert parsed.metrics[0].value == estimates["mean"]["point_estimate"]
    assert len(parsed.warnings) == 1
    stale = {json.loads((root / rel).read_text())["full_id"] for rel in mtimes
             if rel.endswith("new/benchmark.json") and not rel.startswith("fib 10/")}
    assert len(stale) == 6 and all(repr(name) in parsed.warnings[0] for name in stale)
    # Written by one run (as when checked out), every result is kept.
    for rel in mtimes:
        os.utime(root / rel, (1e9, 1e9))
    _, parsed = parse_file(str(root), "criterion")
    assert len(parsed.metrics) == 7 and not parsed.warnings


def test_benchmark_js_failed_benchmark_is_named():
    """A thrown Error is stringified as "error": {} and the benchmark has no hz: the message said
    "missing field 'hz'" rather than which benchmark failed."""
    path = FIX / "benchmark-js" / "with-error" / "with-error.json"
    doc = json.loads(path.read_text())
    broken = next(i for i, b in enumerate(doc) if "error" in b)
    assert doc[broken]["error"] == {} and "hz" not in doc[broken]
    with pytest.raises(InputError) as info:
        parse_file(str(path), "benchmark-js")
    assert info.value.place == f"[{broken}].error" and "benchmark 'throws' failed" in str(info.value)


def test_hyperfine_failing_command_message_says_how_often_and_why():
    path = FIX / "hyperfine" / "failing" / "ignore-failure.json"
    results = json.loads(path.read_text())["results"]
    k = next(i for i, r in enumerate(results) if any(r["exit_codes"]))
    with pytest.raises(InputError) as info:
        parse_file(str(path), "hyperfine")
    message = str(info.value)
    assert info.value.place == f"results[{k}].exit_codes"
    runs = len(results[k]["exit_codes"])
    assert f"in {runs} of {runs} runs" in message and repr(results[k]["command"]) in message
    assert "-i" in message and "exit code 3" in message


def test_duplicate_benchmark_is_refused_where_it_appears_again():
    path = FIX / "hyperfine" / "same-name" / "same-name.json"
    assert [r["command"] for r in json.loads(path.read_text())["results"]] == ["same", "same"]
    with pytest.raises(InputError) as info:
        parse_file(str(path), "hyperfine")
    assert info.value.place == "results[1].command" and "first at results[0].command" in str(info.value)
    text = (LIBTEST_NIGHTLY / "four-benches.txt").read_text()
    line = next(k for k, t in enumerate(text.splitlines(), 1) if " ... bench:" in t)
    with pytest.raises(InputError) as info:
        get_adapter("rust-libtest").parse(text + text, "twice.txt")
    assert info.value.place == f"line {line + len(text.splitlines())}"
    assert f"first at line {line}" in str(info.value) and "appears twice" in str(info.value)


def test_benchmark_js_text_warns_of_a_failed_benchmark():
    """String(bench) of a benchmark that threw is 'throws: ': it was skipped without a word."""
    path = FIX / "benchmark-js" / "with-error" / "with-error.txt"
    lines = path.read_text().splitlines()
    failed = next(k for k, line in enumerate(lines, 1) if line == "throws: ")
    _, parsed = parse_file(str(path), "benchmark-js")
    assert len(parsed.metrics) == len(lines) - 1
    assert len(parsed.warnings) == 1 and parsed.warnings[0].startswith(f"line {failed}: 'throws: '")


def test_criterion_a_long_benchmark_does_not_make_the_one_before_it_stale():
    """The gap before a result may be as long as that benchmark ran (its samples and warm-up)."""
    from perfgate.adapters.criterion import RUN_GAP_S, _latest_run
    # written at 0 s and 100 s; the second ran 90 s (samples plus its longest iteration)
    assert _latest_run([0.0, 100.0], (1.0, 90.0)) == {0, 1}
    assert _latest_run([0.0, 100.0], (1.0, 100.0 - RUN_GAP_S - 1)) == {1}
