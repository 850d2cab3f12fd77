#!/usr/bin/env python3
"""Generate a shared inputs file of (task-local values, objects) points for async-deinit.

Each parameter is drawn independently from a closed range MIN:MAX, either uniformly
("linear") or log-uniformly ("logarithmic": exp(U(ln MIN, ln MAX)), rounded), with a fixed
seed, so every run and every variant of the suite measures exactly the same points and their
results can be subtracted or fitted together.  MIN == MAX pins the parameter.

    ./gen_points.py --values 0:200 --objects 100:8000 --points 300 > data/inputs-quick.txt
"""

from __future__ import annotations

import argparse
import math
import random
import sys

SPACINGS = ("linear", "logarithmic")


def parse_range(text: str) -> tuple[int, int, str]:
    parts = text.split(":")
    if len(parts) not in (2, 3):
        raise argparse.ArgumentTypeError(f"{text!r}: expected MIN:MAX or MIN:MAX:(linear|logarithmic)")
    try:
        low, high = int(parts[0]), int(parts[1])
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: MIN and MAX must be whole numbers") from None
    spacing = parts[2] if len(parts) == 3 else "linear"
    if spacing not in SPACINGS:
        raise argparse.ArgumentTypeError(f"{text!r}: spacing must be linear or logarithmic")
    if not 0 <= low <= high:
        raise argparse.ArgumentTypeError(f"{text!r}: need 0 <= MIN <= MAX")
    if spacing == "logarithmic" and low == 0:
        raise argparse.ArgumentTypeError(f"{text!r}: a logarithmic range must start at 1 or more")
    return low, high, spacing


def draw(rng: random.Random, low: int, high: int, spacing: str) -> int:
    if spacing == "linear":
        return rng.randint(low, high)
    return min(high, max(low, round(math.exp(rng.uniform(math.log(low), math.log(high))))))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-v", "--values", type=parse_range, default=(0, 200, "linear"), metavar="MIN:MAX[:SPACING]",
                        help="number of task-local values (default 0:200)")
    parser.add_argument("-o", "--objects", type=parse_range, default=(1, 5000, "linear"), metavar="MIN:MAX[:SPACING]",
                        help="number of objects (default 1:5000)")
    parser.add_argument("-n", "--points", type=int, default=1000, help="number of points (default 1000)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    args = parser.parse_args(argv)
    if args.points < 1:
        parser.error("--points must be at least 1")

    rng = random.Random(args.seed)
    fmt = lambda r: f"{r[0]}:{r[1]}:{r[2]}"  # noqa: E731
    out = [f"# gen_points.py --values={fmt(args.values)} --objects={fmt(args.objects)} "
           f"--points={args.points} --seed={args.seed}",
           "# values objects"]
    for _ in range(args.points):
        out.append(f"{draw(rng, *args.values)}\t{draw(rng, *args.objects)}")
    sys.stdout.write("\n".join(out) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
