"""The exact penalised search of one series: ruptures' PELT with the linear kernel, i.e.
``ruptures.KernelCPD(kernel="linear", min_size=m, jump=1).fit(signal).predict(pen=pen)``.

Importing the ``ruptures`` package imports every cost it offers, and with them ``scipy.stats``,
``scipy.spatial`` and ``scipy.signal``: 0.6 s of CPU in every ``perfgate detect``, a third of the
2 s an incremental detect of 10,000 series may take, for code the linear kernel never runs.  The
search itself is one compiled function whose module imports only numpy, so it is loaded from the
installed package on its own, without running the package's ``__init__``.  Where ruptures is laid
out otherwise (a version other than the pinned one), the public class is used instead; both give
the same change points (``tests/test_pelt.py``).
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
from functools import cache
from pathlib import Path
from typing import Callable

import numpy as np

_COMPILED = "ruptures.detection._detection.ekcpd"   # the module KernelCPD calls; ruptures 1.1.10


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
    search = _compiled_search()
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
