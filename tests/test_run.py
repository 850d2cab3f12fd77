"""``perfgate run`` end to end: build, run in the container, record, see it in ``perfgate history``."""

from __future__ import annotations

import json

import pytest

from test_containers_docker import base_image, make_tiny_root  # noqa: F401 - fixture re-used

pytestmark = pytest.mark.docker


def test_run_records_runs_visible_in_history_with_the_testbed(tmp_path, cli, base_image):  # noqa: F811
    root = make_tiny_root(tmp_path / "repo")
    proc = cli("run", "--root", str(root), "--branch", "main", "--commit", "c0ffee", "--repeat", "2",
               "--cpuset", "1", "--json")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["runs"] == 2
    rows = {(r["benchmark"], r["measure"]): r for r in report["summary"]}
    assert rows[("python3 spin.py 200000", "instructions")]["run_cv"] < 0.001
    assert rows[("python3 spin.py 200000", "latency")]["sample_cv"] is not None
    assert rows[("alloc 64 MiB", "peak-rss")]["value"] >= 64 * 1024 * 1024

    history = json.loads(cli("history", "--json", check=True).stdout)
    series = {(s["benchmark"], s["measure"]): s for s in history}
    assert set(series) == {("python3 spin.py 200000", "latency"), ("python3 spin.py 200000", "instructions"),
                           ("python3 spin.py 200000", "peak-rss"), ("alloc 64 MiB", "instructions"),
                           ("alloc 64 MiB", "peak-rss")}
    latency = series[("python3 spin.py 200000", "latency")]
    assert len(latency["points"]) == 2 and all(p["commit"] == "c0ffee" for p in latency["points"])
    assert len(latency["points"][0]["samples"]) == 5
    fp = latency["testbed_fingerprint"]
    assert latency["testbed"].startswith("docker-base-")
    assert fp["image_digest"] == f"sha256:{base_image.key}" and fp["cpuset"] == "1"
    assert fp["harness"]["hyperfine"].startswith("1.19")
    # The human table shows the testbed fingerprint too.
    table = cli("history", check=True).stdout
    assert "image_digest=sha256:" in table and latency["testbed"] in table


def test_run_with_an_unknown_variant_exits_2_before_building(tmp_path, cli):
    root = make_tiny_root(tmp_path / "repo")
    proc = cli("run", "--root", str(root), "--branch", "main", "--commit", "c0ffee", "--variant", "nope")
    assert proc.returncode == 2
    assert "bench.toml:variants: no variant 'nope'" in proc.stderr


def test_uncommitted_changes_are_measured_said_and_marked(tmp_path, cli, base_image):  # noqa: F811
    # `run` measures the working tree and records HEAD: edits not committed passed for HEAD's
    # performance, with no word (check warned; run did not).
    import subprocess

    root = make_tiny_root(tmp_path / "repo")
    git = ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@example.org"]
    subprocess.run([*git, "init", "-q", "-b", "main"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "first"], check=True)
    (root / "benches" / "spin" / "spin.py").write_text(
        (root / "benches" / "spin" / "spin.py").read_text() + "\n# edited, not committed\n")
    proc = cli("run", "--root", str(root), "--cpuset", "1", "--no-probes", "--json", cwd=root)
    assert proc.returncode == 0, proc.stderr
    said = " ".join(proc.stderr.split())
    assert "uncommitted changes: they are measured and recorded as commit" in said
    from perfgate.store.sqlite import SqliteStore
    with SqliteStore(tmp_path / "history.db") as store:
        [summary] = store.runs()
        assert store.get_run(summary.run_id).context["uncommitted_changes"] is True



def test_a_suite_git_does_not_track_is_found(tmp_path):
    # An adopter's suite folder was ignored by a .gitignore line meant for a binary ("wc"): run
    # measured it and recorded it as HEAD, which has no such suite, without a word.
    import subprocess

    from perfgate.gitinfo import untracked

    root = make_tiny_root(tmp_path / "repo")
    for name in ("wc", "extra"):
        (root / "benches" / name).mkdir()
        (root / "benches" / name / "bench.toml").write_text("")
    (root / ".gitignore").write_text("wc\n")
    git = ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@example.org"]
    subprocess.run([*git, "init", "-q", "-b", "main"], check=True)
    subprocess.run([*git, "add", "benches/spin", ".gitignore"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "first"], check=True)
    manifests = [f"benches/{n}/bench.toml" for n in ("spin", "wc", "extra")]
    assert untracked(str(root), manifests) == ["benches/wc/bench.toml", "benches/extra/bench.toml"]
    assert untracked(str(root / "benches"), ["spin/bench.toml", "wc/bench.toml"]) == ["wc/bench.toml"]
    assert untracked(str(tmp_path), ["x/bench.toml"]) == []       # not a checkout: nothing to say


def test_a_commit_other_than_the_working_trees_is_refused(tmp_path, cli):
    # `run` builds and measures the working tree: `--commit HEAD~1` recorded HEAD's figures as
    # HEAD~1's, and a later backfill skipped that commit as already recorded
    import subprocess

    root = make_tiny_root(tmp_path / "repo")
    git = ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@example.org"]
    subprocess.run([*git, "init", "-q", "-b", "main"], check=True)
    for message in ("first", "second"):
        (root / "benches" / "spin" / "spin.py").write_text(
            (root / "benches" / "spin" / "spin.py").read_text() + f"\n# {message}\n")
        subprocess.run([*git, "add", "-A"], check=True)
        subprocess.run([*git, "commit", "-q", "-m", message], check=True)
    proc = cli("run", "--root", str(root), "--commit", "HEAD~1", "--no-probes", cwd=root)
    said = " ".join(proc.stderr.split())
    assert proc.returncode == 2 and "but the working tree measured is at" in said, said
    assert not (tmp_path / "history.db").exists()
