"""One SQLite write transaction: ``BEGIN IMMEDIATE`` (the write lock taken up front, so two
writers queue instead of failing halfway) … ``COMMIT``, rolled back on any error so nothing
half-written stays.  Used by the history store and the alert ledger.

:class:`WriterQueue` makes the writers of one file take turns fairly (see there)."""

from __future__ import annotations

import fcntl
import os
import sqlite3
import time
from contextlib import contextmanager, nullcontext
from typing import ContextManager, Iterator

POLL_S = 0.001


@contextmanager
def immediate(db: sqlite3.Connection, queue: "WriterQueue | None" = None) -> Iterator[None]:
    with queue.turn() if queue is not None else nullcontext():
        db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            # SQLite ends the transaction itself on some errors (a full disk in the middle of a
            # large one): a ROLLBACK then fails, "no transaction is active", and its error took
            # the place of the one that says why.
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")


class WriterQueue:
    """Writers of one SQLite file take turns through a ``flock`` on ``FILE.lock``, tried every
    millisecond.  SQLite's own busy handler sleeps up to 100 ms between tries, so a process that
    writes back to back takes the lock again long before a sleeping one looks: on a loaded
    machine, 5 of 8 concurrent ingesters once waited out the whole busy timeout while the other 3
    kept writing.  Only the fairness rests on this lock — SQLite's still guards the data, so a
    writer that cannot create the lock file (or an older perfgate) just does not queue.  The lock
    file stays beside the history (removing it could let two writers lock two different files)."""

    def __init__(self, path: str | os.PathLike, timeout_s: float):
        self.path = f"{os.fspath(path)}.lock"
        self.timeout_s = timeout_s
        self.fd: int | None = None
        self.usable = True

    def turn(self) -> ContextManager[None]:
        # Opened at the first write, not before: opening a history to read it creates nothing.
        if self.fd is None and self.usable:
            try:
                self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            except OSError:
                self.usable = False
        return self._turn() if self.fd is not None else nullcontext()

    @contextmanager
    def _turn(self) -> Iterator[None]:
        deadline = time.monotonic() + self.timeout_s
        while True:
            try:
                fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    # The message SQLite gives, so callers report it as they report its own.
                    raise sqlite3.OperationalError("database is locked") from None
                time.sleep(POLL_S)
        try:
            yield
        finally:
            fcntl.flock(self.fd, fcntl.LOCK_UN)

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None
