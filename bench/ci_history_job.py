#!/usr/bin/env python3
"""What the shipped main workflow's history job costs after one push, with the store the last
job left (restored from the Actions cache) and without it (an evicted entry, or before the cache
was kept): the steps as the action runs them, the real CLI each time.

The history is ``--testbeds × --benchmarks`` series of ``--runs`` runs (one latency each, 2%
log-normal noise), exported to a folder as the data branch holds it; the push adds one run on the
first testbed (a folder of its own, as the record job's artifact).  Each job:

1. ``sync --import DATA --set-aside-damaged`` (the action's import of the data branch, before the step's command)
2. ``sync --import RUN`` (the step "Add the runs to the history")
3. ``sync --import DATA --set-aside-damaged`` then ``detect --branch main`` (the step "Detect change points")

With the cache, the store is a copy of one that imported the data branch and ran that detect
before the push; without it, the job starts with no store.  Printed: each step's time, both ways.

    .venv/bin/python bench/ci_history_job.py                                  # 10 × 100 series × 1,000 runs
    .venv/bin/python bench/ci_history_job.py --testbeds 2 --benchmarks 50 --runs 200   # a quick look
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from detect_incremental import runs_of
from perfgate.store.sqlite import SqliteStore


def cli(store: Path, *args: str) -> float:
    env = {**os.environ, "PERFGATE_STORE": f"sqlite:{store}"}
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "perfgate.cli", *args], env=env, capture_output=True, text=True)
    if proc.returncode not in (0, 1):
        sys.exit(f"perfgate {' '.join(args)} failed ({proc.returncode}): {proc.stderr}")
    return time.perf_counter() - start


def job(store: Path, data: Path, run: Path) -> list[tuple[str, float]]:
    return [("import the data branch", cli(store, "sync", "--import", str(data), "--set-aside-damaged")),
            ("import the push's run", cli(store, "sync", "--import", str(run))),
            ("import the data branch again", cli(store, "sync", "--import", str(data), "--set-aside-damaged")),
            ("detect --branch main", cli(store, "detect", "--branch", "main"))]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--testbeds", type=int, default=10)
    p.add_argument("--benchmarks", type=int, default=100)
    p.add_argument("--runs", type=int, default=1000)
    args = p.parse_args()
    rng = np.random.default_rng(11)
    with tempfile.TemporaryDirectory(prefix="ci-job-") as tmp:
        tmp = Path(tmp)
        source, data, run = tmp / "source.db", tmp / "data", tmp / "run"
        with SqliteStore(source) as s:
            for t in range(args.testbeds):
                s.add_runs(runs_of(t, args.benchmarks, 0, args.runs, rng))
        cli(source, "sync", "--export", str(data))
        new = tmp / "new.db"
        with SqliteStore(new) as s:
            s.add_runs(runs_of(0, args.benchmarks, args.runs, 1, rng))
        cli(new, "sync", "--export", str(run))
        cached = tmp / "cached.db"             # the last job's store: the data branch imported, detected
        cli(cached, "sync", "--import", str(data))
        cli(cached, "detect", "--branch", "main")
        with_cache, without = tmp / "with.db", tmp / "without.db"
        shutil.copy(cached, with_cache)
        warm = job(with_cache, data, run)
        cold = job(without, data, run)
        print(f"{args.testbeds * args.benchmarks:,} series × {args.runs} runs ({len(list(data.rglob('*.json'))):,} "
              f"files on the data branch), one new run; load average {os.getloadavg()[0]:.1f}")
        print(f"{'step':32} {'with the cached store':>22} {'without':>10}")
        for (step, w), (_, c) in zip(warm, cold):
            print(f"{step:32} {w:20.2f} s {c:8.2f} s")
        print(f"{'the job':32} {sum(w for _, w in warm):20.2f} s {sum(c for _, c in cold):8.2f} s")


if __name__ == "__main__":
    main()
