"""A Bencher project as a perfgate history store: ``--store bencher+http(s)://HOST[:PORT]/PROJECT``.

Writes publish each run with ``POST /v0/run`` (see :mod:`perfgate.bencher.publisher`: in order,
exactly once, spooled to disk when the server is unreachable).  Reads go through
``GET /v0/projects/{project}/perf``, which answers at most 255 (branch, testbed, benchmark,
measure) combinations per request and silently drops the rest, so queries are cut into pieces
that stay under that limit.  Bencher keeps value/lower/upper only: points carry no raw samples,
and testbeds carry no fingerprint beyond their name.  Measures are named by their Bencher *slug*
(``latency`` for the built-in ``Latency``), the key BMF results are filed under, so perfgate's
thresholds and measure facts apply to what is read back.  An answer that is not shaped as the
API says is a clear error (:class:`~perfgate.bencher.client.BencherShapeError`), never a traceback.

The token comes from ``BENCHER_API_TOKEN`` and is never printed.
"""

from __future__ import annotations

import hashlib
import os
from datetime import datetime
from itertools import product
from typing import Any, Iterable, Sequence

from perfgate.bencher.alert_memory import AlertMemory, memory_error
from perfgate.bencher.alerts import BencherAlert, as_perfgate_alert
from perfgate.bencher.bootstrap import find_measure, measure_name
from perfgate.bencher.client import (MAX_PER_PAGE, BencherClient, BencherRejected, BencherShapeError,
                                     BencherUnreachable, shaped)
from perfgate.bencher.payload import StartPoint, new_run
from perfgate.bencher.publisher import FlushResult, Outcome, Publisher
from perfgate.bencher.redact import Secret
from perfgate.bencher.spool import Spool
from perfgate.check_branches import is_check_branch
from perfgate.errors import PerfgateError, StoreError
from perfgate.model import KNOWN_MEASURES, Alert, Forgotten, Metric, Run, Testbed
from perfgate.store import register_scheme
from perfgate.urls import quoted, split_url
from perfgate.store.base import Point, RunSummary, SeriesKey, Store

PERF_LIMIT = 255  # combinations the perf endpoint answers per request
# Reports a page when listed with their results (expand=true): some 0.7 KB a metric, so 32
# reports of 2,500 metrics each stay near 52 MiB, under the client's 64 MiB answer bound.
EXPANDED_PAGE = 32
DEFAULT_THRESHOLDS = object()  # "read thresholds/ when first needed"
_DIMENSIONS = ("branches", "testbeds", "benchmarks", "measures")


def parse_spec(spec: str, option: str = "--store") -> tuple[str, str]:
    """``bencher+https://host:port/prefix/PROJECT`` -> (``https://host:port/prefix``, ``PROJECT``);
    ``option`` is the one that gave it, named in errors (``--store``, or publish's ``--to``)."""
    url = spec.removeprefix("bencher+")
    if not spec.startswith("bencher+"):
        raise PerfgateError(f"{option}: expected bencher+http(s)://HOST[:PORT]/PROJECT")
    parts = split_url(url, option)
    if parts.username or parts.password:
        raise PerfgateError(f"{option}: put the Bencher token in BENCHER_API_TOKEN, not in the URL")
    if parts.query or parts.fragment or url.endswith(("?", "#")):
        # dropped without a word, a '?token=...' made every request go without it
        raise PerfgateError(f"{option}: a Bencher store URL has no query or fragment ('?', '#'); put the token "
                            "in BENCHER_API_TOKEN")
    path = parts.path.rstrip("/")
    prefix, _, project = path.rpartition("/")
    if not project:
        # (quoted without its path and query: a token may be in the query)
        raise PerfgateError(f"{option} {quoted(spec)}: the URL must end with the Bencher project slug")
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
        self._own: dict[str, set[str]] = {}   # branch -> its own reports' ids
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
        """Publish in order.  True for a run now on the server, in the spool or set aside as
        refused (``last_outcomes`` tells which, with the alerts Bencher raised); False for a run
        the server already held: its idempotency key is answered with the stored report."""
        bodies = [new_run(r, self.project, start_point=self.start_point, thresholds=self.thresholds) for r in runs]
        self.last_outcomes, self.last_flush = self.publisher.publish(bodies)
        self._forget()
        return [not o.duplicate for o in self.last_outcomes]

    def flush(self) -> FlushResult:
        self.last_flush = self.publisher.flush()
        self._forget()
        return self.last_flush

    def _forget(self) -> None:
        self._dims, self._rows, self._own = None, {}, {}

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
                if e.status in (400, 404):
                    raise StoreError(f"no Bencher project {self.project!r} at {self.client.base_url} "
                                     f"({e}); check the project slug") from None
                raise
        return self._dims

    def _pick(self, dimension: str, name: str | None) -> list[dict]:
        items = self._dimensions()[dimension]
        if name is None:
            return items
        if dimension == "measures":
            found = find_measure(items, name)
            return [found] if found else []
        return [i for i in items if i["name"] == name]

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
                        "measures": ",".join(m["uuid"] for m in ms)}, expect=dict)
                    for r in doc["results"]:
                        _check_costs(measure_name(r["measure"]), [m["metric"] for m in r["metrics"]],
                                     f"GET /v0/projects/{self.project}/perf")
                    results.extend(doc["results"])
        return results

    @shaped("the perf history")
    def series_keys(self, *, branch=None, testbed=None, benchmark=None, measure=None) -> list[SeriesKey]:
        found = self._perf(self._pick("branches", branch), self._pick("testbeds", testbed),
                           self._pick("benchmarks", benchmark), self._pick("measures", measure))
        keys = set()
        for r in found:
            if r["metrics"]:
                key = SeriesKey(r["branch"]["name"], r["testbed"]["name"], r["benchmark"]["name"],
                                measure_name(r["measure"]))
                self._rows.setdefault(key, []).extend(r["metrics"])
                keys.add(key)
        return sorted(keys)

    @shaped("the perf history")
    def series(self, key: SeriesKey) -> list[Point]:
        rows = self._rows.get(key)
        if rows is None:
            found = self._perf(self._pick("branches", key.branch), self._pick("testbeds", key.testbed),
                               self._pick("benchmarks", key.benchmark), self._pick("measures", key.measure))
            rows = [m for r in found for m in r["metrics"]]
        rows = list(rows)
        rows.sort(key=lambda m: (m["start_time"], m["version"]["number"], m["iteration"]))
        own = self._own_reports(key.branch)
        # Bencher's own verdict on each value rides along: alerts() merges its streaks.  A branch
        # started from another (a pull request's, with --start-point-branch) also holds that
        # branch's history up to its start point: those values are marked, so that a change in
        # them is not raised again as this branch's.
        return [Point(m["report"], m["version"].get("hash") or "", epoch(m["start_time"]), float(m["metric"]["value"]),
                      m["metric"].get("lower_value"), m["metric"].get("upper_value"),
                      attrs={**({"bencher_alert": m["alert"]["limit"]} if m.get("alert") else {}),
                             **({} if m["report"] in own else {"inherited": True})})
                for m in rows]

    def _own_reports(self, branch: str) -> set[str]:
        """The reports made on ``branch`` itself (not those its start point lends it)."""
        if branch not in self._own:
            # Ids only: the light listing (no results) will do, a report left with only archived
            # results adds an id no point carries.
            self._own[branch] = {r.run_id for r in self._runs(branch, None, expand=False)}
        return self._own[branch]

    @shaped("the reports")
    def runs(self, *, branch=None, limit=None) -> list[RunSummary]:
        # expand=true: the list leaves each report's results out otherwise (counts only, per the
        # API), and only the results show which metrics are archived benchmarks'.
        return self._runs(branch, limit, expand=True)

    def _runs(self, branch: str | None, limit: int | None, *, expand: bool) -> list[RunSummary]:
        params: dict[str, Any] = {"sort": "date_time", "direction": "desc"}
        if branch is not None:
            params["branch"] = branch
        if expand:
            params["expand"] = True
        out: list[RunSummary] = []
        per_page = min(limit or MAX_PER_PAGE, EXPANDED_PAGE if expand else MAX_PER_PAGE)
        pages = self.client.iter_pages(f"/v0/projects/{self.project}/reports", params, per_page=per_page)
        for report in pages:
            if limit is not None and len(out) >= limit:
                break
            summary = self._summary(report)
            if report.get("results") and not summary.metrics:
                continue     # every result an archived benchmark's: no run left, as on SQLite
            if branch is None or summary.branch == branch:
                out.append(summary)
        return out

    def _summary(self, report: dict) -> RunSummary:
        if report.get("results") is not None:
            n = sum(len(r["measures"]) for iteration in report["results"] for r in iteration
                    if not r["benchmark"].get("archived"))
        else:  # listed without expand (or by a server that ignores it): an upper bound from the counts
            n = sum(c["benchmarks"] * c["measures"] for c in (report.get("counts") or {}).get("results") or [])
        return RunSummary(report["uuid"], report["branch"]["name"], _hash(report), report["testbed"]["name"],
                          epoch(report["start_time"]), report["adapter"], n)

    @shaped("a report")
    def get_run(self, run_id: str) -> Run:
        """The run less the metrics of archived benchmarks (retired: left out as their series
        are), named by all it holds (its key), so that ``sync --export`` writes no second file
        for a run it wrote before the archive and :meth:`forgotten` names what went."""
        try:
            report = self.client.request("GET", f"/v0/projects/{self.project}/reports/{run_id}", expect=dict)
        except BencherRejected as e:
            if e.status in (400, 404):
                raise StoreError(f"no run {run_id!r} in Bencher project {self.project!r}: {e.server_message}") from None
            raise
        run = self._as_run(report)
        archived = _archived(report)
        if archived:
            run.with_key()
            run.metrics = [m for m in run.metrics if m.benchmark not in archived]
        return run

    def _as_run(self, report: dict) -> Run:
        """Every metric the report holds, archived benchmarks' too."""
        where = f"GET /v0/projects/{self.project}/reports/{report['uuid']}"
        metrics = [Metric(r["benchmark"]["name"], measure_name(m["measure"]), m["metric"]["value"],
                          m["metric"].get("lower_value"), m["metric"].get("upper_value"))
                   for iteration in report.get("results") or [] for r in iteration for m in r["measures"]]
        for m in metrics:
            _check_costs(m.measure, [{"value": m.value}], where)
        metrics.sort(key=lambda m: (m.benchmark, m.measure))
        return Run(self.project, report["branch"]["name"], _hash(report), Testbed(report["testbed"]["name"]),
                   metrics, epoch(report["start_time"]), epoch(report["end_time"]), report["adapter"])

    @shaped("the reports")
    def forgotten(self) -> list[Forgotten]:
        """The metrics of archived benchmarks, as ``forget`` records deleted ones on SQLite: ``sync
        --export`` writes them under forgotten/, so an import leaves them out of a folder that
        already held them (a run left with none goes whole)."""
        found: list[Forgotten] = []
        pages = self.client.iter_pages(f"/v0/projects/{self.project}/reports", {"expand": True}, per_page=EXPANDED_PAGE)
        for report in pages:
            if report.get("results") is None:    # a server that ignores expand
                report = self.client.request("GET", f"/v0/projects/{self.project}/reports/{report['uuid']}",
                                             expect=dict)
            archived = _archived(report)
            if archived:
                found += _archived_records(self._as_run(report).with_key(), archived)
        return found

    def testbed_fingerprint(self, name: str) -> dict[str, Any]:
        return {}

    # Bencher deletes a benchmark only once no report uses it (its API: "All reports that use
    # this benchmark must be deleted first!"); archiving hides it and keeps its data.
    retires_by = "archive"

    def forget_refusal(self, runs: int = 0, retire: bool = False, narrowed: Sequence[str] = ()) -> str | None:
        where = f"Bencher project {self.project!r} at {self.client.base_url}"
        if retire and narrowed:
            return (f"{where}: {', '.join(narrowed)} cannot narrow a retire on a Bencher server: Bencher archives a "
                    "benchmark whole, on every branch, testbed and measure (PATCH /v0/projects/PROJECT/benchmarks/"
                    "BENCHMARK); 'perfgate forget --benchmark NAME' alone archives all of it; nothing was changed")
        if runs > 1:
            # No transaction spans two requests: a failure after the first would leave half of them.
            return (f"{where}: give one --run a call (Bencher deletes report by report, and a failure half way "
                    "would leave some deleted and some not); nothing was deleted")
        return None

    def forget(self, run_ids: Sequence[str], series: Sequence[SeriesKey]) -> list[Forgotten]:
        """Delete the run's report, or archive the retired benchmark, on the server (one request:
        all of it or nothing).  A report already gone (a retry after an answer that was lost) is
        what was asked for; archiving is the same request again.  Nothing is kept here to mark:
        the next ``detect`` reads the history without it."""
        refusal = self.forget_refusal(len(run_ids), bool(series))
        if refusal:
            raise StoreError(refusal)
        try:
            for run_id in run_ids:
                try:
                    # (the id was resolved against this server's reports by forget's plan)
                    self.client.request("DELETE", f"/v0/projects/{self.project}/reports/{run_id}")
                except BencherRejected as e:
                    if e.status != 404:
                        raise StoreError(f"{e}; nothing was deleted") from None
            if series:
                self._archive(series)
        finally:
            self._forget()
        return []

    def _archive(self, series: Sequence[SeriesKey]) -> None:
        """``series`` must be every series of one benchmark: Bencher archives a benchmark whole."""
        names = {key.benchmark for key in series}
        if len(names) != 1:
            raise StoreError(f"Bencher project {self.project!r}: one benchmark a retire (given {len(names)}); "
                             "nothing was changed")
        (name,) = names
        whole = {key for key in self._rows if key.benchmark == name} or set(self.series_keys(benchmark=name))
        left = whole - set(series)
        if left:
            raise StoreError(f"Bencher project {self.project!r}: {len(whole) - len(left)} of the {len(whole)} "
                             f"series of benchmark {name!r} given, and Bencher archives a benchmark whole; "
                             "nothing was changed")
        for benchmark in self._pick("benchmarks", name):   # none: archived meanwhile
            # By UUID: the path takes a slug or a UUID, and a name is not its slug ('parse 1k': 'parse-1k').
            path = f"/v0/projects/{self.project}/benchmarks/{benchmark['uuid']}"
            try:
                answer = self.client.request("PATCH", path, json={"archived": True}, expect=dict)
            except BencherRejected as e:
                raise StoreError(f"{e}; nothing was changed") from None
            except BencherUnreachable as e:
                raise StoreError(f"{e}; benchmark {name!r} may or may not be archived: run the same command "
                                 "again (archiving twice is harmless)") from None
            if not answer.get("archived"):
                # A server that ignores the field (one older than archiving) answers 200 all the same.
                raise StoreError(f"PATCH {path}: Bencher answered without an archived date, so benchmark "
                                 f"{name!r} was not archived (does this server archive benchmarks?); nothing was changed")

    @shaped("the archived benchmarks")
    def retired(self, benchmark: str) -> bool:
        """Archived on the server: the listing perfgate reads leaves it out, this one holds only those."""
        found = self.client.list_all(f"/v0/projects/{self.project}/benchmarks", {"archived": True, "name": benchmark})
        return any(b["name"] == benchmark for b in found)

    # --- alerts: Bencher's threshold alerts, plus perfgate's change point alerts kept locally --

    def record_alerts(self, alerts: list[Alert]) -> list[Alert]:
        """perfgate's own alerts go to this machine's alert memory (Bencher cannot store them)."""
        return self.memory.record(alerts)

    def unrecorded(self, alerts: list[Alert]) -> list[Alert]:
        return self.memory.unrecorded(alerts)

    @shaped("the alerts")
    def alerts(self, status: str | None = None) -> list[Alert]:
        """perfgate's alerts remembered here and the Bencher project's threshold alerts, one per
        regression, newest first.  Bencher alerts on every value beyond its limit; the values of
        one run of such alerts (consecutive in the series, same limit) are one regression, named
        by its first commit; one that perfgate also alerted on is listed once, as perfgate's,
        with Bencher's alert ids in ``details["bencher_alerts"]``."""
        local = self.memory.load()
        commits: dict[str, str] = {}
        remote: list[Alert] = []
        for raw in self.client.list_all(f"/v0/projects/{self.project}/alerts"):
            # A check's sides (check/REF) are one pull request's A/B runs, not a history: Bencher
            # alerts on them too, but detect and the pages leave them out, so alerts and notify do.
            if is_check_branch(((raw.get("threshold") or {}).get("branch") or {}).get("name", "")):
                continue
            if raw["report"] not in commits:
                commits[raw["report"]] = self.get_run(raw["report"]).commit
            remote.append(as_perfgate_alert(raw, commits[raw["report"]]))
        found = list(local)
        for alert in self._one_per_streak(remote):
            twin = next((a for a in local if a.same_regression(alert)), None)
            if twin is None:
                if "fewer_than_consecutive" not in alert.details:
                    found.append(alert)
            else:
                twin.details = {**twin.details, "bencher_alerts": alert.details["bencher_alerts"]}
        found = [a for a in found if status is None or a.status == status]
        return sorted(found, key=lambda a: a.created or 0.0, reverse=True)

    def _one_per_streak(self, remote: list[Alert]) -> list[Alert]:
        """Bencher's alerts merged per run of alerting values of a series: the first one stands
        for them all, its ``commit_range`` the run's commits, active while any of them is.  A run
        shorter than the measure's ``consecutive`` (thresholds/: 2 for wall time, one noisy value
        is not a regression) is marked ``fewer_than_consecutive``: :meth:`alerts` lists it only
        through a perfgate alert of the same regression, as ``detect`` raises none for it alone."""
        groups: dict[tuple, list[Alert]] = {}
        for a in remote:
            groups.setdefault((a.branch, a.testbed, a.benchmark, a.measure, a.direction), []).append(a)
        merged: list[Alert] = []
        for (branch, testbed, benchmark, measure, _), members in groups.items():
            points = self.series(SeriesKey(branch, testbed, benchmark, measure))
            streaks: list[list[str]] = []
            previous = None
            for p in points:
                flag = p.attrs.get("bencher_alert")
                if flag and flag == previous:
                    streaks[-1].append(p.commit)
                elif flag:
                    streaks.append([p.commit])
                previous = flag
            by_streak: dict[int, list[Alert]] = {}
            for a in members:
                n = next((i for i, s in enumerate(streaks) if a.commit in s), -1 - len(by_streak))
                by_streak.setdefault(n, []).append(a)
            test = self.thresholds.for_series(benchmark, measure).test if self.thresholds else None
            needed = test.consecutive if test else 1
            for n, group in by_streak.items():
                group.sort(key=lambda a: (streaks[n].index(a.commit) if n >= 0 else 0, a.created or 0.0))
                head = group[0]
                head.commit = streaks[n][0] if n >= 0 else head.commit
                head.commit_range = tuple(streaks[n]) if n >= 0 else (head.commit,)
                head.status = "active" if any(a.status == "active" for a in group) else head.status
                head.details = {**head.details, "bencher_alerts": [a.id for a in group]}
                if n >= 0 and len(streaks[n]) < needed:
                    head.details["fewer_than_consecutive"] = needed
                merged.append(head)
        return merged

    @shaped("an alert")
    def acknowledge(self, alert_id: str) -> Alert:
        """A local alert is marked acknowledged; a Bencher alert is dismissed on the server."""
        listed = next((a for a in self.alerts() if alert_id == a.id or alert_id in a.details.get("bencher_alerts", ())),
                      None)
        together = (listed.details.get("bencher_alerts") if listed else None) or []
        if self.memory.knows(alert_id):  # Bencher's alerts of the same regression are dismissed with it
            # On Bencher first: a refused dismissal (a read-only token) then leaves nothing
            # acknowledged here, and a rerun finishes the job (dismissing twice is harmless).
            for other in together:
                self._dismiss(other)
            local = self.memory.acknowledge(alert_id)
            if local is not None:
                return local
        for other in together or [alert_id]:
            raw = self._dismiss(other)
        return as_perfgate_alert(raw, self.get_run(raw["report"]).commit)

    def _dismiss(self, alert_id: str) -> dict:
        try:
            return self.client.request("PATCH", f"/v0/projects/{self.project}/alerts/{alert_id}",
                                       json={"status": "dismissed"}, expect=dict)
        except BencherRejected as e:
            if e.status in (400, 404):
                raise memory_error(alert_id, self.project) from None
            raise

    def update_alert(self, alert: Alert) -> Alert:
        """Only perfgate's own (remembered) alerts can be narrowed; Bencher's are the server's."""
        updated = self.memory.update(alert)
        if updated is None:
            raise memory_error(alert.id, self.project)
        return updated

    def close(self) -> None:
        self.client.close()


def _check_costs(measure: str, metrics: list[dict], where: str) -> None:
    """Refuse a negative value of a cost perfgate knows (latency, memory, ...), as ingest does: a
    -1e308 latency from a server raised alerts of -999999%.  Zero stays allowed, as on ingest."""
    if measure not in KNOWN_MEASURES:
        return
    for metric in metrics:
        value = metric["value"]
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            raise TypeError(value)     # shaped() names what was read
        if value < 0:
            raise BencherShapeError(f"{where}: Bencher's answer gives {measure} the value {value:g}, and a "
                                    f"{measure} cannot be negative; is the URL a Bencher API server?")


def _archived(report: dict) -> dict[str, float | None]:
    """The report's benchmarks archived on the server, by name, with the date they were."""
    return {r["benchmark"]["name"]: epoch(r["benchmark"]["archived"])
            for iteration in report.get("results") or [] for r in iteration if r["benchmark"].get("archived")}


def _archived_records(run: Run, archived: dict[str, float | None]) -> list[Forgotten]:
    gone = [m for m in run.metrics if m.benchmark in archived]
    if len(gone) == len(run.metrics):
        return [Forgotten(run.idempotency_key, time=max(filter(None, archived.values()), default=None))]
    return [Forgotten(run.idempotency_key, m.benchmark, m.measure, archived[m.benchmark]) for m in gone]


def _hash(report: dict) -> str:
    version = (report["branch"].get("head") or {}).get("version") or {}
    return version.get("hash") or ""


def _chunks(items: list[dict], size: int) -> list[list[dict]]:
    return [items[i:i + size] for i in range(0, len(items), size)]


def _factory(spec: str, project: str, create: bool) -> Store:
    base_url, slug = parse_spec(spec)
    return BencherStore(base_url, slug, Secret(os.environ.get("BENCHER_API_TOKEN")))


register_scheme("bencher+", _factory)
