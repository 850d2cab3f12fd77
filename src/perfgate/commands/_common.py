"""Options and helpers several verbs share."""

from __future__ import annotations

import argparse
import os
import re

from perfgate.errors import InputError, PerfgateError
from perfgate.escape import terminal, visible
from perfgate.fingerprint import cpuset, host_fingerprint, testbed_name
from perfgate.host_load import cpu_list
from perfgate.gitinfo import current_branch, current_commit, resolve_commit
from perfgate.model import RUN_ID, Alert, Run, Testbed, identity_problem
from perfgate.output import out
from perfgate.outputs import check_writable, write_atomic
from perfgate.store import SeriesKey, Store, open_store


def refuse_shared_series(store: Store, run: Run, manifest: object) -> None:
    """Refuse a suite's run whose benchmark is already a series of another suite on its branch and
    testbed: the two would be one series, a step between them a false change (two suites on one
    image running one hyperfine command, or pytest files of the same name)."""
    suite = run.context.get("suite")
    if not isinstance(suite, str):
        return
    for m in run.metrics:
        others = store.series_suites(SeriesKey(run.branch, run.testbed.name, m.benchmark, m.measure)) - {suite}
        if others:
            raise PerfgateError(
                f"{manifest}: benchmark {m.benchmark!r} ({m.measure}) is already a series of suite "
                f"{sorted(others)[0]!r} on branch {run.branch!r} and testbed {run.testbed.name!r}; two suites "
                "would share it: give one suite's benchmarks other names (this run was not recorded)")


def default_cpuset() -> str:
    """``--cpuset``'s default for the verbs that run suites: the last CPU this process may use."""
    cpus = cpuset().split(",")
    return cpus[-1] if cpus and cpus[-1] else "0"


_CPU_LIST = re.compile(r"[0-9]+(-[0-9]+)?(,[0-9]+(-[0-9]+)?)*")


def cpuset_option(text: str) -> str:
    """``--cpuset``: CPUs as Docker's ``--cpuset-cpus`` takes them (``1``, ``0-3``, ``0,2``), each one
    this process may use; an empty or unknown one failed only at ``docker run``, with Docker's words
    and after the images were built."""
    usable = {int(c) for c in cpuset().split(",") if c}
    cpus = cpu_list(text) if _CPU_LIST.fullmatch(text) else None
    if not cpus:
        raise argparse.ArgumentTypeError(f"{text!r} is no CPU list (e.g. 1, 0-3, 0,2)")
    if usable and not cpus <= usable:
        raise argparse.ArgumentTypeError(f"CPU {min(cpus - usable)} is not one this machine lets perfgate use "
                                         f"({cpuset()})")
    return text


def add_run_identity(p: argparse.ArgumentParser) -> None:
    p.add_argument("--branch", help="branch the run belongs to (default: the checkout's branch)")
    p.add_argument("--commit", help="commit hash measured (default: the checkout's HEAD)")
    p.add_argument("--testbed", help="testbed name (default: derived from this machine's fingerprint)")


def resolve_identity(args: argparse.Namespace) -> tuple[str, str, Testbed]:
    """Branch, commit and testbed of a run: as given (an empty one is refused, not taken for
    "not given"), else from the checkout and the machine.  A git ref given as the commit is
    recorded as its hash (:func:`perfgate.gitinfo.resolve_commit`)."""
    branch, commit = given_branch_and_commit(args)
    return branch, commit, resolve_testbed(args)


def resolve_testbed(args: argparse.Namespace) -> Testbed:
    """``--testbed``, else named after this machine's fingerprint; checked."""
    fingerprint = host_fingerprint()
    testbed = args.testbed if args.testbed is not None else testbed_name(fingerprint)
    check_identity("testbed", testbed, "--testbed" if args.testbed is not None else "this machine's fingerprint")
    return Testbed(testbed, fingerprint)


def given_branch_and_commit(args: argparse.Namespace) -> tuple[str, str]:
    """``--branch`` and ``--commit`` (a ref resolved to its hash), else the checkout's; checked."""
    branch = args.branch if args.branch is not None else current_branch()
    commit = args.commit if args.commit is not None else current_commit()
    if branch is None:
        raise PerfgateError("--branch is required outside a git checkout or on a detached HEAD")
    if commit is None:
        raise PerfgateError("--commit is required outside a git checkout")
    check_identity("branch", branch, "--branch" if args.branch is not None else "the checkout's branch")
    check_identity("commit", commit, "--commit" if args.commit is not None else "the checkout's HEAD")
    return branch, resolve_commit(commit) if args.commit is not None else commit


def check_identity(kind: str, value: object, source: str) -> str:
    """``value`` unless it cannot be a ``kind`` (see :func:`perfgate.model.identity_problem`)."""
    problem = identity_problem(kind, value)
    if problem:
        raise InputError(source, "", problem)
    return value  # type: ignore[return-value]


def store_from(args: argparse.Namespace, *, create: bool = False) -> Store:
    """The store of ``--store``; ``create`` only for the verbs that record runs (ingest, run,
    backfill, check, fit --record, sync --import): the others refuse a history that is not there."""
    check_identity("project", args.project, "--project")
    for kind in ("branch", "testbed", "benchmark", "measure"):  # filters too: echoed in messages
        if getattr(args, kind, None):
            check_identity(kind, getattr(args, kind), f"--{kind}")
    return open_store(args.store, args.project, create=create)


def add_series_filters(p: argparse.ArgumentParser) -> None:
    p.add_argument("--measure", help="only this measure (latency, instructions, peak-rss, ...)")
    p.add_argument("--branch", help="only this branch")
    p.add_argument("--testbed", help="only this testbed")


def add_markdown_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--markdown", metavar="FILE",
                   help="also write the verdicts as a pull-request comment (GitHub Markdown) to FILE")


def add_all_rows_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--all-rows", action="store_true",
                   help="list every unflagged row in the terminal table (by default the findings and the 30 "
                        "unflagged rows nearest to one, inconclusive first)")


def quiet_rows(args: argparse.Namespace) -> int | None:
    """How many unflagged rows the terminal table shows (``None``: all)."""
    from perfgate.detect.compare import QUIET_ROWS

    return None if args.all_rows else QUIET_ROWS


def check_markdown_target(args: argparse.Namespace) -> None:
    """Refuse an unwritable --markdown before the verdicts are computed (they would be lost)."""
    if args.markdown:
        check_writable(args.markdown, "--markdown")


def write_markdown(args: argparse.Namespace, comparison, complexity=(), complexity_about: str = "",
                   nothing=None) -> None:
    """Write the PR comment when --markdown was given (imported lazily: it pulls in scipy);
    ``complexity``: the scaling tables' rows (``ComplexityRow``), if any, made as ``complexity_about`` says;
    ``nothing``: why nothing was judged, when the caller knows better than the rows (``NothingJudged``)."""
    if args.markdown:
        from perfgate.report.markdown import comparison_markdown

        write_atomic(args.markdown, comparison_markdown(comparison, key=os.environ.get("PERFGATE_COMMENT_KEY", ""),
                                                        links=github_links(), complexity=complexity,
                                                        complexity_about=complexity_about, nothing=nothing))


def write_error_markdown(args: argparse.Namespace, error: PerfgateError, side: str = "", ref: str = "",
                         logs: str = "") -> None:
    """Write the comment of a check that could not run when --markdown was given, its message
    redacted as every message that may leave the machine is."""
    if args.markdown:
        from perfgate.redact import redact
        from perfgate.report.markdown import error_markdown

        write_atomic(args.markdown, error_markdown(redact(error), side, ref, logs,
                                                   key=os.environ.get("PERFGATE_COMMENT_KEY", ""),
                                                   links=github_links()))


def print_complexity(rows, heading: str) -> None:
    """The scaling tables' rows (``ComplexityRow``) under ``heading``, for a terminal."""
    if rows:
        out.print(heading, markup=False)
        for row in rows:
            out.print(terminal("\n".join("  " + line for line in row.lines()), keep_newlines=True), markup=False)


def failures(comparison, complexity=()) -> list[str]:
    """What fails a comparison: ``["significant regression", "complexity expectation broken in 2
    table measure(s)", "complexity expectation broken earlier in 1 table measure(s)"]``, some, or none."""
    broken = [r for r in complexity if r.broken]
    worse = [r for r in complexity if r.worsened]
    return (["significant regression"] if comparison.exit_code else []) + \
        ([f"complexity expectation broken in {len(broken)} table measure(s)"] if broken else []) + \
        ([f"complexity expectation broken earlier in {len(worse)} table measure(s)"] if worse else [])


def github_links():
    """Links for the comment from the variables GitHub Actions sets (none outside Actions);
    ``PERFGATE_PAGES_URL`` names the trend pages."""
    from perfgate.report.markdown import Links

    server, repo, run_id = (os.environ.get(v, "") for v in ("GITHUB_SERVER_URL", "GITHUB_REPOSITORY", "GITHUB_RUN_ID"))
    repo_url = f"{server}/{repo}" if server and repo else ""
    return Links(repository_url=repo_url, run_url=f"{repo_url}/actions/runs/{run_id}" if repo_url and run_id else "",
                 pages_url=os.environ.get("PERFGATE_PAGES_URL", ""))


MIN_ALERT_PREFIX = 4    # as git's shortest abbreviation: fewer is a slip, not a choice


def full_run_id(store: Store, ref: str, option: str) -> str:
    """The run id ``ref`` names, whole or a unique prefix of at least 4 characters, as alert ids
    are taken (a prefix was "no run"); ``ref`` itself when nothing matches, for the caller's
    own "no run" error.  Every store's run ids are UUIDs: a whole one is not looked up here, and
    a prefix is never asked of the store as an id (a Bencher server takes only UUIDs there)."""
    if len(ref) < MIN_ALERT_PREFIX or RUN_ID.match(ref):
        return ref
    matches = [r.run_id for r in store.runs() if r.run_id.startswith(ref)]
    if len(matches) > 1:
        raise PerfgateError(f"{option} {ref!r}: the prefix of {len(matches)} runs; give more characters")
    return matches[0] if matches else ref


def find_alert(store: Store, ref: str) -> Alert:
    """The alert whose id is ``ref`` or starts with it (ids are shown shortened, as git shows SHAs)."""
    return find_alerts(store, [ref])[0]


def find_alerts(store: Store, refs: list[str]) -> list[Alert]:
    """The alert of each of ``refs`` (an id or a prefix of one), from one listing of the store's
    alerts; the first ref that names none, or several, is an error."""
    every = store.alerts()
    for ref in refs:
        if not ref.strip():
            # '' is a prefix of every id: `--ack "$ID"` with ID unset acknowledged the only alert
            raise PerfgateError(f"alert {ref!r}: give an id as listed, at least {MIN_ALERT_PREFIX} characters "
                                "(an empty one is an unset variable)")
        if len(ref.strip()) < MIN_ALERT_PREFIX:
            none = not any(a.id.startswith(ref) for a in every)
            raise PerfgateError(f"alert {ref!r} is too short: give an id as listed, at least {MIN_ALERT_PREFIX} "
                                "characters" + (" (no alert id starts with it)" if none else ""))
    found = []
    for ref in refs:
        matches = [a for a in every if a.id == ref or a.id.startswith(ref)]
        if not matches:
            # named with its history: a hint copied from an alert message ran against the default one
            where = visible(getattr(store, "path", None) or getattr(store, "project", ""))
            raise PerfgateError(f"no alert {ref!r} in {where or 'this history'}; 'perfgate alerts' lists them "
                                "(another history: --store or PERFGATE_STORE)")
        if len(matches) > 1 and not any(a.id == ref for a in matches):
            raise PerfgateError(f"alert prefix {ref!r} is ambiguous ({len(matches)} alerts); give more characters")
        found.append(next((a for a in matches if a.id == ref), matches[0]))
    return found


def short_ids(alerts: list[Alert], shortest: int = 8) -> dict[str, str]:
    """Each alert's id cut to the fewest characters (at least ``shortest``) that tell all of these
    alerts apart: a table of full UUIDs folds them over lines, and a folded id cannot be copied."""
    n = shortest
    while len({a.id[:n] for a in alerts}) < len({a.id for a in alerts}):
        n += 1
    return {a.id: a.id[:n] for a in alerts}
