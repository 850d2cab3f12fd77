"""Alerts read as a history: their order, their series, and which regressions a later
improvement undid.  Pure; ``notify`` (when to close an issue), ``alerts`` and the trend pages
(what to call a series) all answer "is this regression still there?" by the same rule."""

from __future__ import annotations

import math
from typing import Callable, NamedTuple, Protocol, Sequence

from perfgate.model import Alert


def series_of(alert: Alert) -> tuple[str, str, str, str]:
    return alert.branch, alert.testbed, alert.benchmark, alert.measure


def oldest_first(alerts: list[Alert]) -> list[Alert]:
    """Alerts in the order they were raised (stores list newest first; ties keep store order)."""
    return sorted(reversed(alerts), key=lambda a: a.created or 0.0)


def wins_back(fix: float, regression: float) -> bool:
    """Whether an improvement takes back at least half of a regression (either sign convention:
    magnitudes are relative changes of the measure, whichever way is better)."""
    r, f = regression, fix
    if not (math.isfinite(r) and math.isfinite(f)) or r == 0:
        return False
    combined = (1 + r) * (1 + f) - 1
    return abs(combined) <= abs(r) / 2 or (combined > 0) != (r > 0)


class Change(Protocol):
    direction: str
    magnitude: float


def undoing(changes: Sequence[Change]) -> dict[int, int]:
    """One series' changes in order (alerts, change points): each regression's position -> the
    position of the first later improvement that wins back at least half of it."""
    found: dict[int, int] = {}
    for i, change in enumerate(changes):
        if change.direction == "regression":
            fix = next((j for j in range(i + 1, len(changes)) if changes[j].direction == "improvement"
                        and wins_back(changes[j].magnitude, change.magnitude)), None)
            if fix is not None:
                found[i] = fix
    return found


def undone_by(alerts: list[Alert]) -> dict[str, Alert]:
    """Each regression's id -> the first later improvement of its series that undoes it, or else,
    for a regression whose series ``detect`` saw go back (:data:`WENT_BACK`), that way back as an
    alert of its own would say it (:func:`way_back_alert`: no id, kind :data:`WAY_BACK`)."""
    by_series: dict[tuple[str, str, str, str], list[Alert]] = {}
    for alert in oldest_first(alerts):
        by_series.setdefault(series_of(alert), []).append(alert)
    fixes = {changes[i].id: changes[j] for changes in by_series.values() for i, j in undoing(changes).items()}
    for alert in alerts:
        back = way_back_alert(alert) if alert.id not in fixes else None
        if back is not None:
            fixes[alert.id] = back
    return fixes


# A regression alert's detail, set by ``detect`` when the runs since its first commit went back
# (``perfgate.detect.way_back``): a change point's instead of marking it unfound (a reverted
# regression is a bump, which a search of the whole history can find neither edge of), a threshold
# streak's once its newest value is back within the limit (a streak over is not by itself undone;
# a series gone back to the level before it is).  ``{"commit", "previous_commit",
# "commit_range", "magnitude", "ci_low", "ci_high", "p_value", "found_at"}``: the first run back,
# the run before it, the runs it could be, the way back's size (a relative change) with its
# interval and p-value for the splits searched, and the newest commit of the analysis that saw it.
WENT_BACK = "went_back"
WAY_BACK = "way_back"       # the kind of the stand-in alert :func:`undone_by` gives for it


def went_back(a) -> dict | None:
    """:data:`WENT_BACK` of a change point or threshold regression, when well formed; else None."""
    back = ((a.details or {}).get(WENT_BACK) if a.kind in ("change_point", "threshold") and a.direction == "regression"
            else None)
    ok = (isinstance(back, dict) and isinstance(back.get("commit"), str)
          and all(isinstance(back.get(k), (int, float)) for k in ("magnitude", "ci_low", "ci_high", "p_value")))
    return back if ok else None


def way_back_alert(a: Alert) -> Alert | None:
    """The way back of a regression whose series went back (:data:`WENT_BACK`), as the improvement
    alert that would have undone it: what notify, ``alerts`` and the pages show an undoing by."""
    back = went_back(a)
    if back is None:
        return None
    rng = back.get("commit_range")
    return Alert(a.branch, a.testbed, a.benchmark, a.measure, back["commit"], "improvement", back["magnitude"],
                 back["ci_low"], back["ci_high"], back["p_value"], kind=WAY_BACK,
                 previous_commit=back.get("previous_commit") if isinstance(back.get("previous_commit"), str) else "",
                 commit_range=tuple(c for c in rng if isinstance(c, str)) if isinstance(rng, list) else (),
                 # its interval's level (the series' change point confidence), read as any alert's
                 # (``units.ci_level``: one that is no level says "CI" alone)
                 created=a.created, details={"ci_level": back.get("confidence")})


def ended_at(a) -> str:
    """The run that ended a threshold alert's streak, when ``detect`` saw it end in the runs it
    judged at once (a backfill); '' for a streak it alerted on as the newest runs."""
    ended = (a.details or {}).get("ended_at") if a.kind == "threshold" else None
    return ended if isinstance(ended, str) else ""


# A change point alert's detail, set by ``detect``: the newest commit of the analysis that withdrew
# it, when its change had gone unfound for :data:`WITHDRAW_AFTER_RUNS` runs (more runs can withdraw a
# weak change point), or at once when the runs that showed it were deleted.
WITHDRAWN_AT = "withdrawn_at"


def withdrawn_at(a) -> str:
    """The commit at which ``detect`` no longer found a change point alert's change ('' while it
    is still found): closed as an undone regression is (notify, pages), though still active."""
    withdrawn = (a.details or {}).get(WITHDRAWN_AT) if a.kind == "change_point" else None
    return withdrawn if isinstance(withdrawn, str) else ""


# A change point alert's detail, set by ``detect`` when an analysis finds a withdrawn change again:
# each time, ``{"withdrawn_at": ..., "found_at": ...}`` (the newest commit of the analysis that
# found it again), oldest first, so that ``notify`` reopens what it closed, once per time.
REOPENED = "reopened"


def reopenings(a) -> list[dict[str, str]]:
    """Each time a change point alert was withdrawn and found again, oldest first
    (:data:`REOPENED`); entries of another shape are left out."""
    found = (a.details or {}).get(REOPENED) if a.kind == "change_point" else None
    return [r for r in found if isinstance(r, dict) and isinstance(r.get("withdrawn_at"), str)
            and isinstance(r.get("found_at"), str)] if isinstance(found, list) else []


# A change point alert's detail, set by ``detect`` while its change goes unfound:
# ``{"commit": ..., "runs": ...}``, the newest commit and run count of the first analysis of its
# series that did not find it.  The alert is withdrawn only once :data:`WITHDRAW_AFTER_RUNS` runs
# have come since and none found it again: a weak change's p-value hovers about the bar as runs
# arrive, and an alert withdrawn at its first miss closed and reopened its issue again and again
# (``bench/alert_flaps.py``: 54 closes of 67 alerts at first, 16 after 10 runs).
UNFOUND_SINCE = "unfound_since"
WITHDRAW_AFTER_RUNS = 10


class Analysed(NamedTuple):
    """What a detect's analysis of one series says of it: its newest commit, how many runs it has,
    and whether its newest value is past its threshold test's limit on a regression's side (a
    threshold regression's streak not over)."""

    commit: str
    runs: int
    past_limit: bool = False


def unfound_since(a) -> dict | None:
    """:data:`UNFOUND_SINCE` of a change point alert whose change the latest analyses do not find
    (kept once it is withdrawn; None while it is found)."""
    since = (a.details or {}).get(UNFOUND_SINCE) if a.kind == "change_point" else None
    ok = isinstance(since, dict) and isinstance(since.get("commit"), str) and isinstance(since.get("runs"), int)
    return since if ok else None


def withdrawals(stored: list[Alert], found: list[Alert], newest: dict[tuple[str, str, str, str], Analysed],
                runs_gone: Callable[[Alert], bool] = lambda a: False,
                way_back: Callable[[Alert], dict | None] = lambda a: None) -> list[Alert]:
    """The ``stored`` change point alerts whose details a detect changes: those of the series it
    analysed (``newest``) that none of its change points (``found``: their alerts) is — one whose
    range shares a commit with an alert's is that change, as ``record_alerts`` matches them — are
    marked unfound, and withdrawn once :data:`WITHDRAW_AFTER_RUNS` runs have come since with none
    finding it, or at once when its own runs are gone (``runs_gone``: deleted by ``perfgate
    forget``); one found again before that is simply found; a withdrawn one found again is not
    withdrawn any more (and says when: :data:`REOPENED`).  A regression a later change undid is
    closed as undone.  A regression not found whose series went back (``way_back``: its
    :data:`WENT_BACK`, or None) by at least half of it is closed as undone there instead; so is an
    active threshold regression of those series whose streak is over (the newest value is not past
    the limit, :attr:`Analysed.past_limit`) and whose series went back: the end of a streak alone
    closes nothing, a noisy level dips back within its limit now and then."""
    fixes = undone_by(stored)
    again = [f for f in found if f.kind == "change_point"]
    changed = []
    for a in stored:
        if series_of(a) not in newest or a.id in fixes:
            continue
        if a.kind == "threshold":
            if _went_back_from_streak(a, newest[series_of(a)], way_back):
                changed.append(a)
            continue
        if a.kind != "change_point":
            continue
        now = newest[series_of(a)]
        is_found, was, since = any(f.same_regression(a) for f in again), withdrawn_at(a), unfound_since(a)
        if is_found and (was or since):
            a.details = {k: v for k, v in a.details.items() if k not in (WITHDRAWN_AT, UNFOUND_SINCE)}
            if was and a.status == "active":    # an acknowledged one stays closed: nothing to reopen
                a.details[REOPENED] = [*reopenings(a), {WITHDRAWN_AT: was, "found_at": now.commit}]
        elif not is_found and not was and a.status == "active":
            back = way_back(a) if a.direction == "regression" else None
            if back is not None and wins_back(back["magnitude"], a.magnitude):
                a.details = {**{k: v for k, v in a.details.items() if k != UNFOUND_SINCE}, WENT_BACK: back}
                changed.append(a)
                continue
            first_miss, since = since is None, since or {"commit": now.commit, "runs": now.runs}
            if now.runs - since["runs"] >= WITHDRAW_AFTER_RUNS or runs_gone(a):
                a.details = {**a.details, UNFOUND_SINCE: since, WITHDRAWN_AT: now.commit}
            elif first_miss:
                a.details = {**a.details, UNFOUND_SINCE: since}
            else:
                continue
        else:
            continue
        changed.append(a)
    return changed


def _went_back_from_streak(a: Alert, now: Analysed, way_back: Callable[[Alert], dict | None]) -> bool:
    """Whether the threshold alert ``a`` is a regression still open whose streak is over and whose
    series went back by at least half of it; it is then marked (:data:`WENT_BACK`).  Tested only
    then: the way back reads the whole series, and a streak still on has not gone back."""
    if a.direction != "regression" or a.status != "active" or ended_at(a) or now.past_limit:
        return False
    back = way_back(a)
    if back is None or not wins_back(back["magnitude"], a.magnitude):
        return False
    a.details = {**a.details, WENT_BACK: back}
    return True


def closed(a: Alert, fixes: dict[str, Alert]) -> bool:
    """An alert notify has closed for good, or never opened: an improvement (good news) or a
    regression a later change undid, or its series went back from (``fixes``: :func:`undone_by`).  Not a change point no longer
    found (found again, notify reopens it), nor a threshold streak that ended (its issue stays
    open: a streak over is not a regression undone)."""
    return a.direction != "regression" or a.id in fixes


def still_open(a: Alert, fixes: dict[str, Alert]) -> bool:
    """A regression still there, as notify leaves its issue open: active, not undone by a later
    improvement (``fixes``: :func:`undone_by`), not a threshold streak a later run ended, not a
    change point the runs since no longer show.  An open improvement alert is good news, not one."""
    return (a.status == "active" and a.direction == "regression" and a.id not in fixes
            and not ended_at(a) and not withdrawn_at(a))
