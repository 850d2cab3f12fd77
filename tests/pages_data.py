"""A small history for the page tests: two branches and two testbeds, a 30% step on main,
alerts recorded by ``perfgate detect``'s store call, a scaling sweep whose per-object cost turns
quadratic past ~8,000 objects from commit 4 on, and names full of markup and Markdown."""

from __future__ import annotations

import random

from perfgate.model import Alert, Metric, Run
from perfgate.model import Testbed as Bed
from perfgate.store.sqlite import SqliteStore

STEP_AT = 30
RUNS = 50
HOSTILE = '<img src=x onerror="window.PWNED=1"><script>window.PWNED=2</script>**bold** [x](javascript:alert(1))'
BENCH = "parse <img src=x>"
BRANCH_PR = "pr/<b>evil</b>"
SWEEP = "async_array"
SWEEP_COMMITS = 6
SWEEP_HOSTILE = '<img src=x onerror="window.PWNED=3">_sweep **x**'
KNEE_FROM = 4  # first sweep commit whose cost turns quadratic


def commit(i: int, branch: str = "main") -> str:
    return f"{i:02d}" + ("c" if branch == "main" else "d") * 38


def sweep_metrics(rng: random.Random, knee: bool, name: str = SWEEP) -> list[Metric]:
    out = []
    for v in (1, 3, 10):
        for o in (100, 200, 400, 800, 1600, 3200, 6400, 9000, 12800, 18000, 25600, 36000, 51200):
            cost = 35 * v * o + 480 * o + (0.04 * (o - 8000) ** 2 if knee and o > 8000 else 0)
            samples = tuple(cost * rng.lognormvariate(0, 0.01) for _ in range(3))
            out.append(Metric(f"{name}/values={v},objects={o}", "total-ns", sum(samples) / 3, min(samples),
                              max(samples), samples, attrs={"parameters": {"values": float(v), "objects": float(o)}}))
    return out


def build(path, *, hostile_commit: bool = True) -> None:
    rng = random.Random(7)
    runs = []
    for i in range(RUNS):
        slow = 1.3 if i >= STEP_AT else 1.0
        for tb, scale in (("tb", 1.0), ("arm <i>64</i>", 1.6)):
            samples = tuple(1e6 * scale * slow * rng.lognormvariate(0, 0.02) for _ in range(5))
            metrics = [
                Metric(BENCH, "latency", sum(samples) / 5, min(samples), max(samples), samples),
                Metric(BENCH, "instructions", 4e7 * scale * (1.02 if i >= STEP_AT else 1.0)),
                Metric("steady", "latency", 2e5 * scale * rng.lognormvariate(0, 0.02)),
                Metric(HOSTILE, "latency", 3e5 * rng.lognormvariate(0, 0.02)),
            ]
            if tb == "tb" and i >= RUNS - SWEEP_COMMITS:
                metrics += sweep_metrics(rng, i >= RUNS - SWEEP_COMMITS + KNEE_FROM)
            if tb == "tb" and i == RUNS - 1:  # a sweep named with markup, one commit
                metrics += sweep_metrics(rng, False, SWEEP_HOSTILE)
            runs.append(Run("default", "main", commit(i), Bed(tb, {"cpu_model": "test <cpu>"}), metrics,
                            start_time=1.7e9 + i * 3600))
    for i in range(10):  # a pull-request branch, a little slower
        name = HOSTILE if hostile_commit and i == 9 else commit(i, "pr")
        runs.append(Run("default", BRANCH_PR, name, Bed("tb", {"cpu_model": "test <cpu>"}), [
            Metric(BENCH, "latency", 1.35e6 * rng.lognormvariate(0, 0.02)),
            Metric("steady", "latency", 2e5 * rng.lognormvariate(0, 0.02))], start_time=1.7e9 + (40 + i) * 3600))
    with SqliteStore(path) as store:
        store.add_runs(runs)
        store.record_alerts([Alert("main", "tb", BENCH, "latency", commit(STEP_AT), "regression", 0.3, 0.27, 0.33,
                                   0.0, previous_commit=commit(STEP_AT - 1),
                                   commit_range=(commit(STEP_AT),), details={"ci_level": 0.99})])


DROP = "drop"
DROP_AT = 25        # the first run of the step down of ``build_closed``'s series


def build_closed(path, *, every_state: bool = True, far_first: bool = False) -> dict[str, str]:
    """One series, ``drop`` latency on main @ tb: 45 daily runs, a 15% step down at run 25 with an
    active alert there (its pin at the change point's line, half-way up the chart: another step
    down follows at run 38) and a regression alert the analysis withdrew (at run 12).
    ``every_state``: also one alert in each other closed state — undone by a later improvement
    alert, undone by a way back (a revert, no alert of its own), a threshold streak that ended,
    acknowledged.  ``far_first``: the first run dated 40 days before the rest
    (as an old commit recorded once).  Returns each alert's id by its state."""
    rng = random.Random(3)
    t0 = 1.6992e9       # 2023-11-05
    runs = []
    for i in range(45):
        level = 1e6 * (0.72 if i >= DROP_AT + 13 else 0.85 if i >= DROP_AT else 1.0)
        samples = tuple(level * rng.lognormvariate(0, 0.01) for _ in range(5))
        t = t0 + i * 86400 + 3600 * rng.random() - (40 * 86400 if far_first and i == 0 else 0)
        runs.append(Run("default", "main", commit(i), Bed("tb"), [
            Metric(DROP, "latency", sum(samples) / 5, min(samples), max(samples), samples)], start_time=t))

    def alert(i, direction, magnitude, **kw):
        return Alert("main", "tb", DROP, "latency", commit(i), direction, magnitude, magnitude - 0.01,
                     magnitude + 0.01, 0.001, previous_commit=commit(i - 1), commit_range=(commit(i),), **kw)

    back = {"commit": commit(17), "previous_commit": commit(16), "commit_range": [commit(17)], "magnitude": -0.04,
            "ci_low": -0.05, "ci_high": -0.03, "p_value": 0.002, "found_at": commit(20)}
    # the undone regression and its fix first: a fix undoes the regressions raised before it
    wanted = [("undone", alert(5, "regression", 0.05)), ("fix", alert(8, "improvement", -0.05))] if every_state else []
    wanted += [("active", alert(DROP_AT, "improvement", -0.15)),
               ("withdrawn", alert(12, "regression", 0.045, details={"withdrawn_at": commit(22)}))]
    if every_state:
        wanted += [("went_back", alert(15, "regression", 0.04, details={"went_back": back})),
                   ("ended", alert(35, "regression", 0.06, kind="threshold", details={"ended_at": commit(37)})),
                   ("acknowledged", alert(40, "regression", 0.03))]
    ids = {}
    with SqliteStore(path) as store:
        store.add_runs(runs)
        for state, a in wanted:        # one at a time, each raised after the one before
            ids[state] = store.record_alerts([a])[0].id
        if every_state:
            store.acknowledge(ids["acknowledged"])
    return ids


BACKFILLED = "backfilled"
BACKFILL_RUNS = 60      # runs recorded at their commit dates, about three days apart
RECENT_RUNS = 18        # then ``perfgate run`` on each new commit, an hour apart, today
RECENT_STEPS = (6, 12)  # the recent runs whose commits step every measure up, then up again


def build_backfilled(path) -> None:
    """One benchmark backfilled over half a year and then run on 18 commits in a day: a time axis
    squeezes the day into its right edge.  Its measures are one of each kind the pages write —
    time (latency, ~120 µs), bytes (peak-rss, ~11.5 MiB), a count (instructions, ~1.3G) and a rate
    (throughput, ~800k ops/s) — each stepping up by 6% on the day's sixth commit and again on its
    twelfth (two change points at the right edge, their sizes both written at their lines' foot), each a level whose ticks in its own unit are not round in the stored one."""
    rng = random.Random(5)
    t0 = 1.7e9
    times = [t0 + i * 3 * 86400 + rng.random() * 86400 for i in range(BACKFILL_RUNS)]
    today = times[-1] + 200 * 86400
    times += [today + i * 3600 for i in range(RECENT_RUNS)]
    levels = {"latency": 118.7e3, "peak-rss": 11.44 * 1024 ** 2, "instructions": 1.283e9, "throughput": 8.13e5}
    runs = []
    for i, t in enumerate(times):
        up = 1.06 ** sum(i >= BACKFILL_RUNS + k for k in RECENT_STEPS)
        metrics = []
        for measure, level in levels.items():
            samples = tuple(level * up * rng.lognormvariate(0, 0.004) for _ in range(5))
            exact = measure in ("peak-rss", "instructions")     # counted, not timed: whole numbers
            samples = tuple(float(round(s)) for s in samples) if exact else samples
            metrics.append(Metric(BACKFILLED, measure, sum(samples) / 5, min(samples), max(samples), samples))
        runs.append(Run("default", "main", f"{i:03d}" + "e" * 37, Bed("tb"), metrics, start_time=t))
    with SqliteStore(path) as store:
        store.add_runs(runs)
