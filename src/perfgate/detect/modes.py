"""Visits to a second mode, told apart from changes.

Some benchmarks have a sticky second mode: a code layout, or a machine state lasting a few runs,
puts them a fixed amount slower for a stretch now and then.  Each stay longer than a few runs is a
pair of clean, opposite steps of the mode gap, and every test of the detector passes them.  A
regression and its revert look the same once; what gives a mode away is that the series keeps
visiting its level.  On a suite corpus written apart from the detector
(``bench/detection_corpus_suites.py``) such modes raised 497 of its 565 false reports (0.77 false
alarms per 1,000 quiet runs); with the two tests below, 0.29 per 1,000 and 2 true changes of
1,092 lost, and no other corpus worse.  The binomial level was 0.001 until round 17 of issue 16;
at 0.01 the suite corpus has 6 fewer false reports, and over 24 seeds of every generator no corpus
scores lower.  The price (``bench/mode_rule_reverts.py``): of regressions reverted 6–28 runs later
in noise with no second mode, 0.1–1.2% are now taken for a mode's visit — a regression already
undone, missed, against a sticky mode's false pairs.

An *excursion* is a regime of at most :data:`EXCURSION_RUNS` runs between opposite changes that
ends within :data:`EXCURSION_BACK` of its size from where it began.  It is a mode's visit when

* another excursion of the series goes to the same level (sizes within :data:`SAME_LEVEL`), or
* the regimes either side of it hold runs at its level — at least :data:`MODE_MIN_RUNS`, clearly
  more than sit as far on the other side (one-sided binomial test, ``p <`` :data:`MODE_P`: a
  unimodal noise, heavy-tailed or drifting, reaches both sides alike) — in visits long enough that
  one as long as the excursion is unsurprising (geometric stays with their mean length; a mode
  visited a run at a time, as a bimodal benchmark's alternating runs, does not explain a stay of
  28 runs).

Both sides are measured from the level the series sits at most (:func:`_home_level`), and a stay
is not ended by one run that its jitter takes out of the level's band (:func:`_bridged`).  Where a
mode is a few jitter deviations away, its median-pulling visits and its broken stays hid it: with
both, the suite corpus's false reports fell 140 → 130 (sticky bimodal 90 → 80) with every true
change kept; over 16 seeds of the first and short generators, two true excursions (a regression
and its revert) were dropped with them.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from perfgate.detect.distributions import fair_binomial_at_least

if TYPE_CHECKING:
    from perfgate.detect.changepoint import ChangePoint

EXCURSION_RUNS = 30    # a regime this short between opposite changes ...
EXCURSION_BACK = 0.5   # ... that ends within half its size of where it began is an excursion
SAME_LEVEL = 0.35      # excursions within 35% of each other's size visit the same level
MODE_MIN_RUNS = 3      # fewest runs at the excursion's level beside it that can show a mode
MODE_P = 0.01          # those runs against the ones as far on the other side: binomial p below this
DWELL_P = 0.01         # a stay as long as the excursion, at least this likely among the visits seen


def excursions(found: list[ChangePoint]) -> list[int]:
    """Positions i (in ``found``) where changes i and i + 1 enclose an excursion; disjoint, left
    to right."""
    out, i = [], 0
    while i + 1 < len(found):
        a, b = found[i], found[i + 1]
        back = (1 + a.magnitude) * (1 + b.magnitude) - 1
        if (a.magnitude * b.magnitude < 0 and b.index - a.index <= EXCURSION_RUNS
                and abs(back) < EXCURSION_BACK * abs(a.magnitude)):
            out.append(i)
            i += 2
        else:
            i += 1
    return out


def without_mode_visits(found: list[ChangePoint], y: np.ndarray, log_scale: bool) -> list[ChangePoint]:
    """``found`` less the excursions that are visits to a mode; ``y``: the series on the
    detector's scale (log values when ``log_scale``, else values over their level)."""
    ex = excursions(found)
    drop: set[int] = set()
    for i in ex:
        size = found[i].magnitude
        again = [j for j in ex if found[j].magnitude * size > 0
                 and abs(found[j].magnitude - size) <= SAME_LEVEL * abs(size)]
        if len(again) >= 2 or _visited_beside(found, i, y, log_scale):
            drop |= {i, i + 1}
    return [cp for k, cp in enumerate(found) if k not in drop]


def _visited_beside(found: list[ChangePoint], i: int, y: np.ndarray, log_scale: bool) -> bool:
    """Whether the regimes either side of excursion i keep visiting its level (module doc)."""
    a, b = found[i].index, found[i + 1].index
    lo = found[i - 1].index if i > 0 else 0
    hi = found[i + 2].index if i + 2 < len(found) else y.size
    before, after = y[lo:a], y[b:hi]
    # off the log scale a magnitude is relative to the level before it, which may be 0
    size = math.log1p(found[i].magnitude) if log_scale else float(np.median(y[a:b]) - np.median(before))
    base = _home_level(np.concatenate([before, after]))

    def at(level_side: float, part: np.ndarray) -> np.ndarray:
        dev = (part - base) * level_side
        return (dev >= abs(size) / 2) & (dev <= 1.5 * abs(size))

    sign = 1.0 if size > 0 else -1.0
    here = np.concatenate([at(sign, before), [False], at(sign, after)])   # the gap splits visits
    k = int(here.sum())
    mirror = int(at(-sign, before).sum() + at(-sign, after).sum())
    if k < MODE_MIN_RUNS or fair_binomial_at_least(k, k + mirror) >= MODE_P:
        return False
    stays = _bridged(here)
    visits = int(stays[0]) + int((stays[1:] & ~stays[:-1]).sum())
    mean_stay = int(stays.sum()) / visits
    if mean_stay <= 1:
        return False
    return (visits + 1) * (1 - 1 / mean_stay) ** (b - a - 1) >= DWELL_P


def _home_level(y: np.ndarray) -> float:
    """The level a series sits at most: the median of its shortest half (a shorth).  Its median
    would do for one mode, but a second mode's visits pull the median toward them, and the other
    side of it then counts as far out as the visits do (in the suite corpus, jitter reached as far
    below that median as the sticky mode's visits above it)."""
    x = np.sort(y)
    h = x.size // 2 + 1
    start = int(np.argmin(x[h - 1:] - x[:x.size - h + 1]))
    return float(np.median(x[start:start + h]))


def _bridged(here: np.ndarray) -> np.ndarray:
    """``here`` with every single run between two runs at the level counted in: the jitter of a
    mode whose level is a few of its deviations away takes a run of a stay out of the band now
    and then, and a stay counted as pieces looks shorter than it is."""
    out = here.copy()
    out[1:-1] |= here[:-2] & here[2:]
    return out
