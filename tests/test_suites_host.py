"""Host smoke tests of the benchmark suites in benches/: each builds with the host's
toolchain (cached under the suite's target/ or build/), runs a short deterministic workload, and
its output goes through the perfgate adapter its manifest names.  Assertions are on structure and
on deterministic quantities (bytes, counts, checksums), never on timings.

A suite whose toolchain is missing here is skipped with the reason; in CI the images build them.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from perfgate.adapters import get_adapter
from perfgate.commands.check import scaling_points
from perfgate.containers.manifest import discover
from perfgate.containers.runner import SuiteResult

ROOT = Path(__file__).resolve().parent.parent
BENCHES = ROOT / "benches"
SUITES = ("async-deinit", "tree-alloc", "executor-latency", "async-overhead", "swift-runtime")


def _run(args: list[str], cwd: Path, env: dict | None = None, timeout: float = 300) -> subprocess.CompletedProcess:
    # The outer pytest's PYTEST_* variables (an xdist worker's among them) would make an inner
    # pytest-benchmark run believe it is a worker and skip writing its JSON.
    clean = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    proc = subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=timeout,
                          env={**clean, **(env or {})})
    if proc.returncode != 0:
        raise AssertionError(f"{' '.join(args)} exited {proc.returncode} in {cwd}:\n{proc.stderr[-3000:]}")
    return proc


def _need(tool: str) -> None:
    if shutil.which(tool) is None:
        pytest.skip(f"{tool} is not installed on this host (the suite's image has it)")


@pytest.fixture(scope="module")
def cargo_suites() -> dict[str, Path]:
    """Build both Rust suites once (release, --locked against crates.io)."""
    _need("cargo")
    built = {}
    for name in ("async-deinit", "executor-latency"):
        folder = BENCHES / name
        try:
            _run(["./build.sh"], folder, env={"PERFGATE_CARGO_DEBIAN": "0"}, timeout=600)
        except AssertionError as e:
            if "failed to get" in str(e) or "download" in str(e).lower():
                pytest.skip(f"crates for {name} could not be fetched: {str(e)[-300:]}")
            raise
        built[name] = folder / "target" / "release" / name
    return built


def test_every_manifest_loads_and_names_its_suite():
    suites = {s.name: s for s in discover(BENCHES)}
    for name in SUITES:
        assert name in suites, f"benches/{name}/bench.toml missing or not discovered"
        suite = suites[name]
        assert set(suite.commands) == {"quick", "full"}
        assert suite.probes, f"{name} has no probes"
        assert (ROOT / "docker" / "images" / suite.image / "Dockerfile").is_file()
        get_adapter(suite.adapter)  # the adapter it names exists


# --- async-deinit -------------------------------------------------------------------------------

def test_gen_points_reproduces_the_committed_inputs():
    folder = BENCHES / "async-deinit"
    for name in ("inputs-quick.txt", "inputs-full.txt"):
        committed = (folder / "data" / name).read_text()
        args = committed.splitlines()[0].removeprefix("# gen_points.py ").split()
        out = _run([sys.executable, "gen_points.py", *args], folder).stdout
        assert out == committed, f"data/{name} is not what its header's command generates"


def test_gen_points_logarithmic_spacing_is_log_uniform():
    out = _run([sys.executable, "gen_points.py", "--values", "3:3", "--objects", "10:10000:logarithmic",
                "--points", "2000", "--seed", "7"], BENCHES / "async-deinit").stdout
    rows = [tuple(map(int, line.split())) for line in out.splitlines() if not line.startswith("#")]
    assert len(rows) == 2000 and {v for v, _ in rows} == {3}
    objects = sorted(o for _, o in rows)
    assert objects[0] >= 10 and objects[-1] <= 10000
    # Log-uniform on [10, 10^4]: the median is near the geometric mean 316 (a linear draw: ~5000),
    # and each decade holds about a third of the points.
    assert 250 < objects[1000] < 400
    for low, high in ((10, 100), (100, 1000), (1000, 10001)):
        share = sum(low <= o < high for o in objects) / len(objects)
        assert 0.28 < share < 0.39, (low, high, share)


def test_gen_points_rejects_a_bad_range():
    proc = subprocess.run([sys.executable, "gen_points.py", "--values", "5:1"], cwd=BENCHES / "async-deinit",
                          capture_output=True, text=True)
    assert proc.returncode == 2 and "MIN <= MAX" in proc.stderr


def test_async_deinit_unit_tests_pass(cargo_suites):
    _run(["cargo", "test", "--release", "--locked", "-q"], BENCHES / "async-deinit", timeout=600)


@pytest.mark.parametrize("bench,queue,set_kind", [
    ("async_array", "linear", "hash"), ("async_tree", "quadratic", "hash"),
    ("copy_array", "linear", "btree"), ("copy_tree", "linear", "hash"),
])
def test_async_deinit_writes_seed_tsv_the_adapter_reads(cargo_suites, tmp_path, bench, queue, set_kind):
    inputs = tmp_path / "inputs.txt"
    inputs.write_text("# values objects\n0\t10\n7\t300\n50\t2500\n")
    proc = _run([str(cargo_suites["async-deinit"]), bench, str(inputs)], BENCHES / "async-deinit",
                env={"QUEUE": queue, "SET": set_kind})
    lines = proc.stdout.splitlines()
    assert lines[0] == f"# {bench} {inputs} --queue={queue} --set={set_kind}"
    assert lines[1:3] == ["#", "# values objects Δschedule(ns) Δtotal(ns)"]
    table = get_adapter("scaling-tsv").parse_table(proc.stdout, "stdout")
    assert table.name == bench and table.delta
    assert list(table.params["values"]) == [0, 7, 50] and list(table.params["objects"]) == [10, 300, 2500]
    assert set(table.phases) == {"schedule", "total"}


def test_async_deinit_rejects_bad_input_with_line_and_exit_2(cargo_suites, tmp_path):
    bad = tmp_path / "inputs.txt"
    bad.write_text("# values objects\n3\t10\n3\tten\n")
    proc = subprocess.run([str(cargo_suites["async-deinit"]), "async_array", str(bad)], capture_output=True, text=True)
    assert proc.returncode == 2
    assert f"{bad}: line 3" in proc.stderr and "not a whole number" in proc.stderr
    assert proc.stdout == ""  # nothing half-written
    proc = subprocess.run([str(cargo_suites["async-deinit"]), "async_array", "--point", "1:1"],
                          capture_output=True, text=True, env={**os.environ, "QUEUE": "fancy"})
    assert proc.returncode == 2 and "QUEUE" in proc.stderr


# --- executor-latency ---------------------------------------------------------------------------

EXECUTOR_KINDS = ("embassy", "tokio", "thread")


def test_executor_latency_probe_runs_the_fixed_work(cargo_suites):
    for kind in EXECUTOR_KINDS:
        proc = _run([str(cargo_suites["executor-latency"]), "--probe", kind, "7"], BENCHES / "executor-latency")
        assert proc.stdout.strip() == "7 units, 21 iterations, sum 21", kind


def test_executor_latency_probes_every_kind_it_runs():
    suite = {s.name: s for s in discover(BENCHES)}["executor-latency"]
    assert {p.benchmark for p in suite.probes} == {f"delay/{k}/volume=100" for k in EXECUTOR_KINDS}


def test_executor_latency_refuses_more_units_than_embassys_pool(cargo_suites):
    for args in (["--probe", "embassy", "401"], ["--volumes", "10,401"], ["--kinds", "embassy,fibers"]):
        proc = subprocess.run([str(cargo_suites["executor-latency"]), *args], capture_output=True, text=True)
        assert proc.returncode == 2, args
        assert ("401" in proc.stderr and "pool" in proc.stderr) or "fibers" in proc.stderr
        assert proc.stdout == ""


def test_executor_latency_writes_bmf(cargo_suites, tmp_path):
    out = tmp_path / "results.json"
    _run([str(cargo_suites["executor-latency"]), "--secs", "0.2", "--volumes", "2", "--works", "10", "--out", str(out)],
         BENCHES / "executor-latency")
    parsed = get_adapter("bmf").parse(out.read_text(), str(out))
    got = {(m.benchmark, m.measure) for m in parsed.metrics}
    assert got == {(f"{phase}/{kind}/volume=2", measure) for kind in EXECUTOR_KINDS
                   for phase, measure in (("delay", "latency"), ("delay", "throughput"), ("atomic-sum", "throughput"))}
    for m in parsed.metrics:
        if m.measure == "latency":
            assert m.lower <= m.value <= m.upper


# --- tree-alloc ---------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def tree_alloc() -> Path:
    _need("make")
    _need("g++")
    if not Path("/usr/include/benchmark/benchmark.h").is_file():
        pytest.skip("Google Benchmark headers missing (apt-get install libbenchmark-dev)")
    folder = BENCHES / "tree-alloc"
    _run(["make", "-j2"], folder, timeout=600)
    return folder


def test_tree_alloc_probe_builds_identical_trees_both_ways(tree_alloc):
    sums = {kind: _run(["./build/tree_alloc_probe", kind, "5000"], tree_alloc).stdout for kind in ("pointer", "buffer")}
    assert sums["pointer"] == sums["buffer"] and sums["pointer"].startswith("checksum ")
    proc = subprocess.run(["./build/tree_alloc_probe", "pointer", "many"], cwd=tree_alloc, capture_output=True, text=True)
    assert proc.returncode == 2 and "usage" in proc.stderr


def test_tree_alloc_google_benchmark_json_and_heap_bytes(tree_alloc, tmp_path):
    out = tmp_path / "results.json"
    _run(["./build/tree_alloc", "--benchmark_filter=/4096(/|$)", "--benchmark_min_time=0.01",
          f"--benchmark_out={out}", "--benchmark_out_format=json"], tree_alloc)
    parsed = get_adapter("google-benchmark").parse(out.read_text(), str(out))
    names = {m.benchmark for m in parsed.metrics}
    for phase in ("BM_Generate", "BM_Copy", "BM_Total"):
        for kind in ("pointer", "buffer"):
            assert f"{phase}/{kind}/4096" in names
    heap = {b["name"]: b["heap_bytes"] for b in json.loads(out.read_text())["benchmarks"]}
    # One allocation of 24 bytes (plus the allocator's header) per node vs 16 bytes per node in one buffer.
    assert heap["BM_Total/buffer/4096"] >= 16 * 4096
    assert heap["BM_Total/pointer/4096"] >= 24 * 4096
    assert heap["BM_Total/buffer/4096"] < heap["BM_Total/pointer/4096"]


# --- async-overhead -----------------------------------------------------------------------------

def test_async_overhead_pytest_benchmark_json(tmp_path):
    pytest.importorskip("pytest_benchmark")
    out = tmp_path / "results.json"
    _run([sys.executable, "-m", "pytest", "test_async_overhead.py", "-q", f"--benchmark-json={out}",
          "--benchmark-min-rounds=1", "--benchmark-max-time=0.001", "--benchmark-warmup=off"],
         BENCHES / "async-overhead")
    parsed = get_adapter("pytest-benchmark").parse(out.read_text(), str(out))
    measures = [m.measure for m in parsed.metrics]
    assert measures.count("latency") == 9 and measures.count("allocated-bytes") == 9 and len(measures) == 18
    # Its parametrized tests keep their parameters as text: no scaling point for a check's
    # complexity table (a check of this suite failed on float("sync") until stop 65).
    assert sum(bool(m.attrs.get("parameters")) for m in parsed.metrics) == 9     # its latencies
    assert scaling_points([SuiteResult(parsed.metrics, {"suite": "async-overhead"})]) == []
    extra = {b["param"]: b["extra_info"] for b in json.loads(out.read_text())["benchmarks"]}
    alloc = {name: info["allocated_bytes"] for name, info in extra.items()}
    # Deterministic memory facts of the calling patterns: the fast path allocates what sync does
    # (give or take a small object), a suspending call allocates more, and an exception more still.
    assert abs(alloc["fast_path_best"] - alloc["sync"]) <= 64
    assert alloc["true_async"] > alloc["coroutine"] > alloc["sync"]
    assert alloc["sync_or_throw_worst"] > alloc["sync_or_false_worst"]


def test_async_overhead_probe_and_its_usage_error():
    folder = BENCHES / "async-overhead"
    assert _run([sys.executable, "probe.py", "fast_path_best"], folder).stdout.strip() == "fast_path_best: 10000 calls"
    proc = subprocess.run([sys.executable, "probe.py", "nope"], cwd=folder, capture_output=True, text=True)
    assert proc.returncode == 2 and "usage" in proc.stderr


# --- swift-runtime (swiftc is in the `swift` image; on a host without it these skip) -------------

SWIFT_BENCHES = ("task_copy", "deinit_hop", "actor_hop")


def test_swift_runtime_manifest_runs_every_benchmark_and_probes_one():
    suite = {s.name: s for s in discover(BENCHES)}["swift-runtime"]
    assert suite.image == "swift" and suite.adapter == "scaling-tsv" and suite.output == "-"
    lock = (ROOT / "docker" / "images" / "swift" / "apt.lock").read_text().splitlines()
    assert any(line.startswith("swiftlang=6.0.3") for line in lock)
    benches = {"task_copy"} | {env["BENCH"] for env in suite.variants.values()}
    assert benches == set(SWIFT_BENCHES)
    assert [p.benchmark for p in suite.probes] == ["task_copy/values=50,objects=1000"]


@pytest.fixture(scope="module")
def swift_runtime() -> Path:
    _need("swiftc")
    folder = BENCHES / "swift-runtime"
    _run(["./build.sh"], folder, timeout=600)
    return folder / "build" / "swift-runtime"


@pytest.mark.parametrize("bench", SWIFT_BENCHES)
def test_swift_runtime_writes_seed_tsv_the_adapter_reads(swift_runtime, bench):
    proc = _run([str(swift_runtime), bench, "--values=0:20", "--objects=10:200", "--points=5", "--seed=3"],
                BENCHES / "swift-runtime")
    lines = proc.stdout.splitlines()
    assert lines[0] == f"# {bench} --values=0:20:linear --objects=10:200:linear --points=5 --seed=3"
    table = get_adapter("scaling-tsv").parse_table(proc.stdout, "stdout")
    assert table.name == bench and table.delta and len(table.params["values"]) == 5
    assert all(0 <= v <= 20 for v in table.params["values"]) and all(10 <= o <= 200 for o in table.params["objects"])
    assert set(table.phases) == {"schedule", "total"}


def test_swift_runtime_probe_runs_every_task_it_creates(swift_runtime):
    proc = _run([str(swift_runtime), "task_copy", "--point", "7:30"], BENCHES / "swift-runtime")
    assert proc.stdout.strip() == "task_copy --point 7:30: 60 task bodies ran"


def test_swift_runtime_rejects_bad_arguments_with_exit_2(swift_runtime):
    for args in (["nope"], ["task_copy", "--values=9:1"], ["task_copy", "--points=0"], ["task_copy", "--point", "1"],
                 ["actor_hop", "--point", "1:1"]):
        proc = subprocess.run([str(swift_runtime), *args], capture_output=True, text=True)
        assert proc.returncode == 2, args
        assert "usage" in proc.stderr and proc.stdout == ""
