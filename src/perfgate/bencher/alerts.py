"""Bencher's threshold alerts as perfgate verdicts.

Each carries the effect size, ``value / baseline - 1`` (relative change against the threshold
model's baseline), and a confidence: for the statistical tests (z_score, t_test, log_normal)
Bencher's boundary *is* a confidence level (the percentile beyond which a value is an alert);
static, percentage and IQR tests have no probabilistic reading, so their confidence is None.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from perfgate.model import Alert

PROBABILISTIC_TESTS = {"z_score", "t_test", "log_normal"}


@dataclass(frozen=True)
class BencherAlert:
    uuid: str
    report: str
    benchmark: str
    measure: str
    limit: str                 # "upper" | "lower": which boundary the value crossed
    value: float
    baseline: float | None
    lower_limit: float | None
    upper_limit: float | None
    test: str | None
    effect: float | None       # value / baseline - 1
    confidence: float | None
    status: str
    branch: str = ""
    testbed: str = ""

    def describe(self) -> str:
        """One line a person can place: the series (a publish of many runs prints several), the
        value and limit in the measure's units, and the model's boundary, which is a setting of the
        threshold, not a confidence measured on this value."""
        from perfgate.units import human

        effect = f"{self.effect * 100:+.1f}%" if self.effect is not None else "effect unknown"
        boundary = f", the model's {self.confidence:.3g} boundary" if self.confidence is not None else ""
        bound = self.upper_limit if self.limit == "upper" else self.lower_limit
        where = f" on {self.branch}@{self.testbed}" if self.branch else ""
        return (f"Bencher alert: {self.benchmark} [{self.measure}]{where}: {human(self.value, self.measure)} crossed "
                f"the {self.limit} limit {human(bound, self.measure) if bound is not None else '?'} "
                f"({self.test or '?'} test{boundary}; {effect})")


def from_json(alert: dict[str, Any]) -> BencherAlert:
    """A ``JsonAlert`` as returned in a report's ``alerts``.  The measure is named as perfgate
    names Bencher's measures (``Latency`` is ``latency``; see ``bootstrap.measure_name``)."""
    from perfgate.bencher.client import require_uuid
    from perfgate.bencher.bootstrap import measure_name

    boundary = alert.get("boundary") or {}
    threshold = alert.get("threshold") or {}
    model = threshold.get("model") or {}
    value = float(alert["metric"]["value"])
    baseline = boundary.get("baseline")
    effect = value / baseline - 1 if baseline else None
    test = model.get("test")
    limit = alert["limit"]
    confidence = None
    if test in PROBABILISTIC_TESTS:
        confidence = model.get("upper_boundary" if limit == "upper" else "lower_boundary")
    measure = threshold.get("measure") or {}
    if limit not in ("lower", "upper"):
        raise ValueError("limit")
    return BencherAlert(uuid=require_uuid(alert["uuid"], "an alert an id"),
                        report=require_uuid(alert["report"], "an alert's report an id"),
                        benchmark=alert["benchmark"]["name"],
                        measure=measure_name(measure), limit=limit, value=value,
                        baseline=baseline, lower_limit=boundary.get("lower_limit"),
                        upper_limit=boundary.get("upper_limit"), test=test, effect=effect,
                        confidence=confidence, status=alert.get("status", "active"),
                        branch=str((threshold.get("branch") or {}).get("name", "")),
                        testbed=str((threshold.get("testbed") or {}).get("name", "")))


def as_perfgate_alert(alert: dict[str, Any], commit: str) -> "Alert":
    """A ``JsonAlert`` as perfgate's :class:`~perfgate.model.Alert` (kind ``threshold``).
    Bencher's ``dismissed``/``silenced`` read as perfgate's ``acknowledged``."""
    from datetime import datetime

    from perfgate.model import Alert, Measure

    found = from_json(alert)
    threshold = alert.get("threshold") or {}
    magnitude = found.effect if found.effect is not None else 0.0
    # Crossing the upper limit is worse for a cost (latency), better for a rate (throughput).
    worse = (found.limit == "upper") == Measure.named(found.measure).lower_is_better
    return Alert(
        branch=(threshold.get("branch") or {}).get("name", ""), testbed=(threshold.get("testbed") or {}).get("name", ""),
        benchmark=found.benchmark, measure=found.measure, commit=commit,
        direction="regression" if worse else "improvement", magnitude=magnitude, kind="threshold",
        details={"source": "bencher", "test": found.test, "limit": found.limit, "value": found.value,
                 "baseline": found.baseline, "lower_limit": found.lower_limit, "upper_limit": found.upper_limit,
                 "confidence": found.confidence, "report": found.report},
        id=found.uuid, status="active" if found.status == "active" else "acknowledged",
        created=datetime.fromisoformat(alert["created"]).timestamp())
