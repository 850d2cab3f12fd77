"""Deliver every event to every channel exactly once, in order, spooling while a target is down.

Per channel: first the events spooled by earlier runs (oldest first), then the new ones.  Once the
target proves unreachable (retries exhausted), every later event of that channel is spooled
behind the rest without being tried, so a channel never receives a newer event before an older
one.  A refused event (4xx) is reported and left undelivered: the next run tries it again, after
the cause (a token, a repository name) is fixed; the later events of the same alert wait with it
(a close must not be recorded for an issue that was never opened).  An event whose main part
was done but a part refused for good (an issue closed, its comment refused: the issue is locked)
is recorded, the refused part reported once.  A channel that has taken its
``budget`` of seconds in this run (a webhook answering each message after 30 s) has the rest
spooled the same way, so a CI step ends whatever the backlog.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from perfgate.model import Alert
from perfgate.http_client import DeliveryRejected, DeliveryUnreachable
from perfgate.notify.base import Channel, PartlyDelivered
from perfgate.notify.events import Event, derive_events, still_closed
from perfgate.notify.ledger import Ledger


@dataclass
class ChannelReport:
    channel: str
    delivered: list[str] = field(default_factory=list)    # event ids
    spooled: list[str] = field(default_factory=list)
    rejected: list[tuple[str, str]] = field(default_factory=list)   # (event id, reason)
    already: int = 0                                       # delivered by earlier runs
    skipped: list[str] = field(default_factory=list)      # closed history a new channel was spared
    skipped_alerts: set[str] = field(default_factory=set)  # the alerts those events belong to
    folded: list[str] = field(default_factory=list)       # updates their raised message, sent now, already says
    partly: list[tuple[str, str]] = field(default_factory=list)   # delivered, a part refused: (event id, reason)

    def to_json(self) -> dict:
        return {"channel": self.channel, "delivered": self.delivered, "spooled": self.spooled,
                "rejected": [{"event": e, "reason": r} for e, r in self.rejected], "already_delivered": self.already,
                "skipped": self.skipped, "skipped_alerts": sorted(self.skipped_alerts), "folded": self.folded,
                "partly": [{"event": e, "reason": r} for e, r in self.partly]}


def deliver_all(alerts: list[Alert], channels: list[Channel], ledger: Ledger,
                skip_closed: bool = False, budget: float | None = None) -> list[ChannelReport]:
    """``skip_closed``: every event of an alert that is closed already (acknowledged, undone or no longer found)
    is recorded as delivered without being sent — a new or rotated channel starts from the
    regressions still open instead of replaying the whole history.  ``budget``: seconds each
    channel may take in this run before the rest of its events are spooled (None: no limit)."""
    events = derive_events(alerts)
    return [deliver_channel(channel, events, ledger, skip_closed, budget) for channel in channels]


def deliver_channel(channel: Channel, events: list[Event], ledger: Ledger, skip_closed: bool = False,
                    budget: float | None = None) -> ChannelReport:
    report = ChannelReport(channel.label)
    started = time.monotonic()
    waiting = ledger.spooled(channel.key)
    queue = [s.event for s in waiting]
    seen = {e.id for e in queue}
    spooled = frozenset(seen)
    done = {e.id for e in events if channel.handles(e) and ledger.delivered(channel.key, e.id)}
    # Closed alerts this channel never heard of; one it was told of (or has spooled) still hears
    # how it ended.
    closed = still_closed(events) if skip_closed else set()
    closed -= {e.alert.id for e in queue} | {e.alert.id for e in events if e.id in done}
    for event in events:
        if not channel.handles(event) or event.id in seen:
            continue
        if event.id in done:
            report.already += 1
            continue
        if event.alert.id in closed:
            ledger.record(channel.key, event.id, None)
            report.skipped.append(event.id)
            report.skipped_alerts.add(event.alert.id)
            continue
        if event.kind == "updated" and f"{event.alert.id}:raised" not in done | spooled:
            # its "raised" goes out now and already says what the update would (a spooled one
            # was written before the update, and is followed by it)
            ledger.record(channel.key, event.id, None)
            report.folded.append(event.id)
            continue
        queue.append(event)
        seen.add(event.id)
    down: str | None = None
    refused: dict[str, str] = {}  # alert id -> the refused event its later events wait for
    for event in queue:
        if ledger.delivered(channel.key, event.id):  # a spool entry another notifier delivered
            ledger.record(channel.key, event.id, ledger.ref(channel.key, event.id))
            continue
        if down is None and budget is not None and time.monotonic() - started > budget:
            down = f"{channel.label} took over {budget:g} s in this run; the rest waits for the next run"
        if down is not None:
            ledger.spool(channel.key, event, down)
            report.spooled.append(event.id)
            continue
        if event.alert.id in refused:
            report.rejected.append((event.id, f"waits for {refused[event.alert.id]}, refused above"))
            continue
        try:
            ref = channel.deliver(event, lambda event_id: ledger.ref(channel.key, event_id))
        except DeliveryUnreachable as e:
            down = str(e)
            ledger.spool(channel.key, event, down)
            report.spooled.append(event.id)
            continue
        except DeliveryRejected as e:
            report.rejected.append((event.id, str(e)))
            refused[event.alert.id] = event.id
            continue
        except PartlyDelivered as e:
            # recorded: the refused part would be refused again by every later run
            ledger.record(channel.key, event.id, e.ref)
            report.delivered.append(event.id)
            report.partly.append((event.id, e.reason))
            continue
        ledger.record(channel.key, event.id, ref)
        report.delivered.append(event.id)
    return report
