"""GitHub (or a proxy in front of it) answering 2xx with what its contract never says: an HTML
page, ``{}``, a list of strings.  An audit: each ended notify (all three GitHub channels) and
``perfgate comment`` with an internal error (exit 3: JSONDecodeError, KeyError, AttributeError,
TypeError), and the crash kept the webhook later in the same run from delivering.  Each is now a
refused delivery naming the endpoint (never echoing the body), the other channels deliver, and
the next run does the work once."""

from __future__ import annotations

import json
import random

import pytest
from fake_github.fixtures import FAST, REPO, TOKEN, fake_github, make_alert, receiver, sha  # noqa: F401
from test_comment import FORK, HEAD, artifacts, fake  # noqa: F401
from test_notify_cli import env_for, seed

from perfgate.cli import main
from perfgate.notify.base import Links
from perfgate.notify.deliver import deliver_all
from perfgate.notify.github_commit_comment import GitHubCommitCommentChannel
from perfgate.notify.github_issues import GitHubIssuesChannel
from perfgate.notify.github_status import GitHubStatusChannel
from perfgate.notify.ledger import Ledger
from perfgate.notify.webhook import WebhookChannel
from perfgate.store.sqlite import SqliteStore

LINKS = Links("https://acme.github.io/widget", "https://github.com/acme/widget")
# what a misconfigured proxy's page may hold: it must never reach a message
PAGE = b"<html>502 Bad Gateway; session=SECRETcookie42</html>"


def channel(cls, fake):
    return cls(REPO, LINKS, token=TOKEN, api_url=fake.url, policy=FAST, sleep=lambda s: None, rng=random.Random(1))


ISSUES, STATUSES = f"/repos/{REPO}/issues", f"/repos/{REPO}/commits/{sha(10)}/statuses"
STATUS, COMMIT = f"/repos/{REPO}/statuses/{sha(10)}", f"/repos/{REPO}/commits/{sha(10)}/comments"


def not_json(method, path, status):
    return f"{method} github {path}: the answer is not JSON (HTTP {status}, text/html; charset=utf-8)"


def not_githubs(method, path, what):
    return f"{method} github {path}: the answer is not GitHub's: {what}"


CASES = [  # channel, the request answered, its answer, the reason the event is refused
    (GitHubIssuesChannel, "GET", ISSUES, 200, PAGE, not_json("GET", ISSUES, 200)),
    (GitHubIssuesChannel, "GET", ISSUES, 200, ["x"], not_githubs("GET", ISSUES, "an item is not an object")),
    (GitHubIssuesChannel, "GET", ISSUES, 200, [{"number": "one", "body": None}],
     not_githubs("GET", ISSUES, "'number' is not an integer")),
    (GitHubIssuesChannel, "POST", ISSUES, 201, {}, not_githubs("POST", ISSUES, "'number' is not an integer")),
    (GitHubIssuesChannel, "POST", ISSUES, 201, PAGE, not_json("POST", ISSUES, 201)),
    (GitHubStatusChannel, "GET", STATUSES, 200, PAGE, not_json("GET", STATUSES, 200)),
    (GitHubStatusChannel, "GET", STATUSES, 200, {"state": "failure"}, not_githubs("GET", STATUSES, "not a list")),
    (GitHubStatusChannel, "GET", STATUSES, 200, [{"id": 1, "state": "failure"}],
     not_githubs("GET", STATUSES, "'context' is not text")),
    (GitHubStatusChannel, "POST", STATUS, 201, ["x"], not_githubs("POST", STATUS, "not an object")),
    (GitHubStatusChannel, "POST", STATUS, 201, {}, not_githubs("POST", STATUS, "'id' is not an integer")),
    (GitHubCommitCommentChannel, "GET", COMMIT, 200, PAGE, not_json("GET", COMMIT, 200)),
    (GitHubCommitCommentChannel, "GET", COMMIT, 200, [{"id": 5, "body": 7}],
     not_githubs("GET", COMMIT, "'body' is not text")),
    (GitHubCommitCommentChannel, "POST", COMMIT, 201, {}, not_githubs("POST", COMMIT, "'id' is not an integer")),
]


@pytest.mark.parametrize("cls, method, path, status, body, reason", CASES,
                         ids=[f"{c[0].kind}-{c[1]}-{i}" for i, c in enumerate(CASES)])
def test_an_answer_githubs_contract_never_gives_is_refused_and_the_next_run_does_the_work_once(
        tmp_path, fake_github, receiver, cls, method, path, status, body, reason):
    with SqliteStore(tmp_path / "history.db") as store, Ledger(tmp_path / "notify.db") as ledger:
        (a,) = store.record_alerts([make_alert(10)])
        fake_github.inject("reply", method=method, path=path, status=status, body=body)
        hook = WebhookChannel(receiver.url, LINKS, policy=FAST, sleep=lambda s: None, rng=random.Random(1))
        gh, wh = deliver_all(store.alerts(), [channel(cls, fake_github), hook], ledger)
        assert fake_github.faults == [], "the garbled answer was not met"
        assert gh.delivered == [] and [e for e, _ in gh.rejected] == [f"{a.id}:raised"]
        why = gh.rejected[0][1]
        assert why == reason
        assert "SECRETcookie42" not in why and "\n" not in why
        assert wh.delivered == [f"{a.id}:raised"] and len(receiver.processed) == 1   # the webhook still hears of it
        (gh,) = deliver_all(store.alerts(), [channel(cls, fake_github)], ledger)
        assert gh.delivered == [f"{a.id}:raised"] and not gh.rejected
    # exactly once, even where the garbled answer came after GitHub did the work
    assert len(fake_github.issues) == (1 if cls is GitHubIssuesChannel else 0)
    assert len(fake_github.commit_comments.get(sha(10), [])) == (1 if cls is GitHubCommitCommentChannel else 0)
    states = [s["state"] for s in fake_github.statuses.get(sha(10), [])]
    assert states == (["failure"] if cls is GitHubStatusChannel else [])


def test_notify_with_a_garbled_answer_exits_2_naming_the_endpoint_and_the_webhook_still_delivers(
        cli, store_path, fake_github, receiver):
    """The tester's run: every GET answered 200 with an HTML page."""
    (a,) = seed(store_path, make_alert(10))
    fake_github.inject("reply", method="GET", status=200, body=PAGE, times=100)
    proc = cli("notify", "--channel", f"github-issues:{REPO}", "--channel", "webhook:env:HOOK_URL",
               env={**env_for(fake_github), "HOOK_URL": receiver.url})
    assert proc.returncode == 2, proc.stderr
    assert "internal error" not in proc.stderr and "Traceback" not in proc.stderr
    [line] = proc.stderr.splitlines()
    assert line == f"refused {a.id}:raised: {not_json('GET', ISSUES, 200)}"
    assert len(receiver.processed) == 1 and "webhook" in proc.stdout and "1 message(s) sent" in proc.stdout
    assert "SECRETcookie42" not in proc.stdout + proc.stderr and TOKEN not in proc.stdout + proc.stderr


PULLS, COMMENTS = "/repos/owner/project/pulls", "/repos/owner/project/issues/8/comments"


@pytest.mark.parametrize("method, path, body, reason", [
    ("GET", PULLS, PAGE, not_json("GET", PULLS, 200)),
    ("GET", PULLS, ["x"], not_githubs("GET", PULLS, "an item is not an object")),
    ("GET", PULLS, [{"number": 1}], not_githubs("GET", PULLS, "'head' is not an object")),
    ("GET", PULLS, [{"number": 1, "head": {"sha": HEAD, "repo": "x"}}],
     not_githubs("GET", PULLS, "'head.repo' is not an object")),
    ("GET", COMMENTS, [{"id": 1, "body": "x", "user": "bot"}], not_githubs("GET", COMMENTS, "'user' is not an object")),
    ("POST", COMMENTS, {}, not_githubs("POST", COMMENTS, "'id' is not an integer")),
    ("POST", "/repos/owner/project/check-runs", {}, not_githubs("POST", "/repos/owner/project/check-runs",
                                                                "'id' is not an integer")),
])
def test_comment_with_a_garbled_answer_exits_2_naming_the_endpoint(tmp_path, fake, capsys, method, path, body, reason):
    fake.add_pull(8, HEAD, FORK)
    folder = artifacts(tmp_path, check=("❌ slower\n", "regression"))
    argv = ["comment", "--artifacts", str(folder), "--repo", fake.repo, "--head-sha", HEAD, "--head-repo", FORK]
    fake.inject("reply", method=method, path=path, status=200 if method == "GET" else 201, body=body)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "internal error" not in err and reason in err and "SECRETcookie42" not in err, err
    assert len(err.strip().splitlines()) == 1, err
    assert main(argv) == 0, capsys.readouterr().err         # the next run: one comment, updated, not doubled
    assert len(fake.comments[8]) == 1 and json.dumps(fake.comments[8]).count("slower") == 1
