"""Build the benchmark suites in their pinned containers, run them, and record the runs.

Reads ``benches/*/bench.toml``; builds the base image, each suite's toolchain image and the suite
itself (each skipped when its content hash is unchanged); runs every suite and variant in its
container; parses the output with the suite's adapter; adds the probes' ``instructions`` and
``peak-rss``; records **one run per suite, variant and repeat** on the testbed of the suite's
image; and prints each measure's run-to-run coefficient of variation.

  sample CV  spread of the raw samples inside one run (harness repetitions), averaged over repeats
  run CV     spread of the recorded value across --repeat runs (needs --repeat 2 or more)
"""

from __future__ import annotations

import argparse
import statistics
from collections import defaultdict
from pathlib import Path

from perfgate.escape import terminal
from perfgate.gitinfo import other_commit_than_head, uncommitted_changes, untracked
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from perfgate.commands._common import cpuset_option, default_cpuset, given_branch_and_commit, refuse_shared_series, store_from
from perfgate.containers import engine, images
from perfgate.containers.fingerprint import container_testbed
from perfgate.containers.manifest import PROFILES, discover
from perfgate.containers.runner import Limits, run_suite
from perfgate.detect.stats import coefficient_of_variation
from perfgate.errors import EXIT_OK, PerfgateError
from perfgate.model import Run, Testbed, duplicate_metric
from perfgate.output import emit_json, err, out
from perfgate.units import human

NAME = "run"
HELP = "build and run the benchmark suites in pinned containers and record the results"
ORDER = 5
EPILOG = """examples:
  perfgate run --profile quick                    # every suite in benches/
  perfgate run --suite tree-alloc --repeat 3      # one suite, three recorded runs, run-to-run CV
  perfgate run --suite async-deinit --variant '' --variant hash-set --json"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_suite_options(p)
    p.add_argument("--repeat", type=int, default=1, metavar="N", help="record N runs of each suite (default: 1)")
    p.add_argument("--branch", help="branch the runs belong to (default: the checkout's branch)")
    p.add_argument("--commit", help="commit measured (default: the checkout's HEAD)")


def add_suite_options(p: argparse.ArgumentParser) -> None:
    """Options shared with ``perfgate check``."""
    p.add_argument("--root", type=Path, default=Path("."),
                   help="repository holding benches/ and docker/ (default: the current directory)")
    p.add_argument("--suite", action="append", metavar="NAME", help="only this suite (repeatable)")
    p.add_argument("--variant", action="append", metavar="NAME",
                   help="only this variant (repeatable; '' is the plain suite)")
    p.add_argument("--profile", choices=PROFILES, default="quick", help="suite profile (default: %(default)s)")
    p.add_argument("--cpuset", default=default_cpuset(), type=cpuset_option,
                   help="CPUs the benchmark containers are pinned to (default: %(default)s, the last CPU, "
                        "leaving the others to the system)")
    p.add_argument("--no-probes", action="store_true", help="skip the valgrind / peak-RSS probes")


def run(args: argparse.Namespace) -> int:
    if args.repeat < 1:
        raise PerfgateError("--repeat must be at least 1")
    root = args.root.resolve()
    suites = discover(root / "benches", args.suite)
    plan = [(s, v) for s in suites for v in s.variant_names(args.variant)]
    branch, commit = given_branch_and_commit(args)
    head = other_commit_than_head(str(root), commit) if args.commit is not None else None
    if head is not None:
        # run measures the working tree: recorded as another commit, it passed for that commit's
        # performance, and a later backfill skipped the commit as already recorded
        raise PerfgateError(f"--commit {args.commit} names commit {commit[:12]}, but the working tree measured is at "
                            f"{head[:12]}: check that commit out first, or measure it with "
                            f"'perfgate backfill {commit[:12]}~1..{commit[:12]}' (nothing was recorded)")
    # The working tree is what is built and measured; recorded under HEAD, edits not committed
    # would pass for HEAD's performance.  Said, and kept in each run's context.
    dirty = args.commit is None and uncommitted_changes(str(root))
    if dirty:
        err.print(f"[yellow]warning:[/yellow] the working tree has uncommitted changes: they are measured and "
                  f"recorded as commit {commit[:12]} (HEAD), marked uncommitted_changes in each run's context; "
                  "commit them first, or record on a scratch --branch")

    if args.commit is None:
        for manifest in untracked(str(root), [str(s.manifest.relative_to(root)) for s in suites]):
            err.print(f"[yellow]warning:[/yellow] {terminal(manifest)} is not tracked by git (new, or ignored): its "
                      f"suite is measured and recorded as commit {commit[:12]} (HEAD), which does not have it")

    engine.ensure_engine()
    built = images.build_all(root, suites, log=err.print)
    testbeds: dict[tuple[str, str], Testbed] = {}  # (toolchain image, memory limit) -> testbed
    for suite in suites:
        tool = built[suite.name][0]
        if (tool.tag, suite.memory) not in testbeds:
            testbeds[(tool.tag, suite.memory)] = container_testbed(suite.image, tool, args.cpuset, suite.memory)

    runs: list[Run] = []
    added = 0
    with store_from(args, create=True) as store, Progress(TextColumn("{task.description}"), BarColumn(), TextColumn("{task.completed}/{task.total}"),
                                             TimeElapsedColumn(), console=err, transient=False) as progress:
        task = progress.add_task("benchmarks", total=len(plan) * args.repeat)
        for repeat in range(args.repeat):
            for suite, variant in plan:
                label = f"{suite.name}{'/' + variant if variant else ''} ({repeat + 1}/{args.repeat})"
                progress.update(task, description=terminal(label))
                tool, suite_image = built[suite.name]
                result = run_suite(suite, suite_image.tag, variant=variant, profile=args.profile,
                                   limits=Limits(args.cpuset, suite.memory, suite.timeout), probes=not args.no_probes,
                                   logs_dir=root / ".perfgate" / "logs")
                dup = duplicate_metric(result.metrics)
                if dup:
                    raise PerfgateError(f"{suite.manifest}: benchmark {dup[0]!r} measure {dup[1]!r} appears twice")
                run_ = Run(args.project, branch, commit, testbeds[(tool.tag, suite.memory)], result.metrics,
                           start_time=result.start_time, end_time=result.end_time, adapter=result.context["adapter"],
                           context={**result.context, "repeat": repeat, "suite_image_digest": f"sha256:{suite_image.key}",
                                    **({"uncommitted_changes": True} if dirty else {})})
                refuse_shared_series(store, run_, suite.manifest)
                # Recorded as it finishes: a later suite's failure does not lose this one.
                added += store.add_run(run_.with_key())
                runs.append(run_)
                progress.advance(task)
    rows = summarize(runs)
    if args.json:
        emit_json({"runs": added, "branch": branch, "commit": commit,
                   "testbeds": {t.name: t.fingerprint for t in testbeds.values()}, "summary": rows})
    else:
        print_summary(rows, added, branch, commit, testbeds)
    return EXIT_OK


def summarize(runs: list[Run]) -> list[dict]:
    """Per (suite, benchmark, measure): median value over repeats, sample CV and run CV."""
    values: dict[tuple, list[float]] = defaultdict(list)
    sample_cvs: dict[tuple, list[float]] = defaultdict(list)
    for r in runs:
        for m in r.metrics:
            key = (r.context["suite"], m.benchmark, m.measure, r.testbed.name)
            values[key].append(m.value)
            cv = coefficient_of_variation(list(m.samples))
            if cv is not None:
                sample_cvs[key].append(cv)
    rows = []
    for key, vals in values.items():
        suite, bench, measure, testbed = key
        rows.append({"suite": suite, "benchmark": bench, "measure": measure, "testbed": testbed,
                     "value": statistics.median(vals), "runs": len(vals),
                     "sample_cv": statistics.fmean(sample_cvs[key]) if sample_cvs[key] else None,
                     "run_cv": coefficient_of_variation(vals)})
    return rows


FULL_TABLE_ROWS = 60  # above this, one line per (suite, measure); --json always has every row


def print_summary(rows: list[dict], added: int, branch: str, commit: str, testbeds: dict) -> None:
    pct = lambda x: f"{x * 100:.2f}%" if x is not None else "—"  # noqa: E731
    title = f"perfgate run: {added} run(s) recorded for {terminal(branch)}@{terminal(commit[:12])}"
    if len(rows) <= FULL_TABLE_ROWS:
        table = Table(title=title, title_justify="left")
        for col in ("suite", "benchmark", "measure", "value", "sample CV", "run CV"):
            table.add_column(col, justify="left" if col in ("suite", "benchmark", "measure") else "right", overflow="fold")
        for row in rows:
            table.add_row(terminal(row["suite"]), terminal(row["benchmark"]), row["measure"],
                          human(row["value"], row["measure"]), pct(row["sample_cv"]), pct(row["run_cv"]))
    else:
        table = Table(title=f"{title} (medians over each suite's benchmarks; every row with --json)",
                      title_justify="left")
        for col in ("suite", "measure", "benchmarks", "sample CV", "run CV"):
            table.add_column(col, justify="left" if col in ("suite", "measure") else "right")
        groups: dict[tuple[str, str], list[dict]] = defaultdict(list)
        for row in rows:
            groups[(row["suite"], row["measure"])].append(row)
        for (suite, measure), members in groups.items():
            table.add_row(terminal(suite), measure, str(len(members)),
                          pct(_median([r["sample_cv"] for r in members])), pct(_median([r["run_cv"] for r in members])))
    out.print(table)
    by_measure: dict[str, list[float]] = defaultdict(list)
    for row in rows:
        if row["run_cv"] is not None:
            by_measure[row["measure"]].append(row["run_cv"])
    for measure, cvs in sorted(by_measure.items()):
        out.print(f"run-to-run CV of {measure}: median {statistics.median(cvs) * 100:.3f}% over {len(cvs)} benchmark(s)")
    for tb in testbeds.values():
        fp = tb.fingerprint
        out.print(f"[dim]testbed {terminal(tb.name)}: image {terminal(fp['image_tag'])} ({fp['image_digest'][:19]}…), "
                  f"cpuset {fp['cpuset']}, {terminal(fp['cpu_model'])}, kernel {terminal(fp['kernel'])}[/dim]")


def _median(values: list[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return statistics.median(present) if present else None
