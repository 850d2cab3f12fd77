"""The one interface every delivery channel implements."""

from __future__ import annotations

import hashlib
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Callable

from perfgate.notify.events import Event


@dataclass(frozen=True)
class Links:
    """Where a person reads more: the trend pages and the repository (both optional), and what
    a culprit commit is (``subject_of``: its subject and author, or None when unknown), and how
    many commits one is after another (``commits_after``: None when unknown), which tells a
    thinned backfill's unmeasured commits."""

    pages_url: str = ""
    repo_url: str = ""
    subject_of: Callable[[str], "str | None"] = field(default=lambda sha: None)
    commits_after: Callable[[str, str], "int | None"] = field(default=lambda older, newer: None)


# What a channel may ask about earlier deliveries: the reference (an issue number, say) that
# delivering ``event_id`` on this channel returned, or None.
RefLookup = Callable[[str], "str | None"]


class PartlyDelivered(Exception):
    """Raised by ``deliver`` when what matters was done (an issue closed) but a part was refused
    for good (its comment, on a locked issue): the event is recorded with ``ref``, and ``reason``
    reported once, rather than the refusal holding the event, and those after it, back for ever."""

    def __init__(self, ref: str | None, reason: str):
        super().__init__(reason)
        self.ref, self.reason = ref, reason


class Channel(ABC):
    """One place alerts go.  ``deliver`` must be safe to call again for an event whose earlier
    attempt may have reached the target (a crash between sending and recording): it either
    finds what it did before or sends something the target de-duplicates."""

    kind: str = ""

    def __init__(self, target: str):
        self.target = target

    @property
    def key(self) -> str:
        """Stable identity in the ledger and spool; a hash, since a webhook URL is a secret."""
        return f"{self.kind}:{hashlib.sha256(self.target.encode()).hexdigest()[:20]}"

    @property
    def label(self) -> str:
        """How messages name the channel (never a secret)."""
        return f"{self.kind}:{self.target}"

    @abstractmethod
    def handles(self, event: Event) -> bool:
        """Whether this channel has anything to do for ``event``."""

    @abstractmethod
    def deliver(self, event: Event, refs: RefLookup) -> str | None:
        """Deliver one event; return a reference worth remembering (e.g. an issue number).
        Raises :class:`perfgate.http_client.DeliveryRejected` or ``DeliveryUnreachable``, or
        :class:`PartlyDelivered`."""

    def close(self) -> None:  # noqa: B027 - optional
        pass
