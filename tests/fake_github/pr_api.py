"""A fake of the five GitHub REST operations the comment workflow calls, for httpx.MockTransport.

Every request and every response is validated against GitHub's published contract kept in
contracts/github/openapi.json (from @octokit/openapi, MIT; see its README): a request
the real API would refuse, or a response it could not send, is recorded in ``problems`` and the
tests assert there are none.  Responses are built from the schemas (every required field filled)
with the state the test set up laid over them.
"""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fake_github.openapi import OpenApi  # noqa: E402 - the shared OpenAPI 3.0 -> JSON Schema validator

CONTRACT = Path(__file__).resolve().parents[2] / "contracts" / "github" / "openapi.json"


class GitHubContract(OpenApi):
    """GitHub's contract, and valid instances of its schemas to answer with."""

    def instance(self, schema: Any) -> Any:
        """A value valid for ``schema`` with every required field, as small as possible."""
        schema = self.resolve(schema)
        if "allOf" in schema:
            merged: dict = {}
            for part in schema["allOf"]:
                merged = _merge(merged, self.instance(part))
            return merged
        for key in ("anyOf", "oneOf"):
            if key in schema:
                return self.instance(next((s for s in schema[key] if self.resolve(s).get("type") != "null"),
                                          schema[key][0]))
        if schema.get("nullable"):
            return None
        if "enum" in schema:
            return schema["enum"][0]
        kind = schema.get("type")
        if kind == "object" or "properties" in schema:
            props = schema.get("properties", {})
            return {name: self.instance(props[name]) for name in schema.get("required", []) if name in props}
        if kind == "array":
            return []
        if kind == "integer":
            return 1
        if kind == "number":
            return 1.0
        if kind == "boolean":
            return False
        fmt = schema.get("format")
        return {"date-time": "2026-01-01T00:00:00Z", "uri": "https://example.org/x", "email": "a@example.org"}.get(fmt, "x")


def _merge(a: Any, b: Any) -> Any:
    if isinstance(a, dict) and isinstance(b, dict):
        out = dict(a)
        for k, v in b.items():
            out[k] = _merge(a[k], v) if k in a else v
        return out
    return b


class FakeGitHub:
    def __init__(self, repo: str = "owner/project"):
        self.api = GitHubContract(CONTRACT)
        self.repo = repo
        self.pulls: list[dict] = []
        self.comments: dict[int, list[dict]] = {}
        self.check_runs: list[dict] = []
        self.problems: list[str] = []
        self.requests: list[tuple[str, str]] = []
        self._next_id = 1000
        self.transport = httpx.MockTransport(self.handle)

    # --- state the tests set up --------------------------------------------------------------
    def add_pull(self, number: int, head_sha: str, head_repo: str) -> None:
        self.pulls.append({"number": number, "head_sha": head_sha, "head_repo": head_repo})

    def add_comment(self, number: int, login: str, body: str) -> int:
        self._next_id += 1
        self.comments.setdefault(number, []).append({"id": self._next_id, "login": login, "body": body})
        return self._next_id

    # --- the API --------------------------------------------------------------------------------
    def handle(self, request: httpx.Request) -> httpx.Response:
        path = request.url.path
        self.requests.append((request.method, path))
        if not request.headers.get("authorization", "").startswith("Bearer "):
            self.problems.append(f"{request.method} {path}: no bearer token")
        found = self.api.match(request.method, path)
        if found is None:
            self.problems.append(f"{request.method} {path}: not an operation of the contract")
            return httpx.Response(404, json={"message": "Not Found"})
        op, params = found
        query = parse_qs(request.url.query.decode())
        body = json.loads(request.content) if request.content else None
        refused = self.api.check_request(op, params, query, body)
        if refused:  # GitHub answers such a request 422 and changes nothing
            self.problems += refused
            return httpx.Response(422, json={"message": "Validation Failed"})
        status, payload = getattr(self, "_" + op["operationId"].replace("/", "_").replace("-", "_"))(params, query, body)
        self.problems += self.api.check_response(op, status, payload, {})
        return httpx.Response(status, json=payload)

    def _schema(self, op_id: str, status: str) -> dict:
        for methods in self.api.doc["paths"].values():
            for op in methods.values():
                if isinstance(op, dict) and op.get("operationId") == op_id:
                    return self.api.resolve(op["responses"][status])["content"]["application/json"]["schema"]
        raise KeyError(op_id)

    def _page(self, items: list, query: dict) -> list:
        per_page, page = int(query.get("per_page", ["30"])[0]), int(query.get("page", ["1"])[0])
        return items[(page - 1) * per_page: page * per_page]

    def _pulls_list(self, params, query, body):
        item = self.api.instance(self._schema("pulls/list", "200")["items"])
        out = []
        for p in self.pulls:
            x = copy.deepcopy(item)
            x["number"] = p["number"]
            x["head"]["sha"] = p["head_sha"]
            x["head"]["repo"] = _merge(x["head"]["repo"] or {}, {"full_name": p["head_repo"]})
            out.append(x)
        return 200, self._page(out, query)

    def _comment(self, c: dict) -> dict:
        x = self.api.instance(self._schema("issues/list-comments", "200")["items"])
        x["id"], x["body"] = c["id"], c["body"]
        x["user"] = _merge(x["user"] or self.api.instance({"$ref": "#/components/schemas/simple-user"}),
                           {"login": c["login"]})
        return x

    def _issues_list_comments(self, params, query, body):
        return 200, self._page([self._comment(c) for c in self.comments.get(int(params["issue_number"]), [])], query)

    def _issues_create_comment(self, params, query, body):
        cid = self.add_comment(int(params["issue_number"]), "github-actions[bot]", body["body"])
        return 201, self._comment(self.comments[int(params["issue_number"])][-1] | {"id": cid})

    def _issues_update_comment(self, params, query, body):
        for comments in self.comments.values():
            for c in comments:
                if c["id"] == int(params["comment_id"]):
                    c["body"] = body["body"]
                    return 200, self._comment(c)
        return 404, {"message": "Not Found", "documentation_url": "https://docs.github.com"}

    def _checks_create(self, params, query, body):
        self.check_runs.append(body)
        x = self.api.instance(self._schema("checks/create", "201"))
        x["name"], x["head_sha"] = body["name"], body["head_sha"]
        return 201, x
