"""Find change points in the recorded history and raise each as an alert once.

Every (branch, testbed, benchmark, measure) series of the store (narrowed by the filters) is
searched for change points — the first commit of each new regime, the commits it could be
(when runs are too noisy to pin it to one), its size with a confidence interval and how sure
perfgate is — and the newest value is judged by the series' threshold test from thresholds/
against the history since the last change point, values that alerted excluded; it alerts once
the test's ``consecutive`` values in a row are past the same limit (wall time: 2).  Runs recorded
many at a time are judged one after another: a streak that completed at a run the last detect did
not see alerts even when a later run ended it, as a detect after each run would have.  A threshold
alert carries, as a change point does, an interval and a p-value: its streak's mean against the
baseline its test judged it by (:func:`perfgate.detect.threshold_tests.streak_evidence`).

Each series is then tested again where its siblings — the other series of its branch and testbed
in scope — changed: at those few places, fixed in advance by another series, a step too small for
a search over the whole series to show can pass (its p-value pays for those places only, in the
siblings tested there: the fewer the more of them found the change alone).  Such a change names
the siblings in its report and alert.  Before that, a change the series showed alone is placed at
the commit where it and its siblings' changes nearby are likeliest together, when it still passes
its tests there (a small step's best split strays several runs in the noise, each benchmark's its
own way); its report and alert name those siblings too, and keep where it was found alone.

Only series that received runs since the last detect (or whose settings changed) are analysed
again; the others' results are kept in the store from that detect (--full analyses everything).
Series are read and analysed on worker processes (--jobs), a family's — its branch and testbed's —
by one of them when it is no more than a fair share of the work.

New changes are recorded as alerts; a change already alerted (even acknowledged) is not raised
again on later runs.  Exit 1 when a NEW regression alert was raised, 0 otherwise, 2 on bad input.

--series FILE analyses numbers outside the store: a CSV with a `value` column (optionally with
an `index` column, a `samples` column of the run's raw samples separated by spaces or `;`, and
a `commit` column and a `date` or `time` column, which name a change's commit and the one
before it as for a stored series),
or a JSON list of numbers; a JSON list of such lists is a batch and gives a
JSON list of results in the same order.  In JSON, a point may be `{"value": 1.2, "samples": [...]}`
instead of a number: its run's raw samples then tell the detector how noisy that run was.
Exit 1 when any series has a regression change point.
"""

from __future__ import annotations

import argparse
import difflib
import hashlib
import json
import math
from typing import Any, NamedTuple

from perfgate.escape import terminal
from rich.table import Table

from perfgate.commands._common import add_series_filters, store_from
from perfgate.commands._series_file_detect import detect_series_file
from perfgate.commands._threshold_alerts import threshold_alerts
from perfgate import heap
from perfgate.errors import EXIT_OK, EXIT_REGRESSION, PerfgateError, StoreError
from perfgate.alert_history import (WITHDRAW_AFTER_RUNS, Analysed, ended_at, unfound_since, went_back, withdrawals,
                                    withdrawn_at)
from perfgate.model import KNOWN_MEASURES, REGIME_HEAD, Alert, Measure, last_good, suspects
from perfgate.output import emit_json, err, out
from perfgate.parallel import MIN_ITEMS, default_workers, map_in_processes
from perfgate.store import Point, SeriesKey
from perfgate.store.worker_reads import WorkerReads
from perfgate.check_branches import is_check_branch
from perfgate.gitinfo import could_be
from perfgate.thresholds import ChangePointSettings, SeriesThresholds, load_thresholds
from perfgate.units import CI_LEVEL, alert_evidence, confidence_text, p_text, pct, went_back_text

# The detectors pull in numpy and perfgate's compiled search; they are imported when the verb
# runs, so that `perfgate --help` and every other verb start fast.

NAME = "detect"
HELP = "find change points in the history and raise new alerts (exit 1 on a new regression)"
ORDER = 40
EPILOG = """examples:
  perfgate detect                                  # every series; new alerts recorded
  perfgate detect --branch main --measure latency --json
  perfgate detect --series timings.csv             # CSV with a `value` (`index`, `samples`, `commit`) column
  perfgate detect --series batch.json --json       # JSON list of series -> list of results
  perfgate alerts                                  # list alerts; --ack ID to acknowledge"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--series", metavar="FILE", help="analyse this CSV / JSON series file instead of the store")
    p.add_argument("--benchmark", help="only this benchmark (with --series: the name whose thresholds apply)")
    add_series_filters(p)
    p.add_argument("--thresholds", metavar="PATH",
                   help="thresholds file or directory (default: ./thresholds, else perfgate's defaults)")
    p.add_argument("--no-record", action="store_true", help="report only; record no alerts (the exit code is still 1 when a new regression would be alerted)")
    p.add_argument("--full", action="store_true",
                   help="analyse every series again (default: only those with runs since the last detect)")
    p.add_argument("--jobs", type=_positive, metavar="N",
                   help="worker processes for the series (default: the usable cores; series are independent)")
    way = p.add_mutually_exclusive_group()
    way.add_argument("--higher-is-better", dest="higher_is_better", action="store_true", default=None,
                     help="with --series: a fall is a regression (throughput, rates); default from --measure, "
                          "else lower is better")
    way.add_argument("--lower-is-better", dest="higher_is_better", action="store_false",
                     help="with --series: a rise is a regression (the default for costs)")


def run(args: argparse.Namespace) -> int:
    thresholds = load_thresholds(args.thresholds)
    if args.series:
        _import_detectors()
        return detect_series_file(args, thresholds)
    if args.higher_is_better is not None:
        raise PerfgateError(f"--{'higher' if args.higher_is_better else 'lower'}-is-better applies to --series "
                            "only: a stored series takes its measure's direction from the measure's name")
    with store_from(args) as store:
        if not args.no_record:
            store.expect_writes()            # its integrity check runs beside the work below
        _warn_unmatched(store, thresholds)
        with heap.loading():
            watermark = store.run_watermark()          # before reading: later runs count as new next time
            keys, kept, memos, saved_mark, lost = _plan(store, args, thresholds)
            if not args.branch:   # a check's A/B runs are judged by the check, not as a history
                keys = [k for k in keys if not is_check_branch(k.branch)]
                kept = [r for r in kept if not is_check_branch(r["branch"])]
            if _scope(args) and not keys and not kept:   # a typo in a filter is not "no change points"
                filters = [f"--{k} {v!r}" for k, v in _filters(args).items() if v is not None]
                raise PerfgateError(f"no series matches {', '.join(filters)} (perfgate history lists every series; "
                                    "check/ branches only with --branch)")
        if keys:
            _import_detectors()
        reads = WorkerReads(store)
        # whose workers read for themselves: their series' open streaks are tested there (for
        # the withdrawals a dry run does not make)
        streaks = _open_streaks(store, keys) if store.reader() is not None and not args.no_record else {}
        reports, kept, changed = _analysed(keys, kept, memos, thresholds, reads, args.jobs, streaks)
        analysed = reports + changed
        alerts = [a for r in analysed for a in r["alerts"]]
        try:
            # A dry run says what a detect would raise, and exits as it would.
            new = (store.unrecorded(alerts) if args.no_record else store.record_alerts(alerts)) if alerts else []
        except StoreError as e:
            raise StoreError(f"{e}; 'perfgate detect --no-record' reports without recording") from None
        withdrawn = _withdraw(store, analysed, alerts, thresholds, reads, lost) if not args.no_record else []
        new_ids = {id(a) for a in new}
        for r in analysed:
            for a, cp in zip(r["alerts"], [e for e in r["entries"] if not e.get("inherited")]):
                cp["alert"] = {"new": id(a) in new_ids, "id": a.id or None}
        # The watermark is saved only when the alerts were recorded (a series skipped next time
        # must have had its alerts raised), for this detect's scope: every series, or those its
        # filter names (its own watermark, which a detect of every series does not move).
        state = {_key(r): r for r in analysed}
        # Nothing new (no run since, no report changed): nothing to save, so nothing is written.
        saved = {key: (_settings_mark(thresholds, key), _saved(r)) for key, r in state.items()}
        if not args.no_record and watermark is not None and (state or watermark != saved_mark):
            store.save_detect_state(watermark, saved, _scope(args))
    reports = sorted(reports + kept, key=lambda r: (r["branch"], r["testbed"], r["benchmark"], r["measure"]))
    regressions = [a for a in new if a.direction == "regression"]
    if args.json:
        emit_json({"series": [{k: v for k, v in r.items() if k not in _INTERNAL} for r in reports],
                   "new_alerts": new, "recorded": not args.no_record, "withdrawn_alerts": [a.id for a in withdrawn if withdrawn_at(a)],
                   "undone_alerts": [a.id for a in withdrawn if went_back(a)],
                   "exit_code": EXIT_REGRESSION if regressions else EXIT_OK})
    else:
        _print_store(reports, len(reports), new, args.no_record)
        _print_withdrawn(withdrawn)
    return EXIT_REGRESSION if regressions else EXIT_OK


def _withdraw(store, analysed: list[dict[str, Any]], found: list[Alert], thresholds, reads: WorkerReads,
              lost: set[SeriesKey] = frozenset()) -> list[Alert]:
    """Mark the change point alerts of the series analysed now that their analysis no longer finds
    (withdrawn once runs since have not found them either, :func:`withdrawals`), and unmark those
    found again: more runs can withdraw a weak change point, and an alert of a change no analysis
    finds any more stayed open for ever.  A regression not found whose series went back since
    (:func:`perfgate.detect.way_back.way_back`) is closed as undone there instead: a reverted
    regression is a bump, whose edges a search of the whole history may not find.  So is a
    threshold regression alert whose streak the newest run's verdict says is over, when its series
    went back: its issue stayed open for a regression reverted.  ``found``: the alerts of their
    reports.  Such a threshold alert's way back is its report's (:func:`_way_backs`, tested by the
    worker that analysed the series) where it has one; other series are read through ``reads``
    (what the parent read ahead for its workers is not read again).  ``lost``: the series that
    lost runs to ``perfgate forget`` since their last analysis, where a change no longer found is
    withdrawn at once, as forget says (no run came since: its runs were the deleted ones).
    Returns the alerts changed."""
    # a kept report the siblings' re-test only re-marked was not analysed: its alerts are not in ``found``
    reports = {(r["branch"], r["testbed"], r["benchmark"], r["measure"]): r for r in analysed
               if r.get("newest_commit") and not r.get("kept")}
    newest = {key: Analysed(r["newest_commit"], r["points"], _past_limit(r)) for key, r in reports.items()}
    if not newest:
        return []
    read: dict[SeriesKey, tuple[list[float], list[str], dict[str, int]]] = {}

    def series(a: Alert) -> tuple[list[float], list[str], dict[str, int]]:
        """The alert's series' values, commits and each commit's index, read once a detect: only
        for an alert not found, or a streak over its worker did not test, and its series alone."""
        key = SeriesKey(a.branch, a.testbed, a.benchmark, a.measure)
        if key not in read:
            read[key] = _indexed(reads.load([key])[key])
        return read[key]

    def runs_gone(a: Alert) -> bool:
        return SeriesKey(a.branch, a.testbed, a.benchmark, a.measure) in lost or a.commit not in series(a)[2]

    def way_back(a: Alert) -> dict[str, Any] | None:
        report = reports[(a.branch, a.testbed, a.benchmark, a.measure)]
        tested = report.get("way_backs") or {}
        if a.kind == "threshold" and a.id in tested:
            return tested[a.id]
        settings = thresholds.for_series(a.benchmark, a.measure).change_point
        return _went_back(*series(a), a.commit, a.magnitude, settings, report.get("inflation", 1.0))

    try:
        changed = withdrawals(store.alerts(), found, newest, runs_gone, way_back)
        return [store.update_alert(a) for a in changed]
    except StoreError as e:
        raise StoreError(f"{e}; 'perfgate detect --no-record' reports without recording") from None


def _indexed(points: list[Point]) -> tuple[list[float], list[str], dict[str, int]]:
    """A series' values, commits and each commit's index: a commit measured twice is at its first
    run, as an alert's start (list.index) was."""
    commits = [p.commit for p in points]
    return [p.value for p in points], commits, {c: i for i, c in reversed(list(enumerate(commits)))}


def _went_back(values: list[float], commits: list[str], at: dict[str, int], commit: str, magnitude: float,
               settings: ChangePointSettings, inflation: float) -> dict[str, Any] | None:
    """The way back (:func:`perfgate.detect.way_back.way_back`) of a regression of ``magnitude``
    first seen at ``commit``, as ``details.went_back`` keeps it; None when there is none."""
    from perfgate.detect.way_back import way_back

    if commit not in at:
        return None
    back = way_back(values, at[commit], magnitude, settings.min_segment, settings.confidence, inflation)
    if back is None:
        return None
    return {"commit": commits[back.index], "previous_commit": commits[back.index - 1],
            "commit_range": commits[back.index_low:back.index_high + 1], "magnitude": back.magnitude,
            "ci_low": back.ci_low, "ci_high": back.ci_high, "p_value": back.p_value,
            "confidence": settings.confidence, "found_at": commits[-1]}


def _open_streaks(store, keys: list[SeriesKey]) -> dict[SeriesKey, list[tuple[str, str, float]]]:
    """The active threshold regression alerts of ``keys`` whose streak no run ended, as (id, first
    commit, size) by series: the worker that analyses a series tests them for a way back
    (:func:`_way_backs`) on the points it read.  Tested in the parent, each read its series again."""
    wanted, out = set(keys), {}
    for a in store.alerts(status="active") if keys else []:
        key = SeriesKey(a.branch, a.testbed, a.benchmark, a.measure)
        if a.kind == "threshold" and a.direction == "regression" and not ended_at(a) and key in wanted:
            out.setdefault(key, []).append((a.id, a.commit, a.magnitude))
    return out


def _way_backs(report: dict[str, Any], points: list[Point], settings: SeriesThresholds,
               streaks: list[tuple[str, str, float]] | None) -> dict[str, Any]:
    """``report`` with the way back of each of its series' open streaks (``streaks``,
    :func:`_open_streaks`) by alert id, when its newest value is past no limit on a regression's
    side (the streak is over: :func:`perfgate.alert_history.withdrawals` tests it then)."""
    if streaks and not _past_limit(report):
        indexed = _indexed(points)
        report["way_backs"] = {i: _went_back(*indexed, commit, size, settings.change_point, report["inflation"])
                               for i, commit, size in streaks}
    return report


def _past_limit(report: dict[str, Any]) -> bool:
    """Whether the series' newest value is past its threshold test's limit (or Bencher's) on a
    regression's side: the upper limit for a cost, the lower for a rate."""
    flag = (report.get("threshold") or {}).get("alert")
    return flag == ("upper" if Measure.named(report["measure"]).lower_is_better else "lower")


def _warn_unmatched(store, thresholds) -> None:
    """Name the thresholds' tables that match no series: a misspelled measure or benchmark would
    leave its series on the defaults without a word.  A measure perfgate knows may simply not be
    measured yet; only the others are looked up."""
    def warn(table: str, hint: list[str]) -> None:
        err.print(f"[yellow]warning:[/] {terminal(thresholds.source)}: {terminal(table)} matches no series in the "
                  f"store{'; did you mean ' + terminal(repr(hint[0])) + '?' if hint else ''}")

    for measure in sorted(thresholds.measures):
        if measure not in KNOWN_MEASURES and not store.series_keys(measure=measure):
            warn(f"[measure.{measure}]", difflib.get_close_matches(measure, KNOWN_MEASURES, 1))
    for bench, measure in sorted(thresholds.benchmarks):
        if not store.series_keys(benchmark=bench, measure=measure):
            names = sorted({k.benchmark for k in store.series_keys(measure=measure)})
            warn(f"[benchmark.{json.dumps(bench)}.{measure}]", difflib.get_close_matches(bench, names, 1))


def _import_detectors() -> None:
    """Imported here, before any worker is forked, so that workers inherit them loaded."""
    import perfgate.detect.changepoint  # noqa: F401
    import perfgate.detect.threshold_tests  # noqa: F401


# --- store series -------------------------------------------------------------------------------

# Report keys for this module's own use, not printed: the alerts and entries being raised, and what
# a later detect needs to re-test a kept series where its siblings changed or resume its threshold test.
_INTERNAL = ("alerts", "entries", "inflation", "kept", "likelihoods", "newest_commit", "siblings_mark",
             "threshold_memo", "way_backs")

# A change point found within this many runs of a series' end names the commits of its new level
# so far, for the store to match a threshold alert among them (``Alert.within_new_regime``): the
# one the threshold test raised before the change was found.
REGIME_HEAD_RUNS = 100

# Part of each saved report's settings mark: bump it when the analysis changes, so that the
# reports kept from an older perfgate are recomputed.
ANALYSIS_VERSION = "30"


FILTERS = ("branch", "testbed", "benchmark", "measure")


def _filters(args: argparse.Namespace) -> dict[str, str | None]:
    # (an empty filter, an unset CI variable, is no filter)
    return {k: getattr(args, k) or None for k in FILTERS}


def _scope(args: argparse.Namespace) -> str:
    """The filter a detect was given, by which its watermark is kept ("" for every series)."""
    given = {k: v for k, v in _filters(args).items() if v is not None}
    return json.dumps(given, sort_keys=True) if given else ""


def _in_scope(key: SeriesKey, filters: dict[str, str | None]) -> bool:
    return all(v is None or getattr(key, k) == v for k, v in filters.items())


def _settings_mark(thresholds, key: SeriesKey) -> str:
    return f"{ANALYSIS_VERSION} {thresholds.for_series(key.benchmark, key.measure)!r}"


def _plan(store, args: argparse.Namespace, thresholds) -> tuple[list[SeriesKey], list[dict[str, Any]],
                                                                dict[SeriesKey, dict[str, Any]], int | None,
                                                                set[SeriesKey]]:
    """The series to analyse now, the reports kept from the last detect for the others, the
    threshold verdicts saved for those analysed again because they have new runs, the saved
    watermark of this detect's filter (its scope), and the series ``perfgate forget`` took runs
    from since: only series with runs newer than the watermark, or whose settings changed, are
    analysed again (all of them with --full, the first time a scope is analysed, or when the store
    keeps no state)."""
    filters = _filters(args)
    mark, saved = store.detect_state(_scope(args)) if not args.full else (None, {})   # --full reads no saved reports
    stale = getattr(store, "STALE", None)
    lost = {key for key, (settings, _) in saved.items() if stale is not None and settings == stale}
    since = store.series_keys_since(mark, **filters) if not args.full and mark is not None else None
    if since is None:
        keys = store.series_keys(**filters)
        # Every series analysed in full, but the runs an earlier detect of it saw are not new to
        # this one: a streak they ended raised its alert then, or never will (the shipped workflow
        # runs `detect --branch main`, and an upgrade raised a backfill's old streaks).  --full
        # judges every streak of the current regime.
        memos = {} if args.full else {k: {"points": saved[k][1]["points"]} for k in keys
                                      if k in saved and isinstance(saved[k][1].get("points"), int)}
        return keys, [], memos, (None if args.full else mark), lost
    changed = set(since)
    keys, kept, memos = [k for k in since if k not in saved], [], {}
    marks: dict[tuple[str, str], str] = {}      # one per benchmark and measure, not per series
    for key, (settings, report) in saved.items():
        if not _in_scope(key, filters):
            continue
        now = marks.get((key.benchmark, key.measure))
        if now is None:
            now = marks[(key.benchmark, key.measure)] = _settings_mark(thresholds, key)
        if key in changed or settings != now:
            keys.append(key)
            # its verdicts stand under the same settings; the runs it saw were judged under any
            memos[key] = (report.get("threshold_memo") if settings == now else None) or {"points": report["points"]}
        else:
            kept.append(_restored(report, thresholds.for_series(key.benchmark, key.measure).change_point.confidence))
    return sorted(keys), kept, memos, mark, lost


def _saved(report: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in report.items() if k not in ("alerts", "entries", "kept", "way_backs")}


def _restored(report: dict[str, Any], level: float) -> dict[str, Any]:
    """A saved report, kept as it is (``kept``: not analysed now, so it raises no alert and says
    nothing of whether its alerts are still found).  A change point saved before levels were kept
    has ``level``, the settings' confidence now: a report is kept only under the settings it was
    made with."""
    for cp in report["change_points"]:
        cp["alert"] = {"new": False, "id": (cp.get("alert") or {}).get("id")}
        for e in (cp, cp.get("found_alone") or {}):
            if e.get("kind", "change_point") == "change_point":
                e.setdefault(CI_LEVEL, level)
    return {**report, "alerts": [], "entries": report["change_points"], "kept": True}


def _analysed(keys: list[SeriesKey], kept: list[dict[str, Any]], memos: dict[SeriesKey, dict[str, Any]],
              thresholds, reads: WorkerReads, jobs: int | None,
              streaks: dict[SeriesKey, list[tuple[str, str, float]]] | None = None
              ) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]:
    """The reports of ``keys``, analysed now (``memos``: their saved threshold verdicts; ``streaks``:
    their open streaks, tested for a way back, :func:`_way_backs`), and the
    ``kept`` reports, every series re-tested where its siblings changed (:func:`_with_siblings`);
    and those of the kept reports the re-test changed.

    The series of a family (a branch and testbed) are read, analysed and re-tested by one worker
    (:func:`_family_job`), unless the family holds more than a fair share of the work: that one is
    read and analysed in parts, and its series read again for the re-test."""
    workers = max(1, min(jobs or default_workers(), len(keys)))
    share = math.ceil(len(keys) / (2 * workers)) if workers > 1 else len(keys)
    families: dict[tuple[str, str], list[SeriesKey]] = {}
    for key in keys:
        families.setdefault((key.branch, key.testbed), []).append(key)
    kept_of: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in kept:
        kept_of.setdefault((r["branch"], r["testbed"]), []).append(r)
    items, whole = [], set()
    for family, members in families.items():
        if len(members) <= share:
            items.append((reads, members, memos, kept_of.pop(family, []), thresholds, streaks or {}))
            whole.add(family)
        else:
            items += [(reads, members[i:i + share], memos, None, thresholds, streaks or {})
                      for i in range(0, len(members), share)]
    items.sort(key=lambda item: -len(item[1]))     # the largest first: the last to end is a small one
    reads.ahead(keys + [_key(r) for item in items for r in item[3] or []])
    done = map_in_processes(_family_job, items, jobs if len(keys) >= MIN_ITEMS else 1, min_items=2)
    reports, whole_kept, changed = [], [], []
    for (_, _, _, family_kept, _, _), (analysed, retested) in zip(items, done):
        reports += analysed
        if family_kept is not None:
            whole_kept += [new or old for new, old in zip(retested, family_kept)]
            changed += [new for new in retested if new is not None]
    # The families analysed in parts, and those with no new run, are re-tested now.
    done_whole = [r for r in reports if (r["branch"], r["testbed"]) in whole]
    rest = [r for members in kept_of.values() for r in members]
    again, retested = _with_siblings([r for r in reports if (r["branch"], r["testbed"]) not in whole], rest,
                                     thresholds, reads, jobs)
    changed += [r for r, old in zip(retested, rest) if r is not old]
    return sorted(done_whole + again, key=_key), whole_kept + retested, sorted(changed, key=_key)


def _family_job(job: tuple) -> tuple[list[dict[str, Any]], list[dict[str, Any] | None]]:
    """``keys`` of one family read and analysed in this process; when the job holds the whole
    family (``kept``, its other series' kept reports, is a list), also re-tested where their
    siblings changed, with the kept reports the re-test changed (None for the others)."""
    reads, keys, memos, kept, thresholds, streaks = job
    try:
        series = reads.load(keys)
        fitted: dict[SeriesKey, Any] = {}      # each series' detector, fitted once for both passes
        reports = [_way_backs(_analyse(key, series[key], settings, memos.get(key), fitted), series[key], settings,
                              streaks.get(key))
                   for key in keys for settings in [thresholds.for_series(key.benchmark, key.measure)]]
        if kept is None:
            return reports, []
        reports, retested = _with_siblings(reports, kept, thresholds, reads, 1, fitted)
        return reports, [r if r is not old else None for r, old in zip(retested, kept)]
    finally:
        reads.forget()


def _analyse(key: SeriesKey, points: list[Point], settings: SeriesThresholds,
             memo: dict[str, Any] | None = None, fitted: dict[SeriesKey, Any] | None = None) -> dict[str, Any]:
    """The series' report (:func:`_report`) from the change points it shows alone (:func:`_changes`);
    ``memo``: its threshold verdicts saved by the last detect; ``fitted`` gets its fitted detector."""
    changes = _changes(key, points, settings, None, None)
    if fitted is not None:
        fitted[key] = changes.detector
    return _report(key, points, settings, changes, None, memo)


class Changes(NamedTuple):
    """What :func:`_changes` finds in one series."""
    found: list                 # its own change points, placed where siblings' changes locate them better
    added: list                 # those found only where its siblings changed
    ranges: list[tuple[tuple[int, int], str]]   # the siblings' changes in this series' indices, with their labels
    alone: list                 # its own change points as found alone (``found`` in the same order)
    placed_with: list[list[str]]    # for each of ``found``, the siblings it was placed with (none: not moved)
    likelihoods: list           # for each of ``alone``, where it could be (``ChangePointDetector.likelihoods``)
    detector: Any               # the ChangePointDetector fitted to the series (``inflation_``: its noise's),
                                # or a load_search.WithoutLoaded around it


def _changes(key: SeriesKey, points: list[Point], settings: SeriesThresholds, siblings: dict[str, Any] | None,
             own: dict[str, Any] | None, detector=None) -> Changes:
    """The series' change points: its own, searched for (or ``own``'s from an earlier analysis,
    with its noise correlation), placed where they and its siblings' changes nearby are likeliest
    together (``ChangePointDetector.align``), and those found where its siblings changed.
    ``siblings``: where this series is tested too — ``changes``, the ``[commits, label,
    likelihood]`` of each change found alone in a sibling series (same branch and testbed), and
    ``tested``, how many series are tested at each of those places.  ``detector``: one already
    fitted to these points (by the analysis that found ``own``), else it is fitted here."""
    from perfgate.series_search import fitted_detector

    if detector is None:
        detector = fitted_detector(key, points, settings)
    if own is None:
        found = detector.predict()
    else:
        found = _change_points(own, detector.settings.confidence)
        detector.inflation_ = own["inflation"]
    likelihoods = detector.likelihoods(found)
    at = {p.commit: i for i, p in enumerate(points)} if siblings else {}     # each commit's index here
    ranges = _sibling_ranges(at, siblings)
    if not ranges:
        return Changes(found, [], ranges, found, [[] for _ in found], likelihoods, detector)
    theirs = _sibling_likelihoods(at, siblings)
    placed, members = detector.align(found, [s for s, _ in theirs])
    placed_with = [sorted({theirs[j][1] for j in js}) for js in members]
    places = [r for r, _ in ranges]
    added = detector.corroborate(placed, places, siblings["tested"], [label for _, label in ranges])
    return Changes(placed, added, ranges, found, placed_with, likelihoods, detector)


def _report(key: SeriesKey, points: list[Point], settings: SeriesThresholds, changes: Changes,
            siblings: dict[str, Any] | None, memo: dict[str, Any] | None) -> dict[str, Any]:
    """The series' report: its change points (as :func:`_changes` gives them), each with its
    alert, and the threshold test's verdict on the newest value with the alerts its streaks raise
    (:func:`threshold_alerts`; ``memo``: the verdicts a report of this series saved, taken as they
    are where its values are unchanged)."""
    values = changes.detector.values_.tolist()
    found, added, ranges = changes.found, changes.added, changes.ranges
    cps = sorted(found + added, key=lambda c: c.index)
    moved = {id(cp): (first, labels) for cp, first, labels in zip(found, changes.alone, changes.placed_with)
             if cp is not first}
    entries, alerts = [], []
    # runs measured under load that the search left out (load_search.WithoutLoaded): none here
    # for a series searched whole
    left_out = getattr(changes.detector, "left_out", [])
    for cp in cps:
        entry = _entry(points, cp)
        details = {"index": cp.index, "before": cp.before, "after": cp.after,
                   "last_measured": entry["last_measured"], CI_LEVEL: cp.ci_level}
        loaded = sum(1 for i in left_out if cp.index_low <= i <= cp.index_high)
        if loaded:
            # it could be at any of them: their values were no evidence either way
            entry["left_out_for_load"] = details["left_out_for_load"] = loaded
        if cp in added:
            # Found only by looking where these siblings changed: its p-value paid for those places.
            entry["siblings"] = details["siblings"] = sorted(
                {label for (a, b), label in ranges if a <= cp.index_high and cp.index_low <= b})
        elif id(cp) in moved:
            # Found alone, placed where it and these siblings' changes are likeliest together: kept
            # as found for the next re-test.
            first, labels = moved[id(cp)]
            entry["placed_with"] = details["placed_with"] = labels
            entry["found_alone"] = _entry(points, first)
        if cp is cps[-1] and len(points) - cp.index_low <= REGIME_HEAD_RUNS:
            # A threshold alert raised on these runs before the change was found is this regression.
            details[REGIME_HEAD] = [p.commit for p in points[cp.index_low:]]
        entries.append(entry)
        if points[cp.index].attrs.get("inherited"):
            # In the history a Bencher start point lends this branch: the other branch's change,
            # alerted there, and the baseline this branch's own runs are judged against.
            entry["inherited"] = True
            continue
        alerts.append(Alert(key.branch, key.testbed, key.benchmark, key.measure, points[cp.index].commit,
                            cp.direction, cp.magnitude, cp.ci_low, cp.ci_high, cp.p_value, "change_point",
                            points[cp.index - 1].commit, tuple(entry["commit_range"]), details))
    thresholds = threshold_alerts(key, points, values, settings, cps, changes.detector.warm_up, memo)
    entries += thresholds.entries
    alerts += thresholds.alerts
    return {"branch": key.branch, "testbed": key.testbed, "benchmark": key.benchmark, "measure": key.measure,
            "points": len(points), "change_points": entries, "threshold": thresholds.threshold, "entries": entries,
            "alerts": alerts, "inflation": changes.detector.inflation_,
            "newest_commit": points[-1].commit if points else "",   # where a change no longer found was withdrawn
            "siblings_mark": (siblings or {}).get("mark", ""),
            "threshold_memo": thresholds.memo,
            "likelihoods": _likelihoods_saved(points, changes.alone, changes.likelihoods)} \
        | ({"left_out_for_load": len(left_out)} if left_out else {})


def _entry(points: list[Point], cp) -> dict[str, Any]:
    """A change point's report entry, located in the series' commits."""
    return cp.to_json() | {"first_commit": points[cp.index].commit, "previous_commit": points[cp.index - 1].commit,
                           # the last commit measured before every commit it could be (a gap's end)
                           "last_measured": points[cp.index_low - 1].commit if cp.index_low > 0 else "",
                           "commit_range": [points[i].commit for i in range(cp.index_low, cp.index_high + 1)],
                           "likeliest_range": [points[i].commit
                                               for i in range(cp.likeliest_low, cp.likeliest_high + 1)],
                           "kind": "change_point"}


def _change_points(own: dict[str, Any], level: float) -> list:
    """The change points of a saved report's entries.  One saved before levels were kept has
    ``level``, the settings' confidence now: a report is kept only under the settings it was made
    with (:func:`_settings_mark`)."""
    from perfgate.detect.changepoint import ChangePoint

    return [ChangePoint(**{CI_LEVEL: level} | {f: e[f] for f in ChangePoint.__dataclass_fields__ if f in e})
            for e in own["change_points"]]


def _sibling_ranges(at: dict[str, int], siblings: dict[str, Any] | None) -> list[tuple[tuple[int, int], str]]:
    """Where each sibling change likeliest is (its ``likeliest_range`` of commits) as a range of this
    series' indices (``at``: each of its commits' index; the runs of those commits it has), with
    the sibling's label."""
    changes = (siblings or {}).get("changes", [])
    if not changes:
        return []
    out = []
    for commits, label, _ in changes:
        mine = [at[c] for c in commits if c in at]
        if mine:
            out.append(((min(mine), max(mine)), label))
    return out


def _likelihoods_saved(points: list[Point], alone: list, likelihoods: list) -> dict[str, list]:
    """Where each change found alone could be, by its first commit, for its siblings' next
    placing: ``[first commit, last commit, values]`` of its :class:`Likelihood`."""
    return {points[cp.index].commit: [points[s.start].commit, points[s.end - 1].commit, list(s.values)]
            for cp, s in zip(alone, likelihoods)}


def _sibling_likelihoods(at: dict[str, int], siblings: dict[str, Any]) -> list[tuple[Any, str]]:
    """Each sibling change's :class:`Likelihood` in this series' indices (``at``: each of its
    commits' index), with the sibling's label: where this series has runs at both its ends and as
    many between them (the same runs of one CI job); a sibling's change this series cannot line up
    with is not weighed."""
    from perfgate.detect.changepoint import Likelihood

    out = []
    for _, label, saved in siblings["changes"]:
        if not saved:
            continue
        first, last, values = saved
        a, b = at.get(first), at.get(last)
        if a is not None and b is not None and b - a == len(values) - 1:
            out.append((Likelihood(a, values), label))
    return out


def _key(report: dict[str, Any]) -> SeriesKey:
    return SeriesKey(report["branch"], report["testbed"], report["benchmark"], report["measure"])


def _label(report: dict[str, Any]) -> str:
    return f"{report['benchmark']} [{report['measure']}]"


def _own(report: dict[str, Any]) -> list[dict[str, Any]]:
    """The change points a series' report found in the series alone (not where siblings changed),
    where it found them (before they were placed with their siblings' changes: so nothing feeds on
    itself, and a family's places stay put from one detect to the next)."""
    return [e.get("found_alone", e) for e in report["change_points"]
            if e.get("kind") == "change_point" and "siblings" not in e]


def _family_mark(changes: list[list[Any]], tested: int) -> str:
    """What the series of a family are tested at — its changes found alone, and how many series
    each place is tested in — for a later detect to see whether that changed."""
    return hashlib.sha256(json.dumps([changes, tested]).encode()).hexdigest()[:16] if changes else ""


def _with_siblings(reports: list[dict[str, Any]], kept: list[dict[str, Any]], thresholds, reads: WorkerReads,
                   jobs: int | None, fitted: dict[SeriesKey, Any] | None = None
                   ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Each series tested where its siblings — the other series of its branch and testbed — changed
    (a commit that slows one benchmark often slows others by less than a search over a whole series
    can see), each p-value paying for its place in the siblings tested there (one commit's change
    must not raise a false alert in some benchmark of every large suite), less where more of them
    found the change alone (``ChangePointDetector.corroborate``).  Only changes a series
    found alone are looked for in its siblings, so nothing feeds on itself.  A series is analysed
    again (``reads`` reads their points) when it was analysed just now, or was last tested at
    other changes than its family's, and either it could show a sibling's change — there is one,
    and it has more runs than siblings (else one place costs more than a search of the whole
    series) — or it showed one before; the others keep their report.  Returns the reports
    analysed now and those kept, each updated where it was tested again.  ``fitted``: detectors
    the analysis just fitted, by series, when it ran in this process (none are fitted twice)."""
    families: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in reports + kept:
        families.setdefault((r["branch"], r["testbed"]), []).append(r)
    fresh = {id(r) for r in reports}
    marked: dict[int, str] = {}
    work, redo = [], []
    for family in families.values():
        changes = sorted([e["likeliest_range"], _label(r), r.get("likelihoods", {}).get(e["first_commit"], [])]
                         for r in family for e in _own(r))
        tested = len(family) - 1
        mark = _family_mark(changes, tested)
        for r in family:
            if id(r) not in fresh and r.get("siblings_mark", "") == mark:
                continue
            marked[id(r)] = mark
            own = _own(r)
            # showed a sibling's change, or was placed at one
            had = any("siblings" in e or "placed_with" in e for e in r["change_points"])
            could = len(changes) > len(own) and tested < r["points"]
            if not (could or had):
                continue
            label, key = _label(r), _key(r)
            siblings = {"changes": [c for c in changes if c[1] != label], "tested": tested, "mark": mark}
            work.append((key, thresholds.for_series(key.benchmark, key.measure), siblings,
                         {"change_points": own, "inflation": r["inflation"]}, had, r.get("threshold_memo"),
                         (fitted or {}).get(key)))
            redo.append(r)
    if not marked:
        return reports, kept
    again = {}
    if work:
        _import_detectors()
        reads.ahead([key for key, *_ in work])
        # in batches of series of one family, each batch read at once by the worker that re-tests it
        workers = max(1, min(jobs or default_workers(), len(work)))
        size = math.ceil(len(work) / (4 * workers)) if workers > 1 and len(work) >= MIN_ITEMS else len(work)
        batches = [(reads, work[i:i + size]) for i in range(0, len(work), size)]
        results = [r for batch in map_in_processes(_retest_batch, batches, jobs, min_items=2) for r in batch]
        again = dict(zip(map(id, redo), results))
    # A series where no sibling's change shows, and none showed before, keeps its report as it was
    # (its threshold verdict is most of the cost), marked as tested at the family's changes.

    def updated(r: dict[str, Any]) -> dict[str, Any]:
        if id(r) not in marked:
            return r
        new = again.get(id(r))
        if new is not None and "way_backs" in r:    # of the same runs: a re-test moves no way back
            new["way_backs"] = r["way_backs"]
        return new or r | {"siblings_mark": marked[id(r)]}

    return [updated(r) for r in reports], [updated(r) for r in kept]


def _retest_batch(batch: tuple) -> list[dict[str, Any] | None]:
    """:func:`_retest` of each series of the batch, read here."""
    reads, work = batch
    try:
        series = reads.load([key for key, *_ in work])
        return [_retest(key, series[key], *rest) for key, *rest in work]
    finally:
        reads.forget()


def _retest(key: SeriesKey, points: list[Point], settings: SeriesThresholds, siblings: dict[str, Any],
            own: dict[str, Any], had: bool, memo: dict[str, Any] | None, detector) -> dict[str, Any] | None:
    """The series' report with its siblings' changes tested, or None when none of them shows in it
    or moves one of its own, and none did before (its report stands)."""
    changes = _changes(key, points, settings, siblings, own, detector)
    if not changes.added and changes.found == changes.alone and not had:
        return None
    return _report(key, points, settings, changes, siblings, memo)


PENDING_SHOWN = 10   # series listed whose newest value is past its limit without an alert yet


def _print_store(reports: list[dict], nseries: int, new: list[Alert], no_record: bool) -> None:
    found = [(r, e) for r in reports for e in r["change_points"]]
    # "no change points in 29 series" after one run each read as a clean bill of health
    runs = 2 * ChangePointSettings().min_segment
    short = sum(1 for r in reports if r.get("points", runs) < runs)
    if short:
        err.print(f"{short} of {nseries} series have fewer than {runs} runs: too few for a change point "
                  f"(it needs {runs // 2} runs on each side)", markup=False)
    if not found:
        out.print(f"no change points in {nseries} series")
    else:
        _print_found(found, nseries, no_record)
    _print_pending(reports)
    _print_left_out(reports)
    if new and no_record:
        err.print(f"{len(new)} alert(s) would be new; none recorded (--no-record)")
    elif new:
        err.print(f"{len(new)} new alert(s); list with 'perfgate alerts', narrow a range to its commit with "
                  "'perfgate bisect ID', acknowledge with 'perfgate alerts --ack ID'")


def _print_withdrawn(changed: list[Alert]) -> None:
    """The alerts this detect withdrew, found again, or no longer finds yet: their issues close
    (or stay closed, or stay open for now)."""
    for a in changed:
        since, back = unfound_since(a), went_back(a)
        what = (f"undone at {back['commit'][:12]}: the runs from there {went_back_text(back)}" if back
                else f"no longer found at {withdrawn_at(a)[:12]}: the runs since do not show it" if withdrawn_at(a)
                else f"not found at {since['commit'][:12]}: withdrawn if {WITHDRAW_AFTER_RUNS} runs from there do "
                     "not show it" if since else "found again")
        err.print(terminal(f"alert {a.id[:8]} ({a.benchmark} [{a.measure}] {a.branch}@{a.testbed}, {a.direction} "
                           f"{pct(a.magnitude)} at {a.commit[:12]}) {what}"))


def _print_left_out(reports: list[dict]) -> None:
    """The series whose change point search left out a quarter of their runs or more for the load
    they were measured under: "no change points" there was said of the runs kept (an adopter's
    150x step went unsaid with 5 of 12 runs left out; its instruction counts alerted)."""
    many = [r for r in reports if 4 * r.get("left_out_for_load", 0) >= r.get("points", 0) > 0]
    for r in many[:PENDING_SHOWN]:
        err.print(terminal(f"{r['benchmark']} [{r['measure']}] {r['branch']}@{r['testbed']}: {r['left_out_for_load']} "
                           f"of its {r['points']} runs were measured under load and left out of the change point "
                           "search, which judged the others"))
    if len(many) > PENDING_SHOWN:
        err.print(f"and {len(many) - PENDING_SHOWN} more series with a quarter of their runs or more left out for load")


def _print_pending(reports: list[dict]) -> None:
    """The series whose newest value is past its threshold test's limit but has not alerted: its
    test alerts once ``consecutive`` values in a row are (wall time: 2)."""
    pending = [r for r in reports if (r.get("threshold") or {}).get("alert")
               and not any(e.get("kind") == "threshold" and "ended_at" not in e for e in r["change_points"])]
    for r in pending[:PENDING_SHOWN]:
        t = r["threshold"]
        then = (f"part of the change found at {t['of_change_at'][:12]}, alerted as that change" if t.get("of_change_at")
                else t["held"]["why"] if t.get("held")
                else f"it alerts once {t.get('consecutive', 1)} in a row are")
        out.print(terminal(f"{r['benchmark']} [{r['measure']}] {r['branch']}@{r['testbed']}: the newest value is past "
                           f"its {t['test']} limit; {then}"))
    if len(pending) > PENDING_SHOWN:
        out.print(f"and {len(pending) - PENDING_SHOWN} more series with the newest value past its limit")


def _limit_evidence(e: dict[str, Any]) -> str:
    """Which limit raised a threshold alert, and how sure its streak is (or why that is unknown)."""
    if e.get("p_value") is not None:
        return f"{confidence_text(e['p_value'])} ({p_text(e['p_value'])}), {e['test']} limit"
    why = e.get("no_interval")
    return f"{e['test']} limit" + (f" (no interval: {why})" if why else "")


def _print_found(found: list[tuple[dict, dict]], nseries: int, no_record: bool) -> None:
    table = Table(title=f"perfgate detect: {len(found)} change(s) in {nseries} series", title_justify="left")
    for col in ("benchmark", "measure", "branch@testbed", "first commit", "could be", "change", "confidence",
                "direction", "alert"):
        table.add_column(col, overflow="fold")
    for r, e in found:
        rng = suspects(e.get("kind", "change_point"), e["first_commit"], e.get("commit_range"))
        # a change point's interval is at its settings' confidence, a streak's at 95%: each names its own
        ci = alert_evidence(e.get("kind", "change_point"), e.get("ci_low"), e.get("ci_high"), e)
        ci = f" ({ci})" if ci else ""
        conf = confidence_text(e["p_value"]) if "confidence" in e else _limit_evidence(e)
        if e.get("kind") == "threshold" and len(e.get("commit_range") or ()) > 1:
            conf += f", {len(e['commit_range'])} values in a row past it"
        if e.get("ended_at"):
            conf += f", ended at {e['ended_at'][:12]}"
        if e.get("siblings"):
            conf += f" where {len(e['siblings'])} sibling(s) changed"
        elif e.get("placed_with"):
            conf += f", placed where {len(e['placed_with'])} sibling(s) changed"
        if e.get("left_out_for_load"):
            conf += (f"; could be at any of the {e['left_out_for_load']} run(s) in its range measured under load, "
                     "left out of the search")
        alert = e.get("alert", {})
        # a known alert's id is the recorded one's (Alert.sort_out), as ``perfgate alerts`` lists it
        status = ("would be NEW" if no_record and alert.get("new") else
                  ("NEW " if alert.get("new") else "known ") + (alert.get("id") or "")[:8]).strip()
        if e.get("inherited"):
            status = "start point's"      # the branch it started from: alerted there, not here
        colour = "red" if e["direction"] == "regression" else "green"
        # the last commit measured before every suspect: a thinned backfill's gap is suspect too
        good = last_good(rng, e["first_commit"], e.get("previous_commit", ""), e.get("last_measured"))
        table.add_row(terminal(r["benchmark"]), terminal(r["measure"]), terminal(f"{r['branch']}@{r['testbed']}"),
                      terminal(e["first_commit"][:12]), terminal(could_be(rng, good, e.get("kind") == "threshold")),
                      f"{pct(e['magnitude'])}{ci}", terminal(conf), f"[{colour}]{e['direction']}[/{colour}]",
                      terminal(status))
    out.print(table)


# --- series files -------------------------------------------------------------------------------

def _positive(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number of workers, got {text!r}") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"expected at least 1 worker, got {n}")
    return n
