"""Defaults for --branch and --commit, read from the git checkout when there is one."""

from __future__ import annotations

import os
import re
import subprocess

from perfgate.errors import PerfgateError

_FULL_HASH = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
# names that only mean something in a repository: HEAD, @, and anything relative (~, ^, @{...}, :path)
_RELATIVE = re.compile(r"^(HEAD|@)$|[~^:]|@\{")


def _git(*args: str) -> str | None:
    try:
        out = subprocess.run(["git", *args], capture_output=True, text=True, timeout=10, check=True)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None


def current_commit() -> str | None:
    return os.environ.get("GITHUB_SHA") or _git("rev-parse", "HEAD")


def resolve_commit(given: str) -> str:
    """``--commit`` as recorded: a git ref the checkout knows (``HEAD``, ``HEAD~1``, a branch, a
    short hash) becomes its full hash, or every run given ``--commit HEAD`` would be recorded at
    one commit named "HEAD"; a relative name the checkout cannot resolve is refused; any other
    name (a full hash, or a label from elsewhere) is kept as given."""
    if _FULL_HASH.fullmatch(given):
        return given
    full = ref_commit(given)
    if full:
        return full
    if _RELATIVE.search(given):
        raise PerfgateError(f"--commit {given!r} is a git ref, but no commit by that name is in a git checkout here; "
                            "give the commit's hash")
    return given


def ref_commit(ref: str, root: str = ".") -> str | None:
    """The full hash of a git ref the checkout at ``root`` knows (``HEAD``, ``main``, ``v1.2~3``),
    else None."""
    return _git("-C", root, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}")


def current_branch() -> str | None:
    """The checkout's branch, None when there is none to name: outside a checkout, or a detached
    HEAD (git says "HEAD", which was recorded as a branch of that name)."""
    # In a GitHub pull request the checkout is detached; the head ref names the branch.
    named = os.environ.get("GITHUB_HEAD_REF") or os.environ.get("GITHUB_REF_NAME")
    if named:
        return named
    branch = _git("rev-parse", "--abbrev-ref", "HEAD")
    return None if branch == "HEAD" else branch


def other_commit_than_head(root: str, commit: str) -> str | None:
    """``root``'s HEAD when ``commit`` is another commit that checkout knows (the working tree is
    not what it names), else None (the same commit, a label from elsewhere, or no checkout)."""
    head = ref_commit("HEAD", root)
    if head is None or head == commit:
        return None
    known = ref_commit(commit, root)
    return head if known and known != head else None


def uncommitted_changes(root: str) -> bool:
    """Whether tracked files under ``root``'s checkout differ from its HEAD (False outside one)."""
    return bool(_git("-C", root, "status", "--porcelain", "--untracked-files=no"))


def untracked(root: str, paths: list[str]) -> list[str]:
    """Those of ``paths`` (files under ``root``'s checkout) that git does not track: new, or
    ignored.  None of them outside a checkout."""
    if not paths or _git("-C", root, "rev-parse", "--is-inside-work-tree") != "true":
        return []
    tracked = set((_git("-C", root, "ls-files", "--full-name", "-z", "--", *paths) or "").split("\0"))
    prefix = _git("-C", root, "rev-parse", "--show-prefix") or ""
    return [p for p in paths if prefix + p not in tracked]


def commits_after(older: str, newer: str) -> int | None:
    """How many commits ``newer`` is after ``older`` in this checkout (1: its child), or None when
    the checkout cannot tell (not a repository, a commit it does not have)."""
    count = _git("rev-list", "--count", "--end-of-options", f"{older}..{newer}") if older and newer else None
    return int(count) if count and count.isdigit() else None


def could_be(suspects, last_good: str, threshold: bool = False) -> str:
    """The commits a change could have started at, for a table: ``suspects`` (oldest first, the
    measured ones), and, after a thinned backfill, the unmeasured commits since ``last_good`` (the
    last commit measured before them), which ``bisect`` narrows: the demo's alerts named a
    changelog commit at the end of each gap, and a range of measured commits left out the
    unmeasured ones before its first."""
    # git's own notation, the first suspect included (pasted into `git log`, "A..B" left out A,
    # which the pages' previous..last does not)
    # A threshold alert names the first value past its limit: noise can keep the first run or two
    # of a step under it, so that commit is where it was seen, not an exact culprit.
    span = (f"{suspects[0][:8]}^..{suspects[-1][:8]}" if len(suspects) > 1
            else "first past its limit" if threshold else "exact")
    if not (last_good and suspects):
        return span
    gap = commits_after(last_good, suspects[-1])
    if gap is None:
        # Run outside the project's checkout (or without the commits) it cannot tell: "exact"
        # there named a thinned backfill's last commit as the culprit.
        return f"{span if len(suspects) > 1 else 'after ' + last_good[:8]}, gap unknown (not in this checkout)"
    return f"one of {gap} commits after {last_good[:8]}" if gap > len(suspects) else span


def commit_subject(sha: str) -> str | None:
    """``"subject (author)"`` of a commit this checkout holds, else None."""
    line = _git("log", "-1", "--format=%s%x1f%an", "--end-of-options", sha) if sha else None
    if not line or "\x1f" not in line:
        return None
    subject, author = line.split("\x1f", 1)
    return f"{subject[:120]} ({author[:60]})"
