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

    def describe(self) -> str:
        effect = f"{self.effect * 100:+.1f}%" if self.effect is not None else "effect unknown"
        conf = f", confidence {self.confidence:.3g}" if self.confidence is not None else ""
        bound = self.upper_limit if self.limit == "upper" else self.lower_limit
        bound_text = f"{bound:g}" if bound is not None else "?"
        return (f"Bencher alert: {self.benchmark} [{self.measure}] {self.value:g} crossed the {self.limit} "
                f"limit {bound_text} ({self.test or '?'} test; {effect}{conf})")


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
                        confidence=confidence, status=alert.get("status", "active"))


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
