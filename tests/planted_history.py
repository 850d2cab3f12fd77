"""A throwaway git repository whose history has planted performance changes, measured by a
host-only suite (``--runner host``) so backfill and bisect are tested without Docker.

The suite ``toy`` is a real program: ``work.py`` executes a loop whose trip count is the
number in ``cost.txt`` and reports, in Bencher Metric Format, the iterations it ran as
``instructions`` (deterministic) and its wall time as ``latency`` (noisy; the best of 3 repetitions,
as timing harnesses take, so that one preempted repetition on a loaded machine does not count —
three rounds of single timings once put a 3x slower commit on the fast side under the parallel
test suite).  A commit that
changes ``cost.txt`` changes both.  ``TOY_MEASURES=latency`` leaves the count out (a suite with no deterministic measure).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

BENCH_TOML = """\
name = "toy"
image = "base"
adapter = "bmf"
output = "-"

[profiles.quick]
command = "python3 work.py"
"""

WORK_PY = """\
import json, os, time
cost = int(open("cost.txt").read())
time.sleep(float(os.environ.get("TOY_SLEEP", "0")))
elapsed = None
for _ in range(3):
    start = time.perf_counter_ns()
    total = 0
    for i in range(cost):
        total += i * i
    took = time.perf_counter_ns() - start
    elapsed = took if elapsed is None else min(elapsed, took)
measures = {"instructions": {"value": cost}, "latency": {"value": elapsed}}
wanted = os.environ.get("TOY_MEASURES", "instructions,latency").split(",")
print(json.dumps({"toy/loop": {k: v for k, v in measures.items() if k in wanted}}))
"""

START = 1_700_000_000  # commit dates: one hour apart from here


def git(repo: Path, *args: str, when: int | None = None) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.org"}
    if when is not None:
        env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = f"@{when} +0000"
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True,
                          env=env).stdout.strip()


def make_history(repo: Path, costs: list[int], project: str = "") -> list[str]:
    """One commit per entry of ``costs`` (the loop's trip count at that commit); returns the
    commits, oldest first.  ``project``: the folder of the repository holding ``benches/`` (a
    monorepo's project; default: the top level)."""
    suite = repo / project / "benches" / "toy"
    return _commits(repo, suite, WORK_PY, [({suite / "cost.txt": f"{cost}\n", repo / "log.txt": f"commit {i}\n"},
                                            f"commit {i} (cost {cost})") for i, cost in enumerate(costs)])


def _commits(repo: Path, suite: Path, work_py: str, commits: list[tuple[dict[Path, str], str]]) -> list[str]:
    """A repository whose toy suite runs ``work_py``, one commit an hour per (files written,
    message) of ``commits``; their hashes, oldest first."""
    suite.mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    (suite / "bench.toml").write_text(BENCH_TOML)
    (suite / "work.py").write_text(work_py)
    shas = []
    for i, (files, message) in enumerate(commits):
        for path, text in files.items():
            path.write_text(text)
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", message, when=START + 3600 * i)
        shas.append(git(repo, "rev-parse", "HEAD"))
    return shas


# A suite whose ``latency`` is the number in ``value.txt``: a noisy series planted exactly, that a
# backfill and bisect's interleaved rounds read as written.
VALUE_PY = """\
import json
print(json.dumps({"toy/loop": {"latency": {"value": float(open("value.txt").read())}}}))
"""


def make_valued_history(repo: Path, values: list[float]) -> list[str]:
    """One commit per entry of ``values`` (the suite's latency at that commit); returns the commits,
    oldest first."""
    suite = repo / "benches" / "toy"
    return _commits(repo, suite, VALUE_PY, [({suite / "value.txt": f"{value:.1f}\n"}, f"commit {i}")
                                            for i, value in enumerate(values)])
