"""What was delivered where, and what waits to be: one SQLite file of its own.

Why a file of its own (``<state>/notify.db``, by default beside a SQLite history, else
``.perfgate/notify/``) rather than a table in the history: it works the same for a Bencher store,
which has nowhere to keep it, and delivery never migrates or locks the history.  SQLite gives the
things the ledger needs: a delivery is recorded and its spool entry removed in one transaction.
Two notifiers at once (two CI jobs sharing a cache) would each see an event as undelivered, so a
ledger is held under an exclusive lock (``notify.db.lock``, flock) from open to close: the second
waits and then finds everything delivered.

Tables:

- ``delivered (channel, event_id)`` — the exactly-once record, with the reference the channel
  returned (an issue number) so later events (a comment, a close) find their issue;
- ``spool`` — events a channel could not take while its target was down, in arrival order
  (``seq``), sent before any newer event for that channel.

Channels are keyed by a hash of their target (a webhook URL is a secret); the spool holds the
event (alert fields only), never a token or a URL.
"""

from __future__ import annotations

import fcntl
import json
import os
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

from perfgate.errors import PerfgateError
from perfgate.escape import visible
from perfgate.store.transaction import immediate
from perfgate.notify.events import Event

SCHEMA = """
CREATE TABLE IF NOT EXISTS delivered (
    channel TEXT NOT NULL, event_id TEXT NOT NULL, ref TEXT, delivered REAL NOT NULL,
    PRIMARY KEY (channel, event_id));
CREATE TABLE IF NOT EXISTS spool (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, channel TEXT NOT NULL, event_id TEXT NOT NULL,
    event TEXT NOT NULL, spooled REAL NOT NULL, last_error TEXT NOT NULL DEFAULT '',
    UNIQUE (channel, event_id));
"""


@dataclass(frozen=True)
class Spooled:
    seq: int
    event: Event
    last_error: str


class Ledger:
    def __init__(self, path: str | Path):
        self.path = Path(path)
        existed = self.path.exists()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._lock = os.open(f"{self.path}.lock", os.O_RDWR | os.O_CREAT, 0o600)
            fcntl.flock(self._lock, fcntl.LOCK_EX)  # released by close (or by the process dying)
            # a file: URI, so the path is literal ("file:x" and ":memory:" are names, as for the history)
            self.db = sqlite3.connect(self.path.resolve().as_uri(), uri=True, timeout=30, isolation_level=None)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.executescript(SCHEMA)
        except (OSError, sqlite3.Error) as e:
            if not existed and self.path.is_file() and self.path.stat().st_size == 0:
                self.path.unlink()      # a full disk left an empty ledger behind
            raise PerfgateError(f"{visible(self.path)}: cannot open the delivery ledger ({e})") from None

    def close(self) -> None:
        self.db.close()
        os.close(self._lock)

    def __enter__(self) -> "Ledger":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- delivered ------------------------------------------------------------------------------

    def delivered(self, channel: str, event_id: str) -> bool:
        return self.db.execute("SELECT 1 FROM delivered WHERE channel = ? AND event_id = ?",
                               (channel, event_id)).fetchone() is not None

    def ref(self, channel: str, event_id: str) -> str | None:
        row = self.db.execute("SELECT ref FROM delivered WHERE channel = ? AND event_id = ?",
                              (channel, event_id)).fetchone()
        return row[0] if row else None

    def record(self, channel: str, event_id: str, ref: str | None) -> None:
        """Delivered: remember it and drop its spool entry, atomically."""
        with self._write():
            self.db.execute("INSERT OR IGNORE INTO delivered (channel, event_id, ref, delivered) VALUES (?, ?, ?, ?)",
                            (channel, event_id, ref, time.time()))
            self.db.execute("DELETE FROM spool WHERE channel = ? AND event_id = ?", (channel, event_id))

    def count(self, channel: str | None = None) -> int:
        sql, args = "SELECT COUNT(*) FROM delivered", ()
        if channel is not None:
            sql, args = sql + " WHERE channel = ?", (channel,)
        return self.db.execute(sql, args).fetchone()[0]

    # --- spool ----------------------------------------------------------------------------------

    def spool(self, channel: str, event: Event, error: str) -> None:
        """Keep ``event`` for later (once; a re-spooled event keeps its place in the queue)."""
        with self._write():
            self.db.execute(
                "INSERT INTO spool (channel, event_id, event, spooled, last_error) VALUES (?, ?, ?, ?, ?)"
                " ON CONFLICT (channel, event_id) DO UPDATE SET last_error = excluded.last_error",
                (channel, event.id, json.dumps(event.to_json(), sort_keys=True), time.time(), error))

    def spooled(self, channel: str) -> list[Spooled]:
        """The channel's waiting events, oldest first."""
        rows = self.db.execute("SELECT seq, event, last_error FROM spool WHERE channel = ? ORDER BY seq",
                               (channel,)).fetchall()
        out = []
        for seq, text, error in rows:
            try:
                out.append(Spooled(seq, Event.from_json(json.loads(text)), error))
            except (ValueError, KeyError, TypeError) as e:
                raise PerfgateError(f"{visible(self.path)}: spool entry {seq} is unreadable ({e}); "
                                    f"delete it with sqlite3 to continue") from None
        return out

    def _write(self):
        return immediate(self.db)
