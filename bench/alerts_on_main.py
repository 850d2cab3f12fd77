#!/usr/bin/env python3
"""The alerts a main branch gets, run by run, from the real ``perfgate detect``: how many are false
on quiet benchmarks, and how many runs after a regression lands its alert comes.

Two testbeds of ``--benchmarks`` wall-time benchmarks each (log-normal noise of ``--cv``,
AR(1) with ``--phi``) get ``--history`` runs, then ``--runs`` more one at a time, each followed by
``perfgate detect`` (the CLI in a subprocess, incremental as in CI) with perfgate's thresholds,
or with latency's test changed: ``--consecutive N`` values in a row past its limit alert (1 is
Bencher's way, an alert on each), ``--min-sample-size N`` runs at least set its limit.  On the
testbed ``quiet`` nothing changes.  On ``step`` the benchmarks get a regression of 1, 2, 3, 5 or
10 times the noise (in turn) at the first new run.  Prints:

* the false alerts on the quiet testbed, by the kind that raised them (threshold test or change
  point), per 1,000 benchmark-runs that detect judged as the newest, and how many runs saw one;
* for each step size: the regressions alerted, the median number of runs until the first alert
  (1 = on the run that regressed) and the kind that raised it (a threshold alert taken over by a
  change point later counts as the threshold's), the alerts per regression alerted (more than 1:
  one regression raised several), and the regressions whose alert names the very commit;
* the regression alerts closed as undone by a way back (``detect``'s test for a revert): on the
  step testbed every one is closed wrongly, since no series here goes back.

    .venv/bin/python bench/alerts_on_main.py --benchmarks 40 --runs 60    # 2.5 minutes
    .venv/bin/python bench/alerts_on_main.py --benchmarks 40 --runs 60 --consecutive 1 --min-sample-size 5
        # latency's test as perfgate's defaults had it before (an alert on each value past the limit)
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

import numpy as np

from ar1_noise import ar1_noise
from perfgate.model import Metric, Run, Testbed
from perfgate.store.sqlite import SqliteStore
from perfgate.thresholds import load_thresholds

STEPS = (1, 2, 3, 5, 10)    # regressions, in noise units


def commit(testbed: str, i: int) -> str:
    return f"{testbed}-{i:05d}"


def run(testbed: str, i: int, factors: np.ndarray, noise: np.ndarray) -> Run:
    values = 1e6 * factors * np.exp(noise)
    return Run("default", "main", commit(testbed, i), Testbed(testbed),
               [Metric(f"bench{b:03d}", "latency", float(v)) for b, v in enumerate(values)],
               start_time=1_700_000_000.0 + i)


def cli(store: Path, *args: str) -> str:
    proc = subprocess.run([sys.executable, "-m", "perfgate.cli", *args, "--store", f"sqlite:{store}"],
                          capture_output=True, text=True)
    if proc.returncode not in (0, 1):
        sys.exit(f"perfgate {args[0]} failed ({proc.returncode}): {proc.stderr}")
    return proc.stdout


def thresholds_with(changes: dict[str, int], folder: Path) -> str:
    """perfgate's thresholds with latency's test changed (``consecutive``, ``min_sample_size``): its
    files, then one restating its latency test (a later file overrides an earlier one's test)."""
    folder.mkdir()
    for f in (Path(__file__).resolve().parents[1] / "thresholds").iterdir():   # perfgate's own
        shutil.copy(f, folder / f.name)
    test = load_thresholds(folder).for_series("", "latency").test
    body = {k: v for k, v in vars(test).items() if v is not None} | changes
    (folder / "zz-latency.toml").write_text(
        "[measure.latency]\n" + "".join(f"{k} = {json.dumps(v)}\n" for k, v in body.items()), encoding="utf-8")
    return str(folder)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--benchmarks", type=int, default=20)
    p.add_argument("--history", type=int, default=60, help="runs before the first detect (default: %(default)s)")
    p.add_argument("--runs", type=int, default=40, help="runs added one at a time (default: %(default)s)")
    p.add_argument("--cv", type=float, default=0.05, help="the noise's CV (default: %(default)s)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--phi", type=float, default=0.0, help="the noise's lag-1 autocorrelation (default: %(default)s)")
    p.add_argument("--consecutive", type=int, help="latency alerts after this many values in a row past its limit")
    p.add_argument("--min-sample-size", type=int, help="latency's limit from at least this many runs")
    args = p.parse_args()
    rng = np.random.default_rng(args.seed)
    steps = np.array([STEPS[b % len(STEPS)] for b in range(args.benchmarks)], dtype=float)
    regressed = np.exp(args.cv * steps)
    total = args.history + args.runs
    noise = ar1_noise(rng, total, args.cv, args.phi, (2, args.benchmarks)).swapaxes(0, 1)   # testbed, run, bench
    with tempfile.TemporaryDirectory() as tmp:
        store = Path(tmp) / "history.db"
        changes = {k: v for k, v in (("consecutive", args.consecutive), ("min_sample_size", args.min_sample_size))
                   if v is not None}
        extra = ["--thresholds", thresholds_with(changes, Path(tmp) / "t")] if changes else []
        seen: dict[str, tuple[int, str]] = {}   # alert id -> (new runs when detect raised it, its kind then)
        for i in range(total):
            with SqliteStore(store) as s:
                s.add_runs([run("quiet", i, np.ones(args.benchmarks), noise[0, i]),
                            run("step", i, regressed if i >= args.history else np.ones(args.benchmarks), noise[1, i])])
            if i < args.history - 1:
                continue
            cli(store, "detect", "--json", *extra)
            for a in json.loads(cli(store, "alerts", "--json", "--status", "all")):
                seen.setdefault(a["id"], (i - args.history + 1, a["kind"]))
        alerts = json.loads(cli(store, "alerts", "--json", "--status", "all"))
    judged = args.benchmarks * (args.runs + 1)          # the newest value of each detect
    print(f"{args.benchmarks} benchmarks a testbed, {args.history} runs then {args.runs} one at a time, "
          f"noise CV {args.cv:.0%}, lag-1 autocorrelation {args.phi}; perfgate's thresholds"
          + "".join(f", latency's {k} {v}" for k, v in changes.items()))
    quiet = [a for a in alerts if a["testbed"] == "quiet"]
    for kind in ("threshold", "change_point"):
        raised = [a for a in quiet if seen[a["id"]][1] == kind]
        print(f"quiet testbed, false alerts raised by the {kind.replace('_', ' ')}: {len(raised)} "
              f"({1000 * len(raised) / judged:.2f} per 1,000 benchmark-runs)")
    print(f"quiet testbed, runs with a false alert: {len({a['commit'] for a in quiet})} of {args.runs + 1} detected")
    print("\nstep (x noise)  alerted  first alert: median runs after (kind)  alerts per regression  "
          "naming the very commit")
    for size in STEPS:
        names = [f"bench{b:03d}" for b in range(args.benchmarks) if steps[b] == size]
        mine = {n: sorted((a for a in alerts if a["testbed"] == "step" and a["benchmark"] == n
                           and a["direction"] == "regression"), key=lambda a: seen[a["id"]][0]) for n in names}
        firsts = [m[0] for m in mine.values() if m]
        kinds = Counter(seen[a["id"]][1] for a in firsts)
        delays = [seen[a["id"]][0] for a in firsts]
        exact = sum(any(a["commit"] == commit("step", args.history) for a in m) for m in mine.values())
        print(f"{size:>14}  {len(firsts)}/{len(names)}  "
              f"{statistics.median(delays) if delays else '—':>7} ({', '.join(f'{k} {v}' for k, v in sorted(kinds.items()))})"
              f"  {sum(map(len, mine.values())) / max(len(firsts), 1):.1f}  {exact}/{len(names)}")
    # No series here goes back: a regression alert closed as undone by a way back (detect's test for a
    # revert, no improvement alert undoing it) is closed wrongly on the step testbed.
    undone = [a for a in alerts if a["direction"] == "regression" and a.get("undone_at") and not a.get("undone_by")]
    for testbed in ("step", "quiet"):
        mine = [a for a in alerts if a["testbed"] == testbed and a["direction"] == "regression"]
        closed = [a for a in undone if a["testbed"] == testbed]
        print(f"{testbed} testbed, regression alerts closed as undone by a way back: {len(closed)} of {len(mine)} "
              f"({', '.join(sorted(Counter(a['kind'] for a in closed)))})" if closed else
              f"{testbed} testbed, regression alerts closed as undone by a way back: 0 of {len(mine)}")


if __name__ == "__main__":
    main()
