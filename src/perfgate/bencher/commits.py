"""Bencher stores only full git commit hashes (40 hex digits, or 64 for SHA-256 repositories)
and refuses a run with a short one; a short hash is expanded from the local checkout, or refused
before anything is sent."""

from __future__ import annotations

import re
import subprocess

from perfgate.errors import PerfgateError

FULL_HASH = re.compile(r"^([0-9a-f]{40}|[0-9a-f]{64})$")
_SHORT = re.compile(r"^[0-9a-fA-F]{4,63}$")


def full_commit(commit: str, option: str = "--commit") -> str:
    """``commit`` as the full hash Bencher accepts; raises :class:`PerfgateError` (exit 2) when
    it is not one and the checkout here cannot expand it to exactly one commit."""
    if FULL_HASH.match(commit):
        return commit
    if _SHORT.match(commit):
        try:
            done = subprocess.run(["git", "rev-parse", "--verify", "--quiet", f"{commit}^{{commit}}"],
                                  capture_output=True, text=True, timeout=10)
        except (OSError, subprocess.SubprocessError):
            done = None
        expanded = done.stdout.strip().lower() if done and done.returncode == 0 else ""
        if FULL_HASH.match(expanded) and expanded.startswith(commit.lower()):
            return expanded
    raise PerfgateError(f"{option} {commit!r}: a Bencher store needs the full commit hash (40 hex digits) and "
                        "this checkout cannot expand it; give the full hash (`git rev-parse HEAD`)")
