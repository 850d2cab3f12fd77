#!/usr/bin/env python3
"""Many processes writing one SQLite history back to back: each one's longest wait for its turn.

Each of ``WRITERS`` forked processes records ``RUNS`` runs (5 metrics each) one after another,
opening the store for each as ``perfgate ingest`` does; printed: the total time and every writer's
longest single write, sorted.  SQLite's busy handler alone lets a process that writes back to back
keep the lock while sleepers poll every 100 ms; the writers' queue (``store/transaction.py``)
bounds the tail.

    .venv/bin/python bench/concurrent_writers.py              # 16 writers x 60 runs
    .venv/bin/python bench/concurrent_writers.py 8 30
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import tempfile
import time


def writer(store: str, commits: list[str], barrier, results) -> None:
    from perfgate.model import Metric, Run, Testbed
    from perfgate.store.sqlite import SqliteStore

    barrier.wait()
    worst = 0.0
    for commit in commits:
        start = time.monotonic()
        with SqliteStore(store) as s:
            s.add_runs([Run("default", "main", commit, Testbed("tb"),
                            [Metric(f"b{k}", "latency", 1.0 + k) for k in range(5)])])
        worst = max(worst, time.monotonic() - start)
    results.put(worst)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("writers", type=int, nargs="?", default=16)
    p.add_argument("runs", type=int, nargs="?", default=60)
    args = p.parse_args()
    writers, runs = args.writers, args.runs
    store = os.path.join(tempfile.mkdtemp(), "history.db")
    ctx = multiprocessing.get_context("fork")
    barrier, results = ctx.Barrier(writers), ctx.Queue()
    procs = [ctx.Process(target=writer, args=(store, [f"w{w}r{r}" for r in range(runs)], barrier, results))
             for w in range(writers)]
    start = time.monotonic()
    for p in procs:
        p.start()
    worst = sorted(results.get() for _ in procs)
    for p in procs:
        p.join()
    print(f"{writers} writers x {runs} runs: {time.monotonic() - start:.1f} s in all; longest wait of each "
          f"writer (s): {' '.join(f'{w:.2f}' for w in worst)}")


if __name__ == "__main__":
    main()
