"""perfgate runs as ``POST /v0/run`` bodies (schema ``JsonNewRun`` in Bencher's openapi.json).

* ``results``: one BMF document (JSON text) with ``settings.adapter = "json"``.
* ``testbed``: the perfgate testbed name (it is derived from the testbed fingerprint).
* ``idempotency_key``: a UUID (the API's format) derived from the project and the run's own
  idempotency key with UUIDv5, so every resend of one run carries the same key and the server
  returns the existing report instead of creating a second one.
* ``start_point``: for pull-request branches (base branch, hash, clone thresholds, reset).
* ``thresholds.models``: perfgate's per-measure threshold tests from ``thresholds/``.  Bencher
  thresholds are per (branch, testbed, measure), so per-benchmark overrides cannot be sent.
"""

from __future__ import annotations

import json
import re
import time
import uuid
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from perfgate.adapters.bmf import to_bmf
from perfgate.errors import InputError
from perfgate.model import Run

# Fixed namespace: the same (project, key) gives the same UUID on every machine, forever.
KEY_NAMESPACE = uuid.UUID("6f2d7c1e-2b51-5a0c-9d8e-7a3f0c4b9e21")
THRESHOLD_FIELDS = ("min_sample_size", "max_sample_size", "window", "lower_boundary", "upper_boundary")


@dataclass(frozen=True)
class StartPoint:
    """Where a new (pull-request) branch starts: ``JsonUpdateStartPoint``."""

    branch: str | None = None
    hash: str | None = None
    clone_thresholds: bool | None = None
    reset: bool | None = None
    max_versions: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if v is not None}

    def applies_to(self, branch: str) -> bool:
        """A branch is never its own start point (publishing ``main`` with ``--start-point-branch
        main`` just records on main)."""
        return bool(self.to_json()) and self.branch != branch


def idempotency_uuid(project: str, key: str) -> str:
    return str(uuid.uuid5(KEY_NAMESPACE, f"{project}\x00{key}"))


def iso_time(epoch: float | None) -> str:
    t = time.time() if epoch is None else epoch
    return datetime.fromtimestamp(t, timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def threshold_model(test: Any) -> dict[str, Any]:
    """A ``thresholds.ThresholdTest`` as Bencher's ``Model``."""
    model: dict[str, Any] = {"test": test.test}
    for name in THRESHOLD_FIELDS:
        value = getattr(test, name, None)
        if value is not None:
            model[name] = value
    return model


def threshold_models(thresholds: Any, measures: set[str]) -> dict[str, dict[str, Any]]:
    """Models for the measures this run carries (others would create empty measures on the server)."""
    if thresholds is None:
        return {}
    return {name: threshold_model(test) for name, test in sorted(thresholds.measure_tests().items())
            if name in measures and test is not None}


def measure_slug(name: str) -> str:
    """A measure's name as Bencher tells measures apart: case and punctuation aside."""
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def _measures_apart(run: Run) -> None:
    """Refuse a run two of whose measures of one benchmark Bencher would take for one: `latency`
    and `Latency` became two points of one series, from one run (an audit), and detect then read
    the alternating values as noise or a change."""
    seen: dict[tuple[str, str], str] = {}
    for m in run.metrics:
        other = seen.setdefault((m.benchmark, measure_slug(m.measure)), m.measure)
        if other != m.measure:
            raise InputError(f"run of {run.branch}@{run.commit[:12]}", f"benchmark {m.benchmark!r}",
                             f"measures {other!r} and {m.measure!r} are one measure to Bencher, which tells measures "
                             "apart by case-folded slug: rename one (nothing was published)")


def new_run(run: Run, project: str, *, start_point: StartPoint | None = None,
            thresholds: Any = None) -> dict[str, Any]:
    """The ``JsonNewRun`` body for ``run`` in Bencher project ``project`` (slug or UUID)."""
    run.with_key()
    _measures_apart(run)
    body: dict[str, Any] = {
        "project": project,
        "branch": run.branch,
        "hash": run.commit,
        "testbed": run.testbed.name,
        "start_time": iso_time(run.start_time),
        "end_time": iso_time(run.end_time if run.end_time is not None else run.start_time),
        "results": [json.dumps(to_bmf(run), sort_keys=True)],
        "settings": {"adapter": "json"},
        "idempotency_key": idempotency_uuid(project, run.idempotency_key),
    }
    if start_point is not None and start_point.applies_to(run.branch):
        body["start_point"] = start_point.to_json()
    models = threshold_models(thresholds, {m.measure for m in run.metrics})
    if models:
        body["thresholds"] = {"models": models}
    return body
