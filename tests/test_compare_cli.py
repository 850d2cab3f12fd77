"""`perfgate compare` through the real CLI, on runs recorded in a real SQLite store."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from perfgate.model import Metric, Run
from perfgate.model import Testbed as Bed
from perfgate.store.sqlite import SqliteStore


def run(branch: str, commit: str, factor: float, seed: int, t: float) -> Run:
    rng = np.random.default_rng(seed)
    metrics = [Metric(f"bench{i}", "latency", 0.0, samples=tuple(1e6 * (1 + 0.02 * rng.standard_normal(20))
                                                                  * (factor if i == 0 else 1.0)))
               for i in range(10)]
    for m in metrics:
        m.value = float(np.median(m.samples))
    return Run("default", branch, commit, Bed("tb"), metrics, start_time=t)


def test_compare_branches_and_ids(cli, store_path):
    with SqliteStore(store_path) as store:
        store.add_runs([run("main", "a1", 1.0, 1, 1.0), run("pr", "b1", 1.0, 2, 2.0), run("pr", "b2", 1.15, 3, 3.0)])
        ids = {r.commit: r.run_id for r in store.runs()}
    comment = store_path.parent / "comment.md"
    proc = cli("compare", "--base-branch", "main", "--head-branch", "pr", "--json", "--markdown", str(comment))
    assert proc.returncode == 1, proc.stderr               # the newest pr run is b2, with bench0 15% slower
    md = comment.read_text()
    assert "1 performance regression(s)" in md and "| 🔴 `bench0` | `latency` |" in md
    out = json.loads(proc.stdout)
    assert out["regressions"] == 1 and out["head"]["commit"] == "b2"
    [reg] = [v for v in out["verdicts"] if v["verdict"] == "regression"]
    assert reg["benchmark"] == "bench0" and reg["ci_low"] > 0 and reg["q_value"] <= 0.05
    assert all(v["mde"] > 0 for v in out["verdicts"])
    same = cli("compare", "--base", ids["a1"], "--head", ids["b1"])
    assert same.returncode == 0, same.stderr
    assert "0 regression(s)" in same.stdout and "bench0" in same.stdout


def test_compare_usage_errors(cli, store_path):
    with SqliteStore(store_path) as store:
        store.add_runs([run("main", "a1", 1.0, 1, 1.0)])
    assert cli("compare", "--base-branch", "main").returncode == 2
    missing = cli("compare", "--base-branch", "main", "--head-branch", "nope")
    assert missing.returncode == 2 and "'nope'" in missing.stderr
    bad = cli("compare", "--base", "x", "--head", "y")
    assert bad.returncode == 2 and "no run 'x'" in bad.stderr
    same = cli("compare", "--base-branch", "main", "--head-branch", "main")
    assert same.returncode == 2 and "the same run" in same.stderr      # it compared a run with itself


def test_sides_picked_by_commit(cli, store_path):
    """A migrant's `asv continuous` / merge-base pattern: the runs recorded at two commits, by hash
    or a prefix of it; --base took a run id only."""
    base, head, other = "1f3a9c0" + "0" * 33, "9e8d7c6" + "1" * 33, "1f3a9c0" + "2" * 33
    with SqliteStore(store_path) as store:
        store.add_runs([run("main", base, 1.0, 1, 1.0), run("main", "a" * 40, 1.0, 2, 2.0),
                        run("pr", head, 1.15, 3, 3.0), run("main", "b" * 40, 1.15, 4, 4.0)])
    proc = cli("compare", "--base-commit", base[:10], "--head-commit", head, "--json")
    assert proc.returncode == 1, proc.stderr
    out = json.loads(proc.stdout)
    assert (out["base"]["commit"], out["head"]["commit"]) == (base, head) and out["regressions"] == 1
    on_pr = cli("compare", "--base-commit", base, "--base-branch", "pr", "--head-commit", head)
    assert on_pr.returncode == 2 and "no run recorded at that commit on branch 'pr'" in on_pr.stderr
    with SqliteStore(store_path) as store:
        store.add_runs([run("main", other, 1.0, 5, 5.0)])
    both = cli("compare", "--base-commit", "1f3a9c0", "--head-commit", head)
    assert both.returncode == 2 and "names 2 commits" in both.stderr and base[:12] in both.stderr
    assert "at least 7" in cli("compare", "--base-commit", "1f3a", "--head-commit", head).stderr
    assert "git ref" in cli("compare", "--base-commit", "no-such-ref", "--head-commit", head).stderr
    assert "exactly one of" in cli("compare", "--base", "x", "--base-commit", base, "--head-commit", head).stderr


def test_sides_of_different_checks_are_said_not_to_be_measured_together(cli, store_path):
    """Each check records its base and head; the newest base of one check against the head of
    another were compared as if interleaved, and read large false wall-time changes."""
    def side(branch, commit, seed, t, check):
        r = run(branch, commit, 1.0, seed, t)
        r.context = {"check": True, "check_id": check}
        return r

    with SqliteStore(store_path) as store:
        store.add_runs([side("check/main", "a", 1, 1.0, "c1"), side("check/pr", "b", 2, 2.0, "c1"),
                        side("check/main", "a", 3, 3.0, "c2")])
        ids = {(r.branch, r.start_time): r.run_id for r in store.runs()}
    # from branches, the head's own check's base is taken (the newest base is a later check's)
    by_branch = cli("compare", "--base-branch", "check/main", "--head-branch", "check/pr", "--json")
    assert json.loads(by_branch.stdout)["base"]["commit"] == "a" and "not measured together" not in by_branch.stdout
    mixed = cli("compare", "--base", ids[("check/main", 3.0)], "--head", ids[("check/pr", 2.0)])
    assert "not measured together" in mixed.stdout, mixed.stdout
    paired = cli("compare", "--base", ids[("check/main", 1.0)], "--head", ids[("check/pr", 2.0)])
    assert "not measured together" not in paired.stdout


def test_the_terminal_folds_quiet_rows_past_thirty_unless_all_rows(cli, store_path):
    def wide(commit: str, seed: int, t: float) -> Run:
        rng = np.random.default_rng(seed)
        return Run("default", "main", commit, Bed("tb"),
                   [Metric(f"bench{i:02}", "latency", 1e6, samples=tuple(1e6 * (1 + 0.02 * rng.standard_normal(20))))
                    for i in range(40)], start_time=t)

    with SqliteStore(store_path) as store:
        store.add_runs([wide("a1", 1, 1.0), wide("a2", 2, 2.0)])
        ids = {r.commit: r.run_id for r in store.runs()}
    folded = cli("compare", "--base", ids["a1"], "--head", ids["a2"])
    assert folded.returncode == 0, folded.stderr
    assert "more row(s) not shown (no-change; --all-rows lists them" in folded.stdout
    assert sum(line.startswith("bench") for line in folded.stdout.splitlines()) < 40
    every = cli("compare", "--base", ids["a1"], "--head", ids["a2"], "--all-rows")
    assert "not shown" not in every.stdout and all(f"bench{i:02}" in every.stdout for i in range(40))


def test_a_branch_whose_newest_run_is_one_suites_says_the_others_are_not_compared(cli, store_path):
    # An adopter's compare read one suite of two: main's newest run was the other suite's.
    def suite_run(branch, commit, seed, t, suite):
        r = run(branch, commit, 1.0, seed, t)
        r.context = {"suite": suite}
        return r

    with SqliteStore(store_path) as store:
        store.add_runs([suite_run("main", "a", 1, 1.0, "py"), suite_run("main", "a", 2, 2.0, "wc"),
                        suite_run("pr", "b", 3, 3.0, "wc")])
    proc = cli("compare", "--base-branch", "main", "--head-branch", "pr")
    said = " ".join(proc.stdout.split())
    assert "--base-branch main: its newest run is suite wc's; the run(s) of suite py at the same commit a" in said
    assert "--head-branch pr" not in said


def test_a_commits_outputs_ingested_one_at_a_time_say_the_others_are_not_compared(cli, store_path):
    # An audit: Google Benchmark's output ingested, then pytest-benchmark's, at each commit (two runs
    # without a suite); compare took the newest of each, exited 0 and never named the +30% it left out.
    def other_harness(branch, commit, factor, t):
        return Run("default", branch, commit, Bed("tb"),
                   [Metric("BM_Sort", "latency", 1e3 * factor, samples=tuple(1e3 * factor * (1 + 0.001 * i)
                                                                             for i in range(20)))], start_time=t)

    base, head = "1f3a9c0" + "0" * 33, "9e8d7c6" + "1" * 33
    with SqliteStore(store_path) as store:
        store.add_runs([other_harness("main", base, 1.0, 1.0), run("main", base, 1.0, 1, 2.0),
                        other_harness("pr", head, 1.3, 3.0), run("pr", head, 1.0, 2, 4.0)])
    proc = cli("compare", "--base-commit", base[:7], "--head-branch", "pr")
    said = " ".join(proc.stdout.split())
    assert "--head-branch pr: its newest run is one of 2 recorded at commit 9e8d7c611111 on testbed tb; 1 series " \
           "only the others measured are not compared: BM_Sort (latency)" in said, said
    assert "--base-commit 1f3a9c000000: its newest run is one of 2" in said
    by_id = cli("compare", "--base-commit", base, "--head", [*_ids(store_path, head)][0])
    assert by_id.returncode == 0 and "--head" not in by_id.stdout      # a run id is the run meant


def _ids(store_path, commit):
    with SqliteStore(store_path) as store:
        return [r.run_id for r in store.runs() if r.commit == commit]


def test_nothing_judged_is_no_pass(cli, store_path):
    """Runs of one value a benchmark (a Bencher history, BMF files) leave every row
    "insufficient-data": compare printed "1 not judged" and exited 0, a pass on nothing."""
    def one_value(branch, commit, value, t):
        return Run("default", branch, commit, Bed("tb"), [Metric("sort", "latency", value)], start_time=t)
    with SqliteStore(store_path) as store:
        store.add_runs([one_value("main", "a1", 100.0, 1.0), one_value("pr", "b1", 130.0, 2.0)])
    proc = cli("compare", "--base-branch", "main", "--head-branch", "pr", "--json")
    assert proc.returncode == 2, proc.stderr
    assert "nothing judged" in proc.stderr and "no pass" in proc.stderr
    out = json.loads(proc.stdout)
    assert out["exit_code"] == 2 and out["counts"]["not_judged"] == 1


def test_separate_runs_are_said_to_hold_no_shift_of_the_machine(cli, store_path):
    """Two runs recorded apart: a machine 3% slower for the pull request's run read as 12
    regressions at a false discovery rate said to be 0.05 (an audit), with no warning."""
    with SqliteStore(store_path) as store:
        store.add_runs([run("main", "a1", 1.0, 1, 1.0), run("pr", "b1", 1.0, 2, 2.0)])
        exact = [Run("default", b, c, Bed("tb"), [Metric("x", "instructions", v, samples=(v, v, v))], start_time=t)
                 for b, c, v, t in (("main2", "a2", 1e6, 3.0), ("pr2", "b2", 1e6, 4.0))]
        store.add_runs(exact)
    apart = cli("compare", "--base-branch", "main", "--head-branch", "pr")
    assert "separate runs" in apart.stdout and "perfgate check" in apart.stdout, apart.stdout
    counts = cli("compare", "--base-branch", "main2", "--head-branch", "pr2")
    assert counts.returncode == 0 and "separate runs" not in counts.stdout    # exact counts: no machine shift


def test_iai_callgrinds_cache_events_are_exact_counts(cli, store_path, tmp_path):
    """A CodSpeed migrant's iai-callgrind run: instructions were judged, but estimated cycles and
    the cache events (one exact count a side) were "insufficient-data"."""
    fixture = Path(__file__).parent / "fixtures" / "iai-callgrind" / "second-run.txt"
    slower = tmp_path / "head.txt"
    slower.write_text(fixture.read_text().replace("2643|2643", "2907|2643"))   # +10% estimated cycles
    cli("ingest", str(fixture), "--branch", "main", "--commit", "a" * 40, "--testbed", "tb", check=True)
    cli("ingest", str(slower), "--branch", "pr", "--commit", "b" * 40, "--testbed", "tb", check=True)
    proc = cli("compare", "--base-branch", "main", "--head-branch", "pr", "--json")
    assert proc.returncode == 1, proc.stderr
    rows = {(v["benchmark"], v["measure"]): v for v in json.loads(proc.stdout)["verdicts"]}
    short = "fib::fib_group::bench_fib_recursive short:10"
    assert rows[(short, "estimated-cycles")]["verdict"] == "regression"
    assert rows[(short, "estimated-cycles")]["method"] == "deterministic"
    assert {rows[(short, m)]["verdict"] for m in ("l1-hits", "ram-hits", "total-read-write", "instructions")} == {"no-change"}
