"""Publish recorded runs from the local history to a Bencher server, and flush the spool.

Runs are sent in order with ``POST /v0/run``, each with an idempotency key, so publishing a run
twice never duplicates it.  A run the server refuses (say, a short commit hash) is set aside in
the spool's ``rejected/`` folder with the reason, the runs after it are still sent, and the
command exits 2.  When the server stays unreachable (after retries with backoff), the
runs are written to the spool directory and the command still succeeds with a warning;
``perfgate publish --flush`` (or any later publish) sends them, oldest first, exactly once.
Alerts Bencher raises from its threshold models are printed with their effect size.

The token comes from BENCHER_API_TOKEN and is never printed.
"""

from __future__ import annotations

import argparse
import json
import os

from perfgate.escape import terminal

from perfgate.bencher.payload import idempotency_uuid
from perfgate.bencher.publisher import FlushResult, Outcome
from perfgate.bencher.redact import Secret
from perfgate.bencher.spool import Spool, append_lines, read_lines, same_target
from perfgate.check_branches import is_check_branch
from perfgate.commands._common import full_run_id
from perfgate.commands._start_point import add_start_point_options, start_point
from perfgate.errors import EXIT_OK, EXIT_REGRESSION, EXIT_USAGE, PerfgateError
from perfgate.output import actions_warning, emit_json, err, out
from perfgate.store import open_store
from perfgate.store.bencher import BencherStore, parse_spec
from perfgate.urls import quoted

NAME = "publish"
HELP = "publish runs to a Bencher server (PR start points, thresholds, spool for outages)"
ORDER = 60
EPILOG = """examples:
  export BENCHER_API_TOKEN=...            # never printed
  perfgate publish --to bencher+https://api.bencher.dev/my-project              # the newest run
  perfgate publish --to bencher+http://bencher.internal:6610/my-project --all   # all not yet published
  perfgate publish --to ... --run RUN_ID --start-point-branch main \\
      --start-point-hash "$BASE_SHA" --start-point-clone-thresholds             # a pull request run
  perfgate publish --to ... --flush                                             # send spooled runs

environment:
  PERFGATE_PUBLISH_TO   default for --to
  PERFGATE_SPOOL        default for --spool (.perfgate/spool)
  BENCHER_ORGANIZATION  organization to create a missing project in
  PERFGATE_BENCHER_TIMEOUT / _ATTEMPTS / _BACKOFF / _MAX_BACKOFF  retry policy (an answer must
                        arrive whole within 3 timeouts)
  PERFGATE_BENCHER_MAX_ANSWER_MIB  largest answer read from the server (default 64)"""

LEDGER = "published.jsonl"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--to", default=os.environ.get("PERFGATE_PUBLISH_TO"),
                   help="Bencher store: bencher+http(s)://HOST[:PORT]/PROJECT (default: $PERFGATE_PUBLISH_TO)")
    which = p.add_mutually_exclusive_group()
    which.add_argument("--run", dest="run_ids", action="append", metavar="ID",
                       help="publish this local run id (repeatable; default: the newest run)")
    which.add_argument("--all", action="store_true", help="publish every local run not yet published there")
    p.add_argument("--branch", help="with --all or the default: only runs of this branch")
    p.add_argument("--flush", action="store_true", help="send the spooled runs (alone: only that)")
    add_start_point_options(p)
    th = p.add_mutually_exclusive_group()
    th.add_argument("--thresholds", metavar="PATH", help="thresholds file or directory (default: thresholds/)")
    th.add_argument("--no-thresholds", action="store_true", help="send no threshold models")
    p.add_argument("--spool", help="spool directory (default: $PERFGATE_SPOOL or .perfgate/spool)")
    p.add_argument("--fail-on-alert", action="store_true", help="exit 1 when Bencher raises an alert")


def _target(args: argparse.Namespace, spool: Spool) -> BencherStore:
    if not args.to:
        raise PerfgateError("--to bencher+http(s)://HOST[:PORT]/PROJECT is required (or set PERFGATE_PUBLISH_TO)")
    if not args.to.startswith("bencher+"):
        raise PerfgateError(f"--to {quoted(args.to)}: publish sends to a Bencher store (bencher+http(s)://...)")
    base_url, project = parse_spec(args.to, "--to")
    if not os.environ.get("BENCHER_API_TOKEN"):   # a server that is down would spool without a word of it
        err.print("[yellow]warning:[/] BENCHER_API_TOKEN is not set: runs go without a token (only an "
                  "unclaimed Bencher project takes them)")
    store = BencherStore(base_url, project, Secret(os.environ.get("BENCHER_API_TOKEN")), spool=spool,
                         start_point=start_point(args))
    if args.no_thresholds:
        store.thresholds = None
    elif args.thresholds:
        from perfgate.thresholds import load_thresholds

        store.thresholds = load_thresholds(args.thresholds)
    return store


class Ledger:
    """Which local runs were already handed to which Bencher project (published or spooled), so
    ``--all`` sends only new ones.  Append-only lines of JSON next to the spool."""

    def __init__(self, spool: Spool, target: str):
        self.path, self.target = spool.dir / LEDGER, target

    def done(self) -> dict[str, tuple[bool, str | None]]:
        """Each run handed over: whether the server refused it, and the idempotency key it was
        sent with (lines written before keys were recorded have none).  The latest line wins."""
        found: dict[str, tuple[bool, str | None]] = {}
        for n, line in enumerate(read_lines(self.path), start=1):
            try:
                entry = json.loads(line)
            except ValueError:
                # A line torn by a crash: its run is sent again, and the server's idempotency
                # key keeps it once.  Refusing to publish over it would stop every later run.
                err.print(f"[yellow]warning:[/] {terminal(str(self.path))}:{n}: not JSON, skipped "
                          "(its run, if any, is published again; Bencher keeps it once)")
                continue
            if isinstance(entry, dict) and isinstance(entry.get("run"), str) and \
                    same_target(str(entry.get("target")), self.target):
                key = entry.get("key")
                found[entry["run"]] = (bool(entry.get("refused")), key if isinstance(key, str) else None)
        return found

    def add(self, run_ids: list[str], refused: set[str], keys: dict[str, str]) -> None:
        """``keys``: each run's idempotency key, which a spool file's name carries, so a spooled
        run later set aside (unreadable, or refused on a flush) can be named by its run id."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        append_lines(self.path, [json.dumps({"target": self.target, "run": run_id,
                                             **({"key": keys[run_id]} if keys.get(run_id) else {}),
                                             **({"refused": True} if run_id in refused else {})})
                                 for run_id in run_ids])


def run(args: argparse.Namespace) -> int:
    try:
        return _publish(args)
    except OSError as e:
        # The spool's files and folders: one that is a file where a folder belongs (or the
        # reverse), or not writable.
        where = e.filename or os.environ.get("PERFGATE_SPOOL") or args.spool or ".perfgate/spool"
        raise PerfgateError(f"{where}: {e.strerror or e}; the spool must be a writable folder of perfgate's "
                            "files (--spool, PERFGATE_SPOOL)") from None


def _publish(args: argparse.Namespace) -> int:
    only_flush = args.flush and not args.run_ids and not args.all
    if args.store.startswith("bencher+"):
        if not (only_flush and not args.to):
            raise PerfgateError(f"--store {quoted(args.store)}: publish reads runs from a local store; give it as "
                                "--store sqlite:PATH and the Bencher server as --to")
        args.to = args.store  # flushing needs no local store: the Bencher store is the target
    spool = Spool(args.spool)
    refused_before: list[str] = []
    aside_before: list[str] = []
    target = _target(args, spool)
    ledger = Ledger(spool, target.publisher.target)
    # The spool's turn is held from reading the ledger to writing it: two `publish --all` at once
    # each sent every run (the server kept one of each, but both ledgers listed them all).
    with target, spool.turn():
        if only_flush:
            flushed, outcomes, local_ids = target.flush(), [], []
        else:
            with open_store(args.store, args.project, create=False) as local:
                if args.run_ids:   # whole ids or unique prefixes, as compare and alerts take them
                    local_ids = [full_run_id(local, ref, "--run") for ref in args.run_ids]
                else:
                    summaries = local.runs(branch=args.branch, limit=None if args.all or not args.branch else 1)
                    if not args.branch:   # a check's A/B runs (check/REF) only when named by --branch
                        summaries = [s for s in summaries if not is_check_branch(s.branch)]
                        summaries = summaries if args.all else summaries[:1]
                    local_ids = [s.run_id for s in reversed(summaries)]  # oldest first
                    if args.all:
                        done = ledger.done()
                        refused_before = [i for i in local_ids if done.get(i, (False, None))[0]]
                        # Spooled, then set aside by a flush (unreadable, or refused then): the
                        # ledger says handed over, so without this the run was dropped unnamed.
                        handed = [i for i in local_ids if i in done and i not in refused_before]
                        aside_before = _set_aside(spool, target.project, local, handed, done)
                        local_ids = [i for i in local_ids if i not in done]
                runs = [local.get_run(i) for i in local_ids]
            if not runs and not args.all:
                raise PerfgateError("no local runs to publish with these filters")
            target.add_runs(runs)
            outcomes, flushed = target.last_outcomes, target.last_flush or FlushResult()
            # A refused run is not sent again by --all (a short hash is refused every time), but
            # each later --all names it, and --run ID sends it once its cause is fixed.
            ledger.add(local_ids, {i for i, o in zip(local_ids, outcomes) if o.status == "rejected"},
                       {i: o.idempotency_key for i, o in zip(local_ids, outcomes)})
        if refused_before:
            err.print(f"[yellow]note:[/] {len(refused_before)} run(s) refused earlier are not sent again "
                      f"(reasons in {terminal(str(spool.dir / 'rejected'))}); once the cause is fixed: "
                      + _resend(refused_before))
        if aside_before:
            err.print(f"[yellow]note:[/] {len(aside_before)} spooled run(s) set aside earlier (unreadable, or refused "
                      f"on a flush; reasons in {terminal(str(spool.dir / 'rejected'))}) are not sent again; to send "
                      "them from the local history: " + _resend(aside_before))
        # A spooled run set aside by this flush, named by its local run id when the ledger knows it.
        by_key = {k: run for run, (_, k) in ledger.done().items() if k} if flushed.rejected else {}
        named = {path: by_key.get(Spool.key_of(path) or "") for path, _ in flushed.rejected}
        code = _report(args, target.publisher.target, local_ids, outcomes, flushed, target.publisher.created, named)
        _other_targets(spool, target.publisher.target)
        return code


def _resend(run_ids: list[str]) -> str:
    """The command that sends ``run_ids`` again (the first three; "…" for more)."""
    return f"perfgate publish --run {' --run '.join(run_ids[:3])}" + (" …" if len(run_ids) > 3 else "")


def _set_aside(spool: Spool, project: str, local, run_ids: list[str],
               done: dict[str, tuple[bool, str | None]]) -> list[str]:
    """Those of ``run_ids`` whose spooled copy now lies in ``rejected/``.  A ledger line without a
    key (written before keys were recorded) gets its run's key from the local store."""
    aside = spool.set_aside_keys()
    found: list[str] = []
    for run_id in run_ids if aside else []:
        key = done[run_id][1]
        if key is None:
            try:
                key = idempotency_uuid(project, local.get_run(run_id).idempotency_key)
            except PerfgateError:     # the run is no longer in the local store
                continue
        if key in aside:
            found.append(run_id)
    return found


def _other_targets(spool: Spool, target: str) -> None:
    """Say that runs wait in the spool for another server or project: a mistyped --to (a host that
    does not resolve reads as an outage) spooled runs that later publishes never named."""
    elsewhere = [e for e in spool.pending() if not same_target(e.target, target)]   # each file read once
    others = sorted({e.target for e in elsewhere})
    if others:
        err.print(f"[yellow]note:[/] {len(elsewhere)} run(s) wait in the spool for another target "
                  f"({terminal(', '.join(others[:3]))}{' …' if len(others) > 3 else ''}), perhaps a mistyped --to: "
                  f"'perfgate publish --to bencher+THAT --flush' sends them, deleting their files in "
                  f"{terminal(str(spool.dir))} drops them")


def _report(args: argparse.Namespace, target: str, local_ids: list[str], outcomes: list[Outcome],
            flushed: FlushResult, created: list[str], named: dict[str, str | None]) -> int:
    alerts = [a for o in flushed.sent + outcomes for a in o.alerts]
    if args.json:
        emit_json({"target": target,
                   "runs": [{"local_run": i, **o.__dict__} for i, o in zip(local_ids, outcomes)],
                   "flushed": flushed, "created": created, "alerts": alerts})
    else:
        for thing in created:
            err.print(f"created on Bencher: {terminal(thing)}")
        for o in flushed.sent:
            err.print(f"flushed {terminal(o.branch)}@{o.hash[:12]} on {terminal(o.testbed)} -> report {o.report}")
        for path, reason in flushed.rejected:
            run = named.get(path)
            recover = (f"; it is local run {terminal(run)}: 'perfgate publish --run {terminal(run)}' sends it again"
                       if run else "; publish its run again with 'perfgate publish --run ID' from the local history")
            err.print(f"[red]rejected[/] spooled run moved to {terminal(path)}: {terminal(reason)}{recover}")
        for i, o in zip(local_ids, outcomes):
            if o.status == "rejected":
                err.print(f"[red]rejected[/] run {i} ({terminal(o.branch)}@{terminal(o.hash[:12])}), set aside in "
                          f"{terminal(str(o.spooled_at))}: {terminal(o.reason or '')}")
                continue
            where = f"report {o.report}" if o.status == "published" else f"spool {terminal(str(o.spooled_at))}"
            err.print(f"{o.status} run {i} ({terminal(o.branch)}@{terminal(o.hash[:12])} on {terminal(o.testbed)}) -> {where}")
        for a in alerts:
            out.print(f"[yellow]{terminal(a.describe())}[/]")
        if not outcomes and not flushed.sent and not flushed.rejected and not flushed.remaining:
            err.print("nothing to publish")
    spooled = sum(o.status == "spooled" for o in outcomes)
    if spooled or flushed.remaining:
        err.print(f"[yellow]warning:[/] Bencher unreachable ({terminal(flushed.error or 'no answer')}); "
                  f"{spooled + flushed.remaining} run(s) wait in the spool; run 'perfgate publish --flush' later")
        actions_warning("perfgate publish", f"Bencher unreachable: {spooled + flushed.remaining} run(s) wait in "
                        f"the spool ({Spool(args.spool).dir}); the next publish "
                        "sends them if the spool is kept", args.json)
    if flushed.rejected or any(o.status == "rejected" for o in outcomes):
        return EXIT_USAGE
    if args.fail_on_alert and alerts:
        return EXIT_REGRESSION
    return EXIT_OK
