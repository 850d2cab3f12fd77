"""A series' threshold alerts, as ``perfgate detect`` raises them: the newest value judged by the
series' threshold test against the history since its last change point (values that alerted
left out), an alert once ``consecutive`` values in a row are past the same limit, streaks that a
later run of a batch ended, and streaks held while the machine's load explains them.

The verdicts are causal, so a later detect resumes them from what the last one saved
(:func:`_threshold_memo`) while the regime's values are unchanged.
"""

from __future__ import annotations

import hashlib
import math
import statistics
from array import array
from typing import Any, NamedTuple

from perfgate.detect.load_hold import held_text
from perfgate.model import Alert, Measure
from perfgate.store import Point, SeriesKey
from perfgate.thresholds import SeriesThresholds, ThresholdTest
from perfgate.units import CI_LEVEL


class ThresholdAlerts(NamedTuple):
    """What :func:`threshold_alerts` finds in one series."""
    threshold: dict[str, Any] | None    # the newest value's verdict (None: no test, no Bencher alert)
    memo: dict[str, Any] | None         # what a later detect needs to resume the test (None: no test)
    entries: list[dict[str, Any]]       # the report entries of the alerts raised
    alerts: list[Alert]


def threshold_alerts(key: SeriesKey, points: list[Point], values: list[float], settings: SeriesThresholds,
                     cps: list, warm_up: int, memo: dict[str, Any] | None) -> ThresholdAlerts:
    """The series' threshold verdict on its newest value and the alerts its streaks raise, given its
    change points ``cps`` (the newest starts the regime judged) and the cold runs its search set
    aside (``warm_up``); ``memo``: the verdicts a report of this series saved, taken as they are
    where its values are unchanged."""
    from perfgate.detect.threshold_verdicts import verdicts

    lower = Measure.named(key.measure).lower_is_better
    entries: list[dict[str, Any]] = []
    alerts: list[Alert] = []
    threshold = None
    # Cold first runs set aside by the change point search stay out of the baseline too: a cold
    # run at twice the level widened the limits for the whole first regime.
    start = cps[-1].index if cps else warm_up
    flags: list[str | None] = []
    saved = None
    consecutive = 1     # values in a row beyond the same limit that raise an alert
    if settings.test is not None and points:
        # The newest value against the current regime only: a confirmed change point starts a
        # new normal (already alerted once); values that alerted stay out of the baseline.
        regime, times = values[start:], [p.time for p in points[start:]]
        judged = _judged(memo, start, regime, times)
        judgement = verdicts(settings.test, regime, times, judged)
        flags = judged + judgement.alerts
        consecutive = settings.test.consecutive
        since = _new_from(memo, len(points))
        saved = _threshold_memo(start, regime, times, flags) | {"points": len(points), "since": since}
        threshold = _verdict(settings.test, judgement.last)
        # Runs recorded many at a time: a streak that a later one of them ended alerts all the same,
        # when it stands out beyond what chance gives over that many runs; also in a regime a
        # later change point of the batch closed (a detect after each run judged it the current).
        bounds = [warm_up, *(cp.index for cp in cps)]
        regimes = [(lo, verdicts(settings.test, values[lo:hi], [p.time for p in points[lo:hi]]).alerts)
                   for lo, hi in zip(bounds, bounds[1:]) if hi > since and hi - lo > consecutive]
        for lo, regime_flags in [*regimes, (start, flags)]:
            for a, b in _ended_streaks(regime_flags, consecutive, since - lo):
                # a streak held for load that a later run ended: that run decided, as it would have
                # after each run
                check, onset = _load_check(key, points, settings.test, lo, regime_flags, a, b)
                if _stands_out(values[lo:lo + len(regime_flags)], regime_flags, a, b, len(points) - since) \
                        and not (check and check["held"]):
                    entry, alert = _ended_streak(key, points, values, settings.test, lo, onset, b, regime_flags,
                                                 lower, check)
                    entries.append(entry)
                    alerts.append(alert)
    if points and not (flags and flags[-1]) and points[-1].attrs.get("bencher_alert"):
        # Bencher alerted on the newest value (its own threshold model): that verdict counts too,
        # by the measure's rule of values in a row.
        flags = [p.attrs.get("bencher_alert") for p in points[start:]]
        consecutive = settings.test.consecutive if settings.test is not None else 1
        threshold = {"test": "bencher", "value": points[-1].value, "alert": flags[-1], "source": "bencher",
                     "consecutive": consecutive}
    first = len(flags)      # the first of the newest values past the same limit (none: len)
    while first > 0 and flags[-1] and flags[first - 1] == flags[-1]:
        first -= 1
    # Bencher's limit does not restart at a change point as perfgate's does: its alerts on the
    # values from the step on are the change point's regression, counted once.
    of_the_change = bool(cps) and (threshold or {}).get("source") == "bencher" and \
        start + first <= cps[-1].index_high
    if of_the_change and threshold is not None:
        threshold["of_change_at"] = points[cps[-1].index].commit
    if len(flags) - first >= consecutive and not of_the_change:
        # One regression, one alert: the newest value ends a run of values beyond the same limit
        # (at least ``consecutive`` of them, ≥ 1), and the alert names the first of them (every
        # detect after another slow run finds the same first commit, so the alert is raised once),
        # counted through one-value dips back within the limit (:func:`_through_dips`).
        first = _through_dips(flags, first, consecutive)
        test = settings.test if threshold.get("source") != "bencher" else None
        check, onset = _load_check(key, points, test, start, flags, first, len(flags))
        if check and check["held"]:
            # measured under a load its baseline was not: pending, until a quiet run decides
            threshold["held"] = {"load": check["load"], "baseline_load": check["baseline_load"],
                                 "why": held_text(check)}
        else:
            first = onset
            magnitude = _size(points[-1].value, threshold.get("baseline"), values, flags, start, first)
            evidence = _evidence(test, values[start:], [p.time for p in points[start:]], flags, first, len(flags))
            entry, alert = _streak_alert(key, points, start + first, len(points), flags[-1] == "upper", lower,
                                         magnitude, threshold | evidence | ({"load_check": check} if check else {}))
            entries.append(entry)
            alerts.append(alert)
    return ThresholdAlerts(threshold, saved, entries, alerts)


def _verdict(test: ThresholdTest, result) -> dict[str, Any]:
    """A value's threshold verdict (a ``ThresholdResult``) as reports and alerts keep it."""
    lim = result.limits
    return {"test": test.test, "value": result.value, "baseline_size": result.baseline_size,
            "baseline": lim.baseline if lim else None, "lower_limit": lim.lower if lim else None,
            "upper_limit": lim.upper if lim else None, "alert": result.alert, "consecutive": test.consecutive}


def _new_from(memo: Any, n: int) -> int:
    """The first of the series' ``n`` runs that no earlier analysis judged (``memo``: what the last
    one saved): a streak past the limit that completed before it raised its alert then, or (judged
    under other thresholds) never will.  The same runs again (the siblings' re-test of a report)
    keep that report's first new run; none known (a new series, ``--full``, a filter): the first."""
    try:
        seen = memo["points"]
        if type(seen) is not int or not 0 <= seen <= n:
            return 0
        since = memo.get("since", n) if seen == n else seen
        return since if type(since) is int and 0 <= since <= n else n
    except (KeyError, TypeError, AttributeError):
        return 0


def _through_dips(flags: list[str | None], first: int, consecutive: int) -> int:
    """The first value of the streak ``flags[first:]`` counted back through one-value dips: a
    single value back within the limit between two streaks past the same one, each long enough to
    alert, is a shifted level's noise, not the end of its regression (a +6% step in 2% noise puts a
    value back under the 99% limit about one run in three).  The streak after a dip then names
    the same first commit, so it is the alert already raised, not a second one for the same step."""
    while first > consecutive and flags[first - 1] is None and flags[first - 2] == flags[first]:
        earlier = first - 1
        while earlier > 0 and flags[earlier - 1] == flags[first]:
            earlier -= 1
        if first - 1 - earlier < consecutive:
            break
        first = earlier
    return first


def _ended_streaks(flags: list[str | None], consecutive: int, since: int) -> list[tuple[int, int]]:
    """The runs of values past the same limit, ``flags[a:b]``, that a later value ended and whose
    ``consecutive``-th value is at ``since`` or after: a detect after each run raised each there.
    (A streak the newest value is part of is not one of them: it alerts as the series' own.)
    A one-value dip ends no streak (:func:`_through_dips`)."""
    # From one value before the first start that completes at ``since``: a streak cut short there
    # (it began earlier) reads as completing before ``since``, as it did.
    lo = max(0, since - consecutive)
    streaks: list[list[int]] = []
    for i in (i for i in range(lo, len(flags)) if flags[i]):
        if streaks and streaks[-1][1] == i and flags[i - 1] == flags[i]:
            streaks[-1][1] = i + 1
        else:
            streaks.append([i, i + 1])
    merged: list[list[int]] = []
    for a, b in streaks:
        if merged and a == merged[-1][1] + 1 and flags[a] == flags[merged[-1][0]] \
                and _through_dips(flags[:b], a, consecutive) == merged[-1][0] and b - a >= consecutive:
            merged[-1][1] = b
        else:
            merged.append([a, b])
    return [(a, b) for a, b in merged if b < len(flags) and b - a >= consecutive and a + consecutive - 1 >= since]


ENDED_STREAK_ALPHA = 0.01   # chance that a batch of runs of a quiet series raises an ended streak


def _stands_out(regime: list[float], flags: list[str | None], a: int, b: int, judged: int) -> bool:
    """Whether the ended streak ``regime[a:b]`` stands out from the rest of its regime, beyond
    what chance gives over the ``judged`` runs of the batch.  Judged one by one, a run of values
    past a 99% limit comes up by chance (0.3 per 1,000 values of wall time, two in a row): a
    detect after each run raises those as they come, but a backfill's first detect would raise
    every one of a history at once (20 on 200 quiet series of 300 runs).  Looked at after the
    fact, the streak's mean must be beyond the median of the regime's other values that raised
    nothing (before and after it: the batch has both) by the one-sided ``ENDED_STREAK_ALPHA /
    judged`` quantile of Student's t, in logs of positive values (noise is multiplicative)."""
    # the threshold tests' Student quantile (perfgate.detect.distributions), not scipy.stats:
    # importing that cost each worker of a backfill's detect 45 MiB and 0.5 s of CPU (round 15).
    import numpy as np

    from perfgate.detect.threshold_tests import student_quantile

    others = [v for i, (v, f) in enumerate(zip(regime, flags)) if f is None and not a <= i < b]
    streak = regime[a:b]
    if len(others) < 3:
        return True                    # nothing to weigh it against: as a detect after each run
    if min(others + streak) > 0:
        others, streak = [math.log(v) for v in others], [math.log(v) for v in streak]
    shift = (statistics.fmean(streak) - statistics.median(others)) * (1 if flags[a] == "upper" else -1)
    # numpy's deviation, not statistics.stdev, which sums exact fractions: 2 ms a regime of 1,000
    # runs, and a full detect of 1,000 series judged 352 streaks.  Equal values get 0 or a
    # rounding's worth, which decides as 0 does (the ratio below is 0 or huge).
    spread = float(np.std(others, ddof=1))
    if spread == 0:
        return shift > 0
    needed = -student_quantile(ENDED_STREAK_ALPHA / max(judged, 1), len(others) - 1)    # the upper tail, exactly
    return shift / (spread * math.sqrt(1 / len(streak) + 1 / len(others))) >= needed


def _ended_streak(key: SeriesKey, points: list[Point], values: list[float], test: ThresholdTest, start: int, a: int,
                  b: int, flags: list[str | None], lower: bool,
                  check: dict[str, Any] | None = None) -> tuple[dict[str, Any], Alert]:
    """The report entry and alert of the regime's streak ``flags[a:b]``: what a detect raised at its
    ``consecutive``-th value (that value's verdict and size), with every value of the streak and
    the run that ended it (``ended_at``); ``check``: its load check (:func:`_load_check`)."""
    from perfgate.detect.threshold_tests import evaluate_series

    j = start + a + test.consecutive - 1
    [result] = evaluate_series(test, values[start:j + 1], [p.time for p in points[start:j + 1]], flags[:j - start])
    details = _verdict(test, result) | {"ended_at": points[start + b].commit}
    details |= _evidence(test, values[start:start + len(flags)], [p.time for p in points[start:start + len(flags)]],
                         flags, a, b)
    if check:
        details["load_check"] = check
    magnitude = _size(result.value, details["baseline"], values, flags, start, a)
    return _streak_alert(key, points, start + a, start + b, flags[a] == "upper", lower, magnitude, details)


def _load_check(key: SeriesKey, points: list[Point], test: ThresholdTest | None, start: int,
                flags: list[str | None], a: int, b: int) -> tuple[dict[str, Any] | None, int]:
    """The load check (:func:`perfgate.detect.load_hold.load_check`) of the streak ``flags[a:b]``
    of the regime from ``start``: the loads of its values past the limit against those of the
    baseline its test judged its first value by; None for a measure that is not wall time, or
    runs that did not record their load.  Whether the load explains the streak: its values past the
    limit, at their unloaded speed, judged by ``test`` against that baseline's values at theirs,
    are not past it as many times in a row as an alert needs (``consecutive``; all of a shorter
    streak's): at their unloaded speed they are judged as any values are, so one value past the
    limit by chance beside one the load slowed is no streak, and runs past it after a held streak
    alert once they are an alert's worth; without ``test``, Bencher's own limit, the loads alone
    decide.  With the check, where its alert starts: ``a``, or past its first values where the
    load alone put them past the limit (loaded, and not past it at their unloaded speed): a run
    the load slowed is not where a regression began; the check is then of the runs from there."""
    from perfgate.detect.load_hold import LOADED, load_check, unloaded, wall_time
    from perfgate.detect.threshold_tests import baseline_indices, judge

    if not wall_time(key.measure):
        return None, a
    times = [p.time for p in points[start:start + len(flags)]]
    base = [points[start + j] for j in baseline_indices(test, times, flags, a)]
    streak = [i for i in range(a, b) if flags[i]]
    explained, onset = None, a
    if test is not None:
        lower = Measure.named(key.measure).lower_is_better
        history = [unloaded(p.value, p.load, lower) for p in base]
        past = [judge(test, history, unloaded(points[start + i].value, points[start + i].load, lower)).alert
                == flags[i] for i in streak]
        explained = _longest_run(past) < min(test.consecutive, len(streak))
        by_load = [not was_past and (points[start + i].load or 0.0) >= LOADED for i, was_past in zip(streak, past)]
        if streak and not explained and by_load[0]:
            onset = streak[by_load.index(False)]
            streak = [i for i in streak if i >= onset]     # the check then describes the runs alerted on
    return load_check([points[start + i].load for i in streak], [p.load for p in base], explained), onset


def _longest_run(flags: list[bool]) -> int:
    """How many true values in a row ``flags`` holds at most."""
    longest = run = 0
    for flag in flags:
        run = run + 1 if flag else 0
        longest = max(longest, run)
    return longest


def _evidence(test: ThresholdTest | None, regime: list[float], times: list[float | None], flags: list[str | None],
              a: int, b: int) -> dict[str, Any]:
    """A threshold alert's interval and p-value, kept with its details: the streak ``regime[a:b]``
    (every value it covers, dips back within the limit too: the level it shifted to) against the
    baseline the test judged its first value by (``test`` None, Bencher's own: the values before it
    that raised nothing).  ``no_interval`` says why there is none."""
    from perfgate.detect.threshold_tests import EVIDENCE_LEVEL, baseline_at, streak_evidence

    base = baseline_at(test, regime, times, flags, a)
    ev = streak_evidence(base, regime[a:b], flags[a] == "upper")
    kept = {"ci_low": ev.ci_low, "ci_high": ev.ci_high, "p_value": ev.p_value, "streak_change": ev.change,
            "streak_size": b - a, "evidence_baseline_size": len(base), CI_LEVEL: EVIDENCE_LEVEL}
    return kept | ({"no_interval": ev.why} if ev.why else {})


def _size(value: float, baseline: float | None, values: list[float], flags: list[str | None], start: int,
          first: int) -> float:
    """A threshold alert's size: ``value`` against the test's own baseline, else the mean of the
    regime's values before its streak (``flags[first]`` on) that raised no alert, else of all before."""
    before = [v for v, f in zip(values[start:start + first], flags[:first]) if f is None] or values[:start + first]
    base = baseline or (sum(before) / len(before) if before else None)
    return value / base - 1 if base else math.nan


def _streak_alert(key: SeriesKey, points: list[Point], i0: int, end: int, above: bool, lower: bool,
                  magnitude: float, details: dict[str, Any]) -> tuple[dict[str, Any], Alert]:
    """The report entry and alert of the values ``points[i0:end]`` past the same limit (``above``
    it: the upper one).  One regression, one alert: it names the first of them, which every detect
    that sees the streak finds again (so the store raises it once)."""
    direction = "regression" if above == lower else "improvement"
    streak = tuple(p.commit for p in points[i0:end])
    # The interval and p-value (:func:`_evidence`) are the alert's own fields, as a change point's.
    ci_low, ci_high, p_value = (details.get(k) for k in ("ci_low", "ci_high", "p_value"))
    details = {k: v for k, v in details.items() if k not in ("ci_low", "ci_high", "p_value")}
    entry = {"kind": "threshold", "index": i0, "first_commit": points[i0].commit, "commit_range": list(streak),
             "direction": direction, "magnitude": magnitude, "ci_low": ci_low, "ci_high": ci_high,
             "p_value": p_value, **details}
    return entry, Alert(key.branch, key.testbed, key.benchmark, key.measure, points[i0].commit, direction, magnitude,
                        ci_low, ci_high, p_value, kind="threshold",
                        previous_commit=points[i0 - 1].commit if i0 > 0 else "", commit_range=streak, details=details)


def _threshold_memo(start: int, regime: list[float], times: list[float | None],
                    flags: list[str | None]) -> dict[str, Any]:
    """What a later detect needs to resume the threshold test of this regime: the verdicts are
    causal, so while the regime starts at the same run and its values are those, they stand."""
    return {"start": start, "judged": len(regime), "digest": _digest(regime, times),
            "alerts": [[i, f] for i, f in enumerate(flags) if f]}


def _judged(memo: Any, start: int, regime: list[float], times: list[float | None]) -> list[str | None]:
    """The saved verdicts of the regime's first values when ``memo`` judged these very values
    (same first run, same values and times), all but the newest value's (judged again for the
    report: the siblings' re-test of a series just analysed judges only that one); else none
    (also when the saved memo is not one this module wrote: it is only ever a shortcut)."""
    try:
        n, alerts = memo["judged"], memo["alerts"]
        if (memo["start"] != start or type(n) is not int or not 0 < n <= len(regime)
                or memo["digest"] != _digest(regime[:n], times[:n])):
            return []
        flags: list[str | None] = [None] * n
        for i, f in alerts:
            if type(i) is not int or not 0 <= i < n or f not in ("lower", "upper"):
                return []
            flags[i] = f
        return flags[:len(regime) - 1]
    except (KeyError, TypeError, ValueError):
        return []


def _digest(values: list[float], times: list[float | None]) -> str:
    data = array("d", values).tobytes() + array("d", [math.nan if t is None else t for t in times]).tobytes()
    return hashlib.sha256(data).hexdigest()[:16]
