"""The branches ``perfgate check`` records its sides on (``check/REF``).

A check's base is not a run of main: recorded at check time, at an older commit, it would end
main's series and be judged as main's newest run.  So each side goes to a branch of its own.
Those branches hold one pull request's A/B measurements, not a history: ``detect``, the trend
pages, ``export``'s newest run and ``publish`` leave them out unless a ``--branch`` names one.
"""

from __future__ import annotations

import re

PREFIX = "check/"
_HASH = re.compile(r"[0-9a-fA-F]{4,64}")
_WHERE_HEAD_IS = ("HEAD", "@")


def check_branch(ref: str) -> str:
    return PREFIX + ref


def side_branch(ref: str, full_name: str, commit: str) -> str:
    """The branch a side given as ``ref`` is recorded on, ``full_name`` being what git calls the
    ref (``git rev-parse --symbolic-full-name``; '' for a hash or an expression): ``check/REF``
    for a name (main, origin/main, v1.0) and for a commit given as a hash; the branch checked out
    for HEAD (or @); the resolved ``commit`` for any ref that names a commit only through where
    HEAD or a branch is now (a detached HEAD, HEAD~1, main^, FETCH_HEAD, @{u}).  Every pull
    request's check recorded its head on one ``check/HEAD``, one set of series for them all."""
    relative = any(c in ref for c in "~^:") or "@{" in ref
    if ref in _WHERE_HEAD_IS and full_name.startswith("refs/heads/"):
        return check_branch(full_name.removeprefix("refs/heads/"))
    if full_name.startswith("refs/") and not relative and ref not in _WHERE_HEAD_IS:
        return check_branch(ref)
    if _HASH.fullmatch(ref):
        return check_branch(ref)
    return check_branch(commit)


def is_check_branch(branch: str) -> bool:
    return branch.startswith(PREFIX)
