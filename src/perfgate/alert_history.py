"""Alerts read as a history: their order, their series, and which regressions a later
improvement undid.  Pure; ``notify`` (when to close an issue), ``alerts`` and the trend pages
(what to call a series) all answer "is this regression still there?" by the same rule."""

from __future__ import annotations

import math

from perfgate.model import Alert


def series_of(alert: Alert) -> tuple[str, str, str, str]:
    return alert.branch, alert.testbed, alert.benchmark, alert.measure


def oldest_first(alerts: list[Alert]) -> list[Alert]:
    """Alerts in the order they were raised (stores list newest first; ties keep store order)."""
    return sorted(reversed(alerts), key=lambda a: a.created or 0.0)


def undoes(fix: Alert, regression: Alert) -> bool:
    """Whether an improvement takes back at least half of a regression (either sign convention:
    magnitudes are relative changes of the measure, whichever way is better)."""
    return wins_back(fix.magnitude, regression.magnitude)


def wins_back(fix: float, regression: float) -> bool:
    """``undoes`` on two relative changes (a change point's as much as an alert's)."""
    r, f = regression, fix
    if not (math.isfinite(r) and math.isfinite(f)) or r == 0:
        return False
    combined = (1 + r) * (1 + f) - 1
    return abs(combined) <= abs(r) / 2 or (combined > 0) != (r > 0)


def undone_by(alerts: list[Alert]) -> dict[str, Alert]:
    """Each regression's id -> the first later improvement of its series that undoes it."""
    ordered = oldest_first(alerts)
    found: dict[str, Alert] = {}
    for i, alert in enumerate(ordered):
        if alert.direction != "regression":
            continue
        later = [b for b in ordered[i + 1:] if series_of(b) == series_of(alert)]
        fix = next((b for b in later if b.direction == "improvement" and undoes(b, alert)), None)
        if fix is not None:
            found[alert.id] = fix
    return found
