"""The branches ``perfgate check`` records its sides on (``check/REF``).

A check's base is not a run of main: recorded at check time, at an older commit, it would end
main's series and be judged as main's newest run.  So each side goes to a branch of its own.
Those branches hold one pull request's A/B measurements, not a history: ``detect``, the trend
pages, ``export``'s newest run and ``publish`` leave them out unless a ``--branch`` names one.
"""

from __future__ import annotations

PREFIX = "check/"


def check_branch(ref: str) -> str:
    return PREFIX + ref


def is_check_branch(branch: str) -> bool:
    return branch.startswith(PREFIX)
