"""The exact penalised search of one series: PELT with the L2 cost, i.e. the change points of
``ruptures.KernelCPD(kernel="linear", min_size=m, jump=1).fit(signal).predict(pen=pen)``.

perfgate's own C version (``_l2_search.c``, built by setuptools as an optional extension and loaded
with ctypes) takes each regime's cost from cumulative sums: about 4 times faster than ruptures'
kernel version on a 1,000-point series, whose search was a quarter of a full ``perfgate detect``'s
CPU.  Where it was
not built (no C compiler at install), ruptures' compiled search is used: importing the ``ruptures``
package imports every cost it offers, and with them ``scipy.stats``, ``scipy.spatial`` and
``scipy.signal`` (0.6 s of CPU in every detect), so its one compiled module, which imports only
numpy, is loaded from the installed package on its own.  Where ruptures is laid out otherwise (a
version other than the pinned one), the public class is used.  All three give the same change
points (``tests/test_pelt.py``).
"""

from __future__ import annotations

import ctypes
import importlib.machinery
import importlib.util
from functools import cache
from pathlib import Path
from typing import Callable

import numpy as np

from perfgate.detect.compiled import c_function

_COMPILED = "ruptures.detection._detection.ekcpd"   # the module KernelCPD calls; ruptures 1.1.10


@cache
def _own_search() -> Callable | None:
    """perfgate's compiled L2 search, or None where the optional extension was not built."""
    search = c_function("perfgate.detect._l2_search", "l2_search", ctypes.c_int,
                        [np.ctypeslib.ndpointer(np.double, flags="C_CONTIGUOUS"), ctypes.c_int, ctypes.c_double,
                         ctypes.c_int, np.ctypeslib.ndpointer(np.intc, flags="C_CONTIGUOUS")])
    if search is None:
        return None

    def previous_starts(x: np.ndarray, pen: float, min_size: int) -> np.ndarray:
        previous = np.empty(x.shape[0] + 1, dtype=np.intc)
        if search(np.ascontiguousarray(x[:, 0]), x.shape[0], pen, min_size, previous) != 0:
            raise MemoryError("the change point search could not allocate its arrays")
        return previous
    return previous_starts


@cache
def _compiled_search() -> Callable | None:
    """ruptures' compiled PELT for the linear kernel, loaded without its package, or None."""
    spec = importlib.util.find_spec("ruptures")       # locates the package without importing it
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(next(iter(spec.submodule_search_locations)), "detection", "_detection")
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        path = folder / f"ekcpd{suffix}"
        if path.is_file():
            loader = importlib.machinery.ExtensionFileLoader(_COMPILED, str(path))
            try:
                module = importlib.util.module_from_spec(importlib.util.spec_from_loader(_COMPILED, loader))
                loader.exec_module(module)
            except (ImportError, OSError):       # it wants its package after all: use the class
                return None
            return getattr(module, "ekcpd_pelt_L2", None)
    return None


def pelt_l2(signal: np.ndarray, pen: float, min_size: int) -> list[int]:
    """The first index of each new regime (the series' end left out) minimising the sum of
    squared deviations from each regime's mean plus ``pen`` per change, regimes of at least
    ``min_size`` points; ``signal`` has shape ``(n,)`` or ``(n, 1)``."""
    x = np.ascontiguousarray(signal, dtype=np.double).reshape(signal.shape[0], -1)
    n = x.shape[0]
    if n < 2 * min_size:          # no split leaves two regimes long enough
        return []
    search = (_own_search() if x.shape[1] == 1 else None) or _compiled_search()
    if search is None:
        import ruptures

        return [int(b) for b in ruptures.KernelCPD(kernel="linear", min_size=min_size, jump=1)
                .fit(x).predict(pen=pen)[:-1]]
    # The search returns, for each end t, where the last regime before t begins: walk back from n.
    previous = search(x, pen, min_size)
    found, t = [], int(previous[n])
    while t > 0:
        found.append(t)
        t = int(previous[t])
    return found[::-1]
