"""The interface every history store implements (SQLite by default, Bencher when configured).

Commands talk only to this interface, so ``ingest``, ``history``, ``detect`` and ``compare``
work the same against either store.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Sequence

from perfgate.errors import StoreError
from perfgate.model import Alert, Forgotten, Run


@dataclass(frozen=True, order=True)
class SeriesKey:
    """One time series: a measure of a benchmark on a branch and testbed."""

    branch: str
    testbed: str
    benchmark: str
    measure: str

    def label(self) -> str:
        return f"{self.benchmark} [{self.measure}] on {self.branch}@{self.testbed}"


@dataclass(slots=True)    # a full detect holds a million: half the memory, made faster
class Point:
    """One run's metric in a series, in run order."""

    run_id: str
    commit: str
    time: float | None
    value: float
    lower: float | None = None
    upper: float | None = None
    samples: Sequence[float] = ()   # a packed array('d') when read from a SQLite store
    attrs: dict[str, Any] = field(default_factory=dict)
    # The share of the CPU the benchmark needed that other processes took while its run measured
    # (``perfgate.host_load.contended``); None when the run did not record it (ingested output,
    # Bencher, not Linux, or recorded before the figure).
    load: float | None = None


def raw_samples(points: list[Point]) -> list[Sequence[float]] | None:
    """Each point's raw samples for the change point detector, or None when no run has any
    (Bencher keeps none): the detector then skips weighing runs by their spread."""
    return [p.samples for p in points] if any(p.samples for p in points) else None


@dataclass
class RunSummary:
    run_id: str
    branch: str
    commit: str
    testbed: str
    start_time: float | None
    adapter: str
    metrics: int


class Store(ABC):
    """A project's measurement history."""

    project: str

    @abstractmethod
    def add_runs(self, runs: Iterable[Run]) -> list[bool]:
        """Record runs atomically (all or nothing).  Returns, per run, whether it was new: a run
        whose idempotency key is already stored is skipped, never duplicated."""

    def add_run(self, run: Run) -> bool:
        return self.add_runs([run])[0]

    def recorded_keys(self, keys: Iterable[str]) -> set[str]:
        """Which of these idempotency keys are already stored.  A store that cannot tell returns
        none: callers then measure again and :meth:`add_runs` still refuses the duplicate."""
        return set()

    def keyed_run(self, key: str) -> tuple[str, str, str] | None:
        """The branch, commit and testbed of the run stored under this idempotency key.  A store
        that cannot tell returns None."""
        return None

    def run_contexts(self, branch: str, commit: str, testbed: str) -> list[dict[str, Any]]:
        """The contexts of the runs recorded for one commit on a branch and testbed (what suite,
        variant and profile each measured).  A store that cannot tell returns none."""
        return []

    def series_suites(self, key: SeriesKey) -> set[str]:
        """The suites whose runs make up one series (``run``, ``backfill`` and ``bisect`` record
        theirs).  A store that cannot tell returns none."""
        return set()

    @abstractmethod
    def series_keys(self, *, branch: str | None = None, testbed: str | None = None,
                    benchmark: str | None = None, measure: str | None = None) -> list[SeriesKey]:
        """Every series matching the filters (``None`` matches all)."""

    @abstractmethod
    def series(self, key: SeriesKey) -> list[Point]:
        """The points of one series, oldest first."""

    def series_tail(self, key: SeriesKey, count: int) -> list[Point]:
        """The newest ``count`` (≥ 1) points of one series, oldest first: the end of :meth:`series`.
        Stores that can read them without the rest override this (``history`` shows 30 a series)."""
        return self.series(key)[-count:]

    def series_length(self, key: SeriesKey) -> int:
        """How many points one series has (``history`` shows the newest 30 and counts them all)."""
        return len(self.series(key))

    def series_of(self, keys: Iterable[SeriesKey]) -> dict[SeriesKey, list[Point]]:
        """The points of each of these series, as :meth:`series` reads them.  Stores that can
        read many series in one pass override this (detect reads every series of a new run)."""
        return {key: self.series(key) for key in keys}

    def reader(self) -> Callable[[], "Store"] | None:
        """How a worker process forked from this one opens a handle of its own on this history to
        read series in parallel (a handle must not be used across ``fork()``), or None when it
        cannot: its series are then read here, before the workers start."""
        return None

    def all_series(self, *, branch: str | None = None) -> dict[SeriesKey, list[Point]]:
        """Every series with its points (oldest first), in ``series_keys`` order.  Stores that
        can read everything in one pass override this (the trend pages read 10,000 series)."""
        return {key: pts for key in self.series_keys(branch=branch) if (pts := self.series(key))}

    @abstractmethod
    def runs(self, *, branch: str | None = None, limit: int | None = None) -> list[RunSummary]:
        """Recorded runs, newest first."""

    @abstractmethod
    def get_run(self, run_id: str) -> Run:
        """One whole run with its metrics (``StoreError`` when absent)."""

    def run_keys(self) -> dict[str, str]:
        """Each run's idempotency key by run id: ``sync --export`` names a run's file by it, and
        reads from the store only the runs whose file is missing.  Stores that can list the keys
        without reading every run override this."""
        return {s.run_id: self.get_run(s.run_id).with_key().idempotency_key for s in self.runs()}

    @abstractmethod
    def testbed_fingerprint(self, name: str) -> dict[str, Any]:
        """The fingerprint recorded for a testbed name (empty when unknown)."""

    # --- alerts (derived by `perfgate detect`) ---------------------------------------------------
    # Not abstract so that a store without alert support still opens for ingest and history;
    # a store that keeps alerts overrides all three.

    def record_alerts(self, alerts: list[Alert]) -> list[Alert]:
        """Record alerts atomically and return the NEW ones (with ``id`` and ``created`` set).
        An alert describing a change already recorded (:meth:`Alert.same_change`, whatever its
        status) is not added again, so a change alerts once, not on every later run; what it knows
        better is kept in the recorded one (:meth:`Alert.renewed_by`: a change point taking a
        threshold alert over, the evidence of a threshold streak grown since)."""
        raise StoreError(f"{type(self).__name__} does not keep alerts")

    def unrecorded(self, alerts: list[Alert]) -> list[Alert]:
        """The alerts :meth:`record_alerts` would add, recording nothing (``detect --no-record``):
        with no alerts kept, every one."""
        return list(alerts)

    def alerts(self, status: str | None = None) -> list[Alert]:
        """Recorded alerts, newest first; ``status`` ("active" / "acknowledged") filters."""
        raise StoreError(f"{type(self).__name__} does not keep alerts")

    def acknowledge(self, alert_id: str) -> Alert:
        """Mark one alert acknowledged (idempotent) and return it; ``StoreError`` when absent."""
        raise StoreError(f"{type(self).__name__} does not keep alerts")

    def update_alert(self, alert: Alert) -> Alert:
        """Store a narrowed alert (``bisect``): its first commit, previous commit, commit range
        and details; ``StoreError`` when absent."""
        raise StoreError(f"{type(self).__name__} does not keep alerts")

    # --- deleting on purpose (`perfgate forget`; optional) ------------------------------------------

    # How ``forget --benchmark`` retires series here: "delete" their metrics, or "archive" them
    # where the store keeps the data and only stops showing it (a Bencher server).
    retires_by = "delete"

    def forget_refusal(self, runs: int = 0, retire: bool = False, narrowed: Sequence[str] = ()) -> str | None:
        """Why this store cannot delete these ``runs`` (how many) or retire series, narrowed by
        these options (``--measure`` ...), or None; said before anything is planned."""
        return f"{type(self).__name__} cannot delete runs"

    def retired(self, benchmark: str) -> bool:
        """Whether ``benchmark`` is kept here retired (archived), so that a rerun of its retire
        has nothing left to do; a store that deletes what it retires knows no such benchmark."""
        return False

    def forget(self, run_ids: Sequence[str], series: Sequence[SeriesKey]) -> list[Forgotten]:
        """Delete these runs whole and every metric of these series, in one transaction, and
        keep a record of each (:meth:`forgotten`); the detect state of the series touched is
        marked so that the next detect analyses them again.  Returns the records made."""
        raise StoreError(self.forget_refusal() or "cannot delete runs")

    def forgotten(self) -> list[Forgotten]:
        """Every run and metric deleted on purpose, for ``sync --export``."""
        return []

    # --- incremental detection (derived; optional) -----------------------------------------------
    # A store that cannot tell which series got new runs keeps the defaults: every detect is full.

    def run_watermark(self) -> int | None:
        """An increasing mark of the newest recorded run, or None when the store has none."""
        return None

    def series_keys_since(self, watermark: int, *, branch: str | None = None, testbed: str | None = None,
                          benchmark: str | None = None, measure: str | None = None) -> list[SeriesKey] | None:
        """Series matching the filters with a run recorded after ``watermark``; None when the
        store cannot tell."""
        return None

    def detect_state(self, scope: str = "") -> tuple[int | None, dict[SeriesKey, tuple[str, dict[str, Any]]]]:
        """``(watermark, {series: (settings, report)})``: the watermark of the last detect of
        ``scope`` (its filter; "" for every series; None before one), and each series' report as
        the last detect of it saved it."""
        return None, {}

    def save_detect_state(self, watermark: int | None,  # noqa: B027
                          reports: dict[SeriesKey, tuple[str, dict[str, Any]]], scope: str = "") -> None:
        """Replace the reports of the given series (others are kept), and the watermark of
        ``scope`` unless it is None."""

    def expect_writes(self) -> None:  # noqa: B027 - optional: only stores that check before writing
        """The verb will write: what the first write needs may start now, beside its work."""

    def close(self) -> None:  # noqa: B027 - optional for stores holding no resources
        pass

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
