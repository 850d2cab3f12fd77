"""Series read by the worker process that analyses them.

Reading the series was a third of a full ``perfgate detect`` (1,000 series × 1,000 runs: 2.4 s
of 8 s), done by the parent alone before its workers started.  A :class:`WorkerReads` made before
the workers fork lets each of them read the series it analyses on a handle of its own (a store's
handle must not be used across ``fork()``), and keeps what it read for a second look in the same
job (the siblings' re-test of a family analysed there).  A store that cannot be opened again
(:meth:`Store.reader` None) is read in the parent instead, ahead of the workers
(:meth:`WorkerReads.ahead`), and the workers inherit what it read.
"""

from __future__ import annotations

import os
from typing import Any, Iterable

from perfgate import heap
from perfgate.store.base import Point, SeriesKey, Store


class WorkerReads:
    def __init__(self, store: Store):
        self._store = store
        self._opener = store.reader()
        self._pid = os.getpid()         # the process whose handle ``store`` is
        self._own: Store | None = None  # this process's handle, when it is another
        self._read: dict[SeriesKey, list[Point]] = {}

    def ahead(self, keys: Iterable[SeriesKey]) -> None:
        """Called before workers start that will :meth:`load` ``keys``: read them now when the
        workers cannot."""
        if self._opener is None:
            self.load(keys)

    def load(self, keys: Iterable[SeriesKey]) -> dict[SeriesKey, list[Point]]:
        """The points of each of ``keys``, read in this process unless already read."""
        keys = list(keys)
        missing = [k for k in dict.fromkeys(keys) if k not in self._read]
        if missing:
            with heap.loading():
                self._read.update(self._handle().series_of(missing))
        return {k: self._read[k] for k in keys}

    def forget(self) -> None:
        """In a worker that reads for itself, let the points it read go (its job is done with
        them); the parent keeps what it read, for a second look later in the verb."""
        if self._opener is not None and os.getpid() != self._pid:
            self._read = {}

    def _handle(self) -> Store:
        if os.getpid() == self._pid:
            return self._store
        if self._opener is None:
            raise RuntimeError("a worker needs series its store cannot read there: read them ahead()")
        if self._own is None:
            self._own = self._opener()
        return self._own

    def __getstate__(self) -> dict[str, Any]:
        # Sent to a worker that was not forked: the store's handle stays here; the points read
        # ahead go along only when the worker cannot read them itself.
        return {"_store": None, "_opener": self._opener, "_pid": self._pid, "_own": None,
                "_read": self._read if self._opener is None else {}}
