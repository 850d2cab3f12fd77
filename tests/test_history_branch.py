"""scripts/history-branch: the data branch starts empty, two writers pushing at once both land
(their files are distinct, the second merges and retries), and a token never reaches git's config."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "history-branch"


def branch(tmp_path, *args, token=""):
    env = {**os.environ, "PERFGATE_DATA_REMOTE": str(tmp_path / "origin.git"), "GH_TOKEN": token,
           "GIT_CONFIG_GLOBAL": os.devnull}
    return subprocess.run([str(SCRIPT), *args], cwd=tmp_path, env=env, capture_output=True, text=True, check=True).stdout


def add(folder: Path, rel: str, text: str = "{}\n") -> None:
    (folder / rel).parent.mkdir(parents=True, exist_ok=True)
    (folder / rel).write_text(text)


def test_concurrent_writers_both_land(tmp_path):
    subprocess.run(["git", "init", "-q", "--bare", str(tmp_path / "origin.git")], check=True)
    assert "does not exist yet" in branch(tmp_path, "fetch", "a")
    branch(tmp_path, "fetch", "b")                               # both start from the same (empty) state
    add(tmp_path / "a", "runs/c1/k1.json")
    add(tmp_path / "b", "runs/c2/k2.json")
    assert "pushed" in branch(tmp_path, "push", "a", "run 1")
    second = branch(tmp_path, "push", "b", "run 2")
    assert "push rejected" in second and "pushed" in second
    assert "nothing new" in branch(tmp_path, "push", "b", "again")
    out = branch(tmp_path, "fetch", "c", token="s3cr3t-token")
    assert "2 run file(s)" in out
    assert sorted(p.relative_to(tmp_path / "c").as_posix() for p in (tmp_path / "c").rglob("*.json")) == \
        ["runs/c1/k1.json", "runs/c2/k2.json"]
    config = (tmp_path / "c" / ".git" / "config").read_text()
    assert "s3cr3t" not in config and "extraheader" not in config and "s3cr3t" not in out


def test_one_run_recorded_by_two_jobs_at_once_lands_once(tmp_path):
    # A deterministic measure (instruction counts) of one commit recorded by two jobs at once (a
    # re-run, push and schedule): one content key, so one file name, but each job's own start
    # time in it.  The second push's merge was an add/add conflict: the push failed and every
    # other file of that job (its alerts, updates, acknowledgements) was lost with it.
    subprocess.run(["git", "init", "-q", "--bare", str(tmp_path / "origin.git")], check=True)
    branch(tmp_path, "fetch", "a")
    branch(tmp_path, "fetch", "b")
    add(tmp_path / "a", "runs/c1/k1.json", '{"start_time": 1}\n')
    add(tmp_path / "b", "runs/c1/k1.json", '{"start_time": 2}\n')
    add(tmp_path / "b", "alerts/x.json")
    branch(tmp_path, "push", "a", "job 1")
    assert "pushed" in branch(tmp_path, "push", "b", "job 2")
    branch(tmp_path, "fetch", "c")
    assert (tmp_path / "c" / "runs/c1/k1.json").read_text() == '{"start_time": 1}\n'   # written once, never changed
    assert (tmp_path / "c" / "alerts/x.json").exists()
