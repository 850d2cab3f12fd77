"""Several CI processes ingesting into one SQLite history at once lose nothing and duplicate nothing."""

from __future__ import annotations

import json
import multiprocessing
import sqlite3

WRITERS = 8
RUNS_EACH = 15


def _writer(store: str, jobs: list[tuple[str, str]], barrier) -> None:
    from perfgate.cli import main

    barrier.wait()  # start together, so the writers really contend
    for path, commit in jobs:
        code = main(["ingest", "--store", store, "--adapter", "bmf", path,
                     "--branch", "main", "--commit", commit, "--testbed", "tb"])
        if code != 0:
            raise SystemExit(code)


def test_eight_concurrent_ingesters_record_every_run_exactly_once(tmp_path, store_path):
    runs = {}
    for w in range(WRITERS):
        for r in range(RUNS_EACH):
            f = tmp_path / f"w{w}-r{r}.json"
            f.write_text(json.dumps({f"bench-{b}": {"latency": {"value": 1000.0 + w * 100 + r + b}}
                                     for b in range(5)}))
            runs.setdefault(w, []).append((str(f), f"w{w}r{r}"))
    ctx = multiprocessing.get_context("fork")
    barrier = ctx.Barrier(WRITERS)
    # Each writer ingests its own runs, then re-ingests its neighbour's (a retried CI job): the
    # duplicates must be recognised even while they race with the originals.
    procs = [ctx.Process(target=_writer, args=(f"sqlite:{store_path}", runs[w] + runs[(w + 1) % WRITERS], barrier))
             for w in range(WRITERS)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=300)
        assert p.exitcode == 0

    db = sqlite3.connect(store_path)
    commits = sorted(row[0] for row in db.execute("SELECT commit_hash FROM run"))
    assert commits == sorted(commit for jobs in runs.values() for _, commit in jobs)
    assert db.execute("SELECT COUNT(*) FROM metric").fetchone()[0] == WRITERS * RUNS_EACH * 5
    assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_writers_take_turns_through_the_lock_file_and_time_out_as_sqlite_does(tmp_path):
    import pytest

    from perfgate.store.transaction import WriterQueue

    first, second = WriterQueue(tmp_path / "h.db", 5.0), WriterQueue(tmp_path / "h.db", 0.05)
    try:
        with first.turn():
            with pytest.raises(sqlite3.OperationalError, match="database is locked"):
                with second.turn():
                    pass
        with second.turn():                         # free again once the first has had its turn
            assert (tmp_path / "h.db.lock").is_file()
    finally:
        first.close()
        second.close()


def test_reading_a_history_creates_no_lock_file(tmp_path, store_path):
    from perfgate.model import Metric, Run, Testbed
    from perfgate.store.sqlite import SqliteStore

    with SqliteStore(store_path) as store:
        store.add_runs([Run("default", "main", "c1", Testbed("tb"), [Metric("b", "latency", 1.0)])])
    lock = store_path.parent / (store_path.name + ".lock")
    assert lock.is_file()                            # the writer took its turn
    lock.unlink()
    with SqliteStore(store_path) as store:
        assert len(store.all_series()) == 1
    assert not lock.exists()


def _first_writer(path: str, barrier, results) -> None:
    import perfgate.store.sqlite as sqlite_store
    from perfgate.errors import StoreError
    from perfgate.model import Metric, Run, Testbed

    sqlite_store.BUSY_TIMEOUT_MS = 10_000    # a deadlock shows in 10 s, not the real 120 s
    barrier.wait()
    try:
        with sqlite_store.SqliteStore(path) as s:
            s.add_runs([Run("default", "main", f"c{multiprocessing.current_process().name}", Testbed("tb"),
                            [Metric("b", "latency", 1.0)])])
        results.put("ok")
    except StoreError as e:
        results.put(str(e))


def test_writers_opening_a_history_that_is_not_there_yet_do_not_deadlock(tmp_path):
    """Four processes opening one new history at once: one switched it to WAL outside the writers'
    turn while another held SQLite's lock for the schema, and each waited for the other until
    the busy timeout (2 of 5 runs of bench/concurrent_writers.py 4 5 waited 120 s and failed)."""
    ctx = multiprocessing.get_context("fork")
    for trial in range(12):
        path = str(tmp_path / f"h{trial}.db")
        barrier, results = ctx.Barrier(4), ctx.Queue()
        procs = [ctx.Process(target=_first_writer, args=(path, barrier, results)) for _ in range(4)]
        for p in procs:
            p.start()
        outcomes = [results.get(timeout=60) for _ in procs]
        for p in procs:
            p.join()
        assert outcomes == ["ok"] * 4, (trial, outcomes)
