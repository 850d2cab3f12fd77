#!/usr/bin/env python3
"""Record a long real history of one of this repository's suites, noisy first and quiet after,
for ``bench/detect_real_history.py`` and ``tests/test_detect_real_history.py``.

``perfgate run --suite SUITE --repeat N --no-probes`` records N runs of the suite in its pinned
container (the real harness, adapter and SQLite store).  During the first ``--noisy`` runs a
neighbour process shares the benchmark's CPU: it spins for a random share of every 50 ms (on
average ``--duty``), so some repetitions are preempted and the runs scatter; the remaining
``--quiet`` runs have the CPU to themselves.  With ``--planted N``, N more quiet runs follow of a
clone whose code carries ``bench/check_power.py``'s wall-time plant for the suite (tree-alloc:
``BufferTree::copy`` stops reserving its buffer), recorded at the plant's commit: a real code
change in the quiet stretch.  Every latency series is then exported in run order (value and raw
samples of each run) as JSON.

    .venv/bin/python bench/record_history.py --out tests/fixtures/history/tree-alloc.json
    .venv/bin/python bench/record_history.py --quiet 90 --planted 90 --out tests/fixtures/history/tree-alloc-change.json
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import random
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

from perfgate.store.sqlite import SqliteStore

ROOT = Path(__file__).resolve().parent.parent


def neighbour(cpu: int, duty: float, stop) -> None:
    """Spin on ``cpu`` for a random share (mean ``duty``) of every 50 ms until ``stop`` is set."""
    os.sched_setaffinity(0, {cpu})
    while not stop.is_set():
        busy = 0.05 * min(1.0, random.expovariate(1 / duty))
        end = time.perf_counter() + busy
        while time.perf_counter() < end:
            pass
        time.sleep(0.05 - busy)


def record(suite: str, repeat: int, store: str, commit: str, root: Path = ROOT) -> None:
    subprocess.run([sys.executable, "-c", "from perfgate.cli import main; main()", "run", "--suite", suite,
                    "--repeat", str(repeat), "--no-probes", "--store", store, "--branch", "main", "--commit", commit,
                    "--root", str(root)],
                   cwd=ROOT, check=True, stdout=subprocess.DEVNULL)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--suite", default="tree-alloc")
    p.add_argument("--noisy", type=int, default=120, help="runs with a neighbour on the CPU (default: %(default)s)")
    p.add_argument("--quiet", type=int, default=180, help="runs after it, alone (default: %(default)s)")
    p.add_argument("--planted", type=int, default=0, help="quiet runs of the planted code after them (default: 0)")
    p.add_argument("--duty", type=float, default=0.3, help="the neighbour's mean busy share (default: %(default)s)")
    p.add_argument("--cpu", type=int, default=1, help="the suites' cpuset (perfgate run's default: 1)")
    p.add_argument("--measure", default="latency")
    p.add_argument("--out", required=True)
    args = p.parse_args()
    commit = "f" * 40
    with tempfile.TemporaryDirectory() as tmp:
        store = f"sqlite:{tmp}/history.db"
        stop = multiprocessing.Event()
        hog = multiprocessing.Process(target=neighbour, args=(args.cpu, args.duty, stop), daemon=True)
        started = time.time()
        hog.start()
        try:
            record(args.suite, args.noisy, store, commit)
        finally:
            stop.set()
            hog.join()
        record(args.suite, args.quiet, store, commit)
        plant = None
        if args.planted:
            from check_power import PLANTS, planted_repo

            repo, refs = planted_repo(Path(tmp), args.suite)
            subprocess.run(["git", "-C", str(repo), "checkout", "--quiet", "--detach", refs["wall"]], check=True)
            plant = PLANTS[args.suite]["wall"]
            record(args.suite, args.planted, store, refs["wall"], repo)
        with SqliteStore(Path(tmp) / "history.db") as db:
            series = [{"benchmark": key.benchmark, "measure": key.measure,
                       "values": [pt.value for pt in pts], "samples": [list(pt.samples) for pt in pts]}
                      for key in db.series_keys(measure=args.measure) for pts in [db.series(key)]]
    doc = {"suite": args.suite, "recorded": datetime.now(timezone.utc).strftime("%Y-%m-%d"),
           "noisy_runs": args.noisy, "quiet_runs": args.quiet, "duty": args.duty,
           **({"planted_at": args.noisy + args.quiet, "planted_runs": args.planted, "plant": plant.what,
               "plant_affects": [plant.target[0], *plant.affects]} if plant else {}),
           "minutes": round((time.time() - started) / 60, 1), "series": series}
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(doc) + "\n")
    print(f"{len(series)} {args.measure} series of {args.noisy + args.quiet + args.planted} runs -> {args.out}")


if __name__ == "__main__":
    main()
