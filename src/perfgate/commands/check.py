"""Compare two commits in one job: build both in the same pinned image, run them interleaved.

``perfgate check --base main --head HEAD`` checks out each ref in a temporary git worktree,
builds both refs' suites on the *same* toolchain image (the one defined by this checkout's
``docker/``), then runs them interleaved — base head, head base, base head, … (the first side
alternates, so running second is no advantage) — so slow drifts of the machine hit both sides
alike.  Instruction counts are probed in the first 3 rounds only, peak RSS every round.  Every
raw sample of every round is kept (each side's run stores one sample per round, the round's
median, and the raw samples of each round in ``attrs["round_samples"]``), and
``perfgate.detect.compare.compare_rounds`` judges every benchmark with the round as the pairing
unit: a paired t on the per-round log ratios head/base, Benjamini–Hochberg across all
comparisons, exact comparison of instruction counts, and the smallest change each benchmark
could have shown (see ``perfgate.detect.rounds`` for the maths and why this test).

Fixed (``--rounds N``, default 8) or sequential (``--budget 5m`` and/or ``--max-rounds N``):
sequential checks look after every round from the third on, with the false-alarm rate kept by
alpha spending over the looks, and stop when every benchmark still getting rounds is decided —
flagged, or no-change (its interval rules out a regression of its ``min_effect``) — or when the
next round would not fit in the budget (which counts the image builds, and is checked after
every round).

A suite whose output is a scaling table is also fitted as a whole on each side, its knee shown
and the base's complexity expectations judged on both (``perfgate.complexity.compare``).

Exit 1 when a significant regression above the threshold is found, or a complexity expectation
the base keeps is broken by the head, or one both break the head breaks earlier (its rounds'
knees moved down); 4, no verdict, when nothing was judged (no benchmark or suite measured on both
sides, or none of the rows could be judged): a gate that judged nothing is no pass, and no error
either (2 is bad input), unless every benchmark is new in head (the pull request adding the first
ones), which passes saying so; 0 otherwise.
"""

from __future__ import annotations

import argparse
import io
import os
import re
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from perfgate import host_load
from perfgate.escape import terminal, visible
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

from perfgate.check_branches import check_branch, side_branch
from perfgate.commits import git, project_root
from perfgate.gitinfo import uncommitted_changes
from perfgate.commands.run import add_suite_options
from perfgate.commands._common import (add_all_rows_option, add_markdown_option, check_identity, check_markdown_target,
                                      failures, print_complexity, quiet_rows, store_from, write_error_markdown,
                                      write_markdown)
from perfgate.containers import engine, images
from perfgate.containers.fingerprint import container_testbed
from perfgate.containers.manifest import Suite, discover
from perfgate.containers.runner import Limits, SuiteResult, run_suite
from perfgate.detect.compare import MIN_ALPHA, Comparison, NothingJudged, Verdict, compare_rounds, tied_to
from perfgate.detect import rounds as rounds_test
from perfgate.detect.load_hold import LOADED, rounds_left_out, wall_time
from perfgate.errors import EXIT_NO_VERDICT, EXIT_REGRESSION, InputError, PerfgateError
from perfgate.model import Metric, Run, Testbed
from perfgate.output import emit_json, err, out
from perfgate.thresholds import BUILT_IN_SOURCE, built_in_thresholds, load_thresholds

DEFAULT_ROUNDS = 8   # tree-alloc's quick profile: about 5 minutes on a loaded 2-core machine
PROBE_ROUNDS = 3     # instruction counts are probed in the first rounds only (exact: 3 show it)
MAX_ROUNDS = 1000    # a thousand rounds of a suite is days of a runner: more is a typo (it ran till killed)
MIN_ROUNDS = 3       # a paired t on 2 degrees of freedom; fewer cannot reach the levels BH needs
FIRST_LOOK = 3       # sequential checks look from this round on
DEFAULT_MAX_ROUNDS = 20
LOGS = Path(".perfgate", "logs")   # of the repository: image build logs and failed runs' output
NAME = "check"
HELP = "build and run two commits interleaved in one pinned image, and gate on regressions"
ORDER = 35
EPILOG = """examples:
  perfgate check --base origin/main --head HEAD
  perfgate check --base v1.2 --head my-branch --suite tree-alloc --rounds 8 --json
  perfgate check --base origin/main --head HEAD --budget 5m --max-rounds 30   # sequential"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_markdown_option(p)
    add_all_rows_option(p)
    p.add_argument("--base", required=True, metavar="REF", help="the commit compared against (e.g. origin/main)")
    p.add_argument("--head", required=True, metavar="REF", help="the commit under test (e.g. HEAD)")
    p.add_argument("--rounds", type=int, metavar="N",
                   help=f"interleaved base/head rounds of a fixed check (default: {DEFAULT_ROUNDS}; a sequential "
                        "check's cap is --max-rounds)")
    p.add_argument("--budget", type=parse_duration, metavar="DURATION",
                   help="sequential: add rounds until every benchmark is decided or this much time is spent "
                        "(e.g. 300, 90s, 5m, 1h)")
    p.add_argument("--max-rounds", type=int, metavar="N",
                   help=f"sequential: at most N rounds (default with --budget: {DEFAULT_MAX_ROUNDS})")
    p.add_argument("--alpha", type=float, default=0.05, help="false discovery rate (default: %(default)s)")
    p.add_argument("--thresholds", metavar="PATH",
                   help="thresholds file or folder (default: thresholds/ of the BASE commit, else built-in)")
    p.add_argument("--head-thresholds", action="store_true",
                   help="judge with the head commit's thresholds/ instead of the base's: a maintainer's opt-in, "
                        "since otherwise a pull request could loosen its own gate")
    add_suite_options(p)


def parse_duration(text: str) -> float:
    """Seconds from ``300``, ``90s``, ``5m``, ``1.5h``."""
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([smh]?)\s*", text)
    if not match or float(match.group(1)) <= 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a duration such as 300, 90s, 5m or 1h")
    return float(match.group(1)) * {"": 1, "s": 1, "m": 60, "h": 3600}[match.group(2)]


def resolve(root: Path, ref: str, option: str) -> str:
    proc = subprocess.run(["git", "-C", str(root), "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise on_side(PerfgateError(f"{option} {ref!r}: not a commit in {root}"), option.lstrip("-"))
    return proc.stdout.strip()


def stored_branch(root: Path, ref: str, sha: str, option: str) -> str:
    """The branch the runs of the side given as ``ref`` (resolved to ``sha``) are recorded on
    (:func:`perfgate.check_branches.side_branch`)."""
    proc = subprocess.run(["git", "-C", str(root), "rev-parse", "--symbolic-full-name", ref],
                          capture_output=True, text=True)
    full_name = proc.stdout.strip() if proc.returncode == 0 else ""
    return check_identity("branch", side_branch(ref, full_name, sha), option)


def on_side(error: PerfgateError, side: str) -> PerfgateError:
    """``error``, marked as the failure of ``side`` (base or head), which its comment names."""
    error.side = side
    return error


def per_round(results: list[SuiteResult]) -> dict[tuple[str, str], list[list[float]]]:
    """``{(benchmark, measure): [raw samples of round 1, round 2, …]}`` from one side's results in
    round order (a metric without samples counts as one sample, its value)."""
    rounds: dict[tuple[str, str], list[list[float]]] = defaultdict(list)
    for result in results:
        for m in result.metrics:
            rounds[(m.benchmark, m.measure)].append(list(m.samples) if m.samples else [m.value])
    return rounds


def pool(results: list[SuiteResult]) -> list[Metric]:
    """One metric per (benchmark, measure) from several rounds: one sample per round (the median
    of that round's raw samples), and every raw sample, round by round, in
    ``attrs["round_samples"]`` — samples taken back to back in one round share the machine's state,
    so they narrow that round's estimate and are not independent of each other.  A scaling
    point keeps its parameters, so ``fit --from-store`` can fit a check's side."""
    parameters = {(m.benchmark, m.measure): m.attrs["parameters"] for r in results for m in r.metrics
                  if "parameters" in m.attrs}
    metrics = []
    for (b, meas), rounds in per_round(results).items():
        vals = [statistics.median(r) for r in rounds]
        point = {"parameters": parameters[(b, meas)]} if (b, meas) in parameters else {}
        metrics.append(Metric(b, meas, statistics.median(vals), min(vals), max(vals), tuple(vals),
                              attrs={"rounds": len(vals), "raw_samples": sum(map(len, rounds)),
                                     "round_samples": rounds, **point}))
    return metrics


def scaling_points(results: list[SuiteResult]) -> list[Metric]:
    """Each scaling point of one side once, named with its suite first (as ``complexity.toml``'s
    patterns name it), its value the median over the rounds of each round's median."""
    values: dict[tuple[str, str], list[float]] = defaultdict(list)
    parameters: dict[tuple[str, str], dict] = {}
    for r in results:
        for m in r.metrics:
            if m.is_scaling_point():
                key = (f"{r.context['suite']}/{m.benchmark}", m.measure)
                values[key].append(statistics.median(m.samples or (m.value,)))
                parameters[key] = m.attrs["parameters"]
    return [Metric(b, meas, statistics.median(v), attrs={"parameters": parameters[(b, meas)]})
            for (b, meas), v in values.items()]


def rounds_of(run: Run) -> dict[tuple[str, str], list[list[float]]]:
    """The per-round raw samples a check recorded (one-sample rounds for a metric without them)."""
    return {(m.benchmark, m.measure): m.attrs.get("round_samples") or [[x] for x in (m.samples or (m.value,))]
            for m in run.metrics}


@dataclass
class Plan:
    """How many rounds to run and when to stop."""
    rounds: int                      # fixed rounds, or the most a sequential check may run
    alpha: float
    budget: float | None = None      # seconds; sequential when set or when max_rounds was given
    sequential: bool = False
    levels: list[float] = field(default_factory=list)   # alpha spent at each look (sequential)

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> "Plan":
        if not MIN_ALPHA <= args.alpha < 1:
            raise PerfgateError(f"--alpha must be from {MIN_ALPHA:g} to below 1, got {args.alpha}")
        if args.budget is None and args.max_rounds is None:
            if args.rounds is None:
                return cls(DEFAULT_ROUNDS, args.alpha)
            if args.rounds > MAX_ROUNDS:
                raise PerfgateError(f"--rounds must be at most {MAX_ROUNDS:,}, got {args.rounds:,}")
            if args.rounds < MIN_ROUNDS:
                raise PerfgateError(f"--rounds must be at least {MIN_ROUNDS}: each round gives one (base, head) "
                                    f"pair, and a paired t on fewer than {MIN_ROUNDS} pairs cannot reach the level "
                                    f"Benjamini–Hochberg needs")
            return cls(args.rounds, args.alpha)
        if args.rounds is not None:   # it was ignored: --rounds 5 --budget 5m ran up to 20 rounds
            given = "--budget" if args.budget is not None else "--max-rounds"
            raise PerfgateError(f"--rounds is a fixed check's number of rounds; with {given} the check is "
                                f"sequential: cap its rounds with --max-rounds N instead")
        most = args.max_rounds if args.max_rounds is not None else DEFAULT_MAX_ROUNDS
        if most > MAX_ROUNDS:
            raise PerfgateError(f"--max-rounds must be at most {MAX_ROUNDS:,}, got {most:,}")
        if most < FIRST_LOOK:
            raise PerfgateError(f"--max-rounds must be at least {FIRST_LOOK}: the first look comes after "
                                f"round {FIRST_LOOK}")
        return cls(most, args.alpha, args.budget, True,
                   rounds_test.spending_levels(args.alpha, most - FIRST_LOOK + 1))


@dataclass
class Outcome:
    comparison: Comparison
    rounds: int
    stopped: str                     # why the rounds ended
    looks: list[dict] = field(default_factory=list)
    complexity: list = field(default_factory=list)   # ComplexityRow of each scaling table and measure
    # why no round ran: no suite in both (every suite new in head, which passes, or renamed, which does not)
    unmeasured: NothingJudged | None = None

    @property
    def nothing_judged(self) -> NothingJudged | None:
        """Why nothing was judged (None when something was, or the head fails)."""
        if failures(self.comparison, self.complexity):
            return None
        return self.unmeasured if not self.rounds else self.comparison.nothing_judged(self.complexity)

    @property
    def exit_code(self) -> int:
        """1 on a significant regression, or on a complexity expectation the head breaks; 4 (no
        verdict) when nothing was judged, unless every benchmark is new in head."""
        if failures(self.comparison, self.complexity):
            return EXIT_REGRESSION
        nothing = self.nothing_judged
        return EXIT_NO_VERDICT if nothing and not nothing.passes else 0


def run(args: argparse.Namespace) -> int:
    check_markdown_target(args)
    try:
        return _check(args)
    except PerfgateError as e:
        # The pull request hears of it too: without a comment, its workflow said only that none was made.
        side = e.side
        write_error_markdown(args, e, side, getattr(args, side) if side else "", str(_logs(args.root)))
        raise


def _logs(root: Path) -> Path:
    """The logs folder of the repository ``root`` is in (as the builds and runs write it)."""
    proc = subprocess.run(["git", "-C", str(root), "rev-parse", "--show-toplevel"], capture_output=True, text=True)
    return (Path(proc.stdout.strip()) if proc.returncode == 0 else root.resolve()) / LOGS


def _check(args: argparse.Namespace) -> int:
    plan = Plan.from_args(args)
    for side in ("base", "head"):  # each becomes the branch of a stored run
        check_identity("branch", check_branch(getattr(args, side)), f"--{side}")
    with store_from(args, create=True):
        pass  # a store that cannot be used is said now, not after every round has run
    # --root may be a folder inside the repository (benches/ and docker/ of a project in a
    # monorepo): each side's benches/ and thresholds/ are that folder's, as run's are
    root, prefix = project_root(args.root)
    shas = {"base": resolve(root, args.base, "--base"), "head": resolve(root, args.head, "--head")}
    branches = {side: stored_branch(root, getattr(args, side), sha, f"--{side}") for side, sha in shas.items()}
    _warn_uncommitted(root, shas)
    merged = _github_merge_head(root, shas["head"])
    if merged:
        err.print(f"[yellow]warning:[/yellow] {terminal(merged)}")
    if shas["base"] == shas["head"]:
        err.print(f"note: base and head are the same commit ({shas['base'][:12]}): an A/A check, which should pass",
                  markup=False)
    with tempfile.TemporaryDirectory(prefix="perfgate-thresholds-") as tmp:
        # The gate comes from the base commit, so the change under test cannot loosen it.
        side = "head" if args.head_thresholds else "base"
        path = _thresholds_path(args, root, shas[side], Path(tmp), prefix)
        try:
            thresholds = load_thresholds(path) if path else built_in_thresholds()  # a bad file fails before any run
            judged_by = _thresholds_about(args, path, shas[side][:12], side)
            expectations = _expectations(path)
        except InputError as e:
            if args.thresholds:
                raise
            # the file is the commit's, extracted to a folder gone by the time the error is read
            where = e.source.replace(f"{tmp}/", "")
            other = ("judge with the base's instead: leave out --head-thresholds" if args.head_thresholds else
                     "a pull request that fixes it can be judged with its own: --head-thresholds")
            raise on_side(InputError(f"{where} of the {side} commit {shas[side][:12]}", e.place,
                                     f"{e.reason} (fix it there; {other})"), side) from None
    engine.ensure_engine()
    with tempfile.TemporaryDirectory(prefix="perfgate-check-") as tmp:
        trees = {}
        try:
            for side, sha in shas.items():
                trees[side] = Path(tmp) / side
                git(root, "worktree", "add", "--detach", "--force", str(trees[side]), sha)
            runs, outcome = _measure(args, plan, thresholds, expectations, root, trees, shas, branches, prefix)
        except PerfgateError as e:
            raise _named_by_side(e, trees, args) from None
        finally:
            for tree in trees.values():
                subprocess.run(["git", "-C", str(root), "worktree", "remove", "--force", str(tree)], capture_output=True)
                shutil.rmtree(tree, ignore_errors=True)
            subprocess.run(["git", "-C", str(root), "worktree", "prune"], capture_output=True)
    with store_from(args, create=True) as store:
        store.add_runs([r.with_key() for side in ("base", "head") for r in runs[side]])
    testbeds = ", ".join(r.testbed.name for r in runs["base"])
    comparison = outcome.comparison
    if outcome.rounds:
        comparison.notes.append(f"thresholds: {judged_by}")
    if merged:
        comparison.warnings.append(merged)
    comparison.base = {"branch": args.base, "commit": shas["base"], "testbed": testbeds}
    comparison.head = {"branch": args.head, "commit": shas["head"], "testbed": testbeds}
    nothing = outcome.nothing_judged
    write_markdown(args, comparison, outcome.complexity, _complexity_about(args), nothing)
    if args.json:
        emit_json({**{side: {"ref": getattr(args, side), "commit": shas[side], "branch": branches[side]}
                      for side in ("base", "head")},
                   "rounds": outcome.rounds, "sequential": plan.sequential, "stopped": outcome.stopped,
                   "looks": outcome.looks, "testbed": runs["base"][0].testbed.name if runs["base"] else None,
                   "testbeds": {r.testbed.name: r.context["suites"] for r in runs["base"]},
                   "comparison": comparison, "counts": comparison.counts(),
                   "complexity": [r.as_dict() for r in outcome.complexity],
                   "nothing_judged": nothing.reason if nothing else None, "exit_code": outcome.exit_code})
    else:
        _print(comparison, args, shas, testbeds, outcome)
    if outcome.exit_code == EXIT_NO_VERDICT:   # the runs were recorded: they are whole, only nothing was judged
        # one line, "perfgate check: no verdict: REASON; …": the action's annotation quotes it
        print(f"perfgate check: no verdict: {visible(nothing.reason)}; a check that judged nothing is no pass",
              file=sys.stderr)
    return outcome.exit_code


def judge(rounds: dict[str, dict[tuple[str, str], list[list[float]]]], thresholds, plan: Plan,
          flagged: dict[tuple[str, str], Verdict],
          settled: dict[tuple[str, str], Verdict] | None = None,
          measured: dict[tuple[str, str], int] | None = None) -> tuple[Comparison, bool, dict]:
    """One look after a round: the comparison at this look's level, whether every benchmark is
    decided, and a summary of the look.  ``flagged`` keeps what earlier looks flagged;
    ``settled`` each row's verdict at the last look that had new rounds of it: an instruction
    count, probed in the first rounds only, keeps the verdict of its last round (at a later look's smaller
    level the same rounds gave a wider interval, and an inconclusive row no round could decide).
    A benchmark is decided once it is flagged or no-change, the verdicts' own rule; the
    inconclusive rows still getting rounds are what the next round is for.  ``measured``: the rounds
    each row was measured in, where ``rounds`` leaves some out (wall time under load, :func:`_rounds`):
    such a row still gets rounds."""
    settled = {} if settled is None else settled
    measured = measured or {k: len(r) for k, r in rounds["base"].items()}
    n = max(measured.values())     # instructions stop after PROBE_ROUNDS
    level = plan.levels[n - FIRST_LOOK] if plan.sequential else plan.alpha
    comparison = compare_rounds(rounds["base"], rounds["head"], thresholds, alpha=level)
    undecided = []
    for i, v in enumerate(comparison.verdicts):
        key = (v.benchmark, v.measure)
        if key in flagged:
            comparison.verdicts[i] = flagged[key]
            continue
        if key in settled and settled[key].rounds == v.rounds and measured.get(key, v.rounds) < n:   # no new round of it
            comparison.verdicts[i] = settled[key]
            continue
        settled[key] = v
        if v.verdict in ("regression", "improvement"):
            flagged[key] = v
        elif v.verdict == "inconclusive" and measured.get(key, v.rounds) == n and tied_to(comparison.verdicts, v) is None:
            undecided.append(f"{v.benchmark} {v.measure}")
    look = {"round": n, "level": level, "flagged": len(flagged), "undecided": len(undecided)}
    return comparison, not undecided, look


def _complexity_about(args: argparse.Namespace) -> str:
    """How the scaling tables were judged, and whose expectations."""
    whose = (f"expectations from {args.thresholds}" if args.thresholds else
             f"expectations from the {'head' if args.head_thresholds else 'base'} commit's thresholds/complexity.toml")
    return ("each side's scaling points fitted as perfgate fit fits them (each point's median over the rounds; "
            f"a violation counts when most rounds' own fits show it too); {whose}")


def _expectations(thresholds: Path | None) -> list:
    """The complexity expectations beside the thresholds (imported here: the fitting code pulls
    in statsmodels, and every perfgate command imports this module)."""
    from perfgate.complexity.expectations import expectations_of

    return expectations_of(thresholds)


def _warn_uncommitted(root: Path, shas: dict[str, str]) -> None:
    """A side that is the checked-out commit, in a tree with uncommitted changes: those changes
    are not what is measured (each side is built from its commit), which a user may not expect."""
    here = git(root, "rev-parse", "HEAD")
    if here in shas.values() and uncommitted_changes(str(root)):
        err.print(f"[yellow]note:[/yellow] the working tree has uncommitted changes; check builds each side from "
                  f"its commit ({here[:12]} is HEAD), so they are not measured: commit them to check them")


def _github_merge_head(root: Path, head: str) -> str:
    """A warning when the head is the merge commit GitHub checks out for a pull request
    (``refs/pull/N/merge``, ``GITHUB_SHA`` of a ``pull_request`` event): it holds the base
    branch's changes since the merge base too, and the check would put them on the pull request."""
    if not os.environ.get("GITHUB_EVENT_NAME", "").startswith("pull_request") or head != os.environ.get("GITHUB_SHA"):
        return ""
    if len(git(root, "rev-list", "--parents", "-n", "1", head).split()) < 3:
        return ""
    return (f"--head {head[:12]} is the pull request merged into its base branch (GitHub's merge commit): "
            "what landed on the base branch since the merge base is measured as the pull request's; "
            "give --head ${{ github.event.pull_request.head.sha }}")


def _named_by_side(e: PerfgateError, trees: dict[str, Path], args: argparse.Namespace) -> PerfgateError:
    """An error from a side's temporary checkout, naming the side and its ref instead of a path
    that is gone by the time it is read."""
    text, failed = str(e), e.side
    for side, tree in trees.items():
        named = f"{side} ({getattr(args, side)})"
        if str(tree) in text:
            text, failed = text.replace(f"{tree}/", f"{named} ").replace(str(tree), named), failed or side
    if text == str(e):
        return e
    named = PerfgateError(text)
    named.exit_code = e.exit_code
    return on_side(named, failed) if failed else named


def _thresholds_about(args: argparse.Namespace, path: Path | None, sha: str, side: str) -> str:
    """Which thresholds judged the check: a reader of the comment cannot tell otherwise."""
    if args.thresholds:
        return str(args.thresholds)
    if path is None:
        return f"{BUILT_IN_SOURCE} (the {side} commit {sha} has no thresholds/)"
    return f"thresholds/ of the {side} commit {sha}"


def _thresholds_path(args: argparse.Namespace, root: Path, sha: str, tmp: Path, prefix: str = "") -> Path | None:
    """``--thresholds``, else ``thresholds/`` as committed at ``sha`` (extracted to ``tmp``), else None."""
    if args.thresholds:
        return Path(args.thresholds)
    if not git(root, "ls-tree", "-d", sha, f"{prefix}thresholds"):
        return None
    archive = subprocess.run(["git", "-C", str(root), "archive", "--format=tar", sha, f"{prefix}thresholds"],
                             capture_output=True)
    if archive.returncode != 0:
        raise PerfgateError(f"git archive {sha} thresholds failed in {root}: {archive.stderr.decode(errors='replace')}")
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        tar.extractall(tmp, filter="data")
    return tmp / prefix / "thresholds"


def _measure(args: argparse.Namespace, plan: Plan, thresholds, expectations: list, root: Path,
             trees: dict[str, Path], shas: dict[str, str], branches: dict[str, str],
             prefix: str = "") -> tuple[dict[str, Run], Outcome]:
    """Build both sides on one toolchain image, run them interleaved round after round, judge."""
    began = time.monotonic()     # the budget counts the builds too: a user waits for those as well
    suites = {side: _suites(tree / prefix, side) for side, tree in trees.items()}
    names = sorted(set(suites["base"]) & set(suites["head"]))
    for n in args.suite or ():
        if n not in names:
            known = ", ".join(sorted(set(suites["base"]) | set(suites["head"]))) or "none"
            where = (f"new in {args.head}: its base has none to compare with" if n in suites["head"] else
                     f"gone in {args.head}" if n in suites["base"] else
                     f"in neither side (base {args.base}, head {args.head}); their suites: {known}")
            raise PerfgateError(f"--suite {n!r}: the suite is {where}")
    one_sided: list[str] = []
    if args.suite:
        names = [n for n in names if n in args.suite]
    else:
        # A suite only one side has is not compared; said, so that deleting one is not a quiet pass.
        one_sided += [f"suite {n} is new in {args.head}: not compared (its base has no such suite)"
                      for n in sorted(set(suites["head"]) - set(suites["base"]))]
        one_sided += [f"suite {n} is gone in {args.head}: its benchmarks are no longer measured"
                      for n in sorted(set(suites["base"]) - set(suites["head"]))]
        for note in one_sided:
            err.print(f"[yellow]note:[/yellow] {terminal(note)}")
    if not names and suites["base"]:
        # Every suite renamed or replaced: a pull request's doing, not bad input; no verdict, as a
        # check whose every benchmark was renamed (its comment says so, not "could not run").
        gone, new = (len(set(suites[a]) - set(suites[b])) for a, b in (("base", "head"), ("head", "base")))
        why = f"no suite was measured on both sides ({gone} gone in {args.head}, {new} new in {args.head})"
        return {"base": [], "head": []}, Outcome(Comparison([], plan.alpha, notes=one_sided), 0, why,
                                                 unmeasured=NothingJudged(f"nothing compared: {why}", False))
    if not names:
        # The pull request that adds perfgate's first suites: nothing to compare, nothing wrong.
        why = f"its base {args.base} has no benchmark suite"
        return {"base": [], "head": []}, Outcome(Comparison([], plan.alpha, notes=one_sided), 0, why,
                                                 unmeasured=NothingJudged(f"nothing compared: {why}, so every suite "
                                                                          f"is new in {args.head}", True))
    docker_dir = images.image_definitions(args.root.resolve())
    base_image = images.build_base(docker_dir, log=err.print)
    steps: list[tuple[Suite, Suite, str, images.Built, images.Built]] = []
    variant_notes: list[str] = []
    testbeds: dict[str, Testbed] = {}   # suite name -> the testbed it runs on (its image, its memory)
    for name in names:
        head_suite, base_suite = suites["head"][name], suites["base"][name]
        try:
            tool = images.build_image(docker_dir, head_suite.image, base_image, log=err.print)
        except InputError as e:   # it named a Dockerfile path only: not which suite, side or file asked for it
            if e.place or not e.reason.startswith("missing: "):
                raise
            known = e.reason.split("; ", 1)[1] if "; " in e.reason else ""
            raise on_side(InputError(str(head_suite.manifest), "image",
                                     f"image {head_suite.image!r} has no Dockerfile at {e.source} (both sides are "
                                     f"built on this checkout's docker/ images){'; ' + known if known else ''}"),
                          "head") from None
        built = {}
        for side, s in (("base", base_suite), ("head", head_suite)):
            try:
                built[side] = images.build_suite(s, tool, log=err.print, logs_dir=root / LOGS)
            except PerfgateError as e:   # the build log's path names neither side nor ref
                failed = PerfgateError(f"{side} ({getattr(args, side)}) suite {name!r}: {e}")
                failed.exit_code = e.exit_code
                raise on_side(failed, side) from None
        variant_notes += [f"variant {name}/{v} is gone in {args.head}: its benchmarks are no longer measured"
                          for v in base_suite.variants if v not in head_suite.variants
                          and (not args.variant or v in args.variant)]
        testbeds[name] = container_testbed(head_suite.image, tool, args.cpuset, head_suite.memory)
        for variant in head_suite.variant_names(args.variant):
            if variant and variant not in base_suite.variants:
                # as a suite only one side has: said, not skipped in silence
                if args.variant:
                    raise PerfgateError(f"--variant {variant!r}: the variant of suite {name!r} is new in "
                                        f"{args.head}: its base has none to compare with")
                variant_notes.append(f"variant {name}/{variant} is new in {args.head}: not compared "
                                     "(its base has no such variant)")
                continue
            steps.append((base_suite, head_suite, variant, built["base"], built["head"]))
    for note in variant_notes:
        err.print(f"[yellow]note:[/yellow] {terminal(note)}")
    one_sided += variant_notes
    results: dict[str, list[SuiteResult]] = {"base": [], "head": []}
    flagged: dict[tuple[str, str], Verdict] = {}
    settled: dict[tuple[str, str], Verdict] = {}
    looks: list[dict] = []
    comparison, stopped = None, f"{plan.rounds} rounds run"
    started, started_at = time.monotonic(), time.time()
    with Progress(TextColumn("{task.description}"), BarColumn(), TextColumn("{task.completed}/{task.total}"),
                  TimeElapsedColumn(), console=err) as progress:
        task = progress.add_task("check", total=plan.rounds * len(steps) * 2)
        for rnd in range(plan.rounds):
            round_started = time.monotonic()
            for base_suite, head_suite, variant, base_built, head_built in steps:
                order = (("base", base_suite, base_built), ("head", head_suite, head_built))
                # Which side goes first alternates (A B, B A, A B, ...) so a warm-cache or
                # second-in-line advantage cannot masquerade as a change.
                for side, suite, built in order if rnd % 2 == 0 else order[::-1]:
                    progress.update(task, description=terminal(f"round {rnd + 1}/{plan.rounds}: {side} {suite.name}"
                                                             f"{'/' + variant if variant else ''}"))
                    # Valgrind's instruction counts repeat exactly: the first PROBE_ROUNDS rounds
                    # settle them.  Peak RSS varies by a few percent run to run, and 3 rounds left
                    # its interval wider than its 5% threshold (every check read it inconclusive):
                    # it is measured every round, a run of the probe without valgrind.
                    try:
                        results[side].append(run_suite(suite, built.tag, variant=variant, profile=args.profile,
                                                       limits=Limits(args.cpuset, suite.memory, suite.timeout),
                                                       probes=not args.no_probes, instructions=rnd < PROBE_ROUNDS,
                                                       logs_dir=root / LOGS))
                    except PerfgateError as e:   # a container killed by its timeout names no checkout
                        raise on_side(e, side)
                    progress.advance(task)
            done = rnd + 1
            if done == 1:   # every benchmark's name is known now: refuse before more rounds are spent
                for side in ("base", "head"):
                    _refuse_shared_benchmarks(results[side], side, getattr(args, side))
            if not err.is_terminal:   # a CI log shows no progress bar: a line a round instead
                err.print(f"round {done}/{plan.rounds} done, {time.monotonic() - started:.0f} s", markup=False)
            if plan.sequential and done >= FIRST_LOOK:
                measured = {k: len(r) for k, r in per_round(results["base"]).items()}
                comparison, decided, look = judge(_rounds(results), thresholds, plan, flagged, settled, measured)
                looks.append(look)
                if decided:
                    stopped = f"every benchmark decided after {done} rounds"
                    break
            # Each round, looked at or not: a budget of 5 minutes once ran to 8 (three rounds of
            # 150 s, the first two before any look, and the image builds not counted).
            if plan.budget is not None and \
                    (time.monotonic() - began) + (time.monotonic() - round_started) > plan.budget:
                stopped = f"budget of {plan.budget:g} s would be exceeded by another round (after {done} rounds)"
                break
        else:
            if plan.sequential:
                stopped = f"--max-rounds {plan.rounds} reached with {looks[-1]['undecided']} undecided" \
                    if looks and looks[-1]["undecided"] else f"{plan.rounds} rounds run"
    done = len(results["base"]) // max(len(steps), 1)
    if comparison is None:  # a fixed check: one look, at the full level
        comparison = compare_rounds(*(_rounds(results)[s] for s in ("base", "head")), thresholds, alpha=plan.alpha)
        comparison.notes.insert(0, f"{done} interleaved rounds of base and head"
                                + (f" ({stopped}, before the first look)" if plan.sequential else "")
                                + _samples_note(comparison))
    else:
        comparison.spent_over_looks = plan.alpha
        comparison.notes.append(f"sequential: {done} rounds{_samples_note(comparison)}, {stopped}; "
                                f"false discovery rate {plan.alpha:g} spent "
                                f"over up to {len(plan.levels)} looks (Pocock-type alpha spending); this look's "
                                f"level {comparison.alpha:.2g}, which the q-values are judged against")
    comparison.notes.extend(n for n in [_load_note(results)] if n)
    comparison.notes.extend(one_sided)
    check_id = f"{shas['base'][:12]}..{shas['head'][:12]}@{started_at:.0f}"  # pairs the runs in the store
    points = {side: scaling_points(rs) for side, rs in results.items()}
    complexity = []
    if points["base"] and points["head"]:
        from perfgate.complexity.compare import compare_complexity, unmatched_note   # statsmodels: scaling only

        # each round ran every step once a side, in order: a round's own points bear a violation out
        each = {side: [scaling_points(rs[i * len(steps):(i + 1) * len(steps)]) for i in range(done)]
                for side, rs in results.items()}
        complexity = compare_complexity(points["base"], points["head"], expectations, each["base"], each["head"])
        comparison.notes.extend(n for n in [unmatched_note(expectations, complexity)] if n)
    return (side_runs(args, shas, branches, results, testbeds, done, check_id),
            Outcome(comparison, done, stopped, looks, complexity))


def _refuse_shared_benchmarks(results: list[SuiteResult], side: str, ref: str) -> None:
    """Refuse two suites (or variants) of one side reporting the same benchmark and measure: the
    rounds are paired by name, so both suites' values were taken as one benchmark's — twice the
    rounds, and one suite's regression averaged with the other's no-change (a clear slowdown of
    one of two suites running the same hyperfine command passed as inconclusive, exit 0).
    ``run`` and ``backfill`` refuse such suites against the store the same way."""
    seen: dict[tuple[str, str], str] = {}
    for r in results:
        label = r.context.get("suite", "?") + (f" (variant {r.context['variant']})" if r.context.get("variant") else "")
        for m in r.metrics:
            other = seen.setdefault((m.benchmark, m.measure), label)
            if other != label:
                raise on_side(PerfgateError(
                    f"{side} ({ref}): suites {other!r} and {label!r} both report benchmark {m.benchmark!r} "
                    f"({m.measure}); a check pairs rounds by benchmark name, so the two would be judged as one: "
                    "give one suite's benchmarks other names (nothing was recorded)"), side)


def _suites(tree: Path, side: str) -> dict[str, Suite]:
    """The suites of one side's tree by name; a base may have none (the pull request adding them)."""
    if side == "base" and not any((tree / "benches").glob("*/bench.toml")):
        return {}
    return {s.name: s for s in discover(tree / "benches", None)}


def _samples_note(comparison: Comparison) -> str:
    """How many raw samples a side the rows were judged on, as ", 40-200 samples a side": "8
    rounds" alone did not say whether a row stood on 8 values or 800 (an adopter's audit)."""
    counts = [min(v.n_base, v.n_head) for v in comparison.verdicts if v.n_base and v.n_head]
    if not counts:
        return ""
    low, high = min(counts), max(counts)
    return f", {low}{'' if low == high else f'–{high}'} raw sample(s) a side per benchmark"


def side_runs(args: argparse.Namespace, shas: dict[str, str], branches: dict[str, str],
              results: dict[str, list[SuiteResult]], testbeds: dict[str, Testbed], rounds: int,
              check_id: str) -> dict[str, list[Run]]:
    """The runs a check records: one a side and testbed, on the side's branch (``branches``:
    :func:`stored_branch`).  Suites on different images (C++, Rust, Swift) are different
    testbeds; one run of them all put every series on the first suite's."""
    runs: dict[str, list[Run]] = {"base": [], "head": []}
    for side in ("base", "head"):
        for testbed in {tb.name: tb for tb in testbeds.values()}.values():
            rs = [r for r in results[side] if testbeds[r.context["suite"]].name == testbed.name]
            if not rs:
                continue
            runs[side].append(Run(
                args.project, branches[side], shas[side], testbed, pool(rs),
                start_time=min(r.start_time for r in rs), end_time=max(r.end_time for r in rs),
                adapter="+".join(sorted({r.context["adapter"] for r in rs})),
                context={"check": True, "side": side, "check_id": check_id, "rounds": rounds,
                         "interleaved_with": shas["head" if side == "base" else "base"],
                         "suites": sorted({r.context["suite"] for r in rs}), "profile": args.profile}))
    return runs


def _rounds(results: dict[str, list[SuiteResult]]) -> dict[str, dict[tuple[str, str], list[list[float]]]]:
    """Each side's rounds (:func:`per_round`), less the wall-time rounds measured under load on
    either side while most were quiet (:func:`perfgate.detect.load_hold.rounds_left_out`): the
    same rounds of both, which stay paired."""
    rounds = {side: per_round(rs) for side, rs in results.items()}
    loads = {side: _round_loads(rs) for side, rs in results.items()}
    for key in set(rounds["base"]) & set(rounds["head"]):
        out = set(rounds_left_out(key[1], loads["base"][key], loads["head"][key]))
        for side in ("base", "head"):
            rounds[side][key] = [r for i, r in enumerate(rounds[side][key]) if i not in out]
    return rounds


def _round_loads(results: list[SuiteResult]) -> dict[tuple[str, str], list[float | None]]:
    """``{(benchmark, measure): [the load of round 1, round 2, …]}``, as :func:`per_round` orders
    them: the share of the CPU the suite's run needed that other processes took (None: not read)."""
    loads: dict[tuple[str, str], list[float | None]] = defaultdict(list)
    for result in results:
        for m in result.metrics:
            loads[(m.benchmark, m.measure)].append(_load_of(result))
    return loads


def _load_of(result: SuiteResult) -> float | None:
    return host_load.taken(result.context.get(host_load.KEY))


def _load_note(results: dict[str, list[SuiteResult]]) -> str:
    """Which suite runs were measured under load, and what became of their wall time; "" for none."""
    runs, seen = [], defaultdict(int)
    for side, rs in results.items():
        seen.clear()
        for r in rs:
            step = r.context.get("suite", "?") + (f"/{r.context['variant']}" if r.context.get("variant") else "")
            seen[step] += 1
            load = _load_of(r)
            if load is not None and load >= LOADED:
                runs.append(f"{step} round {seen[step]} {side} ({load:.0%})")
    measured, judged = per_round(results["base"]), _rounds(results)["base"]
    wall = [k for k in measured if wall_time(k[1]) and k in judged]
    if not runs or not wall:
        return ""       # instruction counts and memory do not slow down with the machine's load
    dropped = any(len(judged[k]) < len(measured[k]) for k in wall)
    what = ("the wall time of those rounds is left out on both sides (base and head of a round stay paired)"
            if dropped else "most rounds were, or too few quiet ones are left: wall time is judged as measured")
    return (f"measured under load (other processes took that share of the CPU the suite needed): "
            f"{', '.join(runs)}; {what}")


def side_name(ref: str, sha: str) -> str:
    """A side as the check's first line names it: ``HEAD (8ca0da7c5669)``, but a ref that is the
    commit's own hash (``--base "$(git merge-base …)"``, as the README has it) once, as 12 digits."""
    if len(ref) >= 7 and sha.lower().startswith(ref.lower()):
        return sha[:12]
    return f"{terminal(ref)} ({sha[:12]})"


def _print(comparison: Comparison, args: argparse.Namespace, shas: dict[str, str], testbeds: str,
           outcome: Outcome) -> None:
    nothing = outcome.nothing_judged
    if not outcome.rounds:
        out.print(f"perfgate check: {side_name(args.head, shas['head'])} against {side_name(args.base, shas['base'])}"
                  ": no round run")
        out.print(f"{'ok' if nothing.passes else 'no verdict'}: {terminal(nothing.reason)}")
        return
    out.print(f"perfgate check: {side_name(args.head, shas['head'])} against {side_name(args.base, shas['base'])}, "
              f"{outcome.rounds} interleaved rounds on {terminal(testbeds)}")
    out.print(terminal(comparison.render(quiet_rows(args)), keep_newlines=True))
    print_complexity(outcome.complexity, f"complexity: {_complexity_about(args)}:")
    failing = failures(comparison, outcome.complexity)
    verdict = (f"FAIL: {', '.join(failing)}" if failing else
               f"{'ok' if nothing.passes else 'no verdict'}: {terminal(nothing.reason)}" if nothing else
               "ok: no significant regression")
    undecided = "" if nothing else comparison.undecided_text()
    if undecided:
        verdict += f", {undecided}"
    # the MDE is each judged row's: said when a row was judged
    out.print(verdict if nothing else f"{verdict} (MDE = the change each benchmark would show with 80% probability, "
                                      "its noise at the 90% upper bound)")
