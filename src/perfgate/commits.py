"""Commits of a git history, as ``backfill`` and ``bisect`` walk them.

``A..B`` means what git means (reachable from B, not from A: A itself is excluded, as in
``asv run A..B``); a single ``B`` is every ancestor of B.  Lists are oldest first.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

from perfgate.errors import PerfgateError


@dataclass(frozen=True)
class Commit:
    sha: str
    time: float      # committer date, epoch seconds: a backfilled run is recorded at this time
    subject: str


def git(root: Path, *args: str) -> str:
    proc = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True)
    if proc.returncode != 0:
        raise PerfgateError(f"git {' '.join(args)} failed in {root}: {proc.stderr.strip()}")
    return proc.stdout.strip()


def project_root(folder: Path) -> tuple[Path, str]:
    """``(top, prefix)`` of ``--root``: the top of the git repository ``folder`` is in, and the
    folder's path inside it as git spells it ("" at the top, else e.g. "proj/").  A monorepo's
    project keeps its benches/, thresholds/ and docker/ in its own folder: ``check``, ``backfill``
    and ``bisect`` read those under ``prefix`` in any commit's tree, as ``run`` reads them there."""
    if not folder.is_dir():
        raise PerfgateError(f"--root {folder}: {'not a folder' if folder.exists() else 'no such folder'}")
    proc = subprocess.run(["git", "-C", str(folder.resolve()), "rev-parse", "--show-toplevel", "--show-prefix"],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        said = (proc.stderr.strip().splitlines() or ["git rev-parse failed"])[-1]
        reason = ("not inside a git repository (the commits' trees are read from git)"
                  if "not a git repository" in said else said)
        raise PerfgateError(f"--root {folder}: {reason}")
    top, prefix = (proc.stdout.split("\n") + [""])[:2]
    return Path(top), prefix


def list_commits(root: Path, spec: str, *, first_parent: bool = False) -> list[Commit]:
    """The commits of ``spec`` (``A..B`` or ``B``), oldest first."""
    if not spec or spec.startswith("-") or "..." in spec:
        raise PerfgateError(f"range {spec!r}: expected A..B or a single ref (symmetric A...B is not a history)")
    for ref in filter(None, spec.split("..")):
        proc = subprocess.run(["git", "-C", str(root), "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            raise PerfgateError(f"range {spec!r}: {ref!r} is not a commit in {root}")
    args = ["rev-list", "--reverse", "--format=%H%x00%ct%x00%s", "--no-commit-header"]
    if first_parent:
        args.append("--first-parent")
    return _parse(git(root, *args, spec))


def _parse(text: str) -> list[Commit]:
    commits = []
    for line in text.splitlines():
        sha, ct, subject = line.split("\0", 2)
        commits.append(Commit(sha, float(ct), subject))
    return commits


def commits_between(root: Path, good: str, bad: str) -> list[Commit]:
    """Commits after ``good`` up to and including ``bad`` on the ancestry path, oldest first:
    the candidates for the first bad commit."""
    text = git(root, "rev-list", "--reverse", "--ancestry-path", "--format=%H%x00%ct%x00%s",
               "--no-commit-header", f"{good}..{bad}")
    return _parse(text)


def every(commits: list[Commit], n: int) -> list[Commit]:
    """Every ``n``th commit counted from the oldest, plus the newest (the tip is always measured,
    so the range's current state is known)."""
    if n < 1:
        raise PerfgateError("--every must be at least 1")
    picked = commits[::n]
    if commits and picked[-1] is not commits[-1]:
        picked.append(commits[-1])
    return picked


def parse_shard(text: str) -> tuple[int, int]:
    """``"I/N"`` -> (I, N) with 1 <= I <= N."""
    try:
        i, n = (int(x) for x in text.split("/"))
    except ValueError:
        raise PerfgateError(f"--shard {text!r}: expected I/N, e.g. 2/4") from None
    if not 1 <= i <= n:
        raise PerfgateError(f"--shard {text!r}: I must be between 1 and N")
    return i, n


def shard(commits: list[Commit], index: int, count: int) -> list[Commit]:
    """Shard ``index`` of ``count`` (1-based): every ``count``th commit starting at ``index - 1``.
    Interleaved rather than contiguous, so each runner covers the whole range coarsely and a
    change anywhere shows up in every shard's series; the shards together cover each commit once."""
    return commits[index - 1::count]
