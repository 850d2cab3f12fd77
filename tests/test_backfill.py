"""perfgate backfill: commit selection, shards, recording at commit dates, skipping what is
recorded, and resuming after kill -9 without duplicates.

The runs use ``--runner host`` on the planted history of ``tests/planted_history.py`` (a real
program measured on this machine, no Docker); the container runner shares every line of
backfill except how one suite is measured.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from perfgate import host_load
from perfgate.commands._commit_runs import run_key
from perfgate.commands.backfill import _record, portable_testbed, shard_testbed
from perfgate.commits import Commit, every, list_commits, parse_shard, shard
from perfgate.containers.runner import SuiteResult
from perfgate.errors import PerfgateError
from perfgate.model import Metric
from perfgate.model import Testbed as _Testbed
from perfgate.store.sqlite import SqliteStore
from planted_history import START, make_history
from test_containers_docker import base_image, make_tiny_root  # noqa: F401 - fixture re-used


@pytest.fixture
def repo(tmp_path: Path) -> tuple[Path, list[str]]:
    root = tmp_path / "project"
    root.mkdir()
    return root, make_history(root, [1000, 1000, 1000, 1100, 1100, 1100])


def _runs(store_path: Path) -> list[tuple[str, str, float]]:
    db = sqlite3.connect(store_path)
    try:
        return db.execute("SELECT r.commit_hash, t.name, r.start_time FROM run r JOIN testbed t ON t.id = r.testbed_id"
                          " ORDER BY r.start_time").fetchall()
    finally:
        db.close()


def _count(store_path: Path) -> int:
    try:
        return len(_runs(store_path)) if store_path.exists() else 0
    except sqlite3.OperationalError:  # the schema is being created
        return 0


def test_range_means_what_git_means(repo):
    root, shas = repo
    assert [c.sha for c in list_commits(root, f"{shas[1]}..main")] == shas[2:]
    assert [c.sha for c in list_commits(root, "main")] == shas
    assert [c.time for c in list_commits(root, "main")] == [START + 3600 * i for i in range(6)]
    with pytest.raises(PerfgateError, match="not a commit"):
        list_commits(root, "nope..main")
    with pytest.raises(PerfgateError, match="symmetric"):
        list_commits(root, "main...main")


def test_every_keeps_the_newest_and_shards_cover_each_commit_once():
    commits = [Commit(f"{i:040x}", float(i), "") for i in range(10)]
    assert [int(c.sha, 16) for c in every(commits, 3)] == [0, 3, 6, 9]
    assert [int(c.sha, 16) for c in every(commits, 4)] == [0, 4, 8, 9]
    parts = [shard(commits, i, 3) for i in (1, 2, 3)]
    assert [int(c.sha, 16) for c in parts[0]] == [0, 3, 6, 9]
    assert sorted(int(c.sha, 16) for p in parts for c in p) == list(range(10))
    assert parse_shard("2/4") == (2, 4)
    for bad in ("0/2", "3/2", "x", "1/"):
        with pytest.raises(PerfgateError, match="--shard"):
            parse_shard(bad)


def test_backfill_records_at_commit_dates_and_skips_what_is_recorded(repo, cli, store_path):
    root, shas = repo
    proc = cli("backfill", "main", "--root", str(root), "--runner", "host", "--every", "2", "--json", check=True)
    first = json.loads(proc.stdout)
    assert first["branch"] == "main" and first["runs_recorded"] == 4 and first["runs_skipped"] == 0
    runs = _runs(store_path)
    # every 2nd from the oldest (0, 2, 4) plus the newest (5), each at its commit's date
    assert [r[0] for r in runs] == [shas[0], shas[2], shas[4], shas[5]]
    assert [r[2] for r in runs] == [START + 3600 * i for i in (0, 2, 4, 5)]
    # A full pass afterwards measures only the commits not yet recorded.
    second = json.loads(cli("backfill", "main", "--root", str(root), "--runner", "host", "--json", check=True).stdout)
    assert second["runs_skipped"] == first["runs_recorded"]
    assert second["runs_recorded"] == 6 - first["runs_recorded"]
    runs = _runs(store_path)
    assert sorted(r[0] for r in runs) == sorted(shas)
    # The recorded values follow the planted history.
    (series,) = json.loads(cli("history", "toy/loop", "--measure", "instructions", "--json", check=True).stdout)
    assert [p["value"] for p in series["points"]] == [1000, 1000, 1000, 1100, 1100, 1100]
    # Each run keeps the machine's load while it measured (Linux: /proc/stat), for detect's hold.
    db = sqlite3.connect(store_path)
    loads = [json.loads(c)["host_load"] for (c,) in db.execute("SELECT context FROM run")]
    db.close()
    assert len(loads) == 6 and all(0 <= x["others"] <= 1 and x["cpus"] == os.cpu_count() for x in loads)
    assert all(x["contended"] == host_load.contended(x["others"], os.cpu_count()) for x in loads)


def test_every_plus_newest_selection_in_backfill(repo, cli, store_path):
    root, shas = repo
    out = json.loads(cli("backfill", f"{shas[0]}..main", "--root", str(root), "--runner", "host", "--every", "2",
                         "--json", check=True).stdout)
    # shas[1..5] thinned: 1, 3, 5 (5 is the newest anyway)
    assert [j["commit"] for j in out["jobs"]] == [shas[1], shas[3], shas[5]]


def test_shards_record_on_their_own_testbeds_and_together_cover_the_range(repo, cli, store_path):
    root, shas = repo
    for i in (1, 2):
        cli("backfill", "main", "--root", str(root), "--runner", "host", "--shard", f"{i}/2", check=True)
    runs = _runs(store_path)
    assert sorted(r[0] for r in runs) == sorted(shas)
    by_testbed = Counter(r[1] for r in runs)
    assert len(by_testbed) == 2 and all(name.endswith(("~shard-1-of-2", "~shard-2-of-2")) for name in by_testbed)
    assert {r[0] for r in runs if r[1].endswith("shard-1-of-2")} == {shas[0], shas[2], shas[4]}


def test_shards_measured_on_separate_runners_merge_into_one_history(repo, cli, tmp_path):
    """The backfill workflow's path: each runner has a store of its own and exports it as history
    files; the folders are merged (as download-artifact's merge-multiple does) and imported once.
    Nothing clashes, every commit arrives on its shard's testbed, and importing again adds nothing."""
    root, shas = repo
    merged = tmp_path / "merged"
    for i in (1, 2):
        runner_store = {"PERFGATE_STORE": f"sqlite:{tmp_path / f'shard{i}.db'}"}
        cli("backfill", "main", "--root", str(root), "--runner", "host", "--shard", f"{i}/2", check=True,
            env=runner_store)
        cli("sync", "--export", str(tmp_path / f"shard{i}"), check=True, env=runner_store)
        for src in (tmp_path / f"shard{i}").rglob("*.json"):
            dest = merged / src.relative_to(tmp_path / f"shard{i}")
            assert not dest.exists(), f"{dest} written by both shards"
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_bytes(src.read_bytes())
    target = {"PERFGATE_STORE": f"sqlite:{tmp_path / 'history.db'}"}
    first = json.loads(cli("sync", "--import", str(merged), "--json", check=True, env=target).stdout)
    again = json.loads(cli("sync", "--import", str(merged), "--json", check=True, env=target).stdout)
    runs = _runs(tmp_path / "history.db")
    assert sorted(r[0] for r in runs) == sorted(shas)
    assert {r[0] for r in runs if r[1].endswith("~shard-2-of-2")} == {shas[1], shas[3], shas[5]}
    assert first["runs_added"] == len(shas) and again["runs_added"] == 0


def test_a_shard_with_no_commit_of_a_short_range_succeeds_and_leaves_a_store_to_export(repo, cli, store_path,
                                                                                     tmp_path):
    """A matrix of 7 runners over 6 commits: the 7th has nothing to do.  That is not an error (it
    would fail the workflow), and its empty store still exports, so the merge job gets every shard."""
    root, _ = repo
    proc = cli("backfill", "main", "--root", str(root), "--runner", "host", "--shard", "7/7")
    assert proc.returncode == 0, proc.stderr
    assert "shard 7/7 has no commit of the 6 in main" in proc.stderr
    assert _runs(store_path) == []
    cli("sync", "--export", str(tmp_path / "out"), check=True)


def test_sharded_instruction_counts_join_one_series_on_the_image_testbed(tmp_path):
    """Wall time stays on the shard's testbed; instruction counts (the same pinned image gives
    the same count on any machine) are also recorded on the image's testbed, one series for all shards."""
    fp = {"image_digest": "sha256:" + "ab" * 32, "image": "cpp", "cpu_model": "X"}
    store = SqliteStore(tmp_path / "h.db")

    class Args:
        project = "default"
        profile = "quick"

    from perfgate.containers.manifest import Suite

    suite = Suite("toy", tmp_path, "cpp", "bmf", "-", {"quick": "true"})
    for i, value in ((1, 100.0), (2, 110.0)):
        tb = shard_testbed(_Testbed(f"docker-cpp-host{i}", fp), i, 2)
        result = SuiteResult([Metric("b", "instructions", value), Metric("b", "latency", value * 7)],
                             {"adapter": "bmf", "suite": "toy"}, 10.0, 12.0)
        commit = Commit(f"{i:040x}", START + i, "")
        key = run_key("default", "main", commit.sha, "toy", "", "quick", tb.name)
        assert _record(store, Args, "main", commit, suite, "", tb, key, result, (i, 2)) == 1
        assert _record(store, Args, "main", commit, suite, "", tb, key, result, (i, 2)) == 0  # no duplicate
    portable = portable_testbed(_Testbed("x", fp))
    assert portable is not None and portable.name == "image-" + "ab" * 6
    keys = store.series_keys()
    shared = [k for k in keys if k.testbed == portable.name]
    assert [k.measure for k in shared] == ["instructions"]          # only the machine-independent measure
    assert [p.value for p in store.series(shared[0])] == [100.0, 110.0]
    assert {k.testbed for k in keys if k.measure == "latency"} == {"docker-cpp-host1~shard-1-of-2",
                                                                  "docker-cpp-host2~shard-2-of-2"}
    assert portable_testbed(_Testbed("host", {"cpu_model": "X"})) is None


def test_backfill_resumes_after_kill_9_without_duplicates(repo, store_path):
    """A real backfill subprocess is killed with SIGKILL in the middle of the range, then the same
    command is run again: every commit ends up recorded exactly once."""
    root, shas = repo
    (tmp_path := store_path.parent / "tmp").mkdir()   # what the killed run leaves is left here
    env = {**os.environ, "PERFGATE_STORE": f"sqlite:{store_path}", "TOY_SLEEP": "0.4", "TMPDIR": str(tmp_path)}
    cmd = [sys.executable, "-m", "perfgate.cli", "backfill", "main", "--root", str(root), "--runner", "host"]
    proc = _kill_midway(cmd, env, store_path, signal.SIGKILL)
    assert proc.returncode == -signal.SIGKILL
    before = _runs(store_path)
    assert 2 <= len(before) < 6, "the kill must land in the middle of the range"
    again = subprocess.run([*cmd, "--json"], env=env, capture_output=True, text=True, timeout=120)
    assert again.returncode == 0, again.stderr
    summary = json.loads(again.stdout)
    assert summary["runs_skipped"] == len(before) and summary["runs_recorded"] == 6 - len(before)
    after = _runs(store_path)
    assert Counter(r[0] for r in after) == Counter(shas)     # each commit once


def _kill_midway(cmd: list[str], env: dict[str, str], store_path: Path, sig: int) -> subprocess.Popen:
    """Start ``cmd`` in its own process group; once it has recorded two runs, signal the group."""
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    deadline = time.monotonic() + 60
    try:
        while time.monotonic() < deadline:
            if _count(store_path) >= 2:
                break
            time.sleep(0.05)
        else:
            pytest.fail("the backfill recorded nothing within 60 s")
        os.killpg(proc.pid, sig)
    finally:
        proc.wait(timeout=30)
    return proc


def test_a_cancelled_job_sigterm_unwinds_like_ctrl_c(repo, store_path):
    """CI cancels a job with SIGTERM to its process group: the backfill stops with 143 and a line
    saying so, removes its temporary folders, and the runs it recorded are whole."""
    root, shas = repo
    (tmp := store_path.parent / "tmp").mkdir()
    env = {**os.environ, "PERFGATE_STORE": f"sqlite:{store_path}", "TOY_SLEEP": "0.4", "TMPDIR": str(tmp)}
    cmd = [sys.executable, "-m", "perfgate.cli", "backfill", "main", "--root", str(root), "--runner", "host"]
    proc = _kill_midway(cmd, env, store_path, signal.SIGTERM)
    assert proc.returncode == 143, proc.stderr.read()
    assert "perfgate: terminated; what was finished before is kept, nothing partial was written" in proc.stderr.read()
    assert list(tmp.iterdir()) == []
    before = _runs(store_path)
    assert 2 <= len(before) < 6 and len({r[0] for r in before}) == len(before)
    again = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
    assert again.returncode == 0, again.stderr
    assert Counter(r[0] for r in _runs(store_path)) == Counter(shas)


def test_first_parent_follows_the_merges_of_main(repo):
    from planted_history import git

    root, shas = repo
    git(root, "checkout", "-q", "-b", "feature", shas[-1])
    for i in range(2):
        (root / f"feature{i}.txt").write_text("x\n")
        git(root, "add", "-A")
        git(root, "commit", "-q", "-m", f"feature {i}", when=START + 3600 * (10 + i))
    git(root, "checkout", "-q", "main")
    git(root, "merge", "-q", "--no-ff", "-m", "merge feature", "feature", when=START + 3600 * 20)
    merge = git(root, "rev-parse", "HEAD")
    everything = [c.sha for c in list_commits(root, f"{shas[-1]}..main")]
    assert len(everything) == 3 and everything[-1] == merge
    assert [c.sha for c in list_commits(root, f"{shas[-1]}..main", first_parent=True)] == [merge]


@pytest.mark.parametrize("args, message", [
    (["nope..main"], "'nope' is not a commit"),
    (["main", "--every", "0"], "--every must be at least 1"),
    (["main", "--shard", "3/2"], "--shard '3/2'"),
])
def test_bad_input_exits_2_and_writes_nothing(repo, cli, store_path, args, message):
    root, _ = repo
    proc = cli("backfill", *args, "--root", str(root), "--runner", "host")
    assert proc.returncode == 2 and message in proc.stderr
    assert not store_path.exists()


def test_a_commit_measured_by_perfgate_run_is_not_measured_again(repo, cli, store_path):
    from perfgate.commit_runner import HostRunner
    from perfgate.model import Run

    root, shas = repo
    testbed = HostRunner().testbed(None)
    with SqliteStore(store_path) as store:     # what `perfgate run` records: its own key, suite in the context
        store.add_run(Run("default", "main", shas[2], testbed, [Metric("toy/loop", "instructions", 1000.0)],
                          start_time=time.time(), context={"suite": "toy", "variant": "", "profile": "quick"}))
        store.add_run(Run("default", "main", shas[3], testbed, [Metric("toy/loop", "instructions", 1100.0)],
                          start_time=time.time(), context={"suite": "toy", "variant": "", "profile": "full"}))
    out = json.loads(cli("backfill", "main", "--root", str(root), "--runner", "host", "--json", check=True).stdout)
    assert [j["commit"] for j in out["jobs"] if j["skipped"]] == [shas[2]]   # the full profile does not count
    assert out["runs_recorded"] == 5


def test_neighbouring_commits_are_measured_far_apart_so_drift_is_no_step():
    # Oldest first, a load rising during a demo's backfill drew a -11% step at a changelog commit.
    from perfgate.commands.backfill import spread_order

    for n in (1, 2, 6, 17, 64):
        order = spread_order(list(range(n)))
        assert sorted(order) == list(range(n))
        when = {c: t for t, c in enumerate(order)}
        if n >= 6:   # the first and second halves of the range are measured interleaved
            assert sum(when[i] < n // 2 for i in range(n // 2)) <= n // 2 - n // 8
            assert max(abs(when[i + 1] - when[i]) for i in range(n - 1)) >= n // 2 - 1


def test_the_jobs_are_reported_in_commit_order_whatever_order_they_ran_in(repo, cli, store_path):
    root, shas = repo
    out = json.loads(cli("backfill", "main", "--root", str(root), "--runner", "host", "--json", check=True).stdout)
    assert [j["commit"] for j in out["jobs"]] == shas
    db = sqlite3.connect(store_path)
    measured = [c for (c,) in db.execute("SELECT commit_hash FROM run ORDER BY id")]
    db.close()
    assert measured != shas and sorted(measured) == sorted(shas)      # not oldest first


def test_two_suites_that_name_a_benchmark_alike_are_refused_not_merged(repo, cli, store_path):
    # An adopter copied a suite (its hyperfine command and so its benchmark names unchanged): the
    # two suites' runs became one series, and the step between them read as a change.
    root, shas = repo
    twin = root / "benches" / "toy2"
    twin.mkdir()
    for f in (root / "benches" / "toy").iterdir():
        text = f.read_text()
        (twin / f.name).write_text(text.replace('name = "toy"', 'name = "toy2"') if f.name == "bench.toml" else text)
    subprocess.run(["git", "-C", str(root), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(root), "commit", "-qm", "a second suite"], check=True)
    proc = cli("backfill", "HEAD~1..HEAD", "--root", str(root), "--runner", "host")
    assert proc.returncode == 2, proc.stderr
    assert "toy2/bench.toml: benchmark 'toy/loop'" in proc.stderr and "already a series of suite 'toy'" in proc.stderr
    assert "this run was not recorded" in proc.stderr and "Traceback" not in proc.stderr
    # the first suite's run of that commit stays; the twin added nothing to its series
    (series,) = json.loads(cli("history", "toy/loop", "--measure", "instructions", "--json", check=True).stdout)
    assert len(series["points"]) == 1


def test_a_suite_named_at_none_of_the_commits_is_an_error(repo, cli, store_path):
    root, _ = repo
    proc = cli("backfill", "main", "--root", str(root), "--runner", "host", "--suite", "nosuch")
    assert proc.returncode == 2 and "--suite 'nosuch': at none of the 6 commit(s); suites found: toy" in proc.stderr
    assert not store_path.exists() or _count(store_path) == 0


def _commit_all(repo: Path, message: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.org"}
    subprocess.run(["git", "-C", str(repo), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(repo), "commit", "-qm", message], check=True, env=env)
    return subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], check=True, capture_output=True,
                          text=True).stdout.strip()


def test_a_project_in_a_subfolder_is_backfilled_from_that_folder(tmp_path, cli, store_path):
    """--root a monorepo's project folder: backfill looked for benches/ at the top of each
    commit's tree, recorded nothing and exited 0, or measured the top level's suites instead."""
    mono = tmp_path / "mono"
    mono.mkdir()
    shas = make_history(mono, [1000, 1000, 1100, 1100], project="proj")
    other = mono / "benches" / "other"      # another project's suite, at the top level
    other.mkdir(parents=True)
    for f in (mono / "proj" / "benches" / "toy").iterdir():
        (other / f.name).write_text(f.read_text().replace('"toy"', '"other"').replace("toy/loop", "other/loop"))
    shas.append(_commit_all(mono, "a top-level project"))
    out = json.loads(cli("backfill", "main", "--root", str(mono / "proj"), "--runner", "host", "--json",
                         check=True).stdout)
    assert [(j["commit"], j["suite"]) for j in out["jobs"]] == [(sha, "toy") for sha in shas]
    assert out["runs_recorded"] == 5
    (series,) = json.loads(cli("history", "--measure", "instructions", "--json", check=True).stdout)
    assert series["benchmark"] == "toy/loop"
    assert [p["value"] for p in series["points"]] == [1000, 1000, 1100, 1100, 1100]


def test_commits_before_the_project_folder_existed_have_no_suites_as_before_benches_did(repo, cli, store_path):
    # the project moved into a subfolder at its latest commit: the commits before have no proj/
    root, shas = repo
    (root / "proj").mkdir()
    subprocess.run(["git", "-C", str(root), "mv", "benches", "proj/benches"], check=True)
    moved = _commit_all(root, "move the project into proj/")
    out = json.loads(cli("backfill", "main", "--root", str(root / "proj"), "--runner", "host", "--json",
                         check=True).stdout)
    assert [j["commit"] for j in out["jobs"]] == [moved] and out["runs_recorded"] == 1
    proc = cli("backfill", f"{shas[2]}..{shas[5]}", "--root", str(root / "proj"), "--runner", "host",
               "--suite", "toy")
    assert proc.returncode == 2, proc.stderr
    assert "--suite 'toy': at none of the 3 commit(s); suites found: none (no proj/benches/)" in proc.stderr


@pytest.mark.parametrize("verb", [["backfill", "main"], ["bisect", "0123abcd"]])
def test_a_root_outside_any_repository_is_a_one_line_error(tmp_path, cli, store_path, verb):
    plain = tmp_path / "plain"
    plain.mkdir()
    for where, reason in ((plain, "not inside a git repository"), (tmp_path / "gone", "no such folder")):
        proc = cli(*verb, "--root", str(where), "--runner", "host")
        assert proc.returncode == 2 and f"error: --root {where}: {reason}" in proc.stderr, proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1 and not store_path.exists()


@pytest.mark.docker
def test_a_subfolder_projects_suites_are_built_on_its_own_docker_images(tmp_path, cli, store_path, base_image):  # noqa: F811
    """The container runner read the image definitions of the repository's top level: a project
    folder's own toolchain image was 'missing'."""
    mono = tmp_path / "mono"
    project = make_tiny_root(mono / "proj", spin=30_000, alloc_probe=False)
    marked = project / "docker" / "images" / "marked"      # a toolchain image only this project defines
    marked.mkdir(parents=True)
    (marked / "Dockerfile").write_text("ARG BASE\nFROM ${BASE}\nENV PROJECT_IMAGE=marked\n")
    toml = project / "benches" / "spin" / "bench.toml"
    toml.write_text(toml.read_text().replace('image = "base"', 'image = "marked"'))
    subprocess.run(["git", "-C", str(mono), "init", "-q", "-b", "main"], check=True)
    _commit_all(mono, "a project in proj/")
    out = json.loads(cli("backfill", "main", "--root", str(project), "--no-probes", "--cpuset", "1", "--json",
                         check=True).stdout)
    assert [(j["suite"], j["skipped"]) for j in out["jobs"]] == [("spin", False)] and out["runs_recorded"] == 1
    with SqliteStore(store_path) as store:
        (summary,) = store.runs()
        assert store.get_run(summary.run_id).testbed.fingerprint["image"] == "marked"


def test_a_commit_whose_suite_fails_is_reported_and_the_others_are_measured(tmp_path, cli, store_path):
    # A commit that breaks the build or the harness stopped the backfill for good: the commits
    # measured after it in the spread order were never reached, and a rerun stopped there again.
    root = tmp_path / "project"
    root.mkdir()
    shas = make_history(root, [1000, 1000, "broken", 1100, 1100])
    proc = cli("backfill", "main", "--root", str(root), "--runner", "host", "--json")
    assert proc.returncode == 2, proc.stderr
    said = " ".join(proc.stderr.split())
    assert f"{shas[2][:12]} 'commit 2 (cost broken)' suite toy:" in said and "not recorded, the others go on" in said
    assert "1 run(s) failed and were not recorded" in said
    summary = json.loads(proc.stdout)
    assert summary["runs_recorded"] == 4 and [f["commit"] for f in summary["failed"]] == [shas[2]]
    assert sorted(r[0] for r in _runs(store_path)) == sorted(shas[:2] + shas[3:])
    again = json.loads(cli("backfill", "main", "--root", str(root), "--runner", "host", "--json").stdout)
    assert again["runs_recorded"] == 0 and again["runs_skipped"] == 4 and again["runs_failed"] == 1
