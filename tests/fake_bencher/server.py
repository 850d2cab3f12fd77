"""A small, real HTTP server that behaves like a Bencher API server (v0.6.12) for the tests.

It listens on 127.0.0.1 on a free port, in a thread.  Every request body, query and path, and
every response it sends, is validated against Bencher's openapi.json; a mismatch is recorded in
``problems`` (the ``fake_bencher`` fixture fails the test on any) and answered 500 / 400, as is
a body not sent as JSON and a query parameter of the contract the fake does not act on
(``HONOURED``); the report list holds results and alerts only with expand=true.  It
checks the bearer token, keeps state like the real server (organizations, projects, branches
with heads and start points, testbeds, measures, benchmarks, reports, thresholds, alerts,
idempotency keys; benchmarks archived with PATCH and listed as the contract documents), answers ``/perf`` queries with the real 255-combination cut-off, and can
inject faults: dropped connections (before or after doing the work), 5xx, 429 with
Retry-After, hangs past the client's timeout, and hostile 2xx answers (``reply``: any JSON, unchecked).
"""

from __future__ import annotations

import json
import re
import uuid
from datetime import datetime, timezone
from itertools import product
from typing import Any
from urllib.parse import parse_qs, urlsplit

import jsonschema

from fake_http import FakeHandler, FakeServer

from .openapi import BMF_SCHEMA, OpenApi
from .thresholds import boundary


PERF_LIMIT = 255
GIT_HASH = re.compile(r"^([0-9a-f]{40}|[0-9a-f]{64})$")
CORS = {"access-control-allow-headers": "Content-Type, Authorization",
        "access-control-allow-methods": "GET, POST, PUT, PATCH, DELETE",
        "access-control-allow-origin": "*", "access-control-expose-headers": "X-Total-Count"}
_API = None
# The query parameters each list route acts on.  The contract defines more (search, start_time,
# end_time, heads, specs, the alerts' sort): a request with one of those is a problem, not an
# answer that quietly ignores it, until the fake implements it.
_PAGED = {"page", "per_page", "direction", "sort"}
HONOURED = {"organizations_get": _PAGED | {"name"}, "proj_alerts_get": {"page", "per_page", "archived", "status"},
            "proj_reports_get": _PAGED | {"archived", "branch", "testbed", "expand"},
            "proj_perf_get": {"branches", "testbeds", "benchmarks", "measures"},
            **{f"proj_{kind}_get": _PAGED | {"archived", "name"} for kind in ("branches", "testbeds", "measures",
                                                                                "benchmarks")}}


def api() -> OpenApi:
    global _API
    if _API is None:
        _API = OpenApi()
    return _API


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def new_uuid() -> str:
    return str(uuid.uuid4())


def slugify(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:64] or "x"


class HttpError(Exception):
    def __init__(self, status: int, message: str):
        self.status, self.message = status, message


class FakeBencher(FakeServer):
    """State and behaviour; :class:`_Handler` only moves bytes."""

    fault_path_is_prefix = True

    def __init__(self, tokens: dict[str, str]):
        super().__init__()
        self.tokens = dict(tokens)         # token -> role: "admin" (everything) or "viewer" (reads)
        self.org = {"uuid": new_uuid(), "name": "Perfgate Org", "slug": "perfgate-org", "created": now(),
                    "modified": now()}
        self.projects: dict[str, dict] = {}        # uuid -> project
        self.dims: dict[str, dict[str, dict]] = {k: {} for k in ("branches", "testbeds", "measures", "benchmarks")}
        self.heads: dict[str, dict] = {}
        self.reports: list[dict] = []
        self.thresholds: dict[tuple[str, str, str], dict] = {}
        self.alerts: list[dict] = []
        self.idempotency: dict[tuple[str, str], str] = {}

    # --- handy views for the tests -------------------------------------------------------------

    def project(self, slug: str) -> dict | None:
        return next((p for p in self.projects.values() if p["slug"] == slug), None)

    def reports_of(self, slug: str) -> list[dict]:
        p = self.project(slug)
        return [r for r in self.reports if p and r["project"] == p["uuid"]]

    # --- dispatch ------------------------------------------------------------------------------

    def handle(self, method: str, path: str, query: dict[str, list[str]], body: Any,
               auth: str | None, request_headers: dict[str, str] | None = None) -> tuple[int, Any, dict[str, str]]:
        """``request_headers`` (lower-case names): a body must come as JSON."""
        match = api().match(method, path)
        if match is None:
            return 404, {"message": f"no route {method} {path}", "request_id": new_uuid()}, {}
        op, params = match
        self.requests.append({"method": method, "path": path, "query": query, "body": body, "op": op["operationId"]})
        request_problems = api().check_request(op, params, query, body, request_headers)
        if not request_problems:
            request_problems = [f"request {op['operationId']}: query parameter {name!r} is in the contract but "
                                "the fake does not implement it (it would be ignored)"
                                for name in query if name not in HONOURED.get(op["operationId"], set())]
        if request_problems:
            self.problems.extend(request_problems)
            status, out, headers = 400, {"message": "; ".join(request_problems)[:2000], "request_id": new_uuid()}, {}
        else:
            try:
                role = self._role(auth)
                handler = getattr(self, "op_" + op["operationId"])
                status, out, headers = handler(role, params, {k: v[0] for k, v in query.items()}, body)
            except HttpError as e:
                status, out, headers = e.status, {"message": e.message, "request_id": new_uuid()}, {}
        headers = {**CORS, "x-total-count": str(len(out)) if isinstance(out, list) else "1", **headers}
        response_problems = api().check_response(op, status, out, headers)
        if response_problems:
            self.problems.extend(response_problems)
            return 500, {"message": "fake bencher sent an invalid response", "request_id": new_uuid()}, CORS
        return status, out, headers

    def _role(self, auth: str | None) -> str:
        if not auth or not auth.startswith("Bearer "):
            raise HttpError(401, "Missing bearer token")
        role = self.tokens.get(auth.removeprefix("Bearer "))
        if role is None:
            # The real server says who it thinks you are; echo the header to prove the client
            # redacts what the server sends back.
            raise HttpError(401, f"Invalid token in header: {auth}")
        return role

    @staticmethod
    def _need_admin(role: str, what: str) -> None:
        if role != "admin":
            raise HttpError(403, f"Forbidden: this token may not {what}")

    def _project(self, ref: str) -> dict:
        for p in self.projects.values():
            if ref in (p["uuid"], p["slug"]):
                return p
        raise HttpError(404, f"Project not found: {ref}")

    # --- organizations and projects ------------------------------------------------------------

    def op_organizations_get(self, role, params, q, body):
        orgs = [o for o in [self.org] if q.get("name") in (None, o["name"])]
        return 200, _page(_direction(orgs, q), q), {"x-total-count": str(len(orgs))}

    def op_org_project_post(self, role, params, q, body):
        if params["organization"] not in (self.org["slug"], self.org["uuid"]):
            raise HttpError(404, f"Organization not found: {params['organization']}")
        self._need_admin(role, "create projects")
        return 201, self._create_project(body["name"], body.get("slug")), {}

    def _create_project(self, name: str, slug: str | None) -> dict:
        slug = slug or slugify(name)
        if self.project(slug):
            raise HttpError(409, f"Project slug already exists: {slug}")
        p = {"uuid": new_uuid(), "name": name, "slug": slug, "organization": self.org["uuid"],
             "visibility": "public", "created": now(), "modified": now()}
        self.projects[p["uuid"]] = p
        # Like the real server: a new project has main, localhost and the built-in measures
        # Latency and Throughput (slugs latency and throughput).
        self._create("branches", p, "main")
        self._create("testbeds", p, "localhost")
        self._create("measures", p, "Latency", units="nanoseconds (ns)")
        self._create("measures", p, "Throughput", units="operations / second (ops/s)")
        return p

    def op_project_get(self, role, params, q, body):
        return 200, self._project(params["project"]), {}

    # --- branches, testbeds, measures, benchmarks ----------------------------------------------

    def _create(self, kind: str, project: dict, name: str, **extra: Any) -> dict:
        mine = [i for i in self.dims[kind].values() if i["project"] == project["uuid"]]
        if any(i["name"] == name for i in mine):
            raise HttpError(409, f"{kind[:-1].capitalize()} already exists: {name}")
        slug = slugify(name)
        if any(i["slug"] == slug for i in mine):  # like the real server: a taken slug gets a suffix
            slug = f"{slug}-{uuid.uuid4().hex[:7]}"
        item = {"uuid": new_uuid(), "project": project["uuid"], "name": name, "slug": slug,
                "created": now(), "modified": now(), **extra}
        if kind == "branches":
            head = {"uuid": new_uuid(), "branch": item["uuid"], "created": now(), "start": None, "versions": {}}
            self.heads[head["uuid"]] = head
            item["head"] = head["uuid"]
        self.dims[kind][item["uuid"]] = item
        return item

    def _find(self, kind: str, project: dict, ref: str) -> dict | None:
        """By UUID, then slug, then name: the order the real server resolves a name-or-id in
        (a BMF measure key ``latency`` lands on the built-in ``Latency``)."""
        mine = [i for i in self.dims[kind].values() if i["project"] == project["uuid"]]
        for field in ("uuid", "slug", "name"):
            for item in mine:
                if item[field] == ref:
                    return item
        return None

    def _list(self, kind, role, params, q):
        p = self._project(params["project"])
        items = sorted((i for i in self.dims[kind].values() if i["project"] == p["uuid"]), key=lambda i: i["name"])
        # As the contract documents: archived=true lists only archived items, otherwise only the others.
        archived = q.get("archived") == "true"
        items = [i for i in items if bool(i.get("archived")) == archived]
        if "name" in q:
            items = [i for i in items if i["name"] == q["name"]]
        total = len(items)
        return 200, [self.render(kind, i) for i in _page(_direction(items, q), q)], {"x-total-count": str(total)}

    def _post(self, kind, role, params, body, **extra):
        p = self._project(params["project"])
        self._need_admin(role, f"create {kind}")
        return 201, self.render(kind, self._create(kind, p, body["name"], **extra)), {}

    def op_proj_branches_get(self, role, params, q, body):
        return self._list("branches", role, params, q)

    def op_proj_testbeds_get(self, role, params, q, body):
        return self._list("testbeds", role, params, q)

    def op_proj_measures_get(self, role, params, q, body):
        return self._list("measures", role, params, q)

    def op_proj_benchmarks_get(self, role, params, q, body):
        return self._list("benchmarks", role, params, q)

    def op_proj_branch_post(self, role, params, q, body):
        return self._post("branches", role, params, body)

    def op_proj_testbed_post(self, role, params, q, body):
        return self._post("testbeds", role, params, body)

    def op_proj_measure_post(self, role, params, q, body):
        return self._post("measures", role, params, body, units=body["units"])

    def op_proj_benchmark_post(self, role, params, q, body):
        return self._post("benchmarks", role, params, body)

    def op_proj_benchmark_patch(self, role, params, q, body):
        p = self._project(params["project"])
        self._need_admin(role, "edit benchmarks")
        # The path takes a slug or a UUID (not a name, unlike a BMF key in a run).
        bench = next((b for b in self.dims["benchmarks"].values() if b["project"] == p["uuid"]
                      and params["benchmark"] in (b["uuid"], b["slug"])), None)
        if bench is None:
            raise HttpError(404, f"Benchmark not found: {params['benchmark']}")
        if body.get("archived") is True:
            bench.setdefault("archived", now())      # archived again: still archived, as it was
        elif body.get("archived") is False:
            bench.pop("archived", None)
        for field in ("name", "slug"):
            if body.get(field) is not None:
                bench[field] = body[field]
        bench["modified"] = now()
        return 200, self.render("benchmarks", bench), {}

    def render(self, kind: str, item: dict, version: dict | None = None) -> dict:
        out = {k: v for k, v in item.items() if k not in ("head",)}
        if kind == "branches":
            head = self.heads[item["head"]]
            h = {"uuid": head["uuid"], "created": head["created"]}
            if head["start"]:
                sb, sh, sv = head["start"]
                h["start_point"] = {"branch": sb, "head": sh, "version": sv}
            if version:
                h["version"] = version
            out["head"] = h
        return out

    # --- runs ----------------------------------------------------------------------------------

    def op_run_post(self, role, params, q, body):
        self._need_admin(role, "create runs")
        ref = body.get("project")
        if not ref:
            raise HttpError(400, "a project is required")
        try:
            project = self._project(ref)
        except HttpError:
            project = self._create_project(ref, ref)
        key = body.get("idempotency_key")
        if key and (project["uuid"], key) in self.idempotency:
            existing = next(r for r in self.reports if r["uuid"] == self.idempotency[(project["uuid"], key)])
            return 201, self.render_report(existing), {}
        commit = body.get("hash")
        if commit is not None and not GIT_HASH.match(commit):
            raise HttpError(400, f"Failed to parse git hash: {commit!r} is not a full git commit hash")
        if (body.get("settings") or {}).get("adapter") not in (None, "json", "magic"):
            raise HttpError(400, "the fake understands BMF results only")
        docs = []
        for i, text in enumerate(body["results"]):
            try:
                doc = json.loads(text)
                jsonschema.validate(doc, BMF_SCHEMA)
            except (ValueError, jsonschema.ValidationError) as e:
                raise HttpError(400, f"Failed to parse results[{i}] as BMF: {str(e).splitlines()[0]}") from None
            docs.append(doc)
        branch = self._branch_for_run(project, body.get("branch") or "main", body.get("start_point"))
        testbed = self._find("testbeds", project, body.get("testbed") or "localhost") or \
            self._create("testbeds", project, body.get("testbed") or "localhost")
        head = self.heads[branch["head"]]
        number = head["versions"].setdefault(commit, max(head["versions"].values(), default=0) + 1)
        version = {"number": number, "hash": commit} if commit else {"number": number}
        for measure_name, model in ((body.get("thresholds") or {}).get("models") or {}).items():
            measure = self._find("measures", project, measure_name) or \
                self._create("measures", project, measure_name, units="units")
            self._set_threshold(project, branch, testbed, measure, model)
        report = {"uuid": new_uuid(), "project": project["uuid"], "branch": branch["uuid"], "head": head["uuid"],
                  "testbed": testbed["uuid"], "version": version, "start_time": body["start_time"],
                  "end_time": body["end_time"], "created": now(), "results": [], "alerts": []}
        for iteration, doc in enumerate(docs):
            for bench_name, by_measure in doc.items():
                # (an archived benchmark takes the results and stays archived: the fake's choice,
                # as Bencher v0.6.12's contract does not say what its server does)
                bench = self._find("benchmarks", project, bench_name) or self._create("benchmarks", project, bench_name)
                for measure_name, value in by_measure.items():
                    measure = self._find("measures", project, measure_name) or \
                        self._create("measures", project, measure_name, units="units")
                    self._add_metric(report, iteration, bench, measure, value)
        self.reports.append(report)
        if key:
            self.idempotency[(project["uuid"], key)] = report["uuid"]
        return 201, self.render_report(report), {}

    def _branch_for_run(self, project: dict, name: str, start: dict | None) -> dict:
        # A start point that does not exist refuses the run before anything changes (the
        # server's transaction): the branch and its head stay as they were.
        if start and start.get("branch"):
            self._start_version(project, start)
        branch = self._find("branches", project, name)
        if branch is None:
            branch = self._create("branches", project, name)
        elif not start or not (start.get("branch") or start.get("reset")):
            return branch
        elif start.get("branch") and not start.get("reset") and self.heads[branch["head"]]["start"] and \
                self._start_matches(project, branch, start):
            return branch  # same start point as the current head: keep it
        else:
            head = {"uuid": new_uuid(), "branch": branch["uuid"], "created": now(), "start": None, "versions": {}}
            self.heads[head["uuid"]] = head
            branch["head"] = head["uuid"]
        if start and start.get("branch"):
            base, number = self._start_version(project, start)
            base_head = self.heads[base["head"]]
            sv = {"number": number}
            if start.get("hash"):
                sv["hash"] = start["hash"]
            self.heads[branch["head"]]["start"] = (base["uuid"], base_head["uuid"], sv)
            # "The maximum number of historical branch versions to include ... The default is 255."
            max_versions = start.get("max_versions")
            self.heads[branch["head"]]["lend"] = 255 if max_versions is None else max_versions
            if start.get("clone_thresholds"):
                for (b, t, m), th in list(self.thresholds.items()):
                    if b == base["uuid"]:
                        self.thresholds[(branch["uuid"], t, m)] = {**th, "uuid": new_uuid(), "branch": branch["uuid"]}
        return branch

    def _start_version(self, project: dict, start: dict) -> tuple[dict, int]:
        """The start point's branch and version number, or the 404 the server answers."""
        base = self._find("branches", project, start["branch"])
        if base is None:
            raise HttpError(404, f"Start point branch not found: {start['branch']}")
        versions = self.heads[base["head"]]["versions"]
        if start.get("hash"):
            if start["hash"] not in versions:
                raise HttpError(404, f"Start point hash not found on {base['name']}: {start['hash']}")
            return base, versions[start["hash"]]
        return base, max(versions.values(), default=0)

    def _start_matches(self, project: dict, branch: dict, start: dict) -> bool:
        sb, _, sv = self.heads[branch["head"]]["start"]
        base = self._find("branches", project, start["branch"])
        return base is not None and base["uuid"] == sb and (not start.get("hash") or sv.get("hash") == start["hash"])

    def _set_threshold(self, project, branch, testbed, measure, model: dict) -> None:
        key = (branch["uuid"], testbed["uuid"], measure["uuid"])
        current = self.thresholds.get(key)
        clean = {k: v for k, v in model.items() if v is not None}
        if current and {k: v for k, v in current["model"].items() if k not in ("uuid", "created")} == clean:
            return
        self.thresholds[key] = {"uuid": current["uuid"] if current else new_uuid(), "project": project["uuid"],
                                "branch": branch["uuid"], "created": now(), "modified": now(),
                                "model": {"uuid": new_uuid(), "created": now(), **clean}}

    def _history(self, branch_uuid: str, head_uuid: str | None, testbed: str, bench: str, measure: str,
                 up_to: int | None = None) -> list[tuple[dict, dict]]:
        """(report, metric row) on a branch head, with its start point's history, oldest first."""
        head = self.heads[head_uuid or self.dims["branches"][branch_uuid]["head"]]
        rows = []
        if head["start"]:
            sb, sh, sv = head["start"]
            lent = self._history(sb, sh, testbed, bench, measure, up_to=sv["number"])
            versions = sorted({r["version"]["number"] for r, _ in lent})[-head.get("lend", 255):] \
                if head.get("lend", 255) else []
            rows += [(r, row) for r, row in lent if r["version"]["number"] in set(versions)]
        for r in self.reports:
            if r["head"] != head["uuid"] or r["testbed"] != testbed:
                continue
            if up_to is not None and r["version"]["number"] > up_to:
                continue
            rows += [(r, row) for row in r["results"] if row["benchmark"] == bench and row["measure"] == measure]
        rows.sort(key=lambda x: (x[0]["start_time"], x[0]["version"]["number"]))
        return rows

    def _add_metric(self, report: dict, iteration: int, bench: dict, measure: dict, value: dict) -> None:
        metric = {"uuid": new_uuid(), "value": float(value["value"])}
        for k in ("lower_value", "upper_value"):
            if value.get(k) is not None:
                metric[k] = float(value[k])
        row = {"iteration": iteration, "benchmark": bench["uuid"], "measure": measure["uuid"], "metric": metric,
               "threshold": None, "boundary": None}
        threshold = self.thresholds.get((report["branch"], report["testbed"], measure["uuid"]))
        if threshold:
            history = [h["metric"]["value"] for _, h in
                       self._history(report["branch"], report["head"], report["testbed"], bench["uuid"], measure["uuid"])]
            window = threshold["model"].get("window")
            if window:
                cut = datetime.fromisoformat(report["start_time"]).timestamp() - window
                history = [v for (r, h), v in zip(self._history(report["branch"], report["head"], report["testbed"],
                                                               bench["uuid"], measure["uuid"]), history)
                           if datetime.fromisoformat(r["start_time"]).timestamp() >= cut]
            b = boundary(threshold["model"], history)
            row["threshold"], row["boundary"] = threshold, b
            if b:
                limit = None
                if b.get("lower_limit") is not None and metric["value"] < b["lower_limit"]:
                    limit = "lower"
                elif b.get("upper_limit") is not None and metric["value"] > b["upper_limit"]:
                    limit = "upper"
                if limit:
                    alert = {"uuid": new_uuid(), "report": report["uuid"], "iteration": iteration, "limit": limit,
                             "status": "active", "created": now(), "modified": now(), "row": row,
                             "branch": report["branch"], "testbed": report["testbed"]}
                    row["alert"] = alert
                    report["alerts"].append(alert)
                    self.alerts.append(alert)
        report["results"].append(row)

    # --- rendering reports and alerts ----------------------------------------------------------

    def _threshold_json(self, th: dict, testbed: str, measure: str) -> dict:
        model = th["model"]
        return {"uuid": th["uuid"], "project": th["project"], "branch": self.render("branches", self.dims["branches"][th["branch"]]),
                "testbed": self.render("testbeds", self.dims["testbeds"][testbed]),
                "measure": self.render("measures", self.dims["measures"][measure]),
                "model": model, "created": th["created"], "modified": th["modified"]}

    def render_alert(self, alert: dict) -> dict:
        row = alert["row"]
        return {"uuid": alert["uuid"], "report": alert["report"], "iteration": alert["iteration"],
                "benchmark": self.render("benchmarks", self.dims["benchmarks"][row["benchmark"]]),
                "metric": row["metric"], "boundary": row["boundary"], "limit": alert["limit"],
                "status": alert["status"], "created": alert["created"], "modified": alert["modified"],
                "threshold": self._threshold_json(row["threshold"], alert["testbed"], row["measure"])}

    def render_report(self, r: dict) -> dict:
        iterations: dict[int, dict[str, dict]] = {}
        for row in r["results"]:
            by_bench = iterations.setdefault(row["iteration"], {})
            entry = by_bench.setdefault(row["benchmark"], {
                "iteration": row["iteration"], "benchmark": self.render("benchmarks", self.dims["benchmarks"][row["benchmark"]]),
                "measures": []})
            m = {"measure": self.render("measures", self.dims["measures"][row["measure"]]), "metric": row["metric"]}
            if row["threshold"]:
                m["threshold"] = {k: row["threshold"][k] for k in ("uuid", "project", "model", "created")}
                m["boundary"] = row["boundary"]
            entry["measures"].append(m)
        results = [list(iterations[i].values()) for i in sorted(iterations)]
        active = sum(a["status"] == "active" for a in r["alerts"])
        return {"uuid": r["uuid"], "user": None, "project": self.projects[r["project"]],
                "branch": self.render("branches", self.dims["branches"][r["branch"]], version=r["version"]),
                "testbed": self.render("testbeds", self.dims["testbeds"][r["testbed"]]),
                "start_time": r["start_time"], "end_time": r["end_time"], "adapter": "json",
                "results": results, "alerts": [self.render_alert(a) for a in r["alerts"]],
                "counts": {"alerts": {"active": active, "total": len(r["alerts"])},
                           "results": [{"benchmarks": len(it), "measures": len({m["measure"]["uuid"] for b in it for m in b["measures"]})}
                                       for it in results]},
                "created": r["created"]}

    def op_proj_reports_get(self, role, params, q, body):
        p = self._project(params["project"])
        reports = [r for r in self.reports if r["project"] == p["uuid"]]
        if "branch" in q:
            b = self._find("branches", p, q["branch"])
            reports = [r for r in reports if b and r["branch"] == b["uuid"]]
        if "testbed" in q:
            t = self._find("testbeds", p, q["testbed"])
            reports = [r for r in reports if t and r["testbed"] == t["uuid"]]
        if q.get("archived") == "true":
            reports = []    # those of an archived branch or testbed, and the fake archives neither
        reports.sort(key=lambda r: (r["start_time"], r["created"]), reverse=q.get("direction") != "asc")
        total = len(reports)
        listed = [self.render_report(r) for r in _page(reports, q)]
        if q.get("expand") != "true":
            # As the contract says: the list leaves each report's results and alerts out (their
            # counts stay) unless asked with expand=true.
            listed = [{k: v for k, v in r.items() if k not in ("results", "alerts")} for r in listed]
        return 200, listed, {"x-total-count": str(total)}

    def op_proj_report_get(self, role, params, q, body):
        p = self._project(params["project"])
        for r in self.reports:
            if r["uuid"] == params["report"] and r["project"] == p["uuid"]:
                return 200, self.render_report(r), {}
        raise HttpError(404, f"Report not found: {params['report']}")

    def op_proj_report_delete(self, role, params, q, body):
        p = self._project(params["project"])
        self._need_admin(role, "delete reports")
        for r in self.reports:
            if r["uuid"] == params["report"] and r["project"] == p["uuid"]:
                self.reports.remove(r)     # its metrics are inside it; its alerts go with it
                self.alerts = [a for a in self.alerts if a["report"] != r["uuid"]]
                return 204, None, {}
        raise HttpError(404, f"Report not found: {params['report']}")

    def op_proj_alerts_get(self, role, params, q, body):
        p = self._project(params["project"])
        alerts = [a for a in self.alerts if self._report(a["report"])["project"] == p["uuid"]]
        if "status" in q:
            alerts = [a for a in alerts if a["status"] == q["status"]]
        if q.get("archived") == "true":
            alerts = []     # those of an archived branch, testbed or measure: the fake archives none
        # The documented order: active before dismissed, then last modified first.
        alerts.sort(key=lambda a: a["modified"], reverse=True)
        alerts.sort(key=lambda a: a["status"] != "active")
        return 200, [self.render_alert(a) for a in _page(alerts, q)], {"x-total-count": str(len(alerts))}

    def op_proj_alert_patch(self, role, params, q, body):
        p = self._project(params["project"])
        self._need_admin(role, "update alerts")
        for a in self.alerts:
            if a["uuid"] == params["alert"] and self._report(a["report"])["project"] == p["uuid"]:
                if body.get("status"):
                    a["status"], a["modified"] = body["status"], now()
                return 200, self.render_alert(a), {}
        raise HttpError(404, f"Alert not found: {params['alert']}")

    def _report(self, uuid_: str) -> dict:
        return next(r for r in self.reports if r["uuid"] == uuid_)

    # --- perf ----------------------------------------------------------------------------------

    def op_proj_perf_get(self, role, params, q, body):
        p = self._project(params["project"])
        lists = []
        for kind in ("branches", "testbeds", "benchmarks", "measures"):
            items = []
            for ref in filter(None, q[kind].split(",")):
                item = self.dims[kind].get(ref)
                if item is None or item["project"] != p["uuid"]:
                    raise HttpError(404, f"{kind[:-1].capitalize()} not found: {ref}")
                items.append(item)
            lists.append(items)
        results = []
        # Like the real server: only the first 255 permutations are answered, silently.
        for branch, testbed, bench, measure in list(product(*lists))[:PERF_LIMIT]:
            metrics = []
            for r, row in self._history(branch["uuid"], None, testbed["uuid"], bench["uuid"], measure["uuid"]):
                m = {"report": r["uuid"], "iteration": row["iteration"], "start_time": r["start_time"],
                     "end_time": r["end_time"], "version": r["version"], "metric": row["metric"]}
                if row["threshold"]:
                    m["threshold"] = {k: row["threshold"][k] for k in ("uuid", "project", "model", "created")}
                    m["boundary"] = row["boundary"]
                if row.get("alert"):
                    a = row["alert"]
                    m["alert"] = {"uuid": a["uuid"], "limit": a["limit"], "status": a["status"], "modified": a["modified"]}
                metrics.append(m)
            if metrics:
                results.append({"branch": self.render("branches", branch), "testbed": self.render("testbeds", testbed),
                                "benchmark": self.render("benchmarks", bench), "measure": self.render("measures", measure),
                                "metrics": metrics})
        return 200, {"project": p, "results": results}, {}


def _direction(items: list, q: dict[str, str]) -> list:
    """Lists sorted by name (their one sort field) run backwards with direction=desc."""
    return items[::-1] if q.get("direction") == "desc" else items


def _page(items: list, q: dict[str, str]) -> list:
    per_page = int(q.get("per_page") or 8)
    page = max(int(q.get("page") or 1), 1)
    return items[(page - 1) * per_page: page * per_page]


class _Handler(FakeHandler):
    def _handle(self) -> None:
        fake = self.server.fake
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        parts = urlsplit(self.path)
        fault = None if fake.down else fake.take_fault(self.command, parts.path)
        if self._dropped(fault):
            return
        if fault and fault.kind == "reply":
            return self._send(fault.status, fault.body, {**CORS, "x-total-count": "1"})
        if fault and fault.kind == "status":
            headers = {**CORS, "x-total-count": "1"}
            if fault.retry_after is not None:
                headers["Retry-After"] = fault.retry_after
            return self._send(fault.status, {"message": f"injected HTTP {fault.status}", "request_id": new_uuid()}, headers)
        try:
            body = json.loads(raw) if raw else None
        except ValueError as e:
            fake.problems.append(f"request {self.command} {parts.path}: body is not JSON ({e})")
            return self._send(400, {"message": "body is not JSON", "request_id": new_uuid()}, CORS)
        with fake.lock:
            status, out, headers = fake.handle(self.command, parts.path, parse_qs(parts.query, keep_blank_values=True),
                                               body, self.headers.get("Authorization"),
                                               {k.lower(): v for k, v in self.headers.items()})
        if self._after_work(fault):
            return
        self._send(status, out, headers)


FakeBencher.handler = _Handler
