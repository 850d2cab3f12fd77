"""``perfgate forget``: runs recorded by mistake and retired benchmarks are deleted whole or not at
all, detect re-judges what they made, and the deletion survives the data folder (sync)."""

from __future__ import annotations

import csv
import io
import json
import sqlite3

import numpy as np
import pytest

from perfgate.errors import StoreError
from perfgate.model import Metric, Run
from perfgate.model import Testbed as Bed
from perfgate.store import SeriesKey
from perfgate.store.sqlite import SqliteStore
from test_alerts import record, series
from test_hostile import _damaged


def _throttled(store_path, good: int = 60, bad: int = 6) -> None:
    """A steady series whose last runs came from a throttled machine (30% slower)."""
    values = series(good, 1)
    record(store_path, np.concatenate([values, values[:bad] * 1.3]))


def _rows(cli, env=None) -> list[dict]:
    return list(csv.DictReader(io.StringIO(cli("export", "--format", "csv", env=env, check=True).stdout)))


def _ids(cli, benchmark: str = "sort", since: str = "") -> list[str]:
    return [r["run"] for r in _rows(cli) if r["benchmark"] == benchmark and r["commit"] >= since]


def _commits(cli, env=None) -> list[str]:
    """Every commit of the sort series (history shows the newest 30)."""
    return sorted(r["commit"] for r in _rows(cli, env) if r["benchmark"] == "sort")


def _newest_shown(cli, env=None) -> str:
    [shown] = json.loads(cli("history", "sort", "--json", env=env, check=True).stdout)
    return shown["points"][-1]["commit"]


def _intact(store_path) -> None:
    db = sqlite3.connect(store_path)
    assert db.execute("PRAGMA quick_check").fetchone()[0] == "ok"
    assert db.execute("PRAGMA foreign_key_check").fetchall() == []
    orphans = db.execute("SELECT COUNT(*) FROM metric WHERE run_id NOT IN (SELECT id FROM run)").fetchone()[0]
    db.close()
    assert orphans == 0


def test_bad_runs_deleted_leave_history_and_their_alert_is_withdrawn(cli, store_path):
    _throttled(store_path)
    assert cli("detect").returncode == 1                      # the throttled runs look like a regression
    [alert] = json.loads(cli("alerts", "--json", check=True).stdout)
    bad = _ids(cli, since="c0060")
    args = [a for run_id in bad for a in ("--run", run_id[:8])]

    proc = cli("forget", *args, "--yes", check=True)
    assert "deleted run" in proc.stdout and "66 -> 60 point(s)" in proc.stdout and alert["id"][:8] in proc.stdout
    assert "the next 'perfgate detect' analyses these series again" in proc.stdout
    assert _newest_shown(cli) == "c0059" and len(_commits(cli)) == 60
    _intact(store_path)

    # Incremental detect re-analyses the series though no run came since, and withdraws the alert.
    again = json.loads(cli("detect", "--json").stdout)
    assert again["withdrawn_alerts"] == [alert["id"]] and again["new_alerts"] == []
    [listed] = json.loads(cli("alerts", "--json", check=True).stdout)
    assert listed["withdrawn_at"] == "c0059"

    # The next run (SQLite reuses the deleted newest run's id) is still seen as new by detect.
    record(store_path, series(1, 3), start=66)
    [s] = json.loads(cli("detect", "--json").stdout)["series"]
    assert s["points"] == 61


def test_dry_run_says_what_would_go_and_deletes_nothing(cli, store_path):
    _throttled(store_path)
    before = _commits(cli)
    [one] = _ids(cli, since="c0065")
    proc = cli("forget", "--run", one, check=True)
    assert "would delete run" in proc.stdout and "c0065" in proc.stdout and "2023-11-14" in proc.stdout
    assert "nothing was deleted: run again with --yes" in proc.stdout
    assert _commits(cli) == before
    plan = json.loads(cli("forget", "--run", one, "--json", check=True).stdout)
    assert plan["deleted"] is False and [r["commit"] for r in plan["runs"]] == ["c0065"] and plan["metrics"] == 1


def test_retiring_a_series_keeps_the_other_metrics_of_its_runs(cli, store_path):
    with SqliteStore(store_path) as store:
        store.add_runs([Run("default", "main", f"c{i:04d}", Bed("tb"),
                            [Metric("sort", "latency", 100.0 + i), Metric("old_name", "latency", 5.0)],
                            start_time=1_700_000_000.0 + i) for i in range(10)])
    assert cli("detect").returncode == 0
    refused = cli("forget", "--benchmark", "old_name", "--measure", "instructions")
    assert refused.returncode == 2 and "--benchmark 'old_name' --measure 'instructions'" in refused.stderr

    proc = cli("forget", "--benchmark", "old_name", "--yes", check=True)
    assert "deleted series old_name" in proc.stdout and "all 10 point(s)" in proc.stdout
    shown = json.loads(cli("history", "--json", check=True).stdout)
    assert [s["benchmark"] for s in shown] == ["sort"] and len(shown[0]["points"]) == 10
    _intact(store_path)
    with SqliteStore(store_path) as store:
        assert store.detect_state()[1].keys() == {SeriesKey("main", "tb", "sort", "latency")}


def test_yes_is_all_or_nothing(store_path, monkeypatch):
    _throttled(store_path)
    with SqliteStore(store_path) as store:
        ids = [r.run_id for r in store.runs()[:3]]

        def failing(*_):
            raise sqlite3.OperationalError("disk I/O error")   # after the metrics and runs were deleted

        monkeypatch.setattr(SqliteStore, "_redetect", failing)
        with pytest.raises(StoreError, match="nothing was written"):
            store.forget(ids, [SeriesKey("main", "tb", "sort", "latency")])
        assert len(store.runs()) == 66 and store.forgotten() == []
    _intact(store_path)


def test_a_deletion_survives_the_data_folder(cli, store_path, tmp_path):
    _throttled(store_path)
    data = tmp_path / "data"
    cli("sync", "--export", str(data), check=True)                # the data branch, before
    rebuilt_before = {"PERFGATE_STORE": f"sqlite:{tmp_path / 'ci-job.db'}"}
    cli("sync", "--import", str(data), env=rebuilt_before, check=True)   # a CI job rebuilt its store then

    bad = _ids(cli, since="c0060")
    cli("forget", *[a for i in bad for a in ("--run", i)], "--yes", check=True)
    exported = json.loads(cli("sync", "--export", str(data), "--json", check=True).stdout)
    assert exported["forgotten_written"] == 6 and len(list(data.glob("forgotten/*/run.json"))) == 6
    assert len(list(data.glob("runs/*/*.json"))) == 66             # files are only ever added

    fresh = {"PERFGATE_STORE": f"sqlite:{tmp_path / 'fresh.db'}"}
    report = json.loads(cli("sync", "--import", str(data), "--json", env=fresh, check=True).stdout)
    assert report["runs_added"] == 60 and report["forgotten"] == 6
    assert _newest_shown(cli, fresh) == "c0059" and len(_commits(cli, fresh)) == 60

    # The job that still holds the runs: its export brings nothing back, its next import deletes them.
    cli("sync", "--export", str(data), env=rebuilt_before, check=True)
    cli("sync", "--import", str(data), env=rebuilt_before, check=True)
    assert _newest_shown(cli, rebuilt_before) == "c0059" and len(_commits(cli, rebuilt_before)) == 60
    _intact(tmp_path / "ci-job.db")
    again = json.loads(cli("sync", "--import", str(data), "--json", env=fresh, check=True).stdout)
    assert again["runs_added"] == 0


def test_a_retired_series_survives_the_data_folder(cli, store_path, tmp_path):
    record(store_path, series(10, 1))
    record(store_path, series(10, 2), benchmark="old_name", start=100)
    cli("forget", "--benchmark", "old_name", "--yes", check=True)
    data = tmp_path / "data"
    cli("sync", "--export", str(data), check=True)
    fresh = {"PERFGATE_STORE": f"sqlite:{tmp_path / 'fresh.db'}"}
    cli("sync", "--import", str(data), env=fresh, check=True)
    shown = json.loads(cli("history", "--json", env=fresh, check=True).stdout)
    assert [s["benchmark"] for s in shown] == ["sort"]


def test_bad_references_are_refused_and_nothing_is_deleted(cli, store_path):
    _throttled(store_path)
    first, second = _ids(cli)[:2]
    db = sqlite3.connect(store_path)
    db.execute("UPDATE run SET uuid = 'abcd1' || uuid WHERE uuid = ?", (first,))
    db.execute("UPDATE run SET uuid = 'abcd2' || uuid WHERE uuid = ?", (second,))
    db.commit()
    db.close()
    ambiguous = cli("forget", "--run", "abcd", "--yes")
    assert ambiguous.returncode == 2 and "prefix of 2 runs" in ambiguous.stderr
    unknown = cli("forget", "--run", "abcd1", "--run", "ffff0000", "--yes")
    assert unknown.returncode == 2 and "'ffff0000'" in unknown.stderr and "nothing was deleted" in unknown.stderr
    assert len(_commits(cli)) == 66                             # the first, resolved, was not deleted either
    assert cli("forget", "--run", "abcd1", "--benchmark", "sort").returncode == 2


def test_a_read_only_or_damaged_store_is_refused(cli, store_path):
    record(store_path, series(300, 1))
    with SqliteStore(store_path, read_only=True) as store:
        run_id = store.runs()[0].run_id
        with pytest.raises(StoreError, match="read-only; nothing was written"):
            store.forget([run_id], [])
    _damaged(store_path)
    before = store_path.read_bytes()
    proc = cli("forget", "--benchmark", "sort", "--yes")
    assert proc.returncode == 2 and str(store_path) in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
    assert store_path.read_bytes() == before


def test_a_bump_deleted_withdraws_both_its_alerts_at_once(cli, store_path):
    """Ten throttled runs inside the history: their regression and the improvement after them.  The
    improvement's commit is still there, so it was only "not found since", to be withdrawn 10 runs
    later, though forget said an alert the deleted runs alone made is withdrawn."""
    values = series(70, 1)
    values[40:50] *= 1.3
    record(store_path, values)
    assert cli("detect").returncode == 1
    alerts = json.loads(cli("alerts", "--json", check=True).stdout)
    assert sorted(a["direction"] for a in alerts if a["kind"] == "change_point") == ["improvement", "regression"]
    bad = [r["run"] for r in _rows(cli) if "c0040" <= r["commit"] < "c0050"]
    cli("forget", *[a for run_id in bad for a in ("--run", run_id[:8])], "--yes", check=True)
    again = json.loads(cli("detect", "--json").stdout)
    [improvement] = [a["id"] for a in alerts if a["direction"] == "improvement"]
    assert again["withdrawn_alerts"] == [improvement], again     # (the regression closed as undone by it before)
