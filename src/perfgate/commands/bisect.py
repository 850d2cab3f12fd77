"""Find the first bad commit of an alert whose commit range spans several commits (``asv find``).

An alert names the commits the change could have started at: a change point its range (a weak
step's spans several measured commits), a threshold alert its first value past the limit.  The
range runs from the last commit measured before them to the last of them; any commit in between
could be the culprit, measured or not (a thinned ``backfill``, a push of several commits).
``perfgate bisect ALERT`` builds and runs the alert's suite at commits inside that range by
binary search — about log2(n) measurements for n commits — and names the first bad commit with
its evidence.

* When the change shows in a **deterministic** measure (instruction counts under the pinned
  image: the alert's own measure, or the same benchmark's instruction series changing across
  the same range) one run per commit decides: the value sits at the level before the change or
  the level after it.
* Otherwise each tested commit is measured in ``--rounds`` interleaved rounds with both ends of
  the range (good, tested, bad; the order rotates each round), and the median position of the
  tested commit between the two ends decides.

The alert is then updated: its first commit, the last good commit, a range of exactly one
commit, and the evidence under ``details.bisect``.  Each commit measured is also recorded like a
``backfill`` run (at its commit's date), so the series gains the points it lacked.
"""

from __future__ import annotations

import argparse
import statistics
from pathlib import Path

from rich.table import Table

from perfgate.commands._common import find_alert, store_from
from perfgate.escape import terminal
from perfgate.commands._commit_runs import PORTABLE_MEASURES, add_commit_runner_options, make_runner, run_key
from perfgate.commits import Commit, commits_between, git, project_root
from perfgate.errors import EXIT_OK, PerfgateError
from perfgate.model import Alert, Run
from perfgate.output import emit_json, err, out
from perfgate.store import Point, SeriesKey, Store

NAME = "bisect"
HELP = "build and run commits inside an alert's range to name its first bad commit, and update the alert"
ORDER = 42
EPILOG = """examples:
  perfgate alerts                     # alert ids, with the commit range each could be
  perfgate bisect 3f2a9c1d            # an id or a unique prefix of one
  perfgate bisect 3f2a9c1d --rounds 9 --json"""

MIN_EFFECT = 0.005   # a deterministic measure must move at least this much across the range to be used


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("alert", metavar="ALERT", help="alert id (or a unique prefix), from 'perfgate alerts'")
    p.add_argument("--rounds", type=int, default=5, metavar="N",
                   help="interleaved rounds per commit when no deterministic measure shows the change "
                        "(default: %(default)s)")
    add_commit_runner_options(p)


def _level(store: Store, series: list[Point], commit: str) -> tuple[float | None, dict]:
    """Median value of a series (its points, read once) at one commit, and the recorded run's context."""
    points = [p for p in series if p.commit == commit]
    if not points:
        return None, {}
    return statistics.median(p.value for p in points), store.get_run(points[-1].run_id).context


def run(args: argparse.Namespace) -> int:
    if args.rounds < 1:
        raise PerfgateError("--rounds must be at least 1")
    # --root may be a monorepo's project: the alert's suite is its folder's, at each commit
    root, prefix = project_root(args.root)
    with store_from(args) as store:
        alert = find_alert(store, args.alert)
        key = SeriesKey(alert.branch, alert.testbed, alert.benchmark, alert.measure)
        series = store.series(key)
        good_commit, bad_commit = _range_ends(series, alert)
        for sha in (good_commit, bad_commit):
            if git(root, "cat-file", "-t", sha) != "commit":
                raise PerfgateError(f"alert {alert.id[:8]}: commit {sha[:12]} is not in {root}")
        candidates = commits_between(root, good_commit, bad_commit)
        if not candidates:
            raise PerfgateError(f"alert {alert.id[:8]}: {bad_commit[:12]} does not descend from {good_commit[:12]}")
        if len(candidates) == 1:
            # already one commit (bisected before, or measured commit by commit): said, not a table
            # of no steps titled "1 candidate commit(s)"
            said = (f"alert {alert.id[:8]}: its change is at one commit already, {bad_commit[:12]} "
                    f"{candidates[0].subject} (last good {good_commit[:12]}); nothing to bisect")
            if args.json:
                emit_json({"alert": alert.id, "first_bad_commit": bad_commit, "last_good_commit": good_commit,
                           "candidates": 1, "steps": []})
            else:
                out.print(terminal(said))
            return EXIT_OK
        good, context = _level(store, series, good_commit)
        bad, bad_context = _level(store, series, bad_commit)
        if good is None or bad is None:
            raise PerfgateError(f"alert {alert.id[:8]}: the series {key.label()} has no point at "
                                f"{(good_commit if good is None else bad_commit)[:12]}")
        measure, good, bad = _deciding_measure(store, key, alert.measure, (good_commit, bad_commit), good, bad)
        suite = bad_context.get("suite") or context.get("suite")
        if not suite:
            raise PerfgateError(f"alert {alert.id[:8]}: the run at {bad_commit[:12]} does not say which suite "
                                "produced it (only runs from 'run', 'backfill' or 'bisect' can be bisected)")
        variant = bad_context.get("variant", "")
        profile = bad_context.get("profile", args.profile)
        bisector = _Bisector(args, root, prefix, store, alert, suite, variant, profile, measure,
                             (good_commit, bad_commit))
        search = bisector.search(candidates, good, bad)
        updated = _update(store, alert, search, measure, candidates, bisector.method, good_commit)
    subject = {c.sha: c.subject for c in candidates}
    report = {"alert": updated.id, "benchmark": alert.benchmark, "measure": alert.measure, "decided_by": measure,
              "method": bisector.method, "first_bad_commit": updated.commit, "subject": subject[updated.commit],
              "last_good_commit": updated.previous_commit, "candidates": len(candidates),
              "steps": updated.details["bisect"]["steps"],
              "image_build_seconds": round(bisector.runner.build_seconds, 1)}
    if args.json:
        emit_json(report)
    else:
        _print(report, subject)
    return EXIT_OK


def _range_ends(series: list[Point], alert: Alert) -> tuple[str, str]:
    """``(good, bad)``: the last commit measured before the commits the change could have
    started at (:meth:`Alert.suspects`), and the last of them."""
    suspects = alert.suspects()
    good = alert.last_good()
    if not good:
        commits = [p.commit for p in series]
        first = commits.index(suspects[0]) if suspects[0] in commits else 0
        good = commits[first - 1] if first > 0 else ""
    if not good:
        raise PerfgateError(f"alert {alert.id[:8]} has no commit before the change: nothing to bisect against")
    return good, suspects[-1]


def _deciding_measure(store: Store, key: SeriesKey, own: str, ends: tuple[str, str], good: float,
                      bad: float) -> tuple[str, float, float]:
    """The alert's own measure when deterministic; else the benchmark's instruction count when it
    changed across the same range (``ends``: its good and bad commits); else the alert's (noisy)
    measure."""
    if own in PORTABLE_MEASURES:
        return own, good, bad
    for measure in PORTABLE_MEASURES:
        other = SeriesKey(key.branch, key.testbed, key.benchmark, measure)
        points = store.series(other)
        g, _ = _level(store, points, ends[0])
        b, _ = _level(store, points, ends[1])
        if g and b and abs(b / g - 1) >= MIN_EFFECT:
            return measure, g, b
    return own, good, bad


class _Bisector:
    def __init__(self, args, root: Path, prefix: str, store: Store, alert: Alert, suite: str, variant: str,
                 profile: str, measure: str, ends: tuple[str, str]):
        self.args, self.root, self.prefix, self.store, self.alert, self.ends = args, root, prefix, store, alert, ends
        self.suite, self.variant, self.profile, self.measure = suite, variant, profile, measure
        self.method = "deterministic" if measure in PORTABLE_MEASURES else "interleaved"
        self.runner = make_runner(args, root, prefix)

    def search(self, candidates: list[Commit], good: float, bad: float):
        from perfgate.detect.bisection import BinarySearch, judge_rounds, judge_value

        search = BinarySearch([c.sha for c in candidates])
        by_sha = {c.sha: c for c in candidates}
        while not search.done:
            sha = search.next()
            err.print(f"bisect: measuring {sha[:12]} {terminal(by_sha[sha].subject[:60])} "
                      f"({search.hi - search.lo - 1} commit(s) left in the range)")
            if self.method == "deterministic":
                verdict = judge_value(self._value(by_sha[sha], record=True), good, bad)
            else:
                ends = {"good": Commit(self.ends[0], 0.0, ""), "bad": Commit(self.ends[1], 0.0, "")}
                rounds = []
                for r in range(self.args.rounds):
                    order = [("good", ends["good"]), ("test", by_sha[sha]), ("bad", ends["bad"])]
                    order = order[r % 3:] + order[:r % 3]   # rotate: no side always runs first
                    got = {name: self._value(commit, record=(name == "test" and r == 0)) for name, commit in order}
                    rounds.append((got["good"], got["test"], got["bad"]))
                verdict = judge_rounds(rounds)
            search.record(sha, verdict)
        return search

    def _value(self, commit: Commit, record: bool) -> float:
        from perfgate.commit_runner import exported_tree, suites_at

        with exported_tree(self.root, commit.sha) as tree:
            suites = suites_at(tree / self.prefix, [self.suite])
            if not suites:
                raise PerfgateError(f"commit {commit.sha[:12]} has no suite {self.suite!r} "
                                    f"in its {self.prefix}benches/")
            suite = suites[0]
            result = self.runner.measure(suite, self.variant, self.profile)
            testbed = self.runner.testbed(suite)
        values = [m.value for m in result.metrics if m.benchmark == self.alert.benchmark and m.measure == self.measure]
        if not values:
            raise PerfgateError(f"commit {commit.sha[:12]}: suite {self.suite!r} reported no "
                                f"{self.alert.benchmark!r} [{self.measure}]")
        if record and commit.time:
            key = run_key(self.args.project, self.alert.branch, commit.sha, self.suite, self.variant, self.profile,
                          testbed.name)
            self.store.add_run(Run(self.args.project, self.alert.branch, commit.sha, testbed, result.metrics,
                                   start_time=commit.time,
                                   end_time=commit.time + (result.end_time - result.start_time),
                                   adapter=result.context.get("adapter", ""),
                                   context={**result.context, "bisect": self.alert.id,
                                            "measured_at": result.start_time},
                                   idempotency_key=key))
        return values[0]


def _update(store: Store, alert: Alert, search, measure: str, candidates: list[Commit], method: str,
            good_commit: str) -> Alert:
    steps = [{"commit": sha, "side": v.side, "position": round(v.position, 4), "agreement": v.agreement,
              **({"value": v.evidence["value"]} if "value" in v.evidence else {}),
              **({"rounds": v.evidence["rounds"]} if "rounds" in v.evidence else {})}
             for sha, v in search.steps]
    alert.details = {**alert.details, "bisect": {
        "measure": measure, "method": method, "range_before": [c.sha for c in candidates],
        "previous_commit_before": alert.previous_commit, "commit_before": alert.commit,
        "commit_range_before": list(alert.commit_range), "steps": steps}}
    alert.previous_commit = search.last_good(good_commit)
    alert.commit = search.first_bad
    alert.commit_range = (search.first_bad,)
    return store.update_alert(alert)


def _print(report: dict, subject: dict[str, str]) -> None:
    # escaped whole: rich took "[instructions]" for a style tag and dropped it
    table = Table(title=terminal(f"perfgate bisect: {report['benchmark']} [{report['measure']}], ") +
                        f"{report['candidates']} candidate commit(s), decided by {report['decided_by']} "
                        f"({report['method']})", title_justify="left")
    for col in ("commit", "subject", "verdict", "position (0 good, 1 bad)", "agreement"):
        table.add_column(col, overflow="fold")
    for step in report["steps"]:
        colour = "red" if step["side"] == "bad" else "green"
        table.add_row(step["commit"][:12], terminal(subject.get(step["commit"], "")[:50]),
                      f"[{colour}]{step['side']}[/{colour}]", f"{step['position']:.3f}", f"{step['agreement']:.0%}")
    out.print(table)
    out.print(f"first bad commit: {report['first_bad_commit'][:12]} {terminal(report['subject'])} "
              f"(last good {report['last_good_commit'][:12]}); alert {report['alert'][:8]} updated")
