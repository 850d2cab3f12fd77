"""Histories in an older schema's layout, for the migrations' tests.  The code only writes the
newest layout, so a store is filled by it and then taken back: the metrics rebuilt in the table
an older migration made (its own statement, from MIGRATIONS), the tables added since dropped."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from perfgate.store.migrations import MIGRATIONS
from perfgate.store.sqlite import _statements

# The metric table (and its index) each older version had: version 1's until migration 4.
_METRIC_TABLES = {4: list(_statements(MIGRATIONS[3]))[:1], 3: list(_statements(MIGRATIONS[0]))[-2:]}
_METRIC_TABLES[2] = _METRIC_TABLES[3]
_METRIC_TABLES[5] = _METRIC_TABLES[4]      # migration 5 added the forgotten table only
_COLUMNS = "run_id, benchmark_id, measure_id, value, lower_value, upper_value, samples, attrs"


def take_back(path: Path, version: int) -> None:
    """Rewrite the (closed) store at ``path`` as version ``version`` (2 to 5) kept it."""
    assert version in _METRIC_TABLES
    db = sqlite3.connect(path, isolation_level=None)
    try:
        db.execute("BEGIN")
        rows = db.execute("SELECT x.run_id, x.benchmark_id, x.measure_id, x.value, x.lower_value, x.upper_value,"
                          " s.samples, x.attrs FROM metric x LEFT JOIN sample s ON s.id = x.sample_id").fetchall()
        db.execute("DROP TABLE metric")
        db.execute("DROP TABLE sample")
        for statement in _METRIC_TABLES[version]:
            db.execute(statement)
        table = "metric_by_run" if version >= 4 else "metric"
        db.executemany(f"INSERT INTO {table} ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows)
        if version >= 4:
            db.execute("ALTER TABLE metric_by_run RENAME TO metric")
        db.execute("DROP TABLE detect_scope_mark")    # migration 7's
        if version < 5:
            db.execute("DROP TABLE forgotten")
        if version == 2:
            db.execute("DROP TABLE detect_mark")
            db.execute("DROP TABLE detect_state")
        db.execute(f"PRAGMA user_version = {version}")
        db.execute("COMMIT")
    finally:
        db.close()
