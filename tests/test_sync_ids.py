"""A run keeps its id through the data folder: an id copied from one CI job's output (history,
an alert, an issue) names the same run in the next job, whose store was rebuilt from the files.
Before, ``sync --import`` gave every run a new random id."""

from __future__ import annotations

import json
import shutil
import sqlite3
import uuid

from test_alerts import record, series


def _ids(cli, env=None) -> dict[str, str]:
    """Each run's id by commit, as ``perfgate history --json`` lists them."""
    shown = json.loads(cli("history", "--json", "--limit", "0", env=env, check=True).stdout)
    return {p["commit"]: p["run_id"] for s in shown for p in s["points"]}


def _store(tmp_path, name: str) -> dict[str, str]:
    return {"PERFGATE_STORE": f"sqlite:{tmp_path / name}"}


def test_ids_survive_export_and_import_and_name_the_run_there(cli, store_path, tmp_path, fixtures):
    hyperfine = str(fixtures / "hyperfine" / "two-commands.json")
    for commit in ("c0ffee01", "c0ffee02", "c0ffee03"):
        cli("ingest", hyperfine, "--branch", "main", "--commit", commit, check=True)
    # A run recorded by a perfgate before this one has a random id: it is carried too.
    old_id = str(uuid.uuid4())
    db = sqlite3.connect(store_path)
    with db:
        db.execute("UPDATE run SET uuid = ? WHERE commit_hash = 'c0ffee02'", (old_id,))
    db.close()
    job_a = _ids(cli)
    assert len(set(job_a.values())) == 3 and job_a["c0ffee02"] == old_id

    data = tmp_path / "data"
    cli("sync", "--export", str(data), check=True)
    job_b = _store(tmp_path, "b.db")
    cli("sync", "--import", str(data), env=job_b, check=True)
    assert _ids(cli, job_b) == job_a
    assert [r["run"] for r in json.loads(cli("export", "--format", "json", env=job_b, check=True).stdout)
            if r["commit"] == "c0ffee02"][0] == old_id

    # An id from job A's output is the run in job B: forget and compare take it.
    compared = cli("compare", "--base", job_a["c0ffee01"], "--head", job_a["c0ffee03"], env=job_b)
    assert compared.returncode in (0, 1), compared.stderr
    cli("forget", "--run", old_id, "--yes", env=job_b, check=True)
    assert set(_ids(cli, job_b)) == {"c0ffee01", "c0ffee03"}
    # ... and the deletion reaches job A through the folder, by the same run.
    cli("sync", "--export", str(data), env=job_b, check=True)
    cli("sync", "--import", str(data), check=True)
    assert _ids(cli) == {c: job_a[c] for c in ("c0ffee01", "c0ffee03")}


def test_files_written_before_they_carried_ids_import_with_one_id_everywhere(cli, store_path, tmp_path):
    from perfgate.model import run_id_of

    record(store_path, series(4, 1))
    job_a = _ids(cli)
    # a new run's id is its project's and key's: any store recording it gives it the same
    data = tmp_path / "data"
    cli("sync", "--export", str(data), check=True)
    for path in data.glob("runs/*/*.json"):
        doc = json.loads(path.read_text())
        assert doc["run"]["id"] == job_a[doc["run"]["commit"]] == run_id_of("default", doc["run"]["idempotency_key"])
        del doc["run"]["id"]                                   # as written before files carried ids
        path.write_text(json.dumps(doc))
    for name in ("b.db", "c.db"):
        env = _store(tmp_path, name)
        assert json.loads(cli("sync", "--import", str(data), "--json", env=env, check=True).stdout)["runs_added"] == 4
        assert _ids(cli, env) == job_a


def test_two_jobs_runs_never_share_an_id(cli, store_path, tmp_path):
    record(store_path, series(3, 1))                            # job A: c0000..c0002
    job_b = _store(tmp_path, "b.db")
    record(tmp_path / "b.db", series(3, 2), start=10)           # job B, meanwhile: c0010..c0012
    a, b = tmp_path / "a", tmp_path / "b"
    cli("sync", "--export", str(a), check=True)
    cli("sync", "--export", str(b), env=job_b, check=True)
    merged = tmp_path / "merged"
    shutil.copytree(a, merged)
    shutil.copytree(b, merged, dirs_exist_ok=True)
    job_c = _store(tmp_path, "c.db")
    cli("sync", "--import", str(merged), env=job_c, check=True)
    both = {**_ids(cli), **_ids(cli, job_b)}
    assert _ids(cli, job_c) == both and len(set(both.values())) == 6
    # The same folder imported into a second project of that store: every run added, under ids
    # of its own (the files' ids are the first project's runs' here).
    other = {**job_c, "PERFGATE_PROJECT": "other"}
    report = json.loads(cli("sync", "--import", str(merged), "--json", env=other, check=True).stdout)
    assert report["runs_added"] == 6
    assert set(_ids(cli, other)) == set(both) and not set(_ids(cli, other).values()) & set(both.values())


def test_a_bad_or_shared_run_id_is_named_and_nothing_is_written(cli, store_path, tmp_path):
    record(store_path, series(3, 1))
    data = tmp_path / "data"
    cli("sync", "--export", str(data), check=True)
    first, second, _ = sorted(data.glob("runs/*/*.json"))
    fresh = _store(tmp_path, "fresh.db")
    doc = json.loads(second.read_text())
    for bad in ("../x", "NOT-A-UUID", 7, str(uuid.uuid4()).upper()):
        doc["run"]["id"] = bad
        second.write_text(json.dumps(doc))
        proc = cli("sync", "--import", str(data), env=fresh)
        assert proc.returncode == 2 and str(second) in proc.stderr and "run.id" in proc.stderr, (bad, proc.stderr)
    doc["run"]["id"] = json.loads(first.read_text())["run"]["id"]
    second.write_text(json.dumps(doc))
    proc = cli("sync", "--import", str(data), env=fresh)
    assert proc.returncode == 2 and str(second) in proc.stderr and str(first) in proc.stderr and "run.id" in proc.stderr
    assert not (tmp_path / "fresh.db").exists()
