"""``perfgate ingest`` of a file that holds a whole history (github-action-benchmark's data.js):
each of its runs recorded at its own commit and date, in one transaction.

Kept apart from ingest's one-run path: the options that name one run (--commit, --start-time,
--idempotency-key) have no meaning here, and the branch is not the checkout's (a data.js is read
from a gh-pages checkout, whose branch is no series').
"""

from __future__ import annotations

import argparse
from collections import Counter

from perfgate.adapters import Parsed
from perfgate.commands._common import check_identity, resolve_testbed, store_from
from perfgate.errors import EXIT_OK, InputError
from perfgate.escape import terminal, visible
from perfgate.model import Run, Testbed
from perfgate.output import emit_json, err
from perfgate.store import SeriesKey, Store

DEFAULT_BRANCH = "main"
_ONE_RUN_OPTIONS = (("commit", "--commit"), ("start_time", "--start-time"), ("idempotency_key", "--idempotency-key"),
                    ("fail_on_alert", "--fail-on-alert"), ("command", "-- COMMAND"))


def refuse_options(args: argparse.Namespace, path: str, files: int) -> None:
    """What a history cannot be given, before anything is written."""
    if files > 1:
        raise InputError(path, "", "holds a whole history, recorded on its own: ingest it alone (nothing was recorded)")
    for attr, option in _ONE_RUN_OPTIONS:
        if getattr(args, attr, None) not in (None, False):
            raise InputError(option, "", f"{visible(path)} holds a whole history, each run at the commit and date "
                             "it names, with a key of its own: leave the option out (nothing was recorded)")
    if args.store.startswith("bencher+"):
        # A server takes runs one request at a time: a history cut short there would stay half sent.
        raise InputError(path, "", "a history is recorded in one transaction, which a Bencher server cannot give: "
                         "ingest it into a sqlite: store, then send it with `perfgate publish --to ... --all` "
                         "(nothing was recorded)")


def record(args: argparse.Namespace, path: str, parsed: Parsed) -> int:
    chosen = _chosen(parsed.runs, args.suite, path)
    branch = check_identity("branch", args.branch if args.branch is not None else DEFAULT_BRANCH,
                            "--branch" if args.branch is not None else "the default branch")
    testbed = resolve_testbed(args)
    runs = sorted((_run(args.project, branch, testbed, p) for p in chosen), key=lambda r: r.start_time or 0.0)
    _refuse_shared(runs, path)
    for warning in parsed.warnings:
        err.print(f"warning: {visible(path)}: {warning}", markup=False)
    with store_from(args, create=True) as store:
        _refuse_stored_elsewhere(store, runs, path)
        added = sum(store.add_runs(runs))  # one transaction: the whole history or none of it
    suites = Counter(r.context["suite"] for r in runs)
    if args.json:
        emit_json({"runs": len(runs), "added": added, "duplicates": len(runs) - added, "branch": branch,
                   "testbed": testbed.name, "suites": dict(suites), "metrics": sum(len(r.metrics) for r in runs)})
    else:
        named = ", ".join(f"{s!r} ({n})" for s, n in sorted(suites.items()))
        err.print(terminal(f"recorded {added} of {len(runs)} run(s) of {path} on {branch}@{testbed.name} "
                           f"({len(runs) - added} already recorded); suites: {named}"))
    return EXIT_OK


def _chosen(runs: list[Parsed], suite: str | None, path: str) -> list[Parsed]:
    if suite is None:
        return runs
    kept = [p for p in runs if p.context["suite"] == suite]
    if not kept:
        held = sorted({p.context["suite"] for p in runs})
        raise InputError("--suite", "", f"{visible(path)} has no suite {suite!r}; it holds "
                         + ", ".join(repr(s) for s in held) + " (nothing was recorded)")
    return kept


def _run(project: str, branch: str, testbed: Testbed, parsed: Parsed) -> Run:
    """One entry as a run; its key is its content, date included: the action keeps a re-run of
    one commit as a point of its own, and a re-import finds every key already there."""
    assert parsed.commit is not None
    return Run(project, branch, parsed.commit, testbed, parsed.metrics, start_time=parsed.commit_time,
               end_time=parsed.commit_time, adapter="github-action-benchmark", context=parsed.context).with_key()


def _refuse_shared(runs: list[Run], path: str) -> None:
    """Two suites giving one benchmark's measure would make one series on this branch and testbed,
    the step between them a false change (an OS matrix names each suite after its runner)."""
    first: dict[tuple[str, str], str] = {}
    for run in runs:
        suite = run.context["suite"]
        for m in run.metrics:
            other = first.setdefault((m.benchmark, m.measure), suite)
            if other != suite:
                raise InputError(path, "", f"benchmark {m.benchmark!r} ({m.measure}) is in suites {other!r} and "
                                 f"{suite!r}, which would be one series: import one suite at a time, each on its own "
                                 f"testbed (--suite {other!r} --testbed NAME) (nothing was recorded)")


def _refuse_stored_elsewhere(store: Store, runs: list[Run], path: str) -> None:
    """The same refusal against series another suite already holds in the store."""
    seen: set[tuple[str, str, str]] = set()
    for run in runs:
        suite = run.context["suite"]
        for m in run.metrics:
            if (suite, m.benchmark, m.measure) in seen:
                continue
            seen.add((suite, m.benchmark, m.measure))
            others = store.series_suites(SeriesKey(run.branch, run.testbed.name, m.benchmark, m.measure)) - {suite}
            if others:
                raise InputError(path, "", f"benchmark {m.benchmark!r} ({m.measure}) is already a series of suite "
                                 f"{sorted(others)[0]!r} on {run.branch}@{run.testbed.name}; import suite {suite!r} "
                                 "on another testbed (--suite, --testbed) (nothing was recorded)")
