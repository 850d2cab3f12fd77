"""Defaults for --branch and --commit, read from the git checkout when there is one."""

from __future__ import annotations

import os
import subprocess


def _git(*args: str) -> str | None:
    try:
        out = subprocess.run(["git", *args], capture_output=True, text=True, timeout=10, check=True)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None


def current_commit() -> str | None:
    return os.environ.get("GITHUB_SHA") or _git("rev-parse", "HEAD")


def current_branch() -> str | None:
    # In a GitHub pull request the checkout is detached; the head ref names the branch.
    return (os.environ.get("GITHUB_HEAD_REF") or os.environ.get("GITHUB_REF_NAME")
            or _git("rev-parse", "--abbrev-ref", "HEAD"))
