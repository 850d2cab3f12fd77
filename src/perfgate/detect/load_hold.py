"""Whether a wall-time threshold streak was measured on a loaded machine its baseline was not; which
runs a wall-time series' change point search leaves out for their load (:func:`left_out`).

Two runs in a row measured while other jobs kept a 2-core machine busy pass a wall-time t_test
on unchanged code (+150% was reported).  Such a streak is *held* when the load explains it: its
values taken at the speed they would have had without the load (:func:`unloaded`) are not past
the limit as many times in a row as an alert needs.  Held, it raises no alert and the series is
shown as pending, until later runs past the limit at their unloaded speed make an alert's worth
(then it alerts) or a run back within the limit ends the streak (nothing was raised).  A
regression larger than the load is raised at once.  Only for wall time: instruction counts and
memory do not slow down with the machine's load.  Runs that recorded no load
(:mod:`perfgate.host_load`) are judged as before.

Pure; no store access.
"""

from __future__ import annotations

import statistics
from bisect import bisect_left
from typing import Sequence

from perfgate.units import is_duration, rate_unit

# A run's load is the share of the CPU the benchmark needed that other processes took
# (``perfgate.host_load.contended``): a slowdown of 1 / (1 - load) for a benchmark short of one,
# within 0.02 beside busy loops on this 2-core machine, on the host and pinned in a container
# (bench/loaded_runs.py --interference).  From 0.25, a third slower, a run is loaded: the streak's
# values are then judged at their unloaded speed.  A quiet baseline is one mostly under it.
LOADED = 0.25
QUIET = 0.25
MOST = 0.95         # a load read as all of the CPU still left the benchmark a little of it


def wall_time(measure: str) -> bool:
    """Whether a measure's values are wall time: durations (``latency``, ``build-time``, a name
    ending in a time unit) or work done per unit of time (``throughput``, ``items-s``)."""
    return measure == "build-time" or rate_unit(measure) is not None or is_duration(measure)


def load_check(streak: Sequence[float | None], baseline: Sequence[float | None],
               explained: bool | None = None) -> dict[str, float | bool] | None:
    """``{"held": ..., "load": ..., "baseline_load": ...}`` for a streak whose values past the
    limit had the loads ``streak`` against a baseline whose values had ``baseline``;
    None when the loads are not known (a value of the streak, or half its baseline, without one):
    the streak is judged as before.  Against a baseline whose median load is under ``QUIET``, held
    when the load ``explained`` the streak (its values at their unloaded speed not past the limit
    as many times in a row as an alert needs) and one of its values was measured at ``LOADED`` or
    more: a value a little past the limit by chance next to one the load slowed is no streak.
    Where that is not known (None), held only when every value was loaded: one value past the
    limit measured without that load is evidence the load does not explain."""
    known = [x for x in baseline if x is not None]
    loads = [x for x in streak if x is not None]
    if not loads or len(loads) < len(streak) or not known or 2 * len(known) < len(baseline):
        return None
    load, base = statistics.median(loads), statistics.median(known)
    if base >= QUIET:
        return {"held": False, "load": load, "baseline_load": base}
    if explained is None:
        return {"held": min(loads) >= LOADED, "load": load, "baseline_load": base}
    loaded = max(loads) >= LOADED
    return {"held": loaded and explained, "load": load, "baseline_load": base} | \
        ({"larger_than_the_load": True} if loaded and not explained else {})


def unloaded(value: float, load: float | None, lower_is_better: bool) -> float:
    """``value`` at the speed its benchmark would have had without ``load``: a time × (1 − load),
    a rate ÷ (1 − load); as it is where no load was recorded."""
    if load is None:
        return value
    keep = 1.0 - min(load, MOST)
    return value * keep if lower_is_better else value / keep


NEIGHBOURS = 3     # unloaded runs before a loaded one whose median is the level it is read against


def left_out(measure: str, loads: Sequence[float | None], values: Sequence[float]) -> list[int]:
    """The runs of a series (their ``loads``, None where not recorded) that its change point search
    leaves out (:mod:`perfgate.detect.load_search`): of a wall-time measure, those measured at
    ``LOADED`` or more while most of the runs that recorded a load were quiet (under ``QUIET``),
    and slowed by at least half what their load predicts against the level before them (the
    median of the :data:`NEIGHBOURS` unloaded runs before).  A load episode is then a gap in the
    series, not a bump; a loaded run at that level or below it is kept: the load did not slow it
    (an adopter's 150x step lost its loaded runs on both sides, 5 of 12, that sat at their
    levels, and with them the change).  A loaded run at a new, higher level is left out: the
    level before and the load explain it.  None where most were loaded: there the loaded runs
    are the series' normal, and it is searched as before."""
    if not wall_time(measure):
        return []
    known = [x for x in loads if x is not None]
    loaded = [i for i, x in enumerate(loads) if x is not None and x >= LOADED]
    quiet = sum(1 for x in known if x < QUIET)
    if not loaded or 2 * quiet <= len(known):
        return []
    lower_is_better = rate_unit(measure) is None
    unloaded_runs = [i for i, x in enumerate(loads) if x is None or x < LOADED]
    return [i for i in loaded if _slowed(i, loads[i], values, unloaded_runs, lower_is_better)]


def _slowed(i: int, load: float, values: Sequence[float], unloaded_runs: list[int], lower_is_better: bool) -> bool:
    """Whether run ``i`` is slower than the median of the unloaded runs just before it by at least
    half the slowdown its ``load`` predicts (1 / (1 - load)); with none before it, taken as slowed."""
    at = bisect_left(unloaded_runs, i)
    near = [values[j] for j in unloaded_runs[max(0, at - NEIGHBOURS):at]]
    if not near:
        return True
    level, value = statistics.median(near), values[i]
    if not (level > 0 and value > 0):
        return True
    ratio = value / level if lower_is_better else level / value
    return ratio >= 1 + (1 / (1 - min(load, MOST)) - 1) / 2


def held_text(check: dict) -> str:
    """How ``perfgate detect`` names a held streak."""
    return (f"measured while the machine was loaded: other processes took {check['load']:.0%} of the CPU it "
            f"needed against {check['baseline_load']:.0%} in its baseline, and at the speed it would have had "
            f"without them it is within the limit; the next runs decide")


def rounds_left_out(measure: str, base: Sequence[float | None], head: Sequence[float | None]) -> list[int]:
    """The rounds of ``perfgate check`` whose wall time is left out for load: those where either
    side was measured at ``LOADED`` or more (``base``, ``head``: each round's load, None where not
    recorded), while most rounds were quiet and two or more stay.  Base and head of a round are
    paired, so one side slowed 2x by other jobs moves the mean of eight rounds' log ratios by 9%
    and their spread far more: a row left undecided, or a change the code did not make.  Where
    most rounds were loaded, that is the machine the check ran on, and its rounds are judged as
    measured."""
    if not wall_time(measure):
        return []
    loaded = [r for r, (b, h) in enumerate(zip(base, head)) if max(b or 0.0, h or 0.0) >= LOADED]
    quiet = min(len(base), len(head)) - len(loaded)
    return loaded if loaded and quiet >= 2 and quiet > len(loaded) else []
