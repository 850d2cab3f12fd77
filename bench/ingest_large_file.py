#!/usr/bin/env python3
"""Peak memory and time of ``perfgate ingest`` on one large hyperfine ``--export-json`` file.

Writes a hyperfine-shaped file of about ``--mb`` megabytes (a few commands, each with millions of
``times``, numbers formatted as hyperfine prints them), then runs ``perfgate ingest`` on it in a
child process against a fresh SQLite store and reports the child's wall time and peak RSS
(``getrusage(RUSAGE_CHILDREN).ru_maxrss``).  Usage::

    .venv/bin/python bench/ingest_large_file.py            # 200 MB, the issue's case
    .venv/bin/python bench/ingest_large_file.py --mb 20
    .venv/bin/python bench/ingest_large_file.py --short      # 4-decimal times, no indentation
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def write_hyperfine(path: Path, megabytes: float, commands: int = 4, seed: int = 1, short: bool = False) -> int:
    """A hyperfine export of about ``megabytes`` MB; returns how many times it holds.  ``short``:
    times with 4 decimals and no indentation, the most numbers a file of that size can hold."""
    rng = random.Random(seed)
    target = int(megabytes * 1_000_000)
    per_command = target // commands
    total = 0
    with path.open("w", encoding="utf-8") as f:
        f.write('{\n  "results": [\n')
        for c in range(commands):
            f.write(f'    {{\n      "command": "sort -n input-{c}.txt",\n      "mean": 0.0123,\n'
                    '      "stddev": 0.0004,\n      "median": 0.0122,\n      "user": 0.01,\n'
                    '      "system": 0.002,\n      "min": 0.011,\n      "max": 0.016,\n      "times": [\n')
            written, first = 0, True
            while written < per_command:
                if short:
                    chunk = ",".join(f"{rng.lognormvariate(-4.4, 0.03):.4f}" for _ in range(10_000))
                else:
                    chunk = ",\n".join(f"        {rng.lognormvariate(-4.4, 0.03)!r}" for _ in range(10_000))
                f.write(("" if first else ",\n") + chunk)
                written += len(chunk) + 2
                total += 10_000
                first = False
            f.write('\n      ],\n      "exit_codes": [0]\n    }' + (",\n" if c < commands - 1 else "\n"))
        f.write("  ]\n}\n")
    return total


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mb", type=float, default=200.0, help="size of the hyperfine file (default 200)")
    ap.add_argument("--short", action="store_true", help="short numbers, no indentation (worst case)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="perfgate-large-") as tmp:
        src = Path(tmp) / "hyperfine.json"
        n = write_hyperfine(src, args.mb, short=args.short)
        size = src.stat().st_size
        cmd = [sys.executable, "-m", "perfgate.cli", "ingest", str(src), "--branch", "main",
               "--commit", "0" * 40, "--testbed", "bench", "--store", f"sqlite:{tmp}/h.db"]
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, text=True)
        elapsed = time.perf_counter() - t0
        peak_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        print(f"file {size / 1e6:.1f} MB, {n:,} times; ingest exit {proc.returncode} in {elapsed:.1f} s, "
              f"peak RSS {peak_kib / 1024:.0f} MiB")
        if proc.returncode != 0:
            print(proc.stderr.strip()[-2000:], file=sys.stderr)
            sys.exit(1)


if __name__ == "__main__":
    main()
