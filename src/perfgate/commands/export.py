"""Write recorded runs out: BMF (for ``bencher run --adapter json``), JSON with samples, or CSV.

BMF holds one run (the newest matching one unless --run names it); JSON and CSV hold every
matching run.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import sys
from dataclasses import asdict

from perfgate.adapters.bmf import to_bmf
from perfgate.check_branches import is_check_branch
from perfgate.commands._common import store_from
from perfgate.errors import EXIT_OK, PerfgateError
from perfgate.output import err
from perfgate.escape import csv_cell, terminal
from perfgate.outputs import write_atomic
from perfgate.model import Run

NAME = "export"
HELP = "export runs as BMF (Bencher Metric Format), JSON with raw samples, or CSV"
ORDER = 30
EPILOG = """examples:
  perfgate export --format bmf > results.json && bencher run --adapter json --file results.json
  perfgate export --format csv --branch main -o history.csv"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--format", required=True, choices=["bmf", "json", "csv"])
    p.add_argument("--run", dest="run_id", help="export this run id (default: bmf the newest run not of a check/ branch, others all runs)")
    p.add_argument("--branch", help="only runs of this branch")
    p.add_argument("-o", "--output", help="write to this file instead of stdout")


def to_json(runs: list[tuple[str, Run]]) -> list[dict]:
    return [{"run": run_id, **asdict(r)} for run_id, r in runs]


def to_csv(runs: list[tuple[str, Run]]) -> str:
    """One row per metric; ``run`` is the store's run id (what ``--run`` takes), on either store."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["run", "branch", "commit", "testbed", "start_time", "benchmark", "measure",
                "value", "lower_value", "upper_value", "samples"])
    for run_id, r in runs:
        for m in r.metrics:
            w.writerow([run_id, *map(csv_cell, (r.branch, r.commit, r.testbed.name)), r.start_time,
                        csv_cell(m.benchmark), csv_cell(m.measure), m.value, m.lower, m.upper, " ".join(map(repr, m.samples))])
    return buf.getvalue()


def run(args: argparse.Namespace) -> int:
    with store_from(args) as store:
        if args.run_id:
            runs = [(args.run_id, store.get_run(args.run_id))]
        else:
            one = args.format == "bmf"
            summaries = store.runs(branch=args.branch, limit=1 if one and args.branch else None)
            if one:   # the newest run, said on stderr; a check's A/B runs only when named by --branch
                summaries = [s for s in summaries if args.branch or not is_check_branch(s.branch)][:1]
                for s in summaries:
                    err.print(f"export: run {s.run_id} ({terminal(s.branch)}@{s.commit[:12]} on "
                              f"{terminal(s.testbed)}); --run ID or --branch for another")
            runs = [(s.run_id, store.get_run(s.run_id)) for s in reversed(summaries)]
    if not runs:
        raise PerfgateError("no runs to export with these filters")
    if args.format == "bmf":
        text = json.dumps(to_bmf(runs[-1][1]), indent=2) + "\n"
    elif args.format == "json":
        text = json.dumps(to_json(runs), indent=2) + "\n"
    else:
        text = to_csv(runs)
    if args.output:
        write_atomic(args.output, text)
    else:
        sys.stdout.write(text)
    return EXIT_OK
