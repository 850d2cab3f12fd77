#!/usr/bin/env python3
"""Ten rounds (10 × 1000 calls) of one calling pattern, once: the workload perfgate runs under valgrind
(instruction count) and GNU time (peak RSS) as benchmark ``test_async_overhead.py::test_*[PATTERN]``.  With --alloc it
prints the pattern's allocated bytes (ops.allocated_bytes) instead, for a reader of the probe's
output when the harness JSON's extra_info is not mapped.

    ./probe.py PATTERN [--alloc]   PATTERN one of: sync, true_async, coroutine, fast_path_best, ...
"""

from __future__ import annotations

import asyncio
import sys

import ops

# Enough work that the calls, not interpreter start-up, dominate the instruction count.
ROUNDS = 10


def main(argv: list[str]) -> int:
    if len(argv) not in (1, 2) or argv[0] not in ops.PATTERNS or argv[1:] not in ([], ["--alloc"]):
        print(f"usage: probe.py PATTERN [--alloc]  (PATTERN one of: {', '.join(ops.PATTERNS)})", file=sys.stderr)
        return 2
    loop = asyncio.new_event_loop()
    try:
        if argv[1:]:
            print(f"{argv[0]}: allocated_bytes {ops.allocated_bytes(argv[0], loop)}")
        else:
            run = ops.runner(argv[0], loop)
            for _ in range(ROUNDS):
                run()
            print(f"{argv[0]}: {ROUNDS * ops.CALLS} calls")
    finally:
        loop.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
