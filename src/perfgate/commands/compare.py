"""Compare two recorded runs benchmark by benchmark, from their raw samples.

A side given as a run id is that run; a side given as a commit (or a branch: its newest commit)
is what was recorded there on one testbed, its runs merged — each series from the newest run that
measured it — since CI jobs ingest each harness's output at a commit as a run of its own.

Each (benchmark, measure) gets the Hodges–Lehmann shift of head over base with a confidence
interval, a Mann–Whitney test, a Benjamini–Hochberg q-value across every benchmark of the
comparison (so 50 benchmarks do not raise 2–3 false alarms per pull request), the smallest change
this pair of runs could have detected given its noise, and a verdict.  A change must be
significant (q ≤ alpha) AND at least the series' min_effect from thresholds/ to count.

Runs with scaling points (a scaling table's rows) also get each table fitted on either side, its
knee shown and its complexity expectations judged (as ``perfgate check`` does).

Exit 1 when a significant regression above threshold is found, or a complexity expectation the
base keeps is broken by the head, or one both break the head breaks earlier (its rounds' knees
moved down; a break needs runs with rounds to stand out from: between single runs it reads
inconclusive); 0 otherwise; 2 on bad input; 4, no verdict, when the runs have no benchmark in
common or none of their comparisons, nor any scaling table's expectations, could be judged (as
``perfgate check``: a pass on nothing judged would read as a pass, an error as bad input).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path

from perfgate.commands._common import (add_all_rows_option, add_markdown_option, check_markdown_target, failures,
                                      full_run_id, print_complexity, quiet_rows, store_from, write_markdown)
from perfgate.escape import terminal, visible
from perfgate.errors import EXIT_NO_VERDICT, PerfgateError
from perfgate.gitinfo import ref_commit
from perfgate.model import Metric, Run
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
    p.add_argument("--base-branch", metavar="BRANCH", help="use the runs recorded at this branch's newest commit "
                   "as base (on one testbed, each series from the newest run that measured it)")
    p.add_argument("--head-branch", metavar="BRANCH", help="the same for the head")
    p.add_argument("--base-commit", metavar="SHA", help="use the runs recorded at this commit (a hash, a prefix "
                   "of at least 7 hex digits, or a git ref of the checkout here; with --base-branch, on that branch) "
                   "as base, merged as --base-branch merges them: e.g. the merge base")
    p.add_argument("--head-commit", metavar="SHA", help="the same for the head")
    p.add_argument("--alpha", type=float, default=0.05,
                   help="false discovery rate across all benchmarks (default: %(default)s)")
    p.add_argument("--thresholds", metavar="PATH", help="thresholds file or directory (default: ./thresholds)")


@dataclass
class Side:
    """The runs one side was made of (newest first), their series merged into ``run``."""

    ids: list[str]
    run: Run
    remeasured: int = 0          # series more than one of the runs measured (re-runs): the newest's taken
    branches: list[str] = field(default_factory=list)   # the runs' branches (a commit's, unless one was given)
    elsewhere: list[str] = field(default_factory=list)  # testbeds with runs at the commit, not compared

    def about(self) -> dict:
        """What the report says of the side's runs (--json and the comment)."""
        return {"runs": self.ids, "remeasured": self.remeasured}


def _pick(store, run_id: str | None, branch: str | None, side: str, commit: str | None = None,
          testbed: str | None = None) -> Side:
    """One side: a run id alone, else what was recorded at a commit (on the branch, if given), else
    at the branch's newest commit — on ``testbed`` when it has runs there, else the newest run's."""
    if bool(run_id) == bool(branch or commit):
        raise PerfgateError(f"give exactly one of --{side} RUN, --{side}-branch BRANCH or --{side}-commit SHA")
    if run_id:
        run_id = full_run_id(store, run_id, f"--{side}")   # a prefix, as alert ids are taken
        return Side([run_id], store.get_run(run_id))
    if commit:
        return _side_at(store, _runs_at_commit(store, commit, branch, side), testbed)
    newest = store.runs(branch=branch, limit=1)
    if not newest:
        raise PerfgateError(f"--{side}-branch {branch!r}: no run of that branch in the store")
    return _side_at(store, _at(store, newest[0].commit, branch), testbed)


MIN_COMMIT_PREFIX = 7   # git's own shortest abbreviation


def _runs_at_commit(store, commit: str, branch: str | None, side: str) -> list:
    """The runs recorded at ``commit`` (a prefix), newest first, on ``branch`` if given.  A prefix
    two commits share is refused, naming them: comparing either would be a guess."""
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
    return at


def _at(store, commit: str, branch: str | None) -> list:
    """The runs recorded at ``commit``, the branch's newest commit (whole), newest first: among the
    branch's newest PAIR_SEARCH runs, where a newest commit's runs are (listing every run of a long
    history took 1.9 s for 100,000 runs here, and a Bencher server a request per 255), or all of
    them when every one searched is at the commit."""
    newest = store.runs(branch=branch, limit=PAIR_SEARCH)
    if len(newest) == PAIR_SEARCH and all(r.commit == commit for r in newest):
        newest = store.runs(branch=branch)
    return [r for r in newest if r.commit == commit]


def _side_at(store, at: list, testbed: str | None) -> Side:
    """The side made of the runs ``at`` a commit (newest first) on ``testbed`` (the other side's
    machine) when it has any there, else on the newest run's: runs of two testbeds share no series,
    and one machine's are never mixed in another's (the others are named)."""
    chosen = testbed if any(r.testbed == testbed for r in at) else at[0].testbed
    side = _merged(store, [r for r in at if r.testbed == chosen])
    side.elsewhere = sorted({r.testbed for r in at} - {chosen})
    return side


def _merged(store, summaries: list) -> Side:
    """The runs ``summaries`` names (newest first) as one side: each series from the newest run
    that measured it.  CI jobs ingest each harness's output at a commit as a run of its own (and
    ``run`` records a run a suite): the newest alone hid a +30% the others held."""
    taken: dict[tuple[str, str], Metric] = {}
    runs, remeasured = [], 0
    for summary in summaries:
        run = store.get_run(summary.run_id)
        fresh = {(m.benchmark, m.measure): m for m in run.metrics if (m.benchmark, m.measure) not in taken}
        remeasured += len({(m.benchmark, m.measure) for m in run.metrics}) - len(fresh)
        taken |= fresh
        runs.append((run, bool(fresh)))
    ids, branches = [s.run_id for s in summaries], sorted({s.branch for s in summaries})
    giving = [run for run, gave in runs if gave] or [runs[0][0]]   # none with a metric: the newest
    if len(giving) == 1:       # the run itself: its context (a check's id, its rounds) still holds
        return Side(ids, giving[0], remeasured, branches)
    newest = giving[0]
    suites = sorted({s for run in giving for s in run.context.get("suites") or [run.context.get("suite")]
                     if isinstance(s, str)})
    return Side(ids, Run(newest.project, newest.branch, newest.commit, newest.testbed, list(taken.values()),
                         start_time=min((r.start_time for r in giving if r.start_time is not None), default=None),
                         end_time=max((r.end_time for r in giving if r.end_time is not None), default=None),
                         adapter="+".join(sorted({r.adapter for r in giving if r.adapter})),
                         context={"merged_runs": ids, **({"suites": suites} if suites else {})}),
                remeasured, branches)


def _other_testbeds_note(side: Side, name: str) -> str:
    """A note naming the testbeds whose runs at the side's commit are not compared (one testbed a
    comparison: a check of suites on several images records a run on each)."""
    if not side.elsewhere:
        return ""
    return (f"note: {name} at commit {side.run.commit[:12]}: its run(s) on testbed(s) {', '.join(side.elsewhere)} "
            f"are not compared (a comparison is of one testbed's runs; --base RUN --head RUN picks others)")


def _side_text(name: str, side: Side) -> str:
    """The runs a side was made of, for the terminal: nothing a merge took in goes unsaid."""
    run = side.run
    if len(side.ids) == 1:
        return f"{name}: run {side.ids[0]} (testbed {run.testbed.name})"
    again = (f"; {side.remeasured} series measured by more than one of them: the newest run's taken"
             if side.remeasured else "")
    on = f"branch {side.branches[0]}" if len(side.branches) == 1 else f"branches {', '.join(side.branches)}"
    return (f"{name}: {len(side.ids)} runs recorded at commit {run.commit[:12]} ({on}) on testbed "
            f"{run.testbed.name}, merged (each series from the newest run that measured it): "
            f"{', '.join(side.ids)}{again}")


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
    """``branch``'s newest run (its summary) on the head's testbed, among its newest runs, or
    None: the branch's newest run may be another machine's (the tour records main in a container
    and the pull request on the host), and runs of two testbeds share no series."""
    for summary in store.runs(branch=branch, limit=PAIR_SEARCH):
        if summary.testbed == head.testbed.name:
            return summary
    return None


def _base_of(store, args: argparse.Namespace, head) -> Side:
    """The base, picked after the head: from a branch, a check's head is compared with its own
    base (the one run the check interleaved with it, not a later check's), else with what was
    recorded at the branch's newest commit on the head's testbed."""
    if args.base_branch and not args.base_commit:
        paired = _base_of_same_check(store, args.base_branch, head)
        if paired:
            return Side([paired[0]], paired[1])
        newest = _base_on_testbed(store, args.base_branch, head)
        if newest:
            return _side_at(store, _at(store, newest.commit, args.base_branch), newest.testbed)
    return _pick(store, args.base, args.base_branch, "base", args.base_commit, head.testbed.name)


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
    from perfgate.detect.compare import MIN_ALPHA, NothingJudged, compare_runs   # scipy: only when the verb runs

    if not MIN_ALPHA <= args.alpha < 1:
        raise PerfgateError(f"--alpha {args.alpha}: must be from {MIN_ALPHA:g} to below 1")
    check_markdown_target(args)

    thresholds = load_thresholds(args.thresholds)
    with store_from(args) as store:
        if args.base:
            sides = {"base": _pick(store, args.base, args.base_branch, "base", args.base_commit)}
            sides["head"] = _pick(store, args.head, args.head_branch, "head", args.head_commit,
                                  sides["base"].run.testbed.name)
        else:
            sides = {"head": _pick(store, args.head, args.head_branch, "head", args.head_commit)}
            sides["base"] = _base_of(store, args, sides["head"].run)
    shared = [i for i in sides["base"].ids if i in sides["head"].ids]
    if shared:   # the same commit both sides
        raise PerfgateError(f"base and head are the same run(s) ({', '.join(shared)}): nothing to compare")
    base, head = sides["base"].run, sides["head"].run
    comparison = compare_runs(base, head, thresholds, args.alpha)
    unshared = None
    if not comparison.compared:
        # Never a pass on nothing: the tour's main run was a container run on another testbed
        # than the pull request's, and every row read "missing in …" with exit 0.  No error
        # either: a pull request that renamed every benchmark has two good runs, and no verdict.
        unshared = NothingJudged(f"nothing to compare: base {base.branch}@{base.commit[:12]} (testbed "
                                 f"{base.testbed.name}) and head {head.branch}@{head.commit[:12]} (testbed "
                                 f"{head.testbed.name}) measured no benchmark and measure in common; pick runs of the "
                                 "same benchmarks with --base RUN --head RUN ('perfgate export --format csv' lists "
                                 "every run with its id and testbed)", False)
    # (with nothing compared, no wall times were compared that the machine's state could move)
    apart = _not_measured_together(base, head, comparison) if comparison.compared else ""
    elsewhere = [_other_testbeds_note(side, name) for name, side in sides.items()]
    comparison.warnings += [w for w in (*elsewhere, apart) if w]
    comparison.base |= sides["base"].about()
    comparison.head |= sides["head"].about()
    complexity, about, notes = _complexity(base, head, args.thresholds)
    comparison.notes.extend(notes)
    failing = failures(comparison, complexity)
    # Never a pass on nothing judged either: runs of one value a benchmark (a Bencher history, BMF
    # files) leave every row "insufficient-data", and a gate that judged nothing said exit 0.
    # (check judges this the same way: Comparison.nothing_judged, exit 4)
    nothing = None if failing else (unshared if unshared and not complexity else comparison.nothing_judged(complexity))
    no_verdict = nothing is not None and not nothing.passes
    exit_code = 1 if failing else EXIT_NO_VERDICT if no_verdict else 0
    write_markdown(args, comparison, complexity, about, nothing)
    if args.json:
        emit_json(asdict(comparison) | {"regressions": len(comparison.regressions),
                                        "improvements": len(comparison.improvements),
                                        "counts": comparison.counts(),
                                        "complexity": [r.as_dict() for r in complexity],
                                        "nothing_judged": nothing.reason if nothing else None, "exit_code": exit_code})
    else:
        out.print(terminal(f"head {head.branch}@{head.commit[:12]} against base {base.branch}@{base.commit[:12]}"),
                  highlight=False)
        for name in ("head", "base"):
            out.print(terminal(_side_text(name, sides[name])), highlight=False)
        out.print(terminal(comparison.render(quiet_rows(args)), keep_newlines=True), highlight=False)
        print_complexity(complexity, f"complexity: {about}:")
        if failing:
            out.print(f"FAIL: {', '.join(failing)}", markup=False)
    # one line, "perfgate compare: no verdict: REASON; …": the action's annotation quotes it
    if no_verdict and nothing is unshared:
        print(f"perfgate compare: no verdict: {visible(nothing.reason)}; this is no pass", file=sys.stderr)
    elif no_verdict:
        print(f"perfgate compare: no verdict: nothing judged: none of the {comparison.compared} comparison(s) had "
              "enough samples (see the table's notes); this is no pass. Compare runs that hold raw samples (a "
              "harness's repetitions), or let 'perfgate check' measure base and head in interleaved rounds",
              file=sys.stderr)
    return exit_code


def _complexity(base, head, thresholds: str | None) -> tuple[list, str, list[str]]:
    """Each scaling table both runs measured, fitted on either side, its expectations judged
    (imported only when both runs have scaling points: the fitting code pulls in statsmodels)."""
    if not any(m.is_scaling_point() for m in base.metrics) or not any(m.is_scaling_point() for m in head.metrics):
        return [], "", []
    from perfgate.complexity.compare import compare_complexity, run_points, unmatched_note
    from perfgate.complexity.expectations import expectations_of

    path = Path(thresholds) if thresholds else default_path()
    (base_points, base_rounds), (head_points, head_rounds) = run_points(base), run_points(head)
    rounds = ("on the rounds a check recorded (a violation counts when most rounds' own fits show it too)"
              if base_rounds and head_rounds else "with no rounds to bear a violation out, so none is a verdict")
    about = (f"each run's scaling points fitted as perfgate fit fits them, {rounds}; expectations from "
             f"{path / 'complexity.toml' if path and path.is_dir() else path or 'nowhere (no thresholds found)'}")
    expectations = expectations_of(path)
    rows = compare_complexity(base_points, head_points, expectations, base_rounds, head_rounds)
    return rows, about, [n for n in [unmatched_note(expectations, rows)] if n]
