#!/usr/bin/env python3
"""How fast the SQLite history takes runs: N runs × M metrics, each metric with raw samples.

Each run is its own transaction, as when every CI job ingests its own run (the slow, honest
case); ``--batch`` shows the bulk path.  Usage::

    .venv/bin/python bench/ingest_speed.py                 # 10,000 runs × 50 metrics × 20 samples
    .venv/bin/python bench/ingest_speed.py --runs 1000 --batch 100
"""

from __future__ import annotations

import argparse
import os
import random
import tempfile
import time

from perfgate.model import Metric, Run, Testbed
from perfgate.store.sqlite import SqliteStore


def make_runs(n_runs: int, n_metrics: int, n_samples: int, seed: int = 1) -> list[Run]:
    rng = random.Random(seed)
    bed = Testbed("bench-testbed", {"cpu_model": "synthetic"})
    runs = []
    for r in range(n_runs):
        metrics = []
        for m in range(n_metrics):
            samples = tuple(rng.lognormvariate(10, 0.1) for _ in range(n_samples))
            mean = sum(samples) / n_samples
            metrics.append(Metric(f"bench-{m // 2}", ("latency", "instructions")[m % 2], mean,
                                  min(samples), max(samples), samples))
        runs.append(Run("speed", "main", f"{r:040x}", bed, metrics, start_time=1.7e9 + r, adapter="synthetic"))
    return runs


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=10_000)
    ap.add_argument("--metrics", type=int, default=50)
    ap.add_argument("--samples", type=int, default=20)
    ap.add_argument("--batch", type=int, default=1, help="runs per transaction (default: 1)")
    args = ap.parse_args()

    runs = make_runs(args.runs, args.metrics, args.samples)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "history.db")
        store = SqliteStore(path, "speed")
        start = time.perf_counter()
        for i in range(0, len(runs), args.batch):
            store.add_runs(runs[i:i + args.batch])
        elapsed = time.perf_counter() - start
        again = time.perf_counter()
        assert not any(store.add_runs(runs[:100]))  # idempotent re-ingest check while we are here
        again_elapsed = time.perf_counter() - again
        store.close()
        # A new process's first write runs PRAGMA quick_check over the whole file first.
        reopened = SqliteStore(path, "speed")
        first = time.perf_counter()
        assert not any(reopened.add_runs(runs[:1]))
        first_write = time.perf_counter() - first
        reopened.close()
        size = os.path.getsize(path) + sum(os.path.getsize(path + s) for s in ("-wal",) if os.path.exists(path + s))
    total = args.runs * args.metrics
    print(f"ingested {args.runs:,} runs × {args.metrics} metrics × {args.samples} samples "
          f"({total:,} metrics) in {elapsed:.1f} s: {args.runs / elapsed:,.0f} runs/s, "
          f"{total / elapsed:,.0f} metrics/s, {args.batch} run(s) per transaction, "
          f"database {size / 2**20:.0f} MiB; re-ingesting 100 runs (all skipped) took "
          f"{again_elapsed:.2f} s; a fresh open's first write (integrity check included) {first_write:.2f} s")


if __name__ == "__main__":
    main()
