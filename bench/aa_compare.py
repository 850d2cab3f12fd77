"""A/A check of ``perfgate compare``: base against itself must (almost) never be flagged.

50 real in-process benchmarks (``aa_power_workloads.py``: 10 kinds × 5 sizes) are timed on this
machine, interleaved (every repetition times each benchmark for side A and side B, sample by
sample, alternating A B / B A, so both sides share the machine's state).  A and B run the SAME code.  Each of the 100
repetitions is one comparison of 50 benchmarks through ``compare_samples`` with the repository's
thresholds (latency: significant at FDR 0.05 AND ≥ 2%).  Target: ≤ 1% of the 5,000
benchmark comparisons flagged.  Also printed: how many were merely significant (q ≤ 0.05,
ignoring the 2% threshold), and what plain per-benchmark p ≤ 0.05 without FDR would have flagged.

    python bench/aa_compare.py                     # 100 repetitions × 50 benchmarks × 10 samples
    python bench/aa_compare.py --repetitions 20
    python bench/aa_compare.py --load 2            # beside 2 processes busy in bursts (bursty_load.py)
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from aa_power_workloads import time_once, workloads  # noqa: E402
from bursty_load import bursty_load  # noqa: E402

from perfgate.detect.compare import compare_samples  # noqa: E402
from perfgate.thresholds import load_thresholds  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--repetitions", type=int, default=100)
    p.add_argument("--samples", type=int, default=10, help="samples per side per comparison")
    p.add_argument("--alpha", type=float, default=0.05)
    p.add_argument("--load", type=int, default=0, help="processes busy in bursts beside it (default: none)")
    args = p.parse_args()
    with bursty_load(args.load):
        run(args)


def run(args: argparse.Namespace) -> None:
    benches = workloads()
    thresholds = load_thresholds(ROOT / "thresholds")
    for fn in benches.values():      # warm up caches and allocators once
        fn()
    flagged = significant = naive = total = reps_with_flag = 0
    started = time.perf_counter()
    for _ in range(args.repetitions):
        a: dict = {(name, "latency"): [] for name in benches}
        b: dict = {(name, "latency"): [] for name in benches}
        for k in range(args.samples):
            for name, fn in benches.items():
                # Alternate who goes first (A B, then B A): the second call of a pair finds warm
                # caches, and a fixed order would show up as a difference between the sides.
                first, second = (a, b) if k % 2 == 0 else (b, a)
                first[(name, "latency")].append(time_once(fn))
                second[(name, "latency")].append(time_once(fn))
        c = compare_samples(a, b, thresholds, args.alpha)
        f = sum(v.verdict in ("regression", "improvement") for v in c.verdicts)
        flagged += f
        reps_with_flag += f > 0
        significant += sum(v.q_value is not None and v.q_value <= args.alpha for v in c.verdicts)
        naive += sum(v.p_value is not None and v.p_value <= args.alpha for v in c.verdicts)
        total += len(c.verdicts)
    elapsed = time.perf_counter() - started
    print(f"A/A: {args.repetitions} repetitions x {len(benches)} benchmarks x {args.samples} samples a side "
          f"({elapsed:.0f} s, load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores, "
          f"{args.load} bursty load process(es))")
    print(f"  flagged (q <= {args.alpha} and >= threshold): {flagged}/{total} = {100 * flagged / total:.2f}%  "
          f"(target <= 1%); repetitions with any flag: {reps_with_flag}/{args.repetitions}")
    print(f"  significant at FDR {args.alpha} ignoring the threshold: {significant}/{total} = {100 * significant / total:.2f}%")
    print(f"  plain p <= {args.alpha} without FDR control (for contrast): {naive}/{total} = {100 * naive / total:.2f}% "
          f"= {naive / args.repetitions:.2f} false alarms per comparison of {len(benches)}")


if __name__ == "__main__":
    main()
