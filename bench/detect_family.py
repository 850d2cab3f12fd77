#!/usr/bin/env python3
"""One commit slows a whole suite a little: does ``perfgate detect`` name that commit, and what
does placing the suite's changes together cost?

Builds a SQLite store of ``--benchmarks`` series on one testbed (one family of siblings),
``--runs`` runs each, log-normal noise of ``--noise`` (2%), every benchmark ``--step`` (+3%)
slower from the middle commit on (a compiler upgrade, a changed default); runs ``perfgate detect``
once (a subprocess, both cores) and prints its wall time, the changes it reports, and how many
name the very commit or one within 5 commits of it.  A family is used only where it has fewer
series than runs (else one place would cost more than a search of the whole series).

    .venv/bin/python bench/detect_family.py                        # 500 benchmarks x 1,000 runs
    .venv/bin/python bench/detect_family.py --benchmarks 200 --runs 300
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import numpy as np
from detect_incremental import detect

from perfgate.model import Metric, Run, Testbed
from perfgate.store.sqlite import SqliteStore


def history(benchmarks: int, runs: int, noise: float, step: float, seed: int) -> list[Run]:
    rng = np.random.default_rng(seed)
    out = []
    for i in range(runs):
        values = 1e6 * np.exp(noise * rng.standard_normal(benchmarks)) * (1 + step if i >= runs // 2 else 1.0)
        out.append(Run("default", "main", f"c{i:05d}", Testbed("tb"),
                       [Metric(f"bench{b:04d}", "latency", float(v)) for b, v in enumerate(values)],
                       start_time=1_700_000_000.0 + i))
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--benchmarks", type=int, default=500)
    p.add_argument("--runs", type=int, default=1000)
    p.add_argument("--noise", type=float, default=0.02)
    p.add_argument("--step", type=float, default=0.03)
    p.add_argument("--seed", type=int, default=5)
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        store = Path(tmp) / "history.db"
        with SqliteStore(store) as s:
            s.add_runs(history(args.benchmarks, args.runs, args.noise, args.step, args.seed))
        elapsed, _, data = detect(store)
    entries = [c for s in data["series"] for c in s["change_points"]]
    found = [int(c["first_commit"][1:]) for c in entries]
    ended = sum("ended_at" in c for c in entries)
    middle = args.runs // 2
    print(f"{args.benchmarks} benchmarks x {args.runs} runs, every one {args.step:+.1%} from commit {middle} in "
          f"{args.noise:.0%} noise: detect {elapsed:.1f} s; {len(found)} changes reported "
          f"({sum(c.get('kind') == 'change_point' for c in entries)} change points, {ended} threshold streaks "
          f"a later run ended), {sum(t == middle for t in found)} at that commit, "
          f"{sum(abs(t - middle) <= 5 for t in found)} within 5 commits")


if __name__ == "__main__":
    main()
