"""The runner in real containers: flags applied, deterministic instruction counts, peak RSS,
fingerprints.  Needs the Docker engine (started when absent) and the pinned base image."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from conftest import ROOT
from perfgate import host_load
from perfgate.containers import engine, images
from perfgate.containers.fingerprint import container_testbed
from perfgate.containers.manifest import discover, load_suite
from perfgate.containers.runner import Limits, run_container, run_suite, writable_dir

pytestmark = pytest.mark.docker

SPIN = """\
import sys
total = 0
for i in range(int(sys.argv[1])):
    total += i * i % 7
print(total)
"""
ALLOC = """\
import sys
block = bytearray(int(sys.argv[1]) * 1024 * 1024)   # zero-filled: every page is touched
print(len(block))
"""


def bench_toml(spin: int, alloc_probe: bool = True) -> str:
    text = textwrap.dedent(f"""\
        name = "spin"
        image = "base"
        adapter = "hyperfine"
        output = "results.json"

        [profiles.quick]
        command = "hyperfine -N --runs 5 --warmup 1 --export-json $PERFGATE_OUT/results.json 'python3 spin.py {spin}'"

        [[probe]]
        benchmark = "python3 spin.py {spin}"
        command = "python3 spin.py {spin}"

        [[probe]]
        benchmark = "alloc 64 MiB"
        command = "python3 alloc.py 64"
        """)
    return text if alloc_probe else text.split("[[probe]]\nbenchmark = \"alloc")[0]


def make_tiny_root(root: Path, spin: int = 200_000, alloc_probe: bool = True) -> Path:
    """A repository-shaped folder: the real docker/ base definition and one small suite."""
    (root / "docker").mkdir(parents=True, exist_ok=True)
    shutil.copy(ROOT / "docker" / "base.lock", root / "docker" / "base.lock")
    shutil.copytree(ROOT / "docker" / "base", root / "docker" / "base", dirs_exist_ok=True)
    suite = root / "benches" / "spin"
    suite.mkdir(parents=True, exist_ok=True)
    (suite / "bench.toml").write_text(bench_toml(spin, alloc_probe))
    (suite / "spin.py").write_text(SPIN)
    (suite / "alloc.py").write_text(ALLOC)
    return root


@pytest.fixture(scope="session")
def base_image() -> images.Built:
    if not engine.dockerd_path():
        pytest.skip("Docker is not installed (scripts/setup installs docker.io)")
    engine.ensure_engine()
    return images.build_base(ROOT / "docker")


@pytest.fixture
def tiny(tmp_path, base_image):
    root = make_tiny_root(tmp_path / "repo")
    suite = load_suite(root / "benches" / "spin")
    return suite, images.build_suite(suite, base_image)


def test_runner_flags_are_applied_inside_the_container(tmp_path, base_image):
    out = writable_dir(tmp_path)
    probe = "id -u; grep Cpus_allowed_list /proc/self/status; ls /sys/class/net; touch /bench-file 2>&1; touch $PERFGATE_OUT/ok"
    done = run_container(base_image.tag, ["sh", "-c", probe], out, {}, Limits("0", "256m"), keep=True)
    try:
        inspect = json.loads(engine.docker("inspect", done.container).stdout)[0]
    finally:
        engine.docker("rm", "-f", done.container, check=False)
    host = inspect["HostConfig"]
    assert host["NetworkMode"] == "none"
    assert host["CpusetCpus"] == "0"
    assert host["Memory"] == 256 * 1024 * 1024
    assert host["MemorySwap"] == 256 * 1024 * 1024  # no swap beyond the limit
    assert host["ReadonlyRootfs"] is True
    assert inspect["Config"]["User"] == "1000:1000"
    lines = done.stdout.split()
    assert lines[0] == "1000"                           # not root
    assert "Cpus_allowed_list:" in done.stdout and done.stdout.split("Cpus_allowed_list:")[1].split()[0] == "0"
    assert "lo" in lines and "eth0" not in lines        # no network but loopback
    assert "Read-only file system" in done.stdout       # only $PERFGATE_OUT and /tmp are writable
    assert (out / "ok").exists()


def test_a_terminated_run_leaves_no_container_running(tmp_path, base_image):
    """SIGTERM (a cancelled CI job) to the perfgate process alone, mid-container: its container
    is removed, not left to run on beside the next measurement."""
    out = tmp_path / "out"
    out.mkdir(mode=0o777)
    script = textwrap.dedent(f"""\
        import signal
        from pathlib import Path
        from perfgate.containers.runner import Limits, run_container
        def stop(*_): raise KeyboardInterrupt
        signal.signal(signal.SIGTERM, stop)
        run_container({base_image.tag!r}, ["sleep", "60"], Path({str(out)!r}), {{}}, Limits("0", "256m"))
        """)
    mine = ["ps", "-a", "--filter", f"volume={out}", "--format", "{{.Names}}"]
    proc = subprocess.Popen([sys.executable, "-c", script])
    try:
        deadline = time.monotonic() + 60
        while not engine.docker(*mine).stdout.split() and time.monotonic() < deadline:
            time.sleep(0.2)
        assert engine.docker(*mine).stdout.split(), "the container never started"
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=60)
    finally:
        proc.kill()
    assert engine.docker(*mine).stdout.split() == []


def test_instruction_counts_repeat_within_a_tenth_of_a_percent(tiny):
    suite, built = tiny
    runs = [run_suite(suite, built.tag, variant="", profile="quick", limits=Limits("1", "1g")) for _ in range(2)]
    counts = [{m.benchmark: m.value for m in r.metrics if m.measure == "instructions"} for r in runs]
    assert set(counts[0]) == {"python3 spin.py 200000", "alloc 64 MiB"}
    for bench, first in counts[0].items():
        assert first > 1e6
        assert abs(counts[1][bench] - first) / first < 0.001, (bench, first, counts[1][bench])
    latency = [m for m in runs[0].metrics if m.measure == "latency"]
    assert len(latency) == 1 and len(latency[0].samples) == 5


def test_peak_rss_is_recorded_in_bytes(tiny):
    suite, built = tiny
    result = run_suite(suite, built.tag, variant="", profile="quick", limits=Limits("1", "1g"))
    rss = {m.benchmark: m.value for m in result.metrics if m.measure == "peak-rss"}
    mib = 1024 * 1024
    assert 64 * mib <= rss["alloc 64 MiB"] <= 64 * mib + 48 * mib      # the 64 MiB block plus the interpreter
    assert rss["python3 spin.py 200000"] < 32 * mib


def test_a_container_run_records_the_load_on_its_cpus(tiny):
    suite, built = tiny
    every = f"0-{os.cpu_count() - 1}"       # no CPU outside it: the figure is read from its own CPUs
    result = run_suite(suite, built.tag, variant="", profile="quick", limits=Limits(every, "1g"))
    load = result.context[host_load.KEY]
    assert host_load.figure(load[host_load.OTHERS]) is not None and load[host_load.PINNED] == os.cpu_count(), load
    assert load[host_load.CONTENDED] == host_load.contended(load[host_load.OTHERS], os.cpu_count()), load
    # over the harness's own window, read inside the container: not its start and stop, whose work
    # the engine does beside it (a second's suite run read 25-35% of its CPU taken, alone)
    assert load["seconds"] < result.context["harness_seconds"], (load, result.context["harness_seconds"])
    assert load[host_load.WINDOW] == "command" and host_load.taken(load) == load[host_load.CONTENDED]
    # the container's CPU time, read from its cgroup while it ran: the spin's, within its wall time
    out = writable_dir()
    try:
        done = run_container(built.tag, ["python3", "-c", "s = 0\nfor i in range(3_000_000): s += i"], out, {},
                             Limits("1", "1g"), watch=True)
    finally:
        shutil.rmtree(out)
    assert done.cpu_seconds is not None and 0.05 < done.cpu_seconds <= done.seconds, done


def test_a_failing_suite_command_is_a_clear_error(tmp_path, base_image):
    root = make_tiny_root(tmp_path / "repo")
    toml = root / "benches" / "spin" / "bench.toml"
    toml.write_text(toml.read_text().replace("hyperfine -N", "exit 3; hyperfine -N"))
    suite = load_suite(toml.parent)
    built = images.build_suite(suite, base_image)
    from perfgate.errors import InputError

    with pytest.raises(InputError, match=r"bench.toml:profiles.quick.command: exited 3"):
        run_suite(suite, built.tag, variant="", profile="quick", limits=Limits("1", "1g"))


def test_different_images_get_different_testbeds(tmp_path, base_image):
    docker_dir = tmp_path / "docker"
    (docker_dir / "images" / "extra").mkdir(parents=True)
    (docker_dir / "images" / "extra" / "Dockerfile").write_text(
        "ARG BASE\nFROM ${BASE}\nRUN echo extra > /etc/perfgate-extra\n")
    extra = images.build_image(docker_dir, "extra", base_image)
    assert extra.tag.startswith("perfgate/extra:") and extra.image_id != base_image.image_id
    again = images.build_image(docker_dir, "extra", base_image)
    assert again.cached and again.image_id == extra.image_id  # content-keyed cache
    one = container_testbed("base", base_image, "1", "4g")
    two = container_testbed("extra", extra, "1", "4g")
    assert one.name != two.name
    assert one.fingerprint["image_digest"] != two.fingerprint["image_digest"]
    assert one.fingerprint["harness"]["valgrind"].startswith("1:3.24")


REAL_SUITES = [s for s in discover(ROOT / "benches") if s.probes
               and (s.image == "base" or (ROOT / "docker" / "images" / s.image / "Dockerfile").exists())] \
    if list((ROOT / "benches").glob("*/bench.toml")) else []


@pytest.mark.slow
@pytest.mark.parametrize("suite", REAL_SUITES, ids=[s.name for s in REAL_SUITES])
def test_real_suite_probes_repeat_within_a_tenth_of_a_percent(suite, base_image):
    """The issue's test: a suite of benches/ run twice in its container, probes only."""
    from perfgate.containers.runner import parse_probes, probe_script

    tool = images.build_image(ROOT / "docker", suite.image, base_image)
    built = images.build_suite(suite, tool)
    counts = []
    for _ in range(2):
        out = writable_dir()
        try:
            done = run_container(built.tag, ["sh", "-c", probe_script(suite.probes)], out, {}, Limits("1", suite.memory),
                                 unconfined=True)
            assert done.returncode == 0, done.stderr
            counts.append({m.benchmark: m.value for m in parse_probes(suite.probes, out, suite.name)
                           if m.measure == "instructions"})
        finally:
            shutil.rmtree(out, ignore_errors=True)
    for bench, first in counts[0].items():
        assert abs(counts[1][bench] - first) / first < 0.001, (bench, first, counts[1][bench])


def test_the_seeds_real_systems_are_among_the_suites_run_twice():
    """The embassy executor and the Swift runtime suites are compared run against run too."""
    names = {s.name for s in REAL_SUITES}
    assert {"executor-latency", "swift-runtime"} <= names
    probes = {s.name: {p.benchmark for p in s.probes} for s in REAL_SUITES}
    assert "delay/embassy/volume=100" in probes["executor-latency"]
    assert "task_copy/values=50,objects=1000" in probes["swift-runtime"]


@pytest.mark.slow
def test_swift_runtime_in_its_image_writes_seed_tsv_and_refuses_bad_input(base_image):
    """The Swift driver only builds in the `swift` image: its TSV, probe and usage errors there."""
    from perfgate.adapters import get_adapter

    suite = next(s for s in REAL_SUITES if s.name == "swift-runtime")
    built = images.build_suite(suite, images.build_image(ROOT / "docker", suite.image, base_image))
    out = writable_dir()
    try:
        def run(*args: str):
            return run_container(built.tag, ["./build/swift-runtime", *args], out, {}, Limits("1", suite.memory))

        for bench in ("task_copy", "deinit_hop", "actor_hop"):
            done = run(bench, "--values=0:20", "--objects=10:200", "--points=5", "--seed=3")
            assert done.returncode == 0, done.stderr
            table = get_adapter("scaling-tsv").parse_table(done.stdout, "stdout")
            assert table.name == bench and table.delta and len(table.params["objects"]) == 5
            assert all(10 <= o <= 200 for o in table.params["objects"])
        done = run("task_copy", "--point", "7:30")
        assert done.returncode == 0 and done.stdout.strip() == "task_copy --point 7:30: 60 task bodies ran"
        for args in (["nope"], ["task_copy", "--values=9:1"], ["actor_hop", "--point", "1:1"]):
            done = run(*args)
            assert done.returncode == 2 and "usage" in done.stderr and done.stdout == "", args
    finally:
        shutil.rmtree(out, ignore_errors=True)


def test_a_failing_probe_s_error_is_said_once(tmp_path, base_image):
    """A probe failing under valgrind ran again under GNU time, and its traceback was said twice
    in the check's error and comment (cut to 1,500 characters: half of it the repeat)."""
    from perfgate.containers.manifest import Probe
    from perfgate.containers.runner import parse_probes, probe_script
    from perfgate.errors import InputError

    probes = (Probe("boom", ("python3", "-c", "import sys; sys.exit('probe-error-text')")),)
    out = writable_dir(tmp_path)
    done = run_container(base_image.tag, ["sh", "-c", probe_script(probes)], out, {}, Limits("0", "256m"),
                         unconfined=True)
    assert done.returncode == 0, done.stderr
    with pytest.raises(InputError) as raised:
        parse_probes(probes, out, "bench.toml")
    said = str(raised.value).split("failed (exit 1): ", 1)[1]   # the command itself quotes the text too
    assert said == "probe-error-text", str(raised.value)
