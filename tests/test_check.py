"""``perfgate check`` on a tiny git repository: base and head built in the same image, run
interleaved, compared; a deliberately slower head fails the check (exit 1), an unchanged one passes."""

from __future__ import annotations

import json
import subprocess

import pytest

from test_containers_docker import base_image, make_tiny_root  # noqa: F401 - fixture re-used

docker = pytest.mark.docker
slow = pytest.mark.slow


def git(repo, *args):
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout.strip()


@pytest.fixture
def repo(tmp_path):
    """Two commits: the head spins ten times as long as the base — about 3× its wall time in the
    container (20 ms → 60 ms, interpreter start included).  Three times the spin was only +50%
    wall time, and a sequential check running beside the rest of the suite once failed to call it
    clear in 8 rounds (the paired t across rounds needs t ≈ 4 at a late look; rounds of 20 ms
    processes beside a loaded neighbour vary a lot), so that test was not about a clear regression."""
    root = make_tiny_root(tmp_path / "repo", spin=30_000, alloc_probe=False)
    git(root, "init", "-q", "-b", "main")
    git(root, "-c", "user.name=t", "-c", "user.email=t@example.org", "add", ".")
    git(root, "-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-q", "-m", "base")
    toml = root / "benches" / "spin" / "bench.toml"
    toml.write_text(toml.read_text().replace("spin.py 30000", "spin.py 300000").replace(
        'benchmark = "python3 spin.py 300000"', 'benchmark = "python3 spin.py 30000"').replace(
        "'python3 spin.py 300000'", "'python3 spin.py 300000' -n 'python3 spin.py 30000'"))
    git(root, "-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-q", "-am", "slower")
    return root


@docker
@slow
def test_a_slower_head_fails_the_check(repo, cli, base_image):  # noqa: F811
    proc = cli("check", "--root", str(repo), "--base", "HEAD~1", "--head", "HEAD", "--rounds", "6",
               "--cpuset", "1", "--json")
    assert proc.returncode == 1, proc.stderr
    report = json.loads(proc.stdout)
    assert report["exit_code"] == 1
    assert report["base"]["commit"] == git(repo, "rev-parse", "HEAD~1")
    assert report["head"]["commit"] == git(repo, "rev-parse", "HEAD")
    # Both sides were recorded, on one testbed, with a sample per round for the probes, each on a
    # branch of its own: a check's base is not a run of the branch it came from.
    # HEAD~1 is named by its commit, HEAD by the branch checked out (not check/HEAD, every check's).
    history = {(s["benchmark"], s["measure"], s["branch"]): s for s in json.loads(cli("history", "--json", check=True).stdout)}
    base_branch, head_branch = f"check/{report['base']['commit']}", "check/main"
    assert (report["base"]["branch"], report["head"]["branch"]) == (base_branch, head_branch)
    assert {b for _, _, b in history} == {base_branch, head_branch}
    base_ir = history[("python3 spin.py 30000", "instructions", base_branch)]["points"][0]
    head_ir = history[("python3 spin.py 30000", "instructions", head_branch)]["points"][0]
    assert len(base_ir["samples"]) == 3 and head_ir["value"] > 1.5 * base_ir["value"]   # probes: first 3 rounds
    # peak RSS every round: 3 left its interval wider than its threshold, inconclusive in every check
    assert len(history[("python3 spin.py 30000", "peak-rss", head_branch)]["points"][0]["samples"]) == 6
    assert history[("python3 spin.py 30000", "latency", head_branch)]["testbed"] == \
        history[("python3 spin.py 30000", "latency", base_branch)]["testbed"]
    assert not git(repo, "worktree", "list").count("\n")  # the temporary worktrees are gone


@docker
@slow
def test_the_same_commit_on_both_sides_passes(repo, cli, base_image):  # noqa: F811
    # 8 pairs can reach p = 2/2^8 < 0.01, so this can fail (an order effect would show up as every
    # pair leaning one way); by chance alone it fails at most 1% of the time.
    proc = cli("check", "--root", str(repo), "--base", "HEAD", "--head", "HEAD", "--rounds", "8", "--cpuset", "1",
               "--no-probes", "--alpha", "0.01")
    assert proc.returncode == 0, proc.stderr + proc.stdout


@docker
@slow
def test_a_sequential_check_stops_when_the_regression_is_clear(repo, cli, base_image):  # noqa: F811
    proc = cli("check", "--root", str(repo), "--base", "HEAD~1", "--head", "HEAD", "--budget", "10m",
               "--max-rounds", "8", "--cpuset", "1", "--no-probes", "--json")
    assert proc.returncode == 1, proc.stderr
    report = json.loads(proc.stdout)
    assert report["sequential"] and report["rounds"] < 8 and report["stopped"].startswith("every benchmark decided")
    assert report["looks"][0]["round"] == 3 and report["looks"][-1]["flagged"] >= 1
    assert any(n.startswith("sequential:") for n in report["comparison"]["notes"])


@docker
@slow
def test_a_budget_is_kept_from_the_first_round_and_counts_the_builds(repo, cli, base_image):  # noqa: F811
    # It was first checked at the third round's look, with the builds not counted: 5m ran to 8m17s.
    proc = cli("check", "--root", str(repo), "--base", "HEAD~1", "--head", "HEAD", "--budget", "1s",
               "--cpuset", "1", "--no-probes", "--json")
    report = json.loads(proc.stdout)
    assert report["rounds"] == 1 and report["stopped"].startswith("budget of 1 s would be exceeded"), report["stopped"]
    assert "before the first look" in report["comparison"]["notes"][0]


@docker
def test_a_suite_only_one_side_has_is_said_and_errors_name_the_side(repo, cli, base_image):  # noqa: F811
    """A PR that adds a suite, or deletes one, was compared in silence on the suites both have;
    an error inside a side's temporary checkout named a path already gone, not the side."""
    (repo / "benches" / "extra").mkdir()
    (repo / "benches" / "extra" / "bench.toml").write_text((repo / "benches" / "spin" / "bench.toml").read_text()
                                                           .replace('name = "spin"', 'name = "extra"'))
    (repo / "benches" / "extra" / "spin.py").write_text((repo / "benches" / "spin" / "spin.py").read_text())
    git(repo, "add", "-A")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-q", "-m", "extra suite")
    (repo / "benches" / "spin" / "bench.toml").write_text("not toml [")           # uncommitted: not measured
    proc = cli("check", "--root", str(repo), "--base", "HEAD~1", "--head", "HEAD", "--rounds", "3",
               "--no-probes", "--cpuset", "1", "--json")
    assert proc.returncode in (0, 1), proc.stderr
    notes = json.loads(proc.stdout)["comparison"]["notes"]
    assert "suite extra is new in HEAD: not compared (its base has no such suite)" in notes
    # which thresholds judged, said: the base's own, none here (it judged every measure at 2% then)
    base = git(repo, "rev-parse", "HEAD~1")[:12]
    assert f"thresholds: perfgate's default thresholds (the base commit {base} has no thresholds/)" in notes, notes
    assert "uncommitted changes" in proc.stderr and "round 3/3 done" in proc.stderr
    # Named, a suite only the head has is one error that says so (it was a note, then an error).
    proc = cli("check", "--root", str(repo), "--base", "HEAD~1", "--head", "HEAD", "--suite", "extra")
    assert proc.returncode == 2 and "--suite 'extra': the suite is new in HEAD: its base has none" in proc.stderr
    assert "not compared" not in proc.stderr, proc.stderr
    proc = cli("check", "--root", str(repo), "--base", "HEAD~1", "--head", "HEAD", "--suite", "spinn")   # a typo
    assert proc.returncode == 2 and "in neither side (base HEAD~1, head HEAD); their suites: extra, spin" in proc.stderr
    proc = cli("check", "--root", str(repo), "--base", "HEAD", "--head", "HEAD~1", "--rounds", "3",
               "--no-probes", "--cpuset", "1", "--json")
    assert "suite extra is gone in HEAD~1: its benchmarks are no longer measured" in proc.stderr
    git(repo, "checkout", "-q", "--", ".")
    (repo / "benches" / "spin" / "bench.toml").write_text("not toml [")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-q", "-am", "broken manifest")
    proc = cli("check", "--root", str(repo), "--base", "HEAD~1", "--head", "HEAD", "--rounds", "3")
    assert proc.returncode == 2 and "head (HEAD) benches/spin/bench.toml" in proc.stderr, proc.stderr
    assert "perfgate-check-" not in proc.stderr
    # A build that fails: its error named only the image tag and a log path.
    toml = repo / "benches" / "spin" / "bench.toml"
    git(repo, "checkout", "-q", "HEAD~1", "--", str(toml))
    toml.write_text(toml.read_text().replace('adapter =', 'build = "exit 3"\nadapter =', 1))
    git(repo, "-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-q", "-am", "build breaks")
    proc = cli("check", "--root", str(repo), "--base", "HEAD~2", "--head", "HEAD", "--rounds", "3")
    said = " ".join(proc.stderr.split())
    assert proc.returncode == 2 and "head (HEAD) suite 'spin': building perfgate/suite-spin" in said, proc.stderr


@docker
def test_a_failing_side_gets_a_comment_and_its_harness_output_a_log(repo, cli, base_image, tmp_path):  # noqa: F811
    """A head without benchmarks, a head whose harness fails: exit 2, and a comment naming the side;
    the failure's report on stdout is shown and its whole output kept in a log."""
    md = tmp_path / "comment.md"
    git(repo, "rm", "-q", "-r", "benches")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-q", "-m", "no benches")
    proc = cli("check", "--root", str(repo), "--base", "HEAD~1", "--head", "HEAD", "--markdown", str(md))
    assert proc.returncode == 2 and "head (HEAD) benches: no */bench.toml found" in error_of(proc), proc.stderr
    assert "in the **head** (`HEAD`)" in md.read_text() and error_of(proc) in md.read_text()
    git(repo, "checkout", "-q", "HEAD~1", "--", "benches")
    toml = repo / "benches" / "spin" / "bench.toml"
    toml.write_text(toml.read_text().replace('command = "', 'command = "echo E ValueError: raised; exit 1; ', 1))
    git(repo, "-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-q", "-am", "harness fails")
    proc = cli("check", "--root", str(repo), "--base", "HEAD~2", "--head", "HEAD", "--rounds", "3",
               "--no-probes", "--cpuset", "1", "--markdown", str(md))
    said = error_of(proc)
    assert proc.returncode == 2 and said.startswith("head (HEAD) benches/spin/bench.toml:profiles.quick.command: "
                                                    "exited 1 (full log: "), proc.stderr
    assert "E ValueError: raised" in said
    log = next((repo / ".perfgate" / "logs").glob("run-spin-*-quick.log"))
    assert str(log) in said and "E ValueError: raised" in log.read_text()
    assert "in the **head** (`HEAD`)" in md.read_text() and said in md.read_text()


def test_an_unknown_ref_is_a_usage_error(repo, cli):
    proc = cli("check", "--root", str(repo), "--base", "no-such-ref", "--head", "HEAD")
    assert proc.returncode == 2
    assert "--base 'no-such-ref': not a commit" in proc.stderr


def error_of(proc) -> str:
    """The error as the terminal said it."""
    return proc.stderr.split("perfgate check: error: ", 1)[1].rstrip("\n")


def test_an_error_writes_a_comment_saying_the_check_could_not_run(repo, cli, tmp_path):
    # The example workflow's comment step found no file and posted only "produced no comment".
    md = tmp_path / "comment.md"
    proc = cli("check", "--root", str(repo), "--base", "no-such-ref", "--head", "HEAD", "--markdown", str(md))
    assert proc.returncode == 2
    comment = md.read_text()
    assert comment.startswith("<!-- perfgate-comment -->\n### perfgate: ⛔ **The check could not run**")
    assert "with an error in the **base** (`no-such-ref`)" in comment
    assert f"```text\n{error_of(proc)}\n```" in comment and "not a commit" in error_of(proc)
    assert f"`{repo / '.perfgate' / 'logs'}`" in comment
    proc = cli("check", "--root", str(repo), "--base", "HEAD~1", "--head", "HEAD", "--rounds", "2",
               "--markdown", str(md))
    assert proc.returncode == 2 and f"```text\n{error_of(proc)}\n```" in md.read_text()
    assert "in the **" not in md.read_text()   # no side failed: a usage error


def test_an_error_in_a_side_s_checkout_is_marked_as_that_side_s():
    import argparse
    from pathlib import Path

    from perfgate.commands.check import _named_by_side
    from perfgate.errors import InputError

    trees = {"base": Path("/tmp/perfgate-check-x/base"), "head": Path("/tmp/perfgate-check-x/head")}
    named = _named_by_side(InputError("/tmp/perfgate-check-x/head/benches", "", "no */bench.toml found"), trees,
                           argparse.Namespace(base="main", head="HEAD"))
    assert str(named) == "head (HEAD) benches: no */bench.toml found" and named.side == "head"


def test_each_suite_is_recorded_on_its_own_image_s_testbed():
    # A check of perfgate itself recorded tree-alloc (C++ image) and swift-runtime (Swift image)
    # on the first suite's Rust testbed: their check/ series sat apart from every other run of them.
    import argparse

    from perfgate.commands.check import side_runs
    from perfgate.containers.runner import SuiteResult
    from perfgate.model import Metric, Testbed

    def result(suite, value):
        return SuiteResult([Metric(f"{suite}-bench", "instructions", value)], {"suite": suite, "adapter": "bmf"}, 1.0, 2.0)

    rust, cpp = Testbed("docker-rust-1", {"image": "rust"}), Testbed("docker-cpp-2", {"image": "cpp"})
    results = {side: [result("executor", 1.0), result("tree", 2.0), result("executor", 1.0), result("tree", 2.0)]
               for side in ("base", "head")}
    args = argparse.Namespace(project="default", base="main", head="HEAD", profile="quick")
    branches = {"base": "check/main", "head": "check/feature"}
    runs = side_runs(args, {"base": "a" * 40, "head": "b" * 40}, branches, results, {"executor": rust, "tree": cpp},
                     2, "x")
    for side in ("base", "head"):
        assert [(r.testbed.name, r.context["suites"], [m.benchmark for m in r.metrics]) for r in runs[side]] == \
            [("docker-rust-1", ["executor"], ["executor-bench"]), ("docker-cpp-2", ["tree"], ["tree-bench"])]
        assert all(r.context["check_id"] == "x" and r.branch == branches[side] for r in runs[side])


def test_a_side_given_through_head_is_recorded_on_its_branch_or_commit_not_check_head(tmp_path):
    """`check --head HEAD` recorded every pull request's head on one branch, check/HEAD (and
    --base HEAD~1 on check/HEAD~1): symbolic names, each check's runs added to the last one's."""
    from perfgate.commands.check import resolve, stored_branch

    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    for message in ("one", "two"):
        git(root, "-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-q", "--allow-empty", "-m", message)
    git(root, "tag", "v1")
    git(root, "checkout", "-q", "-b", "feature/x")
    head, parent = git(root, "rev-parse", "HEAD"), git(root, "rev-parse", "HEAD~1")

    def branch(ref):
        return stored_branch(root, ref, resolve(root, ref, "--head"), "--head")

    assert branch("HEAD") == branch("@") == "check/feature/x"          # the branch checked out
    assert branch("HEAD~1") == branch("main~1") == f"check/{parent}"   # relative to where a ref is now
    assert branch("main") == "check/main" and branch("v1") == "check/v1"   # names: as before
    assert branch(parent[:10]) == f"check/{parent[:10]}" and branch(head) == f"check/{head}"   # hashes: as before
    git(root, "checkout", "-q", "--detach")
    assert branch("HEAD") == f"check/{head}"                            # a detached HEAD (a CI checkout)


def test_rounds_are_pooled_as_one_sample_each_in_order():
    from perfgate.commands.check import pool
    from perfgate.containers.runner import SuiteResult
    from perfgate.model import Metric

    rounds = [SuiteResult([Metric("b", "latency", 2.0, samples=(1.0, 2.0, 9.0)), Metric("b", "instructions", 100.0)]),
              SuiteResult([Metric("b", "latency", 5.0, samples=(5.0, 6.0, 4.0)), Metric("b", "instructions", 100.0)])]
    pooled = {(m.benchmark, m.measure): m for m in pool(rounds)}
    latency = pooled[("b", "latency")]
    assert latency.samples == (2.0, 5.0)          # round medians, in round order (pairs with the other side)
    assert latency.attrs == {"rounds": 2, "raw_samples": 6, "round_samples": [[1.0, 2.0, 9.0], [5.0, 6.0, 4.0]]}
    assert pooled[("b", "instructions")].samples == (100.0, 100.0)


def test_too_few_rounds_is_a_usage_error(repo, cli):
    proc = cli("check", "--root", str(repo), "--base", "HEAD~1", "--head", "HEAD", "--rounds", "2")
    assert proc.returncode == 2 and "--rounds must be at least 3" in proc.stderr
    proc = cli("check", "--root", str(repo), "--base", "HEAD~1", "--head", "HEAD", "--max-rounds", "2")
    assert proc.returncode == 2 and "--max-rounds must be at least 3" in proc.stderr
    proc = cli("check", "--root", str(repo), "--base", "HEAD~1", "--head", "HEAD", "--budget", "5 minutes")
    assert proc.returncode == 2 and "not a duration" in proc.stderr


def test_durations():
    from perfgate.commands.check import parse_duration

    assert [parse_duration(t) for t in ("300", "90s", "5m", "1.5h")] == [300, 90, 300, 5400]


def _sequential(base_all, head_all, most):
    """Run check's looks over pre-drawn rounds as the command does: (final comparison, rounds used)."""
    import argparse

    from perfgate.commands.check import FIRST_LOOK, Plan, judge
    from perfgate.thresholds import load_thresholds
    from conftest import ROOT

    plan = Plan.from_args(argparse.Namespace(alpha=0.05, budget=None, max_rounds=most, rounds=None))
    flagged, settled = {}, {}
    for n in range(FIRST_LOOK, most + 1):
        rounds = {"base": {k: v[:n] for k, v in base_all.items()}, "head": {k: v[:n] for k, v in head_all.items()}}
        comparison, decided, look = judge(rounds, load_thresholds(ROOT / "thresholds"), plan, flagged, settled)
        if decided:
            break
    return comparison, n


def test_sequential_check_ends_early_on_a_clear_regression_and_keeps_its_flag():
    import numpy as np
    from test_rounds import suite

    base, head = suite(np.random.default_rng(21), 20, benchmarks=4, target_effect=0.30, pair=0.005, within=0.02)
    comparison, used = _sequential(base, head, 20)
    assert {(v.benchmark, v.measure) for v in comparison.regressions} == {("bm0", "latency"), ("bm0", "throughput")}
    assert used < 20


def test_sequential_check_on_a_noisy_benchmark_uses_more_rounds():
    import numpy as np
    from test_rounds import suite

    quiet = suite(np.random.default_rng(22), 20, benchmarks=3, pair=0.002, within=0.005)
    noisy = suite(np.random.default_rng(22), 20, benchmarks=3, pair=0.02, within=0.1)
    _, used_quiet = _sequential(*quiet, 20)
    comparison, used_noisy = _sequential(*noisy, 20)
    assert used_quiet < used_noisy and not comparison.regressions


def test_a_sequential_check_keeps_measuring_a_wall_time_its_cpu_time_rate_cannot_vouch_for():
    # Google Benchmark's items/s (CPU time) once stood for its wall-time latency, and the check
    # stopped on it; a wall-time regression (waiting, not computing) would never have shown.
    import numpy as np
    from test_rounds import suite

    base, head = suite(np.random.default_rng(23), 20, benchmarks=3, pair=0.002, within=0.005)
    rng = np.random.default_rng(24)
    for k in [k for k in base if k[1] == "latency"]:   # wall time wildly off, CPU-time rate steady
        base[k] = [x * np.exp(rng.normal(0, 0.6)) for x in base[k]]
        head[k] = [x * np.exp(rng.normal(0, 0.6)) for x in head[k]]
    comparison, used = _sequential(base, head, 20)
    assert used == 20 and not comparison.regressions
    assert {v.verdict for v in comparison.verdicts if v.measure == "latency"} == {"inconclusive"}
    assert {v.verdict for v in comparison.verdicts if v.measure == "throughput"} == {"no-change"}


def test_thresholds_come_from_the_base_commit_unless_the_head_is_opted_in(tmp_path):
    """A pull request that loosens thresholds/ is still judged by the base's (no Docker needed)."""
    import argparse

    from perfgate.commands.check import _thresholds_path

    repo = tmp_path / "repo"
    (repo / "thresholds").mkdir(parents=True)
    strict = "[measure.latency]\ntest = \"percentage\"\nupper_boundary = 0.01\n"
    (repo / "thresholds" / "default.toml").write_text(strict)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@example.org", "add", ".")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-q", "-m", "base")
    (repo / "thresholds" / "default.toml").write_text("[measure.latency]\ntest = \"percentage\"\nupper_boundary = 0.5\n")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-q", "-am", "loosen the gate")
    base, head = git(repo, "rev-parse", "HEAD~1"), git(repo, "rev-parse", "HEAD")
    args = argparse.Namespace(thresholds=None)
    from_base = _thresholds_path(args, repo, base, tmp_path / "b")
    assert from_base.joinpath("default.toml").read_text() == strict
    from_head = _thresholds_path(args, repo, head, tmp_path / "h")
    assert "0.5" in from_head.joinpath("default.toml").read_text()
    # No thresholds/ at that commit: the built-in defaults, never the working tree's.
    bare = tmp_path / "bare"
    bare.mkdir()
    git(bare, "init", "-q", "-b", "main")
    (bare / "x").write_text("x")
    git(bare, "-c", "user.name=t", "-c", "user.email=t@example.org", "add", ".")
    git(bare, "-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-q", "-m", "x")
    (bare / "thresholds").mkdir()
    assert _thresholds_path(args, bare, git(bare, "rev-parse", "HEAD"), tmp_path / "n") is None


def test_a_sequential_check_stops_by_the_verdicts_rule_and_is_not_held_up_by_probes():
    """An audit: probes (peak RSS then, instruction counts now) ran in the first 3 rounds only, so a sequential check could
    never decide them and always ran to --max-rounds, their 3 rounds judged again at each later
    look's smaller level (an interval four times wider, "inconclusive"); and it stopped "every
    benchmark decided" beside an inconclusive row, the stop rule (an MDE) not the verdicts'."""
    import numpy as np
    from conftest import ROOT
    from test_rounds import suite, synthetic

    from perfgate.detect.compare import compare_rounds
    from perfgate.thresholds import load_thresholds

    rng = np.random.default_rng(31)
    base, head = suite(rng, 20, benchmarks=3, pair=0.002, within=0.005)
    for i in range(3):
        b, h = synthetic(rng, 3, machine=0.001, pair=0.001, within=0.001)
        base[(f"bm{i}", "peak-rss")], head[(f"bm{i}", "peak-rss")] = b, h
    comparison, used = _sequential(base, head, 20)
    assert used < 20
    rss = [v for v in comparison.verdicts if v.measure == "peak-rss"]
    assert rss and all(v.rounds == 3 and v.verdict == "no-change" for v in rss)
    fixed = compare_rounds({k: v[:3] for k, v in base.items() if k[1] == "peak-rss"},
                           {k: v[:3] for k, v in head.items() if k[1] == "peak-rss"},
                           load_thresholds(ROOT / "thresholds"), alpha=Plan_levels()[0])
    assert {(v.benchmark, v.ci_low, v.ci_high) for v in rss} == {(v.benchmark, v.ci_low, v.ci_high) for v in fixed.verdicts}
    assert not [v for v in comparison.verdicts if v.verdict == "inconclusive" and v.rounds == used]


def Plan_levels():
    import argparse

    from perfgate.commands.check import Plan

    return Plan.from_args(argparse.Namespace(alpha=0.05, budget=None, max_rounds=20, rounds=None)).levels


@docker
def test_the_pull_request_that_adds_the_first_suites_passes_with_a_comment(tmp_path, cli):
    """Its base has no benches/ at all: nothing to compare, nothing wrong.  It stopped with an
    error (exit 2, no comment), so adopting perfgate failed its own first check."""
    root = make_tiny_root(tmp_path / "repo", spin=30_000, alloc_probe=False)
    benches = tmp_path / "benches"
    (root / "benches").rename(benches)
    git(root, "init", "-q", "-b", "main")
    (root / "README").write_text("a project\n")
    git(root, "add", "-A")
    git(root, "-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-q", "-m", "before perfgate")
    benches.rename(root / "benches")
    git(root, "add", "-A")
    git(root, "-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-q", "-m", "adopt perfgate")
    comment = tmp_path / "comment.md"
    proc = cli("check", "--root", str(root), "--base", "HEAD~1", "--head", "HEAD", "--markdown", str(comment), "--json")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["rounds"] == 0 and report["exit_code"] == 0
    assert report["comparison"]["notes"] == ["suite spin is new in HEAD: not compared (its base has no such suite)"]
    # that nothing was compared, and why, in the headline (it was "✅ Nothing to compare")
    why = "nothing compared: its base HEAD~1 has no benchmark suite, so every suite is new in HEAD"
    assert report["nothing_judged"] == why
    assert comment.read_text().splitlines()[1] == ("### perfgate: ✅ **Nothing compared: its base HEAD\\~1 has no "
                                                   "benchmark suite, so every suite is new in HEAD**")
    assert "suite spin is new in HEAD" in comment.read_text()
    proc = cli("check", "--root", str(root), "--base", "HEAD~1", "--head", "HEAD")
    assert proc.returncode == 0 and "suite spin is new in HEAD" in proc.stdout + proc.stderr, proc.stderr
    assert proc.stdout.splitlines()[-1] == f"ok: {why}"


def test_a_head_that_is_githubs_merge_commit_is_warned_about(tmp_path, monkeypatch):
    """On pull_request, actions/checkout's HEAD is the PR merged into today's base branch: a check
    of it put main's own changes since the merge base on the pull request (an audit's finding)."""
    from perfgate.commands.check import _github_merge_head

    repo = tmp_path / "r"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    ident = ("-c", "user.name=t", "-c", "user.email=t@example.org")
    git(repo, *ident, "commit", "-q", "--allow-empty", "-m", "base")
    git(repo, "checkout", "-q", "-b", "pr")
    git(repo, *ident, "commit", "-q", "--allow-empty", "-m", "pr")
    git(repo, "checkout", "-q", "main")
    git(repo, *ident, "commit", "-q", "--allow-empty", "-m", "main moved")
    git(repo, *ident, "merge", "-q", "--no-ff", "-m", "merge", "pr")
    merge, pr = git(repo, "rev-parse", "HEAD"), git(repo, "rev-parse", "pr")
    monkeypatch.setenv("GITHUB_EVENT_NAME", "pull_request")
    monkeypatch.setenv("GITHUB_SHA", merge)
    assert "merged into its base branch" in _github_merge_head(repo, merge)
    assert _github_merge_head(repo, pr) == ""                   # the PR's own commit
    monkeypatch.setenv("GITHUB_EVENT_NAME", "push")
    assert _github_merge_head(repo, merge) == ""                # a merge on main is main's


def test_the_rounds_note_says_how_many_samples_a_side_the_rows_stood_on():
    """'8 interleaved rounds' alone did not say whether a row stood on 8 values or 800."""
    from perfgate.commands.check import _samples_note
    from perfgate.detect.compare import compare_rounds

    base = {("b", "latency"): [[1.0, 1.1, 0.9]] * 4, ("c", "latency"): [[2.0] * 50] * 4}
    head = {("b", "latency"): [[1.0, 1.1, 0.9]] * 4, ("c", "latency"): [[2.0] * 50] * 4}
    assert _samples_note(compare_rounds(base, head)) == ", 12–200 raw sample(s) a side per benchmark"
    assert _samples_note(compare_rounds({}, {})) == ""


@docker
def test_two_suites_reporting_one_benchmark_name_are_refused_not_judged_as_one(repo, cli, base_image, tmp_path):  # noqa: F811
    """Two suites running the same hyperfine command (a copied suite) report one benchmark name:
    the check paired their rounds by name, judged both as one benchmark on twice the rounds, and
    a 3× slowdown of one of them read "inconclusive" with exit 0."""
    extra = repo / "benches" / "extra"
    extra.mkdir()
    (extra / "bench.toml").write_text((repo / "benches" / "spin" / "bench.toml").read_text()
                                      .replace('name = "spin"', 'name = "extra"'))
    (extra / "spin.py").write_text((repo / "benches" / "spin" / "spin.py").read_text())
    git(repo, "add", "-A")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-q", "-m", "copied suite")
    md, store = tmp_path / "comment.md", tmp_path / "h.db"
    proc = cli("check", "--root", str(repo), "--base", "HEAD", "--head", "HEAD", "--rounds", "3", "--no-probes",
               "--cpuset", "1", "--markdown", str(md), "--store", f"sqlite:{store}")
    said = " ".join(error_of(proc).split())
    assert proc.returncode == 2, proc.stderr
    assert "suites 'extra' and 'spin' both report benchmark 'python3 spin.py 30000' (latency)" in said, said
    assert "round 2/3" not in proc.stderr            # refused after the first round, not after all of them
    assert "could not run" in md.read_text()
    assert json.loads(cli("history", "--json", "--store", f"sqlite:{store}", check=True).stdout) == []   # nothing recorded


def test_benchmarks_of_two_suites_are_told_apart_from_a_suite_s_variants():
    from perfgate.commands.check import _refuse_shared_benchmarks
    from perfgate.containers.runner import SuiteResult
    from perfgate.errors import PerfgateError
    from perfgate.model import Metric

    def result(suite, variant, name, measure="latency"):
        return SuiteResult([Metric(name, measure, 1.0)], {"suite": suite, "variant": variant})

    # one suite, its variants (their names prefixed), its probes (other measures), two rounds: fine
    _refuse_shared_benchmarks([result("a", "", "x"), result("a", "", "x", "instructions"), result("a", "v", "v/x"),
                               result("a", "", "x"), result("b", "", "y")], "head", "HEAD")
    with pytest.raises(PerfgateError, match=r"base \(main\): suites 'a' and 'b' both report benchmark 'x' \(latency\)"):
        _refuse_shared_benchmarks([result("a", "", "x"), result("b", "", "x")], "base", "main")


@docker
def test_a_suite_naming_a_missing_image_is_an_error_naming_its_side_and_bench_toml(repo, cli, base_image, tmp_path):  # noqa: F811
    """The error named only docker/images/NAME/Dockerfile and "a suite's bench.toml": not which
    suite, nor that it was the head's, and the comment did not say which side failed."""
    toml = repo / "benches" / "spin" / "bench.toml"
    toml.write_text(toml.read_text().replace('image = "base"', 'image = "nosuch"'))
    git(repo, "-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-q", "-am", "missing image")
    md = tmp_path / "comment.md"
    proc = cli("check", "--root", str(repo), "--base", "HEAD~1", "--head", "HEAD", "--rounds", "3",
               "--markdown", str(md))
    said = error_of(proc)
    assert proc.returncode == 2, proc.stderr
    assert said.startswith("head (HEAD) benches/spin/bench.toml:image: image 'nosuch' has no Dockerfile at "
                           f"{repo / 'docker' / 'images' / 'nosuch' / 'Dockerfile'}"), said
    assert said.endswith("; the images here: base") and "perfgate-check-" not in said
    assert "in the **head** (`HEAD`)" in md.read_text()


def test_rounds_given_to_a_sequential_check_is_a_usage_error_not_ignored(repo, cli):
    """--rounds 5 --budget 5m ran up to 20 rounds: the --rounds given was dropped in silence."""
    for extra in (["--budget", "5m"], ["--max-rounds", "6"]):
        proc = cli("check", "--root", str(repo), "--base", "HEAD~1", "--head", "HEAD", "--rounds", "5", *extra)
        assert proc.returncode == 2 and f"with {extra[0]} the check is sequential: cap its rounds with " \
            "--max-rounds N instead" in proc.stderr, proc.stderr


@docker
def test_a_variant_only_one_side_has_is_said_not_skipped_in_silence(repo, cli, base_image):  # noqa: F811
    """A suite only one side has gets a note; a variant only one side has was skipped without
    one: deleting a variant was a quiet pass, and --variant naming a new one compared nothing."""
    toml = repo / "benches" / "spin" / "bench.toml"
    toml.write_text(toml.read_text() + '\n[variants.again]\nenv = { AGAIN = "1" }\n')
    git(repo, "-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-q", "-am", "a variant")
    proc = cli("check", "--root", str(repo), "--base", "HEAD~1", "--head", "HEAD", "--rounds", "3",
               "--no-probes", "--cpuset", "1", "--json")
    assert proc.returncode in (0, 1), proc.stderr
    assert "variant spin/again is new in HEAD: not compared (its base has no such variant)" in \
        json.loads(proc.stdout)["comparison"]["notes"]
    proc = cli("check", "--root", str(repo), "--base", "HEAD", "--head", "HEAD~1", "--rounds", "3",
               "--no-probes", "--cpuset", "1", "--json")
    assert proc.returncode in (0, 1), proc.stderr
    assert "variant spin/again is gone in HEAD~1: its benchmarks are no longer measured" in \
        json.loads(proc.stdout)["comparison"]["notes"]
    proc = cli("check", "--root", str(repo), "--base", "HEAD~1", "--head", "HEAD", "--rounds", "3",
               "--variant", "again")
    assert proc.returncode == 2 and "--variant 'again': the variant of suite 'spin' is new in HEAD: its base " \
        "has none to compare with" in error_of(proc), proc.stderr


@docker
def test_a_project_in_a_subfolder_of_its_repository_is_checked_from_that_folder(tmp_path, cli, base_image):  # noqa: F811
    """--root a folder inside the repository (a monorepo's project): run found its benches/ there,
    check looked at the repository's top level and said "head (HEAD) benches: no */bench.toml found"."""
    import shutil

    from conftest import ROOT

    mono = tmp_path / "mono"
    project = make_tiny_root(mono / "proj", spin=30_000, alloc_probe=False)
    (project / "thresholds").mkdir()
    shutil.copy(ROOT / "thresholds" / "default.toml", project / "thresholds" / "default.toml")
    git(mono, "init", "-q", "-b", "main")
    git(mono, "add", ".")
    for message in ("one", "two"):
        git(mono, "-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-q", "--allow-empty", "-m", message)
    proc = cli("check", "--root", str(project), "--base", "HEAD~1", "--head", "HEAD", "--rounds", "3",
               "--no-probes", "--cpuset", "1", "--json")
    assert proc.returncode in (0, 1), proc.stderr
    report = json.loads(proc.stdout)
    assert {v["benchmark"] for v in report["comparison"]["verdicts"]} == {"python3 spin.py 30000"}
    base = git(mono, "rev-parse", "HEAD~1")[:12]
    assert f"thresholds: thresholds/ of the base commit {base}" in report["comparison"]["notes"]


def test_a_root_outside_any_repository_is_named_as_the_root(tmp_path, cli):
    """It read "git rev-parse --show-toplevel failed in ...", git's words for --root's mistake."""
    plain = tmp_path / "plain"
    plain.mkdir()
    for where, reason in ((plain, "not inside a git repository"), (tmp_path / "gone", "no such folder")):
        proc = cli("check", "--root", str(where), "--base", "main", "--head", "main")
        assert proc.returncode == 2 and f"error: --root {where}: {reason}" in proc.stderr, proc.stderr


def _measured(base: dict, head: dict):
    """A stand-in for check's measuring (no containers): ``{benchmark: rounds}`` a side, each
    round one result of three samples, judged as check judges them."""
    from perfgate.commands import check
    from perfgate.containers.runner import SuiteResult
    from perfgate.detect.compare import compare_rounds
    from perfgate.model import Metric, Testbed

    def measure(args, plan, thresholds, expectations, root, trees, shas, branches, prefix=""):
        results = {side: [SuiteResult([Metric(b, "latency", 1.0, samples=(1.0, 1.01, 0.99))],
                                      {"suite": "s", "adapter": "bmf"}, 1.0, 2.0)
                          for r in range(max(rounds.values(), default=0)) for b, n in rounds.items() if r < n]
                   for side, rounds in (("base", base), ("head", head))}
        done = max(len(v) for side in check._rounds(results).values() for v in side.values())
        comparison = compare_rounds(*(check._rounds(results)[s] for s in ("base", "head")), thresholds,
                                    alpha=plan.alpha)
        runs = check.side_runs(args, shas, branches, results, {"s": Testbed("docker-x", {"image": "x"})}, done, "x")
        return runs, check.Outcome(comparison, done, f"{done} rounds run")
    return measure


def _check_in_process(tmp_path, monkeypatch, capsys, measure, *extra):
    """``perfgate check`` in this process on a two-commit repository, measuring with ``measure``:
    (exit code, stdout, stderr, comment)."""
    from perfgate import cli
    from perfgate.commands import check

    repo = tmp_path / "repo"
    repo.mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    for message in ("base", "head"):
        git(repo, "-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-q", "--allow-empty", "-m", message)
    monkeypatch.setattr(check, "_measure", measure)
    monkeypatch.setattr(check.engine, "ensure_engine", lambda: None)
    md = tmp_path / "comment.md"
    code = cli.main(["check", "--root", str(repo), "--base", "HEAD~1", "--head", "HEAD", "--store",
                     f"sqlite:{tmp_path / 'history.db'}", "--markdown", str(md), *extra])
    said = capsys.readouterr()
    return code, said.out, said.err, md.read_text()


@pytest.mark.parametrize("base, head, reason", [
    # every benchmark renamed: the base's are gone in head (exit 0 before, "ok: nothing compared")
    ({"old": 3}, {"new": 3},
     "nothing compared: no benchmark was measured on both sides (1 gone in head, 1 new in head)"),
    # a --budget spent after one round: a paired t needs 3 (exit 0 before, "ok: no significant regression")
    ({"a": 1, "b": 1}, {"a": 1, "b": 1}, "nothing judged: none of the 2 comparison(s) could be judged (each row's "
                                         "note says why)"),
    # a benchmark reported in some rounds only, on one side
    ({"a": 3}, {"a": 2}, "nothing judged: none of the 1 comparison(s) could be judged (each row's note says why)"),
])
def test_a_check_that_judged_nothing_is_no_verdict_saying_why(tmp_path, monkeypatch, capsys, base, head, reason):
    """No verdict, exit 4, as compare's: check exited 0 on both (its comment and check run read as a
    pass), then 2, which the action reported as "perfgate error … usage or input error"."""
    code, stdout, stderr, comment = _check_in_process(tmp_path, monkeypatch, capsys, _measured(base, head))
    assert code == 4
    assert stderr.splitlines()[-1] == f"perfgate check: no verdict: {reason}; a check that judged nothing is no pass"
    assert "error" not in stderr
    assert stdout.splitlines()[-1] == f"no verdict: {reason}" and "ok" not in stdout.splitlines()[-1]
    headline = comment.splitlines()[1]
    assert headline.startswith(f"### perfgate: ⚪ **No verdict: {reason.split(':')[0]}: ") and \
        headline.endswith("** (neither a pass nor a regression; exit 4)")
    code, stdout, _, _ = _check_in_process(tmp_path / "json", monkeypatch, capsys, _measured(base, head), "--json")
    report = json.loads(stdout)
    assert code == 4 and report["exit_code"] == 4 and report["nothing_judged"] == reason


def test_a_check_whose_every_benchmark_is_new_passes_saying_nothing_was_compared(tmp_path, monkeypatch, capsys):
    """The only reason nothing was compared is that the head's benchmarks are all new: a pass, but
    one that says so (it read "ok: nothing compared, no benchmark was measured on both sides", the
    words of a pull request that renamed them all)."""
    reason = "nothing compared: all 2 benchmark(s) are new in head, its base has none to compare with"
    code, stdout, stderr, comment = _check_in_process(tmp_path, monkeypatch, capsys, _measured({}, {"a": 3, "b": 3}))
    assert code == 0 and "error" not in stderr
    assert stdout.splitlines()[-1] == f"ok: {reason}"
    assert comment.splitlines()[1] == ("### perfgate: ✅ **Nothing compared: all 2 benchmark\\(s\\) are new in head, "
                                       "its base has none to compare with**")
    code, stdout, _, _ = _check_in_process(tmp_path / "json", monkeypatch, capsys, _measured({}, {"a": 3}), "--json")
    assert code == 0 and json.loads(stdout)["nothing_judged"].startswith("nothing compared: all 1 benchmark(s) are new")
    # one row judged beside one that could not be: a verdict, exit 0, no "nothing" said
    code, stdout, stderr, comment = _check_in_process(tmp_path / "some", monkeypatch, capsys,
                                                      _measured({"a": 3, "b": 3}, {"a": 3, "b": 2}), "--json")
    report = json.loads(stdout)
    assert code == 0 and report["nothing_judged"] is None and report["counts"]["not_judged"] == 1
    assert comment.splitlines()[1] == \
        "### perfgate: ⚠️ **No performance regression found; 1 of 2 comparison(s) not judged**"


def test_a_check_whose_every_suite_was_renamed_is_no_verdict_before_any_build(tmp_path, monkeypatch, capsys):
    """Every suite renamed (benches/spin moved to benches/spun): no suite in both, which was an error
    (exit 2, "The check could not run", as a bad file is) though both sides are good; now no verdict
    (exit 4), said before any image is built, the suites gone and new named in the comment."""
    from perfgate import cli
    from perfgate.commands import check

    repo = make_tiny_root(tmp_path / "repo", spin=30_000, alloc_probe=False)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-q", "-m", "base")
    toml = repo / "benches" / "spin" / "bench.toml"
    toml.write_text(toml.read_text().replace('name = "spin"', 'name = "spun"'))
    git(repo, "mv", "benches/spin", "benches/spun")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-q", "-am", "rename the suite")
    monkeypatch.setattr(check.engine, "ensure_engine", lambda: None)
    monkeypatch.setattr(check.images, "build_base", lambda *a, **k: pytest.fail("built an image for no suite"))
    md = tmp_path / "comment.md"
    code = cli.main(["check", "--root", str(repo), "--base", "HEAD~1", "--head", "HEAD", "--store",
                     f"sqlite:{tmp_path / 'history.db'}", "--markdown", str(md), "--json"])
    said = capsys.readouterr()
    reason = "nothing compared: no suite was measured on both sides (1 gone in HEAD, 1 new in HEAD)"
    report = json.loads(said.out)
    assert code == 4 and report["exit_code"] == 4 and report["nothing_judged"] == reason and report["rounds"] == 0
    assert said.err.splitlines()[-1] == f"perfgate check: no verdict: {reason}; a check that judged nothing is no pass"
    comment = md.read_text()
    assert comment.splitlines()[1] == ("### perfgate: ⚪ **No verdict: nothing compared: no suite was measured on both "
                                       "sides \\(1 gone in HEAD, 1 new in HEAD\\)** (neither a pass nor a regression; "
                                       "exit 4)")
    assert "suite spin is gone in HEAD" in comment and "suite spun is new in HEAD" in comment
    code = cli.main(["check", "--root", str(repo), "--base", "HEAD~1", "--head", "HEAD", "--store",
                     f"sqlite:{tmp_path / 'history.db'}"])
    assert code == 4 and capsys.readouterr().out.splitlines()[-1] == f"no verdict: {reason}"


@docker
def test_a_head_that_renamed_every_benchmark_or_reports_none_is_no_pass(repo, cli, base_image, tmp_path):  # noqa: F811
    """Every benchmark renamed: nothing compared, and check said "ok: nothing compared" with exit 0,
    where compare of the very runs it recorded said "nothing to compare" with exit 2; both say no
    verdict now (exit 4), as they do when every suite is renamed.  A head whose harness reports no
    benchmark at all is an error of that side (exit 2), with its comment."""
    toml = repo / "benches" / "spin" / "bench.toml"
    git(repo, "checkout", "-q", "HEAD~1", "--", str(toml))
    toml.write_text(toml.read_text().replace("'python3 spin.py 30000'\"", "'python3 spin.py 30000' -n renamed\""))
    git(repo, "-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-q", "-am", "rename the benchmark")
    md = tmp_path / "comment.md"
    proc = cli("check", "--root", str(repo), "--base", "HEAD~2", "--head", "HEAD", "--rounds", "3",
               "--no-probes", "--cpuset", "1", "--markdown", str(md), "--json")
    reason = "nothing compared: no benchmark was measured on both sides (1 gone in head, 1 new in head)"
    assert proc.returncode == 4, proc.stderr
    assert json.loads(proc.stdout)["nothing_judged"] == reason
    assert proc.stderr.splitlines()[-1] == \
        f"perfgate check: no verdict: {reason}; a check that judged nothing is no pass"
    assert "### perfgate: ⚪ **No verdict: nothing compared" in md.read_text() and "`renamed`" in md.read_text()
    # compare of the runs the check recorded (each side on its check/ branch) says the same
    proc = cli("compare", "--base-branch", f"check/{git(repo, 'rev-parse', 'HEAD~2')}", "--head-branch", "check/main")
    assert proc.returncode == 4 and "perfgate compare: no verdict: nothing to compare" in proc.stderr, proc.stderr
    (repo / "benches" / "spin" / "none.py").write_text(
        "import json, os\njson.dump({'results': []}, open(os.environ['PERFGATE_OUT'] + '/results.json', 'w'))\n")
    toml.write_text(toml.read_text().split("command = ")[0] + 'command = "python3 none.py"\n')
    git(repo, "add", "-A")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-q", "-m", "reports nothing")
    proc = cli("check", "--root", str(repo), "--base", "HEAD~3", "--head", "HEAD", "--rounds", "3",
               "--no-probes", "--cpuset", "1", "--markdown", str(md))
    # (it named /tmp/perfgate-out-…/results.json, a folder gone by then, and no side or suite)
    assert proc.returncode == 2 and error_of(proc) == ("head (HEAD) benches/spin/bench.toml:output: "
                                                       "$PERFGATE_OUT/results.json: no results found in this hyperfine "
                                                       "output"), proc.stderr
    assert "⛔ **The check could not run**" in md.read_text() and "in the **head** (`HEAD`)" in md.read_text()
    # every suite renamed: none in both, no verdict before anything is built (it was an error, exit 2,
    # "The check could not run")
    toml.write_text(toml.read_text().replace('name = "spin"', 'name = "spun"'))
    git(repo, "mv", "benches/spin", "benches/spun")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-q", "-am", "rename the suite")
    proc = cli("check", "--root", str(repo), "--base", "HEAD~4", "--head", "HEAD", "--markdown", str(md))
    assert proc.returncode == 4 and proc.stderr.splitlines()[-1] == (
        "perfgate check: no verdict: nothing compared: no suite was measured on both sides (1 gone in HEAD, 1 new in "
        "HEAD); a check that judged nothing is no pass"), proc.stderr
    assert "suite spin is gone in HEAD" in proc.stderr
    assert "⚪ **No verdict: nothing compared: no suite" in md.read_text()


def test_a_side_given_by_its_hash_is_named_once(tmp_path, monkeypatch, capsys):
    """`--base "$(git merge-base main HEAD)"`, the README's command, printed the base's 40 digits and
    then the same 12 again in brackets; a ref other than the hash is still followed by its commit."""
    from perfgate import cli
    from perfgate.commands.check import side_name

    sha = "dc47b6e2d4573ced9725735ed683050a7d5a974f"
    assert side_name(sha, sha) == side_name(sha[:7].upper(), sha) == "dc47b6e2d457"
    assert side_name("HEAD", sha) == "HEAD (dc47b6e2d457)" and side_name("dc47b6", sha) == "dc47b6 (dc47b6e2d457)"
    code, stdout, _, _ = _check_in_process(tmp_path, monkeypatch, capsys, _measured({"a": 3}, {"a": 3}))
    assert code == 0 and stdout.splitlines()[0].startswith("perfgate check: HEAD (") and " against HEAD~1 (" in stdout
    repo = tmp_path / "repo"
    base = git(repo, "rev-parse", "HEAD~1")
    assert cli.main(["check", "--root", str(repo), "--base", base, "--head", "HEAD", "--store",
                     f"sqlite:{tmp_path / 'history.db'}"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert f" against {base[:12]}, " in first and base not in first, first
