"""Power of ``perfgate compare``: is a real regression caught?

Two measures, both measured for real on this machine:

* wall time (``--wall``): a Python loop workload timed in-process (a sample is the fastest of
  ``--inner`` 5 back-to-back calls, as ``timeit`` does); the head side does 5% more iterations
  (real extra work, ``--extra 0.05``).  Samples are interleaved A B / B A.  A trial is
  one comparison inside a 50-benchmark PR (49 A/A benchmarks from ``aa_power_workloads.py`` ride along,
  so the Benjamini–Hochberg correction costs what it costs in practice; they get
  ``--others-samples`` 10 samples a side to keep the script short — under no change their
  p-values are uniform whatever the count).  Target: the 5%
  regression flagged in ≥ 95% of trials.  Judged both unpaired and paired (``paired=True``:
  sample k of each side were measured back to back).
* instruction counts (``--instructions``): a small C program compiled with gcc, counted by
  valgrind (cachegrind, no cache simulation, ``setarch -R`` to disable ASLR); the head side does
  1% more loop iterations.  Target: the 1% regression caught, and no change when nothing changed.

    python bench/power_compare.py --wall --trials 100 --samples 30
    python bench/power_compare.py --instructions --trials 10
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from aa_power_workloads import _loop, time_once, workloads  # noqa: E402

from perfgate.detect.compare import compare_samples  # noqa: E402
from perfgate.thresholds import load_thresholds  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
C_PROGRAM = r"""
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    long n = atol(argv[1]);
    unsigned long x = 88172645463325252UL, acc = 0;
    for (long i = 0; i < n; i++) { x ^= x << 13; x ^= x >> 7; x ^= x << 17; acc += x & 0xff; }
    printf("%lu\n", acc);
    return 0;
}
"""


def sample(fn, inner: int) -> float:
    """One sample: the fastest of ``inner`` back-to-back calls (timeit's rule: slower calls were
    interrupted by something else; the fastest is the closest to the code's own cost)."""
    return min(time_once(fn) for _ in range(inner))


def wall(args: argparse.Namespace) -> None:
    thresholds = load_thresholds(ROOT / "thresholds")
    iterations = 20_000
    base_fn, head_fn = _loop(iterations), _loop(int(iterations * (1 + args.extra)))
    others = dict(list(workloads().items())[:49])
    caught, false, effects = {False: 0, True: 0}, {False: 0, True: 0}, {False: [], True: []}
    misses: dict[bool, list[str]] = {False: [], True: []}
    started = time.perf_counter()
    for _ in range(args.trials):
        a: dict = {("loop-target", "latency"): []}
        b: dict = {("loop-target", "latency"): []}
        for name in others:
            a[(name, "latency")], b[(name, "latency")] = [], []
        for k in range(args.samples):
            pairs = [("loop-target", base_fn, head_fn)]
            if k < args.others_samples:   # the unchanged ride-alongs only feed the FDR correction
                pairs += [(n, f, f) for n, f in others.items()]
            for name, fa, fb in pairs:
                if k % 2 == 0:
                    a[(name, "latency")].append(sample(fa, args.inner))
                    b[(name, "latency")].append(sample(fb, args.inner))
                else:
                    b[(name, "latency")].append(sample(fb, args.inner))
                    a[(name, "latency")].append(sample(fa, args.inner))
        for paired in (False, True):
            c = compare_samples(a, b, thresholds, paired=paired)
            target = next(v for v in c.verdicts if v.benchmark == "loop-target")
            caught[paired] += target.verdict == "regression"
            if target.verdict != "regression":
                misses[paired].append(f"{target.effect:+.2%} q={target.q_value:.2g}")
            false[paired] += sum(v.verdict in ("regression", "improvement") for v in c.verdicts if v.benchmark != "loop-target")
            effects[paired].append(target.effect)
    elapsed = time.perf_counter() - started
    print(f"wall time, {args.extra:.0%} extra work, {args.samples} samples a side (each the fastest of "
          f"{args.inner} calls), {args.trials} trials "
          f"(one benchmark of a 50-benchmark comparison; {elapsed:.0f} s, load average {os.getloadavg()[0]:.1f} "
          f"on {os.cpu_count()} cores)")
    for paired in (False, True):
        e = sorted(effects[paired])
        print(f"  {'paired (interleaved pairs)' if paired else 'unpaired':27} caught as a regression: {caught[paired]}/"
              f"{args.trials} = {100 * caught[paired] / args.trials:.1f}% (target >= 95%); measured effect median "
              f"{100 * e[len(e) // 2]:+.2f}% (5th-95th pct {100 * e[len(e) // 20]:+.2f}% .. {100 * e[-1 - len(e) // 20]:+.2f}%); "
              f"false flags among the 49 unchanged: {false[paired]}/{49 * args.trials}")
        if misses[paired]:
            print(f"    missed: {', '.join(misses[paired][:10])}")


def instructions(args: argparse.Namespace) -> None:
    for tool in ("gcc", "valgrind", "setarch"):
        if not shutil.which(tool):
            sys.exit(f"{tool} is not installed; cannot count instructions")
    thresholds = load_thresholds(ROOT / "thresholds")
    n = 200_000
    with tempfile.TemporaryDirectory() as tmp:
        src, exe = Path(tmp) / "work.c", Path(tmp) / "work"
        src.write_text(C_PROGRAM)
        subprocess.run(["gcc", "-O2", "-o", str(exe), str(src)], check=True)

        def count(iters: int) -> float:
            proc = subprocess.run(["setarch", "-R", "valgrind", "--tool=cachegrind", "--cache-sim=no",
                                   "--cachegrind-out-file=/dev/null", str(exe), str(iters)],
                                  capture_output=True, text=True, check=True)
            m = re.search(r"I\s+refs:\s+([\d,]+)", proc.stderr)
            if not m:
                sys.exit(f"no instruction count in valgrind output:\n{proc.stderr}")
            return float(m.group(1).replace(",", ""))

        caught = quiet = 0
        counts = set()
        for _ in range(args.trials):
            base, same, head = count(n), count(n), count(int(n * 1.01))
            counts.add(base)
            c = compare_samples({("xorshift", "instructions"): (base,), ("xorshift-aa", "instructions"): (base,)},
                                {("xorshift", "instructions"): (head,), ("xorshift-aa", "instructions"): (same,)},
                                thresholds)
            v = {x.benchmark: x for x in c.verdicts}
            caught += v["xorshift"].verdict == "regression"
            quiet += v["xorshift-aa"].verdict == "no-change"
        print(f"instruction counts (valgrind cachegrind, ASLR off), 1% more iterations, {args.trials} trials:")
        print(f"  1% regression caught: {caught}/{args.trials}; unchanged program judged no-change: "
              f"{quiet}/{args.trials}; distinct counts of the unchanged program across trials: {len(counts)} "
              f"({', '.join(f'{c:,.0f}' for c in sorted(counts))}); effect {100 * (head / base - 1):+.3f}%")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--wall", action="store_true")
    p.add_argument("--instructions", action="store_true")
    p.add_argument("--trials", type=int, default=100)
    p.add_argument("--samples", type=int, default=30, help="wall-time samples per side per trial")
    p.add_argument("--others-samples", type=int, default=10,
                   help="samples a side of the 49 unchanged benchmarks riding along (default: %(default)s)")
    p.add_argument("--inner", type=int, default=5, help="calls per wall-time sample (the fastest is kept)")
    p.add_argument("--extra", type=float, default=0.05, help="extra work of the head side (wall time)")
    args = p.parse_args()
    if not (args.wall or args.instructions):
        args.wall = args.instructions = True
    if args.instructions:
        instructions(args)
    if args.wall:
        wall(args)


if __name__ == "__main__":
    main()
