"""Delete runs recorded by mistake (a throttled machine, a wrong --commit), or retire a benchmark
that was removed or renamed: every metric of its series.

Says what would go — runs, metrics, series, with commits and dates — and deletes nothing unless
--yes is given; then all of it goes in one transaction, or nothing.  The series touched are
analysed again by the next ``perfgate detect``: a change point alert that only the deleted runs
made is withdrawn there (a threshold alert is not: acknowledge it with ``perfgate alerts --ack``).

The data folder (``sync``, the git data branch): the store keeps a record of each deleted run
and metric by its run key, and ``sync --export`` writes it as a new file under ``forgotten/``;
``sync --import`` leaves those runs and metrics out, and deletes them from a store that still
holds them.  Removing the run's file instead would not last: the folder only ever grows (so
concurrent pushes merge by union and lose nothing), and a job whose store was rebuilt before the
deletion still holds the run and would write its file back.  A record wins that merge; it also
keeps the deletion undoable (delete the record's file and rebuild the store from the folder).

A Bencher store deletes one report a call, and retires by archiving the benchmark whole (Bencher
deletes a benchmark only once no report uses it): its series leave what perfgate reads, its data
stays on the server, and Bencher's console can unarchive it.
"""

from __future__ import annotations

import argparse
from datetime import datetime, timezone

from perfgate.commands._common import full_run_id, store_from
from perfgate.errors import EXIT_OK, PerfgateError, StoreError
from perfgate.escape import terminal
from perfgate.model import Run
from perfgate.output import emit_json, out
from perfgate.store import SeriesKey, Store

NAME = "forget"
HELP = "delete runs recorded by mistake, or retire a benchmark's series (dry run unless --yes)"
ORDER = 28
EPILOG = """examples:
  perfgate export --format csv                     # lists run ids
  perfgate forget --run 3f2c9a10                   # say what would be deleted (nothing is)
  perfgate forget --run 3f2c9a10 --run 77ab01de --yes
  perfgate forget --benchmark old_name --yes       # retire every series of a benchmark
  perfgate forget --benchmark sort --measure latency --branch main --testbed ci --yes
  perfgate sync --export data/                     # then push data/: imports leave them out"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--run", dest="runs", metavar="ID", action="append",
                   help="delete this run (an id as 'perfgate export --format csv' lists it, or a unique prefix); repeatable")
    p.add_argument("--benchmark", help="retire this benchmark's series (its exact name)")
    p.add_argument("--measure", help="with --benchmark: only this measure")
    p.add_argument("--branch", help="with --benchmark: only this branch")
    p.add_argument("--testbed", help="with --benchmark: only this testbed")
    p.add_argument("--yes", action="store_true", help="delete (without it, only say what would be deleted)")


def run(args: argparse.Namespace) -> int:
    _check_options(args)
    with store_from(args) as store:
        refusal = store.forget_refusal(len(set(args.runs or [])), bool(args.benchmark), _narrowing(args))
        if refusal:
            raise StoreError(refusal)
        if args.yes:
            store.expect_writes()           # its integrity check runs beside the planning
        runs = _runs(store, args.runs or [])
        series = _series(store, args) if args.benchmark else []
        plan = _plan(store, runs, series)
        if args.yes and (runs or series):
            store.forget([run_id for run_id, _ in runs], series)
        where = _where(store)
    # A store that archives (Bencher) says so; a benchmark found archived already is done.
    archive = bool(args.benchmark) and store.retires_by == "archive"
    done = {"archived": args.yes, "deleted": False} if archive else {"deleted": args.yes}
    if args.json:
        emit_json(plan | done | ({"already_archived": True} if archive and not series else {}))
    elif archive and not series:
        out.print(terminal(f"benchmark {args.benchmark!r} is already archived in {where}: nothing to do "
                           "(Bencher's console can unarchive it)"))
    else:
        _print(plan, args.yes, "archive" if archive else "delete")
    return EXIT_OK


def _check_options(args: argparse.Namespace) -> None:
    if bool(args.runs) == bool(args.benchmark):
        raise PerfgateError("give --run ID (one or more) or --benchmark NAME, not both and not neither")
    narrowing = _narrowing(args)
    if narrowing and not args.benchmark:
        raise PerfgateError(f"{', '.join(narrowing)} narrow --benchmark; a --run is deleted whole")


def _narrowing(args: argparse.Namespace) -> list[str]:
    return [f"--{k}" for k in ("measure", "branch", "testbed") if getattr(args, k) is not None]


def _runs(store: Store, refs: list[str]) -> list[tuple[str, Run]]:
    """Each ref's run id and run; every ref is resolved before anything is deleted."""
    found: dict[str, Run] = {}
    for ref in refs:
        if not ref.strip():
            raise PerfgateError("--run '': an empty id (an unset variable?)")
        run_id = full_run_id(store, ref, "--run")     # a prefix, as compare --base takes one
        try:
            run = store.get_run(run_id)
        except StoreError as e:
            raise StoreError(f"--run {ref!r}: {e}; 'perfgate export --format csv' lists run ids; "
                             "nothing was deleted") from None
        found[run_id] = run
    return list(found.items())


def _series(store: Store, args: argparse.Namespace) -> list[SeriesKey]:
    keys = store.series_keys(benchmark=args.benchmark, measure=args.measure, branch=args.branch, testbed=args.testbed)
    if not keys and not _narrowing(args) and store.retired(args.benchmark):
        return []       # archived already (a rerun after a lost answer): what was asked for
    if not keys:
        given = " ".join(f"--{k} {getattr(args, k)!r}" for k in ("benchmark", "measure", "branch", "testbed")
                         if getattr(args, k) is not None)
        raise PerfgateError(f"no series matches {given} in {_where(store)} (names are exact; 'perfgate history' "
                            "lists every series); nothing was deleted")
    return keys


def _where(store: Store) -> str:
    return str(getattr(store, "shown", None) or store.project)


def _plan(store: Store, runs: list[tuple[str, Run]], series: list[SeriesKey]) -> dict:
    """What would go: the runs named, the series (their points before and after), the active
    alerts of those series (detect re-judges them)."""
    touched: dict[SeriesKey, int] = {}      # series -> points deleted
    for _, run in runs:
        for m in run.metrics:
            key = SeriesKey(run.branch, run.testbed.name, m.benchmark, m.measure)
            touched[key] = touched.get(key, 0) + 1
    rows = []
    for key in series:
        points = store.series(key)
        touched[key] = len(points)
        rows.append(_series_row(key, len(points), len(points), points[0], points[-1]))
    retired = set(series)
    rows += [_series_row(key, n, store.series_length(key)) for key, n in sorted(touched.items()) if key not in retired]
    try:
        alerts = [a for a in store.alerts("active")
                  if SeriesKey(a.branch, a.testbed, a.benchmark, a.measure) in touched]
    except StoreError:
        alerts = []
    return {"runs": [_run_row(run_id, run) for run_id, run in runs], "series": rows,
            "metrics": sum(touched.values()),
            "alerts": [{"id": a.id, "kind": a.kind, "direction": a.direction, "commit": a.commit,
                        "benchmark": a.benchmark, "measure": a.measure, "branch": a.branch, "testbed": a.testbed}
                       for a in alerts]}


def _date(t: float | None) -> str:
    return datetime.fromtimestamp(t, timezone.utc).strftime("%Y-%m-%d %H:%M UTC") if t is not None else "no date"


def _run_row(run_id: str, run: Run) -> dict:
    return {"id": run_id, "branch": run.branch, "testbed": run.testbed.name, "commit": run.commit,
            "date": _date(run.start_time), "metrics": len(run.metrics)}


def _series_row(key: SeriesKey, deleted: int, points: int, first=None, last=None) -> dict:
    row = {"branch": key.branch, "testbed": key.testbed, "benchmark": key.benchmark, "measure": key.measure,
           "points": points, "deleted": deleted, "label": key.label()}
    if first is not None:
        row |= {"from": {"commit": first.commit, "date": _date(first.time)},
                "to": {"commit": last.commit, "date": _date(last.time)}}
    return row


def _print(plan: dict, deleted: bool, how: str = "delete") -> None:
    if how == "archive":
        _print_archive(plan, deleted)
        return
    verb = "deleted" if deleted else "would delete"
    for r in plan["runs"]:
        out.print(terminal(f"{verb} run {r['id']}: {r['branch']}@{r['testbed']} commit {r['commit'][:12]}, "
                           f"{r['date']}, {r['metrics']} metric(s)"))
    _print_series(plan, verb)
    if not deleted:
        out.print("nothing was deleted: run again with --yes to delete this (in one transaction)")
        return
    out.print("the next 'perfgate detect' analyses these series again: a change point alert the deleted runs "
              "alone made is withdrawn there; a threshold alert, or one of a retired series, stays until "
              "'perfgate alerts --ack ID'")
    out.print("with a data folder: 'perfgate sync --export DIR' writes the deletion under forgotten/ (then push it), "
              "so that a store rebuilt with 'sync --import' does not bring these runs back")


def _print_archive(plan: dict, archived: bool) -> None:
    """A benchmark retired on Bencher: archived whole, its data kept on the server."""
    _print_series(plan, "archived" if archived else "would archive")
    if not archived:
        out.print("nothing was archived: run again with --yes to archive this benchmark on Bencher (one request, "
                  "on every branch, testbed and measure; its data stays on the server)")
        return
    out.print("history, detect and pages no longer show these series; their data stays on the Bencher server, "
              "and unarchiving the benchmark in Bencher's console brings them back; an alert of theirs stays "
              "until 'perfgate alerts --ack ID'")


def _print_series(plan: dict, verb: str) -> None:
    for s in plan["series"]:
        if s["deleted"] == s["points"] and "from" in s:
            span = f"{s['from']['commit'][:12]} ({s['from']['date']}) .. {s['to']['commit'][:12]} ({s['to']['date']})"
            out.print(terminal(f"{verb} series {s['label']}: all {s['points']} point(s), {span}"))
        else:
            out.print(terminal(f"  series {s['label']}: {s['points']} -> {s['points'] - s['deleted']} point(s)"))
    out.print(f"{plan['metrics']} metric(s) in {len(plan['series'])} series")
    for a in plan["alerts"]:
        out.print(terminal(f"  active alert {a['id'][:8]} ({a['kind']}, {a['direction']} at {a['commit'][:12]}) on "
                           f"{a['benchmark']} [{a['measure']}] on {a['branch']}@{a['testbed']}"))
