"""An asv results file names the commit it measured and that commit's date: `perfgate ingest`
records it there (a results folder holds many commits), not at the checkout's HEAD or $GITHUB_SHA,
where a folder's commits collapsed into one and most were skipped as duplicates."""

from __future__ import annotations

import json
from pathlib import Path

from perfgate.store.sqlite import SqliteStore

ASV = Path(__file__).parent / "fixtures" / "asv" / "results" / "fixture-machine" / "49e99810-virtualenv-py3.11.json"
CI_SHA = "f" * 40  # what a CI job's checkout would give


def _asv_result(tmp_path: Path, commit: str, date_ms: int, slower: float = 1.0) -> Path:
    doc = json.loads(ASV.read_text())
    doc["commit_hash"], doc["date"] = commit, date_ms
    row = doc["results"]["bench_strings.TimeJoin.time_join"]
    row[0] = [v * slower for v in row[0]]  # a different result, so the run is not a duplicate by content
    path = tmp_path / f"{commit[:8]}-virtualenv-py3.11.json"
    path.write_text(json.dumps(doc))
    return path


def _runs(store_path: Path):
    with SqliteStore(store_path) as s:
        return sorted(s.runs(), key=lambda r: r.start_time)


def test_each_file_is_recorded_at_its_own_commit_and_date_in_commit_order(cli, store_path, tmp_path):
    older = _asv_result(tmp_path, "a" * 40, 1_700_000_000_000)
    newer = _asv_result(tmp_path, "b" * 40, 1_700_086_400_000, slower=1.5)
    for path in (newer, older):  # a glob's order is the hashes', not the commits'
        proc = cli("ingest", str(path), "--branch", "main", "--testbed", "tb", env={"GITHUB_SHA": CI_SHA})
        assert proc.returncode == 0, proc.stderr
    runs = _runs(store_path)
    assert [(r.commit, r.start_time) for r in runs] == [("a" * 40, 1_700_000_000.0), ("b" * 40, 1_700_086_400.0)]


def test_files_of_two_commits_in_one_run_are_refused(cli, store_path, tmp_path):
    first = _asv_result(tmp_path, "a" * 40, 1_700_000_000_000)
    second = _asv_result(tmp_path, "b" * 40, 1_700_000_000_000)
    proc = cli("ingest", str(first), str(second), "--branch", "main", "--testbed", "tb", env={"GITHUB_SHA": CI_SHA})
    assert proc.returncode == 2 and "2 different commits" in proc.stderr, proc.stderr
    assert not store_path.exists() or _runs(store_path) == []


def test_a_given_commit_wins_and_the_file_s_own_is_named_in_a_warning(cli, store_path, tmp_path):
    path = _asv_result(tmp_path, "a" * 40, 1_700_000_000_000)
    proc = cli("ingest", str(path), "--branch", "main", "--testbed", "tb", "--commit", "c" * 40)
    assert proc.returncode == 0, proc.stderr
    assert "measured commit aaaaaaaaaaaa, recorded at --commit cccccccccccc" in proc.stderr
    assert [r.commit for r in _runs(store_path)] == ["c" * 40]


def _on_machine(tmp_path: Path, commit: str, machine: str, slower: float = 1.0) -> Path:
    path = _asv_result(tmp_path, commit, 1_700_000_000_000, slower)
    doc = json.loads(path.read_text())
    doc["params"] = {**doc.get("params", {}), "machine": machine, "cpu": f"{machine} CPU", "num_cpu": "8"}
    out = tmp_path / machine / path.name
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(doc))
    return out


def test_each_file_is_recorded_on_the_machine_it_names(cli, store_path, tmp_path):
    """A results folder of two machines, ingested without --testbed, went onto this machine's
    fingerprint: one series of both machines, each machine's level a false change."""
    for machine, slower in (("fast-box", 1.0), ("slow-box", 2.0)):
        cli("ingest", str(_on_machine(tmp_path, "a" * 40, machine, slower)), "--branch", "main", check=True)
    with SqliteStore(store_path) as s:
        assert sorted(r.testbed for r in s.runs()) == ["fast-box", "slow-box"]
        assert s.testbed_fingerprint("slow-box") == {"asv_machine": "slow-box", "cpu": "slow-box CPU", "num_cpu": "8"}
    both = cli("ingest", str(_on_machine(tmp_path, "b" * 40, "fast-box")),
               str(_on_machine(tmp_path, "b" * 40, "slow-box", 3.0)), "--branch", "main")
    assert both.returncode == 2 and "measured on 2 machines" in both.stderr and "nothing was recorded" in both.stderr
    chosen = cli("ingest", str(_on_machine(tmp_path, "c" * 40, "slow-box", 4.0)), "--branch", "main", "--testbed", "ci")
    assert chosen.returncode == 0, chosen.stderr
    with SqliteStore(store_path) as s:
        assert sorted(r.testbed for r in s.runs()) == ["ci", "fast-box", "slow-box"]
