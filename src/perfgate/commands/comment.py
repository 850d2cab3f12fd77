"""Post the pull-request check's verdicts: one sticky comment and one check run per job.

Runs in the privileged ``workflow_run`` workflow.  Each ``perfgate-pr-<job>/`` folder of the
downloaded artifacts holds ``comment.md`` and ``outcome`` (ok / regression / no-verdict / error);
where they are written is decided by :mod:`perfgate.github.routing`, never by the artifact.  The
token comes from ``$GITHUB_TOKEN`` (or ``$GH_TOKEN``) and the API from ``$GITHUB_API_URL``.
"""

from __future__ import annotations

import argparse
import os
import re
from pathlib import Path

from perfgate import inputs
from perfgate.errors import EXIT_OK, InputError, PerfgateError
from perfgate.github.client import GitHub
from perfgate.github.routing import CONCLUSIONS, comment_body, find_pull, upsert_comment
from perfgate.output import emit_json, err

NAME = "comment"
HELP = "post the PR check's verdicts as a sticky comment and a check run (the fork-safe workflow)"
ORDER = 90
EPILOG = """example (in a workflow_run workflow, after downloading the perfgate-pr-* artifacts):
  perfgate comment --artifacts artifacts --repo "$REPO" --head-sha "$HEAD_SHA" --head-repo "$HEAD_REPO" """
_JOB = re.compile(r"^perfgate-pr-([A-Za-z0-9._-]{1,100})$")
# A check writes a comment of at most MAX_CHARS (60,000) characters, 240,000 bytes of UTF-8 at
# worst; a longer one is cut to that when posted.  1 MiB leaves room for a hand-made one and
# refuses what no check wrote (a file of any size was read whole, to post 60,000 characters).
MAX_COMMENT_BYTES = 1 << 20
MAX_OUTCOME_BYTES = 64   # one word: ok, regression, no-verdict or error


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--artifacts", required=True, metavar="DIR", help="folder holding the perfgate-pr-<job>/ artifacts")
    p.add_argument("--repo", required=True, help="OWNER/REPO the workflow runs in")
    p.add_argument("--head-sha", required=True, help="the triggering run's head SHA (github.event.workflow_run.head_sha)")
    p.add_argument("--head-repo", required=True, help="the triggering run's head repository (full name)")
    p.add_argument("--run-url", default="", help="link to the triggering run")
    p.add_argument("--bot", default="github-actions[bot]", help="login whose comments may be updated (default: %(default)s)")


def run(args: argparse.Namespace) -> int:
    token = os.environ.get("GITHUB_TOKEN") or os.environ.get("GH_TOKEN")
    if not token:
        raise PerfgateError("no token: set GITHUB_TOKEN (the workflow's github.token)")
    gh = GitHub(args.repo, token)   # refuses a repository name or a token no header can carry
    try:
        if not re.fullmatch(r"[0-9a-f]{40}", args.head_sha):
            raise InputError("--head-sha", "", f"{args.head_sha!r} is not a 40-character commit SHA")
        jobs = _jobs(Path(args.artifacts))
        number = find_pull(gh, args.head_sha, args.head_repo)
        if number is None:
            err.print(f"comment: no single open pull request has head {args.head_sha[:7]} from "
                      f"{args.head_repo}; nothing posted")
            if args.json:
                emit_json({"pull_request": None, "posted": []})
            return EXIT_OK
        posted = []
        for job, text, outcome in jobs:
            body = comment_body(job, text, args.run_url)
            action, comment_id = upsert_comment(gh, number, job, body, args.bot)
            conclusion = CONCLUSIONS.get(outcome, "action_required")
            label = outcome.replace("-", " ") if outcome in CONCLUSIONS else "error"   # "perfgate: no verdict"
            gh.create_check_run(args.head_sha, f"perfgate ({job})", conclusion, f"perfgate: {label}", body)
            posted.append({"job": job, "comment": action, "comment_id": comment_id, "conclusion": conclusion})
            err.print(f"comment: {action} the {job} comment on #{number}; check run {conclusion}")
    finally:
        gh.close()
    if args.json:
        emit_json({"pull_request": number, "posted": posted})
    return EXIT_OK


def _present(file: Path) -> bool:
    """Whether ``file`` is there in any form: a device, FIFO or symlink is refused by the read, not skipped."""
    return file.exists() or file.is_symlink()


def _read(file: Path, limit: int) -> str:
    # The artifact is the pull request's: read bounded, never through a link (a comment.md linking
    # to a file of the runner would post it); bytes that are no UTF-8 posted as U+FFFD, as before.
    return inputs.read_bytes(file, limit, follow_links=False).decode("utf-8", errors="replace")


def _jobs(artifacts: Path) -> list[tuple[str, str, str]]:
    """(job, comment text, outcome) of each ``perfgate-pr-<job>/`` folder of the artifacts, all
    read before any call to GitHub, so a refused one posts nothing."""
    jobs = []
    for folder in sorted(artifacts.glob("perfgate-pr-*")):
        m = _JOB.match(folder.name)
        if not m or not folder.is_dir() or not _present(folder / "comment.md"):
            err.print(f"comment: skipping {folder.name}: not a perfgate-pr-<job> folder with comment.md")
            continue
        outcome = _read(folder / "outcome", MAX_OUTCOME_BYTES).strip() if _present(folder / "outcome") else "error"
        jobs.append((m.group(1), _read(folder / "comment.md", MAX_COMMENT_BYTES), outcome))
    if not jobs:
        raise InputError(str(artifacts), "", "no perfgate-pr-<job>/comment.md found")
    return jobs
