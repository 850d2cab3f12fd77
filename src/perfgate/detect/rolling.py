"""The rolling median of a series, as ``scipy.ndimage.median_filter(y, size, mode="reflect")``
gives it (each window's element of rank ``size // 2``, the edges mirrored with their last value
repeated), computed by perfgate's own C (``_rolling_median.c``, an optional extension loaded with
ctypes) so that ``detect`` need not import scipy: any scipy subpackage costs 0.25 s to import.
numpy's median over a sliding window view gives the same values 4–15 times slower than scipy's
filter; where the extension was not built, or a value is not finite, scipy's filter is used.
``tests/test_rolling.py`` holds the C's values to scipy's."""

from __future__ import annotations

import ctypes
from functools import cache
from typing import Callable

import numpy as np

from perfgate.detect.compiled import c_function


@cache
def _own_filter() -> Callable | None:
    """perfgate's compiled rolling median, or None where the optional extension was not built."""
    # plain addresses: ndpointer's checks cost more than the median of a short window
    return c_function("perfgate.detect._rolling_median", "rolling_median", ctypes.c_int,
                      [ctypes.c_void_p, ctypes.c_int, ctypes.c_int, ctypes.c_void_p])


def _padded(y: np.ndarray, size: int) -> np.ndarray:
    """The series with ``size // 2`` values mirrored before it and the rest after (scipy's origin 0;
    np.pad's "symmetric", which costs ten times this)."""
    before, after = size // 2, size - size // 2 - 1
    return np.concatenate((y[:before][::-1], y, y[y.size - after:][::-1]))


def rolling_median(y: np.ndarray, size: int) -> np.ndarray:
    """The rolling median of ``y`` over windows of ``size`` values, 1 ≤ size ≤ len(y)."""
    y = np.ascontiguousarray(y, dtype=np.double)
    if not 1 <= size <= y.size:
        raise ValueError(f"a rolling median of {size} values over a series of {y.size}")
    own = _own_filter()
    if own is None or not np.isfinite(y).all():
        from scipy.ndimage import median_filter     # 0.25 s to import: only without the extension
        return median_filter(y, size=size, mode="reflect")
    out, padded = np.empty(y.size), _padded(y, size)
    if own(padded.ctypes.data, y.size, size, out.ctypes.data) != 0:
        raise MemoryError("the rolling median could not allocate its window")
    return out
