"""A small, real HTTP server that behaves like GitHub's REST API for what perfgate calls: alert
delivery (issues, comments, commit statuses, commit comments) and the pull-request comment (pulls, comments, check runs).

It listens on 127.0.0.1 on a free port, in a thread.  Every request (path, query, headers, body)
and every response it sends is validated against ``contracts/github/openapi.json``; a mismatch
is recorded in ``problems`` (the ``fake_github`` fixture fails the test on any) and the request
is answered 422 / the response replaced by a 500.  State is kept like GitHub keeps it: issues
with labels, comments and state, open pull requests (issues too, as GitHub keeps them), commit
statuses per commit (newest first), comments per commit (oldest first), check runs, paged lists with ``Link`` headers.  Faults: dropped connections (before or after doing the work, optionally
calling a hook first — the tests kill the notifier there), 5xx, 429 with Retry-After, hangs, and
answers GitHub never gives (``reply``: after doing the work).
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

from fake_http import FakeHandler, FakeServer

from .openapi import OpenApi, merge

_API: OpenApi | None = None


def api() -> OpenApi:
    global _API
    if _API is None:
        _API = OpenApi()
    return _API


def now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


class HttpError(Exception):
    def __init__(self, status: int, message: str):
        self.status, self.message = status, message


class FakeGitHub(FakeServer):
    """``token``: the one accepted (None: any bearer token); ``login``: whom it belongs to."""

    def __init__(self, token: str | None, repo: str = "acme/widget", login: str = "perfgate-bot"):
        super().__init__()
        self.token, self.repo, self.login = token, repo, login
        self.base = "http://127.0.0.1"  # replaced on start
        self.issues: dict[int, dict] = {}
        self.comments: dict[int, list[dict]] = {}
        self.statuses: dict[str, list[dict]] = {}
        self.commit_comments: dict[str, list[dict]] = {}
        self.pulls: dict[int, dict] = {}
        self.check_runs: list[dict] = []
        self.next_id = 1000

    # --- lifecycle -----------------------------------------------------------------------------

    def start(self, port: int = 0) -> "FakeGitHub":
        super().start(port)
        self.base = self.url
        return self

    def writes(self) -> list[dict]:
        return [r for r in self.requests if r["method"] != "GET"]

    # --- state a test sets up ------------------------------------------------------------------

    def add_pull(self, number: int, head_sha: str, head_repo: str) -> None:
        """An open pull request whose head is ``head_sha`` pushed to ``head_repo``."""
        pull = api().instance(api().response_schema("pulls/list", "200")["items"])
        pull = merge(pull, {"number": number, "state": "open", "head": {"sha": head_sha}})
        pull["head"]["repo"] = merge(pull["head"]["repo"] or {}, {"full_name": head_repo})
        self.pulls[number] = pull
        self.issues[number] = self._new_issue({"title": f"pull request {number}"}, number)
        self.comments[number] = []

    def add_comment(self, number: int, login: str, body: str) -> int:
        """A comment on issue or pull request ``number`` written by ``login``; its id."""
        return self._comment(self.issues[number], body, login)["id"]

    # --- dispatch ------------------------------------------------------------------------------

    def handle(self, method: str, path: str, query: dict[str, list[str]], headers: dict[str, str],
               body: Any) -> tuple[int, Any, dict[str, str]]:
        match = api().match(method, path)
        if match is None:
            return 404, {"message": "Not Found", "documentation_url": "https://docs.github.com/rest"}, {}
        op, params = match
        self.requests.append({"method": method, "path": path, "query": query, "body": body,
                              "op": op["operationId"], "headers": headers})
        problems = api().check_request(op, params, query, body, headers)
        if headers.get("accept") != "application/vnd.github+json":
            problems.append(f"request {op['operationId']}: Accept is {headers.get('accept')!r}")
        if problems:
            self.problems.extend(problems)
            return 422, {"message": "; ".join(problems)[:2000], "documentation_url": "https://docs.github.com/rest"}, {}
        given = headers.get("authorization", "")
        if not given.startswith("Bearer ") or (self.token is not None and given != f"Bearer {self.token}"):
            # Not declared per operation, but every GitHub endpoint answers it.
            return 401, {"message": "Bad credentials", "documentation_url": "https://docs.github.com/rest"}, {}
        if f"{params['owner']}/{params['repo']}" != self.repo:
            status, out, extra = 404, {"message": "Not Found", "documentation_url": "https://docs.github.com/rest"}, {}
        else:
            try:
                handler = getattr(self, "op_" + op["operationId"].replace("/", "_").replace("-", "_"))
                status, out, extra = handler(params, {k: v[0] for k, v in query.items()}, body)
            except HttpError as e:
                status, out, extra = e.status, {"message": e.message,
                                                "documentation_url": "https://docs.github.com/rest"}, {}
        response_problems = api().check_response(op, status, out, extra)
        if response_problems:
            self.problems.extend(response_problems)
            return 500, {"message": "fake github sent an invalid response"}, {}
        return status, out, extra

    # --- objects -------------------------------------------------------------------------------

    def _id(self) -> int:
        self.next_id += 1
        return self.next_id

    def user(self, login: str | None = None) -> dict:
        login = login or self.login
        u = f"{self.base}/users/{login}"
        return {"login": login, "id": 7, "node_id": "U_7", "avatar_url": f"{self.base}/avatars/7",
                "gravatar_id": "", "url": u, "html_url": f"https://github.com/{login}",
                "followers_url": f"{u}/followers", "following_url": f"{u}/following{{/other_user}}",
                "gists_url": f"{u}/gists{{/gist_id}}", "starred_url": f"{u}/starred{{/owner}}{{/repo}}",
                "subscriptions_url": f"{u}/subscriptions", "organizations_url": f"{u}/orgs",
                "repos_url": f"{u}/repos", "events_url": f"{u}/events{{/privacy}}",
                "received_events_url": f"{u}/received_events", "type": "Bot", "site_admin": False}

    def _label(self, name: str) -> dict:
        return {"id": abs(hash(name)) % 10**9, "node_id": f"LA_{name}",
                "url": f"{self.base}/repos/{self.repo}/labels/{name}", "name": name, "description": None,
                "color": "ededed", "default": False}

    def _new_issue(self, body: dict, number: int | None = None) -> dict:
        number = number or max(self.issues, default=0) + 1
        base = f"{self.base}/repos/{self.repo}/issues/{number}"
        labels = [self._label(x if isinstance(x, str) else x["name"]) for x in body.get("labels") or []]
        return {"id": self._id(), "node_id": f"I_{number}", "url": base,
                "repository_url": f"{self.base}/repos/{self.repo}", "labels_url": f"{base}/labels{{/name}}",
                "comments_url": f"{base}/comments", "events_url": f"{base}/events",
                "html_url": f"https://github.com/{self.repo}/issues/{number}", "number": number,
                "state": "open", "state_reason": None, "title": str(body["title"]), "body": body.get("body"),
                "user": self.user(), "labels": labels, "assignee": None, "assignees": [], "milestone": None,
                "locked": False, "active_lock_reason": None, "comments": 0, "closed_at": None,
                "created_at": now(), "updated_at": now(), "author_association": "NONE"}

    # --- operations ----------------------------------------------------------------------------

    def _page(self, path: str, items: list, q: dict[str, str]) -> tuple[list, dict[str, str]]:
        per_page, page = int(q.get("per_page") or 30), int(q.get("page") or 1)
        if not 1 <= per_page <= 100:
            raise HttpError(422, "per_page must be between 1 and 100")
        chunk = items[(page - 1) * per_page: page * per_page]
        headers = {}
        if page * per_page < len(items):
            nxt = urlencode({**q, "page": page + 1})
            headers["Link"] = f'<{self.base}{path}?{nxt}>; rel="next"'
        return chunk, headers

    def op_issues_list_for_repo(self, params, q, body):
        issues = list(self.issues.values())
        state = q.get("state", "open")
        if state != "all":
            issues = [i for i in issues if i["state"] == state]
        if q.get("labels"):
            wanted = set(q["labels"].split(","))
            issues = [i for i in issues if wanted <= {label["name"] for label in i["labels"]}]
        issues.sort(key=lambda i: i["number"], reverse=q.get("direction", "desc") == "desc")
        chunk, headers = self._page(f"/repos/{self.repo}/issues", issues, q)
        return 200, chunk, headers

    def op_issues_create(self, params, q, body):
        if not str(body.get("title", "")).strip():
            raise HttpError(422, "Validation Failed: title is missing")
        issue = self._new_issue(body)
        self.issues[issue["number"]] = issue
        self.comments[issue["number"]] = []
        return 201, issue, {"Location": issue["url"]}

    def _issue(self, params) -> dict:
        issue = self.issues.get(int(params["issue_number"]))
        if issue is None:
            raise HttpError(404, "Not Found")
        return issue

    def op_issues_update(self, params, q, body):
        issue = self._issue(params)
        body = body or {}
        if body.get("state") in ("open", "closed") and body["state"] != issue["state"]:
            issue["state"] = body["state"]
            issue["closed_at"] = now() if body["state"] == "closed" else None
            issue["state_reason"] = body.get("state_reason") or ("completed" if body["state"] == "closed" else "reopened")
        for key in ("title", "body"):
            if body.get(key) is not None:
                issue[key] = str(body[key])
        issue["updated_at"] = now()
        return 200, issue, {}

    def op_issues_list_comments(self, params, q, body):
        issue = self._issue(params)
        chunk, headers = self._page(f"/repos/{self.repo}/issues/{issue['number']}/comments",
                                    self.comments[issue["number"]], q)
        return 200, chunk, headers

    def _comment(self, issue: dict, text: str, login: str | None = None) -> dict:
        cid = self._id()
        comment = {"id": cid, "node_id": f"IC_{cid}", "url": f"{self.base}/repos/{self.repo}/issues/comments/{cid}",
                   "html_url": f"{issue['html_url']}#issuecomment-{cid}", "body": text, "user": self.user(login),
                   "created_at": now(), "updated_at": now(), "issue_url": issue["url"],
                   "author_association": "NONE"}
        self.comments[issue["number"]].append(comment)
        issue["comments"] += 1
        return comment

    def op_issues_create_comment(self, params, q, body):
        issue = self._issue(params)
        if issue["locked"]:
            raise HttpError(403, "Issue is locked")
        comment = self._comment(issue, body["body"])
        return 201, comment, {"Location": comment["url"]}

    def op_issues_update_comment(self, params, q, body):
        for comment in (c for comments in self.comments.values() for c in comments):
            if comment["id"] == int(params["comment_id"]):
                if comment["user"]["login"] != self.login:
                    raise HttpError(403, "Must have admin rights to Repository.")
                comment["body"], comment["updated_at"] = body["body"], now()
                return 200, comment, {}
        raise HttpError(404, "Not Found")

    def op_pulls_list(self, params, q, body):
        state = q.get("state", "open")
        pulls = [p for n, p in sorted(self.pulls.items()) if state == "all" or p["state"] == state]
        chunk, headers = self._page(f"/repos/{self.repo}/pulls", pulls, q)
        return 200, chunk, headers

    def op_checks_create(self, params, q, body):
        self.check_runs.append(body)
        run = api().instance(api().response_schema("checks/create", "201"))
        run = merge(run, {"id": self._id(), "name": body["name"], "head_sha": body["head_sha"],
                           "status": body.get("status", "queued"), "conclusion": body.get("conclusion")})
        return 201, run, {}

    def op_repos_create_commit_status(self, params, q, body):
        sha = _known_commit(params["sha"])
        sid = self._id()
        status = {"url": f"{self.base}/repos/{self.repo}/statuses/{sha}", "avatar_url": None, "id": sid,
                  "node_id": f"SC_{sid}", "state": body["state"], "description": body.get("description"),
                  "target_url": body.get("target_url"), "context": body.get("context", "default"),
                  "created_at": now(), "updated_at": now(), "creator": self.user()}
        self.statuses.setdefault(sha, []).insert(0, status)
        return 201, status, {"Location": status["url"]}

    def op_repos_list_commit_statuses_for_ref(self, params, q, body):
        chunk, headers = self._page(f"/repos/{self.repo}/commits/{params['ref']}/statuses",
                                    self.statuses.get(params["ref"], []), q)
        return 200, chunk, headers

    def op_repos_list_comments_for_commit(self, params, q, body):
        sha = params["commit_sha"]
        chunk, headers = self._page(f"/repos/{self.repo}/commits/{sha}/comments", self.commit_comments.get(sha, []), q)
        return 200, chunk, headers

    def op_repos_create_commit_comment(self, params, q, body):
        sha = _known_commit(params["commit_sha"])
        cid = self._id()
        comment = {"id": cid, "node_id": f"CC_{cid}", "url": f"{self.base}/repos/{self.repo}/comments/{cid}",
                   "html_url": f"https://github.com/{self.repo}/commit/{sha}#commitcomment-{cid}",
                   "body": body["body"], "path": body.get("path"), "position": body.get("position"),
                   "line": body.get("line"), "commit_id": sha, "user": self.user(), "author_association": "NONE",
                   "created_at": now(), "updated_at": now()}
        self.commit_comments.setdefault(sha, []).append(comment)
        return 201, comment, {"Location": comment["url"]}


def _known_commit(sha: str) -> str:
    """Any full lowercase SHA stands for a commit of the repository; anything else is not one."""
    if len(sha) != 40 or any(c not in "0123456789abcdef" for c in sha):
        raise HttpError(422, f"No commit found for SHA: {sha}")
    return sha


class _Handler(FakeHandler):
    content_type = "application/json; charset=utf-8"

    def _handle(self) -> None:
        fake = self.server.fake
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        parts = urlsplit(self.path)
        fault = None if fake.down else fake.take_fault(self.command, parts.path)
        if self._dropped(fault):
            return
        if fault and fault.kind == "status":
            headers = {"Retry-After": fault.retry_after} if fault.retry_after is not None else {}
            # A misbehaving proxy may echo the request back: the client must redact what it reads.
            echo = f" (request had Authorization: {self.headers.get('Authorization')})" if fault.echo else ""
            return self._send(fault.status, {"message": f"injected HTTP {fault.status}{echo}"}, headers)
        try:
            body = json.loads(raw) if raw else None
        except ValueError as e:
            fake.problems.append(f"request {self.command} {parts.path}: body is not JSON ({e})")
            return self._send(400, {"message": "Problems parsing JSON"}, {})
        headers = {k.lower(): v for k, v in self.headers.items()}
        with fake.lock:
            status, out, extra = fake.handle(self.command, parts.path, parse_qs(parts.query, keep_blank_values=True),
                                             headers, body)
        if self._after_work(fault):
            return
        if fault and fault.kind == "reply":
            return self._garbled(fault)
        self._send(status, out, extra)

    def _garbled(self, fault) -> None:
        """``reply``: the work is done, and the answer is ``fault.body`` instead, unchecked — a proxy
        or broken server answering 2xx with what GitHub's contract never says (bytes go as HTML)."""
        raw = isinstance(fault.body, bytes)
        data = fault.body if raw else json.dumps(fault.body).encode()
        self.send_response(fault.status)
        self.send_header("Content-Type", "text/html; charset=utf-8" if raw else self.content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


FakeGitHub.handler = _Handler
