"""Whether a wall-time threshold streak was measured on a loaded machine its baseline was not; which
runs a wall-time series' change point search leaves out for their load (:func:`left_out`).

Two runs in a row measured while other jobs kept a 2-core machine busy pass a wall-time t_test
on unchanged code (+150% was reported).  Such a streak is *held*: no alert, the series shown as
pending, until a run measured without that load is past the limit too (then it alerts as usual)
or is not (the streak ends, and nothing was raised).  Only for wall time: instruction counts and
memory do not slow down with the machine's load.  Runs that recorded no load
(:mod:`perfgate.host_load`) are judged as before.

Pure; no store access.
"""

from __future__ import annotations

import statistics
from typing import Sequence

from perfgate.units import is_duration, rate_unit

# A run's load is the share of CPU time other processes used while it measured
# (``perfgate.host_load``).  Beside busy loops on this 2-core machine (bench/loaded_runs.py
# --interference) runs measured at 0.80-0.91 were slowed 2.5-5.5x (wall over CPU time), one at
# 0.68 1.6x, and those at 0.38-0.51 ran at their CPU time (others had a core, the benchmark the
# other): 0.75 holds only the clear cases.  A quiet baseline is one where others used under half
# of the machine: the benchmark always had a CPU of its own.
LOADED = 0.75
QUIET = 0.5


def wall_time(measure: str) -> bool:
    """Whether a measure's values are wall time: durations (``latency``, ``build-time``, a name
    ending in a time unit) or work done per unit of time (``throughput``, ``items-s``)."""
    return measure == "build-time" or rate_unit(measure) is not None or is_duration(measure)


def load_check(streak: Sequence[float | None], baseline: Sequence[float | None]) -> dict[str, float | bool] | None:
    """``{"held": ..., "load": ..., "baseline_load": ...}`` for a streak whose values past the
    limit had the loads ``streak`` against a baseline whose values had ``baseline``;
    None when the loads are not known (a value of the streak, or half its baseline, without one):
    the streak is judged as before.  Held when every value of the streak was measured at
    ``LOADED`` or more and the baseline's median load is under ``QUIET``: one value past the limit
    measured without that load is evidence the load does not explain."""
    known = [x for x in baseline if x is not None]
    loads = [x for x in streak if x is not None]
    if not loads or len(loads) < len(streak) or not known or 2 * len(known) < len(baseline):
        return None
    load, base = statistics.median(loads), statistics.median(known)
    return {"held": min(loads) >= LOADED and base < QUIET, "load": load, "baseline_load": base}


def left_out(measure: str, loads: Sequence[float | None]) -> list[int]:
    """The runs of a series (their ``loads``, None where not recorded) that its change point search
    leaves out (:mod:`perfgate.detect.load_search`): of a wall-time measure, those measured at
    ``LOADED`` or more while most of the runs that recorded a load were quiet (under ``QUIET``).
    A load episode is then a gap in the series, not a bump.  None where most were loaded: there
    the loaded runs are the series' normal, and it is searched as before."""
    if not wall_time(measure):
        return []
    known = [x for x in loads if x is not None]
    loaded = [i for i, x in enumerate(loads) if x is not None and x >= LOADED]
    quiet = sum(1 for x in known if x < QUIET)
    return loaded if loaded and 2 * quiet > len(known) else []


def held_text(check: dict) -> str:
    """How ``perfgate detect`` names a held streak."""
    return (f"measured while the machine was loaded: other processes used {check['load']:.0%} of its CPU time "
            f"against {check['baseline_load']:.0%} in its baseline; the next run on a quiet machine decides")
