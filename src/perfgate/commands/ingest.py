"""Record harness output files as one run in the history.

All FILEs given together form one run (e.g. a hyperfine JSON and a valgrind instruction count
of the same commit).  Ingesting the same files for the same branch, commit and testbed again is
a no-op — with or without --start-time: the run's idempotency key is derived from its content
(not its start time) unless --idempotency-key is given.  Every file is parsed and checked before
anything is written; on any error nothing is written.

Into a Bencher store (``--store bencher+...``) a short --commit is expanded from the checkout or
refused (Bencher keeps full hashes only); a run that cannot be sent now is spooled (run
``perfgate publish --flush`` later); alerts Bencher raises on the run are always printed, and
--fail-on-alert turns them into exit 1.

An output that names the commit it measured (asv's results: ``commit_hash`` and its ``date``) is
recorded at that commit and date unless --commit / --start-time say otherwise, and on the
machine it names (asv's ``params.machine``) as its testbed unless --testbed says otherwise.

With a command after ``--`` (``perfgate ingest out.json -- hyperfine --export-json out.json ...``),
ingest runs it first (no shell; its output shown as it goes) and records the run at the command's
start and end, with the machine's load while it ran (``host_load`` in the run's context, which
``perfgate detect`` reads to hold a wall-time streak measured on a loaded machine) and its command
line, secrets masked.  A command that fails, or a FILE it did not write or update, records
nothing (exit 2).

github-action-benchmark's history (its gh-pages ``dev/bench/data.js``, or that object as JSON)
is given alone and recorded as one run per entry, each at the commit and date it names, on
--branch (default: main, not the checkout's) with the suite in the run's context; --suite takes
one suite.  The whole file is one transaction: all of its runs or none, and ingesting it again
records only entries added since.
"""

from __future__ import annotations

import argparse
import dataclasses
import time

from perfgate import history_files, host_load
from perfgate.adapters import adapter_names, parse_file
from perfgate.commands import _ingest_command, _ingest_history
from perfgate.commands._common import add_run_identity, resolve_identity, store_from
from perfgate.commands._start_point import add_start_point_options, start_point
from perfgate.escape import terminal, visible
from perfgate.errors import EXIT_OK, EXIT_REGRESSION, EXIT_USAGE, InputError
from perfgate.model import Metric, Run, Testbed, content_key, duplicate_metric, time_problem
from perfgate.output import emit_json, err, out

HISTORY = "github-action-benchmark-history"
NAME = "ingest"
HELP = "record harness output files (hyperfine, pytest-benchmark, Google Benchmark, ...) as a run"
ORDER = 10
TAKES_COMMAND = True    # `-- COMMAND`: cli.main hands everything after `--` over untouched
EPILOG = """examples:
  perfgate ingest out.json --branch main -- hyperfine --export-json out.json 'my-tool input'
      # runs the harness, then records out.json with the machine's load while it ran
      # (detect holds a wall-time alert measured under load); its exit code is not 0: nothing recorded
  hyperfine --export-json out.json 'my-tool input'
  perfgate ingest out.json --branch main --commit "$(git rev-parse HEAD)"   # run before: no load recorded
  perfgate ingest --adapter criterion target/criterion --branch pr-42 --commit abc123
  go test -bench . | perfgate ingest - --adapter go-bench --branch main --commit "$(git rev-parse HEAD)"
  git show gh-pages:dev/bench/data.js > data.js && perfgate ingest data.js   # github-action-benchmark's history"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("files", nargs="+", metavar="FILE",
                   help="harness output files (regular files, at most 256 MiB each; - reads stdin; "
                        "criterion: its directory)")
    p.add_argument("--adapter", default="auto", choices=["auto", *adapter_names()],
                   help="output format (default: detect it)")
    add_run_identity(p)
    p.add_argument("--idempotency-key", help="key making a retried ingest a no-op: 1-128 letters, digits, '.', '_', '-' "
                        "(it names the run's file in `sync --export`; default: content hash)")
    p.add_argument("--start-time", type=_epoch_seconds, help="run start, epoch seconds (default: now)")
    p.add_argument("--suite", help="with github-action-benchmark's history (data.js): record only this suite "
                        "(the action's name: input; default: every suite)")
    p.add_argument("--fail-on-alert", action="store_true",
                   help="exit 1 when the store raises an alert on this run (a Bencher store's threshold; "
                        "refused for other stores: use perfgate detect)")
    add_start_point_options(p)   # into a Bencher store, as publish gives them
    p.set_defaults(command=None)
    # argparse cannot show what follows `--` (cli.main takes it before parsing): said in the usage.
    p.usage = p.format_usage().removeprefix("usage: ").rstrip() + " [-- COMMAND [ARG ...]]"


def run(args: argparse.Namespace) -> int:
    if "" in args.files:
        # an unset CI variable: Path("") is the working directory, whose criterion results were read
        raise InputError("FILE", "", "an empty path (an unset variable?); name the harness output file or "
                         "folder, or '.' for this folder (nothing was recorded)")
    if args.files.count("-") > 1:
        # stdin can be read once: the second '-' read nothing and was refused as "the harness
        # wrote nothing (did its command fail?)", which sent users looking for a failed harness.
        raise InputError("<stdin>", "", f"named {args.files.count('-')} times ('-') but it can be read only once; "
                         "give '-' for one FILE and the others by path (nothing was recorded)")
    if args.fail_on_alert and not args.store.startswith("bencher+"):
        # Only a Bencher server judges a run as it is recorded; into any other store the flag
        # passed every run, so a gate copied from github-action-benchmark or bencher run never failed.
        raise InputError("--fail-on-alert", "", "only a Bencher store raises alerts as a run is recorded; "
                         "into this store every run would pass: run `perfgate detect` after the ingest "
                         "(exit 1 on a new regression) instead (nothing was recorded)")
    branch_start = start_point(args)
    if branch_start is not None and not args.store.startswith("bencher+"):
        # A pull request's branch starts from its base on a Bencher server; a SQLite history
        # keeps each branch's own runs and compares them with --base-branch instead.
        raise InputError("--start-point-branch", "", "a start point is a Bencher server's (a pull request's branch "
                         "cloned from its base); this store takes none: compare the branches with `perfgate "
                         "compare --base-branch` instead (nothing was recorded)")
    if args.suite is not None and args.adapter not in ("auto", HISTORY):
        raise InputError("--suite", "", f"names a suite of github-action-benchmark's history; the {args.adapter} "
                         "adapter reads one run (nothing was recorded)")
    if args.idempotency_key is not None:
        # The key names the run's file in an exported history (history_files): one that cannot
        # would block every later `sync --export`.  Empty is refused, not taken for "not given"
        # (an unset CI variable), as --branch/--commit/--testbed are.
        problem = history_files.name_problem(args.idempotency_key)
        if problem:
            raise InputError("--idempotency-key", "", problem)
    ran = None
    if args.command is not None:
        _ingest_command.check(args.command, args.files)
        before = _ingest_command.snapshot(args.files)
        ran = _ingest_command.run(args.command, stdout_to_stderr=args.json)
        _ingest_command.refuse_stale(before, ran.context["command"])
    metrics: list[Metric] = []
    adapters, context, warnings, named, machines, read_from = [], {}, [], [], {}, []
    for path in args.files:
        name, parsed = parse_file(path, args.adapter)
        if parsed.runs:  # a whole history: a run per entry, not one run of every file
            _ingest_history.refuse_options(args, path, len(args.files))
            return _ingest_history.record(args, path, parsed)
        warnings.extend(f"{visible(path)}: {w}" for w in parsed.warnings)  # one line whatever the path
        adapters.append(name)
        metrics.extend(parsed.metrics)
        read_from += [path] * len(parsed.metrics)
        context.update(parsed.context)
        if parsed.commit is not None:
            named.append((path, parsed.commit, parsed.commit_time))
        if parsed.machine is not None:
            machines.setdefault(parsed.machine.name, (path, parsed.machine))
    if args.suite is not None:
        raise InputError("--suite", "", "names a suite of github-action-benchmark's history (data.js); "
                         f"{', '.join(map(visible, args.files))} hold(s) one run (nothing was recorded)")
    measured_end = None
    if ran is not None:
        context.update(ran.context)
        if args.start_time is None:     # the command measured now, not at a named commit's date
            args.start_time, measured_end = ran.start, ran.end
    _take_named_commit(args, named)
    branch, commit, testbed = resolve_identity(args)
    testbed = _named_machine(args, machines) or testbed
    warnings.extend(_elsewhere(named, commit))
    if args.store.startswith("bencher+"):
        from perfgate.bencher.commits import full_commit

        commit = full_commit(commit)
    dup = duplicate_metric(metrics)
    if dup:
        _refuse_duplicate(dup, metrics, read_from)
    for warning in warnings:  # shown before anything is written, and whatever the outcome
        err.print(f"warning: {warning}", markup=False)
    now = time.time()
    # A run given its time (an import of past results) ended then too, as far as anyone knows:
    # "now" made it last years, and so it showed on a Bencher server.
    new_run = Run(args.project, branch, commit, testbed, metrics, start_time=args.start_time,
                  end_time=measured_end or (now if args.start_time is None else args.start_time),
                  adapter="+".join(sorted(set(adapters))), context=context)
    # The content key leaves the start time out: the same output for the same commit is one run
    # whether or not --start-time was given, and a retry is a no-op.
    new_run.idempotency_key = args.idempotency_key or content_key(dataclasses.replace(new_run, start_time=None))
    if new_run.start_time is None:
        new_run.start_time = now
    with store_from(args, create=True) as store:
        if branch_start is not None:
            store.start_point = branch_start
        added = store.add_run(new_run)
        outcomes = list(getattr(store, "last_outcomes", []))
        if not added and args.idempotency_key is not None:
            _refuse_reused_key(store, new_run)
    spooled = [o for o in outcomes if o.status == "spooled"]
    rejected = [o for o in outcomes if o.status == "rejected"]
    alerts = [a for o in outcomes for a in o.alerts]
    if args.json:
        emit_json({"added": added, "idempotency_key": new_run.idempotency_key, "branch": branch,
                   "commit": commit, "testbed": testbed.name, "metrics": len(metrics),
                   "status": outcomes[0].status if outcomes else ("recorded" if added else "duplicate"),
                   "alerts": alerts, **({"reason": rejected[0].reason} if rejected else {})})
    elif rejected:
        err.print(f"[red]refused by the server[/], set aside in {terminal(str(rejected[0].spooled_at))}: "
                  f"{terminal(rejected[0].reason or '')}")
    elif spooled:
        err.print(f"spooled {len(metrics)} metrics of {terminal(branch)}@{terminal(commit[:12])} on "
                  f"{terminal(testbed.name)}: the server did not answer; run `perfgate publish --flush` later")
    elif added:
        err.print(terminal(f"recorded {len(metrics)} metrics from {len(args.files)} file(s) "
                           f"as a run of {branch}@{commit[:12]} on {testbed.name}{_load_said(context)}"))
    else:
        err.print(f"already recorded (idempotency key {terminal(new_run.idempotency_key)}); nothing written")
    if not args.json:
        for a in alerts:
            out.print(f"[yellow]{terminal(a.describe())}[/]")
    if rejected:
        return EXIT_USAGE
    return EXIT_REGRESSION if args.fail_on_alert and alerts else EXIT_OK


def _refuse_duplicate(dup: tuple[str, str], metrics: list[Metric], read_from: list[str]) -> None:
    """A run holds each benchmark and measure once: name the file(s) the two came from."""
    first, second = (path for m, path in zip(metrics, read_from) if (m.benchmark, m.measure) == dup)
    where = (f"in both {visible(first)} and {visible(second)}" if first != second
             else "twice in this file (two results named alike)")
    raise InputError(second, "", f"benchmark {dup[0]!r} measure {dup[1]!r} appears {where} "
                     "(nothing was recorded)")


def _refuse_reused_key(store, new_run: Run) -> None:
    """A given key already names a run: a retry of the same job (its values may differ) is a no-op,
    but a run of another branch, commit or testbed under it was dropped without a word."""
    stored = store.keyed_run(new_run.idempotency_key)
    this = (new_run.branch, new_run.commit, new_run.testbed.name)
    if stored is not None and stored != this:
        raise InputError("--idempotency-key", "", f"{new_run.idempotency_key!r} already names the run of "
                         f"{stored[0]}@{stored[1][:12]} on {stored[2]}; this run is of {this[0]}@{this[1][:12]} "
                         f"on {this[2]}: give each run its own key (nothing was recorded)")


def _load_said(context: dict) -> str:
    """The load the command ran under, as the line saying the run was recorded adds it."""
    taken = host_load.taken(context.get(host_load.KEY))
    return "" if taken is None else f"; other processes took {taken:.0%} of the CPU it needed while it ran"


def _take_named_commit(args: argparse.Namespace, named: list[tuple[str, str, float | None]]) -> None:
    """Record the run at the commit its files say they measured (asv's results do) when --commit
    is not given: a results folder holds many commits, and each ingested at the checkout's HEAD
    collapsed them into one commit, most as duplicates.  The commit's date is the run's time
    unless --start-time is given, so a folder ingested in any order keeps its order."""
    commits = {commit for _, commit, _ in named}
    if args.commit is not None or not commits:
        return
    if len(commits) > 1:
        raise InputError(", ".join(path for path, _, _ in named), "",
                         f"the files measured {len(commits)} different commits and one run is one commit: "
                         "ingest them one at a time (nothing was recorded)")
    _, args.commit, when = named[0]
    if args.start_time is None:
        args.start_time = when


def _named_machine(args: argparse.Namespace, machines: dict[str, tuple[str, Testbed]]) -> Testbed | None:
    """The testbed the files say measured them (asv's machine) when --testbed is not given: a
    results folder of two machines ingested on this one's fingerprint made one series of both,
    each machine's level a false change.  Files of two machines are refused: one run, one testbed."""
    if args.testbed is not None or not machines:
        return None
    if len(machines) > 1:
        raise InputError(", ".join(path for path, _ in machines.values()), "",
                         f"the files were measured on {len(machines)} machines ({', '.join(map(repr, machines))}) "
                         "and one run is one testbed: ingest them one at a time (nothing was recorded)")
    return next(iter(machines.values()))[1]


def _elsewhere(named: list[tuple[str, str, float | None]], commit: str) -> list[str]:
    """A warning for each file recorded at another commit than the one it says it measured."""
    return [f"{visible(path)}: measured commit {measured[:12]}, recorded at --commit {commit[:12]}"
            for path, measured, _ in named if not (measured.startswith(commit) or commit.startswith(measured))]


def _epoch_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected epoch seconds, got {text!r}") from None
    problem = time_problem(value)
    if problem:
        raise argparse.ArgumentTypeError(problem)
    return value
