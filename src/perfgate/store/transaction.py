"""One SQLite write transaction: ``BEGIN IMMEDIATE`` (the write lock taken up front, so two
writers queue instead of failing halfway) … ``COMMIT``, rolled back on any error so nothing
half-written stays.  Used by the history store and the alert ledger."""

from __future__ import annotations

import sqlite3
from contextlib import contextmanager
from typing import Iterator


@contextmanager
def immediate(db: sqlite3.Connection) -> Iterator[None]:
    db.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")
