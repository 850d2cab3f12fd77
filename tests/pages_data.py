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
