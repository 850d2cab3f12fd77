"""pytest-benchmark suite: one benchmark per calling pattern of ops.py, each round = 1000 calls.

Run:  python3 -m pytest test_async_overhead.py --benchmark-json=results.json
Each benchmark's ``extra_info`` carries ``allocated_bytes`` (see ops.allocated_bytes) and
``calls_per_round``; the ratio to ``sync`` is computed from the JSON (see summarize.py).
"""

from __future__ import annotations

import asyncio

import pytest

import ops


@pytest.fixture(scope="module")
def loop():
    loop = asyncio.new_event_loop()
    yield loop
    loop.close()


def _bench(benchmark, loop, pattern: str) -> None:
    run = ops.runner(pattern, loop)
    benchmark.extra_info["allocated_bytes"] = ops.allocated_bytes(pattern, loop)
    benchmark.extra_info["calls_per_round"] = ops.CALLS
    benchmark(run)


# The seed's "Bare" table: the bare cost of each way of calling.
@pytest.mark.benchmark(group="bare")
@pytest.mark.parametrize("pattern", ["sync", "true_async", "coroutine", "fast_path_best"])
def test_bare(benchmark, loop, pattern):
    _bench(benchmark, loop, pattern)


# The seed's optimised variants: a synchronous path when possible, true async otherwise.
@pytest.mark.benchmark(group="fallback")
@pytest.mark.parametrize("pattern", [
    "fast_path_worst", "sync_or_false_best", "sync_or_false_worst", "sync_or_throw_best", "sync_or_throw_worst",
])
def test_fallback(benchmark, loop, pattern):
    _bench(benchmark, loop, pattern)


def test_every_pattern_writes_the_same_bytes(loop):
    """Not a benchmark: all patterns must do the same work, or comparing them means nothing."""
    expected = None
    for name, (fn, ready) in ops.PATTERNS.items():
        writer = ops.Writer(50)
        writer.ready = ready
        loop.run_until_complete(fn(writer, 50))
        expected = expected or bytes(writer.buf)
        assert bytes(writer.buf) == expected, name
        assert expected != bytes(len(expected))
