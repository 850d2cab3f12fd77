#!/usr/bin/env python3
"""The seed's table from a pytest-benchmark JSON of this suite: per pattern the median time of a
round (1000 calls), its ratio to ``sync`` (medians: robust to the outliers of a busy machine),
and allocated bytes (extra_info, see ops.allocated_bytes).

    ./summarize.py results.json
"""

from __future__ import annotations

import json
import sys


def rows(doc: dict) -> list[tuple[str, float, float, int]]:
    """(pattern, median µs, ratio to sync, allocated bytes) per benchmark."""
    by_pattern = {b["param"]: b for b in doc["benchmarks"]}
    if "sync" not in by_pattern:
        raise SystemExit("summarize.py: no sync benchmark in the file, nothing to take ratios to")
    sync = by_pattern["sync"]["stats"]["median"]
    return [(p, b["stats"]["median"] * 1e6, b["stats"]["median"] / sync, b["extra_info"].get("allocated_bytes", -1))
            for p, b in by_pattern.items()]


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    with open(argv[0], encoding="utf-8") as f:
        doc = json.load(f)
    print("| pattern | median per 1000 calls | ratio to sync | allocated bytes |")
    print("|---|---:|---:|---:|")
    for pattern, micros, ratio, alloc in rows(doc):
        print(f"| {pattern} | {micros:,.0f} µs | {ratio:.2f} | {alloc:,} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
