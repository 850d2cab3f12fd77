"""The harness adapters against real output of each harness (tests/fixtures/<harness>/).

Expected values are recomputed here from the fixture files with plain json / numpy, never copied
from the adapter's output, so a conversion or grouping mistake in an adapter fails a test.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from perfgate.adapters import parse_file
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
