"""A Bencher project as a perfgate history store: ``--store bencher+http(s)://HOST[:PORT]/PROJECT``.

Writes publish each run with ``POST /v0/run`` (see :mod:`perfgate.bencher.publisher`: in order,
exactly once, spooled to disk when the server is unreachable).  Reads go through
``GET /v0/projects/{project}/perf``, which answers at most 255 (branch, testbed, benchmark,
measure) combinations per request and silently drops the rest, so queries are cut into pieces
that stay under that limit.  Bencher keeps value/lower/upper only: points carry no raw samples,
and testbeds carry no fingerprint beyond their name.

The token comes from ``BENCHER_API_TOKEN`` and is never printed.
"""

from __future__ import annotations

import hashlib
import os
from datetime import datetime
from itertools import product
from typing import Any, Iterable
from urllib.parse import urlsplit

from perfgate.bencher.alert_memory import AlertMemory, memory_error
from perfgate.bencher.alerts import BencherAlert, as_perfgate_alert
from perfgate.bencher.client import BencherClient, BencherRejected
from perfgate.bencher.payload import StartPoint, new_run
from perfgate.bencher.publisher import FlushResult, Outcome, Publisher
from perfgate.bencher.redact import Secret
from perfgate.bencher.spool import Spool
from perfgate.errors import PerfgateError, StoreError
from perfgate.model import Alert, Metric, Run, Testbed
from perfgate.store import register_scheme
from perfgate.store.base import Point, RunSummary, SeriesKey, Store

PERF_LIMIT = 255  # combinations the perf endpoint answers per request
DEFAULT_THRESHOLDS = object()  # "read thresholds/ when first needed"
_DIMENSIONS = ("branches", "testbeds", "benchmarks", "measures")


def parse_spec(spec: str) -> tuple[str, str]:
    """``bencher+https://host:port/prefix/PROJECT`` -> (``https://host:port/prefix``, ``PROJECT``)."""
    url = spec.removeprefix("bencher+")
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise PerfgateError(f"--store {spec!r}: expected bencher+http(s)://HOST[:PORT]/PROJECT")
    if parts.username or parts.password:
        raise PerfgateError("--store: put the Bencher token in BENCHER_API_TOKEN, not in the URL")
    path = parts.path.rstrip("/")
    prefix, _, project = path.rpartition("/")
    if not project:
        raise PerfgateError(f"--store {spec!r}: the URL must end with the Bencher project slug")
    return f"{parts.scheme}://{parts.netloc}{prefix}", project


def epoch(text: str | None) -> float | None:
    return datetime.fromisoformat(text).timestamp() if text else None


class BencherStore(Store):
    def __init__(self, base_url: str, project: str, token: Secret | str | None = None, *,
                 spool: Spool | None = None, client: BencherClient | None = None,
                 thresholds: Any = DEFAULT_THRESHOLDS, start_point: StartPoint | None = None):
        self.project = project
        self.client = client or BencherClient(base_url, token)
        self.publisher = Publisher(self.client, project, spool or Spool())
        self._thresholds = thresholds
        self.start_point = start_point
        self.last_outcomes: list[Outcome] = []
        self.last_flush: FlushResult | None = None
        self._dims: dict[str, list[dict]] | None = None
        # Perf rows fetched by series_keys(), reused by series(): history is read once, not twice.
        self._rows: dict[SeriesKey, list[dict]] = {}
        target = self.publisher.target.encode()
        self.memory = AlertMemory(self.publisher.spool.dir / "alerts" / f"{hashlib.sha1(target).hexdigest()[:12]}.json")

    def __repr__(self) -> str:
        return f"BencherStore({self.client.base_url!r}, {self.project!r})"

    @property
    def thresholds(self) -> Any:
        if self._thresholds is DEFAULT_THRESHOLDS:
            from perfgate.thresholds import load_thresholds

            self._thresholds = load_thresholds(None)
        return self._thresholds

    @thresholds.setter
    def thresholds(self, value: Any) -> None:
        self._thresholds = value

    # --- writes --------------------------------------------------------------------------------

    def add_runs(self, runs: Iterable[Run]) -> list[bool]:
        """Publish in order.  True for every run: each is now on the server or in the spool
        (``last_outcomes`` tells which, with the alerts Bencher raised).  A run already on the
        server is not duplicated: the server answers its idempotency key with the stored report."""
        bodies = [new_run(r, self.project, start_point=self.start_point, thresholds=self.thresholds) for r in runs]
        self.last_outcomes, self.last_flush = self.publisher.publish(bodies)
        self._forget()
        return [True] * len(bodies)

    def flush(self) -> FlushResult:
        self.last_flush = self.publisher.flush()
        self._forget()
        return self.last_flush

    def _forget(self) -> None:
        self._dims, self._rows = None, {}

    @property
    def last_alerts(self) -> list[BencherAlert]:
        return [a for o in self.last_outcomes for a in o.alerts]

    # --- reads ---------------------------------------------------------------------------------

    def _dimensions(self) -> dict[str, list[dict]]:
        if self._dims is None:
            base = f"/v0/projects/{self.project}"
            try:
                self._dims = {d: self.client.list_all(f"{base}/{d}") for d in _DIMENSIONS}
            except BencherRejected as e:
                if e.status == 404:
                    raise StoreError(f"no Bencher project {self.project!r} at {self.client.base_url}") from None
                raise
        return self._dims

    def _pick(self, dimension: str, name: str | None) -> list[dict]:
        items = self._dimensions()[dimension]
        return [i for i in items if name is None or i["name"] == name]

    def _perf(self, branches: list[dict], testbeds: list[dict], benchmarks: list[dict],
              measures: list[dict]) -> list[dict]:
        """Every perf result for the cross product, asked in pieces of at most 255 combinations."""
        results: list[dict] = []
        if not (branches and testbeds and benchmarks and measures):
            return results
        # One (branch, testbed) pair a request; benchmarks x measures cut to fit the limit.
        measure_chunks = _chunks(measures, PERF_LIMIT)
        for br, tb in product(branches, testbeds):
            for ms in measure_chunks:
                for bm in _chunks(benchmarks, max(1, PERF_LIMIT // len(ms))):
                    doc = self.client.request("GET", f"/v0/projects/{self.project}/perf", params={
                        "branches": br["uuid"], "testbeds": tb["uuid"],
                        "benchmarks": ",".join(b["uuid"] for b in bm),
                        "measures": ",".join(m["uuid"] for m in ms)})
                    results.extend(doc["results"])
        return results

    def series_keys(self, *, branch=None, testbed=None, benchmark=None, measure=None) -> list[SeriesKey]:
        found = self._perf(self._pick("branches", branch), self._pick("testbeds", testbed),
                           self._pick("benchmarks", benchmark), self._pick("measures", measure))
        for r in found:
            if r["metrics"]:
                key = SeriesKey(r["branch"]["name"], r["testbed"]["name"], r["benchmark"]["name"], r["measure"]["name"])
                self._rows[key] = r["metrics"]
        return sorted({SeriesKey(r["branch"]["name"], r["testbed"]["name"], r["benchmark"]["name"],
                                 r["measure"]["name"]) for r in found if r["metrics"]})

    def series(self, key: SeriesKey) -> list[Point]:
        rows = self._rows.get(key)
        if rows is None:
            found = self._perf(self._pick("branches", key.branch), self._pick("testbeds", key.testbed),
                               self._pick("benchmarks", key.benchmark), self._pick("measures", key.measure))
            rows = [m for r in found for m in r["metrics"]]
        rows = list(rows)
        rows.sort(key=lambda m: (m["start_time"], m["version"]["number"], m["iteration"]))
        return [Point(m["report"], m["version"].get("hash") or "", epoch(m["start_time"]), m["metric"]["value"],
                      m["metric"].get("lower_value"), m["metric"].get("upper_value"))
                for m in rows]

    def runs(self, *, branch=None, limit=None) -> list[RunSummary]:
        params: dict[str, Any] = {"sort": "date_time", "direction": "desc"}
        if branch is not None:
            params["branch"] = branch
        out: list[RunSummary] = []
        pages = self.client.iter_pages(f"/v0/projects/{self.project}/reports", params, per_page=limit or 255)
        for report in pages:
            if limit is not None and len(out) >= limit:
                break
            summary = self._summary(report)
            if branch is None or summary.branch == branch:
                out.append(summary)
        return out

    def _summary(self, report: dict) -> RunSummary:
        if report.get("results") is not None:
            n = sum(len(r["measures"]) for iteration in report["results"] for r in iteration)
        else:  # the list endpoint may leave results out: an upper bound from the counts
            n = sum(c["benchmarks"] * c["measures"] for c in (report.get("counts") or {}).get("results") or [])
        return RunSummary(report["uuid"], report["branch"]["name"], _hash(report), report["testbed"]["name"],
                          epoch(report["start_time"]), report["adapter"], n)

    def get_run(self, run_id: str) -> Run:
        try:
            report = self.client.request("GET", f"/v0/projects/{self.project}/reports/{run_id}")
        except BencherRejected as e:
            if e.status in (400, 404):
                raise StoreError(f"no run {run_id!r} in Bencher project {self.project!r}: {e.server_message}") from None
            raise
        metrics = [Metric(r["benchmark"]["name"], m["measure"]["name"], m["metric"]["value"],
                          m["metric"].get("lower_value"), m["metric"].get("upper_value"))
                   for iteration in report.get("results") or [] for r in iteration for m in r["measures"]]
        metrics.sort(key=lambda m: (m.benchmark, m.measure))
        return Run(self.project, report["branch"]["name"], _hash(report), Testbed(report["testbed"]["name"]),
                   metrics, epoch(report["start_time"]), epoch(report["end_time"]), report["adapter"])

    def testbed_fingerprint(self, name: str) -> dict[str, Any]:
        return {}

    # --- alerts: Bencher's threshold alerts, plus perfgate's change point alerts kept locally --

    def record_alerts(self, alerts: list[Alert]) -> list[Alert]:
        """perfgate's own alerts go to this machine's alert memory (Bencher cannot store them)."""
        return self.memory.record(alerts)

    def alerts(self, status: str | None = None) -> list[Alert]:
        """Locally remembered change point alerts and the Bencher project's threshold alerts,
        newest first."""
        found = self.memory.load()
        commits: dict[str, str] = {}
        for raw in self.client.list_all(f"/v0/projects/{self.project}/alerts"):
            if raw["report"] not in commits:
                commits[raw["report"]] = self.get_run(raw["report"]).commit
            found.append(as_perfgate_alert(raw, commits[raw["report"]]))
        found = [a for a in found if status is None or a.status == status]
        return sorted(found, key=lambda a: a.created or 0.0, reverse=True)

    def acknowledge(self, alert_id: str) -> Alert:
        """A local alert is marked acknowledged; a Bencher alert is dismissed on the server."""
        local = self.memory.acknowledge(alert_id)
        if local is not None:
            return local
        try:
            raw = self.client.request("PATCH", f"/v0/projects/{self.project}/alerts/{alert_id}",
                                      json={"status": "dismissed"})
        except BencherRejected as e:
            if e.status in (400, 404):
                raise memory_error(alert_id, self.project) from None
            raise
        return as_perfgate_alert(raw, self.get_run(raw["report"]).commit)

    def update_alert(self, alert: Alert) -> Alert:
        """Only perfgate's own (remembered) alerts can be narrowed; Bencher's are the server's."""
        updated = self.memory.update(alert)
        if updated is None:
            raise memory_error(alert.id, self.project)
        return updated

    def close(self) -> None:
        self.client.close()


def _hash(report: dict) -> str:
    version = (report["branch"].get("head") or {}).get("version") or {}
    return version.get("hash") or ""


def _chunks(items: list[dict], size: int) -> list[list[dict]]:
    return [items[i:i + size] for i in range(0, len(items), size)]


def _factory(spec: str, project: str) -> Store:
    base_url, slug = parse_spec(spec)
    return BencherStore(base_url, slug, Secret(os.environ.get("BENCHER_API_TOKEN")))


register_scheme("bencher+", _factory)
