"""How fast is change point detection?  Target: 1,000 series × 1,000 points in ≤ 5 s.

The series come from ``detection_corpus.py`` (every noise kind, with and without steps), are
generated first and not timed; then ``detect_change_points`` runs on each, spread over worker
processes as ``perfgate detect`` does (``--jobs``, default: the usable cores).

    python bench/detect_speed.py               # 1000 × 1000, all cores
    python bench/detect_speed.py --jobs 1      # one process
    python bench/detect_speed.py --series 200  # a quicker look
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from detection_corpus import generate  # noqa: E402

from perfgate.detect.changepoint import detect_change_points  # noqa: E402
from perfgate.parallel import default_workers, map_in_processes  # noqa: E402
from perfgate.thresholds import ChangePointSettings  # noqa: E402


def _detect(job):
    return detect_change_points(*job)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--series", type=int, default=1000)
    p.add_argument("--points", type=int, default=1000)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--jobs", type=int, default=default_workers())
    args = p.parse_args()
    corpus = [s["values"] for s in generate(args.series, args.seed, length=(args.points, args.points + 1))]
    settings = ChangePointSettings(min_effect=0.005, confidence=0.99)
    start, cpu = time.perf_counter(), time.process_time()
    found = sum(len(cps) for cps in map_in_processes(_detect, [(v, settings) for v in corpus], args.jobs))
    elapsed = time.perf_counter() - start
    cpu = time.process_time() - cpu
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"{args.series} series x {args.points} points: {elapsed:.2f} s "
          f"({elapsed / args.series * 1000:.2f} ms/series; CPU time of the parent {cpu:.2f} s), {found} change points; "
          f"{args.jobs} worker(s); "
          f"load average at the end {load:.1f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
