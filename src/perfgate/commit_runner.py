"""Build and run one suite of the tree of any commit: what ``backfill`` and ``bisect`` share.

A commit's tree is exported with ``git archive`` into a temporary folder (no worktree metadata
is left behind when the process is killed).  Two runners measure it:

* :class:`ContainerRunner` (the default): the suite is built on the toolchain image defined by
  the *current* checkout's ``docker/`` (of the ``--root`` folder, a monorepo's project) — every
  commit in one pinned image, like ``perfgate check`` — and run by
  :func:`perfgate.containers.runner.run_suite` with its probes.  A suite whose folder is unchanged
  between commits reuses its image (content-hash tags).
* :class:`HostRunner`: the suite's build and profile command run on this machine in the
  exported tree, without containers or probes (``--runner host``: for development, and the
  tests of backfill and bisect).
"""

from __future__ import annotations

import os
import subprocess
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, Protocol

from perfgate import host_load
from perfgate.containers.manifest import Suite, discover
from perfgate.containers.runner import Limits, SuiteResult, read_output
from perfgate.errors import InputError, PerfgateError
from perfgate.fingerprint import host_fingerprint, testbed_name
from perfgate.model import Testbed
from perfgate.tempdirs import temporary_folder


@contextmanager
def exported_tree(root: Path, sha: str) -> Iterator[Path]:
    """The tree of ``sha`` in a fresh temporary folder, removed afterwards."""
    with temporary_folder(f"perfgate-{sha[:10]}-") as tmp:
        archive = subprocess.run(["git", "-C", str(root), "archive", "--format=tar", sha],
                                 capture_output=True)
        if archive.returncode != 0:
            raise PerfgateError(f"git archive {sha[:12]} failed in {root}: {archive.stderr.decode().strip()}")
        subprocess.run(["tar", "-x", "-C", str(tmp)], input=archive.stdout, check=True)
        yield tmp


def suites_at(tree: Path, wanted: list[str] | None = None) -> list[Suite]:
    """The suites of a project folder of a commit's tree (none when it has no ``benches/`` yet,
    or no such folder)."""
    if not (tree / "benches").is_dir():
        return []
    found = discover(tree / "benches")
    return [s for s in found if not wanted or s.name in wanted]


class Runner(Protocol):
    """What backfill and bisect ask of a runner (both classes below are one)."""

    build_seconds: float

    def testbed(self, suite: Suite) -> Testbed: ...

    def measure(self, suite: Suite, variant: str, profile: str) -> SuiteResult: ...


class ContainerRunner:
    """Suites built on this checkout's pinned toolchain images and run in containers."""

    def __init__(self, root: Path, cpuset: str, probes: bool = True, log=print, project: Path | None = None):
        from perfgate.containers import engine, images

        engine.ensure_engine()
        self.root, self.cpuset, self.probes, self.log = root, cpuset, probes, log
        self._images = images
        self.build_seconds = 0.0      # time spent building images that were not cached
        started = time.monotonic()
        # the project folder's docker/ (--root, inside the repository ``root``); one without its
        # own builds on perfgate's pinned images, as run and check do
        self._defs = images.image_definitions(project or root)
        self._base = images.build_base(self._defs, log=log)
        self._count_build(self._base, started)
        self._tools: dict[str, object] = {}
        self._testbeds: dict[tuple[str, str], Testbed] = {}

    def _tool(self, image: str):
        if image not in self._tools:
            started = time.monotonic()
            self._tools[image] = self._images.build_image(self._defs, image, self._base, log=self.log)
            self._count_build(self._tools[image], started)
        return self._tools[image]

    def _count_build(self, built, started: float) -> None:
        if not built.cached:
            self.build_seconds += time.monotonic() - started

    def testbed(self, suite: Suite) -> Testbed:
        from perfgate.containers.fingerprint import container_testbed

        tool = self._tool(suite.image)
        if (tool.tag, suite.memory) not in self._testbeds:
            self._testbeds[(tool.tag, suite.memory)] = container_testbed(suite.image, tool, self.cpuset, suite.memory)
        return self._testbeds[(tool.tag, suite.memory)]

    def measure(self, suite: Suite, variant: str, profile: str) -> SuiteResult:
        from perfgate.containers.runner import run_suite

        tool = self._tool(suite.image)
        started = time.monotonic()
        built = self._images.build_suite(suite, tool, log=self.log, logs_dir=self.root / ".perfgate" / "logs")
        self._count_build(built, started)
        result = run_suite(suite, built.tag, variant=variant, profile=profile,
                           limits=Limits(self.cpuset, suite.memory, suite.timeout), probes=self.probes,
                           logs_dir=self.root / ".perfgate" / "logs")
        result.context["suite_image_digest"] = f"sha256:{built.key}"
        return result


class HostRunner:
    """Suites built and run directly on this machine (no isolation, no probes)."""

    build_seconds = 0.0   # builds run as part of measure() on the host

    def __init__(self) -> None:
        fp = host_fingerprint() | {"runner": "host"}
        self._testbed = Testbed(testbed_name(fp, prefix="host"), fp)

    def testbed(self, suite: Suite) -> Testbed:
        return self._testbed

    def measure(self, suite: Suite, variant: str, profile: str) -> SuiteResult:
        if profile not in suite.commands:
            raise InputError(str(suite.manifest), f"profiles.{profile}", "this suite has no such profile")
        env = {**os.environ, "PERFGATE_PROFILE": profile, "PERFGATE_VARIANT": variant,
               **suite.variants.get(variant, {})}
        with temporary_folder("perfgate-out-") as out_dir:
            env["PERFGATE_OUT"] = str(out_dir)
            if suite.build.strip():
                self._sh(suite, suite.build, env, "build")
            start = time.time()
            before = host_load.reading()
            done = self._sh(suite, suite.commands[profile], env, f"profiles.{profile}.command")
            load = host_load.during(before)
            adapter, parsed = read_output(suite, out_dir, done.stdout)
            metrics = parsed.metrics
            if variant:
                for m in metrics:
                    m.benchmark = f"{variant}/{m.benchmark}"
            context = {"suite": suite.name, "variant": variant, "profile": profile, "adapter": adapter,
                       "runner": "host", "command": suite.commands[profile], **load}
            return SuiteResult(metrics, context, start, time.time())

    @staticmethod
    def _sh(suite: Suite, command: str, env: dict[str, str], place: str) -> subprocess.CompletedProcess:
        proc = subprocess.run(["sh", "-c", command], cwd=suite.folder, env=env, capture_output=True, text=True,
                              timeout=suite.timeout)
        if proc.returncode != 0:
            raise InputError(str(suite.manifest), place, f"exited {proc.returncode}: {proc.stderr.strip()[-1500:]}")
        return proc
