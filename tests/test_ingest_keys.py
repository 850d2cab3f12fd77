"""`perfgate ingest --idempotency-key` is held to the rule of the history files' names (the key
names the run's file in `sync --export`), and an export of a store that already holds a key
breaking it (written by an older perfgate) is refused whole, naming the run, before it writes
anything."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from perfgate.model import Metric, Run
from perfgate.model import Testbed as Bed
from perfgate.store.sqlite import SqliteStore

HYPERFINE = Path(__file__).parent / "fixtures" / "hyperfine" / "two-commands.json"
HOSTILE_KEYS = ["../x", ".", "..", "a/b", "k" * 5000, "a\x1b[31mb\nFAKE LINE", "", " ", "x" * 129, "caf\u00e9"]


def _ingest(cli, key: str, commit: str = "abc1234"):
    return cli("ingest", str(HYPERFINE), "--branch", "main", "--commit", commit, "--testbed", "tb",
               "--idempotency-key", key)


@pytest.mark.parametrize("key", HOSTILE_KEYS, ids=lambda k: repr(k[:12]))
def test_a_key_that_cannot_name_a_file_is_refused_and_nothing_is_recorded(cli, store_path, key):
    proc = _ingest(cli, key)
    assert proc.returncode == 2, proc.stderr
    assert "--idempotency-key" in proc.stderr and "Traceback" not in proc.stderr
    assert len(proc.stderr) < 400 and "\x1b" not in proc.stderr and "\nFAKE LINE" not in proc.stderr
    if store_path.exists():
        with SqliteStore(store_path) as s:
            assert s.runs() == []


def test_a_good_key_is_kept_exported_under_its_name_and_a_retry_is_a_no_op(cli, tmp_path):
    key = "ci-1234.5_attempt-2"
    assert _ingest(cli, key).returncode == 0
    again = _ingest(cli, key)
    assert again.returncode == 0 and f"already recorded (idempotency key {key})" in again.stderr
    cli("sync", "--export", str(tmp_path / "data"), check=True)
    assert [p.name for p in (tmp_path / "data").glob("runs/*/*.json")] == [f"{key}.json"]


def test_a_key_that_names_a_run_of_another_commit_is_refused(cli, store_path):
    # A retry of one job (its values may differ) is a no-op; a key copied to another job's run
    # dropped that run with exit 0 and "already recorded".
    assert _ingest(cli, "job-7").returncode == 0
    clash = _ingest(cli, "job-7", commit="def5678")
    said = " ".join(clash.stderr.split())
    assert clash.returncode == 2, clash.stderr
    assert "--idempotency-key" in said and "main@abc1234 on tb" in said and "main@def5678 on tb" in said, said
    with SqliteStore(store_path) as s:
        assert [r.commit for r in s.runs()] == ["abc1234"]


def test_an_empty_file_argument_is_refused_not_read_as_this_folder(cli, store_path, tmp_path, monkeypatch):
    # an unset CI variable ("$OUT") read the criterion results of the working directory
    monkeypatch.chdir(tmp_path)
    proc = cli("ingest", "", "--branch", "main", "--commit", "abc1234", "--testbed", "tb")
    assert proc.returncode == 2 and "empty path" in proc.stderr, proc.stderr
    assert not store_path.exists() or SqliteStore(store_path).runs() == []


def _run(commit: str, key: str) -> Run:
    return Run("default", "main", commit, Bed("tb"), [Metric("b", "latency", 1.0)], start_time=1.7e9,
               idempotency_key=key)


@pytest.mark.parametrize("key", ["../x", "k" * 5000, "a\x1b[31mb\nFAKE LINE"], ids=["dotdot", "long", "escape"])
def test_export_of_a_store_holding_a_bad_key_writes_nothing_and_names_the_run(cli, store_path, tmp_path, key):
    # What a perfgate before the check let in: the export failed part way, naming only the key,
    # on every later try.
    with SqliteStore(store_path, create=True) as s:
        s.add_runs([_run("c0001", "good-1"), _run("c0002", key), _run("c0003", "good-3")])
    proc = cli("sync", "--export", str(tmp_path / "data"))
    said = " ".join(proc.stderr.split())
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    assert "nothing was written" in said and "'c0002'" in said and "'main'" in said, said
    assert len(proc.stderr) < 800 and "\x1b" not in proc.stderr and "\nFAKE" not in proc.stderr
    assert not list(tmp_path.glob("data/**/*.json"))
    with SqliteStore(store_path) as s:
        assert len(s.runs()) == 3                                  # the store is as it was
    # once the run has a key that names a file (README: Reliability), the export goes through
    import sqlite3
    with sqlite3.connect(store_path) as db:
        db.execute("UPDATE run SET idempotency_key = 'rekeyed-c0002' WHERE idempotency_key = ?", (key,))
    cli("sync", "--export", str(tmp_path / "data"), check=True)
    assert len(list(tmp_path.glob("data/runs/*/*.json"))) == 3


def test_import_refuses_a_run_file_whose_key_is_dot(cli, tmp_path):
    # runs/<commit>/..json has the stem ".", which matched its own key "."; the store then held a
    # key no export could write.
    with SqliteStore(tmp_path / "src.db", create=True) as s:
        s.add_runs([_run("c0001", "good-1")])
    src = {"PERFGATE_STORE": f"sqlite:{tmp_path / 'src.db'}"}
    cli("sync", "--export", str(tmp_path / "data"), env=src, check=True)
    (good,) = (tmp_path / "data").glob("runs/*/*.json")
    doc = json.loads(good.read_text())
    doc["run"]["idempotency_key"] = "."
    good.unlink()
    (good.parent / "..json").write_text(json.dumps(doc))
    fresh = tmp_path / "fresh.db"
    proc = cli("sync", "--import", str(tmp_path / "data"), env={"PERFGATE_STORE": f"sqlite:{fresh}"})
    assert proc.returncode == 2 and "..json:run.idempotency_key" in proc.stderr and "cannot name a file" in proc.stderr
    if fresh.exists():
        with SqliteStore(fresh) as s:
            assert s.runs() == []


def test_a_run_given_its_time_ends_then_not_now(cli, store_path):
    """An import of past results ended "now": a run of 2023 lasted years, on Bencher too."""
    cli("ingest", str(HYPERFINE), "--branch", "main", "--commit", "abc1234", "--testbed", "tb",
        "--start-time", "1700000000", check=True)
    with SqliteStore(store_path) as s:
        [summary] = s.runs()
        run = s.get_run(summary.run_id)
    assert run.start_time == run.end_time == 1700000000
