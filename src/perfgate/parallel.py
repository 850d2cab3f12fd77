"""Map a function over independent items in worker processes (series are independent, and the
change point search is CPU-bound Python/C that threads would serialise on the GIL)."""

from __future__ import annotations

import multiprocessing
import os
import signal
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


def map_in_processes(fn: Callable[[T], R], items: Iterable[T], workers: int | None = None,
                     min_items: int = MIN_ITEMS) -> list[R]:
    """``[fn(x) for x in items]`` in order, on ``workers`` processes (default: the usable cores),
    or here when there are fewer than ``min_items`` items (each a batch of work: fewer).  ``fn``
    must be a module-level function; results are pickled (items too where processes cannot be
    forked)."""
    items = list(items)
    workers = min(workers or default_workers(), len(items))
    if workers < 2 or len(items) < min_items:
        return [fn(x) for x in items]
    # fork: workers start in milliseconds and inherit the imported modules and the items
    # themselves (only chunk bounds and results are pickled: a 1,000-run series pickles to 100 KB,
    # which cost more than analysing it); they touch no open file or connection of the parent.
    chunk = max(1, len(items) // (workers * 8))
    if "fork" not in multiprocessing.get_all_start_methods():
        with ProcessPoolExecutor(max_workers=workers, initializer=_default_sigterm) as pool:
            return list(pool.map(fn, items, chunksize=chunk))
    spans = [(i, min(i + chunk, len(items))) for i in range(0, len(items), chunk)]
    global _inherited
    _inherited = (fn, items)
    try:
        with ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("fork"),
                                 initializer=_default_sigterm) as pool:
            return [r for part in pool.map(_inherited_span, spans) for r in part]
    finally:
        _inherited = None


def _default_sigterm() -> None:
    """A worker dies on SIGTERM as usual; the command's own handler unwinds the parent."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


# What the forked workers of the running map inherit: its function and items.
_inherited: tuple[Callable, list] | None = None


def _inherited_span(span: tuple[int, int]) -> list:
    assert _inherited is not None, "a worker forked outside map_in_processes"
    fn, items = _inherited
    return [fn(items[i]) for i in range(*span)]
