"""The github-commit-comment channel (github-action-benchmark's comment-on-alert): through the
real CLI against the contract-checking GitHub fake, killed mid-delivery and run again; and in
process for faults, reopenings and updates."""

from __future__ import annotations

import json
import random
import re
import signal

import httpx
import pytest
from fake_github.fixtures import FAST, REPO, TOKEN, fake_github, make_alert, sha, withdraw_refind_and_bisect  # noqa: F401
from test_notify_cli import _killed_mid_delivery, env_for, seed

from perfgate.notify.base import Links
from perfgate.notify.deliver import deliver_all
from perfgate.notify.events import Event
from perfgate.notify.github_commit_comment import GitHubCommitCommentChannel
from perfgate.notify.ledger import Ledger
from perfgate.store.sqlite import SqliteStore

CHANNEL = ["--channel", f"github-commit-comment:{REPO}"]
LINK_ARGS = ["--repo-url", "https://github.com/acme/widget", "--pages-url", "https://acme.github.io/widget"]
LINKS = Links("https://acme.github.io/widget", "https://github.com/acme/widget")


def notify(cli, fake, *extra):
    proc = cli("notify", *CHANNEL, *LINK_ARGS, "--json", *extra, env=env_for(fake))
    assert proc.returncode == 0, proc.stderr
    [report] = json.loads(proc.stdout)["channels"]
    return report, proc


def bodies(fake, commit):
    return [c["body"] for c in fake.commit_comments.get(commit, [])]


def creates(fake):
    return [r for r in fake.requests if r["op"] == "repos/create-commit-comment"]


def outside_code(markdown: str) -> str:
    """What GitHub renders as Markdown: the text outside code spans."""
    return re.sub(r"(`+).*?\1", "", markdown)


def test_a_regression_is_commented_on_its_culprit_commit_once(cli, store_path, fake_github):
    reg, imp = seed(store_path, make_alert(10, span=3),
                    make_alert(30, benchmark="hash", direction="improvement", magnitude=-0.2))
    report, proc = notify(cli, fake_github)
    assert report["channel"] == f"github-commit-comment:{REPO}" and report["delivered"] == [f"{reg.id}:raised"]
    # the first suspect only; an improvement is not commented on
    assert list(fake_github.commit_comments) == [sha(10)]
    [body] = bodies(fake_github, sha(10))
    assert body.startswith("perfgate found a regression of `sort 1e6` [`latency`] on `main`. "
                           f"This commit is one of 3 suspects ([`{sha(10)[:10]}^..{sha(12)[:10]}`]"
                           f"(https://github.com/acme/widget/compare/{sha(9)}...{sha(12)})); "
                           f"`perfgate bisect {reg.id}` finds which.")
    assert "| change | +12.00% (99% CI [+9.60%, +14.40%]) — regression |" in body
    assert "p = 0.0001 (confidence 99.99%)" in body
    assert f"[`{sha(10)[:10]}`](https://github.com/acme/widget/commit/{sha(10)}) (likeliest)" in body
    assert "Trend: https://acme.github.io/widget/index.html#sort%201e6%7Clatency%7Cmain%7Cci-x86" in body
    assert f"`perfgate alerts --ack {reg.id}`" in body and body.endswith(f"<!-- perfgate-event:{reg.id}:raised -->")
    # again: the ledger knows; nothing is read or written
    writes = len(fake_github.writes())
    report, proc = notify(cli, fake_github)
    assert report["delivered"] == [] and report["already_delivered"] == 1
    assert len(fake_github.writes()) == writes and len(bodies(fake_github, sha(10))) == 1
    assert TOKEN not in proc.stdout + proc.stderr
    assert TOKEN.encode() not in b"".join(p.read_bytes() for p in store_path.parent.glob("notify.db*"))


def test_a_bad_spec_or_no_token_is_a_usage_error(cli, store_path, fake_github):
    seed(store_path, make_alert(10))
    proc = cli("notify", "--channel", "github-commit-comment:not-a-repo", env=env_for(fake_github))
    assert proc.returncode == 2 and "expected OWNER/REPO" in proc.stderr
    proc = cli("notify", "--channel", "slack:x")
    assert proc.returncode == 2 and "github-commit-comment:..." in proc.stderr
    proc = cli("notify", *CHANNEL, env={"GITHUB_TOKEN": ""})
    assert proc.returncode == 2 and "set GITHUB_TOKEN" in proc.stderr
    assert not fake_github.requests


def test_one_commit_names_no_suspects(cli, store_path, fake_github):
    (reg,) = seed(store_path, make_alert(10))
    notify(cli, fake_github)
    [body] = bodies(fake_github, sha(10))
    assert "suspects" not in body and "| first bad commit |" in body


def test_killed_between_posting_and_recording_no_second_comment(cli, store_path, fake_github):
    a, b = seed(store_path, make_alert(10), make_alert(20, benchmark="parse"))
    code = _killed_mid_delivery(store_path, [*CHANNEL, *LINK_ARGS], env_for(fake_github),
                                lambda kill: fake_github.inject("drop_after", method="POST", path="/comments",
                                                                hook=kill))
    assert code == -signal.SIGKILL and len(bodies(fake_github, sha(10))) == 1   # posted, never recorded
    report, _ = notify(cli, fake_github)
    assert report["delivered"] == [f"{a.id}:raised", f"{b.id}:raised"]
    assert len(bodies(fake_github, sha(10))) == 1 and len(bodies(fake_github, sha(20))) == 1
    assert len(creates(fake_github)) == 2                 # the first found by its marker, not posted again
    report, _ = notify(cli, fake_github)
    assert report["delivered"] == []


def test_closing_comments_say_how_the_regression_closed(cli, store_path, fake_github):
    acked, fixed = seed(store_path, make_alert(10), make_alert(20, benchmark="parse"))
    notify(cli, fake_github)
    with SqliteStore(store_path) as store:
        store.acknowledge(acked.id)
        (fix,) = store.record_alerts([make_alert(30, benchmark="parse", direction="improvement", magnitude=-0.2)])
    report, _ = notify(cli, fake_github)
    assert sorted(report["delivered"]) == sorted([f"{acked.id}:closed", f"{fixed.id}:closed"])
    assert sha(30) not in fake_github.commit_comments                      # the fix itself: no comment
    raised, closed = bodies(fake_github, sha(10))
    assert closed == ("Closing the regression alert on `sort 1e6` [`latency`] on `main` (+12.00%): The alert was "
                      "acknowledged: the change was accepted, not undone, so the benchmark keeps its new level.\n\n"
                      f"<!-- perfgate-event:{acked.id}:closed -->")
    raised, closed = bodies(fake_github, sha(20))
    assert closed.startswith("Closing the regression alert on `parse` [`latency`] on `main` (+12.00%): A later "
                             f"change undid it: -20.00% at [`{sha(30)[:10]}`](https://github.com/acme/widget/commit/"
                             f"{sha(30)}) (alert `{fix.id}`).")


def test_a_hostile_benchmark_name_is_shown_not_obeyed(cli, store_path, fake_github):
    hostile = "sort @octocat ![x](http://e) [y](http://e) <img src=x> *b* #1 www.e.org"
    (alert,) = seed(store_path, make_alert(10, benchmark=hostile, span=2))
    notify(cli, fake_github)
    with SqliteStore(store_path) as store:
        store.acknowledge(alert.id)
    notify(cli, fake_github)
    raised, closed = bodies(fake_github, sha(10))
    # the trend link's anchor holds the name percent-encoded: nothing in it but unreserved characters
    trend = re.compile(r"Trend: https://acme\.github\.io/widget/index\.html#[A-Za-z0-9_.~%-]+\n")
    assert trend.search(raised)
    for body in (raised, trend.sub("", closed)):
        assert f"`{hostile}`" in body                       # shown as it is, in a code span
        rendered = outside_code(trend.sub("", body))
        for inert in ("@octocat", "![", "](http://e)", "<img", "*b*", "#1", "www.e.org"):
            assert inert not in rendered, (inert, rendered)


def test_the_fake_holds_commit_comments_to_the_contract(fake_github):
    headers = {"Authorization": f"Bearer {TOKEN}", "Accept": "application/vnd.github+json"}
    base = f"{fake_github.url}/repos/{REPO}/commits/{sha(1)}/comments"
    for method, url, body in [("POST", base, {"text": "no body"}),          # body is required
                              ("POST", base, {"body": 7}),                  # and a string
                              ("GET", f"{base}?per_page=many", None)]:      # not an integer
        r = httpx.request(method, url, json=body, headers=headers)
        assert r.status_code == 422, (method, url, r.text)
    assert len(fake_github.problems) >= 3 and not fake_github.commit_comments
    fake_github.problems.clear()
    r = httpx.post(f"{fake_github.url}/repos/{REPO}/commits/not-a-sha/comments", json={"body": "x"}, headers=headers)
    assert r.status_code == 422 and "No commit found" in r.text and not fake_github.problems


# --- in process -----------------------------------------------------------------------------------

class Sleeps(list):
    def __call__(self, seconds: float) -> None:
        self.append(seconds)


def channel(fake, sleeps=None):
    return GitHubCommitCommentChannel(REPO, LINKS, token=TOKEN, api_url=fake.url, policy=FAST,
                                      sleep=Sleeps() if sleeps is None else sleeps, rng=random.Random(1))


@pytest.mark.parametrize("fault", [dict(kind="drop_after", method="POST", path="/comments"),
                                   dict(kind="status", status=502, method="POST", path="/comments"),
                                   dict(kind="status", status=429, retry_after="2", method="POST"),
                                   dict(kind="drop", method="GET", times=2)])
def test_github_faults_never_duplicate_a_commit_comment(tmp_path, fake_github, fault):
    with SqliteStore(tmp_path / "history.db") as store:
        (a,) = store.record_alerts([make_alert(10)])
        store.acknowledge(a.id)
        fake_github.inject(**fault)
        sleeps = Sleeps()
        with Ledger(tmp_path / "notify.db") as ledger:
            (report,) = deliver_all(store.alerts(), [channel(fake_github, sleeps)], ledger)
    assert report.delivered == [f"{a.id}:raised", f"{a.id}:closed"] and not (report.spooled or report.rejected)
    raised, closed = bodies(fake_github, sha(10))
    assert raised.startswith("perfgate found a regression") and closed.startswith("Closing the regression alert")
    assert sleeps, "the fault was not hit"


def test_a_regression_found_again_and_one_bisect_moved_are_told_on_their_commits(tmp_path, fake_github):
    with SqliteStore(tmp_path / "history.db") as store, Ledger(tmp_path / "notify.db") as ledger:
        a, b = store.record_alerts([make_alert(10), make_alert(20, benchmark="parse", span=4)])
        deliver_all(store.alerts(), [channel(fake_github)], ledger)
        b = withdraw_refind_and_bisect(store, b.id)
        (report,) = deliver_all(store.alerts(), [channel(fake_github)], ledger)
        assert report.delivered == [f"{a.id}:closed", f"{a.id}:reopened", f"{b.id}:updated:change_point@{sha(22)}"]
    # an update that keeps the commit (a threshold alert a change point confirms there) says nothing new there
    still = make_alert(60)
    still.details = {**still.details, "superseded": "threshold", "superseded_from": {"commit": still.commit}}
    assert not channel(fake_github).handles(Event("updated", still))
    _, closed, reopened = bodies(fake_github, sha(10))
    assert closed.startswith("Closing the regression alert on `sort 1e6`") and "No longer found" in closed
    assert reopened.startswith(f"Found again: the analysis of the runs up to `{sha(50)[:10]}` finds this change "
                               "again") and "| change | +12.00%" in reopened
    [moved] = bodies(fake_github, sha(22))
    assert moved.startswith("Updated: bisect narrowed it to one commit; it is now +12.00% at "
                            f"[`{sha(22)[:10]}`](https://github.com/acme/widget/commit/{sha(22)}) "
                            f"(was at `{sha(20)[:10]}`).")
    assert len(bodies(fake_github, sha(20))) == 1                             # told once, before bisect
