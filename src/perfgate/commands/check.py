"""Compare two commits in one job: build both in the same pinned image, run them interleaved.

``perfgate check --base main --head HEAD`` checks out each ref in a temporary git worktree,
builds both refs' suites on the *same* toolchain image (the one defined by this checkout's
``docker/``), then runs them interleaved for ``--rounds`` rounds — base head, head base, base
head, … (the first side alternates, so running second is no advantage) — so slow drifts of the
machine hit both sides alike.  Each side's rounds are pooled into one run
(one sample per round: the median of its raw samples), both runs are recorded in the store,
and ``perfgate.detect.compare.compare_runs(..., paired=True)`` judges every benchmark on the
per-round log ratios head/base (a pair measured back to back shares the machine's slow state, so
the ratio cancels it): effect size with a confidence interval, a Wilcoxon signed-rank test with
false discovery rate control across all benchmarks, and the smallest change this run could have
detected given its noise.

Exit 1 when a significant regression above the threshold is found, 0 otherwise.
"""

from __future__ import annotations

import argparse
import io
import shutil
import statistics
import subprocess
import tarfile
import tempfile
from collections import defaultdict
from pathlib import Path

from perfgate.escape import terminal
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

from perfgate.commands.run import add_suite_options
from perfgate.commands._common import add_markdown_option, check_identity, store_from, write_markdown
from perfgate.containers import engine, images
from perfgate.containers.fingerprint import container_testbed
from perfgate.containers.manifest import Suite, discover
from perfgate.containers.runner import Limits, SuiteResult, run_suite
from perfgate.detect.compare import compare_runs
from perfgate.errors import PerfgateError
from perfgate.model import Metric, Run, Testbed
from perfgate.output import emit_json, err, out
from perfgate.thresholds import Thresholds, load_thresholds

MIN_ROUNDS = 6  # exact two-sided Wilcoxon signed-rank: the smallest p with n pairs is 2 / 2^n
NAME = "check"
HELP = "build and run two commits interleaved in one pinned image, and gate on regressions"
ORDER = 35
EPILOG = """examples:
  perfgate check --base origin/main --head HEAD
  perfgate check --base v1.2 --head my-branch --suite tree-alloc --rounds 8 --json"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_markdown_option(p)
    p.add_argument("--base", required=True, metavar="REF", help="the commit compared against (e.g. origin/main)")
    p.add_argument("--head", required=True, metavar="REF", help="the commit under test (e.g. HEAD)")
    p.add_argument("--rounds", type=int, default=MIN_ROUNDS, metavar="N",
                   help="interleaved base/head rounds (default: %(default)s)")
    p.add_argument("--alpha", type=float, default=0.05, help="false discovery rate (default: %(default)s)")
    p.add_argument("--thresholds", metavar="PATH",
                   help="thresholds file or folder (default: thresholds/ of the BASE commit, else built-in)")
    p.add_argument("--head-thresholds", action="store_true",
                   help="judge with the head commit's thresholds/ instead of the base's: a maintainer's opt-in, "
                        "since otherwise a pull request could loosen its own gate")
    add_suite_options(p)


def _git(root: Path, *args: str) -> str:
    proc = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True)
    if proc.returncode != 0:
        raise PerfgateError(f"git {' '.join(args)} failed in {root}: {proc.stderr.strip()}")
    return proc.stdout.strip()


def resolve(root: Path, ref: str, option: str) -> str:
    proc = subprocess.run(["git", "-C", str(root), "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise PerfgateError(f"{option} {ref!r}: not a commit in {root}")
    return proc.stdout.strip()


def pool(results: list[SuiteResult]) -> list[Metric]:
    """One metric per (benchmark, measure) from several rounds, **one sample per round**: the
    median of that round's raw samples (or its value when the harness gave none).

    Samples taken back to back inside one round share the machine's state at that moment (they
    are autocorrelated), so pooling them would overstate the evidence and raise false alarms on
    an A/A check; the rounds, interleaved with the other side, are the independent units."""
    per_round: dict[tuple[str, str], list[float]] = defaultdict(list)
    raw: dict[tuple[str, str], int] = defaultdict(int)
    for result in results:
        for m in result.metrics:
            per_round[(m.benchmark, m.measure)].append(statistics.median(m.samples) if m.samples else m.value)
            raw[(m.benchmark, m.measure)] += len(m.samples) or 1
    return [Metric(b, meas, statistics.median(vals), min(vals), max(vals), tuple(vals),
                   attrs={"rounds": len(vals), "raw_samples": raw[(b, meas)]})
            for (b, meas), vals in per_round.items()]


def run(args: argparse.Namespace) -> int:
    if args.rounds < MIN_ROUNDS:
        raise PerfgateError(f"--rounds must be at least {MIN_ROUNDS}: each round gives one (base, head) pair, and "
                            f"a signed-rank test on fewer than {MIN_ROUNDS} pairs can never reach p < 0.05")
    for side in ("base", "head"):  # each becomes the branch of a stored run
        check_identity("branch", getattr(args, side), f"--{side}")
    root = Path(_git(args.root.resolve(), "rev-parse", "--show-toplevel"))
    shas = {"base": resolve(root, args.base, "--base"), "head": resolve(root, args.head, "--head")}
    with tempfile.TemporaryDirectory(prefix="perfgate-thresholds-") as tmp:
        # The gate comes from the base commit, so the change under test cannot loosen it.
        side = "head" if args.head_thresholds else "base"
        path = _thresholds_path(args, root, shas[side], Path(tmp))
        thresholds = load_thresholds(path) if path else Thresholds()  # a bad file fails before any run
    engine.ensure_engine()
    with tempfile.TemporaryDirectory(prefix="perfgate-check-") as tmp:
        trees = {}
        try:
            for side, sha in shas.items():
                trees[side] = Path(tmp) / side
                _git(root, "worktree", "add", "--detach", "--force", str(trees[side]), sha)
            runs = _measure(args, root, trees, shas)
        finally:
            for tree in trees.values():
                subprocess.run(["git", "-C", str(root), "worktree", "remove", "--force", str(tree)], capture_output=True)
                shutil.rmtree(tree, ignore_errors=True)
            subprocess.run(["git", "-C", str(root), "worktree", "prune"], capture_output=True)
    with store_from(args) as store:
        store.add_runs([runs["base"].with_key(), runs["head"].with_key()])
    comparison = compare_runs(runs["base"], runs["head"], thresholds, alpha=args.alpha, paired=True)
    write_markdown(args, comparison)
    if args.json:
        emit_json({"base": {"ref": args.base, "commit": shas["base"]}, "head": {"ref": args.head, "commit": shas["head"]},
                   "rounds": args.rounds, "testbed": runs["base"].testbed.name, "comparison": comparison,
                   "exit_code": comparison.exit_code})
    else:
        _print(comparison, args, shas, runs["base"].testbed)
    return comparison.exit_code


def _thresholds_path(args: argparse.Namespace, root: Path, sha: str, tmp: Path) -> Path | None:
    """``--thresholds``, else ``thresholds/`` as committed at ``sha`` (extracted to ``tmp``), else None."""
    if args.thresholds:
        return Path(args.thresholds)
    if not _git(root, "ls-tree", "-d", sha, "thresholds"):
        return None
    archive = subprocess.run(["git", "-C", str(root), "archive", "--format=tar", sha, "thresholds"], capture_output=True)
    if archive.returncode != 0:
        raise PerfgateError(f"git archive {sha} thresholds failed in {root}: {archive.stderr.decode(errors='replace')}")
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        tar.extractall(tmp, filter="data")
    return tmp / "thresholds"


def _measure(args: argparse.Namespace, root: Path, trees: dict[str, Path], shas: dict[str, str]) -> dict[str, Run]:
    """Build both sides on one toolchain image, run them interleaved, pool each side's rounds."""
    suites = {side: {s.name: s for s in discover(tree / "benches", None)} for side, tree in trees.items()}
    names = sorted(set(suites["base"]) & set(suites["head"]))
    if args.suite:
        missing = [n for n in args.suite if n not in names]
        if missing:
            raise PerfgateError(f"suite {missing[0]!r} is not in both {args.base} and {args.head}")
        names = [n for n in names if n in args.suite]
    if not names:
        raise PerfgateError(f"no suite exists in both {args.base} and {args.head}")
    docker_dir = images.image_definitions(args.root.resolve())
    base_image = images.build_base(docker_dir, log=err.print)
    plan: list[tuple[Suite, Suite, str, images.Built, images.Built]] = []
    testbed: Testbed | None = None
    for name in names:
        head_suite, base_suite = suites["head"][name], suites["base"][name]
        tool = images.build_image(docker_dir, head_suite.image, base_image, log=err.print)
        built = {side: images.build_suite(s, tool, log=err.print, logs_dir=root / ".perfgate" / "logs")
                 for side, s in (("base", base_suite), ("head", head_suite))}
        testbed = testbed or container_testbed(head_suite.image, tool, args.cpuset, head_suite.memory)
        for variant in head_suite.variant_names(args.variant):
            if variant and variant not in base_suite.variants:
                continue
            plan.append((base_suite, head_suite, variant, built["base"], built["head"]))
    results: dict[str, list[SuiteResult]] = {"base": [], "head": []}
    with Progress(TextColumn("{task.description}"), BarColumn(), TextColumn("{task.completed}/{task.total}"),
                  TimeElapsedColumn(), console=err) as progress:
        task = progress.add_task("check", total=args.rounds * len(plan) * 2)
        for rnd in range(args.rounds):
            for base_suite, head_suite, variant, base_built, head_built in plan:
                order = (("base", base_suite, base_built), ("head", head_suite, head_built))
                # Which side goes first alternates (A B, B A, A B, ...) so a warm-cache or
                # second-in-line advantage cannot masquerade as a change.
                for side, suite, built in order if rnd % 2 == 0 else order[::-1]:
                    progress.update(task, description=terminal(f"round {rnd + 1}/{args.rounds}: {side} {suite.name}"
                                                             f"{'/' + variant if variant else ''}"))
                    results[side].append(run_suite(suite, built.tag, variant=variant, profile=args.profile,
                                                   limits=Limits(args.cpuset, suite.memory, suite.timeout),
                                                   probes=not args.no_probes))
                    progress.advance(task)
    assert testbed is not None
    runs = {}
    for side in ("base", "head"):
        rs = results[side]
        runs[side] = Run(args.project, getattr(args, side), shas[side], testbed, pool(rs),
                         start_time=min(r.start_time for r in rs), end_time=max(r.end_time for r in rs),
                         adapter="+".join(sorted({r.context["adapter"] for r in rs})),
                         context={"check": True, "rounds": args.rounds, "interleaved_with": shas["head" if side == "base" else "base"],
                                  "suites": names, "profile": args.profile})
    return runs


def _print(comparison, args: argparse.Namespace, shas: dict[str, str], testbed: Testbed) -> None:
    out.print(f"perfgate check: {terminal(args.head)} ({shas['head'][:12]}) against {terminal(args.base)} "
              f"({shas['base'][:12]}), {args.rounds} interleaved rounds on {terminal(testbed.name)}")
    out.print(terminal(comparison.render(), keep_newlines=True))
    verdict = "FAIL: significant regression" if comparison.exit_code else "ok: no significant regression"
    out.print(f"{verdict} (MDE = smallest change each benchmark could have shown at 80% power)")
