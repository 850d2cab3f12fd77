"""``perfgate sync``: the history as append-only JSON files (a git data branch) survives
losing the SQLite file; two writers' files merge; bad files are refused before anything is written."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from test_alerts import record, series

FIXTURES = Path(__file__).parent / "fixtures"


def _files(root):
    return sorted(str(p.relative_to(root)) for p in root.rglob("*.json"))


def test_a_lost_store_is_rebuilt_and_does_not_alert_again(cli, store_path, tmp_path):
    record(store_path, series(80, 1, step_at=50))
    assert cli("detect").returncode == 1                     # a new regression alert
    data = tmp_path / "data"
    cli("sync", "--export", str(data), check=True)
    files = _files(data)
    assert sum(f.startswith("runs/c0050/") for f in files) == 1 and len([f for f in files if f.startswith("runs/")]) == 80
    [alert_file] = [f for f in files if f.startswith("alerts/")]

    # The cache is gone: a fresh store rebuilt from the files has every run and the alert with its id.
    fresh = {"PERFGATE_STORE": f"sqlite:{tmp_path / 'fresh.db'}"}
    report = json.loads(cli("sync", "--import", str(data), "--json", env=fresh, check=True).stdout)
    assert report == {"runs": 80, "runs_added": 80, "alerts": 1, "alerts_added": 1, "acknowledged": 0,
                      "forgotten": 0, "forgotten_deleted_runs": 0, "forgotten_deleted_metrics": 0}
    before = json.loads(cli("history", "--json", check=True).stdout)
    after = json.loads(cli("history", "--json", env=fresh, check=True).stdout)
    assert [p["value"] for p in after[0]["points"]] == [p["value"] for p in before[0]["points"]]
    assert cli("detect", env=fresh).returncode == 0          # the same change does not alert twice
    [active] = json.loads(cli("alerts", "--json", env=fresh, check=True).stdout)
    assert alert_file == f"alerts/{active['id']}.json"

    # Acknowledged in CI on the rebuilt store; the acknowledgement is a new file, nothing changes.
    before_bytes = {f: (data / f).read_bytes() for f in files}
    cli("alerts", "--ack", active["id"], env=fresh, check=True)
    cli("sync", "--export", str(data), env=fresh, check=True)
    assert _files(data) == sorted(files + [f"acks/{active['id']}.json"])
    assert all((data / f).read_bytes() == b for f, b in before_bytes.items())
    third = {"PERFGATE_STORE": f"sqlite:{tmp_path / 'third.db'}"}
    cli("sync", "--import", str(data), env=third, check=True)
    assert json.loads(cli("alerts", "--json", env=third, check=True).stdout) == []
    [acked] = json.loads(cli("alerts", "--status", "acknowledged", "--json", env=third, check=True).stdout)
    assert acked["id"] == active["id"]
    # Importing again adds nothing.
    again = json.loads(cli("sync", "--import", str(data), "--json", env=third, check=True).stdout)
    assert again["runs_added"] == 0 and again["alerts_added"] == 0


def test_two_writers_files_merge_without_conflict(cli, store_path, tmp_path):
    record(store_path, series(10, 3))                          # c0000..c0009, the shared past
    a, b = tmp_path / "a", tmp_path / "b"
    cli("sync", "--export", str(a), check=True)
    shutil.copytree(a, b)
    other = {"PERFGATE_STORE": f"sqlite:{tmp_path / 'other.db'}"}
    cli("sync", "--import", str(b), env=other, check=True)
    record(store_path, series(2, 4), start=10)                 # writer A adds c0010, c0011
    record(tmp_path / "other.db", series(2, 5), start=20)      # writer B adds c0020, c0021 at the same time
    cli("sync", "--export", str(a), check=True)
    cli("sync", "--export", str(b), env=other, check=True)
    # A merge of the two trees: every file either exists on one side only or is byte-identical.
    for f in set(_files(a)) & set(_files(b)):
        assert (a / f).read_bytes() == (b / f).read_bytes(), f
    merged = tmp_path / "merged"
    shutil.copytree(a, merged)
    shutil.copytree(b, merged, dirs_exist_ok=True)
    env = {"PERFGATE_STORE": f"sqlite:{tmp_path / 'merged.db'}"}
    report = json.loads(cli("sync", "--import", str(merged), "--json", env=env, check=True).stdout)
    assert report["runs_added"] == 14


def test_a_bad_file_is_named_and_nothing_is_written(cli, store_path, tmp_path):
    record(store_path, series(5, 6))
    data = tmp_path / "data"
    cli("sync", "--export", str(data), check=True)
    victim = sorted(data.glob("runs/*/*.json"))[-1]
    doc = json.loads(victim.read_text())
    doc["run"]["metrics"][0]["samples"] = [1.0, "fast"]
    victim.write_text(json.dumps(doc))
    env = {"PERFGATE_STORE": f"sqlite:{tmp_path / 'fresh.db'}"}
    proc = cli("sync", "--import", str(data), env=env)
    assert proc.returncode == 2
    assert str(victim) in proc.stderr and "run.metrics[0].samples[1]" in proc.stderr
    assert not (tmp_path / "fresh.db").exists()
    victim.write_text("{not json")
    proc = cli("sync", "--import", str(data), env=env)
    assert proc.returncode == 2 and "line 1" in proc.stderr and "invalid JSON" in proc.stderr
    # A file moved to another commit's folder is refused: the place is part of the record.
    victim.unlink()
    first = sorted(data.glob("runs/*/*.json"))[0]
    (data / "runs" / "elsewhere").mkdir()
    first.rename(data / "runs" / "elsewhere" / first.name)
    proc = cli("sync", "--import", str(data), env=env)
    assert proc.returncode == 2 and "runs/<commit>/<key>.json" in proc.stderr


def test_a_run_time_no_date_can_hold_is_refused(cli, store_path, tmp_path):
    """An infinite or far-future start time, once recorded, made every verb that writes it as a
    date (history, pages, sync) fail with a traceback."""
    record(store_path, series(5, 6))
    data = tmp_path / "data"
    cli("sync", "--export", str(data), check=True)
    victim = sorted(data.glob("runs/*/*.json"))[-1]
    doc = json.loads(victim.read_text())
    doc["run"]["start_time"] = 1e30
    victim.write_text(json.dumps(doc))
    proc = cli("sync", "--import", str(data), env={"PERFGATE_STORE": f"sqlite:{tmp_path / 'fresh.db'}"})
    assert proc.returncode == 2, proc.stderr
    assert str(victim) in proc.stderr and "run.start_time" in proc.stderr and "between 1970 and 9999" in proc.stderr
    assert not (tmp_path / "fresh.db").exists()
    for bad in ("inf", "nan", "-1", "1e30"):
        proc = cli("ingest", str(FIXTURES / "hyperfine" / "two-commands.json"), "--branch", "main", "--commit", "c0ffee",
                   f"--start-time={bad}")
        assert proc.returncode == 2 and "argument --start-time" in proc.stderr, (bad, proc.stderr)


def test_a_later_finding_reaches_the_data_branch_and_back(cli, store_path, tmp_path):
    """Alert files never change, so a threshold alert that a change point took over (or that bisect
    narrowed) kept its first state on the data branch: each CI job rebuilds its store from there,
    named the streak's first commit for good, and at the revert raised a second alert."""
    from perfgate.model import REGIME_HEAD, Alert
    from perfgate.store.sqlite import SqliteStore

    record(store_path, series(60, 1, step_at=40))
    with SqliteStore(store_path) as store:
        [first] = store.record_alerts([Alert("main", "tb", "sort", "latency", "c0041", "regression", 0.3,
                                             kind="threshold", previous_commit="c0040", commit_range=("c0041", "c0042"))])
    data = tmp_path / "data"
    cli("sync", "--export", str(data), check=True)
    stale = {"PERFGATE_STORE": f"sqlite:{tmp_path / 'stale.db'}"}
    cli("sync", "--import", str(data), env=stale, check=True)             # a store that saw the first state
    with SqliteStore(store_path) as store:
        store.record_alerts([Alert("main", "tb", "sort", "latency", "c0040", "regression", 0.28, 0.25, 0.31, 1e-9,
                                   kind="change_point", previous_commit="c0039", commit_range=("c0040",),
                                   details={REGIME_HEAD: [f"c{i:04d}" for i in range(40, 60)]})])
        [taken] = store.alerts()
    assert taken.id == first.id and taken.kind == "change_point"
    cli("sync", "--export", str(data), check=True)
    updates = [f for f in _files(data) if f.startswith(f"updates/{first.id}/")]
    assert len(updates) == 1 and (data / "alerts" / f"{first.id}.json").exists()
    assert json.loads((data / "alerts" / f"{first.id}.json").read_text())["alert"]["kind"] == "threshold"  # unchanged
    cli("sync", "--export", str(data), check=True)                          # the same state: no second file
    assert [f for f in _files(data) if f.startswith("updates/")] == updates

    fresh = {"PERFGATE_STORE": f"sqlite:{tmp_path / 'fresh.db'}"}
    cli("sync", "--import", str(data), env=fresh, check=True)
    [back] = json.loads(cli("alerts", "--json", env=fresh, check=True).stdout)
    assert (back["id"], back["kind"], back["commit"], back["p_value"]) == (first.id, "change_point", "c0040", 1e-9)
    cli("sync", "--import", str(data), env=stale, check=True)              # ... takes the later state
    assert json.loads(cli("alerts", "--json", env=stale, check=True).stdout)[0]["commit"] == "c0040"
    cli("sync", "--export", str(data), env=fresh, check=True)                # a rebuilt store writes nothing new
    assert [f for f in _files(data) if f.startswith("updates/")] == updates
    # an update of an alert with no file is refused, naming it
    (data / "updates" / "no-such-alert").mkdir()
    proc = cli("sync", "--import", str(data), env={"PERFGATE_STORE": f"sqlite:{tmp_path / 'x.db'}"})
    assert proc.returncode == 2 and "updates an alert that has no file" in proc.stderr


def test_an_alert_file_is_read_once_per_export(tmp_path, monkeypatch):
    """export_alert read the alert's file to decide whether to write it, then again to compare it
    with the alert: another export writing in between could make the two reads disagree."""
    from fake_github.fixtures import make_alert

    from perfgate import history_files, inputs

    alert = make_alert(10)
    alert.id, alert.created = "a1b2c3d4-0000-4000-8000-000000000001", 1.0
    assert history_files.export_alert(tmp_path, alert) == 1
    reads, read_text = [], inputs.read_text
    monkeypatch.setattr(inputs, "read_text", lambda path, *a, **kw: reads.append(Path(path).name) or read_text(path, *a, **kw))
    assert history_files.export_alert(tmp_path, alert) == 0                    # unchanged: nothing written
    alert.magnitude = 0.2
    assert history_files.export_alert(tmp_path, alert) == 1                    # changed: one update file
    assert reads == [f"{alert.id}.json"] * 2, reads


def test_a_runs_file_is_the_whole_run_as_before_and_made_only_when_written(tmp_path, monkeypatch):
    """Made field by field (dataclasses.asdict's deep copies were most of an export's time), the
    document is the one asdict gave; and an export with nothing new makes none at all."""
    from array import array
    from dataclasses import asdict

    from perfgate import history_files
    from perfgate.model import Metric, Run, Testbed

    run = Run("default", "main", "c0001", Testbed("tb", {"cpu": "x", "cores": [0, 1]}),
              [Metric("b", "latency", 2.0, 1.0, 3.0, (1.0, 2.0, 3.0), {"big_o": "N", "nested": {"k": [1]}}),
               Metric("c", "instructions", 5.0)],
              start_time=1.7e9, end_time=1.7e9 + 1, adapter="hyperfine", context={"suite": "s", "argv": ["a"]},
              idempotency_key="k1")
    before = asdict(run)
    before["testbed"] = {"name": "tb", "fingerprint": run.testbed.fingerprint}
    assert history_files._dump(history_files.run_to_json(run)) == history_files._dump(
        {"format": history_files.FORMAT, "run": before})
    # packed samples (a harness's millions) are written as numbers, not as their repr
    packed = Run("default", "main", "c0002", Testbed("tb"), [Metric("b", "latency", 2.0, samples=array("d", [1.5]))],
                 idempotency_key="k2")
    assert history_files.run_to_json(packed)["run"]["metrics"][0]["samples"] == [1.5]

    assert history_files.export_run(tmp_path, run)
    made = []
    monkeypatch.setattr(history_files, "run_to_json", lambda r: made.append(r) or {})
    assert not history_files.export_run(tmp_path, run) and made == []


def test_an_export_with_nothing_new_reads_no_run_from_the_store(store_path, tmp_path, monkeypatch, capsys):
    """Every run was read from the store to see whether its file existed: an export with nothing
    new took 2 s at 500 benchmarks × 300 runs (bench/sync_export.py).  Only the runs whose file is
    missing or torn are read now, and their files are the ones written before."""
    from perfgate.cli import main
    from perfgate.store.sqlite import SqliteStore

    record(store_path, series(6, 2))
    monkeypatch.setenv("PERFGATE_STORE", f"sqlite:{store_path}")
    data = tmp_path / "data"
    assert main(["sync", "--export", str(data)]) == 0
    capsys.readouterr()
    before = {f: (data / f).read_bytes() for f in _files(data)}
    read, get_run = [], SqliteStore.get_run
    monkeypatch.setattr(SqliteStore, "get_run", lambda self, run_id: read.append(run_id) or get_run(self, run_id))
    assert main(["sync", "--export", str(data), "--json"]) == 0
    assert read == [] and json.loads(capsys.readouterr().out)["runs"] == 6

    gone, torn = sorted(data.glob("runs/*/*.json"))[1:3]
    gone.unlink()
    torn.write_bytes(before[str(torn.relative_to(data))][:50])
    assert main(["sync", "--export", str(data), "--json"]) == 0
    assert len(read) == 2 and json.loads(capsys.readouterr().out)["runs_written"] == 2
    assert {f: (data / f).read_bytes() for f in _files(data)} == before


def test_an_import_reads_only_the_files_of_runs_the_store_does_not_hold(store_path, tmp_path, monkeypatch, capsys):
    """Every run file was parsed only to find the store held its run already: each step of a CI
    job that imports the data branch into the job's store spent 11 s on 10,000 files of 100 metrics
    doing so.  Those files are passed over now; their keys still count against a new file's."""
    from perfgate import history_files
    from perfgate.cli import main
    from perfgate.store.sqlite import SqliteStore

    record(store_path, series(6, 2))
    monkeypatch.setenv("PERFGATE_STORE", f"sqlite:{store_path}")
    data = tmp_path / "data"
    assert main(["sync", "--export", str(data)]) == 0
    fresh = tmp_path / "fresh.db"
    monkeypatch.setenv("PERFGATE_STORE", f"sqlite:{fresh}")
    read, read_run = [], history_files._read_run
    monkeypatch.setattr(history_files, "_read_run", lambda p: read.append(p.name) or read_run(p))
    capsys.readouterr()
    assert main(["sync", "--import", str(data), "--json"]) == 0
    assert len(read) == 6 and json.loads(capsys.readouterr().out)["runs_added"] == 6
    read.clear()
    assert main(["sync", "--import", str(data), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert read == [] and report["runs"] == 6 and report["runs_added"] == 0

    record(store_path, series(2, 3), start=6)                     # two new runs elsewhere
    monkeypatch.setenv("PERFGATE_STORE", f"sqlite:{store_path}")
    assert main(["sync", "--export", str(data)]) == 0
    monkeypatch.setenv("PERFGATE_STORE", f"sqlite:{fresh}")
    capsys.readouterr()
    assert main(["sync", "--import", str(data), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert sorted(read) == sorted(p.name for p in data.glob("runs/c000[67]/*.json"))
    assert report["runs"] == 8 and report["runs_added"] == 2
    with SqliteStore(fresh) as s, SqliteStore(store_path) as src:
        assert sorted((r.run_id, r.commit) for r in s.runs()) == sorted((r.run_id, r.commit) for r in src.runs())

    # a new file with the key of a run the store holds, under another commit: refused as when both were read
    held = sorted(data.glob("runs/c0000/*.json"))[0]
    doc = json.loads(held.read_text())
    doc["run"]["commit"] = "c9999"
    del doc["run"]["id"]
    (data / "runs" / "c9999").mkdir()
    (data / "runs" / "c9999" / held.name).write_text(json.dumps(doc))
    capsys.readouterr()
    assert main(["sync", "--import", str(data)]) == 2
    said = " ".join(capsys.readouterr().err.split())
    assert "the key of" in said and held.name in said and "c0000" in said, said


def test_an_import_that_deletes_forgotten_runs_the_store_held_says_so(store_path, tmp_path, capsys):
    """A CI job's store rebuilt before a `perfgate forget` still held the runs: the next import
    deleted them and said they were "left out", as if it had added nothing and deleted nothing."""
    from perfgate.cli import main
    from perfgate.model import Metric, Run
    from perfgate.model import Testbed as Bed
    from perfgate.store.sqlite import SqliteStore

    with SqliteStore(store_path) as store:
        store.add_runs([Run("default", "main", f"c{i:04d}", Bed("tb"),
                            [Metric("sort", "latency", 1e6 + i), Metric("parse", "latency", 2e6 + i)],
                            start_time=1.7e9 + i) for i in range(5)])
        first = min(store.runs(), key=lambda r: r.start_time).run_id
    data, job = tmp_path / "data", tmp_path / "job.db"

    def sync(*args: str, store: Path) -> str:
        capsys.readouterr()
        assert main(["sync", *args, "--store", f"sqlite:{store}"]) == 0
        return capsys.readouterr().out

    sync("--export", str(data), store=store_path)
    sync("--import", str(data), store=job)                     # the job's store, before the forget
    assert main(["forget", "--run", first, "--yes", "--store", f"sqlite:{store_path}"]) == 0
    assert main(["forget", "--benchmark", "parse", "--yes", "--store", f"sqlite:{store_path}"]) == 0
    sync("--export", str(data), store=store_path)              # 5 marks: 1 run, parse of the other 4

    said = " ".join(sync("--import", str(data), store=job).split())
    assert ("5 deleted run(s) or metric(s) left out, and deleted from this store, which still held "
            "1 run(s) and 4 metric(s) of them") in said, said
    with SqliteStore(job) as store:
        left = [store.get_run(s.run_id) for s in store.runs()]
    assert len(left) == 4 and {m.benchmark for r in left for m in r.metrics} == {"sort"}
    capsys.readouterr()
    assert main(["sync", "--import", str(data), "--json", "--store", f"sqlite:{job}"]) == 0
    again = json.loads(capsys.readouterr().out)
    assert again["forgotten"] == 5 and again["forgotten_deleted_runs"] == again["forgotten_deleted_metrics"] == 0
    said = " ".join(sync("--import", str(data), store=tmp_path / "fresh.db").split())
    assert said.endswith("5 deleted run(s) or metric(s) left out"), said   # a new store held none of them
