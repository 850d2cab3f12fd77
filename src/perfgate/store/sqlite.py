"""The embedded history: one SQLite file in WAL mode.

Concurrency: every write is one ``BEGIN IMMEDIATE`` transaction, so several CI processes can
ingest into the same file at once; SQLite serialises the writers and ``busy_timeout`` makes each
wait instead of failing, and a :class:`~perfgate.store.transaction.WriterQueue` makes them take
turns.  A run either lands whole or not at all.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import sqlite3
import sys
import time
import uuid
from array import array
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Sequence, TypeVar

from perfgate import host_load, jsonio
from perfgate.errors import DamagedStoreError, NewerStoreError, StoreError
from perfgate.escape import visible
from perfgate.store import checked_note, integrity
from perfgate.store.transaction import WriterQueue, immediate
from perfgate.model import Alert, Forgotten, Measure, Metric, Run, Testbed, run_id_of, without_forgotten
from perfgate.store.base import Point, RunSummary, SeriesKey, Store
from perfgate.store.migrations import MIGRATIONS

BUSY_TIMEOUT_MS = 120_000
T = TypeVar("T")


def pack_samples(samples: Sequence[float]) -> bytes | None:
    if not samples:
        return None
    if isinstance(samples, array) and samples.typecode == "d" and sys.byteorder == "little":
        return samples.tobytes()  # already packed: one copy, not two
    a = array("d", samples)
    if sys.byteorder != "little":
        a.byteswap()
    return a.tobytes()


def unpack_samples(blob: bytes | None) -> tuple[float, ...]:
    return tuple(packed_samples(blob))


def packed_samples(blob: bytes | None) -> array | tuple[()]:
    """The samples as a packed ``array('d')``: 8 bytes each, where a tuple of floats takes 32 (a
    series read whole, as detect and the pages read every series, holds them all at once)."""
    if not blob:
        return ()
    a = array("d")
    a.frombytes(blob)
    if sys.byteorder != "little":
        a.byteswap()
    return a


def _reason(e: sqlite3.Error, path: Path) -> str:
    """What a SQLite error means for the user."""
    text = str(e)
    if "locked" in text or "busy" in text:
        return f"the store is locked by another process (waited {BUSY_TIMEOUT_MS / 1000:g} s): {text}"
    if "full" in text or ("disk I/O error" in text and _disk_nearly_full(path)):
        return f"the disk is full ({text})"
    if "readonly" in text or "read-only" in text:
        return f"the store is read-only: {text}"
    head = _head(path) if isinstance(e, sqlite3.DatabaseError) and "not a database" in text else SQLITE_MAGIC
    if head != SQLITE_MAGIC:
        # --store sqlite:out.json (the store and the input swapped) was "damaged; restore it from a
        # backup", for a file that never was a history
        return (f"the file is not a SQLite history ({text}; it begins {head!r}): is --store the right "
                "file? If it is, its header is damaged: restore it from a backup; nothing was written")
    if isinstance(e, sqlite3.DatabaseError) and ("malformed" in text or "not a database" in text):
        return f"the file is damaged ({text}); nothing was written; restore it from a backup"
    return text


SQLITE_MAGIC = b"SQLite format 3\x00"


def _head(path: Path) -> bytes:
    try:
        with open(path, "rb") as f:
            return f.read(len(SQLITE_MAGIC))
    except OSError:
        return b""


def _disk_nearly_full(path: Path) -> bool:
    """SQLite reports a failed WAL index or journal on a full disk as a plain I/O error."""
    try:
        return shutil.disk_usage(path.parent).free < 1024 * 1024
    except OSError:
        return False


# The share of the CPU the benchmark needed that others took while the run measured
# (``perfgate.host_load.contended``), read with the run's other columns.  Runs recorded before
# that figure have none, and are judged as runs without a load; so are container runs read from
# outside (pinned, no ``window``, before stop 57), whose figure held the container's start and
# stop: a second's quiet suite run read 0.15-0.31 of its CPU taken.
_LOAD = (f"CASE WHEN json_extract(r.context, '$.{host_load.KEY}.{host_load.PINNED}') IS NOT NULL "
         f"AND json_extract(r.context, '$.{host_load.KEY}.{host_load.WINDOW}') IS NULL THEN NULL "
         f"ELSE json_extract(r.context, '$.{host_load.KEY}.{host_load.CONTENDED}') END")


def _point(run_id: str, commit: str, time: float | None, load: Any, value: float, lower: float | None,
           upper: float | None, samples: bytes | None, attrs: str | None) -> Point:
    """A series' point from its run's and metric's columns as stored.  ``series_of``, which reads a
    full detect's million points, makes them inline the same way (``tests/test_store_sqlite.py``
    holds the two equal)."""
    return Point(run_id, commit, time, value, lower, upper, packed_samples(samples),
                 json.loads(attrs) if attrs else {}, host_load.figure(load))


def _statements(script: str) -> Iterator[str]:
    """A migration's statements, one at a time (``execute`` takes one): split at each ';' and
    joined again until SQLite calls the statement complete, as a trigger's body has ';' inside."""
    pending = ""
    for piece in script.split(";"):
        pending += piece + ";"
        if sqlite3.complete_statement(pending):
            if pending.strip(" \n;"):
                yield pending
            pending = ""
    if pending.strip(" \n;"):
        yield pending       # an unfinished statement: SQLite says what is wrong with it


# A metric's raw samples, kept in a table of their own (migration 6 says why), joined as ``s``.
_SAMPLES = "LEFT JOIN sample s ON s.id = x.sample_id"

# Benchmarks named in one query's IN list (SQLite allows 32,766 parameters since 3.32, 999 before).
SERIES_PER_QUERY = 500


def _guarded(method: Callable[..., T]) -> Callable[..., T]:
    """Any SQLite failure of a store method becomes a StoreError naming the file, not a traceback."""
    @functools.wraps(method)
    def wrapper(self: "SqliteStore", *args: Any, **kwargs: Any) -> T:
        try:
            return method(self, *args, **kwargs)
        except sqlite3.Error as e:
            raise _failure(e, f"{self.shown}: {_reason(e, self.path)}", self.path) from None
    return wrapper


def set_aside(path: Path, why: str = "damaged") -> Path:
    """Rename a history this perfgate cannot use (and its WAL and shared memory) to
    ``FILE.WHY-TIME`` (``why``: "damaged", or "newer" for a newer perfgate's), kept for a look, so
    that a new one can be made in its place; its checked note goes."""
    aside = path.with_name(f"{path.name}.{why}-{time.strftime('%Y%m%dT%H%M%SZ', time.gmtime())}")
    try:
        os.replace(path, aside)
        for part in ("-wal", "-shm"):
            if Path(f"{path}{part}").exists():
                os.replace(f"{path}{part}", f"{aside}{part}")
        checked_note.note_path(path).unlink(missing_ok=True)
    except OSError as e:
        raise StoreError(f"{visible(path)}: {why}, and it cannot be set aside: {e.strerror or e}") from None
    return aside


def _failure(e: sqlite3.Error, message: str, path: Path) -> StoreError:
    """The error ``message`` reports SQLite's ``e`` as: a DamagedStoreError where SQLite found a
    page of the history malformed (not a file that never was one), else a StoreError."""
    if isinstance(e, sqlite3.DatabaseError) and "malformed" in str(e):
        return DamagedStoreError(message, path)
    return StoreError(message)


class SqliteStore(Store):
    def __init__(self, path: str | Path, project: str = "default", *, read_only: bool = False, create: bool = True):
        """``read_only``: open for reading only, even a file one may write (a worker's handle).
        ``create``: make the file (and its folder) when it does not exist; else that is an error."""
        self.path = Path(path)
        # How messages name it: a path may hold a newline or an escape sequence (it is --store,
        # typed or from the environment), shown as \x0a, never sent to the terminal or a log.
        self.shown = visible(self.path)
        self.project = project
        self._intact = False
        self._wrote = False         # this handle began a write (its close then notes the file checked)
        self._check = None          # the integrity check running beside the work (expect_writes)
        if self.path.exists() and not self.path.is_file():
            raise StoreError(f"{self.shown}: is not a file, so it cannot be a perfgate history")
        if not create and not self.path.exists():
            raise StoreError(f"{self.shown}: no perfgate history there (nothing was created); record runs into it "
                             "with 'perfgate ingest' or 'perfgate run', or check --store / PERFGATE_STORE")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise StoreError(f"{self.shown}: cannot create its folder: {e.strerror}") from None
        # Reading a history one may not write (a CI artefact, a read-only mount) must still work.
        self.read_only = read_only or (self.path.exists() and not os.access(self.path, os.W_OK))
        self._queue = None if self.read_only else WriterQueue(self.path, BUSY_TIMEOUT_MS / 1000)
        # Read before connecting: a connection's first read may create the WAL, which the note covers.
        self._intact = not self.read_only and checked_note.unchanged_since_checked(self.path)
        try:
            self.db = self._connect()
            self.db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            # The version is read before anything could write: a newer perfgate's file is left
            # exactly as it was (not even switched to WAL).
            version = self.db.execute("PRAGMA user_version").fetchone()[0]
            if version > len(MIGRATIONS):
                raise self._newer(version)
            if self.read_only:
                if version < len(MIGRATIONS):
                    raise StoreError(f"{self.shown}: read-only, and its schema (version {version}) needs an "
                                     f"upgrade to {len(MIGRATIONS)} that only a writable open can do")
            else:
                if version < len(MIGRATIONS):
                    self._ensure_intact()
                if self.db.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                    # Switching takes SQLite's exclusive lock: in the writers' turn, like every
                    # write. Outside it, two processes opening a new history at once could each
                    # wait for the other (one holding the write lock for the schema, one a read
                    # lock while asking for the switch) until the 120 s timeout.
                    with self._queue.turn():
                        self.db.execute("PRAGMA journal_mode = WAL")
                self.db.execute("PRAGMA synchronous = NORMAL")
                self.db.execute("PRAGMA foreign_keys = ON")
                self._migrate()
            self._ids: dict[tuple[str, str], int] = {}
            self._project_id = 0
            self._project_id = self._project_row()
            # Another connection's commit changes this (ours do not, nor does switching to WAL
            # once it is done): when it has changed at close, the close notes nothing.
            self._data_version = self.db.execute("PRAGMA data_version").fetchone()[0]
        except sqlite3.Error as e:
            self._close_quietly()
            reason = _reason(e, self.path)
            if reason == str(e):  # nothing more specific (locked, full, read-only, damaged) to say
                reason = f"not a usable perfgate history: {reason}"
            elif "nothing was written" not in reason:
                reason += "; nothing was written"
            raise _failure(e, f"{self.shown}: {reason}", self.path) from None
        except StoreError:
            self._close_quietly()
            raise

    def _connect(self) -> sqlite3.Connection:
        timeout = BUSY_TIMEOUT_MS / 1000
        # Always a file: URI made from the path, so the path is taken literally. Given as it is,
        # SQLite read "file:x.db" as a URI (x.db written, "file:x.db" locked and looked for) and
        # ":memory:" as no file at all (runs "recorded" and lost).
        uri = self.path.resolve().as_uri()
        if not self.read_only:
            return sqlite3.connect(uri, uri=True, isolation_level=None, timeout=timeout)
        uri += "?mode=ro"
        db = sqlite3.connect(uri, uri=True, isolation_level=None, timeout=timeout)
        try:
            db.execute("PRAGMA user_version").fetchone()
            return db
        except sqlite3.OperationalError:
            # A WAL file in a folder we cannot write: SQLite cannot make its shared-memory index.
            # Nobody can write there either, so reading it as immutable is safe.
            db.close()
            return sqlite3.connect(uri + "&immutable=1", uri=True, isolation_level=None, timeout=timeout)

    def _close_quietly(self) -> None:
        self._stop_check()
        if self._queue is not None:
            self._queue.close()
        try:
            self.db.close()
        except (AttributeError, sqlite3.Error):
            pass

    def _project_row(self) -> int:
        """The project's id, or -1 while it has none (every read is then empty).  Created by the
        first write, after the integrity check: opening a store writes nothing."""
        row = self.db.execute("SELECT id FROM project WHERE name = ?", (self.project,)).fetchone()
        if row:
            self._ids[("project", self.project)] = row[0]
        return row[0] if row else -1

    def expect_writes(self) -> None:
        # The check the first write needs starts now, in a child process (see store/integrity.py).
        if not self.read_only and not self._intact and self._check is None and self.path.exists():
            self._check = integrity.start(self.path)

    def _stop_check(self) -> None:
        check, self._check = self._check, None
        if check is not None:
            integrity.stop(check)

    def _ensure_intact(self) -> None:
        """Refuse to write into a damaged file: SQLite may otherwise add to it and spread the damage.
        ``quick_check`` reads every page once (O(size)); done once per open, before the first write
        (by a child process started earlier when the verb said it would write)."""
        if self._intact:
            return
        check, self._check = self._check, None
        if check is not None and integrity.passed(check):
            self._intact = True
            return
        problems = [row[0] for row in self.db.execute("PRAGMA quick_check(5)")]
        if problems != ["ok"]:
            raise DamagedStoreError(f"{self.shown}: failed SQLite's integrity check ({'; '.join(problems)[:300]}); "
                                    "nothing was written; restore it from a backup", self.path)
        self._intact = True

    def _writable(self) -> None:
        if self.read_only:
            raise StoreError(f"{self.shown}: the store is read-only; nothing was written")
        self._ensure_intact()
        self._wrote = True
        if self._project_id == -1:
            self._project_id = 0
            self._project_id = self._dimension("project", self.project)

    # --- schema --------------------------------------------------------------------------------

    def _migrate(self) -> None:
        version = self.db.execute("PRAGMA user_version").fetchone()[0]
        if version == len(MIGRATIONS):
            return
        if version > len(MIGRATIONS):
            raise self._newer(version)
        with self._write():
            # Re-read inside the lock: another process may have migrated meanwhile.
            version = self.db.execute("PRAGMA user_version").fetchone()[0]
            for number, script in enumerate(MIGRATIONS[version:], start=version + 1):
                for statement in _statements(script):
                    self.db.execute(statement)
                self.db.execute(f"PRAGMA user_version = {number}")

    def _newer(self, version: int) -> NewerStoreError:
        return NewerStoreError(f"{self.shown}: schema version {version} is newer than this perfgate understands "
                               f"({len(MIGRATIONS)}); upgrade perfgate (nothing was changed)", self.path)

    @_guarded
    def schema_version(self) -> int:
        return self.db.execute("PRAGMA user_version").fetchone()[0]

    def _write(self):
        return immediate(self.db, self._queue)

    @contextmanager
    def _all_or_nothing(self) -> Iterator[None]:
        """One write transaction whose failure is a StoreError saying nothing was written."""
        try:
            with self._write():
                yield
        except sqlite3.Error as e:
            # Ids cached inside the rolled-back transaction would point nowhere.
            self._ids = {("project", self.project): self._project_id}
            raise StoreError(f"{self.shown}: nothing was written: {_reason(e, self.path)}") from None

    # --- dimensions ----------------------------------------------------------------------------

    def _dimension(self, table: str, name: str, **extra: Any) -> int:
        """Id of the named row in a dimension table, creating it when missing."""
        cached = self._ids.get((table, name))
        if cached is not None:
            return cached
        scope = "" if table == "project" else " AND project_id = ?"
        args = (name,) if table == "project" else (name, self._project_id)
        row = self.db.execute(f"SELECT id FROM {table} WHERE name = ?{scope}", args).fetchone()
        if row is None:
            cols = ["name"] + ([] if table == "project" else ["project_id"]) + list(extra)
            values = list(args) + list(extra.values())
            marks = ", ".join("?" * len(cols))
            self.db.execute(f"INSERT OR IGNORE INTO {table} ({', '.join(cols)}) VALUES ({marks})", values)
            row = self.db.execute(f"SELECT id FROM {table} WHERE name = ?{scope}", args).fetchone()
        self._ids[(table, name)] = row[0]
        return row[0]

    def _testbed(self, testbed: Testbed) -> int:
        tid = self._dimension("testbed", testbed.name, fingerprint=json.dumps(testbed.fingerprint, sort_keys=True))
        if testbed.fingerprint and ("testbed-fp", testbed.name) not in self._ids:
            self._ids[("testbed-fp", testbed.name)] = tid
            # A fingerprint learnt later replaces an empty one.
            self.db.execute("UPDATE testbed SET fingerprint = ? WHERE id = ? AND fingerprint = '{}'",
                            (json.dumps(testbed.fingerprint, sort_keys=True), tid))
        return tid

    def _measure(self, name: str) -> int:
        m = Measure.named(name)
        return self._dimension("measure", name, units=m.units, lower_is_better=int(m.lower_is_better))

    # --- writes --------------------------------------------------------------------------------

    @_guarded
    def add_runs(self, runs: Iterable[Run]) -> list[bool]:
        runs = [r.with_key() for r in runs]
        self._writable()
        added = []
        with self._all_or_nothing():
            for run in runs:
                added.append(self._insert_run(run))
        return added

    def _insert_run(self, run: Run, run_id: str | None = None) -> bool:
        """Record the run unless its key is here already.  Its id: ``run_id`` (the id a history
        file carries, as the store that recorded the run gave it), else the one its project and
        key give; one that another run in this SQLite file holds already is passed over (the
        same folder imported into a second project), never shared: INSERT OR IGNORE would have
        dropped the run as if it were here."""
        uid = next((u for u in (run_id, run_id_of(self.project, run.idempotency_key))
                    if u and self.db.execute("SELECT 1 FROM run WHERE uuid = ?", (u,)).fetchone() is None),
                   None) or str(uuid.uuid4())
        cur = self.db.execute(
            "INSERT OR IGNORE INTO run (uuid, project_id, idempotency_key, branch_id, testbed_id,"
            " commit_hash, start_time, end_time, adapter, context, created)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (uid, self._project_id, run.idempotency_key,
             self._dimension("branch", run.branch), self._testbed(run.testbed), run.commit,
             run.start_time, run.end_time, run.adapter, json.dumps(run.context, sort_keys=True), time.time()),
        )
        if cur.rowcount == 0:
            return False
        run_id = cur.lastrowid
        blobs = [pack_samples(m.samples) for m in run.metrics]
        sample_ids = self._sample_ids(blobs)
        self.db.executemany("INSERT INTO sample (id, samples) VALUES (?, ?)",
                            [(i, blob) for i, blob in zip(sample_ids, blobs) if blob is not None])
        self.db.executemany(
            "INSERT INTO metric (run_id, benchmark_id, measure_id, value, lower_value, upper_value, sample_id, attrs)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [(run_id, self._dimension("benchmark", m.benchmark), self._measure(m.measure), m.value, m.lower,
              m.upper, sample_id, json.dumps(m.attrs, sort_keys=True) if m.attrs else None)
             for m, sample_id in zip(run.metrics, sample_ids)],
        )
        return True

    # --- deleting on purpose (`perfgate forget`) -------------------------------------------------

    def forget_refusal(self, runs: int = 0, retire: bool = False, narrowed: Sequence[str] = ()) -> str | None:
        return None

    @_guarded
    def forget(self, run_ids: Sequence[str], series: Sequence[SeriesKey]) -> list[Forgotten]:
        self._writable()
        with self._all_or_nothing():
            marks = self._forgotten_of(run_ids, series, time.time())
            self._apply_forgotten(marks)
        return marks

    def _forgotten_of(self, run_ids: Sequence[str], series: Sequence[SeriesKey], now: float) -> list[Forgotten]:
        """The records of what :meth:`forget` deletes, read inside its transaction (by run key: the
        name the data folder knows a run by)."""
        found = []
        for run_id in run_ids:
            row = self.db.execute("SELECT idempotency_key FROM run WHERE uuid = ? AND project_id = ?",
                                  (run_id, self._project_id)).fetchone()
            if row is None:
                raise StoreError(f"no run {run_id!r} in {self.shown}; nothing was deleted")
            found.append(Forgotten(row[0], time=now))
        for key in series:
            where, args = self._series_rows(key)
            found += [Forgotten(run_key, key.benchmark, key.measure, now)
                      for (run_key,) in self.db.execute("SELECT r.idempotency_key" + where, args)]
        return found

    def _apply_forgotten(self, marks: Sequence[Forgotten]) -> tuple[int, int]:
        """Delete what ``marks`` name, where this store has it, and record them (inside the
        caller's transaction); a run left without a metric goes too.  Returns how many runs went
        whole, and how many metrics of the runs that stay."""
        if not marks:      # every sync --import comes here: with nothing forgotten, nothing to write
            return 0, 0
        p = self._project_id
        # the newest run any detect saw, of every series or of some (a series' report is the
        # newest of either)
        seen_up_to = self.db.execute(
            "SELECT MAX(last_run) FROM (SELECT last_run FROM detect_mark WHERE project_id = ?"
            " UNION ALL SELECT last_run FROM detect_scope_mark WHERE project_id = ?)", (p, p)).fetchone()[0]
        doomed: set[tuple[int, int, int]] = set()
        removed: dict[SeriesKey, set[int]] = {}     # each series' deleted points that a detect saw
        sql = ("SELECT x.benchmark_id, x.measure_id, br.name, t.name, b.name, m.name FROM metric x"
               " JOIN run r ON r.id = x.run_id JOIN branch br ON br.id = r.branch_id"
               " JOIN testbed t ON t.id = r.testbed_id JOIN benchmark b ON b.id = x.benchmark_id"
               " JOIN measure m ON m.id = x.measure_id WHERE x.run_id = ?")
        for mark in marks:
            row = self.db.execute("SELECT id FROM run WHERE project_id = ? AND idempotency_key = ?",
                                  (p, mark.run_key)).fetchone()
            if row is None:
                continue
            args = [row[0]] if mark.whole_run else [row[0], mark.benchmark, mark.measure]
            for bid, mid, *names in self.db.execute(sql + ("" if mark.whole_run else " AND b.name = ? AND m.name = ?"),
                                                    args).fetchall():
                doomed.add((row[0], bid, mid))
                seen = removed.setdefault(SeriesKey(*names), set())
                if seen_up_to is None or row[0] <= seen_up_to:
                    seen.add(row[0])
        self.db.executemany("DELETE FROM metric WHERE run_id = ? AND benchmark_id = ? AND measure_id = ?", sorted(doomed))
        touched = sorted({rid for rid, _, _ in doomed})
        kept = {rid for rid in touched
                if self.db.execute("SELECT 1 FROM metric WHERE run_id = ? LIMIT 1", (rid,)).fetchone()}
        self.db.executemany("DELETE FROM run WHERE id = ?", [(rid,) for rid in touched if rid not in kept])
        self._redetect(removed)
        self.db.executemany(
            "INSERT OR IGNORE INTO forgotten (project_id, run_key, benchmark, measure, forgotten) VALUES (?, ?, ?, ?, ?)",
            [(p, m.run_key, m.benchmark, m.measure, m.time if m.time is not None else time.time()) for m in marks])
        return len(touched) - len(kept), sum(1 for rid, _, _ in doomed if rid in kept)

    # A saved report's settings mark that no detect writes: the series is analysed again.
    STALE = "forgotten: analyse again"

    def _redetect(self, removed: dict[SeriesKey, set[int]]) -> None:
        """Make the next detect analyse again each series that lost points.  Its saved report is
        marked stale and keeps only how many of the runs left a detect saw (the runs left are
        not new: a streak they ended alerted then, or never will); a series left empty loses it.
        The watermark goes below every run id left: SQLite hands a deleted newest run's id to
        the next run, which a detect would then take for seen."""
        p = self._project_id
        for key, seen in removed.items():
            where = " WHERE project_id = ? AND branch = ? AND testbed = ? AND benchmark = ? AND measure = ?"
            args = (p, key.branch, key.testbed, key.benchmark, key.measure)
            row = self.db.execute("SELECT report FROM detect_state" + where, args).fetchone()
            if row is None:
                continue
            rows, rows_args = self._series_rows(key)
            if self.db.execute("SELECT COUNT(*)" + rows, rows_args).fetchone()[0] == 0:
                self.db.execute("DELETE FROM detect_state" + where, args)
                continue
            points = jsonio.loads(row[0]).get("points")
            points = max(0, points - len(seen)) if type(points) is int else 0
            self.db.execute("UPDATE detect_state SET settings = ?, report = ?" + where,
                            (self.STALE, jsonio.dumps({"points": points}).decode(), *args))
        for marks in ("detect_mark", "detect_scope_mark"):
            self.db.execute(f"UPDATE {marks} SET last_run = MIN(last_run, (SELECT COALESCE(MAX(id), 0) FROM run))"
                            " WHERE project_id = ?", (p,))

    @_guarded
    def forgotten(self) -> list[Forgotten]:
        return [Forgotten(*row) for row in self.db.execute(
            "SELECT run_key, benchmark, measure, forgotten FROM forgotten WHERE project_id = ?"
            " ORDER BY run_key, benchmark, measure", (self._project_id,))]

    def _sample_ids(self, blobs: list[bytes | None]) -> list[int | None]:
        """The sample row each blob will have (None without one): the next ids, numbered here so
        both tables take their rows in one ``executemany`` each.  Inside the write transaction, so
        no other writer takes them meanwhile."""
        if all(blob is None for blob in blobs):
            return [None] * len(blobs)
        next_id = self.db.execute("SELECT COALESCE(MAX(id), 0) + 1 FROM sample").fetchone()[0]
        ids: list[int | None] = []
        for blob in blobs:
            ids.append(None if blob is None else next_id)
            next_id += blob is not None
        return ids

    # --- reads ---------------------------------------------------------------------------------

    @_guarded
    def recorded_keys(self, keys: Iterable[str]) -> set[str]:
        keys = list(keys)
        found: set[str] = set()
        for i in range(0, len(keys), 500):  # SQLite's bound-parameter limit
            chunk = keys[i:i + 500]
            found.update(k for (k,) in self.db.execute(
                f"SELECT idempotency_key FROM run WHERE project_id = ? AND idempotency_key IN ({', '.join('?' * len(chunk))})",
                (self._project_id, *chunk)))
        return found

    @_guarded
    def run_contexts(self, branch: str, commit: str, testbed: str) -> list[dict[str, Any]]:
        rows = self.db.execute(
            "SELECT r.context FROM run r JOIN branch br ON br.id = r.branch_id JOIN testbed t ON t.id = r.testbed_id"
            " WHERE r.project_id = ? AND br.name = ? AND r.commit_hash = ? AND t.name = ?",
            (self._project_id, branch, commit, testbed)).fetchall()
        return [json.loads(c) for (c,) in rows]

    @_guarded
    def series_keys(self, *, branch=None, testbed=None, benchmark=None, measure=None) -> list[SeriesKey]:
        return self._filtered_keys([], [], branch, testbed, benchmark, measure)

    def _filtered_keys(self, runs: list[str], run_args: list[Any], branch, testbed, benchmark, measure) -> list[SeriesKey]:
        """The series matching the filters with a metric in a run matching ``runs`` too."""
        where: dict[str, list[str]] = {"r": ["r.project_id = ?", *runs], "x": []}
        args: dict[str, list[Any]] = {"r": [self._project_id, *run_args], "x": []}
        for column, table, value in (("r.branch_id", "branch", branch), ("r.testbed_id", "testbed", testbed),
                                     ("x.benchmark_id", "benchmark", benchmark), ("x.measure_id", "measure", measure)):
            if value is not None:
                where[column[0]].append(f"{column} = (SELECT id FROM {table} WHERE project_id = ? AND name = ?)")
                args[column[0]] += [self._project_id, value]
        return self._keys_where(where["r"], args["r"], where["x"], args["x"])

    def _keys_where(self, runs: Sequence[str], run_args: Sequence[Any], metrics: Sequence[str] = (),
                    metric_args: Sequence[Any] = ()) -> list[SeriesKey]:
        """The series (branch, testbed, benchmark, measure) with a metric matching ``metrics`` in a
        run matching ``runs`` (conditions on ``r`` and ``x``).  The scan of every metric finds
        distinct ids, named afterwards (joining the four names to each of 10 million metrics took
        5.2 s, the ids alone 3.0 s), a branch and testbed at a time: with those two fixed, the set
        of ids is smaller and faster to keep (0.11 s for 1,000,000 metrics, 0.26 s in one query)."""
        pairs = self.db.execute("SELECT DISTINCT r.branch_id, r.testbed_id FROM run r WHERE " + " AND ".join(runs),
                                run_args).fetchall()
        ids = []
        for branch, testbed in pairs:
            ids += [(branch, testbed, benchmark, measure) for benchmark, measure in self.db.execute(
                "SELECT DISTINCT x.benchmark_id, x.measure_id FROM run r JOIN metric x ON x.run_id = r.id WHERE "
                + " AND ".join([*runs, "r.branch_id = ?", "r.testbed_id = ?", *metrics]),
                [*run_args, branch, testbed, *metric_args])]
        names = self._names("branch", "testbed", "benchmark", "measure")
        return sorted(SeriesKey(names["branch"][b], names["testbed"][t], names["benchmark"][bm], names["measure"][m])
                      for b, t, bm, m in ids)

    def _names(self, *tables: str) -> dict[str, dict[int, str]]:
        """Each of ``tables`` (branch, testbed, benchmark, measure) as the project's id -> name."""
        return {table: dict(self.db.execute(f"SELECT id, name FROM {table} WHERE project_id = ?", (self._project_id,)))
                for table in tables}

    @_guarded
    def series(self, key: SeriesKey) -> list[Point]:
        return self._series_points(key)

    @_guarded
    def series_tail(self, key: SeriesKey, count: int) -> list[Point]:
        return self._series_points(key, count)

    @_guarded
    def series_suites(self, key: SeriesKey) -> set[str]:
        where, args = self._series_rows(key)
        rows = self.db.execute("SELECT DISTINCT json_extract(r.context, '$.suite')" + where, args).fetchall()
        return {suite for (suite,) in rows if isinstance(suite, str)}

    @_guarded
    def series_length(self, key: SeriesKey) -> int:
        where, args = self._series_rows(key)
        return self.db.execute("SELECT COUNT(*)" + where, args).fetchone()[0]

    def _series_rows(self, key: SeriesKey, joins: str = "") -> tuple[str, list[Any]]:
        """``FROM … WHERE …`` selecting one series' (run, metric) rows (and ``joins``), and its arguments."""
        p = self._project_id
        sql = (" FROM run r JOIN metric x ON x.run_id = r.id"
               " AND x.benchmark_id = (SELECT id FROM benchmark WHERE project_id = ? AND name = ?)"
               " AND x.measure_id = (SELECT id FROM measure WHERE project_id = ? AND name = ?)"
               f" {joins} WHERE r.project_id = ? AND r.branch_id = (SELECT id FROM branch WHERE project_id = ? AND name = ?)"
               " AND r.testbed_id = (SELECT id FROM testbed WHERE project_id = ? AND name = ?)")
        return sql, [p, key.benchmark, p, key.measure, p, p, key.branch, p, key.testbed]

    def _series_points(self, key: SeriesKey, newest: int | None = None) -> list[Point]:
        """One series' points, oldest first; with ``newest``, only that many of the latest: the
        testbed's runs are read newest first (run_branch backwards), one probe each, until that many
        have the metric (30 points of a 1,000-run series without reading the other 970)."""
        where, args = self._series_rows(key, _SAMPLES)
        sql = (f"SELECT r.uuid, r.commit_hash, r.start_time, {_LOAD}, x.value, x.lower_value, x.upper_value, s.samples,"
               " x.attrs" + where)
        if newest is None:
            return [_point(*row) for row in self.db.execute(sql + " ORDER BY r.start_time, r.id", args).fetchall()]
        rows = self.db.execute(sql + " ORDER BY r.start_time DESC, r.id DESC LIMIT ?", [*args, newest]).fetchall()
        return [_point(*row) for row in reversed(rows)]

    def reader(self) -> Callable[[], "SqliteStore"]:
        return functools.partial(SqliteStore, self.path, self.project, read_only=True)

    @_guarded
    def series_of(self, keys: Iterable[SeriesKey]) -> dict[SeriesKey, list[Point]]:
        # One query per branch and testbed (and SERIES_PER_QUERY benchmarks) over their runs,
        # probing only the metrics asked for: 100 series of 1,000 runs in 0.26 s, not 0.45 s a query each.
        groups: dict[tuple[str, str], list[SeriesKey]] = {}
        for key in keys:
            groups.setdefault((key.branch, key.testbed), []).append(key)
        out: dict[SeriesKey, list[Point]] = {}
        (known,) = self.db.execute("SELECT COUNT(*) FROM benchmark WHERE project_id = ?",
                                   (self._project_id,)).fetchone()
        for (branch, testbed), group in groups.items():
            names = sorted({k.benchmark for k in group})
            for i in range(0, len(names), SERIES_PER_QUERY):
                some = set(names[i:i + SERIES_PER_QUERY])
                out.update(self._series_in_runs_of(branch, testbed, {k for k in group if k.benchmark in some}, known))
        return out

    def _series_in_runs_of(self, branch: str, testbed: str, keys: set[SeriesKey],
                           known: int) -> dict[SeriesKey, list[Point]]:
        """``keys`` (all of ``branch`` and ``testbed``): their metrics in the runs there, in run order;
        ``known``: how many benchmarks the project has."""
        p = self._project_id
        benchmarks = sorted({k.benchmark for k in keys})
        ids = {(b, m): (bid, mid) for b, bid, m, mid in self.db.execute(
            "SELECT b.name, b.id, m.name, m.id FROM benchmark b, measure m WHERE b.project_id = ? AND m.project_id = ?"
            f" AND b.name IN ({', '.join('?' * len(benchmarks))})", (p, p, *benchmarks))}
        out: dict[SeriesKey, list[Point]] = {k: [] for k in keys}
        # each series' points by its benchmark's and measure's ids as one integer, which SQLite
        # computes for each row (a tuple of the two made in Python for each row cost 4% of the read);
        # ids holds every measure of the project, so no two pairs share a number
        span = 1 + max((mid for _, mid in ids.values()), default=0)
        pairs = {ids[(k.benchmark, k.measure)]: out[k] for k in keys if (k.benchmark, k.measure) in ids}
        if not pairs:
            return out
        wanted = {bid * span + mid: points for (bid, mid), points in pairs.items()}
        bench_ids = sorted({bid for bid, _ in pairs})
        where = ("r.project_id = ? AND r.branch_id = (SELECT id FROM branch WHERE project_id = ? AND name = ?)"
                 " AND r.testbed_id = (SELECT id FROM testbed WHERE project_id = ? AND name = ?)")
        # Each run's columns (its load figure too) are read once and shared by its points (not
        # once per metric: 100 benchmarks a run made the run's strings 100 times, a third of the
        # time of the read).
        runs = {rid: (run_uuid, commit, start, host_load.figure(load)) for rid, run_uuid, commit, start, load
                in self.db.execute(f"SELECT r.id, r.uuid, r.commit_hash, r.start_time, {_LOAD} FROM run r"
                                   f" WHERE {where}", (p, p, branch, p, testbed))}
        # Where most of the project's benchmarks are wanted, each run's metrics are read as one range
        # of the primary key and the others skipped ("+" keeps the filter off the index): a seek per
        # benchmark and run cost a fifth more of SQLite's time.  A few wanted among many are sought.
        # Where all are wanted (a full detect), no filter: the unwanted measures are skipped here.
        if len(bench_ids) == known:
            among, args = "", ()
        else:
            scan = "+" if 2 * len(bench_ids) >= known else ""
            among, args = f" AND {scan}x.benchmark_id IN ({', '.join('?' * len(bench_ids))})", tuple(bench_ids)
        rows = self.db.execute(
            "SELECT x.benchmark_id * ? + x.measure_id, x.run_id, x.value, x.lower_value, x.upper_value, s.samples,"
            f" x.attrs FROM run r JOIN metric x ON x.run_id = r.id {_SAMPLES} WHERE {where}{among}"
            " ORDER BY r.start_time, r.id", (span, p, p, branch, p, testbed, *args))
        for series, rid, value, lower, upper, samples, attrs in rows:
            points = wanted.get(series)
            if points is not None:
                # _point's work inline: the call (and the load's, once a point) cost a third of
                # making the points
                run_uuid, commit, start, load = runs[rid]
                points.append(Point(run_uuid, commit, start, value, lower, upper,
                                    packed_samples(samples) if samples else (), json.loads(attrs) if attrs else {},
                                    load))
        return out

    # --- incremental detection -----------------------------------------------------------------

    @_guarded
    def run_watermark(self) -> int | None:
        return self.db.execute("SELECT MAX(id) FROM run WHERE project_id = ?", (self._project_id,)).fetchone()[0]

    @_guarded
    def series_keys_since(self, watermark: int, *, branch=None, testbed=None, benchmark=None,
                          measure=None) -> list[SeriesKey]:
        return self._filtered_keys(["r.id > ?"], [watermark], branch, testbed, benchmark, measure)

    @_guarded
    def detect_state(self, scope: str = "") -> tuple[int | None, dict[SeriesKey, tuple[str, dict[str, Any]]]]:
        mark = self.db.execute("SELECT last_run FROM detect_scope_mark WHERE project_id = ? AND scope = ?",
                               (self._project_id, scope)).fetchone() if scope else \
            self.db.execute("SELECT last_run FROM detect_mark WHERE project_id = ?", (self._project_id,)).fetchone()
        rows = self.db.execute("SELECT branch, testbed, benchmark, measure, settings, report FROM detect_state"
                               " WHERE project_id = ?", (self._project_id,)).fetchall()
        return (mark[0] if mark else None), {SeriesKey(b, t, bm, m): (s, jsonio.loads(r)) for b, t, bm, m, s, r in rows}

    @_guarded
    def save_detect_state(self, watermark: int | None, reports: dict[SeriesKey, tuple[str, dict[str, Any]]],
                          scope: str = "") -> None:
        self._writable()
        with self._write():
            if watermark is not None and scope:
                self.db.execute("INSERT INTO detect_scope_mark (project_id, scope, last_run) VALUES (?, ?, ?)"
                                " ON CONFLICT (project_id, scope) DO UPDATE SET last_run = excluded.last_run",
                                (self._project_id, scope, watermark))
            elif watermark is not None:
                self.db.execute("INSERT INTO detect_mark (project_id, last_run) VALUES (?, ?)"
                                " ON CONFLICT (project_id) DO UPDATE SET last_run = excluded.last_run",
                                (self._project_id, watermark))
            self.db.executemany(
                "INSERT OR REPLACE INTO detect_state (project_id, branch, testbed, benchmark, measure, settings, report)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                [(self._project_id, k.branch, k.testbed, k.benchmark, k.measure, settings,
                  jsonio.dumps(report).decode())
                 for k, (settings, report) in reports.items()])

    @_guarded
    def all_series(self, *, branch=None) -> dict[SeriesKey, list[Point]]:
        # One plain scan of the metric table, grouped here, instead of a 200-probe query per
        # series (or a join sorted by SQLite): 10,000 series × 200 runs read in seconds.
        sql, args = (f"SELECT r.id, br.name, t.name, r.start_time, r.uuid, r.commit_hash, {_LOAD} FROM run r"
                     " JOIN branch br ON br.id = r.branch_id JOIN testbed t ON t.id = r.testbed_id"
                     " WHERE r.project_id = ?"), [self._project_id]
        if branch is not None:
            sql += " AND br.name = ?"
            args.append(branch)
        runs = {rid: rest for rid, *rest in self.db.execute(sql, args)}
        # Each run's place in ORDER BY start_time, id (NULL times first): rows sort on it alone.
        rank = {rid: i for i, rid in enumerate(sorted(runs, key=lambda r: (runs[r][2] is not None, runs[r][2] or 0, r)))}
        names = self._names("benchmark", "measure")
        groups: dict[tuple, list] = {}
        for bid, mid, rid, v, lo, up, s, a in self.db.execute(
                "SELECT x.benchmark_id, x.measure_id, x.run_id, x.value, x.lower_value, x.upper_value, s.samples,"
                f" x.attrs FROM metric x {_SAMPLES}"):
            run = runs.get(rid)
            if run is not None:
                groups.setdefault((run[0], run[1], bid, mid), []).append((rank[rid], rid, v, lo, up, s, a))
        out = {}
        while groups:   # each series' stored rows freed as its points are made: not all held twice
            (br, tb, bid, mid), rows = groups.popitem()
            rows.sort()  # ranks are unique within a series (one metric per run), so only they are compared
            out[SeriesKey(br, tb, names["benchmark"][bid], names["measure"][mid])] = [
                _point(runs[rid][3], runs[rid][4], runs[rid][2], runs[rid][5], v, lo, up, s, a)
                for _, rid, v, lo, up, s, a in rows]
        return dict(sorted(out.items()))

    @_guarded
    def runs(self, *, branch=None, limit=None) -> list[RunSummary]:
        sql = ("SELECT r.uuid, br.name, r.commit_hash, t.name, r.start_time, r.adapter,"
               " (SELECT COUNT(*) FROM metric x WHERE x.run_id = r.id)"
               " FROM run r JOIN branch br ON br.id = r.branch_id JOIN testbed t ON t.id = r.testbed_id"
               " WHERE r.project_id = ?")
        args: list[Any] = [self._project_id]
        if branch is not None:
            sql += " AND br.name = ?"
            args.append(branch)
        sql += " ORDER BY r.start_time DESC, r.id DESC"
        if limit is not None:
            sql += " LIMIT ?"
            args.append(limit)
        return [RunSummary(*row) for row in self.db.execute(sql, args)]

    @_guarded
    def get_run(self, run_id: str) -> Run:
        row = self.db.execute(
            "SELECT r.id, br.name, r.commit_hash, t.name, t.fingerprint, r.start_time, r.end_time, r.adapter,"
            " r.context, r.idempotency_key FROM run r JOIN branch br ON br.id = r.branch_id"
            " JOIN testbed t ON t.id = r.testbed_id WHERE r.uuid = ? AND r.project_id = ?",
            (run_id, self._project_id)).fetchone()
        if row is None:
            raise StoreError(f"no run {run_id!r} in {self.shown}")
        rid, branch, commit, tb, fp, start, end, adapter, context, key = row
        metrics = [
            Metric(b, m, v, lo, up, unpack_samples(s), json.loads(a) if a else {})
            for b, m, v, lo, up, s, a in self.db.execute(
                "SELECT b.name, m.name, x.value, x.lower_value, x.upper_value, s.samples, x.attrs FROM metric x"
                f" JOIN benchmark b ON b.id = x.benchmark_id JOIN measure m ON m.id = x.measure_id {_SAMPLES}"
                " WHERE x.run_id = ? ORDER BY b.name, m.name", (rid,))
        ]
        return Run(self.project, branch, commit, Testbed(tb, json.loads(fp)), metrics, start, end, adapter,
                   json.loads(context), key)

    @_guarded
    def keyed_run(self, key: str) -> tuple[str, str, str] | None:
        row = self.db.execute(
            "SELECT br.name, r.commit_hash, t.name FROM run r JOIN branch br ON br.id = r.branch_id"
            " JOIN testbed t ON t.id = r.testbed_id WHERE r.project_id = ? AND r.idempotency_key = ?",
            (self._project_id, key)).fetchone()
        return tuple(row) if row else None

    @_guarded
    def run_keys(self) -> dict[str, str]:
        return dict(self.db.execute("SELECT uuid, idempotency_key FROM run WHERE project_id = ?", (self._project_id,)))

    @_guarded
    def run_places(self) -> list[tuple[str, str, str]]:
        """Each run's commit, idempotency key and id: where ``sync`` keeps its file."""
        return self.db.execute("SELECT commit_hash, idempotency_key, uuid FROM run WHERE project_id = ?",
                               (self._project_id,)).fetchall()

    @_guarded
    def testbed_fingerprint(self, name: str) -> dict[str, Any]:
        row = self.db.execute("SELECT fingerprint FROM testbed WHERE project_id = ? AND name = ?",
                              (self._project_id, name)).fetchone()
        return json.loads(row[0]) if row else {}

    # --- alerts ----------------------------------------------------------------------------------

    _ALERT_COLUMNS = ("uuid, kind, branch, testbed, benchmark, measure, commit_hash, previous_commit, commit_range,"
                      " direction, magnitude, ci_low, ci_high, p_value, details, status, created")

    @_guarded
    def record_alerts(self, alerts: list[Alert]) -> list[Alert]:
        new: list[Alert] = []
        if alerts:
            self._writable()
        with self._write():
            # One regression, one alert: a change point found after a threshold alert of the same
            # regression takes that alert over instead of raising a second one.
            for alert, same, takes_over in Alert.sort_out(alerts, self._held_alerts(alerts)):
                if same is not None:
                    # a change point's findings, or the evidence of a streak grown since (no new alert)
                    if same.id and same.renewed_by(alert, takes_over):
                        self._write_findings(same)
                    continue
                alert.id, alert.created, alert.status = str(uuid.uuid4()), time.time(), "active"
                self.db.execute(
                    f"INSERT INTO alert (project_id, {self._ALERT_COLUMNS}) VALUES ({', '.join('?' * 18)})",
                    (self._project_id, alert.id, alert.kind, alert.branch, alert.testbed, alert.benchmark,
                     alert.measure, alert.commit, alert.previous_commit, json.dumps(list(alert.commit_range)),
                     alert.direction, alert.magnitude, alert.ci_low, alert.ci_high, alert.p_value,
                     json.dumps(alert.details, sort_keys=True, default=str), alert.status, alert.created))
                new.append(alert)
        return new

    def unrecorded(self, alerts: list[Alert]) -> list[Alert]:
        return [a for a, same, _ in Alert.sort_out(alerts, self._held_alerts(alerts)) if same is None]

    def _held_alerts(self, alerts: list[Alert]) -> dict[tuple[str, str, str, str, str], list[Alert]]:
        """The recorded alerts of ``alerts``' series and directions, oldest first."""
        held = Alert.by_series([])
        for key in {a.series_key() for a in alerts}:
            held[key] = [self._alert(row) for row in self.db.execute(
                f"SELECT {self._ALERT_COLUMNS} FROM alert WHERE project_id = ? AND branch = ?"
                " AND testbed = ? AND benchmark = ? AND measure = ? AND direction = ? ORDER BY id",
                (self._project_id, *key))]
        return held

    def _write_findings(self, alert: Alert) -> None:
        """What a later finding changes of a recorded alert (inside the caller's transaction): a
        change point taking a threshold alert over, or the files' newest state of it."""
        self.db.execute(
            "UPDATE alert SET kind = ?, commit_hash = ?, previous_commit = ?, commit_range = ?,"
            " magnitude = ?, ci_low = ?, ci_high = ?, p_value = ?, details = ? WHERE uuid = ?",
            (alert.kind, alert.commit, alert.previous_commit, json.dumps(list(alert.commit_range)), alert.magnitude,
             alert.ci_low, alert.ci_high, alert.p_value, json.dumps(alert.details, sort_keys=True, default=str),
             alert.id))

    @_guarded
    def restore(self, runs: list[Run], alerts: list[Alert], acks: set[str],
                forgotten: Sequence[Forgotten] = (), ids: dict[str, str] | None = None
                ) -> tuple[int, int, int, tuple[int, int]]:
        """``perfgate sync --import``: runs, alerts and acknowledgements as recorded elsewhere (same
        ids, creation times and statuses), in one transaction: all of it or nothing.  An alert
        whose regression is here already under another id (two jobs each detected the change) is
        that alert: not added again, and an acknowledgement of either applies to it.  Returns the
        runs, alerts and acknowledgements that were new, and what ``forgotten`` deleted here (runs
        whole, metrics of runs that stay).  ``forgotten``: the runs and metrics deleted on purpose
        (``perfgate forget``): left out of ``runs``, and deleted here when held.
        ``ids``: the run ids the files carry, by run key (a run keeps the id it was recorded with)."""
        runs = without_forgotten([r.with_key() for r in runs], forgotten)
        self._writable()
        with self._all_or_nothing():
            deleted = self._apply_forgotten(forgotten)     # a run this store still holds goes too
            added = sum(self._insert_run(run, (ids or {}).get(run.idempotency_key)) for run in runs)
            restored, same_as = 0, {}
            for a in alerts:
                row = self.db.execute(
                    "SELECT uuid FROM alert WHERE project_id = ? AND (uuid = ? OR (kind = ? AND branch = ?"
                    " AND testbed = ? AND benchmark = ? AND measure = ? AND commit_hash = ? AND direction = ?))",
                    (self._project_id, a.id, a.kind, a.branch, a.testbed, a.benchmark, a.measure, a.commit,
                     a.direction)).fetchone()
                if row is not None:
                    same_as[a.id] = row[0]
                    if row[0] == a.id:
                        # the files' newest state of it (a later finding: a takeover, bisect)
                        self._write_findings(a)
                    continue
                self.db.execute(
                    f"INSERT INTO alert (project_id, {self._ALERT_COLUMNS}) VALUES ({', '.join('?' * 18)})",
                    (self._project_id, a.id, a.kind, a.branch, a.testbed, a.benchmark, a.measure, a.commit,
                     a.previous_commit, json.dumps(list(a.commit_range)), a.direction, a.magnitude, a.ci_low,
                     a.ci_high, a.p_value, json.dumps(a.details, sort_keys=True, default=str), a.status,
                     a.created))
                restored += 1
            acknowledged = 0
            for ack in sorted(acks):
                acknowledged += self.db.execute(
                    "UPDATE alert SET status = 'acknowledged', acknowledged = COALESCE(acknowledged, ?)"
                    " WHERE uuid = ? AND project_id = ? AND status = 'active'",
                    (time.time(), same_as.get(ack, ack), self._project_id)).rowcount
        return added, restored, acknowledged, deleted

    @_guarded
    def alerts(self, status: str | None = None) -> list[Alert]:
        sql = f"SELECT {self._ALERT_COLUMNS} FROM alert WHERE project_id = ?"
        args: list[Any] = [self._project_id]
        if status is not None:
            sql += " AND status = ?"
            args.append(status)
        return [self._alert(row) for row in self.db.execute(sql + " ORDER BY created DESC, id DESC", args)]

    @_guarded
    def acknowledge(self, alert_id: str) -> Alert:
        self._writable()
        with self._write():
            cur = self.db.execute(
                "UPDATE alert SET status = 'acknowledged', acknowledged = COALESCE(acknowledged, ?)"
                " WHERE uuid = ? AND project_id = ?", (time.time(), alert_id, self._project_id))
            if cur.rowcount == 0:
                raise StoreError(f"no alert {alert_id!r} in {self.shown}")
        row = self.db.execute(f"SELECT {self._ALERT_COLUMNS} FROM alert WHERE uuid = ?", (alert_id,)).fetchone()
        return self._alert(row)

    @_guarded
    def update_alert(self, alert: Alert) -> Alert:
        self._writable()    # detect marks withdrawn alerts: a read-only store says so, as record_alerts does
        with self._write():
            cur = self.db.execute(
                "UPDATE alert SET commit_hash = ?, previous_commit = ?, commit_range = ?, details = ?"
                " WHERE uuid = ? AND project_id = ?",
                (alert.commit, alert.previous_commit, json.dumps(list(alert.commit_range)),
                 json.dumps(alert.details, sort_keys=True, default=str), alert.id, self._project_id))
            if cur.rowcount == 0:
                raise StoreError(f"no alert {alert.id!r} in {self.shown}")
        row = self.db.execute(f"SELECT {self._ALERT_COLUMNS} FROM alert WHERE uuid = ?", (alert.id,)).fetchone()
        return self._alert(row)

    @staticmethod
    def _alert(row: tuple) -> Alert:
        (uid, kind, branch, testbed, benchmark, measure, commit, previous, commit_range, direction, magnitude,
         ci_low, ci_high, p_value, details, status, created) = row
        return Alert(branch, testbed, benchmark, measure, commit, direction, magnitude, ci_low, ci_high, p_value,
                     kind, previous, tuple(json.loads(commit_range)), json.loads(details), uid, status, created)

    def close(self) -> None:
        self._stop_check()
        if self._queue is not None:
            self._queue.close()
        # The next writer may skip the check when the file is still as this one leaves it: only
        # where this handle found it intact, wrote, and no other connection committed meanwhile.
        try:
            noted = (self._wrote and self._intact and not self.db.in_transaction
                     and self.db.execute("PRAGMA data_version").fetchone()[0] == self._data_version)
        except sqlite3.Error:
            noted = False
        self.db.close()
        if noted:
            checked_note.note_checked(self.path)
