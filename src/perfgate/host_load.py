"""The machine's load while perfgate measures a run, kept in the run's context (``host_load``).

Wall time measured while other jobs keep the cores busy is slow for reasons the code did not
cause: ``perfgate detect`` holds a wall-time threshold alert whose runs were measured under load
their baseline was not (:mod:`perfgate.detect.load_hold`).  What is recorded::

    "host_load": {"others": 0.92, "contended": 0.84, "cpus": 2, "loadavg": [3.9, 4.6], "seconds": 41.2}

``others`` is the share of CPU time other processes used during the run, from ``/proc/stat``:
of the whole machine, less the CPU time of perfgate's children (the benchmark), when it runs on
the host; of the CPUs of its cpuset (``pinned``: how many), less the container's own CPU time
(its cgroup's, read by :mod:`perfgate.containers.cpu_time`), when it runs pinned in a container.
Other work on the CPUs outside the cpuset is not counted: it leaves the benchmark undisturbed.
That, not the load average, is what the hold rests on: beside 0, 2 and 4 busy loops on this shared
2-core machine (``bench/loaded_runs.py --interference``), a benchmark's slowdown (wall over CPU
time, 1.0-5.5x) followed ``others`` (r = 0.90) far better than the 1-minute load average per core
at the start or the end of the run (r = 0.56, 0.60): that average lags a load begun seconds
before, and it read 1.4-2.4 per core while a benchmark ran undisturbed.  The load averages are
kept for people reading the run.

The same ``others`` means a different slowdown on 2 CPUs than on the 1 CPU a container is pinned
to: on the host 50% leaves the benchmark a CPU of its own, pinned it halves its speed.
``contended`` (:func:`contended`) is what detect reads: the share of the one CPU the benchmark
needs that others took, from either.

Linux only: where ``/proc`` cannot be read nothing is recorded, and never an error.
"""

from __future__ import annotations

import math
import os
import resource
import time
from typing import Any, NamedTuple

KEY = "host_load"           # the run context's key
OTHERS = "others"           # the share of CPU time others used
CONTENDED = "contended"     # the figure detect reads (:func:`contended`)
PINNED = "pinned"           # the CPUs of a container's cpuset
WINDOW = "window"           # "command": read over the command's own run, inside its container
STAT, LOADAVG = "/proc/stat", "/proc/loadavg"


class Reading(NamedTuple):
    at: float                               # time.monotonic()
    loadavg: float | None                   # the 1-minute load average
    cpus: dict[int, tuple[int, int]]        # per CPU: (busy, all) clock ticks since boot
    children: float                         # CPU seconds of this process's finished children


def _cpus(lines) -> dict[int, tuple[int, int]]:
    """Per CPU (busy, all) clock ticks from ``/proc/stat``'s lines (other lines are skipped)."""
    cpus = {}
    for line in lines:
        name, *fields = line.split() or [""]
        if name.startswith("cpu") and name[3:].isdigit():
            ticks = [int(x) for x in fields[:8]]    # guest time is inside user time already
            cpus[int(name[3:])] = (sum(ticks) - ticks[3] - ticks[4], sum(ticks))   # less idle, iowait
    return cpus


def reading(stat: str = STAT, loadavg: str = LOADAVG) -> Reading | None:
    """The counters now; None where there are none to read (not Linux, a sandbox)."""
    try:
        with open(stat) as f:
            cpus = _cpus(f)
    except (OSError, ValueError, IndexError):
        return None
    if not cpus:
        return None
    try:
        with open(loadavg) as f:
            load: float | None = float(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        load = None
    own = resource.getrusage(resource.RUSAGE_CHILDREN)
    return Reading(time.monotonic(), load, cpus, own.ru_utime + own.ru_stime)


# Run in a container around its command (``sh -c SNAPSHOTS sh COMMAND``): the counters as the
# command starts and ends, so that the window is the benchmark's own.  Read from outside, it held
# the container's start and stop too, whose work the engine's processes do beside the cpuset's
# benchmark: a suite run of about a second read 15-31% of its CPU taken with nothing else running.
# Containers see the host's /proc/stat, /proc/loadavg and /proc/uptime.
SNAPSHOT_FILES = (".perfgate-load-start", ".perfgate-load-end")
SNAPSHOTS = (f'cat /proc/stat /proc/loadavg /proc/uptime > "$PERFGATE_OUT/{SNAPSHOT_FILES[0]}" 2>/dev/null; '
             f'sh -c "$1"; status=$?; '
             f'cat /proc/stat /proc/loadavg /proc/uptime > "$PERFGATE_OUT/{SNAPSHOT_FILES[1]}" 2>/dev/null; '
             f'exit $status')


def snapshot(text: str) -> Reading | None:
    """A :data:`SNAPSHOTS` file's reading (its time the host's uptime); None when it is not one."""
    lines = text.splitlines()
    try:
        cpus = _cpus(lines[:-2])
        load, uptime = float(lines[-2].split()[0]), float(lines[-1].split()[0])
    except (ValueError, IndexError):
        return None
    return Reading(uptime, load, cpus, 0.0) if cpus else None


def during(start: Reading | None, cpuset: str | None = None, own: float | None = None,
           end: Reading | None = None, **paths: str) -> dict[str, Any]:
    """``{KEY: {...}}`` for a run's context from the reading taken as it started ({} without
    one) and the one as it ended (``end``; None: now).  ``cpuset``: the CPUs a container running
    the benchmark was pinned to (``"1"``, ``"0-1,3"``), and ``own`` the CPU seconds the container
    used (None when unread: no ``others`` then); no cpuset: the benchmark ran as this process's
    child."""
    within = end is not None
    end = end or reading(**paths)
    if start is None or end is None:
        return {}
    out: dict[str, Any] = {"cpus": len(end.cpus), "loadavg": [start.loadavg, end.loadavg],
                           "seconds": round(end.at - start.at, 1), **({WINDOW: "command"} if within else {})}
    delta = {c: (end.cpus[c][0] - start.cpus[c][0], end.cpus[c][1] - start.cpus[c][1])
             for c in end.cpus if c in start.cpus}
    if cpuset is None:
        over = list(delta.values())
        # less the benchmark's own
        busy = sum(b for b, _ in over) - (end.children - start.children) * os.sysconf("SC_CLK_TCK")
    else:
        pinned = cpu_list(cpuset)
        over = [d for c, d in delta.items() if c in pinned] if pinned is not None and own is not None else []
        busy = sum(b for b, _ in over) - (own or 0.0) * os.sysconf("SC_CLK_TCK")
        if over:
            out[PINNED] = len(over)
    total = sum(t for _, t in over)
    if total > 0:
        out[OTHERS] = round(min(max(busy / total, 0.0), 1.0), 3)
        out[CONTENDED] = contended(out[OTHERS], len(over))
    return {KEY: out}


def contended(others: float, cpus: int) -> float:
    """The share of one CPU that other processes took from a benchmark that needs one, when they
    used ``others`` of the ``cpus`` it was measured over: they left it (1 − others)·cpus CPUs, and
    short of a whole one it ran at that fraction of its speed (a slowdown of 1 / (1 − contended)).
    Beside busy loops on this 2-core machine (``bench/loaded_runs.py --interference``), every loaded
    run's slowdown was 1 / (1 − contended) within 0.02: on the host 1.52-3.41x, contended 0.34-0.71;
    in a container pinned to one CPU, whose contended share is its others', 1.08-1.23x.  A
    benchmark that needs more than one CPU is contended sooner than this says."""
    return round(min(max(1.0 - cpus * (1.0 - others), 0.0), 1.0), 3)


def cpu_list(cpuset: str) -> set[int] | None:
    """The CPUs of a cpuset list (``"0-2,5"``); None when it is not one."""
    cpus: set[int] = set()
    try:
        for part in cpuset.split(","):
            lo, _, hi = part.strip().partition("-")
            cpus.update(range(int(lo), int(hi or lo) + 1))
    except ValueError:
        return None
    return cpus


def taken(load: Any) -> float | None:
    """A run context's ``contended`` (its ``host_load``) as detect and check read it; None where
    there is none, or where a container's run was read from outside (pinned, no ``window``: before
    stop 57), its figure then holding the container's start and stop.  ``store/sqlite.py``'s
    ``_LOAD`` reads stored runs by the same rule."""
    if not isinstance(load, dict) or (PINNED in load and WINDOW not in load):
        return None
    return figure(load.get(CONTENDED))


def figure(value: Any) -> float | None:
    """A recorded ``others`` or ``contended`` as detect takes it: a number from 0 to 1, else None (a
    run file's context is anyone's JSON)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) and 0 <= value <= 1 else None
