"""Measure the history: build and run the suites at each commit of a range (``asv run A..B``).

``perfgate backfill A..B`` takes the commits reachable from B and not from A (a single ``B``:
all of its ancestors), optionally thinned with ``--every N`` or restricted to ``--first-parent``
(main's merges), and measures them in a spread order (:func:`spread_order`: neighbours far apart
in time, so the machine's drift during a long backfill is not drawn as a step).  Each commit's tree is exported, every suite (and variant) in
its ``benches/`` is built on the pinned toolchain image of *this* checkout's ``docker/`` and run,
and each run is recorded with the **commit's date** as its time, so series read in history
order however late the backfill ran.

**Resumable.**  A run's idempotency key is (project, branch, commit, suite, variant, profile,
testbed): what is recorded is skipped before anything is built, each run is written in one
transaction as soon as it finishes, and a key the store already holds is never inserted twice.
A suite ``perfgate run`` already recorded at that commit, branch, testbed and profile is skipped too.
Killed at any moment (kill -9 included), the same command picks up where it stopped.  A
commit whose suite fails to build or run (or whose bench.toml is bad) is said and not recorded;
the other commits are measured, and the backfill exits 2 naming the failed ones: run again, only
those are tried again.

**Shards.**  ``--shard I/N`` takes every Nth commit starting at the Ith, so N runners (an
Actions matrix) split the range and together measure each commit once.  Runners differ, so each
shard records under its own testbed (``<testbed>~shard-I-of-N``) and wall times of different
shards are never put in one series.  Instruction counts under the same pinned image do not
depend on the machine: they are *also* recorded on the testbed named after the image definition
alone (``image-<digest>``), where the shards' points form one series that ``detect`` and
``bisect`` use across the whole range.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass
from pathlib import Path

from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn,
                           TimeRemainingColumn)

from perfgate.commands._common import refuse_shared_series, store_from
from perfgate.commands._commit_runs import PORTABLE_MEASURES, add_commit_runner_options, make_runner, run_key
from perfgate.escape import terminal
from perfgate.commits import Commit, git, list_commits, every, parse_shard, project_root, shard
from perfgate.containers.manifest import Suite
from perfgate.errors import EXIT_OK, PerfgateError, StoreError
from perfgate.model import Metric, Run, Testbed, duplicate_metric
from perfgate.output import emit_json, err, out

NAME = "backfill"
HELP = "build and run the suites at each commit of a range, recorded at the commits' dates (resumable)"
ORDER = 6
EPILOG = """examples:
  perfgate backfill v1.0..main                    # every commit after v1.0 up to main
  perfgate backfill main --every 5 --suite tree-alloc
  perfgate backfill v1.0..main --first-parent     # main's merges only
  perfgate backfill v1.0..main --shard 2/4        # runner 2 of an Actions matrix of 4"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("range", metavar="A..B", help="commits reachable from B and not from A (or a single ref B)")
    p.add_argument("--suite", action="append", metavar="NAME", help="only this suite (repeatable)")
    p.add_argument("--variant", action="append", metavar="NAME",
                   help="only this variant (repeatable; '' is the plain suite)")
    add_commit_runner_options(p)
    p.add_argument("--every", type=int, default=1, metavar="N", help="every Nth commit, plus the newest (default: 1)")
    p.add_argument("--first-parent", action="store_true", help="follow only first parents (a branch's merges)")
    p.add_argument("--shard", metavar="I/N", help="measure only shard I of N (every Nth commit from the Ith)")
    p.add_argument("--branch", help="branch the runs belong to (default: B when it names a branch, else the checkout's)")


def shard_testbed(testbed: Testbed, index: int, count: int) -> Testbed:
    return Testbed(f"{testbed.name}~shard-{index}-of-{count}", {**testbed.fingerprint, "shard": f"{index}/{count}"})


def portable_testbed(testbed: Testbed) -> Testbed | None:
    """The testbed shared by every machine running the same image definition, or None when the
    runs come from no pinned image (host runner)."""
    digest = testbed.fingerprint.get("image_digest")
    if not digest:
        return None
    return Testbed(f"image-{digest.removeprefix('sha256:')[:12]}",
                   {"image_digest": digest, "image": testbed.fingerprint.get("image"),
                    "portable_measures": list(PORTABLE_MEASURES)})


@dataclass
class Job:
    commit: Commit
    suite: str
    variant: str


def default_branch(root: Path, spec: str) -> str:
    """B's branch name when B names one (``main``, ``origin/main``), else the checkout's branch."""
    tip = spec.split("..")[-1] or "HEAD"
    full = git(root, "rev-parse", "--symbolic-full-name", tip)
    for prefix in ("refs/heads/", "refs/remotes/origin/"):
        if full.startswith(prefix):
            return full.removeprefix(prefix)
    here = git(root, "rev-parse", "--abbrev-ref", "HEAD")
    return here if here != "HEAD" else "main"


def run(args: argparse.Namespace) -> int:
    # --root may be a monorepo's project: its folder's benches/ are measured at each commit
    root, prefix = project_root(args.root)
    commits = list_commits(root, args.range, first_parent=args.first_parent)
    commits = every(commits, args.every)
    if not commits:
        raise PerfgateError(f"range {args.range!r}: no commits")
    shard_of = parse_shard(args.shard) if args.shard else None
    if shard_of:
        in_range = len(commits)
        commits = shard(commits, *shard_of)
        if not commits:  # a matrix wider than a short range: this runner has nothing to do, no error
            err.print(f"perfgate backfill: shard {args.shard} has no commit of the {in_range} in {terminal(args.range)}")
    branch = args.branch or default_branch(root, args.range)
    return backfill(args, root, prefix, commits, branch, shard_of)


def backfill(args: argparse.Namespace, root: Path, prefix: str, commits: list[Commit], branch: str,
             shard_of: tuple[int, int] | None) -> int:
    from perfgate.commit_runner import exported_tree, suites_at

    runner = make_runner(args, root, prefix)
    recorded = skipped = 0
    planned: list[dict] = []
    failed: list[dict] = []     # the runs a commit's build, harness or manifest failed: the others go on
    seen: set[str] = set()      # the suites of the commits' trees, for a --suite named at none of them
    started = time.monotonic()
    with store_from(args, create=True) as store, Progress(
            TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
            TextColumn("ETA"), TimeRemainingColumn(), console=err, transient=False) as progress:
        task = progress.add_task("backfill", total=len(commits))
        position = {c.sha: i for i, c in enumerate(commits)}
        for n, commit in enumerate(spread_order(commits)):
            progress.update(task, description=terminal(f"{commit.sha[:10]} {commit.subject[:40]}"))
            with exported_tree(root, commit.sha) as tree:
                try:
                    found = suites_at(tree / prefix)
                except PerfgateError as e:
                    _failed(failed, commit, "", "", e)
                    found = []
                seen.update(s.name for s in found)
                for suite in (s for s in found if not args.suite or s.name in args.suite):
                    for variant in _variants(suite, args.variant):
                        testbed = runner.testbed(suite)
                        if shard_of:
                            testbed = shard_testbed(testbed, *shard_of)
                        key = run_key(args.project, branch, commit.sha, suite.name, variant, args.profile,
                                      testbed.name)
                        done = key in store.recorded_keys([key]) or _measured_by_run(
                            store, branch, commit.sha, testbed.name, suite.name, variant, args.profile)
                        planned.append({"commit": commit.sha, "suite": suite.name, "variant": variant,
                                        "skipped": done})
                        if done:
                            skipped += 1
                            continue
                        try:
                            result = runner.measure(suite, variant, args.profile)
                        except StoreError:
                            raise
                        except PerfgateError as e:
                            planned[-1]["failed"] = _failed(failed, commit, suite.name, variant, e)
                            continue
                        recorded += _record(store, args, branch, commit, suite, variant, testbed, key, result,
                                            shard_of)
            # Progress by commits: the ETA is the mean time of a commit so far times those left.
            progress.update(task, completed=n + 1)
    planned.sort(key=lambda job: position[job["commit"]])     # reported in commit order
    summary = {"range": args.range, "branch": branch, "commits": len(commits), "runs_recorded": recorded,
               "runs_skipped": skipped, "runs_failed": len(failed), "failed": failed,
               "shard": args.shard, "seconds": round(time.monotonic() - started, 1),
               "image_build_seconds": round(runner.build_seconds, 1),
               "jobs": planned}
    if args.json:
        emit_json(summary)
    else:
        out.print(f"perfgate backfill {terminal(args.range)}: {len(commits)} commit(s) on {terminal(branch)}; "
                  f"recorded {recorded} run(s), skipped {skipped} already recorded "
                  f"({time.monotonic() - started:.0f} s, of which {runner.build_seconds:.0f} s building images)")
    missing = sorted(set(args.suite or ()) - seen) if commits else []
    if missing:
        raise PerfgateError(f"--suite {', '.join(map(repr, missing))}: at none of the {len(commits)} commit(s); "
                            f"suites found: {', '.join(sorted(seen)) or f'none (no {prefix}benches/)'}")
    if failed:
        named = ", ".join(f"{f['commit'][:12]}" + (f" {f['suite']}" if f["suite"] else "") for f in failed[:5])
        raise PerfgateError(f"{len(failed)} run(s) failed and were not recorded ({named}"
                            f"{' …' if len(failed) > 5 else ''}); the others were: run the same command again to "
                            "retry only those")
    return EXIT_OK


def _failed(failed: list[dict], commit: Commit, suite: str, variant: str, e: PerfgateError) -> str:
    """Note a run that failed at ``commit`` (its build, harness or manifest) and say so; the
    backfill goes on with the other commits, as a broken commit in a history is no reason to stop
    measuring it (it stopped for good there before, and a resumed backfill stopped there again)."""
    reason = str(e).strip().splitlines()[0][:300] if str(e).strip() else type(e).__name__
    failed.append({"commit": commit.sha, "suite": suite, "variant": variant, "reason": reason})
    err.print(terminal(f"perfgate backfill: {commit.sha[:12]} {commit.subject[:40]!r}"
                       + (f" suite {suite}" if suite else "") + f": {reason}; not recorded, the others go on"))
    return reason


def spread_order(commits: list[Commit]) -> list[Commit]:
    """The order to measure ``commits`` in: bit-reversed positions (0, 4, 2, 6, 1, 5, ...), so that
    neighbours are measured far apart in time.  Measured oldest first, a machine whose load rose
    during the backfill drew that drift as a step between two commits (a demo under load once had
    a -11% "regression" at a commit that changed only the changelog); spread out, drift is noise
    over the whole range, which the change point test does not take for a step."""
    bits = max(1, (len(commits) - 1).bit_length())
    order = sorted(range(len(commits)), key=lambda i: int(f"{i:0{bits}b}"[::-1], 2))
    return [commits[i] for i in order]


def _measured_by_run(store, branch: str, commit: str, testbed: str, suite: str, variant: str, profile: str) -> bool:
    """Whether ``perfgate run`` (or a backfill under another key) already recorded this suite,
    variant and profile at the commit: CI's own runs on main are not measured again."""
    return any(c.get("suite") == suite and c.get("variant", "") == variant and c.get("profile") == profile
               for c in store.run_contexts(branch, commit, testbed))


def _variants(suite: Suite, wanted: list[str] | None) -> list[str]:
    """The variants to run at this commit.  One asked for but absent here is no error: that
    commit predates it."""
    names = ["", *suite.variants]
    return [n for n in names if n in wanted] if wanted else names


def _record(store, args, branch: str, commit: Commit, suite: Suite, variant: str, testbed: Testbed, key: str,
            result, shard_of) -> int:
    dup = duplicate_metric(result.metrics)
    if dup:
        raise PerfgateError(f"{suite.manifest}: benchmark {dup[0]!r} measure {dup[1]!r} appears twice")
    context = {**result.context, "backfill": True, "measured_at": result.start_time}
    duration = result.end_time - result.start_time
    runs = [Run(args.project, branch, commit.sha, testbed, result.metrics, start_time=commit.time,
                end_time=commit.time + duration, adapter=result.context.get("adapter", ""), context=context,
                idempotency_key=key)]
    portable = portable_testbed(testbed) if shard_of else None
    if portable is not None:
        metrics = [Metric(m.benchmark, m.measure, m.value, m.lower, m.upper, m.samples, dict(m.attrs))
                   for m in result.metrics if m.measure in PORTABLE_MEASURES]
        if metrics:
            runs.append(Run(args.project, branch, commit.sha, portable, metrics, start_time=commit.time,
                            end_time=commit.time + duration, adapter=runs[0].adapter,
                            context={**context, "from_testbed": testbed.name},
                            idempotency_key=run_key(args.project, branch, commit.sha, suite.name, variant,
                                                    args.profile, portable.name)))
    refuse_shared_series(store, runs[0], suite.manifest)
    # Both land together or not at all.
    return sum(store.add_runs(runs)[:1])
