"""What there is to tell about the alerts in a store: pure, no I/O.

Five kinds of event, each with an id stable across runs (the ledger's key):

- ``raised`` — every alert, once (``<alert>:raised``);
- ``updated`` — an open alert a later finding took over, keeping its id: a threshold alert that a
  change point now places and sizes, a change found alone now placed at its siblings' commit, or
  a range that bisect narrowed to one commit (``<alert>:updated:<kind>@<commit>``), or that a later
  analysis of more runs narrowed to fewer suspects (``<alert>:updated:<kind>@<commit>:narrowed-<n>``,
  ``n`` the suspects left: a range only narrows, so each narrowing is told once), so that those told
  of the first finding hear of the better one.  A re-estimate of its size alone is not told: the
  issue's suspects are the same;
- ``again`` — a regression alert still active (not acknowledged, not undone) when the same series regresses again
  (``<earlier alert>:again:<new alert>``), so the people on the first issue hear of it;
- ``closed`` — a regression alert that was acknowledged, or undone by a later improvement of the
  same series that wins back at least half of it (or by a way back of its series ``detect`` saw
  without an alert of its own: a revert), or a change point that the analysis of the runs since no
  longer finds (withdrawn) (``<alert>:closed``);
- ``reopened`` — a withdrawn regression that a later analysis finds again (``<alert>:reopened``),
  so those told it was no longer found hear it is back.  An alert can close and reopen more than
  once: the later ones' ids are numbered (``<alert>:closed:2``, ``<alert>:reopened:2``).

Events come oldest alert first, which is the order each channel receives them in.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import Any

from perfgate.alert_history import WITHDRAWN_AT, oldest_first, reopenings, series_of, undone_by, withdrawn_at
from perfgate.model import NARROWED_FROM, Alert


@dataclass(frozen=True)
class Event:
    kind: str                      # raised | updated | again | closed | reopened
    alert: Alert
    related: Alert | None = None   # again: the new alert; closed: the alert (or way back) that undid it
    reason: str = ""               # closed: "acknowledged" | "undone" | "withdrawn"
    reopened: int = 0              # closed, reopened: how many times the alert was reopened before

    @property
    def id(self) -> str:
        if self.kind == "again":
            return f"{self.alert.id}:again:{self.related.id}"
        if self.kind == "updated":
            narrowed = (updated(self.alert) or {}).get("why") == "narrowed"
            suffix = f":narrowed-{len(self.alert.suspects())}" if narrowed else ""
            return f"{self.alert.id}:updated:{self.alert.kind}@{self.alert.commit}{suffix}"
        # The first close and reopening keep the plain id (a ledger of an older perfgate has it).
        return f"{self.alert.id}:{self.kind}" + (f":{self.reopened + 1}" if self.reopened else "")

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "alert": alert_json(self.alert),
                "related": alert_json(self.related) if self.related else None, "reason": self.reason,
                "reopened": self.reopened}

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> "Event":
        return cls(doc["kind"], _alert(doc["alert"]), _alert(doc["related"]) if doc.get("related") else None,
                   doc.get("reason", ""), doc.get("reopened", 0))


def alert_json(alert: Alert) -> dict[str, Any]:
    """An alert as plain JSON (its commit range a list): as spooled, and as a webhook sends it."""
    doc = asdict(alert)
    doc["commit_range"] = list(alert.commit_range)
    return doc


def _alert(doc: dict[str, Any]) -> Alert:
    return Alert(**{**doc, "commit_range": tuple(doc.get("commit_range") or ())})


def updated(alert: Alert) -> dict | None:
    """What an alert said before a later finding changed it — ``{"why", "commit", "magnitude"}``
    (a narrowed range's: and ``"suspects"``, how many it had), the newest change first (bisect
    runs after detect, and a bisected range narrows no more; a takeover comes before a narrowing,
    which keeps its record) — or None when nothing did.  A takeover that kept bisect's commit
    (``superseded_from.bisected``) tells both, with ``"bisected"``: the commit is bisect's, and what
    it said before is the commit bisect moved it from (``perfgate bisect`` is seldom followed by a
    notify before the next detect) and the size the takeover replaced."""
    bisect = alert.details.get("bisect")
    was = alert.details.get("superseded_from") or {}
    moved = isinstance(bisect, dict) and bisect.get("commit_before") not in (None, alert.commit)
    if moved and not was.get("bisected"):
        return {"why": "bisect", "commit": bisect["commit_before"], "magnitude": None}
    narrowed = alert.details.get(NARROWED_FROM)
    if isinstance(narrowed, dict) and isinstance(narrowed.get("commit_range"), list):
        return {"why": "narrowed", "commit": narrowed.get("commit"), "magnitude": narrowed.get("magnitude"),
                "suspects": len(narrowed["commit_range"])}
    superseded = alert.details.get("superseded")
    if not superseded:
        return None
    told = {"why": "threshold" if superseded == "threshold" else "placed", "commit": was.get("commit"),
            "magnitude": was.get("magnitude")}
    if was.get("bisected") and isinstance(bisect, dict):
        told |= {"bisected": True, "commit": bisect.get("commit_before") or was.get("commit")}
    return told


def moved(event: Event) -> bool:
    """Whether an update placed the alert at another commit (bisect narrowed a range, a change
    placed at its siblings'): that commit's author has not been told (the commit comment), and its
    status is the alert's no more.  An update at the same commit would only repeat what is there."""
    before = (updated(event.alert) or {}).get("commit")
    return bool(before) and before != event.alert.commit


def derive_events(alerts: list[Alert]) -> list[Event]:
    ordered = oldest_first(alerts)
    events: list[Event] = []
    fixes = undone_by(alerts)
    closed_at: dict[str, int] = {}
    for position, alert in enumerate(ordered):
        events.append(Event("raised", alert))
        if alert.direction == "regression":
            events.extend(reopened_events(alert))
        if updated(alert) and alert.status == "active" and alert.id not in fixes and not withdrawn_at(alert):
            events.append(Event("updated", alert))
        if alert.direction == "regression":
            # Tell the series' earlier regressions that are still open at this point.
            for earlier in ordered[:position]:
                if (earlier.direction == "regression" and series_of(earlier) == series_of(alert)
                        and earlier.status == "active" and earlier.id not in closed_at
                        and not withdrawn_at(earlier)):
                    events.append(Event("again", earlier, alert))
        for earlier in ordered[:position + 1]:
            if earlier.id in closed_at or earlier.direction != "regression":
                continue
            fix = fixes.get(earlier.id)
            if fix is not None and fix.id == alert.id:
                events.append(Event("closed", earlier, fix, "undone", len(reopenings(earlier))))
                closed_at[earlier.id] = position
    for alert in ordered:  # acknowledged, withdrawn or gone back alerts: closed after everything raised
        if alert.direction == "regression" and alert.id in fixes and alert.id not in closed_at:
            # undone by a way back of its series that no alert of its own is (``alert_history.WENT_BACK``)
            events.append(Event("closed", alert, fixes[alert.id], "undone", len(reopenings(alert))))
        elif alert.direction == "regression" and alert.status == "acknowledged" and alert.id not in closed_at:
            events.append(Event("closed", alert, None, "acknowledged", len(reopenings(alert))))
        elif alert.direction == "regression" and withdrawn_at(alert) and alert.id not in closed_at:
            # the runs since no longer show the change: its issue closes, as an undone one's does
            events.append(Event("closed", alert, None, "withdrawn", len(reopenings(alert))))
    return events


def reopened_events(alert: Alert) -> list[Event]:
    """Each time a withdrawn regression was found again: its close then (the alert as it was,
    withdrawn there), and its reopening.  Derived again at each notify, so the ledger's ids match."""
    events = []
    for n, again in enumerate(reopenings(alert)):
        then = replace(alert, details={**alert.details, WITHDRAWN_AT: again[WITHDRAWN_AT]})
        events += [Event("closed", then, None, "withdrawn", n), Event("reopened", alert, None, "", n)]
    return events


def still_closed(events: list[Event]) -> set[str]:
    """The alerts whose last close is not followed by a reopening."""
    closed: set[str] = set()
    for e in events:
        if e.kind == "closed":
            closed.add(e.alert.id)
        elif e.kind == "reopened":
            closed.discard(e.alert.id)
    return closed
