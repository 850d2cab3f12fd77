"""`perfgate sync --import` on folders nobody should trust (an audit's campaign): two jobs'
exports of one regression merged, files that are not files, numbers JSON should not hold, names
`ingest` refuses, one key twice, a folder one level too deep.  Each is refused naming the file,
or folded, and nothing is half written."""

from __future__ import annotations

import json
import os
import shutil

import pytest

from perfgate.errors import StoreError
from perfgate.model import Alert, Metric, Run
from perfgate.model import Testbed as Bed
from perfgate.store.sqlite import SqliteStore
from test_alerts import record, series


def _export(cli, tmp_path, name, step_at=50):
    """A store of its own with a detected regression, exported to a folder of its own."""
    env = {"PERFGATE_STORE": f"sqlite:{tmp_path / (name + '.db')}"}
    record(tmp_path / (name + ".db"), series(80, 1, step_at=step_at))
    assert cli("detect", env=env).returncode == 1
    cli("sync", "--export", str(tmp_path / name), env=env, check=True)
    return tmp_path / name


def _merge(*folders, into):
    for folder in folders:
        shutil.copytree(folder, into, dirs_exist_ok=True)
    return into


def _runs_in(path):
    if not path.exists():
        return 0
    with SqliteStore(path) as s:
        return len(s.runs())


def test_two_jobs_alerts_of_one_regression_merge_into_one_and_an_ack_of_either_holds(cli, tmp_path):
    # The UNIQUE key on alerts failed the import after its runs were committed: half a history,
    # and a folder that could never be imported again.
    merged = _merge(_export(cli, tmp_path, "a"), _export(cli, tmp_path, "b"), into=tmp_path / "merged")
    ids = sorted(p.stem for p in (merged / "alerts").glob("*.json"))
    assert len(ids) == 2
    (merged / "acks").mkdir()
    (merged / "acks" / f"{ids[1]}.json").write_text(json.dumps({"format": 1, "id": ids[1]}))
    fresh = {"PERFGATE_STORE": f"sqlite:{tmp_path / 'fresh.db'}"}
    report = json.loads(cli("sync", "--import", str(merged), "--json", env=fresh, check=True).stdout)
    assert report["runs_added"] == 80 and report["alerts_added"] == 1 and report["acknowledged"] == 1
    assert json.loads(cli("alerts", "--json", env=fresh, check=True).stdout) == []       # the ack held
    assert cli("detect", env=fresh).returncode == 0                                       # nothing new
    again = json.loads(cli("sync", "--import", str(merged), "--json", env=fresh, check=True).stdout)
    assert again["runs_added"] == again["alerts_added"] == again["acknowledged"] == 0


def test_a_store_failure_in_the_middle_writes_nothing(tmp_path):
    runs = [Run("default", "main", f"c{i:04d}", Bed("tb"), [Metric("b", "latency", 1.0 + i)], start_time=1.7e9 + i)
            for i in range(20)]
    bad = Alert("main", "tb", "b", "latency", "c0001", "regression", 0.1, kind=None, id="x")  # NOT NULL fails
    with SqliteStore(tmp_path / "h.db") as store:
        with pytest.raises(StoreError, match="nothing was written"):
            store.restore(runs, [bad], set())
        assert store.runs() == []


def _metric_twice(doc: dict) -> dict:
    doc["run"]["metrics"].append(dict(doc["run"]["metrics"][0]))
    return doc


@pytest.mark.parametrize("make, reason", [
    (lambda p: (p.unlink(), os.symlink("/dev/zero", p)), "perfgate reads regular files"),
    (lambda p: (p.unlink(), os.mkfifo(p)), "perfgate reads regular files"),
    (lambda p: p.write_text(p.read_text().replace('"attrs": {}', '"attrs": {"n": NaN}', 1)), "invalid JSON"),
    (lambda p: p.write_text(p.read_text().replace('"value": ', '"value": 1' + "0" * 400 + ", \"x\": ", 1)),
     "not a finite number"),
    (lambda p: p.write_text(p.read_text().replace('"attrs": {}', '"attrs": ' + "[" * 100_000 + "]" * 100_000, 1)),
     "invalid JSON"),
    (lambda p: p.write_text(p.read_text().replace('"branch": "main"', '"branch": "<script>x</script>"', 1)),
     "run.branch: name contains HTML markup"),
    (lambda p: p.write_text(p.read_text().replace('"branch": "main"', '"branch": "ma\\u202ein"', 1)),
     "invisible formatting character"),
    # an audit: "expected (<class 'int'>, <class 'float'>), got str", Python's words for JSON's
    (lambda p: p.write_text(p.read_text().replace('"value": ', '"value": "oops", "x": ', 1)),
     "run.metrics[0].value: expected a number, got a string"),
    (lambda p: p.write_text(p.read_text().replace('"attrs": {}', '"attrs": null', 1)), "expected an object, got null"),
    # an audit: a metric given twice was a raw "UNIQUE constraint failed" naming the store
    (lambda p: p.write_text(json.dumps(_metric_twice(json.loads(p.read_text())))),
     "run.metrics[1]: benchmark 'sort' measure 'latency' appears twice"),
])
def test_a_hostile_run_file_is_refused_by_name_and_nothing_is_written(cli, tmp_path, make, reason):
    data = tmp_path / "data"
    record(tmp_path / "src.db", series(10, 1))
    cli("sync", "--export", str(data), env={"PERFGATE_STORE": f"sqlite:{tmp_path / 'src.db'}"}, check=True)
    victim = sorted(data.glob("runs/*/*.json"))[3]
    make(victim)
    fresh = {"PERFGATE_STORE": f"sqlite:{tmp_path / 'fresh.db'}"}
    proc = cli("sync", "--import", str(data), env=fresh, timeout=60)
    said = " ".join(proc.stderr.split())
    assert proc.returncode == 2 and victim.name in said and reason in said, proc.stderr
    assert "Traceback" not in proc.stderr and _runs_in(tmp_path / "fresh.db") == 0


def test_one_key_twice_and_a_folder_one_level_down_are_refused(cli, tmp_path):
    data = tmp_path / "data"
    record(tmp_path / "src.db", series(10, 1))
    cli("sync", "--export", str(data), env={"PERFGATE_STORE": f"sqlite:{tmp_path / 'src.db'}"}, check=True)
    nested = tmp_path / "nested"
    shutil.copytree(data, nested / "backfill-runs-shard-1")      # download-artifact without merge-multiple
    fresh = {"PERFGATE_STORE": f"sqlite:{tmp_path / 'fresh.db'}"}
    proc = cli("sync", "--import", str(nested), env=fresh)
    assert proc.returncode == 2 and "holds no runs/, alerts/ or acks/ folder" in proc.stderr
    one = sorted(data.glob("runs/*/*.json"))[0]
    doc = json.loads(one.read_text())
    doc["run"]["commit"] = "c9999"
    (data / "runs" / "c9999").mkdir()
    (data / "runs" / "c9999" / one.name).write_text(json.dumps(doc))
    proc = cli("sync", "--import", str(data), env=fresh)
    assert proc.returncode == 2 and "the key of" in proc.stderr and _runs_in(tmp_path / "fresh.db") == 0


def test_a_commit_label_that_cannot_name_a_folder_exports_and_reads_back(cli, tmp_path):
    # `ingest --commit release/1.0` is allowed; its export failed part way ("cannot name a file").
    record(tmp_path / "src.db", series(5, 1))
    src = {"PERFGATE_STORE": f"sqlite:{tmp_path / 'src.db'}"}
    f = tmp_path / "r.json"
    f.write_text(json.dumps({"b": {"latency": {"value": 5.0}}}))
    cli("ingest", str(f), "--adapter", "bmf", "--branch", "main", "--commit", "release/1.0", "--testbed", "tb",
        env=src, check=True)
    cli("sync", "--export", str(tmp_path / "data"), env=src, check=True)
    fresh = {"PERFGATE_STORE": f"sqlite:{tmp_path / 'fresh.db'}"}
    report = json.loads(cli("sync", "--import", str(tmp_path / "data"), "--json", env=fresh, check=True).stdout)
    assert report["runs_added"] == 6
    with SqliteStore(tmp_path / "fresh.db") as s:
        assert "release/1.0" in {r.commit for r in s.runs()}


def test_export_writes_a_torn_file_again(cli, tmp_path):
    record(tmp_path / "src.db", series(5, 1))
    src = {"PERFGATE_STORE": f"sqlite:{tmp_path / 'src.db'}"}
    data = tmp_path / "data"
    cli("sync", "--export", str(data), env=src, check=True)
    torn = sorted(data.glob("runs/*/*.json"))[2]
    whole = torn.read_text()
    torn.write_text(whole[:40])
    out = json.loads(cli("sync", "--export", str(data), "--json", env=src, check=True).stdout)
    assert out["runs_written"] == 1 and torn.read_text() == whole
    assert not [p for p in data.rglob(".*") if p.is_file()]     # no temporary file left behind
