"""Bulk loading without the cyclic garbage collector.

A verb that loads a large, long-lived heap (numpy's modules, 10,000 saved reports, 100,000 points)
allocates millions of containers; CPython's collector runs every 700 of them and, as they
survive, scans the whole growing heap again for cycles that this data does not make: 0.4 s of a
2 s incremental ``detect``.  Reference counting still frees everything as usual."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def loading() -> Iterator[None]:
    """No cyclic collection while the block loads; what it loaded is then frozen (left out of
    every later collection, and so of forked workers' too), and collection resumes."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if was_enabled:
            gc.enable()
