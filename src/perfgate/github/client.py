"""A small GitHub REST client: the five calls the comment workflow makes (contract:
contracts/github/openapi.json).  The token goes in a header only; errors show GitHub's
message, never the token."""

from __future__ import annotations

from typing import Any, Iterator

import httpx

from perfgate.errors import PerfgateError

PER_PAGE = 100


class GitHubError(PerfgateError):
    pass


class GitHub:
    def __init__(self, api_url: str, token: str, transport: httpx.BaseTransport | None = None):
        self.http = httpx.Client(base_url=api_url.rstrip("/"), transport=transport, timeout=30.0,
                                 headers={"Authorization": f"Bearer {token}", "Accept": "application/vnd.github+json",
                                          "X-GitHub-Api-Version": "2022-11-28", "User-Agent": "perfgate"})

    def _call(self, method: str, path: str, **kw: Any) -> Any:
        try:
            r = self.http.request(method, path, **kw)
        except httpx.HTTPError as e:
            raise GitHubError(f"GitHub {method} {path}: {type(e).__name__}") from None
        if r.status_code >= 400:
            try:
                message = r.json().get("message", "")
            except ValueError:
                message = r.text[:200]
            raise GitHubError(f"GitHub {method} {path}: {r.status_code} {message}")
        return r.json() if r.content else None

    def _pages(self, path: str, params: dict[str, Any]) -> Iterator[dict]:
        page = 1
        while True:
            items = self._call("GET", path, params={**params, "per_page": PER_PAGE, "page": page})
            yield from items
            if len(items) < PER_PAGE:
                return
            page += 1

    def open_pulls(self, repo: str) -> Iterator[dict]:
        return self._pages(f"/repos/{repo}/pulls", {"state": "open"})

    def comments(self, repo: str, number: int) -> Iterator[dict]:
        return self._pages(f"/repos/{repo}/issues/{number}/comments", {})

    def create_comment(self, repo: str, number: int, body: str) -> dict:
        return self._call("POST", f"/repos/{repo}/issues/{number}/comments", json={"body": body})

    def update_comment(self, repo: str, comment_id: int, body: str) -> dict:
        return self._call("PATCH", f"/repos/{repo}/issues/comments/{comment_id}", json={"body": body})

    def create_check_run(self, repo: str, head_sha: str, name: str, conclusion: str, title: str, summary: str) -> dict:
        return self._call("POST", f"/repos/{repo}/check-runs",
                          json={"name": name, "head_sha": head_sha, "status": "completed", "conclusion": conclusion,
                                "output": {"title": title, "summary": summary}})

    def close(self) -> None:
        self.http.close()
