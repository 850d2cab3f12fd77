"""The change point search of a wall-time series without its runs measured under load.

A load episode (a few runs 1.5-3x slower while other jobs kept the machine busy) is a bump the
search reports as an up-step and a down-step: 40 change point alerts per 100 loaded A/A series in
``bench/loaded_runs.py``, which the threshold hold (:mod:`.load_hold`) does not reach.  Where most
runs were quiet, those measured under load (:func:`.load_hold.left_out`) are left out of the
search: missing, not evidence, as the commits a thinned backfill skipped.  A change found on the
runs kept could have begun at any run after its last good quiet run up to its first bad one, so
its range spans the loaded runs between; its index is that first bad quiet run (the first to
show the new level, so a threshold test's new regime starts at a quiet run).

:class:`WithoutLoaded` is a fitted :class:`~.changepoint.ChangePointDetector` over the runs kept
that speaks the whole series' indices, so ``perfgate detect`` and the pages use it unchanged.
Pure; no store access.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Sequence

import numpy as np

from perfgate.detect.changepoint import LIKELIHOOD_FLOOR, ChangePoint, ChangePointDetector, Likelihood
from perfgate.detect.load_hold import left_out


def fitted(detector: ChangePointDetector, measure: str, values: Sequence[float],
           samples: Sequence[Sequence[float]] | None, loads: Sequence[float | None]):
    """``detector`` fitted to the series, or a :class:`WithoutLoaded` around it when some of its
    runs are left out for their load (none for a series that recorded no load, or mostly loaded:
    searched exactly as before)."""
    out = left_out(measure, loads, values)
    if not out:
        return detector.fit(values, samples)
    return WithoutLoaded(detector, values, samples, out)


class WithoutLoaded:
    """``detector`` fitted to the runs not in ``left_out``; its change points, likelihoods and the
    places it is tested at in the whole series' indices."""

    def __init__(self, detector: ChangePointDetector, values: Sequence[float],
                 samples: Sequence[Sequence[float]] | None, left_out: Sequence[int]):
        out = set(left_out)
        self.left_out = sorted(out)
        self.kept = np.array([i for i in range(len(values)) if i not in out], dtype=int)
        self.inner = detector.fit([values[i] for i in self.kept],
                                  [samples[i] for i in self.kept] if samples is not None else None)
        self.values_ = np.asarray(values, dtype=float)     # every run's: the threshold test judges them all
        self.settings = detector.settings

    @property
    def inflation_(self) -> float:
        return self.inner.inflation_

    @inflation_.setter
    def inflation_(self, value: float) -> None:
        self.inner.inflation_ = value

    @property
    def warm_up(self) -> int:
        return self._low(self.inner.warm_up)

    def predict(self) -> list[ChangePoint]:
        return [self._out(cp) for cp in self.inner.predict()]

    def likelihoods(self, found: list[ChangePoint]) -> list[Likelihood]:
        return [self._likelihood_out(s) for s in self.inner.likelihoods([self._in(cp) for cp in found])]

    def align(self, found: list[ChangePoint], siblings: list[Likelihood]) -> tuple[list[ChangePoint], list[list[int]]]:
        inner = [self._in(cp) for cp in found]
        placed, members = self.inner.align(inner, [self._likelihood_in(s) for s in siblings])
        # a change left where it was is the same object, as ChangePointDetector.align returns it
        return [cp if p is q else self._out(p) for cp, p, q in zip(found, placed, inner)], members

    def corroborate(self, found: list[ChangePoint], ranges: list[tuple[int, int]], siblings: int = 1,
                    sources: list | None = None) -> list[ChangePoint]:
        places = [(self._sub(a), self._sub(b)) for a, b in ranges]
        return [self._out(cp) for cp in self.inner.corroborate([self._in(cp) for cp in found], places, siblings,
                                                               sources)]

    # --- indices ----------------------------------------------------------------------------------
    # A change at kept run u (the first of its new regime) could be at any run from the one after
    # kept run u - 1 up to kept run u: the runs left out between are each as likely.

    def _low(self, u: int) -> int:
        """The first run of the whole series a change at kept run ``u`` could be at."""
        return int(self.kept[u - 1]) + 1 if u > 0 else 0

    def _sub(self, i: int) -> int:
        """The kept run a change at run ``i`` of the whole series is seen at: the first kept from it."""
        return min(int(np.searchsorted(self.kept, i)), self.kept.size - 1)

    def _out(self, cp: ChangePoint) -> ChangePoint:
        located = cp.likeliest_low >= 0     # -1: not located more closely
        return replace(cp, index=int(self.kept[cp.index]), index_low=self._low(cp.index_low),
                       index_high=int(self.kept[cp.index_high]),
                       likeliest_low=self._low(cp.likeliest_low) if located else -1,
                       likeliest_high=int(self.kept[cp.likeliest_high]) if located else -1)

    def _in(self, cp: ChangePoint) -> ChangePoint:
        located = cp.likeliest_low >= 0
        return replace(cp, index=self._sub(cp.index), index_low=self._sub(cp.index_low),
                       index_high=self._sub(cp.index_high),
                       likeliest_low=self._sub(cp.likeliest_low) if located else -1,
                       likeliest_high=self._sub(cp.likeliest_high) if located else -1)

    def _likelihood_out(self, s: Likelihood) -> Likelihood:
        """A likelihood over kept runs, over the whole series' runs: each run takes its kept run's."""
        a, b = self._low(s.start), int(self.kept[s.end - 1])
        return Likelihood(a, tuple(s.values[min(max(self._sub(i) - s.start, 0), len(s.values) - 1)]
                                   for i in range(a, b + 1)))

    def _likelihood_in(self, s: Likelihood) -> Likelihood:
        """A sibling's likelihood over the whole series' runs, over kept runs: each kept run takes
        the best of the runs it stands for (a sibling's change at a run left out is seen there)."""
        u0, u1 = self._sub(s.start), self._sub(s.end - 1)
        values = []
        for u in range(u0, u1 + 1):
            a, b = max(self._low(u), s.start), min(int(self.kept[u]), s.end - 1)
            values.append(max(s.values[a - s.start:b - s.start + 1], default=-LIKELIHOOD_FLOOR))
        return Likelihood(u0, tuple(values))
