#!/usr/bin/env python3
"""What the parts of a full ``perfgate detect`` cost in instructions (valgrind's cachegrind), which
repeat to a few digits where wall time on this machine swings by half: the threshold verdicts of
one series, reading 100 series of 1,000 runs from a SQLite store, and ``detect --full --jobs 1``
over that store (interpreter start and imports included), then the imports alone and the share
of scipy in them; last, a detect after one new run on a store of two such testbeds (100 series
analysed again, 100 kept), all its processes (the CLI, its workers) summed.  The verdicts' and
the read's figures are a run doing the part minus the same run without it, so start-up cancels;
the others are whole runs.

    .venv/bin/python bench/detect_instructions.py                       # this code (4 min a code)
    .venv/bin/python bench/detect_instructions.py --against /tmp/old/src   # and another checkout's
    git worktree add /tmp/old REV && cp src/perfgate/detect/_l2_search*.so /tmp/old/src/perfgate/detect/

The store is ``bench/detect_incremental.py``'s (one testbed, 100 benchmarks, 1,000 runs)."""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
SERIES = 50     # series the verdicts are measured on

VERDICTS = """
import sys, numpy as np
from perfgate.detect.threshold_verdicts import verdicts
from perfgate.thresholds import ThresholdTest
test = {test}
rng = np.random.default_rng(1)
series = [(1e6 * np.exp(0.02 * rng.standard_normal(1000))).tolist() for _ in range({n})]
if sys.argv[1] == "do":
    for s in series:
        verdicts(test, s)
"""

READ = """
import sys
from perfgate.store.sqlite import SqliteStore
s = SqliteStore(sys.argv[2], read_only=True)
keys = s.series_keys()
if sys.argv[1] == "do":
    s.series_of(keys)
"""

BUILD = """
import sys, numpy as np
sys.path.insert(0, {here!r})
from detect_incremental import runs_of
from perfgate.store.sqlite import SqliteStore
rng = np.random.default_rng(16)
with SqliteStore(sys.argv[1]) as s:
    if sys.argv[2:] == ["new"]:             # one new run on the first testbed
        s.add_runs(runs_of(0, 100, 1000, 1, rng))
    else:
        for testbed in range(int(sys.argv[2]) if sys.argv[2:] else 1):
            s.add_runs(runs_of(testbed, 100, 0, 1000, rng))
"""

TESTS = {
    "verdicts, t_test at 0.99 of 64 values (latency's default), a series": (
        'ThresholdTest("t_test", upper_boundary=0.99, min_sample_size=10, max_sample_size=64)'),
    "verdicts, t_test at 0.99 of 500 values, a series": (
        'ThresholdTest("t_test", upper_boundary=0.99, min_sample_size=10, max_sample_size=500)'),
    "verdicts, percentage at 10% of 16 values, a series": (
        'ThresholdTest("percentage", upper_boundary=0.1, min_sample_size=3, max_sample_size=16)'),
}


def instructions(cmd: list[str], env: dict[str, str], children: bool = False) -> int:
    """The instructions ``cmd`` executes, counted as perfgate's runner counts a benchmark's
    (``perfgate/containers/runner.py``: cachegrind without its cache simulation, ASLR off);
    ``children``: its child processes' too (a detect's workers), summed."""
    proc = subprocess.run(["setarch", "-R", "valgrind", "--tool=cachegrind", "--cache-sim=no",
                           f"--trace-children={'yes' if children else 'no'}", "--cachegrind-out-file=/dev/null", *cmd],
                          env=env, capture_output=True, text=True)
    found = re.findall(r"I\s+refs:\s+([\d,]+)", proc.stderr)
    if proc.returncode not in (0, 1) or not found:
        sys.exit(f"no instruction count in valgrind's output:\n{proc.stderr[-2000:]}")
    return sum(int(n.replace(",", "")) for n in found)


def measure(src: str | None, tmp: Path, store: Path, incremental_store: Path) -> dict[str, float]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    # the same count run after run: one hash seed, and no OpenBLAS threads spinning beside the work
    # (with them the interpreter's start alone varied by 1.5%)
    env.update(PYTHONHASHSEED="0", OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    if src:
        env["PYTHONPATH"] = src
    py = sys.executable
    # bytecode compiled first, as an installed perfgate's is: else the first run compiles it, counted
    import perfgate
    subprocess.run([py, "-m", "compileall", "-q", src or str(Path(perfgate.__file__).parent)], env=env, check=True,
                   stdout=subprocess.DEVNULL)
    out = {}
    for name, test in TESTS.items():
        script = tmp / "verdicts.py"
        script.write_text(VERDICTS.format(test=test, n=SERIES))
        out[name] = (instructions([py, str(script), "do"], env) - instructions([py, str(script), "no"], env)) / SERIES
    script = tmp / "read.py"
    script.write_text(READ)
    out["reading 100 series x 1,000 runs"] = (instructions([py, str(script), "do", str(store)], env)
                                               - instructions([py, str(script), "no", str(store)], env))
    copy = tmp / "copy.db"
    shutil.copy(store, copy)
    out["detect --full --jobs 1 over them, all told"] = instructions(
        [py, "-m", "perfgate.cli", "detect", "--store", f"sqlite:{copy}", "--json", "--full", "--jobs", "1"], env)
    imports = ("import perfgate.cli, perfgate.commands.detect, perfgate.detect.changepoint, "
               "perfgate.detect.threshold_verdicts, perfgate.series_search, perfgate.detect.way_back")
    out["  of which the imports"] = instructions([py, "-c", imports], env)
    numpy = instructions([py, "-c", "import numpy"], env)
    listed = imports + "; import json, sys; print(json.dumps(sorted(m for m in sys.modules if m.startswith('scipy.'))))"
    loaded = json.loads(subprocess.run([py, "-c", listed], env=env, check=True, capture_output=True, text=True).stdout)
    scipy = "import " + ", ".join(loaded) if loaded else None
    out["    of which scipy beyond numpy (where detect imports it)"] = (
        instructions([py, "-c", scipy], env) - numpy if scipy else 0)
    out["    and numpy (the interpreter's start too)"] = numpy
    # The incremental detect: the second testbed's store, analysed in full by this code (not counted),
    # one new run added by a writer that checks the copy and notes it (so the detect is spared the
    # check, as after `perfgate ingest`), then the detect, its workers counted with it.
    two = tmp / "two.db"
    for suffix in ("", ".checked"):
        Path(f"{two}{suffix}").unlink(missing_ok=True)
    shutil.copy(incremental_store, two)
    detect = [py, "-m", "perfgate.cli", "detect", "--store", f"sqlite:{two}", "--json"]
    subprocess.run(detect, env=env, check=False, stdout=subprocess.DEVNULL)
    subprocess.run([sys.executable, str(tmp / "build.py"), str(two), "new"], check=True)
    out["detect after one new run, 100 of 200 series, all processes"] = instructions(detect, env, children=True)
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--against", metavar="SRC", help="another checkout's src, measured beside this code")
    args = p.parse_args()
    for tool in ("valgrind", "setarch"):
        if not shutil.which(tool):
            sys.exit(f"{tool} is needed (apt-get install valgrind util-linux)")
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        store = tmp / "history.db"
        (tmp / "build.py").write_text(BUILD.format(here=str(HERE)))
        subprocess.run([sys.executable, str(tmp / "build.py"), str(store)], check=True)
        two = tmp / "two-testbeds.db"
        subprocess.run([sys.executable, str(tmp / "build.py"), str(two), "2"], check=True)
        codes = [("this code", None)] + ([(args.against, args.against)] if args.against else [])
        results = [(name, measure(src, tmp, store, two)) for name, src in codes]
    width = max(len(k) for k in results[0][1])
    print(f"{'millions of instructions':{width}}  " + "  ".join(f"{name:>14}" for name, _ in results))
    for key in results[0][1]:
        print(f"{key:{width}}  " + "  ".join(f"{r[key] / 1e6:14.1f}" for _, r in results))


if __name__ == "__main__":
    main()
