"""Bencher's start point of a pull-request branch (its base branch, commit, thresholds), given to
the verbs that send runs to a Bencher server: ``publish``, and ``ingest`` into a Bencher store."""

from __future__ import annotations

import argparse

from perfgate.bencher.payload import StartPoint
from perfgate.errors import PerfgateError


def add_start_point_options(p: argparse.ArgumentParser) -> None:
    sp = p.add_argument_group("pull-request start point (Bencher's start_point)")
    sp.add_argument("--start-point-branch", help="base branch the run's branch starts from")
    sp.add_argument("--start-point-hash", help="base commit the branch starts from")
    sp.add_argument("--start-point-clone-thresholds", action="store_true",
                    help="copy the base branch's thresholds to the branch")
    sp.add_argument("--start-point-reset", action="store_true", help="start the branch over from the start point")
    sp.add_argument("--start-point-max-versions", type=int, metavar="N",
                    help="copy at most N historical versions of the base branch")


def start_point(args: argparse.Namespace) -> StartPoint | None:
    """The start point the options give, or None when none was given."""
    needs_branch = args.start_point_hash or args.start_point_clone_thresholds or args.start_point_max_versions
    if needs_branch and not args.start_point_branch:
        raise PerfgateError("--start-point-hash, --start-point-clone-thresholds and --start-point-max-versions "
                            "need --start-point-branch")
    if args.start_point_max_versions is not None and args.start_point_max_versions < 0:
        raise PerfgateError("--start-point-max-versions must not be negative")
    sp = StartPoint(branch=args.start_point_branch, hash=args.start_point_hash,
                    clone_thresholds=True if args.start_point_clone_thresholds else None,
                    reset=True if args.start_point_reset else None, max_versions=args.start_point_max_versions)
    return sp if sp.to_json() else None
