"""Run-to-run noise of each measure on this machine, from real suite runs in their containers.

Runs every suite of ``benches/`` (plain variant, quick profile) ``--repeat`` times in its pinned
container, exactly as ``perfgate run`` does, and reports per measure the run-to-run coefficient
of variation  CV = stdev(values over repeats) / mean  of each benchmark's recorded value, summarised
as the median (and max) over benchmarks.  For wall time it also reports the within-run CV of the
harness's raw samples.  Nothing is recorded in a store.

    .venv/bin/python bench/noise.py --repeat 5 [--suite NAME] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

from perfgate.commands._common import default_cpuset
from perfgate.detect.stats import coefficient_of_variation
from perfgate.containers import engine, images
from perfgate.containers.manifest import discover
from perfgate.containers.runner import Limits, run_suite

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--suite", action="append")
    p.add_argument("--cpuset", default=default_cpuset())
    p.add_argument("--json", type=Path, help="also write the figures here")
    args = p.parse_args()

    engine.ensure_engine()
    suites = discover(ROOT / "benches", args.suite)
    built = images.build_all(ROOT, suites, log=lambda m: print(m, file=sys.stderr))
    values: dict[tuple[str, str, str], list[float]] = defaultdict(list)
    sample_cv: dict[tuple[str, str, str], list[float]] = defaultdict(list)
    started = time.monotonic()
    for i in range(args.repeat):
        for suite in suites:
            t0 = time.monotonic()
            result = run_suite(suite, built[suite.name][1].tag, variant="", profile="quick",
                               limits=Limits(args.cpuset, suite.memory, suite.timeout))
            print(f"repeat {i + 1}/{args.repeat} {suite.name}: {time.monotonic() - t0:.1f} s", file=sys.stderr)
            for m in result.metrics:
                key = (suite.name, m.benchmark, m.measure)
                values[key].append(m.value)
                cv = coefficient_of_variation(list(m.samples))
                if cv is not None:
                    sample_cv[key].append(cv)

    by_measure: dict[str, list[float]] = defaultdict(list)
    within: dict[str, list[float]] = defaultdict(list)
    for key, vals in values.items():
        cv = coefficient_of_variation(vals)
        if cv is not None:
            by_measure[key[2]].append(cv)
        if sample_cv[key]:
            within[key[2]].append(statistics.fmean(sample_cv[key]))
    rows = []
    for measure, cvs in sorted(by_measure.items()):
        rows.append({"measure": measure, "benchmarks": len(cvs), "run_cv_median": statistics.median(cvs),
                     "run_cv_max": max(cvs),
                     "sample_cv_median": statistics.median(within[measure]) if within[measure] else None})
    print(f"\nrun-to-run CV over {args.repeat} repeats of {', '.join(s.name for s in suites)} "
          f"(quick profile, cpuset {args.cpuset}, {time.monotonic() - started:.0f} s)")
    print(f"{'measure':<16}{'benchmarks':>11}{'run CV median':>15}{'run CV max':>12}{'within-run CV':>15}")
    for r in rows:
        within_text = f"{r['sample_cv_median'] * 100:.2f}%" if r["sample_cv_median"] is not None else "—"
        print(f"{r['measure']:<16}{r['benchmarks']:>11}{r['run_cv_median'] * 100:>14.3f}%{r['run_cv_max'] * 100:>11.3f}%"
              f"{within_text:>15}")
    if args.json:
        args.json.write_text(json.dumps({"repeat": args.repeat, "rows": rows,
                                         "per_benchmark": [{"suite": k[0], "benchmark": k[1], "measure": k[2],
                                                            "values": v} for k, v in values.items()]}, indent=2))


if __name__ == "__main__":
    main()
