"""Alerts read as a history: their order, their series, and which regressions a later
improvement undid.  Pure; ``notify`` (when to close an issue), ``alerts`` and the trend pages
(what to call a series) all answer "is this regression still there?" by the same rule."""

from __future__ import annotations

import math
from typing import Protocol, Sequence

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
    """Each regression's id -> the first later improvement of its series that undoes it."""
    by_series: dict[tuple[str, str, str, str], list[Alert]] = {}
    for alert in oldest_first(alerts):
        by_series.setdefault(series_of(alert), []).append(alert)
    return {changes[i].id: changes[j] for changes in by_series.values() for i, j in undoing(changes).items()}


def ended_at(a) -> str:
    """The run that ended a threshold alert's streak, when ``detect`` saw it end in the runs it
    judged at once (a backfill); '' for a streak it alerted on as the newest runs."""
    ended = (a.details or {}).get("ended_at") if a.kind == "threshold" else None
    return ended if isinstance(ended, str) else ""
