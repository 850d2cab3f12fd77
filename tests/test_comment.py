"""`perfgate comment` against the fake GitHub server, which validates every request and response
against GitHub's published contract: the pull request is found from the head SHA and repository
(never the artifact), a sticky comment is updated only when the bot wrote it with this job's
marker, matrix jobs keep one comment each, a check run carries the verdict, and a lost answer
neither loses nor doubles the comment."""

from __future__ import annotations

import argparse
import os

import pytest

from fake_github.server import FakeGitHub
from perfgate.cli import main
from perfgate.commands import comment as comment_verb
from perfgate.errors import PerfgateError
from perfgate.http_client import DeliveryRejected
from perfgate.report.markdown import marker

HEAD = "a" * 40
FORK = "someone/project"
BOT = "github-actions[bot]"
TOKEN = "ghs_secretTOKENfortheCOMMENTtests0123"


@pytest.fixture
def fake(monkeypatch):
    server = FakeGitHub(TOKEN, "owner/project", login=BOT).start()
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    monkeypatch.setenv("GITHUB_API_URL", server.url)
    for name, value in {"BACKOFF": "0.01", "MAX_BACKOFF": "0.05", "TIMEOUT": "2", "ATTEMPTS": "4"}.items():
        monkeypatch.setenv(f"PERFGATE_NOTIFY_{name}", value)
    yield server
    server.stop()
    assert not server.problems, "requests/responses that break GitHub's contract:\n" + "\n".join(server.problems)


def artifacts(tmp_path, **jobs):
    for job, (text, outcome) in jobs.items():
        folder = tmp_path / "artifacts" / f"perfgate-pr-{job}"
        folder.mkdir(parents=True)
        (folder / "comment.md").write_text(text)
        (folder / "outcome").write_text(outcome + "\n")
    return tmp_path / "artifacts"


def post(fake, folder, head_sha=HEAD, head_repo=FORK):
    args = argparse.Namespace(artifacts=str(folder), repo=fake.repo, head_sha=head_sha, head_repo=head_repo,
                              run_url="https://github.example/owner/project/actions/runs/9", bot=BOT, json=False)
    assert comment_verb.run(args) == 0
    assert fake.problems == []


def bodies(fake, number):
    return [(c["user"]["login"], c["body"]) for c in fake.comments[number]]


def test_the_pull_request_comes_from_the_head_sha_and_the_artifacts_marker_is_ignored(tmp_path, fake):
    fake.add_pull(7, "b" * 40, FORK)                    # another PR of the same fork
    fake.add_pull(8, HEAD, FORK)                        # the one whose head was checked
    fake.add_comment(7, BOT, marker("check") + "\nthe verdict of PR 7\n")
    # The fork's artifact tries to pass as PR 7's comment: its marker is dropped, ours is set.
    folder = artifacts(tmp_path, check=(marker("check") + "\n<!-- perfgate-comment:other -->\n❌ slower\n", "regression"))
    post(fake, folder)
    assert bodies(fake, 7) == [(BOT, marker("check") + "\nthe verdict of PR 7\n")]
    [comment] = fake.comments[8]
    assert comment["body"].startswith(marker("check") + "\n❌ slower")
    assert comment["body"].count("perfgate-comment") == 1 and "actions/runs/9" in comment["body"]
    [check] = fake.check_runs
    assert check["head_sha"] == HEAD and check["conclusion"] == "failure" and check["name"] == "perfgate (check)"


def test_a_no_verdict_is_a_neutral_check_run_not_an_error(tmp_path, fake):
    """A check that judged nothing (every benchmark renamed) was an error: a check run
    "action_required" titled "perfgate: error".  It is neutral, titled "perfgate: no verdict", its
    summary the comment saying why; an error is still one.  (The fake holds both to the contract.)"""
    from perfgate.detect.compare import compare_rounds
    from perfgate.report.markdown import comparison_markdown

    fake.add_pull(5, HEAD, FORK)
    renamed = compare_rounds({("old", "latency"): [[1.0, 1.1]] * 3}, {("new", "latency"): [[1.0, 1.1]] * 3})
    renamed.base, renamed.head = {"branch": "main", "commit": "b" * 40}, {"branch": "pr", "commit": HEAD}
    text = comparison_markdown(renamed, key="check")
    post(fake, artifacts(tmp_path, check=(text, "no-verdict"), build=("could not run\n", "error")))
    by_name = {r["name"]: r for r in fake.check_runs}
    verdict = by_name["perfgate (check)"]
    assert verdict["conclusion"] == "neutral" and verdict["output"]["title"] == "perfgate: no verdict"
    assert "⚪ **No verdict: nothing compared: no benchmark was measured on both sides" in verdict["output"]["summary"]
    assert (by_name["perfgate (build)"]["conclusion"], by_name["perfgate (build)"]["output"]["title"]) == \
        ("action_required", "perfgate: error")
    [comment] = [c for c in fake.comments[5] if c["body"].startswith(marker("check"))]
    assert "⚪ **No verdict: nothing compared" in comment["body"]


def test_sticky_by_bot_author_and_marker_per_job(tmp_path, fake):
    fake.add_pull(3, HEAD, FORK)
    impostor = fake.add_comment(3, "mallory", marker("check") + "\nfake verdict\n")   # right marker, wrong author
    mine = fake.add_comment(3, BOT, marker("check") + "\nold verdict\n")
    folder = artifacts(tmp_path, check=("✅ fine\n", "ok"), **{"check-arm64": ("✅ also fine\n", "ok")})
    post(fake, folder)
    by_id = {c["id"]: c for c in fake.comments[3]}
    assert by_id[impostor]["body"] == marker("check") + "\nfake verdict\n"
    assert by_id[mine]["body"].startswith(marker("check") + "\n✅ fine")
    [new] = [c for c in fake.comments[3] if c["id"] not in (impostor, mine)]
    assert new["body"].startswith(marker("check-arm64") + "\n✅ also fine")
    assert sorted(c["conclusion"] for c in fake.check_runs) == ["success", "success"]
    post(fake, folder)                                  # a re-run updates, never adds
    assert len(fake.comments[3]) == 3


def test_a_lost_answer_neither_loses_nor_doubles_the_comment(tmp_path, fake):
    fake.add_pull(2, HEAD, FORK)
    fake.inject("drop_after", method="POST", path="/issues/2/comments")   # made, but the answer is lost
    fake.inject("status", method="GET", path="/pulls", status=502)
    fake.inject("drop", method="POST", path="/check-runs")
    post(fake, artifacts(tmp_path, check=("❌ slower\n", "regression")))
    assert fake.faults == []                            # every fault was met
    [(login, body)] = bodies(fake, 2)
    assert login == BOT and "❌ slower" in body
    assert [r["conclusion"] for r in fake.check_runs] == ["failure"]


def test_no_single_matching_pull_request_posts_nothing(tmp_path, fake):
    fake.add_pull(4, HEAD, "other/fork")               # same SHA pushed from another repository
    folder = artifacts(tmp_path, check=("text\n", "error"))
    post(fake, folder)
    assert fake.comments == {4: []} and fake.check_runs == []
    fake.add_pull(5, HEAD, FORK)
    fake.add_pull(6, HEAD, FORK)                       # ambiguous: two open PRs with that head
    post(fake, folder)
    assert all(c == [] for c in fake.comments.values()) and fake.check_runs == []


def test_many_open_pull_requests_are_paged(tmp_path, fake):
    for n in range(1, 251):
        fake.add_pull(n, f"{n:040x}", FORK)
    fake.add_pull(251, HEAD, FORK)
    post(fake, artifacts(tmp_path, check=("text\n", "error")))
    assert [n for n, c in fake.comments.items() if c] == [251]
    assert fake.check_runs[0]["conclusion"] == "action_required"
    assert sum(r["op"] == "pulls/list" for r in fake.requests) == 3


def test_a_huge_comment_is_cut_below_githubs_limit(tmp_path, fake):
    fake.add_pull(1, HEAD, FORK)
    post(fake, artifacts(tmp_path, check=("| row |\n" * 20_000, "ok")))
    body = fake.comments[1][0]["body"]
    assert len(body) < 65_536 and "cut to stay under" in body


def test_bad_input_is_refused_before_any_call(tmp_path, fake):
    args = argparse.Namespace(artifacts=str(tmp_path), repo=fake.repo, head_sha="main", head_repo=FORK, run_url="",
                              bot=BOT, json=False)
    with pytest.raises(PerfgateError, match="40-character"):
        comment_verb.run(args)
    args.head_sha = HEAD
    with pytest.raises(PerfgateError, match="no perfgate-pr-<job>/comment.md"):
        comment_verb.run(args)
    (tmp_path / "perfgate-pr-check").mkdir()
    (tmp_path / "perfgate-pr-check" / "comment.md").write_text("text\n")
    args.repo = "not a repository"
    with pytest.raises(PerfgateError, match="expected OWNER/REPO"):
        comment_verb.run(args)
    assert fake.requests == []


@pytest.mark.parametrize("name", ["comment.md", "outcome"])
def test_artifact_files_are_read_bounded(name, tmp_path, fake, capsys):
    """An artifact comes from the pull request's run: its comment.md and outcome were read whole
    (a 2 GB comment.md, all of it, to post 60,000 characters), through any symbolic link (to a
    file of the runner, posted in the comment), and a comment.md that was no regular file was
    skipped.  Each is a regular file within its limit, or exit 2 naming it, before any call to
    GitHub."""
    fake.add_pull(1, HEAD, FORK)
    folder = artifacts(tmp_path, check=("✅ fine\n", "ok"))
    target = folder / "perfgate-pr-check" / name
    argv = ["comment", "--artifacts", str(folder), "--repo", fake.repo, "--head-sha", HEAD, "--head-repo", FORK]
    target.unlink()
    secret = tmp_path / "runner-secret"
    secret.write_text("ok\nthe runner's own file\n")
    for linked in ("/dev/zero", secret):     # a link is refused, whatever it names: the runner's files stay its own
        target.symlink_to(linked)
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert f"{target}: is a symbolic link" in err and "runner's own" not in err, err
        target.unlink()
    os.mkfifo(target)                        # no writer: opening it to read would wait for ever
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert f"{target}: is a FIFO" in err, err
    target.unlink()
    limit = comment_verb.MAX_COMMENT_BYTES if name == "comment.md" else comment_verb.MAX_OUTCOME_BYTES
    target.write_bytes(b"x" * (limit + 1))
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert f"{target}: input is over the {limit}-byte limit" in err, err
    assert fake.requests == []
    target.write_bytes(b"x" * limit if name == "comment.md" else b"ok\n")   # at the limit: read, and cut
    assert main(argv) == 0, capsys.readouterr().err
    assert len(fake.comments[1][0]["body"]) < 65_536


def test_the_fake_holds_requests_to_the_contract(fake):
    from perfgate.github.client import GitHub

    gh = GitHub(fake.repo, TOKEN, fake.url)
    for method, path, kw in (("POST", "check-runs", {"json": {"name": "x", "head_sha": HEAD, "conclusion": "great"}}),
                             ("POST", "issues/1/comments", {"json": {"text": "misspelt field"}}),
                             ("GET", "pulls", {"params": {"state": "opened"}})):
        with pytest.raises(DeliveryRejected, match="HTTP 422"):
            gh.http.request(method, f"/repos/{fake.repo}/{path}", **kw)
    problems, fake.problems = fake.problems, []       # expected here: the fixture fails on any left
    assert any("conclusion" in p and "great" in p for p in problems)
    assert any("create-comment" in p and "body" in p for p in problems)
    assert any("state" in p and "opened" in p for p in problems)
