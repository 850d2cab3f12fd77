"""What ``backfill`` and ``bisect`` share: the options that say how a commit's suites are built
and run, the runner those options make, and the key a measured commit's run is recorded under."""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path
from typing import TYPE_CHECKING

from perfgate.commands._common import cpuset_option, default_cpuset
from perfgate.containers.manifest import PROFILES
from perfgate.output import err

if TYPE_CHECKING:
    from perfgate.commit_runner import Runner

# Measures that do not depend on the machine, given the same pinned image.
PORTABLE_MEASURES = ("instructions",)


def add_commit_runner_options(p: argparse.ArgumentParser) -> None:
    """The options of ``perfgate backfill`` and ``perfgate bisect`` that make their runner."""
    p.add_argument("--root", type=Path, default=Path("."),
                   help="the project: a git repository or a folder inside one, whose benches/ are read at each "
                        "commit and whose docker/ in this checkout defines the pinned images (default: the "
                        "current directory)")
    p.add_argument("--profile", choices=PROFILES, default="quick",
                   help="suite profile (default: %(default)s; bisect uses the profile of the alert's runs)")
    p.add_argument("--cpuset", default=default_cpuset(), type=cpuset_option, help="CPUs the benchmark containers are pinned to "
                   "(default: %(default)s)")
    p.add_argument("--no-probes", action="store_true", help="skip the valgrind / peak-RSS probes")
    p.add_argument("--runner", choices=("container", "host"), default="container",
                   help="container: pinned images (default); host: this machine, no isolation or probes")


def make_runner(args: argparse.Namespace, root: Path, prefix: str = "") -> Runner:
    """The runner of ``--runner``; ``prefix``: the project's folder in the repository ``root``."""
    from perfgate.commit_runner import ContainerRunner, HostRunner

    if args.runner == "host":
        return HostRunner()
    return ContainerRunner(root, args.cpuset, probes=not args.no_probes, log=err.print, project=root / prefix)


def run_key(project: str, branch: str, commit: str, suite: str, variant: str, profile: str, testbed: str) -> str:
    """Idempotency key of one backfilled run: what was measured where, not what came out, so a
    re-run after an interruption recognises the run whatever its numbers would be."""
    basis = json.dumps(["backfill-v1", project, branch, commit, suite, variant, profile, testbed])
    return hashlib.sha256(basis.encode()).hexdigest()[:32]
