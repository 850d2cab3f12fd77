"""The embedded SQLite history: round trips, idempotency, atomicity, schema versions."""

from __future__ import annotations

import sqlite3
from array import array

import pytest

from perfgate.errors import StoreError
from perfgate.model import Metric, Run
from perfgate.model import Testbed as Bed  # "Test*" names would be collected by pytest
from perfgate.store import SeriesKey, open_store
from perfgate.store.migrations import MIGRATIONS
from perfgate.store.sqlite import SqliteStore


def make_run(commit: str, value: float = 100.0, branch: str = "main", samples=(99.0, 100.0, 101.0)) -> Run:
    return Run("demo", branch, commit, Bed("tb", {"cpu_model": "x"}),
               [Metric("sort", "latency", value, value - 1, value + 1, samples),
                Metric("sort", "instructions", value * 10)],
               start_time=float(len(commit)), adapter="test")


def test_round_trip_keeps_samples_and_fingerprint(store_path):
    with SqliteStore(store_path, "demo") as store:
        assert store.add_run(make_run("a1"))
        [summary] = store.runs()
        run = store.get_run(summary.run_id)
        assert store.testbed_fingerprint("tb") == {"cpu_model": "x"}
    assert run.commit == "a1" and run.branch == "main" and run.testbed.fingerprint == {"cpu_model": "x"}
    latency = next(m for m in run.metrics if m.measure == "latency")
    assert latency.samples == (99.0, 100.0, 101.0)
    assert (latency.lower, latency.value, latency.upper) == (99.0, 100.0, 101.0)


def test_a_series_read_whole_holds_its_samples_packed(store_path):
    # detect and the pages read every series at once: as tuples of floats (32 bytes a sample) 500
    # series x 300 runs x 200 samples took the pages 1.5 GB; packed, 8 bytes a sample, 0.6 GB.
    samples = tuple(float(i) for i in range(1000))
    with SqliteStore(store_path, "demo") as store:
        store.add_run(make_run("a1", samples=samples))
        key = SeriesKey("main", "tb", "sort", "latency")
        for points in (store.series(key), store.series_tail(key, 1), store.all_series()[key],
                       store.series_of([key])[key]):
            [point] = points
            assert isinstance(point.samples, array) and point.samples.typecode == "d"
            assert tuple(point.samples) == samples


def test_every_series_read_at_once_holds_its_samples_once(store_path):
    # The stored rows of every series were all kept until the last series' points were made: the
    # samples held twice at the peak (17 MB for these 8 MB; 1.5 GB for the pages of a real store).
    import tracemalloc

    with SqliteStore(store_path) as store:
        store.add_runs([Run("default", "main", f"c{i:04d}", Bed("tb"),
                            [Metric(f"b{b}", "latency", 1.0, samples=tuple(map(float, range(500)))) for b in range(50)],
                            start_time=1.7e9 + i) for i in range(40)])
    with SqliteStore(store_path) as store:
        tracemalloc.start()
        try:
            series = store.all_series()
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert len(series) == 50 and all(len(points[0].samples) == 500 for points in series.values())
    assert peak < 1.5 * 50 * 40 * 500 * 8


def test_same_run_twice_is_stored_once(store_path):
    with SqliteStore(store_path, "demo") as store:
        assert store.add_runs([make_run("a1"), make_run("a1")]) == [True, False]
        assert store.add_run(make_run("a1")) is False
        assert len(store.runs()) == 1


def test_series_are_in_run_order_and_filterable(store_path):
    with SqliteStore(store_path, "demo") as store:
        store.add_runs([make_run("c", 3.0), make_run("a", 1.0), make_run("bb", 2.0), make_run("x", 9.0, "pr")])
        keys = store.series_keys(branch="main")
        assert keys == [SeriesKey("main", "tb", "sort", "instructions"), SeriesKey("main", "tb", "sort", "latency")]
        values = [p.value for p in store.series(SeriesKey("main", "tb", "sort", "latency"))]
    # start_time is len(commit): "a" and "c" tie and keep insertion order, "bb" comes last.
    assert values == [3.0, 1.0, 2.0]


def test_series_keys_filter_by_each_name_within_the_project(store_path):
    def run(project: str, branch: str, bed: str, commit: str) -> Run:
        return Run(project, branch, commit, Bed(bed), [Metric("sort", "latency", 1.0), Metric("scan", "instructions", 2.0)])

    with SqliteStore(store_path, "one") as one, SqliteStore(store_path, "two") as two:
        one.add_runs([run("one", "main", "tb", "a"), run("one", "pr", "tb", "b"), run("one", "main", "other", "c")])
        two.add_run(Run("two", "main", "c", Bed("tb"), [Metric("sort", "latency", 1.0), Metric("sort", "bytes", 3.0)]))
        everything = one.series_keys()
        assert len(everything) == 6 and everything == sorted(everything)
        for field in ("branch", "testbed", "benchmark", "measure"):
            for name in {getattr(k, field) for k in everything}:
                assert one.series_keys(**{field: name}) == [k for k in everything if getattr(k, field) == name]
        assert one.series_keys(branch="main", benchmark="scan") == [SeriesKey("main", "other", "scan", "instructions"),
                                                                    SeriesKey("main", "tb", "scan", "instructions")]
        # a name only the other project has, or none has, selects nothing
        assert one.series_keys(measure="bytes") == [] and one.series_keys(testbed="nope") == []
        assert two.series_keys() == [SeriesKey("main", "tb", "sort", "bytes"), SeriesKey("main", "tb", "sort", "latency")]


@pytest.mark.parametrize("per_query", [500, 2, 1])
def test_many_series_read_at_once_are_each_as_read_alone(store_path, per_query, monkeypatch):
    """``series_of`` (detect reads every series of a new run in one pass per testbed) gives what
    ``series`` gives for each key: other branches, testbeds, projects and measures left out, run
    order with ties and missing start times, samples and attributes kept, unknown keys empty.
    All the benchmarks at once are read a range of metrics a run, one of four is sought."""
    runs = []
    for i in range(30):
        for branch, bed in (("main", "tb"), ("main", "other"), ("pr", "tb")):
            metrics = [Metric(f"b{k}", "latency", 100.0 + i + k, samples=(1.0, float(i)) if k == 1 else ())
                       for k in range(4)] + [Metric("b0", "instructions", 1e6 + i)]
            if i == 7:
                metrics.append(Metric("b2", "cycles", 5.0, attrs={"note": "once"}))
            runs.append(Run("demo", branch, f"{branch}-{bed}-{i}", Bed(bed), metrics,
                            start_time=None if i == 3 else float(i // 2), adapter="test"))
    monkeypatch.setattr("perfgate.store.sqlite.SERIES_PER_QUERY", per_query)
    with SqliteStore(store_path, "demo") as store, SqliteStore(store_path, "elsewhere") as other:
        store.add_runs(runs)
        other.add_runs([Run("elsewhere", "main", "e", Bed("tb"), [Metric("b0", "latency", 1.0)], start_time=0.0)])
        keys = store.series_keys() + [SeriesKey("main", "tb", "nope", "latency"), SeriesKey("main", "gone", "b0", "latency")]
        together = store.series_of(keys)
        assert sorted(together) == sorted(keys)
        scanned = store.all_series()        # a third path: one scan of every metric, sorted here
        for key in keys:
            assert together[key] == store.series(key) == scanned.get(key, []), key
        assert together[SeriesKey("main", "tb", "b2", "cycles")][0].attrs == {"note": "once"}
        assert [p.time for p in together[SeriesKey("main", "tb", "b0", "latency")]][:2] == [None, 0.0]


def test_the_newest_points_of_a_series_are_the_end_of_it(store_path):
    """``series_tail`` (what ``history`` shows) reads backwards through the testbed's runs: the same
    points as the end of ``series``, with ties and missing start times in the same order, runs
    without the metric skipped, other branches, testbeds and projects left out."""
    runs = []
    for i in range(25):
        for branch, bed in (("main", "tb"), ("main", "other"), ("pr", "tb")):
            metrics = [Metric("b0", "latency", 100.0 + i)]
            if i % 3:
                metrics.append(Metric("b1", "latency", 50.0 + i, samples=(1.0, float(i))))
            runs.append(Run("demo", branch, f"{branch}-{bed}-{i}", Bed(bed), metrics,
                            start_time=None if i in (3, 4) else float(i // 2), adapter="test"))
    with SqliteStore(store_path, "demo") as store, SqliteStore(store_path, "elsewhere") as other:
        store.add_runs(runs)
        other.add_runs([Run("elsewhere", "main", "e", Bed("tb"), [Metric("b0", "latency", 1.0)], start_time=99.0)])
        keys = store.series_keys() + [SeriesKey("main", "tb", "nope", "latency")]
        for key in keys:
            whole = store.series(key)
            for count in (1, 2, 5, 16, 17, 100):
                assert store.series_tail(key, count) == whole[-count:], (key, count)
        assert [p.value for p in store.series_tail(SeriesKey("main", "tb", "b1", "latency"), 3)] == [70.0, 72.0, 73.0]


def test_projects_are_separate(store_path):
    with SqliteStore(store_path, "one") as one, SqliteStore(store_path, "two") as two:
        one.add_run(make_run("a"))
        assert two.runs() == [] and two.series_keys() == []
        assert two.add_run(make_run("a")) is True  # same content, other project: a different run


def test_a_failing_batch_writes_nothing(store_path):
    bad = make_run("b2")
    bad.metrics.append(Metric("sort", "latency", 5.0))  # same (benchmark, measure) twice violates the schema
    with SqliteStore(store_path, "demo") as store:
        with pytest.raises((StoreError, sqlite3.IntegrityError)):
            store.add_runs([make_run("a1"), bad])
        assert store.runs() == []
        assert store.series_keys() == []


def test_schema_is_versioned_and_wal(store_path):
    with SqliteStore(store_path) as store:
        assert store.schema_version() == len(MIGRATIONS)
        assert store.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    with SqliteStore(store_path) as again:  # reopening migrates nothing twice
        assert again.schema_version() == len(MIGRATIONS)


def _older_history(path) -> tuple:
    """A store with samples (none, a few, 200, 2,000), bounds, attrs, two branches, alerts (one
    acknowledged) and detect state; returns everything its reads give."""
    from perfgate.model import Alert

    runs = [make_run(f"c{i:02d}", 100.0 + i, samples=tuple(100.0 + i + j / 100 for j in range(200)))
            for i in range(12)]
    runs[3].metrics.append(Metric("parse", "latency", 7.5, attrs={"bencher_alert": "upper"}))
    runs[4].metrics.append(Metric("parse", "latency", 7.0, 6.0, 8.0, tuple(map(float, range(2000)))))
    runs += [make_run("p1", 200.0, "pr")]
    with SqliteStore(path, "demo") as store:
        store.add_runs(runs)
        alerts = store.record_alerts([Alert("main", "tb", "sort", "latency", "c05", "regression", 0.1),
                                      Alert("main", "tb", "sort", "instructions", "c06", "improvement", -0.2)])
        store.acknowledge(alerts[0].id)
        store.save_detect_state(store.run_watermark(), {SeriesKey("main", "tb", "sort", "latency"): ("s1", {"n": 12})})
        return _everything(store)


def _everything(store) -> tuple:
    keys = store.series_keys()
    runs = store.runs()
    return (keys, {k: store.series(k) for k in keys}, {k: store.series_tail(k, 3) for k in keys},
            store.series_of(keys), store.all_series(), runs, [store.get_run(r.run_id) for r in runs],
            store.series_keys(benchmark="parse"), store.alerts(), store.run_watermark(),
            store.testbed_fingerprint("tb"))


@pytest.mark.parametrize("version", [2, 3, 4, 5])
def test_an_older_history_reads_back_the_same_after_its_one_upgrade(store_path, version):
    """Migration 6 moves the samples to a rowid table of their own (migration 4 had rebuilt the
    metrics keyed by run): every series, run, key, alert and acknowledgement reads back as it did;
    the detect state is kept (version 2 had none)."""
    from old_schemas import take_back

    before = _older_history(store_path)
    with SqliteStore(store_path, "demo") as store:
        state = store.detect_state()
    take_back(store_path, version)
    with SqliteStore(store_path, "demo") as store:
        assert store.schema_version() == len(MIGRATIONS) == 7
        assert _everything(store) == before and len(before[1]) == 5
        assert store.detect_state() == (state if version > 2 else (None, {}))
        assert store.recorded_keys(r.idempotency_key for r in before[6]) == {r.idempotency_key for r in before[6]}
        assert store.db.execute("PRAGMA quick_check").fetchone()[0] == "ok"
        assert store.db.execute("PRAGMA foreign_key_check").fetchall() == []
        # 12 + 1 runs' latency samples and parse's 2,000; nothing else had any
        assert store.db.execute("SELECT COUNT(*) FROM sample").fetchone()[0] == 14


def test_metrics_keep_one_tree_by_run_and_their_samples_a_table_of_their_own(store_path):
    """The metric table is keyed by run (no rowid, no index by benchmark); a sample row is one
    metric's; duplicates are still refused, and deleting a run deletes its metrics and their samples."""
    from old_schemas import take_back

    _older_history(store_path)
    take_back(store_path, 4)
    with SqliteStore(store_path, "demo") as store:
        schema = dict(store.db.execute("SELECT name, sql FROM sqlite_master WHERE tbl_name = 'metric'"))
        assert sorted(schema) == ["metric", "metric_samples_go"] and schema["metric"].endswith("WITHOUT ROWID")
        bad = make_run("c99")
        bad.metrics.append(Metric("sort", "latency", 5.0))     # one (benchmark, measure) twice in a run
        with pytest.raises((StoreError, sqlite3.IntegrityError)):
            store.add_run(bad)
        store.db.execute("DELETE FROM run WHERE commit_hash IN ('c03', 'c04')")
        assert store.db.execute("SELECT COUNT(*) FROM metric").fetchone()[0] == 2 * 13 + 2 - 6
        assert store.db.execute("SELECT COUNT(*) FROM sample").fetchone()[0] == 14 - 3
        assert store.add_run(make_run("c100", samples=(1.0, 2.0)))   # numbered after the last
        key = SeriesKey("main", "tb", "sort", "latency")
        assert tuple(store.series_tail(key, 1)[0].samples) == (1.0, 2.0)
        assert tuple(store.series_tail(key, 2)[0].samples) == tuple(111.0 + j / 100 for j in range(200))


def test_a_read_only_open_of_an_older_history_changes_nothing(store_path):
    from old_schemas import take_back

    _older_history(store_path)
    take_back(store_path, 4)
    kept = store_path.read_bytes()
    with pytest.raises(StoreError, match="needs an upgrade"):
        SqliteStore(store_path, "demo", read_only=True)
    assert store_path.read_bytes() == kept
    with SqliteStore(store_path, "demo") as store:
        assert store.schema_version() == len(MIGRATIONS)


def test_an_upgrade_that_fails_leaves_the_older_history_whole(store_path, monkeypatch):
    """All or nothing: the last migration failing at its last statement leaves version 4 as it was
    (migration 5 before it undone too)."""
    import perfgate.store.sqlite as sqlite_store
    from old_schemas import take_back

    _older_history(store_path)
    take_back(store_path, 4)
    kept = sqlite3.connect(store_path)
    old = kept.execute("SELECT * FROM metric ORDER BY run_id, benchmark_id, measure_id").fetchall()
    kept.close()
    monkeypatch.setattr(sqlite_store, "MIGRATIONS", [*MIGRATIONS[:5], MIGRATIONS[5] + "; SELECT no_such_function()"])
    with pytest.raises(StoreError, match="no_such_function"):
        SqliteStore(store_path, "demo")
    db = sqlite3.connect(store_path)
    try:
        assert db.execute("PRAGMA user_version").fetchone()[0] == 4
        assert db.execute("SELECT * FROM metric ORDER BY run_id, benchmark_id, measure_id").fetchall() == old
        assert db.execute("SELECT COUNT(*) FROM sqlite_master WHERE name IN ('sample', 'metric_samples_go', 'forgotten')"
                          ).fetchone()[0] == 0
    finally:
        db.close()


def test_newer_schema_is_refused(store_path):
    SqliteStore(store_path).close()
    db = sqlite3.connect(store_path)
    db.execute(f"PRAGMA user_version = {len(MIGRATIONS) + 1}")
    db.close()
    with pytest.raises(StoreError, match="newer than this perfgate"):
        SqliteStore(store_path)


def test_not_a_database_is_a_clear_error(tmp_path):
    path = tmp_path / "junk.db"
    path.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StoreError, match="junk.db"):
        open_store(f"sqlite:{path}")


def test_unknown_store_scheme(tmp_path):
    with pytest.raises(Exception, match="unknown store"):
        open_store("ftp://nowhere")
