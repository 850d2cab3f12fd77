"""perfgate's own change point alerts for a Bencher-backed history.

Bencher derives its alerts from threshold models and has no API to record others, so the
alerts ``perfgate detect`` finds are remembered in a small JSON file on this machine (next to the
spool; cache that directory between CI jobs to keep "a change alerts once" across jobs).
Writes are atomic: a temporary file, fsynced, then renamed over the old one.
"""

from __future__ import annotations

import json
import time
import uuid
from dataclasses import asdict
from pathlib import Path

from perfgate.errors import InputError, StoreError
from perfgate.model import Alert
from perfgate.outputs import write_atomic


class AlertMemory:
    def __init__(self, path: Path):
        self.path = path

    def load(self) -> list[Alert]:
        if not self.path.exists():
            return []
        try:
            rows = json.loads(self.path.read_text(encoding="utf-8"))
            return [Alert(**{**row, "commit_range": tuple(row.get("commit_range", ()))}) for row in rows]
        except (ValueError, TypeError) as e:
            raise InputError(str(self.path), "", f"not a perfgate alert memory ({e}); move it away") from None

    def _save(self, alerts: list[Alert]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(self.path, json.dumps([asdict(a) for a in alerts], indent=1, default=str), mode=0o600)

    def record(self, alerts: list[Alert]) -> list[Alert]:
        """The alerts that are new.  One regression, one alert: a change point of a regression
        already alerted by a threshold takes that alert over (same id) instead of adding one, and a
        threshold alert whose streak grew gets the longer streak's evidence (:meth:`Alert.renewed_by`)."""
        known = self.load()
        new: list[Alert] = []
        changed = False
        for alert, same, takes_over in Alert.sort_out(alerts, Alert.by_series(known)):
            if same is not None:
                changed |= same.renewed_by(alert, takes_over)
                continue
            alert.id, alert.created, alert.status = self._id_of(alert), time.time(), "active"
            new.append(alert)
        if new or changed:
            self._save(known + new)
        return new

    def unrecorded(self, alerts: list[Alert]) -> list[Alert]:
        """The alerts :meth:`record` would add, adding none (``detect --no-record``)."""
        return [a for a, same, _ in Alert.sort_out(alerts, Alert.by_series(self.load())) if same is None]

    def _id_of(self, alert: Alert) -> str:
        """Named by what it is, not drawn at random: a job that lost this file (a fresh checkout,
        an evicted cache) raises the same change under the same id, and ``notify``'s ledger knows
        it was delivered.  (The file keeps what no id can: acknowledgements.)"""
        what = "\x1f".join((self.path.stem, alert.branch, alert.testbed, alert.benchmark, alert.measure, alert.kind,
                            alert.direction, alert.commit))
        return str(uuid.uuid5(uuid.NAMESPACE_URL, "perfgate-alert:" + what))

    def knows(self, alert_id: str) -> bool:
        return any(alert.id == alert_id for alert in self.load())

    def acknowledge(self, alert_id: str) -> Alert | None:
        known = self.load()
        for alert in known:
            if alert.id == alert_id:
                alert.status = "acknowledged"
                self._save(known)
                return alert
        return None


    def update(self, changed: Alert) -> Alert | None:
        """Replace a remembered alert's commits and details (``bisect``); None when unknown."""
        known = self.load()
        for alert in known:
            if alert.id == changed.id:
                alert.commit, alert.previous_commit = changed.commit, changed.previous_commit
                alert.commit_range, alert.details = tuple(changed.commit_range), dict(changed.details)
                self._save(known)
                return alert
        return None


def memory_error(alert_id: str, project: str) -> StoreError:
    return StoreError(f"no alert {alert_id!r} in Bencher project {project!r} or in this machine's alert memory")
