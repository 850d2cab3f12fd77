#!/usr/bin/env python3
"""Summarise async-deinit TSV output into the two figures its README reports.

* ``objects`` mode: the median per-object cost Δtotal/o in bins of the object count, to show
  where the cost per object stops being constant (the queue threshold).
* ``values`` mode: least-squares fit of Δtotal = a·v·o + b·o, so a is the cost of copying one
  task-local value into one job (ns per value per object), over all points and separately for
  few (v ≤ 50) and many (v > 150) values — an O(n log n) copy shows a rising a.

This is a quick look for the README; ``perfgate fit`` does the full regression with confidence
intervals and knee detection.

    ./summarize.py objects results.tsv        ./summarize.py values results.tsv
"""

from __future__ import annotations

import sys

import numpy as np


def load(path: str) -> tuple[str, np.ndarray]:
    with open(path, encoding="utf-8") as f:
        header = f.readline().lstrip("# ").strip()
    rows = np.loadtxt(path, comments="#", ndmin=2)
    return header, rows


def per_object(rows: np.ndarray, width: int = 1000) -> list[tuple[int, int, float, int]]:
    """(bin start, bin end, median Δtotal/o in ns, points) per bin of `width` objects."""
    objects, total = rows[:, 1], rows[:, 3]
    out = []
    for start in range(0, int(objects.max()) + 1, width):
        mask = (objects >= max(start, 1)) & (objects < start + width)
        if mask.any():
            out.append((start, start + width, float(np.median(total[mask] / objects[mask])), int(mask.sum())))
    return out


def per_value(rows: np.ndarray, low: float = 0, high: float = np.inf) -> tuple[float, float, int]:
    """(a, b, points) of the fit Δtotal = a·v·o + b·o over points with low < v ≤ high."""
    v, o, total = rows[:, 0], rows[:, 1], rows[:, 3]
    mask = (v > low) & (v <= high)
    design = np.column_stack([v[mask] * o[mask], o[mask]])
    (a, b), *_ = np.linalg.lstsq(design, total[mask], rcond=None)
    return float(a), float(b), int(mask.sum())


def main(argv: list[str]) -> int:
    if len(argv) != 2 or argv[0] not in ("objects", "values"):
        print(__doc__, file=sys.stderr)
        return 2
    header, rows = load(argv[1])
    print(f"# {header}")
    if argv[0] == "objects":
        print("objects\tmedian Δtotal/o (ns)\tpoints")
        for start, end, cost, n in per_object(rows):
            print(f"{start}-{end}\t{cost:.1f}\t{n}")
    else:
        for label, low, high in (("all v", 0, np.inf), ("v <= 50", 0, 50), ("v > 150", 150, np.inf)):
            a, b, n = per_value(rows, low, high)
            print(f"{label}:\tΔtotal = {a:.2f}·v·o + {b:.1f}·o\t({n} points)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
