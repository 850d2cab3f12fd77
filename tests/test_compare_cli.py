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


def test_a_branchs_suites_recorded_as_a_run_each_are_compared_together(cli, store_path):
    # An adopter's compare read one suite of two: main's newest run was the other suite's.
    def suite_run(branch, commit, seed, t, suite, factor=1.0):
        r = run(branch, commit, factor, seed, t)
        r.context = {"suite": suite}
        for m in r.metrics:
            m.benchmark = f"{suite}/{m.benchmark}"
        return r

    with SqliteStore(store_path) as store:
        store.add_runs([suite_run("main", "a", 1, 1.0, "py"), suite_run("main", "a", 2, 2.0, "wc"),
                        suite_run("pr", "b", 3, 3.0, "py", 1.15), suite_run("pr", "b", 4, 4.0, "wc")])
    proc = cli("compare", "--base-branch", "main", "--head-branch", "pr", "--json")
    assert proc.returncode == 1, proc.stderr          # py's bench0, in the runs that were not the newest
    out = json.loads(proc.stdout)
    assert [v["benchmark"] for v in out["verdicts"] if v["verdict"] == "regression"] == ["py/bench0"]
    assert out["counts"]["compared"] == 20 and len(out["base"]["runs"]) == len(out["head"]["runs"]) == 2


def _harness_outputs(cli, tmp_path, branch: str, commit: str, factor: float) -> None:
    """A CI job's outputs ingested one at a time at a commit: Google Benchmark's (20 repetitions,
    real_time × ``factor``), pytest-benchmark's and Criterion's, a run each."""
    fixtures = Path(__file__).parent / "fixtures"
    gbench = json.loads((fixtures / "google-benchmark" / "sort-accumulate.json").read_text())
    [row] = [b for b in gbench["benchmarks"] if b["name"] == "BM_Sort/256"]
    gbench["benchmarks"] = [row | {"repetitions": 20, "repetition_index": i,
                                   "real_time": row["real_time"] * factor * (1 + 0.002 * (i % 5))} for i in range(20)]
    out = tmp_path / f"gbench-{commit[:4]}.json"
    out.write_text(json.dumps(gbench))
    for path in (out, fixtures / "pytest-benchmark" / "strings.json", fixtures / "criterion" / "target"):
        cli("ingest", str(path), "--branch", branch, "--commit", commit, "--testbed", "t", check=True)


def test_a_commits_outputs_ingested_one_at_a_time_are_compared_as_a_whole(cli, store_path, tmp_path):
    # An audit: compare took each commit's newest run (Criterion's), exited 0 with "No performance
    # regression found" and left Google Benchmark's +30% out.
    base, head = "1" * 40, "2" * 40
    _harness_outputs(cli, tmp_path, "main", base, 1.0)
    _harness_outputs(cli, tmp_path, "pr", head, 1.3)
    comment = tmp_path / "comment.md"
    proc = cli("compare", "--base-commit", base[:7], "--head-commit", head[:7], "--json", "--markdown", str(comment))
    assert proc.returncode == 1, proc.stderr
    out = json.loads(proc.stdout)
    [reg] = [v for v in out["verdicts"] if v["verdict"] == "regression"]
    assert (reg["benchmark"], reg["measure"]) == ("BM_Sort/256", "latency") and reg["q_value"] <= 0.05
    assert 0.25 < reg["effect"] < 0.35 and reg["ci_low"] > 0.2
    assert {v["benchmark"] for v in out["verdicts"]} >= {"fib_recursive_15", "bench_strings.py::test_join"}
    assert len(out["base"]["runs"]) == len(out["head"]["runs"]) == 3 and out["head"]["runs"] == _ids(store_path, head)
    assert "Head: 3 run(s) (`" in comment.read_text() and "1 performance regression(s)" in comment.read_text()
    said = " ".join(cli("compare", "--base-commit", base, "--head-branch", "pr").stdout.split())
    assert "head: 3 runs recorded at commit 222222222222 (branch pr) on testbed t, merged" in said, said
    assert _ids(store_path, head)[0] in said and "not compared" not in said
    same = cli("compare", "--base-commit", base, "--head-commit", base)
    assert same.returncode == 2 and "the same run(s)" in same.stderr


def test_a_run_id_is_that_run_alone(cli, store_path):
    base, head = "1f3a9c0" + "0" * 33, "9e8d7c6" + "1" * 33
    other = Run("default", "main", base, Bed("tb"), [Metric("BM_Sort", "latency", 1e3, samples=(1e3,) * 20)],
                start_time=2.0)
    with SqliteStore(store_path) as store:
        store.add_runs([run("main", base, 1.0, 1, 1.0), other, run("pr", head, 1.0, 2, 3.0)])
    [newest, oldest] = _ids(store_path, base)
    proc = cli("compare", "--base", oldest, "--head-commit", head, "--json")
    out = json.loads(proc.stdout)
    assert out["base"]["runs"] == [oldest] and out["head"]["runs"] == _ids(store_path, head), proc.stderr
    assert "BM_Sort" not in {v["benchmark"] for v in out["verdicts"]} and out["counts"]["compared"] == 10
    merged = json.loads(cli("compare", "--base-commit", base, "--head-commit", head, "--json").stdout)
    assert merged["base"]["runs"] == [newest, oldest] and "BM_Sort" in {v["benchmark"] for v in merged["verdicts"]}


def test_a_re_run_at_a_commit_takes_the_newest_and_says_so(cli, store_path):
    base, head = "a" * 40, "b" * 40
    rerun = run("main", base, 1.0, 5, 2.0)
    rerun.metrics = rerun.metrics[:1]          # bench0 measured again, at its usual speed
    with SqliteStore(store_path) as store:      # the first run's bench0 was 30% slow
        store.add_runs([run("main", base, 1.3, 1, 1.0), rerun, run("pr", head, 1.0, 2, 3.0)])
    proc = cli("compare", "--base-commit", base, "--head-commit", head, "--json")
    assert proc.returncode == 0, proc.stderr                # not a 30% "improvement" of bench0
    out = json.loads(proc.stdout)
    assert out["counts"]["compared"] == 10 and out["counts"]["improvements"] == 0
    assert out["base"]["runs"] == _ids(store_path, base) and out["base"]["remeasured"] == 1
    said = " ".join(cli("compare", "--base-commit", base, "--head-commit", head).stdout.split())
    assert "1 series measured by more than one of them: the newest run's taken" in said, said


def test_runs_of_another_testbed_at_the_commit_are_not_mixed_in(cli, store_path):
    base, head = "a" * 40, "b" * 40
    elsewhere = run("main", base, 1.3, 3, 3.0)      # newest at the base commit, on another machine
    elsewhere.testbed = Bed("arm")
    elsewhere.metrics.append(Metric("arm_only", "latency", 1.0, samples=(1.0,) * 20))
    other = Run("default", "main", base, Bed("tb"), [Metric("BM_Sort", "latency", 1e3, samples=(1e3,) * 20)],
                start_time=2.0)
    with SqliteStore(store_path) as store:
        store.add_runs([run("main", base, 1.0, 1, 1.0), other, elsewhere, run("pr", head, 1.0, 2, 4.0)])
        on_tb = [r.run_id for r in store.runs() if r.commit == base and r.testbed == "tb"]
    proc = cli("compare", "--base-commit", base, "--head-commit", head, "--json")
    out = json.loads(proc.stdout)
    assert proc.returncode == 0 and out["base"]["runs"] == on_tb, proc.stderr
    assert "arm_only" not in {v["benchmark"] for v in out["verdicts"]}
    assert any("its run(s) on testbed(s) arm are not compared" in w for w in out["warnings"]), out["warnings"]


def _ids(store_path, commit):
    """The runs recorded at ``commit``, newest first."""
    with SqliteStore(store_path) as store:
        return [r.run_id for r in store.runs() if r.commit == commit]


def test_nothing_judged_is_no_pass(cli, store_path):
    """Runs of one value a benchmark (a Bencher history, BMF files) leave every row
    "insufficient-data": compare printed "1 not judged" and exited 0, a pass on nothing."""
    def one_value(branch, commit, value, t):
        return Run("default", branch, commit, Bed("tb"), [Metric("sort", "latency", value)], start_time=t)
    with SqliteStore(store_path) as store:
        store.add_runs([one_value("main", "a1", 100.0, 1.0), one_value("pr", "b1", 130.0, 2.0)])
    comment = store_path.parent / "comment.md"
    proc = cli("compare", "--base-branch", "main", "--head-branch", "pr", "--json", "--markdown", str(comment))
    # no verdict, exit 4 as check's: no pass, and no usage error (2) either, which CI read as perfgate failing
    assert proc.returncode == 4, proc.stderr
    assert proc.stderr.splitlines()[-1].startswith("perfgate compare: no verdict: nothing judged: none of the 1 "
                                                   "comparison(s) had enough samples") and "no pass" in proc.stderr
    out = json.loads(proc.stdout)
    assert out["exit_code"] == 4 and out["counts"]["not_judged"] == 1
    assert out["nothing_judged"] == "nothing judged: none of the 1 comparison(s) could be judged (each row's note " \
                                    "says why)"
    assert comment.read_text().splitlines()[1].startswith("### perfgate: ⚪ **No verdict: nothing judged: ")


def test_runs_with_no_benchmark_in_common_are_no_verdict_with_a_comment(cli, store_path):
    """Every benchmark renamed between the runs: "nothing to compare", an error (exit 2) before any
    comment was written, where check of the same pull request says no verdict; now both say no
    verdict (exit 4), the comment saying why (the same run on both sides stays a usage error, exit 2:
    test_compare_usage_errors)."""
    def named(branch, commit, name, t):
        return Run("default", branch, commit, Bed("tb"), [Metric(name, "latency", 1.0, samples=(1.0, 1.1, 0.9))],
                   start_time=t)
    with SqliteStore(store_path) as store:
        store.add_runs([named("main", "a1", "old", 1.0), named("pr", "b1", "new", 2.0)])
    comment = store_path.parent / "comment.md"
    proc = cli("compare", "--base-branch", "main", "--head-branch", "pr", "--json", "--markdown", str(comment))
    assert proc.returncode == 4, proc.stderr
    reason = ("nothing to compare: base main@a1 (testbed tb) and head pr@b1 (testbed tb) measured no benchmark and "
              "measure in common; pick runs of the same benchmarks with --base RUN --head RUN ('perfgate export "
              "--format csv' lists every run with its id and testbed)")
    assert proc.stderr.splitlines()[-1] == f"perfgate compare: no verdict: {reason}; this is no pass"
    out = json.loads(proc.stdout)
    assert out["exit_code"] == 4 and out["nothing_judged"] == reason and out["counts"]["compared"] == 0
    md = comment.read_text()
    # (an @ in prose is followed by a word joiner: no mention)
    assert md.splitlines()[1].startswith("### perfgate: ⚪ **No verdict: nothing to compare: base main@\u2060a1 ") \
        and "`old`" in md and "`new`" in md
    text = cli("compare", "--base-branch", "main", "--head-branch", "pr")
    assert text.returncode == 4 and "missing in base" in text.stdout and "separate runs" not in text.stdout


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


def test_a_side_picked_by_branch_searches_the_newest_runs_not_the_whole_history(store_path, monkeypatch):
    # Listing every run of main to find its newest commit's took 1.9 s on 100,000 runs (and a
    # Bencher server a request per 255); a newest commit's runs are among the newest.
    from perfgate.commands import compare

    monkeypatch.setattr(compare, "PAIR_SEARCH", 3)
    with SqliteStore(store_path) as store:
        store.add_runs([run("main", f"{i:040x}", 1.0, i, float(i)) for i in range(10)]
                       + [run("main", "f" * 40, 1.0, 20 + i, 20.0 + i) for i in range(2)])
        limits = []
        listed = store.runs
        monkeypatch.setattr(store, "runs", lambda **kw: limits.append(kw.get("limit")) or listed(**kw))
        side = compare._pick(store, None, "main", "base")
        assert len(side.ids) == 2 and side.run.commit == "f" * 40 and None not in limits, limits
        # more runs at the newest commit than searched: all of them, from the whole history
        store.add_runs([run("main", "e" * 40, 1.0, 30 + i, 30.0 + i) for i in range(4)])
        limits.clear()
        side = compare._pick(store, None, "main", "base")
        assert len(side.ids) == 4 and {side.run.commit} == {"e" * 40} and None in limits, limits


def test_a_pytest_benchmarks_parameters_are_no_scaling_table(cli, store_path):
    """pytest-benchmark keeps a parametrized test's parameters (as text) with its metric, as the
    scaling-tsv adapter keeps a scaling point's (as numbers); compare took the test for a point of
    a scaling table named by its path and failed on float("sync") (an internal error, exit 3)."""
    def pytest_run(branch: str, commit: str, seed: int, t: float) -> Run:
        rng = np.random.default_rng(seed)
        metrics = [Metric(f"benches/test_io.py::test_bare[{mode}]", "latency", 0.0,
                          samples=tuple(1e6 * (1 + 0.02 * rng.standard_normal(20))),
                          attrs={"parameters": {"mode": mode}})
                   for mode in ("sync", "coroutine")]
        for m in metrics:
            m.value = float(np.median(m.samples))
        return Run("default", branch, commit, Bed("tb"), metrics, start_time=t)

    with SqliteStore(store_path) as store:
        store.add_runs([pytest_run("main", "a1", 1, 1.0), pytest_run("pr", "b1", 2, 2.0)])
    proc = cli("compare", "--base-branch", "main", "--head-branch", "pr", "--json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert len(out["verdicts"]) == 2 and not out.get("complexity")


def test_single_scaling_runs_with_no_expectation_judged_are_no_verdict(cli, store_path, tmp_path):
    """Two single runs of a scaling table: every point's row lacks samples and the tables' fits,
    with no rounds, fail nothing.  compare printed "600 not judged among 600" beside a knee in head
    only and exited 0, a pass; as for rows alone it is no verdict (exit 4).  An expectation the
    head breaks reads inconclusive without rounds: no verdict either, not a pass."""
    fixtures = Path(__file__).parent / "fixtures" / "scaling-tsv"
    for name, branch, commit in (("linear", "main", "a1"), ("quadratic", "pr", "b1")):
        cli("ingest", str(fixtures / f"async-deinit-quick-{name}.tsv"), "--adapter", "scaling-tsv",
            "--branch", branch, "--commit", commit, "--testbed", "tb", check=True)
    proc = cli("compare", "--base-branch", "main", "--head-branch", "pr", "--json")
    out = json.loads(proc.stdout)
    assert proc.returncode == 4 and out["exit_code"] == 4, proc.stderr
    assert {r["status"] for r in out["complexity"]} == {"fitted"}
    assert "scaling table" in out["nothing_judged"]
    (tmp_path / "thr").mkdir()
    (tmp_path / "thr" / "complexity.toml").write_text(
        '[complexity."async_array*"]\nobjects = "linear"\nup_to = { objects = 8000 }\ntolerance = 0.05\n')
    expected = cli("compare", "--base-branch", "main", "--head-branch", "pr", "--json",
                   "--thresholds", str(tmp_path / "thr"))
    out = json.loads(expected.stdout)
    assert expected.returncode == 4 and {r["status"] for r in out["complexity"]} == {"inconclusive"}, expected.stderr


def test_an_alpha_past_what_rounds_can_judge_is_refused_and_the_mde_ends(cli, store_path):
    # `check --alpha 1e-300` ran for ever: the t quantile of its MDE was infinite and the search
    # for the noncentrality doubled it without end
    import math
    import time

    from perfgate.detect.rounds import mde

    proc = cli("compare", "--base-branch", "main", "--head-branch", "pr", "--alpha", "1e-300")
    assert proc.returncode == 2 and "must be from 1e-06 to below 1" in proc.stderr, proc.stderr
    started = time.monotonic()
    assert mde(0.02, 8, 1e-300, 28) == math.inf and time.monotonic() - started < 5
