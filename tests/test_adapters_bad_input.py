"""Bad harness output, adapter by adapter: every case must raise InputError naming the file and
the place, and ``perfgate ingest`` must exit 2 having written nothing.

Each case starts from the adapter's real fixture and breaks one thing in it.
"""

from __future__ import annotations

import copy
import json
import os
import shutil
from pathlib import Path

import pytest

from perfgate.adapters import base, parse_file
from perfgate.cli import main
from perfgate.errors import InputError
from perfgate.store.sqlite import SqliteStore

FIX = Path(__file__).resolve().parent / "fixtures"
NAN, INF = float("nan"), float("inf")
JSON_FIXTURES = {
    "pytest-benchmark": FIX / "pytest-benchmark" / "strings.json",
    "google-benchmark": FIX / "google-benchmark" / "sort-accumulate.json",
    "jmh": FIX / "jmh" / "string-bench.json",
    "benchmarkdotnet": FIX / "benchmarkdotnet" / "collection-bench-report-full.json",
    "asv": FIX / "asv" / "results" / "fixture-machine" / "49e99810-virtualenv-py3.11.json",
    "benchmark-js": FIX / "benchmark-js" / "suite.json",
    "github-action-benchmark": FIX / "github-action-benchmark" / "smaller-is-better.json",
}
CRITERION = FIX / "criterion" / "target" / "criterion"
GO = FIX / "go-bench" / "strings.txt"
# Text formats, by adapter (catch2's XML has its own cases below).
TEXT_FIXTURES = {
    "rust-libtest": FIX / "rust-libtest" / "criterion-bencher.txt",
    "catch2": FIX / "catch2" / "console.txt",
    "iai-callgrind": FIX / "iai-callgrind" / "second-run.txt",
}
CATCH2_XML = FIX / "catch2" / "benchmarks.xml"
BJS_TEXT = FIX / "benchmark-js" / "suite.txt"


def _set(path: list, value):
    """A mutation setting doc[path...] = value."""
    def mutate(doc):
        target = doc
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
    return mutate


def _first_avgt(doc):
    return next(i for i, e in enumerate(doc) if e["mode"] == "avgt")


def _result_row(doc):
    return next(k for k, r in enumerate(doc["Benchmarks"][0]["Measurements"]) if r["IterationStage"] == "Result")


# adapter -> [(case id, mutation(doc) or None to replace the document, expected place, reason fragment)]
JSON_CASES = {
    "pytest-benchmark": [
        ("wrong-type", _set(["benchmarks", 1, "stats", "mean"], "fast"), "benchmarks[1].stats.mean", "expected"),
        ("negative", _set(["benchmarks", 0, "stats", "data", 3], -1e-6), "benchmarks[0].stats.data[3]", "negative"),
        ("nan", _set(["benchmarks", 0, "stats", "mean"], NAN), "line ", "NaN"),
        ("infinite", _set(["benchmarks", 2, "stats", "data", 0], INF), "line ", "Infinity"),
        ("control-char", _set(["benchmarks", 0, "fullname"], "bench\x07mark"), "benchmarks[0].fullname", "control"),
        ("html", _set(["benchmarks", 0, "fullname"], "<img src=x onerror=alert(1)>"), "benchmarks[0].fullname", "HTML"),
        ("schema", _set(["benchmarks"], {"a": 1}), "benchmarks", "expected a list, got an object"),
    ],
    "google-benchmark": [
        ("wrong-type", _set(["benchmarks", 0, "real_time"], "fast"), "benchmarks[0].real_time", "expected"),
        ("negative", _set(["benchmarks", 1, "real_time"], -5.0), "benchmarks[1].real_time", "negative"),
        ("nan", _set(["benchmarks", 2, "real_time"], NAN), "line ", "NaN"),
        ("control-char", _set(["benchmarks", 0, "name"], "BM_\x1b[31mred"), "benchmarks[0].name", "control"),
        ("html", _set(["benchmarks", 0, "name"], "<script>alert(1)</script>"), "benchmarks[0].name", "HTML"),
        ("schema", _set(["benchmarks", 0, "time_unit"], "fortnights"), "benchmarks[0].time_unit", "time unit"),
        ("failed-run", _set(["benchmarks", 0, "error_occurred"], True), "benchmarks[0]", "failed"),
    ],
    "jmh": [
        ("wrong-type", _set([0, "primaryMetric", "score"], "fast"), "[0].primaryMetric.score", "expected"),
        ("negative", lambda d: _set([_first_avgt(d), "primaryMetric", "score"], -3.0)(d),
         "primaryMetric.score", "negative"),
        ("nan", _set([0, "primaryMetric", "rawData", 0, 1], NAN), "line ", "NaN"),
        ("control-char", _set([0, "benchmark"], "a.B.c\x00"), "[0].benchmark", "control"),
        ("html", _set([0, "benchmark"], "a.B.<svg onload=alert(1)>"), "[0].benchmark", "HTML"),
        ("schema", _set([0, "primaryMetric", "scoreUnit"], "furlongs/op"), "[0].primaryMetric.scoreUnit", "unit"),
    ],
    "benchmarkdotnet": [
        ("wrong-type", _set(["Benchmarks", 0, "Statistics", "Mean"], "fast"), "Benchmarks[0].Statistics.Mean", "expected"),
        ("negative", lambda d: _set(["Benchmarks", 0, "Measurements", _result_row(d), "Nanoseconds"], -10.0)(d),
         "Benchmarks[0].Measurements[", "negative"),
        ("nan", _set(["Benchmarks", 1, "Statistics", "Mean"], NAN), "line ", "NaN"),
        ("control-char", _set(["Benchmarks", 0, "FullName"], "A.B\x7f"), "Benchmarks[0].FullName", "control"),
        ("html", _set(["Benchmarks", 0, "FullName"], "A.<iframe src=x>"), "Benchmarks[0].FullName", "HTML"),
        ("schema", _set(["Benchmarks", 0, "Statistics"], None), "Benchmarks[0].Statistics", "no statistics"),
        ("old-without-method", lambda d: [b.pop(k) for b in d["Benchmarks"] for k in ("FullName", "DisplayInfo")]
         and d["Benchmarks"][0].pop("Method"), "Benchmarks[0]", "'Method'"),
        ("original-values", lambda d: [d["Benchmarks"][0].pop("Measurements"),
                                       d["Benchmarks"][0]["Statistics"]["OriginalValues"].__setitem__(4, -2.0)],
         "Benchmarks[0].Statistics.OriginalValues[4]", "negative"),
    ],
    "asv": [
        ("wrong-type", _set(["results", "bench_strings.time_sorted_range", 0, 0], "fast"),
         "results.bench_strings.time_sorted_range[0][0]", "expected"),
        ("negative", _set(["results", "bench_strings.TimeJoin.time_join", 0, 2], -1e-6),
         "results.bench_strings.TimeJoin.time_join[0][2]", "negative"),
        ("nan", _set(["results", "bench_strings.TimeJoin.time_join", 11, 0, 1], NAN), "line ", "NaN"),
        ("control-char", lambda d: d["results"].__setitem__("bench\x07.time_x", d["results"]["bench_strings.time_sorted_range"]),
         "results.bench", "control"),
        ("html", lambda d: d["results"].__setitem__("b.<script>time_x</script>", d["results"]["bench_strings.time_sorted_range"]),
         "results.b.<script>", "HTML"),
        ("schema", _set(["version"], 1), "version", "schema version 1"),
        ("params-mismatch", lambda d: d["results"]["bench_strings.TimeJoin.time_join"][0].pop(),
         "results.bench_strings.TimeJoin.time_join[0]", "expected a list of 4"),
        ("unknown-type", lambda d: d["results"].__setitem__("b.bench_x", d["results"]["bench_strings.time_sorted_range"]),
         "results.b.bench_x", "unknown benchmark type"),
    ],
    "benchmark-js": [
        ("wrong-type", _set([1, "hz"], "fast"), "[1].hz", "expected"),
        ("negative", _set([0, "stats", "sample", 3], -1e-6), "[0].stats.sample[3]", "negative"),
        ("nan", _set([2, "stats", "mean"], NAN), "line ", "NaN"),
        ("control-char", _set([0, "name"], "join\x1b[31m"), "[0].name", "control"),
        ("html", _set([0, "name"], "<iframe src=x>"), "[0].name", "HTML"),
        ("schema", _set([0, "stats"], [1, 2]), "[0].stats", "expected an object, got a list"),
        ("failed", _set([1, "error"], {"message": "boom"}), "[1].error", "failed"),
    ],
    "github-action-benchmark": [
        ("wrong-type", _set([0, "value"], "50"), "[0].value", "expected"),
        ("negative", _set([2, "value"], -3), "[2].value", "negative"),
        ("nan", _set([1, "value"], NAN), "line ", "NaN"),
        ("control-char", _set([1, "name"], "mem\x00"), "[1].name", "control"),
        ("html", _set([1, "name"], "<script>alert(1)</script>"), "[1].name", "HTML"),
        ("schema", lambda d: d[0].pop("unit"), "[0]", "missing field 'unit'"),
        ("extra-type", _set([1, "extra"], {"a": 1}), "[1].extra", "expected a string, got an object"),
    ],
}


def stored_runs(store_path: Path) -> int:
    if not store_path.exists():
        return 0
    with SqliteStore(store_path, "default") as store:
        return len(store.runs())


def assert_refused(path: Path, adapter: str, place: str, reason: str, store_path: Path, capsys,
                   named: Path | None = None) -> None:
    """parse_file raises InputError naming file and place; ``perfgate ingest`` exits 2, writes nothing."""
    named = named or path
    with pytest.raises(InputError) as info:
        parse_file(str(path), adapter)
    message = str(info.value)
    assert str(named) in message and place in info.value.place and reason in message, message
    code = main(["ingest", str(path), "--adapter", adapter, "--store", f"sqlite:{store_path}",
                 "--branch", "main", "--commit", "c" * 40])
    err = capsys.readouterr().err
    assert code == 2 and str(named) in err and place in err, err
    assert "Traceback" not in err
    assert stored_runs(store_path) == 0


def _dump(doc) -> str:
    return json.dumps(doc, indent=1)  # writes NaN / Infinity literals, as a broken harness would


@pytest.mark.parametrize("adapter,case,mutate,place,reason",
                         [(a, *c) for a, cases in JSON_CASES.items() for c in cases],
                         ids=[f"{a}-{c[0]}" for a, cases in JSON_CASES.items() for c in cases])
def test_json_adapter_refuses(adapter, case, mutate, place, reason, tmp_path, store_path, capsys):
    doc = copy.deepcopy(json.loads(JSON_FIXTURES[adapter].read_text()))
    mutate(doc)
    bad = tmp_path / f"{case}.json"
    bad.write_text(_dump(doc))
    assert_refused(bad, adapter, place, reason, store_path, capsys)


@pytest.mark.parametrize("adapter", sorted(JSON_FIXTURES))
def test_truncated_json(adapter, tmp_path, store_path, capsys):
    text = JSON_FIXTURES[adapter].read_text()
    bad = tmp_path / "truncated.json"
    bad.write_text(text[: len(text) // 2])
    assert_refused(bad, adapter, "line ", "invalid JSON", store_path, capsys)


@pytest.mark.parametrize("adapter", sorted(JSON_FIXTURES) + sorted(TEXT_FIXTURES) + ["go-bench"])
def test_not_utf8(adapter, tmp_path, store_path, capsys):
    data = (JSON_FIXTURES.get(adapter) or TEXT_FIXTURES.get(adapter) or GO).read_bytes()
    bad = tmp_path / "latin1.out"
    bad.write_bytes(data[:150] + b"\xff\xfe" + data[150:])
    assert_refused(bad, adapter, "byte 150", "not valid UTF-8", store_path, capsys)


@pytest.mark.parametrize("adapter", sorted(JSON_FIXTURES) + sorted(TEXT_FIXTURES) + ["go-bench"])
def test_file_over_the_size_limit(adapter, monkeypatch, tmp_path, store_path, capsys):
    path = JSON_FIXTURES.get(adapter) or TEXT_FIXTURES.get(adapter) or GO
    monkeypatch.setattr(base, "MAX_INPUT_BYTES", path.stat().st_size - 1)
    assert_refused(path, adapter, "", "-byte limit", store_path, capsys)


# --- go test -bench text --------------------------------------------------------------------------

GO_CASES = [
    ("truncated-pair", "BenchmarkCut-2   \t 20000\t  344.9 ns/op\t  64", "value/unit pairs"),
    ("wrong-type", "BenchmarkX-2   20000   fast ns/op", "not a number"),
    ("negative", "BenchmarkX-2   20000   -12.5 ns/op", "negative"),
    ("nan", "BenchmarkX-2   20000   NaN ns/op", "NaN"),
    ("infinite", "BenchmarkX-2   20000   1e999 ns/op", "infinite"),
    ("control-char", "BenchmarkX\x07-2   20000   12.5 ns/op", "control"),
    ("html", "Benchmark<script>alert(1)</script>-2   20000   12.5 ns/op", "HTML"),
    ("failed", "--- FAIL: BenchmarkX-2", "failed"),
]


@pytest.mark.parametrize("case,line,reason", GO_CASES, ids=[c[0] for c in GO_CASES])
def test_go_bench_refuses(case, line, reason, tmp_path, store_path, capsys):
    lines = GO.read_text().splitlines()
    lines.insert(7, line)  # after the header and two good result lines
    bad = tmp_path / "bench.txt"
    bad.write_text("\n".join(lines) + "\n")
    assert_refused(bad, "go-bench", "line 8", reason, store_path, capsys)


# --- criterion directories --------------------------------------------------------------------------

def _criterion_copy(tmp_path: Path) -> Path:
    root = tmp_path / "criterion"
    shutil.copytree(CRITERION, root)
    return root


CRITERION_CASES = [
    ("wrong-type", "estimates.json", lambda d: d["mean"].__setitem__("point_estimate", "fast"), "mean.point_estimate", "expected"),
    ("negative", "sample.json", lambda d: d["times"].__setitem__(2, -1.0), "times[2]", "negative"),
    ("nan", "sample.json", lambda d: d["times"].__setitem__(0, NAN), "line ", "NaN"),
    ("zero-iters", "sample.json", lambda d: d["iters"].__setitem__(1, 0.0), "iters[1]", "positive"),
    ("control-char", "benchmark.json", lambda d: d.__setitem__("full_id", "fib\x1b"), "full_id", "control"),
    ("html", "benchmark.json", lambda d: d.__setitem__("full_id", "<script>x</script>"), "full_id", "HTML"),
    ("schema", "estimates.json", lambda d: d.__setitem__("mean", [1, 2]), "mean", "expected an object, got a list"),
]


@pytest.mark.parametrize("case,filename,mutate,place,reason", CRITERION_CASES, ids=[c[0] for c in CRITERION_CASES])
def test_criterion_refuses(case, filename, mutate, place, reason, tmp_path, store_path, capsys):
    root = _criterion_copy(tmp_path)
    target = root / "fib_iterative" / "80" / "new" / filename
    doc = json.loads(target.read_text())
    mutate(doc)
    target.write_text(_dump(doc))
    assert_refused(root, "criterion", place, reason, store_path, capsys, named=target)


def test_criterion_truncated_non_utf8_and_huge(monkeypatch, tmp_path, store_path, capsys):
    root = _criterion_copy(tmp_path)
    target = root / "fib_recursive_15" / "new" / "sample.json"
    good = target.read_bytes()
    target.write_bytes(good[: len(good) // 2])
    assert_refused(root, "criterion", "line ", "invalid JSON", store_path, capsys, named=target)
    target.write_bytes(good[:20] + b"\xc3\x28" + good[20:])
    assert_refused(root, "criterion", "byte 20", "not valid UTF-8", store_path, capsys, named=target)
    target.write_bytes(good)
    monkeypatch.setattr(base, "MAX_INPUT_BYTES", 300)  # every estimates.json is bigger than this
    with pytest.raises(InputError, match="-byte limit"):
        parse_file(str(root), "criterion")


def test_criterion_missing_file_and_empty_directory(tmp_path, store_path, capsys):
    root = _criterion_copy(tmp_path)
    missing = root / "fib_iterative" / "10" / "new" / "sample.json"
    missing.unlink()
    assert_refused(root, "criterion", "", "missing", store_path, capsys, named=missing)
    missing.symlink_to("/dev/zero")       # an audit: this was "missing" too
    assert_refused(root, "criterion", "", "is a character device; perfgate reads regular files", store_path, capsys,
                   named=missing)
    empty = tmp_path / "empty"
    empty.mkdir()
    assert_refused(empty, "criterion", "", "no criterion results", store_path, capsys)


def test_criterion_result_directory_without_estimates_is_refused(monkeypatch, tmp_path, store_path, capsys):
    # A half-copied target/criterion: the benchmark's new/ holds benchmark.json and sample.json
    # but no estimates.json.  It was skipped without a word, so the benchmark vanished from the run.
    root = _criterion_copy(tmp_path)
    missing = root / "fib_iterative" / "10" / "new" / "estimates.json"
    missing.unlink()
    assert_refused(root, "criterion", "", "missing: a criterion result directory holds", store_path, capsys,
                   named=missing)
    assert_refused(missing.parent, "criterion", "", "missing", store_path, capsys, named=missing)  # new/ itself
    code = main(["ingest", str(root), "--store", f"sqlite:{store_path}", "--branch", "main", "--commit", "c" * 40])
    assert code == 2 and str(missing) in capsys.readouterr().err   # auto: still criterion, and refused
    for name in ("benchmark.json", "sample.json"):   # new/ emptied but for criterion's tukey.json
        (missing.parent / name).unlink()
    (missing.parent / "tukey.json").write_text("[1.0, 2.0, 3.0, 4.0]")
    assert_refused(root, "criterion", "", "missing", store_path, capsys, named=missing.parent / "benchmark.json")
    # a benchmark directory that cannot be listed was skipped too (os.walk ignores it)
    (missing.parent / "tukey.json").unlink()
    shutil.rmtree(missing.parent)
    shutil.copytree(CRITERION / "fib_iterative" / "10" / "new", missing.parent)
    hidden, scandir = root / "fib_iterative" / "10", os.scandir

    def unreadable(path="."):   # as chmod 0 would make it, which the root user running tests reads anyway
        if Path(path) == hidden:
            raise PermissionError(13, "Permission denied", str(path))
        return scandir(path)
    with monkeypatch.context() as m:
        m.setattr(os, "scandir", unreadable)
        assert_refused(root, "criterion", "", "cannot read: Permission denied", store_path, capsys, named=hidden)
    # a benchmark group called "new" is a directory of that name holding no results: not one
    group = _criterion_copy(tmp_path / "group")
    shutil.move(str(group / "fib_iterative"), str(group / "new"))
    assert sorted(m.benchmark for m in parse_file(str(group), "criterion")[1].metrics) == \
        ["fib_iterative/10", "fib_iterative/80", "fib_recursive_15"]


def test_criterion_benchmark_without_new_is_left_out_with_a_warning(tmp_path, store_path, capsys):
    # A benchmark directory holding base/ or report/ but no new/ (a partial copy, or a benchmark the
    # run did not measure) was skipped without a word: the benchmark vanished from the run.
    root = _criterion_copy(tmp_path)
    bench = root / "fib_iterative" / "10"
    (bench / "new").rename(bench / "base")
    for report in (bench / "report", root / "fib_iterative" / "report", root / "report"):
        report.mkdir()       # the benchmark's, its group's (beside its benchmarks) and the index
        (report / "index.html").write_text("<html></html>")
    _, parsed = parse_file(str(root), "criterion")
    assert sorted(m.benchmark for m in parsed.metrics) == ["fib_iterative/80", "fib_recursive_15"]
    (warning,) = parsed.warnings
    assert warning.startswith("left out 1 benchmark(s) with no new/ result") and \
        "'fib_iterative/10' (base/, report/)" in warning
    (bench / "new").mkdir()      # an empty new/ beside them is no result either
    assert "'fib_iterative/10' (base/, report/);" in parse_file(str(root), "criterion")[1].warnings[0]
    shutil.rmtree(bench / "base")
    assert "'fib_iterative/10' (report/);" in parse_file(str(root), "criterion")[1].warnings[0]
    code = main(["ingest", str(root), "--store", f"sqlite:{tmp_path / 'kept.db'}", "--branch", "main",
                 "--commit", "c" * 40])
    assert code == 0 and "'fib_iterative/10' (report/)" in capsys.readouterr().err
    # With no new/ anywhere, the error names what is there instead.
    only = _criterion_copy(tmp_path / "only")
    for new in sorted(only.glob("**/new")):
        new.rename(new.parent / "base")
    assert_refused(only, "criterion", "", "no criterion results here (looked for */new/estimates.json); benchmark "
                   "directories without new/: 'fib_iterative/10' (base/), 'fib_iterative/80' (base/), "
                   "'fib_recursive_15' (base/)", store_path, capsys)
    code = main(["ingest", str(only), "--store", f"sqlite:{store_path}", "--branch", "main", "--commit", "c" * 40])
    assert code == 2 and "without new/" in capsys.readouterr().err      # auto-detected as criterion's


def test_one_bad_file_among_good_ones_writes_nothing(tmp_path, store_path, capsys):
    bad = tmp_path / "bad.txt"
    bad.write_text(GO.read_text().replace("64 B/op", "-64 B/op", 1))
    code = main(["ingest", str(JSON_FIXTURES["google-benchmark"]), str(CRITERION), str(bad),
                 "--store", f"sqlite:{store_path}", "--branch", "main", "--commit", "d" * 40])
    assert code == 2 and str(bad) in capsys.readouterr().err
    assert stored_runs(store_path) == 0


def test_directory_given_to_a_file_adapter(store_path, capsys):
    assert_refused(CRITERION, "jmh", "", "is a directory", store_path, capsys)


def test_hyperfine_exit_codes_of_the_wrong_type(tmp_path, store_path, capsys):
    doc = json.loads((FIX / "hyperfine" / "two-commands.json").read_text())
    doc["results"][0]["exit_codes"] = True
    bad = tmp_path / "hyperfine.json"
    bad.write_text(_dump(doc))
    assert_refused(bad, "hyperfine", "results[0].exit_codes", "expected", store_path, capsys)


def test_hyperfine_time_too_large_for_nanoseconds_is_out_of_range_not_infinite(tmp_path, store_path, capsys):
    # 1e305 s is finite, but not in nanoseconds: it overflowed while being scaled, and was
    # reported as "infinite" (with a RuntimeWarning).
    doc = json.loads((FIX / "hyperfine" / "two-commands.json").read_text())
    doc["results"][1]["times"][2] = 1e305
    bad = tmp_path / "hyperfine.json"
    bad.write_text(_dump(doc))
    assert_refused(bad, "hyperfine", "results[1].times[2]", "1e+305 s is out of range", store_path, capsys)


# --- text formats added for issue 9: one line of the real fixture replaced ------------------------

# (adapter, 1-based line replaced, new line, reason fragment)
TEXT_CASES = [
    ("rust-libtest", 1, "test bad ... bench:        -12 ns/iter (+/- 3)", "unreadable"),
    ("rust-libtest", 1, "test bad ... bench:        NaN ns/iter (+/- 3)", "unreadable"),
    ("rust-libtest", 1, f"test big ... bench: {'9' * 400} ns/iter (+/- 3)", "infinite"),
    ("rust-libtest", 1, "test fib\x07 ... bench:        12 ns/iter (+/- 3)", "control"),
    ("rust-libtest", 1, "test <script>alert(1)</script> ... bench: 12 ns/iter (+/- 3)", "HTML"),
    ("rust-libtest", 1, "test fib ... bench:        12 ms/iter (+/- 3)", "ns/iter"),
    ("rust-libtest", 1, "test fib ... FAILED", "failed"),
    ("catch2", 17, "                                         fast ns    781.639 ns    817.137 ns ", "mean and std dev"),
    ("catch2", 16, "fib\x1b[31m 15                                  20            19     975.46 us ", "control"),
    ("catch2", 16, "<script>x</script>                              20            19     975.46 us ", "HTML"),
    ("catch2", 17, "                                         1e999 ns    781.639 ns    817.137 ns ", "infinite"),
    ("catch2", 17, "                                         1.0 ns    781.639 ns    817.137 ns ", "does not contain"),
    ("catch2", 45, "test cases: 2 | 1 passed | 1 failed", "failed"),
    ("catch2", 17, "                                         1.2.3 ns    781.639 ns    817.137 ns ", "not a number"),
    ("iai-callgrind", 2, f"  Instructions:   {'9' * 400}|1802   (No change)", "infinite"),
    ("iai-callgrind", 3, "  Instructions:   1802|1802   (No change)", "appears twice"),
    ("iai-callgrind", 1, "fib::fib_group::bench\x00 short:10", "control"),
    ("iai-callgrind", 1, "fib::fib_group::<svg onload=x> short:10", "HTML"),
    ("iai-callgrind", 2, "  Instructions:   fast|1802   (No change)", "unreadable"),
    ("iai-callgrind", 2, "  Instructions:   1.2.3|1802   (No change)", "not a number"),
    ("benchmark-js", 1, "Array#join x fast ops/sec ±11.20% (29 runs sampled)", "unreadable"),
    # two numbers run together (found by the fuzz test): a ValueError from float() before
    ("benchmark-js", 1, "Array#join x 27,680 ops/sec ±14.9419.52% (29 runs sampled)", "unreadable"),
    ("benchmark-js", 1, f"Array#join x {'9' * 400} ops/sec ±11.20% (29 runs sampled)", "infinite"),
    ("benchmark-js", 1, "Array\x07join x 27,680 ops/sec ±11.20% (29 runs sampled)", "control"),
    ("benchmark-js", 1, "<img src=x> x 27,680 ops/sec ±11.20% (29 runs sampled)", "HTML"),
]


@pytest.mark.parametrize("adapter,lineno,line,reason", TEXT_CASES,
                         ids=[f"{c[0]}-{k}" for k, c in enumerate(TEXT_CASES)])
def test_text_adapter_refuses(adapter, lineno, line, reason, tmp_path, store_path, capsys):
    source = BJS_TEXT if adapter == "benchmark-js" else TEXT_FIXTURES[adapter]
    lines = source.read_text().splitlines()
    lines[lineno - 1] = line
    bad = tmp_path / "out.txt"
    bad.write_text("\n".join(lines) + "\n")
    assert_refused(bad, adapter, f"line {lineno}", reason, store_path, capsys)


# (adapter, fixture, bytes kept): an audit cut each mid-line; recorded, a scaling table's 97669568
# read 976, and the other formats silently lost the benchmarks after the cut
CUT_CASES = [
    ("scaling-tsv", FIX / "scaling-tsv" / "synthetic-knee.tsv", -6),
    ("rust-libtest", TEXT_FIXTURES["rust-libtest"], -20),
    ("catch2", TEXT_FIXTURES["catch2"], 1200),
    ("iai-callgrind", FIX / "iai-callgrind" / "first-run.txt", 150),
    ("benchmark-js", BJS_TEXT, -30),
]


@pytest.mark.parametrize("adapter,fixture,keep", CUT_CASES, ids=[c[0] for c in CUT_CASES])
def test_a_text_output_cut_mid_line_is_refused(adapter, fixture, keep, tmp_path, store_path, capsys):
    data = fixture.read_bytes()[:keep]
    assert not data.endswith(b"\n")
    bad = tmp_path / "cut.txt"
    bad.write_bytes(data)
    last = data.count(b"\n") + 1
    assert_refused(bad, adapter, f"line {last}", "ends mid-line: the output was cut short", store_path, capsys)


def test_a_catch2_benchmark_cut_before_its_mean_row_is_refused(tmp_path, store_path, capsys):
    lines = TEXT_FIXTURES["catch2"].read_text().splitlines()
    bad = tmp_path / "cut.txt"
    bad.write_text("\n".join(lines[:16]) + "\n")          # cut at a line end, after "fib 15"'s first row
    assert_refused(bad, "catch2", "line 16", "has no mean and std dev rows: the output was cut short", store_path, capsys)


def test_catch2_console_fixture_lines_are_where_the_cases_expect():
    lines = TEXT_FIXTURES["catch2"].read_text().splitlines()
    assert lines[15].startswith("fib 15 ") and lines[16].split()[1] in ("ns", "us") and lines[44].startswith("test cases:")
    assert TEXT_FIXTURES["iai-callgrind"].read_text().splitlines()[1].lstrip().startswith("Instructions:")


XML_CASES = [
    ("nan", ('value="', 'value="nan" old="'), "mean.value", "NaN"),
    ("negative", ('lowerBound="', 'lowerBound="-5" old="'), "mean.lowerBound", "negative"),
    ("wrong-type", ('upperBound="', 'upperBound="fast" old="'), "mean.upperBound", "not a number"),
    ("html", ('name="fib 15"', 'name="&lt;script&gt;alert(1)&lt;/script&gt;"'), "BenchmarkResults[0]", "HTML"),
    ("control-char", ('name="fib 15"', 'name="fib&#9;15"'), "BenchmarkResults[0]", "control"),
    ("invalid-character", ('name="fib 15"', 'name="fib&#7;15"'), "line 5", "invalid XML"),
    ("failed", ('<OverallResult success="true"/>', '<OverallResult success="false"/>'), "TestCase[0]", "failed"),
    ("doctype", ('<Catch ', '<!DOCTYPE x [<!ENTITY a "aaaa">]><Catch '), "", "DOCTYPE"),
    ("truncated", None, "line ", "invalid XML"),
    ("schema", ('<mean ', '<average '), "BenchmarkResults[0]", "<mean>"),
]


@pytest.mark.parametrize("case,edit,place,reason", XML_CASES, ids=[c[0] for c in XML_CASES])
def test_catch2_xml_refuses(case, edit, place, reason, tmp_path, store_path, capsys):
    text = CATCH2_XML.read_text()
    text = text[: len(text) // 2] if edit is None else text.replace(*edit, 1)
    bad = tmp_path / "catch2.xml"
    bad.write_text(text)
    assert_refused(bad, "catch2", place, reason, store_path, capsys)


@pytest.mark.parametrize("adapter", ["auto", "hyperfine"])
def test_an_empty_output_says_it_is_empty(tmp_path, store_path, capsys, adapter):
    # hyperfine on a missing input leaves an empty --export-json file; "format not recognised;
    # tried ..." did not say that nothing was written.
    empty = tmp_path / "out.json"
    empty.write_text("\n")
    assert_refused(empty, adapter, "", "the file is empty", store_path, capsys)


# A benchmark given twice in one file: refused where it appears again, naming the first place
# (the run-wide check at ingest knew neither).  (adapter, list in the document, name field, place)
DUPLICATE_CASES = [
    ("pytest-benchmark", ["benchmarks"], "benchmarks[{k}].fullname"),
    ("jmh", [], "[{k}]"),
    ("benchmarkdotnet", ["Benchmarks"], "Benchmarks[{k}]"),
    ("benchmark-js", [], "[{k}].name"),
]


@pytest.mark.parametrize("adapter,path,place", DUPLICATE_CASES, ids=[c[0] for c in DUPLICATE_CASES])
def test_duplicate_benchmark_names_its_places(adapter, path, place, tmp_path, store_path, capsys):
    doc = json.loads(JSON_FIXTURES[adapter].read_text())
    entries = doc
    for key in path:
        entries = entries[key]
    entries.append(copy.deepcopy(entries[0]))
    bad = tmp_path / "twice.json"
    bad.write_text(json.dumps(doc))
    assert_refused(bad, adapter, place.format(k=len(entries) - 1), f"first at {place.format(k=0)}", store_path, capsys)


def test_catch2_duplicate_benchmark_names_its_places(tmp_path, store_path, capsys):
    text = CATCH2_XML.read_text()
    bad = tmp_path / "catch2.xml"
    bad.write_text(text.replace('name="fib 20"', 'name="fib 15"', 1))
    assert_refused(bad, "catch2", "BenchmarkResults[1]", "first at", store_path, capsys)
