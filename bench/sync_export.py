#!/usr/bin/env python3
"""How long ``perfgate sync --export`` takes: the first export of a history, and one with nothing
new (every CI job ends with an export into the data branch it rebuilt its store from); then
``sync --import`` of that folder: into a new store (a job without the cached store), and again
into the store it made, with nothing new (each later step of the job, or a job that restored the
store from the Actions cache).

The store is 500 benchmarks × 300 runs (150,000 metrics, 10 raw samples each) by default, made
once and kept with ``--keep DIR`` so two versions of perfgate can be timed on the same one; each
export runs the real CLI in a new process.  ``--compare DIR`` checks the folder written is byte
for byte the one another version wrote there.  Usage::

    .venv/bin/python bench/sync_export.py --keep DIR
    PYTHONPATH=OTHER_CHECKOUT/src .venv/bin/python bench/sync_export.py --keep DIR
"""

from __future__ import annotations

import argparse
import filecmp
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from perfgate.model import Metric, Run, Testbed
from perfgate.store.sqlite import SqliteStore


def make_store(path: Path, n_runs: int, n_benchmarks: int, n_samples: int) -> None:
    rng = random.Random(1)
    bed = Testbed("bench-testbed", {"cpu_model": "synthetic"})
    with SqliteStore(path) as store:
        for r in range(n_runs):
            metrics = []
            for b in range(n_benchmarks):
                samples = tuple(rng.lognormvariate(10, 0.1) for _ in range(n_samples))
                metrics.append(Metric(f"bench-{b}", "latency", sum(samples) / n_samples, min(samples),
                                      max(samples), samples))
            store.add_runs([Run("default", "main", f"{r:040x}", bed, metrics, start_time=1.7e9 + r,
                                adapter="synthetic")])


def sync(store: Path, out: Path, verb: str = "--export") -> float:
    env = {**os.environ, "PERFGATE_STORE": f"sqlite:{store}"}
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "perfgate.cli", "sync", verb, str(out)], env=env, check=True,
                   stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def same_tree(a: Path, b: Path) -> bool:
    files_a = sorted(p.relative_to(a) for p in a.rglob("*") if p.is_file())
    files_b = sorted(p.relative_to(b) for p in b.rglob("*") if p.is_file())
    return files_a == files_b and all(filecmp.cmp(a / f, b / f, shallow=False) for f in files_a)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=300)
    ap.add_argument("--benchmarks", type=int, default=500)
    ap.add_argument("--samples", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=5, help="exports with nothing new timed (default: %(default)s)")
    ap.add_argument("--keep", type=Path, help="make the store here once and reuse it")
    ap.add_argument("--compare", type=Path, help="a folder another version exported from the same store")
    args = ap.parse_args()

    tmp = tempfile.mkdtemp(prefix="sync-bench-")
    try:
        root = args.keep or Path(tmp)
        root.mkdir(parents=True, exist_ok=True)
        store = root / "history.db"
        if not store.exists():
            t = time.perf_counter()
            make_store(store, args.runs, args.benchmarks, args.samples)
            print(f"store: {args.runs} runs x {args.benchmarks} benchmarks x {args.samples} samples "
                  f"made in {time.perf_counter() - t:.1f} s")
        out = Path(tmp) / "data"
        first = sync(store, out)
        noop = [sync(store, out) for _ in range(args.rounds)]
        print(f"first export: {first:.2f} s")
        print(f"nothing new:  median {statistics.median(noop):.2f} s ({min(noop):.2f}-{max(noop):.2f} s, "
              f"{args.rounds} rounds)")
        rebuilt = Path(tmp) / "rebuilt.db"
        first = sync(rebuilt, out, "--import")
        again = [sync(rebuilt, out, "--import") for _ in range(args.rounds)]
        print(f"first import into a new store: {first:.2f} s")
        print(f"import with nothing new: median {statistics.median(again):.2f} s ({min(again):.2f}-{max(again):.2f} s, "
              f"{args.rounds} rounds)")
        if args.compare:
            if args.compare.exists():
                print("files byte-identical to", args.compare, ":", same_tree(out, args.compare))
            else:
                shutil.copytree(out, args.compare)
                print("files kept in", args.compare)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
