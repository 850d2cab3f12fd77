"""Map a function over independent items in worker processes (series are independent, and the
change point search is CPU-bound Python/C that threads would serialise on the GIL)."""

from __future__ import annotations

import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor
from typing import Callable, Iterable, TypeVar

T = TypeVar("T")
R = TypeVar("R")

MIN_ITEMS = 32   # fewer items are not worth starting workers for (about 0.1 s each)


def default_workers() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:                 # not Linux
        return os.cpu_count() or 1


def map_in_processes(fn: Callable[[T], R], items: Iterable[T], workers: int | None = None) -> list[R]:
    """``[fn(x) for x in items]`` in order, on ``workers`` processes (default: the usable cores).
    ``fn`` must be a module-level function; items and results are pickled."""
    items = list(items)
    workers = min(workers or default_workers(), len(items))
    if workers < 2 or len(items) < MIN_ITEMS:
        return [fn(x) for x in items]
    # fork: workers start in milliseconds and inherit the imported modules; they touch no open
    # file or connection of the parent (they only compute).
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else None)
    chunk = max(1, len(items) // (workers * 8))
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        return list(pool.map(fn, items, chunksize=chunk))
