"""Keep the history in a folder of small JSON files (an append-only git data branch) and rebuild
the store from it: the durable copy that a CI cache eviction, a re-run or two concurrent pushes
cannot lose.  Format: :mod:`perfgate.history_files`.

``--import`` validates every file before it writes anything; runs already in the store are
skipped (same content key), runs keep their ids (a file written before files carried one gives
the id the run's key gives, the same in every store), alerts keep their ids and
acknowledgements; runs (and metrics) deleted
with ``perfgate forget`` are left out, and deleted from the store if it holds them.  ``--export``
writes only files that do not exist yet and never changes one (a deletion is a new file).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from perfgate import history_files
from perfgate.commands._common import store_from
from perfgate.errors import EXIT_OK, InputError, NewerStoreError, PerfgateError, UnusableStoreError
from perfgate.escape import visible
from perfgate.model import without_forgotten
from perfgate.output import emit_json, err, out
from perfgate.store import DEFAULT_STORE

NAME = "sync"
HELP = "export the history to / rebuild it from a folder of JSON files (a git data branch)"
ORDER = 27
EPILOG = """examples:
  perfgate sync --import data/          # data/ is a checkout of the perfgate-data branch
  perfgate run --profile quick && perfgate sync --export data/
  perfgate sync --export new/ --store sqlite:this-run.db   # only this job's runs"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--import", dest="import_dir", metavar="DIR", help="add every run and alert under DIR to the store")
    g.add_argument("--export", dest="export_dir", metavar="DIR", help="write every run and alert of the store under DIR")
    p.add_argument("--set-aside-damaged", action="store_true",
                   help="with --import, for a store that is only a copy of DIR (a CI cache): if it is damaged, "
                        "or written by a newer perfgate (a cache a downgraded action restored), rename it "
                        "FILE.damaged-TIME or FILE.newer-TIME and make it again from DIR, instead of stopping")


def _held(args: argparse.Namespace) -> dict[Path, tuple[str, str]]:
    """The files of the runs the store holds already, which an import need not read (none when
    there is no store yet: a failed import must not leave a new, empty one behind; nor on a
    server, which this would ask)."""
    if not (args.store or DEFAULT_STORE).startswith("sqlite:"):
        return {}
    try:
        with store_from(args) as store:
            places = getattr(store, "run_places", None)
            return history_files.held_files(places()) if places is not None else {}
    except PerfgateError:
        return {}   # no history yet, or one the import's own open will name the problem of


def run(args: argparse.Namespace) -> int:
    if args.set_aside_damaged and not args.import_dir:
        raise PerfgateError("--set-aside-damaged goes with --import (it makes a damaged store again from DIR)")
    if args.import_dir:
        try:
            return _import(args)
        except UnusableStoreError as e:
            if not args.set_aside_damaged:
                raise
            from perfgate.store.sqlite import set_aside

            aside = set_aside(Path(e.path), "newer" if isinstance(e, NewerStoreError) else "damaged")
            err.print(f"sync: {e}; set aside as {visible(aside)}, and the store is made again from "
                      f"{visible(Path(args.import_dir))}")
            return _import(args)
    return _export(args)


def _import(args: argparse.Namespace) -> int:
    runs, alerts, acks, ids, held = history_files.read_folder(Path(args.import_dir), _held(args))
    forgotten = history_files.read_forgotten(Path(args.import_dir))
    with store_from(args, create=True) as store:
        restore = getattr(store, "restore", None)
        deleted = (0, 0)
        if restore is not None:     # one transaction: a failure leaves the store as it was
            added, restored, acknowledged, deleted = restore(runs, alerts, acks, forgotten, ids)
        elif alerts or acks:
            raise PerfgateError(f"{type(store).__name__} cannot take alerts from files; import into a sqlite: store")
        else:
            added, restored, acknowledged = sum(store.add_runs(without_forgotten(runs, forgotten))), 0, 0
    report = {"runs": len(runs) + held, "runs_added": added, "alerts": len(alerts), "alerts_added": restored,
              "acknowledged": acknowledged, "forgotten": len(forgotten),
              "forgotten_deleted_runs": deleted[0], "forgotten_deleted_metrics": deleted[1]}
    if args.json:
        emit_json(report)
    else:
        # A store rebuilt before a `perfgate forget` still holds what it deleted: the import
        # deletes it there too, which "left out" alone did not say.
        here = " and ".join(f"{n} {what}(s)" for n, what in zip(deleted, ("run", "metric")) if n)
        out.print(f"sync: {added} of {len(runs) + held} run(s) and {restored} of {len(alerts)} alert(s) were new; "
                  f"{acknowledged} of {len(acks)} acknowledgement(s) new"
                  + (f"; {len(forgotten)} deleted run(s) or metric(s) left out" if forgotten else "")
                  + (f", and deleted from this store, which still held {here} of them" if here else ""))
    return EXIT_OK


def _export(args: argparse.Namespace) -> int:
    root = Path(args.export_dir)
    with store_from(args) as store:
        keys = store.run_keys()
        # (a run a concurrent forget deleted between the two reads is not exported)
        summaries = [s for s in reversed(store.runs()) if s.run_id in keys]
        try:
            alerts = store.alerts()
        except PerfgateError:
            alerts = []  # a store without alerts exports its runs
        forgotten = store.forgotten()
        bad = history_files.unexportable([(s.branch, s.commit, s.testbed, keys[s.run_id]) for s in summaries], alerts)
        if bad:   # all refused before anything is written: the export is whole or not begun
            more = f" (and {len(bad) - 5} more)" if len(bad) > 5 else ""
            raise InputError(str(args.store), "", f"{len(bad)} record(s) cannot be exported, so nothing was written "
                             f"to {root} and the store is unchanged: " + "; ".join(bad[:5]) + more +
                             " (a perfgate older than its --idempotency-key check took such keys; give the run "
                             "a key that names a file, as the README's Reliability section shows, and export again)")
        # Only the runs whose file is missing (or torn) are read: reading all of them made an
        # export with nothing new take 2 s at 500 benchmarks × 300 runs.
        runs = [(s.run_id, store.get_run(s.run_id)) for s in summaries
                if not history_files.is_whole(root / history_files.run_file(s.commit, keys[s.run_id]))]
    root.mkdir(parents=True, exist_ok=True)
    new_runs = new_files = new_marks = 0
    try:
        for run_id, r in runs:
            new_runs += history_files.export_run(root, r, run_id)
        for a in alerts:
            new_files += history_files.export_alert(root, a)
        for f in forgotten:
            new_marks += history_files.export_forgotten(root, f)
    except (PerfgateError, OSError) as e:
        # Each file is written whole or not at all, but the files before it were written: a full
        # disk said "nothing was written" of the one file, which read as of the whole export.
        done = new_runs + new_files + new_marks
        if not done:
            raise
        reason = e if isinstance(e, PerfgateError) else f"{visible(root)}: cannot write: {e.strerror or e}"
        raise PerfgateError(f"{reason} there, but the {done} file(s) written to {visible(root)} before it are "
                            "whole: run the export again (once there is room) to write the rest") from None
    if args.json:
        emit_json({"runs": len(summaries), "runs_written": new_runs, "alerts": len(alerts),
                   "alert_files_written": new_files, "forgotten_written": new_marks})
    else:
        out.print(f"sync: wrote {new_runs} new run file(s) of {len(summaries)} and {new_files} new alert, update or "
                  f"acknowledgement file(s) ({len(alerts)} alert(s)) to {root}"
                  + (f"; {new_marks} new record(s) of deleted runs under {history_files.FORGOTTEN}/" if new_marks else ""))
    return EXIT_OK
