"""The operations async-overhead compares: writing one integer into a buffer, called N times.

The seed measured .NET's cost of making a serializer method async.  The Python port keeps its
calling patterns, each driven from one coroutine on one asyncio event loop so the loop's own
cost is the same for all:

``sync``              plain function call.
``true_async``        ``await`` a coroutine that really suspends (``asyncio.sleep(0)``: back to
                      the event loop and resumed by it) before writing.
``coroutine``         ``await`` a coroutine that never suspends: the coroutine object is made,
                      run to completion and dropped on every call.
``fast_path``         the ValueTask pattern: a plain function returns an already-completed
                      result (a shared sentinel) when it could write synchronously, and a
                      coroutine to await only when it could not.
``sync_or_false``     the caller tries the synchronous write (returns False when it cannot) and
                      falls back to the true async one.
``sync_or_throw``     as sync_or_false, but "cannot" is signalled by raising an exception.

The last three have a *best* case (the synchronous path is always possible) and a *worst*
case (never possible: every call goes the true async way).
"""

from __future__ import annotations

import asyncio
import struct
import tracemalloc
from collections.abc import Callable, Coroutine
from typing import Any

INT = struct.Struct("<i")
CALLS = 1000  # calls per round: one benchmark round writes CALLS integers


class Writer:
    """A preallocated buffer: the synchronous write allocates nothing, so any allocation the
    benchmarks see comes from the calling pattern."""

    def __init__(self, calls: int = CALLS) -> None:
        self.buf = bytearray(INT.size * calls)
        self.ready = True  # whether a synchronous write is possible

    def write(self, i: int, value: int) -> None:
        INT.pack_into(self.buf, i * INT.size, value)

    async def write_async(self, i: int, value: int) -> None:
        await asyncio.sleep(0)
        INT.pack_into(self.buf, i * INT.size, value)

    async def write_coroutine(self, i: int, value: int) -> None:
        INT.pack_into(self.buf, i * INT.size, value)

    def write_fast_path(self, i: int, value: int) -> Any:
        if self.ready:
            INT.pack_into(self.buf, i * INT.size, value)
            return COMPLETED
        return self.write_async(i, value)

    def try_write(self, i: int, value: int) -> bool:
        if not self.ready:
            return False
        INT.pack_into(self.buf, i * INT.size, value)
        return True

    def write_or_raise(self, i: int, value: int) -> None:
        if not self.ready:
            raise WouldSuspend
        INT.pack_into(self.buf, i * INT.size, value)


COMPLETED = object()  # the shared already-completed result of the fast path


class WouldSuspend(Exception):
    pass


# --- one round of CALLS calls per pattern -------------------------------------------------------

async def round_sync(w: Writer, n: int) -> None:
    for i in range(n):
        w.write(i, i)


async def round_true_async(w: Writer, n: int) -> None:
    for i in range(n):
        await w.write_async(i, i)


async def round_coroutine(w: Writer, n: int) -> None:
    for i in range(n):
        await w.write_coroutine(i, i)


async def round_fast_path(w: Writer, n: int) -> None:
    for i in range(n):
        r = w.write_fast_path(i, i)
        if r is not COMPLETED:
            await r


async def round_sync_or_false(w: Writer, n: int) -> None:
    for i in range(n):
        if not w.try_write(i, i):
            await w.write_async(i, i)


async def round_sync_or_throw(w: Writer, n: int) -> None:
    for i in range(n):
        try:
            w.write_or_raise(i, i)
        except WouldSuspend:
            await w.write_async(i, i)


RoundFn = Callable[[Writer, int], Coroutine[Any, Any, None]]

# name -> (round function, whether the synchronous path is possible)
PATTERNS: dict[str, tuple[RoundFn, bool]] = {
    "sync": (round_sync, True),
    "true_async": (round_true_async, True),
    "coroutine": (round_coroutine, True),
    "fast_path_best": (round_fast_path, True),
    "fast_path_worst": (round_fast_path, False),
    "sync_or_false_best": (round_sync_or_false, True),
    "sync_or_false_worst": (round_sync_or_false, False),
    "sync_or_throw_best": (round_sync_or_throw, True),
    "sync_or_throw_worst": (round_sync_or_throw, False),
}


def runner(pattern: str, loop: asyncio.AbstractEventLoop, n: int = CALLS) -> Callable[[], None]:
    """A zero-argument callable running one round of `pattern` on `loop`."""
    fn, ready = PATTERNS[pattern]
    writer = Writer(n)
    writer.ready = ready

    def run() -> None:
        loop.run_until_complete(fn(writer, n))
    return run


def allocated_bytes(pattern: str, loop: asyncio.AbstractEventLoop, tries: int = 7) -> int:
    """Bytes allocated and live at the busiest moment of a round of exactly one call, above
    the level before it: the call's coroutine frames, futures and exception objects plus the
    task that ``run_until_complete`` wraps the round in (the same for every pattern, so the
    sync pattern shows that fixed part alone).

    tracemalloc reports live and peak bytes, not a running total, hence one call per round.
    The smallest peak over ``tries`` rounds, after warm-up, is reported: now and then a round
    also pays for something incidental (a container of the event loop growing a block), which
    is not the pattern's cost.  The minimum repeats from run to run for the same caller (an
    exception's traceback grows with the call stack, so under pytest it is a little larger
    than from probe.py)."""
    run = runner(pattern, loop, 1)
    run()
    peaks = []
    tracemalloc.start()
    try:
        run()  # warm the tracer's own tables
        for _ in range(tries):
            tracemalloc.reset_peak()
            start, _ = tracemalloc.get_traced_memory()
            run()
            _, peak = tracemalloc.get_traced_memory()
            peaks.append(max(peak - start, 0))
    finally:
        tracemalloc.stop()
    return min(peaks)
