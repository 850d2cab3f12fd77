#!/usr/bin/env python3
"""What raw samples cost the SQLite history: N metrics with K samples each, for several K.

A blob too large for its row's local space spills into overflow pages of its own; SQLite's
``dbstat`` table counts them and their unused bytes.  For each K this builds a store of
``--metrics`` metrics (``--benchmarks`` a run, one transaction a run, as CI ingests) and prints
the file size, the bytes a sample (the file over N × K), the overflow pages and how much of
them is unused, the time to ingest, ``PRAGMA quick_check`` (every writer runs it first) and the
two whole-store reads: ``all_series`` (pages, export) and ``series_of`` every key (detect's
workers)::

    .venv/bin/python bench/sample_pages.py                           # 5,000 metrics, K in 0 10 125 200 450 2000
    .venv/bin/python bench/sample_pages.py --metrics 20000 --samples 200
"""

from __future__ import annotations

import argparse
import os
import random
import sqlite3
import tempfile
import time
from pathlib import Path

from perfgate.model import Metric, Run, Testbed
from perfgate.store.sqlite import SqliteStore


def make_runs(n_metrics: int, per_run: int, k: int, seed: int = 5) -> list[Run]:
    rng = random.Random(seed)
    bed = Testbed("bench-testbed")
    runs = []
    for r in range(-(-n_metrics // per_run)):
        count = min(per_run, n_metrics - r * per_run)
        metrics = []
        for b in range(count):
            samples = tuple(rng.lognormvariate(10, 0.05) for _ in range(k))
            metrics.append(Metric(f"bench-{b:04d}", "latency", sum(samples) / k if k else rng.lognormvariate(10, 0.05),
                                  samples=samples))
        runs.append(Run("pages", "main", f"{r:040x}", bed, metrics, start_time=1.7e9 + r, adapter="synthetic"))
    return runs


def page_use(path: Path) -> dict[str, float]:
    """Pages of the file by kind (dbstat), and the bytes left unused in the overflow pages."""
    db = sqlite3.connect(path)
    try:
        rows = db.execute("SELECT pagetype, COUNT(*), SUM(unused), SUM(pgsize) FROM dbstat GROUP BY pagetype").fetchall()
        free = db.execute("PRAGMA freelist_count").fetchone()[0]
    finally:
        db.close()
    kinds = {kind: (pages, unused, size) for kind, pages, unused, size in rows}
    overflow = kinds.get("overflow", (0, 0, 0))
    return {"pages": sum(p for p, _, _ in kinds.values()) + free, "overflow": overflow[0],
            "overflow_mb": overflow[2] / 1e6, "overflow_unused_mb": overflow[1] / 1e6, "free": free}


def measure(k: int, args: argparse.Namespace, tmp: Path) -> dict[str, float]:
    runs = make_runs(args.metrics, args.benchmarks, k)
    path = tmp / f"k{k}.db"
    store = SqliteStore(path, "pages")
    start = time.perf_counter()
    for run in runs:
        store.add_runs([run])
    ingest = time.perf_counter() - start
    store.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # the size is the file's, nothing left in the WAL
    version = store.schema_version()
    store.close()
    out = {"k": k, "schema": version, "ingest": ingest, "mb": path.stat().st_size / 1e6, **page_use(path)}
    with SqliteStore(path, "pages") as store:
        start = time.perf_counter()
        assert store.db.execute("PRAGMA quick_check").fetchone()[0] == "ok"
        out["quick_check"] = time.perf_counter() - start
        start = time.perf_counter()
        everything = store.all_series()
        out["all_series"] = time.perf_counter() - start
        start = time.perf_counter()
        some = store.series_of(list(everything))
        out["series_of"] = time.perf_counter() - start
        assert all(len(p.samples) == k for points in some.values() for p in points)
    if not args.keep:
        path.unlink()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--metrics", type=int, default=5000, help="metrics in each store (default 5,000)")
    ap.add_argument("--benchmarks", type=int, default=100, help="metrics a run (default 100)")
    ap.add_argument("--samples", type=int, nargs="+", default=[0, 10, 125, 200, 450, 2000],
                    help="samples a metric, one store each (default 0 10 125 200 450 2000)")
    ap.add_argument("--keep", type=Path, help="keep the stores in this folder")
    args = ap.parse_args()
    if args.keep:
        args.keep.mkdir(parents=True, exist_ok=True)
    print(f"{args.metrics:,} metrics, {args.benchmarks} a run, one transaction a run; MB = 10^6 bytes")
    print("schema      K   file MB  B/sample  overflow pages (MB, unused MB)  free  ingest s  quick_check s"
          "  all_series s  series_of s")
    with tempfile.TemporaryDirectory() as scratch:
        for k in args.samples:
            r = measure(k, args, args.keep or Path(scratch))
            per_sample = f"{r['mb'] * 1e6 / (args.metrics * k):8.1f}" if k else "       -"
            print(f"{r['schema']:6d} {k:6d} {r['mb']:9.2f} {per_sample}  {r['overflow']:8d} ({r['overflow_mb']:7.2f}, "
                  f"{r['overflow_unused_mb']:7.2f})       {r['free']:5d} {r['ingest']:9.2f} {r['quick_check']:14.3f}"
                  f" {r['all_series']:13.3f} {r['series_of']:12.3f}", flush=True)
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
