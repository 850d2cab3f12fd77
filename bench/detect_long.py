#!/usr/bin/env python3
"""How long does ``perfgate detect --series`` take on one long series, and how much memory?
Targets (issue 15): 10⁵ points ≤ 10 s, 10⁶ points ≤ 120 s, ≤ 1 GiB.

Each series is log-normal noise (CV 3%) with 1% single-run spikes of 2× and a ±2–10% step every
50,000 points; it is written to a temporary JSON file (not timed), then the real CLI runs on it in
a subprocess: wall time and the child's peak resident memory are reported, with the number of
change points found against the number of steps.

    .venv/bin/python bench/detect_long.py                 # 10^5 and 10^6 points
    .venv/bin/python bench/detect_long.py --points 20000
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np


def series(n: int, seed: int = 3) -> tuple[list[float], list[int]]:
    rng = np.random.default_rng(seed)
    level = np.ones(n)
    steps = list(range(1000, n - 50, 50_000))
    for t in steps:
        level[t:] *= 1 + rng.choice([-1, 1]) * rng.uniform(0.02, 0.1)
    x = 100 * level * np.exp(0.03 * rng.standard_normal(n))
    x[rng.random(n) < 0.01] *= 2
    return [round(v, 4) for v in x.tolist()], steps


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--points", type=int, nargs="+", default=[100_000, 1_000_000])
    args = p.parse_args()
    for n in args.points:
        values, steps = series(n)
        with tempfile.TemporaryDirectory() as tmp:
            f = Path(tmp) / "series.json"
            f.write_text(json.dumps(values))
            start = time.perf_counter()
            proc = subprocess.run([sys.executable, "-m", "perfgate.cli", "detect", "--series", str(f), "--json"],
                                  capture_output=True, text=True)
            elapsed = time.perf_counter() - start
        if proc.returncode not in (0, 1):
            sys.exit(f"perfgate detect failed ({proc.returncode}): {proc.stderr}")
        found = [cp["index"] for cp in json.loads(proc.stdout)["change_points"]]
        hits = sum(any(abs(f - t) <= 5 for f in found) for t in steps)
        # ru_maxrss of children is the largest child so far: each size runs after the smaller one
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        load = os.getloadavg()[0]
        print(f"{n:>9,} points: {elapsed:6.1f} s, peak RSS {peak:5.0f} MiB, {len(found)} change points "
              f"({hits}/{len(steps)} steps found); load average {load:.1f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
