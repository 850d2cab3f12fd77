"""perfgate's one GitHub REST client, built against the published contract kept in
``contracts/github/openapi.json`` (from ``@octokit/openapi``; see its README).

Alert delivery lists, creates and closes issues, comments on them, sets commit statuses and
comments on commits; the pull-request comment lists open pull requests, creates or updates its
comment and creates check runs.  Every call retries as :mod:`perfgate.http_client` does; a
create is never repeated blindly.  The token (``$GITHUB_TOKEN``) travels only in the
Authorization header and is registered with the redaction helper, so no message, log line or
spool entry carries it.
"""

from __future__ import annotations

import os
import re
from typing import Any, Callable, Iterator, TypeVar
from urllib.parse import quote

from perfgate.errors import PerfgateError
from perfgate.escape import visible
from perfgate.urls import split_url
from perfgate.http_client import DeliveryRejected, DeliveryUnreachable, Http, RetryPolicy
from perfgate.redact import Secret, register

DEFAULT_API = "https://api.github.com"
REPO = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")
LABEL = "perfgate"
PER_PAGE = 100  # the API's largest page
T = TypeVar("T")
# The fields perfgate reads from each kind of answer (or that show a write was done), as GitHub's
# contract types them ("?": may be null or absent).  An answer without them (a proxy's ``{}``) is a
# refused delivery, not a KeyError (see ``_checked``).
ISSUE = {"number": "int", "body": "text?"}
COMMENT = {"id": "int", "body": "text?", "user": "object?"}
STATUS = {"id": "int", "state": "text", "context": "text"}
PULL = {"number": "int", "head": "object", "head.sha": "text", "head.repo": "object?"}
_KINDS = {"int": (int, "an integer"), "text": (str, "text"), "object": (dict, "an object")}


class GitHub:
    def __init__(self, repo: str, token: Secret | str | None = None, api_url: str | None = None, *,
                 policy: RetryPolicy | None = None, **http_kw: Any):
        if not REPO.match(repo):
            raise PerfgateError(f"{repo!r}: expected OWNER/REPO")
        self.repo = repo
        self.token = token if isinstance(token, Secret) else Secret(
            token if token is not None else os.environ.get("GITHUB_TOKEN"))
        if not self.token:
            raise PerfgateError(f"GitHub {repo}: set GITHUB_TOKEN (a token that may write issues, statuses, "
                                f"commit comments, pull-request comments and checks, as the command needs)")
        # checked first: its errors name the variable only, and a refused placeholder ("1") left
        # registered would hide every "1" of the process's later messages
        self.token.check_header_safe("GITHUB_TOKEN")
        register(self.token)
        self.api_url = (api_url or os.environ.get("GITHUB_API_URL") or DEFAULT_API).rstrip("/")
        split_url(self.api_url, "GITHUB_API_URL")   # a bad one is an error, not a target that is down
        headers = {"Accept": "application/vnd.github+json", "X-GitHub-Api-Version": "2022-11-28",
                   "Authorization": f"Bearer {self.token.reveal()}"}
        self.http = Http("github", base_url=self.api_url, headers=headers, policy=policy, **http_kw)

    def __repr__(self) -> str:
        return f"GitHub({self.repo!r}, token={self.token!r})"

    def close(self) -> None:
        self.http.close()

    def ensure(self, find: Callable[[], T | None], create: Callable[[], T]) -> T:
        """``find()`` or else ``create()``, exactly once even when an attempt's answer is lost:
        a create whose connection dropped (or that got 5xx/429) may have happened, so before
        trying again the lookup runs again.  Reads are retried as usual; creates never blindly."""
        last: DeliveryUnreachable | None = None
        for attempt in range(self.http.policy.attempts):
            found = find()
            if found is not None:
                return found
            try:
                return create()
            except DeliveryUnreachable as e:
                last = e
                if attempt + 1 < self.http.policy.attempts:
                    self.http.pause(attempt, e.retry_after)
        raise last

    def _json(self, method: str, path: str, fields: dict[str, str] | None = None, **kw: Any) -> dict:
        """The answer's object, its ``fields`` checked (see :func:`_checked`)."""
        response = self.http.request(method, f"/repos/{self.repo}{path}", **kw)
        where = f"{method} github /repos/{self.repo}{path}"
        return _checked(self._decode(method, path, response), fields or {}, where)

    def _pages(self, path: str, params: dict[str, Any], fields: dict[str, str] | None = None) -> Iterator[dict]:
        page = 1
        while True:
            response = self.http.request("GET", f"/repos/{self.repo}{path}",
                                         params={**params, "per_page": PER_PAGE, "page": page})
            items = self._decode("GET", path, response)
            where = f"GET github /repos/{self.repo}{path}"
            if not isinstance(items, list):
                raise DeliveryRejected(f"{where}: the answer is not GitHub's: not a list")
            for item in items:
                yield _checked(item, fields or {}, where, "an item")
            if "next" not in response.links or len(items) < PER_PAGE:
                return
            page += 1

    def _decode(self, method: str, path: str, response: Any) -> Any:
        # A proxy's 2xx page (or a GITHUB_API_URL that is no GitHub API) is a refused delivery, not a
        # crash; its body is never quoted: a login page may carry a session.
        try:
            return response.json()
        except ValueError:
            kind = visible(response.headers.get("content-type", "?"))[:60]
            raise DeliveryRejected(f"{method} github /repos/{self.repo}{path}: the answer is not JSON "
                                   f"(HTTP {response.status_code}, {kind})") from None

    # --- issues ---------------------------------------------------------------------------------

    def find_issue(self, marker: str) -> dict | None:
        """The perfgate issue whose body carries ``marker`` (open or closed), oldest first."""
        for issue in self._pages("/issues", {"state": "all", "labels": LABEL, "sort": "created",
                                             "direction": "asc"}, ISSUE):
            if marker in (issue.get("body") or ""):
                return issue
        return None

    def create_issue(self, title: str, body: str) -> dict:
        return self._json("POST", "/issues", ISSUE, json={"title": title[:256], "body": body, "labels": [LABEL]},
                          retry=False)

    def close_issue(self, number: int) -> dict:
        return self._json("PATCH", f"/issues/{number}", ISSUE, json={"state": "closed", "state_reason": "completed"})

    def edit_issue(self, number: int, title: str, body: str) -> dict:
        return self._json("PATCH", f"/issues/{number}", ISSUE, json={"title": title[:256], "body": body})

    def reopen_issue(self, number: int) -> dict:
        return self._json("PATCH", f"/issues/{number}", ISSUE, json={"state": "open", "state_reason": "reopened"})

    def has_comment(self, number: int, marker: str) -> bool:
        return any(marker in (c.get("body") or "") for c in self.comments(number))

    def comments(self, number: int) -> Iterator[dict]:
        return self._pages(f"/issues/{number}/comments", {}, COMMENT)

    def comment(self, number: int, body: str) -> dict:
        return self._json("POST", f"/issues/{number}/comments", COMMENT, json={"body": body}, retry=False)

    def update_comment(self, comment_id: int, body: str) -> dict:
        return self._json("PATCH", f"/issues/comments/{comment_id}", COMMENT, json={"body": body})

    # --- pull requests and check runs -----------------------------------------------------------

    def open_pulls(self) -> Iterator[dict]:
        return self._pages("/pulls", {"state": "open"}, PULL)

    def create_check_run(self, head_sha: str, name: str, conclusion: str, title: str, summary: str) -> dict:
        # Repeated after a lost answer, a check run is shown once: GitHub shows a name's latest.
        return self._json("POST", "/check-runs", {"id": "int"},
                          json={"name": name, "head_sha": head_sha, "status": "completed", "conclusion": conclusion,
                                "output": {"title": title, "summary": summary}})

    # --- commit statuses ------------------------------------------------------------------------

    def statuses(self, sha: str) -> list[dict]:
        """The commit's statuses, newest first (as the API lists them)."""
        return list(self._pages(f"/commits/{sha}/statuses", {}, STATUS))

    def set_status(self, sha: str, state: str, context: str, description: str, target_url: str | None) -> dict:
        body = {"state": state, "context": context, "description": description[:140]}
        if target_url:
            body["target_url"] = target_url
        return self._json("POST", f"/statuses/{sha}", STATUS, json=body, retry=False)

    # --- commit comments ------------------------------------------------------------------------

    def find_commit_comment(self, sha: str, marker: str) -> dict | None:
        return next((c for c in self.commit_comments(sha) if marker in (c.get("body") or "")), None)

    def commit_comments(self, sha: str) -> Iterator[dict]:
        """The commit's comments, oldest first.  The SHA comes from stored data: quoted, so it
        cannot name another path."""
        return self._pages(f"/commits/{quote(sha, safe='')}/comments", {}, COMMENT)

    def comment_on_commit(self, sha: str, body: str) -> dict:
        return self._json("POST", f"/commits/{quote(sha, safe='')}/comments", COMMENT, json={"body": body},
                          retry=False)


def _checked(value: Any, fields: dict[str, str], where: str, what: str = "") -> dict:
    """``value`` when it is an object whose ``fields`` (dotted: nested) have the kinds named."""
    if not isinstance(value, dict):
        raise DeliveryRejected(f"{where}: the answer is not GitHub's: {what + ' is ' if what else ''}not an object")
    for name, kind in fields.items():
        found: Any = value
        for part in name.split("."):
            found = found.get(part) if isinstance(found, dict) else None
        wanted, label = _KINDS[kind.rstrip("?")]
        if found is None and kind.endswith("?"):
            continue
        if not isinstance(found, wanted) or isinstance(found, bool):
            raise DeliveryRejected(f"{where}: the answer is not GitHub's: {name!r} is not {label}")
    return value
