"""Versioned schema of the SQLite history.  ``PRAGMA user_version`` holds how many of these
migrations a database has had; each runs once, in order, inside the same write transaction as
the version bump.  Append new migrations; never edit one that has shipped."""

MIGRATIONS: list[str] = [
    # 1: the Bencher-like data model, plus raw samples.
    """
    CREATE TABLE project (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
    CREATE TABLE branch (
        id INTEGER PRIMARY KEY, project_id INTEGER NOT NULL REFERENCES project(id),
        name TEXT NOT NULL, UNIQUE (project_id, name));
    CREATE TABLE testbed (
        id INTEGER PRIMARY KEY, project_id INTEGER NOT NULL REFERENCES project(id),
        name TEXT NOT NULL, fingerprint TEXT NOT NULL DEFAULT '{}', UNIQUE (project_id, name));
    CREATE TABLE benchmark (
        id INTEGER PRIMARY KEY, project_id INTEGER NOT NULL REFERENCES project(id),
        name TEXT NOT NULL, UNIQUE (project_id, name));
    CREATE TABLE measure (
        id INTEGER PRIMARY KEY, project_id INTEGER NOT NULL REFERENCES project(id),
        name TEXT NOT NULL, units TEXT NOT NULL DEFAULT '', lower_is_better INTEGER NOT NULL DEFAULT 1,
        UNIQUE (project_id, name));
    CREATE TABLE run (
        id INTEGER PRIMARY KEY,
        uuid TEXT NOT NULL UNIQUE,
        project_id INTEGER NOT NULL REFERENCES project(id),
        idempotency_key TEXT NOT NULL,
        branch_id INTEGER NOT NULL REFERENCES branch(id),
        testbed_id INTEGER NOT NULL REFERENCES testbed(id),
        commit_hash TEXT NOT NULL,
        start_time REAL, end_time REAL,
        adapter TEXT NOT NULL DEFAULT '',
        context TEXT NOT NULL DEFAULT '{}',
        created REAL NOT NULL,
        UNIQUE (project_id, idempotency_key));
    CREATE INDEX run_branch ON run(branch_id, testbed_id, start_time, id);
    CREATE TABLE metric (
        id INTEGER PRIMARY KEY,
        run_id INTEGER NOT NULL REFERENCES run(id) ON DELETE CASCADE,
        benchmark_id INTEGER NOT NULL REFERENCES benchmark(id),
        measure_id INTEGER NOT NULL REFERENCES measure(id),
        value REAL NOT NULL, lower_value REAL, upper_value REAL,
        samples BLOB,            -- little-endian float64 array
        attrs TEXT,              -- JSON, NULL when empty
        UNIQUE (run_id, benchmark_id, measure_id));
    CREATE INDEX metric_series ON metric(benchmark_id, measure_id, run_id);
    """,
]

MIGRATIONS.append(
    # 2: alerts derived by `perfgate detect` (change points and threshold breaches).  One row per
    # change: the detect command recognises a change already alerted (same series, kind and
    # direction, overlapping commit range) and does not insert it again.
    """
    CREATE TABLE alert (
        id INTEGER PRIMARY KEY,
        uuid TEXT NOT NULL UNIQUE,
        project_id INTEGER NOT NULL REFERENCES project(id),
        kind TEXT NOT NULL,
        branch TEXT NOT NULL, testbed TEXT NOT NULL, benchmark TEXT NOT NULL, measure TEXT NOT NULL,
        commit_hash TEXT NOT NULL,
        previous_commit TEXT NOT NULL DEFAULT '',
        commit_range TEXT NOT NULL DEFAULT '[]',   -- JSON list of commits
        direction TEXT NOT NULL,
        magnitude REAL NOT NULL, ci_low REAL, ci_high REAL, p_value REAL,
        details TEXT NOT NULL DEFAULT '{}',
        status TEXT NOT NULL DEFAULT 'active',     -- active | acknowledged
        created REAL NOT NULL,
        acknowledged REAL,
        UNIQUE (project_id, kind, branch, testbed, benchmark, measure, commit_hash, direction));
    CREATE INDEX alert_series ON alert(project_id, branch, testbed, benchmark, measure)
    """
)

MIGRATIONS.append(
    # 3: incremental `perfgate detect`: the last run analysed (a watermark) and each series' last
    # report with the settings it was computed under, so that only series with newer runs (or new
    # settings) are analysed again.  Derived data: dropping both tables only costs one full detect.
    """
    CREATE TABLE detect_mark (
        project_id INTEGER PRIMARY KEY REFERENCES project(id),
        last_run INTEGER NOT NULL);
    CREATE TABLE detect_state (
        project_id INTEGER NOT NULL REFERENCES project(id),
        branch TEXT NOT NULL, testbed TEXT NOT NULL, benchmark TEXT NOT NULL, measure TEXT NOT NULL,
        settings TEXT NOT NULL,          -- what the report was computed under
        report TEXT NOT NULL,            -- JSON
        PRIMARY KEY (project_id, branch, testbed, benchmark, measure))
    """
)

MIGRATIONS.append(
    # 4: metrics kept in one B-tree, in run order.  The metric table had three (its rows by a rowid
    # nothing used, the (run, benchmark, measure) key, and metric_series by benchmark), so every
    # point was stored three times and `PRAGMA quick_check`, which every writer runs first, read
    # it three times: on 10,000 series × 1,000 runs the file goes from 650 MB to 295 MB and the
    # check from 1.5 s to 1.0 s.  Every query reaches metrics through their runs (the key's
    # prefix), which is how a series is read: its runs, then one probe each.  The old table's pages
    # are freed for later runs to reuse (`VACUUM` gives them back to the disk).
    """
    CREATE TABLE metric_by_run (
        run_id INTEGER NOT NULL REFERENCES run(id) ON DELETE CASCADE,
        benchmark_id INTEGER NOT NULL REFERENCES benchmark(id),
        measure_id INTEGER NOT NULL REFERENCES measure(id),
        value REAL NOT NULL, lower_value REAL, upper_value REAL,
        samples BLOB,            -- little-endian float64 array
        attrs TEXT,              -- JSON, NULL when empty
        PRIMARY KEY (run_id, benchmark_id, measure_id)) WITHOUT ROWID;
    INSERT INTO metric_by_run (run_id, benchmark_id, measure_id, value, lower_value, upper_value, samples, attrs)
        SELECT run_id, benchmark_id, measure_id, value, lower_value, upper_value, samples, attrs FROM metric
        ORDER BY run_id, benchmark_id, measure_id;
    DROP TABLE metric;
    ALTER TABLE metric_by_run RENAME TO metric
    """
)

MIGRATIONS.append(
    # 5: `perfgate forget`: what was deleted on purpose, by run key (the key the data folder names a
    # run by), so that `sync --export` writes it to the folder and `sync --import` does not bring
    # the run back.  benchmark = measure = '' is the whole run; else that one metric of it.
    """
    CREATE TABLE forgotten (
        project_id INTEGER NOT NULL REFERENCES project(id),
        run_key TEXT NOT NULL,
        benchmark TEXT NOT NULL DEFAULT '',
        measure TEXT NOT NULL DEFAULT '',
        forgotten REAL NOT NULL,
        PRIMARY KEY (project_id, run_key, benchmark, measure))
    """
)

MIGRATIONS.append(
    # 6: raw samples in a table of their own, a rowid table, the metric row pointing at its
    # samples' row.  A WITHOUT ROWID row keeps only about 1 KB on its 4 KB page, so a blob of
    # 125–450 samples (1–3.6 KB; pytest-benchmark, hyperfine) took an overflow page of its own,
    # mostly empty: 5,000 metrics made 23.5 MB whatever K in 125–450, against 5.0–18 MB of
    # samples.  A rowid table keeps up to about 4 KB a row on its page, so the blobs pack densely,
    # and the metric rows (read by run, as before) stay small.  No foreign key on sample_id: one
    # would check every insert and, with no index on it, scan the metrics at every delete; the
    # trigger removes a metric's samples with it instead (a run's deletion cascades to both).
    # The samples are numbered in the metrics' key order, the same numbering on both sides: a
    # count in the table's own order, which SQLite reads without sorting (a PARTITION BY sorted
    # every row, blobs and all, in a temporary B-tree).
    """
    CREATE TABLE sample (
        id INTEGER PRIMARY KEY,
        samples BLOB NOT NULL);  -- little-endian float64 array
    CREATE TABLE metric_with_sample_id (
        run_id INTEGER NOT NULL REFERENCES run(id) ON DELETE CASCADE,
        benchmark_id INTEGER NOT NULL REFERENCES benchmark(id),
        measure_id INTEGER NOT NULL REFERENCES measure(id),
        value REAL NOT NULL, lower_value REAL, upper_value REAL,
        sample_id INTEGER,       -- sample(id), NULL without samples
        attrs TEXT,              -- JSON, NULL when empty
        PRIMARY KEY (run_id, benchmark_id, measure_id)) WITHOUT ROWID;
    INSERT INTO sample (id, samples)
        SELECT ROW_NUMBER() OVER (ORDER BY run_id, benchmark_id, measure_id), samples FROM metric
        WHERE samples IS NOT NULL ORDER BY run_id, benchmark_id, measure_id;
    INSERT INTO metric_with_sample_id (run_id, benchmark_id, measure_id, value, lower_value, upper_value,
                                       sample_id, attrs)
        SELECT run_id, benchmark_id, measure_id, value, lower_value, upper_value,
               CASE WHEN samples IS NOT NULL THEN SUM(samples IS NOT NULL) OVER (
                   ORDER BY run_id, benchmark_id, measure_id) END,
               attrs FROM metric ORDER BY run_id, benchmark_id, measure_id;
    DROP TABLE metric;
    ALTER TABLE metric_with_sample_id RENAME TO metric;
    CREATE TRIGGER metric_samples_go AFTER DELETE ON metric WHEN old.sample_id IS NOT NULL
    BEGIN
        DELETE FROM sample WHERE id = old.sample_id;
    END
    """
)

MIGRATIONS.append(
    # 7: a detect of some series (``detect --branch main``, as the shipped workflow runs it) keeps a
    # watermark of its own, by its filter, so that the next detect with that filter analyses only
    # its series with newer runs; without it every such detect analysed every series of the scope.
    # Derived data, as detect_mark is.
    """
    CREATE TABLE detect_scope_mark (
        project_id INTEGER NOT NULL REFERENCES project(id),
        scope TEXT NOT NULL,             -- the filter, as JSON
        last_run INTEGER NOT NULL,
        PRIMARY KEY (project_id, scope))
    """
)
