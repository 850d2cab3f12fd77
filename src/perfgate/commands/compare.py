"""Compare two recorded runs benchmark by benchmark, from their raw samples.

Each (benchmark, measure) gets the Hodges–Lehmann shift of head over base with a confidence
interval, a Mann–Whitney test, a Benjamini–Hochberg q-value across every benchmark of the
comparison (so 50 benchmarks do not raise 2–3 false alarms per pull request), the smallest change
this pair of runs could have detected given its noise, and a verdict.  A change must be
significant (q ≤ alpha) AND at least the series' min_effect from thresholds/ to count.

Runs with scaling points (a scaling table's rows) also get each table fitted on either side, its
knee shown and its complexity expectations judged (as ``perfgate check`` does).

Exit 1 when a significant regression above threshold is found, or a complexity expectation the
base keeps is broken by the head, or one both break the head breaks earlier (its rounds' knees
moved down); 0 otherwise; 2 on bad input, or when no comparison could be
judged (a pass on nothing judged would read as a pass).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import asdict
from pathlib import Path

from perfgate.commands._common import (add_all_rows_option, add_markdown_option, check_markdown_target, failures,
                                      full_run_id, print_complexity, quiet_rows, store_from, write_markdown)
from perfgate.escape import terminal
from perfgate.errors import EXIT_USAGE, PerfgateError
from perfgate.gitinfo import ref_commit
from perfgate.output import emit_json, out
from perfgate.thresholds import default_path, load_thresholds

NAME = "compare"
HELP = "compare a head run against a base run (effect sizes, FDR-controlled verdicts; exit 1 on regression)"
ORDER = 50
EPILOG = """examples:
  perfgate compare --base-branch main --head-branch pr-42
  perfgate compare --base 0b1c...-run-id --head 9f3e...-run-id --json
  perfgate compare --base-commit "$(git merge-base origin/main HEAD)" --head-commit "$(git rev-parse HEAD)"
  perfgate export --format csv   # every run with its id (the "run" column)"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_markdown_option(p)
    add_all_rows_option(p)
    p.add_argument("--base", metavar="RUN", help="run id of the base")
    p.add_argument("--head", metavar="RUN", help="run id of the head")
    p.add_argument("--base-branch", metavar="BRANCH", help="use the newest run of this branch as base")
    p.add_argument("--head-branch", metavar="BRANCH", help="use the newest run of this branch as head")
    p.add_argument("--base-commit", metavar="SHA", help="use the newest run recorded at this commit (a hash, a prefix "
                   "of at least 7 hex digits, or a git ref of the checkout here; with --base-branch, on that branch) "
                   "as base: e.g. the merge base")
    p.add_argument("--head-commit", metavar="SHA", help="the same for the head")
    p.add_argument("--alpha", type=float, default=0.05,
                   help="false discovery rate across all benchmarks (default: %(default)s)")
    p.add_argument("--thresholds", metavar="PATH", help="thresholds file or directory (default: ./thresholds)")


def _pick(store, run_id: str | None, branch: str | None, side: str, commit: str | None = None,
          testbed: str | None = None):
    """(run id, run) of one side: a run id, else the newest run at a commit (on the branch, if
    given; on ``testbed`` when it has one there), else the newest run of the branch."""
    if bool(run_id) == bool(branch or commit):
        raise PerfgateError(f"give exactly one of --{side} RUN, --{side}-branch BRANCH or --{side}-commit SHA")
    if run_id:
        run_id = full_run_id(store, run_id, f"--{side}")   # a prefix, as alert ids are taken
        return run_id, store.get_run(run_id)
    if commit:
        return _newest_at_commit(store, commit, branch, side, testbed)
    newest = store.runs(branch=branch, limit=1)
    if not newest:
        raise PerfgateError(f"--{side}-branch {branch!r}: no run of that branch in the store")
    return newest[0].run_id, store.get_run(newest[0].run_id)


MIN_COMMIT_PREFIX = 7   # git's own shortest abbreviation


def _newest_at_commit(store, commit: str, branch: str | None, side: str, testbed: str | None):
    """(run id, run) of the newest run recorded at ``commit`` (a prefix), on ``branch`` if given.
    A prefix two commits share is refused, naming them: comparing either would be a guess."""
    prefix = commit.strip().lower()
    if len(prefix) < MIN_COMMIT_PREFIX or any(c not in "0123456789abcdef" for c in prefix):
        prefix = ref_commit(commit) or ""     # HEAD, main, v1.2: what the checkout here names
        if not prefix:
            raise PerfgateError(f"--{side}-commit {commit!r}: not a commit hash, a prefix of at least "
                                f"{MIN_COMMIT_PREFIX} hex digits, or a git ref of the checkout here")
    at = [r for r in store.runs(branch=branch) if r.commit.lower().startswith(prefix)]
    where = f" on branch {branch!r}" if branch else ""
    if not at:
        raise PerfgateError(f"--{side}-commit {commit}: no run recorded at that commit{where} "
                            "('perfgate export --format csv' lists every run with its commit)")
    commits = sorted({r.commit for r in at})
    if len(commits) > 1:
        raise PerfgateError(f"--{side}-commit {commit}: the prefix names {len(commits)} commits ("
                            f"{', '.join(c[:12] for c in commits[:5])}); give more digits")
    # the other side's machine first: runs of two testbeds share no series
    chosen = next((r for r in at if r.testbed == testbed), at[0])
    return chosen.run_id, store.get_run(chosen.run_id)


def _other_runs_note(store, run_id: str, run, side: str, by_commit: bool = False) -> str:
    """A warning when the run a --base-branch/--head-branch (or -commit) picked is one suite's of
    several recorded at its commit (a run per suite): the other suites are not compared, and said so."""
    suite = run.context.get("suite")
    others = sorted({c["suite"] for c in store.run_contexts(run.branch, run.commit, run.testbed.name)
                     if isinstance(c.get("suite"), str) and c["suite"] != suite})
    picked = f"--{side}-commit {run.commit[:12]}" if by_commit else f"--{side}-branch {run.branch}"
    if not suite or not others:
        return _other_ingests_note(store, run_id, run, side, picked)
    return (f"warning: {picked}: its newest run is suite {suite}'s; the run(s) of suite "
            f"{', '.join(others)} at the same commit {run.commit[:12]} are not compared (--{side} RUN picks one)")


def _other_ingests_note(store, run_id: str, run, side: str, picked: str) -> str:
    """The same warning for harness outputs ingested one at a time at a commit (a run each, no
    suite): a pytest-benchmark run ingested after a Google Benchmark one hid the latter's +30%
    from a compare that exited 0 and said nothing."""
    siblings = [s.run_id for s in store.runs(branch=run.branch) if s.run_id != run_id
                and s.commit == run.commit and s.testbed == run.testbed.name]
    mine = {(m.benchmark, m.measure) for m in run.metrics}
    unseen = sorted({(m.benchmark, m.measure) for sid in siblings for m in store.get_run(sid).metrics} - mine)
    if not unseen:
        return ""
    named = ", ".join(f"{b} ({m})" for b, m in unseen[:3]) + (f" and {len(unseen) - 3} more" if len(unseen) > 3 else "")
    return (f"warning: {picked}: its newest run is one of {len(siblings) + 1} recorded at commit {run.commit[:12]} "
            f"on testbed {run.testbed.name}; {len(unseen)} series only the others measured are not compared: "
            f"{named} (ingest a commit's outputs together, 'perfgate ingest A.json B.json', to make them one run; "
            f"--{side} RUN picks one)")


PAIR_SEARCH = 50   # runs of the base branch searched for the head's own check


def _base_of_same_check(store, branch: str, head):
    """(run id, run) of ``branch``'s newest run measured in the same check as ``head`` — the pair
    the check interleaved — or None when there is none among its newest runs."""
    check = head.context.get("check_id")
    if not check:
        return None
    for summary in store.runs(branch=branch, limit=PAIR_SEARCH):
        run = store.get_run(summary.run_id)
        if run.context.get("check_id") == check and run.testbed.name == head.testbed.name:
            return summary.run_id, run   # a check records a run a side and testbed
    return None


def _base_on_testbed(store, branch: str, head):
    """(run id, run) of ``branch``'s newest run on the head's testbed, among its newest runs, or
    None: the branch's newest run may be another machine's (the tour records main in a container
    and the pull request on the host), and runs of two testbeds share no series."""
    for summary in store.runs(branch=branch, limit=PAIR_SEARCH):
        if summary.testbed == head.testbed.name:
            return summary.run_id, store.get_run(summary.run_id)
    return None


def _not_measured_together(base, head, comparison) -> str:
    """A warning when the two runs were not measured together, so their wall times may differ by
    the machine's state alone: sides of different checks (compare once read three false
    improvements of 39–58% from two checks run minutes apart), or two runs recorded apart, whose
    samples hold each run's noise but not the machine's shift between them (an audit: with the
    pull request's run on a 3% slower machine, 12 "regressions" at a false discovery rate said to
    be 0.05; with a 2% shift between runs, 31% of A/A comparisons of 50 benchmarks flagged one)."""
    ids = base.context.get("check_id"), head.context.get("check_id")
    if ids[0] and ids[0] == ids[1]:
        return ""
    if any(ids):
        return ("warning: base and head were not measured together (sides of different checks, or a check's side "
                "and another run): wall-time changes may be the machine's, instruction counts are not affected; "
                "a check's own pair is compared with --base RUN --head RUN")
    from perfgate.detect.compare import RANK_METHODS   # loaded already: the comparison was made with it

    if not any(v.method in RANK_METHODS for v in comparison.verdicts):
        return ""    # exact measures only: a machine's shift does not move them
    return ("warning: base and head are separate runs: their samples hold each run's own noise, not the machine's "
            "shift between the runs (a few percent between CI runners), so wall-time intervals and the false "
            "discovery rate hold for these samples only, and a slower machine reads as a change in every "
            "benchmark; instruction counts are not affected. 'perfgate check' measures base and head in "
            "interleaved rounds, so the machine's state cancels")


def run(args: argparse.Namespace) -> int:
    if not 0 < args.alpha < 1:
        raise PerfgateError(f"--alpha {args.alpha}: must be between 0 and 1")
    check_markdown_target(args)
    from perfgate.detect.compare import compare_runs   # scipy: imported only when the verb runs

    thresholds = load_thresholds(args.thresholds)
    with store_from(args) as store:
        if args.base:
            base_id, base = _pick(store, args.base, args.base_branch, "base", args.base_commit)
            head_id, head = _pick(store, args.head, args.head_branch, "head", args.head_commit, base.testbed.name)
        else:
            head_id, head = _pick(store, args.head, args.head_branch, "head", args.head_commit)
            # From a branch, a check's head is compared with its own base, not a later check's.
            by_branch = args.base_branch and not args.base_commit
            paired = _base_of_same_check(store, args.base_branch, head) if by_branch else None
            paired = paired or (_base_on_testbed(store, args.base_branch, head) if by_branch else None)
            base_id, base = paired or _pick(store, args.base, args.base_branch, "base", args.base_commit,
                                            head.testbed.name)
        # A commit's suites are recorded as a run each: the newest is one suite's.
        partial = [_other_runs_note(store, run_id, picked, side, bool(commit))
                   for side, run_id, picked, branch, commit in
                   (("base", base_id, base, args.base_branch, args.base_commit),
                    ("head", head_id, head, args.head_branch, args.head_commit)) if branch or commit]
    if base_id == head_id:
        raise PerfgateError(f"base and head are the same run ({base_id}): nothing to compare")
    comparison = compare_runs(base, head, thresholds, args.alpha)
    if not comparison.compared:
        # Never a pass on nothing: the tour's main run was a container run on another testbed
        # than the pull request's, and every row read "missing in …" with exit 0.
        raise PerfgateError(f"nothing to compare: base {base.branch}@{base.commit[:12]} (testbed {base.testbed.name}) "
                            f"and head {head.branch}@{head.commit[:12]} (testbed {head.testbed.name}) measured no "
                            "benchmark and measure in common; pick runs of the same benchmarks with --base RUN "
                            "--head RUN ('perfgate export --format csv' lists every run with its id and testbed)")
    apart = _not_measured_together(base, head, comparison)
    comparison.warnings += [w for w in (*partial, apart) if w]
    complexity, about, notes = _complexity(base, head, args.thresholds)
    comparison.notes.extend(notes)
    failing = failures(comparison, complexity)
    # Never a pass on nothing judged either: runs of one value a benchmark (a Bencher history, BMF
    # files) leave every row "insufficient-data", and a gate that judged nothing said exit 0.
    unjudged = not failing and not complexity and len(comparison.unjudged) == comparison.compared
    exit_code = 1 if failing else EXIT_USAGE if unjudged else 0
    write_markdown(args, comparison, complexity, about)
    if args.json:
        emit_json(asdict(comparison) | {"regressions": len(comparison.regressions),
                                        "improvements": len(comparison.improvements),
                                        "counts": comparison.counts(),
                                        "complexity": [r.as_dict() for r in complexity], "exit_code": exit_code})
    else:
        out.print(terminal(f"head {head.branch}@{head.commit[:12]} against base {base.branch}@{base.commit[:12]}"),
                  highlight=False)
        out.print(terminal(comparison.render(quiet_rows(args)), keep_newlines=True), highlight=False)
        print_complexity(complexity, f"complexity: {about}:")
        if failing:
            out.print(f"FAIL: {', '.join(failing)}", markup=False)
    if unjudged:
        print(f"perfgate compare: error: nothing judged: none of the {comparison.compared} comparison(s) had enough "
              "samples (see the table's notes); this is no pass. Compare runs that hold raw samples (a harness's "
              "repetitions), or let 'perfgate check' measure base and head in interleaved rounds", file=sys.stderr)
    return exit_code


def _complexity(base, head, thresholds: str | None) -> tuple[list, str, list[str]]:
    """Each scaling table both runs measured, fitted on either side, its expectations judged
    (imported only when both runs have scaling points: the fitting code pulls in statsmodels)."""
    if not any("parameters" in m.attrs for m in base.metrics) or \
            not any("parameters" in m.attrs for m in head.metrics):
        return [], "", []
    from perfgate.complexity.compare import compare_complexity, run_points, unmatched_note
    from perfgate.complexity.expectations import expectations_of

    path = Path(thresholds) if thresholds else default_path()
    (base_points, base_rounds), (head_points, head_rounds) = run_points(base), run_points(head)
    rounds = ("on the rounds a check recorded (a violation counts when most rounds' own fits show it too)"
              if base_rounds and head_rounds else "with no rounds to bear a violation out, so none fails")
    about = (f"each run's scaling points fitted as perfgate fit fits them, {rounds}; expectations from "
             f"{path / 'complexity.toml' if path and path.is_dir() else path or 'nowhere (no thresholds found)'}")
    expectations = expectations_of(path)
    rows = compare_complexity(base_points, head_points, expectations, base_rounds, head_rounds)
    return rows, about, [n for n in [unmatched_note(expectations, rows)] if n]
